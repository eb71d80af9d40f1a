//! Cross-checks that need CBMC: `cbmc seq.c` on a translated file agrees
//! with `lazysma verify`, and the timestamped SMAs agree with the direct
//! store-buffer references (eTSO with tso_ref, ePSO with pso_ref; FMCAD 2016
//! Theorems 1-2) on a sample of the litmus corpus and the examples.

use crate::support;

use std::path::{Path, PathBuf};
use support::{litmus_tests, parallel_map, require_cbmc, verify, workers};

/// Bounds under which neither the timestamped lists nor the reference
/// buffers cut off a litmus execution (so both must agree exactly).
const BOUNDS: [&str; 6] = ["--rounds", "3", "--qsize", "3", "--maxclock", "4"];

fn examples() -> Vec<PathBuf> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(directory)
        .expect("examples directory")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    files
}

/// Every `stride`-th litmus test plus the examples (every test with
/// LAZYSMA_LITMUS_ALL=1).
fn programs(stride: usize) -> Vec<PathBuf> {
    let stride = if support::asked("LAZYSMA_LITMUS_ALL") {
        1
    } else {
        stride
    };
    let mut files: Vec<PathBuf> = litmus_tests()
        .into_iter()
        .step_by(stride)
        .map(|test| test.file)
        .collect();
    files.extend(examples());
    files
}

/// Runs plain `cbmc FILE` and says whether it reported a violation.
fn cbmc_finds_violation(file: &Path) -> Option<bool> {
    let cbmc = std::env::var_os("LAZYSMA_CBMC")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("cbmc"));
    let output = std::process::Command::new(cbmc).arg(file).output().ok()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if stdout.contains("VERIFICATION FAILED") {
        Some(true)
    } else if stdout.contains("VERIFICATION SUCCESSFUL") {
        Some(false)
    } else {
        None
    }
}

#[test]
fn plain_cbmc_on_translated_file_agrees_with_verify() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let files = programs(if support::full_tier() { 80 } else { 200 });
    let mut jobs = Vec::new();
    for (index, file) in files.iter().enumerate() {
        for model in ["--sc", "--tso", "--pso"] {
            jobs.push((index, file.clone(), model));
        }
    }
    let disagreements: Vec<String> = parallel_map(&jobs, workers(), |(index, file, model)| {
        let output = directory.path().join(format!("seq{index}{model}.c"));
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_lazysma"))
            .arg(file)
            .arg(model)
            .args(BOUNDS)
            .arg("-o")
            .arg(&output)
            .status()
            .expect("lazysma runs");
        if !status.success() {
            return Some(format!("{} {model}: translation failed", file.display()));
        }
        let plain = cbmc_finds_violation(&output);
        let mut arguments = vec![*model, "--no-check"];
        arguments.extend(BOUNDS);
        let (code, _, _) = verify(file, &arguments);
        let agree = matches!((plain, code), (Some(true), 10) | (Some(false), 0));
        (!agree).then(|| {
            format!(
                "{} {model}: cbmc seq.c says {plain:?}, verify exits {code}",
                file.display()
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Programs for the reference models, with their bounds: the classic
/// litmus shapes (WRC with three threads), the two-thread examples, a
/// mutex-guarded store that PSO reorders with later ones, and the
/// classic Dekker and Peterson of the benchmark corpus at one round (at
/// their own two rounds the reference buffers take over an hour:
/// `scripts/differential-all.py --corpora bench --only dekker` runs them
/// there); every litmus test with LAZYSMA_LITMUS_ALL=1. The default tier
/// runs the benchmark programs in turn, one per model: the `turn`-th of
/// every two (TSO 0, PSO 1).
/// `scripts/differential-all.py` runs both corpora whole.
fn reference_programs(turn: usize) -> Vec<(PathBuf, Vec<String>)> {
    if support::asked("LAZYSMA_LITMUS_ALL") {
        return programs(1)
            .into_iter()
            .map(|file| (file, litmus_bounds()))
            .collect();
    }
    let litmus = support::corpus_dir().join("litmus").join("visible");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    // the sample `differential` of tests/fixtures/litmus_samples.tsv
    let mut files: Vec<PathBuf> = support::sample("litmus_samples.tsv", "differential")
        .iter()
        .map(|name| litmus.join(name))
        .collect();
    files.push(examples.join("store_buffering.c"));
    files.push(examples.join("message_passing.c"));
    // stores under a mutex that every other access holds (the timestamped
    // SMAs give them the least timestamp; the references buffer them)
    files.push(examples.join("mutex_publish.c"));
    // doubles in shared memory, moved as their bits by every SMA
    files.push(examples.join("seqlock.c"));
    files.push(mutex_then_flag());
    let mut programs: Vec<(PathBuf, Vec<String>)> = files
        .into_iter()
        .map(|file| (file, litmus_bounds()))
        .collect();
    let mut bench_bounds = support::bench_bounds();
    // the sample `differential` of tests/fixtures/bench_samples.tsv
    let every = if support::full_tier() { 1 } else { 2 };
    let bench = support::sample("bench_samples.tsv", "differential");
    for program in bench.into_iter().skip(turn % every).step_by(every) {
        let mut bounds = bench_bounds
            .remove(&program)
            .expect("bench_bounds.tsv has the classic mutual exclusion");
        let rounds = bounds.iter().position(|bound| bound == "--rounds");
        let rounds = rounds.expect("bench_bounds.tsv gives the rounds") + 1;
        bounds[rounds] = "1".to_string();
        programs.push((support::corpus_dir().join("bench").join(program), bounds));
    }
    programs
}

/// A store under a mutex, then stores after the unlock that PSO reorders.
fn mutex_then_flag() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join("mutex_then_flag.c")
}

#[test]
fn stores_under_a_mutex_keep_the_verdicts_of_every_model() {
    if !require_cbmc() {
        return;
    }
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let cases = [
        (mutex_then_flag(), "--sc", 0),
        (mutex_then_flag(), "--tso", 0),
        (mutex_then_flag(), "--pso", 10),
        (examples.join("mutex_publish.c"), "--tso", 0),
        (examples.join("mutex_publish.c"), "--pso", 0),
    ];
    for (file, model, expected) in cases {
        let (code, stdout, stderr) = verify(&file, &[model]);
        assert_eq!(
            code,
            expected,
            "{} {model}:\n{stdout}{stderr}",
            file.display()
        );
    }
}

fn litmus_bounds() -> Vec<String> {
    BOUNDS.iter().map(|bound| bound.to_string()).collect()
}

fn implementations_agree(model: &str, reference: &str, turn: usize) {
    if !require_cbmc() {
        return;
    }
    let programs = reference_programs(turn);
    let disagreements: Vec<String> = parallel_map(&programs, workers(), |(file, bounds)| {
        let run = |sma: &str| {
            let mut arguments = vec![model, "--sma", sma, "--no-check"];
            arguments.extend(bounds.iter().map(String::as_str));
            verify(file, &arguments).0
        };
        let timestamped = run(if model == "--tso" { "etso" } else { "epso" });
        let direct = run(reference);
        (timestamped != direct || !matches!(direct, 0 | 10)).then(|| {
            format!(
                "{}: timestamped exits {timestamped}, {reference} exits {direct}",
                file.display()
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn etso_agrees_with_tso_reference() {
    implementations_agree("--tso", "tso-ref", 0);
}

#[test]
fn epso_agrees_with_pso_reference() {
    implementations_agree("--pso", "pso-ref", 1);
}
