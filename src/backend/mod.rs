//! Backend: finds CBMC, detects its version, runs it on a sequential program
//! with `--json-ui --trace` under a time limit (beside an external DIMACS
//! SAT solver where CBMC cannot call one: `dimacs`), and parses the JSON
//! result into typed outcomes (never confusing success, failure, timeout,
//! out of memory and tool errors).
//!
//! ```no_run
//! use lazysma::backend::{Cbmc, Outcome, RunOptions};
//! use std::time::Duration;
//! # fn main() -> Result<(), lazysma::backend::BackendError> {
//! let cbmc = Cbmc::locate(None)?;
//! let options = RunOptions { timeout: Some(Duration::from_secs(60)), ..RunOptions::default() };
//! let run = cbmc.run("seq.c".as_ref(), &options, None)?;
//! if let Outcome::Violated { property, trace } = &run.outcome {
//!     println!("{} fails after {} steps", property.id, trace.steps.len());
//! }
//! # Ok(())
//! # }
//! ```

mod dimacs;
mod locate;
mod outcome;
mod output;
mod run;

pub use dimacs::{PROVER_DELAY, VERDICT_ONLY_DEFINE};
pub use locate::{CBMC_ENV, Cbmc, CbmcSource, CbmcVersion, INSTALL_HINT, MIN_VERSION};
pub use outcome::{ExitInfo, Outcome, ProverAnswer, decide, decide_with, exit_code};
pub use output::{
    Accessor, CbmcOutput, LhsPath, Message, MessageKind, OutputError, Property, PropertyStatus,
    SourceLocation, StepKind, Trace, TraceStep, TraceValue, integer_from_data,
    mentions_out_of_memory, parse_cbmc_output, parse_cbmc_output_with, parse_trace,
};
pub use run::{
    AUTO_SAT_SOLVER, Busy, CbmcRun, Hold, PROGRESS_INTERVAL, Phase, Progress, RunOptions,
    SatSolver, processors, report_while, tail,
};

use std::path::PathBuf;

/// Why CBMC could not be run at all (as opposed to a run that failed, which
/// is an [`Outcome::ToolError`]).
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("CBMC not found on PATH; {hint}")]
    NotFound { hint: &'static str },
    #[error("CBMC executable `{}` (from {}) not found or not executable; {hint}", path.display(), source_name(*origin))]
    NotExecutable {
        path: PathBuf,
        origin: CbmcSource,
        hint: &'static str,
    },
    #[error("could not read the version of `{}` (it printed `{output}`); is it CBMC?", path.display())]
    VersionUnreadable { path: PathBuf, output: String },
    #[error("`{}` is CBMC {version}, lazysma needs >= {MIN_VERSION}; {INSTALL_HINT}", path.display())]
    VersionTooOld { path: PathBuf, version: CbmcVersion },
    #[error("CBMC {version} does not accept {option}")]
    UnsupportedOption {
        option: String,
        version: CbmcVersion,
    },
    #[error("a memory limit needs the `prlimit` program (Debian package util-linux)")]
    MemoryLimitUnavailable,
    #[error("could not start `{}`: {error}", path.display())]
    Spawn {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("lost track of the process `{}`: {error}", path.display())]
    Wait {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot create a temporary directory for the solver's formula: {0}")]
    TemporaryFiles(std::io::Error),
}

fn source_name(source: CbmcSource) -> &'static str {
    match source {
        CbmcSource::CommandLine => "--cbmc",
        CbmcSource::Environment => "LAZYSMA_CBMC",
        CbmcSource::SearchPath => "PATH",
    }
}
