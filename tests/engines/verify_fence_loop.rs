//! The fence advice of `lazysma verify` repairs programs: insert the
//! suggested statement (`__sync_synchronize();`, or under PSO the cheaper
//! store-store fence where it suffices) right after the statement the JSON
//! report names (`after_line`, `after_column`), re-run within the same
//! bounds, repeat until no violation is left. The loop must end (exit 0)
//! for store buffering (TSO), message passing (PSO, with a store-store
//! fence) and Dekker (TSO), also when the store and the later access share
//! a line, when the store is in an atomic function, and for 2+2W (PSO,
//! store-store fences).

use crate::support;

use std::path::{Path, PathBuf};
use support::{require_cbmc, verify};

/// The most repair rounds a program may need.
const MAX_ROUNDS: usize = 6;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// A fence to insert: after this 1-based line and column (the last
/// character of a statement), this statement.
type Fence = (u32, u32, String);

/// Inserts each fence statement right after its column (from the bottom
/// up and right to left, so the earlier positions stay valid).
fn insert_fences(text: &str, fences: &[Fence]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fences = fences.to_vec();
    fences.sort();
    fences.dedup();
    for (line, column, statement) in fences.iter().rev() {
        let index = usize::try_from(*line).expect("small line numbers");
        assert!(
            index >= 1 && index <= lines.len(),
            "fence after line {line} is outside the file"
        );
        let mut characters: Vec<char> = lines[index - 1].chars().collect();
        let column = usize::try_from(*column).expect("small column numbers");
        assert!(
            column >= 1 && column <= characters.len(),
            "fence after column {column} is outside line {line}"
        );
        assert_eq!(
            characters[column - 1],
            ';',
            "the fence goes after a statement's `;`"
        );
        characters.splice(column..column, format!(" {statement}").chars());
        lines[index - 1] = characters.into_iter().collect();
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
        assert_eq!(
            code, 10,
            "verify must confirm the violation: {stderr}\n{stdout}"
        );
        let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON report");
        assert_eq!(report["check"]["realisable"], true);
        assert_eq!(
            report["diagnosis"]["sc_realisable"], false,
            "a weak-memory bug: {}",
            report["diagnosis"]
        );
        let fences = report["diagnosis"]["fences"]
            .as_array()
            .expect("fences listed")
            .clone();
        assert!(
            !fences.is_empty(),
            "the report suggests a fence: {}",
            report["diagnosis"]
        );
        let mut after = Vec::new();
        for fence in &fences {
            let file = fence["file"].as_str().expect("fence file");
            assert!(
                Path::new(file).ends_with(name),
                "the fence is in the program: {file}"
            );
            let after_line = fence["after_line"].as_u64().expect("after_line") as u32;
            let after_column = fence["after_column"].as_u64().expect("after_column") as u32;
            let before_line = fence["before_line"].as_u64().expect("before_line") as u32;
            let before_column = fence["before_column"].as_u64().expect("before_column") as u32;
            assert!(
                after_line <= before_line,
                "the fence goes between the store and the later access"
            );
            assert!(
                after_line < before_line || after_column < before_column,
                "the fence goes before the later access"
            );
            assert_eq!(fence["placement"], "after-statement", "{fence}");
            let insert = fence["insert"].as_str().expect("the statement to insert");
            let expected = match fence["kind"].as_str() {
                Some("full") => "__sync_synchronize();",
                Some("store-store") => "__atomic_thread_fence(__ATOMIC_RELEASE);",
                other => panic!("unknown fence kind {other:?}"),
            };
            assert_eq!(insert, expected);
            after.push((after_line, after_column, insert.to_string()));
        }
        let text = std::fs::read_to_string(&program).expect("read the program");
        std::fs::write(&program, insert_fences(&text, &after)).expect("write the program");
        rounds.push(after);
    }
    panic!("still a violation after {MAX_ROUNDS} rounds of fences: {rounds:?}");
}

/// Writes `text` as `name` in `directory`.
fn program(directory: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = directory.path().join(name);
    std::fs::write(&path, text).expect("write the program");
    path
}

