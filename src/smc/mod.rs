//! The native engine of `lazysma verify`: an interpreter of the program as
//! the passes leave it for the printer (functions inlined, loops unrolled,
//! one copy per thread creation), and an exhaustive search of its
//! executions under SC, TSO and PSO with unbounded store buffers. Private
//! data is computed as the printed C computes it; every visible statement
//! is a point where another thread may run or a buffered store may reach
//! memory. A safe answer holds for every interleaving and every buffer
//! length within the loop bounds; a violation comes with the SMA records
//! of its trace, which the report decodes and checks like a CBMC
//! counterexample. What the engine cannot model exactly it declines, with
//! the statement to blame.

pub mod decline;
pub mod estimate;
pub mod explicit;
pub mod interpreter;
pub mod progress;
pub mod replay;
pub mod rf;
pub mod search;
pub mod semantics;
pub mod symbolic;

pub use decline::Declined;
pub use search::{Limits, NOT_ROBUST, Statistics};
pub use semantics::deadlock::{DEADLOCK, LIVENESS};

use crate::ir::Program;
use crate::options::{MemoryModel, TranslateOptions};
use crate::passes::{SeqStmt, SequentialProgram};
use crate::trace::records::Record;
use explicit::explore::Found;
use rf::explore::{RfFound, RfStopped};
use rf::run::Abort;
use search::Stopped;
use semantics::machine::{Machine, Violation};
use std::sync::Arc;

/// The most states the explicit search stores before it gives up.
pub const MAX_STATES: usize = 100_000;

/// The most reads-from classes RF-SMC explores beside CBMC (`--engine
/// auto`) before it leaves the program to CBMC. RF-SMC stores no
/// classes: alone (`--engine smc`) it has no such limit, only the time
/// and memory limits.
pub const MAX_CLASSES_BESIDE_CBMC: usize = 100_000;

/// A program ready for the native engine.
pub struct Prepared {
    /// Shared with the printer when `verify` runs both engines: the passes
    /// run once.
    pub sequential: Arc<SequentialProgram>,
    pub model: MemoryModel,
    pub bitwidth: u32,
    /// `--pointer-check`: an access through a pointer outside its objects
    /// is a violation, not a cut-off.
    pub pointer_checks: bool,
}

/// The native engine's answer.
#[derive(Debug, Clone)]
pub enum Answer {
    /// No execution within the bounds violates a property; some may be
    /// cut off where the second field says (a pointer outside its
    /// objects without `--pointer-check`, an allocation the heap bounds
    /// cannot serve).
    Safe(Statistics, CutOffs),
    /// An execution violates `violation`; `records` are its SMA records.
    Violation {
        violation: Violation,
        records: Vec<Record>,
        statistics: Statistics,
        /// With [`Limits::all_violations`]: the violations of the other
        /// properties, each once, in the order found; empty otherwise.
        further: Vec<FoundViolation>,
        /// With [`Limits::all_violations`]: why the search ended before
        /// it covered every execution (then the list may miss a
        /// property); `None` when it covered them all, and otherwise.
        stopped_early: Option<NoAnswer>,
        /// The values the solver's model gives the execution's symbolic
        /// inputs (RF-SMC's wide nondeterministic values), checked on
        /// every branch of the path; empty without them.
        inputs: Vec<replay::InputValue>,
    },
}

/// A violation and the SMA records of its execution.
#[derive(Debug, Clone)]
pub struct FoundViolation {
    pub violation: Violation,
    pub records: Vec<Record>,
}

/// Where the search cut executions off, by the bound that cut them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CutOffs {
    /// The accesses through a pointer outside its objects (or past the
    /// requested part of a heap block), without `--pointer-check`.
    pub pointers: Vec<crate::ir::OriginId>,
    /// The allocations that asked for more scalars than a heap block
    /// holds (`--heap-block`), each with the most scalars an execution
    /// asked for there (`None` when only negative sizes were asked for,
    /// which as `size_t` are larger than any block).
    pub oversized: Vec<(crate::ir::OriginId, Option<i64>)>,
    /// The allocations that found every heap block used (`--nmalloc`).
    pub blocks_used: Vec<crate::ir::OriginId>,
    /// The loops whose last unrolled copy (`--unwind`) an execution
    /// reached wanting more.
    pub loops: Vec<crate::ir::OriginId>,
}

