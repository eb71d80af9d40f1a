//! Decides a program with an external DIMACS SAT solver (such as CaDiCaL)
//! where CBMC cannot call one itself (CBMC 5.12 has no
//! `--external-sat-solver`), as a portfolio of two runs side by side: the
//! prover, in which CBMC writes its formula in DIMACS (`--dimacs
//! --outfile`) and the solver decides it, and CBMC's usual run with its own
//! solver, which gives the counterexample trace. The formula is
//! satisfiable exactly when some property can fail, so the prover's
//! "unsatisfiable" proves every property and stops CBMC's run; whatever
//! CBMC's run concludes first stops the prover.
//!
//! A [`super::run::Hold`] in the options holds the prover only, so that on
//! a machine with few processors CBMC's run, which can find a
//! counterexample as well as prove, and another run (the run under SC) go
//! first; when CBMC's run ends without a verdict, the prover is released.
//!
//! The prover starts only after [`PROVER_DELAY`], or at once when CBMC's
//! run ends sooner without a verdict: most small programs are decided by
//! CBMC's run within that time, and a second symbolic execution beside it
//! would only take its processor.
//!
//! One trap: when CBMC's simplifier proves every property, it writes the
//! formula without any property (`p cnf 0 0`), which is satisfiable. Its
//! status line "Generated N VCC(s), M remaining after simplification"
//! tells the two apart: M = 0 is a proof without the solver.

