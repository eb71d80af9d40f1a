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
        stderr.contains("an anonymous union whose members are not scalars of one size"),
        "{stderr}"
    );
    assert!(
        stderr.contains("anonymous_union_mixed_sizes.c:20:"),
        "{stderr}"
    );
}

#[test]
fn linux_read_once_is_refused_where_its_size_is_a_parameter() {
    let (code, stdout, stderr) = verify(&folder().join("read_once_size.c"), &["--tso"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("a size that is not a positive constant here")
            && stderr.contains("read_once_size.c:30:"),
        "{stderr}"
    );
}
