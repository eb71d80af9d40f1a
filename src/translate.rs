//! The translation pipeline: frontend, passes, printer.

use crate::diagnostics::Diagnostic;
use crate::frontend::{self, FrontendError};
use crate::ir::Program;
use crate::options::{BoundChoice, Bounds, LoopLine, SmaImplementation, TranslateOptions};
use crate::passes::heap_needs::HeapNeeds;
use crate::passes::sufficient::SufficientBounds;
use crate::passes::{self, SequentialProgram, TranslationMap};
use std::path::Path;
use std::sync::Arc;

/// A translated program and its map back to the source.
#[derive(Debug, Clone)]
pub struct Translation {
    pub c_source: String,
    pub map: TranslationMap,
    /// The bounds the translation used (with the heap block size it chose,
    /// and `auto` bounds replaced by their values).
    pub bounds: Bounds,
    /// The `--qsize` and `--maxclock` that cut off no execution of this
    /// program (none under SC, or when its stores cannot be counted).
    pub sufficient: Option<SufficientBounds>,
    /// The heap blocks the threads can take (none when a jump goes
    /// backward), with whether that is all the heap any execution needs.
    pub heap_needs: Option<HeapNeeds>,
    /// Warnings about the program (code no execution within the bounds
    /// reaches), to show beside the result.
    pub warnings: Vec<Diagnostic>,
    /// Whether executions that store a value shared memory cannot hold are
    /// cut off: `--bitwidth` is narrower than a scalar of shared memory
    /// ([`Program::shared_bits`], [`Program::cuts_wide_values`]).
    pub cuts_wide_values: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    #[error("{}", .0.message)]
    Unsupported(Box<Diagnostic>),
    #[error(
        "--{bound} auto: the {counted} of this program cannot be counted (a jump goes backward), so no {bound} is known to cut off nothing; give a number instead"
    )]
    NoSufficientBound {
        bound: &'static str,
        counted: &'static str,
    },
}

impl TranslateError {
    /// The located diagnostic of input that cannot be translated, if the
    /// translator located the problem.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            TranslateError::Frontend(FrontendError::Source(diagnostic))
            | TranslateError::Unsupported(diagnostic) => Some(diagnostic),
            _ => None,
        }
    }

    /// Whether the environment failed (the preprocessor cannot run), not
    /// the input: exit 2 like a missing CBMC, not 1.
    pub fn is_environment_failure(&self) -> bool {
        matches!(
            self,
            TranslateError::Frontend(FrontendError::Environment(_))
        )
    }
}

/// Translates the C file at `path` into a sequential C program.
pub fn translate(path: &Path, options: &TranslateOptions) -> Result<Translation, TranslateError> {
    translate_loaded(&frontend::load(path, options)?, options)
}

/// Translates a program the frontend loaded with `options`: the same
/// program serves every SMA, as the frontend reads only the preprocessor
/// options and the bounds.
pub fn translate_loaded(
    program: &Program,
    options: &TranslateOptions,
) -> Result<Translation, TranslateError> {
    translate_sharing(program, options, |_, _| ())
}

/// [`translate_loaded`], handing the sequential program the passes made
/// (or why they refused the program) to `share` before the printer runs:
/// `verify` gives it to the native engine, so that the passes run once
/// for both engines. `share` gets the options the passes ran with.
pub fn translate_sharing(
    program: &Program,
    options: &TranslateOptions,
    share: impl FnOnce(Result<Arc<SequentialProgram>, &Diagnostic>, &TranslateOptions),
) -> Result<Translation, TranslateError> {
    let options = &with_lowered_width(program, options);
    let sequential = match passes::sequentialise(program, options) {
        Ok(sequential) => Arc::new(sequential),
        Err(diagnostic) => {
            share(Err(&diagnostic), options);
            return Err(TranslateError::Unsupported(diagnostic));
        }
    };
    share(Ok(Arc::clone(&sequential)), options);
    let sufficient = sequential.sufficient;
    let heap_needs = sequential.memory.heap_needs;
    let options = &with_auto_bounds(options, sufficient, heap_needs)?;
    let printed = crate::printer::print_with_properties(&sequential, options);
    let bounds = sequential.bounds(options);
    let cuts_wide_values = program.cuts_wide_values || bounds.bitwidth < program.shared_bits;
    // moved out unless the native engine still holds the program
    let (map, warnings) = match Arc::try_unwrap(sequential) {
        Ok(sequential) => (sequential.map, sequential.warnings),
        Err(shared) => (shared.map.clone(), shared.warnings.clone()),
    };
    Ok(Translation {
        c_source: printed.c_source,
        map: TranslationMap {
            properties: printed.properties,
            ..map
        },
        bounds,
        sufficient,
        heap_needs,
        warnings,
        cuts_wide_values,
    })
}

