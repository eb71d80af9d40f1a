//! The symbolic part of an execution's state: the symbols made so far
//! (each nondeterministic value of more than 256 values that the
//! execution reads becomes one), and the path condition, the conjunction
//! of the sides its branches on terms took. A state's snapshot carries
//! both, so that a move simulated again from it sees what the execution
//! knew there.
//!
//! Terms travel through shared memory ([`Carried`]): a write of a term
//! carries it with its thread's *causal condition*, the sides taken by
//! the thread's causal past (its own sides and those carried by the
//! values it read), and the memory locations that hold a term keep it
//! here. A thread decides its branches under its causal condition, which
//! the reads-from of its prefix determine, so that every interleaving of
//! a reads-from class takes the same choices; the execution's path
//! condition (all sides of all threads) is checked before a violation or
//! a deadlock is reported ([`Threads::shared`]).

use super::ctype::CType;
use super::term::{Formula, SymbolId, Term};
use std::sync::Arc;

/// Symbol ids hold their width in their low bits, so that one id has one
/// width in every execution of a search (the solver declares it once).
const WIDTH_BITS: u32 = 7;

/// Symbol ids hold the thread that made them above the width.
const THREAD_BITS: u32 = 8;

/// The thread bits of the symbols of heap cells ([`Symbolic::cell`]).
const CELLS: u32 = (1 << THREAD_BITS) - 1;

/// A symbol made by an execution: its id, its C type and the thread that
/// read it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Made {
    pub id: SymbolId,
    pub ty: CType,
    pub thread: usize,
}

/// The symbols and the path condition of one execution. Two are equal
/// whatever thread runs (`running` only says whose move is being
/// computed), so that the explicit search's stored states still merge.
#[derive(Debug, Clone, Default)]
pub struct Symbolic {
    pub made: Vec<Made>,
    /// The sides taken by all threads, in order (each is feasible with
    /// the causal condition of its thread).
    pub path: Vec<Arc<Formula>>,
    /// The thread whose move runs (whose causal condition decides).
    pub running: usize,
    /// The threads' causal conditions and the terms in shared memory;
    /// none until the execution takes a side or writes a term, so that a
    /// state of a program without symbols stays as cheap to copy as
    /// before.
    pub threads: Option<Box<Threads>>,
}

impl PartialEq for Symbolic {
    fn eq(&self, other: &Self) -> bool {
        self.made == other.made && self.path == other.path && self.threads == other.threads
    }
}

impl Eq for Symbolic {}

impl std::hash::Hash for Symbolic {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.made.hash(state);
        self.path.hash(state);
        self.threads.hash(state);
    }
}

/// The per-thread and shared-memory part of [`Symbolic`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Threads {
    /// Per thread, its causal condition: the sides its own branches took
    /// and those carried by the terms it read from other threads.
    pub known: Vec<Vec<Arc<Formula>>>,
    /// Some thread read a term from shared memory: the threads' causal
    /// conditions may contradict each other, so the path condition is
    /// checked before a violation is reported.
    pub shared: bool,
    /// The terms shared memory holds, by location (its `i64` cell holds 0
    /// there).
    pub memory: std::collections::BTreeMap<u32, Arc<Carried>>,
    /// The terms of the stores issued into store buffers, in order
    /// (`Buffered::term` points here).
    pub stored: Vec<Arc<Carried>>,
}

/// A term in shared memory or a store buffer, of the type shared memory
/// holds (`sma_wide_t`), with the causal condition of the thread that
/// wrote it at the write.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Carried {
    pub term: Arc<Term>,
    pub condition: Arc<Vec<Arc<Formula>>>,
}

/// Why no symbol could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an execution with more than {0} symbolic values")]
pub struct TooManySymbols(pub usize);

impl Symbolic {
    /// A fresh symbol of type `ty`, read first by `thread`.
    ///
    /// The id names the thread and the symbol's position among the
    /// thread's own (not among all threads'), so that every interleaving
    /// of the thread's prefix names it alike.
    pub fn fresh(&mut self, ty: CType, thread: usize) -> Result<Term, TooManySymbols> {
        let most = (u32::MAX >> (WIDTH_BITS + THREAD_BITS)) as usize;
        let own = self
            .made
            .iter()
            .filter(|made| (made.id >> WIDTH_BITS) & ((1 << THREAD_BITS) - 1) == thread as u32)
            .count();
        let count = u32::try_from(own)
            .ok()
            .filter(|&count| (count as usize) < most)
            .ok_or(TooManySymbols(most))?;
        let thread_id = u32::try_from(thread)
            .ok()
            .filter(|&thread| thread < CELLS)
            .ok_or(TooManySymbols(most))?;
        let id = (((count << THREAD_BITS) | thread_id) << WIDTH_BITS) | u32::from(ty.bits);
        self.made.push(Made { id, ty, thread });
        Ok(Term::symbol(id, ty))
    }

