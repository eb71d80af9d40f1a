//! Unit tests of the text report.

use super::*;

#[test]
fn clipping_and_file_names() {
    assert_eq!(clip("abc", 5), "abc");
    assert_eq!(clip("abcdefgh", 5), "abcd…");
    assert_eq!(short_file("a/b/c.c"), "c.c");
    assert_eq!(short_file("c.c"), "c.c");
}

fn safe_report(
    sma: SmaImplementation,
    bounds: crate::options::Bounds,
    unwinding_assertions: bool,
) -> VerifyReport {
    VerifyReport {
        goal: super::super::document::Goal::Assertions,
        lazysma: super::super::document::Invocation {
            version: "0.1.0",
            arguments: Vec::new(),
        },
        verdict: Verdict::Safe,
        exit_code: 0,
        file: "p.c".into(),
        model: crate::options::MemoryModel::Tso,
        sma,
        bounds,
        unwinding_assertions,
        sufficient_bounds: None,
        sufficient_nmalloc: None,
        cuts_wide_values: false,
        engine: crate::report::kinds::AnsweringEngine::Cbmc,
        native: None,
        cbmc: None,
        found_under_sc: false,
        property: None,
        check: super::super::document::CheckReport {
            performed: false,
            model: crate::options::MemoryModel::Tso,
            realisable: None,
            reason: None,
            false_sentences: Vec::new(),
        },
        witness: None,
        diagnosis: None,
        message: None,
        diagnostic: None,
        warnings: Vec::new(),
        kept: None,
        reach: None,
        deadlock: super::super::document::DeadlockCheck::Checked,
        has_loops: true,
        spin_loops: Vec::new(),
        all_violations: None,
        split: None,
    }
}

#[test]
fn the_safe_note_lists_the_bounds_that_apply() {
    let bounds = crate::options::Bounds::default();
    assert_eq!(
        safe_note(&safe_report(SmaImplementation::Sc, bounds.clone(), false)),
        "(bugs that need more rounds or loop iterations are not ruled out)"
    );
    assert_eq!(
        safe_note(&safe_report(SmaImplementation::Etso, bounds.clone(), true)),
        "(every loop exits within --unwind; bugs that need more rounds, buffer space or a later memory clock are not ruled out)"
    );
    let narrow = crate::options::Bounds {
        bitwidth: 8,
        heap_block: Some(8),
        ..bounds
    };
    assert_eq!(
        safe_note(&safe_report(SmaImplementation::TsoReference, narrow, false)),
        "(bugs that need more rounds, loop iterations, buffer space, more heap or values wider than 8 bits are not ruled out)"
    );
}

#[test]
fn the_safe_note_drops_the_bounds_that_are_enough_and_names_those_that_are_not() {
    use crate::passes::sufficient::SufficientBounds;
    let bounds = crate::options::Bounds::default(); // qsize 2, maxclock 3
    let with = |sma, qsize, maxclock| VerifyReport {
        sufficient_bounds: Some(SufficientBounds { qsize, maxclock }),
        cuts_wide_values: false,
        ..safe_report(sma, bounds.clone(), false)
    };
    assert_eq!(
        safe_note(&with(SmaImplementation::Etso, 2, Some(3))),
        "(bugs that need more rounds or loop iterations are not ruled out; no execution of this program needs more than qsize 2, maxclock 3)"
    );
    assert_eq!(
        safe_note(&with(SmaImplementation::Epso, 2, Some(4))),
        "(bugs that need more rounds, loop iterations or a later memory clock are not ruled out; no execution of this program needs more than qsize 2, maxclock 4; --maxclock auto sets it)"
    );
    assert_eq!(
        safe_note(&with(SmaImplementation::Etso, 5, Some(9))),
        "(bugs that need more rounds, loop iterations, buffer space or a later memory clock are not ruled out; no execution of this program needs more than qsize 5, maxclock 9; --qsize auto --maxclock auto set them)"
    );
    assert_eq!(
        safe_note(&with(SmaImplementation::TsoReference, 3, None)),
        "(bugs that need more rounds, loop iterations or buffer space are not ruled out; no execution of this program needs more than qsize 3; --qsize auto sets it)"
    );
}

#[test]
fn the_safe_note_drops_more_heap_when_the_heap_blocks_are_enough() {
    let allocating = crate::options::Bounds {
        nmalloc: 3,
        heap_block: Some(1),
        ..crate::options::Bounds::default()
    };
    let with = |sma, sufficient_nmalloc| VerifyReport {
        sufficient_nmalloc,
        ..safe_report(sma, allocating.clone(), false)
    };
    assert_eq!(
        safe_note(&with(SmaImplementation::Sc, Some(3))),
        "(bugs that need more rounds or loop iterations are not ruled out; no execution of this program needs more than nmalloc 3)"
    );
    assert_eq!(
        safe_note(&with(SmaImplementation::Sc, Some(4))),
        "(bugs that need more rounds, loop iterations or more heap are not ruled out; no execution of this program needs more than nmalloc 4; --nmalloc auto sets it)"
    );
    assert_eq!(
        safe_note(&with(SmaImplementation::Sc, None)),
        "(bugs that need more rounds, loop iterations or more heap are not ruled out)"
    );
    // a program that allocates nothing has no heap to speak of
    let nothing = VerifyReport {
        sufficient_nmalloc: Some(0),
        ..safe_report(
            SmaImplementation::Sc,
            crate::options::Bounds::default(),
            false,
        )
    };
    assert_eq!(
        safe_note(&nothing),
        "(bugs that need more rounds or loop iterations are not ruled out)"
    );
}

