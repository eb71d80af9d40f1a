//! Who uses which plain global (thread handles, thread arguments, results,
//! thread-locals: the private C variables of the sequential program that
//! threads share through creation and joins), read once off the threads'
//! code: the elements each thread's statements read, the positions of the
//! statements that write one, and the thread that creates each slot.
//! RF-SMC, whose events are the accesses to shared memory only, asks it
//! whether a change of a plain global can be observed in an order its
//! reads-from classes do not fix (`rf::run`). Per instruction, it also
//! keeps the plain parts the instruction reads and writes, so that a
//! recorded run notes each plain access a move makes
//! ([`PlainUses::accesses`]) for RF-SMC's happens-before check of them.

use crate::ir::{Expr, Place, visit_expr};
use crate::passes::SeqStmt;
use crate::smc::interpreter::code::{Code, Instr};
use crate::smc::interpreter::value::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A part of a plain global: the whole global, or one element of a plain
/// array (its first index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlainPart {
    pub global: usize,
    /// The element, when the access names it by a constant index; `None`
    /// for the whole global or an index computed at run time.
    pub element: Option<i64>,
}

/// How an access names the element of a plain global array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ElementName {
    /// The whole global, or an index no simple rule resolves.
    Whole,
    Constant(i64),
    /// The value of a private local (`seen[me]`), read when the
    /// instruction runs.
    Local(usize),
}

/// A plain access an instruction makes, its element resolved at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AccessName {
    global: usize,
    element: ElementName,
    write: bool,
}

/// One access to a plain global part made by a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainAccess {
    pub part: PlainPart,
    pub write: bool,
    /// Made by the private statements a thread runs before its first
    /// visible statement, which the lazy scheme runs as a context of
    /// their own and the machine with that statement.
    pub prefix: bool,
}

impl PlainPart {
    /// Whether two parts may be the same memory: the same global, and the
    /// same element or one of them the whole global.
    pub fn overlaps(self, other: PlainPart) -> bool {
        self.global == other.global
            && match (self.element, other.element) {
                (Some(mine), Some(theirs)) => mine == theirs,
                _ => true,
            }
    }
}

/// The elements of one plain global a thread reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ReadElements {
    /// Some read names no constant element: any element may be read.
    any: bool,
    elements: BTreeSet<i64>,
}

/// The plain globals the threads use, by thread slot.
#[derive(Debug, Clone, Default)]
pub struct PlainUses {
    /// Per thread: the elements of each plain global its code reads.
    reads: Vec<BTreeMap<usize, ReadElements>>,
    /// Per thread: the instructions that write a plain global, in code
    /// order, each with the part it writes.
    writes: Vec<Vec<(usize, PlainPart)>>,
    /// Per slot: the one thread whose code creates it (`None`: main, a
    /// slot nothing creates, or one more than one thread creates).
    creators: Vec<Option<usize>>,
    /// Per thread, per instruction: the plain accesses it makes.
    by_instruction: Vec<Vec<Vec<AccessName>>>,
}

