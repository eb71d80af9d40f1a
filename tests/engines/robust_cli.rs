//! `lazysma robust`, end to end: the fixtures of `tests/fixtures/robust/`
//! get the answers their `expected.tsv` gives under TSO and PSO; the
//! classic mutual-exclusion programs of the benchmark corpus are not
//! robust under TSO; every litmus test of a sample whose outcome TSO (or
//! PSO) allows and SC forbids is not robust under that model; the JSON
//! report names the goal and the property. It needs no CBMC.
//! `LAZYSMA_ROBUST_ALL=1` runs every visible litmus test.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{corpus_dir, litmus_tests, parallel_map, workers};

/// `lazysma robust FILE --MODEL ARGUMENTS...`: exit code and stdout.
fn robust(file: &Path, model: &str, arguments: &[&str]) -> (i32, String) {
    let flag = format!("--{model}");
    let mut all = vec![flag.as_str()];
    all.extend(arguments);
    let (code, stdout, _) = support::run("robust", file, &all);
    (code, stdout)
}

fn fixture_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/robust")
}

fn exit_code(answer: &str) -> i32 {
    match answer {
        "robust" => 0,
        "not-robust" => 10,
        other => panic!("unknown answer {other} in expected.tsv"),
    }
}

#[test]
fn each_fixture_gets_its_expected_answer() {
    let text = std::fs::read_to_string(fixture_directory().join("expected.tsv"))
        .expect("tests/fixtures/robust/expected.tsv is readable");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| line.split('\t').collect())
        .collect();
    assert!(rows.len() >= 4, "the fixtures are listed");
    for row in rows {
        assert_eq!(row.len(), 3, "three columns: {row:?}");
        let file = fixture_directory().join(row[0]);
        for (model, answer) in [("tso", row[1]), ("pso", row[2])] {
            let (code, stdout) = robust(&file, model, &[]);
            assert_eq!(code, exit_code(answer), "{} --{model}\n{stdout}", row[0]);
            let headline = if answer == "robust" {
                "Robust under"
            } else {
                "Not robust under"
            };
            assert!(
                stdout.starts_with(headline),
                "{} --{model}\n{stdout}",
                row[0]
            );
        }
    }
}

#[test]
fn a_non_robust_report_shows_the_delay_and_its_fence() {
    let file = fixture_directory().join("store_buffering.c");
    let (code, stdout) = robust(&file, "tso", &[]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains("still buffered when"),
        "the delayed store is named\n{stdout}"
    );
    assert!(
        stdout.contains("fix: insert `__sync_synchronize();`"),
        "the fence that forbids it\n{stdout}"
    );
    let (code, stdout) = robust(&file, "tso", &["--format", "json"]);
    assert_eq!(code, 10);
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["goal"], "robustness");
    assert_eq!(report["verdict"], "violation");
    assert_eq!(report["engine"], "smc");
    assert_eq!(report["property"]["kind"], "not-robust");
    assert_eq!(report["check"]["realisable"], true, "the witness is TSO's");
    let cycle: Vec<(String, String, bool)> = report["diagnosis"]["cycle"]
        .as_array()
        .expect("the happens-before cycle")
        .iter()
        .map(|step| {
            let line = step["point"]["line"].as_u64().unwrap_or(0);
            let relaxed = step["relaxed"].as_bool().unwrap_or(false);
            (format!("line {line}"), step["then"].to_string(), relaxed)
        })
        .collect();
    let lines: Vec<&str> = cycle.iter().map(|(line, ..)| line.as_str()).collect();
    assert_eq!(cycle.len(), 4, "store, load, store, load: {cycle:?}");
    let relaxed = cycle
        .iter()
        .filter(|(_, then, relaxed)| *relaxed && then == "\"program-order\"");
    assert_eq!(
        relaxed.count(),
        2,
        "one delayed store per thread: {cycle:?}"
    );
    let from_reads = cycle.iter().filter(|(_, then, _)| then == "\"from-read\"");
    assert_eq!(from_reads.count(), 2, "{cycle:?}");
    for line in ["line 9", "line 10", "line 15", "line 16"] {
        assert!(lines.contains(&line), "{line} in {lines:?}");
    }
}

#[test]
fn a_non_robust_report_shows_the_happens_before_cycle_in_source_terms() {
    let file = fixture_directory().join("message_passing.c");
    let (code, stdout) = robust(&file, "pso", &[]);
    assert_eq!(code, 10, "{stdout}");
    let cycle: Vec<&str> = stdout
        .lines()
        .skip_while(|line| !line.contains("happens-before cycle"))
        .skip(1)
        .take_while(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(cycle.len(), 4, "{stdout}");
    assert!(cycle[3].ends_with("back to 1"), "{stdout}");
    let relaxed: Vec<&&str> = cycle
        .iter()
        .filter(|line| line.contains("program order, which PSO relaxes"))
        .collect();
    assert_eq!(relaxed.len(), 1, "the store-store reordering\n{stdout}");
    assert!(relaxed[0].contains("stores"), "{stdout}");
}

#[test]
fn the_classic_mutual_exclusion_programs_are_not_robust_under_tso() {
    let directory = corpus_dir().join("bench/svcomp/pthread-atomic-classic");
    for name in ["dekker.c", "peterson.c", "lamport.c", "szymanski.c"] {
        let (code, stdout) = robust(&directory.join(name), "tso", &["--unwind", "1"]);
        assert_eq!(code, 10, "{name}\n{stdout}");
    }
}

/// A sample of the visible litmus tests (every fifth, or all with
/// `LAZYSMA_ROBUST_ALL=1`).
fn litmus_sample() -> Vec<support::LitmusTest> {
    let all = support::whole_sweep("LAZYSMA_ROBUST_ALL");
    litmus_tests()
        .into_iter()
        .enumerate()
        .filter(|(index, _)| all || index % 5 == 0)
        .map(|(_, test)| test)
        .collect()
}

#[test]
fn a_litmus_outcome_that_only_weak_memory_allows_makes_its_test_not_robust() {
    let tests = litmus_sample();
    assert!(tests.len() >= 40, "the litmus sample has at least 40 tests");
    let jobs: Vec<(&support::LitmusTest, &str)> = tests
        .iter()
        .flat_map(|test| [(test, "tso"), (test, "pso")])
        .filter(|(test, model)| {
            let weak = if *model == "tso" { test.tso } else { test.pso };
            test.sc == support::Verdict::Safe && weak == support::Verdict::Unsafe
        })
        .collect();
    assert!(!jobs.is_empty(), "the sample has weak-memory outcomes");
    let failures: Vec<String> = parallel_map(&jobs, workers(), |(test, model)| {
        let (code, stdout) = robust(&test.file, model, &[]);
        (code != 10).then(|| {
            format!(
                "{} --{model}: exit {code}\n{}",
                test.name,
                stdout.lines().next().unwrap_or_default()
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "{} of {} runs were not found non-robust:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}

#[test]
fn an_option_error_is_a_robustness_document_when_one_is_asked_for() {
    let file = fixture_directory().join("store_buffering.c");
    for bad in [&["--unwind", "many"][..], &["--no-such-option"][..]] {
        let mut arguments = vec!["--format", "json"];
        arguments.extend(bad);
        let (code, stdout) = robust(&file, "tso", &arguments);
        assert_eq!(code, 1, "{stdout}");
        let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
        assert_eq!(report["goal"], "robustness", "{bad:?}");
        assert_eq!(report["verdict"], "bad-input", "{bad:?}");
    }
}
