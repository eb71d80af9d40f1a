//! Diagnosis of a confirmed counterexample: whether its reads-from map is
//! realisable under sequential consistency, and if not, which reorderings
//! the bug needs (a store still buffered when a later load of its thread
//! ran, the delayed store behind the happens-before cycle of Burnim et al.,
//! TACAS 2011, sec. 4-5; or under PSO two stores that reached memory out of
//! program order, or a store still buffered when its thread's atomic
//! section ended) and where fences forbid it. Every reordering named is one
//! the witness shows and the model allows ([`audit`] checks it). Candidate
//! fences are tested
//! natively: a fence event is inserted into the execution and the check is
//! run again. A fence goes after the statement of its store, where a fence
//! inserted into the source would be (after `x = y = 0;`, not between its
//! two stores); only when that does not forbid the counterexample, right
//! after the store. Under PSO a store-store reordering is offered the
//! cheaper store-store fence wherever it suffices.

pub mod audit;
pub mod cycle;
pub mod placement;
pub mod reordering;
pub mod witnessed;

use super::execution::Decoded;
use crate::consistency::{
    EventId, EventSpec, Execution, Op, OpSpec, RfSpec, Source, Witness, verify,
};
use crate::ir::FenceKind;
use crate::options::MemoryModel;
use audit::Effects;
use cycle::{CycleEdge, happens_before_cycle};
pub use placement::rest_of_statement;
use placement::{Placement, before_statement, fence_point};
pub use reordering::{Reordering, ReorderingKind};
pub use witnessed::observed_reorderings;
use witnessed::witnessed_reordering;

/// What the diagnosis found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    /// The same reads-from map is realisable under SC: not a weak-memory bug.
    pub sc_realisable: bool,
    /// The reorderings to forbid, one fence each; together the fences make
    /// the counterexample unrealisable (when `fences_suffice`).
    pub reorderings: Vec<Reordering>,
    /// Whether fences at `reorderings` were shown to forbid the
    /// counterexample by the native check.
    pub fences_suffice: bool,
    /// The happens-before cycle that SC cannot order (empty when the
    /// reads-from is SC's, or the execution too large to search).
    pub cycle: Vec<CycleEdge>,
}

/// The most fence positions the search tries (each costs one native check
/// of the execution).
const MAX_FENCE_CANDIDATES: usize = 48;

/// Diagnoses a counterexample confirmed under `model` with `witness`.
pub fn diagnose(decoded: &Decoded, witness: &Witness, model: MemoryModel) -> Diagnosis {
    let execution = &decoded.execution;
    if model == MemoryModel::Sc || verify(execution, MemoryModel::Sc).is_ok() {
        return Diagnosis {
            sc_realisable: true,
            reorderings: Vec::new(),
            fences_suffice: false,
            cycle: Vec::new(),
        };
    }
    let cycle = happens_before_cycle(execution, witness, model);
    let observed = observed_reorderings(decoded, witness, model);
    for placement in [Placement::Statement, Placement::Event] {
        if let Some(reorderings) = fences_that_forbid(decoded, witness, &observed, model, placement)
        {
            return Diagnosis {
                sc_realisable: false,
                reorderings,
                fences_suffice: true,
                cycle,
            };
        }
    }
    Diagnosis {
        sc_realisable: false,
        reorderings: observed,
        fences_suffice: false,
        cycle,
    }
}

/// A fence after each store of a candidate set: the store, the event the
/// fence goes after, its kind.
type Candidate = (EventId, EventId, FenceKind);

