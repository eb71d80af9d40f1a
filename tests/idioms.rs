//! Idioms of real concurrent C (benchmarks of GenMC and Nidhugg, SV-COMP's
//! pthread-wmm tasks, CDSChecker's own headers), each a program of
//! `tests/fixtures/idioms` verified with the verdict
//! `tests/fixtures/idioms/expected.tsv` gives it.

mod support;

use std::path::{Path, PathBuf};
use support::{Verdict, parallel_map, require_cbmc, verify, workers};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/idioms")
}

/// (program, arguments, verdict) of expected.tsv; `-I` folders are
/// relative to the fixtures' folder.
fn expectations() -> Vec<(String, Vec<String>, Verdict)> {
    let text = std::fs::read_to_string(folder().join("expected.tsv")).expect("expected.tsv");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            let mut arguments = Vec::new();
            let mut words = fields[1].split_whitespace();
            while let Some(word) = words.next() {
                arguments.push(word.to_string());
                if word == "-I"
                    && let Some(dir) = words.next()
                {
                    arguments.push(folder().join(dir).display().to_string());
                }
            }
            let verdict = Verdict::parse(fields[2]).expect("a verdict");
            (fields[0].to_string(), arguments, verdict)
        })
        .collect()
}

#[test]
fn each_idiom_gets_its_verdict() {
    if !require_cbmc() {
        return;
    }
    let jobs = expectations();
    assert!(jobs.len() >= 6, "expected.tsv lists the idioms");
    let failures: Vec<String> = parallel_map(&jobs, workers(), |(program, arguments, verdict)| {
        let mut all: Vec<&str> = arguments.iter().map(String::as_str).collect();
        all.extend(["--timeout", "300"]);
        let (code, stdout, stderr) = verify(&folder().join(program), &all);
        (code != verdict.exit_code()).then(|| {
            format!(
                "{program} {arguments:?}: expected {verdict:?}, exit {code}\n{stdout}\n{stderr}"
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dollar_names_are_spelt_as_the_program_spells_them() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, stderr) = verify(&folder().join("dollar_names.c"), &["--tso"]);
    assert_eq!(code, 10, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("__unbuffered_p0_EAX$read_delayed"),
        "{stdout}"
    );
}

#[test]
fn without_its_folder_the_program_gets_the_bundled_header() {
    // the bundled thrd_join takes two arguments
    let (code, stdout, stderr) = verify(&folder().join("own_header.c"), &["--tso"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
}

#[test]
fn a_union_of_mixed_sizes_is_refused_with_its_reason() {
    // qspinlock's 16-bit tail inside its 32-bit lock word
    let (code, stdout, stderr) =
        verify(&folder().join("anonymous_union_mixed_sizes.c"), &["--tso"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("an anonymous union whose members are not scalars of one size (in `struct qspinlock`, line 11, column 2)")
            && stderr.contains("overlap in memory as scalars of different sizes")
            && stderr.contains("`locked_pending`, `tail`: 2-byte scalars")
            && stderr.contains("use a struct"),
        "{stderr}"
    );
    assert!(
        stderr.contains("anonymous_union_mixed_sizes.c:20:"),
        "{stderr}"
    );
}

#[test]
fn a_size_parameter_known_only_at_run_time_is_refused_naming_the_call() {
    let program = folder().join("memcpy_size_parameter.c");
    let (code, stdout, stderr) = verify(&program, &["--sc", "-D", "RUNTIME_SIZE"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("a size that is not a positive constant here")
            && stderr.contains("memcpy_size_parameter.c:29:29")
            && stderr.contains("the call at")
            && stderr.contains("memcpy_size_parameter.c:59:3"),
        "{stderr}"
    );
    // with constants at every call the same program is accepted
    let (code, stdout, stderr) = verify(&program, &["--sc", "--engine", "smc"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
}

#[test]
fn linux_read_once_copies_each_object_with_one_access_of_its_width() {
    // the writer's 16-bit and 32-bit copies, and no default memcpy
    let (code, stdout, stderr) = verify(
        &folder().join("read_once_size.c"),
        &["--pso", "--engine", "smc"],
    );
    assert_eq!(code, 10, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("*(volatile __u32 *)p = *(__u32 *)res;")
            || stdout.contains("*(volatile __u32 *)p = *(__u32 *)re"),
        "{stdout}"
    );
    assert!(!stdout.contains("__builtin_memcpy"), "{stdout}");
}

/// Whether the program `path` (with `defines`, `-D` names) compiled by gcc
/// runs to its end; `None` without gcc.
fn runs_under_gcc(path: &Path, defines: &[&str]) -> Option<bool> {
    let directory = tempfile::tempdir().expect("temporary directory");
    let binary = directory.path().join("program");
    let mut gcc = std::process::Command::new("gcc");
    gcc.arg("-O0").arg(path).arg("-o").arg(&binary);
    for define in defines {
        gcc.arg(format!("-D{define}"));
    }
    let compiled = gcc.output().ok()?;
    assert!(compiled.status.success(), "gcc compiles {}", path.display());
    let ran = std::process::Command::new(&binary)
        .output()
        .expect("the program runs");
    Some(ran.status.success())
}

#[test]
fn members_that_take_no_room_are_laid_out_as_gcc_lays_them_out() {
    if !require_cbmc() {
        return;
    }
    // zero-length arrays that raise a struct's alignment, flexible arrays
    // of structs, empty structs nested and in arrays of structs
    let program =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/values/zero_size_layout.c");
    if let Some(ran) = runs_under_gcc(&program, &[]) {
        assert!(ran, "the layout holds natively");
        assert_eq!(runs_under_gcc(&program, &["WRONG_LAYOUT"]), Some(false));
    }
    let (code, stdout, stderr) = verify(&program, &["--sc", "--unwind", "4"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let (code, stdout, stderr) = verify(&program, &["--sc", "--unwind", "4", "-D", "WRONG_LAYOUT"]);
    assert_eq!(code, 10, "{stdout}\n{stderr}");
}
