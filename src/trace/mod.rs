//! Trace: decodes the SMA event records of a counterexample into an
//! execution (events per thread, reads-from) of the original program, and
//! renders witnesses against the source.
//!
//! [`explain`] is the one entry from `verify`: [`records`] (trace
//! assignments -> records) -> [`execution`] (records -> execution with
//! synthetic create/join events) -> native check and [`diagnosis`] (SC or
//! the reordering the bug needs, fences that forbid it) ->
//! [`report_builder`] (rows against the source, fences placed at the
//! [`statements`] of the source, the violated [`property`] from the
//! translation's property table) into the [`report`] that
//! [`render_text`] / [`render_json`] / [`render_sarif`] print.

pub mod diagnosis;
pub mod execution;
pub mod explain;
pub mod property;
pub mod records;
pub mod render_json;
pub mod render_sarif;
pub mod render_text;
pub mod report;
pub mod report_builder;
pub mod statements;
