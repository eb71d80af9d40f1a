//! The happens-before cycle of a diagnosis in source terms: which access
//! of which thread at which line, in cycle order, and why each comes
//! before the next.

use super::{Renderer, initial_value_note};
use crate::report::document::{CycleOperation, CycleStep};
use crate::trace::diagnosis::cycle::{CycleEdge, Relation};
use crate::trace::execution::EventKind;

impl Renderer<'_> {
    /// The cycle's edges as report steps.
    pub(super) fn cycle(&self, edges: &[CycleEdge]) -> Vec<CycleStep> {
        let index = self.event_index();
        edges
            .iter()
            .map(|edge| CycleStep {
                thread: self.thread_of(edge.event).name,
                access: self.access(edge.event),
                operation: self.operation(edge.event),
                value: self.access_value(edge.event),
                program_order: self.decoded.execution.event(edge.event).index,
                point: self.point(edge.event),
                then: relation_name(edge.relation),
                relaxed: edge.relaxed,
                event: index.get(&edge.event).copied(),
            })
            .collect()
    }

    /// What an event of a cycle is, for machines.
    fn operation(&self, event: usize) -> CycleOperation {
        match &self.decoded.events[event].kind {
            EventKind::Write { .. } => CycleOperation::Store,
            EventKind::Read { .. } | EventKind::CasRead { .. } => CycleOperation::Load,
            EventKind::Rmw { .. } => CycleOperation::Rmw,
            EventKind::Lock { .. } => CycleOperation::Lock,
            EventKind::Unlock { .. } => CycleOperation::Unlock,
            _ => CycleOperation::Other,
        }
    }

    /// The value an event of a cycle stores or reads (an RMW's new value),
    /// as a number.
    fn access_value(&self, event: usize) -> Option<String> {
        match &self.decoded.events[event].kind {
            EventKind::Write { location, value }
            | EventKind::Read {
                location, value, ..
            }
            | EventKind::CasRead {
                location, value, ..
            }
            | EventKind::Rmw {
                location,
                new: value,
                ..
            } => self.number(location, *value),
            _ => None,
        }
    }

    /// What an event of a cycle does, in plain words.
    fn access(&self, event: usize) -> String {
        match &self.decoded.events[event].kind {
            EventKind::Write { location, value } => {
                format!("stores {location} = {}", self.shown(location, *value))
            }
            EventKind::Read {
                location,
                value,
                from,
            }
            | EventKind::CasRead {
                location,
                value,
                from,
            } => {
                let initial = initial_value_note(*from);
                format!(
                    "reads {location} = {}{initial}",
                    self.shown(location, *value)
                )
            }
            EventKind::Rmw {
                location, old, new, ..
            } => {
                let old = old.map_or_else(
                    || "its initial value".to_string(),
                    |value| self.shown(location, value),
                );
                format!(
                    "atomically reads {location} = {old} and writes {}",
                    self.shown(location, *new)
                )
            }
            EventKind::Lock { mutex } => format!("locks {mutex}"),
            EventKind::Unlock { mutex } => format!("unlocks {mutex}"),
            EventKind::LockBusy { mutex } => format!("finds {mutex} locked"),
            EventKind::Spawn { child } => format!("creates {}", self.thread_name(*child)),
            EventKind::Started => "starts".to_string(),
            EventKind::Done => "finishes".to_string(),
            EventKind::Joined { joined } => format!("joins {}", self.thread_name(*joined)),
            EventKind::Fence
            | EventKind::StoreFence
            | EventKind::AtomicBegin
            | EventKind::AtomicEnd
            | EventKind::CreateDrain
            | EventKind::CasDrain => "fences".to_string(),
        }
    }
}

/// The report's name of a relation.
fn relation_name(relation: Relation) -> &'static str {
    match relation {
        Relation::ProgramOrder => "program-order",
        Relation::ReadsFrom => "reads-from",
        Relation::Coherence => "coherence",
        Relation::FromRead => "from-read",
        Relation::MutexOrder => "mutex-order",
    }
}
