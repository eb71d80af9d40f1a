//! The `lazysma verify` command: translate, run CBMC, decode and check the
//! counterexample natively, report.

use crate::exit;
use crate::options::TranslateOptions;
use crate::translate::TranslateError;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything `verify` was asked to do.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    pub file: PathBuf,
    pub options: TranslateOptions,
    pub cbmc: Option<PathBuf>,
    pub timeout: Option<Duration>,
    pub json: bool,
    pub native_check: bool,
    pub sat_solver: Option<String>,
    pub keep: Option<PathBuf>,
    pub color: bool,
}

/// Runs the whole verify pipeline and returns the exit code.
pub fn run(request: &VerifyRequest) -> u8 {
    let _ = request;
    eprintln!("error: verify is not implemented yet");
    exit::BACKEND_FAILURE
}

/// Whether two paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The message for a failed translation, with the source excerpt.
pub fn render_translate_error(error: &TranslateError, color: bool) -> String {
    match error {
        TranslateError::Frontend(crate::frontend::FrontendError::Source(diagnostic))
        | TranslateError::Unsupported(diagnostic) => diagnostic.render(color),
        other => format!("error: {other}\n"),
    }
}
