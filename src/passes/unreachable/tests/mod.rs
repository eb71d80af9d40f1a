//! Unit tests of the removal of unreachable code, by what cuts it.

mod heap;
mod loop_bounds;
mod paths;
mod propagation;

use super::flow::*;
use super::*;
use crate::ir::{
    BinaryOp, Block, Expr, Function, LabelId, Local, LocalId, OriginId, Place, Stmt, StmtKind, Ty,
    UnaryOp,
};
use crate::options::Bounds;
use std::collections::HashMap;

fn int(name: &str) -> Local {
    Local {
        name: name.into(),
        ty: Ty::INT,
        temporary: false,
        shared: false,
    }
}

fn st(kind: StmtKind, origin: OriginId) -> Stmt {
    Stmt { kind, origin }
}

fn load(local: LocalId) -> Expr {
    Expr::Load(Place::Local(local))
}

fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    Expr::Binary(op, Box::new(l), Box::new(r))
}

fn write(origin: OriginId) -> Stmt {
    st(
        StmtKind::Write {
            address: Expr::Const(1),
            value: Expr::Const(0),
        },
        origin,
    )
}

fn function(locals: Vec<Local>, body: Block) -> Function {
    Function {
        name: "main".into(),
        params: vec![],
        locals,
        return_type: Ty::INT,
        body,
        is_atomic: false,
        origin: 0,
    }
}

/// `i = 0; if (i < n) { i = i + 1; if (i < n) { i = i + 1; bound !(i < n) } }`
fn counted_loop(n: i64, origin: OriginId) -> Vec<Stmt> {
    counted_loop_to(Expr::Const(n), origin)
}

/// [`counted_loop`] up to the value of `bound`.
fn counted_loop_to(bound: Expr, origin: OriginId) -> Vec<Stmt> {
    let condition = || bin(BinaryOp::Lt, load(0), bound.clone());
    let step = || {
        st(
            StmtKind::Assign(Place::Local(0), bin(BinaryOp::Add, load(0), Expr::Const(1))),
            2,
        )
    };
    let inner = vec![
        step(),
        st(
            StmtKind::LoopBound(Expr::Unary(UnaryOp::Not, Box::new(condition()))),
            origin,
        ),
    ];
    let outer = vec![
        step(),
        st(
            StmtKind::If {
                condition: condition(),
                then_branch: inner,
                else_branch: vec![],
            },
            origin,
        ),
    ];
    vec![
        st(StmtKind::Assign(Place::Local(0), Expr::Const(0)), 1),
        st(
            StmtKind::If {
                condition: condition(),
                then_branch: outer,
                else_branch: vec![],
            },
            origin,
        ),
    ]
}

fn malloc(scalars: i64, origin: OriginId) -> Stmt {
    st(
        StmtKind::Malloc {
            target: Place::Local(0),
            size: Expr::Const(scalars),
            zeroed: false,
        },
        origin,
    )
}

fn goto(label: LabelId, origin: OriginId) -> Stmt {
    st(StmtKind::Goto(label), origin)
}

fn maybe(then_branch: Block, origin: OriginId) -> Stmt {
    st(
        StmtKind::If {
            condition: Expr::Nondet(Ty::INT),
            then_branch,
            else_branch: vec![],
        },
        origin,
    )
}
