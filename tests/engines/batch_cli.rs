//! `lazysma batch` and `lazysma merge` end to end on the manifests of
//! `tests/fixtures/batch/`: the summary, the exit codes, the JUnit XML
//! file and the SARIF log of a batch run in process, and the same report
//! from `--print-jobs` run by GNU parallel and `merge` (CI installs GNU
//! parallel: a missing one fails the test). Native engine only, each run
//! well under a second.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/batch")
        .join(name)
}

/// Runs `lazysma ARGS...` in `directory`: (exit code, stdout, stderr).
fn lazysma(directory: &Path, arguments: &[&str]) -> (i32, String, String) {
    support::finished(
        support::lazysma()
            .current_dir(directory)
            .args(arguments)
            .output()
            .expect("the lazysma binary runs"),
    )
}

/// The `<testcase` elements of a JUnit file, and its `<failure` and `<error` elements.
fn junit_counts(path: &Path) -> (usize, usize, usize) {
    let text = std::fs::read_to_string(path).expect("the JUnit file was written");
    assert!(text.starts_with("<?xml version=\"1.0\""), "{text}");
    let count = |element: &str| text.matches(element).count();
    (count("<testcase "), count("<failure "), count("<error "))
}

/// The error results (violations) of every run of a SARIF log, by run.
fn sarif_results(path: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(path).expect("the SARIF log was written");
    let log: Value = serde_json::from_str(&text).expect("the SARIF log is JSON");
    assert_eq!(log["version"], "2.1.0");
    log["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|run| {
            let results = run["results"].as_array().expect("results");
            results
                .iter()
                .filter(|result| result["level"] == "error")
                .count()
        })
        .collect()
}

/// Runs the command lines `jobs` with GNU parallel in `work`.
fn run_in_parallel(work: &Path, jobs: &str) {
    std::fs::write(work.join("jobs.txt"), jobs).expect("jobs.txt is written");
    let parallel = Command::new("parallel")
        .current_dir(work)
        .args([
            "--will-cite",
            "-j",
            "2",
            "--halt",
            "never",
            "-a",
            "jobs.txt",
        ])
        .output()
        .expect("GNU parallel is installed (CI installs it; docs/scale.md)");
    assert!(
        parallel.status.success(),
        "{}",
        String::from_utf8_lossy(&parallel.stderr)
    );
}

/// A summary table but for the times, and the classes explored up to a
/// violation (the native search on two workers, or in parts, may find
/// another first).
fn without_times(table: &str) -> Vec<String> {
    table
        .lines()
        .map(|line| {
            let mut words: Vec<&str> = line.split_whitespace().collect();
            if words.len() == 7 {
                words.remove(5);
                if words[3] == "violation" {
                    words[4] = "-";
                }
            }
            words.join(" ")
        })
        .collect()
}

#[test]
fn a_batch_split_in_parts_gives_the_whole_verdicts_and_classes() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let work = directory.path();
    let manifest = fixture("examples.tsv");
    let manifest = manifest.to_str().expect("a UTF-8 path");
    let (code, whole, error) = lazysma(work, &["batch", manifest, "--jobs", "2"]);
    assert_eq!(code, 0, "{whole}{error}");
    let (code, jobs, error) = lazysma(
        work,
        &[
            "batch",
            manifest,
            "--split",
            "3",
            "--print-jobs",
            "--results",
            "parts",
        ],
    );
    assert_eq!(code, 0, "{error}");
    assert_eq!(jobs.lines().count(), 27, "{jobs}");
    assert!(
        jobs.contains("--split 3 --job 0005-dekker-sc-part2of3"),
        "{jobs}"
    );
    run_in_parallel(work, &jobs);
    let merge = [
        "merge",
        "parts",
        "--manifest",
        manifest,
        "--split",
        "3",
        "--junit",
        "parts.xml",
    ];
    let (code, merged, error) = lazysma(work, &merge);
    assert_eq!(code, 0, "{error}");
    // a safe job's classes are the sum of its parts': the whole search's
    assert_eq!(without_times(&merged), without_times(&whole));
    assert_eq!(junit_counts(&work.join("parts.xml")), (9, 0, 0));

    // a part of a safe job missing: no verdict, and merge says which
    std::fs::remove_file(work.join("parts/0005-dekker-sc-part2of3.json"))
        .expect("the result exists");
    let (code, _, error) = lazysma(work, &merge);
    assert_eq!(code, 5, "{error}");
    assert!(error.contains("incomplete: part 2 of 3 missing"), "{error}");
}

