//! RF-SMC's `Witness(X, RF)` oracle (seed 000, Algorithm 3, line 18): the
//! events of a schedule with their reads-from map become an execution of
//! `consistency`, which VerifySC/VerifyTSO/VerifyPSO (with closure)
//! decide; a witness comes back as machine steps.
//!
//! Encoding (Remark 1 and sec. 4.4): a read is a read; a store is a
//! two-phase write; an RMW, a lock and an unlock are atomic RMWs on their
//! location (a lock reads the mutex free, an unlock reads the holder's
//! lock); a failed CAS or try-lock, a lock attempt that finds the mutex
//! held, and a move an assumption cut off after an atomic read are a fence
//! and a read. A creation is an RMW on a variable of the child that the
//! child's first event reads; a thread's end is an RMW on a variable of
//! its own (it drains the buffers) that a join reads. The section lock of
//! RF-SMC's mode (`crate::smc::semantics::sections`) is a location no
//! store buffers: its lock and unlock are RMWs that drain nothing, and a
//! lock attempt that finds it held, or cut off after it, a read alone.
//! An order asked of the oracle (event `a` before event `b`, for a use
//! after free) is an RMW of a variable of its own that no store buffers
//! after `a`, which `b` reads first.

use super::event::{Access, Event, Key, Source};
use super::run::WStep;
use crate::consistency::{self, Execution, Op, Operation, Phase};
use crate::options::MemoryModel;
use rustc_hash::FxHashMap as HashMap;

/// The role of a specification in its move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The step at which the machine runs the move.
    Main,
    Aux,
}

/// A variable of the encoding. Its name (for messages only) is
/// [`Variable::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Variable {
    /// A location of the machine's shared memory.
    Location(u32),
    /// The variable a creation writes and its child's first event reads.
    Spawn(usize),
    /// The variable a thread's end writes and a join reads.
    End(usize),
    /// A variable no event writes, read by a move that needs no order.
    Unwritten(Key),
    /// The variable of an order asked for, numbered.
    Order(usize),
}

impl Variable {
    fn name(self) -> String {
        match self {
            Variable::Location(location) => format!("x{location}"),
            Variable::Spawn(child) => format!("s{child}"),
            Variable::End(thread) => format!("e{thread}"),
            Variable::Unwritten(key) => format!("n{}.{}", key.thread, key.index),
            Variable::Order(number) => format!("o{number}"),
        }
    }
}

/// An operation of the encoding that other operations may read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Target {
    /// The main operation of an event (its write, RMW or creation).
    Main(Key),
    /// A thread's end.
    End(usize),
    /// The RMW that gives the order numbered so.
    Order(usize),
}

/// Where an operation of the encoding reads from.
#[derive(Debug, Clone, Copy)]
enum Reference {
    Init,
    Event(Target),
}

/// An operation before its variables and sources are numbered (the
/// encoding has no mutex: locks are RMWs).
type Encoded = Operation<Variable, Reference, ()>;

/// What an operation of the encoding stands for: its event, its role and
/// the event's access.
type Stands = (Key, Role, Access);

/// One operation of a thread, with what it stands for.
struct Specification {
    op: Encoded,
    /// The name other operations read it by, if any.
    target: Option<Target>,
    /// What it stands for in a witness's steps.
    role: Option<Stands>,
}

/// The reads-from reference of a reader with `access` and `source`.
fn rf(access: Access, source: Option<Source>) -> Reference {
    match (access, source) {
        (Access::Join { child }, _) => Reference::Event(Target::End(child)),
        (_, Some(Source::Event(key))) => Reference::Event(Target::Main(key)),
        _ => Reference::Init,
    }
}

/// Builds the specifications of one event.
struct Encoder {
    /// The section lock's location, if the machine has one.
    section_lock: Option<u32>,
    /// Orders asked for: each first event before the second.
    orders: Vec<(Key, Key)>,
    threads: Vec<Vec<Specification>>,
    creators: HashMap<usize, Key>,
}

impl Encoder {
    fn push(&mut self, event: &Event, target: Option<Target>, op: Encoded, role: Option<Role>) {
        self.threads[event.key.thread].push(Specification {
            op,
            target,
            role: role.map(|role| (event.key, role, event.access)),
        });
    }

