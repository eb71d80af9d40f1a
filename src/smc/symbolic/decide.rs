//! Satisfiability of path conditions for a search: each question goes
//! to a new solver process ([`solver::decide`]; a program without
//! symbolic values starts none), and a cache keeps the answers by the
//! formula's SMT-LIB text.

use super::ctype::CType;
use super::path::Symbolic;
use super::smtlib;
use super::solver::{self, Decision, Ending, SolverError};
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

/// The cache of one search's answers and its deadline.
#[derive(Default)]
pub struct Decider {
    cache: Mutex<HashMap<String, bool>>,
    /// When the command's time limit passes: no check runs past it.
    deadline: OnceLock<Instant>,
    /// Set by another party to stop the search: a check ends then too.
    stop: OnceLock<Arc<AtomicBool>>,
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
        let ending = Ending {
            deadline: self.deadline.get().copied(),
            stop: self.stop.get().map(|stop| &**stop),
        };
        match solver::decide(formula, ending)? {
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

    /// The one value `term` (of type `ty`) has in every model of the path
    /// condition of `symbolic`, if it has one.
    pub fn forced(
        &self,
        term: &Term,
        ty: CType,
        symbolic: &Symbolic,
    ) -> Result<Option<i64>, Undecided> {
        let mut named = BTreeMap::new();
        smtlib::term_symbols(term, &mut named);
        let ids: Vec<_> = named.keys().copied().collect();
        let Some(model) = self.model(&symbolic.causal(), &ids)? else {
            return Ok(None);
        };
        let values: HashMap<_, _> = model.iter().map(|(&id, &v)| (id, v as i64)).collect();
        let value = value_of(term, ty, &values);
        let other = !Formula::compare_equal(term.clone(), Term::constant(value, ty));
        if self.satisfiable(&symbolic.condition_with(&other))? {
            return Ok(None);
        }
        Ok(Some(value))
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
