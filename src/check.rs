//! The `lazysma check` command: reads an execution from JSON and decides
//! whether it is realisable under a memory model.

use crate::consistency::{self, Execution, Op, Phase, Source, Step, Witness, json};
use crate::exit;
use crate::options::MemoryModel;
use std::path::Path;

/// Runs `lazysma check` and returns the exit code.
pub fn run(file: &Path, model: MemoryModel, json: bool) -> u8 {
    let fail = |kind: &str, message: String, code: u8| fail(json, model, kind, &message, code);
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) => {
            return fail(
                "bad-input",
                format!("cannot read {}: {error}", file.display()),
                exit::BAD_INPUT,
            );
        }
    };
    let execution = match json::parse_execution(&text) {
        Ok(execution) => execution,
        Err(error) => {
            return fail(
                "bad-input",
                format!("{}: {error}", file.display()),
                exit::BAD_INPUT,
            );
        }
    };
    let outcome = consistency::verify(&execution, model);
    if let Ok(witness) = &outcome
        && let Err(error) = consistency::replay(&execution, witness, model)
    {
        let message =
            format!("the witness found does not replay ({error}); this is a lazysma defect");
        return fail("defect", message, exit::CHECK_FAILED);
    }
    let report = if json {
        format!(
            "{}\n",
            json::verdict_json(&execution, model, outcome.as_ref().ok())
        )
    } else {
        render_text(&execution, model, &outcome)
    };
    if let Err(error) = crate::output::print(&report) {
        crate::output::eprintln(&format!(
            "error: cannot write the verdict to standard output: {error}"
        ));
        return exit::BACKEND_FAILURE;
    }
    match outcome {
        Ok(_) => exit::SUCCESS,
        Err(_) => exit::VIOLATION,
    }
}

/// Reports an error on stderr and, with `--format json`, as
/// `{"model", "error": {"kind", "message"}}` on stdout too, so that a
/// reader of the JSON always gets JSON; returns `code`.
fn fail(json: bool, model: MemoryModel, kind: &str, message: &str, code: u8) -> u8 {
    let prefix = if kind == "defect" {
        "internal error"
    } else {
        "error"
    };
    crate::output::eprintln(&format!("{prefix}: {message}"));
    if json {
        let report = serde_json::json!({ "model": model.name(), "error": { "kind": kind, "message": message } });
        // stdout may be closed too; stderr has the message already
        let _ = crate::output::print(&format!("{report}\n"));
    }
    code
}

/// The human-readable verdict: a numbered witness table, one step a line.
pub fn render_text(
    execution: &Execution,
    model: MemoryModel,
    outcome: &Result<Witness, consistency::NotRealizable>,
) -> String {
    let witness = match outcome {
        Err(reason) => return format!("not realisable under {model}: {reason}\n"),
        Ok(witness) => witness,
    };
    let mut rows = vec![["#", "thread", "event", "op", "var", "phase", "effect"].map(String::from)];
    for (i, step) in witness.steps.iter().enumerate() {
        let event = execution.event(step.event);
        let var = match &event.op {
            Op::Lock { mutex } | Op::Unlock { mutex } => execution.mutexes()[*mutex].clone(),
            op => op
                .var()
                .map(|var| execution.variables()[var].clone())
                .unwrap_or_default(),
        };
        rows.push([
            (i + 1).to_string(),
            format!("T{}", event.thread),
            event.id.clone(),
            event.op.name().to_string(),
            var,
            step.phase.name().to_string(),
            effect(execution, witness, i, *step),
        ]);
    }
    let mut widths = [0; 7];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = format!(
        "realisable under {model}: witness of {} steps\n",
        witness.steps.len()
    );
    for row in &rows {
        let mut line = format!("{:>w$}", row[0], w = widths[0]);
        for (cell, width) in row.iter().zip(widths).skip(1) {
            line.push_str(&format!("  {cell:<width$}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn value_text(value: Option<i64>) -> String {
    value.map_or_else(|| "?".to_string(), |value| value.to_string())
}

/// What a step does, in words.
fn effect(execution: &Execution, witness: &Witness, at: usize, step: Step) -> String {
    let event = execution.event(step.event);
    let name = |var: usize| execution.variables()[var].as_str();
    match (&event.op, step.phase) {
        (Op::Write { var }, Phase::Buffer) => {
            format!("{} := {} buffered", name(*var), value_text(event.value))
        }
        (Op::Write { var }, _) => format!(
            "{} = {} reaches memory",
            name(*var),
            value_text(event.value)
        ),
        (Op::Read { var, rf }, _) => {
            let from_buffer = match rf {
                Source::Event(write) if execution.event(*write).thread == event.thread => {
                    let flushed_before = witness.steps[..at]
                        .iter()
                        .any(|s| s.event == *write && s.phase == Phase::Memory);
                    !flushed_before && matches!(execution.event(*write).op, Op::Write { .. })
                }
                _ => false,
            };
            let place = if from_buffer { "own buffer" } else { "memory" };
            format!(
                "reads {} from {} ({place})",
                name(*var),
                execution.source_name(*rf)
            )
        }
        (Op::Rmw { var, rf }, _) => format!(
            "reads {} from {}, writes {} := {} (atomic)",
            name(*var),
            execution.source_name(*rf),
            name(*var),
            value_text(event.value)
        ),
        (Op::Fence, _) => "store buffer empty".to_string(),
        (Op::StoreFence, _) => "later stores reach memory after earlier ones".to_string(),
        (Op::AtomicBegin, _) => "atomic section: no other thread runs until it ends".to_string(),
        (Op::AtomicEnd, _) => "atomic section ends".to_string(),
        (Op::Lock { mutex }, _) => format!("acquires {}", execution.mutexes()[*mutex]),
        (Op::Unlock { mutex }, _) => format!("releases {}", execution.mutexes()[*mutex]),
        (Op::LockBusy { mutex }, _) => format!(
            "finds {} held by another thread (try-lock fails)",
            execution.mutexes()[*mutex]
        ),
    }
}
