//! Witness traces: linearisations of events with buffer and memory phases,
//! their replay against the operational semantics, and the delayed stores
//! (store-load reorderings) they contain.

use super::execution::{Event, EventId, Execution, Op, Source, ThreadId};
use super::model::MemoryModel;
use std::collections::VecDeque;
use thiserror::Error;

/// The phase of a step of a witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// A write enters its thread's store buffer (issued).
    Buffer,
    /// A buffered write reaches memory.
    Memory,
    /// Any other event executes (read, fence, rmw, lock, unlock).
    Execute,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Buffer => "buffer",
            Phase::Memory => "memory",
            Phase::Execute => "execute",
        }
    }
}

/// One step of a witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Step {
    pub event: EventId,
    pub phase: Phase,
}

/// A witness: a trace realising the execution's reads-from map. Writes
/// appear twice (buffer, then memory phase), other events once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Witness {
    pub steps: Vec<Step>,
}

/// Why a witness does not replay.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("step {step}: {reason}")]
pub struct ReplayError {
    /// 1-based step number (0 for the end of the trace).
    pub step: usize,
    pub reason: String,
}

/// Replays a witness against the operational semantics of `model` (store
/// buffers and flushes) and checks that every read reads from its `rf`.
pub fn replay(
    execution: &Execution,
    witness: &Witness,
    model: MemoryModel,
) -> Result<(), ReplayError> {
    let mut machine = Machine::new(execution);
    for (i, step) in witness.steps.iter().enumerate() {
        let fail = |reason: String| ReplayError {
            step: i + 1,
            reason,
        };
        if step.event >= execution.events().len() {
            return Err(fail(format!("unknown event index {}", step.event)));
        }
        machine.step(*step, model).map_err(fail)?;
        if model == MemoryModel::Sc
            && step.phase == Phase::Buffer
            && witness.steps.get(i + 1)
                != Some(&Step {
                    event: step.event,
                    phase: Phase::Memory,
                })
        {
            return Err(fail(
                "under SC a write must reach memory right after it is issued".into(),
            ));
        }
    }
    machine
        .finish()
        .map_err(|reason| ReplayError { step: 0, reason })
}

/// The operational machine used by [`replay`].
struct Machine<'a> {
    execution: &'a Execution,
    pos: Vec<usize>,
    buffers: Vec<VecDeque<EventId>>,
    flushed: Vec<bool>,
    memory: Vec<Source>,
    holder: Vec<Option<ThreadId>>,
    /// The thread inside an atomic section, if any.
    section: Option<ThreadId>,
}

impl<'a> Machine<'a> {
    fn new(execution: &'a Execution) -> Self {
        Machine {
            execution,
            pos: vec![0; execution.threads().len()],
            buffers: vec![VecDeque::new(); execution.threads().len()],
            flushed: vec![false; execution.events().len()],
            memory: vec![Source::Init; execution.variables().len()],
            holder: vec![None; execution.mutexes().len()],
            section: None,
        }
    }

