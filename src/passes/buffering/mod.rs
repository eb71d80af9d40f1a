//! Store-buffer occupancy: for every thread of the sequential program, the
//! most stores it can have buffered at once, in all and per location. The
//! reference SMAs (`tso_ref.h`, `pso_ref.h`) flush only the buffers that can
//! hold stores and run only as many flush passes as those stores need
//! (`printer::buffers` turns the counts into macros), instead of visiting
//! every (thread, location) pair `SMA_QSIZE * SMA_THREADS` times; and they
//! skip the flush phase before main's reads where no other thread can hold
//! stores ([`mark_main_alone`]).
//!
//! A buffer is emptied by every draining visible statement (full fence, RMW,
//! lock, unlock, thread creation; a thread's own buffer also drains when
//! another thread joins it, after its end, which changes nothing here: it
//! stores nothing after its end). The count is taken over the
//! loop-free thread bodies (loops are unrolled), with the maximum over the
//! branches of an `if` and over the forward jumps to a label; private
//! locals known to hold constants make computed addresses constant (a
//! pointer to a heap block is one when only one thread allocates: the blocks
//! are handed out in its program order). The
//! stores of the main thread before its first `pthread_create` count for
//! the drain but not for the flush phases: no other thread runs yet, so no
//! phase needs to move them, and the creation drains them.
//!
//! Nor do the phases need to move a store that no other thread can observe
//! before its thread drains: one behind every buffered store to a location
//! that other threads access while this one runs (litmus tests' result
//! flags, read by main after the joins, are such stores). Moving it could
//! change no other thread's load or store, and the thread's own loads see
//! the same value in its buffer as in memory; so the phases flush only up to
//! the newest observable store ([`ThreadStores::observed_most`]).
//!
//! The count is one walk over each thread body ([`count`]); the same walk
//! finds the accesses no other thread can come between ([`uncontended`], with
//! the mutexes that guard them: [`lock_guards`]) and the addresses that
//! private locals known to hold constants make constant
//! ([`constant_addresses`]).

mod constant_addresses;
mod count;
mod lock_guards;
#[cfg(test)]
mod tests;
mod uncontended;

pub(super) use constant_addresses::evaluate;
pub use lock_guards::LockGuards;
pub use uncontended::{StoreOrder, mark_main_alone, mark_uncontended_accesses};

use super::SequentialProgram;
use count::{Context, Marks, ProgramFacts, mark, walk, walk_folding};
use std::collections::{BTreeMap, BTreeSet};

/// Shared locations a thread loads, stores, updates or locks while other
/// threads run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Accesses {
    pub locations: BTreeSet<u32>,
    /// Whether it accesses memory through an address not known to stay in
    /// one object: then it may access every location.
    pub anywhere: bool,
}

impl Accesses {
    /// Every location.
    pub fn everything() -> Self {
        Accesses {
            locations: BTreeSet::new(),
            anywhere: true,
        }
    }

    pub fn contains(&self, location: u32) -> bool {
        self.anywhere || self.locations.contains(&location)
    }

    fn add(&mut self, locations: Option<Vec<u32>>) {
        match locations {
            Some(range) => self.locations.extend(range),
            None => self.anywhere = true,
        }
    }

    fn union(&mut self, other: &Accesses) {
        self.locations.extend(other.locations.iter().copied());
        self.anywhere |= other.anywhere;
    }
}

/// What one thread can have in its store buffers (over its whole run, or
/// while other threads run: see [`ThreadBuffers`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadStores {
    /// The most stores buffered at once (all locations together).
    pub most: u32,
    /// Per location id written at a constant address or through an address
    /// dispatched over its object: the most stores to it buffered at once
    /// (stores through other computed addresses included).
    pub per_location: BTreeMap<u32, u32>,
    /// The most stores through computed addresses buffered at once: every
    /// location not in `per_location` can hold that many.
    pub anywhere: u32,
    /// Whether the thread executes a store-store fence.
    pub store_fences: bool,
    /// Whether a backward jump defeated the count: then every count is
    /// unbounded (the SMA's own bound `SMA_QSIZE` applies).
    pub unbounded: bool,
    /// The most stores to *shared* locations (that another thread may store
    /// to while this one runs; computed addresses count as shared) buffered
    /// at once.
    pub shared: u32,
    /// The most stores buffered ahead of a store to a shared location.
    pub ahead_of_shared: u32,
    /// The most stores buffered at once up to and including the newest one
    /// to a location other threads may access (see the module
    /// documentation): what the flush phases must be able to move.
    pub observed_most: u32,
    /// The locations the thread accesses while other threads run.
    pub accesses: Accesses,
    /// The mutexes it holds at those accesses.
    pub guards: LockGuards,
    /// The most stores with a guessed timestamp (not marked unobserved:
    /// those take a timestamp some other store or the clock already has)
    /// the thread issues on any path, drains or not: how many timestamps
    /// its stores can need.
    pub guessed: u32,
    /// The locations its RMWs, locks and unlocks may write: each such write
    /// takes a list node of its own while other threads' stores are pending.
    pub atomic_writes: Accesses,
    /// The locations it may store to while other threads run, by a store
    /// that other threads may find pending (not one to a private block).
    pub buffered_writes: Accesses,
    /// The mutexes it may unlock without holding them (on some path).
    pub unheld_unlocks: Accesses,
}

