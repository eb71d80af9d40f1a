//! Shared memory and store buffers of the native engine's states: issuing
//! a store, reading (own buffer first, then memory), flushing, and the
//! records of a replayed trace (write ids, reads-from) in the SMA's event
//! format, so that a native trace goes through the same report as a CBMC
//! counterexample.

use super::state::{Buffered, State};
use crate::ir::OriginId;
use crate::options::MemoryModel;
use crate::passes::SeqStmt;
use crate::smc::symbolic::path::Carried;
use crate::trace::records::{Record, RecordKind};
use std::sync::Arc;

/// The indices of the stores of `buffer` that may reach memory next: the
/// oldest under TSO; under PSO the oldest of each location among those
/// that no store-store fence orders after an older store.
pub fn flushable(buffer: &[Buffered], model: MemoryModel) -> Vec<usize> {
    match (model, buffer.first()) {
        (_, None) | (MemoryModel::Sc, _) => Vec::new(),
        (MemoryModel::Tso, Some(_)) => vec![0],
        (MemoryModel::Pso, Some(first)) => {
            let epoch = first.epoch;
            let mut seen: Vec<u32> = Vec::new();
            let mut indices = Vec::new();
            for (index, store) in buffer.iter().enumerate() {
                if store.epoch != epoch {
                    break;
                }
                if !seen.contains(&store.location) {
                    seen.push(store.location);
                    indices.push(index);
                }
            }
            indices
        }
    }
}

/// The store at `index` of `slot`'s buffer reaches memory.
pub fn flush(state: &mut State, slot: usize, index: usize) {
    let store = state.buffers[slot].remove(index);
    state.memory.set(store.location, store.value);
    let carried = buffered_term(state, &store);
    set_carried(state, store.location, carried.clone());
    state.heap.written(store.location);
    if let Some(recording) = state.recording.as_mut() {
        recording.memory_ids.insert(store.location, store.id);
        recording.records.push(Record {
            kind: RecordKind::Flush,
            thread: slot,
            loc: u64::from(store.location),
            value: i128::from(store.value),
            timestamp: 0,
            write_id: store.id,
            read_from: 0,
            stmt: 0,
        });
    }
    if let Some(carried) = &carried {
        record_term(state, &carried.term);
    }
}

/// The term a buffered store writes, if it writes one.
fn buffered_term(state: &State, store: &Buffered) -> Option<Arc<Carried>> {
    let index = usize::try_from(store.term).ok()?.checked_sub(1)?;
    state.symbolic.threads.as_ref()?.stored.get(index).cloned()
}

/// Notes that the last record's value is the term `term`.
pub fn record_term(state: &mut State, term: &Arc<crate::smc::symbolic::term::Term>) {
    if let Some(recording) = state.recording.as_mut()
        && let Some(last) = recording.records.len().checked_sub(1)
    {
        recording.terms.push((last, term.clone()));
    }
}

/// The term memory holds at `location` becomes `carried` (none: memory
/// holds a concrete value there). A program without terms only looks at
/// an empty map.
pub fn set_carried(state: &mut State, location: u32, carried: Option<Arc<Carried>>) {
    match (carried, state.symbolic.threads.as_mut()) {
        (Some(carried), _) => {
            state
                .symbolic
                .threads_mut()
                .memory
                .insert(location, carried);
        }
        (None, Some(threads)) if !threads.memory.is_empty() => {
            threads.memory.remove(&location);
        }
        (None, _) => {}
    }
}

/// The term memory holds at `location`, if it holds one.
pub fn carried_in_memory(state: &State, location: u32) -> Option<Arc<Carried>> {
    state
        .symbolic
        .threads
        .as_ref()?
        .memory
        .get(&location)
        .cloned()
}