    fn event(&mut self, event: &Event) -> Result<(), String> {
        let key = event.key;
        let main = Some(Target::Main(key));
        let mut has_main = false;
        if key.index == 0 && key.thread != 0 {
            let creator = self
                .creators
                .get(&key.thread)
                .ok_or_else(|| format!("thread {} runs before its creation", key.thread))?;
            let op = Encoded::Read {
                var: Variable::Spawn(key.thread),
                rf: Reference::Event(Target::Main(*creator)),
            };
            let internal = event.access == Access::Internal;
            let role = if internal { Role::Main } else { Role::Aux };
            has_main |= internal;
            self.push(event, None, op, Some(role));
        }
        for number in 0..self.orders.len() {
            if self.orders[number].1 == key {
                let op = Encoded::Read {
                    var: Variable::Order(number),
                    rf: Reference::Event(Target::Order(number)),
                };
                self.push(event, None, op, None);
            }
        }
        let section_lock = self.section_lock;
        let fenced_read = |location: u32| {
            (
                (Some(location) != section_lock).then_some(Encoded::Fence),
                Encoded::Read {
                    var: Variable::Location(location),
                    rf: rf(event.access, event.source),
                },
            )
        };
        let (before, operation) = match (event.access, event.blocked) {
            // a thread's last move, which ends it (its end is the main
            // step), or its first, whose creation's read is the main step;
            // else a heap operation in RF-SMC's mode or a move of choices
            // alone, which need no order the oracle keeps: a read of a
            // variable no event writes
            (Access::Internal, _) if event.finishes || has_main => (None, None),
            (Access::Internal, _) => (
                None,
                Some(Encoded::Read {
                    var: Variable::Unwritten(key),
                    rf: Reference::Init,
                }),
            ),
            (Access::Read { location }, _) => (
                None,
                Some(Encoded::Read {
                    var: Variable::Location(location),
                    rf: rf(event.access, event.source),
                }),
            ),
            (Access::Join { child }, _) => (
                None,
                Some(Encoded::Read {
                    var: Variable::End(child),
                    rf: rf(event.access, event.source),
                }),
            ),
            (
                Access::Rmw { location, .. }
                | Access::Lock { location }
                | Access::TryLock { location, .. }
                | Access::BlockedLock { location },
                true,
            )
            | (
                Access::Rmw {
                    location,
                    writes: false,
                }
                | Access::TryLock {
                    location,
                    taken: false,
                }
                | Access::BlockedLock { location },
                false,
            ) => {
                let (fence, read) = fenced_read(location);
                (fence, Some(read))
            }
            (
                Access::Rmw { location, .. }
                | Access::Lock { location }
                | Access::Unlock { location }
                | Access::TryLock { location, .. },
                _,
            ) => (
                None,
                Some(Encoded::Rmw {
                    var: Variable::Location(location),
                    rf: rf(event.access, event.source),
                }),
            ),
            (Access::Write { location }, _) => (
                None,
                Some(Encoded::Write {
                    var: Variable::Location(location),
                }),
            ),
            (Access::Fence, _) => (None, Some(Encoded::Fence)),
            (Access::StoreFence, _) => (None, Some(Encoded::StoreFence)),
            (Access::Create { child }, _) => (
                None,
                Some(Encoded::Rmw {
                    var: Variable::Spawn(child),
                    rf: Reference::Init,
                }),
            ),
        };
        if let Some(op) = before {
            self.push(event, None, op, Some(Role::Aux));
        }
        if let Some(op) = operation {
            self.push(event, main, op, Some(Role::Main));
            has_main = true;
        }
        if event.finishes {
            let op = Encoded::Rmw {
                var: Variable::End(key.thread),
                rf: Reference::Init,
            };
            let role = if has_main { Role::Aux } else { Role::Main };
            has_main = true;
            self.push(event, Some(Target::End(key.thread)), op, Some(role));
        }
        if !has_main {
            self.push(event, main, Encoded::Fence, Some(Role::Main));
        }
        for number in 0..self.orders.len() {
            if self.orders[number].0 == key {
                let op = Encoded::Rmw {
                    var: Variable::Order(number),
                    rf: Reference::Init,
                };
                self.push(event, Some(Target::Order(number)), op, None);
            }
        }
        Ok(())
    }

