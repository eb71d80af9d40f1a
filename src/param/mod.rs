//! The `lazysma param` command: is the program safe under TSO (or SC) for
//! any number of identical threads? The program's `main` initialises
//! shared memory and creates threads of one function in a loop; the
//! thread's code as the passes leave it (inlined, its loops unrolled by
//! `--unwind`) becomes a finite process definition (`process`, checked for
//! the fragment by `instance`), and the pivot abstraction of Abdulla,
//! Atig and Rezvan (POPL 2020) decides whether any number of copies can
//! fail a property (`pivot`). A parameterised counterexample is replayed
//! with a concrete number of threads by the native engine (`confirm`)
//! before it is reported; a program outside the fragment is refused at
//! the statement to blame (`refusal`). See docs/parameterised.md.

pub mod confirm;
pub mod instance;
pub mod pivot;
pub mod process;
pub mod refusal;

use crate::exit;
use crate::options::{MemoryModel, TranslateOptions};
use crate::passes::SequentialProgram;
use crate::report::document::VerifyReport;
use crate::smc::semantics::machine::Machine;
use crate::translate::TranslateError;
use pivot::{Answer, Assignment, Semantics};
use process::Process;
use refusal::Refusal;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything `param` was asked to do.
#[derive(Debug, Clone)]
pub struct ParamRequest {
    pub file: PathBuf,
    pub options: TranslateOptions,
    pub color: bool,
}

/// The thread's process and what the searches found.
struct Analysed {
    sequential: Arc<SequentialProgram>,
    process: Process,
    function: String,
    creation_loop: Option<crate::ir::OriginId>,
    answer: Answer,
    /// Under TSO with a failing property: the same search under SC.
    under_sc: Option<Answer>,
}

/// What the check decides, for a caller that reads no text (`fences
/// --parameterised`).
#[derive(Debug, Clone)]
pub enum Decision {
    /// Safe for any number of threads (within the thread's loop bound).
    Safe,
    /// The replay's report of a confirmed violation.
    Violation(Box<VerifyReport>),
    /// No verdict: the rendered reason and the exit code.
    Failed { message: String, exit_code: u8 },
}

/// The text of the result, its exit code, and the replay's report of a
/// confirmed violation.
struct Outcome {
    text: String,
    exit_code: u8,
    report: Option<VerifyReport>,
    /// Printed on standard error (an error, not a result).
    error: bool,
}

fn failed(message: String, exit_code: u8) -> Outcome {
    Outcome {
        text: message,
        exit_code,
        report: None,
        error: true,
    }
}

fn check(request: &ParamRequest) -> Outcome {
    let model = request.options.sma.model();
    if model == MemoryModel::Pso {
        return failed(
            "error: the parameterised check decides TSO and SC (the pivot abstraction is a TSO \
             result); give --tso or --sc\n"
                .to_string(),
            exit::BAD_INPUT,
        );
    }
    let (sequential, bitwidth) = match sequentialise(request) {
        Ok(prepared) => prepared,
        Err((message, code)) => return failed(message, code),
    };
    let started = std::time::Instant::now();
    let analysed = match analyse(&sequential, bitwidth, model) {
        Ok(analysed) => analysed,
        Err(refusal) => {
            let diagnostic = refusal.diagnostic(&sequential, &request.file);
            return failed(diagnostic.render(request.color), exit::BAD_INPUT);
        }
    };
    let mut text = describe(request, &analysed, model);
    let _ = writeln!(
        text,
        "parameterised search: {:.3} s",
        started.elapsed().as_secs_f64()
    );
    match &analysed.answer {
        Answer::Safe(_) => Outcome {
            text,
            exit_code: exit::SUCCESS,
            report: None,
            error: false,
        },
        Answer::Unsafe { .. } => {
            let (exit_code, replayed, report) = replay(request, &analysed);
            text.push_str(&replayed);
            Outcome {
                text,
                exit_code,
                report,
                error: false,
            }
        }
    }
}

/// Runs the command, prints the result and returns the exit code.
pub fn run(request: &ParamRequest) -> u8 {
    let outcome = check(request);
    if outcome.error {
        crate::output::eprint(&outcome.text);
    } else {
        let _ = crate::output::print(&outcome.text);
    }
    outcome.exit_code
}

/// Decides the program without printing.
pub fn decide(request: &ParamRequest) -> Decision {
    let outcome = check(request);
    match (outcome.exit_code, outcome.report) {
        (exit::SUCCESS, _) => Decision::Safe,
        (exit::VIOLATION, Some(report)) => Decision::Violation(Box::new(report)),
        (exit_code, _) => Decision::Failed {
            message: outcome.text,
            exit_code,
        },
    }
}

