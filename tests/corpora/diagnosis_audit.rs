//! Every sentence of a diagnosis is true of its witness and its model, on
//! the corpora: `verify` audits each diagnosis it makes (a false sentence
//! ends the run with exit 4 and lists the sentence in
//! `check.false_sentences`), and these sweeps run it on the violations of
//! the benchmark corpus (the sample `diagnosis_audit` of
//! `tests/fixtures/bench_samples.tsv`; every run of the manifest under TSO
//! and PSO in the full tier), of the litmus corpus (the sample `litmus` of
//! `tests/fixtures/litmus_samples.tsv` and every 50th test; every test in
//! the full tier) and of
//! the project's own relaxation-cycle tests (every 29th; every one in the
//! full tier), with both engines. Beside the audit inside `verify`, each
//! reordering of the JSON report must be of a kind the model allows and,
//! for a store-store or store-load one, between two locations. The verify
//! fixtures (`tests/engines/verify_fixtures.rs`) are audited by their own
//! runs: each expects its exit code, never 4, and
//! `atomic_section_escape` (the shape of the corpus's
//! `read_write_lock-1.c`) the sentences of its diagnosis.

use crate::bench_corpus::manifest_runs;
use crate::litmus;
use crate::support;

use serde_json::Value;
use std::path::PathBuf;
use support::{Verdict, corpus_dir, cycle_tests, litmus_tests, parallel_map, verify, workers};

/// The engines whose counterexamples are diagnosed: the native engine's
/// and CBMC's executions differ.
const ENGINES: [&str; 2] = ["smc", "cbmc"];

/// One run of `verify`: the program, its model, its bounds, and whether
/// it must end in a violation.
struct Job {
    file: PathBuf,
    model: &'static str,
    bounds: Vec<String>,
    must_violate: bool,
}

/// What one run gave: a diagnosis audited (with the reorderings it
/// named), no diagnosis, or a failure to report.
enum Outcome {
    Audited(usize),
    NoDiagnosis,
    Wrong(String),
}

/// The reordering kinds `model` (`--tso`, `--pso`) allows.
fn allowed(model: &str) -> &'static [&'static str] {
    match model {
        "--tso" => &["store-load", "store-atomic-end"],
        "--pso" => &["store-load", "store-store", "store-atomic-end"],
        _ => &[],
    }
}

/// The faults of the diagnosis of a JSON report under `model`.
fn faults(report: &Value, model: &str) -> Vec<String> {
    let mut found = Vec::new();
    match report["check"]["false_sentences"].as_array() {
        Some(sentences) if sentences.is_empty() => {}
        Some(sentences) => found.push(format!("the audit found {sentences:?}")),
        None => found.push("no check.false_sentences".to_string()),
    }
    let reorderings = report["diagnosis"]["reorderings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for reordering in &reorderings {
        let kind = reordering["kind"].as_str().unwrap_or_default();
        if !allowed(model).contains(&kind) {
            found.push(format!("{model} names a {kind} reordering: {reordering}"));
        }
        let location = |end: &str| reordering[end]["location"].as_str().map(str::to_string);
        if kind != "store-atomic-end" && location("store") == location("later") {
            found.push(format!("a {kind} reordering of one location: {reordering}"));
        }
    }
    found
}

/// Runs one job with one engine and judges its diagnosis.
fn run(job: &Job, engine: &str) -> Outcome {
    let mut arguments = vec![job.model, "--engine", engine, "--format", "json"];
    arguments.extend(["--timeout", "120"]);
    arguments.extend(job.bounds.iter().map(String::as_str));
    let (code, stdout, stderr) = verify(&job.file, &arguments);
    let name = format!("{} {} --engine {engine}", job.file.display(), job.model);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_default();
    if code == 4 {
        let message = report["message"].as_str().unwrap_or(&stderr);
        return Outcome::Wrong(format!("{name}: exit 4: {message}"));
    }
    if job.must_violate && code != 10 {
        return Outcome::Wrong(format!("{name}: expected a violation, exit {code}"));
    }
    if code != 10 || report["diagnosis"].is_null() {
        return Outcome::NoDiagnosis;
    }
    let found = faults(&report, job.model);
    if !found.is_empty() {
        return Outcome::Wrong(format!("{name}: {}", found.join("; ")));
    }
    let count = report["diagnosis"]["reorderings"]
        .as_array()
        .map_or(0, Vec::len);
    Outcome::Audited(count)
}

