//! `verify --split K/N` and `lazysma merge`: the parts of a search,
//! merged, give the whole search's verdict, and for a safe program its
//! counts of reads-from classes, complete, blocked and deadlocked
//! executions (each class is in exactly one part). The native engine is
//! checked on the examples and the litmus sample of `smc_engine` under
//! SC, TSO and PSO; the full tier (`LAZYSMA_FULL=1`) adds every program
//! of the benchmark corpus the native engine decides within its time
//! limit, and compares the whole search on two workers (`--jobs 2`) too. The CBMC path's split (by the first round's context switches)
//! is checked on the examples: merged, the verdict is the whole run's.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{corpus_dir, litmus_tests, parallel_map, workers};

/// The parts a search is split into here.
const PARTS: usize = 4;

/// The counts that add up over the parts of a safe run.
const SUMMED: [&str; 4] = [
    "reads_from_classes",
    "complete_executions",
    "blocked_executions",
    "deadlocked_executions",
];

/// One case: a program, a model, and its other `verify` options.
struct Case {
    file: PathBuf,
    model: &'static str,
    options: Vec<String>,
}

/// `verify` on the case with `extra`, its JSON report (and exit code).
fn report(case: &Case, extra: &[&str]) -> (i32, Value) {
    let model = format!("--{}", case.model);
    let mut arguments: Vec<&str> = vec![&model, "--format", "json", "--timeout", "60"];
    arguments.extend(case.options.iter().map(String::as_str));
    arguments.extend(extra);
    let (code, stdout, stderr) = support::run("verify", &case.file, &arguments);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|_| {
        panic!(
            "{} {arguments:?}: exit {code}: {stdout}{stderr}",
            case.file.display()
        )
    });
    (code, report)
}

/// The statistic `name` of a report's native run.
fn statistic(report: &Value, name: &str) -> u64 {
    report["native"]["statistics"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("no statistic {name} in {report}"))
}

/// Runs the N parts of the case with `engine`, writes their reports into
/// `directory`, and merges them: (the parts' reports, merge's exit code).
fn parts(case: &Case, engine: &str, directory: &Path) -> (Vec<Value>, i32) {
    let mut reports = Vec::new();
    let mut files = Vec::new();
    for part in 1..=PARTS {
        let split = format!("{part}/{PARTS}");
        let (_, report) = report(
            case,
            &["--engine", engine, "--jobs", "1", "--split", &split],
        );
        assert_eq!(report["split"]["part"], part, "{report}");
        let file = directory.join(format!("part{part}.json"));
        std::fs::write(&file, report.to_string()).expect("a temporary file");
        files.push(file);
        reports.push(report);
    }
    let output = support::lazysma()
        .arg("merge")
        .args(&files)
        .output()
        .expect("merge runs");
    let (code, _, _) = support::finished(output);
    (reports, code)
}

/// Checks the native engine's parts against a whole run; the classes
/// of the whole run (0 when unsafe), `None` when the native engine does
/// not decide the case.
fn check_native(case: &Case) -> Option<u64> {
    let (code, whole) = report(case, &["--engine", "smc", "--jobs", "1"]);
    if code != 0 && code != 10 {
        return None;
    }
    let name = format!("{} --{}", case.file.display(), case.model);
    if support::full_tier() {
        // two workers: the same verdict, and the same classes when safe
        let (two_code, two) = report(case, &["--engine", "smc", "--jobs", "2"]);
        assert_eq!(two_code, code, "{name}: --jobs 2");
        if code == 0 {
            let classes = |report: &Value| statistic(report, "reads_from_classes");
            assert_eq!(classes(&two), classes(&whole), "{name}: --jobs 2");
        }
    }
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (reports, merged) = parts(case, "smc", directory.path());
    assert_eq!(merged, code, "{name}: merged exit code");
    if code == 0 && whole["native"]["statistics"]["search"] == "rf-smc" {
        for counted in SUMMED {
            let sum: u64 = reports.iter().map(|part| statistic(part, counted)).sum();
            assert_eq!(sum, statistic(&whole, counted), "{name}: {counted}");
        }
    }
    Some(if code == 0 {
        statistic(&whole, "reads_from_classes")
    } else {
        0
    })
}

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    [
        "dekker.c",
        "message_passing.c",
        "seqlock.c",
        "store_buffering.c",
    ]
    .iter()
    .map(|example| root.join(example))
    .collect()
}

