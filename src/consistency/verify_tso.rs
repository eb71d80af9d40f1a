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
/// Written into `key`, which is cleared first.
fn key_into(instance: &Instance, state: &State, key: &mut Vec<u32>) {
    key.clear();
    key.extend(&state.flushed_t);
    key.extend(&state.branches);
    if instance.atomic_sections {
        key.extend(&state.pos);
    }
}

/// [`key_into`] of a new vector.
fn key(instance: &Instance, state: &State) -> Vec<u32> {
    let mut key = Vec::new();
    key_into(instance, state, &mut key);
    key
}

/// What a successor of a state changes: one thread's oldest buffered
/// write reaches memory, or one thread executes a branching event.
#[derive(Clone, Copy)]
enum Step {
    Flush { thread: usize, slot: usize },
    Execute { thread: usize, node: Node },
}

/// The key of the state `state` reaches by `step`, written into `key`
/// without building that state: a flush advances its thread's flushed
/// writes; a branching event advances its thread's branches (and, under
/// SC, a write's flush; with atomic sections, its position). The search
/// checks it against the built state in debug builds.
fn key_after(instance: &Instance, state: &State, step: Step, key: &mut Vec<u32>) {
    key_into(instance, state, key);
    let threads = instance.threads.len();
    match step {
        Step::Flush { thread, .. } => key[thread] += 1,
        Step::Execute { thread, node } => {
            key[threads + thread] += 1;
            if matches!(instance.nodes[node].kind, Kind::Write { .. }) {
                key[thread] += 1;
            }
            if instance.atomic_sections {
                key[2 * threads + thread] += 1;
            }
        }
    }
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
    let mut scratch = Vec::new();
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
            let flush = state
                .oldest_pending(instance, thread)
                .filter(|&slot| state.can_flush(instance, slot))
                .map(|slot| Step::Flush { thread, slot });
            let execute = state
                .next(instance, thread)
                .filter(|&node| is_branching(instance, node) && state.can_execute(instance, node))
                .map(|node| Step::Execute { thread, node });
            for step in flush.into_iter().chain(execute) {
                key_after(instance, &state, step, &mut scratch);
                if done.contains(scratch.as_slice()) {
                    continue;
                }
                let mut next = state.clone();
                match step {
                    Step::Flush { slot, .. } => next.flush(instance, slot),
                    Step::Execute { node, .. } => next.execute(instance, node),
                }
                debug_assert_eq!(key(instance, &next), scratch);
                done.insert(scratch.clone());
                worklist.push(next);
            }
        }
    }
    Some((None, explored))
}
