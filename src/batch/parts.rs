//! The parts of split searches (`verify --split K/N`, `batch --split N`)
//! put back together by `merge`: a violation in any part is the job's;
//! the job is safe only when all N parts are present, safe, and were run
//! alike (the same engine, the same arguments but `--split`); its
//! statistics are the parts' summed. `merge` also reads a `verify --split
//! --format json` report itself as the result of one part.

use super::job::{self, JobResult, Outcome, PartOf, RESULT_FORMAT};
use super::manifest::Expectation;
use crate::exit;
use crate::options::Split;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The verdict of a job some of whose parts are missing.
pub const INCOMPLETE: &str = "incomplete";

/// The native statistics that add up over the parts.
const SUMMED_STATISTICS: [&str; 9] = [
    "reads_from_classes",
    "complete_executions",
    "blocked_executions",
    "deadlocked_executions",
    "awaiting_executions",
    "other_part_executions",
    "events",
    "moves",
    "states",
];

/// Reads a result file: a batch job's, or a `verify --split` JSON report.
pub fn read(path: &Path) -> Result<JobResult, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|error| format!("{}: not JSON: {error}", path.display()))?;
    if value.get("format").is_some() {
        return job::read(path);
    }
    of_verify_report(value).map_err(|error| format!("{}: {error}", path.display()))
}

/// What `merge` reads of a `verify` JSON report.
#[derive(Deserialize)]
struct ReportHeader {
    verdict: String,
    exit_code: u8,
    file: String,
    model: String,
    split: Option<Split>,
    message: Option<String>,
}

/// The result of one part from its `verify --split --format json` report.
fn of_verify_report(report: Value) -> Result<JobResult, String> {
    let header: ReportHeader = serde_json::from_value(report.clone()).map_err(|error| {
        format!("neither a batch result (`{RESULT_FORMAT}`) nor a verify JSON report: {error}")
    })?;
    let Some(split) = header.split else {
        return Err(
            "a verify report of a whole run: merge combines the parts of split runs (`verify --split K/N --format json`) and batch results"
                .into(),
        );
    };
    let whole = format!("{}-{}", header.file, header.model);
    let number = |pointer: &str| report.pointer(pointer).and_then(Value::as_u64);
    Ok(JobResult {
        format: RESULT_FORMAT.to_string(),
        id: format!("{whole}-part{}of{}", split.part, split.parts),
        harness: header.file,
        line: 0,
        model: header.model,
        // as `verify` judges a run: a violation is what exits 10
        expected: Expectation::Safe,
        verdict: header.verdict,
        exit_code: header.exit_code,
        seconds: report
            .pointer("/native/seconds")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        classes: number("/native/statistics/reads_from_classes").map(|classes| classes as usize),
        property: report
            .pointer("/property/description")
            .and_then(Value::as_str)
            .map(str::to_string),
        message: header.message,
        report,
        sarif_run: Value::Null,
        split: Some(PartOf {
            part: split.part,
            parts: split.parts,
            whole,
        }),
    })
}

/// `results` with the parts of each split job replaced by one result of
/// the whole job.
pub fn combine(results: Vec<JobResult>) -> Vec<JobResult> {
    let mut combined = Vec::new();
    let mut jobs: BTreeMap<String, Vec<JobResult>> = BTreeMap::new();
    for result in results {
        match &result.split {
            Some(part) => jobs.entry(part.whole.clone()).or_default().push(result),
            None => combined.push(result),
        }
    }
    combined.extend(
        jobs.into_iter()
            .map(|(whole, parts)| whole_job(whole, parts)),
    );
    combined
}

/// The result of the whole job `whole` from its `parts` (at least one).
fn whole_job(whole: String, mut parts: Vec<JobResult>) -> JobResult {
    parts.sort_by_key(|result| result.split.as_ref().map(|part| part.part));
    let mut result = match verdict_of(&parts) {
        Ok(index) if is_violation(&parts[index]) => {
            let mut result = parts[index].clone();
            if let Some(part) = &result.split {
                result.message = Some(format!("found by part {} of {}", part.part, part.parts));
            }
            result
        }
        Ok(index) => {
            let mut result = parts[index].clone();
            result.classes = parts.iter().map(|part| part.classes).sum();
            result.report = summed_report(&parts);
            result
        }
        Err((verdict, exit_code, message)) => {
            let mut result = parts[0].clone();
            result.verdict = verdict.to_string();
            result.exit_code = exit_code;
            result.message = Some(message);
            result.classes = None;
            result.property = None;
            result
        }
    };
    result.id = whole;
    result.split = None;
    // the work of every part, wherever they ran
    result.seconds = parts.iter().map(|part| part.seconds).sum();
    result
}