/// Why the native engine gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoAnswer {
    /// The program uses what the engine does not model (the reason names
    /// it and its position).
    Declined(Declined),
    /// Stopped from outside (the other engine answered).
    Cancelled,
    Timeout,
    /// A defect of the engine: its trace did not replay.
    Failed(String),
    /// The process's resident memory (`resident` bytes) went above the
    /// memory limit (`limit` bytes, `--memory-limit`).
    MemoryLimit {
        limit: u64,
        resident: u64,
    },
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoAnswer::Declined(declined) => write!(f, "{}", declined.reason),
            NoAnswer::Cancelled => f.write_str("stopped"),
            NoAnswer::Timeout => f.write_str("the time limit was reached"),
            NoAnswer::Failed(reason) => f.write_str(reason),
            NoAnswer::MemoryLimit { limit, resident } => write!(
                f,
                "the native engine reached its memory limit ({} resident, limit {}, --memory-limit): \
                 raise the limit, lower the bounds, or run CBMC alone (--engine cbmc)",
                search::human_size(*resident),
                search::human_size(*limit)
            ),
        }
    }
}

/// Runs the passes for the native engine (as for the printer).
pub fn prepare(program: &Program, options: &TranslateOptions) -> Result<Prepared, NoAnswer> {
    let options = crate::translate::with_lowered_width(program, options);
    match crate::passes::sequentialise(program, &options) {
        Ok(sequential) => prepared(Ok(Arc::new(sequential)), &options),
        Err(diagnostic) => prepared(Err(&diagnostic.message), &options),
    }
}

/// The program the passes made, ready for the native engine, or the
/// engine's refusal with the reason the passes gave for refusing it;
/// `options` are the ones the passes ran with (the width lowered as
/// [`crate::translate::with_lowered_width`] lowers it).
pub fn prepared(
    sequential: Result<Arc<SequentialProgram>, &str>,
    options: &TranslateOptions,
) -> Result<Prepared, NoAnswer> {
    let sequential = sequential.map_err(|reason| {
        NoAnswer::Declined(Declined {
            reason: reason.to_string(),
        })
    })?;
    Ok(Prepared {
        sequential,
        model: options.sma.model(),
        bitwidth: options.bounds.bitwidth,
        pointer_checks: options.pointer_checks,
    })
}

/// The machine that runs `program` (the prepared one, or a variant of it).
fn machine<'a>(
    prepared: &Prepared,
    program: &'a SequentialProgram,
    limits: &Limits,
) -> Machine<'a> {
    let mut machine = Machine::new(program, prepared.model, prepared.bitwidth);
    machine.pointer_checks = prepared.pointer_checks;
    // the SMT solver's checks end by the command's time limit too
    machine.decider.set_deadline(limits.deadline);
    machine.decider.set_stop(limits.stop.clone());
    machine.decider.set_memory(limits.memory);
    machine
}

/// The machine RF-SMC runs `program` on: [`machine`] with the lock that
/// orders atomic sections (`semantics::sections`).
fn rf_machine<'a>(
    prepared: &Prepared,
    program: &'a SequentialProgram,
    limits: &Limits,
) -> Machine<'a> {
    let mut machine = machine(prepared, program, limits);
    machine.enable_section_lock();
    machine
}

/// Searches every execution of a prepared program: by RF-SMC, or by the
/// explicit-state search where RF-SMC does not handle the program yet
/// (the statistics say which search answered, and why). With
/// [`Limits::all_violations`], every property violated, each once
/// ([`check_every_property`]).
pub fn check(prepared: &Prepared, limits: &Limits) -> Result<Answer, NoAnswer> {
    let answer = if limits.all_violations && !limits.robustness {
        check_every_property(prepared, limits)
    } else {
        check_without(prepared, limits, &[])
    };
    match answer {
        // the SMT solver stopped at the deadline: the time limit, not the
        // program, ended the search
        Err(NoAnswer::Declined(_)) if matches!(limits.check(), Err(Stopped::Timeout)) => {
            Err(NoAnswer::Timeout)
        }
        answer => answer,
    }
}

