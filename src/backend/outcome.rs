//! Decides the outcome of a CBMC run from the property results in its JSON
//! output, with the exit status and stderr only as corroboration: a run that
//! yields no result for some property is never safe.

use super::output::{
    CbmcOutput, Property, PropertyStatus, Trace, mentions_out_of_memory, parse_cbmc_output_with,
};
use std::process::ExitStatus;
use std::time::Duration;

/// CBMC's exit codes.
pub mod exit_code {
    pub const SAFE: i32 = 0;
    pub const USAGE: i32 = 1;
    pub const PARSE_ERROR: i32 = 2;
    pub const INCONCLUSIVE: i32 = 5;
    pub const INTERNAL_ERROR: i32 = 6;
    pub const VIOLATED: i32 = 10;
    /// `EX_USAGE`: CBMC 5.12 exits with it on an unknown option.
    pub const SYSEXITS_USAGE: i32 = 64;
}

/// What a CBMC run established. The variants are never confused: only a
/// complete set of SUCCESS results is `Safe`.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every property has status SUCCESS.
    Safe,
    /// A property failed; `trace` is CBMC's counterexample for it.
    Violated { property: Property, trace: Trace },
    /// Some property has no definite result (UNKNOWN, NOT CHECKED, ERROR)
    /// and none failed.
    Inconclusive { unresolved: Vec<Property> },
    /// The time limit was reached and CBMC was killed.
    Timeout { limit: Option<Duration> },
    /// CBMC ran out of memory (its own report, or killed by SIGKILL).
    OutOfMemory { message: String },
    /// CBMC failed: bad command line, a C file it rejects, a crash, or
    /// output that cannot be read.
    ToolError {
        exit_code: Option<i32>,
        stderr_tail: String,
        message: String,
    },
}

impl Outcome {
    /// Whether the run decided the program: safe, or a counterexample.
    pub fn is_conclusive(&self) -> bool {
        matches!(self, Outcome::Safe | Outcome::Violated { .. })
    }

    /// A one-line summary for reports.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Safe => "all properties hold".to_string(),
            Outcome::Violated { property, .. } => {
                format!(
                    "property {} violated: {}",
                    property.id, property.description
                )
            }
            Outcome::Inconclusive { unresolved } => {
                let ids: Vec<&str> = unresolved.iter().map(|p| p.id.as_str()).collect();
                format!("inconclusive: no result for {}", ids.join(", "))
            }
            Outcome::Timeout { limit: Some(limit) } => {
                format!("time limit of {:.1}s reached", limit.as_secs_f64())
            }
            Outcome::Timeout { limit: None } => "time limit reached".to_string(),
            Outcome::OutOfMemory { message } => format!("CBMC ran out of memory: {message}"),
            Outcome::ToolError {
                exit_code, message, ..
            } => match exit_code {
                Some(code) => format!("CBMC failed (exit code {code}): {message}"),
                None => format!("CBMC failed: {message}"),
            },
        }
    }
}

/// How CBMC's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitInfo {
    /// The exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// Whether lazysma killed it at the time limit.
    pub timed_out: bool,
    /// The time limit in force.
    pub limit: Option<Duration>,
}

const SIGKILL: i32 = 9;

impl ExitInfo {
    pub fn from_status(status: ExitStatus, timed_out: bool) -> ExitInfo {
        use std::os::unix::process::ExitStatusExt;
        ExitInfo {
            code: status.code(),
            signal: status.signal(),
            timed_out,
            limit: None,
        }
    }

    /// A normal exit with `code`.
    pub fn exited(code: i32) -> ExitInfo {
        ExitInfo {
            code: Some(code),
            ..ExitInfo::default()
        }
    }
}

/// The outcome of a run from its exit, stdout (the JSON) and stderr tail;
/// also returns the parsed output when it could be parsed (its failure
/// trace moved into [`Outcome::Violated`]).
pub fn decide(exit: &ExitInfo, stdout: &str, stderr_tail: &str) -> (Outcome, Option<CbmcOutput>) {
    decide_with(exit, stdout, stderr_tail, false)
}

/// [`decide`], the parsed output holding every failing property's trace
/// after the first when `every_trace` is set
/// ([`CbmcOutput::further_failure_traces`]).
pub fn decide_with(
    exit: &ExitInfo,
    stdout: &str,
    stderr_tail: &str,
    every_trace: bool,
) -> (Outcome, Option<CbmcOutput>) {
    if exit.timed_out {
        return (Outcome::Timeout { limit: exit.limit }, None);
    }
    match parse_cbmc_output_with(stdout, every_trace) {
        Ok(mut output) => {
            let outcome = decide_from_output(exit, &mut output, stderr_tail);
            (outcome, Some(output))
        }
        Err(error) => (
            decide_without_output(exit, stdout, stderr_tail, &error.to_string()),
            None,
        ),
    }
}

