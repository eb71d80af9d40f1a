//! Atomic sections for RF-SMC: one lock of the whole program, the
//! *section lock*, on a location of its own past the program's memory.
//! A section's begin takes it and its end releases it, each a move of its
//! own (a visible statement for the machine in this mode), so that RF-SMC
//! orders the sections of all threads as it orders the acquisitions of a
//! mutex. Neither drains a store buffer (scheduling atomicity only, as the
//! printed program's sections; `--fence-atomic-sections` adds the fences
//! as statements of their own), which the oracle knows by the location
//! being one no store buffers.
//!
//! The lock alone orders sections among themselves; an access outside
//! any section may still run while another thread is inside one. That is
//! harmless when it touches no location any section of that thread may
//! touch: such an access commutes with every event of the section. An
//! access (read, write, RMW, unlock) outside sections that may touch a
//! location a section of another thread may touch is therefore *wrapped*:
//! the machine's code gets a section of its own around it (a begin before
//! it, an end after it, both taking the lock as a user's section does,
//! and recording nothing for the report). RF-SMC checks the rest at each
//! move (`rf::run`: a lock or a try-lock, which may wait, is not wrapped),
//! with the locations each thread's sections may touch, read off its code
//! here.
//!
//! The heap's allocator is shared data the same way: in a program that
//! allocates or frees, each `malloc`, `calloc` and `free` outside a
//! section is wrapped too, so that RF-SMC orders every two of them by the
//! lock (the block a `malloc` gets, whether a `free` frees twice), and
//! `rf::heap` checks that each access to a block is ordered with its
//! allocation and its `free` by happens-before.
//!
//! The explicit search keeps the scheduling atomicity of
//! [`State::atomic`](super::state::State) instead: the machine
//! (`super::machine`) takes the section lock only when its `sections` is
//! set.

use crate::ir::Expr;
use crate::passes::{SeqStmt, SequentialProgram};
use crate::smc::interpreter::code::{Code, Instr, statement_origin};
use std::collections::BTreeSet;

/// The locations one thread's sections may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Some access inside a section has an address the points-to facts do
    /// not bound.
    Any,
    Locations(BTreeSet<u32>),
}

/// The section lock of a program and what its sections touch.
#[derive(Debug, Clone)]
pub struct SectionLock {
    /// The lock's location: the first past the program's memory.
    pub location: u32,
    /// Per thread slot: the locations its sections may touch (its own
    /// sections, not the wrapped accesses).
    pub reach: Vec<Reach>,
    /// Per thread slot: the positions of the begins and ends of the
    /// sections wrapped around accesses, in its wrapped code.
    pub wrapped: Vec<BTreeSet<usize>>,
    /// The allocations and frees are wrapped (the program has some).
    pub heap: bool,
    /// The program has atomic sections of its own (`__VERIFIER_atomic`),
    /// not only the wrapped allocations and frees.
    pub user_sections: bool,
}

impl SectionLock {
    /// The section lock of `program`, at `location`, with what the
    /// sections of each thread of `codes` may touch.
    pub fn of(program: &SequentialProgram, codes: &[Code], location: u32) -> SectionLock {
        let reach = codes
            .iter()
            .enumerate()
            .map(|(slot, code)| thread_reach(program, slot, code))
            .collect();
        SectionLock {
            location,
            reach,
            wrapped: vec![BTreeSet::new(); codes.len()],
            heap: false,
            user_sections: false,
        }
    }

    /// Wraps the accesses of `codes` outside sections that may touch a
    /// location a section of another thread may touch, each in a section
    /// of its own.
    pub fn wrap(&mut self, program: &SequentialProgram, codes: &mut [Code]) {
        for (slot, code) in codes.iter_mut().enumerate() {
            let inside = inside_sections(code);
            let wrapped: BTreeSet<usize> = (0..code.instrs.len())
                .filter(|&at| !inside[at] && self.shared_outside(program, slot, &code.instrs[at]))
                .collect();
            if wrapped.is_empty() {
                continue;
            }
            let (new, boundaries) = wrapped_code(code, &wrapped);
            *code = new;
            self.wrapped[slot] = boundaries;
        }
    }

    /// Whether `instr` of thread `slot` is an allocation or a `free` (when
    /// the heap is wrapped), or an access that does not wait and may touch
    /// a location a section of another thread may touch.
    fn shared_outside(&self, program: &SequentialProgram, slot: usize, instr: &Instr) -> bool {
        if matches!(
            instr,
            Instr::Do(SeqStmt::Malloc { .. } | SeqStmt::Free { .. })
        ) {
            return self.heap;
        }
        if !matches!(
            instr,
            Instr::Do(
                SeqStmt::Read { .. }
                    | SeqStmt::Write { .. }
                    | SeqStmt::Rmw { .. }
                    | SeqStmt::Unlock { .. }
            )
        ) {
            return false;
        }
        let Some(address) = accessed(instr) else {
            return false;
        };
        let others = (0..self.reach.len()).filter(|&other| other != slot);
        match reached(program, slot, address) {
            None => others.into_iter().any(|other| self.reach[other] != empty()),
            Some(locations) => others.into_iter().any(|other| {
                locations
                    .iter()
                    .any(|&location| self.may_touch(other, location))
            }),
        }
    }

    /// Whether some section of thread `slot` may touch `location`.
    pub fn may_touch(&self, slot: usize, location: u32) -> bool {
        match self.reach.get(slot) {
            Some(Reach::Locations(locations)) => locations.contains(&location),
            Some(Reach::Any) | None => true,
        }
    }
}

