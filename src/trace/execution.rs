//! Builds the execution (X, RF) of the original program from decoded SMA
//! records: per thread slot the records in trace order are program order;
//! reads name the write they read. Thread creation and join become
//! synthetic events on fresh variables so that every witness respects them.

use super::records::{Record, RecordKind};
use crate::consistency::{
    EventId, EventSpec, Execution, ExecutionError, OpSpec, Phase, RfSpec, Step, Witness,
};
use crate::options::SmaImplementation;
use crate::passes::value_types::{ValueKind, ValueTypes, pointed_location};
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

/// Shows the values of locations as their C types read them: pointers as
/// the locations they point to (`&x`, `&heap#0[1]`, `NULL`), floating
/// values as numbers (`1.5`) rather than their bits, the rest as integers
/// (already unsigned where the type is).
#[derive(Debug, Clone, Default)]
pub struct ValueDisplay {
    /// Index = location id.
    names: Vec<String>,
    /// The locations that hold pointers, by name: how the name of the
    /// first scalar of what each points to ends ([`ValueTypes::first_scalars`]).
    pointers: HashMap<String, String>,
    /// Whether pointer values are byte addresses ([`ValueTypes::byte_addresses`]).
    byte_addresses: bool,
    /// The locations that hold pointers to functions, by name.
    function_pointers: std::collections::HashSet<String>,
    /// The functions by number less one.
    function_names: Vec<String>,
    /// The locations that hold thread handles, by name.
    thread_handles: std::collections::HashSet<String>,
    /// The threads by slot.
    thread_names: Vec<String>,
    /// The locations that hold floating values, by name: their bits.
    floats: HashMap<String, u8>,
}

impl ValueDisplay {
    fn new(names: &[String], kinds: &[ValueKind], types: &ValueTypes) -> ValueDisplay {
        let pointers = names
            .iter()
            .zip(kinds)
            .filter_map(|(name, kind)| match kind {
                ValueKind::Pointer { pointee } => {
                    let first = pointee
                        .and_then(|shape| types.first_scalars.get(shape))
                        .cloned()
                        .unwrap_or_default();
                    Some((name.clone(), first))
                }
                _ => None,
            })
            .collect();
        let holding = |wanted: ValueKind| -> std::collections::HashSet<String> {
            names
                .iter()
                .zip(kinds)
                .filter(|(_, kind)| **kind == wanted)
                .map(|(name, _)| name.clone())
                .collect()
        };
        let (function_pointers, thread_handles) =
            (holding(ValueKind::Function), holding(ValueKind::Thread));
        let floats = names
            .iter()
            .zip(kinds)
            .filter_map(|(name, kind)| match kind {
                ValueKind::Float { bits } => Some((name.clone(), *bits)),
                _ => None,
            })
            .collect();
        ValueDisplay {
            names: names.to_vec(),
            pointers,
            byte_addresses: types.byte_addresses,
            function_pointers,
            function_names: types.function_names.clone(),
            thread_handles,
            thread_names: types.thread_names.clone(),
            floats,
        }
    }

    /// A pointer to a function: `&name` of the function its number
    /// names, `NULL`, or the number.
    fn function(&self, value: i128) -> String {
        if value == 0 {
            return "NULL".to_string();
        }
        let name = usize::try_from(value - 1)
            .ok()
            .and_then(|index| self.function_names.get(index));
        name.map_or_else(|| value.to_string(), |name| format!("&{name}"))
    }

    /// `value` of `location` as a number for machines (JSON's `value`):
    /// a floating value as its shortest exact decimal, any other as the
    /// integer memory holds (a pointer's location id).
    pub fn number(&self, location: &str, value: i128) -> String {
        match self.floats.get(location) {
            Some(bits) => floating_value(value, *bits),
            None => value.to_string(),
        }
    }

