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
//! The same argument serves the timestamped SMAs: a store to a location no
//! other thread accesses while its thread runs may as well reach memory as
//! early as TSO or PSO lets it, so it gets the least timestamp instead of a
//! guessed one ([`mark_uncontended_accesses`]). A later timestamp could only
//! delay other stores of its thread and keep a list node busy longer. So
//! does every store of main while no other thread runs (before its first
//! thread creation, and after it joined every thread it created): no other
//! thread observes them before main's next creation drains them.
//!
//! Mutexes widen "no other thread accesses": a store made while its thread
//! holds a mutex `m`, to a location that every other thread accesses only
//! while holding `m` too, is unobserved as well. The others' accesses come
//! before its thread's lock of `m` or after its unlock, and the unlock
//! drains the store first ([`LockGuards`]; a data-race-free location
//! behaves as under SC). A mutex counts only if no thread may unlock it
//! without holding it: an unlock by another thread would drain that
//! thread's buffers, not the holder's.
//!
//! Loads gain from the same facts. Where no other thread can have a store to
//! a location pending (it accesses the location only under a mutex this
//! thread holds now, or stores to it not at all while this one runs, or no
//! other thread runs: a producer's own index in a ring buffer), every store in the location's list has reached memory except this
//! thread's own, which come last: so the load's value is the newest write of
//! the list, whatever the clock ([`mark_uncontended_accesses`]). An RMW, a
//! lock or an unlock writes memory at once, after draining, so it is no
//! such store. And a heap block its thread has allocated and not yet
//! published is private: its accesses are unobserved stores and newest
//! loads, and no access the others see
//! ([`private_blocks`](super::private_blocks)). An access through a
//! pointer counts for the locations the pointer may point to, not for
//! every location ([`points_to`](super::points_to)). Only the timestamped
//! SMAs use this: the reference SMAs keep the plain count, so the
//! differential checks the argument.

use super::points_to::PointsTo;
use super::private_blocks::{PrivateBlocks, Site};
use super::{MemoryLayout, SeqStmt, SequentialProgram, nested_creation, sole_allocator};
use crate::ir::{BinaryOp, Expr, FenceKind, LabelId, LocalId, Place, Ty, truncate};
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

/// The mutexes (by location) that one or more threads hold at every one of
/// their accesses to a location while other threads run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LockGuards {
    /// Per location accessed at a known location: the mutexes held at every
    /// such access.
    per_location: BTreeMap<u32, BTreeSet<u32>>,
    /// The mutexes held at every access through an address that may denote
    /// any location; `None` when there is none.
    anywhere: Option<BTreeSet<u32>>,
}

impl LockGuards {
    /// Notes an access to `locations` (None: any) while `held` are held.
    fn note(&mut self, locations: Option<Vec<u32>>, held: &BTreeSet<u32>) {
        match locations {
            Some(range) => {
                for location in range {
                    narrow(
                        self.per_location
                            .entry(location)
                            .or_insert_with(|| held.clone()),
                        held,
                    );
                }
            }
            None => narrow(self.anywhere.get_or_insert_with(|| held.clone()), held),
        }
    }

    fn union(&mut self, other: &LockGuards) {
        for (location, held) in &other.per_location {
            self.note(Some(vec![*location]), held);
        }
        if let Some(held) = &other.anywhere {
            self.note(None, held);
        }
    }

    /// Forgets `mutexes` as guards: an access noted under one of them
    /// alone counts as unguarded.
    fn distrust(&mut self, mutexes: &Accesses) {
        let trusted = |guards: &mut BTreeSet<u32>| guards.retain(|mutex| !mutexes.contains(*mutex));
        self.per_location.values_mut().for_each(trusted);
        self.anywhere.iter_mut().for_each(trusted);
    }

    /// Whether every access to `location` noted here holds one of `held`
    /// (true when none was noted).
    pub fn protect(&self, location: u32, held: &BTreeSet<u32>) -> bool {
        let guarded = |guards: &BTreeSet<u32>| !guards.is_disjoint(held);
        self.per_location.get(&location).is_none_or(guarded)
            && self.anywhere.as_ref().is_none_or(guarded)
    }
}

/// Keeps in `guards` only the mutexes also in `held`.
fn narrow(guards: &mut BTreeSet<u32>, held: &BTreeSet<u32>) {
    guards.retain(|mutex| held.contains(mutex));
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

impl ThreadStores {
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
    let (shared, nothing) = (BTreeSet::new(), Accesses::default());
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

/// Marks the accesses no other thread can come between (see the module
/// documentation). Stores to locations that no other thread accesses while
/// the storing thread runs (at a constant location, or dispatched over an
/// object none of whose locations the others access, unless under a mutex
/// they hold too), and the stores of main while no other thread runs: their
/// thread's own loads see them as before. Loads of locations no other
/// thread can have a store to pending: they read the newest write. The
/// accesses to a heap block its thread has not published are both
/// ([`private_blocks`](super::private_blocks)); `order` is how the model
/// lets stores reach memory.
pub fn mark_uncontended_accesses(program: &mut SequentialProgram, order: StoreOrder) {
    let private_blocks = Some(order);
    let first = first_count(program, private_blocks);
    let facts = ProgramFacts::of(program);
    let shared = BTreeSet::new();
    let mut unheld = Accesses::default();
    first
        .iter()
        .for_each(|stores| unheld.union(&stores.unheld_unlocks));
    let points_to = program.points_to.as_ref();
    for (index, thread) in program.threads.iter_mut().enumerate() {
        let observed = observed_by_others(&first, index);
        let written = written_by_others(&first, index);
        let mut guards = guarded_by_others(&first, index);
        guards.distrust(&unheld);
        let context = Context {
            guards: Some(&guards),
            written_by_others: Some(&written),
            private_blocks,
            points_to,
            slot: thread.slot,
            ..facts.context(index, &shared, &observed)
        };
        let counter = walk(&thread.body, thread.slot == 0, &program.memory, context);
        let mut visit = 0;
        mark(
            &mut thread.body,
            &Marks::UnobservedStores(&counter.unobserved),
            &mut visit,
        );
        let mut visit = 0;
        mark(
            &mut thread.body,
            &Marks::NewestReads(&counter.newest),
            &mut visit,
        );
    }
}

/// Locations that at least two threads may store to while other threads run.
fn shared_locations(threads: &[ThreadStores], locations: u32) -> BTreeSet<u32> {
    (1..locations)
        .filter(|&location| threads.iter().filter(|t| t.may_hold(location)).count() >= 2)
        .collect()
}

/// The buffered stores at one program point, since the last drain.
#[derive(Debug, Clone, Default)]
struct State {
    per_location: BTreeMap<u32, u32>,
    anywhere: u32,
    all: u32,
    /// Stores to shared locations.
    shared: u32,
    /// Stores up to and including the newest one to an observed location.
    through_observed: u32,
    /// Stores with a guessed timestamp since the thread started (drains
    /// do not reset it).
    guessed: u32,
    /// Whether another thread may be running (false for `main` before its
    /// first thread creation).
    concurrent: bool,
    /// Private scalar locals known to hold a constant here (so that an
    /// address such as `vars[1 + (r ^ r)]` is known to be `vars[1]`, or
    /// `&t[2]` for a `t` that holds a heap block's address).
    constants: BTreeMap<LocalId, i64>,
    /// The heap blocks this thread has allocated on every path here, when
    /// it is the only thread that allocates (None otherwise): its next
    /// allocation returns the next block.
    allocations: Option<u32>,
    /// Threads this one created and has not joined (by a handle known to
    /// hold their slot) on some path.
    running: BTreeSet<usize>,
    /// Mutexes (by location) this thread holds on every path.
    held: BTreeSet<u32>,
    /// The heap blocks this thread allocated and has not published
    /// (followed only where [`Context::private_blocks`] asks).
    private: PrivateBlocks,
}

impl State {
    fn join(mut self, other: &State) -> State {
        for (location, count) in &other.per_location {
            let mine = self.per_location.entry(*location).or_insert(0);
            *mine = (*mine).max(*count);
        }
        self.anywhere = self.anywhere.max(other.anywhere);
        self.all = self.all.max(other.all);
        self.shared = self.shared.max(other.shared);
        self.through_observed = self.through_observed.max(other.through_observed);
        self.guessed = self.guessed.max(other.guessed);
        self.concurrent |= other.concurrent;
        self.constants
            .retain(|local, value| other.constants.get(local) == Some(value));
        self.allocations = self
            .allocations
            .filter(|blocks| other.allocations == Some(*blocks));
        self.running.extend(other.running.iter().copied());
        narrow(&mut self.held, &other.held);
        self.private.join(&other.private);
        self
    }

    /// Keeps `constants` up to date across a statement that may assign a
    /// private local.
    fn track_assignment(&mut self, stmt: &SeqStmt, memory: &MemoryLayout) {
        match stmt {
            SeqStmt::Malloc { target, .. } => {
                let block = self
                    .allocations
                    .filter(|blocks| *blocks < memory.heap_blocks);
                self.allocations = self.allocations.map(|blocks| blocks.saturating_add(1));
                match (target, block) {
                    (Place::Local(local), Some(block)) => {
                        let base = i64::from(memory.heap_base)
                            + i64::from(block) * i64::from(memory.heap_block_size);
                        self.constants.insert(*local, base);
                    }
                    _ => {
                        if let Some(local) = target.root_local() {
                            self.constants.remove(&local);
                        }
                    }
                }
            }
            SeqStmt::Assign(Place::Local(local), value) => match evaluate(value, &self.constants) {
                Some(constant) => {
                    self.constants.insert(*local, constant);
                }
                None => {
                    self.constants.remove(local);
                }
            },
            SeqStmt::Assign(target, _)
            | SeqStmt::Read { target, .. }
            | SeqStmt::TryLock { target, .. }
            | SeqStmt::Rmw {
                target: Some(target),
                ..
            } => {
                if let Some(local) = target.root_local() {
                    self.constants.remove(&local);
                }
            }
            _ => {}
        }
    }

    fn drain(&mut self) {
        self.per_location.clear();
        self.anywhere = 0;
        self.all = 0;
        self.shared = 0;
        self.through_observed = 0;
    }
}

/// What the count of one thread knows of the others.
#[derive(Clone, Copy)]
struct Context<'a> {
    /// The locations other threads may store to as well.
    shared: &'a BTreeSet<u32>,
    /// The locations other threads access while this one runs.
    observed: &'a Accesses,
    /// The mutexes they hold at those accesses, when stores under a mutex
    /// may count as unobserved (the timestamped SMAs' marks only).
    guards: Option<&'a LockGuards>,
    /// The locations they write while this one runs (with the guards).
    written_by_others: Option<&'a Accesses>,
    /// Whether threads other than `main` create threads.
    nested_creation: bool,
    /// Whether this thread is the only one that allocates heap memory.
    allocates_alone: bool,
    /// How the thread's stores reach memory, when its accesses to heap
    /// blocks it has not published count as private (the timestamped SMAs'
    /// marks only): None, every block is an ordinary one.
    private_blocks: Option<StoreOrder>,
    /// Where pointers may point, when an access through one counts for
    /// those locations only (the timestamped SMAs' marks only, like the
    /// private blocks): None, it may access any location.
    points_to: Option<&'a PointsTo>,
    /// The slot of the thread counted.
    slot: usize,
}

/// How a thread's stores reach memory, which decides when its private
/// stores to a block are in memory before the block's address is
/// ([`private_blocks`](super::private_blocks)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOrder {
    /// TSO: in program order.
    ProgramOrder,
    /// PSO: in program order per location, and across a store-store fence.
    PerLocation,
}

