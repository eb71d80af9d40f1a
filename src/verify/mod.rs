//! The `lazysma verify` command: translate, run CBMC (under TSO and PSO
//! with the run under SC beside it), decode and check the counterexample
//! natively, report.

mod graph;
pub mod live;
pub mod memory;
pub mod native;
mod reach;
pub mod sc_run;
pub mod violations;

use crate::backend::{
    BackendError, Busy, Cbmc, CbmcRun, Hold, Outcome, Progress, Property, ProverAnswer, RunOptions,
    SatSolver, Trace,
};
use crate::exit;
use crate::options::{Engine, MemoryModel, SmaImplementation, TranslateOptions};
use crate::passes::TranslationMap;
pub use crate::report::ReportFormat;
use crate::report::document::{
    CbmcReport, CheckReport, DeadlockCheck, DiagnosticReport, Goal, Invocation, KeptPrograms,
    PropertyReport, Verdict, VerifyReport, WarningReport,
};
use crate::report::kinds::AnsweringEngine;
pub use crate::report::repro::ReproRequest;
use crate::report::{json as render_json, sarif as render_sarif, text as render_text};
use crate::trace::execution::Decoded;
use crate::trace::explain::{self, Counterexample, Evidence};
use crate::trace::records::Assignment;
use crate::translate::{TranslateError, Translation};
pub use graph::GraphFile;
use sc_run::{ScProgram, ScRun};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Everything `verify` was asked to do.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    pub file: PathBuf,
    pub options: TranslateOptions,
    pub cbmc: Option<PathBuf>,
    /// `--timeout`: how long the whole command may take, counted from
    /// [`VerifyRequest::started`], every run of either engine included.
    pub timeout: Option<Duration>,
    /// When the command started.
    pub started: Instant,
    pub format: ReportFormat,
    pub native_check: bool,
    /// `--sat-solver`: `auto` when `None` (see `SatSolver::choose`).
    pub sat_solver: Option<String>,
    pub keep: Option<PathBuf>,
    pub color: bool,
    /// Run the program under SC beside a TSO/PSO run (see [`sc_run`]).
    pub sc_run: bool,
    /// `--engine`: the native engine, CBMC, or both side by side.
    pub engine: Engine,
    /// `lazysma robust`: the native engine checks that every reads-from
    /// class is one SC gives, instead of the assertions.
    pub robustness: bool,
    /// The built-in property `deadlock` (on unless `--no-deadlock-check`):
    /// an execution in which every unfinished thread waits for ever is a
    /// violation. Only the native engine decides it.
    pub deadlock_check: bool,
    /// `--memory-limit`: the bytes each engine may take (the native
    /// engine's resident memory, CBMC's address space); `None` for none.
    pub memory_limit: Option<u64>,
    /// `--graph`: where to draw the violating execution.
    pub graph: Option<GraphFile>,
    /// `--repro` and `--litmus`: the reproductions to write of a violation.
    pub reproduction: crate::report::repro::ReproRequest,
    /// `--all-violations`: go on after the first violation and report
    /// every failing property once, each with its own checked witness
    /// ([`violations`]). The run under SC beside a TSO/PSO run is left
    /// out: CBMC's run under the model asked for finds them all.
    pub all_violations: bool,
    /// Estimate the number of reads-from classes before the native
    /// engine's search (random probes, see `smc::rf::probe`), for the
    /// report's native statistics; the live line on a terminal asks for
    /// it too.
    pub estimate: bool,
    /// `--jobs`: the native engine's worker threads; `None` for the
    /// default ([`native::default_workers`]).
    pub workers: Option<usize>,
}

/// Runs the whole verify pipeline without printing: the report, and the
/// rendered translation diagnostic for the terminal, if any.
pub fn check(request: &VerifyRequest) -> (VerifyReport, Option<String>) {
    let by_need = request.options.bounds.heap_block.is_none();
    let mut request = request.clone();
    loop {
        let mut report = empty_report(&request);
        let details = pipeline(&request, &mut report);
        let larger = larger_heap_block(by_need, &report);
        match larger {
            Some(block) if !crate::interrupt::received() => {
                if !request.format.is_document() {
                    crate::output::eprintln(&format!(
                        "note: executions were cut off at an allocation above {} scalars; \
                         verifying again with --heap-block {block} (the block grows by need up to {})",
                        report.bounds.heap_block.unwrap_or(0),
                        HEAP_BLOCK_BY_NEED_LIMIT
                    ));
                }
                request.options.bounds.heap_block = Some(block);
            }
            _ => return (report, details),
        }
    }
}

/// The largest heap block `verify` grows the block to by need, when
/// `--heap-block` is `auto` (the default): beyond it an allocation is cut
/// off and named ([`reach::warn_cut_offs`]).
pub const HEAP_BLOCK_BY_NEED_LIMIT: u32 = 64;

