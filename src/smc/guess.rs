//! Guessed compare-and-swaps. The frontend writes an atomic update whose
//! new value C computes from the old one (`c += 3` on an `_Atomic int`,
//! `__sync_fetch_and_nand`, a semaphore's wait, a barrier's arrival, a
//! read-write lock) as a guess of the old value, private code that
//! computes the new value from the guess (and may assume something of
//! it: a wait), a compare-and-swap that must find the guess, and an
//! assumption that it did:
//!
//! ```text
//! g = nondet; <private code over g>; f = CAS(a, g, d); assume(f == g);
//! ```
//!
//! CBMC explores every guess and keeps the one the compare-and-swap finds.
//! The native engine cannot enumerate 2^32 guesses; it takes the only one
//! that survives. At the compare-and-swap it reads the old value, gives it
//! to `g`, runs the private code then and performs the compare-and-swap.
//! The private code reads and writes only the thread's locals, which no
//! other thread sees, so running it later changes no execution: an
//! assumption of it that fails cuts the move off, as every guess fails
//! there in CBMC's run.

use super::code::{Code, Instr};
use super::decline::visit;
use super::eval::{Choices, Unmodelled};
use super::machine::{Machine, Outcome, Step};
use super::state::State;
use crate::ir::{BinaryOp, Expr, LocalId, Place};
use crate::passes::{RmwCode, SeqStmt, SeqThread};
use std::collections::HashSet;

/// The guess of a compare-and-swap: the local that holds it and the
/// private code between the guess and the compare-and-swap, which runs
/// once the guess is known.
#[derive(Debug, Clone)]
pub struct Guess {
    pub local: LocalId,
    pub prelude: Vec<Instr>,
}

/// Finds the guessed compare-and-swaps of `code` and records each at the
/// compare-and-swap's position in `code.guesses`. The guess and the
/// private code after it are skipped where they stand (a jump over them)
/// and run with the compare-and-swap instead.
pub fn resolve_guesses(code: &mut Code, thread: &SeqThread) {
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
    visit(expr, &mut |e| {
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
    visit(expr, &mut |e| match e {
        Expr::Load(place) => into.extend(base_local(place)),
        Expr::ObjectAddress(local) => {
            into.insert(*local);
        }
        _ => {}
    });
}

/// The local a place lies in (`None`: a plain global). Its indices are
/// expressions of their own, which [`visit`] visits.
fn base_local(place: &Place) -> Option<LocalId> {
    match place {
        Place::Local(local) => Some(*local),
        Place::PlainGlobal(_) => None,
        Place::Field(base, _) | Place::Index(base, _) => base_local(base),
    }
}

impl Machine<'_> {
    /// Gives a guessed compare-and-swap's guess the value `old` it finds
    /// and runs the private code that computes its new value
    /// ([`super::guess`]).
    pub(super) fn resolve_guess(
        &self,
        state: &mut State,
        slot: usize,
        guess: &Guess,
        old: i64,
        choices: &mut dyn Choices,
    ) -> Step<Outcome<()>> {
        let pc = state.threads[slot].pc;
        let fail = |what: Unmodelled| self.unsupported(slot, pc, what.0);
        self.private(state, slot)
            .store(&Place::Local(guess.local), old, choices)
            .map_err(fail)?;
        for instr in &guess.prelude {
            match instr {
                Instr::Do(SeqStmt::Assign(place, value)) => {
                    self.private(state, slot)
                        .assign(place, value, choices)
                        .map_err(fail)?;
                }
                Instr::Do(SeqStmt::Assume(condition)) => {
                    if !self.truth(state, slot, condition, choices).map_err(fail)? {
                        return Ok(Outcome::CutOff);
                    }
                }
                _ => return Err(self.unsupported(slot, pc, "a guess's code branches".into())),
            }
        }
        Ok(Outcome::Next(()))
    }
}
