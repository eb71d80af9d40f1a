//! The bit-vector SMT solvers, as a portfolio of two of Debian's: each
//! question goes to `boolector`, and when it has not answered within
//! [`HEAD_START`], to `z3` beside it; the first answer is taken and the
//! other process killed. Boolector is fast on the comparisons of sums
//! and differences that loops over inputs build, z3 on remainders by a
//! symbol, and each takes minutes on some questions the other answers
//! in a second (`docs/native-engine.md`, "The SMT solvers").
//!
//! Each question is a new process of each solver, its SMT-LIB 2 text on
//! the standard input, its answer with a model on the standard output.
//! A model is checked against the terms' own semantics
//! ([`Formula::evaluate`]) before it is believed. A missing solver is
//! [`SolverError::Missing`], naming the script that installs both.

use super::smtlib;
use super::term::{Formula, SymbolId};
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long Boolector decides alone before z3 joins it: most questions
/// take it a few milliseconds.
pub const HEAD_START: Duration = Duration::from_millis(100);

/// How often a waiting question looks whether a solver has answered.
const POLL: Duration = Duration::from_millis(1);

/// The script that installs the solvers.
const INSTALL: &str = "scripts/install-smt-solvers.sh";

/// Why the solvers gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    #[error(
        "the SMT solver `{0}` is not installed (symbolic values need it): \
         install the solvers with `bash {INSTALL}` (as root)"
    )]
    Missing(&'static str),
    #[error("the SMT solver `{0}` failed: {1}")]
    Failed(&'static str, String),
}

/// What a solver found of a formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Satisfiable, with the value of each of the formula's symbols,
    /// unsigned in its width.
    Satisfiable(HashMap<SymbolId, u64>),
    Unsatisfiable,
    /// No solver could decide within the time it was given.
    Unknown,
}

/// One of the portfolio's solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    Boolector,
    Z3,
}

impl Program {
    pub fn name(self) -> &'static str {
        match self {
            Program::Boolector => "boolector",
            Program::Z3 => "z3",
        }
    }

    fn arguments(self) -> &'static [&'static str] {
        match self {
            // the model, in decimal
            Program::Boolector => &["--smt2", "-m", "-d"],
            Program::Z3 => &["-in", "-smt2"],
        }
    }

    /// The whole input of a question: `formula` and, for z3, the request
    /// of the symbols' values (Boolector prints them after `sat`).
    pub fn script(self, formula: &Formula) -> String {
        let mut symbols = BTreeMap::new();
        smtlib::symbols(formula, &mut symbols);
        let mut text = String::from("(set-logic QF_BV)\n");
        for (&id, &width) in &symbols {
            text.push_str(&smtlib::declaration(id, width));
            text.push('\n');
        }
        text.push_str(&format!(
            "(assert {})\n(check-sat)\n",
            smtlib::formula(formula)
        ));
        if self == Program::Z3 && !symbols.is_empty() {
            let names: Vec<_> = symbols.keys().map(|&id| smtlib::name(id)).collect();
            text.push_str(&format!("(get-value ({}))\n", names.join(" ")));
        }
        text.push_str("(exit)\n");
        text
    }

    /// The decision in the solver's output, `None` when it is not one.
    pub fn read(self, answer: &str) -> Option<Decision> {
        let (first, rest) = answer
            .trim()
            .split_once('\n')
            .unwrap_or((answer.trim(), ""));
        match first.trim() {
            "unsat" => Some(Decision::Unsatisfiable),
            "unknown" => Some(Decision::Unknown),
            "sat" => {
                let values = match self {
                    Program::Boolector => boolector_model(rest)?,
                    Program::Z3 => z3_model(rest)?,
                };
                Some(Decision::Satisfiable(values))
            }
            _ => None,
        }
    }

    /// Starts the solver on `formula`, its address space at most
    /// `memory` bytes, if given.
    fn start(self, formula: &Formula, memory: Option<u64>) -> Result<Running, SolverError> {
        let mut command = Command::new(self.name());
        command
            .args(self.arguments())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // a solver busy with a hard question must not outlive lazysma
        crate::interrupt::end_with_this_process(&mut command);
        if let Some(bytes) = memory {
            limit_address_space(&mut command, bytes);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(SolverError::Missing(self.name()));
            }
            Err(error) => return Err(SolverError::Failed(self.name(), error.to_string())),
        };
        let script = self.script(formula);
        let stdin = child.stdin.take();
        // the question is written and the answer read beside the wait, so
        // that neither pipe can fill and stop the solver
        let writer = std::thread::spawn(move || {
            if let Some(mut input) = stdin {
                let _ = input.write_all(script.as_bytes());
            }
        });
        let stdout = child.stdout.take();
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut output) = stdout {
                let _ = output.read_to_string(&mut text);
            }
            drop(writer.join());
            text
        });
        Ok(Running {
            program: self,
            child,
            reader: Some(reader),
        })
    }
}

