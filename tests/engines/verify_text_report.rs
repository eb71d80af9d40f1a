//! The text and JSON reports of `lazysma verify`: the documented JSON shape,
//! the witness table (where the assertion fails, the steps after it, values
//! as their C types read them), the diagnosis naming the reorderings and the
//! fences placed at statements, `--no-check`, atomic sections and SARIF.
//! Their programs are in `tests/fixtures/programs/`; the checks the `.desc`
//! format expresses are cases of `tests/fixtures/verify/`
//! (`publish_a_node`, `try_lock_own_mutex`).

use crate::support;
use crate::verify_support;

use serde_json::Value;
use support::{require_cbmc, verify};
use verify_support::{example, json, program};

#[test]
fn json_report_has_the_documented_fields() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--tso", "--format", "json"],
    );
    assert_eq!(code, 10);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "violation");
    assert_eq!(report["exit_code"], 10);
    assert_eq!(report["lazysma"]["version"], env!("CARGO_PKG_VERSION"));
    let file = example("store_buffering.c").display().to_string();
    assert_eq!(
        report["lazysma"]["arguments"],
        serde_json::json!([
            "verify", file, "--tso", "--format", "json", "--engine", "cbmc"
        ])
    );
    assert_eq!(report["model"], "tso");
    assert_eq!(report["sma"], "etso");
    assert_eq!(report["found_under_sc"], false, "store buffering needs TSO");
    for bound in [
        "rounds", "unwind", "qsize", "maxclock", "bitwidth", "nmalloc",
    ] {
        assert!(report["bounds"][bound].is_u64(), "bounds.{bound}");
    }
    assert_eq!(report["bounds"]["rounds"], 2);
    assert!(
        report["cbmc"]["version"]
            .as_str()
            .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    );
    assert!(report["cbmc"]["seconds"].as_f64().is_some_and(|s| s > 0.0));
    assert!(
        report["cbmc"]
            .as_object()
            .is_some_and(|cbmc| cbmc.contains_key("sat_solver")),
        "{}",
        report["cbmc"]
    );
    // --sat-solver auto: CaDiCaL beside CBMC's own solver when installed
    let beside = if which::which("cadical").is_ok() {
        Value::from("cadical")
    } else {
        Value::Null
    };
    assert_eq!(report["cbmc"]["sat_solver"], beside);
    // a program this small is decided by CBMC's run before the prover starts
    assert_eq!(report["cbmc"]["decided_by"], "cbmc");
    let property = &report["property"];
    assert!(
        property["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("store_buffering.c"))
    );
    assert_eq!(property["line"], 33);
    assert_eq!(property["source"], "assert(r1 == 1 || r2 == 1);");
    assert_eq!(report["check"]["performed"], true);
    assert_eq!(report["check"]["realisable"], true);
    assert_eq!(report["witness"]["source"], "native-check");
    let steps = report["witness"]["steps"].as_array().expect("steps");
    for (index, step) in steps.iter().enumerate() {
        assert_eq!(step["step"], index + 1);
        for field in ["file", "line", "statement", "effect", "kind", "thread"] {
            assert!(!step[field].is_null(), "step {index} has {field}: {step}");
        }
        assert!(step["thread"]["name"].is_string() && step["thread"]["slot"].is_u64());
        // a value is a string of decimal digits (exact beyond 2^53), as docs/reports.md says
        assert!(
            step["value"].is_null()
                || step["value"]
                    .as_str()
                    .is_some_and(|v| v.parse::<i128>().is_ok()),
            "{step}"
        );
    }
    assert!(steps.iter().any(|step| step["value"] == "1"), "{steps:?}");
    let effects: Vec<&str> = steps.iter().filter_map(|s| s["effect"].as_str()).collect();
    assert!(effects.contains(&"x := 1 (buffered)"), "{effects:?}");
    assert!(
        effects.contains(&"reads y = 0 (initial value) from memory"),
        "{effects:?}"
    );
    assert!(effects.contains(&"x = 1 reaches memory"), "{effects:?}");
    // Both loads ran while the other thread's store was still buffered.
    let read_y = effects
        .iter()
        .position(|e| e.starts_with("reads y = 0"))
        .unwrap();
    let y_in_memory = effects
        .iter()
        .position(|e| *e == "y = 1 reaches memory")
        .unwrap();
    let read_x = effects
        .iter()
        .position(|e| e.starts_with("reads x = 0"))
        .unwrap();
    let x_in_memory = effects
        .iter()
        .position(|e| *e == "x = 1 reaches memory")
        .unwrap();
    assert!(read_y < y_in_memory && read_x < x_in_memory);
    let diagnosis = &report["diagnosis"];
    assert_eq!(diagnosis["sc_realisable"], false);
    assert_eq!(diagnosis["fences_suffice"], true);
    let fences = diagnosis["fences"].as_array().expect("fences");
    let mut pairs: Vec<(u64, u64)> = fences
        .iter()
        .map(|f| {
            (
                f["after_line"].as_u64().unwrap(),
                f["before_line"].as_u64().unwrap(),
            )
        })
        .collect();
    pairs.sort();
    assert_eq!(pairs, vec![(16, 17), (22, 23)]);
    assert!(
        fences
            .iter()
            .all(|f| f["thread"].is_string() && f["file"].is_string())
    );
    assert!(
        fences
            .iter()
            .all(|f| f["kind"] == "full" && f["insert"] == "__sync_synchronize();"),
        "{fences:?}"
    );
    let kinds: Vec<&str> = diagnosis["reorderings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["kind"].as_str())
        .collect();
    assert_eq!(kinds, vec!["store-load", "store-load"]);
}

#[test]
fn text_report_names_the_delayed_store_and_the_fence() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--tso", "--color", "never"],
    );
    assert_eq!(code, 10);
    assert!(!stdout.contains('\x1b'), "no colours with --color never");
    let command = format!(
        "lazysma {}: lazysma verify {} --tso --color never",
        env!("CARGO_PKG_VERSION"),
        example("store_buffering.c").display()
    );
    assert!(stdout.contains(&command), "{stdout}");
    assert!(stdout.contains("examples/store_buffering.c:33"), "{stdout}");
    assert!(stdout.contains("assert(r1 == 1 || r2 == 1);"), "{stdout}");
    assert!(
        stdout.contains("store to x (line 16) still buffered when writer_x#0 loads y (line 17); a fence between lines 16 and 17 forbids this"),
        "{stdout}"
    );
    let pattern = regex::Regex::new(r"between lines (\d+) and (\d+)").unwrap();
    let mut pairs: Vec<(u32, u32)> = pattern
        .captures_iter(&stdout)
        .map(|c| (c[1].parse().unwrap(), c[2].parse().unwrap()))
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs, vec![(16, 17), (22, 23)]);
    for header in ["step", "thread", "statement", "memory effect"] {
        assert!(stdout.contains(header), "table header {header}");
    }
    let (_, coloured, _) = verify(
        &example("store_buffering.c"),
        &["--tso", "--color", "always"],
    );
    assert!(coloured.contains("\x1b["), "colours with --color always");
}

