//! The native engine's private data, on the fixtures of
//! `tests/fixtures/smc/` with their expected answers beside them
//! (`expected.tsv`): locals without an initial value are unknown until
//! read, `&&` and `||` short-circuit, and a nondeterministic value of more
//! than 256 values that an execution reads declines the program with its
//! position; `float` and `double` are computed as CBMC computes them
//! (`float_*.c`; `tests/corpora/engine_agreement.rs` runs CBMC on them too); the
//! heap is modelled as the printed program's SMA keeps it (`heap_*.c`:
//! blocks, `free`, the uninitialised contents of `malloc`, which decline),
//! and a heap violation's witness is confirmed and names CBMC's property.
//! It needs no CBMC.

use crate::support;

use std::path::{Path, PathBuf};
use support::verify;

fn directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/smc")
}

/// One row of `expected.tsv`: a file, its answer under SC, TSO and PSO,
/// and for a declined program the text its reason must hold.
struct Expected {
    file: String,
    answers: [String; 3],
    declined_at: String,
}

fn expectations() -> Vec<Expected> {
    let text = std::fs::read_to_string(directory().join("expected.tsv"))
        .expect("tests/fixtures/smc/expected.tsv is readable");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 5, "five columns: {line}");
            Expected {
                file: fields[0].to_string(),
                answers: [fields[1], fields[2], fields[3]].map(str::to_string),
                declined_at: fields[4].to_string(),
            }
        })
        .collect()
}

#[test]
fn the_native_engine_gives_each_fixture_its_expected_answer() {
    let rows = expectations();
    assert!(rows.len() >= 3, "the fixtures are listed");
    for row in rows {
        let file = directory().join(&row.file);
        for (model, answer) in ["sc", "tso", "pso"].iter().zip(&row.answers) {
            let flag = format!("--{model}");
            let (code, stdout, stderr) =
                verify(&file, &[&flag, "--engine", "smc", "--format", "json"]);
            let report: serde_json::Value =
                serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
            let context = format!("{} {flag}: {stdout}\n{stderr}", row.file);
            match answer.as_str() {
                "safe" | "unsafe" => {
                    let want = if answer == "safe" { 0 } else { 10 };
                    assert_eq!(code, want, "{context}");
                    assert_eq!(report["engine"], "smc", "{context}");
                }
                "declined" => {
                    assert_eq!(code, 1, "{context}");
                    let message = report["message"].as_str().unwrap_or_default();
                    assert!(
                        message.contains("declines") && message.contains(&row.declined_at),
                        "the reason names {}: {context}",
                        row.declined_at
                    );
                }
                other => panic!("unknown answer {other} in expected.tsv"),
            }
        }
    }
}

/// A native heap violation goes through the report as a CBMC
/// counterexample does: the witness is confirmed by the consistency
/// check, the property has its kind and CBMC's id (not a `.native` one),
/// and the text report shows the heap block and the `free`.
#[test]
fn a_heap_violation_has_a_confirmed_witness_and_cbmcs_property() {
    // RF-SMC answers every one, also where a block is allocated or freed
    // while another thread runs (the section lock orders the heap's
    // operations, `smc::rf::heap` checks the accesses)
    let cases = [
        ("heap_double_free.c", "double-free", "freed the block"),
        ("heap_invalid_free.c", "invalid-free", "cursor = &heap#0[1]"),
        ("heap_use_after_free.c", "use-after-free", "freed the block"),
        ("heap_message_passing.c", "assertion", "&heap#0[0]"),
    ];
    for (file, kind, shown) in cases {
        let path = directory().join(file);
        let (code, stdout, stderr) =
            verify(&path, &["--pso", "--engine", "smc", "--format", "json"]);
        let context = format!("{file}: {stdout}\n{stderr}");
        assert_eq!(code, 10, "{context}");
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
        assert_eq!(report["engine"], "smc", "{context}");
        assert_eq!(report["check"]["realisable"], true, "{context}");
        assert_eq!(report["property"]["kind"], kind, "{context}");
        let id = report["property"]["id"].as_str().unwrap_or_default();
        assert!(
            id.contains(".assertion.") && !id.ends_with(".native"),
            "{context}"
        );
        assert_eq!(
            report["native"]["statistics"]["fallback"].as_str(),
            None,
            "{context}"
        );
        assert_eq!(
            report["native"]["statistics"]["search"].as_str(),
            Some("rf-smc"),
            "{context}"
        );
        let (code, text, stderr) = verify(&path, &["--pso", "--engine", "smc", "--color", "never"]);
        assert_eq!(code, 10, "{file}: {text}\n{stderr}");
        assert!(text.contains(shown), "{file} shows `{shown}`: {text}");
    }
}

