//! Partial-order reduction of the native search: when some thread's next
//! move commutes with every move any other thread or buffer can make
//! before it (a persistent set of one move), the search takes that move
//! alone. The state graph is acyclic (loops are unrolled, jumps go
//! forward, flushes empty buffers), so a persistent set needs no cycle
//! proviso, and every violation stays reachable.
//!
//! A thread's move is taken alone when it is running, its visible
//! statement is *local*, and neither it nor the private statements after
//! it touch plain globals (handles, thread arguments and results, which
//! other threads' private code shares), open or close an atomic section,
//! or allocate or free heap memory; an access that may reach the heap is
//! not local either while another thread may still allocate or free.
//! Local: a store into its buffer (TSO, PSO), a fence with its buffers
//! empty, a store-store fence, a load of a location that no other thread
//! has buffered or may store to later, and under SC a store to a location
//! no other thread may access later. The caller also requires that every
//! outcome of the move goes on (no assumption cuts it off). Flushes are
//! tried only where someone can tell when they happen
//! ([`needed_flushes`]).

use crate::ir::{Expr, Place};
use crate::options::MemoryModel;
use crate::passes::{MemoryLayout, SeqStmt};
use crate::smc::interpreter::code::{Code, Instr};
use crate::smc::semantics::machine::{Machine, State, Status};
use std::collections::BTreeSet;

/// A set of locations, `None` meaning any.
type Locations = Option<BTreeSet<u32>>;

/// What each thread may still do, by pc.
#[derive(Debug, Clone)]
pub struct Footprints {
    /// Per thread, per pc (and one past the end): the locations the code
    /// from there may store to (stores, RMWs, mutex operations).
    writes: Vec<Vec<Locations>>,
    /// The locations it may access at all.
    accesses: Vec<Vec<Locations>>,
    /// Per thread, per pc: whether the statement at pc, when visible,
    /// together with the private statements up to the next visible one,
    /// touches plain globals or an atomic section.
    shared_private: Vec<Vec<bool>>,
    /// Per thread, per pc (and one past the end): whether the code from
    /// there may allocate or free heap memory.
    allocator: Vec<Vec<bool>>,
}

/// The locations an access at `address` may touch: the constant, or the
/// object a computed address indexes; `None` when unknown.
fn locations_of(address: &Expr, memory: &MemoryLayout) -> Locations {
    match address {
        Expr::Const(location) => Some(u32::try_from(*location).ok().into_iter().collect()),
        _ => memory
            .indexed_object(address)
            .map(|(first, scalars)| (first..first.saturating_add(scalars)).collect()),
    }
}

fn union(a: &Locations, b: &Locations) -> Locations {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.union(b).copied().collect()),
        _ => None,
    }
}

/// The locations the instruction stores to and accesses.
fn instr_locations(instr: &Instr, memory: &MemoryLayout) -> (Locations, Locations) {
    let none = Some(BTreeSet::new());
    match instr {
        Instr::Do(SeqStmt::Read { address, .. }) => (none, locations_of(address, memory)),
        Instr::Do(
            SeqStmt::Write { address, .. }
            | SeqStmt::Rmw { address, .. }
            | SeqStmt::Lock { address, .. }
            | SeqStmt::Unlock { address, .. }
            | SeqStmt::TryLock { address, .. },
        ) => {
            let touched = locations_of(address, memory);
            (touched.clone(), touched)
        }
        _ => (none.clone(), none),
    }
}

/// Whether a place or expression names a plain global.
fn place_plain(place: &Place) -> bool {
    match place {
        Place::PlainGlobal(_) => true,
        Place::Local(_) => false,
        Place::Index(base, index) => place_plain(base) || expr_plain(index),
        Place::Field(base, _) => place_plain(base),
    }
}

fn expr_plain(expr: &Expr) -> bool {
    match expr {
        Expr::Load(place) => place_plain(place),
        Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Reinterpret(_, a) => expr_plain(a),
        Expr::Binary(_, a, b) => expr_plain(a) || expr_plain(b),
        Expr::Conditional(c, a, b) => expr_plain(c) || expr_plain(a) || expr_plain(b),
        Expr::LibraryCall(_, arguments) => arguments.iter().any(expr_plain),
        _ => false,
    }
}

