//! One job of a batch run in this process, and its result as the file
//! `RESULTS/ID.json` that `lazysma merge` reads: the job (harness, model,
//! expectation), the verdict, the classes the native engine explored, the
//! time, the whole `verify` report (JSON) and its SARIF run.

use super::manifest::{Expectation, Job, model_name};
use crate::report::document::{Verdict, VerifyReport};
use crate::verify::VerifyRequest;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The `format` of a result file.
pub const RESULT_FORMAT: &str = "lazysma-batch-result/1";

/// What one job gave, as its result file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub format: String,
    pub id: String,
    /// The harness's file as the manifest names it.
    pub harness: String,
    /// Its line in the manifest.
    pub line: usize,
    pub model: String,
    pub expected: Expectation,
    /// The verdict of `verify` (its JSON name: `safe`, `violation`, ...).
    pub verdict: String,
    pub exit_code: u8,
    pub seconds: f64,
    /// The reads-from classes the native engine explored, when its search ran.
    pub classes: Option<usize>,
    /// The violated property's description, when there is one.
    pub property: Option<String>,
    /// The report's message (errors, time limits), if any.
    pub message: Option<String>,
    /// The `verify --format json` report.
    pub report: Value,
    /// The run of the `verify --format sarif` log (`null` for a `verify`
    /// report read by `merge`, which has none).
    pub sarif_run: Value,
    /// The part of a split search this result is (`batch --split`,
    /// `verify --split`); `merge` combines the parts of a job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<PartOf>,
}

/// Which part of which whole job a result is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartOf {
    pub part: usize,
    pub parts: usize,
    /// The id of the whole job (harness and model).
    pub whole: String,
}

impl PartOf {
    /// The part `job` runs, if it runs one.
    pub fn of(job: &Job) -> Option<PartOf> {
        job.split.map(|split| PartOf {
            part: split.part,
            parts: split.parts,
            whole: job.whole_id().to_string(),
        })
    }
}

/// How a job's verdict compares with its expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The expected verdict (or, with no expectation, safe or a violation).
    AsExpected,
    /// A violation where the manifest expects none.
    UnexpectedViolation,
    /// Safe where the manifest expects a violation.
    MissedViolation,
    /// No verdict: bad input, a back-end failure, a time limit, a failed check.
    Error,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::AsExpected => "ok",
            Outcome::UnexpectedViolation => "UNEXPECTED VIOLATION",
            Outcome::MissedViolation => "MISSED VIOLATION",
            Outcome::Error => "ERROR",
        }
    }
}

/// Whether a verdict's name is a violation (confirmed or not, or an
/// unwinding bound reached, which `verify` also ends with exit 10).
pub(super) fn is_violation(verdict: &str) -> bool {
    matches!(
        verdict,
        "violation" | "unchecked-violation" | "unwinding-bound"
    )
}

impl JobResult {
    /// How the verdict compares with the expectation.
    pub fn outcome(&self) -> Outcome {
        let violation = is_violation(&self.verdict);
        let safe = self.verdict == Verdict::Safe.name();
        match self.expected {
            _ if !violation && !safe => Outcome::Error,
            Expectation::Safe if violation => Outcome::UnexpectedViolation,
            Expectation::Violation if safe => Outcome::MissedViolation,
            _ => Outcome::AsExpected,
        }
    }

    /// The result of `job` from its `report`.
    pub fn of(job: &Job, report: &VerifyReport, seconds: f64) -> JobResult {
        let classes = report
            .native
            .as_ref()
            .and_then(|native| native.statistics.as_ref())
            .map(|statistics| statistics.reads_from_classes);
        let mut sarif = crate::report::sarif::log(report);
        let mut run = sarif["runs"][0].take();
        run["automationDetails"] = serde_json::json!({ "id": format!("lazysma-batch/{}", job.id) });
        JobResult {
            format: RESULT_FORMAT.to_string(),
            id: job.id.clone(),
            harness: job.harness.file.clone(),
            line: job.harness.line,
            model: model_name(job.model).to_string(),
            expected: job.expected,
            verdict: report.verdict.name().to_string(),
            exit_code: report.exit_code,
            seconds,
            classes,
            property: report
                .property
                .as_ref()
                .map(|property| property.description.clone()),
            message: report.message.clone(),
            report: serde_json::to_value(report).unwrap_or(Value::Null),
            sarif_run: run,
            split: PartOf::of(job),
        }
    }
}

/// The result file of the job `id` in `results`.
pub fn result_path(results: &Path, id: &str) -> PathBuf {
    results.join(format!("{id}.json"))
}

/// Runs `job` as `request` asks (the job's `verify` arguments parsed),
/// writes its result file into `results` and returns the result.
pub fn run(job: &Job, request: &VerifyRequest, results: &Path) -> Result<JobResult, String> {
    let started = Instant::now();
    let (mut report, _details) = crate::verify::check(request);
    let mut arguments = job.verify_arguments();
    arguments.extend(["--format".to_string(), "json".to_string()]);
    report.lazysma.arguments = arguments;
    let result = JobResult::of(job, &report, started.elapsed().as_secs_f64());
    write(&result, results)?;
    Ok(result)
}

/// Writes `result` into the directory `results` (created if missing), atomically.
pub fn write(result: &JobResult, results: &Path) -> Result<(), String> {
    std::fs::create_dir_all(results)
        .map_err(|error| format!("cannot create {}: {error}", results.display()))?;
    let path = result_path(results, &result.id);
    let mut text = serde_json::to_string_pretty(result).unwrap_or_default();
    text.push('\n');
    crate::output::write_atomically(&path, text.as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// Reads the result file at `path`.
pub fn read(path: &Path) -> Result<JobResult, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let result: JobResult = serde_json::from_str(&text)
        .map_err(|error| format!("{}: not a batch result: {error}", path.display()))?;
    if result.format != RESULT_FORMAT {
        return Err(format!(
            "{}: a result of format `{}`, where `{RESULT_FORMAT}` is read",
            path.display(),
            result.format
        ));
    }
    Ok(result)
}
