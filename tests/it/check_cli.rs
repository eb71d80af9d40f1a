//! `lazysma check`: exit codes, the JSON and text outputs, witnesses that
//! replay, and clear messages for malformed executions.

use crate::consistency_support as support;

use assert_cmd::Command;
use lazysma::consistency::json::parse_execution;
use lazysma::consistency::{Execution, MemoryModel, Phase, Step, Witness};
use predicates::prelude::*;
use serde_json::Value;
use std::io::Write;

const ISSUE_EXAMPLE: &str = r#"{"threads": [[{"id":"a","op":"write","var":"x","value":1}, {"id":"b","op":"read","var":"y","rf":"init"}, {"id":"c","op":"fence"}, {"id":"d","op":"rmw","var":"z","rf":"e","value":2}, {"id":"f","op":"lock","mutex":"m"}, {"id":"g","op":"unlock","mutex":"m"}], [{"id":"e","op":"write","var":"z","value":1}, {"id":"h","op":"read","var":"x","rf":"a"}, {"id":"i","op":"lock","mutex":"m"}, {"id":"j","op":"unlock","mutex":"m"}]]}"#;

const SB: &str = r#"{"threads": [[{"id":"a","op":"write","var":"x","value":1}, {"id":"b","op":"read","var":"y","rf":"init"}],
                                 [{"id":"c","op":"write","var":"y","value":1}, {"id":"d","op":"read","var":"x","rf":"init"}]]}"#;

fn input(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new()
        .suffix(".json")
        .tempfile()
        .expect("temporary file");
    file.write_all(text.as_bytes()).expect("write");
    file
}

fn check(text: &str, args: &[&str]) -> (i32, String, String) {
    let file = input(text);
    let output = Command::cargo_bin("lazysma")
        .expect("binary")
        .arg("check")
        .arg(file.path())
        .args(args)
        .output()
        .expect("run");
    crate::support::finished(output)
}

/// Reads a printed JSON witness back into steps, checking its shape.
fn witness_from_json(execution: &Execution, steps: &[Value]) -> Witness {
    let steps = steps
        .iter()
        .map(|step| {
            let id = step["event"].as_str().expect("event id");
            let event = execution.find(id).expect("known event");
            let phase = match step.get("phase").and_then(Value::as_str) {
                Some("buffer") => Phase::Buffer,
                Some("memory") => Phase::Memory,
                None => Phase::Execute,
                Some(other) => panic!("unexpected phase {other}"),
            };
            Step { event, phase }
        })
        .collect();
    Witness { steps }
}

#[test]
fn issue_example_is_realisable_and_replays_under_every_model() {
    let execution = parse_execution(ISSUE_EXAMPLE).expect("valid");
    for (flag, model) in [
        ("--sc", MemoryModel::Sc),
        ("--tso", MemoryModel::Tso),
        ("--pso", MemoryModel::Pso),
    ] {
        let (code, stdout, stderr) = check(ISSUE_EXAMPLE, &[flag, "--format", "json"]);
        assert_eq!(code, 0, "{flag}: {stderr}");
        let verdict: Value = serde_json::from_str(&stdout).expect("JSON output");
        assert_eq!(verdict["model"], model.name());
        assert_eq!(verdict["realizable"], true);
        let steps = verdict["witness"].as_array().expect("witness array");
        // Writes twice (buffer, memory), every other event once.
        assert_eq!(steps.len(), execution.events().len() + 2);
        let witness = witness_from_json(&execution, steps);
        assert_eq!(
            support::replays(&execution, &witness, model),
            Ok(()),
            "{flag}"
        );
    }
}

