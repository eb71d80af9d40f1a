//! Builds the execution (X, RF) of the original program from decoded SMA
//! records: per thread slot the records in trace order are program order;
//! reads name the write they read. Thread creation and join become
//! synthetic events on fresh variables so that every witness respects them.
//!
//! The records are decoded one by one ([`builder`]); the values the report
//! shows are read as the locations' C types read them ([`value_display`]).

mod builder;
#[cfg(test)]
mod tests;
mod value_display;

pub use value_display::ValueDisplay;

use super::records::{Record, RecordKind};
use crate::consistency::{EventId, Execution, ExecutionError, Witness};
use crate::options::SmaImplementation;
use crate::passes::value_types::ValueTypes;
use builder::Builder;
use std::collections::HashMap;
use thiserror::Error;

/// What an event of the execution stands for in the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// A store of `value` to `location`.
    Write {
        location: String,
        value: i128,
    },
    /// A load of `location` that returned `value`; `from` is the event it
    /// reads from (`None`: the initial value).
    Read {
        location: String,
        value: i128,
        from: Option<EventId>,
    },
    /// A fence (`__sync_synchronize()`, an atomic section boundary...).
    Fence,
    /// A store-store fence (`sfence`, `lwsync`, a release fence): under PSO
    /// the thread's later stores reach memory after its earlier ones.
    StoreFence,
    /// The start and end of an atomic section (`__VERIFIER_atomic_*`): no
    /// other thread runs in between.
    AtomicBegin,
    AtomicEnd,
    /// The drain of a thread that creates another.
    CreateDrain,
    /// An atomic read-modify-write that wrote `new`; `old` is the value of
    /// the write it read, when known.
    Rmw {
        location: String,
        old: Option<i128>,
        new: i128,
        from: Option<EventId>,
    },
    /// The drain of a compare-and-swap that failed.
    CasDrain,
    /// The read of a compare-and-swap that failed.
    CasRead {
        location: String,
        value: i128,
        from: Option<EventId>,
    },
    Lock {
        mutex: String,
    },
    Unlock {
        mutex: String,
    },
    /// A failed try-lock: the mutex is held by another thread.
    LockBusy {
        mutex: String,
    },
    /// Synthetic: the creator starts thread `child` (a write of `spawn#child`).
    Spawn {
        child: usize,
    },
    /// Synthetic: the first event of a created thread (a read of `spawn#t`).
    Started,
    /// Synthetic: the last events of a joined thread (a write of `done#t`, a fence).
    Done,
    /// Synthetic: the joiner learns that `joined` has finished.
    Joined {
        joined: usize,
    },
}

impl EventKind {
    /// Whether the event was added to encode creation or join.
    pub fn is_synthetic(&self) -> bool {
        matches!(
            self,
            EventKind::Spawn { .. }
                | EventKind::Started
                | EventKind::Done
                | EventKind::Joined { .. }
        )
    }

    /// Whether the event is a store that a fence could keep from being
    /// delayed (a program write).
    pub fn is_store(&self) -> bool {
        matches!(self, EventKind::Write { .. })
    }

    /// Whether the event is a program load.
    pub fn is_load(&self) -> bool {
        matches!(self, EventKind::Read { .. } | EventKind::CasRead { .. })
    }

    /// The shared location the event accesses, if any.
    pub fn location(&self) -> Option<&str> {
        match self {
            EventKind::Write { location, .. }
            | EventKind::Read { location, .. }
            | EventKind::Rmw { location, .. }
            | EventKind::CasRead { location, .. } => Some(location),
            EventKind::Lock { mutex }
            | EventKind::Unlock { mutex }
            | EventKind::LockBusy { mutex } => Some(mutex),
            _ => None,
        }
    }
}

/// One event of a decoded execution with its meaning in the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventInfo {
    /// The thread slot.
    pub slot: usize,
    /// The source statement id, when the event comes from a record.
    pub stmt: Option<usize>,
    /// The index of the record it was decoded from.
    pub record: Option<usize>,
    pub kind: EventKind,
}