/// The heap block to verify again with, when the block is chosen `by_need`
/// and the safe verdict of `report` cut executions off at an allocation
/// larger than its block: twice the block, or the most scalars an
/// execution asked for if more, when the run knows it (the native
/// engine's); else [`HEAP_BLOCK_BY_NEED_LIMIT`] at once (CBMC's run tells
/// only that an allocation asked for more, and a block between might be
/// too small for an allocation of constant size, which the translator
/// then cuts off with a warning of its own). At most that limit.
fn larger_heap_block(by_need: bool, report: &VerifyReport) -> Option<u32> {
    if !by_need || report.verdict != Verdict::Safe {
        return None;
    }
    let block = report.bounds.heap_block?;
    let mut oversized = report
        .cut_offs()
        .filter(|cut| cut.option == "--heap-block")
        .peekable();
    oversized.peek()?;
    let limit = i64::from(HEAP_BLOCK_BY_NEED_LIMIT);
    let asked: Option<Vec<i64>> = oversized.map(|cut| cut.asked).collect();
    let next = match asked.and_then(|asked| asked.into_iter().max()) {
        Some(asked) => i64::from(block).saturating_mul(2).max(asked).min(limit),
        None => limit,
    };
    let next = u32::try_from(next).ok()?;
    (next > block).then_some(next)
}

/// Runs the whole verify pipeline, prints the report and returns the exit
/// code.
pub fn run(request: &VerifyRequest) -> u8 {
    let (report, details) = check(request);
    if crate::interrupt::received() {
        // the caller stopped lazysma: it wants no report
        return report.exit_code;
    }
    let emitted = emit(request, &report, details.as_deref());
    if let Err(error) = crate::report::repro::write_requested(&request.reproduction, &report) {
        crate::output::eprintln(&format!("error: {error}"));
        return error.exit_code();
    }
    match emitted {
        Ok(()) => graph::write(request.graph.as_ref(), &report).unwrap_or(report.exit_code),
        Err(error) => {
            crate::output::eprintln(&format!(
                "error: cannot write the report to standard output: {error}"
            ));
            exit::BACKEND_FAILURE
        }
    }
}

/// The report before any run: the request's file, model and bounds, no verdict yet.
pub fn empty_report(request: &VerifyRequest) -> VerifyReport {
    VerifyReport {
        lazysma: Invocation::current(),
        goal: if request.robustness {
            Goal::Robustness
        } else {
            Goal::Assertions
        },
        verdict: Verdict::BackendError,
        exit_code: Verdict::BackendError.exit_code(),
        file: request.file.display().to_string(),
        model: request.options.sma.model(),
        sma: request.options.sma,
        bounds: request.options.bounds.clone(),
        unwinding_assertions: request.options.unwinding_assertions,
        sufficient_bounds: None,
        sufficient_nmalloc: None,
        cuts_wide_values: false,
        engine: AnsweringEngine::Cbmc,
        native: None,
        cbmc: None,
        found_under_sc: false,
        property: None,
        check: CheckReport {
            performed: false,
            model: request.options.sma.model(),
            realisable: None,
            reason: None,
            false_sentences: Vec::new(),
        },
        witness: None,
        diagnosis: None,
        message: None,
        diagnostic: None,
        warnings: Vec::new(),
        kept: None,
        reach: None,
        deadlock: if request.deadlock_check {
            DeadlockCheck::NotChecked
        } else {
            DeadlockCheck::Off
        },
        has_loops: true,
        spin_loops: Vec::new(),
        all_violations: None,
        split: request.options.split,
    }
}

/// The await loops of `map` as points of the source.
fn spin_loops(map: &crate::passes::TranslationMap) -> Vec<crate::report::document::SourcePoint> {
    map.await_loops
        .iter()
        .filter_map(|&origin| map.origins.get(origin))
        .map(|origin| crate::report::document::SourcePoint {
            file: Some(origin.file.clone()),
            line: Some(origin.line),
            column: Some(origin.column),
            statement: Some(origin.text.clone()),
            location: None,
        })
        .collect()
}

/// Whether some function of `program` has a loop, or a `goto`, which may
/// jump back. Await loops do not count when they are waits
/// (`spin_loops_as_waits`), unless a read-modify-write in them lets a
/// bound cut them.
fn has_loops(program: &crate::ir::Program, spin_loops_as_waits: bool) -> bool {
    use crate::ir::StmtKind;
    use crate::passes::await_loops::{AwaitLoop, await_loop};
    let mut loops = false;
    for function in &program.functions {
        crate::passes::walk::for_each_statement(&function.body, &mut |stmt| {
            loops |= match stmt.kind {
                StmtKind::Loop { .. } => {
                    !(spin_loops_as_waits && await_loop(stmt) == Some(AwaitLoop::ReadOnly))
                }
                StmtKind::Goto(_) => true,
                _ => false,
            };
        });
    }
    loops
}

