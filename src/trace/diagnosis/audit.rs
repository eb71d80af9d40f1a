//! The audit of a diagnosis: every reordering it names must be one the
//! memory model allows and one its witness shows. Given the checked
//! execution (each thread's events in program order), the witness (the
//! order in which loads read, stores entered their buffers and reached
//! memory, atomic sections ended) and the reorderings as data, it checks
//! for each reordering that (a) the model allows its kind (TSO: a store
//! with a later load of another location or the end of its atomic
//! section; PSO: also with a later store to another location; SC:
//! nothing), (b) its two events are of one thread, the store first in
//! program order, with its fence between them, and (c) in the witness the
//! later event took effect (read memory, reached memory, ended the
//! section) before the store reached memory. What fails is a false
//! sentence of the report, a defect of lazysma: `explain` refuses to
//! publish it.

use super::reordering::{Reordering, ReorderingKind};
use crate::consistency::{EventId, Execution, Op, Phase, Witness};
use crate::options::MemoryModel;
use thiserror::Error;

/// Why a reordering is not true of its witness and its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Falsehood {
    #[error("{model} does not reorder a store with a later {kind_later}")]
    ModelForbids {
        model: MemoryModel,
        kind_later: &'static str,
    },
    #[error("event {0} is not in the execution")]
    UnknownEvent(EventId),
    #[error("its store is not a store")]
    NotAStore,
    #[error("its later event is not {expected}")]
    WrongLater { expected: &'static str },
    #[error("its two events access the same location")]
    SameLocation,
    #[error("its two events are of different threads")]
    DifferentThreads,
    #[error("its later event does not come after the store in program order")]
    NotLater,
    #[error("its fence does not come between the store and the later event")]
    FenceOutside,
    #[error("its later event never took effect in the witness")]
    LaterNeverTookEffect,
    #[error("in the witness the store reached memory before the later event took effect")]
    InProgramOrder,
}

/// A reordering of a diagnosis that is false, by its index in the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("reordering {index} ({kind}): {falsehood}")]
pub struct FalseSentence {
    pub index: usize,
    pub kind: ReorderingKind,
    pub falsehood: Falsehood,
}

/// When each event took effect in a witness: a load, fence or section
/// boundary when it ran, a store when it reached memory (its position
/// among the witness's steps).
pub struct Effects {
    executed: Vec<Option<usize>>,
    in_memory: Vec<Option<usize>>,
}

impl Effects {
    pub fn of(execution: &Execution, witness: &Witness) -> Effects {
        let count = execution.events().len();
        let mut effects = Effects {
            executed: vec![None; count],
            in_memory: vec![None; count],
        };
        for (position, step) in witness.steps.iter().enumerate() {
            let slot = match step.phase {
                Phase::Memory => effects.in_memory.get_mut(step.event),
                Phase::Execute | Phase::Buffer => effects.executed.get_mut(step.event),
            };
            if let Some(slot) = slot {
                slot.get_or_insert(position);
            }
        }
        effects
    }

    /// When `event` took effect: a store when it reached memory.
    fn took_effect(&self, execution: &Execution, event: EventId) -> Option<usize> {
        match execution.event(event).op {
            Op::Write { .. } => self.in_memory.get(event).copied().flatten(),
            _ => self.executed.get(event).copied().flatten(),
        }
    }
}

/// The false sentences among `reorderings`, a diagnosis of `execution`
/// under `model` with `witness`: empty when every one is true.
pub fn audit(
    execution: &Execution,
    witness: &Witness,
    model: MemoryModel,
    reorderings: &[Reordering],
) -> Vec<FalseSentence> {
    let effects = Effects::of(execution, witness);
    reorderings
        .iter()
        .enumerate()
        .filter_map(|(index, reordering)| {
            let falsehood = falsehood(execution, &effects, model, reordering).err()?;
            Some(FalseSentence {
                index,
                kind: reordering.kind,
                falsehood,
            })
        })
        .collect()
}

/// Whether `reordering` is true of the witness whose `effects` are given
/// and of `model`: the first reason it is not.
pub fn falsehood(
    execution: &Execution,
    effects: &Effects,
    model: MemoryModel,
    reordering: &Reordering,
) -> Result<(), Falsehood> {
    let kind = reordering.kind;
    if !kind.allowed_under(model) {
        return Err(Falsehood::ModelForbids {
            model,
            kind_later: later_name(kind),
        });
    }
    let known = |event: EventId| {
        (event < execution.events().len())
            .then_some(())
            .ok_or(Falsehood::UnknownEvent(event))
    };
    known(reordering.store)?;
    known(reordering.later)?;
    known(reordering.fence_after)?;
    let store = execution.event(reordering.store);
    let later = execution.event(reordering.later);
    let Op::Write { var } = store.op else {
        return Err(Falsehood::NotAStore);
    };
    let later_matches = matches!(
        (kind, &later.op),
        (ReorderingKind::StoreLoad, Op::Read { .. })
            | (ReorderingKind::StoreStore, Op::Write { .. })
            | (ReorderingKind::StoreAtomicEnd, Op::AtomicEnd)
    );
    if !later_matches {
        return Err(Falsehood::WrongLater {
            expected: later_name(kind),
        });
    }
    if later.op.var() == Some(var) {
        return Err(Falsehood::SameLocation);
    }
    let fence = execution.event(reordering.fence_after);
    if later.thread != store.thread {
        return Err(Falsehood::DifferentThreads);
    }
    if later.index <= store.index {
        return Err(Falsehood::NotLater);
    }
    if fence.thread != store.thread || fence.index < store.index || fence.index >= later.index {
        return Err(Falsehood::FenceOutside);
    }
    let Some(later_at) = effects.took_effect(execution, reordering.later) else {
        return Err(Falsehood::LaterNeverTookEffect);
    };
    // a store that never reached memory was still buffered at the end
    match effects.took_effect(execution, reordering.store) {
        Some(store_at) if store_at < later_at => Err(Falsehood::InProgramOrder),
        _ => Ok(()),
    }
}

/// What a reordering of `kind` reorders a store with.
fn later_name(kind: ReorderingKind) -> &'static str {
    match kind {
        ReorderingKind::StoreLoad => "load",
        ReorderingKind::StoreStore => "store",
        ReorderingKind::StoreAtomicEnd => "end of its atomic section",
    }
}

#[cfg(test)]
mod tests;