/// An execution decoded from a trace, with the meaning of each event
/// (`events[i]` describes the execution's event `i`).
#[derive(Debug, Clone)]
pub struct Decoded {
    pub execution: Execution,
    pub events: Vec<EventInfo>,
    /// The events in the order the trace issued them.
    pub issue_order: Vec<EventId>,
    /// The write events in the order the SMA says they reached memory,
    /// each placed after the issued event that preceded the flush.
    pub sma_order: Witness,
    /// How the values of each location are shown.
    pub values: ValueDisplay,
    /// The `free`s of the trace, in its order. Freeing is no memory
    /// event: it changes no location, and no thread buffers it.
    pub frees: Vec<Freed>,
}

/// A heap block the trace frees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Freed {
    /// The freeing thread's slot.
    pub slot: usize,
    /// The `free` statement (an index into the translation's origins).
    pub stmt: usize,
    /// The block's first location, by name.
    pub location: String,
}

/// Why records do not form an execution: a defect of the translation or
/// of the SMA, never of the user's program.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuildError {
    #[error("record {index}: read from write id {write_id}, which no earlier record issued")]
    UnknownWrite { index: usize, write_id: u64 },
    #[error("record {index}: reads `{location}` from write id {write_id}, a write of `{other}`")]
    WrongLocation {
        index: usize,
        location: String,
        write_id: u64,
        other: String,
    },
    #[error("record {index}: write id {write_id} is issued twice")]
    DuplicateWrite { index: usize, write_id: u64 },
    #[error("record {index}: thread slot {slot} has an event after it was joined")]
    AfterJoin { index: usize, slot: usize },
    #[error("record {index}: thread slot {slot} is created after it already ran")]
    LateCreate { index: usize, slot: usize },
    #[error("record {index}: thread slot {slot} is out of range")]
    BadSlot { index: usize, slot: usize },
    #[error("record {index}: flush of write id {write_id}, which is not buffered")]
    BadFlush { index: usize, write_id: u64 },
    #[error("the execution is malformed: {0}")]
    Malformed(#[from] ExecutionError),
}

/// Decodes `records` into an execution; `locations` names location ids and
/// `sma` tells how the records encode when stores reach memory. Values stay
/// as recorded (signed).
pub fn build(
    records: &[Record],
    locations: &[String],
    sma: SmaImplementation,
) -> Result<Decoded, BuildError> {
    let locations = crate::ir::Locations::named(locations);
    build_typed(records, &locations, &ValueTypes::default(), sma)
}

/// [`build`], with the values of each location as its C type in `types`
/// reads them: unsigned integers unsigned, and pointers shown as the
/// locations they point to. The pointers of the trace type the heap cells
/// they point into ([`ValueTypes::with_heap_typed`]).
pub fn build_typed(
    records: &[Record],
    locations: &crate::ir::Locations,
    types: &ValueTypes,
    sma: SmaImplementation,
) -> Result<Decoded, BuildError> {
    let accesses: Vec<(u64, i128)> = records
        .iter()
        .filter(|record| {
            matches!(
                record.kind,
                RecordKind::Write | RecordKind::Read | RecordKind::Rmw
            )
        })
        .map(|record| (record.loc, record.value))
        .collect();
    let allocations: Vec<(u64, usize)> = records
        .iter()
        .filter(|record| record.kind == RecordKind::Malloc)
        .map(|record| (record.loc, record.stmt))
        .collect();
    let kinds = types.with_heap_and_allocations_typed(&accesses, &allocations);
    let mut builder = Builder {
        locations,
        kinds,
        touched: records.iter().map(|record| record.loc).collect(),
        types,
        threads: Vec::new(),
        writes: HashMap::new(),
        joined: Vec::new(),
        issue: Vec::new(),
        order: Vec::new(),
        pending: Vec::new(),
        sources: Vec::new(),
        frees: Vec::new(),
        sma,
    };
    for (index, record) in records.iter().enumerate() {
        builder.record(index, record)?;
    }
    builder.finish()
}
