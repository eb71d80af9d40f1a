//! Frontend: preprocesses a pthreads C file (`gcc -E` with lazysma's own
//! headers first on the include path), parses it with `lang-c` and lowers
//! the AST to the [`crate::ir`] program, refusing unsupported constructs
//! with a [`Diagnostic`].

use crate::diagnostics::Diagnostic;
use crate::ir::Program;
use crate::options::TranslateOptions;
use std::path::{Path, PathBuf};

/// Why a file could not be turned into a program.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    #[error("cannot read {path}: {source}")]
    Unreadable { path: PathBuf, source: std::io::Error },
    #[error("the C preprocessor failed on {path}:\n{stderr}")]
    Preprocessor { path: PathBuf, stderr: String },
    /// A problem located in the user's source.
    #[error("{}", .0.message)]
    Source(Box<Diagnostic>),
}

/// Preprocesses, parses and lowers `path`.
pub fn load(path: &Path, options: &TranslateOptions) -> Result<Program, FrontendError> {
    let _ = options;
    Err(FrontendError::Preprocessor { path: path.to_path_buf(), stderr: "frontend not yet implemented".into() })
}
