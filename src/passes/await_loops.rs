//! Await loops as waits: a loop whose failed iterations change nothing
//! becomes its one successful iteration followed by
//! [`StmtKind::Await`], so that it needs no unrolling.
//!
//! A loop *qualifies* when one iteration (for `while` and `for`, the
//! statements that compute the condition; for `do ... while`, the body
//! too) only reads shared memory into private locals, computes private
//! locals, fences, and branches over such statements; when at least one
//! of its statements reads shared memory; when no local it reads was
//! written by an earlier iteration (no local is carried from one
//! iteration to the next); and when the body a `while` or `for` loop runs
//! after a failed test holds nothing but fences. Nothing nondeterministic
//! is computed in it.
//!
//! An iteration may also hold read-modify-writes (a test-and-set, a
//! compare-and-swap) at its top level, each with a local of its own for
//! the old value and operands the iteration does not compute. A failed
//! iteration changes nothing only when each writes the value it read (a
//! test-and-set finding the word already set, a compare-and-swap that
//! fails): the wait is preceded by the loop bound that the iteration
//! either passes or leaves memory as it found it. An execution in which a
//! failed iteration would change memory is cut off there as by `--unwind`
//! (with `--unwinding-assertions`, reported as a bound reached), never
//! dropped silently.
//!
//! A `while` or `for` loop's body may also copy values of its iteration
//! into locals (`ret = o;` in `while ((o = load(a)) != c) ret = o;`):
//! straight-line whole-local assignments from locals the test's
//! statements computed or that no iteration writes, and fences. Such a
//! body leaves only the values of its last failed iteration behind, so
//! the loop becomes its iteration, then, if that test failed, the body
//! once and the wait for a passing iteration: an execution that leaves
//! the loop after k > 1 failed iterations reaches the state of the one
//! whose only failed iteration is its last, for the same reason as below.
//!
//! Why this loses no reachable state, under SC, TSO and PSO alike: a
//! failed iteration writes no shared memory, takes no lock, and leaves
//! every local it writes to be written again before it is read, so the
//! state after it differs from the state before only by the stores of
//! other threads and of the buffers that reached memory meanwhile (which
//! can reach memory just as well without it) and by the fences it ran
//! (which only wait for stores that may reach memory at any time). An
//! execution that leaves the loop after k iterations therefore reaches
//! the same states as the one that runs only its last iteration, and the
//! search of the latter finds every state of the former. The loop exits
//! when the condition read in that iteration is false: the wait's
//! condition is its negation.

use super::walk::{LabelGen, map_nested_blocks};
use crate::ir::{
    AwaitKind, BinaryOp, Block, Expr, LocalId, OriginId, Place, PropertyKind, RmwOp, Stmt,
    StmtKind, UnaryOp, visit_expr,
};
use std::collections::HashSet;

/// `block` with every await loop, nested ones too, rewritten as a wait;
/// the origin of each such loop is added to `found`. With `assertions`
/// (`--unwinding-assertions`), a failed iteration that would change
/// memory is reported as a bound reached, not only cut off.
pub fn rewrite(
    block: &Block,
    labels: &mut LabelGen,
    assertions: bool,
    found: &mut Vec<OriginId>,
) -> Block {
    let mut out = Vec::with_capacity(block.len());
    for stmt in block {
        match as_wait(stmt, labels, assertions) {
            Some(wait) => {
                found.push(stmt.origin);
                out.extend(wait);
            }
            None => out.push(map_nested_blocks(stmt, &mut |nested| {
                rewrite(nested, labels, assertions, found)
            })),
        }
    }
    out
}

/// What kind of await loop a statement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AwaitLoop {
    /// Its iteration only reads: no bound ever cuts it.
    ReadOnly,
    /// Its iteration holds read-modify-writes: an execution in which a
    /// failed one would change memory is cut off.
    WithReadModifyWrites,
}

/// Whether `stmt` is an await loop (the module's `//!`), and which kind.
pub fn await_loop(stmt: &Stmt) -> Option<AwaitLoop> {
    let shape = await_iteration(stmt)?;
    let mut rmws = Vec::new();
    top_level_rmws(&shape.iteration, &mut rmws);
    Some(if rmws.is_empty() {
        AwaitLoop::ReadOnly
    } else {
        AwaitLoop::WithReadModifyWrites
    })
}

