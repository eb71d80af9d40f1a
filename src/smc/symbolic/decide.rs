//! Satisfiability of path conditions for a search: a pool of solver
//! processes ([`Solver`]), started when a search first asks (a program
//! without symbolic values starts none) and kept for the whole search,
//! one per worker that asks at the same time (`--jobs 2`: two), and a
//! cache of the answers by the formula's SMT-LIB text.

use super::ctype::CType;
use super::path::Symbolic;
use super::smtlib;
use super::solver::{Satisfiable, Solver, SolverError};
use super::term::{Formula, SymbolId, Term, value_of};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

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

#[derive(Default)]
struct Pool {
    idle: Vec<Solver>,
    cache: HashMap<String, bool>,
}

/// The solvers and the cache of one search.
#[derive(Default)]
pub struct Decider {
    pool: Mutex<Pool>,
    /// When the command's time limit passes: no check runs past it.
    deadline: OnceLock<Instant>,
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

    /// The time a check may take: until the deadline, if there is one.
    fn limit(&self) -> Result<Option<Duration>, Undecided> {
        match self.deadline.get() {
            None => Ok(None),
            Some(&deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Ok(Some(left)),
                _ => Err(Undecided::Timeout),
            },
        }
    }

    /// Why the solver answered `unknown`: the deadline, or the question.
    fn unknown(&self) -> Undecided {
        match self.limit() {
            Err(timeout) => timeout,
            Ok(_) => Undecided::Unknown,
        }
    }

    /// An idle solver that still runs (a solver's process ends with the
    /// worker that started it), or a new one.
    fn take(&self) -> Result<Solver, Undecided> {
        while let Some(mut solver) = self.pool.lock().ok().and_then(|mut pool| pool.idle.pop()) {
            if solver.alive() {
                return Ok(solver);
            }
        }
        Ok(Solver::start()?)
    }

    /// `ask` of an idle solver, given back after. A solver that fails is
    /// dropped (its process ends), not reused, and `ask` goes once more to
    /// a new one: the worker thread that started the old one may have
    /// ended, and its process with it ([`Solver::alive`]). Each question
    /// leaves the solver as it found it, so asking again is the same.
    fn with_solver<T>(
        &self,
        ask: impl Fn(&mut Solver) -> Result<T, SolverError>,
    ) -> Result<T, Undecided> {
        let mut solver = self.take()?;
        let answer = match ask(&mut solver) {
            Ok(answer) => answer,
            Err(_) => {
                solver = Solver::start()?;
                ask(&mut solver)?
            }
        };
        self.give_back(solver);
        Ok(answer)
    }

    fn give_back(&self, solver: Solver) {
        if let Ok(mut pool) = self.pool.lock() {
            pool.idle.push(solver);
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
            .pool
            .lock()
            .ok()
            .and_then(|pool| pool.cache.get(&text).copied());
        if let Some(known) = cached {
            return Ok(known);
        }
        let limit = self.limit()?;
        let answer = self.with_solver(|solver| solver.feasible(formula, limit))?;
        let holds = match answer {
            Satisfiable::Yes => true,
            Satisfiable::No => false,
            Satisfiable::Unknown => return Err(self.unknown()),
        };
        if let Ok(mut pool) = self.pool.lock() {
            if pool.cache.len() >= CACHED {
                pool.cache.clear();
            }
            pool.cache.insert(text, holds);
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
        let limit = self.limit()?;
        let mut all = BTreeMap::new();
        smtlib::symbols(formula, &mut all);
        let (answer, values) = self.with_solver(|solver| {
            solver.push()?;
            solver.assert(formula)?;
            let answer = solver.check(limit)?;
            let mut values = HashMap::new();
            if answer == Satisfiable::Yes {
                for &id in symbols {
                    // a symbol the condition does not name may take any value
                    let value = if all.contains_key(&id) {
                        solver.value(id)?
                    } else {
                        0
                    };
                    values.insert(id, value);
                }
            }
            solver.pop()?;
            Ok((answer, values))
        })?;
        match answer {
            Satisfiable::Yes => Ok(Some(values)),
            Satisfiable::No => Ok(None),
            Satisfiable::Unknown => Err(self.unknown()),
        }
    }
}

fn has_symbols(formula: &Formula) -> bool {
    let mut found = BTreeMap::new();
    smtlib::symbols(formula, &mut found);
    !found.is_empty()
}
