//! Frontend: preprocesses a pthreads C file (`gcc -E` with lazysma's own
//! headers first on the include path), parses it with `lang-c` and lowers
//! the AST to the [`crate::ir`] program, refusing unsupported constructs
//! with a [`Diagnostic`].

mod analysis;
mod c_types;
mod calls;
mod concurrency;
mod expr;
mod globals;
mod lower;
mod program;
mod source;
mod stmt;
mod values;

use crate::diagnostics::Diagnostic;
use crate::ir::Program;
use crate::options::TranslateOptions;
use std::path::{Path, PathBuf};

pub use source::source_map::SourceMap;

/// Why a file could not be turned into a program.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    #[error("cannot read {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the C preprocessor failed on {path}:\n{stderr}")]
    Preprocessor { path: PathBuf, stderr: String },
    /// The preprocessor cannot run here (`gcc` missing, no temporary
    /// directory): the environment's failure, not the input's.
    #[error("{0}")]
    Environment(String),
    /// A problem located in the user's source.
    #[error("{}", .0.message)]
    Source(Box<Diagnostic>),
}

/// Preprocesses, parses and lowers `path`.
pub fn load(path: &Path, options: &TranslateOptions) -> Result<Program, FrontendError> {
    let (text, check) = source::preprocess::preprocess_checked(path, options)?;
    let lowered = lower_preprocessed_with(&text, options);
    // a program the compiler rejects is not C, whatever the lowering made
    // of it: the compiler's words, before the lowering's
    check.finish()?;
    lowered.map_err(FrontendError::Source)
}

/// Runs only the preprocessor (with lazysma's headers) on `path`.
pub fn preprocess(path: &Path, options: &TranslateOptions) -> Result<String, FrontendError> {
    source::preprocess::preprocess(path, options)
}

/// Parses and lowers already preprocessed text (with `# line` markers).
pub fn lower_preprocessed(text: &str) -> Result<Program, Box<Diagnostic>> {
    lower_preprocessed_with(text, &TranslateOptions::default())
}

/// Parses and lowers preprocessed text under the given options (the loop
/// bound sizes variable-length arrays of thread handles).
pub fn lower_preprocessed_with(
    text: &str,
    options: &TranslateOptions,
) -> Result<Program, Box<Diagnostic>> {
    let (renamed, dollars) = source::dollar_names::DollarNames::rename(text);
    let mut program = lower_renamed(&renamed, options).map_err(|mut diagnostic| {
        diagnostic.message = dollars.restore(&diagnostic.message);
        diagnostic.label = dollars.restore(&diagnostic.label);
        diagnostic.help = diagnostic.help.map(|help| dollars.restore(&help));
        diagnostic
    })?;
    for origin in &mut program.origins {
        origin.text = dollars.restore(&origin.text);
    }
    program
        .locations
        .rename_all(&|name: &str| dollars.restore(name));
    for warning in &mut program.warnings {
        warning.message = dollars.restore(&warning.message);
    }
    Ok(program)
}

/// Parses and lowers preprocessed text whose identifiers have no `$`.
fn lower_renamed(text: &str, options: &TranslateOptions) -> Result<Program, Box<Diagnostic>> {
    let map = SourceMap::new(text);
    let config = lang_c::driver::Config::with_gcc();
    let parse = match lang_c::driver::parse_preprocessed(&config, text.to_string()) {
        Ok(parse) => parse,
        Err(error) => {
            let mut expected: Vec<&str> = error.expected.iter().copied().collect();
            expected.sort_unstable();
            let found = text
                .get(error.offset..)
                .and_then(|rest| rest.split_whitespace().next())
                .unwrap_or("end of file");
            let found: String = found.chars().take(20).collect();
            let label = if found.is_empty() {
                "unexpected end of file".to_string()
            } else {
                format!("unexpected `{found}`")
            };
            let help = (!expected.is_empty()).then(|| {
                format!(
                    "expected one of {}",
                    expected
                        .iter()
                        .take(12)
                        .map(|e| format!("`{e}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            });
            return Err(Box::new(map.diagnostic(
                error.offset,
                error.offset + found.len().max(1),
                "syntax error",
                label,
                help,
            )));
        }
    };
    program::lower_unit(&map, &parse.unit, options)
}
