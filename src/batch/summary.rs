//! What a batch's results say together: the summary table, one SARIF log
//! with the run of every job (each job's own SARIF, as `verify --format
//! sarif` renders it), and the exit code of the whole batch.

use super::job::{JobResult, Outcome};
use crate::exit;
use serde_json::{Value, json};

/// The summary table of `results`, one line per job and a line of totals.
pub fn table(results: &[JobResult]) -> String {
    let header = [
        "harness", "model", "expected", "verdict", "classes", "seconds", "status",
    ];
    let mut rows: Vec<[String; 7]> = vec![header.map(str::to_string)];
    for result in results {
        rows.push([
            result.harness.clone(),
            result.model.clone(),
            result.expected.name().to_string(),
            result.verdict.clone(),
            result
                .classes
                .map_or("-".to_string(), |classes| classes.to_string()),
            format!("{:.2}", result.seconds),
            result.outcome().name().to_string(),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text.push_str(&totals(results));
    text.push('\n');
    text
}

/// `N jobs: A as expected, U unexpected violations, M missed violations, E errors`.
pub fn totals(results: &[JobResult]) -> String {
    let count = |outcome| {
        results
            .iter()
            .filter(|result| result.outcome() == outcome)
            .count()
    };
    format!(
        "{} jobs: {} as expected, {} unexpected violations, {} missed violations, {} errors",
        results.len(),
        count(Outcome::AsExpected),
        count(Outcome::UnexpectedViolation),
        count(Outcome::MissedViolation),
        count(Outcome::Error)
    )
}

/// One SARIF 2.1.0 log holding the run of every job, in order.
pub fn sarif_log(results: &[JobResult]) -> Value {
    let runs: Vec<Value> = results
        .iter()
        .map(|result| result.sarif_run.clone())
        .filter(|run| !run.is_null())
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": runs,
    })
}

/// The exit code of a batch: 10 when any job found a violation its
/// harness is not expected to have; otherwise the code of the gravest
/// job without a verdict (4 a failed check, 2 a back-end failure, 3 a
/// time limit, 1 bad input); otherwise 5 when an expected violation was
/// not found; 0 when every job gave its expected verdict.
pub fn exit_code(results: &[JobResult]) -> u8 {
    let any = |outcome| results.iter().any(|result| result.outcome() == outcome);
    if any(Outcome::UnexpectedViolation) {
        return exit::VIOLATION;
    }
    let errors: Vec<u8> = results
        .iter()
        .filter(|result| result.outcome() == Outcome::Error)
        .map(|result| result.exit_code)
        .collect();
    for code in [
        exit::CHECK_FAILED,
        exit::BACKEND_FAILURE,
        exit::TIMEOUT,
        exit::BAD_INPUT,
        exit::EXPECTATION_UNMET,
    ] {
        if errors.contains(&code) {
            return code;
        }
    }
    if !errors.is_empty() {
        return exit::BACKEND_FAILURE;
    }
    if any(Outcome::MissedViolation) {
        return exit::EXPECTATION_UNMET;
    }
    exit::SUCCESS
}
