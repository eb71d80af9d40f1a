//! Points-to facts: the locations an access through a pointer the program
//! computes may reach, found from where the pointer's value came from. A
//! pointer value is made only where the program takes an object's address
//! (`&x`, an array that decays, a string literal: the objects of
//! [`MemoryLayout::pointees`]) or allocates (`malloc`: a heap block); it
//! then flows through private locals, shared memory and arithmetic. So an
//! access through `j->next`, `j` loaded from a queue, reaches the `next`
//! member of the heap blocks, not `main`'s counters.
//!
//! A value may be exactly one location of a static object (`&s.next`),
//! exactly one past the end of one (`a + 3` for `int a[3]`), anywhere in
//! one static object (after an offset the analysis does not know), one
//! member of every heap block, or anywhere in the heap. An exact location
//! keeps the object it points into: the location one past the end of `a`
//! is the first of the object after it, but an index added to `a + 3`
//! stays in `a`, and one added to `b` (`b[i]`) stays in `b`. A constant
//! offset moves a pointer; the front end puts the pointer first (`p + 1`,
//! `&a[i]` is `a + i`), so a constant added last is an offset and no
//! address (so is one converted to an integer narrower than a pointer,
//! `i + 1u`), and a constant address in a statement is inside the object
//! holding it: the front end keeps a constant moved out of its object a
//! sum, `a + 3`, whose `a` is the object, except for a constant index
//! (`&a[3]` folds into the location after `a`), so a constant at the start
//! of an object may also be one past the end of an object before it that
//! ends with an array element. A global's initial value keeps no sum: at
//! the start of an object it may be one past the end of whichever object
//! is before it. A constant counts as an address only of an object whose
//! address the program takes.
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
use crate::ir::{BinaryOp, Expr, LocalId, OriginId, Place, PlainGlobalId, Ty, UnaryOp};
use std::collections::{BTreeMap, BTreeSet};

/// What a pointer value may point into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pointee {
    /// Exactly this location, inside the static object holding it
    /// (`&s.next`, `&a[2]`); past the static objects, a heap location.
    Location(u32),
    /// Exactly the location one past the end of the static object that
    /// starts at this location (`a + 3` for `int a[3]`): an unknown offset
    /// moves it into that object, not into the one after it.
    End(u32),
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
    /// The static objects, by their first location, whose last scalar is
    /// an element of an array: a constant index may make the address one
    /// past their end a constant (`&a[3]` of `int a[3]`).
    array_ends: BTreeSet<u32>,
    /// What a constant stored is known to be a number in: see [`Numbers`].
    numbers: Numbers,
}

/// Where a constant stored is a number, no address: in a static location
/// whose scalar is narrower than a pointer (an `int`, a `bool`) or an
/// integer of any width (a `size_t`), and by a store or read-modify-write
/// through a pointer to such a scalar (`atomic_store(&next->locked, 1)`,
/// which the analysis may otherwise see reach the `next` beside
/// `locked`). The check of accesses through
/// converted pointers uses it only where the program converts no pointer
/// to an integer: the front end folds `(int)(intptr_t)&x` into the
/// constant that `&x` is. (A static initializer cannot cut an address.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numbers {
    /// Per static location, whether it is narrower than a pointer.
    pub locations: crate::ir::Runs<bool>,
    /// Per static location, whether it holds an integer.
    pub integers: crate::ir::Runs<bool>,
    /// The statements (by their ids) that store an integer or a scalar
    /// narrower than a pointer through a pointer.
    pub stores: BTreeSet<OriginId>,
    /// The private variables of the program (no temporaries of the
    /// frontend) that hold integers, by thread slot: a constant assigned
    /// to one (a parameter `len` given `2`) is a number.
    pub integer_variables: BTreeSet<(usize, LocalId)>,
    /// Whether an integer constant converted to a pointer (`(void *)1`,
    /// which the front end keeps a conversion) is a number.
    pub integers_made_pointers: bool,
}

/// Finds the points-to facts of `program`.
pub fn points_to(program: &SequentialProgram) -> PointsTo {
    points_to_with_numbers(program, Numbers::default())
}

/// Finds the points-to facts of `program`, where the constants that
/// `numbers` says are numbers are no addresses.
pub fn points_to_with_numbers(program: &SequentialProgram, numbers: Numbers) -> PointsTo {
    PointsTo::typed(
        &program.memory,
        program.map.value_types.byte_addresses,
        &array_ends(&program.memory, &program.map.locations),
        numbers,
        &program.threads,
    )
}

