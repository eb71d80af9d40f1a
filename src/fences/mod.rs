//! `lazysma fences`: the fewest fences that make a program robust under
//! TSO or PSO (or make its assertions hold), and the patched program. Each
//! round checks the program with the fences chosen so far (`robust`, or
//! `verify` for the assertions); a violating execution contributes the
//! set of fence places that each forbid one of the delays it needs; the
//! fences are then a smallest hitting set of all the sets found, computed
//! exactly, inserted into the original text, and checked again, until the
//! check passes. A last pass drops each fence the check passes without.

pub mod hitting_set;
pub mod patch;

use crate::options::{Engine, TranslateOptions};
use crate::report::document::{FenceAdvice, Verdict, VerifyReport};
use crate::verify::VerifyRequest;
use patch::FencePlace;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the fences must achieve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceGoal {
    /// Every reads-from class is one SC gives (`lazysma robust`).
    Robustness,
    /// The assertions hold within the bounds (`lazysma verify`).
    Assertions,
    /// The assertions hold for any number of threads (`lazysma param`,
    /// `fences --parameterised`): each round is the parameterised check,
    /// whose confirmed counterexample's diagnosis gives the fence places.
    Parameterised,
}

/// A `lazysma fences` run.
#[derive(Debug, Clone)]
pub struct FencesRequest {
    pub file: PathBuf,
    /// The model the fences are for (`options.sma`'s).
    pub model: crate::options::MemoryModel,
    pub options: TranslateOptions,
    pub goal: FenceGoal,
    pub timeout: Option<Duration>,
}

/// Fences that achieve the goal.
#[derive(Debug, Clone)]
pub struct Fenced {
    pub places: BTreeSet<FencePlace>,
    /// The checks it took (the last one passed).
    pub rounds: usize,
    pub original: String,
    pub patched: String,
    /// The passing check of the patched program.
    pub report: VerifyReport,
}

/// Why no fences were found.
#[derive(Debug, Clone)]
pub enum FencesError {
    /// The input cannot be read or checked; the exit code says how.
    Failed { message: String, exit_code: u8 },
    /// A violation that no fence can forbid (it needs no weak memory, or
    /// its delays cannot be placed in the text).
    Unfenceable(String),
}

/// The most rounds of checking before giving up.
pub const MAX_ROUNDS: usize = 32;

/// Finds a smallest set of fences for `request`.
pub fn find(request: &FencesRequest) -> Result<Fenced, FencesError> {
    let original = std::fs::read_to_string(&request.file).map_err(|error| FencesError::Failed {
        message: format!("cannot read {}: {error}", request.file.display()),
        exit_code: crate::exit::BAD_INPUT,
    })?;
    let directory = tempfile::tempdir().map_err(|error| FencesError::Failed {
        message: format!("cannot create a temporary directory: {error}"),
        exit_code: crate::exit::BACKEND_FAILURE,
    })?;
    // the patched program keeps the file name (and the include path of its
    // directory), so that reports name the same file
    let name = request
        .file
        .file_name()
        .map_or_else(|| "program.c".into(), |name| name.to_os_string());
    let patched_file = directory.path().join(name);
    let mut family: Vec<BTreeSet<FencePlace>> = Vec::new();
    let mut places = BTreeSet::new();
    for round in 1..=MAX_ROUNDS {
        let patched = patch::insert(&original, &places).map_err(|place| {
            FencesError::Unfenceable(format!(
                "line {} has no `{}` to place a fence after",
                place.line, place.statement
            ))
        })?;
        write(&patched_file, &patched)?;
        let report = check(request, &patched_file);
        match report.verdict {
            Verdict::Safe => {
                let fenced = Fenced {
                    places,
                    rounds: round,
                    original,
                    patched,
                    report,
                };
                return without_redundant(request, fenced, &patched_file);
            }
            Verdict::Violation => {
                family.push(delays(&report, &patched, &patched_file)?);
                places = hitting_set::smallest(&family).ok_or_else(|| {
                    FencesError::Unfenceable(format!(
                        "more than {} fence places to choose from",
                        hitting_set::MAX_ELEMENTS
                    ))
                })?;
            }
            _ => {
                return Err(FencesError::Failed {
                    message: report
                        .message
                        .clone()
                        .unwrap_or_else(|| "the check gave no verdict".into()),
                    exit_code: report.exit_code,
                });
            }
        }
    }
    Err(FencesError::Unfenceable(format!(
        "no fences found within {MAX_ROUNDS} rounds"
    )))
}

/// `fenced` without the fences the check passes without, one at a time
/// (a fence placed right after one store may also forbid the delays that
/// another was chosen for): removing any fence of the result makes the
/// check fail again.
fn without_redundant(
    request: &FencesRequest,
    mut fenced: Fenced,
    patched_file: &Path,
) -> Result<Fenced, FencesError> {
    for place in fenced.places.clone() {
        let mut fewer = fenced.places.clone();
        fewer.remove(&place);
        let Ok(patched) = patch::insert(&fenced.original, &fewer) else {
            continue;
        };
        write(patched_file, &patched)?;
        let report = check(request, patched_file);
        fenced.rounds += 1;
        if report.verdict == Verdict::Safe {
            fenced.places = fewer;
            fenced.patched = patched;
            fenced.report = report;
        }
    }
    Ok(fenced)
}

fn write(path: &Path, text: &str) -> Result<(), FencesError> {
    crate::output::write_atomically(path, text.as_bytes()).map_err(|error| FencesError::Failed {
        message: format!("cannot write the patched program: {error}"),
        exit_code: crate::exit::BACKEND_FAILURE,
    })
}

