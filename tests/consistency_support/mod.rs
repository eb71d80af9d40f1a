//! Test support: a brute-force operational explorer of SC/TSO/PSO (explicit
//! store buffers and flushes), an independent witness replayer, and random
//! execution generators. Written from the operational definitions only; it
//! shares nothing with the library's algorithms.

#![allow(dead_code)]

use lazysma::consistency::{
    Algorithm, EventId, EventSpec, Execution, MemoryModel, Op, OpSpec, Options, Phase, RfSpec,
    Source, Step, Witness,
};
use std::collections::HashSet;

/// Every algorithm variant the tests compare: the polynomial algorithm and
/// the naive baseline, each with and without closure.
pub const VARIANTS: [Options; 4] = [
    Options {
        algorithm: Algorithm::Verify,
        closure: true,
    },
    Options {
        algorithm: Algorithm::Verify,
        closure: false,
    },
    Options {
        algorithm: Algorithm::Naive,
        closure: true,
    },
    Options {
        algorithm: Algorithm::Naive,
        closure: false,
    },
];

/// A machine state: thread positions, buffers, memory and mutex holders.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Machine {
    pos: Vec<usize>,
    /// Per thread, buffered writes oldest first (one FIFO per thread; under
    /// PSO a write may leave when no older write of its variable remains).
    buffers: Vec<Vec<EventId>>,
    memory: Vec<Option<EventId>>,
    holder: Vec<Option<usize>>,
    /// The thread inside an atomic section, if any.
    section: Option<usize>,
}

fn source_of(source: Source) -> Option<EventId> {
    match source {
        Source::Init => None,
        Source::Event(event) => Some(event),
    }
}

fn var_of(execution: &Execution, event: EventId) -> usize {
    execution.event(event).op.var().unwrap_or(usize::MAX)
}

/// Whether `write` (at `at` in its thread's buffer) may reach memory now:
/// under PSO when no older buffered write is on its variable or before a
/// store-store fence that precedes it (unless `store_fences` is false);
/// otherwise only from the front.
fn may_leave(
    execution: &Execution,
    buffer: &[EventId],
    at: usize,
    model: MemoryModel,
    store_fences: bool,
) -> bool {
    let write = buffer[at];
    let fenced = |older: EventId| {
        let (older, write) = (execution.event(older), execution.event(write));
        store_fences
            && execution.threads()[write.thread][older.index + 1..write.index]
                .iter()
                .any(|&e| execution.event(e).op == Op::StoreFence)
    };
    match model {
        MemoryModel::Pso => !buffer[..at]
            .iter()
            .any(|&older| var_of(execution, older) == var_of(execution, write) || fenced(older)),
        _ => at == 0,
    }
}

impl Machine {
    fn new(execution: &Execution) -> Self {
        Machine {
            pos: vec![0; execution.threads().len()],
            buffers: vec![Vec::new(); execution.threads().len()],
            memory: vec![None; execution.variables().len()],
            holder: vec![None; execution.mutexes().len()],
            section: None,
        }
    }

    /// Whether `thread` may execute its next event (no other thread is
    /// inside an atomic section).
    fn may_run(&self, thread: usize) -> bool {
        self.section.is_none_or(|owner| owner == thread)
    }

    fn visible(&self, execution: &Execution, thread: usize, var: usize) -> Option<EventId> {
        match self.buffers[thread]
            .iter()
            .rev()
            .find(|&&w| var_of(execution, w) == var)
        {
            Some(&w) => Some(w),
            None => self.memory[var],
        }
    }

