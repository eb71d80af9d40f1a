//! The native check confirms every counterexample CBMC finds on the unsafe
//! litmus programs (never exit 4; exit 0 means the bounds hide the bug),
//! and every confirmed report names either
//! SC or a reordering with a fence. Every 30th (TSO) / 60th (PSO) runs by default;
//! `LAZYSMA_LITMUS_ALL=1` or `LAZYSMA_FULL=1` runs every unsafe program under
//! every model.

use crate::support;

use support::{LitmusTest, Verdict, litmus_tests, parallel_map, require_cbmc, verify, workers};

/// Large enough that most unsafe programs show their bug (a bug hidden by
/// the bounds is exit 0, not a check failure).
const LITMUS_BOUNDS: [&str; 6] = ["--rounds", "3", "--qsize", "5", "--maxclock", "8"];

/// Unsafe tests under a model: all with `LAZYSMA_LITMUS_ALL=1`, else every
/// `stride`-th (the corpus takes hours at the full size).
fn unsafe_tests(model: impl Fn(&LitmusTest) -> Verdict, stride: usize) -> Vec<LitmusTest> {
    let all = support::whole_sweep("LAZYSMA_LITMUS_ALL");
    litmus_tests()
        .into_iter()
        .filter(|test| model(test) == Verdict::Unsafe)
        .enumerate()
        .filter(|(index, _)| all || index % stride == 0)
        .map(|(_, test)| test)
        .collect()
}

/// The fence kinds the diagnoses advised, one entry per fence.
fn confirm_all(model: &str, tests: Vec<LitmusTest>) -> Vec<String> {
    if !require_cbmc() {
        return Vec::new();
    }
    let flag = format!("--{model}");
    let outcomes = parallel_map(&tests, workers(), |test| {
        let mut arguments = vec![flag.as_str(), "--format", "json"];
        arguments.extend(LITMUS_BOUNDS);
        let (code, stdout, _) = verify(&test.file, &arguments);
        (test.name.clone(), code, stdout)
    });
    let mut failures = Vec::new();
    let mut hidden = Vec::new();
    let mut fence_kinds = Vec::new();
    for (name, code, stdout) in &outcomes {
        let report: serde_json::Value = match serde_json::from_str(stdout) {
            Ok(report) => report,
            Err(error) => {
                failures.push(format!("{name}: exit {code}, output is not JSON ({error})"));
                continue;
            }
        };
        if *code == 0 {
            hidden.push(name.clone());
            continue;
        }
        if *code != 10 {
            failures.push(format!("{name}: exit {code} ({})", report["message"]));
            continue;
        }
        if report["check"]["realisable"] != serde_json::Value::Bool(true) {
            failures.push(format!("{name}: confirmed without a realisable check"));
        }
        let diagnosis = &report["diagnosis"];
        let explained = diagnosis["sc_realisable"] == serde_json::Value::Bool(true)
            || diagnosis["fences"]
                .as_array()
                .is_some_and(|fences| !fences.is_empty());
        if !explained {
            failures.push(format!(
                "{name}: neither SC nor a fence in the diagnosis: {diagnosis}"
            ));
        }
        for fence in diagnosis["fences"].as_array().into_iter().flatten() {
            fence_kinds.push(fence["kind"].as_str().unwrap_or("?").to_string());
        }
    }
    println!(
        "unsafe litmus under --{model}: {} programs, {} problems, {} not found within the bounds: {hidden:?}",
        outcomes.len(),
        failures.len(),
        hidden.len()
    );
    assert!(
        hidden.len() * 2 <= outcomes.len(),
        "most bugs are found within the bounds: {hidden:?}"
    );
    assert!(
        failures.is_empty(),
        "under {model}:\n{}",
        failures.join("\n")
    );
    fence_kinds
}

#[test]
fn tso_counterexamples_pass_the_native_check() {
    confirm_all("tso", unsafe_tests(|test| test.tso, 30));
}

#[test]
fn pso_counterexamples_pass_the_native_check() {
    confirm_all("pso", unsafe_tests(|test| test.pso, 60));
}

/// The native check models store-store fences (`lwsync`, `eieio`): their
/// counterexamples under PSO must still be confirmed, and where a
/// store-store fence suffices the diagnosis advises one. Every third such
/// program runs by default (`LAZYSMA_LITMUS_ALL=1`: all of them).
#[test]
fn pso_counterexamples_across_store_fences_pass_the_native_check() {
    let fenced = |test: &LitmusTest| {
        std::fs::read_to_string(&test.file)
            .is_ok_and(|text| text.contains("lwsync") || text.contains("eieio"))
    };
    let tests: Vec<LitmusTest> = unsafe_tests(|test| test.pso, 1)
        .into_iter()
        .filter(fenced)
        .collect();
    let all = support::whole_sweep("LAZYSMA_LITMUS_ALL");
    let tests: Vec<LitmusTest> = tests
        .into_iter()
        .enumerate()
        .filter(|(index, _)| all || index % 3 == 0)
        .map(|(_, test)| test)
        .collect();
    let kinds = confirm_all("pso", tests);
    if require_cbmc() {
        assert!(
            kinds.iter().any(|kind| kind == "store-store"),
            "a store-store fence is advised somewhere: {kinds:?}"
        );
    }
}

#[test]
fn sc_counterexamples_pass_the_native_check() {
    confirm_all("sc", unsafe_tests(|test| test.sc, 1));
}