/// The static objects of `memory`, by their first location, whose last
/// location is an element of an array, by the locations' `names`
/// (`a[2]`, `s.nodes[1].next`).
fn array_ends(memory: &MemoryLayout, names: &crate::ir::Locations) -> BTreeSet<u32> {
    let last_is_element = |&(first, scalars): &(u32, u32)| {
        let last = (first + scalars).checked_sub(1).map(|last| last as usize);
        last.and_then(|last| names.name(last))
            .is_some_and(|name| name.contains('['))
    };
    memory
        .objects
        .iter()
        .filter(|object| last_is_element(object))
        .map(|&(first, _)| first)
        .collect()
}

impl Numbers {
    /// Whether static `location` is narrower than a pointer or holds an
    /// integer: a constant stored there is a number.
    fn narrow(&self, location: u32) -> bool {
        let location = location as usize;
        self.locations.get(location) == Some(&true) || self.integers.get(location) == Some(&true)
    }
}

impl PointsTo {
    /// The facts of `threads` over `memory` (pointer values are byte
    /// addresses with `byte_addresses`), whose objects `array_ends` end
    /// with an array, with no location known to be narrower than a
    /// pointer.
    #[cfg(test)]
    fn of(
        memory: &MemoryLayout,
        byte_addresses: bool,
        array_ends: &BTreeSet<u32>,
        threads: &[SeqThread],
    ) -> PointsTo {
        PointsTo::typed(
            memory,
            byte_addresses,
            array_ends,
            Numbers::default(),
            threads,
        )
    }

