//! The threads of the sequential program as straight-line code for the
//! interpreter: branches become conditional jumps, labels become
//! positions, and the lazy scheme's guards and resume checks (which only
//! steer CBMC's context switches) are dropped.

use super::guess::{Guess, resolve_guesses};
use crate::ir::{Expr, LabelId, OriginId};
use crate::passes::{SeqStmt, SeqThread};
use std::collections::HashMap;

/// One instruction of a thread's code.
#[derive(Debug, Clone)]
pub enum Instr {
    /// A statement that neither branches nor jumps (private or visible).
    Do(SeqStmt),
    /// Goes to `target` when `condition` is zero.
    BranchUnless { condition: Expr, target: usize },
    /// Goes to `target`.
    Jump(usize),
}

impl Instr {
    /// Whether the instruction is a visible statement: a point where the
    /// lazy scheme may switch context, and where shared memory is touched.
    pub fn is_visible(&self) -> bool {
        matches!(
            self,
            Instr::Do(
                SeqStmt::Read { .. }
                    | SeqStmt::Write { .. }
                    | SeqStmt::Rmw { .. }
                    | SeqStmt::Fence { .. }
                    | SeqStmt::Lock { .. }
                    | SeqStmt::Unlock { .. }
                    | SeqStmt::TryLock { .. }
                    | SeqStmt::Create { .. }
                    | SeqStmt::Join { .. }
            )
        )
    }
}

/// A thread's code: instructions, and for each the statement of the
/// source nearest to it (for the located reasons of a decline).
#[derive(Debug, Clone, Default)]
pub struct Code {
    pub instrs: Vec<Instr>,
    pub origins: Vec<Option<OriginId>>,
    /// The guessed compare-and-swaps, by position ([`super::guess`]).
    pub guesses: HashMap<usize, Guess>,
}

/// The origin a statement records, if it records one.
pub fn statement_origin(stmt: &SeqStmt) -> Option<OriginId> {
    match stmt {
        SeqStmt::Read { stmt, .. }
        | SeqStmt::Write { stmt, .. }
        | SeqStmt::Rmw { stmt, .. }
        | SeqStmt::Fence { stmt, .. }
        | SeqStmt::Lock { stmt, .. }
        | SeqStmt::Unlock { stmt, .. }
        | SeqStmt::TryLock { stmt, .. }
        | SeqStmt::Malloc { stmt, .. }
        | SeqStmt::Free { stmt, .. }
        | SeqStmt::Create { stmt, .. }
        | SeqStmt::Join { stmt, .. }
        | SeqStmt::AtomicBegin { stmt }
        | SeqStmt::AtomicEnd { stmt } => Some(*stmt),
        _ => None,
    }
}

/// Flattens a thread's body.
pub fn flatten(thread: &SeqThread) -> Code {
    let mut builder = Builder::default();
    builder.block(&thread.body);
    let labels = builder.labels;
    let instrs = builder
        .instrs
        .into_iter()
        .map(|instr| match instr {
            Pending::Ready(instr) => instr,
            Pending::Goto(label) => Instr::Jump(labels.get(&label).copied().unwrap_or(usize::MAX)),
        })
        .collect();
    // each instruction's nearest origin: its own, else the last one before
    let mut last = None;
    let mut origins: Vec<Option<OriginId>> = builder
        .origins
        .iter()
        .map(|origin| {
            last = origin.or(last);
            last
        })
        .collect();
    // the first instructions take the first origin that follows
    let first = origins.iter().find_map(|origin| *origin);
    for origin in origins.iter_mut().take_while(|origin| origin.is_none()) {
        *origin = first;
    }
    let mut code = Code {
        instrs,
        origins,
        guesses: HashMap::new(),
    };
    resolve_guesses(&mut code, thread);
    code
}

enum Pending {
    Ready(Instr),
    Goto(LabelId),
}

#[derive(Default)]
struct Builder {
    instrs: Vec<Pending>,
    origins: Vec<Option<OriginId>>,
    labels: HashMap<LabelId, usize>,
}

impl Builder {
    fn push(&mut self, instr: Pending, origin: Option<OriginId>) -> usize {
        self.instrs.push(instr);
        self.origins.push(origin);
        self.instrs.len() - 1
    }

    fn block(&mut self, body: &[SeqStmt]) {
        for stmt in body {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &SeqStmt) {
        match stmt {
            SeqStmt::Guard(_) | SeqStmt::ResumeCheck(_) => {}
            SeqStmt::Label(label) => {
                self.labels.insert(*label, self.instrs.len());
            }
            SeqStmt::Goto(label) => {
                self.push(Pending::Goto(*label), None);
            }
            SeqStmt::If {
                condition,
                then_branch,
                else_branch,
            } => {
                let branch = self.push(
                    Pending::Ready(Instr::BranchUnless {
                        condition: condition.clone(),
                        target: 0,
                    }),
                    None,
                );
                self.block(then_branch);
                let jump = (!else_branch.is_empty())
                    .then(|| self.push(Pending::Ready(Instr::Jump(0)), None));
                let else_start = self.instrs.len();
                self.block(else_branch);
                let end = self.instrs.len();
                if let Pending::Ready(Instr::BranchUnless { target, .. }) = &mut self.instrs[branch]
                {
                    *target = else_start;
                }
                if let Some(jump) = jump
                    && let Pending::Ready(Instr::Jump(target)) = &mut self.instrs[jump]
                {
                    *target = end;
                }
            }
            other => {
                self.push(
                    Pending::Ready(Instr::Do(other.clone())),
                    statement_origin(other),
                );
            }
        }
    }
}
