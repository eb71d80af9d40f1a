//! The count of one thread's store buffers: one walk over its loop-free
//! body that follows, at every program point, the stores buffered since the
//! last drain, the private locals known to hold constants, the heap blocks
//! it allocated, the threads it runs beside and the mutexes it holds; and
//! collects on the way the facts [`uncontended`](super::uncontended) and
//! [`constant_addresses`](super::constant_addresses) mark.

use super::constant_addresses::{access_address, evaluate, folded_address};
use super::lock_guards::narrow;
use super::{Accesses, LocationSet, LockGuards, StoreOrder, ThreadStores};
use crate::ir::{Expr, FenceKind, LabelId, LocalId, Place};
use crate::passes::points_to::PointsTo;
use crate::passes::private_blocks::{PrivateBlocks, Site};
use crate::passes::{MemoryLayout, SeqStmt, SequentialProgram, nested_creation, sole_allocator};
use std::collections::{BTreeMap, BTreeSet};

/// The buffered stores at one program point, since the last drain.
#[derive(Debug, Clone, Default)]
pub(super) struct State {
    pub(super) per_location: BTreeMap<u32, u32>,
    pub(super) anywhere: u32,
    pub(super) all: u32,
    /// Stores to shared locations.
    pub(super) shared: u32,
    /// Stores up to and including the newest one to an observed location.
    pub(super) through_observed: u32,
    /// Stores with a guessed timestamp since the thread started (drains
    /// do not reset it).
    pub(super) guessed: u32,
    /// Whether another thread may be running (false for `main` before its
    /// first thread creation).
    pub(super) concurrent: bool,
    /// Private scalar locals known to hold a constant here (so that an
    /// address such as `vars[1 + (r ^ r)]` is known to be `vars[1]`, or
    /// `&t[2]` for a `t` that holds a heap block's address).
    pub(super) constants: BTreeMap<LocalId, i64>,
    /// The heap blocks this thread has allocated on every path here, when
    /// it is the only thread that allocates (None otherwise): its next
    /// allocation returns the next block.
    pub(super) allocations: Option<u32>,
    /// Threads this one created and has not joined (by a handle known to
    /// hold their slot) on some path.
    pub(super) running: BTreeSet<usize>,
    /// Mutexes (by location) this thread holds on every path.
    pub(super) held: BTreeSet<u32>,
    /// The heap blocks this thread allocated and has not published
    /// (followed only where [`Context::private_blocks`] asks).
    pub(super) private: PrivateBlocks,
}

impl State {
    pub(super) fn join(mut self, other: &State) -> State {
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
    pub(super) fn track_assignment(&mut self, stmt: &SeqStmt, memory: &MemoryLayout) {
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

    pub(super) fn drain(&mut self) {
        self.per_location.clear();
        self.anywhere = 0;
        self.all = 0;
        self.shared = 0;
        self.through_observed = 0;
    }
}

/// What the count of one thread knows of the others.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    /// The locations other threads may store to as well.
    pub(super) shared: &'a LocationSet,
    /// The locations other threads access while this one runs.
    pub(super) observed: &'a Accesses,
    /// The mutexes they hold at those accesses, when stores under a mutex
    /// may count as unobserved (the timestamped SMAs' marks only).
    pub(super) guards: Option<&'a LockGuards>,
    /// The locations they write while this one runs (with the guards).
    pub(super) written_by_others: Option<&'a Accesses>,
    /// Whether threads other than `main` create threads.
    pub(super) nested_creation: bool,
    /// Whether this thread is the only one that allocates heap memory.
    pub(super) allocates_alone: bool,
    /// How the thread's stores reach memory, when its accesses to heap
    /// blocks it has not published count as private (the timestamped SMAs'
    /// marks only): None, every block is an ordinary one.
    pub(super) private_blocks: Option<StoreOrder>,
    /// Where pointers may point, when an access through one counts for
    /// those locations only (the timestamped SMAs' marks only, like the
    /// private blocks): None, it may access any location.
    pub(super) points_to: Option<&'a PointsTo>,
    /// The slot of the thread counted.
    pub(super) slot: usize,
}
impl<'a> Context<'a> {
    /// The context of a thread that knows only these sets of the others:
    /// no guards, no nested creation, not the only allocating thread.
    pub(super) fn new(shared: &'a LocationSet, observed: &'a Accesses) -> Context<'a> {
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
pub(super) struct ProgramFacts {
    /// Whether threads other than `main` create threads.
    pub(super) nested_creation: bool,
    /// The index of the only thread that allocates heap memory, if one
    /// alone does.
    pub(super) allocator: Option<usize>,
}

impl ProgramFacts {
    pub(super) fn of(program: &SequentialProgram) -> ProgramFacts {
        ProgramFacts {
            nested_creation: nested_creation(program),
            allocator: sole_allocator(&program.threads),
        }
    }

    /// The context of thread `index`, without guards.
    pub(super) fn context<'a>(
        self,
        index: usize,
        shared: &'a LocationSet,
        observed: &'a Accesses,
    ) -> Context<'a> {
        Context {
            nested_creation: self.nested_creation,
            allocates_alone: self.allocator == Some(index),
            ..Context::new(shared, observed)
        }
    }
}