type Refusal = (&'static str, u8, String);

/// The part whose result is the whole job's (a violation's, else the
/// first of all N safe ones), or why there is none: parts of different splits or
/// runs, a part without a verdict, a missing part.
fn verdict_of(parts: &[JobResult]) -> Result<usize, Refusal> {
    let counts: BTreeSet<usize> = parts
        .iter()
        .filter_map(|result| result.split.as_ref().map(|part| part.parts))
        .collect();
    let Some(&count) = counts.iter().next().filter(|_| counts.len() == 1) else {
        return Err((
            INCOMPLETE,
            exit::BAD_INPUT,
            format!("parts of different splits ({counts:?} parts): combine the parts of one split"),
        ));
    };
    let runs: BTreeSet<String> = parts.iter().map(run_identity).collect();
    if runs.len() > 1 {
        return Err((
            INCOMPLETE,
            exit::BAD_INPUT,
            format!("parts run differently (another engine, file or option): {runs:?}"),
        ));
    }
    if let Some(index) = parts.iter().position(is_violation) {
        return Ok(index);
    }
    if let Some(failed) = parts
        .iter()
        .find(|result| result.outcome() == Outcome::Error)
    {
        let part = failed.split.as_ref().map_or(0, |part| part.part);
        return Err((
            "no-verdict",
            failed.exit_code,
            format!(
                "part {part} of {count} has no verdict ({}): {}",
                failed.verdict,
                failed.message.as_deref().unwrap_or("")
            ),
        ));
    }
    let present: BTreeSet<usize> = parts
        .iter()
        .filter_map(|result| result.split.as_ref().map(|part| part.part))
        .collect();
    let missing: Vec<String> = (1..=count)
        .filter(|part| !present.contains(part))
        .map(|part| part.to_string())
        .collect();
    if !missing.is_empty() {
        return Err((
            INCOMPLETE,
            exit::EXPECTATION_UNMET,
            format!(
                "part {} of {count} missing: the program is safe only when every part is",
                missing.join(", ")
            ),
        ));
    }
    Ok(0)
}

/// Whether a part found a violation.
fn is_violation(result: &JobResult) -> bool {
    job::is_violation(&result.verdict)
}

/// What must be equal in every part of one split: the engine that
/// answered and the command's arguments but `--split`.
fn run_identity(result: &JobResult) -> String {
    let engine = result.report.get("engine").cloned().unwrap_or(Value::Null);
    let arguments: Vec<String> = result
        .report
        .pointer("/lazysma/arguments")
        .and_then(Value::as_array)
        .map(|words| {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            without_split(&words)
        })
        .unwrap_or_default();
    format!("{engine} {}", arguments.join(" "))
}

/// `words` without `--split K/N` (or `--split=K/N`).
fn without_split(words: &[&str]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut skip = false;
    for word in words {
        if std::mem::take(&mut skip) {
            continue;
        }
        if *word == "--split" {
            skip = true;
        } else if !word.starts_with("--split=") {
            kept.push(word.to_string());
        }
    }
    kept
}

/// The first part's report with the native statistics of every part
/// summed and no `split`.
fn summed_report(parts: &[JobResult]) -> Value {
    let mut report = parts[0].report.clone();
    if let Some(object) = report.as_object_mut() {
        object.remove("split");
    }
    for name in SUMMED_STATISTICS {
        let pointer = format!("/native/statistics/{name}");
        let sum: Option<u64> = parts
            .iter()
            .map(|part| part.report.pointer(&pointer).and_then(Value::as_u64))
            .sum();
        if let (Some(sum), Some(slot)) = (sum, report.pointer_mut(&pointer)) {
            *slot = Value::from(sum);
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_option_is_left_out_of_a_run_identity() {
        let words = ["verify", "a.c", "--split", "2/4", "--tso", "--split=1/4"];
        assert_eq!(without_split(&words), ["verify", "a.c", "--tso"]);
    }
}
