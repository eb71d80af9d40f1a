//! Trace: decodes the SMA event records of a counterexample into an
//! execution (events per thread, reads-from) of the original program, and
//! renders witnesses against the source.
//!
//! [`explain`] is the one entry from `verify`: [`records`] (trace
//! assignments -> records) -> [`execution`] (records -> execution with
//! synthetic create/join events) -> native check and [`diagnosis`] (SC or
//! the reordering the bug needs, fences that forbid it) ->
//! [`report_builder`] (rows against the source, fences placed at the
//! [`statements`] of the source, the violated
//! [`property`](crate::report::property) from the translation's property
//! table) into the [`report`](crate::report::document) that
//! [`render_text`](crate::report::text) /
//! [`render_json`](crate::report::json) /
//! [`render_sarif`](crate::report::sarif) print.

pub mod diagnosis;
pub mod execution;
pub mod explain;
pub mod records;
pub mod report_builder;
pub mod statements;
