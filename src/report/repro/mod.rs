//! Reproductions of a violation outside lazysma, from the report's typed
//! diagnosis: `verify --repro FILE.c`, a standalone C stress test that
//! shows the weak outcome on real hardware (and, with `-DWITH_FIX`, the
//! advised fences forbidding it), and `verify --litmus FILE.litmus`, the
//! same cycle as a herd C litmus test. What belongs here: the reduction
//! of the happens-before cycle to per-thread accesses (`cycle_program`),
//! its renderings (`c_program`, `litmus`), which hardware shows it
//! (`hardware`), and the writing of the requested files. Nothing here
//! reads a rendered report back.

pub mod c_program;
pub mod cycle_program;
pub mod hardware;
pub mod litmus;

use crate::exit;
use crate::report::document::VerifyReport;
use cycle_program::CycleProgram;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The files `verify --repro` and `--litmus` ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReproRequest {
    /// `--repro FILE.c`: the C stress test.
    pub c_program: Option<PathBuf>,
    /// `--litmus FILE.litmus`: the herd C litmus test.
    pub litmus: Option<PathBuf>,
}

/// Why a requested file was not written.
#[derive(Debug, Error)]
pub enum ReproError {
    #[error("the output {0} is the verified program; refusing to overwrite it")]
    OverwritesInput(PathBuf),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl ReproError {
    /// The documented exit code of the failure: 1 for an output that is
    /// the input, 2 for one that cannot be written.
    pub fn exit_code(&self) -> u8 {
        match self {
            ReproError::OverwritesInput(_) => exit::BAD_INPUT,
            ReproError::Write { .. } => exit::BACKEND_FAILURE,
        }
    }
}

/// Writes the files `request` asks for from `report`, atomically. When the
/// report has no violation with a happens-before cycle of loads and
/// stores, writes none and says why in one line on standard error.
pub fn write_requested(request: &ReproRequest, report: &VerifyReport) -> Result<(), ReproError> {
    let outputs: Vec<&PathBuf> = [&request.c_program, &request.litmus]
        .into_iter()
        .flatten()
        .collect();
    if outputs.is_empty() {
        return Ok(());
    }
    for output in &outputs {
        if same_file(output, Path::new(&report.file)) {
            return Err(ReproError::OverwritesInput((*output).clone()));
        }
    }
    let program = match CycleProgram::from_report(report) {
        Ok(program) => program,
        Err(reason) => {
            crate::output::eprintln(&format!("note: no reproduction written: {reason}"));
            return Ok(());
        }
    };
    if let Some(path) = &request.c_program {
        write(path, &c_program::render(&program, &file_name(path)))?;
    }
    if let Some(path) = &request.litmus {
        write(path, &litmus::render(&program, &file_stem(path)))?;
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), ReproError> {
    crate::output::write_atomically(path, text.as_bytes()).map_err(|source| ReproError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The name of `path` without its folders (`repro.c`).
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || "repro.c".to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// The name of `path` without its folders and extension (`sb`).
fn file_stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || "repro".to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}
