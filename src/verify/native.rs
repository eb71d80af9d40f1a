//! The native engine in `verify`: its run on a thread of its own beside
//! CBMC (stopped when CBMC answers first, stopping CBMC when it answers
//! first), and its answer in the report: a safe verdict, or a violation
//! whose records are decoded, checked and explained like a CBMC
//! counterexample's.

use super::{VerifyReport, VerifyRequest, explain, fail};
use crate::diagnostics::Diagnostic;
use crate::exit;
use crate::options::{MemoryModel, SmaImplementation, TranslateOptions};
use crate::passes::properties::PropertyKind;
use crate::passes::{SequentialProgram, TranslationMap};
use crate::report::document::{
    ClassEstimateReport, DeadlockCheck, NativeExplored, NativeReport, NativeStatistics,
    PropertyReport, ReachReport, Verdict,
};
use crate::report::kinds::{AnsweringEngine, NativeOutcome, NativeSearch};
use crate::smc::progress::{Phase, Progress, Snapshot};
use crate::smc::search::SearchKind;
use crate::smc::{self, Answer, Limits, NoAnswer, Statistics};
use crate::trace::execution;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The worker threads of the native engine's search without `--jobs`:
/// the processors the machine gives this process, less the one CBMC's
/// run takes beside it under `--engine auto`; at least one.
pub fn default_workers(engine: crate::options::Engine) -> usize {
    let processors = std::thread::available_parallelism().map_or(1, usize::from);
    let cbmc = usize::from(engine == crate::options::Engine::Auto);
    processors.saturating_sub(cbmc).max(1)
}

/// The native engine running on its own thread.
pub struct NativeRun {
    handle: JoinHandle<(Result<Answer, NoAnswer>, f64)>,
    /// Set to stop it.
    stop: Arc<AtomicBool>,
    /// Set by it once it has a definitive answer (a cancel flag of CBMC).
    answered: Arc<AtomicBool>,
    /// Set while it runs (see [`crate::backend::Busy`]).
    searching: Arc<AtomicBool>,
    /// Its progress counters, when a live line shows them.
    progress: Option<Arc<Progress>>,
    /// Its progress counters, for the report of a search that ends
    /// without an answer.
    counters: Arc<Progress>,
}

/// What the native engine's run ended with: its answer, its time in
/// seconds and its progress counters at the end.
pub type Ended = (Result<Answer, NoAnswer>, f64, Snapshot);

/// Where the translation hands the native engine the program its passes
/// made, so that they run once for both engines.
pub struct ProgramForEngine {
    sender: mpsc::Sender<Result<smc::Prepared, NoAnswer>>,
}

impl ProgramForEngine {
    /// Gives the engine the sequential program (made with `options`), or
    /// the reason the passes refused the program, which the engine
    /// declines with.
    pub fn give(
        self,
        sequential: Result<Arc<SequentialProgram>, &Diagnostic>,
        options: &TranslateOptions,
    ) {
        // the engine has ended already when no one receives
        let sequential = sequential.map_err(|diagnostic| diagnostic.message.as_str());
        let _ = self.sender.send(smc::prepared(sequential, options));
    }
}