    /// The steps enabled in this state, each with the successor state.
    fn successors(&self, execution: &Execution, model: MemoryModel) -> Vec<(Vec<Step>, Machine)> {
        let mut out = Vec::new();
        for (thread, events) in execution.threads().iter().enumerate() {
            // Flushes.
            let buffer = &self.buffers[thread];
            for (at, &write) in buffer.iter().enumerate() {
                let var = var_of(execution, write);
                if may_leave(execution, buffer, at, model, true) {
                    let mut next = self.clone();
                    next.buffers[thread].remove(at);
                    next.memory[var] = Some(write);
                    out.push((
                        vec![Step {
                            event: write,
                            phase: Phase::Memory,
                        }],
                        next,
                    ));
                }
            }
            // The next thread event.
            let Some(&event) = events.get(self.pos[thread]) else {
                continue;
            };
            if !self.may_run(thread) {
                continue;
            }
            let empty = self.buffers[thread].is_empty();
            let mut next = self.clone();
            next.pos[thread] += 1;
            let exec = Step {
                event,
                phase: Phase::Execute,
            };
            let steps = match execution.event(event).op {
                Op::Write { var } => {
                    if model == MemoryModel::Sc {
                        next.memory[var] = Some(event);
                        vec![
                            Step {
                                event,
                                phase: Phase::Buffer,
                            },
                            Step {
                                event,
                                phase: Phase::Memory,
                            },
                        ]
                    } else {
                        next.buffers[thread].push(event);
                        vec![Step {
                            event,
                            phase: Phase::Buffer,
                        }]
                    }
                }
                Op::Read { var, rf } => {
                    if self.visible(execution, thread, var) != source_of(rf) {
                        continue;
                    }
                    vec![exec]
                }
                Op::Fence if empty => vec![exec],
                Op::StoreFence => vec![exec],
                Op::AtomicBegin => {
                    next.section = Some(thread);
                    vec![exec]
                }
                Op::AtomicEnd => {
                    next.section = None;
                    vec![exec]
                }
                Op::Rmw { var, rf } if empty && self.memory[var] == source_of(rf) => {
                    next.memory[var] = Some(event);
                    vec![exec]
                }
                Op::Lock { mutex } if empty && self.holder[mutex].is_none() => {
                    next.holder[mutex] = Some(thread);
                    vec![exec]
                }
                Op::Unlock { mutex } if empty && self.holder[mutex] == Some(thread) => {
                    next.holder[mutex] = None;
                    vec![exec]
                }
                Op::LockBusy { mutex }
                    if empty && self.holder[mutex].is_some_and(|holder| holder != thread) =>
                {
                    vec![exec]
                }
                _ => continue,
            };
            if next.section == Some(thread) && next.pos[thread] == events.len() {
                // a thread that ends inside its atomic section leaves it
                next.section = None;
            }
            out.push((steps, next));
        }
        out
    }

    fn is_final(&self, execution: &Execution) -> bool {
        self.pos
            .iter()
            .zip(execution.threads())
            .all(|(&p, t)| p == t.len())
            && self.buffers.iter().all(Vec::is_empty)
    }
}

/// Exhaustive search of the operational semantics for a trace realising the
/// execution's reads-from map.
pub fn oracle(execution: &Execution, model: MemoryModel) -> Option<Witness> {
    let mut seen = HashSet::new();
    let mut trace = Vec::new();
    if explore(
        execution,
        model,
        Machine::new(execution),
        &mut seen,
        &mut trace,
    ) {
        Some(Witness { steps: trace })
    } else {
        None
    }
}

fn explore(
    execution: &Execution,
    model: MemoryModel,
    machine: Machine,
    seen: &mut HashSet<Machine>,
    trace: &mut Vec<Step>,
) -> bool {
    if machine.is_final(execution) {
        return true;
    }
    if !seen.insert(machine.clone()) {
        return false;
    }
    for (steps, next) in machine.successors(execution, model) {
        let len = trace.len();
        trace.extend(steps);
        if explore(execution, model, next, seen, trace) {
            return true;
        }
        trace.truncate(len);
    }
    false
}