/// Bounds the address space of `command`'s process by `bytes`: a solver
/// that needs more fails its question instead of taking the machine's
/// memory.
#[cfg(target_os = "linux")]
fn limit_address_space(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: the closure runs in the child between fork and exec;
    // setrlimit is async-signal-safe and neither allocates nor touches
    // shared state.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn limit_address_space(_command: &mut Command, _bytes: u64) {}

/// Boolector's model: a line `s<id> <value>` per symbol.
fn boolector_model(lines: &str) -> Option<HashMap<SymbolId, u64>> {
    let mut values = HashMap::new();
    for line in lines.lines().map(str::trim).filter(|line| !line.is_empty()) {
        let (name, value) = line.split_once(char::is_whitespace)?;
        values.insert(symbol(name)?, value.trim().parse().ok()?);
    }
    Some(values)
}

/// z3's answer to `get-value`: `((s0 #x0000007f) (s3 #b101))`, a value
/// also `(_ bv127 32)`.
fn z3_model(text: &str) -> Option<HashMap<SymbolId, u64>> {
    let spaced = text.replace(['(', ')'], " ");
    let mut tokens = spaced.split_whitespace();
    let mut values = HashMap::new();
    while let Some(name) = tokens.next() {
        let value = match tokens.next()? {
            // `(_ bv<value> <width>)`: the width is skipped
            "_" => {
                let value = tokens.next()?.strip_prefix("bv")?.parse().ok()?;
                tokens.next()?;
                value
            }
            hex if hex.starts_with("#x") => u64::from_str_radix(&hex[2..], 16).ok()?,
            binary if binary.starts_with("#b") => u64::from_str_radix(&binary[2..], 2).ok()?,
            _ => return None,
        };
        values.insert(symbol(name)?, value);
    }
    Some(values)
}

fn symbol(name: &str) -> Option<SymbolId> {
    name.strip_prefix('s')?.parse().ok()
}

/// A solver deciding a question.
struct Running {
    program: Program,
    child: Child,
    reader: Option<JoinHandle<String>>,
}

impl Running {
    /// The solver's output once it has ended, `None` while it runs.
    fn answer(&mut self) -> Result<Option<String>, SolverError> {
        match self.child.try_wait() {
            Ok(None) => Ok(None),
            Ok(Some(_)) => {
                let reader = self.reader.take();
                Ok(Some(
                    reader
                        .and_then(|reader| reader.join().ok())
                        .unwrap_or_default(),
                ))
            }
            Err(error) => Err(SolverError::Failed(self.program.name(), error.to_string())),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            drop(reader.join());
        }
    }
}

/// What bounds a question: when it is given up (its deadline, and a flag
/// another party sets to stop the search: the CBMC run answered first),
/// and the address space each solver process may take (`--memory-limit`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Bounds<'a> {
    pub deadline: Option<Instant>,
    pub stop: Option<&'a AtomicBool>,
    pub memory: Option<u64>,
}

impl Bounds<'_> {
    /// Whether the question is to be given up now (also on SIGINT or
    /// SIGTERM).
    fn reached(&self) -> bool {
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
            || self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
            || crate::interrupt::received()
    }
}

