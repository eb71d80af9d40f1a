//! The reachability run after a safe verdict: whether any execution within
//! the bounds reaches the end of `main`. A bound can cut off every
//! execution before it (an allocation larger than a heap block, heap
//! blocks used up, a loop that needs more iterations, a join that needs
//! more rounds); the safe verdict then covers only the code before the cut,
//! and the report says so rather than passing silently.
//!
//! The printed program marks the places in `#ifdef LAZYSMA_REACH` blocks
//! (see `printer`): there the program's assertions, which all held in the
//! run before, become assumptions, and `(__CPROVER_assert)` properties fail
//! where an execution reaches the end of `main` or an allocation of a
//! run-time size with a size larger than a heap block or with every block
//! used, or an access through a pointer outside its objects that is cut
//! off without `--pointer-check`. Each such place is named by a warning
//! even when the end of `main` is reached (and when the translator's
//! warnings already name code no execution reaches), with the bound that
//! cut there, which the headline of a safe verdict names. CBMC checks them all in one run (no `--stop-on-fail`): its cost
//! is one more symbolic execution of the program and a few SAT calls,
//! each satisfiable as soon as one execution gets there, so it is
//! usually a fraction of the first run.

use super::VerifyRequest;
use crate::backend::{Cbmc, Outcome, PropertyStatus, RunOptions};
use crate::diagnostics::{Diagnostic, Severity};
use crate::passes::TranslationMap;
use crate::passes::properties::{
    REACH_BLOCK_SIZE, REACH_BLOCKS_USED, REACH_END_OF_MAIN, REACH_POINTER_CUT,
};
use crate::report::document::{CutOffReport, ReachReport, VerifyReport, WarningReport};
use std::path::{Path, PathBuf};

/// The description prefix of the reachability properties.
const PREFIX: &str = "lazysma reach: ";

/// Runs the reachability check of `c_source` in `directory` and records in
/// `report` whether the end of `main` is reached, with warnings that say
/// why not where the run finds the allocation that cuts executions off.
pub fn check(
    request: &VerifyRequest,
    report: &mut VerifyReport,
    c_source: &str,
    map: &TranslationMap,
    directory: &Path,
) {
    // the translator's warnings already name the code no execution
    // reaches: the run adds only the places where it cut executions off
    let translator_warned = !report.warnings.is_empty();
    let started = std::time::Instant::now();
    let reach = run(request, c_source, directory);
    let seconds = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
    let Ok(statuses) = reach else {
        if translator_warned {
            return;
        }
        report.reach = Some(ReachReport {
            end_of_main: None,
            seconds,
            reason: reach.err(),
        });
        return;
    };
    // the end of `main` and each `exit` or `abort`
    let ends: Vec<bool> = statuses
        .iter()
        .filter(|(description, _)| description == REACH_END_OF_MAIN)
        .map(|(_, reached)| *reached)
        .collect();
    let end_reached = (!ends.is_empty()).then(|| ends.contains(&true));
    let show = (!request.format.is_document(), request.color);
    let cut_offs = cut_offs_reached(&statuses);
    let allocations = warn_cut_offs(show, report, &cut_offs, map);
    if translator_warned {
        return;
    }
    let reason = match end_reached {
        Some(false) => Some(unreached_reason(&allocations, &cut_offs)),
        Some(true) => None,
        None => Some("the run did not report the end of main".to_string()),
    };
    report.reach = Some(ReachReport {
        end_of_main: end_reached,
        seconds,
        reason,
    });
}

/// The places the reachability run found executions cut off at: the
/// properties of [`crate::printer`]'s `REACH_*` marks that failed.
fn cut_offs_reached(statuses: &[(String, bool)]) -> CutOffs {
    let reached = |prefix: &str| -> Vec<usize> {
        statuses
            .iter()
            .filter(|(_, reached)| *reached)
            .filter_map(|(description, _)| description.strip_prefix(prefix))
            .filter_map(|stmt| stmt.parse::<usize>().ok())
            .collect()
    };
    CutOffs {
        pointers: reached(REACH_POINTER_CUT),
        // CBMC's run says that the size can exceed a block, not by how much
        oversized: reached(REACH_BLOCK_SIZE)
            .into_iter()
            .map(|stmt| (stmt, None))
            .collect(),
        blocks_used: reached(REACH_BLOCKS_USED),
        // the CBMC path names loop bounds in its safe note only
        loops: Vec::new(),
    }
}