    /// The execution of the encoded threads, with each event's key and
    /// role by its position.
    fn execution(self) -> Result<(Execution, Vec<Option<Stands>>), String> {
        let mut positions: HashMap<Target, usize> = HashMap::default();
        let mut roles = Vec::new();
        for specification in self.threads.iter().flatten() {
            if let Some(target) = specification.target
                && positions.insert(target, roles.len()).is_some()
            {
                return Err(format!("{target:?} is encoded twice"));
            }
            roles.push(specification.role);
        }
        let mut variables: HashMap<Variable, usize> = HashMap::default();
        let mut names: Vec<Variable> = Vec::new();
        let mut number = |variable: Variable| {
            *variables.entry(variable).or_insert_with(|| {
                names.push(variable);
                names.len() - 1
            })
        };
        let source = |reference: Reference| match reference {
            Reference::Init => Ok(consistency::Source::Init),
            Reference::Event(target) => positions
                .get(&target)
                .map(|&position| consistency::Source::Event(position))
                .ok_or_else(|| format!("a read from {target:?}, which is not encoded")),
        };
        let mut threads = Vec::with_capacity(self.threads.len());
        for specifications in self.threads {
            let mut ops = Vec::with_capacity(specifications.len());
            for specification in specifications {
                ops.push(match specification.op {
                    Encoded::Write { var } => Op::Write { var: number(var) },
                    Encoded::Read { var, rf } => Op::Read {
                        var: number(var),
                        rf: source(rf)?,
                    },
                    Encoded::Rmw { var, rf } => Op::Rmw {
                        var: number(var),
                        rf: source(rf)?,
                    },
                    Encoded::Fence => Op::Fence,
                    Encoded::StoreFence => Op::StoreFence,
                    other => return Err(format!("the oracle encodes no {}", other.name())),
                });
            }
            threads.push(ops);
        }
        let section_lock = self.section_lock;
        let unbuffered = names
            .iter()
            .map(|variable| match *variable {
                Variable::Location(location) => Some(location) == section_lock,
                Variable::Order(_) => true,
                _ => false,
            })
            .collect();
        let names = names.into_iter().map(Variable::name).collect();
        let execution = Execution::from_operations(threads, names, Vec::new(), unbuffered)
            .map_err(|error| error.to_string())?;
        Ok((execution, roles))
    }
}

/// The outcome of the oracle.
pub enum Verdict {
    Realisable(Vec<WStep>),
    Unrealisable,
}

/// Decides whether the events (each read with its source) are realisable
/// under `model`, and returns a witness as machine steps.
pub fn witness(
    events: &[Event],
    threads: usize,
    model: MemoryModel,
    section_lock: Option<u32>,
) -> Result<Verdict, String> {
    witness_ordered(events, threads, model, section_lock, &[])
}

/// [`witness`] of an execution in which each first event of `orders`
/// runs before the second.
pub fn witness_ordered(
    events: &[Event],
    threads: usize,
    model: MemoryModel,
    section_lock: Option<u32>,
    orders: &[(Key, Key)],
) -> Result<Verdict, String> {
    let mut ordered: Vec<&Event> = events.iter().collect();
    ordered.sort_by_key(|event| event.key);
    let model = if model == MemoryModel::Pso && stores_in_program_order(&ordered, section_lock) {
        MemoryModel::Tso
    } else {
        model
    };
    if two_atomic_writes_read_one_write(events) {
        return Ok(Verdict::Unrealisable);
    }
    if reads_behind_a_happened_write(events, model, section_lock) {
        return Ok(Verdict::Unrealisable);
    }
    let creators = events
        .iter()
        .filter_map(|event| match event.access {
            Access::Create { child } => Some((child, event.key)),
            _ => None,
        })
        .collect();
    let mut encoder = Encoder {
        section_lock,
        orders: orders.to_vec(),
        threads: (0..threads).map(|_| Vec::new()).collect(),
        creators,
    };
    for event in ordered {
        encoder.event(event)?;
    }
    let (execution, roles) = encoder.execution()?;
    let Ok(witness) = consistency::verify_quickly(&execution, model) else {
        return Ok(Verdict::Unrealisable);
    };
    let mut steps = Vec::new();
    for step in witness.steps {
        let Some(&Some((key, Role::Main, access))) = roles.get(step.event) else {
            continue;
        };
        match (step.phase, access) {
            (Phase::Memory, _) if model == MemoryModel::Sc => {}
            (Phase::Memory, _) => steps.push(WStep::Flush(key)),
            (_, Access::BlockedLock { .. }) => steps.push(WStep::Blocked(key)),
            _ => steps.push(WStep::Run(key)),
        }
    }
    Ok(Verdict::Realisable(steps))
}

