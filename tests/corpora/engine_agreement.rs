//! The two engines of `lazysma verify` agree: on a sample of the corpora
//! (`examples/`, the classic litmus shapes and every fortieth visible
//! litmus test, the mutual-exclusion programs of the benchmark corpus),
//! under SC, TSO and PSO (one model per program, in turn, in the default
//! tier; every model and every eighth litmus test with `LAZYSMA_FULL=1`),
//! `--engine smc` and `--engine
//! cbmc` give the same
//! verdict wherever the native engine does not decline the program, and
//! each names itself in the JSON report; so do the floating-point
//! fixtures and the heap programs of the native engine.
//! `LAZYSMA_ENGINES_ALL=1` runs every visible litmus test and every
//! program of the benchmark manifest.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{
    bench_bounds, corpus_dir, litmus_tests, parallel_map, require_cbmc, verify, workers,
};

/// The classic shapes of the litmus corpus, which always run (the sample
/// `engine_agreement` of `tests/fixtures/litmus_samples.tsv`).
fn classic() -> Vec<String> {
    support::sample("litmus_samples.tsv", "engine_agreement")
}

/// The mutual-exclusion programs of the benchmark corpus, at the loop
/// depth of Table I (their bugs need one iteration): the sample
/// `engine_agreement` of `tests/fixtures/bench_samples.tsv`.
fn mutual_exclusion() -> Vec<String> {
    support::sample("bench_samples.tsv", "engine_agreement")
}

const MODELS: [&str; 3] = ["sc", "tso", "pso"];

fn everything() -> bool {
    support::asked("LAZYSMA_ENGINES_ALL")
}

/// One program with the bounds both engines get.
#[derive(Debug, Clone)]
struct Program {
    file: PathBuf,
    bounds: Vec<String>,
}

fn examples() -> Vec<Program> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("examples/ is readable")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "c"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| Program {
            file,
            bounds: Vec::new(),
        })
        .collect()
}

/// The bounds of every litmus test (the `*` row of
/// `tests/fixtures/litmus_bounds.tsv`): CBMC's default buffer bound hides
/// a bug of `MOREDETOUR0604`, which the native engine, without one, finds.
fn litmus_bounds() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/litmus_bounds.tsv"
    ))
    .expect("tests/fixtures/litmus_bounds.tsv is readable");
    text.lines()
        .find_map(|line| line.strip_prefix("*\t*\t"))
        .expect("the bounds of every litmus test")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn litmus_sample() -> Vec<Program> {
    let bounds = litmus_bounds();
    let classic = classic();
    litmus_tests()
        .into_iter()
        .enumerate()
        .filter(|(index, test)| {
            everything() || classic.contains(&test.name) || index % support::sample_stride(40) == 0
        })
        .map(|(_, test)| Program {
            file: test.file,
            bounds: bounds.clone(),
        })
        .collect()
}

/// The benchmark programs of the sample, or of the whole manifest, with
/// their bounds from `tests/fixtures/bench_bounds.tsv` (else one loop
/// iteration, as Table I gives the mutual-exclusion programs).
fn bench_sample() -> Vec<Program> {
    let bounds = bench_bounds();
    let directory = corpus_dir().join("bench");
    let paths: Vec<String> = if everything() {
        let manifest = std::fs::read_to_string(directory.join("manifest.tsv"))
            .expect("the benchmark manifest is readable");
        manifest
            .lines()
            .skip(1)
            .filter_map(|line| line.split('\t').next())
            .map(str::to_string)
            .collect()
    } else {
        mutual_exclusion()
    };
    paths
        .into_iter()
        .map(|path| Program {
            file: directory.join(&path),
            bounds: bounds
                .get(&path)
                .cloned()
                .unwrap_or_else(|| vec!["--unwind".to_string(), "1".to_string()]),
        })
        .collect()
}

/// What one engine said about one program under one model.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    Safe,
    Violation,
    /// No verdict (the native engine declined, or a time limit): the exit
    /// code and the message.
    None(i32, String),
}