#[test]
fn a_safe_verdict_with_unreached_code_says_so_in_its_headline() {
    let bounds = crate::options::Bounds::default();
    let clean = render(
        &safe_report(SmaImplementation::Etso, bounds.clone(), false),
        false,
    );
    assert!(
        clean.starts_with("No violation under TSO within the bounds\n"),
        "{clean}"
    );
    let warning = |line| super::super::document::WarningReport {
        message: "no execution gets past this loop within its unwinding bound of 2".into(),
        file: "dir/init.c".into(),
        line,
        column: 3,
        help: None,
        cut_off: None,
    };
    let report = VerifyReport {
        warnings: vec![warning(12)],
        ..safe_report(SmaImplementation::Etso, bounds.clone(), false)
    };
    let text = render(&report, false);
    assert!(
        text.starts_with(
            "No violation under TSO in the code the bounds reached; the code after init.c:12 was not checked (see the warning)\n"
        ),
        "{text}"
    );
    assert!(!text.contains("within the bounds\n"), "{text}");
    let report = VerifyReport {
        warnings: vec![warning(12), warning(20)],
        ..safe_report(SmaImplementation::Etso, bounds, false)
    };
    assert!(
        render(&report, false)
            .contains("the code after init.c:12, init.c:20 was not checked (see the warnings)")
    );
}

#[test]
fn the_headline_says_what_fails_unless_it_is_an_assertion() {
    let violation = |kind: PropertyKind, description: &str| VerifyReport {
        verdict: Verdict::Violation,
        property: Some(PropertyReport {
            kind,
            ..PropertyReport::new("thread1_t.assertion.1", description)
        }),
        ..safe_report(
            SmaImplementation::Etso,
            crate::options::Bounds::default(),
            false,
        )
    };
    let text = render(
        &violation(
            PropertyKind::ArrayIndexOutOfBounds,
            "oob.c:5: array index out of bounds: arr[i + 3] = 1;",
        ),
        false,
    );
    assert!(
        text.starts_with(
            "Violation under TSO: array index out of bounds (property thread1_t.assertion.1)\n"
        ),
        "{text}"
    );
    let text = render(
        &violation(PropertyKind::ErrorCall, "e.c:9: reach_error();"),
        false,
    );
    assert!(
        text.starts_with("Violation under TSO: the error call is reached (property "),
        "{text}"
    );
    let text = render(
        &violation(PropertyKind::Assertion, "a.c:3: assert(x == 1);"),
        false,
    );
    assert!(
        text.starts_with("Violation under TSO (property thread1_t.assertion.1)\n"),
        "{text}"
    );
}

#[test]
fn colours_only_when_asked() {
    let on = Style { color: true };
    let off = Style { color: false };
    assert!(on.red("x").contains("\x1b["));
    assert_eq!(off.red("x"), "x");
}

/// A report of two violations of `--all-violations`, its list `complete`
/// or stopped at the time limit.
fn two_violations(complete: bool) -> VerifyReport {
    use super::super::document::{AllViolations, ViolationReport};
    let mut report = safe_report(
        SmaImplementation::Etso,
        crate::options::Bounds::default(),
        false,
    );
    report.conclude(Verdict::Violation);
    report.property = Some(PropertyReport::new("main.assertion.1", "p.c:3: assert(x);"));
    let mut further = ViolationReport::of(&report);
    further.property = Some(PropertyReport::new("main.assertion.2", "p.c:4: assert(y);"));
    report.all_violations = Some(AllViolations {
        complete,
        stopped: (!complete).then(|| "the time limit was reached".to_string()),
        count: 2,
        further: vec![further],
    });
    report
}

#[test]
fn every_violation_is_shown_in_turn_and_an_early_stop_is_told() {
    let text = render(&two_violations(true), false);
    let first = text.find("Violation 1 of 2").expect("the first header");
    let second = text.find("Violation 2 of 2").expect("the second header");
    let own = text.find("(property main.assertion.1)").expect("the first");
    let other = text
        .find("(property main.assertion.2)")
        .expect("the second");
    assert!(first < own && own < second && second < other, "{text}");
    assert!(text.contains("all violations: 2 properties fail; the search covered"));
    assert!(!text.contains("may be incomplete"));
    // one footer for both
    assert_eq!(text.matches("bounds: ").count(), 1, "{text}");
    let stopped = render(&two_violations(false), false);
    assert!(
        stopped.contains("(the time limit was reached): the list may be incomplete"),
        "{stopped}"
    );
}

#[test]
fn a_diagnosis_that_failed_its_audit_is_an_internal_error_that_names_its_false_sentences() {
    let mut report = safe_report(
        SmaImplementation::Etso,
        crate::options::Bounds::default(),
        false,
    );
    report.check.performed = true;
    report.check.realisable = Some(true);
    report.check.false_sentences =
        vec!["reordering 1 (store-store): TSO does not reorder a store with a later store".into()];
    report.conclude(Verdict::CheckFailed);
    let text = render(&report, false);
    assert!(text.contains("INTERNAL ERROR"), "{text}");
    assert!(
        text.contains("  reordering 1 (store-store): TSO does not reorder"),
        "{text}"
    );
    assert!(!text.contains("NOT realisable"), "{text}");
    assert_eq!(report.exit_code, 4);
}
