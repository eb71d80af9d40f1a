//! The report's own shapes for facts that internal types hold: the
//! translation's bounds, the SMA and the sufficient bounds are serialised
//! through these, so that the JSON contract (`docs/reports.md`) changes only
//! here, never because an option or a pass changed its type.

use crate::options::{Bounds, LoopLine, SmaImplementation};
use crate::passes::properties::PropertyKind;
use crate::passes::sufficient::SufficientBounds;
use serde::{Serialize, Serializer};
use std::collections::{BTreeMap, BTreeSet};

/// The report's `bounds`.
#[derive(Serialize)]
struct BoundsReport<'a> {
    rounds: u32,
    unwind: u32,
    qsize: u32,
    maxclock: u32,
    bitwidth: u32,
    nmalloc: u32,
    /// `null`: chosen by the translator (its choice is in the header of
    /// the translated file).
    heap_block: Option<u32>,
    /// `--unwindset`: `"71"` or `"queue.h:12"` to the loop's depth, in the
    /// order of the loop lines.
    #[serde(serialize_with = "loop_depths")]
    unwindset: &'a BTreeMap<LoopLine, u32>,
    /// The lines whose depth `__VERIFIER_loop_bound(n)` gave; left out
    /// when there is none.
    #[serde(
        serialize_with = "loop_lines",
        skip_serializing_if = "BTreeSet::is_empty"
    )]
    loop_bound_lines: &'a BTreeSet<LoopLine>,
}

/// The report's `sufficient_bounds`.
#[derive(Serialize)]
struct SufficientBoundsReport {
    qsize: u32,
    /// `null` for the SMAs without a clock.
    maxclock: Option<u32>,
}

/// Serialises `bounds` as the report's `bounds`.
pub fn bounds<S: Serializer>(bounds: &Bounds, serializer: S) -> Result<S::Ok, S::Error> {
    BoundsReport {
        rounds: bounds.rounds,
        unwind: bounds.unwind,
        qsize: bounds.qsize,
        maxclock: bounds.maxclock,
        bitwidth: bounds.bitwidth,
        nmalloc: bounds.nmalloc,
        heap_block: bounds.heap_block,
        unwindset: &bounds.unwindset,
        loop_bound_lines: &bounds.loop_bound_lines,
    }
    .serialize(serializer)
}

/// Serialises `sma` as its `--sma` name (`etso`, `tso_ref`).
pub fn sma<S: Serializer>(sma: &SmaImplementation, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(sma.name())
}

/// Serialises the sufficient bounds, `null` when none is known.
pub fn sufficient_bounds<S: Serializer>(
    sufficient: &Option<SufficientBounds>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    sufficient
        .map(|sufficient| SufficientBoundsReport {
            qsize: sufficient.qsize,
            maxclock: sufficient.maxclock,
        })
        .serialize(serializer)
}

fn loop_depths<S: Serializer>(
    depths: &&BTreeMap<LoopLine, u32>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(depths.iter().map(|(line, depth)| (line.to_string(), depth)))
}

fn loop_lines<S: Serializer>(
    lines: &&BTreeSet<LoopLine>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(lines.iter().map(LoopLine::to_string))
}

/// Serialises a property's kind as the report names it (`assertion`,
/// `array-index-out-of-bounds`, ...; `docs/reports.md`).
pub fn property_kind<S: Serializer>(kind: &PropertyKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(property_kind_name(*kind))
}

/// The report's name of a property kind.
pub fn property_kind_name(kind: PropertyKind) -> &'static str {
    match kind {
        PropertyKind::Assertion => "assertion",
        PropertyKind::ArrayIndexOutOfBounds => "array-index-out-of-bounds",
        PropertyKind::NullDereference => "null-dereference",
        PropertyKind::PointerOutsideObject => "pointer-outside-object",
        PropertyKind::UseAfterFree => "use-after-free",
        PropertyKind::DoubleFree => "double-free",
        PropertyKind::InvalidFree => "invalid-free",
        PropertyKind::UnlockNotHeld => "unlock-not-held",
        PropertyKind::DivisionByZero => "division-by-zero",
        PropertyKind::InvalidFunctionPointer => "invalid-function-pointer",
        PropertyKind::ErrorCall => "error-call",
        PropertyKind::UnwindingAssertion => "unwinding-assertion",
        PropertyKind::NotRobust => "not-robust",
        PropertyKind::Deadlock => "deadlock",
        PropertyKind::Liveness => "liveness",
    }
}