impl NativeRun {
    /// Starts the engine under the request's options, within its time and
    /// memory limits; with `robustness`, it checks robustness instead of
    /// the assertions. It searches once the translation gives it the
    /// program through the returned [`ProgramForEngine`] (and ends
    /// without an answer if that is dropped unused).
    pub fn start(request: &VerifyRequest) -> (NativeRun, ProgramForEngine) {
        let (timeout, robustness, deadlocks) =
            (request.timeout, request.robustness, request.deadlock_check);
        let all_violations = request.all_violations;
        let command_started = request.started;
        let memory_limit = request.memory_limit;
        let split = request.options.split;
        let max_classes = (request.engine == crate::options::Engine::Auto)
            .then_some(smc::MAX_CLASSES_BESIDE_CBMC);
        let workers = request
            .workers
            .unwrap_or_else(|| default_workers(request.engine));
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicBool::new(false));
        let searching = Arc::new(AtomicBool::new(true));
        let (sender, receiver) = mpsc::channel();
        let (stop_flag, answered_flag) = (Arc::clone(&stop), Arc::clone(&answered));
        let searching_flag = Arc::clone(&searching);
        let live = super::live::wanted(request.format);
        let counters = Arc::new(Progress::new());
        let progress = live.then(|| Arc::clone(&counters));
        let estimate = request.estimate || live;
        let progress_counters = Some(Arc::clone(&counters));
        let handle = thread::spawn(move || {
            let started = Instant::now();
            let limits = Limits {
                max_states: smc::MAX_STATES,
                max_classes,
                stop: Some(stop_flag),
                deadline: timeout.map(|limit| command_started + limit),
                robustness,
                deadlocks,
                memory: memory_limit,
                all_violations,
                progress: progress_counters,
                estimate,
                workers,
                split,
                ..Limits::default()
            };
            let prepared = receiver.recv().unwrap_or_else(|_| {
                Err(NoAnswer::Failed(
                    "the translation ended without a program for the native engine".into(),
                ))
            });
            let answer = prepared.and_then(|prepared| smc::check(&prepared, &limits));
            if answer.as_ref().is_ok_and(is_definitive) {
                answered_flag.store(true, Ordering::Relaxed);
            }
            searching_flag.store(false, Ordering::Relaxed);
            if let Some(progress) = &limits.progress {
                progress.enter(Phase::Finished);
            }
            (answer, started.elapsed().as_secs_f64())
        });
        let run = NativeRun {
            handle,
            stop,
            answered,
            searching,
            progress,
            counters,
        };
        (run, ProgramForEngine { sender })
    }

    /// The flag that is set while it runs.
    pub fn searching(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.searching)
    }

    /// The flag it sets once it has answered.
    pub fn answered(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.answered)
    }

    /// Whether it has answered already.
    pub fn has_answered(&self) -> bool {
        self.answered.load(Ordering::Relaxed)
    }

    /// Its progress counters, when a live line is to show them.
    pub fn progress(&self) -> Option<Arc<Progress>> {
        self.progress.clone()
    }

    /// Its answer, waiting for it; SIGTERM or SIGINT stop it meanwhile.
    pub fn finish(self) -> Ended {
        if crate::interrupt::is_installed() {
            while !self.handle.is_finished() {
                if crate::interrupt::received() {
                    self.stop.store(true, Ordering::Relaxed);
                }
                thread::sleep(INTERRUPT_POLL);
            }
        }
        let (answer, seconds) = self.handle.join().unwrap_or_else(|_| {
            (
                Err(NoAnswer::Failed("the native engine panicked".into())),
                0.0,
            )
        });
        (answer, seconds, self.counters.snapshot())
    }

    /// Stops it and takes what it has.
    pub fn stop(self) -> Ended {
        self.stop.store(true, Ordering::Relaxed);
        self.finish()
    }
}

/// How often a wait for the native engine looks whether a signal came.
const INTERRUPT_POLL: Duration = Duration::from_millis(10);

/// Whether the native engine's answer decides the program: a violation
/// (with `--all-violations`, a list the search ended), or a safe verdict
/// for which some execution ran to its end (every thread finished). A safe verdict where a bound, an assumption, an
/// `exit` or a thread that waits for ever ended every execution may say
/// nothing of the code after the cut: under `auto` the CBMC path, whose
/// reachability run tells which bound cut what, answers then.
pub fn is_definitive(answer: &Answer) -> bool {
    match answer {
        Answer::Safe(statistics, _) => statistics.complete_executions > 0,
        Answer::Violation { stopped_early, .. } => stopped_early.is_none(),
    }
}

/// The run's summary for the report.
pub fn native_report(
    answer: &Result<Answer, NoAnswer>,
    seconds: f64,
    counters: &Snapshot,
) -> NativeReport {
    let (outcome, reason, statistics) = match answer {
        Ok(Answer::Safe(statistics, _)) => (NativeOutcome::Safe, None, Some(*statistics)),
        Ok(Answer::Violation { statistics, .. }) => {
            (NativeOutcome::Violation, None, Some(*statistics))
        }
        Err(NoAnswer::Declined(declined)) => {
            (NativeOutcome::Declined, Some(declined.reason.clone()), None)
        }
        Err(NoAnswer::Cancelled) => (NativeOutcome::Stopped, None, None),
        Err(NoAnswer::Timeout) => (NativeOutcome::Timeout, None, None),
        Err(NoAnswer::Failed(reason)) => (NativeOutcome::Failed, Some(reason.clone()), None),
        Err(stopped @ NoAnswer::MemoryLimit { .. }) => {
            (NativeOutcome::MemoryLimit, Some(stopped.to_string()), None)
        }
    };
    NativeReport {
        outcome,
        reason,
        seconds: (seconds * 1000.0).round() / 1000.0,
        statistics: statistics.map(statistics_report),
        explored: match answer {
            Err(NoAnswer::Cancelled | NoAnswer::Timeout | NoAnswer::MemoryLimit { .. }) => {
                explored(counters)
            }
            _ => None,
        },
    }
}