/// Replays a witness step by step; every step must be enabled in the
/// operational semantics, reads must read their `rf`, and the trace must end
/// with every event executed and every buffer empty.
pub fn replays(execution: &Execution, witness: &Witness, model: MemoryModel) -> Result<(), String> {
    let mut machine = Machine::new(execution);
    let mut i = 0;
    while i < witness.steps.len() {
        let step = witness.steps[i];
        let successors = machine.successors(execution, model);
        let found = successors
            .into_iter()
            .find(|(steps, _)| witness.steps[i..].starts_with(steps));
        match found {
            Some((steps, next)) => {
                machine = next;
                i += steps.len();
            }
            None => return Err(format!("step {} ({:?}) is not enabled", i + 1, step)),
        }
    }
    if machine.is_final(execution) {
        Ok(())
    } else {
        Err("the trace is incomplete".into())
    }
}

/// A tiny deterministic random generator (xorshift), seeded by proptest.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// The shape of a random program: per thread, a list of operation kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Write(usize),
    Read(usize),
    Fence,
    StoreFence,
    AtomicBegin,
    AtomicEnd,
    Rmw(usize),
    /// A critical section of the given length around its body.
    Lock(usize),
    Unlock(usize),
    /// A failed try-lock of the mutex.
    LockBusy(usize),
}

/// Random program shapes: `threads` threads, at most `max_events` events.
pub fn random_shapes(
    rng: &mut Rng,
    threads: usize,
    max_events: usize,
    vars: usize,
    features: bool,
) -> Vec<Vec<Shape>> {
    let mut shapes = vec![Vec::new(); threads];
    let mut total = 0;
    for thread in shapes.iter_mut() {
        let len = 1 + rng.below(max_events / threads);
        let mut held: Option<usize> = None;
        let mut in_section = false;
        for _ in 0..len {
            if total >= max_events {
                break;
            }
            let var = rng.below(vars);
            let roll = rng.below(if features { 16 } else { 10 });
            let shape = match (roll, held) {
                (0..=3, _) => Shape::Write(var),
                (4..=8, _) => Shape::Read(var),
                (9, _) => Shape::Fence,
                (10 | 11, _) => Shape::Rmw(var),
                (12, _) => Shape::StoreFence,
                (13, _) => {
                    in_section = !in_section;
                    if in_section {
                        Shape::AtomicBegin
                    } else {
                        Shape::AtomicEnd
                    }
                }
                (14, None) => Shape::LockBusy(rng.below(2)),
                (_, None) => {
                    let mutex = rng.below(2);
                    held = Some(mutex);
                    Shape::Lock(mutex)
                }
                (_, Some(mutex)) => {
                    held = None;
                    Shape::Unlock(mutex)
                }
            };
            thread.push(shape);
            total += 1;
        }
        // Litmus-like threads (stores, then loads) make weak behaviours common.
        let has_locks = thread.iter().any(|s| {
            matches!(
                s,
                Shape::Lock(_)
                    | Shape::Unlock(_)
                    | Shape::LockBusy(_)
                    | Shape::AtomicBegin
                    | Shape::AtomicEnd
            )
        });
        if !has_locks && rng.below(3) != 0 {
            thread.sort_by_key(|shape| match shape {
                Shape::Write(_) | Shape::Rmw(_) | Shape::StoreFence => 0,
                Shape::Fence => 1,
                _ => 2,
            });
        }
        if let Some(mutex) = held
            && rng.below(4) != 0
        {
            thread.push(Shape::Unlock(mutex));
            total += 1;
        }
    }
    shapes
}

fn name(thread: usize, index: usize) -> String {
    format!("e{thread}_{index}")
}

