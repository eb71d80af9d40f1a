//! Why a program is outside the fragment the parameterised check decides,
//! at the statement to blame: a located diagnostic, exit 1.

use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::OriginId;
use crate::passes::SequentialProgram;
use std::path::PathBuf;

/// A construct outside the fragment, or a limit of the analysis.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}")]
pub struct Refusal {
    /// What is wrong, in one sentence.
    pub what: String,
    /// The statement nearest to it, if known.
    pub origin: Option<OriginId>,
    /// What to do about it.
    pub help: String,
}

impl Refusal {
    pub fn new(what: impl Into<String>, origin: Option<OriginId>, help: impl Into<String>) -> Self {
        Refusal {
            what: what.into(),
            origin,
            help: help.into(),
        }
    }

    /// The located diagnostic of the refusal (the input file, line 0, when
    /// no statement is known).
    pub fn diagnostic(&self, program: &SequentialProgram, input: &std::path::Path) -> Diagnostic {
        let origin = self
            .origin
            .and_then(|origin| program.map.origins.get(origin));
        let (file, line, column, length) = match origin {
            Some(origin) => (
                PathBuf::from(&origin.file),
                origin.line,
                origin.column,
                u32::try_from(origin.text.chars().count().max(1)).unwrap_or(1),
            ),
            None => (input.to_path_buf(), 0, 0, 1),
        };
        Diagnostic {
            message: format!(
                "the parameterised check does not decide this program: {}",
                self.what
            ),
            file,
            line,
            column,
            length,
            label: "outside the fragment".to_string(),
            help: Some(self.help.clone()),
            severity: Severity::Error,
        }
    }
}