/// How far a search that ended without an answer had come, as the end
/// of the sentence that says why it ended: ", after N reads-from classes
/// (of about M that the probes estimated)" or ", after N states of the
/// explicit search".
pub fn explored_text(explored: NativeExplored) -> String {
    match explored.search {
        NativeSearch::RfSmc => {
            let estimate = explored
                .estimated_classes
                .map(|classes| format!(" (of about {classes} that the probes estimated)"))
                .unwrap_or_default();
            format!(
                ", after {} reads-from classes{estimate}",
                explored.reads_from_classes
            )
        }
        NativeSearch::Explicit => {
            format!(", after {} states of the explicit search", explored.states)
        }
    }
}

/// How far the search had come by the counters `counters`: none when no
/// search had started.
fn explored(counters: &Snapshot) -> Option<NativeExplored> {
    let search = match counters.phase {
        Phase::Starting | Phase::Estimating => return None,
        Phase::Explicit => NativeSearch::Explicit,
        Phase::Finished if counters.states > 0 => NativeSearch::Explicit,
        Phase::ReadsFrom | Phase::Finished => NativeSearch::RfSmc,
    };
    Some(NativeExplored {
        search,
        reads_from_classes: counters.classes,
        states: counters.states,
        estimated_classes: counters.estimate,
    })
}

fn statistics_report(statistics: Statistics) -> NativeStatistics {
    NativeStatistics {
        search: match statistics.search {
            SearchKind::RfSmc => NativeSearch::RfSmc,
            SearchKind::Explicit => NativeSearch::Explicit,
        },
        fallback: statistics.fallback,
        reads_from_classes: statistics.reads_from_classes,
        states: statistics.states,
        moves: statistics.moves,
        complete_executions: statistics.complete_executions,
        blocked_executions: statistics.blocked_executions,
        deadlocked_executions: statistics.deadlocked_executions,
        awaiting_executions: statistics.awaiting_executions,
        other_part_executions: statistics.other_part_executions,
        events: statistics.events,
        per_second: statistics.per_second,
        estimate: statistics.estimate.map(|estimate| ClassEstimateReport {
            classes: estimate.classes,
            probes: estimate.probes,
            milliseconds: estimate.milliseconds,
        }),
    }
}

/// The SMA whose record format the native trace follows: SC's, or the
/// reference store buffers' (flushes recorded as they happen).
fn record_format(model: MemoryModel) -> SmaImplementation {
    match model {
        MemoryModel::Sc => SmaImplementation::Sc,
        MemoryModel::Tso => SmaImplementation::TsoReference,
        MemoryModel::Pso => SmaImplementation::PsoReference,
    }
}

/// Why a native safe verdict may be vacuous past a cut ([`is_definitive`]);
/// a loop bound is named only where the program has a loop.
fn no_execution_ends(has_loops: bool) -> String {
    let loop_bound = if has_loops { "a loop bound, " } else { "" };
    format!(
        "the native engine found no execution in which every thread finishes ({loop_bound}an \
         allocation, an assumption, an exit or a thread that waits for ever ends each one); \
         --engine cbmc names the bound that cuts them off"
    )
}