/// Whether `stmt` is an await loop of either kind.
pub fn is_await_loop(stmt: &Stmt) -> bool {
    await_loop(stmt).is_some()
}

/// The loop `stmt` as a wait (its iteration after a fresh label, the
/// bound that a failed iteration changed nothing, then the wait for its
/// exit), if it is an await loop.
fn as_wait(stmt: &Stmt, labels: &mut LabelGen, assertions: bool) -> Option<Block> {
    let AwaitShape {
        iteration,
        condition,
        after_failure,
    } = await_iteration(stmt)?;
    let wait = wait_for_exit(stmt, &iteration, condition, labels, assertions);
    if after_failure.is_empty() {
        return Some(wait);
    }
    // the first iteration stands for the last failed one: its body, then
    // the wait for a passing iteration
    let origin = stmt.origin;
    let mut out = iteration.clone();
    let mut then_branch = after_failure;
    then_branch.extend(wait);
    out.push(Stmt {
        kind: StmtKind::If {
            condition: condition.clone(),
            then_branch,
            else_branch: Vec::new(),
        },
        origin,
    });
    Some(out)
}

/// The iteration after a fresh label, the bound that a failed iteration
/// changed nothing, then the wait for the loop's exit.
fn wait_for_exit(
    stmt: &Stmt,
    iteration: &Block,
    condition: &Expr,
    labels: &mut LabelGen,
    assertions: bool,
) -> Block {
    let restart = labels.fresh();
    let origin = stmt.origin;
    let at = |kind| Stmt { kind, origin };
    let mut rmws = Vec::new();
    top_level_rmws(iteration, &mut rmws);
    let mut out = Vec::with_capacity(iteration.len() + 4);
    out.push(at(StmtKind::Label(restart, "await".into())));
    out.extend(iteration.iter().cloned());
    if let Some(unchanged) = unchanged(&rmws) {
        // passed, or memory as the iteration found it
        let bound = Expr::Binary(
            BinaryOp::LogicalOr,
            Box::new(Expr::Unary(UnaryOp::Not, Box::new(condition.clone()))),
            Box::new(unchanged),
        );
        if assertions {
            out.push(at(StmtKind::Assert {
                condition: bound.clone(),
                kind: PropertyKind::UnwindingAssertion,
            }));
        }
        out.push(at(StmtKind::LoopBound(bound)));
    }
    out.push(Stmt {
        kind: StmtKind::Await {
            condition: Expr::Unary(UnaryOp::Not, Box::new(condition.clone())),
            restart,
            waits_for: AwaitKind::SpinLoop,
        },
        origin,
    });
    out
}

/// An await loop taken apart.
struct AwaitShape<'a> {
    /// The statements that run before each test.
    iteration: Block,
    /// The condition that keeps the loop looping.
    condition: &'a Expr,
    /// The body a `while` or `for` loop runs after a failed test, when it
    /// copies values into locals (empty when it holds only fences).
    after_failure: Block,
}

/// The await loop `stmt` taken apart, if it is one.
fn await_iteration(stmt: &Stmt) -> Option<AwaitShape<'_>> {
    let StmtKind::Loop {
        test_first,
        prelude,
        condition,
        body,
        latch,
    } = &stmt.kind
    else {
        return None;
    };
    let (prelude, body, latch) = (
        once_loops_opened(prelude),
        once_loops_opened(body),
        once_loops_opened(latch),
    );
    let (iteration, after_failure): (Block, Block) = if *test_first {
        let after: Block = body.iter().chain(&latch).cloned().collect();
        let fences_only = after.iter().all(|s| matches!(s.kind, StmtKind::Fence(_)));
        if fences_only {
            (prelude.clone(), Vec::new())
        } else {
            (prelude.clone(), after)
        }
    } else {
        let iteration = body.iter().chain(&latch).chain(&prelude).cloned().collect();
        (iteration, Vec::new())
    };
    let shape = AwaitShape {
        iteration,
        condition,
        after_failure,
    };
    let qualifies = is_await_iteration(&shape.iteration, condition)
        && (shape.after_failure.is_empty() || copies_only(&shape));
    qualifies.then_some(shape)
}

