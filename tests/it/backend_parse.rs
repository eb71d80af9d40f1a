//! Parsing of recorded CBMC 5.12 `--json-ui --trace` output (the samples in
//! `tests/fixtures/backend/`, re-recorded by `regenerate.sh` there) and the
//! outcomes decided from them.

use lazysma::backend::{
    Accessor, CbmcOutput, ExitInfo, MessageKind, Outcome, PropertyStatus, StepKind, Trace, decide,
    parse_cbmc_output,
};
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "backend",
        name,
    ]
    .iter()
    .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn parsed(name: &str) -> CbmcOutput {
    parse_cbmc_output(&fixture(name)).unwrap_or_else(|e| panic!("{name} does not parse: {e}"))
}

fn violated(name: &str, exit_code: i32) -> (lazysma::backend::Property, Trace) {
    match decide(&ExitInfo::exited(exit_code), &fixture(name), "").0 {
        Outcome::Violated { property, trace } => (property, trace),
        other => panic!("{name}: expected a violation, got {other:?}"),
    }
}

fn integer_of(trace: &Trace, lhs: &str) -> Option<i128> {
    trace.last_value_of(lhs).and_then(|value| value.integer)
}

#[test]
fn safe_run_is_safe_with_every_property_success() {
    let output = parsed("safe.json");
    assert_eq!(output.program.as_deref(), Some("CBMC 5.12 (cbmc-5.12)"));
    let properties = output.properties.as_ref().expect("result entry");
    assert_eq!(properties.len(), 1);
    assert_eq!(properties[0].id, "main.assertion.1");
    assert_eq!(properties[0].description, "x is one");
    assert_eq!(properties[0].status, PropertyStatus::Success);
    assert_eq!(output.cprover_status.as_deref(), Some("success"));
    assert!(
        output
            .messages
            .iter()
            .any(|m| m.text == "VERIFICATION SUCCESSFUL")
    );
    assert!(output.first_failure_trace.is_none());
    assert_eq!(
        decide(&ExitInfo::exited(0), &fixture("safe.json"), "").0,
        Outcome::Safe
    );
}

#[test]
fn safe_results_with_a_violation_exit_code_are_not_safe() {
    let outcome = decide(&ExitInfo::exited(10), &fixture("safe.json"), "").0;
    assert!(
        matches!(
            outcome,
            Outcome::ToolError {
                exit_code: Some(10),
                ..
            }
        ),
        "{outcome:?}"
    );
}

#[test]
fn failing_assertion_gives_property_and_trace_with_global_values() {
    let (property, trace) = violated("fail.json", 10);
    assert_eq!(property.id, "main.assertion.1");
    assert_eq!(property.description, "y is never eight");
    assert_eq!(property.status, PropertyStatus::Failure);
    let location = property.location.as_ref().expect("location of the failure");
    assert_eq!(location.file.as_deref(), Some("fail.c"));
    assert_eq!(location.line, Some(8));
    assert_eq!(location.function.as_deref(), Some("main"));

    assert_eq!(integer_of(&trace, "x"), Some(5));
    assert_eq!(integer_of(&trace, "y"), Some(8));
    assert_eq!(integer_of(&trace, "a"), Some(3));
    let y_assignment = trace
        .visible_steps()
        .find(|s| s.kind == StepKind::Assignment && s.lhs.as_deref() == Some("y"))
        .expect("visible assignment to y");
    assert_eq!(y_assignment.location.as_ref().and_then(|l| l.line), Some(6));
    assert_eq!(y_assignment.thread, 0);
    let value = y_assignment.value.as_ref().expect("value");
    assert_eq!(value.data.as_deref(), Some("8"));
    assert_eq!(value.c_type.as_deref(), Some("signed int"));
    assert_eq!(value.width, Some(32));

    // The static initialisation `int y = 3;` is a hidden step before it.
    let initialisation = trace
        .steps
        .iter()
        .find(|s| s.kind == StepKind::Assignment && s.lhs.as_deref() == Some("y"))
        .expect("initialisation of y");
    assert!(initialisation.hidden);
    assert_eq!(
        initialisation.value.as_ref().and_then(|v| v.integer),
        Some(3)
    );

    let last = trace.steps.last().expect("non-empty trace");
    assert_eq!(last.kind, StepKind::Failure);
    assert_eq!(last.property.as_deref(), Some("main.assertion.1"));
    assert_eq!(last.reason.as_deref(), Some("y is never eight"));
    assert!(
        trace
            .steps
            .iter()
            .any(|s| s.kind == StepKind::FunctionCall && s.function.as_deref() == Some("main"))
    );
}

#[test]
fn warnings_are_kept_with_their_location() {
    let output = parsed("fail.json");
    let warning = output.warnings().next().expect("a warning");
    assert!(warning.text.contains("nondet_int"), "{}", warning.text);
    assert_eq!(warning.location.as_ref().and_then(|l| l.line), Some(4));
    assert_eq!(warning.kind, MessageKind::Warning);
}