/// Whether a thread of `program` may wait for ever: it locks a mutex,
/// assumes something (the waits of semaphores, barriers, read-write
/// locks and `pthread_once` are assumptions, and so is every user's), or
/// joins a thread outside `main` (a cycle of joins). Without any, every
/// thread can move until it finishes or a bound stops it, and main's joins
/// end: no execution deadlocks. An await loop waits too, and a loop that
/// calls a function may be one once the call is inlined.
fn may_deadlock(program: &crate::ir::Program) -> bool {
    use crate::ir::StmtKind;
    use crate::passes::await_loops::is_await_loop;
    let mut waits = false;
    for (id, function) in program.functions.iter().enumerate() {
        let in_main = id == program.main;
        crate::passes::walk::for_each_statement(&function.body, &mut |stmt| {
            waits |= match &stmt.kind {
                StmtKind::Loop {
                    prelude,
                    body,
                    latch,
                    ..
                } => is_await_loop(stmt) || [prelude, body, latch].into_iter().any(calls),
                StmtKind::MutexLock(_) | StmtKind::Assume(_) | StmtKind::Await { .. } => true,
                StmtKind::ThreadJoin { .. } => !in_main,
                _ => false,
            };
        });
    }
    waits
}

/// Whether a statement of `block` calls a function.
fn calls(block: &crate::ir::Block) -> bool {
    let mut found = false;
    crate::passes::walk::for_each_stmt(block, &mut |stmt| {
        found |= matches!(stmt, crate::ir::StmtKind::Call { .. });
    });
    found
}

/// Ends a report in error: its verdict, the verdict's exit code and
/// `message`.
fn stop(report: &mut VerifyReport, verdict: Verdict, message: String) {
    report.conclude_with(verdict, message);
}

/// [`stop`], for the native engine's report, which passes the exit code
/// too: it must be the verdict's ([`Verdict::exit_code`] decides it).
fn fail(report: &mut VerifyReport, verdict: Verdict, code: u8, message: String) {
    debug_assert_eq!(code, verdict.exit_code());
    report.conclude_with(verdict, message);
}

