//! Points-to facts: the locations an access through a pointer the program
//! computes may reach, found from where the pointer's value came from. A
//! pointer value is made only where the program takes an object's address
//! (`&x`, an array that decays, a string literal: the objects of
//! [`MemoryLayout::pointees`]) or allocates (`malloc`: a heap block); it
//! then flows through private locals, shared memory and arithmetic. So an
//! access through `j->next`, `j` loaded from a queue, reaches the `next`
//! member of the heap blocks, not `main`'s counters.
//!
//! A value may be exactly one location (`&s.next`, one past the end of an
//! array), anywhere in one static object (after an offset the analysis
//! does not know), one member of every heap block, or anywhere in the heap.
//! A constant offset moves a pointer; the front end puts the pointer first
//! (`p + 1`, `&a[i]` is `a + i`), so a constant added last is an offset and
//! no address, and an index added to a constant address stays in the
//! object holding it (the front end keeps a constant moved out of its
//! object a sum, `a + 3`, whose `a` is the object). A constant counts as
//! an address only of an object whose address the program takes.
//!
//! The facts hold for every execution in which no pointer leaves what it
//! may point into: the printer checks each access through a pointer
//! against [`PointsTo::locations`] and reports one outside them as a
//! pointer outside its object.
//!
//! The analysis is flow-insensitive: one set of pointees per private
//! variable of each thread, per static location, and per scalar of a heap
//! block (the same member of every block: a heap block is a struct the
//! program allocates again and again), found by iterating over every
//! thread's statements until nothing changes.

use super::{MemoryLayout, RmwCode, SeqStmt, SeqThread, SequentialProgram};
use crate::ir::{BinaryOp, Expr, LocalId, Place, PlainGlobalId, UnaryOp};
use std::collections::{BTreeMap, BTreeSet};

/// What a pointer value may point into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pointee {
    /// Exactly this static location (`&s.next`, `&a[2]`, one past the end
    /// of an array).
    Location(u32),
    /// Any location of a static object, by its first location.
    Object(u32),
    /// Scalar `k` of any heap block.
    HeapScalar(u32),
    /// Any heap location.
    Heap,
}

/// The pointees of a value; `anything` when it may point anywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Pointees {
    set: BTreeSet<Pointee>,
    anything: bool,
}

impl Pointees {
    fn one(pointee: Pointee) -> Pointees {
        Pointees {
            set: BTreeSet::from([pointee]),
            anything: false,
        }
    }

    fn anything() -> Pointees {
        Pointees {
            set: BTreeSet::new(),
            anything: true,
        }
    }

    fn is_empty(&self) -> bool {
        self.set.is_empty() && !self.anything
    }

    /// Adds `other`; whether that added anything.
    fn absorb(&mut self, other: &Pointees) -> bool {
        let before = (self.set.len(), self.anything);
        self.anything |= other.anything;
        self.set.extend(other.set.iter().copied());
        if self.set.contains(&Pointee::Heap) {
            self.set
                .retain(|pointee| !matches!(pointee, Pointee::HeapScalar(_)));
        }
        before != (self.set.len(), self.anything)
    }

    fn union(mut self, other: &Pointees) -> Pointees {
        self.absorb(other);
        self
    }

    /// The union of what `f` makes of each pointee (`anything` stays).
    fn map(self, f: impl Fn(Pointee) -> Pointees) -> Pointees {
        let mut mapped = Pointees {
            set: BTreeSet::new(),
            anything: self.anything,
        };
        for pointee in self.set {
            mapped.absorb(&f(pointee));
        }
        mapped
    }
}

/// A private variable: a local of one thread, or a plain global.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Variable {
    Local(usize, LocalId),
    PlainGlobal(PlainGlobalId),
}

/// Where shared memory keeps pointer values: a static location, or one
/// scalar of every heap block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cell {
    Static(u32),
    HeapScalar(u32),
}

/// The points-to facts of a sequential program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointsTo {
    variables: BTreeMap<Variable, Pointees>,
    cells: BTreeMap<Cell, Pointees>,
    /// What a store through an address that may point anywhere wrote: it
    /// may be in every cell.
    everywhere: Pointees,
    /// Whether heap pointers are followed per scalar: only where a pointer
    /// value is the location id itself (not a byte address, whose offsets
    /// count bytes).
    per_scalar: bool,
    memory: MemoryLayout,
}

