//! Shared by the `sma_*` modules of `tests/it/` (`crate::sma_support`): finds CBMC and gcc,
//! runs them on the C harnesses of `tests/sma/` (which inline `sma/*.h`),
//! and reads back the status of every property.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[allow(unused_imports)]
pub use crate::support::full_tier;

/// The SMA implementations, as selected by the harnesses' `-DSMA_MODEL_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Model {
    Sc,
    Etso,
    Epso,
    TsoRef,
    PsoRef,
}

impl Model {
    pub const ALL: [Model; 5] = [
        Model::Sc,
        Model::Etso,
        Model::Epso,
        Model::TsoRef,
        Model::PsoRef,
    ];

    pub fn define(self) -> &'static str {
        match self {
            Model::Sc => "-DSMA_MODEL_SC",
            Model::Etso => "-DSMA_MODEL_ETSO",
            Model::Epso => "-DSMA_MODEL_EPSO",
            Model::TsoRef => "-DSMA_MODEL_TSO_REF",
            Model::PsoRef => "-DSMA_MODEL_PSO_REF",
        }
    }

    pub fn is_pso(self) -> bool {
        matches!(self, Model::Epso | Model::PsoRef)
    }

    pub fn is_weak(self) -> bool {
        self != Model::Sc
    }
}

/// The verdict CBMC gives one property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The assertion holds on every execution.
    Success,
    /// Some execution violates the assertion (the negated outcome is reachable).
    Failure,
    /// Anything else CBMC printed (UNKNOWN, ERROR).
    Other(String),
}

/// The result of one CBMC run: property description -> status.
#[derive(Debug, Clone)]
pub struct CbmcRun {
    pub properties: BTreeMap<String, Status>,
    pub seconds: f64,
}

impl CbmcRun {
    /// The status of the property with this description.
    pub fn status(&self, description: &str) -> Result<&Status, String> {
        self.properties.get(description).ok_or_else(|| {
            format!(
                "no property \"{description}\" in CBMC's output: {:?}",
                self.properties
            )
        })
    }

    /// Fails unless the property has the expected status.
    pub fn expect(&self, description: &str, expected: Status, context: &str) -> Result<(), String> {
        let actual = self.status(description)?;
        if *actual == expected {
            Ok(())
        } else {
            Err(format!(
                "{context}: property \"{description}\" is {actual:?}, expected {expected:?}"
            ))
        }
    }
}

/// The directory of the C harnesses.
pub fn harness_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("sma")
}

/// Whether this is a CI run, where a missing tool is an error, never a skip.
fn in_ci() -> bool {
    std::env::var("CI")
        .map(|value| value == "true")
        .unwrap_or(false)
}

/// The CBMC binary ($LAZYSMA_CBMC, then `cbmc` on PATH). `Ok(None)` means
/// "not installed, skip" and only happens outside CI.
pub fn cbmc() -> Result<Option<PathBuf>, String> {
    if let Some(path) = std::env::var_os("LAZYSMA_CBMC") {
        return Ok(Some(PathBuf::from(path)));
    }
    match which::which("cbmc") {
        Ok(path) => Ok(Some(path)),
        Err(_) if in_ci() => {
            Err("CBMC is not installed (CI=true): run scripts/install-cbmc.sh".to_string())
        }
        Err(_) => {
            eprintln!(
                "skipping: cbmc not found on PATH (set LAZYSMA_CBMC or run scripts/install-cbmc.sh)"
            );
            Ok(None)
        }
    }
}

/// Runs CBMC on `file` with extra arguments and parses the property lines
/// (`[id] line N description: STATUS`). Several properties with the same
/// description are merged; FAILURE wins.
pub fn run_cbmc(cbmc: &Path, file: &Path, args: &[String]) -> Result<CbmcRun, String> {
    let started = Instant::now();
    let output = Command::new(cbmc)
        .args(args)
        .arg(file)
        .current_dir(harness_dir())
        .output()
        .map_err(|error| format!("cannot run {}: {error}", cbmc.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let code = output.status.code();
    if code != Some(0) && code != Some(10) {
        return Err(format!(
            "cbmc {args:?} {} exited with {code:?}\nstdout:\n{stdout}\nstderr:\n{}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let line_pattern =
        regex::Regex::new(r"^\[[^\]]+\] (?:line \d+ )?(.*): (SUCCESS|FAILURE|UNKNOWN|ERROR)$")
            .map_err(|error| error.to_string())?;
    let mut properties: BTreeMap<String, Status> = BTreeMap::new();
    for line in stdout.lines() {
        let Some(captures) = line_pattern.captures(line.trim_end()) else {
            continue;
        };
        let description = captures[1].to_string();
        let status = match &captures[2] {
            "SUCCESS" => Status::Success,
            "FAILURE" => Status::Failure,
            other => Status::Other(other.to_string()),
        };
        let merged = match properties.remove(&description) {
            Some(Status::Failure) => Status::Failure,
            Some(Status::Success) | None => status,
            Some(other) => {
                if status == Status::Failure {
                    status
                } else {
                    other
                }
            }
        };
        properties.insert(description, merged);
    }
    if properties.is_empty() {
        return Err(format!(
            "no property results in CBMC's output for {}:\n{stdout}",
            file.display()
        ));
    }
    Ok(CbmcRun {
        properties,
        seconds,
    })
}

/// Runs CBMC on a harness of `tests/sma/` under one model.
pub fn run_harness(
    cbmc: &Path,
    harness: &str,
    model: Model,
    defines: &[&str],
) -> Result<CbmcRun, String> {
    let mut args = vec![model.define().to_string()];
    args.extend(defines.iter().map(|define| define.to_string()));
    run_cbmc(cbmc, &harness_dir().join(harness), &args)
}

/// `gcc -fsyntax-only` with warnings as errors on `file`, if gcc is installed
/// (in CI it must be).
pub fn gcc_syntax_check(file: &Path, args: &[String]) -> Result<(), String> {
    let gcc = match which::which("gcc") {
        Ok(path) => path,
        Err(_) if in_ci() => return Err("gcc is not installed (CI=true)".to_string()),
        Err(_) => {
            eprintln!("skipping the gcc check: gcc not found on PATH");
            return Ok(());
        }
    };
    let output = Command::new(gcc)
        .args([
            "-fsyntax-only",
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-I",
        ])
        .arg(harness_dir())
        .args(args)
        .arg(file)
        .output()
        .map_err(|error| format!("cannot run gcc: {error}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "gcc -fsyntax-only {args:?} {} failed:\n{}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