    fn name(&self, event: EventId) -> std::borrow::Cow<'_, str> {
        self.execution.name(event)
    }

    fn step(&mut self, step: Step, model: MemoryModel) -> Result<(), String> {
        let event = self.execution.event(step.event);
        let thread = event.thread;
        if step.phase == Phase::Memory {
            return self.flush(step.event, model);
        }
        let execution = self.execution;
        let id = || execution.name(step.event);
        if self.pos[thread] != event.index {
            return Err(format!(
                "`{}` is not the next event of its thread (program order)",
                id()
            ));
        }
        if let Some(owner) = self.section
            && owner != thread
        {
            return Err(format!(
                "`{}` runs while thread {owner} is inside an atomic section",
                id()
            ));
        }
        let drained = self.buffers[thread].is_empty();
        match (event.op.clone(), step.phase) {
            (Op::Write { .. }, Phase::Buffer) => self.buffers[thread].push_back(step.event),
            (Op::Read { var, rf }, Phase::Execute) => {
                let seen = self.buffers[thread]
                    .iter()
                    .rev()
                    .find(|&&w| self.execution.event(w).op.var() == Some(var))
                    .map_or(self.memory[var], |&w| Source::Event(w));
                if seen != rf {
                    return Err(format!(
                        "`{}` would read from `{}`, not `{}`",
                        id(),
                        self.execution.source_name(seen),
                        self.execution.source_name(rf)
                    ));
                }
            }
            (Op::Fence, Phase::Execute) if drained => {}
            (Op::StoreFence, Phase::Execute) => {}
            (Op::AtomicBegin, Phase::Execute) => self.section = Some(thread),
            (Op::AtomicEnd, Phase::Execute) => self.section = None,
            (Op::Rmw { var, rf }, Phase::Execute)
                if drained || self.execution.is_unbuffered(var) =>
            {
                if self.memory[var] != rf {
                    return Err(format!(
                        "rmw `{}` would read from `{}`, not `{}`",
                        id(),
                        self.execution.source_name(self.memory[var]),
                        self.execution.source_name(rf)
                    ));
                }
                self.memory[var] = Source::Event(step.event);
            }
            (Op::Lock { mutex }, Phase::Execute) if drained => {
                if self.holder[mutex].is_some() {
                    return Err(format!("`{}` locks a mutex that is held", id()));
                }
                self.holder[mutex] = Some(thread);
            }
            (Op::Unlock { mutex }, Phase::Execute) if drained => {
                if self.holder[mutex] != Some(thread) {
                    return Err(format!(
                        "`{}` unlocks a mutex its thread does not hold",
                        id()
                    ));
                }
                self.holder[mutex] = None;
            }
            (Op::LockBusy { mutex }, Phase::Execute) if drained => {
                // its own thread may hold it (a normal mutex's try-lock by
                // its holder fails)
                if self.holder[mutex].is_none() {
                    return Err(format!(
                        "`{}` finds a mutex busy that no thread holds",
                        id()
                    ));
                }
            }
            (
                Op::Fence
                | Op::Rmw { .. }
                | Op::Lock { .. }
                | Op::Unlock { .. }
                | Op::LockBusy { .. },
                Phase::Execute,
            ) => {
                return Err(format!("`{}` needs an empty store buffer", id()));
            }
            (op, phase) => return Err(format!("a {} has no {} phase", op.name(), phase.name())),
        }
        self.pos[thread] += 1;
        if self.section == Some(thread)
            && self.pos[thread] == self.execution.threads()[thread].len()
        {
            // the thread ends inside its atomic section, which ends with it
            self.section = None;
        }
        Ok(())
    }

    fn flush(&mut self, event: EventId, model: MemoryModel) -> Result<(), String> {
        let Op::Write { var } = self.execution.event(event).op else {
            return Err(format!(
                "`{}` is not a write and has no memory phase",
                self.name(event)
            ));
        };
        let buffer = &mut self.buffers[self.execution.event(event).thread];
        let Some(at) = buffer.iter().position(|&w| w == event) else {
            let state = if self.flushed[event] {
                "already in memory"
            } else {
                "not issued yet"
            };
            return Err(format!("write `{}` is {state}", self.name(event)));
        };
        let execution = self.execution;
        let older_in_order = buffer.iter().take(at).any(|&w| {
            execution.event(w).op.var() == Some(var) || execution.store_fence_between(w, event)
        });
        if (model != MemoryModel::Pso && at != 0) || older_in_order {
            return Err(format!(
                "write `{}` overtakes an older buffered write",
                self.name(event)
            ));
        }
        buffer.remove(at);
        self.flushed[event] = true;
        self.memory[var] = Source::Event(event);
        Ok(())
    }

    fn finish(&self) -> Result<(), String> {
        for (thread, events) in self.execution.threads().iter().enumerate() {
            if self.pos[thread] != events.len() {
                return Err(format!("thread {thread} did not execute all its events"));
            }
            if !self.buffers[thread].is_empty() {
                return Err(format!(
                    "thread {thread} ends with a non-empty store buffer"
                ));
            }
        }
        Ok(())
    }
}

/// A store still in its thread's buffer when a later load of the same
/// thread executed: the store-load reordering a weak memory model allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayedStore {
    pub store: EventId,
    pub load: EventId,
    /// The load reads the variable the store writes (then it may have read
    /// the store from the buffer; no reordering is observable).
    pub same_variable: bool,
}

/// Calls `visit` on every event of the witness as it executes, in witness
/// order, with the stores of its thread still buffered then (issued, not
/// yet in memory): the one walk behind every reordering a witness shows.
pub fn with_buffered_stores(
    execution: &Execution,
    witness: &Witness,
    mut visit: impl FnMut(EventId, &Event, &[EventId]),
) {
    let mut buffered: Vec<Vec<EventId>> = vec![Vec::new(); execution.threads().len()];
    for step in &witness.steps {
        let Some(event) = execution.events().get(step.event) else {
            continue;
        };
        match (&event.op, step.phase) {
            (Op::Write { .. }, Phase::Buffer) => buffered[event.thread].push(step.event),
            (Op::Write { .. }, Phase::Memory) => {
                buffered[event.thread].retain(|&w| w != step.event)
            }
            (_, Phase::Execute) => visit(step.event, event, &buffered[event.thread]),
            _ => {}
        }
    }
}

/// Lists every (store, later load of the same thread executed before the
/// store's memory phase) pair of a witness, in witness order.
pub fn delayed_stores(execution: &Execution, witness: &Witness) -> Vec<DelayedStore> {
    let mut pairs = Vec::new();
    with_buffered_stores(execution, witness, |load, event, buffered| {
        if let Op::Read { var, .. } = event.op {
            for &store in buffered {
                let same_variable = execution.event(store).op.var() == Some(var);
                pairs.push(DelayedStore {
                    store,
                    load,
                    same_variable,
                });
            }
        }
    });
    pairs
}