/// `block` with each `do { ... } while (0)` replaced by its body (macros
/// wrap statements so, and an empty one stands for an annotation that
/// does nothing), when no jump leaves or enters it.
fn once_loops_opened(block: &Block) -> Block {
    let mut out = Vec::with_capacity(block.len());
    for stmt in block {
        match &stmt.kind {
            StmtKind::Loop {
                test_first: false,
                prelude,
                condition: Expr::Const(0),
                body,
                latch,
            } if prelude.is_empty() && latch.is_empty() && !jumps(body) => {
                out.extend(once_loops_opened(body));
            }
            _ => out.push(stmt.clone()),
        }
    }
    out
}

/// Whether `block` holds a label or a jump (a `break` or `continue` of
/// the loop around it is one).
fn jumps(block: &Block) -> bool {
    let mut found = false;
    crate::passes::walk::for_each_stmt(block, &mut |kind| {
        found |= matches!(kind, StmtKind::Goto(_) | StmtKind::Label(..));
    });
    found
}

/// Whether the body after a failed test only copies values of the
/// iteration into whole locals (and fences), in straight-line code, with
/// no read-modify-write in the iteration: the locals it writes then hold
/// the values of the last failed iteration, whatever came before it.
fn copies_only(shape: &AwaitShape) -> bool {
    let straight_copies = shape.after_failure.iter().all(|stmt| match &stmt.kind {
        StmtKind::Fence(_) => true,
        StmtKind::Assign(Place::Local(_), value) => !has_nondet(value),
        _ => false,
    });
    let mut rmws = Vec::new();
    top_level_rmws(&shape.iteration, &mut rmws);
    if !straight_copies || !rmws.is_empty() {
        return false;
    }
    let whole: Block = shape
        .iteration
        .iter()
        .chain(&shape.after_failure)
        .cloned()
        .collect();
    let mut written = HashSet::new();
    collect_written(&whole, &mut written);
    let mut defined = HashSet::new();
    if carries(&shape.iteration, &written, &mut defined) {
        return false;
    }
    // the test reads nothing the body alone writes
    !uses_undefined(shape.condition, &written, &defined)
        && !carries(&shape.after_failure, &written, &mut defined)
}

/// Whether `iteration`, then the test of `condition`, is the iteration
/// of an await loop (the module's `//!`).
fn is_await_iteration(iteration: &Block, condition: &Expr) -> bool {
    let mut reads = false;
    // a read-modify-write must keep its old value in a local of its own,
    // or a failed iteration's write could not be told apart
    let top_level = iteration.iter().all(|stmt| match &stmt.kind {
        StmtKind::Rmw {
            target: Some(Place::Local(_)),
            ..
        } => {
            reads = true;
            true
        }
        _ => only_private_effects(std::slice::from_ref(stmt), &mut reads),
    });
    if !top_level || !reads || has_nondet(condition) {
        return false;
    }
    let mut written = HashSet::new();
    collect_written(iteration, &mut written);
    let mut rmws = Vec::new();
    top_level_rmws(iteration, &mut rmws);
    let mut defined = HashSet::new();
    rmws.iter()
        .all(|&(old, op)| checkable_rmw(iteration, old, op, &written))
        && !carries(iteration, &written, &mut defined)
        && !uses_undefined(condition, &written, &defined)
}

/// The read-modify-writes at the top level of `iteration`: the local of
/// each old value, and the operation.
fn top_level_rmws<'a>(iteration: &'a Block, out: &mut Vec<(LocalId, &'a RmwOp)>) {
    for stmt in iteration {
        if let StmtKind::Rmw {
            target: Some(Place::Local(old)),
            op,
            ..
        } = &stmt.kind
        {
            out.push((*old, op));
        }
    }
}

