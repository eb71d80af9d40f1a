//! Differential test against gcc on random programs from Csmith, on a fixed
//! sample of seeds (1-40; 1-200 with `LAZYSMA_FULL=1`; scripts/csmith-differential.py runs new seeds at
//! length; docs/csmith-differential.md has its counts). gcc compiles and
//! runs each program for its checksum; `lazysma verify --sc` (the default
//! `--engine auto`: the native engine beside CBMC, whichever answers
//! first) must find the assertion that the checksum is gcc's safe, with
//! every loop asserted to exit within the unwinding bound, and its mutant
//! (checksum + 1) violated, and so must `--tso --engine cbmc` (the CBMC
//! path alone) on every fourth seed. A program lazysma refuses, a
//! loop longer than the bound and a time-out are counted apart; a
//! disagreement or a vacuous mutant (the mutant verifies too) fails the
//! test. Under CI=true a missing csmith, gcc or CBMC is a failure.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{parallel_map, require_cbmc, verify, workers};

/// The seeds of the sample: 1-40 in the default tier, 1-200 in the full
/// tier (`LAZYSMA_FULL=1`).
fn seeds() -> std::ops::RangeInclusive<u64> {
    if support::full_tier() {
        1..=200
    } else {
        1..=40
    }
}

/// Every how many seeds the program is verified under TSO too, by the
/// CBMC path alone.
const TSO_EVERY: u64 = 4;

/// Csmith's options: small single-threaded programs (the same as
/// scripts/csmith-differential.py's).
const CSMITH_OPTIONS: [&str; 20] = [
    "--no-argc",
    "--concise",
    "--no-structs",
    "--no-unions",
    "--no-bitfields",
    "--no-packed-struct",
    "--no-volatiles",
    "--no-volatile-pointers",
    "--max-funcs",
    "1",
    "--max-block-depth",
    "2",
    "--max-block-size",
    "2",
    "--max-array-dim",
    "1",
    "--max-array-len-per-dim",
    "3",
    "--max-expr-complexity",
    "3",
];

/// lazysma's bounds: one thread needs one round; loops asserted to exit
/// within 8 iterations.
const LAZYSMA_OPTIONS: [&str; 7] = [
    "--rounds",
    "1",
    "--no-sc-run",
    "--unwind",
    "8",
    "--unwinding-assertions",
    "--format=json",
];

/// Seconds per lazysma run (most take about one; a time-out is counted
/// apart, and keeps the sample within minutes).
const TIMEOUT: &str = "8";

/// What one seed came to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Agree,
    Disagree(String),
    VacuousMutant(String),
    Refused(String),
    UnwindingBound,
    Timeout,
    /// Csmith or gcc gave no checksum: not a program of the sample.
    NoChecksum,
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true")
}

/// Whether `tool` runs; under CI=true its absence fails the test.
fn require(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !found {
        assert!(
            !in_ci(),
            "{tool} is not installed but CI=true: apt-get install csmith libcsmith-dev gcc"
        );
        eprintln!("skipping: {tool} is not installed");
    }
    found
}

/// Csmith's include directory (random_inc.h, safe_math.h).
fn csmith_include() -> Option<PathBuf> {
    ["/usr/include/csmith", "/usr/local/include/csmith"]
        .into_iter()
        .map(PathBuf::from)
        .find(|directory| directory.join("random_inc.h").exists())
}

/// The runtime header in place of Csmith's csmith.h.
fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/csmith")
}

/// The checksum gcc's build of `program` prints.
fn gcc_checksum(program: &Path, include: &Path, directory: &Path) -> Option<u64> {
    let binary = directory.join("native");
    let compiled = Command::new("gcc")
        .args(["-w", "-O0", "-I"])
        .arg(harness())
        .arg("-I")
        .arg(include)
        .arg("-o")
        .arg(&binary)
        .arg(program)
        .output()
        .ok()?;
    if !compiled.status.success() {
        return None;
    }
    let ran = Command::new("timeout")
        .arg("10")
        .arg(&binary)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&ran.stdout);
    let digits = text.trim().strip_prefix("checksum = ")?;
    u64::from_str_radix(digits, 16)
        .ok()
        .filter(|_| ran.status.success())
}