/// Whether the instruction touches plain globals or an atomic section.
fn instr_shared_private(instr: &Instr) -> bool {
    match instr {
        Instr::Jump(_) => false,
        Instr::BranchUnless { condition, .. } => expr_plain(condition),
        Instr::Do(stmt) => match stmt {
            // the allocator's state is shared: which block a malloc gets,
            // and whether an access finds its block freed
            SeqStmt::AtomicBegin { .. }
            | SeqStmt::AtomicEnd { .. }
            | SeqStmt::Malloc { .. }
            | SeqStmt::Free { .. } => true,
            SeqStmt::Assign(place, value) => place_plain(place) || expr_plain(value),
            SeqStmt::Read {
                target, address, ..
            } => place_plain(target) || expr_plain(address),
            SeqStmt::Write { address, value, .. } => expr_plain(address) || expr_plain(value),
            SeqStmt::Rmw {
                target,
                address,
                operand,
                expected,
                ..
            } => {
                target.as_ref().is_some_and(place_plain)
                    || expr_plain(address)
                    || expr_plain(operand)
                    || expr_plain(expected)
            }
            SeqStmt::Lock { address, .. } | SeqStmt::Unlock { address, .. } => expr_plain(address),
            SeqStmt::TryLock {
                target, address, ..
            } => place_plain(target) || expr_plain(address),
            SeqStmt::Assert { condition, .. }
            | SeqStmt::Assume(condition)
            | SeqStmt::Await { condition, .. }
            | SeqStmt::LoopBound { condition, .. } => expr_plain(condition),
            SeqStmt::Join { handle, .. } => expr_plain(handle),
            // creation writes the child's status; it stays local
            _ => false,
        },
    }
}

impl Footprints {
    /// The footprints of every thread's code.
    pub fn new(codes: &[Code], memory: &MemoryLayout) -> Footprints {
        let mut footprints = Footprints {
            writes: Vec::new(),
            accesses: Vec::new(),
            shared_private: Vec::new(),
            allocator: Vec::new(),
        };
        for code in codes {
            let (writes, accesses, shared) = thread_footprints(code, memory);
            footprints.writes.push(writes);
            footprints.accesses.push(accesses);
            footprints.shared_private.push(shared);
            footprints.allocator.push(allocator_footprint(code));
        }
        footprints
    }

    /// Whether a thread other than `slot` may still allocate or free.
    fn others_allocate(&self, state: &State, slot: usize) -> bool {
        (0..state.threads.len())
            .filter(|&other| other != slot)
            .any(|other| {
                let thread = &state.threads[other];
                let pc = match thread.status {
                    Status::Finished => return false,
                    Status::NotCreated | Status::Created => 0,
                    Status::Running => thread.pc,
                };
                self.allocator[other].get(pc).copied().unwrap_or(true)
            })
    }

    /// The locations thread `slot` in `state` may still store to (`write`)
    /// or access.
    fn future(&self, state: &State, slot: usize, write: bool) -> Locations {
        let thread = &state.threads[slot];
        let pc = match thread.status {
            Status::Finished => return Some(BTreeSet::new()),
            Status::NotCreated | Status::Created => 0,
            Status::Running => thread.pc,
        };
        let table = if write { &self.writes } else { &self.accesses };
        table[slot].get(pc).cloned().unwrap_or(None)
    }

    /// Whether no thread but `slot` has `location` buffered or may touch it
    /// later (`write`: store to it; else access it at all).
    fn untouched_by_others(&self, state: &State, slot: usize, location: u32, write: bool) -> bool {
        (0..state.threads.len())
            .filter(|&other| other != slot)
            .all(|other| {
                !state.buffers[other]
                    .iter()
                    .any(|store| store.location == location)
                    && self
                        .future(state, other, write)
                        .is_some_and(|set| !set.contains(&location))
            })
    }

