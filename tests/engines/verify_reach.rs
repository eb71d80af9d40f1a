//! No vacuous "safe" without saying so: after a safe verdict, `lazysma
//! verify` asks CBMC whether any execution within the bounds reaches the
//! end of `main` (or `exit`), and where none does, the headline and the
//! JSON report say so and why (the programs of `tests/fixtures/reach`).

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{Verdict, require_cbmc, verify};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reach")
        .join(name)
}

/// The JSON report of `lazysma verify` of `name` with `arguments`, after
/// checking that it exits with `verdict`'s code.
fn report(name: &str, arguments: &[&str], verdict: Verdict) -> Value {
    let mut all = arguments.to_vec();
    all.extend(["--format", "json", "--timeout", "120"]);
    let (code, stdout, stderr) = verify(&fixture(name), &all);
    assert_eq!(code, verdict.exit_code(), "{name}: {stdout}\n{stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{name}: JSON: {stdout}"))
}

/// The text headline of `lazysma verify` of `name` with `arguments`.
fn headline(name: &str, arguments: &[&str]) -> String {
    let (_, stdout, _) = verify(&fixture(name), arguments);
    stdout.lines().next().unwrap_or_default().to_string()
}

#[test]
fn an_allocation_larger_than_a_heap_block_is_reported_as_the_cut() {
    if !require_cbmc() {
        return;
    }
    // a given block of 8: the translator finds that the allocation never
    // fits and warns of it, so the reachability run adds no warning of its
    // own at that place
    let json = report(
        "heap_block_cut.c",
        &["--tso", "--heap-block", "8"],
        Verdict::Safe,
    );
    let warnings = json["warnings"].as_array().cloned().unwrap_or_default();
    assert_eq!(warnings.len(), 1, "{json}");
    assert!(
        warnings.iter().any(|w| w["line"] == 11
            && w["help"]
                .as_str()
                .is_some_and(|h| h.contains("--heap-block"))),
        "{json}"
    );
    let line = headline("heap_block_cut.c", &["--tso", "--heap-block", "8"]);
    assert!(line.contains("heap_block_cut.c:11"), "{line}");
    // with blocks large enough, the assertion after it is reached: it fails
    report(
        "heap_block_cut.c",
        &["--tso", "--heap-block", "32"],
        Verdict::Unsafe,
    );
    // and `--heap-block auto`, the default, grows the block to 64 by need
    let json = report("heap_block_cut.c", &["--tso"], Verdict::Unsafe);
    assert_eq!(json["bounds"]["heap_block"], 64, "{json}");
}

#[test]
fn an_assertion_after_an_allocation_that_fits_is_found() {
    if !require_cbmc() {
        return;
    }
    report("heap_block_fits.c", &["--sc"], Verdict::Unsafe);
    report("heap_block_fits.c", &["--pso"], Verdict::Unsafe);
}

#[test]
fn a_loop_bound_that_cuts_every_execution_is_reported() {
    if !require_cbmc() {
        return;
    }
    let json = report("loop_cut.c", &["--sc", "--unwind", "2"], Verdict::Safe);
    assert_eq!(json["reach"]["end_of_main"], Value::Bool(false), "{json}");
    assert!(
        json["reach"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("--unwind")),
        "{json}"
    );
    // with enough iterations the end is reached, and the verdict is clean
    let json = report("loop_cut.c", &["--sc", "--unwind", "6"], Verdict::Safe);
    assert_eq!(json["reach"]["end_of_main"], Value::Bool(true), "{json}");
    assert_eq!(
        headline("loop_cut.c", &["--sc", "--unwind", "6"]),
        "No violation under SC within the bounds"
    );
}

#[test]
fn exit_is_an_end_of_the_program() {
    if !require_cbmc() {
        return;
    }
    let json = report("exit_ends.c", &["--pso"], Verdict::Safe);
    assert_eq!(json["reach"]["end_of_main"], Value::Bool(true), "{json}");
    assert_eq!(json["reach"]["reason"], Value::Null, "{json}");
}
