//! Executions: threads of events in program order with a reads-from map,
//! built from unresolved specifications and validated once.

use std::borrow::Cow;
use std::collections::HashMap;
use thiserror::Error;

/// Index of an event in [`Execution::events`].
pub type EventId = usize;
/// Index of a thread.
pub type ThreadId = usize;
/// Index of a shared variable in [`Execution::variables`].
pub type VarId = usize;
/// Index of a mutex in [`Execution::mutexes`].
pub type MutexId = usize;

/// Where a read (or the read half of an RMW) takes its value from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The initial value of the variable.
    Init,
    /// A `write` or `rmw` event on the same variable.
    Event(EventId),
}

/// A memory operation, generic in how it refers to variables, reads-from
/// sources and mutexes: by index once resolved ([`Op`]), by name before
/// ([`OpSpec`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation<Var, Rf, Mutex> {
    /// A two-phase write: buffered when issued, in memory when flushed.
    Write { var: Var },
    /// A read of `var` that must read from `rf`.
    Read { var: Var, rf: Rf },
    /// A fence: blocks until the thread's buffers are empty.
    Fence,
    /// A store-store fence: never blocks; under PSO the thread's later
    /// writes reach memory only after its earlier ones (TSO and SC keep
    /// that order anyway).
    StoreFence,
    /// Opens an atomic section: until the thread's matching `AtomicEnd` no
    /// other thread executes an event (stores may still reach memory; the
    /// section does not drain).
    AtomicBegin,
    /// Closes the thread's atomic section.
    AtomicEnd,
    /// An atomic read-modify-write (or successful CAS): drains the thread's
    /// buffers, then reads `rf` from memory and writes memory in one step.
    Rmw { var: Var, rf: Rf },
    /// Acquires a mutex (when free), after draining the thread's buffers.
    Lock { mutex: Mutex },
    /// Releases a mutex held by the thread, after draining its buffers.
    Unlock { mutex: Mutex },
    /// A failed try-lock: after draining the thread's buffers, finds the
    /// mutex held by another thread (and leaves it so).
    LockBusy { mutex: Mutex },
}

/// An operation with every reference resolved.
pub type Op = Operation<VarId, Source, MutexId>;

/// An operation before resolution: names instead of indices.
pub type OpSpec = Operation<String, RfSpec, String>;

impl<Var, Rf, Mutex> Operation<Var, Rf, Mutex> {
    /// The operation's name in the JSON format.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Write { .. } => "write",
            Operation::Read { .. } => "read",
            Operation::Fence => "fence",
            Operation::StoreFence => "store-fence",
            Operation::AtomicBegin => "atomic-begin",
            Operation::AtomicEnd => "atomic-end",
            Operation::Rmw { .. } => "rmw",
            Operation::Lock { .. } => "lock",
            Operation::Unlock { .. } => "unlock",
            Operation::LockBusy { .. } => "lock-busy",
        }
    }
}

impl Op {
    /// The variable accessed, if any.
    pub fn var(&self) -> Option<VarId> {
        match self {
            Op::Write { var } | Op::Read { var, .. } | Op::Rmw { var, .. } => Some(*var),
            _ => None,
        }
    }

    /// The reads-from source of a read or RMW.
    pub fn rf(&self) -> Option<Source> {
        match self {
            Op::Read { rf, .. } | Op::Rmw { rf, .. } => Some(*rf),
            _ => None,
        }
    }

    /// Whether the event writes memory (a `write` or an `rmw`).
    pub fn is_writer(&self) -> bool {
        matches!(self, Op::Write { .. } | Op::Rmw { .. })
    }
}

/// One event of an execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The user's name of the event (unique), or empty for an event of an
    /// execution built from operations ([`Execution::from_operations`]),
    /// which [`Execution::name`] names by its thread and position.
    pub id: String,
    pub thread: ThreadId,
    /// Position in its thread's program order.
    pub index: usize,
    pub op: Op,
    /// The value written (or read), when known; informative only.
    pub value: Option<i64>,
}