/// Fills `report` from the native engine's answer.
pub fn conclude(
    request: &VerifyRequest,
    report: &mut VerifyReport,
    answer: Answer,
    map: &TranslationMap,
) {
    report.engine = AnsweringEngine::Smc;
    report.check.model = request.options.sma.model();
    if request.deadlock_check {
        report.deadlock = DeadlockCheck::Checked;
    }
    let definitive = is_definitive(&answer);
    match answer {
        Answer::Safe(_, cut_offs) => {
            report.conclude(Verdict::Safe);
            if !definitive {
                report.reach = Some(ReachReport {
                    end_of_main: Some(false),
                    seconds: 0.0,
                    reason: Some(no_execution_ends(report.has_loops)),
                });
            }
            // what the CBMC path's reachability run warns of
            let show = (!request.format.is_document(), request.color);
            super::reach::warn_cut_offs(show, report, &cut_offs.into(), map);
            if request.all_violations {
                super::violations::gather(report, Vec::new(), None);
            }
        }
        Answer::Violation {
            violation,
            records,
            further,
            stopped_early,
            inputs,
            ..
        } => {
            let blank = report.clone();
            explain_violation(request, report, &violation, &records, map);
            if let Some(witness) = report.witness.as_mut() {
                witness.inputs = input_reports(&inputs, map);
            }
            if request.all_violations {
                let further = further
                    .iter()
                    .map(|found| {
                        super::violations::explained(&blank, |scratch| {
                            explain_violation(
                                request,
                                scratch,
                                &found.violation,
                                &found.records,
                                map,
                            )
                        })
                    })
                    .collect();
                let stopped = stopped_early.map(|why| why.to_string());
                super::violations::gather(report, further, stopped);
            }
        }
    }
}

/// The symbolic inputs of a native witness in report form.
fn input_reports(
    inputs: &[smc::replay::InputValue],
    map: &TranslationMap,
) -> Vec<crate::report::document::InputReport> {
    inputs
        .iter()
        .map(|input| crate::report::document::InputReport {
            thread: input.thread,
            function: map
                .threads
                .get(input.thread)
                .map_or_else(|| "thread".to_string(), |thread| thread.function.clone()),
            ty: c_type_name(input.ty),
            value: if input.ty.is_wide_unsigned() {
                (input.value as u64).to_string()
            } else {
                input.value.to_string()
            },
        })
        .collect()
}

/// The C name of a scalar integer type of the printed program.
fn c_type_name(ty: smc::interpreter::value::CType) -> String {
    let base = match ty.bits {
        1 => return "_Bool".into(),
        8 => "char",
        16 => "short",
        32 => "int",
        _ => "long long",
    };
    if ty.signed {
        base.to_string()
    } else {
        format!("unsigned {base}")
    }
}

/// Decodes, checks and explains one violation the native engine found
/// into `report`, its property placed by the translation's property table.
fn explain_violation(
    request: &VerifyRequest,
    report: &mut VerifyReport,
    violation: &smc::semantics::machine::Violation,
    records: &[crate::trace::records::Record],
    map: &TranslationMap,
) {
    let function = map
        .threads
        .get(violation.slot)
        .map_or("thread", |thread| thread.function.as_str());
    let id = format!(
        "thread{}_{function}.{}.native",
        violation.slot, violation.kind
    );
    let mut property = PropertyReport::new(&id, &violation.description);
    if violation.kind == smc::NOT_ROBUST {
        property.kind = PropertyKind::NotRobust;
    }
    let endless_wait = match violation.kind {
        smc::DEADLOCK => Some(PropertyKind::Deadlock),
        smc::LIVENESS => Some(PropertyKind::Liveness),
        _ => None,
    };
    if let Some(kind) = endless_wait {
        // placed where its first waiting thread waits
        property = PropertyReport::at(
            map,
            &id,
            &violation.description,
            kind,
            violation.origin,
            Some(violation.slot),
        );
    }
    report.property = Some(property);
    let model = request.options.sma.model();
    match execution::build_typed(
        records,
        &map.locations,
        &map.value_types,
        record_format(model),
    ) {
        Ok(decoded) => explain(request, report, &decoded, map, model),
        // an unlock of a mutex its thread does not hold: the program's
        // bug, reported as the CBMC path reports it
        Err(execution::BuildError::Malformed(
            crate::consistency::ExecutionError::UnlockNotHeld { .. },
        )) if crate::trace::explain::report_unheld_unlock(report, map, records) => {}
        Err(error) => {
            report.check.performed = true;
            report.check.realisable = Some(false);
            report.check.reason = Some(error.to_string());
            fail(
                report,
                Verdict::CheckFailed,
                exit::CHECK_FAILED,
                format!("the native engine's trace cannot be decoded: {error}"),
            );
        }
    }
}