fn answer(file: &Path, model: &str, bounds: &[String], engine: &str) -> Answer {
    let flag = format!("--{model}");
    // the assertions' verdicts: CBMC does not decide deadlocks and waits
    // that never end (`tests/fixtures/bench_waits.tsv` has the corpus's)
    let mut arguments = vec![
        flag.as_str(),
        "--engine",
        engine,
        "--format",
        "json",
        "--timeout",
        "300",
        "--no-deadlock-check",
    ];
    arguments.extend(bounds.iter().map(String::as_str));
    let (code, stdout, stderr) = verify(file, &arguments);
    let report: Value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    let named = report["engine"] == engine;
    match code {
        0 | 10 => assert!(
            named,
            "{} --{model}: the report names the engine {engine}\n{stdout}\n{stderr}",
            file.display()
        ),
        _ => {}
    }
    match code {
        0 => Answer::Safe,
        10 => Answer::Violation,
        _ => Answer::None(
            code,
            report["message"].as_str().unwrap_or(&stderr).to_string(),
        ),
    }
}

/// The models each program runs under: every model in the full tier
/// (`LAZYSMA_FULL=1`); in the default tier one, a different one from one
/// program to the next, so that each model still meets the sample
/// (`tests/corpora/litmus.rs` and `tests/engines/smc_engine.rs` run the classic shapes
/// under every model with each engine).
fn jobs(programs: &[Program]) -> Vec<(&Program, &'static str)> {
    let every = support::full_tier() || everything();
    programs
        .iter()
        .enumerate()
        .flat_map(|(index, program)| {
            MODELS
                .iter()
                .enumerate()
                .filter(move |(which, _)| every || *which == index % MODELS.len())
                .map(move |(_, model)| (program, *model))
        })
        .collect()
}

/// Runs both engines on every program under the models of its tier; fails
/// on any disagreement, and when CBMC gives no verdict.
fn agree(programs: &[Program]) {
    let jobs = jobs(programs);
    let outcomes = parallel_map(&jobs, workers(), |(program, model)| {
        let native = answer(&program.file, model, &program.bounds, "smc");
        let cbmc = answer(&program.file, model, &program.bounds, "cbmc");
        (program.file.clone(), *model, native, cbmc)
    });
    let mut failures = Vec::new();
    let mut declined = 0;
    for (file, model, native, cbmc) in &outcomes {
        let name = file.display();
        match (native, cbmc) {
            (_, Answer::None(code, message)) => failures.push(format!(
                "{name} --{model}: CBMC gave exit {code}: {message}"
            )),
            (Answer::None(1, _), _) => declined += 1,
            (Answer::None(code, message), _) => failures.push(format!(
                "{name} --{model}: the native engine gave exit {code}: {message}"
            )),
            (native, cbmc) if native != cbmc => failures.push(format!(
                "{name} --{model}: the native engine says {native:?}, CBMC {cbmc:?}"
            )),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs disagree:\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
    // the native engine answers most runs (it declines deep programs
    // with nondeterministic data, and state spaces past its limit)
    assert!(
        declined * 2 <= outcomes.len(),
        "the native engine declined {declined} of {} runs",
        outcomes.len()
    );
}

#[test]
fn the_engines_agree_on_the_examples() {
    if require_cbmc() {
        agree(&examples());
    }
}

#[test]
fn the_engines_agree_on_litmus_tests() {
    if require_cbmc() {
        agree(&litmus_sample());
    }
}

#[test]
fn the_engines_agree_on_benchmark_programs() {
    if require_cbmc() {
        agree(&bench_sample());
    }
}

/// The floating-point fixtures of the native engine that it does not
/// decline (`tests/fixtures/smc/float_*.c`): float rounding, conversions,
/// NaNs, a double passed between threads, and the math functions of
/// CBMC's library, including a result where CBMC's library and IEEE 754
/// differ (`float_library_sign.c`).
const FLOATING: [&str; 7] = [
    "float_rounding.c",
    "float_rounding_mutant.c",
    "float_conversions.c",
    "float_nan.c",
    "float_message_passing.c",
    "float_library.c",
    "float_library_sign.c",
];

#[test]
fn the_engines_agree_on_floating_point() {
    if !require_cbmc() {
        return;
    }
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/smc");
    let programs: Vec<Program> = FLOATING
        .iter()
        .map(|name| Program {
            file: directory.join(name),
            bounds: Vec::new(),
        })
        .collect();
    agree(&programs);
}

/// The heap programs of `tests/fixtures/smc/` (`heap_*.c`, with their
/// answers in `expected.tsv`), at the default bounds, and the one that
/// runs out of heap blocks also with a third block and with larger blocks
/// (where the cut-off allocations go on and an assertion fails).
fn heap_programs() -> Vec<Program> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/smc");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("tests/fixtures/smc/ is readable")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension().is_some_and(|extension| extension == "c")
                && path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("heap_"))
        })
        .collect();
    files.sort();
    let mut programs: Vec<Program> = files
        .into_iter()
        .map(|file| Program {
            file,
            bounds: Vec::new(),
        })
        .collect();
    for bound in [["--nmalloc", "3"], ["--heap-block", "12"]] {
        programs.push(Program {
            file: directory.join("heap_out_of_blocks.c"),
            bounds: bound.iter().map(|word| word.to_string()).collect(),
        });
    }
    programs
}

