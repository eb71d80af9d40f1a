//! Lowers every visible litmus test and every supported benchmark program of
//! the public corpora (`support::corpus_dir()`) and checks basic
//! well-formedness of the result.

use crate::support;

use lazysma::frontend;
use lazysma::ir::{Program, StmtKind};
use lazysma::options::TranslateOptions;
use std::path::PathBuf;
use std::time::Instant;
use support::corpus_dir as corpus;

fn well_formed(program: &Program) {
    assert_eq!(program.functions[program.main].name, "main");
    assert_eq!(program.locations.get(0).expect("a location").name, "NULL");
    assert!(program.heap_block_size >= 1);
    for function in &program.functions {
        assert!(function.origin < program.origins.len());
        check_block(&function.body, program);
    }
}

fn check_block(block: &[lazysma::ir::Stmt], program: &Program) {
    for stmt in block {
        assert!(stmt.origin < program.origins.len());
        let origin = &program.origins[stmt.origin];
        assert!(origin.line > 0, "statement without a line: {:?}", stmt.kind);
        match &stmt.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                check_block(then_branch, program);
                check_block(else_branch, program);
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                check_block(prelude, program);
                check_block(body, program);
                check_block(latch, program);
            }
            StmtKind::Call { function, .. } | StmtKind::ThreadCreate { function, .. } => {
                assert!(*function < program.functions.len())
            }
            _ => {}
        }
    }
}

fn lower_all(paths: &[PathBuf]) -> Vec<String> {
    let options = TranslateOptions::default();
    let mut failures = Vec::new();
    for path in paths {
        match frontend::load(path, &options) {
            Ok(program) => well_formed(&program),
            Err(error) => failures.push(format!(
                "{}: {}",
                path.display(),
                match &error {
                    frontend::FrontendError::Source(d) =>
                        format!("{}:{}: {} ({})", d.line, d.column, d.message, d.label),
                    other => other.to_string(),
                }
            )),
        }
    }
    failures
}

#[test]
fn every_visible_litmus_test_lowers() {
    let dir = corpus().join("litmus/visible");
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{} is readable: {error}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 400);
    let start = Instant::now();
    let failures = lower_all(&paths);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let per_file = start.elapsed().as_secs_f64() * 1000.0 / paths.len() as f64;
    eprintln!(
        "{:.1} ms per litmus file (preprocess, parse, lower)",
        per_file
    );
}

#[test]
fn parsing_and_lowering_a_litmus_test_takes_milliseconds() {
    let path = corpus().join("litmus/visible/2+2W.c");
    let text = frontend::preprocess(&path, &TranslateOptions::default())
        .unwrap_or_else(|error| panic!("{} preprocesses: {error:?}", path.display()));
    let runs = 20;
    let start = Instant::now();
    for _ in 0..runs {
        assert!(frontend::lower_preprocessed(&text).is_ok());
    }
    let per_run = start.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    eprintln!("{per_run:.2} ms to parse and lower 2+2W.c");
    // Generous bound: a debug build on a loaded machine.
    assert!(per_run < 250.0, "{per_run} ms");
}

#[test]
fn supported_benchmarks_lower() {
    let manifest = corpus().join("bench/manifest.tsv");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|error| panic!("{} is readable: {error}", manifest.display()));
    let paths: Vec<PathBuf> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .map(|p| corpus().join("bench").join(p))
        .collect();
    let failures = lower_all(&paths);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
