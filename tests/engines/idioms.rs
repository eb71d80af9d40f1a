//! Idioms of real concurrent C (benchmarks of GenMC and Nidhugg, SV-COMP's
//! pthread-wmm tasks, CDSChecker's own headers), each a program of
//! `tests/fixtures/idioms` verified with the verdict
//! `tests/fixtures/idioms/expected.tsv` gives it.

use crate::support;

use std::path::{Path, PathBuf};
use support::{Verdict, parallel_map, require_cbmc, verify, workers};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/idioms")
}

/// (program, arguments, verdict) of expected.tsv; `-I` folders are
/// relative to the fixtures' folder.
fn expectations() -> Vec<(String, Vec<String>, Verdict)> {
    read_expectations("expected.tsv")
}

/// (program, arguments, verdict) of the table `name` of the fixtures'
/// folder; `-I` folders are relative to it, or to the corpus root (`support::corpus_dir()`)
/// when they start with `CORPUS/`.
fn read_expectations(name: &str) -> Vec<(String, Vec<String>, Verdict)> {
    let text = std::fs::read_to_string(folder().join(name)).expect("the expectations");
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
                    let dir = match dir.strip_prefix("CORPUS/") {
                        Some(inside) => support::corpus_dir().join(inside),
                        None => folder().join(dir),
                    };
                    arguments.push(dir.display().to_string());
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

/// Whether concurrencykit's headers are in the corpus (`ck/`): a test
/// that needs them fails with a message naming where it looked when they
/// are not.
fn concurrencykit_present() -> bool {
    let headers = support::corpus_dir().join("ck/include/ck_pr.h");
    assert!(
        headers.is_file(),
        "concurrencykit's headers are not at {}: the corpus root (LAZYSMA_CORPUS, \
         else ../shared beside the repository) must hold ck/ (docs/testing.md)",
        headers.display()
    );
    true
}

#[test]
fn concurrencykit_spinlocks_of_the_x86_64_port_get_their_verdicts_from_both_engines() {
    if !require_cbmc() || !concurrencykit_present() {
        return;
    }
    let jobs: Vec<(String, Vec<String>, Verdict, &str)> = read_expectations("ck_expected.tsv")
        .into_iter()
        .flat_map(|(program, arguments, verdict)| {
            ["cbmc", "smc"].map(|engine| (program.clone(), arguments.clone(), verdict, engine))
        })
        .collect();
    assert!(jobs.len() >= 12, "ck_expected.tsv lists the spinlocks");
    let failures: Vec<String> =
        parallel_map(&jobs, workers(), |(program, arguments, verdict, engine)| {
            let mut all: Vec<&str> = arguments.iter().map(String::as_str).collect();
            all.extend(["--engine", engine, "--timeout", "300"]);
            let (code, stdout, stderr) = verify(&folder().join(program), &all);
            (code != verdict.exit_code()).then(|| {
                format!("{program} {all:?}: expected {verdict:?}, exit {code}\n{stdout}\n{stderr}")
            })
        })
        .into_iter()
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn x86_assembly_and_thread_local_fixtures_run_natively() {
    // their SC and TSO verdicts are safe: gcc's x86 binaries hold too
    if !concurrencykit_present() {
        return;
    }
    let corpus = support::corpus_dir().join("ck/include");
    let ck = folder().join("ck");
    let includes = [
        "-I".to_string(),
        ck.display().to_string(),
        "-I".to_string(),
        corpus.display().to_string(),
    ];
    for lock in [None, Some("-DCK_LOCK_CAS")] {
        let mut arguments = includes.to_vec();
        arguments.extend(lock.map(str::to_string));
        let ran = runs_natively(&folder().join("ck_spinlock.c"), &arguments);
        assert_ne!(ran, Some(false), "ck_spinlock.c {lock:?} under gcc");
    }
    let verify_fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify");
    for program in ["clh_thread_local.c", "x86_asm_atomics.c"] {
        let ran = runs_natively(&verify_fixtures.join(program), &[]);
        assert_ne!(ran, Some(false), "{program} under gcc");
    }
}

/// Whether the threaded program `path`, compiled by gcc with `arguments`,
/// runs to its end each of 20 times; `None` without gcc.
fn runs_natively(path: &Path, arguments: &[String]) -> Option<bool> {
    let directory = tempfile::tempdir().expect("temporary directory");
    let binary = directory.path().join("program");
    let compiled = std::process::Command::new("gcc")
        .args(["-O2", "-pthread"])
        .args(arguments)
        .arg(path)
        .arg("-o")
        .arg(&binary)
        .output()
        .ok()?;
    assert!(
        compiled.status.success(),
        "gcc compiles {}: {}",
        path.display(),
        String::from_utf8_lossy(&compiled.stderr)
    );
    Some((0..20).all(|_| {
        std::process::Command::new(&binary)
            .status()
            .is_ok_and(|status| status.success())
    }))
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
