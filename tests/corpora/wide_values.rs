//! Values as wide as their C types, end to end: 64-bit integers in shared
//! memory keep values wider than 32 bits without `--bitwidth` (an explicit
//! narrower one cuts them off and the safe headline says so), and
//! `<float.h>`'s limits, long double constants converted at once, are the
//! doubles gcc computes. Each fixture of `tests/fixtures/values` holds
//! natively (compiled with gcc) and under `lazysma verify`, and each mutant
//! fails under both.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{Verdict, require_cbmc, verify};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/values")
        .join(name)
}

/// `lazysma verify program arguments...` exits with `verdict`'s code; its
/// standard output.
fn expect(program: &Path, arguments: &[&str], verdict: Verdict) -> String {
    let mut all = arguments.to_vec();
    all.extend(["--timeout", "300"]);
    let (code, stdout, stderr) = verify(program, &all);
    assert_eq!(
        code,
        verdict.exit_code(),
        "{} {}: expected {verdict:?}\n{stdout}\n{stderr}",
        program.display(),
        arguments.join(" ")
    );
    stdout
}

/// Whether gcc compiles `program` and its assertions hold when it runs;
/// None without gcc.
fn holds_natively(program: &Path, directory: &Path) -> Option<bool> {
    let binary = directory.join("native");
    let compiled = Command::new("gcc")
        .args(["-w", "-O0", "-o"])
        .arg(&binary)
        .arg(program)
        .status()
        .ok()?;
    assert!(compiled.success(), "gcc compiles {}", program.display());
    let ran = Command::new(&binary).output().expect("the program runs");
    Some(ran.status.success())
}

/// `program` with `from` (which occurs once) replaced by `to`.
fn mutant(program: &Path, from: &str, to: &str, directory: &Path) -> PathBuf {
    let text = std::fs::read_to_string(program).expect("the fixture reads");
    assert_eq!(text.matches(from).count(), 1, "`{from}` occurs once");
    let path = directory.join(program.file_name().expect("a file name"));
    std::fs::write(&path, text.replace(from, to)).expect("the mutant is written");
    path
}

/// The fixture holds natively and under each of `models`; each mutant
/// fails under both.
fn agrees_with_gcc(name: &str, models: &[&str], mutants: &[(&str, &str)]) {
    let program = fixture(name);
    let directory = tempfile::tempdir().expect("temporary directory");
    assert_ne!(holds_natively(&program, directory.path()), Some(false));
    for model in models {
        expect(&program, &[model], Verdict::Safe);
    }
    for (from, to) in mutants {
        let changed = mutant(&program, from, to, directory.path());
        assert_ne!(
            holds_natively(&changed, directory.path()),
            Some(true),
            "{name} with `{to}` fails natively"
        );
        for model in models {
            expect(&changed, &[model], Verdict::Unsafe);
        }
    }
}

#[test]
fn a_64_bit_shared_integer_keeps_values_wider_than_32_bits() {
    if !require_cbmc() {
        return;
    }
    agrees_with_gcc(
        "wide_shared_integers.c",
        &["--sc", "--tso"],
        &[
            ("assert(g == 1099511627776ULL);", "assert(0);"),
            ("counter < -4000000000L", "counter > -4000000000L"),
            (
                "total / 2 == (size_t)3 << 32",
                "total / 2 == (size_t)3 << 31",
            ),
            ("assert(tagged > 0);", "assert(tagged < 0);"),
        ],
    );
}