/// Finds the points-to facts of `program`.
pub fn points_to(program: &SequentialProgram) -> PointsTo {
    PointsTo::of(
        &program.memory,
        program.map.value_types.byte_addresses,
        &program.threads,
    )
}

impl PointsTo {
    /// The facts of `threads` over `memory` (pointer values are byte
    /// addresses with `byte_addresses`).
    fn of(memory: &MemoryLayout, byte_addresses: bool, threads: &[SeqThread]) -> PointsTo {
        let mut facts = PointsTo {
            variables: BTreeMap::new(),
            cells: BTreeMap::new(),
            everywhere: Pointees::default(),
            per_scalar: !byte_addresses,
            memory: memory.clone(),
        };
        let unit = facts.unit();
        for (location, &initial) in memory.initial_values.iter().enumerate() {
            let pointees = facts.constant(initial, unit);
            if !pointees.is_empty() {
                facts
                    .cells
                    .entry(Cell::Static(location as u32))
                    .or_default()
                    .absorb(&pointees);
            }
        }
        while threads.iter().fold(false, |changed, thread| {
            facts.block(thread.slot, &thread.body) | changed
        }) {}
        facts
    }

    /// The pointer value of location 1.
    fn unit(&self) -> i64 {
        if self.per_scalar {
            1
        } else {
            crate::ir::BYTE_ADDRESS_UNIT
        }
    }

    /// The locations an access of thread `slot` at `address` may reach, in
    /// order; None when it may reach any.
    pub fn locations(&self, slot: usize, address: &Expr) -> Option<Vec<u32>> {
        let reach = self.reach(slot, address)?;
        Some(reach.into_keys().collect())
    }

    /// The locations an access of thread `slot` at `address` may reach,
    /// each with whether the analysis knows it exactly (`&s.next`, a
    /// constant offset from one) rather than as any location of its
    /// object or of the heap; None when it may reach any.
    pub fn reach(&self, slot: usize, address: &Expr) -> Option<BTreeMap<u32, bool>> {
        if let Expr::Const(location) = address {
            return Some(
                u32::try_from(*location).map_or(BTreeMap::new(), |location| {
                    BTreeMap::from([(location, true)])
                }),
            );
        }
        // an index into a static object stays in it, whether or not the
        // program takes its address (out of it is out of bounds)
        if let Some((first, scalars)) = self.memory.indexed_object(address) {
            return Some(
                (first..first.saturating_add(scalars))
                    .map(|location| (location, false))
                    .collect(),
            );
        }
        let pointees = self.value(slot, address, 1);
        if pointees.anything {
            return None;
        }
        let layout = &self.memory;
        let mut locations = BTreeMap::new();
        let mut add = |location: u32, exact: bool| {
            *locations.entry(location).or_insert(exact) |= exact;
        };
        for pointee in pointees.set {
            match pointee {
                Pointee::Location(location) => add(location, true),
                Pointee::Object(first) => {
                    let scalars = layout
                        .object_of(i64::from(first))
                        .map_or(0, |(_, scalars)| scalars);
                    (first..first + scalars).for_each(|location| add(location, false));
                }
                Pointee::HeapScalar(k) => {
                    let blocks = 0..layout.heap_blocks;
                    blocks.for_each(|block| {
                        add(layout.heap_base + block * layout.heap_block_size + k, false)
                    });
                }
                Pointee::Heap => {
                    (layout.heap_base..layout.location_count()).for_each(|l| add(l, false))
                }
            }
        }
        Some(locations)
    }

    /// Follows the statements of `body` (thread `slot`) once; whether
    /// anything was added.
    fn block(&mut self, slot: usize, body: &[SeqStmt]) -> bool {
        let mut changed = false;
        for stmt in body {
            changed |= self.stmt(slot, stmt);
        }
        changed
    }