/// Per instruction of `code`: whether it may run inside an atomic section
/// (on some path from the start; the lazy scheme refuses paths that meet
/// with different depths, so it is one answer, but a mix is taken as
/// inside).
fn inside_sections(code: &Code) -> Vec<bool> {
    let count = code.instrs.len();
    let mut seen: Vec<[bool; 2]> = vec![[false; 2]; count + 1];
    let mut work = vec![(0usize, false)];
    while let Some((pc, inside)) = work.pop() {
        let Some(marks) = seen.get_mut(pc) else {
            continue;
        };
        if marks[usize::from(inside)] {
            continue;
        }
        marks[usize::from(inside)] = true;
        let Some(instr) = code.instrs.get(pc) else {
            continue;
        };
        match instr {
            Instr::Jump(target) => work.push((*target, inside)),
            Instr::BranchUnless { target, .. } => {
                work.push((*target, inside));
                work.push((pc + 1, inside));
            }
            Instr::Do(SeqStmt::AtomicBegin { .. }) => work.push((pc + 1, true)),
            Instr::Do(SeqStmt::AtomicEnd { .. }) => work.push((pc + 1, false)),
            Instr::Do(_) => work.push((pc + 1, inside)),
        }
    }
    seen.iter().take(count).map(|marks| marks[1]).collect()
}

/// The address an instruction accesses shared memory at, if it does.
fn accessed(instr: &Instr) -> Option<&Expr> {
    match instr {
        Instr::Do(
            SeqStmt::Read { address, .. }
            | SeqStmt::Write { address, .. }
            | SeqStmt::Rmw { address, .. }
            | SeqStmt::Lock { address, .. }
            | SeqStmt::Unlock { address, .. }
            | SeqStmt::TryLock { address, .. }
            | SeqStmt::Free { address, .. },
        ) => Some(address),
        _ => None,
    }
}

/// No location.
fn empty() -> Reach {
    Reach::Locations(BTreeSet::new())
}

/// The locations an access of thread `slot` at `address` may touch; None
/// when the points-to facts do not bound them.
fn reached(program: &SequentialProgram, slot: usize, address: &Expr) -> Option<Vec<u32>> {
    match address {
        Expr::Const(location) => u32::try_from(*location).ok().map(|l| vec![l]),
        _ => program
            .points_to
            .as_ref()
            .and_then(|facts| facts.locations(slot, address)),
    }
}

/// `code` with a section's begin before and its end after each position
/// of `wrapped`, and the positions of those begins and ends. Jumps to a
/// wrapped access land on its begin; the guesses and await loops keep
/// their instructions.
fn wrapped_code(code: &Code, wrapped: &BTreeSet<usize>) -> (Code, BTreeSet<usize>) {
    let len = code.instrs.len();
    // where control that arrives at old position `at` lands
    let start = |at: usize| {
        if at > len {
            return at;
        }
        at + 2 * wrapped.range(..at).count()
    };
    let own = |at: usize| start(at) + usize::from(wrapped.contains(&at));
    let mut instrs = Vec::with_capacity(len + 2 * wrapped.len());
    let mut origins = Vec::with_capacity(len + 2 * wrapped.len());
    let mut boundaries = BTreeSet::new();
    for (at, instr) in code.instrs.iter().enumerate() {
        let origin = code.origins.get(at).copied().flatten();
        let remapped = match instr {
            Instr::Jump(target) => Instr::Jump(start(*target)),
            Instr::BranchUnless { condition, target } => Instr::BranchUnless {
                condition: condition.clone(),
                target: start(*target),
            },
            Instr::Do(stmt) => Instr::Do(stmt.clone()),
        };
        let stmt = match instr {
            Instr::Do(stmt) => statement_origin(stmt).or(origin),
            _ => origin,
        };
        match (wrapped.contains(&at), stmt) {
            (true, Some(stmt)) => {
                boundaries.insert(instrs.len());
                instrs.push(Instr::Do(SeqStmt::AtomicBegin { stmt }));
                origins.push(origin);
                instrs.push(remapped);
                origins.push(origin);
                boundaries.insert(instrs.len());
                instrs.push(Instr::Do(SeqStmt::AtomicEnd { stmt }));
                origins.push(origin);
            }
            _ => {
                instrs.push(remapped);
                origins.push(origin);
            }
        }
    }
    let guesses = code
        .guesses
        .iter()
        .map(|(&at, guess)| (own(at), guess.clone()))
        .collect();
    let restarts = code
        .restarts
        .iter()
        .map(|(&exit, &restart)| (own(exit), start(restart)))
        .collect();
    let new = Code {
        instrs,
        origins,
        guesses,
        restarts,
    };
    (new, boundaries)
}

/// The locations the sections of thread `slot` may touch.
fn thread_reach(program: &SequentialProgram, slot: usize, code: &Code) -> Reach {
    let mut locations = BTreeSet::new();
    for (instr, inside) in code.instrs.iter().zip(inside_sections(code)) {
        if !inside {
            continue;
        }
        if matches!(instr, Instr::Do(SeqStmt::Malloc { .. })) {
            return Reach::Any;
        }
        let Some(address) = accessed(instr) else {
            continue;
        };
        match reached(program, slot, address) {
            Some(reached) => locations.extend(reached),
            None => return Reach::Any,
        }
    }
    Reach::Locations(locations)
}
