//! The operational semantics the native engine explores: the threads of the
//! sequential program with their private data, shared memory, and store
//! buffers under SC (none), TSO (one FIFO buffer per thread) and PSO (one
//! per thread and location, store-store fences ordering them). A thread's
//! move runs one visible statement and the private statements up to its
//! next one, as the lazy scheme's contexts do; a flush moves one buffered
//! store to memory.

use super::cells::Cells;
use super::memory::{
    carried_in_memory, flush, flushable, memory_id, read, record, record_term, statement_name,
    store_in_memory, write,
};
use super::plain::{PlainAccess, PlainUses};
use super::sections::SectionLock;
pub use super::state::{Buffered, Heap, Recording, State, Status, Thread};
use crate::ir::{Expr, FenceKind, OriginId};
use crate::options::MemoryModel;
use crate::passes::{RmwCode, SeqStmt, SequentialProgram};
use crate::smc::interpreter::code::{self, Code, Instr};
use crate::smc::interpreter::eval::{Choices, Operand, Private, Unmodelled};
use crate::smc::interpreter::value::{CType, Num, Value};
use crate::smc::symbolic::path::Carried;
use crate::smc::symbolic::term::{self as terms, Term};
use crate::trace::records::RecordKind;
use std::sync::Arc;

/// Why a lock declines on a mutex whose memory holds a term.
const SYMBOLIC_MUTEX: &str = "a mutex whose memory holds a symbolic value (a nondeterministic value of more than 256 values), which the native engine locks only when concrete";

/// A read-modify-write on terms: its operation, and the old value, the
/// operand and the expected value, each concrete or a term (of the wide
/// type).
pub(super) struct SymbolicRmw {
    pub op: RmwCode,
    pub old: (i64, Option<Arc<Carried>>),
    pub operand: (i64, Option<Term>),
    pub expected: (i64, Option<Term>),
}

/// One move from a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// The thread runs its next visible statement and what follows it.
    Run(usize),
    /// The store at `index` of the thread's buffer reaches memory.
    Flush { slot: usize, index: usize },
}

/// A property the program violates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub slot: usize,
    /// `file:line: what: text`, as the printed program's assertion says.
    pub description: String,
    /// The property's kind in CBMC's words (`assertion`,
    /// `array-bounds`...), for its id.
    pub kind: &'static str,
    /// The statement a property of no assertion of the program is placed
    /// at (a deadlock's: where its first waiting thread waits).
    pub origin: Option<OriginId>,
}

/// The result of a move.
#[derive(Debug, Clone)]
pub enum Outcome<T = State> {
    Next(T),
    /// The move cannot happen here (a fence with stores buffered, a lock
    /// held, a join of a running thread).
    Disabled,
    /// An assumption or loop bound fails: no execution goes on.
    CutOff,
    Violated(Violation),
}

/// The program and the model the machine runs.
pub struct Machine<'a> {
    pub program: &'a SequentialProgram,
    pub codes: Vec<Code>,
    pub model: MemoryModel,
    /// `int` or `long long`: the type of the values the SMA takes.
    pub wide: CType,
    /// `--bitwidth` when shared memory is narrower than `wide`: a value
    /// that so many bits cannot give back unchanged cuts the store off, as
    /// `sma_narrow` of `sma/common.h` does.
    pub narrow: Option<u32>,
    pub locations: u32,
    /// An access through a pointer outside its objects is a violation
    /// (`--pointer-check`), not a cut-off.
    pub pointer_checks: bool,
    /// Some thread allocates or frees heap memory.
    pub uses_heap: bool,
    /// Which thread reads, writes and creates what of the plain globals
    /// (RF-SMC asks whether a change of one can be observed).
    pub plain: PlainUses,
    /// Some thread frees heap memory (the printer then checks accesses
    /// through pointers for freed blocks).
    pub frees: bool,
    /// The accesses where an execution was cut off because its pointer
    /// left its objects or the requested part of a heap block (without
    /// `--pointer-check`): the report warns of them, as the CBMC path's
    /// reachability run does.
    pub pointer_cut_offs: std::sync::Mutex<std::collections::BTreeSet<OriginId>>,
    /// The loops whose bound (`--unwind`) cut an execution off: the report
    /// names them.
    pub loop_cut_offs: std::sync::Mutex<std::collections::BTreeSet<OriginId>>,
    /// The allocations where an execution was cut off because the heap
    /// bounds could not serve it: the report names them, as the CBMC
    /// path's reachability run does.
    pub allocation_cut_offs:
        std::sync::Mutex<std::collections::BTreeMap<OriginId, AllocationCutOff>>,
    /// The properties found violated already, by thread slot and
    /// description (`verify --all-violations` searches again without
    /// them): an assertion among them holds, and any other check among
    /// them cuts the execution off, as the printed program's assumption
    /// after the check does.
    pub found: Vec<(usize, String)>,
    /// In RF-SMC's mode, the lock that orders the atomic sections
    /// (`super::sections`); the explicit search keeps their scheduling
    /// atomicity instead.
    pub sections: Option<SectionLock>,
    /// The SMT solvers and their answers for the branches on symbolic
    /// values of RF-SMC's runs (started at the first question).
    pub decider: crate::smc::symbolic::decide::Decider,
}

