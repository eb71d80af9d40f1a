//! The events of reads-from stateless model checking (RF-SMC): one per
//! thread move of the native machine (its visible statement, with the
//! private statements after it), named by thread and position, with the
//! write each read takes its value from. A move that an assumption or a
//! loop bound cuts off keeps only its read (the value decided the cut);
//! a lock that finds its mutex held when nothing else can run is a
//! blocked attempt that reads the holder's lock. A move's
//! nondeterministic values ([`Chosen`]) are part of its event: an
//! execution is named by its reads-from relation and its choices.

use crate::smc::symbolic::path::Carried;
use crate::trace::records::{Record, RecordKind};
use std::sync::Arc;

/// An event's name: its thread and its position among the thread's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub thread: usize,
    pub index: usize,
}

/// Where a read takes its value from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The location's initial value.
    Init,
    /// The write part of an event.
    Event(Key),
}

/// What an event does to shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Private statements only (a thread's last move without a visible
    /// statement).
    Internal,
    Read {
        location: u32,
    },
    Write {
        location: u32,
    },
    /// A read-modify-write; `writes` is false for a CAS that failed.
    Rmw {
        location: u32,
        writes: bool,
    },
    Fence,
    StoreFence,
    /// A lock taken (reads the mutex free and sets it, Remark 1).
    Lock {
        location: u32,
    },
    /// A lock attempt that finds the mutex held: its thread waits for ever.
    BlockedLock {
        location: u32,
    },
    Unlock {
        location: u32,
    },
    TryLock {
        location: u32,
        taken: bool,
    },
    Create {
        child: usize,
    },
    Join {
        child: usize,
    },
}

impl Access {
    /// The location the event reads, if its value can come from more than
    /// one write (the reads RF-SMC mutates).
    pub fn read_location(self) -> Option<u32> {
        match self {
            Access::Read { location }
            | Access::Rmw { location, .. }
            | Access::Lock { location }
            | Access::BlockedLock { location }
            | Access::TryLock { location, .. } => Some(location),
            _ => None,
        }
    }

    /// The location the event reads in the oracle's encoding: the one
    /// [`Access::read_location`] names, and for an unlock the mutex (it
    /// reads the holder's lock).
    pub fn encoded_read_location(self) -> Option<u32> {
        match self {
            Access::Unlock { location } => Some(location),
            access => access.read_location(),
        }
    }

    /// The location the event writes to memory, if it writes.
    pub fn write_location(self) -> Option<u32> {
        match self {
            Access::Write { location }
            | Access::Rmw {
                location,
                writes: true,
            }
            | Access::Lock { location }
            | Access::Unlock { location }
            | Access::TryLock {
                location,
                taken: true,
            } => Some(location),
            _ => None,
        }
    }

    /// Whether the event is atomic on its location (reads memory and
    /// writes it in one step, or would if its read allowed it).
    pub fn is_atomic(self) -> bool {
        matches!(
            self,
            Access::Rmw { .. }
                | Access::Lock { .. }
                | Access::BlockedLock { .. }
                | Access::TryLock { .. }
        )
    }
}

/// One nondeterministic value a move took: `value`, one of the `values`
/// values `lo..lo+values`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chosen {
    pub value: i64,
    pub lo: i64,
    pub values: u32,
}

impl Chosen {
    /// The other values of this choice, in order.
    pub fn others(self) -> impl Iterator<Item = i64> {
        (0..i64::from(self.values))
            .map(move |offset| self.lo + offset)
            .filter(move |&value| value != self.value)
    }
}

/// One event of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub key: Key,
    pub access: Access,
    /// The write read (reads, RMWs, locks, unlocks, joins).
    pub source: Option<Source>,
    /// The value read, if the event reads.
    pub read_value: Option<i64>,
    /// The value written, if the event writes.
    pub written: Option<i64>,
    /// The term written, if the event writes one (`written` is 0 then);
    /// read only where `written` is set.
    pub written_term: Option<Arc<Carried>>,
    /// An assumption or loop bound cut the move off: only its read counts
    /// and its thread stops.
    pub blocked: bool,
    /// The thread ends with this move.
    pub finishes: bool,
    /// The nondeterministic values the move took, in order.
    pub chosen: Vec<Chosen>,
    /// How many of `chosen` the schedule fixed; the others are free: the
    /// move took each's first value, and the search proposes the rest.
    pub forced: usize,
}

