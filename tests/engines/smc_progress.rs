//! The native engine's progress: the final figures in the JSON report
//! (`native.statistics`: the rate and the estimate of the number of
//! reads-from classes from random probes), nothing drawn when stderr is
//! not a terminal, and, in the full tier and where `script` gives the
//! command a terminal, the live line drawn and erased.

use crate::support::{self, verify};
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The JSON report of `verify --engine smc` on `file` under `model`.
fn native_report(file: &Path, model: &str) -> serde_json::Value {
    let (_, stdout, stderr) = verify(file, &[model, "--engine", "smc", "--format", "json"]);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("{}: not JSON ({error}): {stdout}{stderr}", file.display()))
}

#[test]
fn json_gives_the_rate_and_the_class_estimate_of_rf_smc() {
    for (name, model) in [
        ("spinlock.c", "--tso"),
        ("store_buffering.c", "--tso"),
        ("dekker.c", "--pso"),
    ] {
        let report = native_report(&repository().join("examples").join(name), model);
        let statistics = &report["native"]["statistics"];
        let what = format!("{name} {model}: {statistics}");
        assert_eq!(statistics["search"], "rf-smc", "{what}");
        let classes = statistics["reads_from_classes"]
            .as_u64()
            .expect("a class count");
        assert!(classes >= 1, "{what}");
        let estimate = &statistics["estimate"];
        let estimated = estimate["classes"].as_u64().expect("an estimate");
        assert!(estimated >= 1, "{what}");
        let probes = estimate["probes"].as_u64().expect("a probe count");
        assert!((1..=32).contains(&probes), "{what}");
        assert!(estimate["milliseconds"].is_u64(), "{what}");
        // the search of these examples takes well under a second
        let per_second = statistics["per_second"].as_u64().expect("a rate");
        assert!(per_second >= classes, "{what}");
    }
}

#[test]
fn the_explicit_search_gives_its_rate_and_no_class_estimate() {
    // a choice that decides which mutex a move locks: the explicit search
    let file = repository().join("tests/fixtures/verify/deadlock_chosen_order.c");
    let (_, stdout, stderr) = verify(
        &file,
        &[
            "--tso",
            "-D",
            "CHOOSE=__VERIFIER_nondet_bool()",
            "--no-deadlock-check",
            "--engine",
            "smc",
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"));
    let statistics = &report["native"]["statistics"];
    assert_eq!(statistics["search"], "explicit", "{statistics}");
    assert!(statistics["estimate"].is_null(), "{statistics}");
    let states = statistics["states"].as_u64().expect("a state count");
    assert!(states > 1, "{statistics}");
    assert!(
        statistics["per_second"].as_u64() >= Some(states),
        "{statistics}"
    );
}

#[test]
fn nothing_is_drawn_when_stderr_is_not_a_terminal() {
    for (name, engine) in [
        ("dekker.c", "smc"),
        ("spinlock.c", "smc"),
        ("spinlock.c", "auto"),
    ] {
        if engine == "auto" && !support::require_cbmc() {
            continue;
        }
        let file = repository().join("examples").join(name);
        let (_, stdout, stderr) = verify(&file, &["--tso", "--engine", engine]);
        for output in [&stdout, &stderr] {
            assert!(!output.contains('\x1b'), "no escape sequence: {output:?}");
            assert!(!output.contains("native:"), "no live line: {output:?}");
        }
    }
}

/// Whether `script` (util-linux) is there to give a command a terminal.
fn script_available() -> bool {
    std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn a_terminal_sees_the_live_line_drawn_then_erased() {
    if !support::full_tier() || !script_available() {
        return;
    }
    let file = repository().join("tests/fixtures/progress/three_writers.c");
    let command = format!(
        "{} verify {} --tso --engine smc",
        env!("CARGO_BIN_EXE_lazysma"),
        file.display()
    );
    let output = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("script runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let drawn = text.find("native: ").expect("the live line was drawn");
    assert!(text[drawn..].contains("classes"), "{text:?}");
    let last_line = text.rfind("native: ").unwrap_or(drawn);
    let erased = text.rfind("\r\x1b[J").expect("the lines were erased");
    assert!(erased > last_line, "erased after the last line: {text:?}");
    assert!(
        text[erased..].contains("No violation"),
        "the report follows: {text:?}"
    );
}
