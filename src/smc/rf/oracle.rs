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
use crate::consistency::{self, EventSpec, Execution, OpSpec, Phase, RfSpec};
use crate::options::MemoryModel;
use std::collections::HashMap;

/// The role of a specification in its move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The step at which the machine runs the move.
    Main,
    Aux,
}

fn variable(location: u32) -> String {
    format!("x{location}")
}

fn main_id(key: Key) -> String {
    format!("m{}.{}", key.thread, key.index)
}

fn end_id(thread: usize) -> String {
    format!("e{thread}")
}

/// The reads-from reference of a reader with `access` and `source`.
fn rf(access: Access, source: Option<Source>) -> RfSpec {
    match (access, source) {
        (Access::Join { child }, _) => RfSpec::Event(end_id(child)),
        (_, Some(Source::Event(key))) => RfSpec::Event(main_id(key)),
        _ => RfSpec::Init,
    }
}

/// Builds the specifications of one event.
struct Encoder {
    /// The section lock's location, if the machine has one.
    section_lock: Option<u32>,
    /// Orders asked for: each first event before the second.
    orders: Vec<(Key, Key)>,
    threads: Vec<Vec<EventSpec>>,
    roles: Vec<(String, Key, Role)>,
    creators: HashMap<usize, Key>,
}

impl Encoder {
    fn push(&mut self, key: Key, id: String, op: OpSpec, role: Role) {
        self.roles.push((id.clone(), key, role));
        self.threads[key.thread].push(EventSpec::new(id, op));
    }

    fn event(&mut self, event: &Event) -> Result<(), String> {
        let key = event.key;
        let aux = |kind: &str| format!("{kind}{}.{}", key.thread, key.index);
        let mut has_main = false;
        if key.index == 0 && key.thread != 0 {
            let creator = self
                .creators
                .get(&key.thread)
                .ok_or_else(|| format!("thread {} runs before its creation", key.thread))?;
            let var = format!("s{}", key.thread);
            let op = OpSpec::Read {
                var,
                rf: RfSpec::Event(main_id(*creator)),
            };
            let internal = event.access == Access::Internal;
            let role = if internal { Role::Main } else { Role::Aux };
            has_main |= internal;
            self.push(key, aux("c"), op, role);
        }
        for (number, &(_, later)) in self.orders.iter().enumerate() {
            if later == key {
                let op = OpSpec::Read {
                    var: order_variable(number),
                    rf: RfSpec::Event(order_id(number)),
                };
                self.threads[key.thread].push(EventSpec::new(format!("q{number}"), op));
            }
        }
        let section_lock = self.section_lock;
        let fenced_read = |location: u32| {
            (
                (Some(location) != section_lock).then_some(OpSpec::Fence),
                OpSpec::Read {
                    var: variable(location),
                    rf: rf(event.access, event.source),
                },
            )
        };
        let (before, main) = match (event.access, event.blocked) {
            // a thread's last move, which ends it (its end is the main
            // step), or its first, whose creation's read is the main step;
            // else a heap operation in RF-SMC's mode or a move of choices
            // alone, which need no order the oracle keeps: a read of a
            // variable no event writes
            (Access::Internal, _) if event.finishes || has_main => (None, None),
            (Access::Internal, _) => (
                None,
                Some(OpSpec::Read {
                    var: format!("n{}.{}", key.thread, key.index),
                    rf: RfSpec::Init,
                }),
            ),
            (Access::Read { location }, _) => (
                None,
                Some(OpSpec::Read {
                    var: variable(location),
                    rf: rf(event.access, event.source),
                }),
            ),
            (Access::Join { child }, _) => (
                None,
                Some(OpSpec::Read {
                    var: format!("e{child}"),
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
                Some(OpSpec::Rmw {
                    var: variable(location),
                    rf: rf(event.access, event.source),
                }),
            ),
            (Access::Write { location }, _) => (
                None,
                Some(OpSpec::Write {
                    var: variable(location),
                }),
            ),
            (Access::Fence, _) => (None, Some(OpSpec::Fence)),
            (Access::StoreFence, _) => (None, Some(OpSpec::StoreFence)),
            (Access::Create { child }, _) => (
                None,
                Some(OpSpec::Rmw {
                    var: format!("s{child}"),
                    rf: RfSpec::Init,
                }),
            ),
        };
        if let Some(op) = before {
            self.push(key, aux("f"), op, Role::Aux);
        }
        if let Some(op) = main {
            self.push(key, main_id(key), op, Role::Main);
            has_main = true;
        }
        if event.finishes {
            let op = OpSpec::Rmw {
                var: format!("e{}", key.thread),
                rf: RfSpec::Init,
            };
            let role = if has_main { Role::Aux } else { Role::Main };
            has_main = true;
            self.push(key, end_id(key.thread), op, role);
        }
        if !has_main {
            self.push(key, main_id(key), OpSpec::Fence, Role::Main);
        }
        for (number, &(earlier, _)) in self.orders.iter().enumerate() {
            if earlier == key {
                let op = OpSpec::Rmw {
                    var: order_variable(number),
                    rf: RfSpec::Init,
                };
                self.threads[key.thread].push(EventSpec::new(order_id(number), op));
            }
        }
        Ok(())
    }
}

/// The variable of the order numbered `number`.
fn order_variable(number: usize) -> String {
    format!("o{number}")
}

/// The RMW that gives the order numbered `number`.
fn order_id(number: usize) -> String {
    format!("a{number}")
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
        threads: vec![Vec::new(); threads],
        roles: Vec::new(),
        creators,
    };
    let mut accesses: HashMap<Key, Access> = HashMap::new();
    for event in ordered {
        encoder.event(event)?;
        accesses.insert(event.key, event.access);
    }
    let unbuffered: Vec<String> = section_lock
        .map(variable)
        .into_iter()
        .chain((0..orders.len()).map(order_variable))
        .collect();
    let execution = Execution::with_unbuffered(encoder.threads, &unbuffered)
        .map_err(|error| error.to_string())?;
    let mut roles: HashMap<usize, (Key, Role)> = HashMap::new();
    for (id, key, role) in encoder.roles {
        if let Some(index) = execution.find(&id) {
            roles.insert(index, (key, role));
        }
    }
    let Ok(witness) = consistency::verify(&execution, model) else {
        return Ok(Verdict::Unrealisable);
    };
    let mut steps = Vec::new();
    for step in witness.steps {
        let Some(&(key, Role::Main)) = roles.get(&step.event) else {
            continue;
        };
        let access = accesses.get(&key).copied();
        match (step.phase, access) {
            (Phase::Memory, _) if model == MemoryModel::Sc => {}
            (Phase::Memory, _) => steps.push(WStep::Flush(key)),
            (_, Some(Access::BlockedLock { .. })) => steps.push(WStep::Blocked(key)),
            _ => steps.push(WStep::Run(key)),
        }
    }
    Ok(Verdict::Realisable(steps))
}