/// Where a run cut executions off, by the bound that cut them (the CBMC
/// path's reachability run and the native engine both give it).
#[derive(Debug, Clone, Default)]
pub struct CutOffs {
    /// The accesses through a pointer outside its objects, without
    /// `--pointer-check`.
    pub pointers: Vec<usize>,
    /// The allocations asked for more than a heap block holds, with the
    /// most scalars an execution asked for there when the run knows it.
    pub oversized: Vec<(usize, Option<i64>)>,
    /// The allocations that found every heap block used.
    pub blocks_used: Vec<usize>,
    /// The loops an execution wanted to run past their unwinding bound
    /// (the native engine's).
    pub loops: Vec<usize>,
}

impl From<crate::smc::CutOffs> for CutOffs {
    fn from(native: crate::smc::CutOffs) -> Self {
        CutOffs {
            pointers: native.pointers,
            oversized: native.oversized,
            blocks_used: native.blocks_used,
            loops: native.loops,
        }
    }
}

/// Warns of every place in `cut_offs` (in `report` and on stderr when
/// `show`), so that a safe verdict does not pass over them in silence:
/// each warning carries its [`CutOffReport`], which the headline names.
/// Returns the allocations' summaries, for [`unreached_reason`].
pub fn warn_cut_offs(
    (show, color): (bool, bool),
    report: &mut VerifyReport,
    cut_offs: &CutOffs,
    map: &TranslationMap,
) -> Vec<String> {
    let block = report.bounds.heap_block.unwrap_or(0);
    let nmalloc = report.bounds.nmalloc;
    let mut warnings = Vec::new();
    for &(stmt, largest) in &cut_offs.oversized {
        let asked = largest.map_or(String::new(), |largest| {
            format!(", where executions asked for up to {largest}")
        });
        let cut = Cut {
            stmt,
            asked: largest,
            option: "--heap-block",
            what: format!("was cut off above {block} scalars{asked}"),
            message: format!(
                "an execution reaches this allocation asking for more than a heap block holds \
                 ({block} scalars{asked}) and is cut off there; what it does after was not checked"
            ),
            help: format!(
                "give --heap-block with at least the scalars it asks for{}",
                largest.map_or(String::new(), |largest| format!(
                    " (--heap-block {largest})"
                ))
            ),
        };
        warnings.extend(cut.warning(map, "the allocation"));
    }
    for &stmt in &cut_offs.blocks_used {
        let cut = Cut {
            stmt,
            asked: None,
            option: "--nmalloc",
            what: format!("was cut off with all {nmalloc} heap blocks used"),
            message: format!(
                "an execution reaches this allocation with all {nmalloc} heap blocks used and is \
                 cut off there; what it does after was not checked"
            ),
            help: "give a larger --nmalloc".to_string(),
        };
        warnings.extend(cut.warning(map, "the allocation"));
    }
    let allocations: Vec<String> = warnings
        .iter()
        .filter_map(|(_, warning)| warning.cut_off.as_ref())
        .map(|cut_off| cut_off.summary.clone())
        .collect();
    for &stmt in &cut_offs.pointers {
        let cut = Cut {
            stmt,
            asked: None,
            option: "--pointer-check",
            what: "was cut off with a pointer outside its objects".to_string(),
            message: "an execution reaches this access with a pointer outside the objects it may \
                      point to (or past the part of a heap block malloc was asked for) and is cut \
                      off there; what it does after was not checked"
                .to_string(),
            help: "--pointer-check reports such an access as a violation (a pointer outside its object)"
                .to_string(),
        };
        warnings.extend(cut.warning(map, "the access"));
    }
    for &stmt in &cut_offs.loops {
        let cut = Cut {
            stmt,
            asked: None,
            option: "--unwind",
            what: "was cut off after its unwinding bound".to_string(),
            message: "an execution runs this loop more often than its unwinding bound lets it \
                      and is cut off there; what it does after was not checked"
                .to_string(),
            help: "raise --unwind (or --unwindset LINE:N for this loop); --unwinding-assertions \
                   reports such an execution as a bound reached"
                .to_string(),
        };
        warnings.extend(cut.warning(map, "the loop"));
    }
    // a place the translator's warnings name already is not named again
    let named: std::collections::BTreeSet<(String, u32, u32)> = report
        .warnings
        .iter()
        .map(|warning| (warning.file.clone(), warning.line, warning.column))
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for (diagnostic, warning) in warnings {
        let at = (warning.file.clone(), warning.line, warning.column);
        if named.contains(&at) || !seen.insert((at, warning.message.clone())) {
            continue;
        }
        if show {
            crate::output::eprint(&diagnostic.render(color));
        }
        report.warnings.push(warning);
    }
    allocations
}