    /// Follows `stmt` once; whether anything was added.
    fn stmt(&mut self, slot: usize, stmt: &SeqStmt) -> bool {
        let unit = self.unit();
        match stmt {
            SeqStmt::Assign(place, value) => {
                let pointees = self.value(slot, value, unit);
                self.assign(slot, place, &pointees)
            }
            SeqStmt::Read {
                target, address, ..
            } => {
                let pointees = self.load(slot, address);
                self.assign(slot, target, &pointees)
            }
            SeqStmt::Write { address, value, .. } => {
                let pointees = self.value(slot, value, unit);
                self.store(slot, address, &pointees)
            }
            SeqStmt::Rmw {
                target,
                address,
                op,
                operand,
                ..
            } => {
                let old = self.load(slot, address);
                let new = match (op, operand) {
                    (RmwCode::Exchange | RmwCode::Cas, _) => self.value(slot, operand, unit),
                    // a constant step or mask is no address
                    (_, Expr::Const(_)) => self.blurred(old.clone()),
                    _ => self.blurred(old.clone().union(&self.value(slot, operand, unit))),
                };
                let assigned = target
                    .as_ref()
                    .is_some_and(|target| self.assign(slot, target, &old));
                self.store(slot, address, &new) | assigned
            }
            SeqStmt::Malloc { target, .. } => {
                let block = if self.per_scalar {
                    Pointee::HeapScalar(0)
                } else {
                    Pointee::Heap
                };
                self.assign(slot, target, &Pointees::one(block))
            }
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => self.block(slot, then_branch) | self.block(slot, else_branch),
            SeqStmt::Guard(_)
            | SeqStmt::ResumeCheck(_)
            | SeqStmt::Fence { .. }
            | SeqStmt::Lock { .. }
            | SeqStmt::Unlock { .. }
            | SeqStmt::TryLock { .. }
            | SeqStmt::Free { .. }
            | SeqStmt::Assert { .. }
            | SeqStmt::Assume(_)
            | SeqStmt::Await { .. }
            | SeqStmt::LoopBound { .. }
            | SeqStmt::Goto(_)
            | SeqStmt::Label(_)
            | SeqStmt::Create { .. }
            | SeqStmt::Join { .. }
            | SeqStmt::AtomicBegin { .. }
            | SeqStmt::AtomicEnd { .. } => false,
        }
    }

    /// Adds `pointees` to the private variable `place` belongs to.
    fn assign(&mut self, slot: usize, place: &Place, pointees: &Pointees) -> bool {
        if pointees.is_empty() {
            return false;
        }
        self.variables
            .entry(variable(slot, place))
            .or_default()
            .absorb(pointees)
    }

    /// The cells an access at `address` may reach; None: any.
    fn cells(&self, slot: usize, address: &Expr) -> Option<Vec<Cell>> {
        let locations = self.locations(slot, address)?;
        let layout = &self.memory;
        let cell = |location: u32| match location >= layout.heap_base && layout.heap_block_size > 0
        {
            true if self.per_scalar => {
                Cell::HeapScalar((location - layout.heap_base) % layout.heap_block_size)
            }
            true => Cell::HeapScalar(0),
            false => Cell::Static(location),
        };
        let cells: BTreeSet<Cell> = locations.into_iter().map(cell).collect();
        Some(cells.into_iter().collect())
    }

    /// The pointees of a value loaded from `address`.
    fn load(&self, slot: usize, address: &Expr) -> Pointees {
        let mut loaded = self.everywhere.clone();
        match self.cells(slot, address) {
            Some(cells) => cells
                .iter()
                .filter_map(|cell| self.cells.get(cell))
                .for_each(|pointees| {
                    loaded.absorb(pointees);
                }),
            None => self.cells.values().for_each(|pointees| {
                loaded.absorb(pointees);
            }),
        }
        loaded
    }

    /// Stores a value of `pointees` at `address`.
    fn store(&mut self, slot: usize, address: &Expr, pointees: &Pointees) -> bool {
        if pointees.is_empty() {
            return false;
        }
        match self.cells(slot, address) {
            Some(cells) => cells.into_iter().fold(false, |changed, cell| {
                self.cells.entry(cell).or_default().absorb(pointees) | changed
            }),
            None => self.everywhere.absorb(pointees),
        }
    }