/// The location an event writes to memory in the encoding above, if any:
/// a store writes even when its move was cut off.
fn encoded_write(event: &Event) -> Option<u32> {
    match event.access {
        Access::Write { location } => Some(location),
        _ if event.blocked => None,
        access => access.write_location(),
    }
}

/// The location an event reads in the encoding above (an unlock reads the
/// holder's lock), and its source (none: the initial value).
fn encoded_read(event: &Event) -> Option<(u32, Option<Key>)> {
    let location = event.access.encoded_read_location()?;
    let source = match event.source {
        Some(Source::Event(key)) => Some(key),
        _ => None,
    };
    Some((location, source))
}

/// The fast refutation of the oracle, for the schedules RF-SMC proposes
/// most (a read moved to the initial value, or to a write its own thread
/// overwrote or already read past): coherence under SC, TSO and PSO.
/// Happens-before here is program order with creations and joins, whose
/// events drain their threads' buffers (a creation and a thread's end are
/// RMWs of the encoding), and reads-from where reading a write shows
/// its thread's past ([`publishes`]). An event that happens before a read
/// *observes* a write of the read's location: the write it is, or the
/// write it read. When the read runs, that write is in memory or in the
/// reader's own buffer, or a later write of the location is (the same
/// thread's stores to one location reach memory in order, and another
/// thread's were drained), and so is every write that happens before it.
/// So a read cannot read the initial value, nor a write that happens
/// before an observed write. `true` only when the execution is not
/// realisable; `false` proves nothing.
fn reads_behind_a_happened_write(
    events: &[Event],
    model: MemoryModel,
    section_lock: Option<u32>,
) -> bool {
    let clocks = match CausalOrder::of(
        events,
        |writer| publishes(writer, model, section_lock),
        |event| drains(event, model, section_lock),
    ) {
        Clocks::Ordered(clocks) => clocks,
        Clocks::Cyclic => return true,
        Clocks::Unknown => return false,
    };
    // (location, observer, write observed), by location
    let mut observed: Vec<(u32, Key, Key)> = Vec::with_capacity(events.len() * 2);
    for event in events {
        if let Some(location) = encoded_write(event) {
            observed.push((location, event.key, event.key));
        }
        if let Some((location, Some(source))) = encoded_read(event) {
            observed.push((location, event.key, source));
        }
    }
    observed.sort_unstable_by_key(|&(location, ..)| location);
    events.iter().any(|reader| {
        let Some((location, source)) = encoded_read(reader) else {
            return false;
        };
        let first = observed.partition_point(|&(at, ..)| at < location);
        observed[first..]
            .iter()
            .take_while(|&&(at, ..)| at == location)
            .any(|&(_, observer, write)| {
                observer != reader.key
                    && Some(write) != source
                    && clocks.before(observer, reader.key)
                    && source.is_none_or(|source| clocks.before(source, write))
            })
    })
}

/// The atomicity refutation: two read-modify-writes of one location
/// that both write cannot read the same write (or both the initial
/// value), under any model: each writes right after the write it reads.
/// `true` only when the execution is not realisable.
fn two_atomic_writes_read_one_write(events: &[Event]) -> bool {
    let mut read: Vec<(u32, Option<Key>)> = events
        .iter()
        .filter(|event| !event.blocked && event.access.is_atomic())
        .filter_map(|event| {
            let location = match event.access {
                Access::Unlock { .. } => return None,
                access => access.write_location()?,
            };
            let (_, source) = encoded_read(event)?;
            Some((location, source))
        })
        .collect();
    read.sort_unstable();
    read.windows(2).any(|pair| pair[0] == pair[1])
}

