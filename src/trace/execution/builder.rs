//! The decoding of SMA records, one by one, into the events of the
//! execution (X, RF) and the order the SMA issued and flushed them in.

use super::{BuildError, Decoded, EventInfo, EventKind, Freed, ValueDisplay};
use crate::consistency::{EventSpec, Execution, OpSpec, Phase, RfSpec, Step, Witness};
use crate::options::SmaImplementation;
use crate::passes::value_types::{ValueKind, ValueTypes};
use crate::trace::records::{Record, RecordKind};
use std::collections::HashMap;

/// The largest thread slot accepted (a guard against garbage records).
pub(super) const MAX_SLOTS: usize = 4096;

/// A writer known by its write id.
#[derive(Debug, Clone)]
pub(super) struct KnownWrite {
    pub(super) name: String,
    pub(super) location: String,
    pub(super) value: i128,
    /// Lock and unlock write a mutex; a load cannot read them as data.
    pub(super) mutex: bool,
    pub(super) event: Option<(usize, usize)>,
}

/// Builds an execution from records.
pub(super) struct Builder<'a> {
    pub(super) locations: &'a crate::ir::Locations,
    /// Index = location id: how its values are shown.
    pub(super) kinds: crate::ir::Runs<ValueKind>,
    /// The locations the records access: the ones whose values are shown.
    pub(super) touched: std::collections::BTreeSet<u64>,
    /// The value types of the translation.
    pub(super) types: &'a ValueTypes,
    pub(super) threads: Vec<Vec<(EventSpec, EventInfo)>>,
    pub(super) writes: HashMap<u64, KnownWrite>,
    pub(super) joined: Vec<bool>,
    pub(super) issue: Vec<(usize, usize)>,
    /// Steps of the SMA order, as (slot, index, phase).
    pub(super) order: Vec<(usize, usize, Phase)>,
    /// Pending writes under eTSO/ePSO: (timestamp, write id, slot, index).
    pub(super) pending: Vec<(u64, u64, usize, usize)>,
    /// (reader, writer) places, resolved to event ids at the end.
    pub(super) sources: Vec<((usize, usize), (usize, usize))>,
    pub(super) frees: Vec<Freed>,
    pub(super) sma: SmaImplementation,
}
impl Builder<'_> {
    pub(super) fn location_name(&self, loc: u64) -> String {
        usize::try_from(loc)
            .ok()
            .and_then(|index| self.locations.name(index))
            .unwrap_or_else(|| format!("location#{loc}"))
    }

    pub(super) fn ensure_slot(&mut self, index: usize, slot: usize) -> Result<(), BuildError> {
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
    pub(super) fn push(&mut self, slot: usize, spec: EventSpec, info: EventInfo) -> (usize, usize) {
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

    pub(super) fn program_event(
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
    pub(super) fn source(
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

    pub(super) fn remember_write(
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
    pub(super) fn in_location_type(&self, record: &Record) -> Record {
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

    pub(super) fn record(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
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
    pub(super) fn link_source(&mut self, place: (usize, usize), from: Option<(usize, usize)>) {
        if let Some(from) = from {
            self.sources.push((place, from));
        }
    }

    pub(super) fn rmw(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
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

    pub(super) fn create(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
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

    pub(super) fn join(&mut self, index: usize, record: &Record) -> Result<(), BuildError> {
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
    pub(super) fn flush_expired(&mut self, record: &Record) {
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
    pub(super) fn flush_all_of(&mut self, slot: usize) {
        self.pending.sort_unstable();
        let (mine, others): (Vec<_>, Vec<_>) =
            self.pending.iter().partition(|(_, _, s, _)| *s == slot);
        self.pending = others;
        for (_, _, slot, index) in mine {
            self.order.push((slot, index, Phase::Memory));
        }
    }

    pub(super) fn finish(self) -> Result<Decoded, BuildError> {
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
        let values = ValueDisplay::new(self.locations, &self.kinds, self.types, &self.touched);
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
pub(super) fn clamp(value: i128) -> i64 {
    i64::try_from(value).unwrap_or(if value < 0 { i64::MIN } else { i64::MAX })
}
