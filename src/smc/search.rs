//! What both searches of the native engine share: their limits
//! ([`Limits`]), what they count ([`Statistics`]), why one ends without an
//! answer ([`Stopped`]), and a step of the path to a violation
//! ([`PathStep`]).

use super::semantics::machine::{Move, Unsupported};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// When the search gives up.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// The most states it stores.
    pub max_states: usize,
    /// Set by another party to stop it (the CBMC run answered first).
    pub stop: Option<Arc<AtomicBool>>,
    pub deadline: Option<Instant>,
    /// Also check robustness (`lazysma robust`): an execution whose
    /// reads-from no SC execution has is a violation of kind
    /// [`NOT_ROBUST`]. Only the reads-from search checks it.
    pub robustness: bool,
    /// Also check for deadlocks (`deadlock`, on in `verify` unless
    /// `--no-deadlock-check`): a state in which every unfinished thread
    /// waits for ever is a violation of kind [`super::DEADLOCK`].
    pub deadlocks: bool,
}

/// The kind of the violation a non-robust execution is.
pub const NOT_ROBUST: &str = "robustness";

/// What the search counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Statistics {
    /// The search that answered: `rf-smc` (reads-from stateless model
    /// checking) or `explicit` (the explicit-state search).
    pub search: &'static str,
    /// Why RF-SMC left the program to the explicit search, if it did.
    pub fallback: Option<&'static str>,
    /// Reads-from classes RF-SMC explored (one execution each).
    pub reads_from_classes: usize,
    /// Schedules RF-SMC submitted to the consistency check.
    pub witness_checks: usize,
    /// Distinct states reached (explicit search).
    pub states: usize,
    /// Moves taken (edges of the state graph).
    pub moves: usize,
    /// Final states in which every thread has finished and every store
    /// reached memory.
    pub complete_executions: usize,
    /// Executions that end otherwise: an assumption or loop bound cuts
    /// them off, or, with the deadlock check off, threads wait forever (a
    /// lock, a join).
    pub blocked_executions: usize,
    /// Of those, the executions that end in a deadlock (every unfinished
    /// thread waits for ever, see [`super::semantics::deadlock`]); with the
    /// deadlock check on, the first one is a violation.
    pub deadlocked_executions: usize,
    /// Executions that end only because a spin loop read too early: it
    /// would pass on the memory they end with, and another execution
    /// reads later ([`Machine::only_spinning_too_early`]). Neither
    /// complete nor blocked: no bound cut them off.
    ///
    /// [`Machine::only_spinning_too_early`]: super::semantics::machine::Machine::only_spinning_too_early
    pub awaiting_executions: usize,
    /// Visible events issued (reads, writes, RMWs, fences, mutex
    /// operations, creations, joins) over all moves.
    pub events: usize,
    /// Wall time of the search in milliseconds.
    pub milliseconds: u64,
}

/// One step of a path: the move and the nondeterministic values it took.
pub type PathStep = (Move, Vec<i64>);

/// Why the search ended without an answer.
#[derive(Debug, Clone)]
pub enum Stopped {
    Unsupported(Unsupported),
    TooManyStates(usize),
    Cancelled,
    Timeout,
}
