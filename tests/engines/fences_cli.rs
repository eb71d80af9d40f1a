//! `lazysma fences`, end to end: store buffering gets exactly two full
//! fences, one per thread, each right after a store and before a later
//! load of the same thread; message passing needs none under TSO and one
//! store-store fence under PSO; the classic Dekker, Peterson and Lamport
//! programs become robust under TSO; every patched program is robust (and
//! the example's assertion holds), and removing any single fence of a
//! result makes the program non-robust again. With `--goal assertions`
//! only the fences the assertions need are inserted. The output never
//! replaces the input. It needs no CBMC.

use crate::support;

use std::path::{Path, PathBuf};
use support::run;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/robust")
        .join(name)
}

/// The lines of `patched` that differ from `original` (same line count:
/// fences go within lines).
fn changed_lines(original: &str, patched: &str) -> Vec<(String, String)> {
    original
        .lines()
        .zip(patched.lines())
        .filter(|(before, after)| before != after)
        .map(|(before, after)| (before.to_string(), after.to_string()))
        .collect()
}

/// Runs `fences` on `file` under `model` into a file of `directory`;
/// the original and the patched text.
fn fenced(file: &Path, model: &str, extra: &[&str], directory: &Path) -> (String, String) {
    let output = directory.join(file.file_name().expect("a file name"));
    let flag = format!("--{model}");
    let mut arguments = vec![flag.as_str(), "-o", output.to_str().expect("a UTF-8 path")];
    arguments.extend(extra);
    let (code, _, stderr) = run("fences", file, &arguments);
    assert_eq!(code, 0, "{} {model}\n{stderr}", file.display());
    (
        std::fs::read_to_string(file).expect("the original reads"),
        std::fs::read_to_string(&output).expect("the patched program was written"),
    )
}

/// Every fence of `patched` is needed: without any one of them the
/// program is not robust under `model`.
fn each_fence_is_needed(original: &str, patched: &str, model: &str, extra: &[&str]) {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let changed = changed_lines(original, patched);
    for (index, _) in changed.iter().enumerate() {
        // the patched program with the fences of one line taken out
        let text: Vec<String> = original
            .lines()
            .zip(patched.lines())
            .map(|(before, after)| {
                let position = changed.iter().position(|(b, a)| b == before && a == after);
                match position {
                    Some(at) if at == index => before.to_string(),
                    _ => after.to_string(),
                }
            })
            .collect();
        let file = directory.path().join(format!("without_{index}.c"));
        std::fs::write(&file, text.join("\n")).expect("the variant is written");
        let flag = format!("--{model}");
        let mut arguments = vec![flag.as_str()];
        arguments.extend(extra);
        let (code, stdout, _) = run("robust", &file, &arguments);
        assert_eq!(
            code, 10,
            "without the fence of `{}` the program is not robust\n{stdout}",
            changed[index].1
        );
    }
}

#[test]
fn store_buffering_gets_one_full_fence_per_thread_between_store_and_load() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (original, patched) = fenced(&fixture("store_buffering.c"), "tso", &[], directory.path());
    let changed = changed_lines(&original, &patched);
    assert_eq!(
        changed,
        vec![
            (
                "  x = 1;".to_string(),
                "  x = 1; __sync_synchronize();".to_string()
            ),
            (
                "  y = 1;".to_string(),
                "  y = 1; __sync_synchronize();".to_string()
            ),
        ]
    );
    let patched_file = directory.path().join("store_buffering.c");
    let (code, stdout, _) = run("robust", &patched_file, &["--tso"]);
    assert_eq!(code, 0, "the patched program is robust\n{stdout}");
    each_fence_is_needed(&original, &patched, "tso", &[]);
}

#[test]
fn the_fenced_example_keeps_its_assertion_under_tso() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/store_buffering.c");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (original, patched) = fenced(&example, "tso", &[], directory.path());
    assert_eq!(changed_lines(&original, &patched).len(), 2, "{patched}");
    let patched_file = directory.path().join("store_buffering.c");
    let (code, stdout, _) = run("verify", &patched_file, &["--tso", "--engine", "smc"]);
    assert_eq!(
        code, 0,
        "verify --tso finds the patched example safe\n{stdout}"
    );
}

