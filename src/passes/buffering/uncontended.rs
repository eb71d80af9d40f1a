//! The accesses no other thread can come between, marked for the SMAs.
//!
//! The argument that spares the reference SMAs' flush phases the stores no
//! other thread observes (see [`buffering`](super)) serves the timestamped
//! SMAs too: a store to a location no
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
//! drains the store first ([`LockGuards`](super::LockGuards); a data-race-free location
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
//! ([`private_blocks`](crate::passes::private_blocks)). An access through a
//! pointer counts for the locations the pointer may point to, not for
//! every location ([`points_to`](crate::passes::points_to)). Only the timestamped
//! SMAs use this: the reference SMAs keep the plain count, so the
//! differential checks the argument.

use super::count::{Context, Marks, ProgramFacts, mark, walk};
use super::{
    Accesses, LocationSet, first_count, guarded_by_others, observed_by_others, written_by_others,
};
use crate::passes::SequentialProgram;

/// Marks the accesses no other thread can come between (see the module
/// documentation). Stores to locations that no other thread accesses while
/// the storing thread runs (at a constant location, or dispatched over an
/// object none of whose locations the others access, unless under a mutex
/// they hold too), and the stores of main while no other thread runs: their
/// thread's own loads see them as before. Loads of locations no other
/// thread can have a store to pending: they read the newest write. The
/// accesses to a heap block its thread has not published are both
/// ([`private_blocks`](crate::passes::private_blocks)); `order` is how the model
/// lets stores reach memory.
pub fn mark_uncontended_accesses(program: &mut SequentialProgram, order: StoreOrder) {
    let private_blocks = Some(order);
    let first = first_count(program, private_blocks);
    let facts = ProgramFacts::of(program);
    let shared = LocationSet::default();
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

/// How a thread's stores reach memory, which decides when its private
/// stores to a block are in memory before the block's address is
/// ([`private_blocks`](crate::passes::private_blocks)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOrder {
    /// TSO: in program order.
    ProgramOrder,
    /// PSO: in program order per location, and across a store-store fence.
    PerLocation,
}

/// Marks the reads of the main thread that run while no other thread can
/// hold buffered stores: before main's first thread creation, and after it
/// has joined every thread it created (when only main creates threads). A
/// joined thread has drained its buffers, so memory updates before such a
/// read could only move main's own stores, which it does not observe: the
/// reference SMAs skip them (`sma_read_alone`).
pub fn mark_main_alone(program: &mut SequentialProgram) {
    let facts = ProgramFacts::of(program);
    let (shared, observed) = (LocationSet::default(), Accesses::default());
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