/// Runs translation, CBMC and the check, filling `report`. Returns extra
/// text for the terminal (a rendered translation diagnostic), if any.
fn pipeline(request: &VerifyRequest, report: &mut VerifyReport) -> Option<String> {
    let runs_under_sc =
        request.sc_run && !request.all_violations && request.options.sma.model() != MemoryModel::Sc;
    let sc_keep = request
        .keep
        .as_deref()
        .filter(|_| runs_under_sc)
        .map(sc_run::companion);
    for keep in request.keep.iter().chain(&sc_keep) {
        if same_file(&request.file, keep) {
            let message = format!(
                "the --keep output {} is the input file; refusing to overwrite it",
                keep.display()
            );
            stop(report, Verdict::BadInput, message);
            return None;
        }
    }
    let loaded =
        crate::frontend::load(&request.file, &request.options).map_err(TranslateError::from);
    let mut deadlock_possible = true;
    if let Ok(program) = &loaded {
        report.has_loops = has_loops(program, request.options.spin_loops_as_waits);
        deadlock_possible = may_deadlock(program);
        if request.deadlock_check && !deadlock_possible {
            report.deadlock = DeadlockCheck::Checked;
        }
    }
    // the native engine starts at once, beside the translation and CBMC
    let (mut native, program_for_engine) = match (&loaded, request.engine) {
        (Ok(_), Engine::Auto | Engine::Smc) => {
            let (run, program_for_engine) = native::NativeRun::start(request);
            (Some(run), Some(program_for_engine))
        }
        _ => (None, None),
    };
    let translated = match loaded {
        Ok(program) => match translate_within_limit(program, request, program_for_engine) {
            Some(translated) => translated,
            None => {
                let message = match crate::interrupt::received() {
                    true => "the translation was interrupted",
                    false => "the translation did not end within the time limit (--timeout)",
                };
                stop(report, Verdict::Timeout, message.to_string());
                return None;
            }
        },
        Err(error) => Err(error),
    };
    let (translation, program) = match translated {
        Ok(translated) => translated,
        Err(error) if error.is_environment_failure() => {
            stop(report, Verdict::BackendError, error.to_string());
            return None;
        }
        Err(error) => {
            stop(report, Verdict::BadInput, error.to_string());
            report.diagnostic = error.diagnostic().map(DiagnosticReport::from);
            return Some(render_translate_error(&error, request.color));
        }
    };
    report.bounds = translation.bounds.clone();
    report.sufficient_bounds = translation.sufficient;
    report.sufficient_nmalloc = translation
        .heap_needs
        .and_then(|needs| needs.sufficient_nmalloc());
    report.cuts_wide_values = translation.cuts_wide_values;
    report.warnings = translation
        .warnings
        .iter()
        .map(WarningReport::from)
        .collect();
    report.spin_loops = spin_loops(&translation.map);
    if !request.format.is_document() {
        // before CBMC runs, which may take long
        for warning in &translation.warnings {
            crate::output::eprint(&warning.render(request.color));
        }
    }
    let directory = match tempfile::tempdir() {
        Ok(directory) => directory,
        Err(error) => {
            stop(
                report,
                Verdict::BackendError,
                format!("cannot create a temporary directory: {error}"),
            );
            return None;
        }
    };
    // CBMC checks lazysma's own file, whatever the --keep name is (CBMC
    // reads only names ending in .c); --keep gets a copy
    let sequential = directory.path().join("sequential.c");
    if let Err(error) =
        crate::output::write_atomically(&sequential, translation.c_source.as_bytes())
    {
        let message =
            format!("cannot write the sequential program to a temporary directory: {error}");
        stop(report, Verdict::BackendError, message);
        return None;
    }
    if let Some(keep) = &request.keep
        && let Err(message) = keep_copy(keep, &translation.c_source)
    {
        stop(report, Verdict::BackendError, message);
        return None;
    }
    let sc_file = directory.path().join("sequential-sc.c");
    let sc_program = runs_under_sc
        .then(|| sc_run::prepare(&program, &request.options, sc_file))
        .flatten();
    if let (Some(sc_program), Some(sc_keep)) = (&sc_program, &sc_keep)
        && let Err(message) = keep_copy(sc_keep, &sc_program.c_source)
    {
        stop(report, Verdict::BackendError, message);
        return None;
    }
    report.kept = request.keep.as_ref().map(|keep| KeptPrograms {
        program: keep.display().to_string(),
        sc_program: sc_keep
            .as_ref()
            .filter(|_| sc_program.is_some())
            .map(|sc_keep| sc_keep.display().to_string()),
    });
    // the engines' live lines from here on (dropped, so erased, before
    // anything else is printed)
    let mut live = live::wanted(request.format)
        .then(|| live::LiveLines::start(native.as_ref().and_then(native::NativeRun::progress)));
    if request.engine == Engine::Smc || native.as_ref().is_some_and(native::NativeRun::has_answered)
    {
        if let Some(run) = native.take() {
            native_only(request, report, run, &translation.map, live);
        }
        return None;
    }
    let native_flags = native.as_ref().map(|run| NativeFlags {
        answered: run.answered(),
        searching: run.searching(),
    });
    let runs = run_cbmc(
        request,
        &sequential,
        sc_program.as_ref(),
        native_flags,
        live.as_ref(),
    );
    // the native engine searched every execution within the bounds for a
    // deadlock and found none
    let mut native_safe = false;
    if let Some(run) = native.take() {
        // the first definitive answer: the native engine's if it has one
        // now, else CBMC's if it has one, else whatever the native engine
        // finds in the time left
        let definitive = runs.as_ref().is_ok_and(|runs| {
            matches!(runs.model.outcome, Outcome::Safe | Outcome::Violated { .. })
        });
        // CBMC's safe verdict says nothing of deadlocks, which only the
        // native engine decides: its answer is awaited then
        let cbmc_safe = runs
            .as_ref()
            .is_ok_and(|runs| matches!(runs.model.outcome, Outcome::Safe));
        // and so does CBMC's list of every violation
        let cbmc_lists = definitive && request.all_violations;
        let awaited = (cbmc_safe || cbmc_lists) && request.deadlock_check && deadlock_possible;
        let (answer, seconds, counters) = if run.has_answered() || !definitive || awaited {
            run.finish()
        } else {
            run.stop()
        };
        drop(live.take());
        report.native = Some(native::native_report(&answer, seconds, &counters));
        native_safe = matches!(answer, Ok(crate::smc::Answer::Safe(..)));
        // a safe verdict with every execution cut off yields to CBMC's
        // definitive answer, which its reachability run explains
        if let Ok(answer) = answer
            && (native::is_definitive(&answer) || !definitive)
        {
            native::conclude(request, report, answer, &translation.map);
            return None;
        }
    }
    drop(live);
    let runs = match runs {
        Ok(runs) => runs,
        Err(error) => {
            stop(report, Verdict::BackendError, error.to_string());
            return None;
        }
    };
    if crate::interrupt::received() {
        // SIGTERM or SIGINT stopped CBMC: no verdict, and the temporary
        // directory goes now
        stop(report, Verdict::BackendError, "interrupted".to_string());
        return None;
    }
    match (runs.sc_violation, &sc_program) {
        (Some(run), Some(sc_program)) => {
            report.cbmc = Some(cbmc_report(&runs.cbmc, &run, None));
            report.found_under_sc = true;
            report.check.model = MemoryModel::Sc;
            conclude(
                request,
                report,
                &run,
                &sc_program.map,
                SmaImplementation::Sc,
            );
        }
        _ => {
            report.cbmc = Some(cbmc_report(
                &runs.cbmc,
                &runs.model,
                runs.solver_name.clone(),
            ));
            conclude(
                request,
                report,
                &runs.model,
                &translation.map,
                request.options.sma,
            );
            // the translator's warnings name the code a bound cut off on
            // every path; the run names the places it cut some off
            if report.verdict == Verdict::Safe && !crate::interrupt::received() {
                reach::check(
                    request,
                    report,
                    &translation.c_source,
                    &translation.map,
                    directory.path(),
                );
            }
            if report.verdict == Verdict::Safe && native_safe && request.deadlock_check {
                report.deadlock = DeadlockCheck::Checked;
            }
        }
    }
    None
}