/// The search again and again, each time without the properties found
/// so far (an assertion found holds, another check found cuts its
/// execution off, as the printed program's assumption after it does; a
/// deadlock found turns the deadlock check off), until a search finds no
/// other: every property violated within the bounds, each once, in the
/// order found. A search that ends without an answer ends the list, which
/// then says why it may be incomplete.
fn check_every_property(prepared: &Prepared, limits: &Limits) -> Result<Answer, NoAnswer> {
    let mut limits = limits.clone();
    let mut found: Vec<FoundViolation> = Vec::new();
    let mut statistics: Option<Statistics> = None;
    loop {
        let known: Vec<(usize, String)> = found
            .iter()
            .map(|found| (found.violation.slot, found.violation.description.clone()))
            .collect();
        let answer = check_without(prepared, &limits, &known);
        if let Ok(
            Answer::Safe(counted, _)
            | Answer::Violation {
                statistics: counted,
                ..
            },
        ) = &answer
        {
            statistics
                .get_or_insert_with(|| Statistics {
                    search: counted.search,
                    ..Statistics::default()
                })
                .add(counted);
        }
        let counted = statistics.unwrap_or_default();
        match answer {
            Ok(Answer::Violation {
                violation, records, ..
            }) => {
                let endless_wait = violation.kind == DEADLOCK || violation.kind == LIVENESS;
                if !endless_wait && known.contains(&(violation.slot, violation.description.clone()))
                {
                    return Err(NoAnswer::Failed(format!(
                        "the search found `{}` again after setting it aside",
                        violation.description
                    )));
                }
                limits.deadlocks &= !endless_wait;
                found.push(FoundViolation { violation, records });
            }
            Ok(Answer::Safe(_, cut_offs)) => {
                return Ok(every_violation(found, counted, None)
                    .unwrap_or(Answer::Safe(counted, cut_offs)));
            }
            Err(no_answer) => {
                return every_violation(found, counted, Some(no_answer.clone())).ok_or(no_answer);
            }
        }
    }
}

/// The answer of [`check_every_property`]: the first violation found with
/// the others after it; `None` when none was found.
fn every_violation(
    found: Vec<FoundViolation>,
    statistics: Statistics,
    stopped_early: Option<NoAnswer>,
) -> Option<Answer> {
    let mut found = found.into_iter();
    let first = found.next()?;
    Some(Answer::Violation {
        violation: first.violation,
        records: first.records,
        statistics,
        further: found.collect(),
        stopped_early,
        inputs: Vec::new(),
    })
}

