//! Diagnostics about the user's program: file:line:column, the source
//! excerpt, what is wrong and what to do, rendered with codespan-reporting.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use std::path::PathBuf;

/// Whether a diagnostic stops the translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The program cannot be translated.
    Error,
    /// The translation goes on, but the user must know (e.g. code that no
    /// execution within the bounds reaches).
    Warning,
}

/// One error or warning about the input program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong, e.g. "recursion is not supported".
    pub message: String,
    /// The original source file (not the preprocessed text).
    pub file: PathBuf,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// Length in characters of the offending text on that line (at least 1).
    pub length: u32,
    /// Short label under the excerpt, e.g. "`fib` calls itself here".
    pub label: String,
    /// What to do about it.
    pub help: Option<String>,
    pub severity: Severity,
}

impl Diagnostic {
    /// Renders the diagnostic; the source line is read back from the file.
    pub fn render(&self, color: bool) -> String {
        let source = std::fs::read_to_string(&self.file).unwrap_or_default();
        let name = self.file.display().to_string();
        let file = SimpleFile::new(name.clone(), source.as_str());
        let report = match self.severity {
            Severity::Error => Report::error(),
            Severity::Warning => Report::warning(),
        };
        let mut report = report.with_message(&self.message);
        match byte_range(&source, self.line, self.column, self.length) {
            Some(range) => {
                report =
                    report.with_labels(vec![Label::primary((), range).with_message(&self.label)]);
            }
            None => {
                report =
                    report.with_notes(vec![format!("in {}:{}:{}", name, self.line, self.column)]);
            }
        }
        if let Some(help) = &self.help {
            report = report.with_notes(vec![format!("help: {help}")]);
        }
        let mut buffer = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        let config = term::Config::default();
        if term::emit_to_write_style(&mut buffer, &config, &file, &report).is_err() {
            let severity = match self.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            return format!(
                "{severity}: {} ({}:{}:{})\n",
                self.message, name, self.line, self.column
            );
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }
}

/// Byte range of `length` characters at 1-based `line`:`column` in `source`.
fn byte_range(source: &str, line: u32, column: u32, length: u32) -> Option<std::ops::Range<usize>> {
    if line == 0 {
        return None;
    }
    let mut offset = 0usize;
    for (index, text) in source.split_inclusive('\n').enumerate() {
        if index + 1 == line as usize {
            let trimmed = text.trim_end_matches(['\n', '\r']);
            let start_char = column.saturating_sub(1) as usize;
            let start = trimmed
                .char_indices()
                .nth(start_char)
                .map(|(i, _)| i)
                .unwrap_or(trimmed.len());
            let end = trimmed[start..]
                .char_indices()
                .nth(length.max(1) as usize)
                .map(|(i, _)| start + i)
                .unwrap_or(trimmed.len());
            return Some(offset + start..offset + end.max(start));
        }
        offset += text.len();
    }
    None
}