/// The reorderings whose fences, placed as `placement` says, forbid the
/// counterexample: one fence when one suffices, else a set from which no
/// fence can be dropped; store-store fences where they suffice for a
/// store-store reordering. `None` when no such set was found, or when the
/// witness shows no reordering that one of its fences forbids.
fn fences_that_forbid(
    decoded: &Decoded,
    witness: &Witness,
    observed: &[Reordering],
    model: MemoryModel,
    placement: Placement,
) -> Option<Vec<Reordering>> {
    let execution = &decoded.execution;
    // The laters the fence after `store` must come before.
    let laters = |store: EventId| -> Vec<EventId> {
        observed
            .iter()
            .filter(|r| r.store == store)
            .map(|r| r.later)
            .collect()
    };
    let place = |store: EventId| fence_point(decoded, store, &laters(store), placement);
    // One fence alone, the cheaper store-store fences first.
    let store_store = observed
        .iter()
        .filter(|r| r.kind == ReorderingKind::StoreStore)
        .map(|r| (r, FenceKind::StoreStore));
    let full = observed.iter().map(|r| (r, FenceKind::Full));
    for (reordering, fence) in store_store.chain(full) {
        let Some(after) = fence_point(decoded, reordering.store, &[reordering.later], placement)
        else {
            continue;
        };
        // a store-store fence goes right before the later store where that
        // suffices (the release idiom: `fence; flag = 0;`), so that it also
        // orders the stores between the two
        let release = (fence == FenceKind::StoreStore && placement == Placement::Statement)
            .then(|| before_statement(decoded, reordering.later, after))
            .flatten();
        for point in release.into_iter().chain([after]) {
            if forbids_at(execution, &[(point, fence)], model) {
                return Some(vec![Reordering {
                    fence,
                    fence_after: point,
                    ..*reordering
                }]);
            }
        }
    }
    let mut stores: Vec<EventId> = Vec::new();
    for store in observed
        .iter()
        .map(|r| r.store)
        .chain(fenceable_stores(decoded))
    {
        if !stores.contains(&store) {
            stores.push(store);
        }
    }
    stores.truncate(MAX_FENCE_CANDIDATES);
    let all: Vec<Candidate> = stores
        .iter()
        .filter_map(|&store| Some((store, place(store)?, FenceKind::Full)))
        .collect();
    let fences = |candidates: &[Candidate]| -> Vec<(EventId, FenceKind)> {
        candidates
            .iter()
            .map(|&(_, after, fence)| (after, fence))
            .collect()
    };
    if !forbids_at(execution, &fences(&all), model) {
        return None;
    }
    // Drop the least preferred fences first while the rest still forbid it.
    let mut kept = all.clone();
    for &(store, _, _) in all.iter().rev() {
        let without: Vec<Candidate> = kept
            .iter()
            .copied()
            .filter(|&(s, _, _)| s != store)
            .collect();
        if forbids_at(execution, &fences(&without), model) {
            kept = without;
        }
    }
    // The cheaper store-store fence for a store another store overtook,
    // where the others still forbid the rest.
    for index in 0..kept.len() {
        let store = kept[index].0;
        if !observed
            .iter()
            .any(|r| r.store == store && r.kind == ReorderingKind::StoreStore)
        {
            continue;
        }
        let mut cheaper = kept.clone();
        cheaper[index].2 = FenceKind::StoreStore;
        if forbids_at(execution, &fences(&cheaper), model) {
            kept = cheaper;
        }
    }
    let effects = Effects::of(execution, witness);
    kept.iter()
        .map(|&candidate| reordering_of(decoded, &effects, observed, model, candidate))
        .collect()
}

/// Every program store followed by another event of its thread: the places
/// where a fence could matter.
fn fenceable_stores(decoded: &Decoded) -> Vec<EventId> {
    let execution = &decoded.execution;
    let mut stores = Vec::new();
    for thread in execution.threads() {
        for window in thread.windows(2) {
            if decoded.events[window[0]].kind.is_store() {
                stores.push(window[0]);
            }
        }
    }
    stores
}

/// The reordering a fence of kind `fence` after `store` (right after the
/// event `after`) addresses: the observed one (a store-store one for a
/// store-store fence), else the one of the witness it forbids
/// ([`witnessed_reordering`]). `None` when the witness shows none.
fn reordering_of(
    decoded: &Decoded,
    effects: &Effects,
    observed: &[Reordering],
    model: MemoryModel,
    (store, after, fence): (EventId, EventId, FenceKind),
) -> Option<Reordering> {
    let fits = |r: &&Reordering| fence == FenceKind::Full || r.kind == ReorderingKind::StoreStore;
    if let Some(reordering) = observed.iter().filter(|r| r.store == store).find(fits) {
        return Some(Reordering {
            fence,
            fence_after: after,
            ..*reordering
        });
    }
    witnessed_reordering(decoded, effects, model, (store, after, fence))
}