/// Whether after `iteration` the read-modify-write into `old` can be
/// told to have written what it read: it keeps its old value in a whole
/// local that nothing else in the iteration writes, its address and
/// operands are computed from nothing the iteration writes, and none is
/// nondeterministic.
fn checkable_rmw(iteration: &Block, old: LocalId, op: &RmwOp, written: &HashSet<LocalId>) -> bool {
    let none_defined = HashSet::new();
    let mut writes_of_old = 0;
    let mut found = false;
    crate::passes::walk::for_each_stmt(iteration, &mut |kind| match kind {
        StmtKind::Rmw {
            target: Some(Place::Local(target)),
            address,
            op: this,
        } if *target == old && this == op => {
            writes_of_old += 1;
            found = !has_nondet(address) && !uses_undefined(address, written, &none_defined);
        }
        StmtKind::Assign(place, _) | StmtKind::Read { target: place, .. }
            if place.root_local() == Some(old) =>
        {
            writes_of_old += 1;
        }
        _ => {}
    });
    let operands_fixed = rmw_operands(op)
        .iter()
        .all(|e| !has_nondet(e) && !uses_undefined(e, written, &none_defined));
    found && writes_of_old == 1 && operands_fixed
}

fn rmw_operands(op: &RmwOp) -> Vec<&Expr> {
    match op {
        RmwOp::Exchange(e)
        | RmwOp::FetchAdd(e)
        | RmwOp::FetchSub(e)
        | RmwOp::FetchAnd(e)
        | RmwOp::FetchOr(e)
        | RmwOp::FetchXor(e) => vec![e],
        RmwOp::CompareExchange { expected, desired } => vec![expected, desired],
    }
}

/// That every read-modify-write of `rmws` wrote the value it read (or
/// nothing), as a condition on their old values; `None` without any.
fn unchanged(rmws: &[(LocalId, &RmwOp)]) -> Option<Expr> {
    let binary = |op, a: Expr, b: Expr| Expr::Binary(op, Box::new(a), Box::new(b));
    rmws.iter()
        .map(|&(old, op)| {
            let old = Expr::Load(Place::Local(old));
            let zero = Expr::Const(0);
            match op {
                RmwOp::Exchange(e) => binary(BinaryOp::Eq, old, e.clone()),
                RmwOp::FetchAdd(e) | RmwOp::FetchSub(e) | RmwOp::FetchXor(e) => {
                    binary(BinaryOp::Eq, e.clone(), zero)
                }
                RmwOp::FetchAnd(e) => binary(
                    BinaryOp::Eq,
                    binary(BinaryOp::BitAnd, old.clone(), e.clone()),
                    old,
                ),
                RmwOp::FetchOr(e) => binary(
                    BinaryOp::Eq,
                    binary(BinaryOp::BitOr, old.clone(), e.clone()),
                    old,
                ),
                // a failed compare-and-swap writes nothing
                RmwOp::CompareExchange { expected, desired } => binary(
                    BinaryOp::LogicalOr,
                    binary(BinaryOp::Ne, old.clone(), expected.clone()),
                    binary(BinaryOp::Eq, old, desired.clone()),
                ),
            }
        })
        .reduce(|a, b| binary(BinaryOp::LogicalAnd, a, b))
}

/// Whether every statement of `block` only reads shared memory into
/// private locals, computes private locals, fences or branches; `reads`
/// is set when one reads shared memory.
fn only_private_effects(block: &[Stmt], reads: &mut bool) -> bool {
    block.iter().all(|stmt| match &stmt.kind {
        StmtKind::Assign(target, value) => {
            target.root_local().is_some() && !has_nondet(value) && !place_has_nondet(target)
        }
        StmtKind::Read { target, address } => {
            *reads = true;
            target.root_local().is_some() && !has_nondet(address) && !place_has_nondet(target)
        }
        StmtKind::Fence(_) => true,
        StmtKind::If {
            condition,
            then_branch,
            else_branch,
        } => {
            !has_nondet(condition)
                && only_private_effects(then_branch, reads)
                && only_private_effects(else_branch, reads)
        }
        _ => false,
    })
}

/// The locals some statement of `block` writes (whole or in part).
fn collect_written(block: &Block, written: &mut HashSet<LocalId>) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Assign(target, _)
            | StmtKind::Read { target, .. }
            | StmtKind::Rmw {
                target: Some(target),
                ..
            } => {
                written.extend(target.root_local());
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                collect_written(then_branch, written);
                collect_written(else_branch, written);
            }
            _ => {}
        }
    }
}

