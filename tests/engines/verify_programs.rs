//! Programs whose verdicts under SC, TSO and PSO and whose reports say how
//! lazysma models them: a heap node private until published,
//! floating-point store buffering confirmed natively, the seqlock example,
//! and the SARIF log of a violation. Their programs are in
//! `tests/fixtures/programs/`; a memory order passed as a parameter is a
//! case of `tests/fixtures/verify/` (`order_through_a_parameter`,
//! `atomic_flag_store`).

use crate::support;
use crate::verify_support;

use serde_json::Value;
use support::{require_cbmc, verify};
use verify_support::{example, json, program};

#[test]
fn the_sarif_log_carries_the_violation_its_witness_and_its_fence() {
    if !require_cbmc() {
        return;
    }
    let file = example("store_buffering.c");
    let (code, stdout, _) = verify(&file, &["--tso", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    let (code, stdout, stderr) = verify(&file, &["--tso", "--format", "sarif"]);
    assert_eq!(code, 10, "{stdout}{stderr}");
    assert!(stderr.is_empty(), "a document alone: {stderr}");
    let log = json(&stdout);
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "lazysma");
    assert_eq!(run["invocations"][0]["exitCode"], 10);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    assert_eq!(run["properties"]["verdict"], "violation");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{stdout}");
    let result = &results[0];
    assert_eq!(
        (result["ruleId"].as_str(), result["level"].as_str()),
        (Some("assertion"), Some("error"))
    );
    assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "assertion");
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], report["property"]["line"], "{stdout}");
    // relative to the repository root (tests/it/sarif_locations.rs: more)
    let artifact = &result["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "examples/store_buffering.c", "{stdout}");
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%", "{stdout}");
    // the witness, step by step, in the interleaving's order
    let steps = report["witness"]["steps"]
        .as_array()
        .expect("witness steps");
    let flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .expect("a thread flow");
    assert_eq!(flow.len(), steps.len());
    for (location, step) in flow.iter().zip(steps) {
        assert_eq!(location["executionOrder"], step["step"]);
        assert_eq!(
            location["location"]["physicalLocation"]["region"]["startLine"],
            step["line"]
        );
        let text = location["location"]["message"]["text"]
            .as_str()
            .expect("a message");
        assert_eq!(
            text,
            format!(
                "{}: {}",
                step["thread"]["name"].as_str().expect("name"),
                step["effect"].as_str().expect("effect")
            )
        );
    }
    // the fences of the diagnosis as fixes, each placed once
    let fences = report["diagnosis"]["fences"].as_array().expect("fences");
    let fixes = result["fixes"].as_array().expect("fixes");
    assert!(!fixes.is_empty() && fixes.len() <= fences.len(), "{stdout}");
    let replacement = &fixes[0]["artifactChanges"][0]["replacements"][0];
    assert_eq!(
        replacement["insertedContent"]["text"],
        " __sync_synchronize();"
    );
    assert_eq!(
        replacement["deletedRegion"]["startLine"],
        fences[0]["after_line"]
    );
    assert_eq!(
        replacement["deletedRegion"]["startColumn"].as_u64(),
        fences[0]["after_column"].as_u64().map(|column| column + 1)
    );
    assert!(
        result["message"]["text"].as_str().is_some_and(
            |text| text.starts_with("Violation under TSO: the assertion does not hold")
        )
    );
    // bad input: a failed invocation that says where
    let directory = tempfile::tempdir().expect("temporary directory");
    let bad = program(
        &directory,
        "bad.c",
        include_str!("../fixtures/programs/bad_declaration.c"),
    );
    let (code, stdout, _) = verify(&bad, &["--format", "sarif"]);
    assert_eq!(code, 1, "{stdout}");
    let log = json(&stdout);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert_eq!(log["runs"][0]["results"], Value::Array(Vec::new()));
}

/// Two threads push a node each, filled in before `PUBLISH` links it; a
/// third reads the top node's value.
const PUBLISHED_NODES: &str = include_str!("../fixtures/programs/published_nodes.c");

