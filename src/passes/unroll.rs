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
    fn copies(&self, origin: OriginId) -> u32 {
        self.own.get(&origin).copied().unwrap_or(self.unwind)
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
