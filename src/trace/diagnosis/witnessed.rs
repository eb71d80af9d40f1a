//! The reorderings a witness shows: stores still buffered when a later
//! load of their thread (of another location) read memory, or when their
//! thread's atomic section ended, and under PSO stores a later store of
//! their thread (to another location) overtook in memory; and, for a fence
//! the search found, the reordering of the witness that it forbids.

use super::audit::{Effects, falsehood};
use super::placement::{Placement, fence_point};
use super::reordering::{Reordering, ReorderingKind};
use crate::consistency::{
    EventId, Execution, Op, Phase, Witness, delayed_stores, with_buffered_stores,
};
use crate::ir::FenceKind;
use crate::options::MemoryModel;
use crate::trace::execution::Decoded;
use std::collections::HashSet;

/// The reorderings the witness uses, in witness order, program events only:
/// stores still buffered when a later load (of another variable) ran,
/// under PSO stores overtaken in memory by a later store of their thread,
/// and stores (of a location another thread accesses) still buffered when
/// their thread's atomic section ended.
/// One reordering per store and kind: of the later events the store was
/// reordered with, the first that conflicts with another thread
/// ([`conflicts_across_threads`]), else the first. A reordering with an
/// access no other thread can observe is not what the bug needs, though
/// the witness may show it too.
pub fn observed_reorderings(
    decoded: &Decoded,
    witness: &Witness,
    model: MemoryModel,
) -> Vec<Reordering> {
    let execution = &decoded.execution;
    let is_program = |event: EventId| {
        decoded
            .events
            .get(event)
            .is_some_and(|info| !info.kind.is_synthetic())
    };
    let mut candidates: Vec<(ReorderingKind, EventId, EventId)> =
        delayed_stores(execution, witness)
            .into_iter()
            .filter(|delayed| !delayed.same_variable)
            .map(|delayed| (ReorderingKind::StoreLoad, delayed.store, delayed.load))
            .collect();
    if model == MemoryModel::Pso {
        candidates.extend(
            overtaken_stores(execution, witness)
                .into_iter()
                .map(|(store, later)| (ReorderingKind::StoreStore, store, later)),
        );
    }
    candidates.extend(
        escaped_sections(execution, witness)
            .into_iter()
            .filter(|&(store, _)| conflicts_across_threads(execution, store))
            .map(|(store, end)| (ReorderingKind::StoreAtomicEnd, store, end)),
    );
    candidates.retain(|&(_, store, later)| is_program(store) && is_program(later));
    let mut found: Vec<Reordering> = Vec::new();
    for &(kind, store, later) in &candidates {
        if found.iter().any(|r| r.kind == kind && r.store == store) {
            continue;
        }
        let relevant = candidates
            .iter()
            .filter(|&&(k, s, _)| k == kind && s == store)
            .map(|&(_, _, l)| l)
            .find(|&l| conflicts_across_threads(execution, l))
            .unwrap_or(later);
        let fence_after =
            fence_point(decoded, store, &[relevant], Placement::Statement).unwrap_or(store);
        found.push(Reordering {
            kind,
            store,
            later: relevant,
            fence: FenceKind::Full,
            fence_after,
        });
    }
    found
}

/// Whether another thread makes an access to `event`'s variable that
/// conflicts with it (a write, or for a store also a read): only then can
/// the order in which `event` takes effect be observed.
fn conflicts_across_threads(execution: &Execution, event: EventId) -> bool {
    let this = execution.event(event);
    let Some(var) = this.op.var() else {
        return false;
    };
    execution.events().iter().any(|other| {
        other.thread != this.thread
            && other.op.var() == Some(var)
            && (this.op.is_writer() || other.op.is_writer())
    })
}

/// (store, later store of the same thread on another variable that reached
/// memory first), in witness order.
fn overtaken_stores(execution: &Execution, witness: &Witness) -> Vec<(EventId, EventId)> {
    let mut in_memory: HashSet<EventId> = HashSet::new();
    let mut pairs = Vec::new();
    for step in witness.steps.iter().filter(|s| s.phase == Phase::Memory) {
        let later = step.event;
        let event = execution.event(later);
        for &earlier in &execution.threads()[event.thread][..event.index] {
            let op = &execution.event(earlier).op;
            if matches!(op, Op::Write { .. })
                && op.var() != event.op.var()
                && !in_memory.contains(&earlier)
            {
                pairs.push((earlier, later));
            }
        }
        in_memory.insert(later);
    }
    pairs
}

/// (store, the end of an atomic section of its thread that ran while the
/// store was still buffered), in witness order.
fn escaped_sections(execution: &Execution, witness: &Witness) -> Vec<(EventId, EventId)> {
    let mut pairs = Vec::new();
    with_buffered_stores(execution, witness, |end, event, buffered| {
        if event.op == Op::AtomicEnd {
            pairs.extend(buffered.iter().map(|&store| (store, end)));
        }
    });
    pairs
}

/// The reordering of the witness that a fence of kind `fence` right after
/// `after` forbids, `store`'s or an earlier store's of its thread: the
/// first store, from `store` back, with a later event past the fence that
/// took effect before it reached memory in a way `model` allows (a
/// store-store fence only forbids a store-store reordering). `None` when
/// the witness shows none: then no sentence about the fence would be true.
pub fn witnessed_reordering(
    decoded: &Decoded,
    effects: &Effects,
    model: MemoryModel,
    (store, after, fence): (EventId, EventId, FenceKind),
) -> Option<Reordering> {
    let execution = &decoded.execution;
    let point = execution.event(after);
    let thread = &execution.threads()[point.thread];
    let is_program = |event: EventId| {
        decoded
            .events
            .get(event)
            .is_some_and(|info| !info.kind.is_synthetic())
    };
    let earlier = thread[..=point.index]
        .iter()
        .rev()
        .copied()
        .filter(|&event| event != store && matches!(execution.event(event).op, Op::Write { .. }));
    let kinds: &[ReorderingKind] = match fence {
        FenceKind::StoreStore => &[ReorderingKind::StoreStore],
        FenceKind::Full => &[
            ReorderingKind::StoreLoad,
            ReorderingKind::StoreStore,
            ReorderingKind::StoreAtomicEnd,
        ],
    };
    for candidate in std::iter::once(store)
        .chain(earlier)
        .filter(|&s| is_program(s))
    {
        for &later in thread[point.index + 1..].iter().filter(|&&l| is_program(l)) {
            for &kind in kinds {
                let reordering = Reordering {
                    kind,
                    store: candidate,
                    later,
                    fence,
                    fence_after: after,
                };
                if falsehood(execution, effects, model, &reordering).is_ok() {
                    return Some(reordering);
                }
            }
        }
    }
    None
}
