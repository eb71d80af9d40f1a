//! The fence advice of `lazysma verify` repairs programs: insert the
//! suggested statement (`__sync_synchronize();`, or under PSO the cheaper
//! store-store fence where it suffices) after the line the JSON report
//! names, re-run within the same bounds, repeat until no violation is left.
//! The loop must end (exit 0) for store buffering (TSO), message passing
//! (PSO, with a store-store fence) and Dekker (TSO).

mod support;

use std::path::{Path, PathBuf};
use support::{require_cbmc, verify};

/// The most repair rounds a program may need.
const MAX_ROUNDS: usize = 6;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples").join(name)
}

/// A fence to insert: after this 1-based line, this statement.
type Fence = (u32, String);

/// Inserts each fence statement after its line (from the bottom up, so the
/// earlier numbers stay valid).
fn insert_fences(text: &str, fences: &[Fence]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fences = fences.to_vec();
    fences.sort();
    fences.dedup();
    for (line, statement) in fences.iter().rev() {
        let index = usize::try_from(*line).expect("small line numbers");
        assert!(index >= 1 && index <= lines.len(), "fence after line {line} is outside the file");
        lines.insert(index, statement.clone());
    }
    lines.join("\n") + "\n"
}

/// Runs the repair loop and returns the fences inserted in each round once
/// verify exits 0.
fn repair(source: &Path, arguments: &[&str]) -> Vec<Vec<Fence>> {
    let directory = tempfile::tempdir().expect("temporary directory");
    let name = source.file_name().expect("a file name");
    let program = directory.path().join(name);
    std::fs::copy(source, &program).expect("copy the example");
    let mut rounds = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let mut all = vec!["--format", "json"];
        all.extend(arguments);
        let (code, stdout, stderr) = verify(&program, &all);
        if code == 0 {
            return rounds;
        }
        assert_eq!(code, 10, "verify must confirm the violation: {stderr}\n{stdout}");
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON report");
        assert_eq!(report["check"]["realisable"], true);
        assert_eq!(report["diagnosis"]["sc_realisable"], false, "a weak-memory bug: {}", report["diagnosis"]);
        let fences = report["diagnosis"]["fences"].as_array().expect("fences listed").clone();
        assert!(!fences.is_empty(), "the report suggests a fence: {}", report["diagnosis"]);
        let mut after = Vec::new();
        for fence in &fences {
            let file = fence["file"].as_str().expect("fence file");
            assert!(Path::new(file).ends_with(name), "the fence is in the program: {file}");
            let after_line = fence["after_line"].as_u64().expect("after_line") as u32;
            let before_line = fence["before_line"].as_u64().expect("before_line") as u32;
            assert!(after_line <= before_line, "the fence goes between the store and the later access");
            let insert = fence["insert"].as_str().expect("the statement to insert");
            let expected = match fence["kind"].as_str() {
                Some("full") => "__sync_synchronize();",
                Some("store-store") => "__atomic_thread_fence(__ATOMIC_RELEASE);",
                other => panic!("unknown fence kind {other:?}"),
            };
            assert_eq!(insert, expected);
            after.push((after_line, insert.to_string()));
        }
        let text = std::fs::read_to_string(&program).expect("read the program");
        std::fs::write(&program, insert_fences(&text, &after)).expect("write the program");
        rounds.push(after);
    }
    panic!("still a violation after {MAX_ROUNDS} rounds of fences: {rounds:?}");
}

#[test]
fn inserting_lines_keeps_numbers_valid() {
    let text = "a\nb\nc\n";
    let fences = [(3, "f();".to_string()), (1, "g();".to_string())];
    assert_eq!(insert_fences(text, &fences), "a\ng();\nb\nc\nf();\n");
}

#[test]
fn store_buffering_is_repaired_under_tso() {
    if !require_cbmc() {
        return;
    }
    let rounds = repair(&example("store_buffering.c"), &["--tso"]);
    // x = 1 (line 16) before r1 = y, and y = 1 (line 22) before r2 = x:
    // store-load reorderings need full fences.
    let full = "__sync_synchronize();".to_string();
    assert_eq!(rounds.first().cloned().unwrap_or_default(), vec![(16, full.clone()), (22, full)]);
}

#[test]
fn message_passing_is_repaired_under_pso() {
    if !require_cbmc() {
        return;
    }
    let rounds = repair(&example("message_passing.c"), &["--pso"]);
    // data = 42 (line 14) must reach memory before ready = 1 (line 15): a
    // store-store fence is enough.
    assert_eq!(rounds, vec![vec![(14, "__atomic_thread_fence(__ATOMIC_RELEASE);".to_string())]]);
}

#[test]
fn dekker_is_repaired_under_tso() {
    if !require_cbmc() {
        return;
    }
    let bounds = ["--tso", "--unwind", "1", "--rounds", "2", "--qsize", "3", "--maxclock", "4"];
    let rounds = repair(&example("dekker.c"), &bounds);
    assert!(!rounds.is_empty(), "Dekker without fences is broken under TSO");
}
