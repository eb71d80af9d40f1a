//! Trace: decodes the SMA event records of a CBMC counterexample into an
//! execution (events per thread, reads-from) of the original program, and
//! renders witnesses against the source.
//!
//! Stages: [`records`] (trace assignments -> records) -> [`execution`]
//! (records -> execution with synthetic create/join events) -> native check
//! and [`diagnosis`] (SC or the reordering the bug needs, fences that forbid
//! it) -> [`report`] (rows against the source, fences placed at the
//! [`statements`] of the source) -> [`render_text`] / [`render_json`] /
//! [`render_sarif`].

pub mod diagnosis;
pub mod execution;
pub mod records;
pub mod render_json;
pub mod render_sarif;
pub mod render_text;
pub mod report;
pub mod statements;