/// Whether full fences right after each of `stores` make the execution's
/// reads-from map unrealisable under `model`.
pub fn forbids(execution: &Execution, stores: &[EventId], model: MemoryModel) -> bool {
    forbids_with(execution, stores, FenceKind::Full, model)
}

/// Whether fences of kind `fence` right after each of `stores` make the
/// execution's reads-from map unrealisable under `model`.
pub fn forbids_with(
    execution: &Execution,
    stores: &[EventId],
    fence: FenceKind,
    model: MemoryModel,
) -> bool {
    let fences: Vec<(EventId, FenceKind)> = stores.iter().map(|&store| (store, fence)).collect();
    forbids_at(execution, &fences, model)
}

/// Whether a fence of the given kind right after each given event makes
/// the execution's reads-from map unrealisable under `model`.
fn forbids_at(execution: &Execution, fences: &[(EventId, FenceKind)], model: MemoryModel) -> bool {
    match with_fences(execution, fences) {
        Some(fenced) => verify(&fenced, model).is_err(),
        None => false,
    }
}

/// The execution with a fence event of kind `fence` inserted after each
/// event of `after`.
pub fn with_fences_after(
    execution: &Execution,
    after: &[EventId],
    fence: FenceKind,
) -> Option<Execution> {
    let fences: Vec<(EventId, FenceKind)> = after.iter().map(|&event| (event, fence)).collect();
    with_fences(execution, &fences)
}

/// The execution with a fence event of the given kind inserted after each
/// given event.
fn with_fences(execution: &Execution, fences: &[(EventId, FenceKind)]) -> Option<Execution> {
    let mut threads = Vec::with_capacity(execution.threads().len());
    let mut counter = 0usize;
    for thread in execution.threads() {
        let mut specs = Vec::with_capacity(thread.len() + fences.len());
        for &event in thread {
            specs.push(spec_of(execution, event));
            for &(_, fence) in fences.iter().filter(|&&(after, _)| after == event) {
                counter += 1;
                let op = match fence {
                    FenceKind::Full => OpSpec::Fence,
                    FenceKind::StoreStore => OpSpec::StoreFence,
                };
                specs.push(EventSpec::new(format!("fence#inserted{counter}"), op));
            }
        }
        threads.push(specs);
    }
    Execution::new(threads).ok()
}

/// The specification an event of a validated execution was built from.
fn spec_of(execution: &Execution, event: EventId) -> EventSpec {
    let e = execution.event(event);
    let var = |v: usize| execution.variables()[v].clone();
    let rf = |source: Source| match source {
        Source::Init => RfSpec::Init,
        Source::Event(w) => RfSpec::Event(execution.event(w).id.clone()),
    };
    let op = match &e.op {
        Op::Write { var: v } => OpSpec::Write { var: var(*v) },
        Op::Read { var: v, rf: source } => OpSpec::Read {
            var: var(*v),
            rf: rf(*source),
        },
        Op::Fence => OpSpec::Fence,
        Op::StoreFence => OpSpec::StoreFence,
        Op::AtomicBegin => OpSpec::AtomicBegin,
        Op::AtomicEnd => OpSpec::AtomicEnd,
        Op::Rmw { var: v, rf: source } => OpSpec::Rmw {
            var: var(*v),
            rf: rf(*source),
        },
        Op::Lock { mutex } => OpSpec::Lock {
            mutex: execution.mutexes()[*mutex].clone(),
        },
        Op::Unlock { mutex } => OpSpec::Unlock {
            mutex: execution.mutexes()[*mutex].clone(),
        },
        Op::LockBusy { mutex } => OpSpec::LockBusy {
            mutex: execution.mutexes()[*mutex].clone(),
        },
    };
    EventSpec {
        id: e.id.clone(),
        op,
        value: e.value,
    }
}

#[cfg(test)]
mod tests;
