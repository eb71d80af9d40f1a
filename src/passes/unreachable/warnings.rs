//! The warnings about the bounds that cut code off: each loop bound or heap
//! bound that cuts every path to code that matters, or to the end of a
//! thread that is joined (that code is never checked, whatever the
//! verdict), with the `--unwindset` that would reach it.

use super::{Cut, Reachability};
use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::{FunctionId, OriginId, Program, StmtKind};
use crate::options::TranslateOptions;
use crate::passes::walk::for_each_stmt;
use crate::passes::{diagnostic_at, loop_depth};

/// The warnings for what removing the unreachable code of `function` found:
/// each loop bound that cuts code that matters, and, when the program joins
/// threads, the one that keeps a thread function from ending.
pub fn warnings(
    program: &Program,
    options: &TranslateOptions,
    function: FunctionId,
    found: &Reachability,
) -> Vec<Diagnostic> {
    let never_ends = found
        .end_cut_by
        .filter(|_| function != program.main && joins_threads(program));
    let mut warnings: Vec<Diagnostic> = found
        .cuts
        .iter()
        .map(|cut| {
            let ends_thread = never_ends == Some(cut.cut);
            bound_cut_warning(
                program,
                options,
                cut.cut,
                Some(cut.first_unreached),
                ends_thread,
            )
        })
        .collect();
    if let Some(cut) = never_ends
        && !found.cuts.iter().any(|found| found.cut == cut)
    {
        warnings.push(bound_cut_warning(program, options, cut, None, true));
    }
    warnings
}

/// How `--unwindset` names the line `origin` starts on: `71` in the input
/// file, `queue.h:12` in an included one (by its file name).
fn unwindset_name(program: &Program, origin: OriginId) -> String {
    match crate::passes::source_line(program, origin) {
        None => "LINE".to_string(),
        Some((_, line, true)) => line.to_string(),
        Some((file, line, false)) => {
            let name = std::path::Path::new(file)
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or(file);
            format!("{name}:{line}")
        }
    }
}

/// The warning for a bound that cuts every execution: before
/// `first_unreached`, code that matters, and, when `ends_thread`, before the
/// end of a thread function, so that joining the thread never returns.
fn bound_cut_warning(
    program: &Program,
    options: &TranslateOptions,
    cut: Cut,
    first_unreached: Option<OriginId>,
    ends_thread: bool,
) -> Diagnostic {
    let bound = program.origins.get(cut.origin());
    let unreached = first_unreached
        .and_then(|origin| program.origins.get(origin))
        .map(|first| match bound {
            Some(bound) if bound.file == first.file => {
                format!("line {} (`{}`)", first.line, first.text)
            }
            _ => format!("{}:{} (`{}`)", first.file, first.line, first.text),
        });
    let lost = match (unreached, ends_thread) {
        (Some(unreached), false) => format!("nothing from {unreached} on is checked"),
        (Some(unreached), true) => {
            format!(
                "nothing from {unreached} on is checked, and the thread never ends, so nothing after a pthread_join on it is checked either"
            )
        }
        (None, _) => {
            "the thread never ends, so nothing after a pthread_join on it is checked".to_string()
        }
    };
    let (message, label, remedy) = match cut {
        Cut::LoopBound(origin) => {
            let unwind = loop_depth(program, &options.bounds, origin);
            let line = unwindset_name(program, origin);
            (
                format!("no execution gets past this loop within its unwinding bound of {unwind}"),
                format!("every path through it needs more than {unwind} iterations"),
                format!(
                    "unroll this loop as often as it runs: --unwindset {line}:N (N its iterations), or a larger --unwind"
                ),
            )
        }
        Cut::HeapBlocks(_) => {
            let blocks = options.bounds.nmalloc;
            (
                format!("no execution gets past this allocation within --nmalloc {blocks}"),
                format!(
                    "every path to it has taken {blocks} heap block{}, in this thread, the threads it joined or its creators before it started",
                    if blocks == 1 { "" } else { "s" }
                ),
                format!(
                    "raise --nmalloc to the number of allocations an execution makes (at least {}), or give --nmalloc auto for as many as the threads can take",
                    blocks + 1
                ),
            )
        }
        Cut::HeapBlocksJoined { allocations, .. } => {
            let blocks = options.bounds.nmalloc;
            (
                format!("no execution gets past this join within --nmalloc {blocks}"),
                format!(
                    "every path to it has taken {allocations} heap blocks, in this thread, the threads it joined or its creators before it started"
                ),
                format!(
                    "raise --nmalloc to the number of allocations an execution makes (at least {allocations}), or give --nmalloc auto for as many as the threads can take"
                ),
            )
        }
        Cut::HeapBlockSize { scalars, .. } => {
            let block = options.bounds.heap_block.unwrap_or_default();
            (
                format!(
                    "this allocation does not fit a heap block of --heap-block {block} scalars"
                ),
                format!("asks for {scalars} scalars on every path"),
                format!(
                    "raise --heap-block to at least {scalars}, or leave it out (the default fits every allocation of constant size)"
                ),
            )
        }
    };
    let mut warning = *diagnostic_at(
        program,
        cut.origin(),
        message,
        label,
        Some(format!("{lost}, whatever the verdict; {remedy}")),
    );
    warning.severity = Severity::Warning;
    warning
}

/// Whether some function of `program` joins a thread.
fn joins_threads(program: &Program) -> bool {
    let mut joins = false;
    for function in &program.functions {
        for_each_stmt(&function.body, &mut |kind| {
            joins |= matches!(kind, StmtKind::ThreadJoin { .. })
        });
    }
    joins
}