/// [`check`] of one search, the properties `found` (by thread slot and
/// description) set aside ([`Machine::found`]).
fn check_without(
    prepared: &Prepared,
    limits: &Limits,
    found: &[(usize, String)],
) -> Result<Answer, NoAnswer> {
    let without_assertions;
    let program = if limits.robustness {
        without_assertions = assertions_dropped(&prepared.sequential);
        &without_assertions
    } else {
        &prepared.sequential
    };
    let mut machine = machine(prepared, program, limits);
    machine.found = found.to_vec();
    decline::check(&prepared.sequential, &machine.codes).map_err(NoAnswer::Declined)?;
    let mut searching = rf_machine(prepared, program, limits);
    searching.found = found.to_vec();
    let budgeted = Limits {
        section_budget: (!limits.robustness).then_some(rf::explore::SECTION_CLASSES),
        ..limits.clone()
    };
    let answer = match reads_from(prepared, &searching, &budgeted) {
        Err(RfNoAnswer::Fallback(why, _)) if why == rf::explore::SECTION_BUDGET => {
            match explicit_within(prepared, &machine, limits)? {
                Some(answer) => return Ok(with_fallback(answer, why)),
                // the explicit search cannot answer: RF-SMC after all
                None => reads_from(prepared, &searching, limits),
            }
        }
        answer => answer,
    };
    match answer {
        Ok(answer) => Ok(answer),
        Err(RfNoAnswer::Fallback(why, detail)) if why == rf::run::PLAIN_SHARED => {
            Err(NoAnswer::Declined(Declined {
                reason: format!(
                    "a plain global ({detail}) that one thread writes while another thread may \
                     read it, with no creation, join or reads-from ordering the two: plain \
                     globals are no events of the reads-from search, which would explore one \
                     order of the two only"
                ),
            }))
        }
        Err(RfNoAnswer::Fallback(why, _)) if limits.robustness => {
            Err(NoAnswer::Declined(Declined {
                reason: format!(
                    "robustness is checked by the reads-from search, which does not handle {why} yet"
                ),
            }))
        }
        Err(RfNoAnswer::Fallback(why, _)) => {
            Ok(with_fallback(explicit(prepared, &machine, limits)?, why))
        }
        Err(RfNoAnswer::Other(no_answer)) => Err(no_answer),
    }
}

/// The program without its assertions: a robustness check asks what the
/// program's reads can observe, not whether its assertions hold (`verify`
/// checks those). A check that guards a memory access (an index out of
/// bounds) keeps its assumption, which cuts the execution off there.
fn assertions_dropped(program: &SequentialProgram) -> SequentialProgram {
    let mut program = program.clone();
    for thread in &mut program.threads {
        drop_assertions(&mut thread.body);
    }
    program
}

fn drop_assertions(body: &mut Vec<SeqStmt>) {
    body.retain(|stmt| !matches!(stmt, SeqStmt::Assert { .. }));
    for stmt in body {
        if let SeqStmt::If {
            then_branch,
            else_branch,
            ..
        } = stmt
        {
            drop_assertions(then_branch);
            drop_assertions(else_branch);
        }
    }
}