    /// Whether thread `slot`'s next move may be taken alone in `state`.
    pub fn is_local(&self, machine: &Machine, state: &State, slot: usize) -> bool {
        let thread = &state.threads[slot];
        if thread.status != Status::Running || state.atomic.is_some_and(|owner| owner != slot) {
            return false;
        }
        let pc = thread.pc;
        if self.shared_private[slot].get(pc).copied().unwrap_or(true) {
            return false;
        }
        let Some(Instr::Do(stmt)) = machine.codes[slot].instrs.get(pc) else {
            return false;
        };
        let drained = state.buffers[slot].is_empty();
        let untouched = |address: &Expr, write: bool| {
            locations_of(address, &machine.program.memory).is_some_and(|locations| {
                locations
                    .iter()
                    .all(|&location| self.untouched_by_others(state, slot, location, write))
            })
        };
        // an access that may reach the heap depends on the allocator: on
        // another thread's malloc (a block that becomes valid) or free (a
        // use of freed memory)
        let heap = machine.uses_heap
            && self.others_allocate(state, slot)
            && match stmt {
                SeqStmt::Write { address, .. } | SeqStmt::Read { address, .. } => {
                    locations_of(address, &machine.program.memory).is_none_or(|locations| {
                        locations
                            .iter()
                            .any(|&location| location >= machine.program.memory.heap_base)
                    })
                }
                _ => false,
            };
        if heap {
            return false;
        }
        match stmt {
            SeqStmt::Write { .. } if machine.model != MemoryModel::Sc => true,
            SeqStmt::Write { address, .. } => untouched(address, false),
            SeqStmt::Fence { .. } => drained || machine.model == MemoryModel::Sc,
            SeqStmt::Read { address, .. } => untouched(address, true),
            _ => false,
        }
    }
}

/// The locations thread `slot`'s next move reads from memory (a load, an
/// RMW, a mutex operation); `None` when it may be any (a thread not yet
/// started, an address not known).
fn next_observes(machine: &Machine, state: &State, slot: usize) -> Locations {
    let thread = &state.threads[slot];
    match thread.status {
        Status::NotCreated | Status::Finished => return Some(BTreeSet::new()),
        Status::Created => return None,
        Status::Running => {}
    }
    match machine.codes[slot].instrs.get(thread.pc) {
        Some(Instr::Do(
            SeqStmt::Read { address, .. }
            | SeqStmt::Rmw { address, .. }
            | SeqStmt::Lock { address, .. }
            | SeqStmt::Unlock { address, .. }
            | SeqStmt::TryLock { address, .. },
        )) => locations_of(address, &machine.program.memory),
        _ => Some(BTreeSet::new()),
    }
}

/// Whether thread `slot` waits for its buffers to drain: its next
/// statement drains them (a fence, an RMW, a mutex operation, a thread
/// creation), or it has ended and another thread's next statement is a
/// join (which waits for the joined thread's buffers).
fn drains(machine: &Machine, state: &State, slot: usize) -> bool {
    let thread = &state.threads[slot];
    match thread.status {
        Status::Finished => (0..state.threads.len()).any(|other| {
            let thread = &state.threads[other];
            thread.status == Status::Running
                && matches!(
                    machine.codes[other].instrs.get(thread.pc),
                    Some(Instr::Do(SeqStmt::Join { .. }))
                )
        }),
        Status::Running => matches!(
            machine.codes[slot].instrs.get(thread.pc),
            Some(Instr::Do(
                SeqStmt::Fence {
                    kind: crate::ir::FenceKind::Full,
                    ..
                } | SeqStmt::Rmw { .. }
                    | SeqStmt::Lock { .. }
                    | SeqStmt::Unlock { .. }
                    | SeqStmt::TryLock { .. }
                    | SeqStmt::Create { .. }
            ))
        ),
        Status::NotCreated | Status::Created => false,
    }
}