/// The passes' program and its bit width, or the rendered error and its
/// exit code.
fn sequentialise(request: &ParamRequest) -> Result<(Arc<SequentialProgram>, u32), (String, u8)> {
    let failed = |error: TranslateError| {
        let message = crate::verify::render_translate_error(&error, request.color);
        let code = if error.is_environment_failure() {
            exit::BACKEND_FAILURE
        } else {
            exit::BAD_INPUT
        };
        (message, code)
    };
    let program = crate::frontend::load(&request.file, &request.options)
        .map_err(|error| failed(TranslateError::Frontend(error)))?;
    let mut shared: Option<(Arc<SequentialProgram>, u32)> = None;
    let translated =
        crate::translate::translate_sharing(&program, &request.options, |result, options| {
            if let Ok(sequential) = result {
                shared = Some((sequential, options.bounds.bitwidth));
            }
        });
    if let Err(error) = translated {
        return Err(failed(error));
    }
    shared.ok_or_else(|| {
        (
            "error: the passes gave no program\n".to_string(),
            exit::BAD_INPUT,
        )
    })
}

fn analyse(
    sequential: &Arc<SequentialProgram>,
    bitwidth: u32,
    model: MemoryModel,
) -> Result<Analysed, Refusal> {
    let machine = Machine::new(sequential, MemoryModel::Sc, bitwidth);
    // what the native engine declines before it runs, the process
    // definition (built by its interpreter) cannot model either
    if bitwidth != 32 && bitwidth != 64 {
        return Err(Refusal::new(
            format!(
                "--bitwidth {bitwidth} narrows shared memory's values, which the parameterised check does not model (it models 32 and 64 bits)"
            ),
            None,
            "the parameterised check runs the thread's code in the native engine's interpreter",
        ));
    }
    if let Err(declined) = crate::smc::decline::check(sequential, &machine.codes) {
        return Err(Refusal::new(
            declined.reason,
            None,
            "the parameterised check runs the thread's code in the native engine's interpreter",
        ));
    }
    let instance = instance::prepare(&machine)?;
    instance::check_worker(&machine, instance.worker)?;
    if instance.creation_loop.is_none() {
        return Err(Refusal::new(
            "main creates a fixed number of threads",
            None,
            "create the threads in a loop whose number of iterations has no bound, e.g. \
             `while (__VERIFIER_nondet_bool()) pthread_create(&t, 0, worker, 0);`",
        ));
    }
    let process = process::build(&machine, &instance)?;
    let semantics = match model {
        MemoryModel::Sc => Semantics::Sc,
        _ => Semantics::Tso,
    };
    let answer = pivot::search(&process, semantics)?;
    let under_sc = match (&answer, semantics) {
        (Answer::Unsafe { .. }, Semantics::Tso) => Some(pivot::search(&process, Semantics::Sc)?),
        _ => None,
    };
    Ok(Analysed {
        sequential: Arc::clone(sequential),
        process,
        function: instance.function,
        creation_loop: instance.creation_loop,
        answer,
        under_sc,
    })
}

fn model_name(model: MemoryModel) -> &'static str {
    match model {
        MemoryModel::Sc => "SC",
        MemoryModel::Tso => "TSO",
        MemoryModel::Pso => "PSO",
    }
}