    /// The pointees of `expr` in thread `slot`, where a constant that is
    /// an address is `unit` times its location (1 for an access's
    /// location, [`Self::unit`] for a value).
    fn value(&self, slot: usize, expr: &Expr, unit: i64) -> Pointees {
        match expr {
            Expr::Const(c) => self.constant(*c, unit),
            Expr::Load(place) => self
                .variables
                .get(&variable(slot, place))
                .cloned()
                .unwrap_or_default(),
            Expr::ObjectAddress(_) => Pointees::anything(),
            // a floating value, or its bits, points nowhere
            Expr::Unary(UnaryOp::Not, _)
            | Expr::Nondet(_)
            | Expr::CurrentThread
            | Expr::FloatConst(_)
            | Expr::Reinterpret(..)
            | Expr::LibraryCall(..) => Pointees::default(),
            Expr::Unary(_, a) => self.blurred(self.value(slot, a, unit)),
            Expr::Cast(_, a) => self.value(slot, a, unit),
            Expr::Conditional(_, a, b) => {
                self.value(slot, a, unit).union(&self.value(slot, b, unit))
            }
            Expr::Binary(op, a, b) => self.binary(slot, *op, a, b, unit),
        }
    }

    /// The pointees of `a op b`. A constant added last is an offset (the
    /// front end puts the pointer first: `p + 1`, `&a[i]` is `a + i`), and
    /// so is a constant factor, divisor, shift or mask (a pointer's bits
    /// taken apart): no address.
    fn binary(&self, slot: usize, op: BinaryOp, a: &Expr, b: &Expr, unit: i64) -> Pointees {
        use BinaryOp::*;
        match (op, a, b) {
            (Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr, _, _) => Pointees::default(),
            (Add | Sub, pointer, Expr::Const(offset)) => {
                let offset = if op == Sub {
                    offset.wrapping_neg()
                } else {
                    *offset
                };
                self.shifted(self.value(slot, pointer, unit), offset, unit)
            }
            // an index into the object holding the constant (`&a[i]`):
            // the front end keeps a constant that left its object a sum
            (Add, Expr::Const(base), index) => {
                let indexed = self.within_objects(self.constant(*base, unit));
                indexed.union(&self.blurred(self.value(slot, index, unit)))
            }
            (_, operand, Expr::Const(_))
            | (Mul | Div | Rem | Shl | Shr | BitAnd | BitOr | BitXor, Expr::Const(_), operand) => {
                self.blurred(self.value(slot, operand, unit))
            }
            _ => self.blurred(self.value(slot, a, unit).union(&self.value(slot, b, unit))),
        }
    }

    /// `pointees` moved by `offset` (in units of `unit`): an exact
    /// location moves by it, a heap scalar moves within its block (or may
    /// be any heap location once outside).
    fn shifted(&self, pointees: Pointees, offset: i64, unit: i64) -> Pointees {
        if offset % unit != 0 {
            return self.blurred(pointees);
        }
        let (offset, size) = (offset / unit, i64::from(self.memory.heap_block_size));
        let moved = |from: u32| {
            i64::from(from)
                .checked_add(offset)
                .and_then(|to| u32::try_from(to).ok())
        };
        pointees.map(|pointee| match pointee {
            // a location past every other one is no address: the pointer
            // may be anywhere in its object (the locations stay finitely
            // many, so the iteration ends)
            Pointee::Location(location) => {
                match moved(location).filter(|&to| to > 0 && to <= self.memory.location_count()) {
                    Some(location) => Pointees::one(Pointee::Location(location)),
                    None => self.blurred(Pointees::one(pointee)),
                }
            }
            Pointee::HeapScalar(k) => match moved(k).filter(|&k| i64::from(k) < size) {
                Some(k) => Pointees::one(Pointee::HeapScalar(k)),
                None => Pointees::one(Pointee::Heap),
            },
            other => Pointees::one(other),
        })
    }

    /// `pointees` after an offset the analysis does not know: an exact
    /// location may be any of its object (or of the object it is one past
    /// the end of), a heap scalar any heap location.
    fn blurred(&self, pointees: Pointees) -> Pointees {
        let layout = &self.memory;
        pointees.map(|pointee| match pointee {
            Pointee::Location(location) if location < layout.heap_base => {
                let objects = [Some(location), location.checked_sub(1)]
                    .into_iter()
                    .flatten();
                let firsts = objects
                    .filter_map(|location| layout.object_of(i64::from(location)))
                    .map(|(first, _)| first);
                Pointees {
                    set: firsts.map(Pointee::Object).collect(),
                    anything: false,
                }
            }
            Pointee::Location(_) | Pointee::HeapScalar(_) | Pointee::Heap => {
                Pointees::one(Pointee::Heap)
            }
            object @ Pointee::Object(_) => Pointees::one(object),
        })
    }