#[test]
fn message_passing_under_pso_names_the_stores_out_of_order() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, _) = verify(
        &example("message_passing.c"),
        &["--pso", "--color", "never"],
    );
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains(
            "store to ready (line 15) reached memory before the earlier store to data (line 14)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("a store-store fence between lines 14 and 15 forbids this"),
        "{stdout}"
    );
    assert!(
        stdout.contains("insert `__atomic_thread_fence(__ATOMIC_RELEASE);` right after `data = 42;` (line 14, columns 3-12 of "),
        "{stdout}"
    );
    assert!(
        stdout.contains("in producer#0), before `ready = 1;` (line 15, column 3)"),
        "{stdout}"
    );
    let (code, _, _) = verify(&example("message_passing.c"), &["--tso"]);
    assert_eq!(code, 0, "TSO keeps the stores in order");
}

#[test]
fn the_witness_marks_where_the_assertion_fails_and_sets_apart_the_steps_after_it() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, _) = verify(
        &example("message_passing.c"),
        &["--pso", "--format", "json"],
    );
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    let witness = &report["witness"];
    let steps = witness["steps"].as_array().expect("steps");
    // the consumer's load of data is its last step: the assertion fails
    // right after it; data = 42 reaching memory comes after, for the check
    let fails_after = witness["fails_after_step"]
        .as_u64()
        .expect("fails_after_step") as usize;
    let last = &steps[fails_after - 1];
    assert_eq!(
        last["effect"], "reads data = 0 (initial value) from memory",
        "{witness}"
    );
    assert_eq!(last["after_failure"], false);
    let after: Vec<&str> = steps[fails_after..]
        .iter()
        .filter_map(|s| s["effect"].as_str())
        .collect();
    assert_eq!(after, vec!["data = 42 reaches memory"], "{witness}");
    assert!(
        steps[fails_after..]
            .iter()
            .all(|s| s["after_failure"] == true),
        "{witness}"
    );
    assert!(
        steps[..fails_after]
            .iter()
            .all(|s| s["after_failure"] == false),
        "{witness}"
    );
    assert_eq!(report["property"]["kind"], "assertion");
    let (code, stdout, _) = verify(
        &example("message_passing.c"),
        &["--pso", "--color", "never"],
    );
    assert_eq!(code, 10, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let load = lines
        .iter()
        .position(|l| l.ends_with("reads data = 0 (initial value) from memory"))
        .expect("the load row");
    assert!(
        lines[load + 1].trim_start().starts_with("consumer#0"),
        "{stdout}"
    );
    assert!(lines[load + 1].contains("assert(data == 42);"), "{stdout}");
    assert!(
        lines[load + 1].ends_with("FAILS: the assertion does not hold"),
        "{stdout}"
    );
    assert!(lines[load + 2].contains("after the failure"), "{stdout}");
    assert!(
        lines[load + 3].ends_with("data = 42 reaches memory"),
        "{stdout}"
    );
}

