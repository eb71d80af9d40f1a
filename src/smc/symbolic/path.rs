//! The symbolic part of an execution's state: the symbols made so far
//! (each nondeterministic value of more than 256 values that the
//! execution reads becomes one), and the path condition, the conjunction
//! of the sides its branches on terms took. A state's snapshot carries
//! both, so that a move simulated again from it sees what the execution
//! knew there.

use super::ctype::CType;
use super::term::{Formula, SymbolId, Term};
use std::sync::Arc;

/// Symbol ids hold their width in their low bits, so that one id has one
/// width in every execution of a search (the solver declares it once).
const WIDTH_BITS: u32 = 7;

/// A symbol made by an execution: its id, its C type and the thread that
/// read it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Made {
    pub id: SymbolId,
    pub ty: CType,
    pub thread: usize,
}

/// The symbols and the path condition of one execution.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Symbolic {
    pub made: Vec<Made>,
    /// The sides taken, in order (each is feasible with those before it).
    pub path: Vec<Arc<Formula>>,
}

/// Why no symbol could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an execution with more than {0} symbolic values")]
pub struct TooManySymbols(pub usize);

impl Symbolic {
    /// A fresh symbol of type `ty`, read first by `thread`.
    pub fn fresh(&mut self, ty: CType, thread: usize) -> Result<Term, TooManySymbols> {
        let most = (u32::MAX >> WIDTH_BITS) as usize;
        let count = u32::try_from(self.made.len())
            .ok()
            .filter(|&count| (count as usize) < most)
            .ok_or(TooManySymbols(most))?;
        let id = (count << WIDTH_BITS) | u32::from(ty.bits);
        self.made.push(Made { id, ty, thread });
        Ok(Term::symbol(id, ty))
    }

    /// The path condition as one formula (`true` when empty).
    pub fn condition(&self) -> Formula {
        conjunction(self.path.iter().map(|side| side.as_ref().clone()))
    }

    /// The path condition with `more` added.
    pub fn condition_with(&self, more: &Formula) -> Formula {
        conjunction(
            self.path
                .iter()
                .map(|side| side.as_ref().clone())
                .chain(std::iter::once(more.clone())),
        )
    }
}

fn conjunction(formulas: impl Iterator<Item = Formula>) -> Formula {
    formulas
        .reduce(|all, next| all.and(next))
        .unwrap_or(Formula::Constant(true))
}
