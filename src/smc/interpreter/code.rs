//! The threads of the sequential program as straight-line code for the
//! interpreter: branches become conditional jumps, labels become
//! positions, and the lazy scheme's guards and resume checks (which only
//! steer CBMC's context switches) are dropped. The guessed
//! compare-and-swaps of the frontend are recognised here
//! ([`resolve_guesses`], run by [`crate::smc::semantics::guess`]).

use crate::ir::{BinaryOp, Expr, LabelId, LocalId, OriginId, Place, visit_expr};
use crate::passes::{RmwCode, SeqStmt, SeqThread};
use std::collections::{HashMap, HashSet};

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
    /// The guessed compare-and-swaps, by position ([`resolve_guesses`]).
    pub guesses: HashMap<usize, Guess>,
    /// The position of the first statement of each await loop's
    /// iteration, by the position of its [`SeqStmt::Await`].
    pub restarts: HashMap<usize, usize>,
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
        | SeqStmt::Await { stmt, .. }
        | SeqStmt::LoopBound { stmt, .. }
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
    let restarts = builder
        .instrs
        .iter()
        .enumerate()
        .filter_map(|(at, instr)| match instr {
            Pending::Ready(Instr::Do(SeqStmt::Await { restart, .. })) => {
                Some((at, *labels.get(restart)?))
            }
            _ => None,
        })
        .collect();
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
        restarts,
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

/// The guess of a compare-and-swap: the local that holds it and the
/// private code between the guess and the compare-and-swap, which runs
/// once the guess is known.
#[derive(Debug, Clone)]
pub struct Guess {
    pub local: LocalId,
    pub prelude: Vec<Instr>,
}

/// Finds the guessed compare-and-swaps of `code` (see
/// [`crate::smc::semantics::guess`]) and records each at the
/// compare-and-swap's position in `code.guesses`. The guess and the
/// private code after it are skipped where they stand (a jump over them)
/// and run with the compare-and-swap instead.
fn resolve_guesses(code: &mut Code, thread: &SeqThread) {
    for at in 0..code.instrs.len() {
        if let Some((start, guess)) = guessed_cas(code, thread, at) {
            code.instrs[start] = Instr::Jump(at);
            code.guesses.insert(at, guess);
        }
    }
}

/// The guess of the compare-and-swap at `at`, with the position of the
/// guess's assignment, if the instructions around it have the shape above.
fn guessed_cas(code: &Code, thread: &SeqThread, at: usize) -> Option<(usize, Guess)> {
    let Instr::Do(SeqStmt::Rmw {
        target: Some(Place::Local(found)),
        address,
        op: RmwCode::Cas,
        expected: Expr::Load(Place::Local(guess)),
        ..
    }) = code.instrs.get(at)?
    else {
        return None;
    };
    let (found, guess) = (*found, *guess);
    if !assumes_found(code.instrs.get(at + 1)?, found, guess) {
        return None;
    }
    // `f == g` has one solution only when both have the same type
    let ty = |local: LocalId| thread.locals.get(local).map(|l| &l.ty);
    if ty(found)? != ty(guess)? || found == guess {
        return None;
    }
    let start = (0..at).rev().find(|&index| {
        matches!(&code.instrs[index],
            Instr::Do(SeqStmt::Assign(Place::Local(local), Expr::Nondet(_))) if *local == guess)
    })?;
    let prelude = &code.instrs[start + 1..at];
    let mut written = HashSet::from([guess]);
    for instr in prelude {
        match instr {
            Instr::Do(SeqStmt::Assign(Place::Local(local), value)) if private(value) => {
                written.insert(*local);
            }
            Instr::Do(SeqStmt::Assume(condition)) if private(condition) => {}
            _ => return None,
        }
    }
    // the address is computed before the guess is known
    let mut address_reads = HashSet::new();
    locals_read(address, &mut address_reads);
    if !address_reads.is_disjoint(&written) || jumps_into(code, start, at) {
        return None;
    }
    Some((
        start,
        Guess {
            local: guess,
            prelude: prelude.to_vec(),
        },
    ))
}

/// Whether `instr` is `assume(found == guess)`.
fn assumes_found(instr: &Instr, found: LocalId, guess: LocalId) -> bool {
    let Instr::Do(SeqStmt::Assume(Expr::Binary(BinaryOp::Eq, left, right))) = instr else {
        return false;
    };
    matches!((&**left, &**right),
        (Expr::Load(Place::Local(l)), Expr::Load(Place::Local(r))) if *l == found && *r == guess)
}

/// Whether an instruction of the code jumps to a position in
/// `first..=last` (the guess and the code after it, up to the
/// compare-and-swap, which only the guess's own jump may reach).
fn jumps_into(code: &Code, first: usize, last: usize) -> bool {
    code.instrs.iter().any(|instr| match instr {
        Instr::Jump(target) | Instr::BranchUnless { target, .. } => {
            (first + 1..=last).contains(target)
        }
        Instr::Do(_) => false,
    })
}

/// Whether `expr` reads only locals and constants, and chooses nothing.
fn private(expr: &Expr) -> bool {
    let mut private = true;
    visit_expr(expr, &mut |e| {
        private &= match e {
            Expr::Load(place) => base_local(place).is_some(),
            Expr::ObjectAddress(_) | Expr::Nondet(_) | Expr::CurrentThread => false,
            _ => true,
        }
    });
    private
}

/// The locals `expr` reads.
fn locals_read(expr: &Expr, into: &mut HashSet<LocalId>) {
    visit_expr(expr, &mut |e| match e {
        Expr::Load(place) => into.extend(base_local(place)),
        Expr::ObjectAddress(local) => {
            into.insert(*local);
        }
        _ => {}
    });
}

/// The local a place lies in (`None`: a plain global). Its indices are
/// expressions of their own, which [`visit_expr`] visits.
fn base_local(place: &Place) -> Option<LocalId> {
    match place {
        Place::Local(local) => Some(*local),
        Place::PlainGlobal(_) => None,
        Place::Field(base, _) | Place::Index(base, _) => base_local(base),
    }
}