use super::BackendError;
use super::locate::Cbmc;
use super::outcome::{Outcome, ProverAnswer};
use super::run::{CbmcRun, Phase, Progress, RunOptions, command_line, report_while, run_to_end};
use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Compiles the translated program without what only a trace needs (event
/// records, write ids; `SMA_VERDICT_ONLY` in `sma/common.h`): the prover
/// never gives a counterexample.
pub const VERDICT_ONLY_DEFINE: &str = "-DSMA_VERDICT_ONLY";

/// The SAT competition's exit code of a solver that found the formula
/// unsatisfiable.
const UNSATISFIABLE: i32 = 20;
/// ... and one that found it satisfiable.
const SATISFIABLE: i32 = 10;

/// How long CBMC's own run goes on alone before the prover starts (see
/// the module documentation). Measured on the benchmark programs: the
/// small ones are decided within it, and the ones the prover decides take
/// many seconds, so the delay costs them little.
pub const PROVER_DELAY: Duration = Duration::from_millis(1000);

/// How often the prover checks, while it waits to start, whether CBMC's
/// run has ended.
const PROVER_DELAY_POLL: Duration = Duration::from_millis(10);

impl Cbmc {
    /// Decides `file` with the DIMACS solver program `solver` beside CBMC's
    /// own run (see the module documentation); the time limit covers both.
    pub(super) fn run_with_dimacs_solver(
        &self,
        file: &Path,
        solver: &str,
        options: &RunOptions,
        progress: Option<&mut dyn FnMut(Progress)>,
    ) -> Result<CbmcRun, BackendError> {
        let start = Instant::now();
        let stop_trace = Arc::new(AtomicBool::new(false));
        let stop_prover = Arc::new(AtomicBool::new(false));
        let trace_ended = Arc::new(AtomicBool::new(false));
        let prover_phase = Arc::new(AtomicU8::new(Phase::Starting as u8));
        let prover = {
            let (cbmc, file, solver) = (self.clone(), file.to_path_buf(), solver.to_string());
            let options = options.cancelled_by(&stop_prover);
            let (stop_trace, phase) = (Arc::clone(&stop_trace), Arc::clone(&prover_phase));
            let trace_ended = Arc::clone(&trace_ended);
            thread::spawn(move || {
                if !wait_to_start(start, &options, &trace_ended) {
                    return Ok((ProverAnswer::NotStarted, Vec::new()));
                }
                let proof = cbmc.prove(&file, &solver, &options, start, &phase);
                if matches!(proof, Ok((ProverAnswer::Proved, _))) {
                    stop_trace.store(true, Ordering::Relaxed);
                }
                proof
            })
        };
        let trace_options = RunOptions {
            sat_solver: None,
            hold: None,
            ..options.cancelled_by(&stop_trace)
        };
        let mut progress = progress;
        let reborrowed = progress
            .as_mut()
            .map(|report| &mut **report as &mut dyn FnMut(Progress));
        let traced = self.run_with_trace(file, &trace_options, reborrowed, start);
        let concluded = matches!(&traced, Ok(run) if run.outcome.is_conclusive());
        if concluded {
            stop_prover.store(true, Ordering::Relaxed);
        } else if let Some(hold) = &options.hold {
            // the prover is all that is left of the portfolio
            hold.release();
        }
        trace_ended.store(true, Ordering::Relaxed);
        if !concluded && let Some(report) = progress {
            // CBMC's run ended without a verdict: the prover goes on alone
            let latest = || {
                Some(Progress {
                    elapsed: start.elapsed(),
                    phase: Phase::from_code(prover_phase.load(Ordering::Relaxed)),
                })
            };
            report_while(|| !prover.is_finished(), latest, report);
        }
        let proof = prover
            .join()
            .unwrap_or(Ok((ProverAnswer::Open, Vec::new())));
        match (traced, proof) {
            (Ok(run), proof) if concluded => {
                let answer = proof.map_or(ProverAnswer::Open, |(answer, _)| answer);
                Ok(CbmcRun {
                    prover: Some(answer),
                    ..run
                })
            }
            (_, Ok((ProverAnswer::Proved, command_line))) => Ok(CbmcRun {
                outcome: Outcome::Safe,
                elapsed: start.elapsed(),
                exit_code: Some(0),
                output: None,
                stderr_tail: String::new(),
                command_line,
                prover: Some(ProverAnswer::Proved),
                decided_by_prover: true,
            }),
            (Ok(run), Ok((answer, _))) => Ok(CbmcRun {
                prover: Some(answer),
                ..run
            }),
            (traced, _) => traced,
        }
    }

    /// Whether the DIMACS solver program `solver` proves every property of
    /// `file` (the prover of the portfolio on its own): `false` when some
    /// property can fail or no proof came within the limits.
    pub fn prove_with_dimacs_solver(
        &self,
        file: &Path,
        solver: &str,
        options: &RunOptions,
    ) -> Result<bool, BackendError> {
        let phase = Arc::new(AtomicU8::new(Phase::Starting as u8));
        Ok(self.prove(file, solver, options, Instant::now(), &phase)?.0 == ProverAnswer::Proved)
    }

    /// The prover: writes the formula with CBMC and decides it with the
    /// solver. Returns the answer and the command lines run; `phase`
    /// follows CBMC's status messages.
    fn prove(
        &self,
        file: &Path,
        solver: &str,
        options: &RunOptions,
        start: Instant,
        phase: &Arc<AtomicU8>,
    ) -> Result<(ProverAnswer, Vec<OsString>), BackendError> {
        let directory = tempfile::tempdir().map_err(BackendError::TemporaryFiles)?;
        let formula = directory.path().join("formula.cnf");
        let mut cbmc_args: Vec<OsString> = vec![
            file.as_os_str().to_owned(),
            "--dimacs".into(),
            "--outfile".into(),
        ];
        cbmc_args.push(formula.as_os_str().to_owned());
        cbmc_args.extend(self.formula_arguments(options));
        if self.lists_option("--slice-formula") {
            // the prover needs no trace, so the assignments no property
            // depends on (the SMA's event records among them) can go: a
            // third smaller formula
            cbmc_args.push("--slice-formula".into());
        }
        // nor the SMA's bookkeeping for the trace (sma/common.h): a tenth
        // fewer symbolic-execution steps under eTSO
        cbmc_args.push(VERDICT_ONLY_DEFINE.into());
        cbmc_args.extend(options.extra_args.iter().cloned());
        let solver_args = [formula.as_os_str().to_owned()];
        let mut commands = command_line(&self.path, &cbmc_args);
        commands.push("&&".into());
        commands.extend(command_line(Path::new(solver), &solver_args));
        let written = run_to_end(&self.path, &cbmc_args, options, start, phase, None)?;
        if written.exit.code != Some(0) {
            return Ok((ProverAnswer::Open, commands));
        }
        match remaining_properties(&written.stdout) {
            Some(0) => return Ok((ProverAnswer::Proved, commands)),
            Some(_) => {}
            None => return Ok((ProverAnswer::Open, commands)),
        }
        phase.store(Phase::Solving as u8, Ordering::Relaxed);
        let solved = run_to_end(Path::new(solver), &solver_args, options, start, phase, None)?;
        let answer = match (solver_answer(&solved.stdout), solved.exit.code) {
            (Some(false), Some(UNSATISFIABLE)) => ProverAnswer::Proved,
            (Some(true), Some(SATISFIABLE)) => ProverAnswer::Refuted,
            _ => ProverAnswer::Open,
        };
        Ok((answer, commands))
    }
}

/// Waits until the prover may start: [`PROVER_DELAY`] after `start` once
/// no search beside CBMC has the processor ([`RunOptions::busy`]), or as
/// soon as CBMC's run has ended. `false` when the prover was stopped
/// first (CBMC's run concluded, or the caller stopped the portfolio): it
/// has nothing left to do.
fn wait_to_start(start: Instant, options: &RunOptions, trace_ended: &AtomicBool) -> bool {
    loop {
        if options.is_cancelled() {
            return false;
        }
        let busy = options.busy.as_ref().is_some_and(super::Busy::is_taken);
        if trace_ended.load(Ordering::Relaxed) || (start.elapsed() >= PROVER_DELAY && !busy) {
            return true;
        }
        thread::sleep(PROVER_DELAY_POLL);
    }
}

/// M of CBMC's "Generated N VCC(s), M remaining after simplification"
/// (in plain or JSON output).
fn remaining_properties(stdout: &str) -> Option<u64> {
    stdout.lines().find_map(|line| {
        let (_, after) = line.split_once("VCC(s), ")?;
        let (count, _) = after.split_once(" remaining after simplification")?;
        count.trim().parse().ok()
    })
}

/// The solver's answer line: `s SATISFIABLE` (true) or `s UNSATISFIABLE`.
fn solver_answer(stdout: &str) -> Option<bool> {
    stdout.lines().find_map(|line| match line.trim_end() {
        "s SATISFIABLE" => Some(true),
        "s UNSATISFIABLE" => Some(false),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_properties_come_from_cbmcs_status_line() {
        let text = "size of program expression: 37 steps\nGenerated 3 VCC(s), 0 remaining after simplification\n";
        assert_eq!(remaining_properties(text), Some(0));
        assert_eq!(
            remaining_properties("Generated 12 VCC(s), 5 remaining after simplification"),
            Some(5)
        );
        let json = r#"    "messageText": "Generated 2 VCC(s), 1 remaining after simplification","#;
        assert_eq!(remaining_properties(json), Some(1));
        assert_eq!(remaining_properties("Solving with DIMACS CNF"), None);
    }

    #[test]
    fn solver_answers_follow_the_sat_competition_format() {
        assert_eq!(solver_answer("c comment\ns UNSATISFIABLE\n"), Some(false));
        assert_eq!(solver_answer("s SATISFIABLE\nv 1 -2 0\n"), Some(true));
        assert_eq!(solver_answer("s UNKNOWN\n"), None);
    }
}