#[test]
fn default_model_is_tso_and_not_realisable_exits_10() {
    let (code, stdout, _) = check(SB, &["--format", "json"]);
    assert_eq!(code, 0);
    assert!(stdout.contains(r#""model":"tso""#));
    let (code, stdout, _) = check(SB, &["--sc", "--format", "json"]);
    assert_eq!(code, 10);
    let verdict: Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(
        verdict,
        serde_json::json!({"model": "sc", "realizable": false})
    );
}

#[test]
fn text_output_is_a_numbered_table() {
    let (code, stdout, _) = check(SB, &["--pso"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("realisable under PSO: witness of 6 steps"),
        "{stdout}"
    );
    let header = stdout.lines().nth(1).expect("header");
    for column in ["#", "thread", "event", "op", "var", "phase"] {
        assert!(header.contains(column), "{header}");
    }
    let rows: Vec<&str> = stdout.lines().skip(2).collect();
    assert_eq!(rows.len(), 6);
    for (i, row) in rows.iter().enumerate() {
        assert!(row.trim_start().starts_with(&(i + 1).to_string()), "{row}");
    }
    assert!(stdout.contains("x := 1 buffered"));
    assert!(stdout.contains("reaches memory"));
    let (code, stdout, _) = check(SB, &["--sc"]);
    assert_eq!(code, 10);
    assert!(stdout.contains("not realisable under SC"), "{stdout}");
}

fn assert_malformed(text: &str, message: &str) {
    let (code, stdout, stderr) = check(text, &[]);
    assert_eq!(code, 1, "{text}: {stdout}{stderr}");
    assert!(
        stderr.contains(message),
        "expected `{message}` in: {stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn malformed_inputs_with_json_output_give_a_json_error_too() {
    let (code, stdout, stderr) = check("not json", &["--format", "json", "--pso"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stderr.contains("invalid JSON"), "{stderr}");
    let report: Value = serde_json::from_str(stdout.trim()).expect("stdout is JSON");
    assert_eq!(report["model"], "pso");
    assert_eq!(report["error"]["kind"], "bad-input");
    assert!(
        report["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("invalid JSON")),
        "{report}"
    );
    // without --format json, stdout stays empty
    let (code, stdout, _) = check("not json", &[]);
    assert_eq!((code, stdout.as_str()), (1, ""));
}

fn event_list(events: &str) -> String {
    format!(r#"{{"threads": [[{events}]]}}"#)
}

#[test]
fn malformed_inputs_exit_1_with_a_message() {
    assert_malformed("not json", "invalid JSON");
    assert_malformed("[]", "expected an object");
    assert_malformed("{}", "missing \"threads\"");
    assert_malformed(r#"{"threads": 3}"#, "expected an array of threads");
    assert_malformed(
        r#"{"threads": [3]}"#,
        "threads[0]: expected an array of events",
    );
    assert_malformed(&event_list(r#"{"op":"fence"}"#), "missing \"id\"");
    assert_malformed(
        &event_list(r#"{"id":1,"op":"fence"}"#),
        "\"id\" must be a string",
    );
    assert_malformed(
        &event_list(r#"{"id":"a","op":"jump"}"#),
        "unknown op \"jump\"",
    );
    assert_malformed(&event_list(r#"{"id":"a","op":"write"}"#), "missing \"var\"");
    assert_malformed(
        &event_list(r#"{"id":"a","op":"read","var":"x"}"#),
        "missing \"rf\"",
    );
    assert_malformed(
        &event_list(r#"{"id":"a","op":"lock"}"#),
        "missing \"mutex\"",
    );
    assert_malformed(
        &event_list(r#"{"id":"a","op":"write","var":"x","value":"one"}"#),
        "must be an integer",
    );
    assert_malformed(
        &event_list(r#"{"id":"a","op":"read","var":"x","rf":"zz"}"#),
        "unknown event `zz`",
    );
    assert_malformed(
        &event_list(
            r#"{"id":"a","op":"write","var":"y"},{"id":"b","op":"read","var":"x","rf":"a"}"#,
        ),
        "`a` writes `y`",
    );
    assert_malformed(
        &event_list(r#"{"id":"a","op":"fence"},{"id":"b","op":"read","var":"x","rf":"a"}"#),
        "not a write or rmw",
    );
    assert_malformed(
        &event_list(r#"{"id":"a","op":"fence"},{"id":"a","op":"fence"}"#),
        "`a` is used more than once",
    );
    assert_malformed(&event_list(r#"{"id":"init","op":"fence"}"#), "reserved");
    assert_malformed(
        &event_list(r#"{"id":"a","op":"rmw","var":"x","rf":"a"}"#),
        "reads from itself",
    );
    assert_malformed(
        &event_list(r#"{"id":"a","op":"unlock","mutex":"m"}"#),
        "does not hold",
    );
    assert_malformed(
        r#"{"threads": [[{"id":"a","op":"lock","mutex":"m"}], [{"id":"b","op":"unlock","mutex":"m"}]]}"#,
        "does not hold",
    );
}

#[test]
fn an_atomic_section_ends_with_its_thread_and_an_unmatched_end_does_nothing() {
    // T0 ends inside its section; T1's read of T0's write comes after it.
    let open_at_the_end = r#"{"threads": [[{"id":"a","op":"atomic-begin"}, {"id":"b","op":"write","var":"x"}],
                                          [{"id":"c","op":"read","var":"x","rf":"b"}]]}"#;
    // T0 closes a section it never opened (a program's stray end).
    let stray_end = r#"{"threads": [[{"id":"a","op":"atomic-end"}, {"id":"b","op":"write","var":"x"}],
                                    [{"id":"c","op":"read","var":"x","rf":"b"}]]}"#;
    for execution in [open_at_the_end, stray_end] {
        for model in ["--sc", "--tso", "--pso"] {
            let (code, stdout, stderr) = check(execution, &[model]);
            assert_eq!(code, 0, "{model} {execution}: {stdout}{stderr}");
        }
    }
}

#[test]
fn missing_file_exits_1() {
    Command::cargo_bin("lazysma")
        .expect("binary")
        .args(["check", "/nonexistent/execution.json"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot read"));
}

#[test]
fn extra_fields_are_ignored() {
    let text = r#"{"comment": "sb", "threads": [[{"id":"a","op":"write","var":"x","value":-3,"line":4}, {"id":"b","op":"read","var":"y","rf":"init","value":0}], [{"id":"c","op":"fence","value":null}]]}"#;
    let (code, _, stderr) = check(text, &["--sc"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn an_unwritable_verdict_is_an_environment_failure_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let file = input(SB);
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("lazysma"))
        .arg("check")
        .arg(file.path())
        .stdout(full)
        .output()
        .expect("lazysma runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write the verdict") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn a_failed_try_lock_needs_the_mutex_held_by_another_thread() {
    // T1 holds m from d to e; T0's failed try-lock b must fall in between.
    let busy = r#"{"threads": [[{"id":"a","op":"write","var":"v"}, {"id":"b","op":"lock-busy","mutex":"m"}],
                               [{"id":"c","op":"write","var":"v"}, {"id":"d","op":"lock","mutex":"m"}, {"id":"e","op":"unlock","mutex":"m"}]]}"#;
    let directory = tempfile::tempdir().expect("temporary directory");
    let path = directory.path().join("busy.json");
    std::fs::write(&path, busy).expect("write the execution");
    for model in ["--sc", "--tso", "--pso"] {
        let output = Command::cargo_bin("lazysma")
            .expect("the lazysma binary")
            .args([
                "check",
                path.to_str().expect("a UTF-8 path"),
                model,
                "--format",
                "json",
            ])
            .output()
            .expect("run lazysma");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{model}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let order: Vec<&str> = report["witness"]
            .as_array()
            .expect("witness")
            .iter()
            .filter_map(|s| s["event"].as_str())
            .collect();
        let at = |id: &str| {
            order
                .iter()
                .position(|e| *e == id)
                .expect("every event in the witness")
        };
        assert!(at("d") < at("b") && at("b") < at("e"), "{model}: {order:?}");
    }
    // Alone, nobody holds the mutex: never realisable.
    let alone = r#"{"threads": [[{"id":"b","op":"lock-busy","mutex":"m"}]]}"#;
    std::fs::write(&path, alone).expect("write the execution");
    let output = Command::cargo_bin("lazysma")
        .expect("the lazysma binary")
        .args(["check", path.to_str().expect("a UTF-8 path"), "--tso"])
        .output()
        .expect("run lazysma");
    assert_eq!(output.status.code(), Some(10));
}