/// An execution with arbitrary reads-from choices (often unrealisable).
pub fn random_rf_execution(rng: &mut Rng, shapes: &[Vec<Shape>]) -> Execution {
    let mut writers: Vec<Vec<String>> = vec![Vec::new(); 8];
    for (t, thread) in shapes.iter().enumerate() {
        for (i, shape) in thread.iter().enumerate() {
            if let Shape::Write(var) | Shape::Rmw(var) = shape {
                writers[*var].push(name(t, i));
            }
        }
    }
    let mut pick = |var: usize, own: &str| {
        let candidates: Vec<&String> = writers[var].iter().filter(|w| *w != own).collect();
        let choice = rng.below(candidates.len() + 1);
        match candidates.get(choice) {
            Some(w) => RfSpec::Event((*w).clone()),
            None => RfSpec::Init,
        }
    };
    let threads = shapes
        .iter()
        .enumerate()
        .map(|(t, thread)| {
            thread
                .iter()
                .enumerate()
                .map(|(i, shape)| {
                    let id = name(t, i);
                    let op = match *shape {
                        Shape::Write(var) => OpSpec::Write {
                            var: format!("v{var}"),
                        },
                        Shape::Read(var) => OpSpec::Read {
                            var: format!("v{var}"),
                            rf: pick(var, &id),
                        },
                        Shape::Fence => OpSpec::Fence,
                        Shape::StoreFence => OpSpec::StoreFence,
                        Shape::AtomicBegin => OpSpec::AtomicBegin,
                        Shape::AtomicEnd => OpSpec::AtomicEnd,
                        Shape::Rmw(var) => OpSpec::Rmw {
                            var: format!("v{var}"),
                            rf: pick(var, &id),
                        },
                        Shape::Lock(m) => OpSpec::Lock {
                            mutex: format!("m{m}"),
                        },
                        Shape::Unlock(m) => OpSpec::Unlock {
                            mutex: format!("m{m}"),
                        },
                        Shape::LockBusy(m) => OpSpec::LockBusy {
                            mutex: format!("m{m}"),
                        },
                    };
                    EventSpec::new(id, op)
                })
                .collect()
        })
        .collect();
    Execution::new(threads).expect("generated executions are well formed")
}

/// An execution whose reads-from map comes from a random run of the
/// operational semantics of `model` (so it is realisable under `model`),
/// or `None` if the random run deadlocks on locks.
pub fn random_run_execution(
    rng: &mut Rng,
    shapes: &[Vec<Shape>],
    model: MemoryModel,
) -> Option<Execution> {
    run_execution(rng, shapes, model, true)
}

/// Like [`random_run_execution`], but the run ignores the store-store
/// fences (which the execution keeps): under PSO its reads-from map is
/// often one that only those fences forbid.
pub fn random_run_ignoring_store_fences(
    rng: &mut Rng,
    shapes: &[Vec<Shape>],
    model: MemoryModel,
) -> Option<Execution> {
    run_execution(rng, shapes, model, false)
}