impl PlainUses {
    /// The uses in the threads' flattened code.
    pub fn of(codes: &[Code]) -> PlainUses {
        let mut uses = PlainUses {
            reads: vec![BTreeMap::new(); codes.len()],
            writes: vec![Vec::new(); codes.len()],
            creators: vec![None; codes.len()],
            by_instruction: codes
                .iter()
                .map(|code| code.instrs.iter().map(access_names).collect())
                .collect(),
        };
        let mut created_by: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); codes.len()];
        for (slot, code) in codes.iter().enumerate() {
            for (at, instr) in code.instrs.iter().enumerate() {
                let mut read =
                    |part: PlainPart| uses.reads[slot].entry(part.global).or_default().add(part);
                instr_reads(instr, &mut read);
                if let Instr::Do(stmt) = instr {
                    if let Some(part) = target(stmt).and_then(plain_part) {
                        uses.writes[slot].push((at, part));
                    }
                    if let SeqStmt::Create { slot: child, .. } = stmt
                        && let Some(creators) = created_by.get_mut(*child)
                    {
                        creators.insert(slot);
                    }
                }
            }
        }
        for (slot, creators) in created_by.iter().enumerate() {
            if let [creator] = creators.iter().copied().collect::<Vec<_>>()[..] {
                uses.creators[slot] = Some(creator);
            }
        }
        uses
    }

    /// Whether thread `reader`'s code reads `part` (any element of it, for
    /// the whole global).
    pub fn reads(&self, reader: usize, part: PlainPart) -> bool {
        let Some(read) = self.reads.get(reader).and_then(|r| r.get(&part.global)) else {
            return false;
        };
        match part.element {
            None => true,
            Some(element) => read.any || read.elements.contains(&element),
        }
    }

    /// The parts that thread `slot`'s instructions from `from` up to (not
    /// including) `to` may write.
    pub fn written(&self, slot: usize, from: usize, to: usize) -> impl Iterator<Item = PlainPart> {
        let writes = self.writes.get(slot).map_or(&[][..], Vec::as_slice);
        let first = writes.partition_point(|(at, _)| *at < from);
        writes[first..]
            .iter()
            .take_while(move |(at, _)| *at < to)
            .map(|(_, part)| *part)
    }

    /// Whether some instruction of some thread touches a plain global.
    pub fn any(&self) -> bool {
        self.by_instruction
            .iter()
            .flatten()
            .any(|names| !names.is_empty())
    }

    /// Calls `access` on each plain access of `slot`'s instruction at
    /// `pc`, its elements named by locals resolved in `locals` (a local
    /// that holds no known integer names the whole global).
    pub fn accesses(
        &self,
        slot: usize,
        pc: usize,
        locals: &[Value],
        access: &mut dyn FnMut(PlainPart, bool),
    ) {
        let Some(names) = self.by_instruction.get(slot).and_then(|code| code.get(pc)) else {
            return;
        };
        for name in names {
            let element = match name.element {
                ElementName::Whole => None,
                ElementName::Constant(element) => Some(element),
                ElementName::Local(local) => match locals.get(local) {
                    Some(Value::Scalar(element)) => Some(*element),
                    _ => None,
                },
            };
            let part = PlainPart {
                global: name.global,
                element,
            };
            access(part, name.write);
        }
    }

    /// The one thread that creates `slot`, if exactly one does.
    pub fn creator(&self, slot: usize) -> Option<usize> {
        self.creators.get(slot).copied().flatten()
    }
}

impl ReadElements {
    fn add(&mut self, part: PlainPart) {
        match part.element {
            Some(element) => {
                self.elements.insert(element);
            }
            None => self.any = true,
        }
    }
}

/// The plain global part a place lies in, if it lies in one.
pub fn plain_part(place: &Place) -> Option<PlainPart> {
    match place {
        Place::PlainGlobal(global) => Some(PlainPart {
            global: *global,
            element: None,
        }),
        Place::Index(base, index) => match (&**base, &**index) {
            (Place::PlainGlobal(global), Expr::Const(element)) => Some(PlainPart {
                global: *global,
                element: Some(*element),
            }),
            _ => plain_part(base),
        },
        Place::Field(base, _) => plain_part(base),
        Place::Local(_) => None,
    }
}

/// The plain global access a place names, if it lies in a plain global.
fn access_name(place: &Place, write: bool) -> Option<AccessName> {
    let element = match place {
        Place::PlainGlobal(global) => {
            return Some(AccessName {
                global: *global,
                element: ElementName::Whole,
                write,
            });
        }
        Place::Index(base, index) => match (&**base, &**index) {
            (Place::PlainGlobal(global), Expr::Const(element)) => {
                Some((*global, ElementName::Constant(*element)))
            }
            (Place::PlainGlobal(global), Expr::Load(Place::Local(local))) => {
                Some((*global, ElementName::Local(*local)))
            }
            _ => None,
        },
        Place::Field(base, _) => return access_name(base, write),
        Place::Local(_) => None,
    };
    match element {
        Some((global, element)) => Some(AccessName {
            global,
            element,
            write,
        }),
        None => plain_part(place).map(|part| AccessName {
            global: part.global,
            element: ElementName::Whole,
            write,
        }),
    }
}

/// The plain accesses of one instruction: its reads, then the write of
/// its target.
fn access_names(instr: &Instr) -> Vec<AccessName> {
    let mut names = Vec::new();
    instr_places(instr, &mut |place| names.extend(access_name(place, false)));
    if let Instr::Do(stmt) = instr
        && let Some(name) = target(stmt).and_then(|place| access_name(place, true))
    {
        names.push(name);
    }
    names
}

/// The place a statement stores a private value into.
fn target(stmt: &SeqStmt) -> Option<&Place> {
    match stmt {
        SeqStmt::Assign(place, _)
        | SeqStmt::Read { target: place, .. }
        | SeqStmt::TryLock { target: place, .. }
        | SeqStmt::Malloc { target: place, .. } => Some(place),
        SeqStmt::Rmw { target, .. } => target.as_ref(),
        _ => None,
    }
}

/// Calls `read` on each plain global part `instr` reads: its expressions,
/// and the indices of the place it stores into.
fn instr_reads(instr: &Instr, read: &mut dyn FnMut(PlainPart)) {
    instr_places(instr, &mut |place| {
        if let Some(part) = plain_part(place) {
            read(part);
        }
    });
}