/// Reports the native engine's answer alone (`--engine smc`, or `auto`
/// when it answered before CBMC would start): a program it declines is
/// bad input for it.
fn native_only(
    request: &VerifyRequest,
    report: &mut VerifyReport,
    run: native::NativeRun,
    map: &TranslationMap,
    live: Option<live::LiveLines>,
) {
    let (answer, seconds, counters) = run.finish();
    drop(live);
    let native_report = native::native_report(&answer, seconds, &counters);
    let explored = native_report
        .explored
        .map(native::explored_text)
        .unwrap_or_default();
    report.native = Some(native_report);
    report.engine = AnsweringEngine::Smc;
    match answer {
        Ok(answer) => native::conclude(request, report, answer, map),
        Err(crate::smc::NoAnswer::Declined(declined)) => stop(
            report,
            Verdict::BadInput,
            format!(
                "the native engine declines this program: {}; run it with --engine cbmc or auto",
                declined.reason
            ),
        ),
        Err(crate::smc::NoAnswer::Timeout) => stop(
            report,
            Verdict::Timeout,
            format!("the native engine stopped at the time limit{explored}"),
        ),
        Err(limit @ crate::smc::NoAnswer::MemoryLimit { .. }) => {
            stop(report, Verdict::BackendError, format!("{limit}{explored}"))
        }
        Err(other) => stop(
            report,
            Verdict::BackendError,
            format!("the native engine failed: {other}"),
        ),
    }
}

