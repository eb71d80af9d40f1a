//! A state of the native engine: the threads with their program counters
//! and private data, shared memory, the store buffers and the mutexes held,
//! and, during a replay, the write ids and records of the trace.

use super::value::Value;
use crate::trace::records::Record;

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
    pub threads: Vec<Thread>,
    pub plain: Vec<Value>,
    pub memory: Vec<i64>,
    pub buffers: Vec<Vec<Buffered>>,
    pub epochs: Vec<u32>,
    /// The mutexes taken, with the thread holding each, by location.
    pub held: Vec<(u32, usize)>,
    /// The thread inside an atomic section, if any.
    pub atomic: Option<usize>,
    pub recording: Option<Box<Recording>>,
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
}

/// What a recorded replay adds to the state: write ids and the records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recording {
    pub next_id: u64,
    /// The write id each location's memory value came from (0: initial).
    pub memory_ids: Vec<u64>,
    pub records: Vec<Record>,
}

impl std::hash::Hash for Recording {
    /// Only a replay records, and a replay hashes no state: the write ids
    /// stand for all.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.next_id.hash(state);
        self.memory_ids.hash(state);
    }
}
