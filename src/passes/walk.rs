//! Traversals shared by the passes: visiting every expression and place of a
//! block, copying a statement with its nested blocks mapped, renaming locals
//! and labels of a copied block, fresh label ids.

use crate::ir::{Block, Expr, LabelId, LocalId, Place, Program, RmwOp, Stmt, StmtKind};
use std::collections::HashMap;
use std::convert::Infallible;

/// Hands out label ids that no function of the program uses.
#[derive(Debug, Clone)]
pub struct LabelGen {
    next: LabelId,
}

impl LabelGen {
    /// Starts after the largest label of any function of `program`.
    pub fn for_program(program: &Program) -> Self {
        let mut max = 0;
        for function in &program.functions {
            for_each_stmt(&function.body, &mut |kind| {
                if let StmtKind::Label(id, _) | StmtKind::Goto(id) = kind {
                    max = max.max(*id + 1);
                }
            });
        }
        LabelGen { next: max }
    }

    pub fn fresh(&mut self) -> LabelId {
        let id = self.next;
        self.next += 1;
        id
    }
}

/// Calls `f` on every statement of `block`, nested ones included, in
/// textual order (then-branch before else-branch; loop prelude, body, latch).
pub fn for_each_stmt(block: &Block, f: &mut impl FnMut(&StmtKind)) {
    for_each_statement(block, &mut |stmt: &Stmt| f(&stmt.kind));
}

/// [`for_each_stmt`] with the whole statement (its origin too).
pub fn for_each_statement(block: &Block, f: &mut impl FnMut(&Stmt)) {
    for stmt in block {
        f(stmt);
        for_each_nested_block(stmt, &mut |nested| for_each_statement(nested, f));
    }
}

/// Calls `f` on each block nested directly in `stmt`, in textual order
/// (then-branch before else-branch; loop prelude, body, latch).
pub fn for_each_nested_block(stmt: &Stmt, f: &mut impl FnMut(&Block)) {
    match &stmt.kind {
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => {
            f(then_branch);
            f(else_branch);
        }
        StmtKind::Loop {
            prelude,
            body,
            latch,
            ..
        } => {
            f(prelude);
            f(body);
            f(latch);
        }
        _ => {}
    }
}

/// Mutable variant of [`for_each_stmt`].
pub fn for_each_stmt_mut(block: &mut Block, f: &mut impl FnMut(&mut StmtKind)) {
    for stmt in block {
        f(&mut stmt.kind);
        match &mut stmt.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                for_each_stmt_mut(then_branch, f);
                for_each_stmt_mut(else_branch, f);
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                for_each_stmt_mut(prelude, f);
                for_each_stmt_mut(body, f);
                for_each_stmt_mut(latch, f);
            }
            _ => {}
        }
    }
}

/// A copy of `stmt` whose nested blocks are replaced by `f` of them, called
/// in textual order (then-branch, else-branch; loop prelude, body, latch);
/// a statement without nested blocks is cloned. The first error of `f` is
/// returned.
pub fn try_map_nested_blocks<E>(
    stmt: &Stmt,
    f: &mut impl FnMut(&Block) -> Result<Block, E>,
) -> Result<Stmt, E> {
    let kind = match &stmt.kind {
        StmtKind::If {
            condition,
            then_branch,
            else_branch,
        } => StmtKind::If {
            condition: condition.clone(),
            then_branch: f(then_branch)?,
            else_branch: f(else_branch)?,
        },
        StmtKind::Loop {
            test_first,
            prelude,
            condition,
            body,
            latch,
        } => StmtKind::Loop {
            test_first: *test_first,
            prelude: f(prelude)?,
            condition: condition.clone(),
            body: f(body)?,
            latch: f(latch)?,
        },
        other => other.clone(),
    };
    Ok(Stmt {
        kind,
        origin: stmt.origin,
    })
}

/// Infallible variant of [`try_map_nested_blocks`].
pub fn map_nested_blocks(stmt: &Stmt, f: &mut impl FnMut(&Block) -> Block) -> Stmt {
    let Ok(mapped) = try_map_nested_blocks(stmt, &mut |block| Ok::<_, Infallible>(f(block)));
    mapped
}