/// Moves the failure trace (if any) out of `output` into the outcome.
fn decide_from_output(exit: &ExitInfo, output: &mut CbmcOutput, stderr_tail: &str) -> Outcome {
    if let Some(property) = output.first_failure().cloned() {
        return match output.first_failure_trace.take() {
            Some(trace) => Outcome::Violated { property, trace },
            None => tool_error(
                exit,
                stderr_tail,
                format!("property {} failed but CBMC gave no trace", property.id),
            ),
        };
    }
    if output.reports_out_of_memory() || mentions_out_of_memory(stderr_tail) {
        return Outcome::OutOfMemory {
            message: error_summary(output).unwrap_or_else(|| "out of memory".into()),
        };
    }
    if exit.signal == Some(SIGKILL) {
        return killed(exit);
    }
    let Some(properties) = &output.properties else {
        let message = error_summary(output)
            .unwrap_or_else(|| "CBMC printed no verification result".to_string());
        return tool_error(exit, stderr_tail, message);
    };
    let unresolved: Vec<Property> = properties
        .iter()
        .filter(|p| p.status != PropertyStatus::Success)
        .cloned()
        .collect();
    if !unresolved.is_empty() {
        return Outcome::Inconclusive { unresolved };
    }
    if exit.code != Some(exit_code::SAFE) || output.cprover_status.as_deref() != Some("success") {
        let message = format!(
            "all properties hold but CBMC ended with {} and status {}",
            describe_exit(exit),
            output.cprover_status.as_deref().unwrap_or("(none)")
        );
        return tool_error(exit, stderr_tail, message);
    }
    Outcome::Safe
}

fn decide_without_output(
    exit: &ExitInfo,
    stdout: &str,
    stderr_tail: &str,
    parse_error: &str,
) -> Outcome {
    if mentions_out_of_memory(stderr_tail)
        || salvage_errors(stdout)
            .iter()
            .any(|e| mentions_out_of_memory(e))
    {
        return Outcome::OutOfMemory {
            message: "CBMC reported running out of memory".to_string(),
        };
    }
    if exit.signal == Some(SIGKILL) {
        return killed(exit);
    }
    let salvaged = salvage_errors(stdout);
    let message = if salvaged.is_empty() {
        format!("{parse_error} ({})", describe_exit(exit))
    } else {
        format!("{} ({})", salvaged.join("; "), describe_exit(exit))
    };
    tool_error(exit, stderr_tail, message)
}

fn killed(exit: &ExitInfo) -> Outcome {
    Outcome::OutOfMemory {
        message: format!(
            "{} (most likely by the out-of-memory killer)",
            describe_exit(exit)
        ),
    }
}

fn tool_error(exit: &ExitInfo, stderr_tail: &str, message: String) -> Outcome {
    Outcome::ToolError {
        exit_code: exit.code,
        stderr_tail: stderr_tail.to_string(),
        message,
    }
}

fn describe_exit(exit: &ExitInfo) -> String {
    match (exit.code, exit.signal) {
        (Some(exit_code::USAGE), _) | (Some(exit_code::SYSEXITS_USAGE), _) => {
            format!(
                "exit code {}: CBMC rejected its command line",
                exit.code.unwrap_or_default()
            )
        }
        (Some(exit_code::PARSE_ERROR), _) => "exit code 2: parse error".to_string(),
        (Some(exit_code::INTERNAL_ERROR), _) => "exit code 6: CBMC gave up".to_string(),
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "unknown exit status".to_string(),
    }
}

