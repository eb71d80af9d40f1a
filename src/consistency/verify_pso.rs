//! VerifyPSO (seed 000, Algorithm 2): enumerates the lower sets of thread
//! events, flushing spurious writes eagerly and other writes only when a
//! read or fence needs them, deduplicated by (thread events, fence map).
//!
//! Store-store fences are not in the paper's model. A write behind one may
//! reach memory only after its thread's writes before the fence: when a
//! remote read needs such a write, those are flushed first, oldest first.
//! The Done key then also holds the writes in memory. The search stays
//! sound (every step is checked) but random testing finds rare executions
//! where it misses a witness; `verify_with` then falls back to the naive
//! enumeration (complete, within its bound).

use super::state::{Instance, Kind, Node, State};
use rustc_hash::FxHashSet;

/// Lines 4-5: flushes every executable spurious write (one no remaining
/// read reads from).
fn flush_spurious(instance: &Instance, state: &mut State) {
    loop {
        let mut progress = false;
        for thread in 0..instance.threads.len() {
            for slot in state.pending_heads(instance, thread) {
                let src = instance.vars + instance.writes[slot].event;
                if state.readers[src] == 0 && state.can_flush(instance, slot) {
                    state.flush(instance, slot);
                    progress = true;
                }
            }
        }
        if !progress {
            return;
        }
    }
}

/// Flushes all pending writes of `thread` in some order respecting the
/// executability conditions; returns whether the buffers are now empty.
fn drain(instance: &Instance, state: &mut State, thread: usize) -> bool {
    while !state.is_drained(thread) {
        let heads = state.pending_heads(instance, thread);
        let Some(slot) = heads
            .into_iter()
            .find(|&slot| state.can_flush(instance, slot))
        else {
            return false;
        };
        state.flush(instance, slot);
    }
    true
}

/// Flushes the pending writes that a store-store fence puts before `slot`,
/// oldest first; returns false if one of them cannot reach memory now.
fn flush_fenced_writes(instance: &Instance, state: &mut State, slot: usize) -> bool {
    for &earlier in instance.fenced_writes(slot) {
        if !state.is_flushed(instance, earlier) {
            if !state.can_flush(instance, earlier) {
                return false;
            }
            state.flush(instance, earlier);
        }
    }
    true
}

/// Lines 8-15: extends `state` with the thread event `node`, preceded by the
/// memory write it reads from (remote reads) or the pending writes of its
/// thread (fences). Returns false if `node` is not PSO-executable.
fn extend(instance: &Instance, state: &mut State, node: Node) -> bool {
    let thread = instance.nodes[node].thread;
    match instance.nodes[node].kind {
        Kind::Read { src, .. } | Kind::Rmw { src, .. } => {
            if let Some(slot) = instance.src_slot(src)
                && instance.writes[slot].thread != thread
                && !state.is_flushed(instance, slot)
            {
                if !flush_fenced_writes(instance, state, slot) || !state.can_flush(instance, slot) {
                    return false;
                }
                state.flush(instance, slot);
            }
        }
        Kind::Fence { .. } if !drain(instance, state, thread) => return false,
        _ => {}
    }
    if !state.can_execute(instance, node) {
        return false;
    }
    state.execute(instance, node);
    true
}

/// The fence map FMap of sec. 4.2: for each (thr, thr'), 1 + the index of
/// the latest unexecuted read of thr' that thr's next fence must wait for.
fn fence_map(instance: &Instance, state: &State) -> Vec<u32> {
    let threads = instance.threads.len();
    let mut map = vec![0; threads * threads];
    for thr in 0..threads {
        if state.pos[thr] as usize >= instance.fence_end[thr] {
            continue;
        }
        for other in (0..threads).filter(|&other| other != thr) {
            let pos = state.pos[other] as usize;
            for &read in instance.reads[other].iter().rev() {
                let index = instance.nodes[read].index;
                if index < pos {
                    break;
                }
                let Some((var, src)) = instance.read_var(read) else {
                    continue;
                };
                let writer = instance.src_thread(src);
                let tx = thr * instance.vars + var;
                if writer != Some(thr)
                    && writer != Some(other)
                    && state.memory[var] == src
                    && state.issued_tx[tx] > state.flushed_tx[tx]
                {
                    map[thr * threads + other] = index as u32 + 1;
                    break;
                }
            }
        }
    }
    map
}

/// The Done key: thread events and fence map (Algorithm 2, line 16), plus
/// the buffered writes that are spurious but blocked, and with store-store
/// fences the writes in memory (which then depend on more than the thread
/// events). Without the blocked spurious writes the deduplication is
/// incomplete with RMW blocks: a prefix that flushed a write
/// read by an RMW before another thread issued a spurious write on the same
/// variable can never flush that write (the variable stays held until the
/// RMW overwrites it), while a prefix with the same thread events and fence
/// map that issued the spurious write first completes.
fn key(instance: &Instance, state: &State) -> Vec<u32> {
    let mut key = state.pos.clone();
    key.extend(fence_map(instance, state));
    if instance.store_fences {
        key.extend(&state.flushed_tx);
    }
    for thread in 0..instance.threads.len() {
        for slot in state.pending_heads(instance, thread) {
            if state.readers[instance.vars + instance.writes[slot].event] == 0 {
                key.push(slot as u32);
            }
        }
    }
    key
}

/// Runs VerifyPSO; returns a complete state, or `None` if not realisable,
/// with the number of prefixes explored.
pub(crate) fn verify_pso(instance: &Instance) -> (Option<State>, usize) {
    let initial = State::initial(instance);
    let mut done: FxHashSet<Vec<u32>> = [key(instance, &initial)].into_iter().collect();
    let mut worklist = vec![initial];
    let mut explored = 0;
    while let Some(mut state) = worklist.pop() {
        explored += 1;
        flush_spurious(instance, &mut state);
        if state.is_complete(instance) {
            return (Some(state), explored);
        }
        for thread in 0..instance.threads.len() {
            let Some(node) = state.next(instance, thread) else {
                continue;
            };
            let mut next = state.clone();
            if extend(instance, &mut next, node) && done.insert(key(instance, &next)) {
                worklist.push(next);
            }
        }
    }
    (None, explored)
}