/// A set of locations among `1..locations` that the counts describe: the
/// locations some count names one by one ([`distinct_locations`]), each in
/// the set or not, and every other location, all in it or all not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocationSet {
    named: BTreeSet<u32>,
    members: BTreeSet<u32>,
    others: bool,
}

/// Exactly the locations of `members`.
impl From<BTreeSet<u32>> for LocationSet {
    fn from(members: BTreeSet<u32>) -> Self {
        LocationSet {
            named: members.clone(),
            members,
            others: false,
        }
    }
}

impl LocationSet {
    /// The locations of `candidates` (as [`distinct_locations`] gives
    /// them: the named ones, then one standing for every other) for which
    /// `member` holds.
    fn of(candidates: &[u32], named: BTreeSet<u32>, member: impl Fn(u32) -> bool) -> Self {
        let members = named.iter().copied().filter(|&l| member(l)).collect();
        let others = candidates
            .iter()
            .find(|l| !named.contains(l))
            .is_some_and(|&other| member(other));
        LocationSet {
            named,
            members,
            others,
        }
    }

    pub fn contains(&self, location: u32) -> bool {
        if self.named.contains(&location) {
            self.members.contains(&location)
        } else {
            self.others
        }
    }
}

/// The locations among `1..locations` that tell the `stores` and the
/// `accesses` apart: each location one of them names, then the first one
/// none names, which stands for every other (all of them are counted
/// alike). As many as the names, whatever the number of locations.
pub fn distinct_locations<'a>(
    stores: impl IntoIterator<Item = &'a ThreadStores>,
    accesses: impl IntoIterator<Item = &'a Accesses>,
    locations: u32,
) -> (Vec<u32>, BTreeSet<u32>) {
    let mut named = BTreeSet::new();
    for thread in stores {
        thread.name_locations(&mut named);
    }
    for accessed in accesses {
        named.extend(accessed.locations.iter().copied());
    }
    named.retain(|&location| (1..locations).contains(&location));
    let other = (1..locations).find(|location| !named.contains(location));
    let candidates = named.iter().copied().chain(other).collect();
    (candidates, named)
}

/// [`distinct_locations`] of every count of `threads`.
pub fn distinct_locations_of(threads: &[ThreadBuffers], locations: u32) -> Vec<u32> {
    let stores = threads.iter().flat_map(|t| [&t.whole, &t.concurrent]);
    let observed = threads.iter().map(|t| &t.observed);
    distinct_locations(stores, observed, locations).0
}

impl ThreadStores {
    /// Adds the locations this count names one by one to `named`.
    fn name_locations(&self, named: &mut BTreeSet<u32>) {
        named.extend(self.per_location.keys().copied());
        for accesses in [
            &self.accesses,
            &self.atomic_writes,
            &self.buffered_writes,
            &self.unheld_unlocks,
        ] {
            named.extend(accesses.locations.iter().copied());
        }
        self.guards.name_locations(named);
    }

    /// The most stores buffered at once for `location`.
    pub fn at(&self, location: u32) -> u32 {
        let constant = self.per_location.get(&location).copied().unwrap_or(0);
        constant.max(self.anywhere)
    }

    /// Whether a store to `location` may be buffered at all.
    pub fn may_hold(&self, location: u32) -> bool {
        self.unbounded || self.at(location) > 0
    }

    /// The locations where the thread may have a store pending while other
    /// threads run (every location when a store's address is not known to
    /// stay in one object, or the count is unbounded). An RMW, a lock or an
    /// unlock writes memory at once, after draining: it leaves nothing
    /// pending.
    fn writes(&self) -> Accesses {
        if self.unbounded {
            return Accesses::everything();
        }
        self.buffered_writes.clone()
    }
}

