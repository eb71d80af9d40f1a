//! `lazysma verify` reports: the documented JSON shape, the text report
//! (assertion, witness table, diagnosis with "between lines a and b" and
//! fences placed at statements),
//! colours, `--no-check`, and the exit codes of CBMC failures, time limits
//! and counterexamples that fail the native check (with stand-in CBMC
//! executables that replay recorded output).

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{require_cadical, require_cbmc, verify};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|error| panic!("not JSON ({error}): {stdout}"))
}

/// Writes `text` as the C program `name` in `directory`.
fn program(directory: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = directory.path().join(name);
    std::fs::write(&path, text).expect("write the program");
    path
}

/// The one warning of a JSON report (`stdout` shows the report otherwise).
fn only_warning<'a>(report: &'a Value, stdout: &str) -> &'a Value {
    let warnings = report["warnings"].as_array().expect("warnings is an array");
    assert_eq!(warnings.len(), 1, "{stdout}");
    &warnings[0]
}

/// A stand-in CBMC: answers `--version` like CBMC 5.12 and runs `body`
/// (POSIX sh) for a verification run.
fn fake_cbmc(directory: &Path, body: &str) -> PathBuf {
    support::cbmc_script(
        directory,
        &format!(
            "case \"$1\" in\n  --version) echo '5.12 (cbmc-5.12)'; exit 0;;\n  --help) exit 0;;\nesac\n{body}\n"
        ),
    )
}

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
        "#include <pthread.h>\nint arr[4];\nint idx = 0;\nvoid *t(void *p) { int i = idx; arr[i + 3] = 1; return 0; }\n\
         int main(void) {\n  pthread_t a;\n  idx = 1;\n  pthread_create(&a, 0, t, 0);\n  pthread_join(a, 0);\n  return 0;\n}\n",
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

/// Message passing through a node on the heap: the producer also writes a
/// field nobody reads between the data and the pointer.
const PUBLISH_A_NODE: &str = "#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
struct node { int val; struct node *next; };
struct node *head;
void *producer(void *arg) {
  struct node *n = malloc(sizeof(struct node));
  n->val = 42;
  n->next = 0;
  head = n;
  return 0;
}
void *consumer(void *arg) {
  struct node *p = head;
  if (p) assert(p->val == 42);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, producer, 0);
  pthread_create(&b, 0, consumer, 0);
  return 0;
}
";

