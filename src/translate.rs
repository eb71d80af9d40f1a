//! The translation pipeline: frontend, passes, printer.

use crate::diagnostics::Diagnostic;
use crate::frontend::{self, FrontendError};
use crate::options::TranslateOptions;
use crate::passes::{self, TranslationMap};
use std::path::Path;

/// A translated program and its map back to the source.
#[derive(Debug, Clone)]
pub struct Translation {
    pub c_source: String,
    pub map: TranslationMap,
    /// Scalars per heap block as the translator set them (`None`: no heap).
    pub heap_block: Option<u32>,
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
    let heap_block = sequential.memory.heap_block();
    Ok(Translation { c_source, map: sequential.map, heap_block })
}
