//! NaiveVerifyTSO / NaiveVerifyPSO (seed 000 sec. 6.1): enumerates every
//! lower set of (X, PO), thread events and memory writes alike. The
//! baseline for tests and benchmarks.

use super::model::MemoryModel;
use super::state::{Instance, State};
use rustc_hash::FxHashSet;

fn key(state: &State) -> Vec<u32> {
    state.pos.iter().chain(&state.flushed_tx).copied().collect()
}

/// Runs the naive enumeration; returns a complete state, or `None` if not
/// realisable, with the number of lower sets explored.
pub(crate) fn naive_verify(instance: &Instance) -> (Option<State>, usize) {
    naive_verify_within(instance, usize::MAX).unwrap_or((None, usize::MAX))
}

/// [`naive_verify`] that gives up (`None`) after exploring `limit` lower
/// sets.
pub(crate) fn naive_verify_within(
    instance: &Instance,
    limit: usize,
) -> Option<(Option<State>, usize)> {
    let initial = State::initial(instance);
    let mut done: FxHashSet<Vec<u32>> = [key(&initial)].into_iter().collect();
    let mut worklist = vec![initial];
    let mut explored = 0;
    while let Some(state) = worklist.pop() {
        if explored == limit {
            return None;
        }
        explored += 1;
        if state.is_complete(instance) {
            return Some((Some(state), explored));
        }
        let mut successors = Vec::new();
        for thread in 0..instance.threads.len() {
            if let Some(node) = state.next(instance, thread)
                && state.can_execute(instance, node)
            {
                let mut next = state.clone();
                next.execute(instance, node);
                successors.push(next);
            }
            let pending = match instance.model {
                MemoryModel::Pso => state.pending_heads(instance, thread),
                MemoryModel::Tso | MemoryModel::Sc => {
                    state.oldest_pending(instance, thread).into_iter().collect()
                }
            };
            for slot in pending {
                if state.can_flush(instance, slot) {
                    let mut next = state.clone();
                    next.flush(instance, slot);
                    successors.push(next);
                }
            }
        }
        for next in successors {
            if done.insert(key(&next)) {
                worklist.push(next);
            }
        }
    }
    Some((None, explored))
}