impl Event {
    /// Whether RF-SMC may change the write this event reads from.
    pub fn is_mutable_read(&self) -> bool {
        self.access.read_location().is_some() && self.source.is_some()
    }

    /// The values of its choices.
    pub fn choice_values(&self) -> Vec<i64> {
        self.chosen.iter().map(|chosen| chosen.value).collect()
    }

    /// Whether the event took a value the schedule did not fix.
    pub fn has_free_choices(&self) -> bool {
        self.forced < self.chosen.len()
    }

    /// The event with every choice fixed (carried into a schedule as it
    /// happened).
    pub fn fixed(mut self) -> Event {
        self.forced = self.chosen.len();
        self
    }

    /// Whether the event stores to `location` (its write part exists).
    pub fn writes_to(&self, location: u32) -> bool {
        !self.blocked && self.access.write_location() == Some(location)
    }
}

/// The visible part of a move, read off its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visible {
    pub access: Access,
    /// The write id read (0: the initial value), for reads and RMWs.
    pub read_from: Option<u64>,
    /// The write id of the store, if the move stores.
    pub write_id: Option<u64>,
    pub read_value: Option<i64>,
    pub written: Option<i64>,
    /// The term the move stored, if it stored one.
    pub written_term: Option<Arc<Carried>>,
    /// The move opened (`Some(true)`) or closed an atomic section.
    pub atomic: Option<bool>,
    /// The move allocated or freed a heap block.
    pub heap: bool,
    /// The first location of the block the move allocated, if it did.
    pub allocated: Option<u32>,
    /// The first location of the block the move freed, if it did.
    pub freed: Option<u32>,
}

/// The visible part of a move from the records it appended.
pub fn visible(records: &[Record]) -> Visible {
    let mut seen = Visible {
        access: Access::Internal,
        read_from: None,
        write_id: None,
        read_value: None,
        written: None,
        written_term: None,
        atomic: None,
        heap: false,
        allocated: None,
        freed: None,
    };
    for record in records {
        let location = u32::try_from(record.loc).unwrap_or(u32::MAX);
        let value = i64::try_from(record.value).unwrap_or(0);
        match record.kind {
            RecordKind::Read => {
                seen.access = Access::Read { location };
                seen.read_from = Some(record.read_from);
                seen.read_value = Some(value);
            }
            RecordKind::Write => {
                seen.access = Access::Write { location };
                seen.write_id = Some(record.write_id);
                seen.written = Some(value);
            }
            RecordKind::Rmw => {
                let writes = record.write_id != 0;
                seen.access = Access::Rmw { location, writes };
                seen.read_from = Some(record.read_from);
                if writes {
                    seen.write_id = Some(record.write_id);
                    seen.written = Some(value);
                } else {
                    seen.read_value = Some(value);
                }
            }
            RecordKind::Fence => {
                if seen.access == Access::Internal {
                    seen.access = Access::Fence;
                }
            }
            RecordKind::StoreFence => seen.access = Access::StoreFence,
            RecordKind::Lock => {
                seen.access = Access::Lock { location };
                seen.write_id = Some(record.write_id);
                seen.written = Some(value);
                seen.read_value = Some(0);
            }
            RecordKind::Unlock => {
                seen.access = Access::Unlock { location };
                seen.write_id = Some(record.write_id);
                seen.written = Some(value);
            }
            RecordKind::LockBusy => {
                seen.access = Access::TryLock {
                    location,
                    taken: false,
                };
                seen.read_from = Some(record.read_from);
                seen.read_value = Some(value);
            }
            RecordKind::Create => {
                seen.access = Access::Create {
                    child: location as usize,
                }
            }
            RecordKind::Join => {
                seen.access = Access::Join {
                    child: location as usize,
                }
            }
            RecordKind::AtomicBegin => seen.atomic = Some(true),
            RecordKind::AtomicEnd => seen.atomic = Some(false),
            RecordKind::Malloc => {
                seen.heap = true;
                seen.allocated = Some(location);
            }
            RecordKind::Free => {
                seen.heap = true;
                seen.freed = Some(location);
            }
            RecordKind::Flush => {}
        }
    }
    seen
}