/// How the heap bounds cut executions off at one allocation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocationCutOff {
    /// The most scalars an execution asked for there beyond a heap block
    /// (`--heap-block`), if one did.
    pub largest: Option<i64>,
    /// Some execution found every heap block used there (`--nmalloc`).
    pub blocks_used: bool,
    /// Some execution asked for a negative size there, which as `size_t`
    /// is more than any heap block holds (`--heap-block`).
    pub negative: bool,
}

/// A failure to model a move exactly, at the statement nearest to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub what: String,
    pub origin: Option<OriginId>,
    /// An index outside a private array ([`Unmodelled::out_of_bounds`]):
    /// [`Machine::apply_in_place`] reports it as a violation.
    pub out_of_bounds: bool,
    /// No side of a branch on symbolic values is feasible
    /// ([`Unmodelled::infeasible`]): the move is cut off.
    pub infeasible: bool,
}

pub(super) type Step<T> = Result<T, Unsupported>;

/// The location an access touches, or how the printed program's checks
/// end the move there (a violation, a cut-off).
pub type Access = Result<u32, Outcome<()>>;

/// How many plain accesses a recorded run has noted so far.
fn noted_plain_accesses(state: &State) -> usize {
    state
        .recording
        .as_ref()
        .map_or(0, |recording| recording.plain_accesses.len())
}

/// Marks the plain accesses noted after the first `noted` as made by a
/// thread's private prefix.
fn mark_prefix(state: &mut State, noted: usize) {
    if let Some(recording) = state.recording.as_mut() {
        for access in recording.plain_accesses.iter_mut().skip(noted) {
            access.prefix = true;
        }
    }
}