impl<'a> Context<'a> {
    /// The context of a thread that knows only these sets of the others:
    /// no guards, no nested creation, not the only allocating thread.
    fn new(shared: &'a BTreeSet<u32>, observed: &'a Accesses) -> Context<'a> {
        Context {
            shared,
            observed,
            guards: None,
            written_by_others: None,
            nested_creation: false,
            allocates_alone: false,
            private_blocks: None,
            points_to: None,
            slot: 0,
        }
    }
}

/// What every count of a pass knows of the whole program, found once per
/// pass.
#[derive(Clone, Copy)]
struct ProgramFacts {
    /// Whether threads other than `main` create threads.
    nested_creation: bool,
    /// The index of the only thread that allocates heap memory, if one
    /// alone does.
    allocator: Option<usize>,
}

impl ProgramFacts {
    fn of(program: &SequentialProgram) -> ProgramFacts {
        ProgramFacts {
            nested_creation: nested_creation(program),
            allocator: sole_allocator(&program.threads),
        }
    }

    /// The context of thread `index`, without guards.
    fn context<'a>(
        self,
        index: usize,
        shared: &'a BTreeSet<u32>,
        observed: &'a Accesses,
    ) -> Context<'a> {
        Context {
            nested_creation: self.nested_creation,
            allocates_alone: self.allocator == Some(index),
            ..Context::new(shared, observed)
        }
    }
}

struct Counter<'a> {
    memory: &'a MemoryLayout,
    context: Context<'a>,
    /// Whether this is the main thread (alone before its first creation).
    main: bool,
    result: ThreadStores,
    /// States arriving at labels not reached yet by forward jumps.
    pending: BTreeMap<LabelId, State>,
    /// Labels already passed: a jump to one of them goes backward.
    passed: Vec<LabelId>,
    /// Pre-order index of the statement being visited.
    visit: usize,
    /// Pre-order indices of the reads that run while no
    /// other thread can hold buffered stores.
    alone: BTreeSet<usize>,
    /// Pre-order indices of the stores to locations no other thread
    /// accesses while this one runs.
    unobserved: BTreeSet<usize>,
    /// Pre-order indices of the reads of locations no other thread can
    /// have a store to pending (collected with the guards only).
    newest: BTreeSet<usize>,
    /// Pre-order indices of the accesses whose address becomes a constant
    /// or dispatchable over one object once the private locals known to
    /// hold constants are substituted, with that address; `None` unless
    /// asked for ([`fold_constant_addresses`]), as no count needs it.
    folded: Option<BTreeMap<usize, Expr>>,
    /// Allocations counted as ordinary blocks from the start: those that
    /// escaped with unordered stores in an earlier walk.
    ordinary_sites: BTreeSet<Site>,
    /// Allocations that escape with private stores not ordered before the
    /// escape (PSO only).
    unordered_escapes: BTreeSet<Site>,
}

/// Runs the count over one thread body; `main`: no other thread runs until
/// the first thread creation, nor after every created thread is joined.
fn walk<'a>(
    body: &[SeqStmt],
    main: bool,
    memory: &'a MemoryLayout,
    context: Context<'a>,
) -> Counter<'a> {
    walk_folding(body, main, memory, context, false)
}

/// [`walk`], also collecting the folded addresses when `fold`.
fn walk_folding<'a>(
    body: &[SeqStmt],
    main: bool,
    memory: &'a MemoryLayout,
    context: Context<'a>,
    fold: bool,
) -> Counter<'a> {
    let counter = walk_once(body, main, memory, context, fold, BTreeSet::new());
    if counter.unordered_escapes.is_empty() {
        return counter;
    }
    // a block published before its stores are ordered is an ordinary one
    // all along: its earlier accesses must count too
    let ordinary = counter.unordered_escapes;
    walk_once(body, main, memory, context, fold, ordinary)
}