/// Whether a statement of `block` reads a local of `written` that is not
/// yet wholly written in this iteration (`defined`, which grows with the
/// whole writes of `block` on every path).
fn carries(block: &Block, written: &HashSet<LocalId>, defined: &mut HashSet<LocalId>) -> bool {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Assign(target, value) => {
                if uses_undefined(value, written, defined) || place_uses(target, written, defined) {
                    return true;
                }
                define(target, defined);
            }
            StmtKind::Read { target, address } => {
                if uses_undefined(address, written, defined) || place_uses(target, written, defined)
                {
                    return true;
                }
                define(target, defined);
            }
            StmtKind::Rmw {
                target: Some(target),
                address,
                op,
            } => {
                let operands = rmw_operands(op);
                if uses_undefined(address, written, defined)
                    || operands.iter().any(|e| uses_undefined(e, written, defined))
                    || place_uses(target, written, defined)
                {
                    return true;
                }
                define(target, defined);
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                if uses_undefined(condition, written, defined) {
                    return true;
                }
                let mut after_then = defined.clone();
                let mut after_else = defined.clone();
                if carries(then_branch, written, &mut after_then)
                    || carries(else_branch, written, &mut after_else)
                {
                    return true;
                }
                *defined = after_then.intersection(&after_else).copied().collect();
            }
            _ => {}
        }
    }
    false
}

/// A write of the whole local `target` defines it for the rest of the
/// iteration; a write of a part does not.
fn define(target: &Place, defined: &mut HashSet<LocalId>) {
    if let Place::Local(local) = target {
        defined.insert(*local);
    }
}

/// Whether the index expressions of the place `target` read a local of
/// `written` not in `defined`.
fn place_uses(target: &Place, written: &HashSet<LocalId>, defined: &HashSet<LocalId>) -> bool {
    match target {
        Place::Local(_) | Place::PlainGlobal(_) => false,
        Place::Index(base, index) => {
            place_uses(base, written, defined) || uses_undefined(index, written, defined)
        }
        Place::Field(base, _) => place_uses(base, written, defined),
    }
}

/// Whether `expr` reads a local of `written` not in `defined`.
fn uses_undefined(expr: &Expr, written: &HashSet<LocalId>, defined: &HashSet<LocalId>) -> bool {
    let mut found = false;
    visit_expr(expr, &mut |e| {
        if let Expr::Load(place) = e {
            found |= place
                .root_local()
                .is_some_and(|local| written.contains(&local) && !defined.contains(&local))
                || place_uses(place, written, defined);
        }
    });
    found
}

fn has_nondet(expr: &Expr) -> bool {
    let mut found = false;
    visit_expr(expr, &mut |e| {
        found |= match e {
            Expr::Nondet(_) => true,
            Expr::Load(place) => place_has_nondet(place),
            _ => false,
        }
    });
    found
}