/// Why RF-SMC alone gave no answer.
#[derive(Debug, Clone)]
pub enum RfNoAnswer {
    /// What RF-SMC does not handle yet, with the details.
    Fallback(&'static str, String),
    Other(NoAnswer),
}

/// The stack of RF-SMC's recursion (one frame per nested schedule).
const RF_STACK: usize = 256 << 20;

/// Runs RF-SMC alone on a prepared program.
pub fn check_reads_from(prepared: &Prepared, limits: &Limits) -> Result<Answer, RfNoAnswer> {
    let machine = rf_machine(prepared, &prepared.sequential, limits);
    decline::check(&prepared.sequential, &machine.codes)
        .map_err(|declined| RfNoAnswer::Other(NoAnswer::Declined(declined)))?;
    reads_from(prepared, &machine, limits)
}

/// Runs RF-SMC alone and gives the final memory (by location) of each
/// complete execution it explored, one per reads-from class, with its
/// answer: a test's view of what the search covers.
pub fn final_memories(
    prepared: &Prepared,
    limits: &Limits,
) -> Result<(Answer, Vec<Vec<i64>>), RfNoAnswer> {
    let machine = rf_machine(prepared, &prepared.sequential, limits);
    decline::check(&prepared.sequential, &machine.codes)
        .map_err(|declined| RfNoAnswer::Other(NoAnswer::Declined(declined)))?;
    let mut finals = Vec::new();
    let answer = run_reads_from(prepared, &machine, limits, Some(&mut finals))?;
    Ok((answer, finals))
}

/// RF-SMC's estimate of the number of reads-from classes of a prepared
/// program from `budget`'s random probes with `seed` (see `rf::probe`;
/// [`check`] makes one itself with [`Limits::estimate`]); `None` when no
/// probe finished or the engine does not take the program to RF-SMC.
pub fn estimate_classes(
    prepared: &Prepared,
    limits: &Limits,
    budget: estimate::Budget,
    seed: u64,
) -> Option<search::ClassEstimate> {
    let machine = rf_machine(prepared, &prepared.sequential, limits);
    decline::check(&prepared.sequential, &machine.codes).ok()?;
    rf::probe::estimate_within(&machine, limits, budget, seed)
}

fn reads_from(
    prepared: &Prepared,
    machine: &Machine,
    limits: &Limits,
) -> Result<Answer, RfNoAnswer> {
    run_reads_from(prepared, machine, limits, None)
}

fn run_reads_from(
    prepared: &Prepared,
    machine: &Machine,
    limits: &Limits,
    finals: Option<&mut Vec<Vec<i64>>>,
) -> Result<Answer, RfNoAnswer> {
    let collect = finals.is_some();
    let explored = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(RF_STACK)
            .spawn_scoped(scope, || {
                let estimate = limits
                    .estimate
                    .then(|| rf::probe::estimate(machine, limits))
                    .flatten();
                let explored = if limits.workers > 1 && !collect {
                    rf::parallel::explore(machine, limits)
                        .map(|(found, statistics)| (found, statistics, Vec::new()))
                } else {
                    rf::explore::explore_collecting(machine, limits, collect)
                };
                explored.map(|(found, mut statistics, finals)| {
                    statistics.estimate = estimate;
                    (found, statistics, finals)
                })
            })
            .map(|handle| handle.join())
    });
    let explored = match explored {
        Ok(Ok(explored)) => explored,
        Ok(Err(_)) => {
            return Err(RfNoAnswer::Other(NoAnswer::Failed(
                "the native engine panicked".into(),
            )));
        }
        Err(error) => {
            return Err(RfNoAnswer::Fallback(
                "no thread for RF-SMC",
                error.to_string(),
            ));
        }
    };
    let (found, statistics, collected) = explored.map_err(|stopped| match stopped {
        RfStopped::Abort(Abort::Fallback(why, detail)) => RfNoAnswer::Fallback(why, detail),
        RfStopped::Abort(Abort::Unsupported(unsupported)) => {
            RfNoAnswer::Other(unsupported_reason(prepared, unsupported))
        }
        RfStopped::Stopped(Stopped::TooManyStates(limit)) => {
            RfNoAnswer::Other(NoAnswer::Declined(Declined {
                reason: format!(
                    "the program has more than {limit} reads-from classes, the limit beside CBMC (--engine smc has none)"
                ),
            }))
        }
        RfStopped::Stopped(stopped) => RfNoAnswer::Other(stopped_answer(prepared, stopped)),
    })?;
    if let Some(finals) = finals {
        *finals = collected;
    }
    match found {
        RfFound::Safe => Ok(Answer::Safe(statistics, cut_offs(machine))),
        RfFound::Violation { violation, path } => {
            // the witness's symbols get values from the solver's model,
            // checked against every side the path took
            let violating = !ends_without_move(&violation);
            let (records, inputs) = replay::symbolic_records(machine, &path, violating)
                .map_err(|failure| RfNoAnswer::Other(NoAnswer::Failed(failure.to_string())))?;
            Ok(Answer::Violation {
                violation,
                records,
                statistics,
                further: Vec::new(),
                stopped_early: None,
                inputs,
            })
        }
    }
}

/// Whether a violation is an execution's rather than its last move's (a
/// non-robust execution, a deadlock): its path ends with a move that
/// violates nothing.
fn ends_without_move(violation: &Violation) -> bool {
    violation.kind == NOT_ROBUST || violation.kind == DEADLOCK || violation.kind == LIVENESS
}

fn unsupported_reason(
    prepared: &Prepared,
    unsupported: semantics::machine::Unsupported,
) -> NoAnswer {
    NoAnswer::Declined(Declined {
        reason: format!(
            "{} at {}",
            unsupported.what,
            decline::located(&prepared.sequential, unsupported.origin)
        ),
    })
}