#[test]
fn a_narrower_bitwidth_cuts_wide_values_off_and_the_headline_says_so() {
    if !require_cbmc() {
        return;
    }
    let program = fixture("wide_shared_integers.c");
    let directory = tempfile::tempdir().expect("temporary directory");
    let unreachable = mutant(
        &program,
        "assert(tagged > 0);",
        "assert(0);",
        directory.path(),
    );
    let text = expect(&unreachable, &["--sc", "--bitwidth", "32"], Verdict::Safe);
    let headline = text.lines().next().unwrap_or_default();
    assert!(
        headline.contains("wider than 32 bits") && headline.contains("cut off by --bitwidth 32"),
        "{text}"
    );
    let json = expect(
        &unreachable,
        &["--sc", "--bitwidth", "32", "--format", "json"],
        Verdict::Safe,
    );
    let report: serde_json::Value = serde_json::from_str(&json).expect("a JSON report");
    assert_eq!(report["cuts_wide_values"], true, "{json}");
    let message = report["message"].as_str().unwrap_or_default();
    assert!(message.contains("cut off by --bitwidth 32"), "{json}");
    // without the option nothing is cut off
    let whole = expect(&program, &["--sc", "--format", "json"], Verdict::Safe);
    let report: serde_json::Value = serde_json::from_str(&whole).expect("a JSON report");
    assert_eq!(report["cuts_wide_values"], false, "{whole}");
    assert_eq!(report["bounds"]["bitwidth"], 64, "{whole}");
}

#[test]
fn float_h_limits_are_the_doubles_gcc_computes() {
    if !require_cbmc() {
        return;
    }
    agrees_with_gcc(
        "float_limits.c",
        &["--sc"],
        &[
            (
                "largest == 1.7976931348623157e308",
                "largest < 1.7976931348623157e308",
            ),
            ("smallest == 2.2250738585072014e-308", "smallest == 0"),
            (
                "largest_float == 3.40282347e38f",
                "largest_float < 3.40282347e38f",
            ),
            ("1.0 + epsilon / 2 == 1.0", "1.0 + epsilon / 2 != 1.0"),
            ("least / 2 == 0", "least / 2 > 0"),
        ],
    );
}

#[test]
fn a_refusal_after_a_wide_initial_value_names_the_refused_construct() {
    let program = fixture("wide_initial_then_refused.c");
    let (code, stdout, stderr) = verify(&program, &["--sc", "--engine", "cbmc"]);
    assert_eq!(code, 1, "bad input\n{stdout}\n{stderr}");
    assert!(
        stderr.contains("recursion is not supported"),
        "the refused construct is named\n{stderr}"
    );
    assert!(
        !stderr.contains("does not fit"),
        "no complaint about the automatic width\n{stderr}"
    );
}

#[test]
fn unsigned_32_bit_values_above_int_max_keep_their_value_at_the_automatic_width() {
    if !require_cbmc() {
        return;
    }
    let program = fixture("unsigned_32_bit_extremes.c");
    let directory = tempfile::tempdir().expect("temporary directory");
    assert_ne!(holds_natively(&program, directory.path()), Some(false));
    // the translation and CBMC, not only the native engine; the automatic
    // width stays 32 bits and cuts nothing off, as a given --bitwidth 32
    let runs: [&[&str]; 4] = [
        &["--sc", "--engine", "cbmc"],
        &["--tso", "--engine", "cbmc"],
        &["--pso", "--engine", "cbmc"],
        &["--sc", "--engine", "cbmc", "--bitwidth", "32"],
    ];
    for arguments in runs {
        let report = expect(&program, arguments, Verdict::Safe);
        assert!(report.contains("bitwidth 32"), "{report}");
        assert!(!report.contains("wider than"), "{report}");
    }
    let mutants = [
        (
            "assert(copy == 4294967295UL);",
            "assert(copy != 4294967295UL);",
        ),
        ("copy / 2 == 2147483647UL", "copy / 2 == 2147483648UL"),
        (
            "table[k] / 2 == 1073741824UL",
            "table[k] / 2 == 3221225472UL",
        ),
        (
            "assert(table[2] == table[0]);",
            "assert(table[2] != table[0]);",
        ),
        (
            "(uint32_t)lowest == 2147483648UL",
            "(uint32_t)lowest == 2147483647UL",
        ),
    ];
    for (from, to) in mutants {
        let changed = mutant(&program, from, to, directory.path());
        assert_ne!(
            holds_natively(&changed, directory.path()),
            Some(true),
            "{to}"
        );
        for arguments in &runs[..2] {
            expect(&changed, arguments, Verdict::Unsafe);
        }
    }
}
