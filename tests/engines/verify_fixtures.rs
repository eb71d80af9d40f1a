//! The verify fixtures: one C program per case under
//! `tests/fixtures/verify/`, its expectations beside it in `CASE.desc`
//! (after CBMC's `regression/*/test.desc`). A `.desc` is a list of runs of
//! `lazysma verify CASE.c`, each opened by a `run:` line with its arguments
//! (split at white space outside double quotes; `--engine cbmc` unless they
//! name an engine) and followed by what the run must give:
//!
//! ```text
//! # a comment
//! run: --tso --color never -D BUG
//! exit: 10
//! contains: Violation under TSO
//! not-contains: Safe
//! json: property.kind = "null-dereference"
//! ```
//!
//! `exit:` is the exit code (0 safe, 10 a violation, ...); `contains:` and
//! `not-contains:` are texts the report (standard output and standard
//! error together) must hold or must not hold; `json: PATH = VALUE` says
//! that the JSON report (`--format json`) has the JSON value VALUE at PATH
//! (keys and array indices separated by dots), and `json-length: PATH = N`
//! that the array at PATH has N elements. Every run of every case is one
//! check of this driver; `LAZYSMA_FIXTURES=barrier,once` runs only the
//! cases whose file names (without `.c`) are listed. A run followed by
//! `tier: full` is a slow one (CBMC's `THOROUGH`): it runs in the full
//! tier (`LAZYSMA_FULL=1`) only. The driver prints its slowest runs, so
//! that a run to move to the full tier is seen at once.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::desc::{Case, Run, parse};
use support::{parallel_map, require_cbmc, verify, workers};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify")
}

/// The value at a dotted `path` of keys and array indices.
fn at<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(value, |value, step| match step.parse::<usize>() {
            Ok(index) => value.get(index),
            Err(_) => value.get(step),
        })
}

/// What is wrong with one run's result, if anything.
fn check(case: &Case, run: &Run) -> Option<String> {
    let arguments: Vec<&str> = run.arguments.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = verify(&case.program, &arguments);
    let output = format!("{stdout}{stderr}");
    let mut wrong = Vec::new();
    if let Some(exit) = run.exit
        && exit != code
    {
        wrong.push(format!("exit code {code}, not {exit}"));
    }
    for text in &run.contains {
        if !output.contains(text.as_str()) {
            wrong.push(format!("no `{text}`"));
        }
    }
    for text in &run.not_contains {
        if output.contains(text.as_str()) {
            wrong.push(format!("`{text}`"));
        }
    }
    if !run.json.is_empty() || !run.json_lengths.is_empty() {
        match serde_json::from_str::<Value>(&stdout) {
            Ok(report) => {
                for (path, expected) in &run.json {
                    let found = at(&report, path);
                    if found != Some(expected) {
                        wrong.push(format!("{path} is {found:?}, not {expected}"));
                    }
                }
                for (path, expected) in &run.json_lengths {
                    let found = at(&report, path).and_then(Value::as_array).map(Vec::len);
                    if found != Some(*expected) {
                        wrong.push(format!("{path} has {found:?} elements, not {expected}"));
                    }
                }
            }
            Err(error) => wrong.push(format!("no JSON report: {error}")),
        }
    }
    let name = case
        .program
        .file_name()
        .unwrap_or_default()
        .to_string_lossy();
    (!wrong.is_empty()).then(|| {
        format!(
            "{name} {}: {}\n{output}",
            run.arguments.join(" "),
            wrong.join("; ")
        )
    })
}

#[test]
fn every_fixture_gives_what_its_desc_expects() {
    if !require_cbmc() {
        return;
    }
    let chosen = std::env::var("LAZYSMA_FIXTURES").ok();
    let wanted = |case: &Case| {
        let stem = case
            .program
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy();
        chosen
            .as_deref()
            .is_none_or(|names| names.split(',').any(|name| name.trim() == stem))
    };
    let cases = support::desc::cases(&fixtures());
    let full = support::full_tier();
    let runs: Vec<(&Case, &Run)> = cases
        .iter()
        .filter(|case| wanted(case))
        .flat_map(|case| case.runs.iter().map(move |run| (case, run)))
        .filter(|(_, run)| full || !run.full_tier_only)
        .collect();
    let outcomes = parallel_map(&runs, workers(), |&(case, run)| {
        let started = std::time::Instant::now();
        let failure = check(case, run);
        (started.elapsed(), case, run, failure)
    });
    let mut slowest: Vec<_> = outcomes
        .iter()
        .map(|(time, case, run, _)| (*time, case, run))
        .collect();
    slowest.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    for (time, case, run) in slowest.iter().take(8) {
        let name = case.program.file_name().unwrap_or_default();
        let arguments = run.arguments.join(" ");
        println!(
            "{:6.1} s  {} {arguments}",
            time.as_secs_f64(),
            name.to_string_lossy()
        );
    }
    let failures: Vec<String> = outcomes
        .into_iter()
        .filter_map(|(_, _, _, failure)| failure)
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The fixtures the native engine declines (`native_declines.tsv`): each
/// case's name and a text its reason must hold.
fn native_declines() -> Vec<(String, String)> {
    let path = fixtures().join("native_declines.tsv");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/verify/native_declines.tsv");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (case, reason) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("native_declines.tsv: `{line}` has no tab"));
            (case.to_string(), reason.to_string())
        })
        .collect()
}

