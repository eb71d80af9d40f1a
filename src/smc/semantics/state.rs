//! A state of the native engine: the threads with their program counters
//! and private data, shared memory, the store buffers and the mutexes held,
//! the heap's allocator, and, during a replay, the write ids and records
//! of the trace.

use crate::ir::OriginId;
use crate::smc::interpreter::value::Value;
use crate::smc::symbolic::path::Carried;
use crate::trace::records::Record;
use std::sync::Arc;

/// A thread's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    NotCreated,
    /// Created; its private prefix runs at its first move.
    Created,
    Running,
    Finished,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Thread {
    pub status: Status,
    pub pc: usize,
    pub locals: Vec<Value>,
}

/// A state of the whole program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    /// Shared between a state and its copies until one changes a thread
    /// ([`State::thread_mut`]): RF-SMC keeps the state before each move,
    /// and a move changes one thread.
    pub threads: Vec<Arc<Thread>>,
    pub plain: Vec<Value>,
    pub memory: super::cells::Cells,
    pub buffers: Vec<Vec<Buffered>>,
    pub epochs: Vec<u32>,
    /// The mutexes taken, with the thread holding each, by location.
    pub held: Vec<(u32, usize)>,
    /// The thread inside an atomic section, if any.
    pub atomic: Option<usize>,
    /// The allocator's state and the heap's uninitialised locations.
    pub heap: Heap,
    /// The symbols and the path condition of the execution (RF-SMC's
    /// runs; empty elsewhere).
    pub symbolic: crate::smc::symbolic::path::Symbolic,
    pub recording: Option<Box<Recording>>,
}

impl State {
    /// The thread `slot`, to change: copied first when another state
    /// shares it.
    pub fn thread_mut(&mut self, slot: usize) -> &mut Thread {
        Arc::make_mut(&mut self.threads[slot])
    }
}

/// A store in a buffer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Buffered {
    pub location: u32,
    pub value: i64,
    /// Under PSO, the number of store-store fences the thread had passed
    /// when it issued the store.
    pub epoch: u32,
    /// The write id, when a trace is recorded (0 while exploring).
    pub id: u64,
    /// The term the store writes, if it writes one (`value` is 0 then):
    /// its position in [`Symbolic::stored`](crate::smc::symbolic::path::Symbolic)
    /// plus one, 0 for none (a plain number keeps a buffer of concrete
    /// stores as cheap to copy and drop as before).
    pub term: u32,
}

/// What a recorded replay adds to the state: write ids and the records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recording {
    pub next_id: u64,
    /// The write id each location's memory value came from (0: initial).
    pub memory_ids: std::collections::BTreeMap<u32, u64>,
    pub records: Vec<Record>,
    /// The plain global parts the moves since the last take accessed, in
    /// order ([`PlainUses::accesses`](super::plain::PlainUses::accesses)).
    pub plain_accesses: Vec<super::plain::PlainAccess>,
    /// The term the move since the last take stored, if it stored one.
    pub carried: Option<Arc<Carried>>,
    /// The records (by index in `records`) whose value is a term: a
    /// witness shows the term's value in the solver's model.
    pub terms: Vec<(usize, Arc<crate::smc::symbolic::term::Term>)>,
}

impl std::hash::Hash for Recording {
    /// Only a replay records, and a replay hashes no state: the write ids
    /// stand for all.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.next_id.hash(state);
        self.memory_ids.hash(state);
    }
}

/// The allocator's state and what the heap's locations hold.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Heap {
    /// The first heap location (`SMA_HEAP_BASE`).
    pub base: u32,
    /// Blocks handed out so far (`sma_heap_blocks_used`).
    pub used: u32,
    /// Per heap location: in the requested part of an allocated block
    /// (`sma_heap_allocated`).
    pub allocated: Vec<bool>,
    /// Per heap location: memory still holds the nondeterministic value
    /// its block's `malloc` gave it.
    pub uninitialised: Vec<bool>,
    /// Per heap location: its block's allocation gave it a
    /// nondeterministic value (`malloc`, not `calloc`), which a read from
    /// the location's initial value gets.
    pub nondet: Vec<bool>,
    /// Per block: freed (`sma_heap_freed`).
    pub freed: Vec<bool>,
    /// Per block handed out: the `malloc` that took it.
    pub sites: Vec<OriginId>,
}

impl Heap {
    /// The empty heap of a layout of `blocks` blocks of `size` locations
    /// from `base`.
    pub fn new(base: u32, blocks: u32, size: u32) -> Heap {
        let scalars = (blocks as usize) * (size as usize);
        Heap {
            base,
            used: 0,
            allocated: vec![false; scalars],
            uninitialised: vec![false; scalars],
            nondet: vec![false; scalars],
            freed: vec![false; blocks as usize],
            sites: Vec::new(),
        }
    }

    /// The heap index of `location`, if it is a heap location.
    pub fn index(&self, location: i64) -> Option<usize> {
        let index = usize::try_from(location.checked_sub(i64::from(self.base))?).ok()?;
        (index < self.allocated.len()).then_some(index)
    }

    /// Memory at `location` was written: it no longer holds the block's
    /// initial value.
    pub fn written(&mut self, location: u32) {
        if let Some(index) = self.index(i64::from(location)) {
            self.uninitialised[index] = false;
        }
    }
}