fn run_execution(
    rng: &mut Rng,
    shapes: &[Vec<Shape>],
    model: MemoryModel,
    store_fences_order: bool,
) -> Option<Execution> {
    // Build with placeholder reads, run, then fill in what each read saw.
    let placeholder = random_rf_execution(&mut Rng::new(1), shapes);

    let flush_percent = [50, 20, 5][rng.below(3)];
    let mut current = 0;
    let mut machine = Machine::new(&placeholder);
    let mut seen: Vec<Option<Option<EventId>>> = vec![None; placeholder.events().len()];
    loop {
        if machine.is_final(&placeholder) {
            break;
        }
        // Enumerate moves ignoring read values: reads/rmws take what is visible.
        let mut moves = Vec::new();
        for (thread, events) in placeholder.threads().iter().enumerate() {
            if !machine.buffers[thread].is_empty() {
                moves.push((thread, true));
            }
            if let Some(&event) = events.get(machine.pos[thread])
                && machine.may_run(thread)
            {
                let empty = machine.buffers[thread].is_empty();
                let ok = match placeholder.event(event).op {
                    Op::Write { .. } | Op::Read { .. } | Op::StoreFence => true,
                    Op::AtomicBegin | Op::AtomicEnd => true,
                    Op::Fence | Op::Rmw { .. } => empty,
                    Op::Lock { mutex } => empty && machine.holder[mutex].is_none(),
                    Op::Unlock { .. } => empty,
                    Op::LockBusy { mutex } => {
                        empty && machine.holder[mutex].is_some_and(|holder| holder != thread)
                    }
                };
                if ok {
                    moves.push((thread, false));
                }
            }
        }
        if moves.is_empty() {
            return None;
        }
        // Delay flushes and run threads in bursts: stores stay buffered while
        // later loads of the same and other threads run, so that weak
        // (TSO/PSO-only) behaviours are common.
        let steps: Vec<(usize, bool)> =
            moves.iter().copied().filter(|&(_, flush)| !flush).collect();
        let flushes: Vec<(usize, bool)> =
            moves.iter().copied().filter(|&(_, flush)| flush).collect();
        let (thread, flush) =
            if steps.is_empty() || (!flushes.is_empty() && rng.below(100) < flush_percent) {
                flushes[rng.below(flushes.len())]
            } else if steps.contains(&(current, false)) && rng.below(4) != 0 {
                (current, false)
            } else {
                steps[rng.below(steps.len())]
            };
        current = thread;
        if flush {
            let buffer = &machine.buffers[thread];
            let options: Vec<usize> = (0..buffer.len())
                .filter(|&at| may_leave(&placeholder, buffer, at, model, store_fences_order))
                .collect();
            let at = options[rng.below(options.len())];
            let write = machine.buffers[thread].remove(at);
            machine.memory[var_of(&placeholder, write)] = Some(write);
            continue;
        }
        let event = placeholder.threads()[thread][machine.pos[thread]];
        machine.pos[thread] += 1;
        match placeholder.event(event).op {
            Op::Write { var } => {
                if model == MemoryModel::Sc {
                    machine.memory[var] = Some(event);
                } else {
                    machine.buffers[thread].push(event);
                }
            }
            Op::Read { var, .. } => seen[event] = Some(machine.visible(&placeholder, thread, var)),
            Op::Rmw { var, .. } => {
                seen[event] = Some(machine.memory[var]);
                machine.memory[var] = Some(event);
            }
            Op::Lock { mutex } => machine.holder[mutex] = Some(thread),
            Op::Unlock { mutex } => machine.holder[mutex] = None,
            Op::LockBusy { .. } => {}
            Op::AtomicBegin => machine.section = Some(thread),
            Op::AtomicEnd => machine.section = None,
            Op::Fence | Op::StoreFence => {}
        }
    }
    let threads = placeholder
        .threads()
        .iter()
        .map(|events| {
            events
                .iter()
                .map(|&event| {
                    let rf = match seen[event].flatten() {
                        None => RfSpec::Init,
                        Some(w) => RfSpec::Event(placeholder.event(w).id.clone()),
                    };
                    EventSpec::new(
                        placeholder.event(event).id.clone(),
                        op_spec(&placeholder, event, rf),
                    )
                })
                .collect()
        })
        .collect();
    Some(Execution::new(threads).expect("generated executions are well formed"))
}

/// The specification of `event` with the reads-from `rf` (for reads and RMWs).
pub fn op_spec(execution: &Execution, event: EventId, rf: RfSpec) -> OpSpec {
    let e = execution.event(event);
    let var = || execution.variables()[e.op.var().unwrap_or(0)].clone();
    match e.op {
        Op::Write { .. } => OpSpec::Write { var: var() },
        Op::Read { .. } => OpSpec::Read { var: var(), rf },
        Op::Fence => OpSpec::Fence,
        Op::StoreFence => OpSpec::StoreFence,
        Op::AtomicBegin => OpSpec::AtomicBegin,
        Op::AtomicEnd => OpSpec::AtomicEnd,
        Op::Rmw { .. } => OpSpec::Rmw { var: var(), rf },
        Op::Lock { mutex } => OpSpec::Lock {
            mutex: execution.mutexes()[mutex].clone(),
        },
        Op::Unlock { mutex } => OpSpec::Unlock {
            mutex: execution.mutexes()[mutex].clone(),
        },
        Op::LockBusy { mutex } => OpSpec::LockBusy {
            mutex: execution.mutexes()[mutex].clone(),
        },
    }
}

/// The reads-from of a read or RMW as a specification (`Init` for other
/// events).
pub fn rf_spec(execution: &Execution, event: EventId) -> RfSpec {
    match execution.event(event).op.rf() {
        Some(Source::Event(w)) => RfSpec::Event(execution.event(w).id.clone()),
        _ => RfSpec::Init,
    }
}