#[test]
fn the_engines_agree_on_heap_programs() {
    if require_cbmc() {
        let programs = heap_programs();
        assert!(programs.len() >= 8, "the heap fixtures are found");
        agree(&programs);
    }
}

/// A bug that needs two threads' atomic sections to alternate: the native
/// engine's search once missed it (a thread ran from the end of one
/// section into the next); both engines find it now.
#[test]
fn both_engines_find_the_bug_of_alternating_atomic_sections() {
    if !require_cbmc() {
        return;
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/smc/atomic_sections.c");
    let mut properties = Vec::new();
    for engine in ["smc", "cbmc"] {
        let (code, stdout, stderr) =
            verify(&file, &["--sc", "--engine", engine, "--format", "json"]);
        assert_eq!(code, 10, "--engine {engine}:\n{stdout}\n{stderr}");
        let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
        assert_eq!(report["engine"], engine);
        properties.push(report["property"]["id"].clone());
    }
    // the native engine names the property by CBMC's id
    assert_eq!(properties[0], properties[1]);
    assert_eq!(properties[0], "thread0_main.assertion.1");
}

/// The verdict of the native engine on the assertions alone ([`answer`]
/// turns off the deadlock and liveness check, which the unrolled loops of
/// `--unroll-spin-loops` cannot make), with `extra` options.
fn assertions_answer(program: &Program, model: &str, extra: &[&str]) -> Answer {
    let mut bounds = Vec::new();
    let mut given = program.bounds.iter();
    while let Some(option) = given.next() {
        // `extra`'s loop bound replaces the program's
        if option == "--unwind" && extra.contains(&"--unwind") {
            given.next();
            continue;
        }
        bounds.push(option.clone());
    }
    bounds.extend(extra.iter().map(|option| option.to_string()));
    answer(&program.file, model, &bounds, "smc")
}

/// Await loops as waits lose no verdict: on the examples, the benchmark
/// sample and the spin-loop fixtures, the native engine's verdict with
/// each await loop a wait equals its verdict with every loop unrolled
/// three times, wherever both answer.
#[test]
fn spin_loops_as_waits_give_the_verdicts_of_unrolled_loops() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify");
    let mut programs = examples();
    programs.extend(bench_sample());
    programs.push(Program {
        file: fixtures.join("liveness_ticket_unlock.c"),
        bounds: vec!["-D".into(), "UNLOCK_COUNTER=serving".into()],
    });
    programs.push(Program {
        file: fixtures.join("liveness_flag_never_set.c"),
        bounds: vec!["-D".into(), "PUBLISH=atomic_store(&ready,1)".into()],
    });
    let jobs = jobs(&programs);
    let outcomes = parallel_map(&jobs, workers(), |(program, model)| {
        let waits = assertions_answer(program, model, &[]);
        let unrolled = assertions_answer(program, model, &["--unroll-spin-loops", "--unwind", "3"]);
        (program.file.clone(), *model, waits, unrolled)
    });
    let mut compared = 0;
    for (file, model, waits, unrolled) in outcomes {
        if matches!(waits, Answer::None(..)) || matches!(unrolled, Answer::None(..)) {
            continue;
        }
        compared += 1;
        assert_eq!(
            waits,
            unrolled,
            "{} --{model}: spin loops as waits against unrolled loops",
            file.display()
        );
    }
    assert!(
        compared * 2 >= jobs.len(),
        "only {compared} of {} runs answered",
        jobs.len()
    );
}
