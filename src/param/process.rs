//! The process definition of the paper (section 3.1) built from one
//! thread's code as the passes leave it (inlined, loops unrolled): states
//! are the thread's program counter with its private data, transitions
//! are reads `r(x, d)`, writes `w(x, d)`, full fences and internal steps
//! (private code, nondeterministic choices), and the properties the
//! thread checks are target states.
//!
//! Each transition is one move of the native engine's interpreter run on
//! the thread alone under SC, with the shared location about to be read
//! set to each value it may hold. The values a shared variable may hold
//! (its finite domain) are found by a fixpoint: start from its initial
//! value, explore with reads returning any value of the domains, add every
//! value written, and explore again until no domain grows. Every value a
//! read returns in any execution is the initial value or a written one, so
//! the domains cover them all; a domain beyond [`MAX_VALUES`] values, or a
//! thread of more than [`MAX_STATES`] states, is refused.

use super::instance::{Instance, MAX_CHOICE_COMBINATIONS};
use super::refusal::Refusal;
use crate::ir::OriginId;
use crate::smc::explicit::explore::Odometer;
use crate::smc::interpreter::value::Value;
use crate::smc::semantics::machine::{Machine, Move, Outcome, State, Status, Thread, Violation};
use crate::trace::records::{Record, RecordKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// The most values one shared variable may take.
pub const MAX_VALUES: usize = 16;
/// The most states of the thread.
pub const MAX_STATES: usize = 50_000;

/// What a transition does to shared memory; variables and values are
/// indices into [`Process::variables`] and its domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    Skip,
    Read { variable: usize, value: usize },
    Write { variable: usize, value: usize },
    Fence,
}

/// Where a transition leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    State(usize),
    /// The property of [`Process::violations`] at this index fails.
    Violation(usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Transition {
    pub operation: Operation,
    pub target: Target,
    pub origin: Option<OriginId>,
}

/// A process definition: state 0 is the initial state.
#[derive(Debug, Clone)]
pub struct Process {
    pub transitions: Vec<Vec<Transition>>,
    /// The shared locations the thread touches.
    pub variables: Vec<u32>,
    /// Each variable's values, the initial one first.
    pub domains: Vec<Vec<i64>>,
    pub violations: Vec<Violation>,
    /// The loops whose `--unwind` bound cut the thread's executions off.
    pub loop_cut_offs: BTreeSet<OriginId>,
}

impl Process {
    pub fn states(&self) -> usize {
        self.transitions.len()
    }
}

/// A state of the thread alone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Local {
    thread: Arc<Thread>,
    plain: Vec<Value>,
}

struct Builder<'a> {
    machine: &'a Machine<'a>,
    instance: &'a Instance,
    /// Values by location, the initial one first.
    domains: BTreeMap<u32, Vec<i64>>,
    grown: bool,
    states: HashMap<Local, usize>,
    locals: Vec<Local>,
    transitions: Vec<Vec<Transition>>,
    violations: Vec<Violation>,
}

/// Builds the thread's process definition.
pub fn build(machine: &Machine, instance: &Instance) -> Result<Process, Refusal> {
    let mut domains: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    loop {
        let mut builder = Builder {
            machine,
            instance,
            domains,
            grown: false,
            states: HashMap::new(),
            locals: Vec::new(),
            transitions: Vec::new(),
            violations: Vec::new(),
        };
        builder.explore()?;
        if !builder.grown {
            return Ok(builder.finish());
        }
        domains = builder.domains;
    }
}