    /// `pointees` with each exact static location widened to its object
    /// (not to the one it may be one past the end of).
    fn within_objects(&self, pointees: Pointees) -> Pointees {
        let layout = &self.memory;
        pointees.map(|pointee| match pointee {
            Pointee::Location(location) if location < layout.heap_base => {
                let object = layout
                    .object_of(i64::from(location))
                    .map(|(first, _)| Pointee::Object(first));
                Pointees {
                    set: object.into_iter().collect(),
                    anything: false,
                }
            }
            Pointee::Location(_) | Pointee::HeapScalar(_) | Pointee::Heap => {
                Pointees::one(Pointee::Heap)
            }
            object @ Pointee::Object(_) => Pointees::one(object),
        })
    }

    /// The pointees of the constant `c` as an address (`unit` times a
    /// location): that location, if it is inside or one past the end of an
    /// object whose address the program takes; a heap scalar.
    fn constant(&self, c: i64, unit: i64) -> Pointees {
        let layout = &self.memory;
        let location = match u32::try_from(c.div_euclid(unit)) {
            Ok(location) if location > 0 => location,
            _ => return Pointees::default(),
        };
        if location >= layout.heap_base && layout.heap_blocks > 0 {
            let scalar = (location - layout.heap_base) % layout.heap_block_size;
            let pointee = match self.per_scalar && location < layout.location_count() {
                true => Pointee::HeapScalar(scalar),
                false => Pointee::Heap,
            };
            return Pointees::one(pointee);
        }
        let taken = |location: u32| {
            layout
                .object_of(i64::from(location))
                .is_some_and(|(first, _)| layout.pointees.contains(&first))
        };
        match taken(location) || location.checked_sub(1).is_some_and(taken) {
            true if c % unit == 0 => Pointees::one(Pointee::Location(location)),
            true => self.blurred(Pointees::one(Pointee::Location(location))),
            false => Pointees::default(),
        }
    }
}

/// How precise the facts are at the accesses through pointers (what
/// `examples/points_to_precision.rs` sums over a corpus): an access whose
/// address is neither a constant location nor an index into one static
/// object, counted with the locations and objects the facts let it reach.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Precision {
    /// The accesses through pointers.
    pub dereferences: u64,
    /// Of those, the ones the facts let reach any location.
    pub anywhere: u64,
    /// The locations they may reach, summed (every location, the null
    /// location aside, for one that may reach any).
    pub locations: u64,
    /// The objects they may reach, summed: each static object, and the
    /// heap as one.
    pub objects: u64,
}

impl Precision {
    /// The precision of `facts` at the accesses of `threads`.
    pub fn of(facts: &PointsTo, threads: &[SeqThread]) -> Precision {
        let mut precision = Precision::default();
        for thread in threads {
            precision.add_block(facts, thread.slot, &thread.body);
        }
        precision
    }

    /// Counts the accesses through pointers of `body` (thread `slot`).
    fn add_block(&mut self, facts: &PointsTo, slot: usize, body: &[SeqStmt]) {
        for stmt in body {
            match stmt {
                SeqStmt::Read { address, .. }
                | SeqStmt::Write { address, .. }
                | SeqStmt::Rmw { address, .. }
                | SeqStmt::Lock { address, .. }
                | SeqStmt::Unlock { address, .. }
                | SeqStmt::TryLock { address, .. } => self.add_access(facts, slot, address),
                SeqStmt::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    self.add_block(facts, slot, then_branch);
                    self.add_block(facts, slot, else_branch);
                }
                _ => {}
            }
        }
    }

    /// Counts the access at `address` if it goes through a pointer.
    fn add_access(&mut self, facts: &PointsTo, slot: usize, address: &Expr) {
        let memory = &facts.memory;
        if matches!(address, Expr::Const(_)) || memory.indexed_object(address).is_some() {
            return;
        }
        self.dereferences += 1;
        let heap = memory.heap_base..memory.location_count();
        let Some(locations) = facts.locations(slot, address) else {
            self.anywhere += 1;
            self.locations += u64::from(memory.location_count().saturating_sub(1));
            self.objects += memory.objects.len() as u64 + u64::from(!heap.is_empty());
            return;
        };
        let objects: BTreeSet<Option<u32>> = locations
            .iter()
            .map(|&location| match heap.contains(&location) {
                true => None,
                false => memory
                    .object_of(i64::from(location))
                    .map(|(first, _)| first),
            })
            .collect();
        self.locations += locations.len() as u64;
        self.objects += objects.len() as u64;
    }
}