/// An access past the requested part of a heap block without
/// `--pointer-check` cuts the execution off, and a safe native verdict
/// names the access in a warning, as the CBMC path's reachability run
/// does; with `--pointer-check` it is a violation.
#[test]
fn a_heap_pointer_cut_off_is_named_by_a_warning() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify/heap_past_request.c");
    let base = ["--engine", "smc", "--heap-block", "2", "-D", "K=1"];
    for model in ["--sc", "--tso", "--pso"] {
        let mut arguments = base.to_vec();
        arguments.extend([model, "--format", "json"]);
        let (code, stdout, stderr) = verify(&file, &arguments);
        let context = format!("{model}: {stdout}\n{stderr}");
        assert_eq!(code, 0, "{context}");
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
        assert_eq!(report["engine"], "smc", "{context}");
        let warnings = report["warnings"].as_array().cloned().unwrap_or_default();
        assert_eq!(warnings.len(), 1, "{context}");
        assert_eq!(warnings[0]["line"], 16, "{context}");
        let mut arguments = base.to_vec();
        arguments.extend([model, "--color", "never"]);
        let (code, stdout, stderr) = verify(&file, &arguments);
        let text = format!("{stdout}{stderr}");
        assert_eq!(code, 0, "{text}");
        assert!(text.contains("is cut off there"), "{text}");
        assert!(
            text.contains(
                "in the executions the bounds reached: the access at heap_past_request.c:16 \
                 was cut off with a pointer outside its objects (--pointer-check)"
            ),
            "{text}"
        );
        let mut arguments = base.to_vec();
        arguments.extend([model, "--pointer-check", "--format", "json"]);
        let (code, stdout, _) = verify(&file, &arguments);
        assert_eq!(code, 10, "{stdout}");
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
        assert_eq!(
            report["property"]["kind"], "pointer-outside-object",
            "{stdout}"
        );
    }
}

/// A native safe verdict for which every execution was cut off says so
/// (`reach.end_of_main` false), and `auto` does not take it as an answer:
/// the CBMC path answers, with its reachability run.
#[test]
fn a_safe_verdict_that_every_cut_off_ends_says_so() {
    let file = directory().join("every_execution_cut_off.c");
    let report = |arguments: &[&str]| {
        let (code, stdout, stderr) = verify(&file, arguments);
        assert_eq!(code, 0, "{arguments:?}: {stdout}\n{stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
        report
    };
    for model in ["--sc", "--tso"] {
        let native = report(&[model, "--engine", "smc", "--format", "json"]);
        assert_eq!(native["engine"], "smc", "{native}");
        assert_eq!(native["reach"]["end_of_main"], false, "{native}");
        let reached = report(&[
            model, "--engine", "smc", "-D", "REACHED", "--format", "json",
        ]);
        assert!(reached["reach"].is_null(), "{reached}");
        let (code, text, _) = verify(&file, &[model, "--engine", "smc", "--color", "never"]);
        assert_eq!(code, 0, "{text}");
        assert!(
            text.contains("no execution reaches the end of main"),
            "{text}"
        );
        if support::require_cbmc() {
            let auto = report(&[model, "--engine", "auto", "--format", "json"]);
            assert_eq!(auto["engine"], "cbmc", "{auto}");
            assert_eq!(auto["reach"]["end_of_main"], false, "{auto}");
        }
    }
}