fn place_has_nondet(place: &Place) -> bool {
    match place {
        Place::Local(_) | Place::PlainGlobal(_) => false,
        Place::Index(base, index) => place_has_nondet(base) || has_nondet(index),
        Place::Field(base, _) => place_has_nondet(base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, FenceKind};

    fn st(kind: StmtKind) -> Stmt {
        Stmt { kind, origin: 7 }
    }

    fn local(l: LocalId) -> Expr {
        Expr::Load(Place::Local(l))
    }

    fn read(l: LocalId) -> Stmt {
        st(StmtKind::Read {
            target: Place::Local(l),
            address: Expr::Const(3),
        })
    }

    fn spin(test_first: bool, prelude: Block, body: Block) -> Stmt {
        st(StmtKind::Loop {
            test_first,
            prelude,
            condition: Expr::Binary(BinaryOp::Eq, Box::new(local(0)), Box::new(Expr::Const(0))),
            body,
            latch: Vec::new(),
        })
    }

    fn rewritten(stmt: Stmt) -> (Block, Vec<OriginId>) {
        let mut found = Vec::new();
        let mut labels = LabelGen::for_program(&crate::ir::Program::default());
        (
            rewrite(&[stmt].to_vec(), &mut labels, false, &mut found),
            found,
        )
    }

    #[test]
    fn a_spin_on_a_flag_becomes_a_wait() {
        let fence = st(StmtKind::Fence(FenceKind::Full));
        let (block, found) = rewritten(spin(true, vec![read(0)], vec![fence]));
        assert_eq!(found, vec![7]);
        assert!(matches!(
            block.last().map(|s| &s.kind),
            Some(StmtKind::Await { .. })
        ));
        assert!(!block.iter().any(|s| matches!(s.kind, StmtKind::Fence(_))));
    }

    #[test]
    fn a_body_that_copies_the_value_read_waits_after_one_failed_iteration() {
        let copy = st(StmtKind::Assign(Place::Local(1), local(0)));
        let (block, found) = rewritten(spin(true, vec![read(0)], vec![copy]));
        assert_eq!(found, vec![7]);
        let Some(StmtKind::If { then_branch, .. }) = block.last().map(|s| &s.kind) else {
            panic!("no test of the first iteration: {block:?}");
        };
        assert!(matches!(then_branch[0].kind, StmtKind::Assign(..)));
        assert!(matches!(
            then_branch.last().map(|s| &s.kind),
            Some(StmtKind::Await { .. })
        ));
    }

    #[test]
    fn a_body_whose_copy_the_test_reads_stays_a_loop() {
        // `while (o != 0) { o = load(); }` with the read in the body
        let (block, found) = rewritten(spin(true, Vec::new(), vec![read(0)]));
        assert!(found.is_empty(), "{block:?}");
        // the copy read by the next test: carried
        let copy = st(StmtKind::Assign(Place::Local(2), local(0)));
        let stmt = st(StmtKind::Loop {
            test_first: true,
            prelude: vec![read(0)],
            condition: Expr::Binary(BinaryOp::Eq, Box::new(local(2)), Box::new(Expr::Const(0))),
            body: vec![copy],
            latch: Vec::new(),
        });
        let (block, found) = rewritten(stmt);
        assert!(found.is_empty(), "{block:?}");
    }

    #[test]
    fn a_do_while_keeps_its_body_as_the_iteration() {
        let (block, found) = rewritten(spin(false, Vec::new(), vec![read(0)]));
        assert_eq!(found, vec![7]);
        assert_eq!(block.len(), 3);
    }

    #[test]
    fn a_test_and_set_loop_waits_behind_the_bound_that_it_changed_nothing() {
        let exchange = st(StmtKind::Rmw {
            target: Some(Place::Local(0)),
            address: Expr::Const(3),
            op: RmwOp::Exchange(Expr::Const(1)),
        });
        let stmt = spin(true, vec![exchange], Vec::new());
        assert_eq!(await_loop(&stmt), Some(AwaitLoop::WithReadModifyWrites));
        let (block, found) = rewritten(stmt);
        assert_eq!(found, vec![7]);
        assert!(matches!(block[2].kind, StmtKind::LoopBound(_)), "{block:?}");
        assert!(matches!(block[3].kind, StmtKind::Await { .. }), "{block:?}");
    }

    #[test]
    fn loops_that_change_something_or_read_nothing_stay_loops() {
        let write = st(StmtKind::Write {
            address: Expr::Const(3),
            value: Expr::Const(1),
        });
        let count = st(StmtKind::Assign(
            Place::Local(1),
            Expr::Binary(BinaryOp::Add, Box::new(local(1)), Box::new(Expr::Const(1))),
        ));
        for stmt in [
            spin(true, vec![read(0)], vec![write.clone()]),
            spin(false, vec![read(0), write], Vec::new()),
            // a counter carried from one iteration to the next
            spin(false, vec![read(0), count.clone()], Vec::new()),
            spin(true, vec![read(0)], vec![count]),
            // nothing read: an endless loop, not a wait
            spin(true, Vec::new(), Vec::new()),
            // a read-modify-write whose old value nothing keeps: each
            // failed iteration may add to the counter
            spin(
                false,
                vec![
                    st(StmtKind::Rmw {
                        target: None,
                        address: Expr::Const(4),
                        op: RmwOp::FetchAdd(Expr::Const(1)),
                    }),
                    read(0),
                ],
                Vec::new(),
            ),
        ] {
            let (block, found) = rewritten(stmt);
            assert!(found.is_empty(), "{block:?}");
            assert!(matches!(block[0].kind, StmtKind::Loop { .. }));
        }
    }
}