/// The result's text up to the replay.
fn describe(request: &ParamRequest, analysed: &Analysed, model: MemoryModel) -> String {
    let process = &analysed.process;
    let map = &analysed.sequential.map;
    let mut text = String::new();
    let _ = writeln!(text, "lazysma param {}", request.file.display());
    let variables: Vec<String> = process
        .variables
        .iter()
        .zip(&process.domains)
        .map(|(location, domain)| {
            let name = map
                .locations
                .name(*location as usize)
                .unwrap_or_else(|| format!("location {location}"));
            let values: Vec<String> = domain.iter().map(i64::to_string).collect();
            format!("{name} in {{{}}}", values.join(", "))
        })
        .collect();
    let _ = writeln!(
        text,
        "fragment: any number of threads of `{}`, each a finite-state process of {} states \
         (loads, stores, full fences, nondeterministic choices, assertions); shared variables: {}",
        analysed.function,
        process.states(),
        if variables.is_empty() {
            "none".to_string()
        } else {
            variables.join(", ")
        }
    );
    let creation_line = analysed
        .creation_loop
        .and_then(|origin| map.origins.get(origin))
        .map_or(0, |origin| origin.line);
    let _ = writeln!(
        text,
        "loop bound: the thread's loops unrolled --unwind {} (main's creation loop at line \
         {creation_line} read as unbounded)",
        request.options.bounds.unwind
    );
    let cut: Vec<_> = process
        .loop_cut_offs
        .iter()
        .filter(|origin| Some(**origin) != analysed.creation_loop)
        .collect();
    for origin in &cut {
        if let Some(origin) = map.origins.get(**origin) {
            let _ = writeln!(
                text,
                "cut: the loop at {}:{} runs at most {} times here; executions beyond are not checked",
                origin.file_name(),
                origin.line,
                request.options.bounds.unwind
            );
        }
    }
    match &analysed.answer {
        Answer::Safe(statistics) => {
            let _ = writeln!(
                text,
                "SAFE under {} for any number of threads{}: no pivot run reaches a failing property \
                 ({} pivot assignment sequences, {} views)",
                model_name(model),
                if cut.is_empty() {
                    ""
                } else {
                    ", within the loop bound cut above"
                },
                statistics.sequences,
                statistics.views
            );
        }
        Answer::Unsafe {
            sequence,
            violation,
            statistics,
        } => {
            let property = process
                .violations
                .get(*violation)
                .map_or("a property", |violation| violation.description.as_str());
            let _ = writeln!(
                text,
                "pivot counterexample under {}: the verifier fails `{property}` \
                 after providers write, in this order of first reaching memory: {} \
                 ({} sequences, {} views); replayed below",
                model_name(model),
                sequence_text(analysed, sequence),
                statistics.sequences,
                statistics.views
            );
            match &analysed.under_sc {
                Some(Answer::Safe(_)) => {
                    let _ = writeln!(
                        text,
                        "SAFE under SC for any number of threads: a weak-memory bug"
                    );
                }
                Some(Answer::Unsafe { .. }) => {
                    let _ = writeln!(
                        text,
                        "pivot counterexample under SC as well (not replayed under SC): \
                         not a weak-memory bug"
                    );
                }
                None => {}
            }
        }
    }
    text
}

fn sequence_text(analysed: &Analysed, sequence: &[Assignment]) -> String {
    if sequence.is_empty() {
        return "nothing (the initial values suffice)".to_string();
    }
    let process = &analysed.process;
    let parts: Vec<String> = sequence
        .iter()
        .map(|assignment| {
            let location = process.variables[assignment.variable];
            let name = analysed
                .sequential
                .map
                .locations
                .name(location as usize)
                .unwrap_or_else(|| format!("location {location}"));
            let value = process.domains[assignment.variable][assignment.value];
            format!("{name} = {value}")
        })
        .collect();
    parts.join(", ")
}

/// The most threads a replay tries.
pub const MAX_REPLAY_THREADS: u32 = 8;

/// Replays the counterexample with 1, 2, ... threads until the native
/// engine finds the violation (the pivot run's providers and verifier
/// suggest a number, but copies of a provider may be needed, and fewer
/// threads often do), it cannot answer, or [`MAX_REPLAY_THREADS`] threads
/// found nothing: the exit code and the text.
fn replay(request: &ParamRequest, analysed: &Analysed) -> (u8, String, Option<VerifyReport>) {
    let Some(creation_loop) = analysed
        .creation_loop
        .and_then(|origin| analysed.sequential.map.origins.get(origin))
    else {
        return (
            exit::CHECK_FAILED,
            "error: main's creation loop is unknown\n".to_string(),
            None,
        );
    };
    let mut text = String::new();
    for threads in 1..=MAX_REPLAY_THREADS {
        let verify = confirm::request(
            &request.file,
            &request.options,
            creation_loop,
            threads,
            request.color,
        );
        let (confirmed, report) = confirm::confirm(&verify);
        if confirmed {
            let _ = writeln!(
                text,
                "UNSAFE under {}, confirmed with N = {threads}: the native engine finds the \
                 violation with at most {threads} threads (main's loop at line {} unrolled \
                 {threads} times):\n",
                model_name(request.options.sma.model()),
                creation_loop.line
            );
            text.push_str(&crate::report::text::render(&report, request.color));
            return (exit::VIOLATION, text, Some(report));
        }
        if report.verdict != crate::report::document::Verdict::Safe {
            let _ = writeln!(
                text,
                "not confirmed: the native engine gives no answer with {threads} threads \
                 (exit {}); see `lazysma verify --engine smc --unwindset {}:{threads}`",
                report.exit_code, creation_loop.line
            );
            break;
        }
    }
    if !text.contains("not confirmed") {
        let _ = writeln!(
            text,
            "not confirmed: the native engine finds no violation with up to {MAX_REPLAY_THREADS} threads"
        );
    }
    text.push_str(
        "error: the parameterised counterexample was not confirmed by a concrete run (exit 4)\n",
    );
    (exit::CHECK_FAILED, text, None)
}
