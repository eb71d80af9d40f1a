//! End to end on the litmus corpus: `lazysma verify` under SC, TSO and PSO
//! must give the expected verdict of the corpus's
//! `litmus/visible/expected.tsv` (`support::corpus_dir()`).
//! By default a fixed sample (the classic shapes and every fiftieth test, which
//! spans the families and verdict classes) runs; `LAZYSMA_LITMUS_ALL=1` or
//! `LAZYSMA_FULL=1` runs all 400 tests. A smaller sample runs at `--qsize
//! auto --maxclock auto`.
//! The project's own litmus tests, generated from relaxation cycles
//! (`tests/fixtures/cycles/`), get their oracle's verdicts too: every 29th
//! (ten tests) through CBMC here (all with `LAZYSMA_LITMUS_ALL=1` or
//! `LAZYSMA_FULL=1`), every one with the native engine in `smc_engine`.

mod support;

use support::{
    LitmusTest, Verdict, cycle_tests, litmus_tests, parallel_map, require_cbmc, verify, workers,
};

/// Rows of `tests/fixtures/litmus_bounds.tsv` (shared with
/// `scripts/litmus-all.py`): `(test, model, bounds)`, where test and model
/// `*` give the bounds of every test and later rows those of one test.
fn bounds_file() -> Vec<(String, String, Vec<String>)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/litmus_bounds.tsv"
    ))
    .expect("tests/fixtures/litmus_bounds.tsv is readable");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            Some((
                fields.next()?.to_string(),
                fields.next()?.to_string(),
                fields
                    .next()?
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            ))
        })
        .collect()
}

/// The bounds of one test under one model: its own row, else the `*` row.
fn bounds(rows: &[(String, String, Vec<String>)], test: &str, model: &str) -> Vec<String> {
    let own = rows.iter().find(|(t, m, _)| t == test && m == model);
    let every = rows.iter().find(|(t, m, _)| t == "*" && m == "*");
    own.or(every)
        .map(|(_, _, bounds)| bounds.clone())
        .expect("litmus_bounds.tsv has a `*` row")
}

/// The classic shapes always run, and so do the tests with their own bounds
/// and MOREDETOUR0619, whose PSO violation three rounds reach only because
/// a thread's stores drain when it is joined, not when it ends.
const ALWAYS: [&str; 7] = [
    "SB.c",
    "MP.c",
    "LB.c",
    "IRIW.c",
    "2+2W.c",
    "WRC.c",
    "MOREDETOUR0619.c",
];

/// The tests of [`ALWAYS`], the tests with their own bounds and every `stride`-th test
/// (a fixed sample spanning the families and verdict classes), or all tests
/// with LAZYSMA_LITMUS_ALL=1.
fn sample(
    tests: &[LitmusTest],
    stride: usize,
    rows: &[(String, String, Vec<String>)],
) -> Vec<LitmusTest> {
    if support::whole_sweep("LAZYSMA_LITMUS_ALL") {
        return tests.to_vec();
    }
    tests
        .iter()
        .enumerate()
        .filter(|(index, test)| {
            ALWAYS.contains(&test.name.as_str())
                || rows.iter().any(|(t, _, _)| *t == test.name)
                || index % stride == 0
        })
        .map(|(_, test)| test.clone())
        .collect()
}

