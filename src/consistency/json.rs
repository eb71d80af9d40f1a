//! The JSON interchange format of executions and verdicts:
//! `{"threads": [[{"id":"a","op":"write","var":"x","value":1}, ...], ...]}`
//! in, `{"model":"tso","realizable":true,"witness":[{"event":"a","phase":"buffer"}, ...]}` out.

use super::execution::{EventSpec, Execution, ExecutionError, OpSpec, RfSpec};
use super::model::MemoryModel;
use super::witness::{Phase, Witness};
use serde_json::{Map, Value, json};
use thiserror::Error;

/// Why a JSON document is not an execution.
#[derive(Debug, Error)]
pub enum FormatError {
    #[error("invalid JSON: {0}")]
    Syntax(#[from] serde_json::Error),
    #[error("{at}: {message}")]
    Shape { at: String, message: String },
    #[error(transparent)]
    Execution(#[from] ExecutionError),
}

fn shape(at: impl Into<String>, message: impl Into<String>) -> FormatError {
    FormatError::Shape {
        at: at.into(),
        message: message.into(),
    }
}

/// Parses an execution from its JSON text.
pub fn parse_execution(text: &str) -> Result<Execution, FormatError> {
    let document: Value = serde_json::from_str(text)?;
    let Some(root) = document.as_object() else {
        return Err(shape(
            "document",
            "expected an object with a \"threads\" array",
        ));
    };
    let Some(threads) = root.get("threads") else {
        return Err(shape("document", "missing \"threads\""));
    };
    let Some(threads) = threads.as_array() else {
        return Err(shape("threads", "expected an array of threads"));
    };
    let mut specs = Vec::with_capacity(threads.len());
    for (t, thread) in threads.iter().enumerate() {
        let Some(events) = thread.as_array() else {
            return Err(shape(
                format!("threads[{t}]"),
                "expected an array of events",
            ));
        };
        let mut thread_specs = Vec::with_capacity(events.len());
        for (i, event) in events.iter().enumerate() {
            thread_specs.push(parse_event(event, &format!("threads[{t}][{i}]"))?);
        }
        specs.push(thread_specs);
    }
    Ok(Execution::new(specs)?)
}

fn string_field<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<&'a str, FormatError> {
    match object.get(key) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(shape(at, format!("\"{key}\" must be a string"))),
        None => Err(shape(at, format!("missing \"{key}\""))),
    }
}

fn parse_event(value: &Value, at: &str) -> Result<EventSpec, FormatError> {
    let Some(object) = value.as_object() else {
        return Err(shape(at, "expected an event object"));
    };
    let id = string_field(object, "id", at)?;
    let at = format!("{at} (event `{id}`)");
    let at = at.as_str();
    let op = string_field(object, "op", at)?;
    let rf = |object: &Map<String, Value>| -> Result<RfSpec, FormatError> {
        let rf = string_field(object, "rf", at)?;
        Ok(if rf == "init" {
            RfSpec::Init
        } else {
            RfSpec::Event(rf.to_string())
        })
    };
    let var = |object: &Map<String, Value>| string_field(object, "var", at).map(str::to_string);
    let mutex = |object: &Map<String, Value>| string_field(object, "mutex", at).map(str::to_string);
    let op = match op {
        "write" => OpSpec::Write { var: var(object)? },
        "read" => OpSpec::Read {
            var: var(object)?,
            rf: rf(object)?,
        },
        "fence" => OpSpec::Fence,
        "store-fence" => OpSpec::StoreFence,
        "atomic-begin" => OpSpec::AtomicBegin,
        "atomic-end" => OpSpec::AtomicEnd,
        "rmw" => OpSpec::Rmw {
            var: var(object)?,
            rf: rf(object)?,
        },
        "lock" => OpSpec::Lock {
            mutex: mutex(object)?,
        },
        "unlock" => OpSpec::Unlock {
            mutex: mutex(object)?,
        },
        "lock-busy" => OpSpec::LockBusy {
            mutex: mutex(object)?,
        },
        other => {
            return Err(shape(
                at,
                format!(
                    "unknown op \"{other}\" (expected write, read, fence, store-fence, atomic-begin, atomic-end, rmw, lock, unlock or lock-busy)"
                ),
            ));
        }
    };
    let value = match object.get("value") {
        None | Some(Value::Null) => None,
        // Unsigned 64-bit values read as their two's-complement bits.
        Some(value) => Some(
            value
                .as_i64()
                .or_else(|| value.as_u64().map(|unsigned| unsigned as i64))
                .ok_or_else(|| shape(at, "\"value\" must be an integer"))?,
        ),
    };
    Ok(EventSpec {
        id: id.to_string(),
        op,
        value,
    })
}

/// The JSON verdict: `realizable` with the witness, or `realizable: false`.
pub fn verdict_json(execution: &Execution, model: MemoryModel, witness: Option<&Witness>) -> Value {
    let mut verdict = Map::new();
    verdict.insert("model".into(), json!(model.name()));
    verdict.insert("realizable".into(), json!(witness.is_some()));
    if let Some(witness) = witness {
        let steps: Vec<Value> = witness
            .steps
            .iter()
            .map(|step| {
                let id = execution.name(step.event);
                match step.phase {
                    Phase::Execute => json!({ "event": id }),
                    phase => json!({ "event": id, "phase": phase.name() }),
                }
            })
            .collect();
        verdict.insert("witness".into(), Value::Array(steps));
    }
    Value::Object(verdict)
}
