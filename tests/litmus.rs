//! End to end on the litmus corpus: `lazysma verify` under SC, TSO and PSO
//! must give the expected verdict of `../shared/litmus/visible/expected.tsv`.
//! By default a fixed sample (the classic shapes and every tenth test, which
//! spans the families and verdict classes) runs; `LAZYSMA_LITMUS_ALL=1` runs
//! all 400 tests.

mod support;

use support::{LitmusTest, Verdict, litmus_tests, parallel_map, require_cbmc, verify, workers};

/// Bounds sufficient for the litmus tests (straight-line threads), but for
/// those of [`MORE_ROUNDS`].
const LITMUS_BOUNDS: [&str; 6] = ["--rounds", "3", "--qsize", "5", "--maxclock", "8"];

/// Tests whose counterexample under a model needs a fourth round: in
/// MOREDETOUR0619 five threads write one location six times, and the PSO
/// reordering that breaks it needs one more context switch.
const MORE_ROUNDS: [(&str, &str); 1] = [("MOREDETOUR0619.c", "pso")];

/// The classic shapes and the tests with their own bounds always run.
const ALWAYS: [&str; 7] = ["SB.c", "MP.c", "LB.c", "IRIW.c", "2+2W.c", "WRC.c", "MOREDETOUR0619.c"];

/// The bounds of one test under one model.
fn bounds(test: &str, model: &str) -> Vec<&'static str> {
    let mut bounds = LITMUS_BOUNDS.to_vec();
    if MORE_ROUNDS.contains(&(test, model)) {
        bounds[1] = "4";
    }
    bounds
}

/// The tests of [`ALWAYS`] and every `stride`-th test (a fixed sample spanning the
/// families and verdict classes), or all tests with LAZYSMA_LITMUS_ALL=1.
fn sample(tests: &[LitmusTest], stride: usize) -> Vec<LitmusTest> {
    if std::env::var("LAZYSMA_LITMUS_ALL").is_ok_and(|value| value == "1") {
        return tests.to_vec();
    }
    tests
        .iter()
        .enumerate()
        .filter(|(index, test)| ALWAYS.contains(&test.name.as_str()) || index % stride == 0)
        .map(|(_, test)| test.clone())
        .collect()
}

fn check_model(model: &str, stride: usize, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    if !require_cbmc() {
        return;
    }
    let tests = sample(&litmus_tests(), stride);
    assert!(tests.len() >= 20, "the litmus corpus is beside the repository");
    let flag = format!("--{model}");
    let outcomes = parallel_map(&tests, workers(), |test| {
        let mut arguments = vec![flag.as_str(), "--format", "json"];
        arguments.extend(bounds(&test.name, model));
        let (code, _, stderr) = verify(&test.file, &arguments);
        (test.name.clone(), expected(test).exit_code(), code, stderr)
    });
    let failures: Vec<String> = outcomes
        .iter()
        .filter(|(_, want, got, _)| want != got)
        .map(|(name, want, got, stderr)| {
            let tail: String = stderr.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
            format!("{name}: expected exit {want}, got {got} ({tail})")
        })
        .collect();
    println!("litmus --{model}: {} tests, {} disagree", outcomes.len(), failures.len());
    assert!(failures.is_empty(), "{} of {} litmus tests disagree under {model}:\n{}", failures.len(), outcomes.len(), failures.join("\n"));
}

#[test]
fn litmus_sc() {
    check_model("sc", 10, |test| test.sc);
}

#[test]
fn litmus_tso() {
    check_model("tso", 10, |test| test.tso);
}

#[test]
fn litmus_pso() {
    check_model("pso", 10, |test| test.pso);
}