/// Runs every job with both engines; asserts no wrong outcome and at least
/// `least` audited diagnoses that name a reordering.
fn sweep(what: &str, jobs: &[Job], least: usize) {
    let pairs: Vec<(&Job, &str)> = jobs
        .iter()
        .flat_map(|job| ENGINES.iter().map(move |&engine| (job, engine)))
        .collect();
    let outcomes = parallel_map(&pairs, workers(), |&(job, engine)| run(job, engine));
    let wrong: Vec<&String> = outcomes
        .iter()
        .filter_map(|outcome| match outcome {
            Outcome::Wrong(why) => Some(why),
            _ => None,
        })
        .collect();
    let audited = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Outcome::Audited(n) if *n > 0))
        .count();
    println!(
        "{what}: {} runs, {audited} diagnoses audited, {} wrong",
        outcomes.len(),
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "{what}: {} runs wrong:\n{}",
        wrong.len(),
        wrong
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        audited >= least,
        "{what}: only {audited} diagnoses named a reordering (at least {least} expected)"
    );
}

/// The runs of the benchmark manifest under TSO and PSO: the sample's
/// (a violation wherever the manifest says unsafe), or every one in the
/// full tier.
fn bench_jobs() -> Vec<Job> {
    let whole = support::full_tier();
    let sample = support::sample("bench_samples.tsv", "diagnosis_audit");
    manifest_runs()
        .into_iter()
        .filter(|run| run.model != "--sc" && (whole || sample.contains(&run.path)))
        .map(|run| Job {
            file: corpus_dir().join("bench").join(&run.path),
            model: run.model,
            must_violate: !whole && Verdict::parse(&run.verdict) == Some(Verdict::Unsafe),
            bounds: run.bounds,
        })
        .collect()
}

#[test]
fn diagnoses_of_the_benchmark_violations_are_true() {
    let jobs = bench_jobs();
    let violations = jobs.iter().filter(|job| job.must_violate).count();
    // the full tier runs the whole manifest and requires no violation of
    // any one run (some stop at their time limit)
    assert!(
        support::full_tier() || violations >= 8,
        "the sample has violations to diagnose"
    );
    sweep("benchmark corpus", &jobs, violations);
}

/// The violating runs of litmus-style tests under TSO and PSO, at the
/// bounds `litmus_bounds.tsv` gives each (`bounded`) or the defaults, and
/// how many of them SC forbids (whose diagnosis names reorderings).
fn litmus_jobs(tests: &[support::LitmusTest], bounded: bool) -> (Vec<Job>, usize) {
    let rows = litmus::bounds_file();
    let mut jobs = Vec::new();
    let mut weak = 0;
    for test in tests {
        for (model, verdict) in [("--tso", test.tso), ("--pso", test.pso)] {
            if verdict != Verdict::Unsafe {
                continue;
            }
            let bounds = match bounded {
                true => litmus::bounds(&rows, &test.name, model.trim_start_matches("--")),
                false => Vec::new(),
            };
            jobs.push(Job {
                file: test.file.clone(),
                model,
                bounds,
                must_violate: true,
            });
            weak += usize::from(test.sc == Verdict::Safe);
        }
    }
    (jobs, weak)
}

#[test]
fn diagnoses_of_the_litmus_violations_are_true() {
    let sample = support::sample("litmus_samples.tsv", "litmus");
    let tests: Vec<support::LitmusTest> = litmus_tests()
        .into_iter()
        .enumerate()
        .filter(|(index, test)| {
            support::full_tier() || sample.contains(&test.name) || index % 50 == 0
        })
        .map(|(_, test)| test)
        .collect();
    let (jobs, weak) = litmus_jobs(&tests, true);
    assert!(weak >= 8, "the litmus sample has weak-memory violations");
    sweep("litmus corpus", &jobs, weak);
}

#[test]
fn diagnoses_of_the_relaxation_cycles_are_true() {
    let stride = if support::full_tier() { 1 } else { 29 };
    let tests: Vec<support::LitmusTest> = cycle_tests().into_iter().step_by(stride).collect();
    let (jobs, weak) = litmus_jobs(&tests, false);
    assert!(weak > 0, "the sample of cycles has weak-memory violations");
    sweep("relaxation cycles", &jobs, weak);
}