/// The value `slot` reads at `location` (its newest buffered store there,
/// else memory), the write id it comes from (0 when not recording), and
/// the term it reads if the value is one (the `i64` is 0 then).
pub fn read(state: &State, slot: usize, location: u32) -> (i64, u64, Option<Arc<Carried>>) {
    let own = state.buffers[slot]
        .iter()
        .rev()
        .find(|store| store.location == location);
    match own {
        Some(store) => (store.value, store.id, buffered_term(state, store)),
        None => (
            state.memory.at(location),
            memory_id(state, location),
            carried_in_memory(state, location),
        ),
    }
}

/// The write id of the value memory holds at `location`.
pub fn memory_id(state: &State, location: u32) -> u64 {
    state
        .recording
        .as_ref()
        .and_then(|recording| recording.memory_ids.get(&location).copied())
        .unwrap_or(0)
}

/// A fresh write id (0 when not recording).
fn fresh_id(state: &mut State) -> u64 {
    match state.recording.as_mut() {
        Some(recording) => {
            let id = recording.next_id;
            recording.next_id += 1;
            id
        }
        None => 0,
    }
}

/// Writes `value` straight to memory (an RMW, a lock); returns its write id.
pub fn store_in_memory(state: &mut State, location: u32, value: i64) -> u64 {
    store_carried_in_memory(state, location, value, None)
}

/// Writes `value`, or the term `carried` (`value` 0), straight to memory;
/// returns its write id.
pub fn store_carried_in_memory(
    state: &mut State,
    location: u32,
    value: i64,
    carried: Option<Arc<Carried>>,
) -> u64 {
    let id = fresh_id(state);
    state.memory.set(location, value);
    note_carried(state, &carried);
    set_carried(state, location, carried);
    state.heap.written(location);
    if let Some(recording) = state.recording.as_mut() {
        recording.memory_ids.insert(location, id);
    }
    id
}

/// Notes in the recording the term a move stores (RF-SMC's event takes
/// it from there).
fn note_carried(state: &mut State, carried: &Option<Arc<Carried>>) {
    if let (Some(carried), Some(recording)) = (carried, state.recording.as_mut()) {
        recording.carried = Some(carried.clone());
    }
}

/// `slot` issues a store: into its buffer, or to memory under SC; the
/// store writes the term `carried` if it is one (`value` is 0 then).
pub fn write(
    state: &mut State,
    slot: usize,
    location: u32,
    value: i64,
    carried: Option<Arc<Carried>>,
    model: MemoryModel,
    stmt: OriginId,
) {
    let id = fresh_id(state);
    record(state, RecordKind::Write, slot, location, value, id, 0, stmt);
    if let Some(carried) = &carried {
        record_term(state, &carried.term);
    }
    note_carried(state, &carried);
    if model == MemoryModel::Sc {
        state.memory.set(location, value);
        set_carried(state, location, carried);
        state.heap.written(location);
        if let Some(recording) = state.recording.as_mut() {
            recording.memory_ids.insert(location, id);
        }
        return;
    }
    let epoch = state.epochs[slot];
    let term = match carried {
        Some(carried) => {
            let stored = &mut state.symbolic.threads_mut().stored;
            stored.push(carried);
            u32::try_from(stored.len()).unwrap_or(u32::MAX)
        }
        None => 0,
    };
    state.buffers[slot].push(Buffered {
        location,
        value,
        epoch,
        id,
        term,
    });
}

/// Appends a record when the state records a trace.
#[allow(clippy::too_many_arguments)]
pub fn record(
    state: &mut State,
    kind: RecordKind,
    slot: usize,
    location: u32,
    value: i64,
    write_id: u64,
    read_from: u64,
    stmt: OriginId,
) {
    if let Some(recording) = state.recording.as_mut() {
        recording.records.push(Record {
            kind,
            thread: slot,
            loc: u64::from(location),
            value: i128::from(value),
            timestamp: 0,
            write_id,
            read_from,
            stmt,
        });
    }
}

/// A statement's name in a reason for declining.
pub fn statement_name(stmt: &SeqStmt) -> &'static str {
    match stmt {
        SeqStmt::Malloc { .. } => "malloc",
        SeqStmt::Free { .. } => "free",
        SeqStmt::Goto(_) => "goto",
        _ => "of this kind",
    }
}