    /// `value` of `location`, as the report shows it.
    pub fn show(&self, location: &str, value: i128) -> String {
        if self.function_pointers.contains(location) {
            return self.function(value);
        }
        if let Some(bits) = self.floats.get(location) {
            return floating_value(value, *bits);
        }
        if self.thread_handles.contains(location) {
            let name = usize::try_from(value)
                .ok()
                .and_then(|slot| self.thread_names.get(slot));
            return name.map_or_else(|| value.to_string(), |name| format!("thread {name}"));
        }
        let Some(first_scalar) = self.pointers.get(location) else {
            return value.to_string();
        };
        let pointed = pointed_location(value, self.byte_addresses)
            .and_then(|(location, tag)| Some((usize::try_from(location).ok()?, tag)))
            .and_then(|(location, tag)| Some((location, self.names.get(location)?, tag)));
        match pointed {
            Some((0, _, 0)) => "NULL".to_string(),
            Some((0, _, _)) | None => value.to_string(),
            Some((_, target, tag)) => {
                // a struct's address is its first scalar's: named by the struct
                let object = target
                    .strip_suffix(first_scalar.as_str())
                    .filter(|_| !first_scalar.is_empty())
                    .unwrap_or(target);
                match tag {
                    0 => format!("&{object}"),
                    _ => format!("&{object} | {tag}"),
                }
            }
        }
    }
}

/// The floating value of `bits` bits whose bits memory holds as `stored`
/// (a `float`'s as a signed 32-bit integer), as C would print it with
/// enough digits to give it back.
fn floating_value(stored: i128, bits: u8) -> String {
    match bits {
        32 => format!("{:?}", f32::from_bits(stored as i32 as u32)),
        _ => format!("{:?}", f64::from_bits(stored as i64 as u64)),
    }
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

/// The largest thread slot accepted (a guard against garbage records).
const MAX_SLOTS: usize = 4096;

/// A writer known by its write id.
#[derive(Debug, Clone)]
struct KnownWrite {
    name: String,
    location: String,
    value: i128,
    /// Lock and unlock write a mutex; a load cannot read them as data.
    mutex: bool,
    event: Option<(usize, usize)>,
}

/// Builds an execution from records.
struct Builder<'a> {
    locations: &'a [String],
    /// Index = location id: how its values are shown.
    kinds: Vec<ValueKind>,
    /// The value types of the translation.
    types: &'a ValueTypes,
    threads: Vec<Vec<(EventSpec, EventInfo)>>,
    writes: HashMap<u64, KnownWrite>,
    joined: Vec<bool>,
    issue: Vec<(usize, usize)>,
    /// Steps of the SMA order, as (slot, index, phase).
    order: Vec<(usize, usize, Phase)>,
    /// Pending writes under eTSO/ePSO: (timestamp, write id, slot, index).
    pending: Vec<(u64, u64, usize, usize)>,
    /// (reader, writer) places, resolved to event ids at the end.
    sources: Vec<((usize, usize), (usize, usize))>,
    frees: Vec<Freed>,
    sma: SmaImplementation,
}

/// Decodes `records` into an execution; `locations` names location ids and
/// `sma` tells how the records encode when stores reach memory. Values stay
/// as recorded (signed).
pub fn build(
    records: &[Record],
    locations: &[String],
    sma: SmaImplementation,
) -> Result<Decoded, BuildError> {
    build_typed(records, locations, &ValueTypes::default(), sma)
}