/// Decides `formula` within `bounds` with the portfolio: Boolector,
/// and z3 beside it after [`HEAD_START`] (or as soon as Boolector
/// failed). `Unknown` when no solver answered in time.
pub fn decide(formula: &Formula, bounds: Bounds<'_>) -> Result<Decision, SolverError> {
    race(
        &[
            (Program::Boolector, Duration::ZERO),
            (Program::Z3, HEAD_START),
        ],
        formula,
        bounds,
    )
}

impl Program {
    /// Decides `formula` within `bounds` with this solver alone (the
    /// tests compare the two).
    pub fn decide(self, formula: &Formula, bounds: Bounds<'_>) -> Result<Decision, SolverError> {
        race(&[(self, Duration::ZERO)], formula, bounds)
    }
}

/// The first decision of the `entrants`, each started after its delay,
/// or earlier when every solver started before it has failed.
fn race(
    entrants: &[(Program, Duration)],
    formula: &Formula,
    bounds: Bounds<'_>,
) -> Result<Decision, SolverError> {
    let start = Instant::now();
    let mut waiting = entrants.iter().copied();
    let mut next = waiting.next();
    let mut running: Vec<Running> = Vec::new();
    let mut failures = Vec::new();
    loop {
        if let Some((program, delay)) = next
            && (running.is_empty() || start.elapsed() >= delay)
        {
            running.push(program.start(formula, bounds.memory)?);
            next = waiting.next();
            continue;
        }
        let mut index = 0;
        while index < running.len() {
            let Some(output) = running[index].answer()? else {
                index += 1;
                continue;
            };
            let finished = running.remove(index);
            match believed(finished.program, &output, formula) {
                Ok(Decision::Unknown) => {}
                Ok(decision) => return Ok(decision),
                Err(error) => failures.push(error),
            }
        }
        if running.is_empty() && next.is_none() {
            return match (failures.pop(), bounds.memory) {
                (None, _) => Ok(Decision::Unknown),
                (Some(SolverError::Failed(name, why)), Some(bytes)) => Err(SolverError::Failed(
                    name,
                    format!(
                        "{why} (its address space was limited to {} MiB by --memory-limit)",
                        bytes >> 20
                    ),
                )),
                (Some(error), _) => Err(error),
            };
        }
        if bounds.reached() {
            return Ok(Decision::Unknown);
        }
        std::thread::sleep(POLL);
    }
}

/// The decision in `program`'s `output`, its model checked.
fn believed(program: Program, output: &str, formula: &Formula) -> Result<Decision, SolverError> {
    let failed = |why: String| SolverError::Failed(program.name(), why);
    let decision = program
        .read(output)
        .ok_or_else(|| failed(format!("unexpected answer `{}`", output.trim())))?;
    if let Decision::Satisfiable(model) = &decision {
        let values: HashMap<_, _> = model.iter().map(|(&id, &v)| (id, v as i64)).collect();
        if !formula.evaluate(&values) {
            return Err(failed(format!(
                "its model does not satisfy {}",
                smtlib::formula(formula)
            )));
        }
    }
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::{Decision, Program};
    use std::collections::HashMap;

    #[test]
    fn answers_are_read_with_their_models() {
        let model = HashMap::from([(0, 127), (3, 18446744073709551615)]);
        assert_eq!(
            Program::Boolector.read("sat\ns0 127\ns3 18446744073709551615\n"),
            Some(Decision::Satisfiable(model))
        );
        let model = HashMap::from([(0, 127), (3, 5), (1, 42)]);
        assert_eq!(
            Program::Z3.read("sat\n((s0 #x0000007f)\n (s3 #b101) (s1 (_ bv42 32)))\n"),
            Some(Decision::Satisfiable(model))
        );
        for program in [Program::Boolector, Program::Z3] {
            assert_eq!(program.read("unsat\n"), Some(Decision::Unsatisfiable));
            assert_eq!(program.read("unknown\n"), Some(Decision::Unknown));
            assert_eq!(program.read("<stdin>:3: undefined symbol 'foo'"), None);
        }
        assert_eq!(Program::Boolector.read("sat\ns1 oops\n"), None);
        assert_eq!(Program::Z3.read("sat\n((s1 oops))\n"), None);
    }
}