pub(super) struct Counter<'a> {
    pub(super) memory: &'a MemoryLayout,
    pub(super) context: Context<'a>,
    /// Whether this is the main thread (alone before its first creation).
    pub(super) main: bool,
    pub(super) result: ThreadStores,
    /// States arriving at labels not reached yet by forward jumps.
    pub(super) pending: BTreeMap<LabelId, State>,
    /// Labels already passed: a jump to one of them goes backward.
    pub(super) passed: Vec<LabelId>,
    /// Pre-order index of the statement being visited.
    pub(super) visit: usize,
    /// Pre-order indices of the reads that run while no
    /// other thread can hold buffered stores.
    pub(super) alone: BTreeSet<usize>,
    /// Pre-order indices of the stores to locations no other thread
    /// accesses while this one runs.
    pub(super) unobserved: BTreeSet<usize>,
    /// Pre-order indices of the reads of locations no other thread can
    /// have a store to pending (collected with the guards only).
    pub(super) newest: BTreeSet<usize>,
    /// Pre-order indices of the accesses whose address becomes a constant
    /// or dispatchable over one object once the private locals known to
    /// hold constants are substituted, with that address; `None` unless
    /// asked for ([`fold_constant_addresses`]), as no count needs it.
    pub(super) folded: Option<BTreeMap<usize, Expr>>,
    /// Allocations counted as ordinary blocks from the start: those that
    /// escaped with unordered stores in an earlier walk.
    pub(super) ordinary_sites: BTreeSet<Site>,
    /// Allocations that escape with private stores not ordered before the
    /// escape (PSO only).
    pub(super) unordered_escapes: BTreeSet<Site>,
}

/// Runs the count over one thread body; `main`: no other thread runs until
/// the first thread creation, nor after every created thread is joined.
pub(super) fn walk<'a>(
    body: &[SeqStmt],
    main: bool,
    memory: &'a MemoryLayout,
    context: Context<'a>,
) -> Counter<'a> {
    walk_folding(body, main, memory, context, false)
}

/// [`walk`], also collecting the folded addresses when `fold`.
pub(super) fn walk_folding<'a>(
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
pub(super) fn walk_once<'a>(
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

/// What [`mark`] sets, on the statements by their pre-order index (the
/// order [`Counter`] visits them in).
pub(super) enum Marks<'a> {
    /// `alone` of reads, true for those in the set.
    Alone(&'a BTreeSet<usize>),
    /// `unobserved` of stores, true for those in the set.
    UnobservedStores(&'a BTreeSet<usize>),
    /// `newest` of reads, true for those in the set.
    NewestReads(&'a BTreeSet<usize>),
    /// The address of the accesses in the map, replaced by the folded one.
    FoldedAddresses(&'a BTreeMap<usize, Expr>),
}

pub(super) fn mark(block: &mut [SeqStmt], marks: &Marks, visit: &mut usize) {
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
    pub(super) fn block(&mut self, block: &[SeqStmt], mut state: Option<State>) -> Option<State> {
        for stmt in block {
            state = self.stmt(stmt, state);
        }
        state
    }

    pub(super) fn stmt(&mut self, stmt: &SeqStmt, state: Option<State>) -> Option<State> {
        let index = self.visit;
        self.visit += 1;
        let private = state
            .as_ref()
            .and_then(|state| self.private_block(state, stmt));
        if let Some(state) = &state {
            if let Some(folded) = &mut self.folded
                && let Some(address) = access_address(stmt)
                    .and_then(|address| folded_address(self.memory, &state.constants, address))
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
            | SeqStmt::Assume(_)
            | SeqStmt::LoopBound { .. }
            | SeqStmt::Await { .. } => state,
        }
    }

    /// The private block the access `stmt` stays inside, if it is an access
    /// and private blocks are followed.
    pub(super) fn private_block(&self, state: &State, stmt: &SeqStmt) -> Option<Site> {
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
    pub(super) fn track_private_blocks(
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
    pub(super) fn note_unordered_escapes(&mut self, state: &mut State) {
        let escaped = state.private.take_unordered_escapes();
        if self.context.private_blocks == Some(StoreOrder::PerLocation) {
            self.unordered_escapes.extend(escaped);
        }
    }

    /// Whether other threads may run at `state`: not in main before its
    /// first creation, nor after it joined every thread it created (when no
    /// other thread creates threads). Every other thread runs beside main.
    pub(super) fn beside_others(&self, state: &State) -> bool {
        state.concurrent
            && !(self.main && state.running.is_empty() && !self.context.nested_creation)
    }

    /// Whether no other thread can have a store to the location(s) a read
    /// of `address` denotes pending at `state` (with the others' guards
    /// only): no other thread runs, or each location is accessed by the
    /// others only under a mutex this thread holds, or written by none of
    /// them while this one runs.
    pub(super) fn reads_newest(&self, state: &State, address: &Expr) -> bool {
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
    pub(super) fn guarded(&self, state: &State, location: u32) -> bool {
        self.context
            .guards
            .is_some_and(|guards| guards.protect(location, &state.held))
    }

    /// The locations `address` may denote at `state`: a constant location,
    /// the object a computed address is dispatched over, the locations a
    /// pointer may point to (with the points-to facts), or (None) any.
    pub(super) fn locations(&self, state: &State, address: &Expr) -> Option<Vec<u32>> {
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
    pub(super) fn store(&mut self, state: &mut State, address: &Expr) -> bool {
        let ahead = state.all;
        state.all += 1;
        let (shared, observed) = match self.locations(state, address) {
            Some(locations) => {
                let (mut shared, mut observed) = (false, false);
                for location in locations {
                    *state.per_location.entry(location).or_insert(0) += 1;
                    shared |= self.context.shared.contains(location);
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

pub(super) fn merge(a: Option<State>, b: Option<State>) -> Option<State> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.join(&b)),
        (a, None) => a,
        (None, b) => b,
    }
}