impl<'a> Machine<'a> {
    pub fn new(program: &'a SequentialProgram, model: MemoryModel, bitwidth: u32) -> Machine<'a> {
        let codes: Vec<Code> = program.threads.iter().map(code::flatten).collect();
        let any = |heap: &dyn Fn(&SeqStmt) -> bool| {
            codes.iter().any(|code| {
                code.instrs
                    .iter()
                    .any(|instr| matches!(instr, Instr::Do(stmt) if heap(stmt)))
            })
        };
        let frees = any(&|stmt| matches!(stmt, SeqStmt::Free { .. }));
        let uses_heap = any(&|stmt| matches!(stmt, SeqStmt::Malloc { .. } | SeqStmt::Free { .. }));
        let plain = PlainUses::of(&codes);
        Machine {
            program,
            codes,
            model,
            wide: CType {
                bits: if bitwidth > 32 { 64 } else { 32 },
                signed: true,
            },
            narrow: (bitwidth != 32 && bitwidth != 64).then_some(bitwidth),
            locations: program.memory.location_count(),
            pointer_checks: false,
            uses_heap,
            plain,
            frees,
            pointer_cut_offs: Default::default(),
            loop_cut_offs: Default::default(),
            decider: Default::default(),
            allocation_cut_offs: Default::default(),
            found: Vec::new(),
            sections: None,
        }
    }

    /// RF-SMC's mode for a program with atomic sections or a heap: a
    /// section's begin and end become moves that take and release the
    /// section lock (`super::sections`), on a location past the program's
    /// memory.
    /// In a program that allocates or frees while threads run, each
    /// allocation and `free` outside a section gets a section of its own.
    pub fn enable_section_lock(&mut self) {
        let sections = self.codes.iter().any(|code| {
            code.instrs
                .iter()
                .any(|instr| matches!(instr, Instr::Do(SeqStmt::AtomicBegin { .. })))
        });
        let heap = self.heap_beside_threads();
        if sections || heap {
            let mut lock = SectionLock::of(self.program, &self.codes, self.locations);
            lock.heap = heap;
            lock.user_sections = sections;
            lock.wrap(self.program, &mut self.codes);
            self.plain = PlainUses::of(&self.codes);
            self.sections = Some(lock);
        }
    }

    /// Whether a heap operation may run while other threads run: some
    /// thread but main allocates or frees, or main does after its first
    /// creation (or where its code jumps back). Otherwise main allocates
    /// and frees alone, before any other thread exists, which creations
    /// order with every other thread's moves (`rf::run`).
    fn heap_beside_threads(&self) -> bool {
        let heap = |instr: &Instr| {
            matches!(
                instr,
                Instr::Do(SeqStmt::Malloc { .. } | SeqStmt::Free { .. })
            )
        };
        let Some((main, others)) = self.codes.split_first() else {
            return false;
        };
        if others.iter().any(|code| code.instrs.iter().any(heap)) {
            return true;
        }
        let first_creation = main
            .instrs
            .iter()
            .position(|instr| matches!(instr, Instr::Do(SeqStmt::Create { .. })));
        let jumps_back = main.instrs.iter().enumerate().any(|(at, instr)| {
            matches!(instr, Instr::Jump(target) | Instr::BranchUnless { target, .. } if *target <= at)
        });
        let after_creation =
            first_creation.is_some_and(|first| main.instrs[first..].iter().any(heap));
        after_creation || jumps_back && main.instrs.iter().any(heap)
    }

    /// Whether thread `slot`'s property `description` is among those
    /// found violated already ([`Machine::found`]).
    pub fn was_found(&self, slot: usize, description: &str) -> bool {
        self.found
            .iter()
            .any(|(found, text)| *found == slot && text == description)
    }

    /// The state before main's first statement.
    pub fn initial(&self, record: bool) -> State {
        let structs = &self.program.structs;
        let threads = self
            .program
            .threads
            .iter()
            .map(|thread| {
                Arc::new(Thread {
                    status: if thread.slot == 0 {
                        Status::Created
                    } else {
                        Status::NotCreated
                    },
                    pc: 0,
                    locals: thread
                        .locals
                        .iter()
                        .map(|local| Value::zero(&local.ty, structs))
                        .collect(),
                })
            })
            .collect::<Vec<_>>();
        let own = usize::from(self.sections.is_some());
        let memory = Cells::new(
            &self.program.memory.initial_values,
            self.locations as usize + own,
        );
        let count = threads.len();
        State {
            threads,
            plain: self
                .program
                .plain_globals
                .iter()
                .map(|global| Value::zero(&global.ty, structs))
                .collect(),
            recording: record.then(|| {
                Box::new(Recording {
                    next_id: 1,
                    memory_ids: std::collections::BTreeMap::new(),
                    records: Vec::new(),
                    plain_accesses: Vec::new(),
                    carried: None,
                    terms: Vec::new(),
                })
            }),
            memory,
            buffers: vec![Vec::new(); count],
            epochs: vec![0; count],
            held: Vec::new(),
            atomic: None,
            symbolic: Default::default(),
            heap: Heap::new(
                self.program.memory.heap_base,
                self.program.memory.heap_blocks,
                self.program.memory.heap_block_size,
            ),
        }
    }

    /// The moves worth trying from `state`.
    pub fn moves(&self, state: &State) -> Vec<Move> {
        let mut moves = Vec::new();
        for (slot, thread) in state.threads.iter().enumerate() {
            let runnable = matches!(thread.status, Status::Created | Status::Running);
            if runnable && state.atomic.is_none_or(|owner| owner == slot) {
                moves.push(Move::Run(slot));
            }
        }
        for (slot, buffer) in state.buffers.iter().enumerate() {
            for index in flushable(buffer, self.model) {
                moves.push(Move::Flush { slot, index });
            }
        }
        moves
    }

    /// Applies `step` to `state`, taking nondeterministic values from
    /// `choices`.
    pub fn apply(&self, state: &State, step: Move, choices: &mut dyn Choices) -> Step<Outcome> {
        let mut next = state.clone();
        Ok(match self.apply_in_place(&mut next, step, choices)? {
            Outcome::Next(()) => Outcome::Next(next),
            other => other.map_state(),
        })
    }

    /// [`Machine::apply`] on `state` itself, which the move leaves as far
    /// as it went (a replay keeps the records up to a violation).
    pub fn apply_in_place(
        &self,
        state: &mut State,
        step: Move,
        choices: &mut dyn Choices,
    ) -> Step<Outcome<()>> {
        Ok(match self.apply_checking(state, step, choices)? {
            Outcome::Violated(violation)
                if self.was_found(violation.slot, &violation.description) =>
            {
                Outcome::CutOff
            }
            other => other,
        })
    }

    /// [`Machine::apply_in_place`] with every property checked.
    fn apply_checking(
        &self,
        state: &mut State,
        step: Move,
        choices: &mut dyn Choices,
    ) -> Step<Outcome<()>> {
        match step {
            // an index outside a private array is an access out of bounds,
            // as the printed program's is in CBMC's (undefined) C; the
            // move stops there, so that RF-SMC's simulation of a read with
            // another value (which may be no value the program can read)
            // does not stop the whole search: a violation counts only in
            // an execution the search finds consistent
            Move::Run(slot) => match self.run_thread(state, slot, choices) {
                // no side of a branch on symbolic values is feasible: the
                // execution does not exist beyond, as after an assumption
                Err(unsupported) if unsupported.infeasible => Ok(Outcome::CutOff),
                Err(unsupported) if unsupported.out_of_bounds => Ok(Outcome::Violated(Violation {
                    slot,
                    description: match unsupported.origin {
                        Some(origin) => self.describe(origin, crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS),
                        None => unsupported.what,
                    },
                    kind: "array-bounds",
                    origin: None,
                })),
                other => other,
            },
            Move::Flush { slot, index } => {
                flush(state, slot, index);
                Ok(Outcome::Next(()))
            }
        }
    }

    /// The mutex a thread waits for when its next move is a lock (its
    /// private prefix run first if it has not started), on a copy of
    /// `state`.
    pub fn pending_lock(
        &self,
        state: &State,
        slot: usize,
        choices: &mut dyn Choices,
    ) -> Option<u32> {
        let mut state = state.clone();
        if state.threads.get(slot)?.status == Status::Created {
            state.thread_mut(slot).status = Status::Running;
            if !matches!(
                self.run_private(&mut state, slot, choices),
                Ok(Outcome::Next(()))
            ) {
                return None;
            }
        }
        let pc = state.threads[slot].pc;
        let instr = self.codes[slot].instrs.get(pc);
        if let (Some(Instr::Do(SeqStmt::AtomicBegin { .. })), Some(lock)) = (instr, &self.sections)
        {
            return (state.memory.at(lock.location) != 0).then_some(lock.location);
        }
        let Some(Instr::Do(SeqStmt::Lock { address, stmt })) = instr else {
            return None;
        };
        match self.location(&mut state, slot, address, *stmt, choices) {
            Ok(Ok(location)) => Some(location),
            _ => None,
        }
    }

    pub(super) fn unsupported(&self, slot: usize, pc: usize, what: String) -> Unsupported {
        let origin = self
            .codes
            .get(slot)
            .and_then(|code| {
                code.origins
                    .get(pc.min(code.origins.len().saturating_sub(1)))
            })
            .copied()
            .flatten();
        let out_of_bounds = Unmodelled(what.clone()).is_out_of_bounds();
        let infeasible = Unmodelled(what.clone()).is_infeasible();
        Unsupported {
            what,
            origin,
            out_of_bounds,
            infeasible,
        }
    }

    /// Whether a running thread stopped after the end of an atomic section
    /// at a private statement or at its end, rather than at a visible
    /// statement.
    fn paused(&self, state: &State, slot: usize) -> bool {
        let thread = &state.threads[slot];
        thread.status == Status::Running
            && !self.codes[slot]
                .instrs
                .get(thread.pc)
                .is_some_and(|instr| self.is_visible(instr))
    }

    fn run_thread(
        &self,
        state: &mut State,
        slot: usize,
        choices: &mut dyn Choices,
    ) -> Step<Outcome<()>> {
        let Some(thread) = state.threads.get(slot) else {
            return Ok(Outcome::Disabled);
        };
        if self.paused(state, slot) {
            // after the end of an atomic section: its private code up to
            // its next visible statement, a move of its own
            return self.run_private(state, slot, choices);
        }
        if thread.status == Status::Created {
            // its private prefix first, up to its first visible statement
            state.thread_mut(slot).status = Status::Running;
            let noted = noted_plain_accesses(state);
            let prefix = self.run_private(state, slot, choices);
            mark_prefix(state, noted);
            match prefix? {
                Outcome::Next(()) => {}
                other => return Ok(other),
            }
            if state.threads[slot].status == Status::Finished || self.paused(state, slot) {
                return Ok(Outcome::Next(()));
            }
        }
        self.note_plain(state, slot);
        match self.visible(state, slot, choices)? {
            Outcome::Next(()) => state.thread_mut(slot).pc += 1,
            other => return Ok(other),
        }
        self.run_private(state, slot, choices)
    }

    /// Runs the thread's private statements up to its next visible one or
    /// its end.
    pub(super) fn run_private(
        &self,
        state: &mut State,
        slot: usize,
        choices: &mut dyn Choices,
    ) -> Step<Outcome<()>> {
        let code = &self.codes[slot];
        loop {
            let pc = state.threads[slot].pc;
            if pc == code.instrs.len() {
                state.thread_mut(slot).status = Status::Finished;
                if state.atomic == Some(slot) {
                    state.atomic = None;
                }
                return Ok(Outcome::Next(()));
            }
            let Some(instr) = code.instrs.get(pc) else {
                return Err(self.unsupported(slot, pc, "a jump to an unknown label".into()));
            };
            if self.is_visible(instr) {
                return Ok(Outcome::Next(()));
            }
            self.note_plain(state, slot);
            let fail = |what: Unmodelled| self.unsupported(slot, pc, what.0);
            let mut next = pc + 1;
            match instr {
                Instr::Jump(target) => next = *target,
                Instr::BranchUnless { condition, target } => {
                    if !self.truth(state, slot, condition, choices).map_err(fail)? {
                        next = *target;
                    }
                }
                Instr::Do(SeqStmt::Assign(place, value)) => {
                    self.private(state, slot)
                        .assign(place, value, choices)
                        .map_err(fail)?;
                }
                Instr::Do(SeqStmt::Assert {
                    condition,
                    description,
                }) => {
                    let found = self.was_found(slot, description);
                    if !found && !self.truth(state, slot, condition, choices).map_err(fail)? {
                        return Ok(Outcome::Violated(Violation {
                            slot,
                            description: description.clone(),
                            kind: "assertion",
                            origin: None,
                        }));
                    }
                }
                Instr::Do(SeqStmt::Assume(condition)) => {
                    self.private(state, slot)
                        .bound_unknowns(condition, choices)
                        .map_err(fail)?;
                    let holds = self
                        .private(state, slot)
                        .assumption(condition, choices)
                        .map_err(fail)?;
                    if !holds {
                        return Ok(Outcome::CutOff);
                    }
                }
                // the last unrolled copy of a loop: the loop is named
                Instr::Do(SeqStmt::LoopBound { condition, stmt }) => {
                    if !self.truth(state, slot, condition, choices).map_err(fail)? {
                        if let Ok(mut loops) = self.loop_cut_offs.lock() {
                            loops.insert(*stmt);
                        }
                        return Ok(Outcome::CutOff);
                    }
                }
                // an await loop's exit: its iteration failed, and the
                // thread spins (see `super::deadlock` for whether it may
                // ever pass)
                Instr::Do(SeqStmt::Await { condition, .. }) => {
                    if !self.truth(state, slot, condition, choices).map_err(fail)? {
                        return Ok(Outcome::CutOff);
                    }
                }
                Instr::Do(SeqStmt::AtomicBegin { stmt }) => {
                    if state.atomic.is_none() {
                        state.atomic = Some(slot);
                    }
                    record(state, RecordKind::AtomicBegin, slot, 0, 0, 0, 0, *stmt);
                }
                Instr::Do(SeqStmt::AtomicEnd { stmt }) => {
                    let closes = state.atomic == Some(slot);
                    if closes {
                        state.atomic = None;
                    }
                    record(state, RecordKind::AtomicEnd, slot, 0, 0, 0, 0, *stmt);
                    if closes {
                        // the end of a section is a point where another
                        // thread may run: the move stops after it
                        state.thread_mut(slot).pc = next;
                        return Ok(Outcome::Next(()));
                    }
                }
                Instr::Do(SeqStmt::Malloc {
                    target,
                    size,
                    zeroed,
                    stmt,
                }) => match self.malloc(state, slot, target, size, *zeroed, *stmt, choices)? {
                    Outcome::Next(()) => {}
                    other => return Ok(other),
                },
                Instr::Do(SeqStmt::Free { address, stmt }) => {
                    match self.free(state, slot, address, *stmt, choices)? {
                        Outcome::Next(()) => {}
                        other => return Ok(other),
                    }
                }
                Instr::Do(other) => {
                    return Err(self.unsupported(
                        slot,
                        pc,
                        format!("the statement {}", statement_name(other)),
                    ));
                }
            }
            state.thread_mut(slot).pc = next;
        }
    }

    /// In a recorded run, notes the plain accesses of `slot`'s next
    /// instruction (before it runs: its indices are read first).
    fn note_plain(&self, state: &mut State, slot: usize) {
        let Some(recording) = state.recording.as_mut() else {
            return;
        };
        let thread = &state.threads[slot];
        self.plain
            .accesses(slot, thread.pc, &thread.locals, &mut |part, write| {
                recording.plain_accesses.push(PlainAccess {
                    part,
                    write,
                    prefix: false,
                });
            });
    }

    pub(super) fn private<'s>(&'s self, state: &'s mut State, slot: usize) -> Private<'s> {
        state.symbolic.running = slot;
        Private {
            thread: &self.program.threads[slot],
            plain_globals: &self.program.plain_globals,
            structs: &self.program.structs,
            locals: &mut Arc::make_mut(&mut state.threads[slot]).locals,
            plain: &mut state.plain,
            symbolic: &mut state.symbolic,
        }
    }

    /// Whether the condition `expr` holds ([`Private::truth`]).
    pub(super) fn truth(
        &self,
        state: &mut State,
        slot: usize,
        expr: &Expr,
        choices: &mut dyn Choices,
    ) -> Result<bool, Unmodelled> {
        self.private(state, slot).truth(expr, choices)
    }

    pub(super) fn eval(
        &self,
        state: &mut State,
        slot: usize,
        expr: &Expr,
        choices: &mut dyn Choices,
    ) -> Result<i64, Unmodelled> {
        self.private(state, slot)
            .eval(expr, choices)
            .map(|(_, value)| value)
    }

    /// Whether shared memory holds `value` (a value as the SMA takes it)
    /// unchanged: always, unless `--bitwidth` narrows it to B bits, which
    /// hold -2^(B-1) .. 2^(B-1)-1 (`sma_narrow` cuts off the others).
    pub(super) fn fits(&self, value: i64) -> bool {
        match self.narrow {
            Some(bits) if (1..64).contains(&bits) => {
                let limit = 1i64 << (bits - 1);
                (-limit..limit).contains(&value)
            }
            _ => true,
        }
    }

    /// A value as the SMA takes it (`sma_wide_t`).
    pub(super) fn widened(
        &self,
        state: &mut State,
        slot: usize,
        expr: &Expr,
        choices: &mut dyn Choices,
    ) -> Result<i64, Unmodelled> {
        Ok(self.wide.convert(self.eval(state, slot, expr, choices)?))
    }

    /// A value for shared memory as the SMA takes it (`sma_wide_t`): a
    /// concrete one, or a term converted to the wide type, carried with
    /// the thread's causal condition (the `i64` is 0 then). A term cannot
    /// be narrowed by `--bitwidth` (the cut-off would be a branch).
    pub(super) fn widened_operand(
        &self,
        state: &mut State,
        slot: usize,
        expr: &Expr,
        choices: &mut dyn Choices,
    ) -> Result<(i64, Option<Term>), Unmodelled> {
        let (ty, operand) = self.private(state, slot).operand(expr, choices)?;
        let term = match operand {
            Operand::Concrete(value) => return Ok((self.wide.convert(value), None)),
            Operand::Symbolic(term) => term,
        };
        let Num::Int(from) = ty else {
            return Err(Unmodelled(
                "a symbolic floating value written to shared memory".into(),
            ));
        };
        if self.narrow.is_some() {
            return Err(Unmodelled(
                "a symbolic value written to shared memory narrowed by --bitwidth, which the native engine does not model".into(),
            ));
        }
        Ok((0, Some(terms::convert(term, from, self.wide))))
    }

    /// Stores a value read from shared memory in `place`: a concrete one,
    /// or the term `carried`, whose causal condition the thread takes.
    pub(super) fn store_read(
        &self,
        state: &mut State,
        slot: usize,
        place: &crate::ir::Place,
        value: i64,
        carried: Option<&Carried>,
        choices: &mut dyn Choices,
    ) -> Result<(), Unmodelled> {
        match carried {
            None => self.private(state, slot).store(place, value, choices),
            Some(carried) => {
                state.symbolic.import(slot, carried);
                let term = carried.term.as_ref().clone();
                self.private(state, slot)
                    .store_term(place, self.wide, term, choices)
            }
        }
    }

    /// Runs the visible statement at the thread's pc.
    fn visible(
        &self,
        state: &mut State,
        slot: usize,
        choices: &mut dyn Choices,
    ) -> Step<Outcome<()>> {
        let pc = state.threads[slot].pc;
        let Some(Instr::Do(stmt)) = self.codes[slot].instrs.get(pc) else {
            return Err(self.unsupported(slot, pc, "a visible statement expected".into()));
        };
        let fail = |what: Unmodelled| self.unsupported(slot, pc, what.0);
        let drained = state.buffers[slot].is_empty();
        match stmt {
            SeqStmt::Read {
                target,
                address,
                stmt,
                ..
            } => {
                let location = match self.location(state, slot, address, *stmt, choices)? {
                    Ok(location) => location,
                    Err(outcome) => return Ok(outcome),
                };
                // a cell as `malloc` left it is a symbol in a symbolic run
                let cell = self
                    .uninitialised_cell(state, slot, location)
                    .filter(|_| choices.symbolic());
                if cell.is_none() {
                    self.check_initialised(state, slot, location)?;
                }
                let (value, from, mut carried) = read(state, slot, location);
                if let Some(cell) = cell {
                    let symbol = state
                        .symbolic
                        .cell(cell, self.wide, slot)
                        .map_err(|error| fail(Unmodelled(error.to_string())))?;
                    carried = Some(Arc::new(Carried {
                        term: Arc::new(symbol),
                        condition: Arc::new(Vec::new()),
                    }));
                }
                record(
                    state,
                    RecordKind::Read,
                    slot,
                    location,
                    value,
                    0,
                    from,
                    *stmt,
                );
                if let Some(carried) = &carried {
                    record_term(state, &carried.term);
                }
                self.store_read(state, slot, target, value, carried.as_deref(), choices)
                    .map_err(fail)?;
            }
            SeqStmt::Write {
                address,
                value,
                stmt,
                ..
            } => {
                let location = match self.location(state, slot, address, *stmt, choices)? {
                    Ok(location) => location,
                    Err(outcome) => return Ok(outcome),
                };
                let (value, term) = self
                    .widened_operand(state, slot, value, choices)
                    .map_err(fail)?;
                if !self.fits(value) {
                    return Ok(Outcome::CutOff);
                }
                let carried = term.map(|term| state.symbolic.carried(term));
                write(state, slot, location, value, carried, self.model, *stmt);
            }
            SeqStmt::Rmw {
                target,
                address,
                op,
                operand,
                expected,
                stmt,
            } => {
                if !drained {
                    return Ok(Outcome::Disabled);
                }
                let location = match self.location(state, slot, address, *stmt, choices)? {
                    Ok(location) => location,
                    Err(outcome) => return Ok(outcome),
                };
                self.check_initialised(state, slot, location)?;
                let old = state.memory.at(location);
                let old_term = carried_in_memory(state, location);
                if let Some(guess) = self.codes[slot].guesses.get(&pc) {
                    let old_carried = old_term.as_deref();
                    match self.resolve_guess(state, slot, guess, old, old_carried, choices)? {
                        Outcome::Next(()) => {}
                        Outcome::CutOff => {
                            // the move keeps its read, which decided the cut
                            let from = memory_id(state, location);
                            record(state, RecordKind::Rmw, slot, location, old, 0, from, *stmt);
                            return Ok(Outcome::CutOff);
                        }
                        other => return Ok(other),
                    }
                }
                let operand = self
                    .widened_operand(state, slot, operand, choices)
                    .map_err(fail)?;
                let expected = self
                    .widened_operand(state, slot, expected, choices)
                    .map_err(fail)?;
                let symbolic = old_term.is_some() || operand.1.is_some() || expected.1.is_some();
                if symbolic {
                    let old = (old, old_term);
                    let rmw = SymbolicRmw {
                        op: *op,
                        old,
                        operand,
                        expected,
                    };
                    return self
                        .symbolic_rmw(state, slot, location, rmw, target.as_ref(), *stmt, choices)
                        .map_err(fail);
                }
                let (operand, expected) = (operand.0, expected.0);
                let writes = *op != RmwCode::Cas || old == expected;
                let new = self.wide.convert(match op {
                    RmwCode::Add => old.wrapping_add(operand),
                    RmwCode::Sub => old.wrapping_sub(operand),
                    RmwCode::And => old & operand,
                    RmwCode::Or => old | operand,
                    RmwCode::Xor => old ^ operand,
                    RmwCode::Exchange | RmwCode::Cas => operand,
                });
                let from = memory_id(state, location);
                if writes && !self.fits(new) {
                    // the move keeps its read, which decided the value
                    record(state, RecordKind::Rmw, slot, location, old, 0, from, *stmt);
                    return Ok(Outcome::CutOff);
                }
                if writes {
                    let id = store_in_memory(state, location, new);
                    record(state, RecordKind::Rmw, slot, location, new, id, from, *stmt);
                } else {
                    record(state, RecordKind::Rmw, slot, location, old, 0, from, *stmt);
                }
                if let Some(target) = target {
                    self.private(state, slot)
                        .store(target, old, choices)
                        .map_err(fail)?;
                }
            }
            SeqStmt::Fence { kind, stmt } => match kind {
                FenceKind::Full => {
                    if !drained {
                        return Ok(Outcome::Disabled);
                    }
                    record(state, RecordKind::Fence, slot, 0, 0, 0, 0, *stmt);
                }
                FenceKind::StoreStore => {
                    state.epochs[slot] += 1;
                    record(state, RecordKind::StoreFence, slot, 0, 0, 0, 0, *stmt);
                }
            },
            SeqStmt::Lock {
                address,
                stmt: origin,
            }
            | SeqStmt::Unlock {
                address,
                stmt: origin,
            } => {
                let stmt = origin;
                let lock = matches!(self.codes[slot].instrs[pc], Instr::Do(SeqStmt::Lock { .. }));
                if !drained {
                    return Ok(Outcome::Disabled);
                }
                let location = match self.location(state, slot, address, *stmt, choices)? {
                    Ok(location) => location,
                    Err(outcome) => return Ok(outcome),
                };
                if lock {
                    self.check_initialised(state, slot, location)?;
                }
                if carried_in_memory(state, location).is_some() {
                    return Err(fail(Unmodelled(SYMBOLIC_MUTEX.into())));
                }
                if lock && state.memory.at(location) != 0 {
                    return Ok(Outcome::Disabled);
                }
                if lock {
                    state.held.push((location, slot));
                    state.held.sort_unstable();
                } else {
                    // an unlock of a mutex another thread holds (or none)
                    // frees it all the same, as the SMA's unlock does; a
                    // violation whose execution has one is reported as
                    // that unlock (`crate::trace::explain`)
                    state.held.retain(|&(held, _)| held != location);
                }
                let value = i64::from(lock);
                let id = store_in_memory(state, location, value);
                let kind = if lock {
                    RecordKind::Lock
                } else {
                    RecordKind::Unlock
                };
                record(state, kind, slot, location, value, id, 0, *stmt);
            }
            SeqStmt::TryLock {
                target,
                address,
                stmt,
            } => {
                if !drained {
                    return Ok(Outcome::Disabled);
                }
                let location = match self.location(state, slot, address, *stmt, choices)? {
                    Ok(location) => location,
                    Err(outcome) => return Ok(outcome),
                };
                self.check_initialised(state, slot, location)?;
                if carried_in_memory(state, location).is_some() {
                    return Err(fail(Unmodelled(SYMBOLIC_MUTEX.into())));
                }
                let taken = state.memory.at(location) == 0;
                if taken {
                    state.held.push((location, slot));
                    state.held.sort_unstable();
                    let id = store_in_memory(state, location, 1);
                    record(state, RecordKind::Lock, slot, location, 1, id, 0, *stmt);
                } else {
                    let from = memory_id(state, location);
                    record(
                        state,
                        RecordKind::LockBusy,
                        slot,
                        location,
                        1,
                        0,
                        from,
                        *stmt,
                    );
                }
                self.private(state, slot)
                    .store(target, i64::from(taken), choices)
                    .map_err(fail)?;
            }
            SeqStmt::Create { slot: child, stmt } => {
                if !drained {
                    return Ok(Outcome::Disabled);
                }
                match state.threads.get(*child).map(|t| t.status) {
                    Some(Status::NotCreated) => {}
                    _ => {
                        return Err(self.unsupported(
                            slot,
                            pc,
                            format!("a second creation of thread slot {child}"),
                        ));
                    }
                }
                record(state, RecordKind::Fence, slot, 0, 0, 0, 0, *stmt);
                record(
                    state,
                    RecordKind::Create,
                    slot,
                    *child as u32,
                    0,
                    0,
                    0,
                    *stmt,
                );
                state.thread_mut(*child).status = Status::Created;
                state.symbolic.inherit(slot, *child);
            }
            // RF-SMC's mode only (`super::sections`)
            SeqStmt::Malloc {
                target,
                size,
                zeroed,
                stmt,
            } => match self.malloc(state, slot, target, size, *zeroed, *stmt, choices)? {
                Outcome::Next(()) => {}
                other => return Ok(other),
            },
            SeqStmt::Free { address, stmt } => {
                match self.free(state, slot, address, *stmt, choices)? {
                    Outcome::Next(()) => {}
                    other => return Ok(other),
                }
            }
            SeqStmt::AtomicBegin { stmt } => {
                match self.section_boundary(state, slot, true, *stmt) {
                    Outcome::Next(()) => {}
                    other => return Ok(other),
                }
            }
            SeqStmt::AtomicEnd { stmt } => match self.section_boundary(state, slot, false, *stmt) {
                Outcome::Next(()) => {}
                other => return Ok(other),
            },
            SeqStmt::Join { handle, stmt } => {
                let joined = self.eval(state, slot, handle, choices).map_err(fail)?;
                let joined = CType {
                    bits: 32,
                    signed: false,
                }
                .convert(joined) as usize;
                let finished = state
                    .threads
                    .get(joined)
                    .is_some_and(|t| t.status == Status::Finished);
                if !finished || !state.buffers[joined].is_empty() {
                    return Ok(Outcome::Disabled);
                }
                record(state, RecordKind::Join, slot, joined as u32, 0, 0, 0, *stmt);
                state.symbolic.inherit(joined, slot);
            }
            other => {
                return Err(self.unsupported(
                    slot,
                    pc,
                    format!("the statement {}", statement_name(other)),
                ));
            }
        }
        Ok(Outcome::Next(()))
    }

    /// The location an access at `address` touches, or the violation the
    /// printed program reports for it.
    pub(super) fn location(
        &self,
        state: &mut State,
        slot: usize,
        address: &Expr,
        stmt: OriginId,
        choices: &mut dyn Choices,
    ) -> Step<Access> {
        let pc = state.threads[slot].pc;
        let value = self
            .eval(state, slot, address, choices)
            .map_err(|what| self.unsupported(slot, pc, what.0))?;
        let location = CType {
            bits: 32,
            signed: false,
        }
        .convert(value);
        let memory = &self.program.memory;
        let violation = |what: &str, kind: &'static str| Violation {
            slot,
            description: self.describe(stmt, what),
            kind,
            origin: None,
        };
        if let Some((first, scalars)) = memory.indexed_object(address) {
            let inside =
                (i64::from(first)..i64::from(first) + i64::from(scalars)).contains(&location);
            return Ok(if inside {
                Ok(location as u32)
            } else {
                Err(Outcome::Violated(violation(
                    crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS,
                    "array-bounds",
                )))
            });
        }
        if location == 0 && !matches!(address, Expr::Const(_)) {
            return Ok(Err(Outcome::Violated(violation(
                crate::ir::NULL_DEREFERENCE,
                "pointer-dereference",
            ))));
        }
        let static_end = i64::from(memory.heap_base);
        if location >= static_end && memory.heap_blocks > 0 {
            return self.heap_access(state, slot, address, location, stmt);
        }
        let in_pointee = memory.object_of(location).is_some_and(|(first, _)| {
            matches!(address, Expr::Const(_)) || memory.pointees.contains(&first)
        });
        if !in_pointee && !matches!(address, Expr::Const(_)) {
            // outside every object the program takes the address of: the
            // printed checks of a pointer's access (`valid_access`) flag
            // it with --pointer-check and cut the execution off without
            return self.heap_access(state, slot, address, location, stmt);
        }
        if location <= 0 || location >= static_end || !in_pointee {
            return Err(self.unsupported(
                slot,
                pc,
                format!(
                    "an access to location {location}, outside the objects the program may point to"
                ),
            ));
        }
        Ok(Ok(location as u32))
    }

