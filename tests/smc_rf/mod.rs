//! Test support for RF-SMC: running a C file through the library (frontend,
//! passes, native engine) under a memory model, with RF-SMC alone or the
//! explicit search alone.

#![allow(dead_code)]

use lazysma::options::{SmaImplementation, TranslateOptions};
use lazysma::smc::{self, Answer, Limits, NoAnswer, RfNoAnswer};
use std::path::Path;

/// The SMA of each memory model's name.
pub fn implementation(model: &str) -> SmaImplementation {
    match model {
        "sc" => SmaImplementation::Sc,
        "tso" => SmaImplementation::TsoReference,
        _ => SmaImplementation::PsoReference,
    }
}

/// The program at `path` prepared for the native engine.
pub fn prepare(path: &Path, model: &str, unwind: u32) -> smc::Prepared {
    let mut options = TranslateOptions {
        sma: implementation(model),
        ..TranslateOptions::default()
    };
    options.bounds.unwind = unwind;
    let program = lazysma::frontend::load(path, &options)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    smc::prepare(&program, &options).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

pub fn limits() -> Limits {
    Limits {
        max_states: smc::MAX_STATES,
        stop: None,
        deadline: None,
        robustness: false,
        deadlocks: false,
        ..Limits::default()
    }
}

/// A verdict: `Some(true)` safe, `Some(false)` a violation, `None` no answer.
pub fn verdict(answer: &Result<Answer, NoAnswer>) -> Option<bool> {
    match answer {
        Ok(Answer::Safe(..)) => Some(true),
        Ok(Answer::Violation { .. }) => Some(false),
        Err(_) => None,
    }
}

/// RF-SMC alone: its answer, or a description of why it had none.
pub fn reads_from(prepared: &smc::Prepared) -> Result<Answer, String> {
    smc::check_reads_from(prepared, &limits()).map_err(|error| match error {
        RfNoAnswer::Fallback(why, detail) => format!("falls back ({why}: {detail})"),
        RfNoAnswer::Other(other) => other.to_string(),
    })
}

pub mod brute;
pub mod program;
