//! Happens-before in one run of RF-SMC (program order, reads-from,
//! creations, joins) as vector clocks, and the check of the plain globals
//! that creations and joins alone do not order.
//!
//! Plain globals (thread handles, arguments, results, thread-locals) are
//! private variables of the sequential program: no event of RF-SMC reads
//! or writes them. `rf::run` accepts a write to one at once when every
//! other thread that reads it is ordered with it by creations and joins
//! whatever the interleaving. When that test fails for a global, the run
//! watches the global from then on: each access to it (noted by the
//! machine per instruction, its element resolved at run time) must be
//! ordered by happens-before with every access to it by another thread
//! earlier in the run, when one of the two writes; a pair that is not is
//! a race, and RF-SMC stops ([`super::run::PLAIN_SHARED`]).
//!
//! Why that suffices (see `docs/native-engine.md`, *Plain globals*): in
//! a run without such a race, each plain read takes the value of the last
//! write before it in happens-before, which every execution of the run's
//! reads-from class keeps, so the class has one behaviour; and up to its
//! first race an execution behaves as its reads-from class says, so some
//! class RF-SMC explores has a run with that race. Accesses made by the
//! private statements before a thread's first visible statement, which
//! the lazy scheme runs as a context of their own, are ordered by the
//! thread's creation alone, not by what its first move reads.

use super::event::{Access, Event, Key, Source};
use crate::smc::semantics::plain::{PlainAccess, PlainPart};
use std::collections::BTreeSet;

/// The vector clocks of a run's events.
#[derive(Debug, Clone)]
pub struct HappensBefore {
    /// Per thread: the vector clock of each of its events, by index.
    clocks: Vec<Vec<Vec<u32>>>,
    /// Per thread: the clock its creation gave it.
    started: Vec<Option<Vec<u32>>>,
}

impl HappensBefore {
    pub fn new(threads: usize) -> HappensBefore {
        HappensBefore {
            clocks: vec![Vec::new(); threads],
            started: vec![None; threads],
        }
    }

    /// Notes `event`, the next event of its thread: its clock joins its
    /// thread's last one (or its creation's), and its source's.
    pub fn note(&mut self, event: &Event) {
        let thread = event.key.thread;
        let mut clock = self.current(thread);
        if let Some(Source::Event(source)) = event.source
            && let Some(theirs) = self.clock(source)
        {
            for (mine, theirs) in clock.iter_mut().zip(theirs) {
                *mine = (*mine).max(*theirs);
            }
        }
        clock[thread] = u32::try_from(event.key.index + 1).unwrap_or(u32::MAX);
        if let Access::Create { child } = event.access
            && let Some(started) = self.started.get_mut(child)
        {
            *started = Some(clock.clone());
        }
        self.clocks[thread].push(clock);
    }

    /// The clock of `thread` now: its last event's, else its creation's.
    fn current(&self, thread: usize) -> Vec<u32> {
        self.clocks[thread]
            .last()
            .cloned()
            .or_else(|| self.started[thread].clone())
            .unwrap_or_else(|| vec![0; self.clocks.len()])
    }

    fn clock(&self, key: Key) -> Option<&Vec<u32>> {
        self.clocks.get(key.thread)?.get(key.index)
    }

    /// Whether `earlier` happens before `later` (or is it).
    pub fn before(&self, earlier: Key, later: Key) -> bool {
        if earlier.thread == later.thread {
            return earlier.index <= later.index;
        }
        self.clock(later).is_some_and(|clock| knows(clock, earlier))
    }

    /// The clock an access of the move `key` is ordered by: the event's,
    /// its creation's for its thread's private prefix, and the thread's
    /// latest for a move that made no event (cut off before it read,
    /// or not enabled).
    fn access_clock(&self, key: Key, prefix: bool) -> Vec<u32> {
        let thread = key.thread;
        if prefix {
            return self.started[thread]
                .clone()
                .unwrap_or_else(|| vec![0; self.clocks.len()]);
        }
        match self.clock(key) {
            Some(clock) => clock.clone(),
            None => self.current(thread),
        }
    }
}

/// Whether `clock` has seen the event `key`.
fn knows(clock: &[u32], key: Key) -> bool {
    clock
        .get(key.thread)
        .is_some_and(|&known| known as usize > key.index)
}

