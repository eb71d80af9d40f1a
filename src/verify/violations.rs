//! `verify --all-violations`: the violations after the first, each
//! decoded, checked and explained into a copy of the report exactly as the
//! first is, then gathered into the report's list
//! ([`AllViolations`]): each property once, in the order found, and a
//! violation whose witness does not check never reported as one (its
//! `check-failed` verdict becomes the report's).

use crate::report::document::{
    AllViolations, PropertyReport, Verdict, VerifyReport, ViolationReport,
};

/// Which property a violation is, for "each property once": the C
/// function of the thread copy its id names (`thread1_worker` of
/// `thread1_worker.assertion.2`) and its description. The native engine,
/// which does not number the assertions, names them so, and the copies
/// of an assertion in an unrolled loop are one property.
pub fn property_key(id: &str, description: &str) -> (String, String) {
    let function = id.split('.').next().unwrap_or(id);
    (function.to_string(), description.to_string())
}

/// The key of a report's property ([`property_key`]).
fn key_of(property: &PropertyReport) -> (String, String) {
    property_key(&property.id, &property.description)
}

/// A further violation: `explain` fills a copy of `blank` (the report
/// as it was before the first violation was explained into it), whose
/// violation this is.
pub fn explained(blank: &VerifyReport, explain: impl FnOnce(&mut VerifyReport)) -> ViolationReport {
    let mut scratch = blank.clone();
    explain(&mut scratch);
    ViolationReport::of(&scratch)
}

/// Whether a verdict is one a violation's explanation ends with.
fn is_violation(verdict: Verdict) -> bool {
    matches!(
        verdict,
        Verdict::Violation
            | Verdict::UncheckedViolation
            | Verdict::UnwindingBound
            | Verdict::CheckFailed
    )
}

/// Puts the list into `report`, whose own violation (if any) is the first
/// found: the `further` violations without the properties met before
/// (each property once), and `stopped`, why the search ended before it
/// covered every execution. A further violation that failed its check
/// changes places with the report's own, so that the report's verdict
/// (`check-failed`, exit 4) is the one its fields show. Nothing is set
/// for a run without a verdict (a time limit before any violation, an
/// error).
pub fn gather(report: &mut VerifyReport, further: Vec<ViolationReport>, stopped: Option<String>) {
    let decided = report.verdict == Verdict::Safe || is_violation(report.verdict);
    if !decided {
        return;
    }
    let mut seen: Vec<(String, String)> = report.property.iter().map(key_of).collect();
    let mut kept: Vec<ViolationReport> = Vec::new();
    for violation in further {
        let key = violation.property.as_ref().map(key_of);
        if let Some(key) = key {
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
        }
        kept.push(violation);
    }
    if report.verdict != Verdict::CheckFailed
        && let Some(failed) = kept.iter().position(|v| v.verdict == Verdict::CheckFailed)
    {
        let own = ViolationReport::of(report);
        kept[failed].install(report);
        kept[failed] = own;
    }
    let count = match is_violation(report.verdict) {
        true => 1 + kept.len(),
        false => 0,
    };
    report.all_violations = Some(AllViolations {
        complete: stopped.is_none(),
        stopped,
        count,
        further: kept,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::document::CheckReport;

    fn violation(id: &str, description: &str, verdict: Verdict) -> ViolationReport {
        ViolationReport {
            verdict,
            property: Some(PropertyReport::new(id, description)),
            check: CheckReport {
                performed: true,
                model: crate::options::MemoryModel::Tso,
                realisable: Some(verdict != Verdict::CheckFailed),
                reason: None,
                false_sentences: Vec::new(),
            },
            witness: None,
            diagnosis: None,
            message: None,
        }
    }

    fn report_with(own: &ViolationReport) -> VerifyReport {
        let request = crate::verify::bare_request(crate::report::ReportFormat::Json, false);
        let mut report = crate::verify::empty_report(&request);
        own.install(&mut report);
        report
    }

    #[test]
    fn each_property_is_listed_once() {
        let own = violation(
            "thread0_main.assertion.1",
            "a.c:3: assert(x);",
            Verdict::Violation,
        );
        let mut report = report_with(&own);
        let further = vec![
            violation(
                "thread0_main.assertion.2",
                "a.c:3: assert(x);",
                Verdict::Violation,
            ),
            violation(
                "thread0_main.assertion.3",
                "a.c:4: assert(y);",
                Verdict::Violation,
            ),
            violation(
                "thread1_t.assertion.1",
                "a.c:4: assert(y);",
                Verdict::Violation,
            ),
            violation(
                "thread0_main.assertion.4",
                "a.c:4: assert(y);",
                Verdict::Violation,
            ),
        ];
        gather(&mut report, further, None);
        let all = report.all_violations.expect("the list");
        let ids: Vec<&str> = all
            .further
            .iter()
            .filter_map(|v| v.property.as_ref().map(|p| p.id.as_str()))
            .collect();
        assert_eq!(ids, ["thread0_main.assertion.3", "thread1_t.assertion.1"]);
        assert_eq!((all.count, all.complete), (3, true));
    }

    #[test]
    fn a_failed_check_becomes_the_reports_verdict() {
        let own = violation(
            "thread0_main.assertion.1",
            "a.c:3: assert(x);",
            Verdict::Violation,
        );
        let mut report = report_with(&own);
        let failed = violation(
            "thread0_main.assertion.2",
            "a.c:4: assert(y);",
            Verdict::CheckFailed,
        );
        gather(&mut report, vec![failed], Some("stopped".into()));
        assert_eq!(report.verdict, Verdict::CheckFailed);
        assert_eq!(report.exit_code, crate::exit::CHECK_FAILED);
        let own_id = report.property.as_ref().map(|p| p.id.as_str());
        assert_eq!(own_id, Some("thread0_main.assertion.2"));
        let all = report.all_violations.expect("the list");
        assert_eq!(all.further[0].verdict, Verdict::Violation);
        assert!(!all.complete);
        assert_eq!(all.count, 2);
    }

    #[test]
    fn a_run_without_a_verdict_has_no_list() {
        let request = crate::verify::bare_request(crate::report::ReportFormat::Json, false);
        let mut report = crate::verify::empty_report(&request);
        gather(&mut report, Vec::new(), None);
        assert!(report.all_violations.is_none());
        report.conclude(Verdict::Safe);
        gather(&mut report, Vec::new(), None);
        assert_eq!(report.all_violations.map(|all| all.count), Some(0));
    }
}