/// The check of one round: `robust` (the native engine), `verify` (both
/// engines, with the run under SC that tells a bug no fence fixes), or
/// `param`.
fn check(request: &FencesRequest, file: &Path) -> VerifyReport {
    let robustness = request.goal == FenceGoal::Robustness;
    if request.goal == FenceGoal::Parameterised {
        return parameterised_check(request, file);
    }
    let options = with_include_of(&request.options, &request.file);
    let verify = VerifyRequest {
        // each check has its own time limit
        timeout: request.timeout,
        sc_run: !robustness,
        engine: if robustness {
            Engine::Smc
        } else {
            Engine::Auto
        },
        robustness,
        // fences order memory accesses; they neither make nor mend a
        // deadlock, and no one reads the estimate of a round
        memory_limit: crate::verify::memory::limit(None),
        ..VerifyRequest::of_command(file.to_path_buf(), options)
    };
    crate::verify::check(&verify).0
}

/// The parameterised check of one round, as a report: safe (for any
/// number of threads), the replay's report of a confirmed violation, or
/// the reason there is no verdict.
fn parameterised_check(request: &FencesRequest, file: &Path) -> VerifyReport {
    let options = with_include_of(&request.options, &request.file);
    let param = crate::param::ParamRequest {
        file: file.to_path_buf(),
        options: options.clone(),
        color: false,
    };
    let decision = crate::param::decide(&param);
    let blank = VerifyRequest {
        timeout: request.timeout,
        ..VerifyRequest::of_command(file.to_path_buf(), options)
    };
    let mut report = crate::verify::empty_report(&blank);
    match decision {
        crate::param::Decision::Safe => {
            report.verdict = Verdict::Safe;
            report.exit_code = Verdict::Safe.exit_code();
        }
        crate::param::Decision::Violation(violation) => report = *violation,
        crate::param::Decision::Failed { message, exit_code } => {
            let message = message.trim_end();
            report.message = Some(
                message
                    .strip_prefix("error: ")
                    .unwrap_or(message)
                    .to_string(),
            );
            report.exit_code = exit_code;
        }
    }
    report
}

/// `options` with the directory of the original program on the include
/// path, as its own `#include "..."` finds it.
fn with_include_of(options: &TranslateOptions, file: &Path) -> TranslateOptions {
    let mut options = options.clone();
    if let Some(directory) = file.parent() {
        let directory = if directory.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            directory.to_path_buf()
        };
        options.include_dirs.push(directory);
    }
    options
}

/// The fence places that each forbid one delay the violation of `report`
/// needs (any one of them rules the execution out).
fn delays(
    report: &VerifyReport,
    patched: &str,
    patched_file: &Path,
) -> Result<BTreeSet<FencePlace>, FencesError> {
    if report.found_under_sc {
        return Err(FencesError::Unfenceable(
            "the violation happens under SC too: it needs no weak memory, and no fence forbids it"
                .into(),
        ));
    }
    let Some(diagnosis) = &report.diagnosis else {
        return Err(FencesError::Unfenceable(
            "the violation has no diagnosis of its delays".into(),
        ));
    };
    if diagnosis.sc_realisable || diagnosis.fences.is_empty() {
        return Err(FencesError::Unfenceable(
            "the violating execution is possible under SC: no fence forbids it".into(),
        ));
    }
    let name = patched_file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    diagnosis
        .fences
        .iter()
        .map(|advice| place_of(advice, patched, &name))
        .collect()
}

/// The place of one fence advice in the patched text.
fn place_of(advice: &FenceAdvice, patched: &str, name: &str) -> Result<FencePlace, FencesError> {
    let in_file = Path::new(&advice.file)
        .file_name()
        .is_some_and(|file| file.to_string_lossy() == name);
    let braces = match advice.placement {
        "after-statement" => false,
        "in-braces" => true,
        _ => return Err(unplaceable(advice)),
    };
    if !in_file {
        return Err(unplaceable(advice));
    }
    let statement = &advice.after_statement;
    FencePlace::find(
        patched,
        statement.line,
        statement.column,
        &statement.text,
        braces,
        advice.insert,
    )
    .ok_or_else(|| unplaceable(advice))
}

fn unplaceable(advice: &FenceAdvice) -> FencesError {
    FencesError::Unfenceable(format!(
        "a fence is needed after `{}` (line {} of {}), where lazysma cannot insert it in the text ({}); insert `{}` there by hand",
        advice.after_statement.text,
        advice.after_line,
        advice.file,
        advice.placement,
        advice.insert
    ))
}

/// What `lazysma fences` says on standard error: the goal reached, with
/// how many fences, where, and how many rounds of checking it took.
pub fn summary(request: &FencesRequest, fenced: &Fenced) -> String {
    let model = request.model.name().to_uppercase();
    let goal = match request.goal {
        FenceGoal::Robustness => "robust",
        FenceGoal::Assertions => "safe",
        FenceGoal::Parameterised => "safe for any number of threads",
    };
    let count = fenced.places.len();
    let fences = if count == 1 { "fence" } else { "fences" };
    let rounds = if fenced.rounds == 1 {
        "round"
    } else {
        "rounds"
    };
    let mut out = format!(
        "{goal} under {model} with {count} {fences} ({} {rounds} of checking; the last check of the patched program passed)\n",
        fenced.rounds
    );
    for place in &fenced.places {
        out.push_str(&format!(
            "  line {}: `{}` after `{}`{}\n",
            place.line,
            place.insert,
            place.statement,
            if place.braces {
                " (in braces with it)"
            } else {
                ""
            }
        ));
    }
    out
}