/// [`build`], with the values of each location as its C type in `types`
/// reads them: unsigned integers unsigned, and pointers shown as the
/// locations they point to. The pointers of the trace type the heap cells
/// they point into ([`ValueTypes::with_heap_typed`]).
pub fn build_typed(
    records: &[Record],
    locations: &[String],
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

impl Builder<'_> {
    fn location_name(&self, loc: u64) -> String {
        usize::try_from(loc)
            .ok()
            .and_then(|index| self.locations.get(index))
            .cloned()
            .unwrap_or_else(|| format!("location#{loc}"))
    }

    fn ensure_slot(&mut self, index: usize, slot: usize) -> Result<(), BuildError> {
        if slot >= MAX_SLOTS {
            return Err(BuildError::BadSlot { index, slot });
        }
        if self.threads.len() <= slot {
            self.threads.resize_with(slot + 1, Vec::new);
            self.joined.resize(slot + 1, false);
        }
        Ok(())
    }

    /// Appends an event to `slot` and to the issue order; returns its place.
    fn push(&mut self, slot: usize, spec: EventSpec, info: EventInfo) -> (usize, usize) {
        let place = (slot, self.threads[slot].len());
        self.threads[slot].push((spec, info));
        self.issue.push(place);
        let phase = if matches!(self.threads[slot][place.1].0.op, OpSpec::Write { .. }) {
            Phase::Buffer
        } else {
            Phase::Execute
        };
        self.order.push((slot, place.1, phase));
        place
    }

    fn program_event(
        &mut self,
        index: usize,
        record: &Record,
        spec: EventSpec,
        kind: EventKind,
    ) -> (usize, usize) {
        let info = EventInfo {
            slot: record.thread,
            stmt: Some(record.stmt),
            record: Some(index),
            kind,
        };
        self.push(record.thread, spec, info)
    }

    /// The event a read of `location` with `read_from` reads, checked.
    fn source(
        &self,
        index: usize,
        location: &str,
        read_from: u64,
    ) -> Result<(RfSpec, Option<&KnownWrite>), BuildError> {
        if read_from == 0 {
            return Ok((RfSpec::Init, None));
        }
        let write = self
            .writes
            .get(&read_from)
            .ok_or(BuildError::UnknownWrite {
                index,
                write_id: read_from,
            })?;
        if write.location != location || write.mutex {
            return Err(BuildError::WrongLocation {
                index,
                location: location.to_string(),
                write_id: read_from,
                other: write.location.clone(),
            });
        }
        Ok((RfSpec::Event(write.name.clone()), Some(write)))
    }

    fn remember_write(
        &mut self,
        index: usize,
        record: &Record,
        location: &str,
        mutex: bool,
        event: Option<(usize, usize)>,
    ) -> Result<String, BuildError> {
        let name = format!("w{}", record.write_id);
        let known = KnownWrite {
            name: name.clone(),
            location: location.to_string(),
            value: record.value,
            mutex,
            event,
        };
        if self.writes.insert(record.write_id, known).is_some() {
            return Err(BuildError::DuplicateWrite {
                index,
                write_id: record.write_id,
            });
        }
        Ok(name)
    }

    /// The record with its value as the location's C type reads it.
    fn in_location_type(&self, record: &Record) -> Record {
        let kind = usize::try_from(record.loc)
            .ok()
            .and_then(|loc| self.kinds.get(loc));
        match kind {
            Some(ValueKind::Unsigned { bits }) if *bits < 128 => Record {
                value: record.value & ((1i128 << bits) - 1),
                ..record.clone()
            },
            _ => record.clone(),
        }
    }

    fn record(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
        let record = &self.in_location_type(record);
        self.ensure_slot(index, record.thread)?;
        if self.joined[record.thread] && !matches!(record.kind, RecordKind::Flush) {
            return Err(BuildError::AfterJoin {
                index,
                slot: record.thread,
            });
        }
        self.flush_expired(record);
        let slot = record.thread;
        let fresh = |builder: &Self| format!("t{slot}.{}", builder.threads[slot].len());
        match record.kind {
            RecordKind::Write => {
                let location = self.location_name(record.loc);
                let name = format!("w{}", record.write_id);
                let spec = EventSpec::new(
                    name,
                    OpSpec::Write {
                        var: location.clone(),
                    },
                )
                .with_value(clamp(record.value));
                let place = self.program_event(
                    index,
                    record,
                    spec,
                    EventKind::Write {
                        location: location.clone(),
                        value: record.value,
                    },
                );
                self.remember_write(index, record, &location, false, Some(place))?;
                match self.sma {
                    SmaImplementation::Sc => self.order.push((place.0, place.1, Phase::Memory)),
                    SmaImplementation::Etso | SmaImplementation::Epso => {
                        self.pending
                            .push((record.timestamp, record.write_id, place.0, place.1))
                    }
                    SmaImplementation::TsoReference | SmaImplementation::PsoReference => {}
                }
            }
            RecordKind::Flush => {
                let place = self
                    .writes
                    .get(&record.write_id)
                    .and_then(|w| if w.mutex { None } else { w.event });
                let place = place.ok_or(BuildError::BadFlush {
                    index,
                    write_id: record.write_id,
                })?;
                self.order.push((place.0, place.1, Phase::Memory));
            }
            RecordKind::Read => {
                let location = self.location_name(record.loc);
                let (rf, write) = self.source(index, &location, record.read_from)?;
                let from = write.and_then(|w| w.event);
                let spec = EventSpec::new(
                    fresh(self),
                    OpSpec::Read {
                        var: location.clone(),
                        rf,
                    },
                )
                .with_value(clamp(record.value));
                let kind = EventKind::Read {
                    location,
                    value: record.value,
                    from: None,
                };
                let place = self.program_event(index, record, spec, kind);
                self.link_source(place, from);
            }
            RecordKind::Fence => {
                self.program_event(
                    index,
                    record,
                    EventSpec::new(fresh(self), OpSpec::Fence),
                    EventKind::Fence,
                );
            }
            RecordKind::Lock | RecordKind::Unlock => {
                let mutex = self.location_name(record.loc);
                let (op, kind) = if record.kind == RecordKind::Lock {
                    (
                        OpSpec::Lock {
                            mutex: mutex.clone(),
                        },
                        EventKind::Lock {
                            mutex: mutex.clone(),
                        },
                    )
                } else {
                    (
                        OpSpec::Unlock {
                            mutex: mutex.clone(),
                        },
                        EventKind::Unlock {
                            mutex: mutex.clone(),
                        },
                    )
                };
                self.program_event(index, record, EventSpec::new(fresh(self), op), kind);
                self.remember_write(index, record, &mutex, true, None)?;
            }
            RecordKind::LockBusy => {
                let mutex = self.location_name(record.loc);
                let spec = EventSpec::new(
                    fresh(self),
                    OpSpec::LockBusy {
                        mutex: mutex.clone(),
                    },
                );
                self.program_event(index, record, spec, EventKind::LockBusy { mutex });
            }
            RecordKind::Rmw => self.rmw(index, record)?,
            RecordKind::Create => self.create(index, record)?,
            RecordKind::Join => self.join(index, record)?,
            RecordKind::StoreFence | RecordKind::AtomicBegin | RecordKind::AtomicEnd => {
                let (op, kind) = match record.kind {
                    RecordKind::StoreFence => (OpSpec::StoreFence, EventKind::StoreFence),
                    RecordKind::AtomicBegin => (OpSpec::AtomicBegin, EventKind::AtomicBegin),
                    _ => (OpSpec::AtomicEnd, EventKind::AtomicEnd),
                };
                self.program_event(index, record, EventSpec::new(fresh(self), op), kind);
            }
            // Allocation is no memory event, and neither is freeing.
            RecordKind::Malloc => {}
            RecordKind::Free => {
                let location = self.location_name(record.loc);
                self.frees.push(Freed {
                    slot,
                    stmt: record.stmt,
                    location,
                });
            }
        }
        Ok(())
    }

    /// Fills in the `from` of a read or RMW event with the final event id
    /// once all threads are laid out; kept as a place until then.
    fn link_source(&mut self, place: (usize, usize), from: Option<(usize, usize)>) {
        if let Some(from) = from {
            self.sources.push((place, from));
        }
    }

    fn rmw(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
        let slot = record.thread;
        let location = self.location_name(record.loc);
        let (rf, write) = self.source(index, &location, record.read_from)?;
        let from = write.and_then(|w| w.event);
        let old = write.map(|w| w.value);
        if record.write_id == 0 {
            let drain = EventSpec::new(
                format!("t{slot}.{}", self.threads[slot].len()),
                OpSpec::Fence,
            );
            self.program_event(index, record, drain, EventKind::CasDrain);
            let read_name = format!("t{slot}.{}", self.threads[slot].len());
            let read = EventSpec::new(
                read_name,
                OpSpec::Read {
                    var: location.clone(),
                    rf,
                },
            )
            .with_value(clamp(record.value));
            let place = self.program_event(
                index,
                record,
                read,
                EventKind::CasRead {
                    location,
                    value: record.value,
                    from: None,
                },
            );
            self.link_source(place, from);
            return Ok(());
        }
        let name = format!("w{}", record.write_id);
        let spec = EventSpec::new(
            name,
            OpSpec::Rmw {
                var: location.clone(),
                rf,
            },
        )
        .with_value(clamp(record.value));
        let kind = EventKind::Rmw {
            location: location.clone(),
            old,
            new: record.value,
            from: None,
        };
        let place = self.program_event(index, record, spec, kind);
        self.link_source(place, from);
        self.remember_write(index, record, &location, false, Some(place))?;
        Ok(())
    }

    fn create(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
        let child = usize::try_from(record.loc).map_err(|_| BuildError::BadSlot {
            index,
            slot: usize::MAX,
        })?;
        self.ensure_slot(index, child)?;
        if !self.threads[child].is_empty() || child == record.thread {
            return Err(BuildError::LateCreate { index, slot: child });
        }
        // The creator's drain (a fence record of the same statement) is
        // part of the creation.
        if let Some((_, info)) = self.threads[record.thread].last_mut()
            && info.kind == EventKind::Fence
            && info.stmt == Some(record.stmt)
        {
            info.kind = EventKind::CreateDrain;
        }
        let variable = format!("spawn#{child}");
        let write = EventSpec::new(
            variable.clone(),
            OpSpec::Write {
                var: variable.clone(),
            },
        );
        let creator = EventInfo {
            slot: record.thread,
            stmt: Some(record.stmt),
            record: Some(index),
            kind: EventKind::Spawn { child },
        };
        let place = self.push(record.thread, write, creator);
        self.order.push((place.0, place.1, Phase::Memory));
        let read = EventSpec::new(
            format!("start#{child}"),
            OpSpec::Read {
                var: variable.clone(),
                rf: RfSpec::Event(variable),
            },
        );
        let started = EventInfo {
            slot: child,
            stmt: None,
            record: Some(index),
            kind: EventKind::Started,
        };
        self.push(child, read, started);
        Ok(())
    }

    fn join(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
        let joined = usize::try_from(record.loc).map_err(|_| BuildError::BadSlot {
            index,
            slot: usize::MAX,
        })?;
        self.ensure_slot(index, joined)?;
        let variable = format!("done#{joined}");
        if !self.joined[joined] {
            self.flush_all_of(joined);
            let info = EventInfo {
                slot: joined,
                stmt: None,
                record: Some(index),
                kind: EventKind::Done,
            };
            // The joined thread's end drains its stores before it is seen
            // to be done (a fence first: under PSO the write of `done#`
            // could otherwise overtake them), and `done#` itself reaches
            // memory before the joiner reads it (the fence after).
            self.push(
                joined,
                EventSpec::new(format!("drain#{joined}"), OpSpec::Fence),
                info.clone(),
            );
            let write = EventSpec::new(
                variable.clone(),
                OpSpec::Write {
                    var: variable.clone(),
                },
            );
            let place = self.push(joined, write, info.clone());
            self.order.push((place.0, place.1, Phase::Memory));
            self.push(
                joined,
                EventSpec::new(format!("end#{joined}"), OpSpec::Fence),
                info,
            );
            self.joined[joined] = true;
        }
        let name = format!(
            "join#{joined}@t{}.{}",
            record.thread,
            self.threads[record.thread].len()
        );
        let read = EventSpec::new(
            name,
            OpSpec::Read {
                var: variable.clone(),
                rf: RfSpec::Event(variable),
            },
        );
        let info = EventInfo {
            slot: record.thread,
            stmt: Some(record.stmt),
            record: Some(index),
            kind: EventKind::Joined { joined },
        };
        self.push(record.thread, read, info);
        Ok(())
    }

    /// eTSO/ePSO: before an event at clock `c`, every pending write with a
    /// timestamp <= c has reached memory (in timestamp, then issue order).
    fn flush_expired(&mut self, record: &Record) {
        if !self.sma.is_timestamped() {
            return;
        }
        if matches!(record.kind, RecordKind::Write | RecordKind::Create) {
            return;
        }
        let clock = record.timestamp;
        self.pending.sort_unstable();
        let (expired, still): (Vec<_>, Vec<_>) =
            self.pending.iter().partition(|(ts, ..)| *ts <= clock);
        self.pending = still;
        for (_, _, slot, index) in expired {
            self.order.push((slot, index, Phase::Memory));
        }
    }

    /// A joined thread has drained: its pending writes are in memory.
    fn flush_all_of(&mut self, slot: usize) {
        self.pending.sort_unstable();
        let (mine, others): (Vec<_>, Vec<_>) =
            self.pending.iter().partition(|(_, _, s, _)| *s == slot);
        self.pending = others;
        for (_, _, slot, index) in mine {
            self.order.push((slot, index, Phase::Memory));
        }
    }

    fn finish(self) -> Result<Decoded, BuildError> {
        let mut offsets = Vec::with_capacity(self.threads.len());
        let mut total = 0;
        for thread in &self.threads {
            offsets.push(total);
            total += thread.len();
        }
        let id = |(slot, index): (usize, usize)| offsets[slot] + index;
        let mut specs = Vec::with_capacity(self.threads.len());
        let mut events = Vec::with_capacity(total);
        for thread in self.threads {
            let mut list = Vec::with_capacity(thread.len());
            for (spec, info) in thread {
                list.push(spec);
                events.push(info);
            }
            specs.push(list);
        }
        for (place, from) in &self.sources {
            let target = id(*from);
            match &mut events[id(*place)].kind {
                EventKind::Read { from, .. }
                | EventKind::Rmw { from, .. }
                | EventKind::CasRead { from, .. } => *from = Some(target),
                _ => {}
            }
        }
        let execution = Execution::new(specs)?;
        let issue_order = self.issue.iter().map(|&place| id(place)).collect();
        let steps = self
            .order
            .iter()
            .map(|&(slot, index, phase)| Step {
                event: id((slot, index)),
                phase,
            })
            .collect();
        let values = ValueDisplay::new(self.locations, &self.kinds, self.types);
        let frees = self.frees;
        Ok(Decoded {
            execution,
            events,
            issue_order,
            sma_order: Witness { steps },
            values,
            frees,
        })
    }
}