/// The verdict and message of `lazysma verify` of `program` under `model`
/// by `engine` with the assertion that the checksum is `checksum`.
fn verdict(
    program: &Path,
    include: &Path,
    (model, engine): (&str, &str),
    checksum: u64,
) -> (String, String) {
    let expected = format!("-DEXPECTED_CHECKSUM={checksum:#x}");
    let harness = harness();
    let mut arguments = vec![
        model,
        "--engine",
        engine,
        "-I",
        harness.to_str().unwrap_or_default(),
        "-I",
        include.to_str().unwrap_or_default(),
        &expected,
        "--timeout",
        TIMEOUT,
    ];
    arguments.extend(LAZYSMA_OPTIONS);
    let (_, stdout, stderr) = verify(program, &arguments);
    match serde_json::from_str::<serde_json::Value>(&stdout) {
        Ok(report) => (
            report["verdict"].as_str().unwrap_or_default().to_string(),
            report["message"].as_str().unwrap_or_default().to_string(),
        ),
        Err(_) => ("no report".to_string(), stderr),
    }
}

/// What the program of `seed` comes to.
fn outcome(seed: u64, include: &Path) -> Outcome {
    let directory = tempfile::tempdir().expect("temporary directory");
    let program = directory.path().join(format!("csmith_{seed}.c"));
    // Csmith writes platform.info where it runs
    let generated = Command::new("csmith")
        .current_dir(directory.path())
        .arg("--seed")
        .arg(seed.to_string())
        .args(CSMITH_OPTIONS)
        .arg("-o")
        .arg(&program)
        .output()
        .is_ok_and(|output| output.status.success());
    let Some(checksum) = generated
        .then(|| gcc_checksum(&program, include, directory.path()))
        .flatten()
    else {
        return Outcome::NoChecksum;
    };
    let runs: &[(&str, &str)] = match seed.is_multiple_of(TSO_EVERY) {
        true => &[("--sc", "auto"), ("--tso", "cbmc")],
        false => &[("--sc", "auto")],
    };
    for &(model, engine) in runs {
        let (held, message) = verdict(&program, include, (model, engine), checksum);
        match held.as_str() {
            "safe" => {}
            "bad-input" => return Outcome::Refused(first_line(&message)),
            "timeout" => return Outcome::Timeout,
            "unwinding-bound" => return Outcome::UnwindingBound,
            other => {
                return Outcome::Disagree(format!(
                    "seed {seed} {model}: gcc's checksum gives {other}: {}",
                    first_line(&message)
                ));
            }
        }
        let (mutated, message) =
            verdict(&program, include, (model, engine), checksum.wrapping_add(1));
        match mutated.as_str() {
            "violation" => {}
            "safe" => return Outcome::VacuousMutant(format!("seed {seed} {model}")),
            "timeout" => return Outcome::Timeout,
            other => {
                return Outcome::Disagree(format!(
                    "seed {seed} {model}: the mutant gives {other}: {}",
                    first_line(&message)
                ));
            }
        }
    }
    Outcome::Agree
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

#[test]
fn csmith_programs_agree_with_gcc() {
    if !require_cbmc() || !require("csmith") || !require("gcc") {
        return;
    }
    let Some(include) = csmith_include() else {
        assert!(
            !in_ci(),
            "csmith's headers are missing but CI=true: apt-get install libcsmith-dev"
        );
        eprintln!("skipping: csmith's headers (libcsmith-dev) are missing");
        return;
    };
    let range = seeds();
    let seeds: Vec<u64> = range.clone().collect();
    let outcomes = parallel_map(&seeds, workers(), |&seed| outcome(seed, &include));
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for outcome in &outcomes {
        let key = match outcome {
            Outcome::Refused(reason) => format!("refused: {reason}"),
            Outcome::Disagree(_) => "disagree".to_string(),
            Outcome::VacuousMutant(_) => "vacuous mutant".to_string(),
            other => format!("{other:?}"),
        };
        *counts.entry(key).or_default() += 1;
    }
    eprintln!("csmith differential, seeds {range:?}: {counts:#?}");
    let wrong: Vec<&Outcome> = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Outcome::Disagree(_) | Outcome::VacuousMutant(_)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}\n{counts:#?}");
    let agreeing = counts.get("Agree").copied().unwrap_or(0);
    // the sample checks something: most programs are decided
    assert!(
        agreeing * 4 >= seeds.len(),
        "fewer than a quarter of the programs agree: {counts:#?}"
    );
}
