//! Replays the path of a violation with write ids and records, giving the
//! SMA event records of the native trace: the data the report's decoder
//! turns into an execution, as it does a CBMC counterexample's.

use super::explicit::explore::Fixed;
use super::interpreter::eval::{Choices, Eval, undecided};
use super::search::PathStep;
use super::semantics::machine::{Machine, Outcome, State};
use super::symbolic::ctype::CType;
use super::symbolic::decide::Decider;
use super::symbolic::path::Symbolic;
use super::symbolic::term::{Formula, bits, value_of};
use crate::trace::records::Record;
use std::collections::HashMap;

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

/// A nondeterministic value of a violation's witness: the thread that
/// read it first, its C type and the value the solver's model gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputValue {
    pub thread: usize,
    pub ty: CType,
    pub value: i64,
}

/// The records of `path` (a path of RF-SMC, whose runs take wide
/// nondeterministic values as symbols), and the concrete values of its
/// symbols: a model of its path condition, checked here by evaluating
/// every side the path took on those values (so the violation happens on
/// them), in the order the symbols were made.
pub fn symbolic_records(
    machine: &Machine,
    path: &[PathStep],
    violating: bool,
) -> Result<(Vec<Record>, Vec<InputValue>), ReplayFailure> {
    let state = replay_state(machine, path, violating, true)?;
    let failure = |reason: String| ReplayFailure {
        step: path.len(),
        reason,
    };
    let symbolic = &state.symbolic;
    let ids: Vec<_> = symbolic.made.iter().map(|made| made.id).collect();
    let model = machine
        .decider
        .model(&symbolic.condition(), &ids)
        .map_err(|error| failure(error.to_string()))?
        .ok_or_else(|| failure("the path condition has no model".into()))?;
    let values: HashMap<_, _> = model
        .iter()
        .map(|(&id, &value)| (id, value as i64))
        .collect();
    if let Some(side) = symbolic.path.iter().find(|side| !side.evaluate(&values)) {
        return Err(failure(format!(
            "the solver's model does not satisfy the side {side:?}"
        )));
    }
    let inputs = symbolic
        .made
        .iter()
        .map(|made| InputValue {
            thread: made.thread,
            ty: made.ty,
            value: crate::ir::truncate(
                bits(
                    model.get(&made.id).copied().unwrap_or(0) as i64,
                    made.ty.bits,
                ) as i64,
                made.ty.bits,
                made.ty.signed && made.ty.bits != 1,
            ),
        })
        .collect();
    let (mut records, terms) = state
        .recording
        .map(|recording| (recording.records, recording.terms))
        .unwrap_or_default();
    // a term in shared memory shows its value in the model
    for (index, term) in terms {
        if let Some(record) = records.get_mut(index) {
            record.value = i128::from(value_of(&term, machine.wide, &values));
        }
    }
    Ok((records, inputs))
}

/// Replays fixed values, taking wide nondeterministic values as symbols
/// and deciding branches on them as RF-SMC's runs do.
struct SymbolicFixed<'a> {
    fixed: Fixed<'a>,
    machine: &'a Machine<'a>,
}

impl Choices for SymbolicFixed<'_> {
    fn choose(&mut self, lo: i64, values: u32) -> i64 {
        self.fixed.choose(lo, values)
    }

    fn decider(&self) -> Option<&Decider> {
        Some(&self.machine.decider)
    }

    fn branch(&mut self, formula: &Formula, symbolic: &mut Symbolic) -> Eval<Option<bool>> {
        let decider = &self.machine.decider;
        let fixed = &mut self.fixed;
        decider
            .branch(formula, symbolic, &mut || fixed.choose(0, 2) != 0)
            .map(Some)
            .map_err(undecided)
    }
}

fn replay(
    machine: &Machine,
    path: &[PathStep],
    violating: bool,
) -> Result<Vec<Record>, ReplayFailure> {
    Ok(replay_state(machine, path, violating, false)?
        .recording
        .map(|recording| recording.records)
        .unwrap_or_default())
}

/// The state at the end of `path`, replayed with records.
fn replay_state(
    machine: &Machine,
    path: &[PathStep],
    violating: bool,
    symbolic: bool,
) -> Result<State, ReplayFailure> {
    let mut state = machine.initial(true);
    for (index, (step, values)) in path.iter().enumerate() {
        let fixed = Fixed {
            values,
            position: 0,
        };
        let mut plain;
        let mut with_symbols;
        let choices: &mut dyn Choices = if symbolic {
            with_symbols = SymbolicFixed { fixed, machine };
            &mut with_symbols
        } else {
            plain = fixed;
            &mut plain
        };
        let fail = |reason: String| ReplayFailure {
            step: index + 1,
            reason,
        };
        let outcome = machine
            .apply_in_place(&mut state, *step, choices)
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
    Ok(state)
}
