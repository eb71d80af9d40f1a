//! Diagnosis of a confirmed counterexample: whether its reads-from map is
//! realisable under sequential consistency, and if not, which reorderings
//! the bug needs (a store still buffered when a later load of its thread
//! ran, the delayed store behind the happens-before cycle of Burnim et al.,
//! TACAS 2011, sec. 4-5; or under PSO two stores that reached memory out of
//! program order) and where fences forbid it. Candidate fences are tested
//! natively: a fence event is inserted into the execution and the check is
//! run again. A fence goes after the statement of its store, where a fence
//! inserted into the source would be (after `x = y = 0;`, not between its
//! two stores); only when that does not forbid the counterexample, right
//! after the store. Under PSO a store-store reordering is offered the
//! cheaper store-store fence wherever it suffices.

pub mod cycle;

use super::execution::Decoded;
use crate::consistency::{
    EventId, EventSpec, Execution, Op, OpSpec, Phase, RfSpec, Source, Witness, delayed_stores,
    verify,
};
use crate::ir::FenceKind;
use crate::options::MemoryModel;
use cycle::{CycleEdge, happens_before_cycle};
use std::collections::HashSet;

/// How two events of one thread were reordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReorderingKind {
    /// The store was still buffered when the later load ran.
    StoreLoad,
    /// The later store reached memory before the store (PSO).
    StoreStore,
}

/// A reordering of `store` with the `later` event of the same thread; a
/// `fence` between them forbids it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reordering {
    pub kind: ReorderingKind,
    pub store: EventId,
    pub later: EventId,
    pub fence: FenceKind,
    /// The event right after which the fence goes: the last event of the
    /// store's statement ([`rest_of_statement`]), as a fence inserted into
    /// the source after that statement; the store itself when the fence
    /// must split its statement.
    pub fence_after: EventId,
}

/// Where a fence for a store goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// After the store's statement: what a fence inserted into the source
    /// does.
    Statement,
    /// Right after the store, inside its statement.
    Event,
}

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
        if let Some(reorderings) = fences_that_forbid(decoded, &observed, model, placement) {
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
/// store-store reordering. `None` when no such set was found.
fn fences_that_forbid(
    decoded: &Decoded,
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
    Some(
        kept.iter()
            .map(|&(store, after, fence)| reordering_of(decoded, observed, store, after, fence))
            .collect(),
    )
}

/// The events of `event`'s thread from `event` on that its source
/// statement makes (`x = y = 0;`, a structure copy, or one statement run
/// again, as a loop body without other accesses): where a fence inserted
/// after that statement comes, the last of them. At least `event`.
pub fn rest_of_statement(decoded: &Decoded, event: EventId) -> &[EventId] {
    let execution = &decoded.execution;
    let this = execution.event(event);
    let thread = &execution.threads()[this.thread];
    let statement = decoded.events.get(event).and_then(|info| info.stmt);
    let same = thread[this.index..]
        .iter()
        .take_while(|&&other| {
            statement.is_some()
                && decoded
                    .events
                    .get(other)
                    .is_some_and(|info| info.stmt == statement && !info.kind.is_synthetic())
        })
        .count();
    &thread[this.index..this.index + same.max(1)]
}

/// The event right before the statement of `later` in its thread, where a
/// fence inserted into the source just before that statement comes; `None`
/// unless it comes after `earliest` (the store's own statement) and
/// differs from it.
fn before_statement(decoded: &Decoded, later: EventId, earliest: EventId) -> Option<EventId> {
    let execution = &decoded.execution;
    let this = execution.event(later);
    let thread = &execution.threads()[this.thread];
    let statement = decoded.events.get(later).and_then(|info| info.stmt)?;
    let first = thread[..this.index].iter().rposition(|&other| {
        decoded
            .events
            .get(other)
            .is_none_or(|info| info.stmt != Some(statement) || info.kind.is_synthetic())
    })?;
    let point = thread[first];
    let earliest_index = execution.event(earliest).index;
    (execution.event(point).thread == execution.event(earliest).thread && first > earliest_index)
        .then_some(point)
}

/// The event a fence for `store` goes after: under `Statement`, the last
/// of [`rest_of_statement`], `None` when one of `laters` is among them
/// (only a fence inside the statement comes between); under `Event`, the
/// store.
fn fence_point(
    decoded: &Decoded,
    store: EventId,
    laters: &[EventId],
    placement: Placement,
) -> Option<EventId> {
    match placement {
        Placement::Event => Some(store),
        Placement::Statement => {
            let rest = rest_of_statement(decoded, store);
            match rest.last() {
                Some(&last) if !rest.iter().any(|event| laters.contains(event)) => Some(last),
                _ => None,
            }
        }
    }
}

/// The reorderings the witness uses, in witness order, program events only:
/// stores still buffered when a later load (of another variable) ran, and
/// under PSO stores overtaken in memory by a later store of their thread.
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
/// store-store fence), else the store and the next load or store of its
/// thread.
fn reordering_of(
    decoded: &Decoded,
    observed: &[Reordering],
    store: EventId,
    after: EventId,
    fence: FenceKind,
) -> Reordering {
    let fits = |r: &&Reordering| fence == FenceKind::Full || r.kind == ReorderingKind::StoreStore;
    if let Some(reordering) = observed.iter().filter(|r| r.store == store).find(fits) {
        return Reordering {
            fence,
            fence_after: after,
            ..*reordering
        };
    }
    let execution = &decoded.execution;
    let event = execution.event(after);
    let thread = &execution.threads()[event.thread];
    let next = thread[event.index + 1..]
        .iter()
        .copied()
        .find(|&e| decoded.events[e].kind.is_load() || decoded.events[e].kind.is_store())
        .or_else(|| thread.get(event.index + 1).copied())
        .unwrap_or(store);
    let kind = if decoded.events[next].kind.is_store() {
        ReorderingKind::StoreStore
    } else {
        ReorderingKind::StoreLoad
    };
    Reordering {
        kind,
        store,
        later: next,
        fence,
        fence_after: after,
    }
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