/// The coherence refutation of [`reads_behind_a_happened_write`] for
/// the plain mutations of a trace τ̃ (a read moved to another source, no
/// reversal, no displacement), made before their schedules are built:
/// such a schedule keeps τ̃'s events before the read, with their sources,
/// so what happens before the read there happens before it in τ̃, by
/// program order and creations from its thread's previous event.
pub struct TraceCoherence<'a> {
    events: &'a [Event],
    model: MemoryModel,
    section_lock: Option<u32>,
    /// The clocks of each location's refutation, made when first asked.
    clocks: HashMap<u32, Clocks>,
}

impl<'a> TraceCoherence<'a> {
    pub fn new(
        events: &'a [Event],
        model: MemoryModel,
        section_lock: Option<u32>,
    ) -> TraceCoherence<'a> {
        TraceCoherence {
            events,
            model,
            section_lock,
            clocks: HashMap::default(),
        }
    }

    /// Whether the read at position `at` cannot read `source` in the
    /// schedule of its plain mutation. `false` proves nothing.
    pub fn refutes(&mut self, at: usize, source: Source) -> bool {
        let events = self.events;
        let reader = &events[at];
        let (Some((location, _)), Some(index)) =
            (encoded_read(reader), reader.key.index.checked_sub(1))
        else {
            return false;
        };
        let Clocks::Ordered(clocks) = self.clocks_of(location) else {
            return false;
        };
        let previous = Key {
            thread: reader.key.thread,
            index,
        };
        let source = match source {
            Source::Event(key) => Some(key),
            Source::Init => None,
        };
        let overwrites = |write: Key| {
            Some(write) != source && source.is_none_or(|source| clocks.before(source, write))
        };
        events[..at].iter().any(|observer| {
            clocks.before(observer.key, previous)
                && (encoded_write(observer) == Some(location) && overwrites(observer.key)
                    || matches!(encoded_read(observer),
                        Some((read, Some(write))) if read == location && overwrites(write)))
        })
    }

    /// The clocks for a read of `location`: with the reads-from of every
    /// write that [`publishes`], and of every write of `location` (a read
    /// of a write of the location shows every write of it that the
    /// writer's thread observed before: a thread's stores to one location
    /// reach memory in order).
    fn clocks_of(&mut self, location: u32) -> &Clocks {
        let (events, model, section_lock) = (self.events, self.model, self.section_lock);
        self.clocks.entry(location).or_insert_with(|| {
            CausalOrder::of(
                events,
                |writer| {
                    publishes(writer, model, section_lock)
                        || encoded_write(writer) == Some(location)
                },
                |event| drains(event, model, section_lock),
            )
        })
    }
}

/// Whether a read of `writer`'s write from another thread happens after
/// all of the writer's thread's past: when it reads, every store before
/// the write is in memory. Under SC always; under TSO for a store too
/// (buffers drain in order); under PSO only for the encoding's RMWs
/// (an RMW, a lock, an unlock, a taken try-lock), which drain every
/// buffer. The section lock's RMWs drain nothing.
fn publishes(writer: &Event, model: MemoryModel, section_lock: Option<u32>) -> bool {
    let Some(location) = encoded_write(writer) else {
        return false;
    };
    match model {
        MemoryModel::Sc => true,
        _ if Some(location) == section_lock => false,
        MemoryModel::Tso => true,
        MemoryModel::Pso => !matches!(writer.access, Access::Write { .. }),
    }
}

/// Whether an event orders every store before it in its thread before
/// every store after it (PSO is the model that needs it; under SC and TSO
/// every write [`publishes`]): a fence, and an event the encoding makes
/// an RMW or a fence (an RMW, a lock, an unlock, a try-lock, a creation;
/// those of the section lock drain nothing), and under PSO a store-store
/// fence. When another thread reads a later store of the thread from
/// memory, every store before the event is in memory (or a later store
/// of its location is), and so is every store an earlier read of the
/// thread read from its own buffer.
fn drains(event: &Event, model: MemoryModel, section_lock: Option<u32>) -> bool {
    match event.access {
        Access::Fence | Access::Create { .. } => true,
        Access::StoreFence => model == MemoryModel::Pso,
        Access::Rmw { location, .. }
        | Access::Lock { location }
        | Access::BlockedLock { location }
        | Access::Unlock { location }
        | Access::TryLock { location, .. } => Some(location) != section_lock,
        _ => false,
    }
}

