//! The memory events of a witness in report form: each load, store,
//! read-modify-write, fence and mutex operation once (a buffered store and
//! its reaching memory are one event), thread by thread in program order,
//! with the store each read takes its value from and each store's place in
//! its location's coherence order. The witness rows, the cycle and the
//! fence advice name their events by index into this list.

use super::{Renderer, origin_fields};
use crate::consistency::{EventId, Witness};
use crate::report::document::{EventReport, EventReportKind, ThreadReport};
use crate::trace::diagnosis::cycle::memory_order;
use crate::trace::execution::EventKind;
use std::collections::HashMap;

/// The report's index of each memory event of the execution.
pub(super) type EventIndex = HashMap<EventId, usize>;

/// The report's kind of a memory event; `None` for the other events.
fn report_kind(kind: &EventKind) -> Option<EventReportKind> {
    match kind {
        EventKind::Write { .. } => Some(EventReportKind::Store),
        EventKind::Read { .. } => Some(EventReportKind::Load),
        EventKind::Rmw { .. } => Some(EventReportKind::Rmw),
        EventKind::CasRead { .. } => Some(EventReportKind::CasFailed),
        EventKind::Fence => Some(EventReportKind::Fence),
        EventKind::StoreFence => Some(EventReportKind::StoreFence),
        EventKind::Lock { .. } => Some(EventReportKind::Lock),
        EventKind::Unlock { .. } => Some(EventReportKind::Unlock),
        EventKind::LockBusy { .. } => Some(EventReportKind::LockBusy),
        _ => None,
    }
}

impl Renderer<'_> {
    /// The memory events of the execution in the report's order: thread by
    /// thread, each in program order.
    fn memory_events(&self) -> Vec<EventId> {
        self.decoded
            .execution
            .threads()
            .iter()
            .flatten()
            .copied()
            .filter(|&event| {
                self.decoded
                    .events
                    .get(event)
                    .is_some_and(|info| report_kind(&info.kind).is_some())
            })
            .collect()
    }

    /// The report's index of each memory event.
    pub(super) fn event_index(&self) -> EventIndex {
        self.memory_events()
            .into_iter()
            .enumerate()
            .map(|(id, event)| (event, id))
            .collect()
    }

    /// The memory event at `event` or, when it is none, the last memory
    /// event of its thread before it.
    pub(super) fn event_at_or_before(&self, index: &EventIndex, event: EventId) -> Option<usize> {
        let execution = &self.decoded.execution;
        let data = execution.events().get(event)?;
        execution.threads()[data.thread][..=data.index]
            .iter()
            .rev()
            .find_map(|earlier| index.get(earlier).copied())
    }

    /// The memory events in report form, with reads-from and the coherence
    /// of `witness`.
    pub(super) fn events(&self, witness: &Witness) -> Vec<EventReport> {
        let index = self.event_index();
        let coherence = self.coherence(witness);
        let mut position_in_thread: HashMap<usize, usize> = HashMap::new();
        self.memory_events()
            .into_iter()
            .enumerate()
            .filter_map(|(id, event)| {
                let info = self.decoded.events.get(event)?;
                let kind = report_kind(&info.kind)?;
                let counter = position_in_thread.entry(info.slot).or_default();
                let position = *counter;
                *counter += 1;
                let (file, line, column, statement) = origin_fields(self.origin(event));
                let (value, old_value, from) = self.event_values(&info.kind);
                Some(EventReport {
                    id,
                    thread: ThreadReport::new(self.map, info.slot),
                    index: position,
                    kind,
                    location: info.kind.location().map(str::to_string),
                    value,
                    old_value,
                    file,
                    line,
                    column,
                    statement,
                    reads_from: from.and_then(|source| index.get(&source).copied()),
                    coherence: coherence.get(&event).copied(),
                })
            })
            .collect()
    }

    /// The value written or read, the value a read-modify-write read, and
    /// the event a read reads from.
    fn event_values(&self, kind: &EventKind) -> (Option<String>, Option<String>, Option<EventId>) {
        match kind {
            EventKind::Write { location, value } => (self.number(location, *value), None, None),
            EventKind::Read {
                location,
                value,
                from,
            }
            | EventKind::CasRead {
                location,
                value,
                from,
            } => (self.number(location, *value), None, *from),
            EventKind::Rmw {
                location,
                old,
                new,
                from,
            } => (
                self.number(location, *new),
                old.and_then(|old| self.number(location, old)),
                *from,
            ),
            _ => (None, None, None),
        }
    }

    /// Each store's place among the stores to its location, in the order
    /// they reached memory in `witness`.
    fn coherence(&self, witness: &Witness) -> HashMap<EventId, usize> {
        let order = memory_order(&self.decoded.execution, witness);
        let mut by_location: HashMap<&str, Vec<EventId>> = HashMap::new();
        for event in self.memory_events() {
            let kind = &self.decoded.events[event].kind;
            if matches!(kind, EventKind::Write { .. } | EventKind::Rmw { .. })
                && let Some(location) = kind.location()
            {
                by_location.entry(location).or_default().push(event);
            }
        }
        let mut places = HashMap::new();
        for stores in by_location.values_mut() {
            stores.sort_by_key(|event| order.get(event).copied().unwrap_or(usize::MAX));
            places.extend(stores.iter().enumerate().map(|(at, &event)| (event, at)));
        }
        places
    }
}
