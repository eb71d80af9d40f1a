//! VerifyTSO (seed 000, Algorithm 1): enumerates the lower sets of the
//! memory writes, each with one trace that is maximal in thread events. With
//! atomic writes (every write flushed when issued) it decides SC.

use super::model::MemoryModel;
use super::state::{Instance, Kind, Node, State};
use rustc_hash::FxHashSet;

/// Thread events that are not executed greedily: they contain a memory
/// write (RMW, SC write) or take a mutex, so executing them is a choice.
fn is_branching(instance: &Instance, node: Node) -> bool {
    match instance.nodes[node].kind {
        // A failed try-lock runs only while a thread (its own too) holds
        // the mutex, and an unlock ends that window: whether it ran is not
        // fixed by the writes in memory, so both are choices.
        Kind::Rmw { .. } | Kind::Lock { .. } | Kind::AtomicBegin | Kind::LockBusy { .. } => true,
        Kind::Unlock { .. } => instance.busy_locks,
        Kind::Write { .. } => instance.model == MemoryModel::Sc,
        _ => false,
    }
}

/// Lines 4-5: executes every executable non-branching thread event.
fn saturate(instance: &Instance, state: &mut State) {
    loop {
        let mut progress = false;
        for thread in 0..instance.threads.len() {
            while let Some(node) = state.next(instance, thread)
                && !is_branching(instance, node)
                && state.can_execute(instance, node)
            {
                state.execute(instance, node);
                progress = true;
            }
        }
        if !progress {
            return;
        }
    }
}

/// The lower set of memory writes (and branching events) of a state. With
/// atomic sections the thread events are part of it: a section blocks the
/// other threads, so the saturated trace also depends on when it began.
fn key(instance: &Instance, state: &State) -> Vec<u32> {
    let mut key: Vec<u32> = state
        .flushed_t
        .iter()
        .chain(&state.branches)
        .copied()
        .collect();
    if instance.atomic_sections {
        key.extend(&state.pos);
    }
    key
}

/// Runs VerifyTSO; returns a complete state, or `None` if not realisable,
/// with the number of prefixes explored.
pub(crate) fn verify_tso(instance: &Instance) -> (Option<State>, usize) {
    verify_tso_within(instance, usize::MAX).unwrap_or((None, usize::MAX))
}

/// [`verify_tso`] that explores at most `limit` prefixes: `None` when it
/// reaches the limit undecided.
pub(crate) fn verify_tso_within(
    instance: &Instance,
    limit: usize,
) -> Option<(Option<State>, usize)> {
    let initial = State::initial(instance);
    let mut done: FxHashSet<Vec<u32>> = [key(instance, &initial)].into_iter().collect();
    let mut worklist = vec![initial];
    let mut explored = 0;
    while let Some(mut state) = worklist.pop() {
        if explored == limit {
            return None;
        }
        explored += 1;
        saturate(instance, &mut state);
        if state.is_complete(instance) {
            return Some((Some(state), explored));
        }
        for thread in 0..instance.threads.len() {
            if let Some(slot) = state.oldest_pending(instance, thread)
                && state.can_flush(instance, slot)
            {
                let mut next = state.clone();
                next.flush(instance, slot);
                if done.insert(key(instance, &next)) {
                    worklist.push(next);
                }
            }
            if let Some(node) = state.next(instance, thread)
                && is_branching(instance, node)
                && state.can_execute(instance, node)
            {
                let mut next = state.clone();
                next.execute(instance, node);
                if done.insert(key(instance, &next)) {
                    worklist.push(next);
                }
            }
        }
    }
    Some((None, explored))
}