/// Whether each thread's stores reach memory in program order under
/// PSO, or in an order no other thread can see (`ordered`: the events by
/// key, each thread's in program order): between two stores of a
/// thread to different locations, an event [`drains`] the thread's
/// buffers, or the stores are the main thread's before it creates the
/// first thread (its creation drains them before another thread runs).
/// Then PSO allows exactly the executions of these events that TSO
/// allows, and the oracle decides them under TSO (whose search needs no
/// closure; PSO's witness steps are the same moves and flushes).
fn stores_in_program_order(ordered: &[&Event], section_lock: Option<u32>) -> bool {
    // the thread of the stores since its last drain, and their location
    let mut buffered: Option<(usize, u32)> = None;
    let mut alone = true;
    ordered.iter().all(|event| {
        let thread = event.key.thread;
        alone &= thread == 0 && !matches!(event.access, Access::Create { .. });
        if buffered.is_some_and(|(holder, _)| holder != thread) {
            buffered = None;
        }
        if drains(event, MemoryModel::Pso, section_lock) {
            buffered = None;
        } else if let Access::Write { location } = event.access {
            if !alone && buffered.is_some_and(|(_, pending)| pending != location) {
                return false;
            }
            buffered = Some((thread, location));
        }
        true
    })
}

/// What [`CausalOrder::of`] finds.
enum Clocks {
    Ordered(CausalOrder),
    /// Program order, creations, joins and reads-from form a cycle: no
    /// execution has these events, since an event runs after its thread's
    /// earlier events and its creation, a join after the joined thread's
    /// end, and a read after the write it reads is issued (store buffers
    /// hold issued writes only).
    Cyclic,
    /// The events are not each thread's events from its first on, or a
    /// creation or joined end is missing: nothing is known.
    Unknown,
}

/// Vector clocks of program order, creations, joins and the reads-from
/// edges a caller keeps, over a schedule's events in any order
/// (`rf::order::HappensBefore` notes a run's events as they run, with
/// every reads-from, which under PSO orders no earlier store of the
/// writer's thread, so the coherence refutation keeps only
/// [`publishes`]'s): the clock of an event says, for each thread `t`, how
/// many events of `t` happen before or at it.
struct CausalOrder {
    threads: usize,
    /// Each thread's events among the schedule's.
    counts: Vec<usize>,
    /// Where each thread's first event's clock starts in `clocks`.
    starts: Vec<usize>,
    /// The events' clocks, `threads` counts each, thread by thread in
    /// program order.
    clocks: Vec<usize>,
}

impl CausalOrder {
    /// The clocks, or `None` when the events are not each thread's
    /// events from its first on (then nothing is refuted).
    /// A read of a write that does not [`publishes`] still shows the
    /// past of the last event before the write that `drains`.
    fn of(
        events: &[Event],
        publishes: impl Fn(&Event) -> bool,
        drains: impl Fn(&Event) -> bool,
    ) -> Clocks {
        CausalOrder::computed(events, publishes, drains).unwrap_or(Clocks::Unknown)
    }