/// One place where a bound cut executions off, before it is a warning.
struct Cut {
    stmt: usize,
    /// The most scalars asked for ([`CutOffReport::asked`]).
    asked: Option<i64>,
    /// The option that lifts the bound.
    option: &'static str,
    /// What happened there, after "the allocation at file:line".
    what: String,
    message: String,
    help: String,
}

impl Cut {
    /// The warning at the statement's origin, as a diagnostic for the
    /// terminal and a report entry; `None` for a statement without one.
    fn warning(self, map: &TranslationMap, noun: &str) -> Option<(Diagnostic, WarningReport)> {
        let origin = map.origins.get(self.stmt)?;
        let name = origin.file_name();
        let diagnostic = Diagnostic {
            message: self.message,
            file: PathBuf::from(&origin.file),
            line: origin.line,
            column: origin.column,
            length: u32::try_from(origin.text.len()).unwrap_or(1).max(1),
            label: "cuts executions off".to_string(),
            help: Some(self.help),
            severity: Severity::Warning,
        };
        let mut warning = WarningReport::from(&diagnostic);
        warning.cut_off = Some(CutOffReport {
            option: self.option,
            summary: format!("{noun} at {name}:{} {}", origin.line, self.what),
            asked: self.asked,
        });
        Some((diagnostic, warning))
    }
}

/// Why no execution reaches the end of `main`: the allocations the run
/// found cutting executions off (their `summaries`), or the bounds that
/// may.
fn unreached_reason(summaries: &[String], cut_offs: &CutOffs) -> String {
    if summaries.is_empty() && !cut_offs.pointers.is_empty() {
        "an access through a pointer outside its objects cuts them off (see the warning; \
         --pointer-check reports it)"
            .to_string()
    } else if summaries.is_empty() {
        "the bounds cut every execution off before it (more loop iterations, rounds or heap may be needed: \
         --unwind, --rounds, --nmalloc, --heap-block)"
            .to_string()
    } else {
        summaries.join("; ")
    }
}

/// Runs CBMC on `c_source` with the reachability properties: each one's
/// description and whether some execution reaches it, or why the run gave
/// no answer.
fn run(
    request: &VerifyRequest,
    c_source: &str,
    directory: &Path,
) -> Result<Vec<(String, bool)>, String> {
    let file = directory.join("reach.c");
    let text = format!("#define LAZYSMA_REACH 1\n#line 1\n{c_source}");
    crate::output::write_atomically(&file, text.as_bytes())
        .map_err(|error| format!("cannot write the reachability program: {error}"))?;
    let cbmc = Cbmc::locate(request.cbmc.as_deref()).map_err(|error| error.to_string())?;
    let options = RunOptions {
        timeout: request.timeout,
        clock_started: Some(request.started),
        memory_limit: request.memory_limit,
        ..RunOptions::default()
    };
    let run = cbmc
        .run(&file, &options, None)
        .map_err(|error| error.to_string())?;
    match (&run.outcome, &run.output) {
        (Outcome::Safe | Outcome::Violated { .. }, Some(output)) => Ok(output
            .properties
            .iter()
            .flatten()
            .filter(|property| property.description.starts_with(PREFIX))
            .map(|property| {
                (
                    property.description.clone(),
                    property.status == PropertyStatus::Failure,
                )
            })
            .collect()),
        (outcome, _) => Err(format!("the run gave no answer: {}", outcome.summary())),
    }
}