#[test]
fn a_reordering_names_the_store_the_other_thread_sees_and_the_fence_goes_right_before_the_later_store()
 {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let path = program(&directory, "publish.c", PUBLISH_A_NODE);
    let (code, stdout, _) = verify(&path, &["--pso", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    let reorderings = report["diagnosis"]["reorderings"]
        .as_array()
        .expect("reorderings");
    assert_eq!(reorderings.len(), 1, "{}", report["diagnosis"]);
    // n->val = 42 (line 8) overtaken by head = n (line 10), which the
    // consumer reads; not by n->next = 0 (line 9), which nobody reads.
    assert_eq!(reorderings[0]["kind"], "store-store");
    assert_eq!(
        reorderings[0]["store"]["line"], 8,
        "{}",
        report["diagnosis"]
    );
    assert_eq!(
        reorderings[0]["later"]["line"], 10,
        "{}",
        report["diagnosis"]
    );
    // the release idiom: the fence right before the publishing store, so
    // that it orders n->next = 0 too
    let fences = report["diagnosis"]["fences"].as_array().expect("fences");
    assert_eq!(fences.len(), 1);
    assert_eq!(
        (
            fences[0]["after_line"].as_u64(),
            fences[0]["before_line"].as_u64()
        ),
        (Some(9), Some(10))
    );
    assert_eq!(
        (
            fences[0]["after_column"].as_u64(),
            fences[0]["before_column"].as_u64()
        ),
        (Some(14), Some(3))
    );
    assert_eq!(
        fences[0]["after_statement"],
        serde_json::json!({"line": 9, "column": 3, "text": "n->next = 0;"})
    );
    assert_eq!(fences[0]["before_statement"]["text"], "head = n;");
    assert_eq!(fences[0]["placement"], "after-statement");
    assert_eq!(fences[0]["kind"], "store-store");
    let (code, stdout, _) = verify(&path, &["--pso", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains(
            "store to head (line 10) reached memory before the earlier store to heap#0[0] (line 8)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("right after `n->next = 0;` (line 9, columns 3-14 of "),
        "{stdout}"
    );
    assert!(
        stdout.contains("before `head = n;` (line 10, column 3)"),
        "{stdout}"
    );
}

/// Store buffering whose stores share lines with other statements: t1's
/// is the body of an `if` without braces, t2's shares its statement with
/// the load (`y = 1, r2 = x;`).
const STORES_IN_STATEMENTS: &str = "#include <pthread.h>
#include <assert.h>
int x, y, r1, r2, go = 1;
void *t1(void *a) {
  if (go)
    x = 1;
  else
    x = 2;
  r1 = y;
  return 0;
}
void *t2(void *a) { y = 1, r2 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0); pthread_join(b, 0);
  assert(r1 == 1 || r2 == 1);
  return 0;
}
";

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
        "#include <pthread.h>\n#include <assert.h>\nint x, y, r1, r2;\n\
         void *t1(void *a) { x = 1; r1 = y; return 0; }\nvoid *t2(void *a) { y = 1; r2 = x; return 0; }\n\
         int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0);\n\
         pthread_join(a, 0); pthread_join(b, 0);\n  assert(r1 == 1 || r2 == 1);\n  return 0;\n}\n",
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
        "#include <pthread.h>\n#include <assert.h>\n#define SET(v) v = 1\nint x, y, r1, r2;\n\
         void *t1(void *a) { SET(x); r1 = y; return 0; }\nvoid *t2(void *a) { y = 1; r2 = x; return 0; }\n\
         int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0);\n\
         pthread_join(a, 0); pthread_join(b, 0);\n  assert(r1 == 1 || r2 == 1);\n  return 0;\n}\n",
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

#[test]
fn safe_programs_exit_zero() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, _) = verify(&example("store_buffering.c"), &["--sc", "--format", "json"]);
    assert_eq!(code, 0);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    assert!(report["property"].is_null() && report["witness"].is_null());
}

#[test]
fn a_safe_verdict_says_which_code_a_loop_bound_left_unchecked() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    // the worker, which breaks the assertion, is created after a loop of 5
    let program = program(
        &directory,
        "init.c",
        "#include <pthread.h>\n#include <assert.h>\nint table[5];\nint x;\nvoid *worker(void *arg) {\n  x = 1;\n  return 0;\n}\n\
int main(void) {\n  pthread_t t;\n  int i;\n  for (i = 0; i < 5; i++)\n    table[i] = i;\n  pthread_create(&t, 0, worker, 0);\n  assert(x == 0);\n  return 0;\n}\n",
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    let warning = only_warning(&report, &stdout);
    assert_eq!(warning["line"], 12);
    assert_eq!(warning["column"], 3);
    assert_eq!(
        warning["message"],
        "no execution gets past this loop within its unwinding bound of 2"
    );
    let (code, stdout, stderr) = verify(&program, &["--tso"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("warning: no execution gets past init.c:12 within the bounds (see the warnings), so the code after it was not checked"), "{stdout}");
    assert!(
        stdout.starts_with("No violation under TSO in the code the bounds reached; the code after init.c:12 was not checked (see the warning)\n"),
        "{stdout}"
    );
    assert!(stderr.contains("init.c:12:3"), "{stderr}");
    // with a bound the loop ends within, the worker runs and breaks the assertion
    let (code, stdout, _) = verify(&program, &["--tso", "--unwind", "6", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    assert_eq!(json(&stdout)["warnings"], Value::Array(Vec::new()));
}

#[test]
fn an_allocation_past_the_heap_blocks_is_a_warning_and_more_blocks_find_the_bug() {
    if !require_cbmc() {
        return;
    }
    // the third allocation exceeds the default --nmalloc 2, so no execution
    // reaches the thread creation, and the PSO bug after it hides
    let directory = tempfile::tempdir().unwrap();
    let program = program(
        &directory,
        "heap3.c",
        "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\nstruct node { int value; struct node *next; };\n\
struct node *top;\nvoid *reader(void *arg) {\n  struct node *n = top;\n  if (n != 0) assert(n->value == 3);\n  return 0;\n}\n\
int main(void) {\n  pthread_t t;\n  struct node *a = malloc(sizeof(struct node));\n  struct node *b = malloc(sizeof(struct node));\n\
  struct node *c = malloc(sizeof(struct node));\n  pthread_create(&t, 0, reader, 0);\n  c->value = 3; c->next = b; b->next = a;\n\
  top = c;\n  return 0;\n}\n",
    );
    let (code, stdout, _) = verify(&program, &["--pso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this allocation within --nmalloc 2"
    );
    assert_eq!(warning["line"], 15);
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("at least 3")),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&program, &["--pso", "--nmalloc", "3", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["property"]["line"], 8);
    assert_eq!(report["warnings"], Value::Array(Vec::new()));
}

#[test]
fn programs_with_more_shared_scalars_than_one_cbmc_initialiser_list_holds_are_verified() {
    if !require_cbmc() {
        return;
    }
    // 1102 locations: CBMC 5.12 rejects an initialiser list of more than
    // 1000 elements, so the initial values go in rows; `z` is in the second
    let directory = tempfile::tempdir().unwrap();
    let program = program(
        &directory,
        "big.c",
        "#include <assert.h>\nint a[1100];\nint z = 5;\nint main(void) {\n  a[1050] = 3;\n  assert(z == 5 && a[1050] == 3 && a[7] == 0);\n  assert(z != 5);\n  return 0;\n}\n",
    );
    let (code, stdout, stderr) = verify(&program, &["--sc", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "violation");
    assert_eq!(
        report["property"]["line"], 7,
        "the first assertion holds: z starts at 5"
    );
}

#[test]
fn the_heap_block_size_is_a_reported_bound() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let heap = program(
        &directory,
        "heap.c",
        "#include <stdlib.h>\n#include <assert.h>\nint main(void) { int n = 12; int *a = malloc(sizeof(int) * n); a[11] = 1; assert(a[11] == 0); return 0; }\n",
    );
    // The size is only known at run time: blocks of 8 scalars cut the
    // allocation off, and the report says which block size it used.
    let (code, stdout, _) = verify(&heap, &["--sc", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(json(&stdout)["bounds"]["heap_block"], 8);
    let (code, stdout, stderr) = verify(&heap, &["--sc"]);
    assert_eq!(code, 0);
    assert!(
        format!("{stdout}{stderr}").contains("heap block 8"),
        "{stdout}{stderr}"
    );
    let (code, stdout, _) = verify(&heap, &["--sc", "--heap-block", "12", "--format", "json"]);
    assert_eq!(code, 10, "twelve scalars hold the allocation: {stdout}");
    assert_eq!(json(&stdout)["bounds"]["heap_block"], 12);
    let (_, stdout, _) = verify(&example("store_buffering.c"), &["--sc", "--format", "json"]);
    assert!(
        json(&stdout)["bounds"]["heap_block"].is_null(),
        "no heap, no heap block"
    );
}

/// A store, an RMW result and a CAS operand that `--bitwidth` cannot hold.
const WIDE_VALUES: &str = "#include <pthread.h>\n#include <assert.h>\nunsigned u;\nint c = 100;\nint s;\nvoid *t(void *arg) { u = 200; __sync_fetch_and_add(&c, 100); __sync_bool_compare_and_swap(&s, 256, 1); return 0; }\nint main(void) {\n  pthread_t p;\n  pthread_create(&p, 0, t, 0);\n  pthread_join(p, 0);\n  assert(u == 200 && c == 200 && s == 0);\n  return 0;\n}\n";

#[test]
fn a_narrow_bit_width_cuts_wide_values_off_and_never_wraps_them() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let wide = program(&directory, "wide.c", WIDE_VALUES);
    // Wrapped around in 8 bits, 200 would read back as -56 and the CAS of
    // `s` from 256 (0 in 8 bits) would succeed: false alarms. The stores
    // are cut off instead, and the safe report names the bound.
    for model in ["--sc", "--tso", "--pso"] {
        let (code, stdout, stderr) = verify(&wide, &[model, "--bitwidth", "8"]);
        assert_eq!(code, 0, "{model}: {stdout}{stderr}");
        assert!(
            stdout.contains("values wider than 8 bits are not ruled out"),
            "{stdout}"
        );
    }
    for sma in ["tso_ref", "pso_ref"] {
        let (code, stdout, stderr) = verify(&wide, &["--sma", sma, "--bitwidth", "8"]);
        assert_eq!(code, 0, "{sma}: {stdout}{stderr}");
    }
    // Nine bits hold every value, and the assertion holds.
    let (code, stdout, _) = verify(&wide, &["--tso", "--bitwidth", "9"]);
    assert_eq!(code, 0, "{stdout}");
    // A program that fails for real still fails at the narrow width.
    let failing = program(
        &directory,
        "wide_failing.c",
        &WIDE_VALUES.replace("c == 200", "c == 100"),
    );
    let (code, stdout, _) = verify(&failing, &["--tso", "--bitwidth", "9"]);
    assert_eq!(code, 10, "{stdout}");
    // Types no wider than the memory keep every value, unsigned ones too
    // (250 in an `unsigned char` goes as its 8 bits and reads back as 250).
    let narrow_types = "#include <pthread.h>\n#include <assert.h>\nunsigned char uc = 250;\nsigned char sc = -5;\nunsigned short us = 65535;\nunsigned u = 4294967295u;\nvoid *t(void *arg) { uc = uc + 10; sc = sc - 1; us = us + 1; u = u + 1; return 0; }\nint main(void) {\n  pthread_t p;\n  pthread_create(&p, 0, t, 0);\n  pthread_join(p, 0);\n  assert(uc == UC && sc == -6 && us == 0 && u == 0);\n  return 0;\n}\n";
    let exact = program(
        &directory,
        "narrow_types.c",
        &narrow_types.replace("UC", "4"),
    );
    let (code, stdout, _) = verify(&exact, &["--tso", "--bitwidth", "8"]);
    assert_eq!(code, 0, "{stdout}");
    let off_by_one = program(
        &directory,
        "narrow_types_failing.c",
        &narrow_types.replace("UC", "5"),
    );
    let (code, stdout, _) = verify(&off_by_one, &["--tso", "--bitwidth", "8"]);
    assert_eq!(code, 10, "{stdout}");
    // The witness shows the values in the variables' types.
    for effect in [
        "reads uc = 250 (initial value)",
        "reads us = 65535",
        "reads u = 4294967295",
        "sc := -6",
    ] {
        assert!(stdout.contains(effect), "{effect}: {stdout}");
    }
    // Atomic stores and address-taken parameters store the same way: both
    // values must arrive for the assertion to fail.
    let other_stores = program(
        &directory,
        "narrow_other_stores.c",
        "#include <pthread.h>\n#include <assert.h>\nunsigned char uc, uc2;\nvoid put(unsigned char v) { unsigned char *p = &v; uc2 = *p; }\nvoid *t(void *arg) { __atomic_store_n(&uc, 250, __ATOMIC_SEQ_CST); put(251); return 0; }\nint main(void) { pthread_t p; pthread_create(&p, 0, t, 0); pthread_join(p, 0); assert(uc != 250 || uc2 != 251); return 0; }\n",
    );
    let (code, stdout, _) = verify(&other_stores, &["--tso", "--bitwidth", "8"]);
    assert_eq!(code, 10, "{stdout}");
    // An initial value the width cannot hold is refused before CBMC runs.
    let initial = program(
        &directory,
        "wide_initial.c",
        "unsigned u = 200;\nint main(void) { return u; }\n",
    );
    let (code, _, stderr) = verify(&initial, &["--bitwidth", "8"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("the initial value 200 does not fit in shared memory of --bitwidth 8"),
        "{stderr}"
    );
    assert!(
        stderr.contains("wide_initial.c:1:14") && stderr.contains("-128 .. 127"),
        "{stderr}"
    );
}

/// Message passing whose flag store takes its memory order from a
/// wrapper's parameter (`ORDER`): release keeps `data` first under PSO,
/// relaxed does not.
const ORDER_THROUGH_A_PARAMETER: &str = "#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
int data;
atomic_int flag;
static void publish(atomic_int *p, memory_order order) { atomic_store_explicit(p, 1, order); }
void *writer(void *arg) { data = 1; publish(&flag, ORDER); return 0; }
void *reader(void *arg) { if (atomic_load_explicit(&flag, memory_order_acquire)) assert(data == 1); return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
";

#[test]
fn a_memory_order_passed_as_a_parameter_is_the_one_the_caller_gave() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let path = program(&directory, "order.c", ORDER_THROUGH_A_PARAMETER);
    for (order, pso_code) in [
        ("memory_order_release", 0),
        ("memory_order_seq_cst", 0),
        ("memory_order_relaxed", 10),
    ] {
        let define = format!("ORDER={order}");
        let (code, stdout, stderr) = verify(&path, &["--tso", "-D", &define]);
        assert_eq!(code, 0, "{order} --tso: {stdout}{stderr}");
        let (code, stdout, stderr) = verify(&path, &["--pso", "-D", &define]);
        assert_eq!(code, pso_code, "{order} --pso: {stdout}{stderr}");
    }
    // A store to an `_Atomic` object is seq_cst, so release too.
    let atomic_flag = program(
        &directory,
        "atomic_flag_store.c",
        &ORDER_THROUGH_A_PARAMETER
            .replace("atomic_int flag;", "_Atomic int flag;")
            .replace("publish(&flag, ORDER)", "flag = 1"),
    );
    let (code, stdout, stderr) = verify(&atomic_flag, &["--pso"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, stderr) = verify(&atomic_flag, &["--pso", "-D", "_Atomic="]);
    assert_eq!(code, 10, "{stdout}{stderr}");
}

/// 64-bit shared variables and a 64-bit constant operand.
const LONG_VALUES: &str = "#include <pthread.h>\n#include <assert.h>\nlong x;\nunsigned long y;\nvoid *t(void *arg) { x = 1L << 33; y = (unsigned long)-1; return 0; }\nint main(void) {\n  pthread_t p;\n  pthread_create(&p, 0, t, 0);\n  pthread_join(p, 0);\n  assert(x != 0 && y == (unsigned long)-1);\n  PROPERTY;\n  return 0;\n}\n";

#[test]
fn sixty_four_bit_values_are_cut_off_below_bitwidth_64_and_exact_at_it() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let holds = program(
        &directory,
        "long_holds.c",
        &LONG_VALUES.replace("PROPERTY;", ""),
    );
    let fails = program(
        &directory,
        "long_fails.c",
        &LONG_VALUES.replace("PROPERTY;", "assert(x == 0);"),
    );
    // At --bitwidth 32 2^33 does not fit: the store is cut off rather
    // than truncated to 0 (which would fail the first assertion).
    let (code, stdout, _) = verify(&holds, &["--tso", "--bitwidth", "32"]);
    assert_eq!(code, 0, "{stdout}");
    // and the safe report says that wider values were not covered, in its
    // headline too
    assert!(
        stdout.contains("values wider than 32 bits are not ruled out"),
        "{stdout}"
    );
    assert!(
        stdout.lines().next().is_some_and(|headline| headline
            .contains("wider than 32 bits in shared memory were cut off by --bitwidth 32")),
        "{stdout}"
    );
    // Without --bitwidth memory is as wide as the 64-bit variables.
    let (code, stdout, _) = verify(&fails, &["--tso"]);
    assert_eq!(code, 10, "{stdout}");
    // At 64 bits the values are exact: `1L << 33` shifts a 64-bit one.
    let (code, stdout, _) = verify(&holds, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains("values wider than"), "{stdout}");
    let (code, stdout, _) = verify(&fails, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 10, "{stdout}");
    // A 64-bit RMW computes its result in the object's type: below 64 bits
    // one that no int holds is cut off like a store of it (the SMA would
    // have computed it as an int), exact at 64; one that fits is stored.
    let rmw = program(
        &directory,
        "long_rmw.c",
        &LONG_VALUES
            .replace("x = 1L << 33;", "__sync_fetch_and_add(&x, 1L << 33);")
            .replace("PROPERTY;", ""),
    );
    let (code, stdout, stderr) = verify(&rmw, &["--tso", "--bitwidth", "32"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("values wider than 32 bits are not ruled out"),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&rmw, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}");
    let small_rmw = program(
        &directory,
        "long_small_rmw.c",
        &LONG_VALUES
            .replace("x = 1L << 33;", "__sync_fetch_and_add(&x, 5L);")
            .replace("PROPERTY;", "assert(x == 0);"),
    );
    let (code, stdout, _) = verify(&small_rmw, &["--tso"]);
    assert_eq!(code, 10, "{stdout}");
    // Up to --bitwidth 32 memory takes an int: a 64-bit initial value no
    // int holds would be truncated, so it is refused (it was read as 0).
    let initial = program(
        &directory,
        "long_initial.c",
        &LONG_VALUES
            .replace("long x;", "long x = 1L << 40;")
            .replace("PROPERTY;", ""),
    );
    let (code, _, stderr) = verify(&initial, &["--tso", "--bitwidth", "32"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "the initial value 1099511627776 does not fit in shared memory of --bitwidth 32"
        ),
        "{stderr}"
    );
    let (code, stdout, _) = verify(&initial, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = verify(&initial, &["--tso"]);
    assert_eq!(code, 0, "{stdout}");
}

/// A 64-bit store whose value needs 41 bits (signed), then one that needs 35.
const BETWEEN_32_AND_64: &str = "#include <pthread.h>\n#include <assert.h>\nlong x;\nunsigned long y = 4294967295UL;\nvoid *t(void *arg) { STORE; return 0; }\nint main(void) {\n  pthread_t p;\n  pthread_create(&p, 0, t, 0);\n  pthread_join(p, 0);\n  PROPERTY;\n  return 0;\n}\n";

#[test]
fn a_bit_width_between_32_and_64_narrows_64_bit_values_without_wrapping_them() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let write = |name: &str, store: &str, property: &str| {
        program(
            &directory,
            name,
            &BETWEEN_32_AND_64
                .replace("STORE", store)
                .replace("PROPERTY", property),
        )
    };
    // (2^40 + 5) at 40 bits would wrap to 5: cut off instead, at 41 kept.
    let wide = write(
        "wide.c",
        "x = (1L << 40) + 5",
        "assert(x != 5 && x != (1L << 40) + 5)",
    );
    let (code, stdout, _) = verify(&wide, &["--tso", "--bitwidth", "40"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("values wider than 40 bits"), "{stdout}");
    let (code, stdout, _) = verify(&wide, &["--tso", "--bitwidth", "42"]);
    assert_eq!(code, 10, "{stdout}");
    // 2^32 needs 34 bits: cut off at 33, exact at 34; the unsigned initial
    // value 2^32 - 1 fits from 33 bits on.
    let increment = write("increment.c", "y = y + 1", "assert(y != 4294967296UL)");
    let (code, stdout, _) = verify(&increment, &["--pso", "--bitwidth", "33"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = verify(&increment, &["--pso", "--bitwidth", "34"]);
    assert_eq!(code, 10, "{stdout}");
    // A 64-bit RMW is computed as a long long above 32 bits, then narrowed.
    let rmw = write(
        "rmw.c",
        "__sync_fetch_and_add(&y, 1UL)",
        "assert(y != 4294967296UL)",
    );
    let (code, stdout, _) = verify(&rmw, &["--tso", "--bitwidth", "33"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = verify(&rmw, &["--tso", "--bitwidth", "48"]);
    assert_eq!(code, 10, "{stdout}");
}

#[test]
fn missing_cbmc_exits_2_with_the_install_hint() {
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &["--cbmc", "/nonexistent/cbmc"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("install-cbmc.sh"), "{stderr}");
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--cbmc", "/nonexistent/cbmc", "--format", "json"],
    );
    assert_eq!(code, 2);
    assert_eq!(json(&stdout)["verdict"], "backend-error");
}

#[test]
fn cbmc_failures_exit_2_with_its_stderr() {
    let directory = tempfile::tempdir().unwrap();
    let crashing = fake_cbmc(directory.path(), "echo 'solver exploded' >&2\nexit 6");
    let (code, _, stderr) = verify(
        &example("store_buffering.c"),
        &["--cbmc", crashing.to_str().unwrap()],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("solver exploded"), "{stderr}");
    let garbage = fake_cbmc(directory.path(), "echo '[{\"program\": '\nexit 0");
    let (code, _, _) = verify(
        &example("store_buffering.c"),
        &["--cbmc", garbage.to_str().unwrap()],
    );
    assert_eq!(code, 2);
}

#[test]
fn the_time_limit_exits_3() {
    let directory = tempfile::tempdir().unwrap();
    let slow = fake_cbmc(directory.path(), "sleep 20");
    let started = std::time::Instant::now();
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[
            "--cbmc",
            slow.to_str().unwrap(),
            "--timeout",
            "1",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 3);
    assert_eq!(json(&stdout)["verdict"], "timeout");
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}

/// Whether process `pid` is gone (or a zombie nobody has reaped yet).
#[cfg(target_os = "linux")]
fn process_ended(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Killing lazysma (a CI time limit, `kill -9`) takes CBMC with it.
#[cfg(target_os = "linux")]
#[test]
fn cbmc_ends_when_lazysma_is_killed() {
    let directory = tempfile::tempdir().unwrap();
    let pid_file = directory.path().join("cbmc.pid");
    let slow = fake_cbmc(
        directory.path(),
        &format!("echo $$ > '{}'\nexec sleep 60", pid_file.display()),
    );
    let mut child = support::lazysma()
        .arg("verify")
        .arg(example("store_buffering.c"))
        .args(["--engine", "cbmc", "--cbmc", slow.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && text.ends_with('\n')
        {
            break text.trim().to_string();
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the stand-in CBMC never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(!process_ended(&pid), "the stand-in CBMC runs");
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = std::time::Instant::now();
    while !process_ended(&pid) {
        assert!(
            killed.elapsed() < std::time::Duration::from_secs(10),
            "CBMC (pid {pid}) outlived lazysma"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// SIGTERM or SIGINT (a CI job's cancellation, Ctrl-C) while CBMC runs:
/// lazysma ends CBMC, removes its temporary directories, and then ends by
/// the same signal.
#[cfg(target_os = "linux")]
#[test]
fn temporary_files_go_and_cbmc_ends_when_lazysma_is_terminated_or_interrupted() {
    use std::os::unix::process::ExitStatusExt;
    use wait_timeout::ChildExt;
    for (name, number) in [("TERM", 15), ("INT", 2)] {
        let directory = tempfile::tempdir().unwrap();
        let temporary = directory.path().join("tmp");
        std::fs::create_dir(&temporary).unwrap();
        let pid_file = directory.path().join("cbmc.pid");
        let slow = fake_cbmc(
            directory.path(),
            &format!("echo $$ > '{}'\nexec sleep 60", pid_file.display()),
        );
        let mut command = support::lazysma();
        // A caller that ignores SIGINT (a background job of a shell without
        // job control, as CI may start this test) passes that on, and
        // lazysma keeps an ignored signal ignored: let it be delivered.
        // SAFETY: only signal(2), async-signal-safe, runs in the child.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command
            .arg("verify")
            .arg(example("store_buffering.c"))
            .args([
                "--sc",
                "--engine",
                "cbmc",
                "--sat-solver",
                "cbmc",
                "--cbmc",
                slow.to_str().unwrap(),
            ])
            .env("TMPDIR", &temporary)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let pid = loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && text.ends_with('\n')
            {
                break text.trim().to_string();
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the stand-in CBMC never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(
            std::fs::read_dir(&temporary).unwrap().next().is_some(),
            "lazysma's temporary directory is there while CBMC runs"
        );
        let sent = std::process::Command::new("kill")
            .args(["-s", name])
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
        let Some(status) = child
            .wait_timeout(std::time::Duration::from_secs(10))
            .unwrap()
        else {
            let _ = child.kill();
            panic!("lazysma did not end on SIG{name}");
        };
        assert_eq!(
            status.signal(),
            Some(number),
            "lazysma ends by SIG{name}: {status}"
        );
        assert!(
            process_ended(&pid),
            "CBMC (pid {pid}) outlived lazysma's SIG{name}"
        );
        let left: Vec<_> = std::fs::read_dir(&temporary)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "SIG{name} left {left:?} behind");
    }
}

/// `--unwinding-assertions`: a loop that needs more than `--unwind`
/// iterations is reported as a bound reached (exit 10, like CBMC), not as a
/// violation; with enough unwinding, or without the option, the run is safe.
#[test]
fn unwinding_assertions_report_the_bound_not_a_bug() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let program = directory.path().join("loop.c");
    std::fs::write(
        &program,
        "#include <pthread.h>\n#include <assert.h>\nint x;\nvoid *t(void *arg) {\n  int i = 0;\n  while (i < 3) {\n    x = x + 1;\n    i++;\n  }\n  return 0;\n}\nint main(void) {\n  pthread_t a;\n  pthread_create(&a, 0, t, 0);\n  pthread_join(a, 0);\n  assert(x <= 3);\n  return 0;\n}\n",
    )
    .unwrap();
    let (code, stdout, _) = verify(
        &program,
        &["--sc", "--unwinding-assertions", "--format", "json"],
    );
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "unwinding-bound");
    assert_eq!(report["unwinding_assertions"], true);
    assert_eq!(report["property"]["line"], 6);
    assert_eq!(report["check"]["realisable"], true);
    let (code, stdout, _) = verify(&program, &["--sc", "--unwinding-assertions"]);
    assert_eq!(code, 10);
    assert!(
        stdout.starts_with(
            "Unwinding bound reached under SC: a loop can run more than --unwind 2 times"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("6 | while (i < 3) {"), "{stdout}");
    let (code, stdout, _) = verify(
        &program,
        &[
            "--sc",
            "--unwinding-assertions",
            "--no-check",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10);
    assert_eq!(
        json(&stdout)["verdict"],
        "unwinding-bound",
        "without the native check too"
    );
    // the loop's own depth is the bound it reports
    let (code, stdout, _) = verify(
        &program,
        &[
            "--sc",
            "--unwinding-assertions",
            "--unwind",
            "3",
            "--unwindset",
            "6:1",
        ],
    );
    assert_eq!(code, 10);
    assert!(
        stdout.starts_with(
            "Unwinding bound reached under SC: a loop can run more than --unwind 1 times"
        ),
        "{stdout}"
    );
    let (code, stdout, _) = verify(
        &program,
        &["--sc", "--unwinding-assertions", "--unwind", "3"],
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("every loop exits within --unwind"),
        "{stdout}"
    );
    let (code, _, _) = verify(&program, &["--sc"]);
    assert_eq!(code, 0);
}

#[test]
fn bad_input_exits_1() {
    let directory = tempfile::tempdir().unwrap();
    let broken = directory.path().join("broken.c");
    std::fs::write(&broken, "int main(void) { return 0 }\n").unwrap();
    let (code, stdout, _) = verify(&broken, &["--format", "json"]);
    assert_eq!(code, 1);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "bad-input");
    // the diagnostic as the text report shows it, not only its message
    let diagnostic = &report["diagnostic"];
    assert_eq!(diagnostic["message"], "syntax error", "{stdout}");
    assert!(
        diagnostic["file"]
            .as_str()
            .is_some_and(|file| file.ends_with("broken.c")),
        "{stdout}"
    );
    assert_eq!(
        (&diagnostic["line"], &diagnostic["column"]),
        (&Value::from(1), &Value::from(27)),
        "{stdout}"
    );
    assert_eq!(diagnostic["label"], "unexpected `}`", "{stdout}");
    assert!(
        diagnostic["help"]
            .as_str()
            .is_some_and(|help| help.starts_with("expected one of")),
        "{stdout}"
    );
    // a construct lazysma refuses, and a line of --unwindset without a loop
    let recursive = directory.path().join("recursive.c");
    std::fs::write(
        &recursive,
        "int f(int k) {\n  return k > 0 ? f(k - 1) : 0;\n}\nint main(void) {\n  return f(2);\n}\n",
    )
    .unwrap();
    let (code, stdout, _) = verify(&recursive, &["--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(json(&stdout)["diagnostic"]["line"], 2, "{stdout}");
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--unwindset", "4:3", "--format", "json"],
    );
    assert_eq!(code, 1);
    let diagnostic = &json(&stdout)["diagnostic"];
    assert_eq!(
        (&diagnostic["line"], &diagnostic["column"]),
        (&Value::from(4), &Value::from(1)),
        "{stdout}"
    );
    assert!(diagnostic["help"].is_string(), "{stdout}");
}

/// docs/reports.md: one JSON document on stdout for every outcome, so also for an
/// option error (which clap or the options' own checks find), with `null`
/// for what was not parsed.
#[test]
fn an_option_error_is_one_json_document_too() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--bogus", "--format", "json"],
            "unexpected argument '--bogus'",
        ),
        (&["--format=json", "--rounds", "0"], "'--rounds <ROUNDS>'"),
        (
            &["--timeout", "0", "--format", "json"],
            "positive number of seconds",
        ),
        (
            &["--format", "json", "--sc", "--pso"],
            "cannot be used with",
        ),
        (
            &[
                "--format",
                "json",
                "--unwindset",
                "5:1",
                "--unwindset",
                "5:2",
            ],
            "two depths, 5:1 and 5:2",
        ),
    ];
    for (arguments, expected) in cases {
        let (code, stdout, stderr) = verify(&example("store_buffering.c"), arguments);
        assert_eq!(code, 1, "{arguments:?}: {stdout}{stderr}");
        assert!(stderr.is_empty(), "{arguments:?}: {stderr}");
        let report = json(&stdout);
        assert_eq!(report["verdict"], "bad-input", "{arguments:?}");
        assert_eq!(report["exit_code"], 1, "{arguments:?}");
        assert!(
            report["message"]
                .as_str()
                .is_some_and(|message| message.contains(expected)),
            "{arguments:?}: {stdout}"
        );
        assert_eq!(report["file"], Value::Null, "{arguments:?}");
        assert_eq!(report["diagnostic"], Value::Null, "{arguments:?}");
        assert_eq!(
            report["warnings"],
            Value::Array(Vec::new()),
            "{arguments:?}"
        );
    }
    // and one SARIF log, a failed invocation with the message
    for arguments in [
        &["--bogus", "--format", "sarif"][..],
        &["--format=sarif", "--unwindset", "5:1", "--unwindset", "5:2"],
    ] {
        let (code, stdout, stderr) = verify(&example("store_buffering.c"), arguments);
        assert_eq!(code, 1, "{arguments:?}: {stdout}{stderr}");
        assert!(stderr.is_empty(), "{arguments:?}: {stderr}");
        let run = &json(&stdout)["runs"][0];
        assert_eq!(
            run["invocations"][0]["executionSuccessful"], false,
            "{stdout}"
        );
        assert_eq!(
            run["properties"],
            serde_json::json!({ "verdict": "bad-input" }),
            "{stdout}"
        );
        let message =
            run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].as_str();
        assert!(
            message.is_some_and(
                |message| message.contains("--bogus") || message.contains("two depths")
            ),
            "{stdout}"
        );
    }
    // text mode keeps clap's message on stderr
    let (code, stdout, stderr) = verify(&example("store_buffering.c"), &["--bogus"]);
    assert_eq!(code, 1);
    assert!(
        stdout.is_empty() && stderr.contains("unexpected argument '--bogus'"),
        "{stdout}{stderr}"
    );
}

/// A TSO counterexample replayed as if CBMC had found it under SC: the SC
/// check must reject it loudly with exit 4, never blame the program.
#[test]
fn a_counterexample_failing_the_check_exits_4() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let sequential = directory.path().join("sb_tso.c");
    let (code, _, _) = verify(
        &example("store_buffering.c"),
        &[
            "--tso",
            "--keep",
            sequential.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10);
    let cbmc = support::cbmc_path().expect("CBMC");
    let recorded = std::process::Command::new(cbmc)
        .arg(&sequential)
        .args(["--json-ui", "--trace", "--no-unwinding-assertions"])
        .output()
        .unwrap();
    let output = directory.path().join("output.json");
    std::fs::write(&output, &recorded.stdout).unwrap();
    let replay = fake_cbmc(
        directory.path(),
        &format!("cat '{}'\nexit 10", output.display()),
    );
    let (code, _, stderr) = verify(
        &example("store_buffering.c"),
        &[
            "--sc",
            "--cbmc",
            replay.to_str().unwrap(),
            "--color",
            "never",
        ],
    );
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("INTERNAL ERROR"), "{stderr}");
    assert!(stderr.contains("not a bug in your program"), "{stderr}");
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[
            "--sc",
            "--cbmc",
            replay.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 4);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "check-failed");
    assert_eq!(report["check"]["realisable"], false);
    assert!(report["check"]["reason"].is_string());
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
        "#include <assert.h>\n#include <pthread.h>\nint x;\n\
         void __VERIFIER_atomic_increment(void) { int v = x; x = v + 1; }\n\
         void *worker(void *arg) { __VERIFIER_atomic_increment(); return 0; }\n\
         int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, worker, 0);\n  pthread_create(&b, 0, worker, 0);\n\
         pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(x == 2);\n  return 0;\n}\n",
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
fn an_external_sat_solver_proves_safe_programs_and_keeps_confirmed_counterexamples() {
    if !require_cbmc() || !require_cadical() {
        return;
    }
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--tso", "--sat-solver", "cadical"],
    );
    assert_eq!(code, 10, "{stdout}");
    // CBMC's run decides it before CaDiCaL starts, and the report says so
    assert!(
        stdout.contains("(its own solver decided; cadical beside it)")
            && stdout.contains("native TSO check: confirmed"),
        "{stdout}"
    );
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--sc", "--sat-solver", "cadical", "--format", "json"],
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    assert_eq!(report["cbmc"]["sat_solver"], "cadical");
}

#[test]
fn a_solver_that_finds_a_failure_is_reported_when_cbmcs_run_gives_no_counterexample() {
    if !require_cbmc() || !require_cadical() {
        return;
    }
    let real = which::which("cbmc").expect("cbmc on PATH");
    let directory = tempfile::tempdir().expect("temporary directory");
    let wrapper = support::cbmc_killed_when_tracing(directory.path(), &real);
    let wrapper = wrapper.to_str().expect("a UTF-8 path");
    // CBMC's run dies; CaDiCaL alone proves the program safe under SC ...
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &["--sc", "--cbmc", wrapper, "--format", "json"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    assert_eq!(report["cbmc"]["formula_satisfiable"], false);
    assert_eq!(report["cbmc"]["decided_by"], "cadical");
    // ... and finds that the assertion can fail under TSO, which the report
    // says beside the failure, without a verdict it cannot check
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &["--tso", "--cbmc", wrapper, "--format", "json"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "backend-error");
    assert_eq!(report["cbmc"]["formula_satisfiable"], true);
    assert_eq!(report["cbmc"]["decided_by"], Value::Null, "no verdict");
    let message = report["message"].as_str().expect("a message");
    assert!(
        message.contains("cadical found that a property can fail"),
        "{message}"
    );
    let (code, stdout, stderr) =
        verify(&example("store_buffering.c"), &["--tso", "--cbmc", wrapper]);
    assert_eq!(code, 2, "{stdout}");
    let text = format!("{stdout}{stderr}");
    assert!(
        text.contains("cadical found that a property can fail"),
        "{text}"
    );
    // with CBMC's own solver alone nobody knows
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[
            "--tso",
            "--cbmc",
            wrapper,
            "--sat-solver",
            "cbmc",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 2, "{stdout}");
    assert_eq!(json(&stdout)["cbmc"]["formula_satisfiable"], Value::Null);
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
        "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\n\
         struct node { unsigned value; struct node *next; };\n\
         struct node *top;\nint published;\n\
         void *producer(void *arg) {\n  struct node *n = malloc(sizeof(struct node));\n\
         n->value = 4000000000u;\n  n->next = 0;\n  top = n;\n  published = 1;\n  return 0;\n}\n\
         int main(void) {\n  pthread_t t;\n  pthread_create(&t, 0, producer, 0);\n\
         if (published == 1) {\n    struct node *n = top;\n    assert(n->value == 4000000000u);\n  }\n\
         pthread_join(t, 0);\n  return 0;\n}\n",
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

/// Store buffering where one thread's three stores to `x` must all be
/// pending at once: four list nodes of `x`, more than `--qsize 3` gives.
const THREE_PENDING: &str = "#include <pthread.h>\n#include <assert.h>\nint x, y, r0, r1;\nvoid *t0(void *a) { x = 1; x = 2; x = 3; r0 = y; return 0; }\nvoid *t1(void *a) { y = 1; __sync_synchronize(); r1 = x; return 0; }\nint main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, t0, 0);\n  pthread_create(&b, 0, t1, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(!(r0 == 0 && r1 == 0));\n  return 0;\n}\n";

/// A safe verdict names the buffer space and memory clock that no
/// execution needs more of; `--qsize auto` takes them, and finds the
/// violation that `--qsize 3` cut off.
#[test]
fn the_safe_report_names_sufficient_bounds_and_auto_takes_them() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let three = program(&directory, "three.c", THREE_PENDING);
    for model in ["--tso", "--pso"] {
        let (code, stdout, stderr) = verify(
            &three,
            &[model, "--qsize", "3", "--maxclock", "6", "--color", "never"],
        );
        assert_eq!(code, 0, "{model}: {stdout}{stderr}");
        assert!(
            stdout.contains("(bugs that need more rounds, loop iterations or buffer space are not ruled out; no execution of this program needs more than qsize 4, maxclock 4; --qsize auto sets it)"),
            "{model}: {stdout}"
        );
        let (code, stdout, stderr) = verify(
            &three,
            &[
                model,
                "--qsize",
                "auto",
                "--maxclock",
                "auto",
                "--format",
                "json",
            ],
        );
        assert_eq!(code, 10, "{model}: {stdout}{stderr}");
        let report = json(&stdout);
        assert_eq!(report["bounds"]["qsize"], 4, "{stdout}");
        assert_eq!(report["bounds"]["maxclock"], 4, "{stdout}");
        assert_eq!(report["sufficient_bounds"]["qsize"], 4, "{stdout}");
        assert_eq!(report["sufficient_bounds"]["maxclock"], 4, "{stdout}");
        assert_eq!(report["check"]["realisable"], true, "{stdout}");
    }
    // at the sufficient bounds only rounds and loops remain
    let safe = program(
        &directory,
        "fenced.c",
        &THREE_PENDING.replace("x = 3; r0", "x = 3; __sync_synchronize(); r0"),
    );
    let (code, stdout, stderr) = verify(
        &safe,
        &[
            "--tso",
            "--qsize",
            "auto",
            "--maxclock",
            "auto",
            "--color",
            "never",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("(bugs that need more rounds or loop iterations are not ruled out; no execution of this program needs more than qsize 4, maxclock 4)"),
        "{stdout}"
    );
    let (_, stdout, _) = verify(&safe, &["--sc", "--format", "json"]);
    assert!(
        json(&stdout)["sufficient_bounds"].is_null(),
        "SC has no buffers: {stdout}"
    );
}

/// A writer's three stores read in turn by another thread: a bug under
/// SC, hence under TSO and PSO.
const READ_IN_TURN: &str = "#include <pthread.h>\n#include <assert.h>\nint x;\n\
void *writer(void *arg) { x = 1; x = 2; x = 3; return 0; }\n\
void *reader(void *arg) { int r1 = x; int r2 = x; int r3 = x; assert(!(r1 == 1 && r2 == 2 && r3 == 3)); return 0; }\n\
int main(void) { pthread_t a, b; pthread_create(&a, 0, writer, 0); pthread_create(&b, 0, reader, 0); return 0; }\n";

/// A stand-in CBMC that runs the real one on the program translated under
/// SC (the run beside TSO/PSO) when `sc_real`, on the other program
/// otherwise, and sleeps for a minute on the one it does not run.
fn cbmc_real_for_one_run(directory: &Path, sc_real: bool) -> PathBuf {
    let real = support::cbmc_path().expect("CBMC");
    let (sc, other) = if sc_real {
        ("exec \"$real\" \"$@\"", "exec sleep 60")
    } else {
        ("exec sleep 60", "exec \"$real\" \"$@\"")
    };
    fake_cbmc(
        directory,
        &format!(
            "real='{}'\ncase \"$1\" in\n  *sequential-sc.c) {sc};;\nesac\n{other}",
            real.display()
        ),
    )
}

#[test]
fn a_violation_under_sc_ends_the_tso_and_pso_runs() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let racy = program(&directory, "read_in_turn.c", READ_IN_TURN);
    // the TSO/PSO run never answers: only the run under SC can
    let sc_only = cbmc_real_for_one_run(directory.path(), true);
    for model in ["--tso", "--pso"] {
        let started = std::time::Instant::now();
        let (code, stdout, stderr) = verify(
            &racy,
            &[
                model,
                "--rounds",
                "4",
                "--cbmc",
                sc_only.to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert_eq!(code, 10, "{model}: {stdout}{stderr}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(40),
            "{model}: the TSO/PSO run was not stopped"
        );
        let report = json(&stdout);
        assert_eq!(report["verdict"], "violation", "{stdout}");
        assert_eq!(report["model"], &model[2..], "{stdout}");
        assert_eq!(report["found_under_sc"], true, "{stdout}");
        assert_eq!(report["check"]["model"], "sc", "{stdout}");
        assert_eq!(report["check"]["realisable"], true, "{stdout}");
        assert_eq!(
            report["cbmc"]["sat_solver"],
            Value::Null,
            "the SC run uses CBMC's own solver: {stdout}"
        );
        assert_eq!(report["diagnosis"]["sc_realisable"], true, "{stdout}");
        assert_eq!(report["property"]["line"], 5, "{stdout}");
    }
    let (code, stdout, _) = verify(
        &racy,
        &[
            "--tso",
            "--rounds",
            "4",
            "--cbmc",
            sc_only.to_str().unwrap(),
            "--color",
            "never",
        ],
    );
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains(
            "Found by the run under SC beside the TSO run: this bug needs no weak memory"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("Witness: an interleaving the native SC check confirms"),
        "{stdout}"
    );
    assert!(
        stdout.contains("read_in_turn.c (sc, beside etso), bounds:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "Diagnosis: a violation under sequential consistency, which no fence can prevent"
        ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("is possible under sequential consistency"),
        "{stdout}"
    );
    // under --sc too
    let (code, stdout, _) = verify(&racy, &["--sc", "--rounds", "4", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains(
            "Diagnosis: a violation under sequential consistency, which no fence can prevent"
        ),
        "{stdout}"
    );
}

#[test]
fn a_decided_tso_run_ends_the_run_under_sc() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    // the run under SC never answers: the TSO run decides alone
    let model_only = cbmc_real_for_one_run(directory.path(), false);
    let fenced = program(
        &directory,
        "fenced.c",
        &THREE_PENDING.replace("x = 3; r0", "x = 3; __sync_synchronize(); r0"),
    );
    for (file, expected) in [(example("store_buffering.c"), 10), (fenced, 0)] {
        let started = std::time::Instant::now();
        let (code, stdout, stderr) = verify(
            &file,
            &[
                "--tso",
                "--cbmc",
                model_only.to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert_eq!(code, expected, "{}: {stdout}{stderr}", file.display());
        assert!(
            started.elapsed() < std::time::Duration::from_secs(40),
            "{}: the run under SC was not stopped",
            file.display()
        );
        let report = json(&stdout);
        assert_eq!(report["found_under_sc"], false, "{stdout}");
        assert_eq!(report["check"]["model"], "tso", "{stdout}");
    }
}

#[test]
fn no_sc_run_and_sma_check_the_model_alone() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let racy = program(&directory, "read_in_turn.c", READ_IN_TURN);
    // without the run under SC the TSO run finds the bug itself
    for alone in [&["--no-sc-run"][..], &["--sma", "etso"][..]] {
        let mut arguments = vec!["--tso", "--rounds", "4", "--format", "json"];
        arguments.extend_from_slice(alone);
        let (code, stdout, stderr) = verify(&racy, &arguments);
        assert_eq!(code, 10, "{alone:?}: {stdout}{stderr}");
        let report = json(&stdout);
        assert_eq!(report["found_under_sc"], false, "{alone:?}: {stdout}");
        assert_eq!(report["check"]["model"], "tso", "{alone:?}: {stdout}");
        assert_eq!(report["check"]["realisable"], true, "{alone:?}: {stdout}");
    }
    // under SC there is nothing to run beside
    let (code, stdout, _) = verify(&racy, &["--sc", "--rounds", "4", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    assert_eq!(json(&stdout)["found_under_sc"], false, "{stdout}");
}

/// `--keep` keeps both programs of a TSO/PSO verification, each of which
/// CBMC finds the violation in, and the report names them; without the
/// run under SC it keeps one. A companion name that is the input file is
/// refused like the program's own, unless there is no run under SC.
#[test]
fn keep_keeps_the_program_of_the_run_under_sc_beside_the_model_one() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let racy = program(&directory, "read_in_turn.c", READ_IN_TURN);
    let kept = directory.path().join("seq.c");
    let sc_kept = directory.path().join("seq.sc.c");
    let (code, stdout, stderr) = verify(
        &racy,
        &[
            "--tso",
            "--rounds",
            "4",
            "--keep",
            kept.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(
        report["kept"]["program"],
        kept.display().to_string(),
        "{stdout}"
    );
    assert_eq!(
        report["kept"]["sc_program"],
        sc_kept.display().to_string(),
        "{stdout}"
    );
    let cbmc = support::cbmc_path().expect("CBMC");
    for (file, sma) in [(&kept, "etso"), (&sc_kept, "sc")] {
        let text = std::fs::read_to_string(file).expect("kept program");
        assert!(
            text.contains(&format!("shared memory abstraction: {sma}\n")),
            "{}",
            file.display()
        );
        let status = std::process::Command::new(&cbmc)
            .arg(file)
            .output()
            .expect("CBMC runs")
            .status;
        assert_eq!(status.code(), Some(10), "cbmc {}", file.display());
    }
    let (code, stdout, _) = verify(
        &racy,
        &[
            "--tso",
            "--color",
            "never",
            "--rounds",
            "4",
            "--keep",
            kept.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 10);
    assert!(
        stdout.contains(&format!(
            "kept: {}; the run under SC's: {}",
            kept.display(),
            sc_kept.display()
        )),
        "{stdout}"
    );

    let alone = directory.path().join("alone.c");
    let (code, stdout, _) = verify(
        &racy,
        &[
            "--tso",
            "--rounds",
            "4",
            "--no-sc-run",
            "--keep",
            alone.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10);
    assert_eq!(json(&stdout)["kept"]["sc_program"], Value::Null, "{stdout}");
    assert!(alone.exists() && !directory.path().join("alone.sc.c").exists());

    let input = program(&directory, "input.sc.c", READ_IN_TURN);
    let (code, stdout, _) = verify(
        &input,
        &[
            "--tso",
            "--keep",
            directory.path().join("input.c").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(
        json(&stdout)["message"]
            .as_str()
            .unwrap_or("")
            .contains("is the input file"),
        "{stdout}"
    );
    // without the run under SC there is no companion to refuse
    let (code, stdout, _) = verify(
        &input,
        &[
            "--tso",
            "--rounds",
            "4",
            "--no-sc-run",
            "--keep",
            directory.path().join("input.c").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&input).expect("input"),
        READ_IN_TURN
    );
}

/// CBMC checks lazysma's own `.c` file, whatever `--keep` names (CBMC
/// refuses a name without `.c`); the kept copies are the programs checked.
#[test]
fn keep_copies_the_programs_to_any_name_and_cbmc_checks_its_own_file() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let kept = directory.path().join("kept.txt");
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &[
            "--tso",
            "--keep",
            kept.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}{stderr}");
    let report = json(&stdout);
    let sc_kept = directory.path().join("kept.txt.sc.c");
    assert_eq!(
        report["kept"]["program"],
        kept.display().to_string(),
        "{stdout}"
    );
    assert_eq!(
        report["kept"]["sc_program"],
        sc_kept.display().to_string(),
        "{stdout}"
    );
    assert!(
        std::fs::read_to_string(&kept)
            .expect("kept")
            .contains("shared memory abstraction: etso\n")
    );
    assert!(
        std::fs::read_to_string(&sc_kept)
            .expect("kept under SC")
            .contains("shared memory abstraction: sc\n")
    );
}

/// `--keep` in a missing directory fails as `translate -o` does: exit 2,
/// the path the user gave, no temporary file's name.
#[test]
fn a_keep_path_that_cannot_be_written_is_an_environment_failure_like_an_output() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let kept = directory.path().join("nodir").join("k.c");
    let arguments = [
        "--cbmc",
        "/nonexistent/cbmc",
        "--keep",
        kept.to_str().unwrap(),
    ];
    let (code, stdout, stderr) = verify(&example("store_buffering.c"), &arguments);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: cannot write {}: No such file or directory (os error 2)\n",
            kept.display()
        )
    );
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[&arguments[..], &["--format", "json"]].concat(),
    );
    assert_eq!(code, 2);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "backend-error");
    assert_eq!(
        report["message"],
        format!(
            "cannot write {}: No such file or directory (os error 2)",
            kept.display()
        )
    );
}

#[test]
fn a_try_lock_of_a_mutex_its_own_thread_holds_fails_and_is_confirmed() {
    if !require_cbmc() {
        return;
    }
    // a normal mutex's try-lock by its holder fails with EBUSY; the native
    // check took the failure for one that no other thread explained (exit 4)
    let directory = tempfile::tempdir().expect("temporary directory");
    let source = "#include <assert.h>\n#include <pthread.h>\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nint main(void) {\n  pthread_mutex_lock(&m);\n  assert(pthread_mutex_trylock(&m) == 0);\n  return 0;\n}\n";
    let file = program(&directory, "relock.c", source);
    for sma in [
        ["--sc", "--sma", "sc"],
        ["--tso", "--sma", "etso"],
        ["--tso", "--sma", "tso_ref"],
        ["--pso", "--sma", "epso"],
        ["--pso", "--sma", "pso_ref"],
    ] {
        let (code, stdout, stderr) = verify(
            &file,
            &[&sma[..], &["--no-sc-run", "--color", "never"]].concat(),
        );
        assert_eq!(code, 10, "{sma:?}: {stdout}{stderr}");
        assert!(
            stdout.contains("try-lock m fails: its own thread holds it"),
            "{sma:?}: {stdout}"
        );
    }
}

#[test]
fn a_join_after_more_allocations_than_the_heap_blocks_is_a_warning() {
    if !require_cbmc() {
        return;
    }
    // main allocates one node and each of two threads one more: after the
    // second join every execution has made 3 allocations, past the default
    // --nmalloc 2, so the assertion after it is never reached
    let directory = tempfile::tempdir().unwrap();
    let program = program(
        &directory,
        "joined_heap.c",
        "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\nstruct node { int value; struct node *next; };\n\
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nstruct node *top;\nvoid *push(void *arg) {\n  struct node *n = malloc(sizeof(struct node));\n\
  n->value = 1;\n  pthread_mutex_lock(&m);\n  n->next = top;\n  top = n;\n  pthread_mutex_unlock(&m);\n  return 0;\n}\n\
int main(void) {\n  pthread_t a, b;\n  top = malloc(sizeof(struct node));\n  top->next = 0;\n  pthread_create(&a, 0, push, 0);\n\
  pthread_create(&b, 0, push, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(top->next->next->next != 0);\n  return 0;\n}\n",
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this join within --nmalloc 2"
    );
    assert_eq!(warning["line"], 23);
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("at least 3")),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--nmalloc", "3", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["property"]["line"], 24);
    assert_eq!(report["warnings"], Value::Array(Vec::new()));
}

#[test]
fn a_thread_created_after_its_creators_allocations_starts_with_them() {
    if !require_cbmc() {
        return;
    }
    // main allocates 2 blocks before it creates the worker, whose own
    // allocation is the third: past the default --nmalloc 2, the worker's
    // assertion is never reached, and the warning says so at its malloc
    let directory = tempfile::tempdir().unwrap();
    let program = program(
        &directory,
        "prefilled_heap.c",
        "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\nint *a, *b, *c;\nvoid *worker(void *arg) {\n\
  c = malloc(sizeof(int));\n  *c = 3;\n  assert(*c == 4);\n  return 0;\n}\nint main(void) {\n  pthread_t t;\n\
  a = malloc(sizeof(int));\n  b = malloc(sizeof(int));\n  pthread_create(&t, 0, worker, 0);\n  pthread_join(t, 0);\n  return 0;\n}\n",
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this allocation within --nmalloc 2"
    );
    assert_eq!(warning["line"], 6);
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("at least 3")),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--nmalloc", "3", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["property"]["line"], 8);
    assert_eq!(report["warnings"], Value::Array(Vec::new()));
}

/// Two workers that allocate two blocks each and publish one: four
/// allocations in all, none of them cut off statically at --nmalloc 2 in
/// a worker, but the second worker's are after main's first join.
const TWO_BLOCKS_EACH: &str = "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\nint *slot[2];\n\
void *worker(void *arg) {\n  int *p = malloc(sizeof(int));\n  int *q = malloc(sizeof(int));\n  *p = 1;\n  *q = 2;\n  slot[(long)arg] = p;\n  return 0;\n}\n\
int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, worker, (void *)0);\n  pthread_create(&b, 0, worker, (void *)1);\n\
  pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(PROPERTY);\n  return 0;\n}\n";

#[test]
fn nmalloc_auto_gives_every_allocation_a_block_and_the_safe_report_drops_the_heap() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = program(&directory, "two_blocks_each.c", TWO_BLOCKS_EACH);
    // --nmalloc 2: the second join is past the heap, and the report says
    // how to get enough
    let (code, stdout, _) = verify(
        &file,
        &[
            "--sc",
            "-D",
            "PROPERTY=slot[0] != slot[1]",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this join within --nmalloc 2"
    );
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("--nmalloc auto")),
        "{stdout}"
    );
    assert!(
        report["sufficient_nmalloc"].is_null(),
        "a heap bound cut code: {stdout}"
    );
    // auto: four blocks, nothing cut, and heap leaves the safe note
    for model in ["--sc", "--tso", "--pso"] {
        let (code, stdout, stderr) = verify(
            &file,
            &[
                model,
                "-D",
                "PROPERTY=slot[0] != slot[1]",
                "--nmalloc",
                "auto",
                "--color",
                "never",
            ],
        );
        assert_eq!(code, 0, "{model}: {stdout}{stderr}");
        assert!(
            stdout.contains("nmalloc 4, heap block 1"),
            "{model}: {stdout}"
        );
        assert!(!stdout.contains("more heap"), "{model}: {stdout}");
        assert!(
            stdout.contains("nmalloc 4)") || stdout.contains("nmalloc 4;"),
            "{model}: {stdout}"
        );
        assert!(!stderr.contains("warning"), "{model}: {stderr}");
    }
    // the property after both joins is checked: a false one fails
    let (code, stdout, _) = verify(
        &file,
        &[
            "--tso",
            "-D",
            "PROPERTY=slot[0] == slot[1]",
            "--nmalloc",
            "auto",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["bounds"]["nmalloc"], 4, "{stdout}");
    assert_eq!(report["sufficient_nmalloc"], 4, "{stdout}");
    assert_eq!(report["property"]["line"], 19, "{stdout}");
    // more blocks than the threads can take: the SMA gets four, and the
    // report keeps the number asked for
    let (code, stdout, _) = verify(
        &file,
        &[
            "--sc",
            "-D",
            "PROPERTY=slot[0] != slot[1]",
            "--nmalloc",
            "9",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    assert_eq!(
        (
            report["bounds"]["nmalloc"].as_u64(),
            report["sufficient_nmalloc"].as_u64()
        ),
        (Some(9), Some(4)),
        "{stdout}"
    );
    let translated = directory.path().join("seq.c");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lazysma"))
        .args([
            "translate",
            file.to_str().expect("utf-8 path"),
            "--tso",
            "-D",
            "PROPERTY=1",
            "--nmalloc",
            "9",
            "-o",
        ])
        .arg(&translated)
        .output()
        .expect("lazysma runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&translated).expect("the translation");
    assert!(text.contains("#define SMA_HEAP_BLOCKS 4\n"), "{text}");
    assert!(text.contains(" * no execution needs more than 4 heap blocks (a larger --nmalloc cuts off nothing more)\n"), "{text}");
    assert!(
        text.contains(
            " * so the SMA below has 4 heap blocks: the same executions, a smaller formula\n"
        ),
        "{text}"
    );
}

#[test]
fn the_sarif_log_carries_the_violation_its_witness_and_its_fence() {
    if !require_cbmc() {
        return;
    }
    let file = example("store_buffering.c");
    let (code, stdout, _) = verify(&file, &["--tso", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    let (code, stdout, stderr) = verify(&file, &["--tso", "--format", "sarif"]);
    assert_eq!(code, 10, "{stdout}{stderr}");
    assert!(stderr.is_empty(), "a document alone: {stderr}");
    let log = json(&stdout);
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "lazysma");
    assert_eq!(run["invocations"][0]["exitCode"], 10);
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    assert_eq!(run["properties"]["verdict"], "violation");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{stdout}");
    let result = &results[0];
    assert_eq!(
        (result["ruleId"].as_str(), result["level"].as_str()),
        (Some("assertion"), Some("error"))
    );
    assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "assertion");
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], report["property"]["line"], "{stdout}");
    // relative to the repository root (tests/sarif_locations.rs: more)
    let artifact = &result["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "examples/store_buffering.c", "{stdout}");
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%", "{stdout}");
    // the witness, step by step, in the interleaving's order
    let steps = report["witness"]["steps"]
        .as_array()
        .expect("witness steps");
    let flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .expect("a thread flow");
    assert_eq!(flow.len(), steps.len());
    for (location, step) in flow.iter().zip(steps) {
        assert_eq!(location["executionOrder"], step["step"]);
        assert_eq!(
            location["location"]["physicalLocation"]["region"]["startLine"],
            step["line"]
        );
        let text = location["location"]["message"]["text"]
            .as_str()
            .expect("a message");
        assert_eq!(
            text,
            format!(
                "{}: {}",
                step["thread"]["name"].as_str().expect("name"),
                step["effect"].as_str().expect("effect")
            )
        );
    }
    // the fences of the diagnosis as fixes, each placed once
    let fences = report["diagnosis"]["fences"].as_array().expect("fences");
    let fixes = result["fixes"].as_array().expect("fixes");
    assert!(!fixes.is_empty() && fixes.len() <= fences.len(), "{stdout}");
    let replacement = &fixes[0]["artifactChanges"][0]["replacements"][0];
    assert_eq!(
        replacement["insertedContent"]["text"],
        " __sync_synchronize();"
    );
    assert_eq!(
        replacement["deletedRegion"]["startLine"],
        fences[0]["after_line"]
    );
    assert_eq!(
        replacement["deletedRegion"]["startColumn"].as_u64(),
        fences[0]["after_column"].as_u64().map(|column| column + 1)
    );
    assert!(
        result["message"]["text"].as_str().is_some_and(
            |text| text.starts_with("Violation under TSO: the assertion does not hold")
        )
    );
    // bad input: a failed invocation that says where
    let directory = tempfile::tempdir().expect("temporary directory");
    let bad = program(&directory, "bad.c", "int main(void) {\n  int x = ;\n}\n");
    let (code, stdout, _) = verify(&bad, &["--format", "sarif"]);
    assert_eq!(code, 1, "{stdout}");
    let log = json(&stdout);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert_eq!(log["runs"][0]["results"], Value::Array(Vec::new()));
}

/// Two threads push a node each, filled in before `PUBLISH` links it; a
/// third reads the top node's value.
const PUBLISHED_NODES: &str = "#include <pthread.h>\n#include <stdlib.h>\n#include <assert.h>\n\
struct node { int value; struct node *next; };\nstruct node *top;\n\
void *push(void *arg) {\n  struct node *n = malloc(sizeof *n);\n  n->value = 1;\n  n->next = 0;\n  PUBLISH;\n  return 0;\n}\n\
void *peek(void *arg) {\n  struct node *p = top;\n  if (p) assert(p->value == 1);\n  return 0;\n}\n\
int main(void) {\n  pthread_t a, b, c;\n  pthread_create(&a, 0, push, 0);\n  pthread_create(&b, 0, push, 0);\n\
  pthread_create(&c, 0, peek, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n  pthread_join(c, 0);\n  return 0;\n}\n";

#[test]
fn a_node_filled_in_before_it_is_published_is_private_until_then() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let cases = [
        // a plain store: the node's stores may reach memory after it under PSO
        ("top = n", [0, 0, 10]),
        ("__atomic_store_n(&top, n, __ATOMIC_RELEASE)", [0, 0, 0]),
        ("__sync_bool_compare_and_swap(&top, 0, n)", [0, 0, 0]),
    ];
    for (index, (publish, codes)) in cases.iter().enumerate() {
        let path = program(
            &directory,
            &format!("nodes{index}.c"),
            &PUBLISHED_NODES.replace("PUBLISH", publish),
        );
        for (model, code) in ["--sc", "--tso", "--pso"].iter().zip(codes) {
            let (actual, stdout, stderr) = verify(&path, &[model, "--nmalloc", "auto"]);
            assert_eq!(actual, *code, "{publish} {model}: {stdout}{stderr}");
        }
        // the stores that fill the node in take the least timestamp where
        // the node is private until it is published
        for (model, private) in [("--tso", true), ("--pso", index > 0)] {
            let output = directory.path().join(format!("nodes{index}{model}.c"));
            let done = support::lazysma()
                .arg(&path)
                .arg(model)
                .arg("-o")
                .arg(&output)
                .output()
                .unwrap();
            assert!(
                done.status.success(),
                "{}",
                String::from_utf8_lossy(&done.stderr)
            );
            let text = std::fs::read_to_string(&output).unwrap();
            let filled = text.lines().filter(|line| {
                line.contains("/* 8: n->value = 1; */") || line.contains("/* 9: n->next = 0; */")
            });
            let unobserved: Vec<bool> = filled
                .map(|line| line.trim_start().starts_with("sma_write_unobserved("))
                .collect();
            assert_eq!(unobserved, vec![private; 4], "{publish} {model}:\n{text}");
        }
    }
}

/// Store buffering on a `float` and a `double`; with `FENCE` defined each
/// thread fences between its store and its load.
const FLOATING_STORE_BUFFERING: &str = "#include <pthread.h>
#include <assert.h>
#ifdef FENCE
#define BETWEEN() __sync_synchronize()
#else
#define BETWEEN() (void)0
#endif
float x;
double y;
float r1;
double r2;
void *left(void *arg) { x = 1.5f; BETWEEN(); r1 = (float)y; return 0; }
void *right(void *arg) { y = 2.5; BETWEEN(); r2 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, left, 0);
  pthread_create(&b, 0, right, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(r1 == 2.5f || r2 == 1.5);
  return 0;
}
";

#[test]
fn floating_store_buffering_is_found_under_tso_and_pso_and_checked_natively() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let path = program(&directory, "floating_sb.c", FLOATING_STORE_BUFFERING);
    let (code, stdout, stderr) = verify(&path, &["--sc", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for model in ["--tso", "--pso"] {
        // without --bitwidth, shared memory is as wide as the double needs
        let (code, stdout, stderr) = verify(&path, &[model, "--format", "json"]);
        assert_eq!(code, 10, "{model}: {stdout}{stderr}");
        let report = json(&stdout);
        assert_eq!(report["verdict"], "violation", "{stdout}");
        assert_eq!(report["bounds"]["bitwidth"], 64, "{stdout}");
        assert_eq!(report["check"]["realisable"], true, "{stdout}");
        let steps = report["witness"]["steps"]
            .as_array()
            .expect("witness steps");
        let value_of = |kind: &str, location: &str| {
            steps
                .iter()
                .find(|s| s["kind"] == kind && s["location"] == location)
                .map(|s| s["value"].clone())
        };
        // JSON carries the numbers as C prints them, the stores' and the loads'
        assert_eq!(
            value_of("store-buffered", "x"),
            Some(Value::from("1.5")),
            "{stdout}"
        );
        assert_eq!(
            value_of("load-from-memory", "y"),
            Some(Value::from("0.0")),
            "{stdout}"
        );
        let (code, stdout, stderr) = verify(&path, &[model, "--bitwidth", "64", "-D", "FENCE"]);
        assert_eq!(code, 0, "{model} fenced: {stdout}{stderr}");
        // a width given too narrow for the double is bad input at its declaration
        let (code, stdout, stderr) =
            verify(&path, &[model, "--bitwidth", "32", "--color", "never"]);
        assert_eq!(code, 1, "{model} at 32 bits: {stdout}{stderr}");
        assert!(
            stderr.contains("a `double` in shared memory needs --bitwidth 64 or more (it is 32)"),
            "{stderr}"
        );
        assert!(stderr.contains("floating_sb.c:9:8"), "{stderr}");
    }
    for sma in ["tso_ref", "pso_ref"] {
        let (code, stdout, stderr) = verify(&path, &["--sma", sma, "--bitwidth", "64"]);
        assert_eq!(code, 10, "{sma}: {stdout}{stderr}");
    }
}

/// Conversions between 64-bit integers and floating values through shared
/// memory; the 64-bit initial value comes before the first `double`.
const WIDE_CONVERSIONS: &str = "#include <assert.h>
#include <stdint.h>
#include <pthread.h>
long long big = 9007199254740993LL;
double as_double;
uint64_t u64;
unsigned u = 4000000000u;
float uf;
void *t(void *arg) { as_double = big; u64 = (uint64_t)1e19; uf = u; return 0; }
int main(void) {
  pthread_t th;
  pthread_create(&th, 0, t, 0);
  pthread_join(th, 0);
  assert(as_double == 9007199254740992.0);
  assert(u64 == 10000000000000000000ULL);
  assert(uf == 4000000000.0f);
  long long back = as_double;
  assert(back == EXPECTED);
  return 0;
}
";

#[test]
fn without_a_bit_width_shared_memory_holds_a_double_and_the_64_bit_values_before_it() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let path = program(&directory, "wide_conversions.c", WIDE_CONVERSIONS);
    let (code, stdout, stderr) = verify(
        &path,
        &[
            "--tso",
            "-D",
            "EXPECTED=9007199254740992LL",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(json(&stdout)["bounds"]["bitwidth"], 64, "{stdout}");
    // 2^53 + 1 rounds to 2^53 in a double
    let (code, stdout, stderr) = verify(&path, &["--tso", "-D", "EXPECTED=9007199254740993LL"]);
    assert_eq!(code, 10, "{stdout}{stderr}");
    // a width given is kept: the initial value does not fit it
    let (code, stdout, stderr) = verify(
        &path,
        &[
            "--tso",
            "-D",
            "EXPECTED=0",
            "--bitwidth",
            "32",
            "--color",
            "never",
        ],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "the initial value 9007199254740993 does not fit in shared memory of --bitwidth 32"
        ),
        "{stderr}"
    );
}

#[test]
fn the_seqlock_example_gives_the_verdicts_its_comment_promises() {
    if !require_cbmc() {
        return;
    }
    let seqlock = example("seqlock.c");
    for (arguments, expected) in [
        (&["--tso"][..], 0),
        (&["--pso"][..], 10),
        (&["--pso", "-D", "FENCED"][..], 0),
    ] {
        let (code, stdout, stderr) = verify(&seqlock, &[arguments, &["--color", "never"]].concat());
        assert_eq!(code, expected, "{arguments:?}: {stdout}{stderr}");
        if expected == 10 {
            // the torn pair as numbers (one new, one old: which one the
            // solver picks), and the fence that forbids it
            assert!(
                stdout.contains("reads x = ") && stdout.contains("reads y = "),
                "{stdout}"
            );
            assert!(
                ["reads x = 3.0", "reads y = 1.5"]
                    .iter()
                    .any(|new| stdout.contains(new)),
                "{stdout}"
            );
            assert!(
                stdout.contains(" = 0.0 (initial value) from memory"),
                "{stdout}"
            );
            assert!(stdout.contains("insert `__atomic_thread_fence(__ATOMIC_RELEASE);` right after `atomic_store_explicit(&sequence, s + 1"), "{stdout}");
        }
    }
}