fn stopped_answer(prepared: &Prepared, stopped: Stopped) -> NoAnswer {
    match stopped {
        Stopped::Unsupported(unsupported) => unsupported_reason(prepared, unsupported),
        Stopped::TooManyStates(limit) => NoAnswer::Declined(Declined {
            reason: format!("the program has more than {limit} states"),
        }),
        Stopped::TooManyChoices(limit) => NoAnswer::Declined(Declined {
            reason: format!(
                "the program has more than {limit} schedules of nondeterministic values to explore"
            ),
        }),
        Stopped::Cancelled => NoAnswer::Cancelled,
        Stopped::Timeout => NoAnswer::Timeout,
        Stopped::MemoryLimit { limit, resident } => NoAnswer::MemoryLimit { limit, resident },
    }
}

/// Where the search cut executions off: the accesses through a pointer
/// outside its objects and the allocations the heap could not serve.
fn cut_offs(machine: &Machine) -> CutOffs {
    let pointers = machine
        .pointer_cut_offs
        .lock()
        .map(|cut_offs| cut_offs.iter().copied().collect())
        .unwrap_or_default();
    let (oversized, blocks_used) = machine
        .allocation_cut_offs
        .lock()
        .map(|cut_offs| {
            let oversized = cut_offs
                .iter()
                .filter(|(_, cut)| cut.largest.is_some() || cut.negative)
                .map(|(stmt, cut)| (*stmt, cut.largest))
                .collect();
            let used = cut_offs
                .iter()
                .filter(|(_, cut)| cut.blocks_used)
                .map(|(stmt, _)| *stmt)
                .collect();
            (oversized, used)
        })
        .unwrap_or_default();
    let loops = machine
        .loop_cut_offs
        .lock()
        .map(|cut_offs| cut_offs.iter().copied().collect())
        .unwrap_or_default();
    CutOffs {
        pointers,
        oversized,
        blocks_used,
        loops,
    }
}

/// Runs the explicit-state search alone on a prepared program.
pub fn check_explicit(prepared: &Prepared, limits: &Limits) -> Result<Answer, NoAnswer> {
    let machine = machine(prepared, &prepared.sequential, limits);
    decline::check(&prepared.sequential, &machine.codes).map_err(NoAnswer::Declined)?;
    explicit(prepared, &machine, limits)
}

/// `answer` of the explicit search, its statistics saying why RF-SMC did
/// not answer.
fn with_fallback(mut answer: Answer, why: &'static str) -> Answer {
    match &mut answer {
        Answer::Safe(statistics, _) | Answer::Violation { statistics, .. } => {
            statistics.fallback = Some(why);
        }
    }
    answer
}

/// [`explicit`], `None` when it cannot answer: it stops at its state or
/// choice limit, or meets what only RF-SMC models (a symbolic value).
fn explicit_within(
    prepared: &Prepared,
    machine: &Machine,
    limits: &Limits,
) -> Result<Option<Answer>, NoAnswer> {
    match explicit::explore::explore(machine, limits) {
        // too many states or choices, or what it does not model (a
        // symbolic value, which RF-SMC explores): RF-SMC answers after all
        Err(Stopped::TooManyStates(_) | Stopped::TooManyChoices(_) | Stopped::Unsupported(_)) => {
            Ok(None)
        }
        Err(stopped) => Err(stopped_answer(prepared, stopped)),
        Ok(explored) => explicit_answer(machine, explored).map(Some),
    }
}

/// The explicit-state search.
fn explicit(prepared: &Prepared, machine: &Machine, limits: &Limits) -> Result<Answer, NoAnswer> {
    let explored = explicit::explore::explore(machine, limits)
        .map_err(|stopped| stopped_answer(prepared, stopped))?;
    explicit_answer(machine, explored)
}