/// A reads-from reference before resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RfSpec {
    Init,
    /// The id of a `write` or `rmw` event.
    Event(String),
}

/// An event before resolution, as a client (parser, trace decoder) builds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSpec {
    pub id: String,
    pub op: OpSpec,
    pub value: Option<i64>,
}

impl EventSpec {
    pub fn new(id: impl Into<String>, op: OpSpec) -> Self {
        EventSpec {
            id: id.into(),
            op,
            value: None,
        }
    }

    pub fn with_value(mut self, value: i64) -> Self {
        self.value = Some(value);
        self
    }
}

/// Why a set of specifications is not a well-formed execution.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExecutionError {
    #[error("event id `{0}` is used more than once")]
    DuplicateId(String),
    #[error("event id `init` is reserved for the initial value")]
    ReservedId,
    #[error("event id must not be empty")]
    EmptyId,
    #[error("event `{event}` reads from unknown event `{rf}`")]
    UnknownRf { event: String, rf: String },
    #[error("event `{event}` reads from `{rf}`, which is a {op}, not a write or rmw")]
    RfNotAWrite {
        event: String,
        rf: String,
        op: &'static str,
    },
    #[error("event `{event}` reads `{var}` but `{rf}` writes `{other}`")]
    RfOtherVariable {
        event: String,
        rf: String,
        var: String,
        other: String,
    },
    #[error("event `{event}` reads from itself")]
    RfSelf { event: String },
    #[error("event `{event}` unlocks mutex `{mutex}`, which its thread does not hold")]
    UnlockNotHeld { event: String, mutex: String },
    #[error("event `{event}` opens an atomic section inside another one of its thread")]
    NestedAtomic { event: String },
    #[error("event `{event}` is a buffered write of `{var}`, which no store buffers")]
    WriteUnbuffered { event: String, var: String },
    #[error("too many events ({0})")]
    TooLarge(usize),
    #[error("event `{event}` reads from event number {rf}, which does not exist")]
    UnknownSource { event: String, rf: EventId },
    #[error("event `{event}` names variable or mutex number {index}, which does not exist")]
    UnknownIndex { event: String, index: usize },
}

/// The largest number of events accepted (keeps every index in `u32`).
pub const MAX_EVENTS: usize = 1 << 20;

/// A validated execution: events per thread in program order, variables,
/// mutexes and the reads-from map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    events: Vec<Event>,
    threads: Vec<Vec<EventId>>,
    variables: Vec<String>,
    mutexes: Vec<String>,
    by_id: HashMap<String, EventId>,
    /// Per variable: no store buffers it (only `rmw`s write it), so an
    /// `rmw` of it reads and writes memory without draining its thread's
    /// buffers.
    unbuffered: Vec<bool>,
}

impl Execution {
    /// Resolves and validates threads of event specifications.
    pub fn new(threads: Vec<Vec<EventSpec>>) -> Result<Execution, ExecutionError> {
        Execution::with_unbuffered(threads, &[])
    }

    /// [`Execution::new`] in which the variables named `unbuffered` are
    /// written by `rmw`s only and are never buffered: an `rmw` of one
    /// reads and writes memory in one step without draining its thread's
    /// buffers (the native engine's locations of its own bookkeeping, such
    /// as the lock that orders atomic sections).
    pub fn with_unbuffered(
        threads: Vec<Vec<EventSpec>>,
        unbuffered: &[String],
    ) -> Result<Execution, ExecutionError> {
        let total: usize = threads.iter().map(Vec::len).sum();
        if total > MAX_EVENTS {
            return Err(ExecutionError::TooLarge(total));
        }
        let mut builder = Resolver::default();
        builder.index_ids(&threads)?;
        let mut execution = Execution {
            events: Vec::with_capacity(total),
            threads: Vec::with_capacity(threads.len()),
            variables: Vec::new(),
            mutexes: Vec::new(),
            by_id: HashMap::new(),
            unbuffered: Vec::new(),
        };
        for (thread, specs) in threads.iter().enumerate() {
            let mut ids = Vec::with_capacity(specs.len());
            for (index, spec) in specs.iter().enumerate() {
                let op = builder.resolve(spec, &threads)?;
                ids.push(execution.events.len());
                execution.events.push(Event {
                    id: spec.id.clone(),
                    thread,
                    index,
                    op,
                    value: spec.value,
                });
            }
            execution.threads.push(ids);
        }
        execution.variables = builder.variables.names;
        execution.mutexes = builder.mutexes.names;
        execution.by_id = builder
            .ids
            .into_iter()
            .map(|(id, (t, i))| (id, execution.threads[t][i]))
            .collect();
        execution.unbuffered = execution
            .variables
            .iter()
            .map(|name| unbuffered.contains(name))
            .collect();
        execution.check_unbuffered()?;
        execution.check_lock_discipline()?;
        execution.check_atomic_sections()?;
        Ok(execution)
    }