    /// The symbol of the heap cell `cell` (its index in the heap) of
    /// type `ty` while it holds the value its `malloc` gave it: named by
    /// the cell, so that every read of it before a write, by any thread
    /// in any interleaving, gets the same symbol. `thread` reads it.
    pub fn cell(&mut self, cell: usize, ty: CType, thread: usize) -> Result<Term, TooManySymbols> {
        let most = (u32::MAX >> (WIDTH_BITS + THREAD_BITS)) as usize;
        let cell = u32::try_from(cell)
            .ok()
            .filter(|&cell| (cell as usize) < most)
            .ok_or(TooManySymbols(most))?;
        let id = (((cell << THREAD_BITS) | CELLS) << WIDTH_BITS) | u32::from(ty.bits);
        if !self.made.iter().any(|made| made.id == id) {
            self.made.push(Made { id, ty, thread });
        }
        Ok(Term::symbol(id, ty))
    }

    /// The path condition as one formula (`true` when empty).
    pub fn condition(&self) -> Formula {
        conjunction(self.path.iter().map(|side| side.as_ref().clone()))
    }

    /// The causal condition of the running thread.
    pub fn causal(&self) -> Formula {
        conjunction(self.own().iter().map(|side| side.as_ref().clone()))
    }

    /// The causal condition of the running thread with `more` added.
    pub fn condition_with(&self, more: &Formula) -> Formula {
        conjunction(
            self.own()
                .iter()
                .map(|side| side.as_ref().clone())
                .chain(std::iter::once(more.clone())),
        )
    }

    fn own(&self) -> &[Arc<Formula>] {
        self.threads
            .as_ref()
            .and_then(|threads| threads.known.get(self.running))
            .map_or(&[], Vec::as_slice)
    }

    /// The per-thread part, made at its first use.
    pub fn threads_mut(&mut self) -> &mut Threads {
        self.threads.get_or_insert_with(Box::default)
    }

    /// Whether some thread read a term from shared memory.
    pub fn shared(&self) -> bool {
        self.threads.as_ref().is_some_and(|threads| threads.shared)
    }

    /// The causal condition of `thread`, to add sides to.
    fn known_mut(&mut self, thread: usize) -> &mut Vec<Arc<Formula>> {
        let known = &mut self.threads_mut().known;
        if known.len() <= thread {
            known.resize(thread + 1, Vec::new());
        }
        &mut known[thread]
    }

    /// The running thread takes the side `side`.
    pub fn take(&mut self, side: Formula) {
        let side = Arc::new(side);
        self.path.push(side.clone());
        self.known_mut(self.running).push(side);
    }

    /// Thread `to` learns the causal condition of thread `from`: `from`
    /// created `to`, or `to` joined `from` (both are in `to`'s causal
    /// past, as the writes it read are).
    pub fn inherit(&mut self, from: usize, to: usize) {
        let Some(sides) = self
            .threads
            .as_ref()
            .and_then(|threads| threads.known.get(from))
            .filter(|sides| !sides.is_empty())
            .cloned()
        else {
            return;
        };
        self.learn(to, &sides);
    }

    /// Thread `thread`'s causal condition takes the `sides` it lacks.
    fn learn(&mut self, thread: usize, sides: &[Arc<Formula>]) {
        let own = self.known_mut(thread);
        for side in sides {
            if !own
                .iter()
                .any(|known| Arc::ptr_eq(known, side) || known == side)
            {
                own.push(side.clone());
            }
        }
    }

    /// `term`, written by the running thread, with its causal condition.
    pub fn carried(&self, term: Term) -> Arc<Carried> {
        Arc::new(Carried {
            term: Arc::new(term),
            condition: Arc::new(self.own().to_vec()),
        })
    }

    /// Thread `thread` reads `carried`: its causal condition takes the
    /// sides it carries. A term another thread wrote marks the execution
    /// [`shared`](Threads::shared).
    pub fn import(&mut self, thread: usize, carried: &Carried) {
        self.learn(thread, &carried.condition);
        self.threads_mut().shared = true;
    }
}

fn conjunction(formulas: impl Iterator<Item = Formula>) -> Formula {
    formulas
        .reduce(|all, next| all.and(next))
        .unwrap_or(Formula::Constant(true))
}