#[test]
fn a_node_filled_in_before_it_is_published_is_private_until_then() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let cases = [
        // a plain store: the node's stores may reach memory after it under PSO
        ("top = n", [0, 0, 10]),
        ("__atomic_store_n(&top, n, __ATOMIC_RELEASE)", [0, 0, 0]),
        ("__sync_bool_compare_and_swap(&top, 0, n)", [0, 0, 0]),
    ];
    for (index, (publish, codes)) in cases.iter().enumerate() {
        let path = program(
            &directory,
            &format!("nodes{index}.c"),
            &PUBLISHED_NODES.replace("PUBLISH", publish),
        );
        for (model, code) in ["--sc", "--tso", "--pso"].iter().zip(codes) {
            let (actual, stdout, stderr) = verify(&path, &[model, "--nmalloc", "auto"]);
            assert_eq!(actual, *code, "{publish} {model}: {stdout}{stderr}");
        }
        // the stores that fill the node in take the least timestamp where
        // the node is private until it is published
        for (model, private) in [("--tso", true), ("--pso", index > 0)] {
            let output = directory.path().join(format!("nodes{index}{model}.c"));
            let done = support::lazysma()
                .arg(&path)
                .arg(model)
                .arg("-o")
                .arg(&output)
                .output()
                .unwrap();
            assert!(
                done.status.success(),
                "{}",
                String::from_utf8_lossy(&done.stderr)
            );
            let text = std::fs::read_to_string(&output).unwrap();
            let filled = text.lines().filter(|line| {
                line.contains("/* 8: n->value = 1; */") || line.contains("/* 9: n->next = 0; */")
            });
            let unobserved: Vec<bool> = filled
                .map(|line| line.trim_start().starts_with("sma_write_unobserved("))
                .collect();
            assert_eq!(unobserved, vec![private; 4], "{publish} {model}:\n{text}");
        }
    }
}

/// Store buffering on a `float` and a `double`; with `FENCE` defined each
/// thread fences between its store and its load.
const FLOATING_STORE_BUFFERING: &str =
    include_str!("../fixtures/programs/floating_store_buffering.c");

#[test]
fn floating_store_buffering_is_found_under_tso_and_pso_and_checked_natively() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let path = program(&directory, "floating_sb.c", FLOATING_STORE_BUFFERING);
    let (code, stdout, stderr) = verify(&path, &["--sc", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for model in ["--tso", "--pso"] {
        // without --bitwidth, shared memory is as wide as the double needs
        let (code, stdout, stderr) = verify(&path, &[model, "--format", "json"]);
        assert_eq!(code, 10, "{model}: {stdout}{stderr}");
        let report = json(&stdout);
        assert_eq!(report["verdict"], "violation", "{stdout}");
        assert_eq!(report["bounds"]["bitwidth"], 64, "{stdout}");
        assert_eq!(report["check"]["realisable"], true, "{stdout}");
        let steps = report["witness"]["steps"]
            .as_array()
            .expect("witness steps");
        let value_of = |kind: &str, location: &str| {
            steps
                .iter()
                .find(|s| s["kind"] == kind && s["location"] == location)
                .map(|s| s["value"].clone())
        };
        // JSON carries the numbers as C prints them, the stores' and the loads'
        assert_eq!(
            value_of("store-buffered", "x"),
            Some(Value::from("1.5")),
            "{stdout}"
        );
        assert_eq!(
            value_of("load-from-memory", "y"),
            Some(Value::from("0.0")),
            "{stdout}"
        );
        let (code, stdout, stderr) = verify(&path, &[model, "--bitwidth", "64", "-D", "FENCE"]);
        assert_eq!(code, 0, "{model} fenced: {stdout}{stderr}");
        // a width given too narrow for the double is bad input at its declaration
        let (code, stdout, stderr) =
            verify(&path, &[model, "--bitwidth", "32", "--color", "never"]);
        assert_eq!(code, 1, "{model} at 32 bits: {stdout}{stderr}");
        assert!(
            stderr.contains("a `double` in shared memory needs --bitwidth 64 or more (it is 32)"),
            "{stderr}"
        );
        assert!(stderr.contains("floating_sb.c:9:8"), "{stderr}");
    }
    for sma in ["tso_ref", "pso_ref"] {
        let (code, stdout, stderr) = verify(&path, &["--sma", sma, "--bitwidth", "64"]);
        assert_eq!(code, 10, "{sma}: {stdout}{stderr}");
    }
}

#[test]
fn the_seqlock_example_gives_the_verdicts_its_comment_promises() {
    if !require_cbmc() {
        return;
    }
    let seqlock = example("seqlock.c");
    for (arguments, expected) in [
        (&["--tso"][..], 0),
        (&["--pso"][..], 10),
        (&["--pso", "-D", "FENCED"][..], 0),
    ] {
        let (code, stdout, stderr) = verify(&seqlock, &[arguments, &["--color", "never"]].concat());
        assert_eq!(code, expected, "{arguments:?}: {stdout}{stderr}");
        if expected == 10 {
            // the torn pair as numbers (one new, one old: which one the
            // solver picks), and the fence that forbids it
            assert!(
                stdout.contains("reads x = ") && stdout.contains("reads y = "),
                "{stdout}"
            );
            support::assert_torn_seqlock_witness(&stdout);
        }
    }
}
