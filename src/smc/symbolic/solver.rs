//! An incremental bit-vector SMT solver: Debian's `z3` in interactive
//! mode (`z3 -in`) through a pipe, one process per search, the path
//! condition kept with `push`/`pop`. A missing solver is
//! [`SolverError::Missing`], naming the script that installs it; the
//! process is killed when the [`Solver`] is dropped.

use super::smtlib;
use super::term::{Formula, SymbolId};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// The solver's program.
pub const SOLVER: &str = "z3";

/// Why the solver gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    #[error(
        "the SMT solver `z3` is not installed (symbolic values need it): \
         install it with `bash scripts/install-z3.sh` (as root)"
    )]
    Missing,
    #[error("the SMT solver `z3` failed: {0}")]
    Failed(String),
}

/// What a satisfiability check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Satisfiable {
    Yes,
    No,
    /// The solver could not decide (a caller declines).
    Unknown,
}

/// A running solver with the symbols declared so far.
pub struct Solver {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    declared: HashMap<SymbolId, u8>,
}

fn failed(what: impl std::fmt::Display) -> SolverError {
    SolverError::Failed(what.to_string())
}

impl Solver {
    /// Starts `z3 -in` for the logic of bit-vectors, with models.
    pub fn start() -> Result<Solver, SolverError> {
        let mut command = Command::new(SOLVER);
        command
            .args(["-in", "-smt2"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // a solver busy with a hard question must not outlive lazysma
        crate::interrupt::end_with_this_process(&mut command);
        let spawned = command.spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(SolverError::Missing);
            }
            Err(error) => return Err(failed(error)),
        };
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(failed("no pipe to the solver"));
        };
        let mut solver = Solver {
            child,
            input,
            output: BufReader::new(output),
            declared: HashMap::new(),
        };
        solver.send("(set-option :print-success false)")?;
        solver.send("(set-option :produce-models true)")?;
        solver.send("(set-option :global-declarations true)")?;
        solver.send("(set-logic QF_BV)")?;
        Ok(solver)
    }

    fn send(&mut self, command: &str) -> Result<(), SolverError> {
        writeln!(self.input, "{command}").map_err(failed)?;
        self.input.flush().map_err(failed)
    }

    /// One answer of the solver: a line, or an S-expression whose
    /// parentheses balance over several lines.
    fn answer(&mut self) -> Result<String, SolverError> {
        let mut text = String::new();
        let mut depth = 0i64;
        loop {
            let mut line = String::new();
            let read = self.output.read_line(&mut line).map_err(failed)?;
            if read == 0 {
                return Err(failed("the solver ended"));
            }
            depth += line.matches('(').count() as i64 - line.matches(')').count() as i64;
            text.push_str(line.trim());
            text.push(' ');
            if depth <= 0 && !text.trim().is_empty() {
                break;
            }
        }
        let text = text.trim().to_string();
        if text.starts_with("(error") {
            return Err(failed(text));
        }
        Ok(text)
    }

    /// Declares the symbols of `formula` not declared yet (declarations
    /// are global: a `pop` keeps them).
    fn declare(&mut self, formula: &Formula) -> Result<(), SolverError> {
        let mut found = BTreeMap::new();
        smtlib::symbols(formula, &mut found);
        for (id, width) in found {
            match self.declared.get(&id) {
                Some(&known) if known == width => {}
                Some(_) => return Err(failed(format!("symbol {id} of two widths"))),
                None => {
                    self.send(&smtlib::declaration(id, width))?;
                    self.declared.insert(id, width);
                }
            }
        }
        Ok(())
    }

    /// Adds `formula` to the current path condition.
    pub fn assert(&mut self, formula: &Formula) -> Result<(), SolverError> {
        self.declare(formula)?;
        self.send(&format!("(assert {})", smtlib::formula(formula)))
    }

    /// Opens a scope: what is asserted after it goes at the matching
    /// [`Solver::pop`].
    pub fn push(&mut self) -> Result<(), SolverError> {
        self.send("(push 1)")
    }

    pub fn pop(&mut self) -> Result<(), SolverError> {
        self.send("(pop 1)")
    }

    /// Whether the solver's process still runs (it ends with the thread
    /// that started it, see [`crate::interrupt::end_with_this_process`]).
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Whether the path condition is satisfiable: `Unknown` when the
    /// solver could not decide within `limit`, if given.
    pub fn check(&mut self, limit: Option<Duration>) -> Result<Satisfiable, SolverError> {
        if let Some(limit) = limit {
            // z3's limit of one check, in milliseconds (0 would mean none)
            let milliseconds = limit.as_millis().clamp(1, u128::from(u32::MAX));
            self.send(&format!("(set-option :timeout {milliseconds})"))?;
        }
        self.send("(check-sat)")?;
        match self.answer()?.as_str() {
            "sat" => Ok(Satisfiable::Yes),
            "unsat" => Ok(Satisfiable::No),
            "unknown" => Ok(Satisfiable::Unknown),
            other => Err(failed(format!("unexpected answer {other}"))),
        }
    }

    /// Whether the path condition and `formula` are satisfiable together
    /// (the path condition is left as it was).
    pub fn feasible(
        &mut self,
        formula: &Formula,
        limit: Option<Duration>,
    ) -> Result<Satisfiable, SolverError> {
        self.declare(formula)?;
        self.push()?;
        self.assert(formula)?;
        let answer = self.check(limit);
        self.pop()?;
        answer
    }

    /// The value of symbol `id` in the model of the last satisfiable
    /// check, as an unsigned number of its width.
    pub fn value(&mut self, id: SymbolId) -> Result<u64, SolverError> {
        if !self.declared.contains_key(&id) {
            return Err(failed(format!("symbol {id} is not declared")));
        }
        self.send(&format!("(get-value ({}))", smtlib::name(id)))?;
        let answer = self.answer()?;
        parse_value(&answer).ok_or_else(|| failed(format!("unexpected value {answer}")))
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        let _ = self.send("(exit)");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The number of a `get-value` answer `((s0 #x0000007f))`, `#b101` or
/// `(_ bv127 32)`.
fn parse_value(answer: &str) -> Option<u64> {
    let inner = answer.trim_start_matches('(').trim_end_matches(')').trim();
    let value = inner.split_once(char::is_whitespace)?.1.trim();
    if let Some(hex) = value.strip_prefix("#x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    if let Some(binary) = value.strip_prefix("#b") {
        return u64::from_str_radix(binary, 2).ok();
    }
    let decimal = value.trim_start_matches('(').trim().strip_prefix("_ bv")?;
    decimal.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::parse_value;

    #[test]
    fn values_are_read_in_every_notation() {
        assert_eq!(parse_value("((s0 #x0000007f))"), Some(127));
        assert_eq!(parse_value("((s3 #b101))"), Some(5));
        assert_eq!(parse_value("((s1 (_ bv42 32)))"), Some(42));
        assert_eq!(parse_value("((s1 oops))"), None);
    }
}
