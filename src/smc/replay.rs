//! Replays the path of a violation with write ids and records, giving the
//! SMA event records of the native trace: the data the report's decoder
//! turns into an execution, as it does a CBMC counterexample's.

use super::explicit::explore::Fixed;
use super::search::PathStep;
use super::semantics::machine::{Machine, Outcome};
use crate::trace::records::Record;

/// Why a path did not replay (a defect of the engine, never the program's).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the native trace does not replay at step {step}: {reason}")]
pub struct ReplayFailure {
    pub step: usize,
    pub reason: String,
}

/// The records of the trace `path`, whose last move violates a property.
pub fn records(machine: &Machine, path: &[PathStep]) -> Result<Vec<Record>, ReplayFailure> {
    replay(machine, path, true)
}

/// The records of the execution `path`, which ends without violating a
/// property (a non-robust execution): its last move may also be cut off.
pub fn execution_records(
    machine: &Machine,
    path: &[PathStep],
) -> Result<Vec<Record>, ReplayFailure> {
    replay(machine, path, false)
}

fn replay(
    machine: &Machine,
    path: &[PathStep],
    violating: bool,
) -> Result<Vec<Record>, ReplayFailure> {
    let mut state = machine.initial(true);
    for (index, (step, values)) in path.iter().enumerate() {
        let mut choices = Fixed {
            values,
            position: 0,
        };
        let fail = |reason: String| ReplayFailure {
            step: index + 1,
            reason,
        };
        let outcome = machine
            .apply_in_place(&mut state, *step, &mut choices)
            .map_err(|unsupported| fail(unsupported.what))?;
        let last = index + 1 == path.len();
        match (outcome, last) {
            (Outcome::Next(()), false) => {}
            (Outcome::Violated(_), true) if violating => {}
            (Outcome::Next(()) | Outcome::CutOff, true) if !violating => {}
            (Outcome::Next(()), true) => return Err(fail("the last move violates nothing".into())),
            (Outcome::Violated(_), _) => {
                return Err(fail(
                    "a move violates a property the path does not end with".into(),
                ));
            }
            (Outcome::Disabled | Outcome::CutOff, _) => {
                return Err(fail("a move of the path cannot happen".into()));
            }
        }
    }
    Ok(state
        .recording
        .map(|recording| recording.records)
        .unwrap_or_default())
}