    /// [`CausalOrder::of`], `None` for [`Clocks::Unknown`].
    fn computed(
        events: &[Event],
        publishes: impl Fn(&Event) -> bool,
        drains: impl Fn(&Event) -> bool,
    ) -> Option<Clocks> {
        let threads = events.iter().map(|event| event.key.thread + 1).max()?;
        let mut counts = vec![0; threads];
        let mut creators: Vec<Option<Key>> = vec![None; threads];
        let mut ends: Vec<Option<Key>> = vec![None; threads];
        for event in events {
            counts[event.key.thread] += 1;
            if let Access::Create { child } = event.access
                && child < threads
            {
                creators[child] = Some(event.key);
            }
            if event.finishes {
                ends[event.key.thread] = Some(event.key);
            }
        }
        let starts: Vec<usize> = counts
            .iter()
            .scan(0, |next, &count| {
                let start = *next;
                *next += count;
                Some(start)
            })
            .collect();
        // each thread's events by index: every index below its count
        // exactly once
        let total = events.len();
        let mut by_thread: Vec<Option<&Event>> = vec![None; total];
        for event in events {
            let index = event.key.index;
            let thread = event.key.thread;
            if index >= counts[thread] || by_thread[starts[thread] + index].is_some() {
                return None;
            }
            by_thread[starts[thread] + index] = Some(event);
        }
        // for each event, the index of the last event before it in its
        // thread that drains the thread's buffers
        let mut drained_before: Vec<Option<usize>> = vec![None; total];
        for thread in 0..threads {
            let mut last = None;
            for index in 0..counts[thread] {
                let at = starts[thread] + index;
                drained_before[at] = last;
                if by_thread[at].is_some_and(&drains) {
                    last = Some(index);
                }
            }
        }
        let mut order = CausalOrder {
            threads,
            counts,
            starts,
            clocks: vec![0; total * threads],
        };
        let mut computed = vec![0; threads];
        // each round computes every event whose creator, joined end and
        // publishing write are computed; until a round computes nothing
        // (every event, or a cycle: then no clocks)
        loop {
            let mut progress = false;
            for thread in 0..threads {
                while computed[thread] < order.counts[thread] {
                    let index = computed[thread];
                    let event = by_thread[order.starts[thread] + index]?;
                    let creator = (index == 0 && thread != 0).then_some(creators[thread]);
                    let joined = match event.access {
                        Access::Join { child } => Some(ends.get(child).copied().flatten()),
                        _ => None,
                    };
                    // a write read from another thread: reading it shows
                    // its thread's past when it `publishes`, else the past
                    // of the last event before it that `drains`
                    let published = encoded_read(event)
                        .and_then(|(_, source)| source)
                        .filter(|source| {
                            source.thread != thread
                                && source.thread < threads
                                && source.index < order.counts[source.thread]
                        })
                        .and_then(|source| {
                            let at = order.starts[source.thread] + source.index;
                            if by_thread[at].is_some_and(&publishes) {
                                return Some(source);
                            }
                            drained_before[at].map(|index| Key {
                                thread: source.thread,
                                index,
                            })
                        })
                        .map(Some);
                    let waits = [creator, joined, published];
                    // a creator or joined end the schedule lacks: no clocks
                    if waits.contains(&Some(None)) {
                        return None;
                    }
                    let waits = waits.into_iter().flatten().flatten();
                    if waits
                        .clone()
                        .any(|wait| wait.index >= computed[wait.thread])
                    {
                        break;
                    }
                    order.compute(thread, index, waits);
                    computed[thread] += 1;
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
        // a round that computes nothing leaves only events that wait on
        // each other
        Some(if computed == order.counts {
            Clocks::Ordered(order)
        } else {
            Clocks::Cyclic
        })
    }

    /// Where the clock of the event `index` of `thread` starts.
    fn at(&self, thread: usize, index: usize) -> usize {
        (self.starts[thread] + index) * self.threads
    }

    /// Sets the clock of the event `index` of `thread`: its previous
    /// event's, joined with the clocks of `waits` (computed already).
    fn compute(&mut self, thread: usize, index: usize, waits: impl Iterator<Item = Key>) {
        let here = self.at(thread, index);
        if index > 0 {
            let previous = self.at(thread, index - 1);
            self.clocks
                .copy_within(previous..previous + self.threads, here);
        }
        for wait in waits {
            let theirs = self.at(wait.thread, wait.index);
            for t in 0..self.threads {
                self.clocks[here + t] = self.clocks[here + t].max(self.clocks[theirs + t]);
            }
        }
        self.clocks[here + thread] = index + 1;
    }

    /// Whether `earlier` happens before `later` (or is it); false for an
    /// event not among the schedule's.
    fn before(&self, earlier: Key, later: Key) -> bool {
        let known = |key: Key| key.thread < self.threads && key.index < self.counts[key.thread];
        known(later)
            && earlier.thread < self.threads
            && self.clocks[self.at(later.thread, later.index) + earlier.thread] > earlier.index
    }
}