#[test]
fn a_batch_in_process_and_through_gnu_parallel_gives_the_same_report() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let work = directory.path();
    let manifest = fixture("examples.tsv");
    let manifest = manifest.to_str().expect("a UTF-8 path");
    let (code, summary, progress) = lazysma(
        work,
        &[
            "batch", manifest, "--jobs", "2", "--junit", "in.xml", "--sarif", "in.sarif",
        ],
    );
    assert_eq!(code, 0, "{summary}{progress}");
    assert!(
        summary.contains("9 jobs: 9 as expected, 0 unexpected"),
        "{summary}"
    );
    assert_eq!(
        progress
            .lines()
            .filter(|line| line.starts_with('['))
            .count(),
        9,
        "{progress}"
    );
    assert_eq!(junit_counts(&work.join("in.xml")), (9, 0, 0));
    // a result per violation: dekker (TSO, PSO), message passing (PSO),
    // store buffering (TSO)
    let in_process = sarif_results(&work.join("in.sarif"));
    assert_eq!(in_process.len(), 9);
    assert_eq!(in_process, [0, 1, 1, 0, 0, 1, 0, 1, 0]);

    let (code, jobs, error) = lazysma(
        work,
        &["batch", manifest, "--print-jobs", "--results", "parts"],
    );
    assert_eq!(code, 0, "{error}");
    assert_eq!(jobs.lines().count(), 9, "{jobs}");
    run_in_parallel(work, &jobs);
    let (code, merged, error) = lazysma(
        work,
        &[
            "merge",
            "parts",
            "--manifest",
            manifest,
            "--junit",
            "merged.xml",
            "--sarif",
            "merged.sarif",
        ],
    );
    assert_eq!(code, 0, "{error}");
    assert_eq!(without_times(&merged), without_times(&summary));
    assert_eq!(junit_counts(&work.join("merged.xml")), (9, 0, 0));
    assert_eq!(sarif_results(&work.join("merged.sarif")), in_process);

    // a part missing: merge says so and does not pass
    let first = jobs
        .lines()
        .next()
        .and_then(|line| line.split(" --job ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .expect("a job id");
    std::fs::remove_file(work.join("parts").join(format!("{first}.json")))
        .expect("the result exists");
    let (code, _, error) = lazysma(work, &["merge", "parts", "--manifest", manifest]);
    assert_eq!(code, 5, "{error}");
    assert!(
        error.contains(&format!("missing: the result of job {first}")),
        "{error}"
    );
}

#[test]
fn an_unexpected_violation_fails_the_batch_with_exit_10() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let manifest = fixture("unexpected.tsv");
    let (code, summary, _) = lazysma(
        directory.path(),
        &[
            "batch",
            manifest.to_str().expect("UTF-8"),
            "--junit",
            "out.xml",
        ],
    );
    assert_eq!(code, 10, "{summary}");
    assert!(summary.contains("UNEXPECTED VIOLATION"), "{summary}");
    assert!(summary.contains("MISSED VIOLATION"), "{summary}");
    assert_eq!(junit_counts(&directory.path().join("out.xml")), (2, 2, 0));
}

#[test]
fn a_manifest_mistake_is_located_and_runs_nothing() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let manifest = fixture("refused_option.tsv");
    let (code, summary, error) = lazysma(
        directory.path(),
        &["batch", manifest.to_str().expect("UTF-8")],
    );
    assert_eq!(code, 1, "{summary}");
    assert!(summary.is_empty(), "{summary}");
    assert!(error.contains("refused_option.tsv:1:"), "{error}");
    assert!(
        error.contains("the option --format cannot be given to a harness"),
        "{error}"
    );
}