#[test]
fn an_index_out_of_bounds_is_named_in_the_text_report() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let path = program(
        &directory,
        "oob.c",
        include_str!("../fixtures/programs/index_out_of_bounds.c"),
    );
    let (code, stdout, _) = verify(&path, &["--tso", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.starts_with(
            "Violation under TSO: array index out of bounds (property thread1_t.assertion.1)\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("arr[i + 3] = 1;")
                && l.ends_with("FAILS: array index out of bounds")),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&path, &["--tso", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["property"]["kind"], "array-index-out-of-bounds");
    assert_eq!(report["property"]["statement"], "arr[i + 3] = 1;");
}

/// Store buffering whose stores share lines with other statements: t1's
/// is the body of an `if` without braces, t2's shares its statement with
/// the load (`y = 1, r2 = x;`).
const STORES_IN_STATEMENTS: &str = include_str!("../fixtures/programs/stores_in_statements.c");

#[test]
fn fences_are_placed_at_statements_not_lines() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    // x = 1; and r1 = y; on one line: the fence goes between the statements
    let one_line = program(
        &directory,
        "sb_line.c",
        include_str!("../fixtures/programs/fence_between_statements.c"),
    );
    let (code, stdout, _) = verify(&one_line, &["--tso", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains("a fence between `x = 1;` and `r1 = y;` (line 4) forbids this"),
        "{stdout}"
    );
    assert!(!stdout.contains("between lines 4 and 4"), "{stdout}");
    assert!(
        stdout.contains(
            "insert `__sync_synchronize();` right after `x = 1;` (line 4, columns 21-26 of "
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("in t1#0), before `r1 = y;` (line 4, column 28)"),
        "{stdout}"
    );
    let path = program(&directory, "statements.c", STORES_IN_STATEMENTS);
    let (code, stdout, _) = verify(&path, &["--tso", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    let fences = report["diagnosis"]["fences"].as_array().expect("fences");
    let of = |thread: &str| {
        fences
            .iter()
            .find(|f| f["thread"] == thread)
            .unwrap_or_else(|| panic!("{thread}'s fence: {fences:?}"))
    };
    let braced = of("t1#0");
    assert_eq!(braced["placement"], "in-braces", "{braced}");
    assert_eq!(
        (
            braced["after_line"].as_u64(),
            braced["after_column"].as_u64()
        ),
        (Some(6), Some(10))
    );
    let split = of("t2#0");
    assert_eq!(split["placement"], "split-statement", "{split}");
    assert!(split["after_column"].is_null(), "{split}");
    assert_eq!(split["after_statement"]["text"], "y = 1, r2 = x;");
    let (code, stdout, _) = verify(&path, &["--tso", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains("write `{ x = 1; __sync_synchronize(); }`"),
        "{stdout}"
    );
    assert!(stdout.contains("`y = 1, r2 = x;` (line 12 of "), "{stdout}");
    assert!(
        stdout.contains(
            "makes both accesses: split it and insert `__sync_synchronize();` between them"
        ),
        "{stdout}"
    );
}

#[test]
fn a_store_from_a_macro_among_other_statements_is_placed_by_the_statement_after_it() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    // SET(x) has no text of its own: its origin is the whole line
    let path = program(
        &directory,
        "macro.c",
        include_str!("../fixtures/programs/store_from_a_macro.c"),
    );
    let (code, stdout, _) = verify(&path, &["--tso", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    let fences = report["diagnosis"]["fences"].as_array().expect("fences");
    let fence = fences
        .iter()
        .find(|f| f["thread"] == "t1#0")
        .expect("t1's fence");
    assert_eq!(fence["placement"], "unlocated", "{fence}");
    assert!(fence["after_column"].is_null(), "{fence}");
    assert_eq!(
        (
            fence["before_line"].as_u64(),
            fence["before_column"].as_u64()
        ),
        (Some(5), Some(29)),
        "{fence}"
    );
    let (code, stdout, _) = verify(&path, &["--tso", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains("a fence after the store and before `r1 = y;` (line 5) forbids this"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "lazysma cannot place it more precisely), before `r1 = y;` (line 5, column 29)"
        ),
        "{stdout}"
    );
}

#[test]
fn no_check_reports_the_recorded_order() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--tso", "--no-check", "--format", "json"],
    );
    assert_eq!(code, 10);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "unchecked-violation");
    assert_eq!(report["check"]["performed"], false);
    assert!(report["check"]["realisable"].is_null());
    assert_eq!(report["witness"]["source"], "sma-trace");
    assert!(report["diagnosis"].is_null());
    assert!(!report["witness"]["steps"].as_array().unwrap().is_empty());
}

/// Two atomic increments (`__VERIFIER_atomic_*`): safe under SC, unsafe
/// under TSO since the sections do not drain. The native check knows the
/// sections: the witness shows them, and the diagnosis says the bug is
/// impossible under SC (the sections keep the increments apart there).
#[test]
fn atomic_sections_are_shown_and_rule_out_sc() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let program = directory.path().join("atomic_increment.c");
    std::fs::write(
        &program,
        include_str!("../fixtures/programs/atomic_increment.c"),
    )
    .unwrap();
    let (code, _, stderr) = verify(&program, &["--sc"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = verify(&program, &["--tso", "--format", "json"]);
    assert_eq!(code, 10, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["check"]["realisable"], true);
    assert_eq!(
        report["diagnosis"]["sc_realisable"], false,
        "{}",
        report["diagnosis"]
    );
    let kinds: Vec<&str> = report["witness"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["kind"].as_str())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "atomic-begin").count(),
        2,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "atomic-end").count(),
        2,
        "{kinds:?}"
    );
}

#[test]
fn values_are_shown_as_their_c_types_read_them_heap_cells_typed_by_their_pointers() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let source = program(
        &directory,
        "publish.c",
        include_str!("../fixtures/programs/heap_values_typed.c"),
    );
    let (code, stdout, stderr) = verify(&source, &["--pso", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}{stderr}");
    let report = json(&stdout);
    let steps = report["witness"]["steps"].as_array().expect("steps");
    let effects: Vec<&str> = steps.iter().filter_map(|s| s["effect"].as_str()).collect();
    // the pointer as the location it points to, its value as a location id
    assert!(
        effects.contains(&"top := &heap#0[0] (buffered)"),
        "{effects:?}"
    );
    let store = steps
        .iter()
        .find(|s| s["effect"] == "top := &heap#0[0] (buffered)")
        .expect("the store to top");
    assert!(
        store["value"]
            .as_str()
            .is_some_and(|v| v.parse::<u64>().is_ok()),
        "{store}"
    );
    // the heap cells typed by `top`: an unsigned and a null pointer
    assert!(
        effects
            .iter()
            .any(|e| e.starts_with("heap#0[0] := 4000000000")),
        "{effects:?}"
    );
    assert!(
        effects.iter().any(|e| e.starts_with("heap#0[1] := NULL")),
        "{effects:?}"
    );
    assert!(
        effects.contains(&"reads top = &heap#0[0] from memory"),
        "{effects:?}"
    );
}
