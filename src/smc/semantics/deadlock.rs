//! Deadlocks, the built-in property `deadlock`: a state of the search in
//! which some thread has not finished, every store buffer is empty, and
//! every unfinished thread waits for what no thread will ever do: a lock
//! of a mutex that a thread holds, a join of a thread that has not
//! finished, or the wait of a synchronisation object (a barrier, a
//! semaphore, a read-write lock, `pthread_once`) whose word does not admit
//! it. A thread stopped at a false assumption (`__VERIFIER_assume`, a loop
//! bound of `--unwind`, a pointer outside its objects) does not wait: a
//! state with such a thread is never a deadlock, so a bound never makes
//! one. Neither is a state in which a thread may still move, or a buffered
//! store may still reach memory, nor one after `main` returned, which ends
//! the process and every thread that waits.
//!
//! A thread in a `pthread_cond_wait` that waits for a signal (rather
//! than waking spuriously) and that no thread will signal any more waits
//! for ever too (a lost wake-up): a deadlock.
//!
//! A thread in an await loop (`crate::passes::await_loops`) whose
//! iteration, run again on the memory of such a state, still fails waits
//! for ever too: nothing will change what it reads. A state in which
//! such a thread waits is a violation of the property `liveness` (a wait
//! that never ends) rather than `deadlock`. An await loop whose iteration
//! would now pass does not wait: the state is no end of the program (the
//! search meets the execution in which the loop reads later elsewhere).

use super::machine::{Machine, Move, Outcome, Violation};
use super::state::{State, Status};
use crate::ir::{AwaitKind, OriginId};
use crate::passes::SeqStmt;
use crate::smc::interpreter::code::Instr;
use crate::smc::interpreter::eval::NotedChoices;
use crate::smc::interpreter::value::CType;

/// The kind of a deadlock's violation (its property name).
pub const DEADLOCK: &str = "deadlock";

/// The kind of the violation of a wait that never ends: an await loop
/// that nothing will let out.
pub const LIVENESS: &str = "liveness";

/// What an unfinished thread waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wait {
    /// A lock of the mutex at `location`, which `holder` holds.
    Mutex {
        location: u32,
        holder: Option<usize>,
        stmt: OriginId,
    },
    /// A join of thread `child`, which has not finished.
    Join { child: usize, stmt: OriginId },
    /// The wait of a synchronisation object whose word at `location`
    /// holds `value`, which does not admit the step.
    Word {
        location: u32,
        value: i64,
        stmt: OriginId,
    },
    /// An await loop at `stmt` whose iteration fails on the memory that
    /// stays, reading `values` (location, value) again and again, or a
    /// condition wait at `stmt` that no signal will end (`waits_for`).
    Await {
        stmt: OriginId,
        waits_for: AwaitKind,
        values: Vec<(u32, i64)>,
    },
}

/// A thread in an await loop, on the memory of a state.
enum Spin {
    /// Its iteration fails again.
    Endless(Wait),
    /// Its iteration passes now.
    WouldPass,
}

impl Wait {
    fn stmt(&self) -> OriginId {
        match self {
            Wait::Mutex { stmt, .. }
            | Wait::Join { stmt, .. }
            | Wait::Word { stmt, .. }
            | Wait::Await { stmt, .. } => *stmt,
        }
    }
}