/// `options` with the bounds asked for as `auto` set to the sufficient
/// ones. Under SC, which has no buffers and no clock, `auto` keeps the
/// default `--qsize` and `--maxclock`.
fn with_auto_bounds(
    options: &TranslateOptions,
    sufficient: Option<SufficientBounds>,
    heap_needs: Option<HeapNeeds>,
) -> Result<TranslateOptions, TranslateError> {
    let mut resolved = options.clone();
    let auto = options.auto_bounds;
    let blocks = heap_needs.map(|needs| Some(needs.blocks));
    resolved.bounds.nmalloc = choose_bound(
        auto.nmalloc,
        options.bounds.nmalloc,
        blocks,
        ("nmalloc", "allocations"),
    )?;
    if options.sma == SmaImplementation::Sc {
        return Ok(resolved);
    }
    let qsize = sufficient.map(|sufficient| Some(sufficient.qsize));
    resolved.bounds.qsize =
        choose_bound(auto.qsize, options.bounds.qsize, qsize, ("qsize", "stores"))?;
    let maxclock = sufficient.map(|sufficient| sufficient.maxclock);
    resolved.bounds.maxclock = choose_bound(
        auto.maxclock,
        options.bounds.maxclock,
        maxclock,
        ("maxclock", "stores"),
    )?;
    Ok(resolved)
}

/// `options` with shared memory as wide as the frontend lowered `program`
/// for: `--bitwidth`, or wider for a wide scalar (`double`, `long`) where the option was
/// not given.
///
/// The loops the program bounds itself with `__VERIFIER_loop_bound(n)` are
/// added to `--unwindset` (a line `--unwindset` names keeps its depth).
pub(crate) fn with_lowered_width(
    program: &Program,
    options: &TranslateOptions,
) -> TranslateOptions {
    let bitwidth = options.bounds.bitwidth.max(program.value_bits);
    let mut bounds = Bounds {
        bitwidth,
        ..options.bounds.clone()
    };
    for (line, depth) in source_loop_bounds(program) {
        if !bounds.unwindset.contains_key(&line) {
            bounds.unwindset.insert(line.clone(), depth);
            bounds.loop_bound_lines.insert(line);
        }
    }
    TranslateOptions {
        bounds,
        ..options.clone()
    }
}

/// The lines of the loops that `__VERIFIER_loop_bound(n)` bounds, as
/// `--unwindset` names them (a line of an included file with its path),
/// with their depths.
fn source_loop_bounds(program: &Program) -> Vec<(LoopLine, u32)> {
    let input = program
        .functions
        .get(program.main)
        .and_then(|main| program.origins.get(main.origin))
        .map(|origin| origin.file.as_str());
    program
        .loop_bounds
        .iter()
        .filter_map(|&(origin, depth)| {
            let origin = program.origins.get(origin)?;
            let file = (Some(origin.file.as_str()) != input).then(|| origin.file.clone());
            Some((
                LoopLine {
                    file,
                    line: origin.line,
                },
                depth,
            ))
        })
        .collect()
}

/// The value of a bound chosen by `choice`, given the number `given` and
/// the program's sufficient value (`None` when what the bound counts
/// cannot be counted, `Some(None)` when the SMA has no such bound, as the
/// reference SMAs have no clock); the error names the bound and what it
/// counts.
fn choose_bound(
    choice: BoundChoice,
    given: u32,
    sufficient: Option<Option<u32>>,
    (bound, counted): (&'static str, &'static str),
) -> Result<u32, TranslateError> {
    Ok(match (choice, sufficient) {
        (BoundChoice::Given, _) | (_, Some(None)) => given,
        (BoundChoice::Sufficient, None) => {
            return Err(TranslateError::NoSufficientBound { bound, counted });
        }
        (BoundChoice::Sufficient, Some(Some(value))) => value,
        (BoundChoice::SufficientAtMost, None) => given,
        (BoundChoice::SufficientAtMost, Some(Some(value))) => value.min(given),
    })
}
