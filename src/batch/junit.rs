//! The JUnit XML file of a batch (the format CI systems read): one
//! `testsuite` per manifest, one `testcase` per job (class name the
//! harness, name the model); an unexpected or missed violation is a
//! `failure`, a run without a verdict an `error`.

use super::job::{JobResult, Outcome};
use crate::report::graph::svg::escape;

/// The JUnit XML document of `results`, the suite named `suite`.
pub fn render(suite: &str, results: &[JobResult]) -> String {
    let count = |outcome: Outcome| {
        results
            .iter()
            .filter(|result| result.outcome() == outcome)
            .count()
    };
    let failures = count(Outcome::UnexpectedViolation) + count(Outcome::MissedViolation);
    let errors = count(Outcome::Error);
    let seconds: f64 = results.iter().map(|result| result.seconds).sum();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let totals = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\"",
        results.len()
    );
    xml.push_str(&format!("<testsuites name=\"lazysma batch\" {totals}>\n"));
    xml.push_str(&format!(
        "  <testsuite name=\"{}\" {totals} skipped=\"0\">\n",
        escape(suite)
    ));
    for result in results {
        xml.push_str(&testcase(result));
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

fn testcase(result: &JobResult) -> String {
    let open = format!(
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
        escape(&result.harness),
        escape(&result.model),
        result.seconds
    );
    let detail = || {
        let mut lines = vec![format!(
            "expected {}, verdict {} (exit {})",
            result.expected.name(),
            result.verdict,
            result.exit_code
        )];
        lines.extend(
            result
                .property
                .iter()
                .map(|property| format!("property: {property}")),
        );
        lines.extend(result.message.iter().cloned());
        escape(&lines.join("\n"))
    };
    let element = match result.outcome() {
        Outcome::AsExpected => return format!("{open}/>\n"),
        Outcome::UnexpectedViolation | Outcome::MissedViolation => "failure",
        Outcome::Error => "error",
    };
    format!(
        "{open}>\n      <{element} type=\"{}\" message=\"{}\">{}</{element}>\n    </testcase>\n",
        escape(&result.verdict),
        escape(result.outcome().name()),
        detail()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_xml_reserves() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot; ");
    }
}
