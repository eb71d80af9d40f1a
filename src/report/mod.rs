//! The published report: the verify report as data, the JSON contract
//! ([`document`], with the violated [`property`] and the names of
//! [`kinds`], and the [`schema`] of facts internal types hold), its renderings as text
//! ([`text`]), JSON ([`json`]) and SARIF ([`sarif`]), the drawing of
//! the violating execution ([`graph`], `verify --graph`), and the
//! [`ReportFormat`] that chooses one. Nothing here decodes a
//! counterexample: `trace` builds the report that these modules print.

pub mod document;
pub mod graph;
pub mod json;
pub mod kinds;
pub mod property;
pub mod repro;
pub mod sarif;
pub mod schema;
pub mod text;

/// How `verify` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// For people: the witness table, the diagnosis, warnings on stderr.
    Text,
    /// One JSON document (the shape is in docs/reports.md).
    Json,
    /// A SARIF 2.1.0 log, for code scanning in CI.
    Sarif,
}

impl ReportFormat {
    /// Whether the report is one document on stdout for a program to read:
    /// nothing else is printed.
    pub fn is_document(self) -> bool {
        self != ReportFormat::Text
    }
}
