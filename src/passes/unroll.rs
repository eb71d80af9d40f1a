//! Loop unrolling: every `Loop` becomes `--unwind` nested copies (or its
//! own number, `--unwindset`) guarded by its condition, closed by the assumption that the loop exits (preceded,
//! with `--unwinding-assertions`, by the assertion that it does); `break`
//! and `continue` become forward jumps to the loop exit and to the copy's
//! latch.

use super::walk::{LabelGen, for_each_stmt, map_nested_blocks, relabel};
use crate::ir::{Block, Expr, LabelId, OriginId, PropertyKind, Stmt, StmtKind, UnaryOp};
use std::collections::BTreeMap;

/// How loops are unrolled.
#[derive(Debug, Clone, Copy)]
pub struct Unrolling<'a> {
    /// Copies of each loop body (`--unwind`).
    pub unwind: u32,
    /// Assert, before assuming it, that the loop exits after the last copy.
    pub assertions: bool,
    /// The loops with their own number of copies (`--unwindset`), by origin.
    pub own: &'a BTreeMap<OriginId, u32>,
}

impl Unrolling<'_> {
    /// Copies of the body of the loop at `origin`.
    pub fn copies(&self, origin: OriginId) -> u32 {
        self.own.get(&origin).copied().unwrap_or(self.unwind)
    }
}

/// The most statements the unrolled code of one function may hold. A loop
/// nest k deep unrolls to `--unwind`^k copies of its innermost body; the
/// translation takes about a kilobyte per statement at its peak (measured
/// on a nest of two loops), so this is about 2 GB: lazysma refuses a
/// larger bound rather than run out of memory.
pub const MAX_UNROLLED_STATEMENTS: u64 = 2_000_000;

/// How many statements `block` holds once unrolled, counting each
/// statement with its nested blocks (saturating).
pub fn unrolled_size(block: &Block, unwind: Unrolling) -> u64 {
    block
        .iter()
        .map(|stmt| statement_size(stmt, unwind))
        .fold(0, u64::saturating_add)
}

fn statement_size(stmt: &Stmt, unwind: Unrolling) -> u64 {
    match &stmt.kind {
        StmtKind::Loop {
            test_first,
            prelude,
            body,
            latch,
            ..
        } => {
            let prelude = unrolled_size(prelude, unwind);
            let depth = unwind.copies(stmt.origin);
            let copies = u64::from(if *test_first { depth } else { depth.max(1) });
            // each copy: its test (the prelude and an `if`), the body and
            // the latch; then the last test and the closing assumption
            let copy = prelude
                .saturating_mul(2)
                .saturating_add(unrolled_size(body, unwind))
                .saturating_add(unrolled_size(latch, unwind))
                .saturating_add(1);
            copies
                .saturating_mul(copy)
                .saturating_add(prelude)
                .saturating_add(2)
        }
        _ => {
            let mut size = 1u64;
            super::walk::for_each_nested_block(stmt, &mut |nested| {
                size = size.saturating_add(unrolled_size(nested, unwind));
            });
            size
        }
    }
}

/// The loop of `block` (outermost first) whose unrolled code is the
/// largest, with that size, when the whole block's unrolled code would
/// exceed [`MAX_UNROLLED_STATEMENTS`].
pub fn too_large_to_unroll(block: &Block, unwind: Unrolling) -> Option<(OriginId, u64)> {
    if unrolled_size(block, unwind) <= MAX_UNROLLED_STATEMENTS {
        return None;
    }
    let mut largest: Option<(OriginId, u64)> = None;
    for_each_outermost_loop(block, &mut |stmt| {
        let size = statement_size(stmt, unwind);
        if largest.is_none_or(|(_, most)| size > most) {
            largest = Some((stmt.origin, size));
        }
    });
    largest
}

fn for_each_outermost_loop(block: &Block, found: &mut dyn FnMut(&Stmt)) {
    for stmt in block {
        if matches!(stmt.kind, StmtKind::Loop { .. }) {
            found(stmt);
        } else {
            super::walk::for_each_nested_block(stmt, &mut |nested| {
                for_each_outermost_loop(nested, found);
            });
        }
    }
}

/// `block` without loops.
pub fn unroll_block(block: &Block, unwind: Unrolling, labels: &mut LabelGen) -> Block {
    let mut out = Vec::with_capacity(block.len());
    for stmt in block {
        match &stmt.kind {
            StmtKind::Loop {
                test_first,
                prelude,
                condition,
                body,
                latch,
            } => {
                let shape = LoopShape {
                    prelude,
                    condition,
                    body,
                    latch,
                    origin: stmt.origin,
                };
                out.extend(unroll_loop(&shape, *test_first, unwind, labels));
            }
            _ => out.push(map_nested_blocks(stmt, &mut |nested| {
                unroll_block(nested, unwind, labels)
            })),
        }
    }
    out
}