/// Values for the checker's informative `value` field.
fn clamp(value: i128) -> i64 {
    i64::try_from(value).unwrap_or(if value < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consistency::{Model, Op, Source, replay, verify};

    fn record(
        kind: RecordKind,
        thread: usize,
        loc: u64,
        value: i128,
        timestamp: u64,
        write_id: u64,
        read_from: u64,
    ) -> Record {
        Record {
            kind,
            thread,
            loc,
            value,
            timestamp,
            write_id,
            read_from,
            stmt: 5,
        }
    }

    fn names() -> Vec<String> {
        ["null", "x", "y", "m"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// MP with a join: main creates t1, t1 writes x then y, main joins t1
    /// and reads y = 1 and x = 0 (from the initial value).
    fn joined_message_passing() -> Vec<Record> {
        use RecordKind::*;
        vec![
            record(Fence, 0, 0, 0, 0, 0, 0),
            record(Create, 0, 1, 0, 0, 0, 0),
            record(Write, 1, 1, 1, 2, 1, 0),
            record(Write, 1, 2, 1, 1, 2, 0),
            record(Join, 0, 1, 0, 2, 0, 0),
            record(Read, 0, 2, 1, 2, 0, 2),
            record(Read, 0, 1, 0, 2, 0, 0),
        ]
    }

    #[test]
    fn join_orders_the_joiner_after_the_joined_thread() {
        // Without the join the read of x = 0 could run before x reaches
        // memory; with it the execution is unrealisable even under PSO.
        let decoded = build(&joined_message_passing(), &names(), SmaImplementation::Epso).unwrap();
        assert!(verify(&decoded.execution, Model::Pso).is_err());
        let mut no_join = joined_message_passing();
        no_join.retain(|r| r.kind != RecordKind::Join);
        let decoded = build(&no_join, &names(), SmaImplementation::Epso).unwrap();
        assert!(verify(&decoded.execution, Model::Pso).is_ok());
    }

    #[test]
    fn creation_orders_the_child_after_the_creator() {
        use RecordKind::*;
        // main writes x = 1 and creates t1, which reads x = 0: impossible,
        // because creation drains main's buffer first.
        let records = vec![
            record(Write, 0, 1, 1, 1, 1, 0),
            record(Fence, 0, 0, 0, 1, 0, 0),
            record(Create, 0, 1, 0, 0, 0, 0),
            record(Read, 1, 1, 0, 1, 0, 0),
        ];
        let decoded = build(&records, &names(), SmaImplementation::Etso).unwrap();
        assert!(verify(&decoded.execution, Model::Tso).is_err());
        let first = decoded.execution.threads()[1][0];
        assert_eq!(decoded.events[first].kind, EventKind::Started);
        assert!(decoded.events[first].kind.is_synthetic());
    }

    #[test]
    fn reads_from_resolve_to_the_writes_and_values_are_kept() {
        let decoded = build(&joined_message_passing(), &names(), SmaImplementation::Epso).unwrap();
        let execution = &decoded.execution;
        let read_y = execution.threads()[0].iter().copied().find(|&e| {
            matches!(&decoded.events[e].kind, EventKind::Read { location, .. } if location == "y")
        });
        let read_y = read_y.unwrap();
        let Op::Read {
            rf: Source::Event(writer),
            ..
        } = execution.event(read_y).op
        else {
            panic!("reads from a write")
        };
        assert_eq!(
            decoded.events[writer].kind,
            EventKind::Write {
                location: "y".into(),
                value: 1
            }
        );
        assert!(
            matches!(decoded.events[read_y].kind, EventKind::Read { from: Some(w), value: 1, .. } if w == writer)
        );
    }

    #[test]
    fn failed_cas_is_a_drain_and_a_read_and_rmw_is_a_writer() {
        use RecordKind::*;
        let records = vec![
            record(Rmw, 0, 1, 7, 0, 1, 0),
            record(Rmw, 0, 1, 7, 0, 0, 1),
            record(Lock, 0, 3, 1, 0, 2, 0),
            record(Unlock, 0, 3, 0, 0, 3, 0),
        ];
        let decoded = build(&records, &names(), SmaImplementation::Etso).unwrap();
        let ops: Vec<&'static str> = decoded
            .execution
            .events()
            .iter()
            .map(|e| e.op.name())
            .collect();
        assert_eq!(ops, vec!["rmw", "fence", "read", "lock", "unlock"]);
        assert!(matches!(
            decoded.events[2].kind,
            EventKind::CasRead {
                from: Some(0),
                value: 7,
                ..
            }
        ));
        assert!(matches!(
            decoded.events[0].kind,
            EventKind::Rmw {
                old: None,
                new: 7,
                ..
            }
        ));
        assert!(verify(&decoded.execution, Model::Tso).is_ok());
    }

    #[test]
    fn malformed_records_are_defects_not_panics() {
        use RecordKind::*;
        let unknown = vec![record(Read, 0, 1, 0, 0, 0, 9)];
        assert!(matches!(
            build(&unknown, &names(), SmaImplementation::Sc),
            Err(BuildError::UnknownWrite { .. })
        ));
        let wrong = vec![
            record(Write, 0, 1, 1, 0, 1, 0),
            record(Read, 0, 2, 1, 0, 0, 1),
        ];
        assert!(matches!(
            build(&wrong, &names(), SmaImplementation::Sc),
            Err(BuildError::WrongLocation { .. })
        ));
        let twice = vec![
            record(Write, 0, 1, 1, 0, 1, 0),
            record(Write, 0, 1, 1, 0, 1, 0),
        ];
        assert!(matches!(
            build(&twice, &names(), SmaImplementation::Sc),
            Err(BuildError::DuplicateWrite { .. })
        ));
        let huge = vec![record(Fence, usize::MAX, 0, 0, 0, 0, 0)];
        assert!(matches!(
            build(&huge, &names(), SmaImplementation::Sc),
            Err(BuildError::BadSlot { .. })
        ));
        let after = vec![
            record(Join, 0, 1, 0, 0, 0, 0),
            record(Fence, 1, 0, 0, 0, 0, 0),
        ];
        assert!(matches!(
            build(&after, &names(), SmaImplementation::Sc),
            Err(BuildError::AfterJoin { .. })
        ));
        let flush = vec![record(Flush, 0, 1, 0, 0, 4, 0)];
        assert!(matches!(
            build(&flush, &names(), SmaImplementation::TsoReference),
            Err(BuildError::BadFlush { .. })
        ));
    }

    #[test]
    fn sma_order_places_flushes_by_timestamp() {
        use RecordKind::*;
        // t0 writes x (ts 2) and y (ts 1) under ePSO; a read at clock 1
        // sees y in memory but not x; a fence at clock 2 drains x.
        let records = vec![
            record(Write, 0, 1, 1, 2, 1, 0),
            record(Write, 0, 2, 1, 1, 2, 0),
            record(Read, 0, 3, 0, 1, 0, 0),
            record(Fence, 0, 0, 0, 2, 0, 0),
        ];
        let decoded = build(&records, &names(), SmaImplementation::Epso).unwrap();
        let steps: Vec<(usize, Phase)> = decoded
            .sma_order
            .steps
            .iter()
            .map(|s| (s.event, s.phase))
            .collect();
        assert_eq!(
            steps,
            vec![
                (0, Phase::Buffer),
                (1, Phase::Buffer),
                (1, Phase::Memory),
                (2, Phase::Execute),
                (0, Phase::Memory),
                (3, Phase::Execute),
            ]
        );
        assert!(replay(&decoded.execution, &decoded.sma_order, Model::Pso).is_ok());
        assert_eq!(decoded.issue_order, vec![0, 1, 2, 3]);
    }
}