/// Calls `loaded` on each place `instr` loads a value from: in its
/// expressions, and in the indices of the place it stores into.
fn instr_places(instr: &Instr, loaded: &mut dyn FnMut(&Place)) {
    let mut exprs: Vec<&Expr> = Vec::new();
    match instr {
        Instr::BranchUnless { condition, .. } => exprs.push(condition),
        Instr::Jump(_) => {}
        Instr::Do(stmt) => {
            statement_exprs(stmt, &mut exprs);
            if let Some(place) = target(stmt) {
                crate::ir::collect_place(place, &mut exprs);
            }
        }
    }
    for expr in exprs {
        visit_expr(expr, &mut |e| {
            if let Expr::Load(place) = e {
                loaded(place);
            }
        });
    }
}

/// The expressions a statement evaluates (its target's indices aside).
fn statement_exprs<'s>(stmt: &'s SeqStmt, exprs: &mut Vec<&'s Expr>) {
    match stmt {
        SeqStmt::Assign(_, value) => exprs.push(value),
        SeqStmt::Read { address, .. }
        | SeqStmt::Lock { address, .. }
        | SeqStmt::Unlock { address, .. }
        | SeqStmt::TryLock { address, .. }
        | SeqStmt::Free { address, .. } => exprs.push(address),
        SeqStmt::Write { address, value, .. } => exprs.extend([address, value]),
        SeqStmt::Rmw {
            address,
            operand,
            expected,
            ..
        } => exprs.extend([address, operand, expected]),
        SeqStmt::Malloc { size, .. } => exprs.push(size),
        SeqStmt::Assert { condition, .. }
        | SeqStmt::Assume(condition)
        | SeqStmt::LoopBound { condition, .. }
        | SeqStmt::Await { condition, .. } => exprs.push(condition),
        SeqStmt::If {
            condition,
            then_branch,
            else_branch,
        } => {
            exprs.push(condition);
            for nested in then_branch.iter().chain(else_branch) {
                statement_exprs(nested, exprs);
                if let Some(place) = target(nested) {
                    crate::ir::collect_place(place, exprs);
                }
            }
        }
        SeqStmt::Join { handle, .. } => exprs.push(handle),
        SeqStmt::Guard(_)
        | SeqStmt::ResumeCheck(_)
        | SeqStmt::Fence { .. }
        | SeqStmt::Goto(_)
        | SeqStmt::Label(_)
        | SeqStmt::Create { .. }
        | SeqStmt::AtomicBegin { .. }
        | SeqStmt::AtomicEnd { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(global: usize, element: i64) -> PlainPart {
        PlainPart {
            global,
            element: Some(element),
        }
    }

    fn code(stmts: Vec<SeqStmt>) -> Code {
        Code {
            instrs: stmts.into_iter().map(Instr::Do).collect(),
            ..Code::default()
        }
    }

    #[test]
    fn a_constant_index_names_one_element_and_a_computed_one_every_element() {
        let by_constant = Expr::Load(Place::plain_element(0, Expr::Const(2)));
        let by_local = Expr::Load(Place::plain_element(1, Expr::Load(Place::Local(0))));
        let codes = vec![
            code(vec![SeqStmt::Create { slot: 1, stmt: 0 }]),
            code(vec![
                SeqStmt::Assign(Place::Local(0), by_constant),
                SeqStmt::Assume(by_local),
            ]),
        ];
        let uses = PlainUses::of(&codes);
        assert!(uses.reads(1, element(0, 2)));
        assert!(!uses.reads(1, element(0, 1)));
        assert!(uses.reads(1, element(1, 7)));
        assert!(!uses.reads(0, element(0, 2)));
        assert_eq!(uses.creator(1), Some(0));
        assert_eq!(uses.creator(0), None);
    }

    #[test]
    fn writes_are_found_by_position_and_an_index_of_a_target_is_read() {
        let index = Expr::Load(Place::PlainGlobal(3));
        let codes = vec![code(vec![
            SeqStmt::Assign(Place::Local(0), Expr::Const(1)),
            SeqStmt::Assign(Place::plain_element(2, Expr::Const(1)), Expr::Const(5)),
            SeqStmt::Assign(Place::plain_element(2, index), Expr::Const(5)),
        ])];
        let uses = PlainUses::of(&codes);
        let written: Vec<PlainPart> = uses.written(0, 0, 3).collect();
        assert_eq!(
            written,
            vec![
                element(2, 1),
                PlainPart {
                    global: 2,
                    element: None
                }
            ]
        );
        assert_eq!(uses.written(0, 2, 3).count(), 1);
        assert_eq!(uses.written(0, 0, 1).count(), 0);
        assert!(uses.reads(0, element(3, 0)));
    }
}