/// The ERROR messages joined, with their locations.
fn error_summary(output: &CbmcOutput) -> Option<String> {
    let errors: Vec<String> = output.errors().map(ToString::to_string).collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// ERROR message texts found line by line in output that is not valid JSON
/// (CBMC 5.12 mixes its help text into the JSON on a usage error).
fn salvage_errors(stdout: &str) -> Vec<String> {
    const KEY: &str = "\"messageText\": \"";
    let lines: Vec<&str> = stdout.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter_map(|(index, line)| {
            let start = line.find(KEY)? + KEY.len();
            let next = lines.get(index + 1)?;
            if !next.contains("\"messageType\": \"ERROR\"") {
                return None;
            }
            let text = line[start..]
                .trim_end()
                .trim_end_matches(',')
                .trim_end_matches('"');
            Some(text.replace("\\\"", "\"").replace("\\\\", "\\"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_wins_over_everything() {
        let exit = ExitInfo {
            timed_out: true,
            signal: Some(SIGKILL),
            limit: Some(Duration::from_secs(1)),
            ..ExitInfo::default()
        };
        assert_eq!(
            decide(&exit, "", "").0,
            Outcome::Timeout {
                limit: Some(Duration::from_secs(1))
            }
        );
    }

    #[test]
    fn empty_result_list_with_success_is_safe_but_missing_result_is_not() {
        let safe = r#"[{"result": []}, {"cProverStatus": "success"}]"#;
        assert_eq!(decide(&ExitInfo::exited(0), safe, "").0, Outcome::Safe);
        let no_result = r#"[{"messageText": "Parsing a.c", "messageType": "STATUS-MESSAGE"}]"#;
        assert!(matches!(
            decide(&ExitInfo::exited(0), no_result, "").0,
            Outcome::ToolError { .. }
        ));
    }

    #[test]
    fn success_with_a_nonzero_exit_code_is_not_safe() {
        let text = r#"[{"result": [{"property": "a", "description": "", "status": "SUCCESS"}]},
                       {"cProverStatus": "success"}]"#;
        assert!(matches!(
            decide(&ExitInfo::exited(6), text, "").0,
            Outcome::ToolError {
                exit_code: Some(6),
                ..
            }
        ));
        assert_eq!(decide(&ExitInfo::exited(0), text, "").0, Outcome::Safe);
    }

    #[test]
    fn unknown_status_is_inconclusive() {
        let text = r#"[{"result": [{"property": "a", "description": "", "status": "SUCCESS"},
                                   {"property": "b", "description": "", "status": "UNKNOWN"}]},
                       {"cProverStatus": "error"}]"#;
        match decide(&ExitInfo::exited(5), text, "").0 {
            Outcome::Inconclusive { unresolved } => {
                assert_eq!(unresolved.len(), 1);
                assert_eq!(unresolved[0].id, "b");
            }
            other => panic!("expected inconclusive, got {other:?}"),
        }
    }

    #[test]
    fn failure_without_trace_is_a_tool_error() {
        let text = r#"[{"result": [{"property": "a", "description": "d", "status": "FAILURE"}]}]"#;
        assert!(matches!(
            decide(&ExitInfo::exited(10), text, "").0,
            Outcome::ToolError { .. }
        ));
    }

    #[test]
    fn sigkill_without_timeout_is_out_of_memory() {
        let exit = ExitInfo {
            signal: Some(SIGKILL),
            ..ExitInfo::default()
        };
        assert!(matches!(
            decide(&exit, "[\n  {\n", "").0,
            Outcome::OutOfMemory { .. }
        ));
    }

    #[test]
    fn usage_error_output_yields_the_error_texts() {
        let stdout = "[\n  {\n    \"program\": \"CBMC 5.12\"\n  }\n  * help text *\n,\n  {\n    \"messageText\": \"Unknown option: --bogus\",\n    \"messageType\": \"ERROR\"\n  }\n]\n";
        match decide(&ExitInfo::exited(64), stdout, "").0 {
            Outcome::ToolError {
                exit_code, message, ..
            } => {
                assert_eq!(exit_code, Some(64));
                assert!(message.contains("Unknown option: --bogus"), "{message}");
                assert!(message.contains("rejected its command line"), "{message}");
            }
            other => panic!("expected tool error, got {other:?}"),
        }
    }
}

/// What the prover established about the formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProverAnswer {
    /// Unsatisfiable: every property holds.
    Proved,
    /// Satisfiable: some property can fail (CBMC's run finds which).
    Refuted,
    /// No answer within the limits, or stopped once CBMC's run concluded.
    Open,
    /// Never started: CBMC's run concluded within [`super::dimacs::PROVER_DELAY`], or the
    /// portfolio was stopped first.
    NotStarted,
}

impl ProverAnswer {
    /// Whether the formula is satisfiable, when the prover knows.
    pub fn formula_satisfiable(self) -> Option<bool> {
        match self {
            ProverAnswer::Proved => Some(false),
            ProverAnswer::Refuted => Some(true),
            ProverAnswer::Open | ProverAnswer::NotStarted => None,
        }
    }
}
