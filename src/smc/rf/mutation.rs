//! The mutations of RF-SMC (seed 000, Algorithm 3, lines 5-16, and
//! Remark 1): for an unmarked read `r` of the trace τ̃, each other write
//! it may read from (only writes of the extension when `r` is older), and
//! for an atomic `r` the reversal with an atomic event that reads from it;
//! the schedule of a mutation is the prefix of τ̃ up to `r` followed by
//! the events after `r` in the causal past of the new write, where the
//! causal past follows program order, creations, joins and the
//! reads-from of every read but the mutated ones.
//!
//! The atomic events that write a location form a chain: each write is
//! read by at most one of them. An atomic `r` that is to read a write `w`
//! which an earlier atomic event `u` of τ̃ already reads therefore also
//! *displaces* `u`: `r` moves between `w` and `u`, and `u` reads `r`'s
//! write. Its schedule is the prefix up to `u` followed by the events
//! after `u` in the causal past of `r` and `w`, and goes into `u`'s set.
//! Remark 1's reversal is the case where `u` is `w`'s reader `r` and the
//! moved event the one that read `r`; with three or more threads the
//! chain needs the general case (the reversals alone never put a third
//! thread's RMW before the two that the first run ordered before it).

use super::event::{Event, Key, Source};
use rustc_hash::FxHashMap;

/// The trace τ̃ of one RF-SMC call: τ followed by the extension.
pub struct Trace {
    pub events: Vec<Event>,
    /// Where the extension starts.
    pub start: usize,
    pub position: FxHashMap<Key, usize>,
    /// The creation event of each created thread.
    pub creators: FxHashMap<usize, Key>,
    /// The events whose reads the call's schedule mutated: their write
    /// parts (an RMW's, a lock's) are new in this call, as the write of an
    /// RMW split into a read and a write would be in the extension.
    pub mutated: Vec<Key>,
}

/// One proposed mutation of read `read` (a position in τ̃).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mutation {
    pub read: usize,
    /// The write the read will read from.
    pub source: Source,
    /// Remark 1's reversal: the atomic event (position) that reads from
    /// `read`'s write and will read `read`'s old source instead; `source`
    /// is then that event's write.
    pub reversed: Option<usize>,
    /// The atomic event (position, before `read`) that reads `source` and
    /// writes: each write is read by at most one of them, so it will read
    /// `read`'s write instead (`read` moves into the chain of atomic
    /// events between `source` and it).
    pub displaced: Option<usize>,
}

impl Trace {
    pub fn new(events: Vec<Event>, start: usize, mutated: Vec<Key>) -> Trace {
        let position = events
            .iter()
            .enumerate()
            .map(|(at, event)| (event.key, at))
            .collect();
        let creators = events
            .iter()
            .filter_map(|event| match event.access {
                super::event::Access::Create { child } => Some((child, event.key)),
                _ => None,
            })
            .collect();
        Trace {
            events,
            start,
            position,
            creators,
            mutated,
        }
    }

    /// The mutations of the read at `at` (Algorithm 3, lines 9-11, with
    /// Remark 1's reversals).
    pub fn mutations(&self, at: usize) -> Vec<Mutation> {
        let read = &self.events[at];
        let Some(location) = read.access.read_location() else {
            return Vec::new();
        };
        let fresh = at >= self.start;
        let mut found = Vec::new();
        if fresh && read.source != Some(Source::Init) {
            found.push(Mutation {
                read: at,
                source: Source::Init,
                reversed: None,
                displaced: None,
            });
        }
        for (position, write) in self.events.iter().enumerate() {
            let new = fresh || position >= self.start || self.mutated.contains(&write.key);
            let later_own =
                write.key.thread == read.key.thread && write.key.index >= read.key.index;
            if !new
                || later_own
                || !write.writes_to(location)
                || read.source == Some(Source::Event(write.key))
            {
                continue;
            }
            found.push(Mutation {
                read: at,
                source: Source::Event(self.events[position].key),
                reversed: None,
                displaced: None,
            });
        }
        if read.access.is_atomic() && read.writes_to(location) {
            for (position, other) in self.events.iter().enumerate() {
                if other.key.thread != read.key.thread
                    && other.access.is_atomic()
                    && other.source == Some(Source::Event(read.key))
                {
                    found.push(Mutation {
                        read: at,
                        source: Source::Event(other.key),
                        reversed: Some(position),
                        displaced: None,
                    });
                }
            }
        }
        if read.access.is_atomic() {
            let displacing: Vec<Mutation> = found
                .iter()
                .filter(|mutation| mutation.reversed.is_none())
                .filter_map(|mutation| {
                    let displaced = self.atomic_reader(mutation.source, location, at)?;
                    Some(Mutation {
                        displaced: Some(displaced),
                        ..*mutation
                    })
                })
                .collect();
            found.extend(displacing);
        }
        found
    }

    /// The position before `before` of an atomic event of another thread
    /// that reads `source` at `location` and writes there.
    fn atomic_reader(&self, source: Source, location: u32, before: usize) -> Option<usize> {
        let thread = self.events[before].key.thread;
        (0..before).find(|&position| {
            let event = &self.events[position];
            event.key.thread != thread
                && event.access.is_atomic()
                && event.writes_to(location)
                && event.source == Some(source)
        })
    }

    /// The positions after `after` in τ̃ of the events in the causal past
    /// of `targets` (themselves included), ignoring the reads-from of the
    /// events at `ignored` (Algorithm 3, lines 6-8 and 13).
    pub fn causes_after(&self, targets: &[Key], after: usize, ignored: &[usize]) -> Vec<usize> {
        let mut seen = vec![false; self.events.len()];
        let mut stack = targets.to_vec();
        while let Some(key) = stack.pop() {
            let Some(&at) = self.position.get(&key) else {
                continue;
            };
            if seen[at] {
                continue;
            }
            seen[at] = true;
            if key.index > 0 {
                stack.push(Key {
                    thread: key.thread,
                    index: key.index - 1,
                });
            } else if let Some(&creator) = self.creators.get(&key.thread) {
                stack.push(creator);
            }
            if ignored.contains(&at) {
                continue;
            }
            if let Some(Source::Event(source)) = self.events[at].source
                && source.thread != key.thread
            {
                stack.push(source);
            }
        }
        (after + 1..self.events.len())
            .filter(|&at| seen[at])
            .collect()
    }
}