    /// An execution of operations already resolved, for a client that
    /// numbers its own events, variables and mutexes (the native engine's
    /// oracle, which asks thousands of small questions a second): thread
    /// `t`'s operations in program order, whose sources are positions in
    /// the threads laid out in order, of `variables` and `mutexes` named
    /// (the names serve messages), with the variables no store buffers
    /// (see [`Execution::with_unbuffered`]). Its events have no user
    /// names; [`Execution::name`] names them. Validated as `new` does.
    pub fn from_operations(
        threads: Vec<Vec<Op>>,
        variables: Vec<String>,
        mutexes: Vec<String>,
        unbuffered: Vec<bool>,
    ) -> Result<Execution, ExecutionError> {
        let total: usize = threads.iter().map(Vec::len).sum();
        if total > MAX_EVENTS {
            return Err(ExecutionError::TooLarge(total));
        }
        let mut execution = Execution {
            events: Vec::with_capacity(total),
            threads: Vec::with_capacity(threads.len()),
            variables,
            mutexes,
            by_id: HashMap::new(),
            unbuffered,
        };
        for (thread, operations) in threads.into_iter().enumerate() {
            let mut ids = Vec::with_capacity(operations.len());
            for (index, op) in operations.into_iter().enumerate() {
                ids.push(execution.events.len());
                execution.events.push(Event {
                    id: String::new(),
                    thread,
                    index,
                    op,
                    value: None,
                });
            }
            execution.threads.push(ids);
        }
        execution
            .unbuffered
            .resize(execution.variables.len(), false);
        execution.check_indices()?;
        execution.check_sources()?;
        execution.check_unbuffered()?;
        execution.check_lock_discipline()?;
        execution.check_atomic_sections()?;
        Ok(execution)
    }

