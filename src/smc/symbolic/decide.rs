//! Satisfiability of path conditions for a search: each question goes
//! to a new solver process ([`solver::decide`]; a program without
//! symbolic values starts none), and a cache keeps the answers by the
//! formula's SMT-LIB text.

use super::ctype::CType;
use super::path::Symbolic;
use super::smtlib;
use super::solver::{self, Bounds, Decision, SolverError};
use super::term::{Formula, SymbolId, Term, value_of};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The most answers the cache keeps; it starts again empty beyond.
const CACHED: usize = 1 << 16;

/// Why a question got no answer (the engine declines the program).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Undecided {
    #[error(transparent)]
    Solver(#[from] SolverError),
    #[error("the SMT solver could not decide a path condition")]
    Unknown,
    /// The search's deadline passed while the solver decided.
    #[error("the time limit passed while the SMT solver decided a path condition")]
    Timeout,
}

/// The cache of one search's answers, and what bounds its questions
/// (the deadline, the stop flag, the solvers' memory).
#[derive(Default)]
pub struct Decider {
    cache: Mutex<HashMap<String, bool>>,
    /// The answers of [`Decider::values`], by condition and term.
    values: Mutex<HashMap<String, Option<Vec<i64>>>>,
    /// When the command's time limit passes: no check runs past it.
    deadline: OnceLock<Instant>,
    /// Set by another party to stop the search: a check ends then too.
    stop: OnceLock<Arc<AtomicBool>>,
    /// The address space each solver process may take.
    memory: OnceLock<u64>,
}

impl std::fmt::Debug for Decider {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Decider")
    }
}

impl Decider {
    /// Bounds every check by `deadline` (the command's time limit).
    pub fn set_deadline(&self, deadline: Option<Instant>) {
        if let Some(deadline) = deadline {
            let _ = self.deadline.set(deadline);
        }
    }

    /// Bounds each solver process's address space by `memory` bytes
    /// (`--memory-limit`).
    pub fn set_memory(&self, memory: Option<u64>) {
        if let Some(memory) = memory {
            let _ = self.memory.set(memory);
        }
    }

    /// Ends every check when `stop` is set (the search's own flag).
    pub fn set_stop(&self, stop: Option<Arc<AtomicBool>>) {
        if let Some(stop) = stop {
            let _ = self.stop.set(stop);
        }
    }

    /// Whether the deadline has passed.
    fn past_deadline(&self) -> bool {
        self.deadline
            .get()
            .is_some_and(|&deadline| Instant::now() >= deadline)
    }

    /// The solvers' decision of `formula` before the deadline or the stop.
    fn decide(&self, formula: &Formula) -> Result<Decision, Undecided> {
        if self.past_deadline() {
            return Err(Undecided::Timeout);
        }
        let bounds = Bounds {
            deadline: self.deadline.get().copied(),
            stop: self.stop.get().map(|stop| &**stop),
            memory: self.memory.get().copied(),
        };
        match solver::decide(formula, bounds)? {
            // why the solvers did not decide: the deadline, or the question
            Decision::Unknown if self.past_deadline() => Err(Undecided::Timeout),
            Decision::Unknown => Err(Undecided::Unknown),
            decision => Ok(decision),
        }
    }