/// A manifest of every program of `examples/` (expectations from
/// `tests/fixtures/smc_examples.tsv`) and of the benchmark corpus (its
/// manifest's verdicts, which are the assertions': the waits that never
/// end are not checked there; the bounds of `bench_bounds.tsv`, else its
/// smallest `--unwind`), each under SC, TSO and PSO with `timeout`
/// seconds.
fn corpus_manifest(timeout: u32) -> String {
    let expect = |verdict: &str| match verdict {
        "safe" => "safe",
        "unsafe" => "violation",
        _ => "?",
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut lines = vec!["file\tmodels\texpect\ttimeout\toptions".to_string()];
    let examples = std::fs::read_to_string(root.join("tests/fixtures/smc_examples.tsv"))
        .expect("the examples' verdicts");
    for line in examples.lines().filter(|line| !line.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        if let [file, sc, tso, pso] = fields[..] {
            let file = root.join("examples").join(file);
            let expected = [sc, tso, pso].map(expect).join(",");
            lines.push(format!(
                "{}\tsc,tso,pso\t{expected}\t{timeout}\t",
                file.display()
            ));
        }
    }
    let bench = support::corpus_dir().join("bench");
    let manifest = std::fs::read_to_string(bench.join("manifest.tsv")).expect("the manifest");
    let bounds = support::bench_bounds();
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        if let [path, _, sc, tso, pso, unwind, ..] = fields[..] {
            let expected = [sc, tso, pso].map(expect).join(",");
            let options = bounds
                .get(path)
                .map_or(format!("--unwind {unwind}"), |bounds| bounds.join(" "));
            lines.push(format!(
                "{}\tsc,tso,pso\t{expected}\t{timeout}\t{options} --no-deadlock-check",
                bench.join(path).display()
            ));
        }
    }
    lines.join("\n") + "\n"
}

/// The (harness, model, verdict) rows of a summary table that have a verdict.
fn decided_rows(table: &str) -> Vec<(String, String, String)> {
    table
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [harness, model, _, verdict, ..] = words[..] else {
                return None;
            };
            matches!(verdict, "safe" | "violation")
                .then(|| (harness.to_string(), model.to_string(), verdict.to_string()))
        })
        .collect()
}

/// The full tier: a batch over every example and every program of the
/// benchmark corpus (about 180 jobs, `--engine auto`) in process and
/// through `--print-jobs`, GNU parallel and `merge`: no job contradicts
/// its expectation, both give the same verdict wherever both decided, the
/// JUnit file has a test case per job, and the SARIF log a result for
/// every violation.
#[test]
fn a_batch_over_the_examples_and_the_benchmark_corpus() {
    if !support::full_tier() || !support::require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("a temporary directory");
    let work = directory.path();
    std::fs::write(work.join("corpus.tsv"), corpus_manifest(20)).expect("the manifest");
    let batch = [
        "batch",
        "corpus.tsv",
        "--jobs",
        "2",
        "--junit",
        "in.xml",
        "--sarif",
        "in.sarif",
    ];
    let (_, summary, progress) = lazysma(work, &batch);
    assert!(
        !summary.contains("UNEXPECTED VIOLATION") && !summary.contains("MISSED VIOLATION"),
        "{summary}{progress}"
    );
    let jobs = summary.lines().count() - 2;
    assert!(jobs >= 150, "{summary}");
    assert_eq!(junit_counts(&work.join("in.xml")).0, jobs);
    let violations = decided_rows(&summary)
        .iter()
        .filter(|(_, _, verdict)| verdict == "violation")
        .count();
    let found: usize = sarif_results(&work.join("in.sarif")).iter().sum();
    assert!(
        violations > 0 && found >= violations,
        "{found} results for {violations} violations"
    );

    let (code, lines, error) = lazysma(
        work,
        &[
            "batch",
            "corpus.tsv",
            "--print-jobs",
            "--results",
            "results",
        ],
    );
    assert_eq!(code, 0, "{error}");
    run_in_parallel(work, &lines);
    let (_, merged, error) = lazysma(work, &["merge", "results", "--manifest", "corpus.tsv"]);
    assert!(!merged.contains("UNEXPECTED VIOLATION"), "{merged}{error}");
    let in_process = decided_rows(&summary);
    let through_parallel = decided_rows(&merged);
    let mut compared = 0;
    for (harness, model, verdict) in &in_process {
        if let Some((_, _, other)) = through_parallel
            .iter()
            .find(|(h, m, _)| h == harness && m == model)
        {
            assert_eq!(verdict, other, "{harness} {model}");
            compared += 1;
        }
    }
    assert!(
        compared >= jobs / 2,
        "only {compared} of {jobs} jobs decided both times"
    );
}
