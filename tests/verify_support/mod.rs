//! Helpers of the verify topic tests: example programs, JSON reports,
//! programs written to a temporary directory and stand-in CBMC executables.

#![allow(dead_code)]

use crate::support;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

pub fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|error| panic!("not JSON ({error}): {stdout}"))
}

/// Writes `text` as the C program `name` in `directory`.
pub fn program(directory: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = directory.path().join(name);
    std::fs::write(&path, text).expect("write the program");
    path
}

/// The one warning of a JSON report (`stdout` shows the report otherwise).
pub fn only_warning<'a>(report: &'a Value, stdout: &str) -> &'a Value {
    let warnings = report["warnings"].as_array().expect("warnings is an array");
    assert_eq!(warnings.len(), 1, "{stdout}");
    &warnings[0]
}

/// A stand-in CBMC: answers `--version` like CBMC 5.12 and runs `body`
/// (POSIX sh) for a verification run.
pub fn fake_cbmc(directory: &Path, body: &str) -> PathBuf {
    support::cbmc_script(
        directory,
        &format!(
            "case \"$1\" in\n  --version) echo '5.12 (cbmc-5.12)'; exit 0;;\n  --help) exit 0;;\nesac\n{body}\n"
        ),
    )
}

/// Store buffering where one thread's three stores to `x` must all be
/// pending at once: four list nodes of `x`, more than `--qsize 3` gives.
pub const THREE_PENDING: &str = include_str!("../fixtures/programs/three_pending.c");