impl Machine<'_> {
    /// The deadlock of `state`, as a violation that names where each
    /// waiting thread waits, if `state` is one (the module's `//!`).
    pub fn deadlock(&self, state: &State) -> Option<Violation> {
        if state.buffers.iter().any(|buffer| !buffer.is_empty()) || state.atomic.is_some() {
            return None;
        }
        // main's return ends the process, and the threads waiting with it
        // (a `pthread_exit` of main, which does not, finishes it too: such
        // a deadlock goes unreported rather than one made up)
        if state
            .threads
            .first()
            .is_none_or(|main| main.status == Status::Finished)
        {
            return None;
        }
        let mut waits = Vec::new();
        for (slot, thread) in state.threads.iter().enumerate() {
            match thread.status {
                Status::NotCreated | Status::Finished => {}
                Status::Created | Status::Running => waits.push((slot, self.wait_of(state, slot)?)),
            }
        }
        // placed at an await loop that never ends, else where a thread
        // waits for another's mutex or object, rather than at a join,
        // which only waits for those
        let endless = waits.iter().find(|(_, wait)| {
            matches!(
                wait,
                Wait::Await {
                    waits_for: AwaitKind::SpinLoop,
                    ..
                }
            )
        });
        let (first, first_wait) = endless
            .or_else(|| {
                waits
                    .iter()
                    .find(|(_, wait)| !matches!(wait, Wait::Join { .. }))
            })
            .or(waits.first())?;
        let described: Vec<String> = waits
            .iter()
            .map(|(slot, wait)| self.describe_wait(*slot, wait))
            .collect();
        let (kind, headline) = if endless.is_some() {
            (LIVENESS, "a wait never ends")
        } else {
            (DEADLOCK, "no thread can move")
        };
        Some(Violation {
            slot: *first,
            description: format!("{headline}: {}", described.join("; ")),
            kind,
            origin: Some(first_wait.stmt()),
        })
    }

    /// What thread `slot` waits for in `state`, if its next move waits
    /// (it does not when it could move, or when an assumption cuts it off).
    pub fn wait_of(&self, state: &State, slot: usize) -> Option<Wait> {
        let mut state = state.clone();
        let mut choices = NotedChoices::default();
        if state.threads.get(slot)?.status == Status::Created {
            state.thread_mut(slot).status = Status::Running;
            let prefix = self.run_private(&mut state, slot, &mut choices).ok()?;
            if !matches!(prefix, Outcome::Next(())) || state.threads[slot].status != Status::Running
            {
                return None;
            }
        }
        let pc = state.threads[slot].pc;
        let wait = match self.codes[slot].instrs.get(pc)? {
            Instr::Do(SeqStmt::Lock { address, stmt }) => {
                let location = self.location(&mut state, slot, address, *stmt, &mut choices);
                let location = location.ok()?.ok()?;
                let held = state.memory.get(location)? != 0;
                held.then(|| Wait::Mutex {
                    location,
                    holder: state
                        .held
                        .iter()
                        .find(|(held, _)| *held == location)
                        .map(|&(_, holder)| holder),
                    stmt: *stmt,
                })?
            }
            Instr::Do(SeqStmt::Join { handle, stmt }) => {
                let joined = self.eval(&mut state, slot, handle, &mut choices).ok()?;
                let child = CType {
                    bits: 32,
                    signed: false,
                }
                .convert(joined) as usize;
                // a join of the thread itself fails (EDEADLK) rather than
                // waits
                let finished = state.threads.get(child)?.status == Status::Finished;
                (!finished && child != slot).then_some(Wait::Join { child, stmt: *stmt })?
            }
            Instr::Do(SeqStmt::Rmw { address, stmt, .. }) => {
                let guess = self.codes[slot].guesses.get(&pc)?;
                let location = self.location(&mut state, slot, address, *stmt, &mut choices);
                let location = location.ok()?.ok()?;
                let value = state.memory.get(location)?;
                let carried = super::memory::carried_in_memory(&state, location);
                let outcome = self.resolve_guess(
                    &mut state,
                    slot,
                    guess,
                    value,
                    carried.as_deref(),
                    &mut choices,
                );
                matches!(outcome, Ok(Outcome::CutOff)).then_some(Wait::Word {
                    location,
                    value,
                    stmt: *stmt,
                })?
            }
            _ => match self.spin(&state, slot)? {
                Spin::Endless(wait) => wait,
                Spin::WouldPass => return None,
            },
        };
        (!choices.chose).then_some(wait)
    }

    /// Whether every unfinished thread of `state`, its buffers drained,
    /// either waits or spins in an await loop that would now pass, and
    /// one does the latter: the execution ends only because that loop
    /// read too early, and the search meets the one in which it reads
    /// later (no bound cut it off).
    pub fn only_spinning_too_early(&self, state: &State) -> bool {
        let mut too_early = false;
        for (slot, thread) in state.threads.iter().enumerate() {
            if !matches!(thread.status, Status::Created | Status::Running) {
                continue;
            }
            match self.spin(state, slot) {
                Some(Spin::WouldPass) => too_early = true,
                Some(Spin::Endless(_)) => {}
                None if self.wait_of(state, slot).is_some() => {}
                None => return false,
            }
        }
        too_early
    }

    /// What thread `slot` does in an await loop, if its next move stops
    /// at the loop's exit: its iteration, run again from its first
    /// statement on `state`'s memory, stops there again (a wait that
    /// never ends when nothing else can move) or passes.
    fn spin(&self, state: &State, slot: usize) -> Option<Spin> {
        let code = &self.codes[slot];
        let at = state.threads.get(slot)?.pc;
        let (exit, restart) = code
            .restarts
            .iter()
            .map(|(&exit, &restart)| (exit, restart))
            .find(|&(exit, restart)| restart <= at && at <= exit)?;
        let mut probe = state.clone();
        let mut choices = NotedChoices::default();
        match self.apply_in_place(&mut probe, Move::Run(slot), &mut choices) {
            // RF-SMC stops a thread before the move that failed: on this
            // memory it passes
            Ok(Outcome::Next(())) if !choices.chose => return Some(Spin::WouldPass),
            Ok(Outcome::CutOff) if probe.threads[slot].pc == exit && !choices.chose => {}
            // cut off elsewhere: by a bound
            _ => return None,
        }
        // the iteration again, from its first statement: it ends at the
        // exit, where the wait fails again or passes
        let mut probe = state.clone();
        probe.thread_mut(slot).pc = restart;
        for _ in restart..=exit {
            match self.apply_in_place(&mut probe, Move::Run(slot), &mut choices) {
                Ok(Outcome::Next(())) if (restart..exit).contains(&probe.threads[slot].pc) => {}
                Ok(Outcome::CutOff) if probe.threads[slot].pc == exit && !choices.chose => {
                    let Some(Instr::Do(SeqStmt::Await {
                        stmt, waits_for, ..
                    })) = code.instrs.get(exit)
                    else {
                        return None;
                    };
                    let values = self.values_read(&mut probe, slot, restart..exit);
                    return Some(Spin::Endless(Wait::Await {
                        stmt: *stmt,
                        waits_for: *waits_for,
                        values,
                    }));
                }
                Ok(Outcome::Next(())) if probe.threads[slot].pc > exit => {
                    return Some(Spin::WouldPass);
                }
                _ => return None,
            }
        }
        None
    }

    /// The locations the reads among instructions `range` of thread
    /// `slot` touch, with the values memory holds there in `state`.
    fn values_read(
        &self,
        state: &mut State,
        slot: usize,
        range: std::ops::Range<usize>,
    ) -> Vec<(u32, i64)> {
        let mut values = Vec::new();
        let mut choices = NotedChoices::default();
        for instr in &self.codes[slot].instrs[range] {
            let Instr::Do(SeqStmt::Read { address, stmt, .. }) = instr else {
                continue;
            };
            if let Ok(Ok(location)) = self.location(state, slot, address, *stmt, &mut choices)
                && let Some(value) = state.memory.get(location)
                && !values.contains(&(location, value))
            {
                values.push((location, value));
            }
        }
        values
    }

    /// `thread t waits at file:line `text` for ...`.
    fn describe_wait(&self, slot: usize, wait: &Wait) -> String {
        let map = &self.program.map;
        let thread = |slot: usize| {
            map.threads
                .get(slot)
                .map_or_else(|| format!("thread {slot}"), |thread| thread.name(slot))
        };
        let location = |location: u32| {
            map.locations
                .name(location as usize)
                .unwrap_or_else(|| format!("location {location}"))
        };
        let at = |stmt: OriginId| match map.origins.get(stmt) {
            Some(origin) => format!("{}:{} `{}`", origin.file_name(), origin.line, origin.text),
            None => "an unknown statement".to_string(),
        };
        let what = match *wait {
            Wait::Mutex {
                location: mutex,
                holder,
                stmt,
            } => {
                let holder = match holder {
                    Some(holder) if holder == slot => "which it holds itself".to_string(),
                    Some(holder) => format!("which {} holds", thread(holder)),
                    None => "which is taken".to_string(),
                };
                format!(
                    "waits at {} for mutex {}, {holder}",
                    at(stmt),
                    location(mutex)
                )
            }
            Wait::Join { child, stmt } => format!(
                "waits at {} for {} to finish, which it never does",
                at(stmt),
                thread(child)
            ),
            Wait::Word {
                location: word,
                value,
                stmt,
            } => format!(
                "waits at {} until {} (now {value}) lets it go on",
                at(stmt),
                location(word)
            ),
            Wait::Await {
                stmt,
                waits_for: AwaitKind::ConditionSignal,
                ..
            } => format!(
                "waits at {} for a signal of its condition variable, which no thread sends (a lost wake-up)",
                at(stmt)
            ),
            Wait::Await {
                stmt,
                waits_for: AwaitKind::SpinLoop,
                ref values,
            } => {
                let read: Vec<String> = values
                    .iter()
                    .map(|&(read, value)| format!("{} = {value}", location(read)))
                    .collect();
                let reading = if read.is_empty() {
                    String::new()
                } else {
                    format!(", reading {} for ever", read.join(", "))
                };
                format!("spins in the await loop at {}{reading}", at(stmt))
            }
        };
        format!("{} {what}", thread(slot))
    }
}