/// The plain accesses of a run and the globals watched for races.
#[derive(Debug, Clone, Default)]
pub struct PlainRaces {
    /// Every plain access of the run so far, by the move that made it.
    history: Vec<(Key, PlainAccess)>,
    /// The globals whose every access is checked.
    watched: BTreeSet<usize>,
    /// Happens-before, kept once some global is watched.
    order: Option<HappensBefore>,
}

impl PlainRaces {
    /// Whether some global is watched (its events need clocks).
    pub fn watching(&self) -> bool {
        self.order.is_some()
    }

    /// Watches `global` from now on; the clocks start from `events`, the
    /// run's events so far in order.
    pub fn watch(&mut self, global: usize, threads: usize, events: &[Event]) {
        self.watched.insert(global);
        if self.order.is_none() {
            let mut order = HappensBefore::new(threads);
            for event in events {
                order.note(event);
            }
            self.order = Some(order);
        }
    }

    /// Notes the run's next event (once watching).
    pub fn note(&mut self, event: &Event) {
        if let Some(order) = self.order.as_mut() {
            order.note(event);
        }
    }

    /// Adds the accesses of the move `key` (after its event, if it made
    /// one, was noted) and checks those to watched globals against the
    /// earlier accesses of other threads: the first part accessed
    /// unordered with a conflicting access, if there is one.
    pub fn access(&mut self, key: Key, accesses: &[PlainAccess]) -> Option<PlainPart> {
        let mut race = None;
        if let Some(order) = &self.order {
            for access in accesses
                .iter()
                .filter(|a| self.watched.contains(&a.part.global))
            {
                let clock = order.access_clock(key, access.prefix);
                let racing = self.history.iter().any(|(earlier, theirs)| {
                    earlier.thread != key.thread
                        && (theirs.write || access.write)
                        && theirs.part.overlaps(access.part)
                        && !knows(&clock, *earlier)
                });
                if racing {
                    race = Some(access.part);
                    break;
                }
            }
        }
        self.history
            .extend(accesses.iter().map(|&access| (key, access)));
        race
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(thread: usize, index: usize, access: Access, source: Option<Source>) -> Event {
        Event {
            key: Key { thread, index },
            access,
            source,
            read_value: None,
            written: None,
            written_term: None,
            blocked: false,
            finishes: false,
            chosen: Vec::new(),
            forced: 0,
        }
    }

    fn access(global: usize, element: i64, write: bool) -> PlainAccess {
        PlainAccess {
            part: PlainPart {
                global,
                element: Some(element),
            },
            write,
            prefix: false,
        }
    }

    #[test]
    fn a_write_and_a_read_unordered_race_and_a_join_orders_them() {
        let key = |thread, index| Key { thread, index };
        let mut races = PlainRaces::default();
        let created = event(0, 0, Access::Create { child: 1 }, None);
        races.watch(0, 2, std::slice::from_ref(&created));
        let write = event(1, 0, Access::Write { location: 1 }, None);
        races.note(&write);
        assert_eq!(races.access(key(1, 0), &[access(0, 1, true)]), None);
        // another element of the same global: no race
        let read = event(0, 1, Access::Read { location: 2 }, Some(Source::Init));
        races.note(&read);
        assert_eq!(races.access(key(0, 1), &[access(0, 0, false)]), None);
        // the element thread 1 wrote, with nothing ordering the two
        assert!(races.access(key(0, 1), &[access(0, 1, false)]).is_some());
        let joined = event(
            0,
            2,
            Access::Join { child: 1 },
            Some(Source::Event(key(1, 0))),
        );
        races.note(&joined);
        assert_eq!(races.access(key(0, 2), &[access(0, 1, false)]), None);
    }

    #[test]
    fn a_prefix_access_is_ordered_by_the_creation_alone() {
        let key = |thread, index| Key { thread, index };
        let mut order = HappensBefore::new(3);
        order.note(&event(0, 0, Access::Create { child: 1 }, None));
        order.note(&event(0, 1, Access::Create { child: 2 }, None));
        order.note(&event(1, 0, Access::Write { location: 1 }, None));
        let reads = Some(Source::Event(key(1, 0)));
        order.note(&event(2, 0, Access::Read { location: 1 }, reads));
        assert!(order.before(key(1, 0), key(2, 0)));
        assert!(knows(&order.access_clock(key(2, 0), false), key(1, 0)));
        assert!(!knows(&order.access_clock(key(2, 0), true), key(1, 0)));
        assert!(knows(&order.access_clock(key(2, 0), true), key(0, 1)));
    }
}