/// The store buffers of one thread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadBuffers {
    pub slot: usize,
    /// Everything the thread can buffer: what a drain must empty.
    pub whole: ThreadStores,
    /// What it can buffer while another thread runs: what the flush phases
    /// must be able to move.
    pub concurrent: ThreadStores,
    /// The locations other threads access while this one runs: stores to
    /// the others need no flush phase.
    pub observed: Accesses,
}

/// The store buffers of every thread. A first count finds the locations
/// that two threads may store to while both run; the second counts the
/// stores to them.
pub fn store_buffering(program: &SequentialProgram) -> Vec<ThreadBuffers> {
    let memory = &program.memory;
    let facts = ProgramFacts::of(program);
    let first = first_count(program, None);
    let shared = shared_locations(&first, memory.location_count());
    program
        .threads
        .iter()
        .enumerate()
        .map(|(index, thread)| {
            let observed = observed_by_others(&first, index);
            let context = facts.context(index, &shared, &observed);
            ThreadBuffers {
                slot: thread.slot,
                whole: walk(&thread.body, false, memory, context).result,
                concurrent: walk(&thread.body, thread.slot == 0, memory, context).result,
                observed,
            }
        })
        .collect()
}

/// The count of every thread while others run, knowing nothing of the
/// others: what each thread accesses beside them (its private blocks left
/// out, when they are followed in the order `private_blocks`; through a
/// pointer only where it may point, then).
fn first_count(
    program: &SequentialProgram,
    private_blocks: Option<StoreOrder>,
) -> Vec<ThreadStores> {
    let (shared, nothing) = (LocationSet::default(), Accesses::default());
    let facts = ProgramFacts::of(program);
    let points_to = private_blocks.and(program.points_to.as_ref());
    let threads = program.threads.iter().enumerate();
    threads
        .map(|(index, thread)| {
            let context = Context {
                private_blocks,
                points_to,
                slot: thread.slot,
                ..facts.context(index, &shared, &nothing)
            };
            walk(&thread.body, thread.slot == 0, &program.memory, context).result
        })
        .collect()
}

/// The locations the threads other than `index` access while they run
/// beside others.
fn observed_by_others(first: &[ThreadStores], index: usize) -> Accesses {
    others(first, index, |observed: &mut Accesses, stores| {
        observed.union(&stores.accesses)
    })
}

/// The locations the threads other than `index` may write while they run
/// beside others.
fn written_by_others(first: &[ThreadStores], index: usize) -> Accesses {
    others(first, index, |written: &mut Accesses, stores| {
        written.union(&stores.writes())
    })
}

/// The mutexes the threads other than `index` hold at their accesses while
/// they run beside others.
fn guarded_by_others(first: &[ThreadStores], index: usize) -> LockGuards {
    others(first, index, |guards: &mut LockGuards, stores| {
        guards.union(&stores.guards)
    })
}

/// What `add` gathers from the counts of the threads other than `index`.
fn others<T: Default>(
    first: &[ThreadStores],
    index: usize,
    add: impl Fn(&mut T, &ThreadStores),
) -> T {
    let mut gathered = T::default();
    for (other, stores) in first.iter().enumerate() {
        if other != index {
            add(&mut gathered, stores);
        }
    }
    gathered
}

/// Locations that at least two threads may store to while other threads run.
fn shared_locations(threads: &[ThreadStores], locations: u32) -> LocationSet {
    let (candidates, named) = distinct_locations(threads, [], locations);
    LocationSet::of(&candidates, named, |location| {
        threads.iter().filter(|t| t.may_hold(location)).count() >= 2
    })
}

/// Folds the private locals known to hold constants into the addresses of
/// the shared-memory accesses where that makes the address a constant
/// location or one the printer dispatches over one object: `q->tail` and
/// `q->element[i]` with `q` holding `&queue` (a pointer parameter of an
/// inlined function). The SMA then gets constant locations instead of a
/// symbolic one, and the counts above see which locations the access may
/// reach. The value is the same: the local holds that constant on every
/// path to the access.
pub fn fold_constant_addresses(program: &mut SequentialProgram) {
    let (shared, observed) = (LocationSet::default(), Accesses::default());
    let facts = ProgramFacts::of(program);
    for (index, thread) in program.threads.iter_mut().enumerate() {
        let context = facts.context(index, &shared, &observed);
        let folded = walk_folding(
            &thread.body,
            thread.slot == 0,
            &program.memory,
            context,
            true,
        )
        .folded
        .unwrap_or_default();
        let mut visit = 0;
        mark(
            &mut thread.body,
            &Marks::FoldedAddresses(&folded),
            &mut visit,
        );
    }
}
