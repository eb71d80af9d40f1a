//! The translation pipeline: frontend, passes, printer.

use crate::diagnostics::Diagnostic;
use crate::frontend::{self, FrontendError};
use crate::options::{Bounds, TranslateOptions};
use crate::passes::{self, TranslationMap};
use std::path::Path;

/// A translated program and its map back to the source.
#[derive(Debug, Clone)]
pub struct Translation {
    pub c_source: String,
    pub map: TranslationMap,
    /// The bounds the translation used (with the heap block size it chose).
    pub bounds: Bounds,
    /// Warnings about the program (code no execution within the bounds
    /// reaches), to show beside the result.
    pub warnings: Vec<Diagnostic>,
}

#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    #[error("{}", .0.message)]
    Unsupported(Box<Diagnostic>),
}

/// Translates the C file at `path` into a sequential C program.
pub fn translate(path: &Path, options: &TranslateOptions) -> Result<Translation, TranslateError> {
    let program = frontend::load(path, options)?;
    let sequential = passes::sequentialise(&program, options).map_err(TranslateError::Unsupported)?;
    let c_source = crate::printer::print(&sequential, options);
    let bounds = sequential.bounds(options);
    Ok(Translation { c_source, map: sequential.map, bounds, warnings: sequential.warnings })
}