/// One walk of [`walk_folding`], with the allocations at `ordinary_sites`
/// counted as ordinary blocks.
fn walk_once<'a>(
    body: &[SeqStmt],
    main: bool,
    memory: &'a MemoryLayout,
    context: Context<'a>,
    fold: bool,
    ordinary_sites: BTreeSet<Site>,
) -> Counter<'a> {
    let mut counter = Counter {
        memory,
        context,
        main,
        result: ThreadStores::default(),
        pending: BTreeMap::new(),
        passed: Vec::new(),
        visit: 0,
        alone: BTreeSet::new(),
        unobserved: BTreeSet::new(),
        newest: BTreeSet::new(),
        folded: fold.then(BTreeMap::new),
        ordinary_sites,
        unordered_escapes: BTreeSet::new(),
    };
    let start = State {
        concurrent: !main,
        allocations: context.allocates_alone.then_some(0),
        ..State::default()
    };
    if let Some(mut end) = counter.block(body, Some(start)) {
        counter.note_unordered_escapes(&mut end);
    }
    counter
}

/// Marks the reads of the main thread that run while no other thread can
/// hold buffered stores: before main's first thread creation, and after it
/// has joined every thread it created (when only main creates threads). A
/// joined thread has drained its buffers, so memory updates before such a
/// read could only move main's own stores, which it does not observe: the
/// reference SMAs skip them (`sma_read_alone`).
pub fn mark_main_alone(program: &mut SequentialProgram) {
    let facts = ProgramFacts::of(program);
    let (shared, observed) = (BTreeSet::new(), Accesses::default());
    let Some((index, main)) = program
        .threads
        .iter_mut()
        .enumerate()
        .find(|(_, thread)| thread.slot == 0)
    else {
        return;
    };
    let context = facts.context(index, &shared, &observed);
    let alone = walk(&main.body, true, &program.memory, context).alone;
    let mut visit = 0;
    mark(&mut main.body, &Marks::Alone(&alone), &mut visit);
}

