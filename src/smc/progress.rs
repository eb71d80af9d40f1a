//! The native engine's progress as another thread sees it while the
//! search runs: a handful of counters the search stores into with relaxed
//! atomic stores (no lock, no allocation) and that a reader loads whenever
//! it likes (the live line of `verify` on a terminal, and the report of a
//! search that ends without an answer: how far it came). The search only
//! stores into them when [`super::Limits::progress`] holds a handle, so a
//! run that nobody watches pays nothing but one branch per step.

use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What the engine is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the passes to hand it the program.
    Starting,
    /// Sampling the reads-from tree for an estimate of its size.
    Estimating,
    /// Reads-from stateless model checking.
    ReadsFrom,
    /// The explicit-state search.
    Explicit,
    /// The engine has answered, or ended without an answer.
    Finished,
}

impl Phase {
    fn code(self) -> u8 {
        match self {
            Phase::Starting => 0,
            Phase::Estimating => 1,
            Phase::ReadsFrom => 2,
            Phase::Explicit => 3,
            Phase::Finished => 4,
        }
    }

    fn from_code(code: u8) -> Phase {
        match code {
            1 => Phase::Estimating,
            2 => Phase::ReadsFrom,
            3 => Phase::Explicit,
            4 => Phase::Finished,
            _ => Phase::Starting,
        }
    }
}

/// The counters one run of the engine fills (shared through an `Arc`).
#[derive(Debug)]
pub struct Progress {
    /// When the run started: every time below counts from it.
    origin: Instant,
    phase: AtomicU8,
    /// Milliseconds from `origin` to the start of the current search.
    search_started: AtomicU64,
    /// Reads-from classes explored (RF-SMC).
    classes: AtomicUsize,
    /// Distinct states reached (the explicit search).
    states: AtomicUsize,
    /// Probes of the estimate done so far.
    probes: AtomicUsize,
    /// The estimated number of reads-from classes, 0 while there is none.
    estimate: AtomicU64,
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

/// What a reader sees at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snapshot {
    pub phase: Phase,
    /// Since the run started.
    pub elapsed: Duration,
    /// Since the current search started.
    pub searching: Duration,
    pub classes: usize,
    pub states: usize,
    pub probes: usize,
    /// The estimated number of reads-from classes, once there is one.
    pub estimate: Option<u64>,
}

impl Snapshot {
    /// What the current search has explored: classes or states (the
    /// explicit search's once it has reached one).
    pub fn explored(&self) -> usize {
        match self.phase {
            Phase::Explicit => self.states,
            Phase::Finished if self.states > 0 => self.states,
            _ => self.classes,
        }
    }

    /// Explored per second of the current search, once it has run a
    /// little (a rate over a few milliseconds says nothing).
    pub fn per_second(&self) -> Option<f64> {
        let seconds = self.searching.as_secs_f64();
        (seconds >= 0.1).then(|| self.explored() as f64 / seconds)
    }
}

impl Progress {
    /// Counters at zero, the clock starting now.
    pub fn new() -> Self {
        Progress {
            origin: Instant::now(),
            phase: AtomicU8::new(Phase::Starting.code()),
            search_started: AtomicU64::new(0),
            classes: AtomicUsize::new(0),
            states: AtomicUsize::new(0),
            probes: AtomicUsize::new(0),
            estimate: AtomicU64::new(0),
        }
    }

    /// The engine enters `phase`; a search's rate counts from now.
    pub fn enter(&self, phase: Phase) {
        let now = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.search_started.store(now, Ordering::Relaxed);
        self.phase.store(phase.code(), Ordering::Relaxed);
    }

    pub fn set_classes(&self, classes: usize) {
        self.classes.store(classes, Ordering::Relaxed);
    }

    pub fn set_states(&self, states: usize) {
        self.states.store(states, Ordering::Relaxed);
    }

    /// `probes` probes done, their estimate `estimate` classes.
    pub fn set_estimate(&self, probes: usize, estimate: Option<u64>) {
        self.probes.store(probes, Ordering::Relaxed);
        if let Some(estimate) = estimate {
            self.estimate.store(estimate.max(1), Ordering::Relaxed);
        }
    }

    /// The counters now.
    pub fn snapshot(&self) -> Snapshot {
        let elapsed = self.origin.elapsed();
        let started = Duration::from_millis(self.search_started.load(Ordering::Relaxed));
        let estimate = self.estimate.load(Ordering::Relaxed);
        Snapshot {
            phase: Phase::from_code(self.phase.load(Ordering::Relaxed)),
            elapsed,
            searching: elapsed.saturating_sub(started),
            classes: self.classes.load(Ordering::Relaxed),
            states: self.states.load(Ordering::Relaxed),
            probes: self.probes.load(Ordering::Relaxed),
            estimate: (estimate > 0).then_some(estimate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_shows_what_the_search_stored() {
        let progress = Progress::new();
        assert_eq!(progress.snapshot().phase, Phase::Starting);
        assert_eq!(progress.snapshot().estimate, None);
        progress.enter(Phase::Estimating);
        progress.set_estimate(3, Some(40));
        progress.enter(Phase::ReadsFrom);
        progress.set_classes(12);
        let snapshot = progress.snapshot();
        assert_eq!(snapshot.phase, Phase::ReadsFrom);
        assert_eq!(snapshot.explored(), 12);
        assert_eq!((snapshot.probes, snapshot.estimate), (3, Some(40)));
        progress.enter(Phase::Explicit);
        progress.set_states(7);
        assert_eq!(progress.snapshot().explored(), 7);
    }
}
