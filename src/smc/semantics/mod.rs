//! The operational semantics the searches explore: a state (`state`),
//! shared memory and store buffers under SC, TSO and PSO (`memory`), one
//! move of a thread or a flush (`machine`), and what a move may meet on
//! its way: the heap (`heap`), a guessed compare-and-swap (`guess`), and
//! the end of a state in which every thread waits (`deadlock`); and which
//! thread reads, writes and creates what of the plain globals, read once
//! off the code (`plain`); and for RF-SMC, the lock that orders the atomic
//! sections (`sections`); read-modify-writes on symbolic values
//! carried through shared memory (`terms`).

pub mod cells;
pub mod deadlock;
pub mod guess;
pub mod heap;
pub mod machine;
pub mod memory;
pub mod plain;
pub mod sections;
pub mod state;
pub mod terms;