#[test]
fn with_several_failures_only_the_first_trace_is_kept() {
    let output = parsed("multi.json");
    let properties = output.properties.as_ref().expect("results");
    assert_eq!(properties.len(), 3);
    let failures: Vec<&str> = properties
        .iter()
        .filter(|p| p.status == PropertyStatus::Failure)
        .map(|p| p.id.as_str())
        .collect();
    assert_eq!(failures.len(), 2);
    let first = output.first_failure().expect("a failure");
    assert_eq!(first.id, failures[0]);
    let trace = output.first_failure_trace.as_ref().expect("trace");
    let failure_step = trace
        .steps
        .iter()
        .rev()
        .find(|s| s.kind == StepKind::Failure)
        .expect("failure step");
    assert_eq!(failure_step.property.as_deref(), Some(first.id.as_str()));
    assert_eq!(integer_of(trace, "g"), Some(2));
}

#[test]
fn scalar_values_of_many_types_parse() {
    let (_, trace) = violated("rich.json", 10);
    assert_eq!(integer_of(&trace, "arr[1l]"), Some(-7));
    assert_eq!(integer_of(&trace, "s.f"), Some(42));
    assert_eq!(integer_of(&trace, "s.g"), Some(200));
    assert_eq!(integer_of(&trace, "sbv"), Some(-3));
    assert_eq!(integer_of(&trace, "flag"), Some(1));
    assert_eq!(integer_of(&trace, "big"), Some(i64::MIN as i128));
    assert_eq!(integer_of(&trace, "u"), Some(u32::MAX as i128));
    let bv = trace.last_value_of("bv").expect("bv assigned");
    assert_eq!((bv.integer, bv.width), (Some(5), Some(3)));
    assert_eq!(
        bv.c_type.as_deref(),
        Some("unsigned __CPROVER_bitvector[3]")
    );
    let array_write = trace
        .assignments()
        .find(|s| s.lhs.as_deref() == Some("arr[1l]"))
        .expect("arr[1l]");
    let path = array_write.lhs_path().expect("lvalue path");
    assert_eq!(
        (path.base.as_str(), path.accessors.as_slice()),
        ("arr", [Accessor::Index(1)].as_slice())
    );
    let pointer = trace.last_value_of("p").expect("p assigned");
    assert_eq!(pointer.name, "pointer");
    assert_eq!(pointer.integer, None);
}

#[test]
fn arrays_characters_and_struct_copies_parse() {
    let (_, trace) = violated("agg.json", 10);
    let array = trace.last_value_of("loc").expect("array assignment");
    assert_eq!(array.name, "array");
    let elements: Vec<(u64, Option<i128>)> = array
        .elements
        .iter()
        .map(|(i, v)| (*i, v.integer))
        .collect();
    assert_eq!(elements, vec![(0, Some(1)), (1, Some(2))]);
    assert_eq!(integer_of(&trace, "s.c"), Some(97));
    assert_eq!(integer_of(&trace, "t.f"), Some(3));
    assert_eq!(integer_of(&trace, "ch"), Some(-5));
}

#[test]
fn parse_error_is_a_tool_error_naming_the_syntax_error() {
    let output = parsed("parse_error.json");
    assert!(output.properties.is_none());
    match decide(&ExitInfo::exited(6), &fixture("parse_error.json"), "").0 {
        Outcome::ToolError {
            exit_code, message, ..
        } => {
            assert_eq!(exit_code, Some(6));
            assert!(message.contains("syntax error before ';'"), "{message}");
            assert!(message.contains("parse_error.c:1"), "{message}");
            assert!(message.contains("PARSING ERROR"), "{message}");
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[test]
fn usage_error_output_is_not_json_but_yields_the_reason() {
    assert!(parse_cbmc_output(&fixture("usage_error.json")).is_err());
    match decide(&ExitInfo::exited(64), &fixture("usage_error.json"), "").0 {
        Outcome::ToolError {
            exit_code, message, ..
        } => {
            assert_eq!(exit_code, Some(64));
            assert!(
                message.contains("Unknown option: --no-such-option"),
                "{message}"
            );
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[test]
fn out_of_memory_is_recognised() {
    match decide(&ExitInfo::exited(6), &fixture("out_of_memory.json"), "").0 {
        Outcome::OutOfMemory { message } => assert!(message.contains("out of memory"), "{message}"),
        other => panic!("expected out of memory, got {other:?}"),
    }
}

#[test]
fn truncated_output_is_a_tool_error_with_the_stderr_tail() {
    let text = fixture("fail.json");
    let truncated = &text[..text.len() / 2];
    match decide(
        &ExitInfo::exited(10),
        truncated,
        "segmentation fault in solver",
    )
    .0
    {
        Outcome::ToolError {
            exit_code,
            stderr_tail,
            message,
        } => {
            assert_eq!(exit_code, Some(10));
            assert_eq!(stderr_tail, "segmentation fault in solver");
            assert!(message.contains("JSON"), "{message}");
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[test]
fn empty_output_is_never_safe() {
    for code in [0, 10] {
        let outcome = decide(&ExitInfo::exited(code), "", "").0;
        assert!(
            matches!(outcome, Outcome::ToolError { .. }),
            "exit {code}: {outcome:?}"
        );
    }
}