/// The execution with its store-store fences left out (same reads-from).
pub fn without_store_fences(execution: &Execution) -> Execution {
    let threads = execution
        .threads()
        .iter()
        .map(|events| {
            events
                .iter()
                .filter(|&&event| execution.event(event).op != Op::StoreFence)
                .map(|&event| {
                    let op = op_spec(execution, event, rf_spec(execution, event));
                    EventSpec::new(execution.event(event).id.clone(), op)
                })
                .collect()
        })
        .collect();
    Execution::new(threads).expect("an execution without its store fences is well formed")
}

/// Litmus-like program shapes: each thread stores (mostly to its own
/// variable), maybe fences, then loads (mostly other threads' variables),
/// so that SB/MP/IRIW-like weak behaviours are common.
pub fn litmus_shapes(
    rng: &mut Rng,
    threads: usize,
    max_events: usize,
    vars: usize,
    features: bool,
) -> Vec<Vec<Shape>> {
    let per_thread = (max_events / threads).max(2);
    (0..threads)
        .map(|t| {
            let own = t % vars;
            let other = |rng: &mut Rng| {
                if vars > 1 && rng.below(4) != 0 {
                    (own + 1 + rng.below(vars - 1)) % vars
                } else {
                    rng.below(vars)
                }
            };
            let mut thread = Vec::new();
            let stores = if rng.below(3) == 0 {
                0
            } else {
                1 + rng.below(per_thread.div_ceil(2))
            };
            for i in 0..stores {
                let var = if i == 0 { own } else { rng.below(vars) };
                thread.push(if features && rng.below(7) == 0 {
                    Shape::Rmw(var)
                } else {
                    Shape::Write(var)
                });
            }
            if rng.below(7) == 0 {
                thread.push(Shape::Fence);
            }
            while thread.len() < per_thread {
                thread.push(Shape::Read(other(rng)));
            }
            if features && rng.below(8) == 0 {
                let mutex = rng.below(2);
                let at = rng.below(thread.len());
                thread.insert(at, Shape::Lock(mutex));
                let end = at + 1 + rng.below(thread.len() - at);
                thread.insert(end, Shape::Unlock(mutex));
                if rng.below(2) == 0 {
                    // Another thread's failed try-lock may land in this section.
                    let at = rng.below(thread.len() + 1);
                    thread.insert(at, Shape::LockBusy(1 - mutex));
                }
            } else if features && rng.below(6) == 0 {
                let at = rng.below(thread.len());
                thread.insert(at, Shape::AtomicBegin);
                let end = at + 1 + rng.below(thread.len() - at);
                thread.insert(end, Shape::AtomicEnd);
            }
            thread
        })
        .collect()
}

/// Message-passing-like shapes: writer threads store to two different
/// variables in turn, reader threads load them in the opposite order, so
/// that store-store reorderings (PSO-only behaviours) are common.
pub fn mp_shapes(
    rng: &mut Rng,
    threads: usize,
    max_events: usize,
    vars: usize,
    features: bool,
) -> Vec<Vec<Shape>> {
    let vars = vars.max(2);
    let per_thread = (max_events / threads).max(2);
    (0..threads)
        .map(|t| {
            let mut thread = Vec::new();
            let writer = t == 0 || rng.below(2) == 0;
            let mut order: Vec<usize> = (0..vars).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            while thread.len() < per_thread {
                let var = order[thread.len() % vars];
                let shape = if writer {
                    if features && rng.below(8) == 0 {
                        Shape::Rmw(var)
                    } else {
                        Shape::Write(var)
                    }
                } else {
                    Shape::Read(order[vars - 1 - thread.len() % vars])
                };
                thread.push(shape);
                if rng.below(12) == 0 {
                    thread.push(Shape::Fence);
                } else if features && writer && rng.below(5) == 0 {
                    thread.push(Shape::StoreFence);
                }
            }
            if writer && rng.below(2) == 0 {
                thread.push(Shape::Read(rng.below(vars)));
            }
            thread
        })
        .collect()
}