    /// Whether `formula` is satisfiable.
    pub fn satisfiable(&self, formula: &Formula) -> Result<bool, Undecided> {
        match formula {
            Formula::Constant(holds) => return Ok(*holds),
            _ if !has_symbols(formula) => return Ok(formula.evaluate(&HashMap::new())),
            _ => {}
        }
        let text = smtlib::formula(formula);
        let cached = self
            .cache
            .lock()
            .ok()
            .and_then(|cache| cache.get(&text).copied());
        if let Some(known) = cached {
            return Ok(known);
        }
        let holds = matches!(self.decide(formula)?, Decision::Satisfiable(_));
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHED {
                cache.clear();
            }
            cache.insert(text, holds);
        }
        Ok(holds)
    }

    /// The side a branch on `formula` takes under the path condition of
    /// `symbolic`: the only feasible one, or, when both are, the one
    /// `choose` picks (a choice of the move), which is then added to the
    /// path condition. The path condition is feasible, so some side is.
    pub fn branch(
        &self,
        formula: &Formula,
        symbolic: &mut Symbolic,
        choose: &mut dyn FnMut() -> bool,
    ) -> Result<bool, Undecided> {
        let fails = !formula.clone();
        if !self.satisfiable(&symbolic.condition_with(formula))? {
            return Ok(false);
        }
        if !self.satisfiable(&symbolic.condition_with(&fails))? {
            return Ok(true);
        }
        let holds = choose();
        let side = if holds { formula.clone() } else { fails };
        symbolic.take(side);
        Ok(holds)
    }

    /// Whether the execution's path condition (the sides of all threads)
    /// is satisfiable: always when no thread read a term another wrote,
    /// for each thread then decided on its own symbols alone.
    pub fn feasible_execution(&self, symbolic: &Symbolic) -> Result<bool, Undecided> {
        if !symbolic.shared() {
            return Ok(true);
        }
        self.satisfiable(&symbolic.condition())
    }

    /// Adds `formula` to the path condition of `symbolic` when it may
    /// hold there (true), else leaves it (false).
    pub fn assume(&self, formula: &Formula, symbolic: &mut Symbolic) -> Result<bool, Undecided> {
        if !self.satisfiable(&symbolic.condition_with(formula))? {
            return Ok(false);
        }
        symbolic.take(formula.clone());
        Ok(true)
    }

    /// The values `term` (of type `ty`) can take under the causal
    /// condition of `symbolic`, in increasing order, when there are at
    /// most `most`; `None` when there are more. Each value is a model
    /// with the values found before excluded.
    pub fn values(
        &self,
        term: &Term,
        ty: CType,
        symbolic: &Symbolic,
        most: usize,
    ) -> Result<Option<Vec<i64>>, Undecided> {
        let key = format!(
            "{} {}",
            smtlib::formula(&symbolic.causal()),
            smtlib::term(term)
        );
        if let Some(known) = self
            .values
            .lock()
            .ok()
            .and_then(|known| known.get(&key).cloned())
        {
            return Ok(known);
        }
        let mut named = BTreeMap::new();
        smtlib::term_symbols(term, &mut named);
        let ids: Vec<_> = named.keys().copied().collect();
        let mut found = Vec::new();
        let mut excluded = Formula::Constant(true);
        let values = loop {
            let Some(model) = self.model(&symbolic.condition_with(&excluded), &ids)? else {
                found.sort_unstable();
                break Some(found);
            };
            if found.len() == most {
                break None;
            }
            let values: HashMap<_, _> = model.iter().map(|(&id, &v)| (id, v as i64)).collect();
            let value = value_of(term, ty, &values);
            found.push(value);
            let other = !Formula::compare_equal(term.clone(), Term::constant(value, ty));
            excluded = excluded.and(other);
        };
        if let Ok(mut known) = self.values.lock() {
            if known.len() >= CACHED {
                known.clear();
            }
            known.insert(key, values.clone());
        }
        Ok(values)
    }

    /// Values of `symbols` (unsigned, in their widths) that satisfy
    /// `formula`, or `None` when nothing does.
    pub fn model(
        &self,
        formula: &Formula,
        symbols: &[SymbolId],
    ) -> Result<Option<HashMap<SymbolId, u64>>, Undecided> {
        match self.decide(formula)? {
            Decision::Satisfiable(model) => Ok(Some(
                symbols
                    .iter()
                    // a symbol the condition does not name may take any value
                    .map(|&id| (id, model.get(&id).copied().unwrap_or(0)))
                    .collect(),
            )),
            _ => Ok(None),
        }
    }
}

fn has_symbols(formula: &Formula) -> bool {
    let mut found = BTreeMap::new();
    smtlib::symbols(formula, &mut found);
    !found.is_empty()
}
