//! The exhaustive search of the native engine: a depth-first exploration of
//! every move (thread steps, flushes, nondeterministic values) from the
//! initial state, each state visited once. Since loops are unrolled and
//! jumps go forward, every execution is finite and the search ends; it
//! stops at the first violation with the path that reaches it.

use super::reduction::Footprints;
use crate::smc::interpreter::eval::Choices;
use crate::smc::progress::Phase;
use crate::smc::search::{Limits, PathStep, SearchKind, Statistics, Stopped, rate};
use crate::smc::semantics::machine::{Machine, Move, Outcome, State, Status, Violation};
use std::collections::HashSet;
use std::time::Instant;

/// How a complete search ended.
#[derive(Debug, Clone)]
pub enum Found {
    Safe,
    Violation {
        violation: Violation,
        path: Vec<PathStep>,
    },
}

/// Enumerates the nondeterministic values of a move, odometer-style.
#[derive(Debug, Default)]
pub struct Odometer {
    pub values: Vec<i64>,
    domains: Vec<(i64, u32)>,
    position: usize,
}

impl Choices for Odometer {
    fn choose(&mut self, lo: i64, values: u32) -> i64 {
        let at = self.position;
        self.position += 1;
        if at < self.values.len() {
            self.domains[at] = (lo, values);
            return self.values[at];
        }
        self.values.push(lo);
        self.domains.push((lo, values));
        lo
    }
}

impl Odometer {
    /// The values the last run took.
    fn taken(&self) -> Vec<i64> {
        self.values[..self.position].to_vec()
    }

    /// Whether the last run asked for any value.
    pub fn chose(&self) -> bool {
        self.position > 0
    }

    /// Moves to the next combination; false when all were tried.
    pub fn advance(&mut self) -> bool {
        self.values.truncate(self.position);
        self.domains.truncate(self.position);
        self.position = 0;
        while let (Some(value), Some(&(lo, values))) = (self.values.last_mut(), self.domains.last())
        {
            if *value < lo + i64::from(values) - 1 {
                *value += 1;
                return true;
            }
            self.values.pop();
            self.domains.pop();
        }
        false
    }
}

/// Replays given values.
pub struct Fixed<'a> {
    pub values: &'a [i64],
    pub position: usize,
}

impl Choices for Fixed<'_> {
    fn choose(&mut self, lo: i64, _values: u32) -> i64 {
        let value = self.values.get(self.position).copied().unwrap_or(lo);
        self.position += 1;
        value
    }
}

struct Frame {
    /// The successors not yet explored.
    pending: Vec<(PathStep, State)>,
    /// The step that led here.
    via: Option<PathStep>,
}

/// How many states the search reaches between two stores into its
/// progress counter: a state costs little, and a reader looks a few
/// times a second.
const PROGRESS_PERIOD: usize = 64;

/// Searches every execution of `machine`.
pub fn explore(machine: &Machine, limits: &Limits) -> Result<(Found, Statistics), Stopped> {
    if let Some(progress) = &limits.progress {
        progress.enter(Phase::Explicit);
    }
    let started = Instant::now();
    let mut statistics = Statistics {
        search: SearchKind::Explicit,
        ..Statistics::default()
    };
    let mut visited: HashSet<Fingerprint> = HashSet::new();
    let footprints = Footprints::new(&machine.codes, &machine.program.memory);
    let initial = machine.initial(false);
    visited.insert(fingerprint(&initial));
    statistics.states = 1;
    let mut stack: Vec<Frame> = Vec::new();
    let first = successors(machine, &footprints, &initial, limits, &mut statistics)?;
    if let Err((violation, step)) = first {
        return Ok((found(&stack, violation, step), finish(statistics, started)));
    }
    // the states waiting on the stack: bounded like the visited ones, so
    // that a move with many nondeterministic values cannot fill memory
    let mut waiting = 0usize;
    if let Ok(pending) = first {
        waiting += pending.len();
        stack.push(Frame { pending, via: None });
    }
    while let Some(frame) = stack.last_mut() {
        limits.check()?;
        if waiting > limits.max_states {
            return Err(Stopped::TooManyStates(limits.max_states));
        }
        let Some((step, state)) = frame.pending.pop() else {
            stack.pop();
            continue;
        };
        waiting -= 1;
        if !visited.insert(fingerprint(&state)) {
            continue;
        }
        statistics.states += 1;
        if statistics.states > limits.max_states {
            return Err(Stopped::TooManyStates(limits.max_states));
        }
        if let Some(progress) = &limits.progress
            && statistics.states.is_multiple_of(PROGRESS_PERIOD)
        {
            progress.set_states(statistics.states);
        }
        match successors(machine, &footprints, &state, limits, &mut statistics)? {
            Err((violation, last)) => {
                stack.push(Frame {
                    pending: Vec::new(),
                    via: Some(step),
                });
                return Ok((found(&stack, violation, last), finish(statistics, started)));
            }
            Ok(pending) => {
                waiting += pending.len();
                stack.push(Frame {
                    pending,
                    via: Some(step),
                });
            }
        }
    }
    Ok((Found::Safe, finish(statistics, started)))
}

/// A state as two independent 64-bit hashes: the visited set keeps these
/// rather than whole states (a collision, some 2^-100 likely at a million
/// states, would merge two states).
type Fingerprint = (u64, u64);