#[test]
fn message_passing_needs_a_store_store_fence_under_pso_only() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let file = fixture("message_passing.c");
    let (original, patched) = fenced(&file, "tso", &[], directory.path());
    assert_eq!(original, patched, "robust under TSO as it is");
    let (original, patched) = fenced(&file, "pso", &[], directory.path());
    assert_eq!(
        changed_lines(&original, &patched),
        vec![(
            "  data = 1;".to_string(),
            "  data = 1; __atomic_thread_fence(__ATOMIC_RELEASE);".to_string()
        )]
    );
    let patched_file = directory.path().join("message_passing.c");
    let (code, stdout, _) = run("robust", &patched_file, &["--pso"]);
    assert_eq!(code, 0, "the patched program is robust under PSO\n{stdout}");
    each_fence_is_needed(&original, &patched, "pso", &[]);
}

#[test]
fn the_classic_mutual_exclusion_programs_become_robust_with_needed_fences() {
    let directory = support::corpus_dir().join("bench/svcomp/pthread-atomic-classic");
    for name in ["dekker.c", "peterson.c", "lamport.c"] {
        let scratch = tempfile::tempdir().expect("a temporary directory");
        let file = directory.join(name);
        let (original, patched) = fenced(&file, "tso", &["--unwind", "1"], scratch.path());
        let changed = changed_lines(&original, &patched);
        assert!(!changed.is_empty(), "{name} needs fences");
        assert!(
            changed
                .iter()
                .all(|(_, after)| after.contains("__sync_synchronize();")),
            "{name}: full fences under TSO\n{changed:?}"
        );
        let (code, stdout, _) = run(
            "robust",
            &scratch.path().join(name),
            &["--tso", "--unwind", "1"],
        );
        assert_eq!(code, 0, "{name} patched is robust\n{stdout}");
        each_fence_is_needed(&original, &patched, "tso", &["--unwind", "1"]);
    }
}

#[test]
fn the_patch_is_a_diff_and_never_replaces_the_input() {
    let file = fixture("store_buffering.c");
    let before = std::fs::read_to_string(&file).expect("the fixture reads");
    let (code, stdout, stderr) = run("fences", &file, &["--tso"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("--- "), "a unified diff\n{stdout}");
    assert!(
        stdout.contains("\n+  x = 1; __sync_synchronize();\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("robust under TSO with 2 fences"),
        "the summary names the goal and the count\n{stderr}"
    );
    let (code, _, stderr) = run(
        "fences",
        &file,
        &["--tso", "-o", file.to_str().expect("a UTF-8 path")],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("refusing to overwrite"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&file).expect("the fixture reads"),
        before
    );
}

#[test]
fn the_assertion_goal_needs_only_the_fences_its_assertion_needs() {
    let file = fixture("two_store_buffers.c");
    let robust_directory = tempfile::tempdir().expect("a temporary directory");
    let (original, for_robustness) = fenced(&file, "tso", &[], robust_directory.path());
    assert_eq!(
        changed_lines(&original, &for_robustness).len(),
        4,
        "robustness needs a fence after each store\n{for_robustness}"
    );
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (_, patched) = fenced(&file, "tso", &["--goal", "assertions"], directory.path());
    let changed: Vec<String> = changed_lines(&original, &patched)
        .into_iter()
        .map(|(_, after)| after)
        .collect();
    assert_eq!(
        changed,
        vec![
            "  x = 1; __sync_synchronize();".to_string(),
            "  y = 1; __sync_synchronize();".to_string()
        ],
        "the assertion is about the first pair only"
    );
    let patched_file = directory.path().join("two_store_buffers.c");
    let (code, stdout, _) = run("verify", &patched_file, &["--tso", "--engine", "smc"]);
    assert_eq!(code, 0, "the patched program is safe\n{stdout}");
    let (code, _, _) = run("robust", &patched_file, &["--tso"]);
    assert_eq!(code, 10, "and still not robust");
    let (code, stdout, _) = run("verify", &file, &["--tso", "--engine", "smc"]);
    assert_eq!(code, 10, "the original is unsafe\n{stdout}");
}