    /// The facts of `threads` over `memory` (pointer values are byte
    /// addresses with `byte_addresses`), whose objects `array_ends` end
    /// with an array, where the constants that `numbers` says are numbers
    /// are no addresses.
    fn typed(
        memory: &MemoryLayout,
        byte_addresses: bool,
        array_ends: &BTreeSet<u32>,
        numbers: Numbers,
        threads: &[SeqThread],
    ) -> PointsTo {
        let mut facts = PointsTo {
            variables: BTreeMap::new(),
            cells: BTreeMap::new(),
            everywhere: Pointees::default(),
            per_scalar: !byte_addresses,
            memory: memory.clone(),
            array_ends: array_ends.clone(),
            numbers,
        };
        let unit = facts.unit();
        for (location, &initial) in memory.initial_values.except(&0) {
            if facts.numbers.narrow(location as u32) {
                continue;
            }
            let pointees = facts.initial_constant(initial, unit);
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
                Pointee::End(first) => add(self.end_of(first), true),
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
            SeqStmt::Assign(Place::Local(local), Expr::Const(_))
                if self.numbers.integer_variables.contains(&(slot, *local)) =>
            {
                false
            }
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
            SeqStmt::Write {
                address,
                value,
                stmt,
                ..
            } => {
                let pointees = self.value(slot, value, unit);
                let constant = matches!(value, Expr::Const(_)).then_some(*stmt);
                self.store(slot, address, &pointees, constant)
            }
            SeqStmt::Rmw {
                target,
                address,
                op,
                operand,
                stmt,
                ..
            } => {
                let old = self.load(slot, address);
                let constant = (matches!(op, RmwCode::Exchange | RmwCode::Cas)
                    && matches!(operand, Expr::Const(_)))
                .then_some(*stmt);
                let new = match (op, operand) {
                    (RmwCode::Exchange | RmwCode::Cas, _) => self.value(slot, operand, unit),
                    // a constant step or mask is no address
                    (_, operand) if offset_constant(operand).is_some() => self.blurred(old.clone()),
                    _ => self.blurred(old.clone().union(&self.value(slot, operand, unit))),
                };
                let assigned = target
                    .as_ref()
                    .is_some_and(|target| self.assign(slot, target, &old));
                self.store(slot, address, &new, constant) | assigned
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

    /// The static locations that may hold an address (`None`: any may).
    /// A pointer the program only ever gives integers (`(void *)1`) holds
    /// none, and a report shows its value as the integer it is.
    pub fn static_locations_holding_addresses(&self) -> Option<Vec<u32>> {
        if !self.everywhere.is_empty() {
            return None;
        }
        let holding = self
            .cells
            .iter()
            .filter(|(_, pointees)| !pointees.is_empty());
        let locations = holding.filter_map(|(cell, _)| match cell {
            Cell::Static(location) => Some(*location),
            Cell::HeapScalar(_) => None,
        });
        Some(locations.collect())
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

    /// Stores a value of `pointees` at `address`; `constant` is the id of
    /// the statement when the value is a constant, which is a number where
    /// [`Numbers`] says so.
    fn store(
        &mut self,
        slot: usize,
        address: &Expr,
        pointees: &Pointees,
        constant: Option<OriginId>,
    ) -> bool {
        if pointees.is_empty() || constant.is_some_and(|stmt| self.numbers.stores.contains(&stmt)) {
            return false;
        }
        let numbers = &self.numbers;
        match self.cells(slot, address) {
            Some(cells) => cells.into_iter().fold(false, |changed, cell| {
                let number = constant.is_some()
                    && matches!(cell, Cell::Static(location) if numbers.narrow(location));
                (!number && self.cells.entry(cell).or_default().absorb(pointees)) | changed
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
            Expr::Cast(Ty::Pointer(_), a)
                if self.numbers.integers_made_pointers && matches!(**a, Expr::Const(_)) =>
            {
                Pointees::default()
            }
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
    /// taken apart): no address. A divisor or a shift's amount is a number
    /// even when it is not constant. With byte addresses, the location of an
    /// access (`unit` 1) at `p >> 3` is where `p` points, and the value
    /// `l * 8` points to the location `l`.
    fn binary(&self, slot: usize, op: BinaryOp, a: &Expr, b: &Expr, unit: i64) -> Pointees {
        use BinaryOp::*;
        let (left, right) = (offset_constant(a), offset_constant(b));
        match (op, a, b) {
            (Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr, _, _) => Pointees::default(),
            (Add | Sub, pointer, _) if right.is_some() => {
                let offset = right.unwrap_or_default();
                let offset = if op == Sub {
                    offset.wrapping_neg()
                } else {
                    offset
                };
                self.shifted(self.value(slot, pointer, unit), offset, unit)
            }
            (Shr, pointer, _) if self.is_location_of_byte_address(unit, right) => {
                self.value(slot, pointer, crate::ir::BYTE_ADDRESS_UNIT)
            }
            (Mul, location, _) if self.is_byte_address_of_location(unit, right) => {
                self.value(slot, location, 1)
            }
            // an index into the object holding the constant (`&a[i]`):
            // the front end keeps a constant that left its object a sum
            (Add, Expr::Const(base), index) => {
                let indexed = self.within_objects(self.constant(*base, unit));
                indexed.union(&self.blurred(self.value(slot, index, unit)))
            }
            (_, operand, _) if right.is_some() => self.blurred(self.value(slot, operand, unit)),
            (Mul | Div | Rem | Shl | Shr | BitAnd | BitOr | BitXor, _, operand)
                if left.is_some() =>
            {
                self.blurred(self.value(slot, operand, unit))
            }
            // a divisor or a shift's amount is a number (`buf[i % q->size]`):
            // what it may point to does not move the result, which is the
            // dividend's or the shifted value's bits
            (Div | Rem | Shl | Shr, operand, _) => self.blurred(self.value(slot, operand, unit)),
            _ => self.blurred(self.value(slot, a, unit).union(&self.value(slot, b, unit))),
        }
    }

    /// Whether a value (`unit` the address unit) times `factor` is the
    /// byte address of a location (`&a[i]` is `(a + i) * 8`): by the
    /// address unit, when pointer values are byte addresses.
    fn is_byte_address_of_location(&self, unit: i64, factor: Option<i64>) -> bool {
        let bytes = crate::ir::BYTE_ADDRESS_UNIT;
        !self.per_scalar && unit == bytes && factor == Some(bytes)
    }

    /// Whether a shift right by `shift` of a pointer value is the location
    /// of an access (`unit` 1) at a byte address: by the address unit's
    /// bits, when pointer values are byte addresses.
    fn is_location_of_byte_address(&self, unit: i64, shift: Option<i64>) -> bool {
        let bits = i64::from(crate::ir::BYTE_ADDRESS_UNIT.trailing_zeros());
        !self.per_scalar && unit == 1 && shift == Some(bits)
    }

    /// `pointees` moved by `offset` (in units of `unit`): an exact
    /// location moves by it inside its object or to the end of it (moved
    /// out of it, it is wherever it lands), a heap scalar moves within its
    /// block (or may be any heap location once outside).
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
            Pointee::Location(location) => match moved(location) {
                Some(to) => self.moved_exact(pointee, to),
                None => self.blurred(Pointees::one(pointee)),
            },
            Pointee::End(first) => match moved(self.end_of(first)) {
                Some(to) => self.moved_exact(pointee, to),
                None => self.blurred(Pointees::one(pointee)),
            },
            Pointee::HeapScalar(k) => match moved(k).filter(|&k| i64::from(k) < size) {
                Some(k) => Pointees::one(Pointee::HeapScalar(k)),
                None => Pointees::one(Pointee::Heap),
            },
            other => Pointees::one(other),
        })
    }

    /// The exact pointee `from` moved to the location `to`: inside its
    /// static object or to its end, `to` in that object; out of it, the
    /// exact location `to` of whichever object it lands in or ends at. A
    /// location past every other one is no address: the pointer may be
    /// anywhere in its object (the locations stay finitely many, so the
    /// iteration ends).
    fn moved_exact(&self, from: Pointee, to: u32) -> Pointees {
        if to == 0 || to > self.memory.location_count() {
            return self.blurred(Pointees::one(from));
        }
        let object = match from {
            Pointee::End(first) => Some(first),
            Pointee::Location(location) if location < self.memory.heap_base => self
                .memory
                .object_of(i64::from(location))
                .map(|(first, _)| first),
            _ => None,
        };
        match object {
            Some(first) if (first..self.end_of(first)).contains(&to) => {
                Pointees::one(Pointee::Location(to))
            }
            Some(first) if to == self.end_of(first) => Pointees::one(Pointee::End(first)),
            _ => self.landed(to),
        }
    }

    /// The exact location `to` reached without knowing the object the
    /// pointer points into: a location of the object holding it (or of
    /// the heap), and the end of the static object just before it.
    fn landed(&self, to: u32) -> Pointees {
        let mut pointees = Pointees::one(Pointee::Location(to));
        if let Some(first) = self.ending_at(to) {
            pointees.absorb(&Pointees::one(Pointee::End(first)));
        }
        pointees
    }

    /// The static object, by its first location, whose end (one past its
    /// last location) is `location`.
    fn ending_at(&self, location: u32) -> Option<u32> {
        let (first, scalars) = self.memory.object_of(i64::from(location.checked_sub(1)?))?;
        (first + scalars == location).then_some(first)
    }

    /// The location one past the end of the static object starting at
    /// `first`.
    fn end_of(&self, first: u32) -> u32 {
        self.memory
            .object_of(i64::from(first))
            .map_or(first, |(first, scalars)| first + scalars)
    }

    /// `pointees` after an offset the analysis does not know: an exact
    /// location or the end of an object may be any location of its
    /// object, a heap scalar any heap location.
    fn blurred(&self, pointees: Pointees) -> Pointees {
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
            Pointee::End(first) => Pointees::one(Pointee::Object(first)),
            Pointee::Location(_) | Pointee::HeapScalar(_) | Pointee::Heap => {
                Pointees::one(Pointee::Heap)
            }
            object @ Pointee::Object(_) => Pointees::one(object),
        })
    }

    /// `pointees` of a constant that an index is added to, each exact
    /// static location widened to the object holding it (an end to the
    /// object after it: the front end keeps a constant in its object).
    fn within_objects(&self, pointees: Pointees) -> Pointees {
        let layout = &self.memory;
        pointees.map(|pointee| {
            let location = match pointee {
                Pointee::Location(location) => location,
                Pointee::End(first) => self.end_of(first),
                object @ Pointee::Object(_) => return Pointees::one(object),
                Pointee::HeapScalar(_) | Pointee::Heap => return Pointees::one(Pointee::Heap),
            };
            if location >= layout.heap_base {
                return Pointees::one(Pointee::Heap);
            }
            let object = layout
                .object_of(i64::from(location))
                .map(|(first, _)| Pointee::Object(first));
            Pointees {
                set: object.into_iter().collect(),
                anything: false,
            }
        })
    }

    /// The pointees of the constant `c` of a statement as an address
    /// (`unit` times a location): that location, if it is inside an
    /// object whose address the program takes; the end of such an object
    /// it is one past, if it is in no such object or the object it ends
    /// ends with an array (`&a[3]` of `int a[3]` folds into the location
    /// after `a`; the front end keeps other addresses moved out of their
    /// object a sum); a heap scalar.
    fn constant(&self, c: i64, unit: i64) -> Pointees {
        self.address_constant(c, unit, |first| self.array_ends.contains(&first))
    }

    /// The pointees of the constant `c` of a global's initial value as an
    /// address: as a statement's constant, but at the start of an object
    /// it may be one past the end of whichever object it follows (an
    /// initial value keeps no sum).
    fn initial_constant(&self, c: i64, unit: i64) -> Pointees {
        self.address_constant(c, unit, |_| true)
    }

    /// The pointees of the constant address `c` (`unit` times a
    /// location), where a location inside an object whose address the
    /// program takes may also be one past the end of such an object
    /// before it (by its first location) if `may_end` says so.
    fn address_constant(&self, c: i64, unit: i64, may_end: impl Fn(u32) -> bool) -> Pointees {
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
        let (marked, inside) = (c % unit != 0, self.taken(location));
        let mut pointees = Pointees::default();
        if inside {
            pointees.absorb(&self.tagged(Pointee::Location(location), marked));
        }
        let end = self
            .taken_end(location)
            .filter(|&first| !inside || may_end(first));
        if let Some(first) = end {
            pointees.absorb(&self.tagged(Pointee::End(first), marked));
        }
        pointees
    }

    /// `exact`, or anywhere in its object when the address carries low
    /// bits besides its location (a marked pointer).
    fn tagged(&self, exact: Pointee, marked: bool) -> Pointees {
        match marked {
            true => self.blurred(Pointees::one(exact)),
            false => Pointees::one(exact),
        }
    }

    /// Whether `location` is in a static object whose address the
    /// program takes.
    fn taken(&self, location: u32) -> bool {
        let layout = &self.memory;
        layout
            .object_of(i64::from(location))
            .is_some_and(|(first, _)| layout.pointees.contains(&first))
    }

    /// The static object whose address the program takes, by its first
    /// location, that `location` is one past the end of.
    fn taken_end(&self, location: u32) -> Option<u32> {
        self.ending_at(location)
            .filter(|first| self.memory.pointees.contains(first))
    }
}

/// The integer constant `expr` is, if it is one: a constant, or one
/// converted to an integer narrower than a pointer (`1u` of `i + 1u`),
/// which holds no address.
fn offset_constant(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::Const(c) => Some(*c),
        Expr::Cast(Ty::Int { bits, signed }, inner) if *bits < 64 => {
            offset_constant(inner).map(|c| crate::ir::truncate(c, *bits, *signed))
        }
        _ => None,
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
            if let Some(address) = stmt.access_address() {
                self.add_access(facts, slot, address);
            } else if let SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } = stmt
            {
                self.add_block(facts, slot, then_branch);
                self.add_block(facts, slot, else_branch);
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

    /// Locations 1-2 are `a` (its address taken), 3 `secret`, 4 `head`
    /// (taken); the heap starts at 5: two blocks of two scalars.
    fn layout() -> MemoryLayout {
        MemoryLayout {
            initial_values: vec![0; 5].into(),
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

    fn unsigned() -> Ty {
        Ty::Int {
            bits: 32,
            signed: false,
        }
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
        PointsTo::of(&layout(), false, &BTreeSet::new(), threads)
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
        assert_eq!(facts.constant(3, 1), Pointees::one(Pointee::End(1)));
        assert_eq!(facts.locations(1, &Expr::Const(3)), Some(vec![3]));
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
        let bytes = PointsTo::of(&layout(), true, &BTreeSet::new(), &[]);
        assert_eq!(bytes.constant(16, 8), Pointees::one(Pointee::Location(2)));
        assert_eq!(bytes.constant(17, 8), Pointees::one(Pointee::Object(1)));
    }

    #[test]
    fn an_initial_value_at_the_start_of_an_object_may_be_the_end_of_the_one_before() {
        // `head` (4, taken) starts where `secret` (3) ends, which nobody
        // takes; with `secret` taken, 4 may also be one past its end
        let facts = analyse(&[]);
        assert_eq!(
            facts.initial_constant(4, 1),
            Pointees::one(Pointee::Location(4))
        );
        let taken = PointsTo::of(
            &MemoryLayout {
                pointees: BTreeSet::from([1, 3, 4]),
                initial_values: vec![0, 0, 0, 0, 4].into(),
                ..layout()
            },
            false,
            &BTreeSet::new(),
            &[],
        );
        assert_eq!(
            taken.initial_constant(4, 1).set,
            BTreeSet::from([Pointee::Location(4), Pointee::End(3)])
        );
        // a statement's constant is inside its object
        assert_eq!(taken.constant(4, 1), Pointees::one(Pointee::Location(4)));
        // what `head` holds initially, moved by an unknown offset
        let worker = thread(
            1,
            vec![
                read(0, Expr::Const(4)),
                SeqStmt::Assign(Place::Local(1), Expr::Nondet(Ty::INT)),
            ],
        );
        let facts = PointsTo::of(&taken.memory, false, &BTreeSet::new(), &[worker]);
        assert_eq!(
            facts.locations(1, &plus(load(0), load(1))),
            Some(vec![3, 4])
        );
    }

    #[test]
    fn an_unknown_offset_keeps_a_pointer_in_the_object_it_points_into() {
        // p = a + 2 (one past its end, where `secret` starts); p - i
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), plus(Expr::Const(1), Expr::Const(2))),
                SeqStmt::Assign(Place::Local(1), Expr::Nondet(Ty::INT)),
                // q = &head (4, just after `secret`); q + i
                SeqStmt::Assign(Place::Local(2), Expr::Const(4)),
            ],
        );
        let facts = analyse(&[worker]);
        let back = Expr::Binary(BinaryOp::Sub, Box::new(load(0)), Box::new(load(1)));
        assert_eq!(facts.locations(1, &back), Some(vec![1, 2]));
        // `p` itself is the location after `a`
        assert_eq!(facts.locations(1, &load(0)), Some(vec![3]));
        assert_eq!(facts.locations(1, &plus(load(2), load(1))), Some(vec![4]));
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
    fn an_index_through_a_pointer_from_memory_stays_in_the_array_it_points_to() {
        // `secret` (3) taken too, just after `a`: head = secret (an array
        // that decays); a worker: t = head; t[i] = &a[1] stores into
        // `secret` only, not into `a`
        let layout = MemoryLayout {
            pointees: BTreeSet::from([1, 3, 4]),
            ..layout()
        };
        let main = thread(0, vec![write(Expr::Const(4), Expr::Const(3))]);
        let worker = thread(
            1,
            vec![
                read(0, Expr::Const(4)),
                SeqStmt::Assign(Place::Local(1), Expr::Nondet(Ty::INT)),
                write(plus(load(0), load(1)), Expr::Const(2)),
                read(2, Expr::Const(2)),
                read(3, Expr::Const(3)),
            ],
        );
        let facts = PointsTo::of(&layout, false, &BTreeSet::new(), &[main, worker]);
        assert_eq!(facts.locations(1, &plus(load(0), load(1))), Some(vec![3]));
        assert_eq!(facts.locations(1, &load(2)), Some(Vec::new()));
        assert_eq!(facts.locations(1, &load(3)), Some(vec![2]));
    }

    #[test]
    fn a_constant_converted_to_a_narrow_integer_is_an_offset() {
        // i = 0; i = i + 1u (1 is the location of `a`, which is taken):
        // `i` holds no address, and neither does p + i * 1u
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), Expr::Const(0)),
                SeqStmt::Assign(
                    Place::Local(0),
                    plus(load(0), Expr::Cast(unsigned(), Box::new(Expr::Const(1)))),
                ),
                SeqStmt::Assign(Place::Local(1), Expr::Const(4)),
            ],
        );
        let facts = analyse(&[worker]);
        assert_eq!(facts.locations(1, &load(0)), Some(Vec::new()));
        assert_eq!(facts.locations(1, &plus(load(1), load(0))), Some(vec![4]));
        // converted to a 64-bit integer, it may still be an address
        let wide = Expr::Cast(
            Ty::Int {
                bits: 64,
                signed: true,
            },
            Box::new(Expr::Const(1)),
        );
        assert_eq!(offset_constant(&wide), None);
    }

    #[test]
    fn the_location_of_a_byte_address_is_where_it_points() {
        // byte addresses: p = &a[1] (16); an access at p >> 3 is a[1]
        // q = (a + i) * 8, the byte address of an element of `a`
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), Expr::Const(16)),
                SeqStmt::Assign(Place::Local(1), Expr::Nondet(Ty::INT)),
                SeqStmt::Assign(
                    Place::Local(2),
                    Expr::Binary(
                        BinaryOp::Mul,
                        Box::new(plus(Expr::Const(1), load(1))),
                        Box::new(Expr::Const(8)),
                    ),
                ),
            ],
        );
        let facts = PointsTo::of(&layout(), true, &BTreeSet::new(), &[worker]);
        let location = Expr::Binary(BinaryOp::Shr, Box::new(load(0)), Box::new(Expr::Const(3)));
        assert_eq!(facts.locations(1, &location), Some(vec![2]));
        let element = Expr::Binary(BinaryOp::Shr, Box::new(load(2)), Box::new(Expr::Const(3)));
        assert_eq!(facts.locations(1, &element), Some(vec![1, 2]));
        // shifted by another amount, its bits are taken apart
        let other = Expr::Binary(BinaryOp::Shr, Box::new(load(0)), Box::new(Expr::Const(2)));
        assert_eq!(facts.locations(1, &other), Some(vec![1, 2]));
    }

    #[test]
    fn a_constant_after_an_array_may_be_one_past_its_end() {
        // `a` (1-2) ends with an array element: `&a[2]` is the constant 3,
        // which starts `secret` (taken too); p = 3; p - i
        let layout = MemoryLayout {
            pointees: BTreeSet::from([1, 3, 4]),
            ..layout()
        };
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), Expr::Const(3)),
                SeqStmt::Assign(Place::Local(1), Expr::Nondet(Ty::INT)),
            ],
        );
        let back = Expr::Binary(BinaryOp::Sub, Box::new(load(0)), Box::new(load(1)));
        let arrays = PointsTo::of(
            &layout,
            false,
            &BTreeSet::from([1]),
            std::slice::from_ref(&worker),
        );
        assert_eq!(arrays.locations(1, &back), Some(vec![1, 2, 3]));
        // no array ends before 3: the constant is inside `secret`
        let scalars = PointsTo::of(&layout, false, &BTreeSet::new(), &[worker]);
        assert_eq!(scalars.locations(1, &back), Some(vec![3]));
        // the objects ending with an array element, by their names
        let names = ["", "a[0]", "a[1]", "secret", "head"].map(String::from);
        assert_eq!(
            array_ends(&layout, &crate::ir::Locations::named(&names)),
            BTreeSet::from([1])
        );
    }

    #[test]
    fn a_constant_stored_as_a_narrow_scalar_is_a_number() {
        // `secret` (3) is an int; statement 7 stores an int through p = a:
        // the constant 4 (the address of `head`) they store is a number,
        // while the one stored into a[1] by another statement is `&head`
        let worker = thread(
            1,
            vec![
                SeqStmt::Assign(Place::Local(0), Expr::Const(1)),
                write(Expr::Const(3), Expr::Const(4)),
                SeqStmt::Write {
                    address: load(0),
                    value: Expr::Const(4),
                    stmt: 7,
                    unobserved: false,
                },
                write(Expr::Const(2), Expr::Const(4)),
                read(1, Expr::Const(3)),
                read(2, Expr::Const(1)),
                read(3, Expr::Const(2)),
            ],
        );
        let numbers = Numbers {
            locations: vec![false, false, false, true].into(),
            integers: crate::ir::Runs::default(),
            stores: BTreeSet::from([7]),
            integer_variables: BTreeSet::new(),
            integers_made_pointers: false,
        };
        let threads = std::slice::from_ref(&worker);
        let facts = PointsTo::typed(&layout(), false, &BTreeSet::new(), numbers, threads);
        assert_eq!(facts.locations(1, &load(1)), Some(Vec::new()));
        assert_eq!(facts.locations(1, &load(2)), Some(Vec::new()));
        assert_eq!(facts.locations(1, &load(3)), Some(vec![4]));
        // without the types, each may be `&head`
        let untyped = analyse(threads);
        assert_eq!(untyped.locations(1, &load(1)), Some(vec![4]));
        assert_eq!(untyped.locations(1, &load(2)), Some(vec![4]));
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