fn fingerprint(state: &State) -> Fingerprint {
    use std::hash::{BuildHasher, Hash, Hasher};
    let hash = |seed: u64| {
        let mut hasher = FixedState(seed).build_hasher();
        seed.hash(&mut hasher);
        state.hash(&mut hasher);
        hasher.finish()
    };
    (hash(0x9e37_79b9_7f4a_7c15), hash(0xc2b2_ae3d_27d4_eb4f))
}

/// A fixed-key SipHash, so that the two hashes of a fingerprint differ
/// only by their seed.
struct FixedState(u64);

impl std::hash::BuildHasher for FixedState {
    #[allow(deprecated)]
    type Hasher = std::hash::SipHasher;
    #[allow(deprecated)]
    fn build_hasher(&self) -> Self::Hasher {
        std::hash::SipHasher::new_with_keys(self.0, !self.0)
    }
}

fn finish(mut statistics: Statistics, started: Instant) -> Statistics {
    statistics.milliseconds = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    statistics.per_second = rate(statistics.states, started.elapsed());
    statistics
}

/// The path of the frames on the stack, then `last` (none when the state
/// the path reaches is the violation: a deadlock).
fn found(stack: &[Frame], violation: Violation, last: Option<PathStep>) -> Found {
    let mut path: Vec<PathStep> = stack.iter().filter_map(|frame| frame.via.clone()).collect();
    path.extend(last);
    Found::Violation { violation, path }
}

/// The outcomes of one move by every nondeterministic value.
#[derive(Default)]
struct Expansion {
    next: Vec<(PathStep, State)>,
    /// Some outcome is cut off by an assumption.
    cut: bool,
    /// Some outcome cannot happen.
    disabled: bool,
}

/// The outcomes of `step` from `state` by every combination of the
/// nondeterministic values it reads; stops when they are more than the
/// search may store, or the search must end.
fn expand(
    machine: &Machine,
    state: &State,
    step: Move,
    limits: &Limits,
    statistics: &mut Statistics,
) -> Result<Result<Expansion, (Violation, PathStep)>, Stopped> {
    let mut expansion = Expansion::default();
    let mut odometer = Odometer::default();
    for combination in 1usize.. {
        if combination.is_multiple_of(256) {
            limits.check()?;
            if combination > limits.max_states {
                return Err(Stopped::TooManyStates(limits.max_states));
            }
        }
        let outcome = machine
            .apply(state, step, &mut odometer)
            .map_err(Stopped::Unsupported)?;
        let values = odometer.taken();
        match outcome {
            Outcome::Next(successor) => {
                statistics.moves += 1;
                if matches!(step, Move::Run(_)) {
                    statistics.events += 1;
                }
                expansion.next.push(((step, values), successor));
            }
            Outcome::Disabled => expansion.disabled = true,
            Outcome::CutOff => expansion.cut = true,
            Outcome::Violated(violation) => return Ok(Err((violation, (step, values)))),
        }
        if !odometer.advance() {
            break;
        }
    }
    Ok(Ok(expansion))
}

/// The successors of `state` by every move and every nondeterministic
/// value (by one move alone when it is local, see [`Footprints`]), or the
/// first violation a move reaches.
#[allow(clippy::type_complexity)]
fn successors(
    machine: &Machine,
    footprints: &Footprints,
    state: &State,
    limits: &Limits,
    statistics: &mut Statistics,
) -> Result<Result<Vec<(PathStep, State)>, (Violation, Option<PathStep>)>, Stopped> {
    for slot in 0..state.threads.len() {
        if !footprints.is_local(machine, state, slot) {
            continue;
        }
        match expand(machine, state, Move::Run(slot), limits, statistics)? {
            Err((violation, step)) => return Ok(Err((violation, Some(step)))),
            Ok(expansion)
                if !expansion.cut && !expansion.disabled && !expansion.next.is_empty() =>
            {
                return Ok(Ok(expansion.next));
            }
            Ok(_) => {}
        }
    }
    let needed = super::reduction::needed_flushes(machine, state);
    let moves = machine.moves(state).into_iter().filter(|step| match step {
        Move::Flush { slot, index } => needed.contains(&(*slot, *index)),
        Move::Run(_) => true,
    });
    let mut next = Vec::new();
    let mut ended = false;
    for step in moves {
        match expand(machine, state, step, limits, statistics)? {
            Err((violation, step)) => return Ok(Err((violation, Some(step)))),
            Ok(expansion) => {
                ended |= expansion.cut;
                next.extend(expansion.next);
            }
        }
    }
    if next.is_empty()
        && let Some(violation) = machine.deadlock(state)
    {
        statistics.blocked_executions += 1;
        statistics.deadlocked_executions += 1;
        if limits.deadlocks {
            return Ok(Err((violation, None)));
        }
        return Ok(Ok(next));
    }
    if ended {
        if next.is_empty() && machine.only_spinning_too_early(state) {
            statistics.awaiting_executions += 1;
        } else {
            statistics.blocked_executions += 1;
        }
    }
    if next.is_empty() && !ended {
        let complete = state
            .threads
            .iter()
            .all(|thread| matches!(thread.status, Status::Finished | Status::NotCreated))
            && state.buffers.iter().all(Vec::is_empty);
        // stores no one reads may stay buffered at the end
        let complete = complete
            || state
                .threads
                .iter()
                .all(|thread| matches!(thread.status, Status::Finished | Status::NotCreated));
        if complete {
            statistics.complete_executions += 1;
        } else {
            statistics.blocked_executions += 1;
        }
    }
    Ok(Ok(next))
}