/// How the native engine's run of a fixture went.
enum NativeRun {
    Agrees,
    /// It declined, with this output (the reason in it).
    Declined(String),
    /// Its verdict differs from the `.desc`'s: what it said.
    Disagrees(String),
}

/// Runs a fixture's run with `--engine smc`; only runs that expect a
/// verdict (exit 0 or 10) and name no engine are asked.
fn native_run(case: &Case, run: &Run) -> Option<NativeRun> {
    let expected = run.exit.filter(|exit| [0, 10].contains(exit))?;
    if run.arguments.iter().any(|argument| argument == "--engine") {
        return None;
    }
    let mut arguments: Vec<&str> = run.arguments.iter().map(String::as_str).collect();
    arguments.extend(["--engine", "smc"]);
    let (code, stdout, stderr) = verify(&case.program, &arguments);
    let output = format!("{stdout}{stderr}");
    Some(match code {
        code if code == expected => NativeRun::Agrees,
        1 if output.contains("declines") || output.contains("\"declined\"") => {
            NativeRun::Declined(output)
        }
        code => NativeRun::Disagrees(format!(
            "{} {}: exit {code}, not {expected}\n{output}",
            case.program.display(),
            arguments.join(" ")
        )),
    })
}

#[test]
fn the_native_engine_gives_every_fixture_its_verdict_or_declines_as_listed() {
    let declines = native_declines();
    let cases = support::desc::cases(&fixtures());
    let runs: Vec<(&Case, &Run)> = cases
        .iter()
        .flat_map(|case| case.runs.iter().map(move |run| (case, run)))
        .collect();
    let results = parallel_map(&runs, workers(), |(case, run)| {
        native_run(case, run).map(|result| (case.program.clone(), result))
    });
    let mut wrong = Vec::new();
    let mut declined_cases = std::collections::BTreeSet::new();
    let mut agreed = 0;
    for (program, result) in results.into_iter().flatten() {
        let stem = program
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        match result {
            NativeRun::Agrees => agreed += 1,
            NativeRun::Disagrees(what) => wrong.push(what),
            NativeRun::Declined(output) => {
                let listed = declines
                    .iter()
                    .find(|(case, _)| *case == stem)
                    .map(|(_, reason)| reason);
                match listed {
                    Some(reason) if output.contains(reason.as_str()) => {
                        declined_cases.insert(stem);
                    }
                    _ => wrong.push(format!(
                        "{stem}: declined, not as native_declines.tsv lists\n{output}"
                    )),
                }
            }
        }
    }
    for (case, _) in &declines {
        if !declined_cases.contains(case) {
            wrong.push(format!(
                "{case}: listed in native_declines.tsv, but no run declines"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    assert!(agreed > 100, "only {agreed} runs answered natively");
}

#[test]
fn a_desc_names_only_the_keys_the_driver_reads() {
    let runs =
        parse("# c\nrun: --tso -D \"X=f(a, b)\"\nexit: 10\ncontains: a b\nnot-contains: c\n")
            .expect("a valid .desc");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].arguments, ["--tso", "-D", "X=f(a, b)"]);
    assert_eq!(runs[0].exit, Some(10));
    assert_eq!((runs[0].contains.len(), runs[0].not_contains.len()), (1, 1));
    let json = parse("run: --sc\nexit: 0\njson: property.line = 5\n").expect("a json line");
    assert_eq!(
        json[0].json,
        [("property.line".to_string(), Value::from(5))]
    );
    let report = serde_json::json!({ "witness": { "steps": [{ "line": 3 }] } });
    assert_eq!(at(&report, "witness.steps.0.line"), Some(&Value::from(3)));
    assert_eq!(at(&report, "witness.steps.1"), None);
    assert!(parse("exit: 0\n").is_err(), "a key before any run");
    assert!(
        parse("run: --sc\nverdict: safe\n").is_err(),
        "an unknown key"
    );
    assert!(
        parse("run: --sc\nexit: ten\n").is_err(),
        "an exit code that is no number"
    );
}

#[test]
fn every_fixture_has_a_desc_the_driver_reads() {
    // parsed without CBMC too, so that a malformed .desc fails everywhere
    let cases = support::desc::cases(&fixtures());
    assert!(!cases.is_empty());
    for case in &cases {
        assert!(
            case.runs.iter().all(|run| run.exit.is_some()),
            "{:?}",
            case.program
        );
    }
}
