//! What both searches of the native engine share: their limits
//! ([`Limits`]), what they count ([`Statistics`]), why one ends without an
//! answer ([`Stopped`]), and a step of the path to a violation
//! ([`PathStep`]).

use super::progress::Progress;
use super::semantics::machine::{Move, Unsupported};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// When the search gives up.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// The most states the explicit search stores.
    pub max_states: usize,
    /// The most reads-from classes RF-SMC explores; `None` for no limit.
    pub max_classes: Option<usize>,
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
    /// `--memory-limit`: the resident memory of lazysma's process above
    /// which the search stops ([`Stopped::MemoryLimit`]); `None` for none.
    pub memory: Option<u64>,
    /// Go on after a violation (`verify --all-violations`): search again
    /// without each property found, until the search finds no other one
    /// ([`super::check`]).
    pub all_violations: bool,
    /// How often [`Limits::check`] was called: it reads the resident
    /// memory on every [`MEMORY_READ_PERIOD`]-th call.
    pub checks: Arc<AtomicUsize>,
    /// Where the search shows how far it got, when someone watches (the
    /// live line of `verify`); `None` costs nothing.
    pub progress: Option<Arc<Progress>>,
    /// Probe the reads-from tree before RF-SMC searches it, for an
    /// estimate of the number of classes (see `rf::probe`).
    pub estimate: bool,
    /// The most reads-from classes RF-SMC explores in a program with
    /// atomic sections of its own (not only the sections the engine wraps
    /// around allocations and frees): above it, the explicit search, whose stored
    /// states fold the order the sections' lock imposes, answers first
    /// ([`super::check`]); `None` for no limit.
    pub section_budget: Option<usize>,
    /// `--jobs`: the worker threads of RF-SMC (`rf::parallel`); 0 or 1
    /// searches in the calling thread alone.
    pub workers: usize,
    /// `--split K/N`: RF-SMC explores the reads-from classes of part K
    /// alone (`rf::split`).
    pub split: Option<crate::options::Split>,
}

/// How often [`Limits::check`] reads the resident memory: reading it
/// costs a system call (about as much as a small execution).
const MEMORY_READ_PERIOD: usize = 64;

impl Limits {
    /// Whether the search must stop now: another party asked it to (the
    /// CBMC run answered first), the deadline passed, or the process's
    /// resident memory is above the memory limit.
    pub fn check(&self) -> Result<(), Stopped> {
        if self
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
        {
            return Err(Stopped::Cancelled);
        }
        if self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(Stopped::Timeout);
        }
        let Some(limit) = self.memory else {
            return Ok(());
        };
        let calls = self.checks.fetch_add(1, Ordering::Relaxed);
        if !calls.is_multiple_of(MEMORY_READ_PERIOD) {
            return Ok(());
        }
        match resident_bytes() {
            Some(resident) if resident > limit => Err(Stopped::MemoryLimit { limit, resident }),
            _ => Ok(()),
        }
    }
}

/// The resident memory of this process in bytes (`VmRSS` of
/// `/proc/self/status`), `None` where it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    proc_kilobytes(&status, "VmRSS:")
}

/// A size for people: `1.5 GiB`, `512 MiB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = "bytes";
    for next in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    if unit == "bytes" {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// The value of the line `key` of a `/proc` text (in kB), in bytes.
pub fn proc_kilobytes(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(key))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kilobytes.checked_mul(1024)
}

/// The kind of the violation a non-robust execution is.
pub const NOT_ROBUST: &str = "robustness";

/// The search that answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchKind {
    /// Reads-from stateless model checking.
    #[default]
    RfSmc,
    /// The explicit-state search.
    Explicit,
}

/// What the search counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Statistics {
    /// The search that answered.
    pub search: SearchKind,
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
    /// Under `--split`: executions RF-SMC explored, or cut off, because
    /// the classes of this part are reached through them, though they
    /// belong to other parts (not counted above).
    pub other_part_executions: usize,
    /// Visible events issued (reads, writes, RMWs, fences, mutex
    /// operations, creations, joins) over all moves.
    pub events: usize,
    /// Wall time of the search in milliseconds.
    pub milliseconds: u64,
    /// What the search explored per second of its wall time: classes
    /// (RF-SMC) or states (explicit search).
    pub per_second: u64,
    /// The estimate of the number of reads-from classes made before
    /// RF-SMC searched, when asked for ([`Limits::estimate`]).
    pub estimate: Option<ClassEstimate>,
}

/// Random probes' estimate of the number of reads-from classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ClassEstimate {
    /// The estimated number of classes (at least 1).
    pub classes: u64,
    /// The probes averaged.
    pub probes: usize,
    /// The time the probes took, in milliseconds.
    pub milliseconds: u64,
}

/// `explored` things in `elapsed`, per second (rounded; `explored`
/// itself when the search took no measurable time).
pub fn rate(explored: usize, elapsed: std::time::Duration) -> u64 {
    let seconds = elapsed.as_secs_f64();
    if seconds < 1e-6 {
        return explored as u64;
    }
    (explored as f64 / seconds).round() as u64
}

impl Statistics {
    /// Adds what another search of the same program counted (the searches
    /// of `verify --all-violations`); the search and its fallback are the
    /// later one's.
    pub fn add(&mut self, later: &Statistics) {
        self.search = later.search;
        self.fallback = later.fallback.or(self.fallback);
        self.reads_from_classes += later.reads_from_classes;
        self.witness_checks += later.witness_checks;
        self.states += later.states;
        self.moves += later.moves;
        self.complete_executions += later.complete_executions;
        self.blocked_executions += later.blocked_executions;
        self.deadlocked_executions += later.deadlocked_executions;
        self.awaiting_executions += later.awaiting_executions;
        self.other_part_executions += later.other_part_executions;
        self.events += later.events;
        self.milliseconds += later.milliseconds;
    }
}

/// One step of a path: the move and the nondeterministic values it took.
pub type PathStep = (Move, Vec<i64>);

/// Why the search ended without an answer.
#[derive(Debug, Clone)]
pub enum Stopped {
    Unsupported(Unsupported),
    TooManyStates(usize),
    /// RF-SMC proposed more schedules for other values of choices.
    TooManyChoices(usize),
    Cancelled,
    Timeout,
    /// The process's resident memory (`resident` bytes) went above the
    /// memory limit (`limit` bytes).
    MemoryLimit {
        limit: u64,
        resident: u64,
    },
}
