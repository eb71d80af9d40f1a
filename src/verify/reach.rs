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
//! off without `--pointer-check` (named by a warning even when the end of
//! `main` is reached). CBMC checks them all in one run (no `--stop-on-fail`): its cost
//! is one more symbolic execution of the program and a few SAT calls,
//! each satisfiable as soon as one execution gets there, so it is
//! usually a fraction of the first run.

use super::VerifyRequest;
use crate::backend::{Cbmc, Outcome, PropertyStatus, RunOptions};
use crate::diagnostics::{Diagnostic, Severity};
use crate::passes::TranslationMap;
use crate::printer::{REACH_BLOCK_SIZE, REACH_BLOCKS_USED, REACH_END_OF_MAIN, REACH_POINTER_CUT};
use crate::trace::report::{ReachReport, VerifyReport, WarningReport};
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
    let started = std::time::Instant::now();
    let reach = run(request, c_source, directory);
    let seconds = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
    let Ok(statuses) = reach else {
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
    pointer_cut_offs(show, report, &statuses, map);
    let reason = match end_reached {
        Some(false) => Some(unreached_reason(show, report, &statuses, map)),
        Some(true) => None,
        None => Some("the run did not report the end of main".to_string()),
    };
    report.reach = Some(ReachReport {
        end_of_main: end_reached,
        seconds,
        reason,
    });
}

/// The accesses where some execution was cut off because its pointer left
/// the objects it may point to (or the requested part of a heap block)
/// without `--pointer-check`: warnings of `report` (and on stderr when
/// `show`), so that a safe verdict does not pass over them in silence.
fn pointer_cut_offs(
    (show, color): (bool, bool),
    report: &mut VerifyReport,
    statuses: &[(String, bool)],
    map: &TranslationMap,
) {
    let stmts: Vec<usize> = statuses
        .iter()
        .filter(|(_, reached)| *reached)
        .filter_map(|(description, _)| description.strip_prefix(REACH_POINTER_CUT))
        .filter_map(|stmt| stmt.parse::<usize>().ok())
        .collect();
    warn_pointer_cut_offs((show, color), report, &stmts, map);
}

/// The warnings of [`pointer_cut_offs`] for the accesses `stmts` (the
/// native engine's cut-offs too), one per position.
pub fn warn_pointer_cut_offs(
    (show, color): (bool, bool),
    report: &mut VerifyReport,
    stmts: &[usize],
    map: &TranslationMap,
) {
    let mut seen = std::collections::BTreeSet::new();
    for &stmt in stmts {
        let Some(origin) = map.origins.get(stmt) else {
            continue;
        };
        if !seen.insert((origin.file.clone(), origin.line, origin.column)) {
            continue;
        }
        let warning = Diagnostic {
            message: "an execution reaches this access with a pointer outside the objects it may \
                      point to (or past the part of a heap block malloc was asked for) and is cut \
                      off there; what it does after was not checked"
                .to_string(),
            file: PathBuf::from(&origin.file),
            line: origin.line,
            column: origin.column,
            length: u32::try_from(origin.text.len()).unwrap_or(1).max(1),
            label: "cuts executions off".to_string(),
            help: Some(
                "--pointer-check reports such an access as a violation (a pointer outside its object)"
                    .to_string(),
            ),
            severity: Severity::Warning,
        };
        report.warnings.push(WarningReport::from(&warning));
        if show {
            eprint!("{}", warning.render(color));
        }
    }
}

/// Why no execution reaches the end of `main`: the allocations the run
/// found cutting executions off, as warnings of `report` too (and on
/// stderr when `show`), or the bounds that may.
fn unreached_reason(
    (show, color): (bool, bool),
    report: &mut VerifyReport,
    statuses: &[(String, bool)],
    map: &TranslationMap,
) -> String {
    let block = report.bounds.heap_block.unwrap_or(0);
    let mut reasons = Vec::new();
    let mut warnings = Vec::new();
    for (description, reached) in statuses {
        if !reached {
            continue;
        }
        let (stmt, why, help) = if let Some(stmt) = description.strip_prefix(REACH_BLOCK_SIZE) {
            (
                stmt,
                format!("asks for more than a heap block holds ({block} scalars)"),
                "give --heap-block with at least the scalars it asks for",
            )
        } else if let Some(stmt) = description.strip_prefix(REACH_BLOCKS_USED) {
            (
                stmt,
                format!("finds all {} heap blocks used", report.bounds.nmalloc),
                "give a larger --nmalloc",
            )
        } else {
            continue;
        };
        let Some(origin) = stmt
            .parse::<usize>()
            .ok()
            .and_then(|stmt| map.origins.get(stmt))
        else {
            continue;
        };
        let name = Path::new(&origin.file)
            .file_name()
            .map_or(origin.file.clone(), |name| {
                name.to_string_lossy().into_owned()
            });
        let place = format!("{name}:{}", origin.line);
        reasons.push(format!(
            "the allocation at {place} {why} in the executions that get there, and they end there"
        ));
        warnings.push(Diagnostic {
            message: format!(
                "no execution reaches the end of `main` within the bounds: this allocation {why} \
                 in the executions that get there, which end there; nothing after it was checked"
            ),
            file: PathBuf::from(&origin.file),
            line: origin.line,
            column: origin.column,
            length: u32::try_from(origin.text.len()).unwrap_or(1).max(1),
            label: "cuts executions off".to_string(),
            help: Some(help.to_string()),
            severity: Severity::Warning,
        });
    }
    report
        .warnings
        .extend(warnings.iter().map(WarningReport::from));
    if show {
        for warning in &warnings {
            eprint!("{}", warning.render(color));
        }
    }
    let pointer_cut = statuses
        .iter()
        .any(|(description, reached)| *reached && description.starts_with(REACH_POINTER_CUT));
    if reasons.is_empty() && pointer_cut {
        "an access through a pointer outside its objects cuts them off (see the warning; \
         --pointer-check reports it)"
            .to_string()
    } else if reasons.is_empty() {
        "the bounds cut every execution off before it (more loop iterations, rounds or heap may be needed: \
         --unwind, --rounds, --nmalloc, --heap-block)"
            .to_string()
    } else {
        reasons.join("; ")
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