/// Writes the copy of a sequential program that `--keep` asked for at
/// `keep`; the message of a failure, as `translate -o` words it.
fn keep_copy(keep: &Path, c_source: &str) -> Result<(), String> {
    crate::output::write_atomically(keep, c_source.as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", keep.display()))
}

/// The CBMC runs of one verification.
struct Runs {
    cbmc: Cbmc,
    /// The run of the translated program under the model asked for.
    model: CbmcRun,
    /// The SAT solver beside or instead of CBMC's own in that run.
    solver_name: Option<String>,
    /// The counterexample of the run under SC beside it, if it found one.
    sc_violation: Option<CbmcRun>,
}

/// The native engine's flags that CBMC's runs look at, when it runs beside
/// them (`--engine auto`).
struct NativeFlags {
    /// Set once it has answered: CBMC's runs stop.
    answered: Arc<AtomicBool>,
    /// Set while it runs: the runs that only help CBMC's main run wait
    /// ([`Busy`]).
    searching: Arc<AtomicBool>,
}

/// Runs CBMC on `program`, and on `sc_program` beside it when given: a
/// counterexample under SC stops the first run. On a machine with too few
/// processors for three runs, the run under SC holds the first run's
/// prover (see [`crate::backend::Hold`]) while it goes on.
fn run_cbmc(
    request: &VerifyRequest,
    program: &Path,
    sc_program: Option<&ScProgram>,
    native: Option<NativeFlags>,
    live: Option<&live::LiveLines>,
) -> Result<Runs, BackendError> {
    let busy = native
        .as_ref()
        .and_then(|flags| Busy::for_this_machine(&flags.searching));
    let native_answered = native.map(|flags| flags.answered);
    let cbmc = Cbmc::locate(request.cbmc.as_deref())?;
    let sat_solver = SatSolver::choose(request.sat_solver.as_deref().unwrap_or("auto"), &cbmc)?;
    let solver_name = sat_solver.as_ref().map(|solver| solver.name().to_string());
    let stop_model = Arc::new(AtomicBool::new(false));
    let portfolio = matches!(sat_solver, Some(SatSolver::Dimacs(_)));
    let hold = (portfolio && sc_program.is_some() && sc_run::too_few_processors())
        .then(|| Arc::new(Hold::default()));
    let sc_run = sc_program.map(|sc_program| {
        ScRun::start(
            &cbmc,
            sc_program,
            (
                request.timeout.map(|limit| (request.started, limit)),
                request.memory_limit,
            ),
            &stop_model,
            hold.clone(),
            busy.clone(),
        )
    });
    let answered_natively = || {
        native_answered
            .as_ref()
            .is_some_and(|answered| answered.load(std::sync::atomic::Ordering::Relaxed))
    };
    let options = RunOptions {
        timeout: request.timeout,
        clock_started: Some(request.started),
        sat_solver,
        memory_limit: request.memory_limit,
        cancel: std::iter::once(stop_model)
            .chain(native_answered.clone())
            .collect(),
        hold,
        busy,
        every_failure_trace: request.all_violations,
        ..RunOptions::default()
    };
    let mut model_progress = |progress: Progress| {
        if let Some(live) = live {
            live.show_cbmc("cbmc", &progress);
        }
    };
    let callback: Option<&mut dyn FnMut(Progress)> = match live {
        Some(_) => Some(&mut model_progress),
        None => None,
    };
    let run = cbmc.run(program, &options, callback);
    if let Some(live) = live {
        live.clear_cbmc();
    }
    let model = run?;
    if answered_natively() {
        // the native engine answered: the run under SC stops as it drops
        return Ok(Runs {
            cbmc,
            model,
            solver_name,
            sc_violation: None,
        });
    }
    let mut sc_progress = |progress: Progress| {
        if let Some(live) = live {
            live.show_cbmc("cbmc under SC", &progress);
        }
    };
    let callback: Option<&mut dyn FnMut(Progress)> = match live {
        Some(_) => Some(&mut sc_progress),
        None => None,
    };
    let sc_violation = sc_run.and_then(|sc_run| sc_run.finish(&model, callback));
    if let Some(live) = live {
        live.clear_cbmc();
    }
    Ok(Runs {
        cbmc,
        model,
        solver_name,
        sc_violation,
    })
}

/// How long a wait for the translation sleeps between looks at the time
/// limit and the signals.
const TRANSLATION_POLL: Duration = Duration::from_millis(50);

/// `program` translated, within the command's time limit and until
/// SIGTERM or SIGINT: with a limit or the signal handler installed, the
/// translation runs on a thread of its own, and `None` says that the limit
/// passed or a signal came first (the thread then ends with the process).
fn translate_within_limit(
    program: crate::ir::Program,
    request: &VerifyRequest,
    program_for_engine: Option<native::ProgramForEngine>,
) -> Option<Result<(Translation, crate::ir::Program), TranslateError>> {
    let translate = |program: crate::ir::Program, options: &TranslateOptions| {
        let share = |sequential: Result<_, &crate::diagnostics::Diagnostic>,
                     options: &TranslateOptions| {
            if let Some(program_for_engine) = program_for_engine {
                program_for_engine.give(sequential, options);
            }
        };
        Ok((
            crate::translate::translate_sharing(&program, options, share)?,
            program,
        ))
    };
    if request.timeout.is_none() && !crate::interrupt::is_installed() {
        return Some(translate(program, &request.options));
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let options = request.options.clone();
    let spawned = std::thread::Builder::new()
        .stack_size(crate::WORKER_STACK_BYTES)
        .spawn(move || {
            let _ = sender.send(translate(program, &options));
        });
    let translator = match spawned {
        Ok(translator) => translator,
        Err(error) => {
            return Some(Err(TranslateError::Frontend(
                crate::frontend::FrontendError::Environment(format!(
                    "cannot start the translation: {error}"
                )),
            )));
        }
    };
    loop {
        let left = request
            .timeout
            .map(|limit| limit.saturating_sub(request.started.elapsed()));
        if left == Some(Duration::ZERO) || crate::interrupt::received() {
            return None;
        }
        let slice = left.map_or(TRANSLATION_POLL, |left| left.min(TRANSLATION_POLL));
        match receiver.recv_timeout(slice) {
            Ok(translated) => return Some(translated),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            // the translation panicked: the panic is the caller's
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                if let Err(panic) = translator.join() {
                    std::panic::resume_unwind(panic);
                }
                return None;
            }
        }
    }
}

/// The report of `run` by `cbmc`, with `sat_solver` beside or instead of
/// its own solver.
fn cbmc_report(cbmc: &Cbmc, run: &CbmcRun, sat_solver: Option<String>) -> CbmcReport {
    let cbmc_concluded = run.outcome.is_conclusive() && !run.decided_by_prover;
    let decided_by = if run.decided_by_prover {
        sat_solver.clone()
    } else if !cbmc_concluded {
        None
    } else if run.prover.is_some() {
        // a portfolio: CBMC's run has its own solver
        Some("cbmc".to_string())
    } else {
        Some(sat_solver.clone().unwrap_or_else(|| "cbmc".to_string()))
    };
    CbmcReport {
        version: cbmc.version.to_string(),
        path: cbmc.path.display().to_string(),
        seconds: (run.elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
        exit_code: run.exit_code,
        sat_solver,
        decided_by,
        formula_satisfiable: run
            .prover
            .filter(|_| !cbmc_concluded)
            .and_then(ProverAnswer::formula_satisfiable),
    }
}

/// The summary of a CBMC run that failed, with the memory limit it ran
/// under: running out of memory is the limit's doing, and a low limit also
/// makes CBMC's preprocessor or loader fail.
fn with_memory_limit(outcome: &Outcome, limit: Option<u64>) -> String {
    let Some(limit) = limit else {
        return outcome.summary();
    };
    let limit = crate::smc::search::human_size(limit);
    match outcome {
        Outcome::OutOfMemory { .. } => format!(
            "{}; CBMC may take {limit} (--memory-limit): raise the limit, or lower the bounds (--unwind, --rounds)",
            outcome.summary()
        ),
        _ => format!(
            "{}; CBMC ran with an address space of at most {limit} (--memory-limit)",
            outcome.summary()
        ),
    }
}

/// Turns CBMC's outcome on the program translated with `sma` into the
/// verdict.
fn conclude(
    request: &VerifyRequest,
    report: &mut VerifyReport,
    run: &CbmcRun,
    map: &TranslationMap,
    sma: SmaImplementation,
) {
    // a run without a verdict: the message, what the solver beside CBMC
    // found, and the end of CBMC's stderr
    let explain = |message: String, tail: &str| {
        let tail = tail.trim();
        let message = match refuted_without_counterexample(report) {
            Some(note) => format!("{message}\n{note}"),
            None => message,
        };
        if tail.is_empty() {
            message
        } else {
            format!("{message}\nCBMC's stderr ends with:\n{tail}")
        }
    };
    match &run.outcome {
        Outcome::Safe => {
            report.conclude(Verdict::Safe);
            report.message = report.values_cut_off();
            if request.all_violations {
                violations::gather(report, Vec::new(), None);
            }
        }
        Outcome::Violated { property, trace } if request.all_violations => {
            let blank = report.clone();
            counterexample(request, report, property, trace, map, sma);
            let further = further_counterexamples(run, property)
                .map(|(property, trace)| {
                    violations::explained(&blank, |scratch| {
                        counterexample(request, scratch, property, trace, map, sma)
                    })
                })
                .collect();
            violations::gather(report, further, None);
        }
        Outcome::Violated { property, trace } => {
            counterexample(request, report, property, trace, map, sma)
        }
        Outcome::Inconclusive { .. } => {
            let message = format!("{}; this is not reported as safe", run.outcome.summary());
            stop(
                report,
                Verdict::BackendError,
                explain(message, &run.stderr_tail),
            );
        }
        Outcome::Timeout { .. } => stop(
            report,
            Verdict::Timeout,
            explain(format!("CBMC stopped: {}", run.outcome.summary()), ""),
        ),
        Outcome::OutOfMemory { .. } | Outcome::ToolError { .. } => {
            let message = with_memory_limit(&run.outcome, request.memory_limit);
            stop(
                report,
                Verdict::BackendError,
                explain(message, &run.stderr_tail),
            );
        }
    }
}

/// The failing properties of `run` after `first`, with their traces, in
/// CBMC's order, each property once ([`violations::property_key`]).
fn further_counterexamples<'r>(
    run: &'r CbmcRun,
    first: &Property,
) -> impl Iterator<Item = (&'r Property, &'r Trace)> {
    let mut seen = vec![violations::property_key(&first.id, &first.description)];
    let output = run.output.as_ref();
    let traces = output
        .into_iter()
        .flat_map(|output| &output.further_failure_traces);
    traces.filter_map(move |(id, trace)| {
        let property = output?.properties.iter().flatten().find(|p| &p.id == id)?;
        let key = violations::property_key(&property.id, &property.description);
        if seen.contains(&key) {
            return None;
        }
        seen.push(key);
        Some((property, trace))
    })
}

/// What to tell when the solver beside CBMC found that a property can
/// fail but CBMC's own run, which gives the counterexample, ended without
/// one.
fn refuted_without_counterexample(report: &VerifyReport) -> Option<String> {
    let cbmc = report.cbmc.as_ref()?;
    let solver = cbmc.sat_solver.as_deref()?;
    (cbmc.formula_satisfiable == Some(true)).then(|| {
        format!(
            "{solver} found that a property can fail (the formula is satisfiable), but CBMC's own run, which gives the \
             counterexample to check, ended without one.\nGive it more time or memory: --timeout, or --sat-solver cbmc to \
             run CBMC alone."
        )
    })
}

/// Decodes, checks and explains a counterexample of the program
/// translated with `sma`, under that SMA's model ([`explain::explain`]).
fn counterexample(
    request: &VerifyRequest,
    report: &mut VerifyReport,
    property: &Property,
    trace: &Trace,
    map: &TranslationMap,
    sma: SmaImplementation,
) {
    let assignments = trace
        .assignments()
        .filter_map(|step| {
            let lhs = step.lhs.as_deref()?;
            let value = step.value.as_ref();
            Some(Assignment {
                lhs,
                data: value.and_then(|v| v.data.as_deref()),
                integer: value.and_then(|v| v.integer),
            })
        })
        .collect();
    let counterexample = Counterexample {
        id: &property.id,
        description: &property.description,
        evidence: Evidence::Assignments(assignments),
        sma,
        model: sma.model(),
        native_check: request.native_check,
    };
    explain::explain(report, map, counterexample);
}

/// Checks an execution the native engine recorded natively under `model`
/// and explains it ([`explain::check_and_explain`]), its property placed
/// by the translation's property table.
fn explain(
    request: &VerifyRequest,
    report: &mut VerifyReport,
    decoded: &Decoded,
    map: &TranslationMap,
    model: MemoryModel,
) {
    use crate::passes::properties::PropertyKind;
    if let Some(property) = report.property.take() {
        // a deadlock is placed already, and it and a non-robust execution
        // violate no property of the table
        let placed = match property.kind {
            PropertyKind::Deadlock | PropertyKind::Liveness => property,
            PropertyKind::NotRobust => PropertyReport {
                kind: property.kind,
                ..PropertyReport::of(map, &property.id, &property.description)
            },
            _ => PropertyReport::of(map, &property.id, &property.description),
        };
        report.property = Some(placed);
    }
    explain::check_and_explain(report, decoded, map, model, request.native_check);
}

/// Prints the report: JSON on stdout, or text (stdout for results, stderr
/// for errors). Fails only when stdout cannot be written.
fn emit(
    request: &VerifyRequest,
    report: &VerifyReport,
    details: Option<&str>,
) -> std::io::Result<()> {
    match request.format {
        ReportFormat::Json => return crate::output::print(&render_json::render(report)),
        ReportFormat::Sarif => return crate::output::print(&render_sarif::render(report)),
        ReportFormat::Text => {}
    }
    match report.verdict {
        Verdict::Safe
        | Verdict::Violation
        | Verdict::UncheckedViolation
        | Verdict::UnwindingBound => {
            crate::output::print(&render_text::render(report, request.color))
        }
        Verdict::CheckFailed => {
            crate::output::eprint(&render_text::render(report, request.color));
            Ok(())
        }
        Verdict::BadInput | Verdict::BackendError | Verdict::Timeout => {
            match details {
                Some(details) => crate::output::eprint(details),
                None => crate::output::eprint(&render_text::render(report, request.color)),
            }
            Ok(())
        }
    }
}

/// Whether two paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The message for a failed translation, with the source excerpt.
pub fn render_translate_error(error: &TranslateError, color: bool) -> String {
    match error.diagnostic() {
        Some(diagnostic) => diagnostic.render(color),
        None => format!("error: {error}\n"),
    }
}

impl VerifyRequest {
    /// A request that another command makes of `file` with `options`:
    /// the native engine, a JSON document, every check on but the
    /// deadlock check, no time limit, no extra output. Callers change
    /// what they need.
    pub fn of_command(file: PathBuf, options: TranslateOptions) -> VerifyRequest {
        VerifyRequest {
            file,
            options,
            cbmc: None,
            timeout: None,
            started: Instant::now(),
            format: ReportFormat::Json,
            native_check: true,
            sat_solver: None,
            keep: None,
            color: false,
            sc_run: false,
            engine: Engine::Smc,
            robustness: false,
            deadlock_check: false,
            memory_limit: None,
            graph: None,
            reproduction: Default::default(),
            all_violations: false,
            estimate: false,
            workers: None,
        }
    }
}

/// A request of nothing but `format` and the goal (`robustness`), for a
/// report of what went wrong before the command line was parsed.
fn bare_request(format: ReportFormat, robustness: bool) -> VerifyRequest {
    VerifyRequest {
        format,
        engine: Engine::Cbmc,
        robustness,
        deadlock_check: !robustness,
        ..VerifyRequest::of_command(PathBuf::new(), TranslateOptions::default())
    }
}

/// Prints the report of an option error (`--format json` or `sarif` with
/// an unknown option or a bad value): a `bad-input` document like that of
/// every other outcome, with `null` for what was not parsed (`file`,
/// `model`, `sma`, `bounds`, `unwinding_assertions`, `check.model`; in
/// SARIF no run properties but the verdict); `robustness` for `lazysma
/// robust`, whose goal the document names. Returns the exit code.
pub fn report_option_error(message: &str, format: ReportFormat, robustness: bool) -> u8 {
    let request = bare_request(format, robustness);
    let mut report = empty_report(&request);
    stop(&mut report, Verdict::BadInput, message.to_string());
    let document = match format {
        ReportFormat::Sarif => {
            let mut log = render_sarif::log(&report);
            log["runs"][0]["properties"] = serde_json::json!({ "verdict": report.verdict.name() });
            log
        }
        ReportFormat::Json | ReportFormat::Text => {
            let mut document =
                serde_json::to_value(&report).unwrap_or_else(|_| serde_json::json!({}));
            for unknown in ["file", "model", "sma", "bounds", "unwinding_assertions"] {
                document[unknown] = serde_json::Value::Null;
            }
            document["check"]["model"] = serde_json::Value::Null;
            document
        }
    };
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    match crate::output::print(&format!("{text}\n")) {
        Ok(()) => report.exit_code,
        Err(error) => {
            crate::output::eprintln(&format!(
                "error: cannot write the report to standard output: {error}"
            ));
            exit::BACKEND_FAILURE
        }
    }
}