#[test]
fn inserting_fences_keeps_positions_valid() {
    let text = "a;\nb; c;\nd;\n";
    let fences = [
        (2, 2, "f();".to_string()),
        (1, 2, "g();".to_string()),
        (2, 5, "h();".to_string()),
    ];
    assert_eq!(
        insert_fences(text, &fences),
        "a; g();\nb; f(); c; h();\nd;\n"
    );
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
    assert_eq!(
        rounds.first().cloned().unwrap_or_default(),
        vec![(16, 8, full.clone()), (22, 8, full)]
    );
}

#[test]
fn message_passing_is_repaired_under_pso() {
    if !require_cbmc() {
        return;
    }
    let rounds = repair(&example("message_passing.c"), &["--pso"]);
    // data = 42 (line 14) must reach memory before ready = 1 (line 15): a
    // store-store fence is enough.
    assert_eq!(
        rounds,
        vec![vec![(
            14,
            12,
            "__atomic_thread_fence(__ATOMIC_RELEASE);".to_string()
        )]]
    );
}

#[test]
fn dekker_is_repaired_under_tso() {
    if !require_cbmc() {
        return;
    }
    let bounds = [
        "--tso",
        "--unwind",
        "1",
        "--rounds",
        "2",
        "--qsize",
        "3",
        "--maxclock",
        "4",
    ];
    let rounds = repair(&example("dekker.c"), &bounds);
    assert!(
        !rounds.is_empty(),
        "Dekker without fences is broken under TSO"
    );
}

/// Store buffering with each thread on one line: `x = 1; r1 = y;`.
const ONE_LINE_STORE_BUFFERING: &str =
    include_str!("../fixtures/programs/store_buffering_one_line.c");

#[test]
fn a_store_and_a_load_on_one_line_are_repaired_under_tso() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let source = program(&directory, "sb_line.c", ONE_LINE_STORE_BUFFERING);
    let rounds = repair(&source, &["--tso"]);
    // after `x = 1;` (columns 21-26) and `y = 1;`, before the loads
    let full = "__sync_synchronize();".to_string();
    assert_eq!(rounds, vec![vec![(4, 26, full.clone()), (5, 26, full)]]);
}

#[test]
fn two_stores_on_one_line_are_repaired_under_pso() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let text = include_str!("../fixtures/programs/message_passing_one_line.c");
    let source = program(&directory, "mp_line.c", text);
    let rounds = repair(&source, &["--pso"]);
    // after `data = 1;` (columns 20-28)
    assert_eq!(
        rounds,
        vec![vec![(
            4,
            28,
            "__atomic_thread_fence(__ATOMIC_RELEASE);".to_string()
        )]]
    );
}

#[test]
fn a_store_in_an_atomic_function_is_fenced_inside_the_function() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let text = ONE_LINE_STORE_BUFFERING
        .replace("int x, y, r1, r2;\n", "int x, y, r1, r2;\nvoid __VERIFIER_atomic_w1(void) { x = 1; }\nvoid __VERIFIER_atomic_w2(void) { y = 1; }\n")
        .replace("{ x = 1; r1 = y;", "{ __VERIFIER_atomic_w1(); r1 = y;")
        .replace("{ y = 1; r2 = x;", "{ __VERIFIER_atomic_w2(); r2 = x;");
    let source = program(&directory, "atomic_fn.c", &text);
    let rounds = repair(&source, &["--tso"]);
    // after `x = 1;` in the body of the atomic function (columns 35-40),
    // not after its line, which would be outside any function
    let full = "__sync_synchronize();".to_string();
    assert_eq!(rounds, vec![vec![(4, 40, full.clone()), (5, 40, full)]]);
}

#[test]
fn two_plus_two_writes_is_repaired_with_store_store_fences_under_pso() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let text = include_str!("../fixtures/programs/two_plus_two_writes.c");
    let source = program(&directory, "w22.c", text);
    // both stores of each thread buffered at once, and a clock to order them
    let rounds = repair(&source, &["--pso", "--qsize", "3", "--maxclock", "4"]);
    // the stores overtaking each other need store-store fences, not full ones
    let release = "__atomic_thread_fence(__ATOMIC_RELEASE);".to_string();
    assert_eq!(
        rounds,
        vec![vec![(4, 26, release.clone()), (5, 26, release)]]
    );
}