/// Runs `verify --MODEL` on `tests` with the bounds `bounds_of` gives each
/// and asserts the expected verdicts.
fn check(
    model: &str,
    tests: &[LitmusTest],
    bounds_of: impl Fn(&LitmusTest) -> Vec<String> + Sync,
    expected: impl Fn(&LitmusTest) -> Verdict + Sync,
) {
    assert!(tests.len() >= 10, "the litmus sample has at least 10 tests");
    let flag = format!("--{model}");
    let outcomes = parallel_map(tests, workers(), |test| {
        let test_bounds = bounds_of(test);
        let mut arguments = vec![flag.as_str(), "--format", "json"];
        arguments.extend(test_bounds.iter().map(String::as_str));
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
    println!(
        "litmus --{model}: {} tests, {} disagree",
        outcomes.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} litmus tests disagree under {model}:\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
}

/// The sample at the bounds of `litmus_bounds.tsv`.
fn check_model(model: &str, stride: usize, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    if !require_cbmc() {
        return;
    }
    let rows = bounds_file();
    let tests = sample(&litmus_tests(), stride, &rows);
    check(
        model,
        &tests,
        |test| bounds(&rows, &test.name, model),
        expected,
    );
}

/// The tests whose lists need the most nodes and whose clocks the most
/// timestamps (six nodes, seven or eight timestamps, at `auto`).
const LARGEST_NEEDS: [&str; 7] = [
    "MOREDETOUR0290.c",
    "MOREDETOUR0604.c",
    "MOREDETOUR0619.c",
    "MOREDETOUR0845.c",
    "WW+RW+RR+WW+RW+WR+lwsync+sync+lwsync+sync+sync+sync.c",
    "WW+WW+RR+WW+RW+RR+sync+sync+sync+lwsync+sync+lwsync.c",
    "WW+WW+WR+WW+RW+RR+sync+sync+sync+lwsync+sync+lwsync.c",
];

/// At `--qsize auto --maxclock auto` (and three rounds) the classic shapes,
/// the first two tests of [`LARGEST_NEEDS`] (MOREDETOUR0604's five nodes on
/// one location among them) and
/// every 200th test get their expected verdicts: the bounds the translator
/// finds sufficient cut off no violation (`LAZYSMA_LITMUS_ALL=1` or
/// `LAZYSMA_FULL=1`: every test, and so every test of [`LARGEST_NEEDS`]).
fn check_auto_bounds(model: &str, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    if !require_cbmc() {
        return;
    }
    let tests = litmus_tests();
    let all = support::whole_sweep("LAZYSMA_LITMUS_ALL");
    let chosen: Vec<LitmusTest> = tests
        .iter()
        .enumerate()
        .filter(|(index, test)| {
            all || ALWAYS.contains(&test.name.as_str())
                || LARGEST_NEEDS[..2].contains(&test.name.as_str())
                || index % 200 == 0
        })
        .map(|(_, test)| test.clone())
        .collect();
    let auto = ["--rounds", "3", "--qsize", "auto", "--maxclock", "auto"]
        .map(String::from)
        .to_vec();
    check(model, &chosen, |_| auto.clone(), expected);
}

#[test]
fn litmus_sc() {
    check_model("sc", 50, |test| test.sc);
}

#[test]
fn litmus_tso() {
    check_model("tso", 50, |test| test.tso);
}

#[test]
fn litmus_pso() {
    check_model("pso", 50, |test| test.pso);
}

/// Every 29th generated cycle test, ten of them (all with
/// `LAZYSMA_LITMUS_ALL=1` or `LAZYSMA_FULL=1`), at the litmus bounds under
/// `model`.
fn check_cycles(model: &str, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    if !require_cbmc() {
        return;
    }
    let rows = bounds_file();
    let tests: Vec<LitmusTest> = sample(&cycle_tests(), 29, &[]);
    check(
        model,
        &tests,
        |test| bounds(&rows, &test.name, model),
        expected,
    );
}

#[test]
fn generated_cycles_sc() {
    check_cycles("sc", |test| test.sc);
}

#[test]
fn generated_cycles_tso() {
    check_cycles("tso", |test| test.tso);
}

#[test]
fn generated_cycles_pso() {
    check_cycles("pso", |test| test.pso);
}

#[test]
fn litmus_tso_at_auto_bounds() {
    check_auto_bounds("tso", |test| test.tso);
}

#[test]
fn litmus_pso_at_auto_bounds() {
    check_auto_bounds("pso", |test| test.pso);
}