/// Which flushes the search tries from `state` (lazy flushing): a
/// buffered store reaches memory in the search only when someone could
/// tell, that is when another thread's next move reads its location from
/// memory or another thread has a store to it buffered (the order of the
/// two stores matters), or when its thread waits for its buffers; and
/// the stores before it in its buffer with it. Any execution can be
/// reordered so that each flush comes right before such a move, since a
/// flush commutes with every move that does not read or store its
/// location: the searched executions reach every violation. A drain
/// that no one watches flushes the oldest store first (the order of
/// stores no one reads in between cannot matter).
pub fn needed_flushes(machine: &Machine, state: &State) -> Vec<(usize, usize)> {
    let count = state.threads.len();
    let observes: Vec<Locations> = (0..count)
        .map(|slot| next_observes(machine, state, slot))
        .collect();
    let mut needed = Vec::new();
    for slot in 0..count {
        let buffer = &state.buffers[slot];
        let flushable = crate::smc::semantics::memory::flushable(buffer, machine.model);
        if flushable.is_empty() {
            continue;
        }
        let wanted = |location: u32| {
            (0..count).filter(|&other| other != slot).any(|other| {
                observes[other]
                    .as_ref()
                    .is_none_or(|set| set.contains(&location))
                    || state.buffers[other]
                        .iter()
                        .any(|store| store.location == location)
            })
        };
        // a drain nobody watches goes in one order: oldest first
        let drain = drains(machine, state, slot);
        let wanted_stores: Vec<usize> = (0..buffer.len())
            .filter(|&k| wanted(buffer[k].location))
            .collect();
        for index in flushable {
            let all = drain && index == 0;
            let before_wanted = wanted_stores.iter().any(|&k| match machine.model {
                MemoryModel::Pso => {
                    buffer[index].epoch < buffer[k].epoch
                        || (buffer[index].location == buffer[k].location && index <= k)
                }
                _ => index <= k,
            });
            if all || before_wanted {
                needed.push((slot, index));
            }
        }
    }
    needed
}

/// Whether thread code from each pc (and one past the end) may allocate
/// or free heap memory; every pc of code that jumps backward may.
fn allocator_footprint(code: &Code) -> Vec<bool> {
    let length = code.instrs.len();
    let mut may = vec![false; length + 1];
    for pc in (0..length).rev() {
        may[pc] = match &code.instrs[pc] {
            Instr::Do(SeqStmt::Malloc { .. } | SeqStmt::Free { .. }) => true,
            Instr::Do(_) => may[pc + 1],
            Instr::Jump(target) => *target <= pc || may.get(*target).copied().unwrap_or(true),
            Instr::BranchUnless { target, .. } => {
                *target <= pc || may[pc + 1] || may.get(*target).copied().unwrap_or(true)
            }
        };
    }
    may
}

/// One thread's store and access sets by pc, and whether each visible
/// statement's move touches plain globals or atomic sections.
fn thread_footprints(
    code: &Code,
    memory: &MemoryLayout,
) -> (Vec<Locations>, Vec<Locations>, Vec<bool>) {
    let length = code.instrs.len();
    let mut writes: Vec<Locations> = vec![Some(BTreeSet::new()); length + 1];
    let mut accesses: Vec<Locations> = vec![Some(BTreeSet::new()); length + 1];
    // whether the private run from pc up to the next visible statement
    // touches plain globals or atomic sections
    let mut segment: Vec<bool> = vec![false; length + 1];
    let mut move_shared: Vec<bool> = vec![true; length + 1];
    for pc in (0..length).rev() {
        let instr = &code.instrs[pc];
        let successors: Vec<usize> = match instr {
            Instr::Jump(target) => vec![*target],
            Instr::BranchUnless { target, .. } => vec![pc + 1, *target],
            Instr::Do(_) => vec![pc + 1],
        };
        let forward = successors.iter().all(|&next| next > pc && next <= length);
        let (own_writes, own_accesses) = instr_locations(instr, memory);
        let mut w = own_writes;
        let mut a = own_accesses;
        let mut shared = instr_shared_private(instr);
        for &next in &successors {
            if forward {
                w = union(&w, &writes[next]);
                a = union(&a, &accesses[next]);
                if !instr.is_visible() {
                    shared |= segment[next];
                }
            } else {
                w = None;
                a = None;
                shared = true;
            }
        }
        writes[pc] = w;
        accesses[pc] = a;
        if instr.is_visible() {
            move_shared[pc] = shared || !forward || segment.get(pc + 1).copied().unwrap_or(true);
            segment[pc] = false;
        } else {
            segment[pc] = shared;
        }
    }
    (writes, accesses, move_shared)
}