/// What [`mark`] sets, on the statements by their pre-order index (the
/// order [`Counter`] visits them in).
enum Marks<'a> {
    /// `alone` of reads, true for those in the set.
    Alone(&'a BTreeSet<usize>),
    /// `unobserved` of stores, true for those in the set.
    UnobservedStores(&'a BTreeSet<usize>),
    /// `newest` of reads, true for those in the set.
    NewestReads(&'a BTreeSet<usize>),
    /// The address of the accesses in the map, replaced by the folded one.
    FoldedAddresses(&'a BTreeMap<usize, Expr>),
}

fn mark(block: &mut [SeqStmt], marks: &Marks, visit: &mut usize) {
    for stmt in block {
        let index = *visit;
        *visit += 1;
        match (stmt, marks) {
            (SeqStmt::Read { alone: flag, .. }, Marks::Alone(set))
            | (SeqStmt::Read { newest: flag, .. }, Marks::NewestReads(set))
            | (
                SeqStmt::Write {
                    unobserved: flag, ..
                },
                Marks::UnobservedStores(set),
            ) => {
                *flag = set.contains(&index);
            }
            (
                SeqStmt::Read { address, .. }
                | SeqStmt::Write { address, .. }
                | SeqStmt::Rmw { address, .. }
                | SeqStmt::Lock { address, .. }
                | SeqStmt::Unlock { address, .. }
                | SeqStmt::TryLock { address, .. },
                Marks::FoldedAddresses(folded),
            ) => {
                if let Some(folded) = folded.get(&index) {
                    *address = folded.clone();
                }
            }
            (
                SeqStmt::If {
                    then_branch,
                    else_branch,
                    ..
                },
                _,
            ) => {
                mark(then_branch, marks, visit);
                mark(else_branch, marks, visit);
            }
            _ => {}
        }
    }
}

impl Counter<'_> {
    /// Walks `block` from `state` (None: unreachable) and returns the state
    /// after it.
    fn block(&mut self, block: &[SeqStmt], mut state: Option<State>) -> Option<State> {
        for stmt in block {
            state = self.stmt(stmt, state);
        }
        state
    }

    fn stmt(&mut self, stmt: &SeqStmt, state: Option<State>) -> Option<State> {
        let index = self.visit;
        self.visit += 1;
        let private = state
            .as_ref()
            .and_then(|state| self.private_block(state, stmt));
        if let Some(state) = &state {
            if let Some(folded) = &mut self.folded
                && let Some(address) = access_address(stmt)
                    .and_then(|address| folded_address(self.memory, state, address))
            {
                folded.insert(index, address);
            }
            if matches!(stmt, SeqStmt::Read { .. }) && !self.beside_others(state) {
                self.alone.insert(index);
            }
            if let SeqStmt::Read { address, .. } = stmt
                && (private.is_some() || self.reads_newest(state, address))
            {
                self.newest.insert(index);
            }
            if let Some(address) = access_address(stmt)
                && self.beside_others(state)
                && private.is_none()
            {
                let locations = self.locations(state, address);
                self.result.guards.note(locations.clone(), &state.held);
                if matches!(stmt, SeqStmt::Write { .. }) {
                    self.result.buffered_writes.add(locations.clone());
                }
                self.result.accesses.add(locations);
            }
            if let SeqStmt::Rmw { address, .. }
            | SeqStmt::Lock { address, .. }
            | SeqStmt::Unlock { address, .. }
            | SeqStmt::TryLock { address, .. } = stmt
            {
                let locations = self.locations(state, address);
                self.result.atomic_writes.add(locations);
            }
        }
        let state = state.map(|mut state| {
            state.track_assignment(stmt, self.memory);
            self.track_private_blocks(stmt, &mut state, index, private);
            state
        });
        match stmt {
            SeqStmt::Label(label) => {
                self.passed.push(*label);
                let arriving = self.pending.remove(label);
                merge(state, arriving)
            }
            SeqStmt::Goto(label) => {
                if self.passed.contains(label) {
                    self.result.unbounded = true;
                } else if let Some(state) = state {
                    let merged = merge(self.pending.remove(label), Some(state));
                    if let Some(merged) = merged {
                        self.pending.insert(*label, merged);
                    }
                }
                None
            }
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                let after_then = self.block(then_branch, state.clone());
                let after_else = self.block(else_branch, state);
                merge(after_then, after_else)
            }
            SeqStmt::Write {
                address,
                unobserved,
                ..
            } => state.map(|mut state| {
                if !*unobserved {
                    state.guessed += 1;
                    self.result.guessed = self.result.guessed.max(state.guessed);
                }
                let alone = !self.beside_others(&state);
                if !self.store(&mut state, address) || alone || private.is_some() {
                    self.unobserved.insert(index);
                }
                state
            }),
            SeqStmt::Fence {
                kind: FenceKind::StoreStore,
                ..
            } => {
                self.result.store_fences = true;
                state
            }
            // A try-lock may fail: the mutex is not known to be held after it.
            SeqStmt::Fence {
                kind: FenceKind::Full,
                ..
            }
            | SeqStmt::Rmw { .. }
            | SeqStmt::TryLock { .. } => state.map(|mut state| {
                state.drain();
                state
            }),
            SeqStmt::Lock { address, .. } => state.map(|mut state| {
                state.drain();
                // a mutex known by its one location is held from here on
                if let Some(&[mutex]) = self.locations(&state, address).as_deref() {
                    state.held.insert(mutex);
                }
                state
            }),
            SeqStmt::Unlock { address, .. } => state.map(|mut state| {
                state.drain();
                let locations = self.locations(&state, address);
                let held = &state.held;
                if locations
                    .as_ref()
                    .is_none_or(|mutexes| mutexes.iter().any(|mutex| !held.contains(mutex)))
                {
                    self.result.unheld_unlocks.add(locations.clone());
                }
                match locations {
                    Some(mutexes) => state.held.retain(|mutex| !mutexes.contains(mutex)),
                    None => state.held.clear(),
                }
                state
            }),
            SeqStmt::Create { slot, .. } => state.map(|mut state| {
                state.drain();
                state.concurrent = true;
                state.running.insert(*slot);
                state
            }),
            SeqStmt::Join { handle, .. } => state.map(|mut state| {
                if let Some(slot) =
                    evaluate(handle, &state.constants).and_then(|s| usize::try_from(s).ok())
                {
                    state.running.remove(&slot);
                }
                state
            }),
            SeqStmt::Guard(_)
            | SeqStmt::AtomicBegin { .. }
            | SeqStmt::AtomicEnd { .. }
            | SeqStmt::ResumeCheck(_)
            | SeqStmt::Assign(..)
            | SeqStmt::Read { .. }
            | SeqStmt::Malloc { .. }
            | SeqStmt::Free { .. }
            | SeqStmt::Assert { .. }
            | SeqStmt::Assume(_) => state,
        }
    }

    /// The private block the access `stmt` stays inside, if it is an access
    /// and private blocks are followed.
    fn private_block(&self, state: &State, stmt: &SeqStmt) -> Option<Site> {
        self.context.private_blocks?;
        state
            .private
            .block_of(access_address(stmt)?, self.memory.heap_block_size)
    }

    /// Follows the private blocks across `stmt` (at pre-order `index`;
    /// `private`: the private block it accesses), noting the blocks that
    /// escape with unordered stores where the order of stores matters.
    /// After [`State::track_assignment`], which knows a new block's first
    /// location.
    fn track_private_blocks(
        &mut self,
        stmt: &SeqStmt,
        state: &mut State,
        index: usize,
        private: Option<Site>,
    ) {
        if self.context.private_blocks.is_none() {
            return;
        }
        let blocks = &mut state.private;
        match stmt {
            SeqStmt::Malloc { target, .. } => {
                if self.ordinary_sites.contains(&index) {
                    blocks.forget(target);
                } else {
                    let first = target
                        .root_local()
                        .and_then(|local| state.constants.get(&local).copied());
                    blocks.allocate(target, index, first);
                }
            }
            SeqStmt::Assign(target, value) => blocks.assign(target, value),
            SeqStmt::Read { target, .. } => blocks.forget(target),
            SeqStmt::Write { value, .. } => {
                blocks.escape(value);
                if let Some(site) = private {
                    blocks.store(site);
                }
            }
            // drains first, then publishes what it writes
            SeqStmt::Rmw {
                target,
                operand,
                expected,
                ..
            } => {
                blocks.order_stores();
                blocks.escape(operand);
                blocks.escape(expected);
                if let Some(target) = target {
                    blocks.forget(target);
                }
            }
            SeqStmt::TryLock { target, .. } => {
                blocks.order_stores();
                blocks.forget(target);
            }
            SeqStmt::Fence { .. }
            | SeqStmt::Lock { .. }
            | SeqStmt::Unlock { .. }
            | SeqStmt::Create { .. } => {
                blocks.order_stores();
            }
            _ => {}
        }
        self.note_unordered_escapes(state);
    }

    /// Takes the blocks that escaped with unordered stores on the paths to
    /// `state`: where the order of stores matters, they are ordinary blocks
    /// from their allocation on (the next walk).
    fn note_unordered_escapes(&mut self, state: &mut State) {
        let escaped = state.private.take_unordered_escapes();
        if self.context.private_blocks == Some(StoreOrder::PerLocation) {
            self.unordered_escapes.extend(escaped);
        }
    }

    /// Whether other threads may run at `state`: not in main before its
    /// first creation, nor after it joined every thread it created (when no
    /// other thread creates threads). Every other thread runs beside main.
    fn beside_others(&self, state: &State) -> bool {
        state.concurrent
            && !(self.main && state.running.is_empty() && !self.context.nested_creation)
    }

    /// Whether no other thread can have a store to the location(s) a read
    /// of `address` denotes pending at `state` (with the others' guards
    /// only): no other thread runs, or each location is accessed by the
    /// others only under a mutex this thread holds, or written by none of
    /// them while this one runs.
    fn reads_newest(&self, state: &State, address: &Expr) -> bool {
        let unwritten = |location: u32| {
            self.context
                .written_by_others
                .is_some_and(|written| !written.contains(location))
        };
        self.context.guards.is_some()
            && (!self.beside_others(state)
                || self.locations(state, address).is_some_and(|locations| {
                    locations
                        .into_iter()
                        .all(|location| self.guarded(state, location) || unwritten(location))
                }))
    }

    /// Whether the other threads access `location` only under a mutex held
    /// at `state`, or not at all (false without their guards).
    fn guarded(&self, state: &State, location: u32) -> bool {
        self.context
            .guards
            .is_some_and(|guards| guards.protect(location, &state.held))
    }

    /// The locations `address` may denote at `state`: a constant location,
    /// the object a computed address is dispatched over, the locations a
    /// pointer may point to (with the points-to facts), or (None) any.
    fn locations(&self, state: &State, address: &Expr) -> Option<Vec<u32>> {
        if let Some(location) = evaluate(address, &state.constants) {
            return u32::try_from(location).ok().map(|location| vec![location]);
        }
        if let Some((first, scalars)) = self.memory.indexed_object(address) {
            return Some((first..first.saturating_add(scalars)).collect());
        }
        self.context
            .points_to
            .and_then(|facts| facts.locations(self.context.slot, address))
    }

    /// A store enters the buffer at `state`: at a constant location, at one
    /// location of the object a computed address is dispatched over (it
    /// counts for each of them), or anywhere. Returns whether other threads
    /// may observe it.
    fn store(&mut self, state: &mut State, address: &Expr) -> bool {
        let ahead = state.all;
        state.all += 1;
        let (shared, observed) = match self.locations(state, address) {
            Some(locations) => {
                let (mut shared, mut observed) = (false, false);
                for location in locations {
                    *state.per_location.entry(location).or_insert(0) += 1;
                    shared |= self.context.shared.contains(&location);
                    observed |=
                        self.context.observed.contains(location) && !self.guarded(state, location);
                }
                (shared, observed)
            }
            None => {
                state.anywhere += 1;
                (true, true)
            }
        };
        if shared {
            state.shared += 1;
        }
        if observed {
            state.through_observed = state.all;
        }
        if !state.concurrent {
            return observed;
        }
        let result = &mut self.result;
        result.observed_most = result.observed_most.max(state.through_observed);
        if shared {
            result.shared = result.shared.max(state.shared);
            result.ahead_of_shared = result.ahead_of_shared.max(ahead);
        }
        result.most = result.most.max(state.all);
        result.anywhere = result.anywhere.max(state.anywhere);
        for (location, count) in &state.per_location {
            let most = result.per_location.entry(*location).or_insert(0);
            *most = (*most).max(count + state.anywhere);
        }
        observed
    }
}

/// `address` with the known constants substituted, when that makes a
/// constant or an address the printer dispatches over one object out of one
/// that is neither. An address dispatched over one object (`workers[i]`
/// with `i` known) becomes a constant only inside that object, whose
/// bounds check would otherwise be lost.
fn folded_address(memory: &MemoryLayout, state: &State, address: &Expr) -> Option<Expr> {
    if matches!(address, Expr::Const(_)) || state.constants.is_empty() {
        return None;
    }
    let location = evaluate(address, &state.constants);
    if let Some((first, scalars)) = memory.indexed_object(address) {
        let inside = |location: &i64| {
            (i64::from(first)..i64::from(first) + i64::from(scalars)).contains(location)
        };
        return location.filter(inside).map(Expr::Const);
    }
    let folded = match location {
        Some(location) => Expr::Const(location),
        None => substitute_constants(address, &state.constants),
    };
    let known = matches!(folded, Expr::Const(_)) || memory.indexed_object(&folded).is_some();
    known.then_some(folded)
}

/// The address a shared-memory access goes to, if `stmt` is one.
fn access_address(stmt: &SeqStmt) -> Option<&Expr> {
    match stmt {
        SeqStmt::Read { address, .. }
        | SeqStmt::Write { address, .. }
        | SeqStmt::Rmw { address, .. }
        | SeqStmt::Lock { address, .. }
        | SeqStmt::Unlock { address, .. }
        | SeqStmt::TryLock { address, .. } => Some(address),
        _ => None,
    }
}

/// `expr` with the loads of private locals known to hold a constant
/// replaced by that constant (places' own index operands stay as they are).
fn substitute_constants(expr: &Expr, constants: &BTreeMap<LocalId, i64>) -> Expr {
    let substitute = |inner: &Expr| Box::new(substitute_constants(inner, constants));
    match expr {
        Expr::Load(Place::Local(local)) => constants
            .get(local)
            .map_or_else(|| expr.clone(), |value| Expr::Const(*value)),
        Expr::Unary(op, inner) => Expr::Unary(*op, substitute(inner)),
        Expr::Cast(ty, inner) => Expr::Cast(ty.clone(), substitute(inner)),
        Expr::Reinterpret(ty, inner) => Expr::Reinterpret(ty.clone(), substitute(inner)),
        Expr::Binary(op, left, right) => {
            let substituted = Expr::Binary(*op, substitute(left), substitute(right));
            // a known byte address's location is the base of an address
            // the printer dispatches (`(p >> 3) + i`)
            match (op, evaluate(&substituted, constants)) {
                (BinaryOp::Shr, Some(location)) => Expr::Const(location),
                _ => substituted,
            }
        }
        Expr::Conditional(condition, then_value, else_value) => Expr::Conditional(
            substitute(condition),
            substitute(then_value),
            substitute(else_value),
        ),
        Expr::LibraryCall(function, arguments) => Expr::LibraryCall(
            *function,
            arguments
                .iter()
                .map(|argument| substitute_constants(argument, constants))
                .collect(),
        ),
        Expr::Const(_)
        | Expr::FloatConst(_)
        | Expr::Load(_)
        | Expr::ObjectAddress(_)
        | Expr::Nondet(_)
        | Expr::CurrentThread => expr.clone(),
    }
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
    let (shared, observed) = (BTreeSet::new(), Accesses::default());
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

/// The value of `expr` if it is a constant given the known `constants`:
/// constants, known locals, `+ - * >>` and in-range casts of constants, and
/// `e ^ e` and `e - e` of one deterministic `e` (the address dependencies of
/// litmus tests).
pub(super) fn evaluate(expr: &Expr, constants: &BTreeMap<LocalId, i64>) -> Option<i64> {
    match expr {
        Expr::Const(value) => Some(*value),
        Expr::Load(Place::Local(local)) => constants.get(local).copied(),
        Expr::Binary(BinaryOp::BitXor | BinaryOp::Sub, left, right)
            if left == right && deterministic(left) =>
        {
            Some(0)
        }
        Expr::Binary(op, left, right) => {
            let (left, right) = (evaluate(left, constants)?, evaluate(right, constants)?);
            match op {
                BinaryOp::Add => left.checked_add(right),
                BinaryOp::Sub => left.checked_sub(right),
                BinaryOp::Mul => left.checked_mul(right),
                BinaryOp::BitXor => Some(left ^ right),
                // a byte address's location (`p >> 3`)
                BinaryOp::Shr if left >= 0 && (0..63).contains(&right) => Some(left >> right),
                _ => None,
            }
        }
        Expr::Cast(Ty::Pointer(_), inner) => evaluate(inner, constants),
        Expr::Cast(Ty::Int { bits, signed }, inner) => {
            // Only values the type represents (negative ones not as unsigned).
            let value = evaluate(inner, constants)?;
            (truncate(value, *bits, *signed) == value && (*signed || value >= 0)).then_some(value)
        }
        _ => None,
    }
}

/// Whether evaluating `expr` twice gives the same value (no `nondet`).
fn deterministic(expr: &Expr) -> bool {
    match expr {
        Expr::Nondet(_) => false,
        Expr::Const(_)
        | Expr::FloatConst(_)
        | Expr::Load(_)
        | Expr::ObjectAddress(_)
        | Expr::CurrentThread => true,
        Expr::Unary(_, inner) | Expr::Cast(_, inner) | Expr::Reinterpret(_, inner) => {
            deterministic(inner)
        }
        Expr::Binary(_, left, right) => deterministic(left) && deterministic(right),
        Expr::Conditional(condition, then_value, else_value) => {
            deterministic(condition) && deterministic(then_value) && deterministic(else_value)
        }
        Expr::LibraryCall(_, arguments) => arguments.iter().all(deterministic),
    }
}

fn merge(a: Option<State>, b: Option<State>) -> Option<State> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.join(&b)),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Place, UnaryOp};

    /// Locations 1-3 are one array, 4-9 scalars; the heap starts at 10.
    fn layout() -> MemoryLayout {
        let mut objects = vec![(1, 3)];
        objects.extend((4..10).map(|location| (location, 1)));
        MemoryLayout {
            initial_values: vec![0; 10],
            heap_base: 10,
            heap_blocks: 0,
            heap_block_size: 0,
            objects,
            pointees: BTreeSet::new(),
            padding: Vec::new(),
            heap_needs: None,
        }
    }

    fn stores(body: &[SeqStmt], main: bool) -> ThreadStores {
        let (shared, observed) = (BTreeSet::new(), Accesses::everything());
        let context = Context::new(&shared, &observed);
        walk(body, main, &layout(), context).result
    }

    fn write(location: i64) -> SeqStmt {
        SeqStmt::Write {
            address: Expr::Const(location),
            value: Expr::Const(1),
            stmt: 0,
            unobserved: false,
        }
    }

    fn write_through_pointer() -> SeqStmt {
        SeqStmt::Write {
            address: Expr::Load(Place::Local(0)),
            value: Expr::Const(1),
            stmt: 0,
            unobserved: false,
        }
    }

    /// A store to `array[i]` for the array at locations 1-3.
    fn write_to_array() -> SeqStmt {
        SeqStmt::Write {
            address: Expr::Binary(
                BinaryOp::Add,
                Box::new(Expr::Const(1)),
                Box::new(Expr::Load(Place::Local(0))),
            ),
            value: Expr::Const(1),
            stmt: 0,
            unobserved: false,
        }
    }

    fn fence() -> SeqStmt {
        SeqStmt::Fence {
            kind: FenceKind::Full,
            stmt: 0,
        }
    }

    fn branch(then_branch: Vec<SeqStmt>, else_branch: Vec<SeqStmt>) -> SeqStmt {
        SeqStmt::If {
            condition: Expr::Const(1),
            then_branch,
            else_branch,
        }
    }

    #[test]
    fn a_drain_ends_a_run_of_buffered_stores() {
        let stores = stores(
            &[write(1), write(2), fence(), write(1), write(1), write(1)],
            false,
        );
        assert_eq!(stores.most, 3);
        assert_eq!(stores.at(1), 3);
        assert_eq!(stores.at(2), 1);
        assert_eq!(stores.at(3), 0);
        assert!(!stores.unbounded && !stores.store_fences);
    }

    #[test]
    fn phases_move_stores_only_up_to_the_newest_observed_one() {
        let (shared, observed) = (
            BTreeSet::new(),
            Accesses {
                locations: [1].into(),
                anywhere: false,
            },
        );
        let context = Context::new(&shared, &observed);
        let count = |body: &[SeqStmt]| walk(body, false, &layout(), context).result;
        // Location 1 is observed: the phases must reach its store, behind
        // the store to 4; the stores to 5 and 6 behind it wait for the drain.
        let stores = count(&[write(4), write(1), write(5), write(6)]);
        assert_eq!((stores.most, stores.observed_most), (4, 2));
        let stores = count(&[write(4), write(5)]);
        assert_eq!((stores.most, stores.observed_most), (2, 0));
        // A store through an unknown address may be observed.
        let stores = count(&[write(4), write_through_pointer(), write(5)]);
        assert_eq!(stores.observed_most, 2);
        // A drain starts over.
        let stores = count(&[write(1), write(4), fence(), write(4), write(5)]);
        assert_eq!(stores.observed_most, 1);
    }

    fn lock(location: i64) -> SeqStmt {
        SeqStmt::Lock {
            address: Expr::Const(location),
            stmt: 0,
        }
    }

    fn unlock(location: i64) -> SeqStmt {
        SeqStmt::Unlock {
            address: Expr::Const(location),
            stmt: 0,
        }
    }

    #[test]
    fn the_mutexes_held_at_every_access_are_collected() {
        // location 4 always under mutex 9; 5 under 9 once and bare once;
        // the array (1-3) under 9 on one branch only
        let body = [
            lock(9),
            write(4),
            write(5),
            branch(vec![write_to_array()], vec![unlock(9), lock(8)]),
            unlock(9),
            write(5),
        ];
        let guards = stores(&body, false).guards;
        let (nine, eight) = (BTreeSet::from([9]), BTreeSet::from([8]));
        assert!(guards.protect(4, &nine));
        assert!(!guards.protect(4, &eight), "another mutex protects nothing");
        assert!(!guards.protect(5, &nine), "one bare access is enough");
        assert!(guards.protect(1, &nine), "the array's only access holds 9");
        assert!(
            guards.protect(6, &BTreeSet::new()),
            "nothing accessed, nothing to protect from"
        );
        // after the branches only 8 or 9 is held: neither on every path
        let body = [lock(9), branch(vec![], vec![unlock(9), lock(8)]), write(4)];
        assert!(!stores(&body, false).guards.protect(4, &nine));
        // an access through any address counts for every location
        let guards = stores(&[write_through_pointer()], false).guards;
        assert!(!guards.protect(7, &nine));
    }

    #[test]
    fn a_store_under_a_mutex_the_others_hold_is_unobserved() {
        let guards_of = |body: &[SeqStmt]| stores(body, false).guards;
        let other = guards_of(&[lock(9), read_at(4), unlock(9)]);
        let (shared, observed) = (BTreeSet::new(), Accesses::everything());
        let unobserved = |body: &[SeqStmt], guards: Option<&LockGuards>| {
            walk(
                body,
                false,
                &layout(),
                Context {
                    guards,
                    ..Context::new(&shared, &observed)
                },
            )
            .unobserved
        };
        // store 1 (to 4, under 9) is unobserved; store 3 (after the unlock) is not
        let body = [lock(9), write(4), unlock(9), write(4)];
        assert_eq!(unobserved(&body, Some(&other)), BTreeSet::from([1]));
        // without the guards (the reference SMAs' count) neither is
        assert!(unobserved(&body, None).is_empty());
        // nor under another mutex
        assert!(unobserved(&[lock(8), write(4), unlock(8)], Some(&other)).is_empty());
    }

    fn read_at(location: i64) -> SeqStmt {
        SeqStmt::Read {
            target: Place::Local(1),
            address: Expr::Const(location),
            stmt: 0,
            alone: false,
            newest: false,
        }
    }

    /// The reads of `body` (a thread beside others) that read the newest
    /// write, given what the other threads hold at their accesses.
    fn newest_reads(body: &[SeqStmt], others: &LockGuards) -> BTreeSet<usize> {
        let (shared, observed) = (BTreeSet::new(), Accesses::everything());
        walk(
            body,
            false,
            &layout(),
            Context {
                guards: Some(others),
                ..Context::new(&shared, &observed)
            },
        )
        .newest
    }

    #[test]
    fn a_load_under_a_mutex_the_others_hold_reads_the_newest_write() {
        // the others store to 4 under mutex 9 only, and to 5 bare
        let others = stores(&[lock(9), write(4), unlock(9), write(5)], false).guards;
        // read 1 (of 4, under 9) reads the newest write; read 2 (of 5) and
        // read 4 (of 4, after the unlock) do not
        let body = [lock(9), read_at(4), read_at(5), unlock(9), read_at(4)];
        assert_eq!(newest_reads(&body, &others), BTreeSet::from([1]));
        // a location the others never access needs no mutex
        assert_eq!(newest_reads(&[read_at(6)], &others), BTreeSet::from([0]));
        // under another mutex, or for the reference SMAs' count, nothing
        assert!(newest_reads(&[lock(8), read_at(4), unlock(8)], &others).is_empty());
        let (shared, observed) = (BTreeSet::new(), Accesses::everything());
        let memory = layout();
        let plain = walk(&body, false, &memory, Context::new(&shared, &observed));
        assert!(plain.newest.is_empty());
    }

    fn compare_and_swap_at(location: i64) -> SeqStmt {
        SeqStmt::Rmw {
            target: None,
            address: Expr::Const(location),
            op: crate::passes::RmwCode::Cas,
            operand: Expr::Const(1),
            expected: Expr::Const(0),
            stmt: 0,
        }
    }

    #[test]
    fn a_load_of_a_location_no_other_thread_writes_reads_the_newest_write() {
        // the others read 4 bare, store to 5, lock 6 and compare-and-swap 7:
        // only the store can be pending (the others write memory at once)
        let others = stores(
            &[
                read_at(4),
                write(5),
                lock(6),
                unlock(6),
                compare_and_swap_at(7),
            ],
            false,
        );
        let written = others.writes();
        assert_eq!(
            written,
            Accesses {
                locations: BTreeSet::from([5]),
                anywhere: false
            }
        );
        let (shared, observed) = (BTreeSet::new(), Accesses::everything());
        let memory = layout();
        let context = Context {
            guards: Some(&others.guards),
            written_by_others: Some(&written),
            ..Context::new(&shared, &observed)
        };
        // its own store to 4 comes last in 4's list: the load reads it
        let body = [write(4), read_at(4), read_at(5), read_at(6), read_at(7)];
        assert_eq!(
            walk(&body, false, &memory, context).newest,
            BTreeSet::from([1, 3, 4])
        );
        // without what the others write, a bare read by them is an access
        let context = Context {
            guards: Some(&others.guards),
            ..Context::new(&shared, &observed)
        };
        assert!(walk(&body, false, &memory, context).newest.is_empty());
        // a store of theirs through an unknown address may write anything
        let anywhere = SeqStmt::Write {
            address: Expr::Load(Place::Local(0)),
            value: Expr::Const(1),
            stmt: 0,
            unobserved: false,
        };
        assert_eq!(stores(&[anywhere], false).writes(), Accesses::everything());
    }

    #[test]
    fn a_mutex_unlocked_without_being_held_guards_nothing() {
        let unheld = |body: &[SeqStmt]| stores(body, false).unheld_unlocks;
        assert_eq!(unheld(&[lock(9), unlock(9)]), Accesses::default());
        assert_eq!(unheld(&[unlock(9)]).locations, BTreeSet::from([9]));
        // held on one branch only
        assert_eq!(
            unheld(&[branch(vec![lock(9)], vec![]), unlock(9)]).locations,
            BTreeSet::from([9])
        );
        let mut others = stores(&[lock(9), write(4), unlock(9)], false).guards;
        assert!(others.protect(4, &BTreeSet::from([9])));
        others.distrust(&unheld(&[unlock(9)]));
        assert!(
            !others.protect(4, &BTreeSet::from([9])),
            "a distrusted mutex guards nothing"
        );
    }

    #[test]
    fn known_pointer_locals_are_folded_into_addresses() {
        let local = |id: usize| Expr::Load(Place::Local(id));
        let plus =
            |left: Expr, right: Expr| Expr::Binary(BinaryOp::Add, Box::new(left), Box::new(right));
        let write_at = |address: Expr| SeqStmt::Write {
            address,
            value: Expr::Const(1),
            stmt: 0,
            unobserved: false,
        };
        let folded = |body: &[SeqStmt]| {
            let (shared, observed) = (BTreeSet::new(), Accesses::default());
            let context = Context::new(&shared, &observed);
            walk_folding(body, false, &layout(), context, true)
                .folded
                .unwrap_or_default()
        };
        // local 0 holds the array's base (location 1), local 1 is unknown
        let base = SeqStmt::Assign(Place::Local(0), Expr::Const(1));
        let body = [
            base.clone(),
            write_at(plus(local(0), Expr::Const(2))),
            write_at(plus(local(0), local(1))),
            write_at(local(1)),
        ];
        assert_eq!(
            folded(&body),
            BTreeMap::from([(1, Expr::Const(3)), (2, plus(Expr::Const(1), local(1)))]),
            "a constant location, and one dispatched over the array; an unknown pointer stays"
        );
        // an address the printer dispatches over the array (1..=3) becomes
        // its location inside it, and stays dispatched (bounds-checked)
        // outside it
        assert_eq!(
            folded(&[base.clone(), write_to_array()]),
            BTreeMap::from([(1, Expr::Const(2))])
        );
        assert!(
            folded(&[
                SeqStmt::Assign(Place::Local(0), Expr::Const(3)),
                write_to_array()
            ])
            .is_empty()
        );
        // a local assigned on one branch only is not known
        let body = [
            branch(vec![base], vec![]),
            write_at(plus(local(0), Expr::Const(2))),
        ];
        assert!(folded(&body).is_empty());
    }

    #[test]
    fn the_sole_allocators_heap_pointers_are_folded_into_addresses() {
        let local = |id: usize| Expr::Load(Place::Local(id));
        let plus =
            |left: Expr, right: Expr| Expr::Binary(BinaryOp::Add, Box::new(left), Box::new(right));
        let write_at = |address: Expr| SeqStmt::Write {
            address,
            value: Expr::Const(1),
            stmt: 0,
            unobserved: false,
        };
        let malloc = |local: usize| SeqStmt::Malloc {
            target: Place::Local(local),
            size: Expr::Const(4),
            zeroed: false,
            stmt: 0,
        };
        // two blocks of 4 scalars from location 10 on
        let memory = MemoryLayout {
            heap_blocks: 2,
            heap_block_size: 4,
            ..layout()
        };
        let folded = |body: &[SeqStmt], allocates_alone: bool| {
            let (shared, observed) = (BTreeSet::new(), Accesses::default());
            let context = Context {
                allocates_alone,
                ..Context::new(&shared, &observed)
            };
            walk_folding(body, true, &memory, context, true)
                .folded
                .unwrap_or_default()
        };
        // `p = malloc(..); q = malloc(..); q[1] = 1; p[3] = 1; r = malloc(..); r[0] = 1;`
        let body = [
            malloc(0),
            malloc(1),
            write_at(plus(local(1), Expr::Const(1))),
            write_at(plus(local(0), Expr::Const(3))),
            malloc(2),
            write_at(local(2)),
        ];
        assert_eq!(
            folded(&body, true),
            BTreeMap::from([(2, Expr::Const(15)), (3, Expr::Const(13))]),
            "each allocation takes the next block; the third finds none (no execution gets past it)"
        );
        assert!(
            folded(&body, false).is_empty(),
            "another thread allocates too: the order of the blocks is not known"
        );
        // an allocation on one branch only: the blocks after it are not known
        let body = [
            branch(vec![malloc(0)], vec![]),
            malloc(1),
            write_at(local(1)),
        ];
        assert!(folded(&body, true).is_empty());
        // the same count on both branches is
        let body = [
            branch(vec![malloc(0)], vec![malloc(2)]),
            malloc(1),
            write_at(local(1)),
        ];
        assert_eq!(folded(&body, true), BTreeMap::from([(4, Expr::Const(14))]));
    }

    /// What a thread beside others marks and leaves to the others when its
    /// unpublished heap blocks are private, stores reaching memory in
    /// `order`: (unobserved stores, newest reads, what it may have pending,
    /// what it accesses).
    fn private_walk(
        body: &[SeqStmt],
        order: StoreOrder,
    ) -> (BTreeSet<usize>, BTreeSet<usize>, Accesses, Accesses) {
        let memory = MemoryLayout {
            heap_blocks: 2,
            heap_block_size: 2,
            ..layout()
        };
        // the others access and write everything, holding no mutex
        let guards = LockGuards {
            per_location: BTreeMap::new(),
            anywhere: Some(BTreeSet::new()),
        };
        let (shared, observed, written) = (
            BTreeSet::new(),
            Accesses::everything(),
            Accesses::everything(),
        );
        let context = Context {
            guards: Some(&guards),
            written_by_others: Some(&written),
            private_blocks: Some(order),
            ..Context::new(&shared, &observed)
        };
        let counter = walk(body, false, &memory, context);
        (
            counter.unobserved,
            counter.newest,
            counter.result.writes(),
            counter.result.accesses,
        )
    }

    #[test]
    fn a_block_the_thread_has_not_published_is_private() {
        let local = |id: usize| Expr::Load(Place::Local(id));
        let field = |id: usize, offset: i64| {
            Expr::Binary(
                BinaryOp::Add,
                Box::new(local(id)),
                Box::new(Expr::Const(offset)),
            )
        };
        let store = |address: Expr, value: Expr| SeqStmt::Write {
            address,
            value,
            stmt: 0,
            unobserved: false,
        };
        let load = |address: Expr| SeqStmt::Read {
            target: Place::Local(5),
            address,
            stmt: 0,
            alone: false,
            newest: false,
        };
        let malloc = SeqStmt::Malloc {
            target: Place::Local(0),
            size: Expr::Const(2),
            zeroed: false,
            stmt: 0,
        };
        let link = SeqStmt::Rmw {
            target: None,
            address: Expr::Const(4),
            op: crate::passes::RmwCode::Cas,
            operand: local(0),
            expected: Expr::Const(0),
            stmt: 0,
        };
        // `n = malloc(..); n->value = 1; n->next = 0; v = n->value;
        // CAS(&top, 0, n); n->value = 2; v = n->value;`
        let body = [
            malloc.clone(),
            store(local(0), Expr::Const(1)),
            store(field(0, 1), Expr::Const(0)),
            load(local(0)),
            link.clone(),
            store(local(0), Expr::Const(2)),
            load(local(0)),
        ];
        for order in [StoreOrder::ProgramOrder, StoreOrder::PerLocation] {
            let (unobserved, newest, writes, accesses) = private_walk(&body, order);
            assert_eq!(
                unobserved,
                BTreeSet::from([1, 2]),
                "the stores before the compare-and-swap publishes n"
            );
            assert_eq!(newest, BTreeSet::from([3]));
            assert!(
                writes.anywhere,
                "the store after it may be pending anywhere"
            );
            assert!(accesses.anywhere && accesses.locations.contains(&4));
        }
        // published by a plain store: in order under TSO; under PSO its
        // stores may reach memory after it, so the block is an ordinary one
        let publish = store(Expr::Const(4), local(0));
        let body = [
            malloc.clone(),
            store(local(0), Expr::Const(1)),
            load(local(0)),
            publish.clone(),
        ];
        let (unobserved, newest, writes, _) = private_walk(&body, StoreOrder::ProgramOrder);
        assert_eq!(
            (unobserved, newest),
            (BTreeSet::from([1]), BTreeSet::from([2]))
        );
        assert_eq!(writes.locations, BTreeSet::from([4]));
        assert!(!writes.anywhere);
        let (unobserved, newest, writes, _) = private_walk(&body, StoreOrder::PerLocation);
        assert!(unobserved.is_empty() && newest.is_empty());
        assert!(writes.anywhere);
        // a store-store fence between them orders them under PSO too
        let fence = SeqStmt::Fence {
            kind: FenceKind::StoreStore,
            stmt: 0,
        };
        let body = [
            malloc.clone(),
            store(local(0), Expr::Const(1)),
            fence,
            publish.clone(),
        ];
        assert_eq!(
            private_walk(&body, StoreOrder::PerLocation).0,
            BTreeSet::from([1])
        );
        // lost on one path (another value on the other), then published
        let body = [
            malloc.clone(),
            store(local(0), Expr::Const(1)),
            branch(
                vec![SeqStmt::Assign(Place::Local(0), Expr::Const(0))],
                vec![],
            ),
            publish,
        ];
        assert!(private_walk(&body, StoreOrder::PerLocation).0.is_empty());
        // an address through an unknown index may leave the block
        let body = [
            malloc,
            store(
                Expr::Binary(BinaryOp::Add, Box::new(local(0)), Box::new(local(7))),
                Expr::Const(1),
            ),
        ];
        let (unobserved, _, writes, _) = private_walk(&body, StoreOrder::ProgramOrder);
        assert!(unobserved.is_empty() && writes.anywhere);
    }

    #[test]
    fn accesses_beside_other_threads_are_collected() {
        let read = read_at;
        let accesses = stores(&[read(4), write(5), write_to_array()], false).accesses;
        assert_eq!(accesses.locations, [1, 2, 3, 4, 5].into());
        assert!(!accesses.anywhere);
        assert!(stores(&[write_through_pointer()], false).accesses.anywhere);
        // Main before its first creation runs alone: nothing to observe.
        assert!(
            stores(&[read(4), write(5)], true)
                .accesses
                .locations
                .is_empty()
        );
    }

    #[test]
    fn branches_count_their_larger_side() {
        let body = [
            write(1),
            branch(vec![write(2), write(2)], vec![fence(), write(3)]),
            write(4),
        ];
        let stores = stores(&body, false);
        assert_eq!(stores.most, 4, "write 1, two writes to 2, write 4");
        assert_eq!(stores.at(2), 2);
        assert_eq!(stores.at(3), 1);
        assert_eq!(stores.at(1), 1);
    }

    #[test]
    fn a_forward_jump_carries_its_stores_past_a_drain() {
        let body = [
            write(1),
            branch(vec![SeqStmt::Goto(7)], vec![]),
            fence(),
            SeqStmt::Label(7),
            write(1),
        ];
        let stores = stores(&body, false);
        assert_eq!(stores.at(1), 2, "the jump skips the fence");
        assert!(!stores.unbounded);
    }

    #[test]
    fn a_backward_jump_makes_the_count_unbounded() {
        let body = [SeqStmt::Label(3), write(1), SeqStmt::Goto(3)];
        assert!(stores(&body, false).unbounded);
    }

    #[test]
    fn a_computed_address_may_be_any_location() {
        let body = [write(1), write_through_pointer()];
        let stores = stores(&body, false);
        assert_eq!(stores.anywhere, 1);
        assert_eq!(stores.at(1), 2);
        assert_eq!(stores.at(9), 1);
    }

    #[test]
    fn a_store_dispatched_over_an_array_may_reach_each_of_its_locations() {
        let stores = stores(&[write_to_array(), write(2)], false);
        assert_eq!(stores.anywhere, 0);
        assert_eq!(
            (stores.at(1), stores.at(2), stores.at(3), stores.at(4)),
            (1, 2, 1, 0)
        );
        assert_eq!(stores.most, 2);
    }

    #[test]
    fn stores_to_shared_locations_are_counted_with_the_stores_ahead_of_them() {
        let shared = BTreeSet::from([2]);
        let body = [write(1), write(2), write(3), write_to_array(), write(4)];
        let observed = Accesses::everything();
        let context = Context::new(&shared, &observed);
        let stores = walk(&body, false, &layout(), context).result;
        assert_eq!(
            stores.shared, 2,
            "the store to 2 and the one dispatched over 1-3"
        );
        assert_eq!(
            stores.ahead_of_shared, 3,
            "three stores are ahead of the dispatched one"
        );
        assert_eq!(stores.most, 5);
    }

    #[test]
    fn an_address_dependency_on_a_read_value_is_a_constant_location() {
        // r = vars[0]; d = r ^ r; array[d] = 1 (array at 1-3): location 1.
        let read = read_at(4);
        let r = || Box::new(Expr::Load(Place::Local(1)));
        let dependency = SeqStmt::Assign(Place::Local(0), Expr::Binary(BinaryOp::BitXor, r(), r()));
        let stores = stores(&[read, dependency, write_to_array()], false);
        assert_eq!((stores.at(1), stores.at(2), stores.at(3)), (1, 0, 0));
    }

    #[test]
    fn a_local_assigned_in_one_branch_only_is_not_constant() {
        let set = |value| SeqStmt::Assign(Place::Local(0), value);
        let body = [
            set(Expr::Const(0)),
            branch(
                vec![set(Expr::Unary(UnaryOp::Neg, Box::new(Expr::Const(-1))))],
                vec![],
            ),
            write_to_array(),
        ];
        let stores = stores(&body, false);
        assert_eq!((stores.at(1), stores.at(2), stores.at(3)), (1, 1, 1));
    }

    #[test]
    fn nondet_values_are_not_equal_to_themselves() {
        let nondet = || Box::new(Expr::Nondet(Ty::INT));
        let body = [
            SeqStmt::Assign(
                Place::Local(0),
                Expr::Binary(BinaryOp::BitXor, nondet(), nondet()),
            ),
            write_to_array(),
        ];
        assert_eq!(stores(&body, false).at(3), 1);
    }

    fn read() -> SeqStmt {
        SeqStmt::Read {
            target: Place::Local(2),
            address: Expr::Const(4),
            stmt: 0,
            alone: false,
            newest: false,
        }
    }

    fn alone_reads(body: &[SeqStmt], nested_creation: bool) -> BTreeSet<usize> {
        let (shared, observed) = (BTreeSet::new(), Accesses::default());
        walk(
            body,
            true,
            &layout(),
            Context {
                nested_creation,
                ..Context::new(&shared, &observed)
            },
        )
        .alone
    }

    #[test]
    fn main_is_alone_before_creating_and_after_joining_every_thread() {
        let handle = Place::Local(0);
        let body = [
            read(),
            SeqStmt::Create { slot: 1, stmt: 0 },
            SeqStmt::Assign(handle.clone(), Expr::Const(1)),
            read(),
            SeqStmt::Join {
                handle: Expr::Load(handle),
                stmt: 0,
            },
            read(),
        ];
        assert_eq!(alone_reads(&body, false), BTreeSet::from([0, 5]));
        assert_eq!(
            alone_reads(&body, true),
            BTreeSet::from([0]),
            "a thread may have created others"
        );
        let mut program_body = body.to_vec();
        mark(
            &mut program_body,
            &Marks::Alone(&BTreeSet::from([0, 5])),
            &mut 0,
        );
        assert!(matches!(program_body[5], SeqStmt::Read { alone: true, .. }));
        assert!(matches!(
            program_body[3],
            SeqStmt::Read { alone: false, .. }
        ));
    }

    #[test]
    fn a_join_through_an_unknown_handle_leaves_the_thread_running() {
        let body = [
            SeqStmt::Create { slot: 1, stmt: 0 },
            branch(
                vec![SeqStmt::Assign(Place::Local(0), Expr::Const(1))],
                vec![],
            ),
            SeqStmt::Join {
                handle: Expr::Load(Place::Local(0)),
                stmt: 0,
            },
            read(),
        ];
        assert!(alone_reads(&body, false).is_empty());
    }

    #[test]
    fn main_alone_before_its_first_creation_holds_nothing_concurrently() {
        let body = [
            write(1),
            write(2),
            SeqStmt::Create { slot: 1, stmt: 0 },
            write(3),
        ];
        let alone = stores(&body, true);
        assert_eq!(alone.most, 1, "only the store after the creation");
        assert_eq!(alone.at(1), 0);
        let whole = stores(&body, false);
        assert_eq!(whole.most, 2, "the drain must still empty both");
    }

    #[test]
    fn store_store_fences_are_noted_and_do_not_drain() {
        let body = [
            write(1),
            SeqStmt::Fence {
                kind: FenceKind::StoreStore,
                stmt: 0,
            },
            write(2),
        ];
        let stores = stores(&body, false);
        assert!(stores.store_fences);
        assert_eq!(stores.most, 2);
    }
}