/// Calls `fe` on every expression and `fp` on every place directly held by
/// the statement (not the nested blocks), outermost first.
pub fn visit_operands(
    kind: &mut StmtKind,
    fe: &mut impl FnMut(&mut Expr),
    fp: &mut impl FnMut(&mut Place),
) {
    match kind {
        StmtKind::Assign(place, value) => {
            place_mut(place, fe, fp);
            expr_mut(value, fe, fp);
        }
        StmtKind::Read { target, address } => {
            place_mut(target, fe, fp);
            expr_mut(address, fe, fp);
        }
        StmtKind::Write { address, value } => {
            expr_mut(address, fe, fp);
            expr_mut(value, fe, fp);
        }
        StmtKind::Rmw {
            target,
            address,
            op,
        } => {
            if let Some(target) = target {
                place_mut(target, fe, fp);
            }
            expr_mut(address, fe, fp);
            match op {
                RmwOp::Exchange(e)
                | RmwOp::FetchAdd(e)
                | RmwOp::FetchSub(e)
                | RmwOp::FetchAnd(e)
                | RmwOp::FetchOr(e)
                | RmwOp::FetchXor(e) => expr_mut(e, fe, fp),
                RmwOp::CompareExchange { expected, desired } => {
                    expr_mut(expected, fe, fp);
                    expr_mut(desired, fe, fp);
                }
            }
        }
        StmtKind::MutexTryLock { target, mutex } => {
            place_mut(target, fe, fp);
            expr_mut(mutex, fe, fp);
        }
        StmtKind::MutexLock(e)
        | StmtKind::MutexUnlock(e)
        | StmtKind::Free(e)
        | StmtKind::Assume(e)
        | StmtKind::Await { condition: e, .. }
        | StmtKind::LoopBound(e) => expr_mut(e, fe, fp),
        StmtKind::Malloc { target, size, .. } => {
            place_mut(target, fe, fp);
            expr_mut(size, fe, fp);
        }
        StmtKind::Assert { condition, .. } => expr_mut(condition, fe, fp),
        StmtKind::If { condition, .. } | StmtKind::Loop { condition, .. } => {
            expr_mut(condition, fe, fp)
        }
        StmtKind::Return(Some(e)) | StmtKind::ThreadExit(Some(e)) => expr_mut(e, fe, fp),
        StmtKind::Call {
            target, arguments, ..
        } => {
            if let Some(target) = target {
                place_mut(target, fe, fp);
            }
            for a in arguments {
                expr_mut(a, fe, fp);
            }
        }
        StmtKind::ThreadCreate {
            handle, argument, ..
        } => {
            place_mut(handle, fe, fp);
            expr_mut(argument, fe, fp);
        }
        StmtKind::ThreadJoin { handle } => expr_mut(handle, fe, fp),
        StmtKind::Fence(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Goto(_)
        | StmtKind::Label(..)
        | StmtKind::Return(None)
        | StmtKind::ThreadExit(None)
        | StmtKind::AtomicBegin
        | StmtKind::AtomicEnd => {}
    }
}

/// Calls `fe` on `e` and every expression inside it (before their own
/// insides, so that `fe` may replace one), and `fp` on every place.
pub fn expr_mut(e: &mut Expr, fe: &mut impl FnMut(&mut Expr), fp: &mut impl FnMut(&mut Place)) {
    fe(e);
    match e {
        Expr::Load(place) => place_mut(place, fe, fp),
        Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Reinterpret(_, a) => expr_mut(a, fe, fp),
        Expr::Binary(_, a, b) => {
            expr_mut(a, fe, fp);
            expr_mut(b, fe, fp);
        }
        Expr::Conditional(a, b, c) => {
            expr_mut(a, fe, fp);
            expr_mut(b, fe, fp);
            expr_mut(c, fe, fp);
        }
        Expr::LibraryCall(_, arguments) => arguments
            .iter_mut()
            .for_each(|argument| expr_mut(argument, fe, fp)),
        Expr::Const(_)
        | Expr::FloatConst(_)
        | Expr::ObjectAddress(_)
        | Expr::Nondet(_)
        | Expr::CurrentThread => {}
    }
}

fn place_mut(p: &mut Place, fe: &mut impl FnMut(&mut Expr), fp: &mut impl FnMut(&mut Place)) {
    fp(p);
    match p {
        Place::Index(base, index) => {
            place_mut(base, fe, fp);
            expr_mut(index, fe, fp);
        }
        Place::Field(base, _) => place_mut(base, fe, fp),
        Place::Local(_) | Place::PlainGlobal(_) => {}
    }
}

/// Renames local `l` to `map[l]` everywhere in `block` (places and
/// object addresses).
pub fn remap_locals(block: &mut Block, map: &[LocalId]) {
    for_each_stmt_mut(block, &mut |kind| {
        visit_operands(
            kind,
            &mut |e| {
                if let Expr::ObjectAddress(l) = e
                    && let Some(n) = map.get(*l)
                {
                    *l = *n;
                }
            },
            &mut |p| {
                if let Place::Local(l) = p
                    && let Some(n) = map.get(*l)
                {
                    *l = *n;
                }
            },
        )
    });
}

/// Gives every label defined in `block` a fresh id, consistently renaming
/// the gotos of `block` that target them (gotos to outside labels stay).
pub fn relabel(block: &mut Block, labels: &mut LabelGen) {
    let mut renamed: HashMap<LabelId, LabelId> = HashMap::new();
    for_each_stmt(block, &mut |kind| {
        if let StmtKind::Label(id, _) = kind {
            renamed.entry(*id).or_insert(0);
        }
    });
    if renamed.is_empty() {
        return;
    }
    let mut keys: Vec<LabelId> = renamed.keys().copied().collect();
    keys.sort_unstable();
    for k in keys {
        renamed.insert(k, labels.fresh());
    }
    for_each_stmt_mut(block, &mut |kind| match kind {
        StmtKind::Label(id, _) | StmtKind::Goto(id) | StmtKind::Await { restart: id, .. } => {
            if let Some(n) = renamed.get(id) {
                *id = *n;
            }
        }
        _ => {}
    });
}