/// The private variable `place` is part of.
fn variable(slot: usize, place: &Place) -> Variable {
    match place {
        Place::Local(local) => Variable::Local(slot, *local),
        Place::PlainGlobal(global) => Variable::PlainGlobal(*global),
        Place::Index(inner, _) | Place::Field(inner, _) => variable(slot, inner),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Ty;

    /// Locations 1-2 are `a` (its address taken), 3 `secret`, 4 `head`
    /// (taken); the heap starts at 5: two blocks of two scalars.
    fn layout() -> MemoryLayout {
        MemoryLayout {
            initial_values: vec![0; 5],
            heap_base: 5,
            heap_blocks: 2,
            heap_block_size: 2,
            objects: vec![(1, 2), (3, 1), (4, 1)],
            pointees: BTreeSet::from([1, 4]),
            padding: Vec::new(),
            heap_needs: None,
        }
    }

    fn thread(slot: usize, body: Vec<SeqStmt>) -> SeqThread {
        SeqThread {
            slot,
            function: format!("thread{slot}"),
            instance: 0,
            locals: Vec::new(),
            body,
            lines: 0,
            label_names: BTreeMap::new(),
            assertions: BTreeMap::new(),
        }
    }

    fn load(local: LocalId) -> Expr {
        Expr::Load(Place::Local(local))
    }

    fn plus(a: Expr, b: Expr) -> Expr {
        Expr::Binary(BinaryOp::Add, Box::new(a), Box::new(b))
    }

    fn read(target: LocalId, address: Expr) -> SeqStmt {
        SeqStmt::Read {
            target: Place::Local(target),
            address,
            stmt: 0,
            alone: false,
            newest: false,
        }
    }

    fn write(address: Expr, value: Expr) -> SeqStmt {
        SeqStmt::Write {
            address,
            value,
            stmt: 0,
            unobserved: false,
        }
    }

    fn analyse(threads: &[SeqThread]) -> PointsTo {
        PointsTo::of(&layout(), false, threads)
    }

    #[test]
    fn a_member_loaded_through_a_pointer_from_memory_is_that_member_of_every_block() {
        // main: n = malloc; head = n; a worker: j = head; v = j->next
        let main = thread(
            0,
            vec![
                SeqStmt::Malloc {
                    target: Place::Local(0),
                    size: Expr::Const(2),
                    zeroed: false,
                    stmt: 0,
                },
                write(Expr::Const(4), load(0)),
            ],
        );
        let worker = thread(
            1,
            vec![
                read(0, Expr::Const(4)),
                read(1, plus(load(0), Expr::Const(1))),
            ],
        );
        let facts = analyse(&[main, worker]);
        assert_eq!(
            facts.locations(1, &plus(load(0), Expr::Const(1))),
            Some(vec![6, 8])
        );
        assert_eq!(facts.locations(1, &load(0)), Some(vec![5, 7]));
        // what the member holds was never a pointer: it points nowhere
        assert_eq!(facts.locations(1, &load(1)), Some(Vec::new()));
        // past the block, any heap location
        assert_eq!(
            facts.locations(1, &plus(load(0), Expr::Const(2))),
            Some(vec![5, 6, 7, 8])
        );
    }

    #[test]
    fn constants_are_addresses_only_of_objects_whose_address_is_taken() {
        let facts = analyse(&[]);
        assert_eq!(facts.constant(2, 1), Pointees::one(Pointee::Location(2)));
        // one past the end of `a`
        assert_eq!(facts.constant(3, 1), Pointees::one(Pointee::Location(3)));
        assert!(facts.constant(0, 1).is_empty());
        // nobody takes the address of 3, nor of 4 + 1 = heap 5 (a heap scalar)
        assert_eq!(facts.constant(6, 1), Pointees::one(Pointee::HeapScalar(1)));
        let untaken = PointsTo {
            memory: MemoryLayout {
                pointees: BTreeSet::from([4]),
                ..layout()
            },
            ..facts.clone()
        };
        assert!(untaken.constant(2, 1).is_empty());
        // byte addresses: location 2 is 16, and 17 a marked pointer to it
        let bytes = PointsTo::of(&layout(), true, &[]);
        assert_eq!(bytes.constant(16, 8), Pointees::one(Pointee::Location(2)));
        assert_eq!(bytes.constant(17, 8), Pointees::one(Pointee::Object(1)));
    }

    #[test]
    fn an_unknown_offset_widens_a_location_to_its_object_and_the_one_it_ends() {
        // p = a + 2 (one past its end, where `secret` starts); p - i
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), plus(Expr::Const(1), Expr::Const(2))),
                SeqStmt::Assign(Place::Local(1), Expr::Nondet(Ty::INT)),
            ],
        );
        let facts = analyse(&[worker]);
        let back = Expr::Binary(BinaryOp::Sub, Box::new(load(0)), Box::new(load(1)));
        assert_eq!(facts.locations(1, &back), Some(vec![1, 2, 3]));
        // an index into a constant address stays in its object
        assert_eq!(
            facts.locations(1, &plus(Expr::Const(1), load(1))),
            Some(vec![1, 2])
        );
        assert_eq!(
            facts.locations(1, &plus(load(0), Expr::Const(-1))),
            Some(vec![2])
        );
    }

    #[test]
    fn a_pointer_stepped_in_a_loop_stays_among_finitely_many_locations() {
        // p = a; loop: p = p + 1 (the iteration must end)
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), Expr::Const(1)),
                SeqStmt::Assign(Place::Local(0), plus(load(0), Expr::Const(1))),
            ],
        );
        let facts = analyse(&[worker]);
        let reached = facts.locations(1, &load(0)).expect("known locations");
        assert!(
            reached.contains(&1) && reached.contains(&2) && reached.contains(&9),
            "{reached:?}"
        );
    }

    #[test]
    fn a_store_through_a_pointer_to_anything_may_be_in_every_cell() {
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), Expr::ObjectAddress(0)),
                write(load(0), Expr::Const(4)),
                read(1, Expr::Const(3)),
            ],
        );
        let facts = analyse(&[worker]);
        assert_eq!(facts.locations(1, &load(0)), None);
        assert_eq!(facts.locations(1, &load(1)), Some(vec![4]));
    }

    #[test]
    fn values_flow_through_read_modify_writes_and_plain_globals() {
        // exchange(head, a + 1); old = the value before; thread 2 gets the
        // old value through a plain global
        let main = thread(
            0,
            vec![
                SeqStmt::Rmw {
                    target: Some(Place::Local(0)),
                    address: Expr::Const(4),
                    op: RmwCode::Exchange,
                    operand: Expr::Const(2),
                    expected: Expr::Const(0),
                    stmt: 0,
                },
                SeqStmt::Assign(Place::PlainGlobal(0), load(0)),
            ],
        );
        let other = thread(
            2,
            vec![SeqStmt::Assign(
                Place::Local(3),
                Expr::Load(Place::PlainGlobal(0)),
            )],
        );
        let facts = analyse(&[main, other]);
        assert_eq!(facts.locations(2, &load(3)), Some(vec![2]));
        // a fetch-and-add of a constant moves the pointer by an unknown step
        let adder = thread(
            1,
            vec![SeqStmt::Rmw {
                target: None,
                address: Expr::Const(4),
                op: RmwCode::Add,
                operand: Expr::Const(1),
                expected: Expr::Const(0),
                stmt: 0,
            }],
        );
        let reader = thread(
            2,
            vec![
                SeqStmt::Assign(Place::Local(0), Expr::Const(1)),
                write(Expr::Const(4), load(0)),
                read(1, Expr::Const(4)),
            ],
        );
        let facts = analyse(&[adder, reader]);
        assert_eq!(facts.locations(2, &load(1)), Some(vec![1, 2]));
    }
}
