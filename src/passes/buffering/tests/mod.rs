//! Unit tests of the store-buffer count, by the concern they check.

mod constant_addresses;
mod lock_guards;
mod occupancy;
mod uncontended;

use super::count::*;
use super::*;
use crate::ir::{BinaryOp, Expr, FenceKind, Place, Ty, UnaryOp};
use crate::passes::{MemoryLayout, SeqStmt};
use std::collections::{BTreeMap, BTreeSet};

/// Locations 1-3 are one array, 4-9 scalars; the heap starts at 10.
fn layout() -> MemoryLayout {
    let mut objects = vec![(1, 3)];
    objects.extend((4..10).map(|location| (location, 1)));
    MemoryLayout {
        initial_values: vec![0; 10].into(),
        heap_base: 10,
        heap_blocks: 0,
        heap_block_size: 0,
        objects,
        pointees: BTreeSet::new(),
        padding: Vec::new(),
        heap_needs: None,
    }
}

fn stores(body: &[SeqStmt], main: bool) -> ThreadStores {
    let (shared, observed) = (LocationSet::default(), Accesses::everything());
    let context = Context::new(&shared, &observed);
    walk(body, main, &layout(), context).result
}

fn write(location: i64) -> SeqStmt {
    SeqStmt::Write {
        address: Expr::Const(location),
        value: Expr::Const(1),
        stmt: 0,
        unobserved: false,
    }
}

fn write_through_pointer() -> SeqStmt {
    SeqStmt::Write {
        address: Expr::Load(Place::Local(0)),
        value: Expr::Const(1),
        stmt: 0,
        unobserved: false,
    }
}

/// A store to `array[i]` for the array at locations 1-3.
fn write_to_array() -> SeqStmt {
    SeqStmt::Write {
        address: Expr::Binary(
            BinaryOp::Add,
            Box::new(Expr::Const(1)),
            Box::new(Expr::Load(Place::Local(0))),
        ),
        value: Expr::Const(1),
        stmt: 0,
        unobserved: false,
    }
}

fn fence() -> SeqStmt {
    SeqStmt::Fence {
        kind: FenceKind::Full,
        stmt: 0,
    }
}

fn branch(then_branch: Vec<SeqStmt>, else_branch: Vec<SeqStmt>) -> SeqStmt {
    SeqStmt::If {
        condition: Expr::Const(1),
        then_branch,
        else_branch,
    }
}

fn lock(location: i64) -> SeqStmt {
    SeqStmt::Lock {
        address: Expr::Const(location),
        stmt: 0,
    }
}

fn unlock(location: i64) -> SeqStmt {
    SeqStmt::Unlock {
        address: Expr::Const(location),
        stmt: 0,
    }
}

fn read_at(location: i64) -> SeqStmt {
    SeqStmt::Read {
        target: Place::Local(1),
        address: Expr::Const(location),
        stmt: 0,
        alone: false,
        newest: false,
    }
}

fn compare_and_swap_at(location: i64) -> SeqStmt {
    SeqStmt::Rmw {
        target: None,
        address: Expr::Const(location),
        op: crate::passes::RmwCode::Cas,
        operand: Expr::Const(1),
        expected: Expr::Const(0),
        stmt: 0,
    }
}

fn read() -> SeqStmt {
    SeqStmt::Read {
        target: Place::Local(2),
        address: Expr::Const(4),
        stmt: 0,
        alone: false,
        newest: false,
    }
}