struct LoopShape<'a> {
    prelude: &'a Block,
    condition: &'a Expr,
    body: &'a Block,
    latch: &'a Block,
    origin: usize,
}

/// Jumps out of the loop that copies of one iteration need.
struct Exits {
    exit: LabelId,
    exit_used: bool,
}

fn unroll_loop(
    shape: &LoopShape,
    test_first: bool,
    unwind: Unrolling,
    labels: &mut LabelGen,
) -> Block {
    let mut exits = Exits {
        exit: labels.fresh(),
        exit_used: false,
    };
    let origin = shape.origin;
    let not_condition = Expr::Unary(UnaryOp::Not, Box::new(shape.condition.clone()));
    // Built from the innermost copy outwards.
    let mut tail = copy_block(shape.prelude, unwind, labels);
    if unwind.assertions {
        tail.push(Stmt {
            kind: StmtKind::Assert {
                condition: not_condition.clone(),
                kind: PropertyKind::UnwindingAssertion,
            },
            origin,
        });
    }
    // a loop that nothing can leave ends no execution at any depth: its
    // closing assumption is no bound (no warning that it cuts)
    let closing = if never_exits(shape) {
        StmtKind::Assume(not_condition)
    } else {
        StmtKind::LoopBound(not_condition)
    };
    tail.push(Stmt {
        kind: closing,
        origin,
    });
    let depth = unwind.copies(origin);
    let copies = if test_first { depth } else { depth.max(1) };
    let mut iterations = Vec::with_capacity(copies as usize);
    for _ in 0..copies {
        iterations.push(iteration(shape, unwind, labels, &mut exits));
    }
    for (k, mut iteration) in iterations.into_iter().enumerate().rev() {
        let first_do_while = !test_first && k == 0;
        if first_do_while {
            iteration.extend(tail);
            tail = iteration;
        } else {
            iteration.extend(tail);
            let mut test = copy_block(shape.prelude, unwind, labels);
            test.push(Stmt {
                kind: StmtKind::If {
                    condition: shape.condition.clone(),
                    then_branch: iteration,
                    else_branch: Vec::new(),
                },
                origin,
            });
            tail = test;
        }
    }
    if exits.exit_used {
        tail.push(Stmt {
            kind: StmtKind::Label(exits.exit, "loop_exit".into()),
            origin,
        });
    }
    tail
}

/// Whether no execution can leave the loop: its condition is a constant
/// other than 0 (`while (1)`, `for (;;)`) and nothing in it jumps out,
/// returns or ends the thread.
fn never_exits(shape: &LoopShape) -> bool {
    let always = matches!(shape.condition, Expr::Const(c) if *c != 0);
    let mut leaves = false;
    for block in [shape.prelude, shape.body, shape.latch] {
        for_each_stmt(block, &mut |kind| {
            leaves |= matches!(
                kind,
                StmtKind::Break | StmtKind::Goto(_) | StmtKind::Return(_) | StmtKind::ThreadExit(_)
            )
        });
    }
    always && !leaves
}

/// One copy of `body; continue-label: latch` with fresh labels.
fn iteration(
    shape: &LoopShape,
    unwind: Unrolling,
    labels: &mut LabelGen,
    exits: &mut Exits,
) -> Block {
    let mut body = shape.body.clone();
    let latch_label = labels.fresh();
    let mut latch_used = false;
    replace_jumps(&mut body, exits, latch_label, &mut latch_used);
    relabel(&mut body, labels);
    let mut out = unroll_block(&body, unwind, labels);
    if latch_used {
        out.push(Stmt {
            kind: StmtKind::Label(latch_label, "loop_continue".into()),
            origin: shape.origin,
        });
    }
    out.extend(copy_block(shape.latch, unwind, labels));
    out
}

fn copy_block(block: &Block, unwind: Unrolling, labels: &mut LabelGen) -> Block {
    let mut copy = block.clone();
    relabel(&mut copy, labels);
    unroll_block(&copy, unwind, labels)
}

/// `break` -> `goto exit`, `continue` -> `goto latch`, not inside nested loops.
fn replace_jumps(block: &mut Block, exits: &mut Exits, latch: LabelId, latch_used: &mut bool) {
    for stmt in block {
        match &mut stmt.kind {
            StmtKind::Break => {
                exits.exit_used = true;
                stmt.kind = StmtKind::Goto(exits.exit);
            }
            StmtKind::Continue => {
                *latch_used = true;
                stmt.kind = StmtKind::Goto(latch);
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                replace_jumps(then_branch, exits, latch, latch_used);
                replace_jumps(else_branch, exits, latch, latch_used);
            }
            _ => {}
        }
    }
}