impl Builder<'_> {
    fn explore(&mut self) -> Result<(), Refusal> {
        let worker = self.instance.worker;
        let first = Local {
            thread: self.instance.start.threads[worker].clone(),
            plain: self.instance.start.plain.clone(),
        };
        self.intern(first)?;
        let mut next = 0;
        while next < self.locals.len() {
            let transitions = self.transitions_of(next)?;
            self.transitions[next] = transitions;
            next += 1;
        }
        Ok(())
    }

    fn intern(&mut self, local: Local) -> Result<usize, Refusal> {
        if let Some(&index) = self.states.get(&local) {
            return Ok(index);
        }
        if self.locals.len() >= MAX_STATES {
            return Err(Refusal::new(
                format!("the thread has more than {MAX_STATES} states"),
                None,
                "the check takes finite-state threads of moderate size: lower --unwind or \
                 narrow the thread's data",
            ));
        }
        let index = self.locals.len();
        self.states.insert(local.clone(), index);
        self.locals.push(local);
        self.transitions.push(Vec::new());
        Ok(index)
    }

    fn state_of(&self, local: &Local) -> State {
        let mut state = self.instance.start.clone();
        state.threads[self.instance.worker] = local.thread.clone();
        state.plain = local.plain.clone();
        if let Some(recording) = state.recording.as_mut() {
            recording.records.clear();
        }
        state
    }

    /// The transitions of one state: the moves that read nothing, then,
    /// for each location some move reads, the moves with each value of
    /// its domain there.
    fn transitions_of(&mut self, index: usize) -> Result<Vec<Transition>, Refusal> {
        let local = self.locals[index].clone();
        if local.thread.status == Status::Finished {
            return Ok(Vec::new());
        }
        let mut transitions = BTreeSet::new();
        let mut read_locations = BTreeSet::new();
        self.each_move(&local, None, |builder, move_| {
            match move_.memory_record() {
                Some(record) if record.kind == RecordKind::Read => {
                    read_locations.insert(record.loc);
                }
                _ => {
                    if let Some(transition) = builder.transition(&local, move_)? {
                        transitions.insert(transition);
                    }
                }
            }
            Ok(())
        })?;
        for location in read_locations {
            let location = u32::try_from(location).unwrap_or(u32::MAX);
            let values = self.domain(location).clone();
            for value in values {
                self.each_move(&local, Some((location, value)), |builder, move_| {
                    let reads_here = move_.memory_record().is_some_and(|record| {
                        record.kind == RecordKind::Read && record.loc == u64::from(location)
                    });
                    if reads_here && let Some(transition) = builder.transition(&local, move_)? {
                        transitions.insert(transition);
                    }
                    Ok(())
                })?;
            }
        }
        Ok(transitions.into_iter().collect())
    }

    fn domain(&mut self, location: u32) -> &mut Vec<i64> {
        let initial = self.instance.start.memory.at(location);
        self.domains
            .entry(location)
            .or_insert_with(|| vec![initial])
    }

    /// Runs the thread's next move from `local` for every combination of
    /// nondeterministic values, with `memory` set first.
    fn each_move(
        &mut self,
        local: &Local,
        memory: Option<(u32, i64)>,
        mut visit: impl FnMut(&mut Self, Ran) -> Result<(), Refusal>,
    ) -> Result<(), Refusal> {
        let mut odometer = Odometer::default();
        let mut combinations = 0usize;
        loop {
            combinations += 1;
            if combinations > MAX_CHOICE_COMBINATIONS {
                return Err(Refusal::new(
                    format!(
                        "one step of the thread takes more than {MAX_CHOICE_COMBINATIONS} combinations of nondeterministic values"
                    ),
                    None,
                    "the check takes choices of few values (`__VERIFIER_nondet_bool()`)",
                ));
            }
            let mut state = self.state_of(local);
            if let Some((location, value)) = memory {
                state.memory.set(location, value);
            }
            let outcome = self
                .machine
                .apply_in_place(&mut state, Move::Run(self.instance.worker), &mut odometer)
                .map_err(|unsupported| {
                    Refusal::new(
                        unsupported.what,
                        unsupported.origin,
                        "the parameterised check models the thread's code natively; \
                         rewrite the statement in the fragment docs/parameterised.md describes",
                    )
                })?;
            let records = state
                .recording
                .as_ref()
                .map(|recording| recording.records.clone())
                .unwrap_or_default();
            visit(
                self,
                Ran {
                    outcome,
                    state,
                    records,
                },
            )?;
            if !odometer.advance() {
                return Ok(());
            }
        }
    }

    fn variable_value(
        &mut self,
        location: u32,
        value: i64,
        origin: Option<OriginId>,
    ) -> Result<(), Refusal> {
        let domain = self.domain(location);
        if !domain.contains(&value) {
            domain.push(value);
            let size = domain.len();
            self.grown = true;
            if size > MAX_VALUES {
                let name = self
                    .machine
                    .program
                    .map
                    .locations
                    .name(location as usize)
                    .unwrap_or_else(|| format!("location {location}"));
                return Err(Refusal::new(
                    format!(
                        "the shared variable `{name}` takes more than {MAX_VALUES} values \
                         (the values written to it, with reads returning any value it holds, \
                         do not close within {MAX_VALUES})"
                    ),
                    origin,
                    "the check takes shared variables of small finite domains (flags, \
                     booleans, small counters)",
                ));
            }
        }
        Ok(())
    }

    fn transition(&mut self, from: &Local, ran: Ran) -> Result<Option<Transition>, Refusal> {
        let origin = ran
            .memory_record()
            .map(|record| record.stmt)
            .or_else(|| ran.records.first().map(|record| record.stmt));
        let operation = match ran.memory_record() {
            None => Operation::Skip,
            Some(record) => {
                let location = u32::try_from(record.loc).unwrap_or(u32::MAX);
                let value = i64::try_from(record.value).unwrap_or(i64::MAX);
                match record.kind {
                    RecordKind::Read | RecordKind::Write => {
                        self.variable_value(location, value, origin)?;
                        let domain = self.domain(location);
                        let value = domain.iter().position(|&v| v == value).unwrap_or(0);
                        let variable = location as usize;
                        if record.kind == RecordKind::Read {
                            Operation::Read { variable, value }
                        } else {
                            Operation::Write { variable, value }
                        }
                    }
                    RecordKind::Fence => Operation::Fence,
                    _ => Operation::Skip,
                }
            }
        };
        let target = match ran.outcome {
            Outcome::CutOff => return Ok(None),
            Outcome::Disabled => {
                return Err(Refusal::new(
                    "the thread waits for something the check does not model",
                    origin,
                    "the check takes loads, stores, full fences, choices and assertions",
                ));
            }
            Outcome::Violated(violation) => {
                let index = match self
                    .violations
                    .iter()
                    .position(|known| known.description == violation.description)
                {
                    Some(index) => index,
                    None => {
                        self.violations.push(violation);
                        self.violations.len() - 1
                    }
                };
                Target::Violation(index)
            }
            Outcome::Next(()) => {
                if ran.state.plain != from.plain {
                    return Err(Refusal::new(
                        "the thread writes a global the translation keeps out of shared memory",
                        origin,
                        "the check takes threads that share data through shared variables only",
                    ));
                }
                let local = Local {
                    thread: ran.state.threads[self.instance.worker].clone(),
                    plain: ran.state.plain,
                };
                Target::State(self.intern(local)?)
            }
        };
        Ok(Some(Transition {
            operation,
            target,
            origin,
        }))
    }

    /// The process with variables renumbered densely.
    fn finish(self) -> Process {
        let variables: Vec<u32> = self.domains.keys().copied().collect();
        let number = |location: usize| {
            variables
                .iter()
                .position(|&known| known as usize == location)
                .unwrap_or(0)
        };
        let transitions = self
            .transitions
            .into_iter()
            .map(|transitions| {
                transitions
                    .into_iter()
                    .map(|mut transition| {
                        transition.operation = match transition.operation {
                            Operation::Read { variable, value } => Operation::Read {
                                variable: number(variable),
                                value,
                            },
                            Operation::Write { variable, value } => Operation::Write {
                                variable: number(variable),
                                value,
                            },
                            other => other,
                        };
                        transition
                    })
                    .collect()
            })
            .collect();
        let loop_cut_offs = self
            .machine
            .loop_cut_offs
            .lock()
            .map(|loops| loops.clone())
            .unwrap_or_default();
        Process {
            transitions,
            variables,
            domains: self.domains.into_values().collect(),
            violations: self.violations,
            loop_cut_offs,
        }
    }
}

/// One move of the thread and what it left.
struct Ran {
    outcome: Outcome<()>,
    state: State,
    records: Vec<Record>,
}

impl Ran {
    /// The move's access to shared memory, if any.
    fn memory_record(&self) -> Option<&Record> {
        self.records.iter().find(|record| {
            matches!(
                record.kind,
                RecordKind::Read | RecordKind::Write | RecordKind::Fence
            )
        })
    }
}