/// The answer of the explicit search from what it found.
fn explicit_answer(
    machine: &Machine,
    (found, statistics): (Found, Statistics),
) -> Result<Answer, NoAnswer> {
    match found {
        Found::Safe => Ok(Answer::Safe(statistics, cut_offs(machine))),
        Found::Violation { violation, path } => {
            let records = if ends_without_move(&violation) {
                replay::execution_records(machine, &path)
            } else {
                replay::records(machine, &path)
            };
            let records = records.map_err(|failure| NoAnswer::Failed(failure.to_string()))?;
            Ok(Answer::Violation {
                violation,
                records,
                statistics,
                further: Vec::new(),
                stopped_early: None,
                inputs: Vec::new(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    /// The folders of the repository a path quoted in the mirror list may
    /// begin with.
    const ROOTS: [&str; 6] = ["src/", "sma/", "tests/", "docs/", "scripts/", "examples/"];

    fn repository() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// The lines of ARCHITECTURE.md's section "Mirrors".
    fn mirror_section() -> Vec<String> {
        let text = std::fs::read_to_string(repository().join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md is readable");
        let lines: Vec<String> = text
            .lines()
            .skip_while(|line| line.trim() != "## Mirrors")
            .skip(1)
            .take_while(|line| !line.starts_with("## "))
            .map(str::to_string)
            .collect();
        assert!(
            !lines.is_empty(),
            "ARCHITECTURE.md has a section ## Mirrors"
        );
        lines
    }

    /// The code spans (`...`) of `text`.
    fn spans(text: &str) -> Vec<&str> {
        text.split('`').skip(1).step_by(2).collect()
    }

    /// Whether a code span is a path of the repository.
    fn is_path(span: &str) -> bool {
        ROOTS.iter().any(|root| span.starts_with(root))
            && !span.contains(|c: char| c.is_whitespace() || c == '*')
    }

    fn engine_files(folder: &Path, files: &mut BTreeSet<String>) {
        let entries = std::fs::read_dir(folder).expect("src/smc/ is readable");
        for entry in entries {
            let path = entry.expect("an entry of src/smc/").path();
            if path.is_dir() {
                engine_files(&path, files);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let relative = path
                    .strip_prefix(repository())
                    .expect("below the repository");
                files.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }

    /// ARCHITECTURE.md's mirror list names only paths that exist, has a
    /// row (an engine file, what it mirrors, the tests to run) or a place
    /// in the "Mirrors nothing" paragraph for every `.rs` file of
    /// `src/smc/`, once, and names a test in every row.
    #[test]
    fn the_mirror_list_names_every_engine_file_and_only_existing_paths() {
        let section = mirror_section();
        for span in section.iter().flat_map(|line| spans(line)) {
            if is_path(span) {
                assert!(
                    repository().join(span.trim_end_matches('/')).exists(),
                    "ARCHITECTURE.md's mirror list names `{span}`, which does not exist"
                );
            }
        }
        let mut listed: Vec<String> = Vec::new();
        for row in section
            .iter()
            .filter(|line| line.starts_with("| `src/smc/"))
        {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 3, "a row of three cells: {row}");
            let subject = spans(cells[0]);
            assert_eq!(subject.len(), 1, "one engine file per row: {row}");
            listed.push(subject[0].to_string());
            assert!(
                cells[2].contains("`tests/") || cells[2].contains("unit tests"),
                "the row of {} names the tests to pass",
                subject[0]
            );
        }
        let nothing: String = section
            .iter()
            .skip_while(|line| !line.starts_with("Mirrors nothing"))
            .take_while(|line| !line.trim().is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            !nothing.is_empty(),
            "the mirror list has a paragraph \"Mirrors nothing\""
        );
        listed.extend(
            spans(&nothing)
                .into_iter()
                .filter(|span| span.starts_with("src/smc/"))
                .map(str::to_string),
        );
        let mut files = BTreeSet::new();
        engine_files(&repository().join("src/smc"), &mut files);
        for file in &files {
            let times = listed.iter().filter(|named| *named == file).count();
            assert_eq!(
                times, 1,
                "{file} must be named once in ARCHITECTURE.md's mirror list (a row, or \"Mirrors nothing\"), not {times} times"
            );
        }
        for named in &listed {
            assert!(
                files.contains(named),
                "ARCHITECTURE.md's mirror list has {named}, which is no file of src/smc/"
            );
        }
    }
}