fn cases_of(files: &[PathBuf], models: &[&'static str], options: &[&str]) -> Vec<Case> {
    let mut cases = Vec::new();
    for file in files {
        for &model in models {
            cases.push(Case {
                file: file.clone(),
                model,
                options: options.iter().map(|option| option.to_string()).collect(),
            });
        }
    }
    cases
}

/// The benchmark corpus's programs with their smallest `--unwind`.
fn bench_cases() -> Vec<Case> {
    let bench = corpus_dir().join("bench");
    let manifest = std::fs::read_to_string(bench.join("manifest.tsv")).expect("the manifest");
    let mut cases = Vec::new();
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let (Some(path), Some(unwind)) = (fields.first(), fields.get(5)) else {
            continue;
        };
        let options = ["--unwind", unwind];
        cases.extend(cases_of(
            &[bench.join(path)],
            &["sc", "tso", "pso"],
            &options,
        ));
    }
    cases
}

#[test]
fn merged_native_parts_are_the_whole_search() {
    let mut cases = cases_of(&examples(), &["sc", "tso", "pso"], &[]);
    let sample = support::sample("litmus_samples.tsv", "smc_engine");
    let litmus: Vec<PathBuf> = litmus_tests()
        .into_iter()
        .filter(|test| sample.contains(&test.name))
        .map(|test| test.file)
        .collect();
    cases.extend(cases_of(&litmus, &["sc", "tso", "pso"], &[]));
    let examples_and_litmus = cases.len();
    if support::full_tier() {
        cases.extend(bench_cases());
    }
    let decided: Vec<Option<u64>> = parallel_map(&cases, workers(), check_native);
    let classes: u64 = decided.iter().flatten().sum();
    assert!(
        classes >= 50,
        "the safe runs explored only {classes} classes"
    );
    let bench_decided = decided[examples_and_litmus..].iter().flatten().count();
    assert!(
        !support::full_tier() || bench_decided >= 60,
        "the native engine decided only {bench_decided} runs of the benchmark corpus"
    );
}

#[test]
fn merged_cbmc_parts_give_the_whole_verdict() {
    if !support::require_cbmc() {
        return;
    }
    let cases = cases_of(&examples()[..2], &["tso", "pso"], &["--unwind", "1"]);
    parallel_map(&cases, workers(), |case| {
        let (code, _) = report(case, &["--engine", "cbmc"]);
        let directory = tempfile::tempdir().expect("a temporary directory");
        let (_, merged) = parts(case, "cbmc", directory.path());
        assert_eq!(merged, code, "{} --{}", case.file.display(), case.model);
    });
}

#[test]
fn the_cbmc_translation_keeps_one_part() {
    if !support::require_cbmc() {
        return;
    }
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dekker.c");
    let kept = tempfile::tempdir().expect("a temporary directory");
    let program = kept
        .path()
        .join("sequential.c")
        .to_string_lossy()
        .into_owned();
    let arguments = [
        "--tso", "--engine", "cbmc", "--split", "3/4", "--keep", &program,
    ];
    let (code, stdout, stderr) = support::run("verify", &file, &arguments);
    assert!(code == 0 || code == 10, "exit {code}: {stdout}{stderr}");
    let programs: Vec<String> = std::fs::read_dir(kept.path())
        .expect("the kept programs")
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path()).ok())
        .collect();
    assert!(!programs.is_empty(), "nothing kept: {stdout}{stderr}");
    for program in programs {
        assert!(
            program.contains("__CPROVER_assume(lazy_split % 4 == 2);"),
            "the kept program checks every part"
        );
    }
}