    /// `file:line: what: text` of statement `stmt`, as the printer words it.
    pub(super) fn describe(&self, stmt: OriginId, what: &str) -> String {
        match self.program.map.origins.get(stmt) {
            Some(o) => format!("{}:{}: {what}: {}", o.file, o.line, o.text),
            None => what.into(),
        }
    }
}

impl<T> Outcome<T> {
    fn map_state(self) -> Outcome {
        match self {
            Outcome::Next(_) | Outcome::Disabled => Outcome::Disabled,
            Outcome::CutOff => Outcome::CutOff,
            Outcome::Violated(violation) => Outcome::Violated(violation),
        }
    }
}

/// The moves of RF-SMC's mode at sections (`super::sections`).
impl Machine<'_> {
    /// Whether `instr` ends a move before it: a visible statement, and in
    /// RF-SMC's mode a section's begin or end too, and an allocation or a
    /// `free` (a move of its own, inside the section that orders it, whose
    /// outcome depends on the allocator's state, which the lock's order
    /// fixes, and on no value it reads).
    pub fn is_visible(&self, instr: &Instr) -> bool {
        let Some(lock) = &self.sections else {
            return instr.is_visible();
        };
        match instr {
            Instr::Do(SeqStmt::AtomicBegin { .. } | SeqStmt::AtomicEnd { .. }) => true,
            Instr::Do(SeqStmt::Malloc { .. } | SeqStmt::Free { .. }) => lock.heap,
            _ => instr.is_visible(),
        }
    }

    /// A section's begin (`begin`) or end as a move of RF-SMC's mode: the
    /// begin takes the section lock (it cannot happen while another
    /// thread holds it), the end releases it; an end that closes nothing
    /// does nothing. Neither drains the thread's buffers.
    pub(super) fn section_boundary(
        &self,
        state: &mut State,
        slot: usize,
        begin: bool,
        stmt: OriginId,
    ) -> Outcome<()> {
        let Some(lock) = &self.sections else {
            return Outcome::Next(());
        };
        let location = lock.location;
        let pc = state.threads[slot].pc;
        // a wrapped access's section is the machine's own: no record
        let kind = |kind| {
            (!lock
                .wrapped
                .get(slot)
                .is_some_and(|wrapped| wrapped.contains(&pc)))
            .then_some(kind)
        };
        if begin {
            if state.memory.at(location) != 0 {
                return Outcome::Disabled;
            }
            state.atomic = Some(slot);
            store_in_memory(state, location, 1);
            if let Some(kind) = kind(RecordKind::AtomicBegin) {
                record(state, kind, slot, 0, 0, 0, 0, stmt);
            }
        } else {
            if state.atomic == Some(slot) {
                state.atomic = None;
                store_in_memory(state, location, 0);
            }
            if let Some(kind) = kind(RecordKind::AtomicEnd) {
                record(state, kind, slot, 0, 0, 0, 0, stmt);
            }
        }
        Outcome::Next(())
    }

    /// Whether some thread holds the section lock in `state` (the
    /// holder is [`State::atomic`], none when it ended inside its section).
    pub fn section_lock_held(&self, state: &State) -> bool {
        self.sections
            .as_ref()
            .is_some_and(|lock| state.memory.at(lock.location) != 0)
    }
}