    /// The name of `event`: its user id, or `thread.position` for an event
    /// built from operations.
    pub fn name(&self, event: EventId) -> Cow<'_, str> {
        let event = &self.events[event];
        if event.id.is_empty() {
            Cow::Owned(format!("{}.{}", event.thread, event.index))
        } else {
            Cow::Borrowed(&event.id)
        }
    }

    /// Every variable and mutex an operation names exists.
    fn check_indices(&self) -> Result<(), ExecutionError> {
        for (id, event) in self.events.iter().enumerate() {
            let (index, count) = match event.op {
                Op::Write { var } | Op::Read { var, .. } | Op::Rmw { var, .. } => {
                    (var, self.variables.len())
                }
                Op::Lock { mutex } | Op::Unlock { mutex } | Op::LockBusy { mutex } => {
                    (mutex, self.mutexes.len())
                }
                _ => continue,
            };
            if index >= count {
                return Err(ExecutionError::UnknownIndex {
                    event: self.name(id).into_owned(),
                    index,
                });
            }
        }
        Ok(())
    }

    /// Every source is another event that writes the variable read, as the
    /// resolution of names checks for [`Execution::new`].
    fn check_sources(&self) -> Result<(), ExecutionError> {
        for (id, event) in self.events.iter().enumerate() {
            let (Some(var), Some(Source::Event(source))) = (event.op.var(), event.op.rf()) else {
                continue;
            };
            let name = || self.name(id).into_owned();
            let Some(target) = self.events.get(source) else {
                return Err(ExecutionError::UnknownSource {
                    event: name(),
                    rf: source,
                });
            };
            if source == id {
                return Err(ExecutionError::RfSelf { event: name() });
            }
            if !target.op.is_writer() {
                return Err(ExecutionError::RfNotAWrite {
                    event: name(),
                    rf: self.name(source).into_owned(),
                    op: target.op.name(),
                });
            }
            if target.op.var() != Some(var) {
                return Err(ExecutionError::RfOtherVariable {
                    event: name(),
                    rf: self.name(source).into_owned(),
                    var: self.variables[var].clone(),
                    other: target
                        .op
                        .var()
                        .map_or_else(String::new, |v| self.variables[v].clone()),
                });
            }
        }
        Ok(())
    }

    /// Whether no store buffers `var` ([`Execution::with_unbuffered`]).
    pub fn is_unbuffered(&self, var: VarId) -> bool {
        self.unbuffered.get(var).copied().unwrap_or(false)
    }

    /// A variable that no store buffers has no buffered write.
    fn check_unbuffered(&self) -> Result<(), ExecutionError> {
        for (event_id, event) in self.events.iter().enumerate() {
            if let Op::Write { var } = event.op
                && self.is_unbuffered(var)
            {
                return Err(ExecutionError::WriteUnbuffered {
                    event: self.name(event_id).into_owned(),
                    var: self.variables[var].clone(),
                });
            }
        }
        Ok(())
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn event(&self, event: EventId) -> &Event {
        &self.events[event]
    }

    /// The events of each thread, in program order.
    pub fn threads(&self) -> &[Vec<EventId>] {
        &self.threads
    }

    pub fn variables(&self) -> &[String] {
        &self.variables
    }

    pub fn mutexes(&self) -> &[String] {
        &self.mutexes
    }

    /// The event with a given user id.
    pub fn find(&self, id: &str) -> Option<EventId> {
        self.by_id.get(id).copied()
    }

    /// Whether a store-store fence lies between two events of one thread
    /// (`earlier` before `later` in program order).
    pub fn store_fence_between(&self, earlier: EventId, later: EventId) -> bool {
        let (earlier, later) = (&self.events[earlier], &self.events[later]);
        earlier.thread == later.thread
            && self.threads[earlier.thread]
                .get(earlier.index + 1..later.index)
                .is_some_and(|between| between.iter().any(|&e| self.events[e].op == Op::StoreFence))
    }

    /// The name of a reads-from source (`init` or an event id).
    pub fn source_name(&self, source: Source) -> Cow<'_, str> {
        match source {
            Source::Init => Cow::Borrowed("init"),
            Source::Event(event) => self.name(event),
        }
    }

    /// Atomic sections do not nest. A section may stay open at the end of
    /// its thread (the thread ends inside it, or a trace is cut at a
    /// violation): it ends with the thread's last event. An end that closes
    /// nothing (a program's unmatched `__VERIFIER_atomic_end()`) does
    /// nothing.
    fn check_atomic_sections(&self) -> Result<(), ExecutionError> {
        for thread in &self.threads {
            let mut open = false;
            for &event in thread {
                match self.events[event].op {
                    Op::AtomicBegin if open => {
                        return Err(ExecutionError::NestedAtomic {
                            event: self.name(event).into_owned(),
                        });
                    }
                    Op::AtomicBegin => open = true,
                    Op::AtomicEnd => open = false,
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Unlock by a thread that does not hold the mutex (in its own program
    /// order) is malformed; locking a held mutex only makes it unrealisable.
    fn check_lock_discipline(&self) -> Result<(), ExecutionError> {
        for thread in &self.threads {
            let mut held = vec![false; self.mutexes.len()];
            for &event in thread {
                match self.events[event].op {
                    Op::Lock { mutex } => held[mutex] = true,
                    Op::Unlock { mutex } => {
                        if !held[mutex] {
                            return Err(ExecutionError::UnlockNotHeld {
                                event: self.name(event).into_owned(),
                                mutex: self.mutexes[mutex].clone(),
                            });
                        }
                        held[mutex] = false;
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Interns names to dense indices.
#[derive(Default)]
struct Interner {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl Interner {
    fn intern(&mut self, name: &str) -> usize {
        if let Some(&index) = self.index.get(name) {
            return index;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

#[derive(Default)]
struct Resolver {
    ids: HashMap<String, (usize, usize)>,
    variables: Interner,
    mutexes: Interner,
}

impl Resolver {
    fn index_ids(&mut self, threads: &[Vec<EventSpec>]) -> Result<(), ExecutionError> {
        for (t, specs) in threads.iter().enumerate() {
            for (i, spec) in specs.iter().enumerate() {
                if spec.id.is_empty() {
                    return Err(ExecutionError::EmptyId);
                }
                if spec.id == "init" {
                    return Err(ExecutionError::ReservedId);
                }
                if self.ids.insert(spec.id.clone(), (t, i)).is_some() {
                    return Err(ExecutionError::DuplicateId(spec.id.clone()));
                }
            }
        }
        Ok(())
    }

    fn resolve(
        &mut self,
        spec: &EventSpec,
        threads: &[Vec<EventSpec>],
    ) -> Result<Op, ExecutionError> {
        Ok(match &spec.op {
            OpSpec::Write { var } => Op::Write {
                var: self.variables.intern(var),
            },
            OpSpec::Read { var, rf } => {
                let rf = self.resolve_rf(spec, var, rf, threads)?;
                Op::Read {
                    var: self.variables.intern(var),
                    rf,
                }
            }
            OpSpec::Fence => Op::Fence,
            OpSpec::StoreFence => Op::StoreFence,
            OpSpec::AtomicBegin => Op::AtomicBegin,
            OpSpec::AtomicEnd => Op::AtomicEnd,
            OpSpec::Rmw { var, rf } => {
                let rf = self.resolve_rf(spec, var, rf, threads)?;
                Op::Rmw {
                    var: self.variables.intern(var),
                    rf,
                }
            }
            OpSpec::Lock { mutex } => Op::Lock {
                mutex: self.mutexes.intern(mutex),
            },
            OpSpec::Unlock { mutex } => Op::Unlock {
                mutex: self.mutexes.intern(mutex),
            },
            OpSpec::LockBusy { mutex } => Op::LockBusy {
                mutex: self.mutexes.intern(mutex),
            },
        })
    }

    /// Resolves `rf` to an event index, computed as the position the event
    /// will have once all threads are laid out in order.
    fn resolve_rf(
        &mut self,
        spec: &EventSpec,
        var: &str,
        rf: &RfSpec,
        threads: &[Vec<EventSpec>],
    ) -> Result<Source, ExecutionError> {
        let name = match rf {
            RfSpec::Init => return Ok(Source::Init),
            RfSpec::Event(name) => name,
        };
        if *name == spec.id {
            return Err(ExecutionError::RfSelf {
                event: spec.id.clone(),
            });
        }
        let Some(&(t, i)) = self.ids.get(name) else {
            return Err(ExecutionError::UnknownRf {
                event: spec.id.clone(),
                rf: name.clone(),
            });
        };
        let target = &threads[t][i];
        let target_var = match &target.op {
            OpSpec::Write { var } | OpSpec::Rmw { var, .. } => var,
            other => {
                return Err(ExecutionError::RfNotAWrite {
                    event: spec.id.clone(),
                    rf: name.clone(),
                    op: other.name(),
                });
            }
        };
        if target_var != var {
            return Err(ExecutionError::RfOtherVariable {
                event: spec.id.clone(),
                rf: name.clone(),
                var: var.to_string(),
                other: target_var.clone(),
            });
        }
        let offset: usize = threads[..t].iter().map(Vec::len).sum();
        Ok(Source::Event(offset + i))
    }
}
