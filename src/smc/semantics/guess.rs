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
//! there in CBMC's run. `code` recognises the pattern
//! (`resolve_guesses` in `interpreter/code.rs`); this file runs it.

use super::machine::{Machine, Outcome, Step};
use super::state::State;
use crate::ir::Place;
use crate::passes::SeqStmt;
use crate::smc::interpreter::code::{Guess, Instr};
use crate::smc::interpreter::eval::{Choices, Unmodelled};
use crate::smc::symbolic::path::Carried;

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
        old_carried: Option<&Carried>,
        choices: &mut dyn Choices,
    ) -> Step<Outcome<()>> {
        let pc = state.threads[slot].pc;
        let fail = |what: Unmodelled| self.unsupported(slot, pc, what.0);
        let guessed = Place::Local(guess.local);
        self.store_read(state, slot, &guessed, old, old_carried, choices)
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
