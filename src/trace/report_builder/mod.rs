//! The building of the verify report from a decoded execution: the
//! witness rows against the source (thread, file:line, statement, memory
//! effect in plain words, the store buffers), the diagnosis with its fence
//! advice placed at statements, and the heap blocks freed.

use super::diagnosis::{Diagnosis, Reordering, ReorderingKind, rest_of_statement};
use super::execution::{Decoded, EventKind};
use super::statements::{self, Statement};
use crate::consistency::{EventId, Op, Phase, Source, Witness};
use crate::ir::{FenceKind, Origin};
use crate::options::MemoryModel;
use crate::passes::TranslationMap;
use crate::report::document::*;
use std::collections::HashMap;

mod cycle;
mod events;
#[cfg(test)]
mod tests;

/// The thread's store buffer as a witness row sees it: the stores a
/// draining event flushes, the stores buffered now, and whether a read
/// takes its value from the buffer.
#[derive(Debug, Clone, Copy)]
struct Buffers {
    drained: usize,
    buffered: usize,
    own_buffer: bool,
}

/// Renders witness steps against the source.
pub struct Renderer<'a> {
    pub decoded: &'a Decoded,
    pub map: &'a TranslationMap,
    /// Writes reach memory when issued (the report collapses both phases).
    pub atomic_writes: bool,
}

/// The file, line, column and statement text of an origin, as the reports
/// carry them (each `None` without one).
fn origin_fields(
    origin: Option<&Origin>,
) -> (Option<String>, Option<u32>, Option<u32>, Option<String>) {
    (
        origin.map(|o| o.file.clone()),
        origin.map(|o| o.line),
        origin.map(|o| o.column),
        origin.map(|o| o.text.clone()),
    )
}

/// What a report adds to a read of the initial value (one that reads
/// from no event).
fn initial_value_note(from: Option<EventId>) -> &'static str {
    if from.is_none() {
        " (initial value)"
    } else {
        ""
    }
}

impl Renderer<'_> {
    fn origin(&self, event: EventId) -> Option<&Origin> {
        self.decoded
            .events
            .get(event)?
            .stmt
            .and_then(|stmt| self.map.origins.get(stmt))
    }

    /// The source point of an event.
    pub fn point(&self, event: EventId) -> SourcePoint {
        let (file, line, column, statement) = origin_fields(self.origin(event));
        SourcePoint {
            file,
            line,
            column,
            statement,
            location: self
                .decoded
                .events
                .get(event)
                .and_then(|e| e.kind.location().map(str::to_string)),
        }
    }

    /// The event a fence right after `after` goes before: the next event
    /// of its thread from another statement that accesses memory (not an
    /// atomic section's boundary), up to `later`, or past it when none
    /// comes before; the next event when `after`'s statement goes on (the
    /// fence splits it).
    fn fence_before(&self, after: EventId, later: EventId) -> EventId {
        let execution = &self.decoded.execution;
        let event = execution.event(after);
        let following = &execution.threads()[event.thread][event.index + 1..];
        let up_to_later = following
            .iter()
            .position(|&e| e == later)
            .map_or(following, |i| &following[..=i]);
        let statement = self.decoded.events.get(after).and_then(|info| info.stmt);
        let splits = rest_of_statement(self.decoded, after).len() > 1;
        let accesses = |e: &EventId| {
            self.decoded.events.get(*e).is_some_and(|info| {
                !info.kind.is_synthetic()
                    && !matches!(info.kind, EventKind::AtomicBegin | EventKind::AtomicEnd)
                    && (splits || info.stmt != statement)
                    && self.origin(*e).is_some()
            })
        };
        // (a later event that is the end of an atomic section accesses
        // nothing: then the next statement that does)
        up_to_later
            .iter()
            .copied()
            .find(accesses)
            .or_else(|| following.iter().copied().find(accesses))
            .unwrap_or(later)
    }

    /// The statement of the source a fence right after `after` follows,
    /// when it is in the text where its origin says.
    fn statement_of(&self, after: EventId) -> Option<Statement> {
        let origin = self.origin(after)?;
        let source = std::fs::read_to_string(&origin.file).ok()?;
        statements::locate(&source, origin)
    }

    /// Where the fence of `reordering` goes in the source.
    fn fence_advice(
        &self,
        reordering: &Reordering,
        thread: &str,
        (kind, insert): (&'static str, &'static str),
    ) -> Option<FenceAdvice> {
        let after = reordering.fence_after;
        let origin = self.origin(after)?;
        let index = self.event_index();
        let before = self.fence_before(after, reordering.later);
        let before_origin = self.origin(before);
        let splits = rest_of_statement(self.decoded, after).len() > 1;
        let statement = if splits {
            None
        } else {
            self.statement_of(after)
        };
        let (after_line, after_column, after_statement, placement) = match &statement {
            Some(found) => {
                let placement = if found.unbraced_body {
                    "in-braces"
                } else {
                    "after-statement"
                };
                let point = StatementPoint {
                    line: found.line,
                    column: found.column,
                    text: found.text.clone(),
                };
                (found.end_line, Some(found.end_column), point, placement)
            }
            None => (
                origin.line,
                None,
                StatementPoint::from(origin),
                if splits {
                    "split-statement"
                } else {
                    "unlocated"
                },
            ),
        };
        Some(FenceAdvice {
            file: origin.file.clone(),
            after_line,
            before_line: before_origin.map_or(after_line, |o| o.line),
            thread: thread.to_string(),
            kind,
            insert,
            after_column,
            after_statement,
            before_column: before_origin.map(|o| o.column),
            before_statement: before_origin.map(StatementPoint::from),
            placement,
            after_event: self.event_at_or_before(&index, after),
            before_event: index.get(&before).copied(),
        })
    }

    fn thread_of(&self, event: EventId) -> ThreadReport {
        ThreadReport::new(self.map, self.decoded.events[event].slot)
    }

    /// The execution's `free`s in report form.
    fn frees(&self) -> Vec<FreeReport> {
        self.decoded
            .frees
            .iter()
            .map(|freed| {
                let (file, line, column, statement) =
                    origin_fields(self.map.origins.get(freed.stmt));
                FreeReport {
                    thread: ThreadReport::new(self.map, freed.slot),
                    location: freed.location.clone(),
                    file,
                    line,
                    column,
                    statement,
                }
            })
            .collect()
    }

    fn thread_name(&self, slot: usize) -> String {
        ThreadReport::new(self.map, slot).name
    }

    /// The witness in report form, `source` telling where its order comes
    /// from, with the step after which the property fails in thread slot
    /// `failing` (when known).
    pub fn witness(
        &self,
        witness: &Witness,
        source: WitnessSource,
        failing: Option<usize>,
    ) -> WitnessReport {
        // The failing thread's last step: its last memory access, after
        // which the property reads nothing the other threads can change,
        // so that it fails right there. The steps after it (other threads,
        // stores reaching memory) complete the execution the check needs.
        let fails_at = failing.map(|slot| {
            witness.steps.iter().rposition(|step| {
                step.phase != Phase::Memory
                    && self
                        .decoded
                        .events
                        .get(step.event)
                        .is_some_and(|info| info.slot == slot)
            })
        });
        let rows = self.steps_failing(witness, fails_at.flatten());
        let fails_after_step =
            fails_at.map(|_| rows.iter().filter(|row| !row.after_failure).count());
        WitnessReport {
            source,
            steps: rows,
            fails_after_step,
            frees: self.frees(),
            events: self.events(witness),
            inputs: Vec::new(),
        }
    }

    /// The witness in report form of a property that fails after its
    /// last step (a deadlock: no thread can move once every step is done).
    pub fn witness_failing_at_end(
        &self,
        witness: &Witness,
        source: WitnessSource,
    ) -> WitnessReport {
        let rows = self.steps_failing(witness, None);
        WitnessReport {
            source,
            fails_after_step: Some(rows.len()),
            steps: rows,
            frees: self.frees(),
            events: self.events(witness),
            inputs: Vec::new(),
        }
    }

    /// The rows of a witness; synthetic events and drains of empty
    /// buffers are left out, a store flushed right after it was issued is
    /// one row.
    pub fn steps(&self, witness: &Witness) -> Vec<StepReport> {
        self.steps_failing(witness, None)
    }

    /// [`Self::steps`], the rows of the steps after the witness step
    /// `fails_at` marked as after the failure.
    fn steps_failing(&self, witness: &Witness, fails_at: Option<usize>) -> Vec<StepReport> {
        let execution = &self.decoded.execution;
        let mut buffers: HashMap<usize, Vec<EventId>> = HashMap::new();
        // The threads of the program stores that reached memory since the
        // last thread event: a draining event flushed its own among them
        // (earlier flushes served other threads' loads).
        let mut recent_flushes: Vec<usize> = Vec::new();
        let mut rows = Vec::new();
        let index = self.event_index();
        let steps = &witness.steps;
        let after_failure = |index: usize| fails_at.is_some_and(|fails_at| index > fails_at);
        let mut i = 0;
        while i < steps.len() {
            let step = steps[i];
            let at = i;
            i += 1;
            let Some(info) = self.decoded.events.get(step.event) else {
                continue;
            };
            let slot = info.slot;
            let buffer = buffers.entry(slot).or_default();
            if step.phase == Phase::Memory {
                buffer.retain(|&w| w != step.event);
                if !info.kind.is_synthetic() {
                    let mut row = self.row(step.event, self.flush_effect(step.event));
                    row.after_failure = after_failure(at);
                    row.event = index.get(&step.event).copied();
                    rows.push(row);
                    recent_flushes.push(slot);
                }
                continue;
            }
            // A join drains the joined thread, any other draining event its own.
            let drainer = match info.kind {
                EventKind::Joined { joined } => joined,
                _ => slot,
            };
            let drained = recent_flushes
                .iter()
                .filter(|&&flushed| flushed == drainer)
                .count();
            recent_flushes.clear();
            // (not when the store is issued before the failure and reaches
            // memory after it)
            let flushed_at_once = steps
                .get(i)
                .is_some_and(|next| next.event == step.event && next.phase == Phase::Memory)
                && after_failure(i) == after_failure(at);
            let row = if step.phase == Phase::Buffer {
                if flushed_at_once {
                    i += 1;
                } else {
                    buffer.push(step.event);
                }
                self.store_row(step.event, flushed_at_once)
            } else {
                let own_buffer = match execution.event(step.event).op {
                    Op::Read {
                        rf: Source::Event(w),
                        ..
                    } => buffer.contains(&w),
                    _ => false,
                };
                let buffered = self.program_stores(buffer);
                self.execute_row(
                    step.event,
                    Buffers {
                        drained,
                        buffered,
                        own_buffer,
                    },
                )
            };
            rows.extend(row.map(|mut row| {
                row.after_failure = after_failure(at);
                row.event = index.get(&step.event).copied();
                row
            }));
        }
        for (number, row) in rows.iter_mut().enumerate() {
            row.step = number + 1;
        }
        rows
    }

    fn row(
        &self,
        event: EventId,
        (effect, kind, value): (String, StepKind, Option<String>),
    ) -> StepReport {
        let (file, line, column, statement) = origin_fields(self.origin(event));
        StepReport {
            step: 0,
            thread: self.thread_of(event),
            file,
            line,
            column,
            statement,
            effect,
            kind,
            location: self.decoded.events[event]
                .kind
                .location()
                .map(str::to_string),
            value,
            after_failure: false,
            event: None,
        }
    }

    /// A value of `location` as the report shows it.
    fn shown(&self, location: &str, value: i128) -> String {
        self.decoded.values.show(location, value)
    }

    /// A value of `location` as the JSON report gives it.
    fn number(&self, location: &str, value: i128) -> Option<String> {
        Some(self.decoded.values.number(location, value))
    }

    fn flush_effect(&self, event: EventId) -> (String, StepKind, Option<String>) {
        match &self.decoded.events[event].kind {
            EventKind::Write { location, value } => {
                let shown = self.shown(location, *value);
                (
                    format!("{location} = {shown} reaches memory"),
                    StepKind::StoreToMemory,
                    self.number(location, *value),
                )
            }
            other => (
                format!("{other:?} reaches memory"),
                StepKind::StoreToMemory,
                None,
            ),
        }
    }

    fn store_row(&self, event: EventId, at_once: bool) -> Option<StepReport> {
        match &self.decoded.events[event].kind {
            EventKind::Write { location, value } => {
                let shown = self.shown(location, *value);
                let (effect, kind) = if self.atomic_writes {
                    (format!("{location} := {shown}"), StepKind::Store)
                } else if at_once {
                    (
                        format!("{location} := {shown} (reaches memory right away)"),
                        StepKind::Store,
                    )
                } else {
                    (
                        format!("{location} := {shown} (buffered)"),
                        StepKind::StoreBuffered,
                    )
                };
                Some(self.row(event, (effect, kind, self.number(location, *value))))
            }
            EventKind::Spawn { child } => Some(self.row(
                event,
                (
                    format!("starts {}", self.thread_name(*child)),
                    StepKind::Create,
                    None,
                ),
            )),
            _ => None,
        }
    }

    /// Whether the thread of the failed try-lock `event` holds its mutex
    /// itself: its last lock or unlock of the mutex before it is a lock.
    fn holds_mutex(&self, event: EventId) -> bool {
        let info = &self.decoded.events[event];
        let EventKind::LockBusy { mutex } = &info.kind else {
            return false;
        };
        let before = self.decoded.issue_order.iter().take_while(|&&e| e != event);
        let own = before.filter_map(|&e| {
            Some(&self.decoded.events[e]).filter(|earlier| earlier.slot == info.slot)
        });
        own.filter_map(|earlier| match &earlier.kind {
            EventKind::Lock { mutex: m } if m == mutex => Some(true),
            EventKind::Unlock { mutex: m } if m == mutex => Some(false),
            _ => None,
        })
        .last()
        .unwrap_or(false)
    }

    /// How many of `buffer`'s stores are program stores.
    fn program_stores(&self, buffer: &[EventId]) -> usize {
        buffer
            .iter()
            .filter(|&&w| !self.decoded.events[w].kind.is_synthetic())
            .count()
    }

    fn execute_row(
        &self,
        event: EventId,
        Buffers {
            drained,
            buffered,
            own_buffer,
        }: Buffers,
    ) -> Option<StepReport> {
        let drains = |what: &str| match drained {
            0 => what.to_string(),
            1 => format!("{what}, drains 1 store"),
            n => format!("{what}, drains {n} stores"),
        };
        let (effect, kind, value) = match &self.decoded.events[event].kind {
            EventKind::Read {
                location,
                value,
                from,
            } => {
                let initial = initial_value_note(*from);
                let shown = self.shown(location, *value);
                if own_buffer {
                    (
                        format!("reads {location} = {shown} from own buffer"),
                        StepKind::LoadFromBuffer,
                        self.number(location, *value),
                    )
                } else {
                    (
                        format!("reads {location} = {shown}{initial} from memory"),
                        StepKind::LoadFromMemory,
                        self.number(location, *value),
                    )
                }
            }
            EventKind::Fence => {
                let effect = match drained {
                    0 => "fence: buffer already empty".to_string(),
                    1 => "fence: drains 1 store".to_string(),
                    n => format!("fence: drains {n} stores"),
                };
                (effect, StepKind::Fence, None)
            }
            EventKind::StoreFence => {
                let effect = match buffered {
                    0 => "store-store fence: no store buffered".to_string(),
                    1 => "store-store fence: the buffered store reaches memory before later ones"
                        .to_string(),
                    n => format!(
                        "store-store fence: the {n} buffered stores reach memory before later ones"
                    ),
                };
                (effect, StepKind::StoreFence, None)
            }
            EventKind::AtomicBegin => (
                "atomic section begins: no other thread runs until it ends".to_string(),
                StepKind::AtomicBegin,
                None,
            ),
            EventKind::AtomicEnd => ("atomic section ends".to_string(), StepKind::AtomicEnd, None),
            EventKind::CreateDrain | EventKind::CasDrain if drained == 0 => return None,
            EventKind::CreateDrain => (
                drains("before creating a thread").replacen(", d", ": d", 1),
                StepKind::Fence,
                None,
            ),
            EventKind::CasDrain => (
                drains("before compare-and-swap").replacen(", d", ": d", 1),
                StepKind::Fence,
                None,
            ),
            EventKind::Rmw {
                location, old, new, ..
            } => {
                let old = old.map_or_else(
                    || "its initial value".to_string(),
                    |v| self.shown(location, v),
                );
                let shown = self.shown(location, *new);
                (
                    drains(&format!("atomic {location}: reads {old}, writes {shown}")),
                    StepKind::Rmw,
                    self.number(location, *new),
                )
            }
            EventKind::CasRead {
                location, value, ..
            } => {
                let shown = self.shown(location, *value);
                (
                    format!("compare-and-swap on {location} fails: reads {shown}"),
                    StepKind::CasFailed,
                    self.number(location, *value),
                )
            }
            EventKind::Lock { mutex } => (drains(&format!("lock {mutex}")), StepKind::Lock, None),
            EventKind::Unlock { mutex } => {
                (drains(&format!("unlock {mutex}")), StepKind::Unlock, None)
            }
            EventKind::LockBusy { mutex } => {
                let holder = if self.holds_mutex(event) {
                    "its own thread"
                } else {
                    "another thread"
                };
                (
                    drains(&format!("try-lock {mutex} fails: {holder} holds it")),
                    StepKind::LockBusy,
                    None,
                )
            }
            EventKind::Joined { joined } => {
                let joins = format!("joins {} (finished)", self.thread_name(*joined));
                let effect = match drained {
                    0 => joins,
                    1 => format!("{joins}, whose 1 buffered store drains"),
                    n => format!("{joins}, whose {n} buffered stores drain"),
                };
                (effect, StepKind::Join, None)
            }
            EventKind::Write { .. }
            | EventKind::Spawn { .. }
            | EventKind::Started
            | EventKind::Done => return None,
        };
        Some(self.row(event, (effect, kind, value)))
    }

    /// The diagnosis in report form, of a violation under `model`.
    pub fn diagnosis(&self, diagnosis: &Diagnosis, model: MemoryModel) -> DiagnosisReport {
        if diagnosis.sc_realisable {
            // (under SC itself, that the same reads-from is possible under
            // SC says nothing)
            let summary = if model == MemoryModel::Sc {
                "a violation under sequential consistency, which no fence can prevent"
            } else {
                "the same reads-from is possible under sequential consistency: the bug also happens under SC, \
                 it is not caused by store buffering"
            };
            return DiagnosisReport {
                sc_realisable: true,
                summary: summary.to_string(),
                reorderings: Vec::new(),
                fences: Vec::new(),
                fences_suffice: false,
                cycle: Vec::new(),
            };
        }
        let several = diagnosis.reorderings.len() > 1;
        let mut reorderings = Vec::new();
        let mut fences = Vec::new();
        for reordering in &diagnosis.reorderings {
            let (report, fence) = self.reordering(reordering, several && diagnosis.fences_suffice);
            reorderings.push(report);
            let same_place = |a: &FenceAdvice, b: &FenceAdvice| {
                (
                    &a.file,
                    a.after_line,
                    a.after_column,
                    &a.after_statement.text,
                    a.insert,
                    &a.thread,
                ) == (
                    &b.file,
                    b.after_line,
                    b.after_column,
                    &b.after_statement.text,
                    b.insert,
                    &b.thread,
                )
            };
            if let Some(fence) = fence
                && !fences.iter().any(|other| same_place(other, &fence))
            {
                fences.push(fence);
            }
        }
        let summary = match (diagnosis.fences_suffice, reorderings.len()) {
            (_, 0) => format!(
                "impossible under sequential consistency; needs {model} reorderings lazysma could not pin down"
            ),
            (true, 1) => {
                format!("impossible under sequential consistency; needs this {model} reordering")
            }
            (true, n) => format!(
                "impossible under sequential consistency; needs these {n} {model} reorderings, each fence alone is not enough"
            ),
            (false, _) => format!(
                "impossible under sequential consistency; uses these {model} reorderings (fences after these stores were not shown to suffice)"
            ),
        };
        DiagnosisReport {
            sc_realisable: false,
            summary,
            reorderings,
            fences,
            fences_suffice: diagnosis.fences_suffice,
            cycle: self.cycle(&diagnosis.cycle),
        }
    }

    fn reordering(
        &self,
        reordering: &Reordering,
        together: bool,
    ) -> (ReorderingReport, Option<FenceAdvice>) {
        let store = self.point(reordering.store);
        let later = self.point(reordering.later);
        let thread = self.thread_of(reordering.store).name;
        let line = |p: &SourcePoint| p.line.map_or_else(|| "?".to_string(), |l| l.to_string());
        let name = |p: &SourcePoint| p.location.clone().unwrap_or_else(|| "memory".to_string());
        let (a, b) = (line(&store), line(&later));
        let forbids = if together {
            "forbids this, together with the other fences listed"
        } else {
            "forbids this"
        };
        // The fence's name in the advice, the statement to insert, and its
        // name in the explanation.
        let (fence_kind, insert, a_fence) = match reordering.fence {
            FenceKind::Full => ("full", "__sync_synchronize();", "a fence"),
            FenceKind::StoreStore => (
                "store-store",
                "__atomic_thread_fence(__ATOMIC_RELEASE);",
                "a store-store fence",
            ),
        };
        // Where the fence goes: between the lines, or on one line between
        // the statements.
        let between = match (&store.statement, &later.statement) {
            // (a store's statement from a macro is its whole line)
            (Some(first), Some(second))
                if a == b && first != second && first.contains(second.as_str()) =>
            {
                format!("after the store and before `{second}` (line {a})")
            }
            (Some(first), Some(second)) if a == b && first != second => {
                format!("between `{first}` and `{second}` (line {a})")
            }
            (Some(statement), _) if a == b => format!("inside `{statement}` (line {a})"),
            _ => format!("between lines {a} and {b}"),
        };
        let explanation = match reordering.kind {
            ReorderingKind::StoreLoad => {
                let when = match &later.location {
                    Some(location) => format!("{thread} loads {location} (line {b})"),
                    None => format!("{thread} reaches line {b}"),
                };
                format!(
                    "store to {} (line {a}) still buffered when {when}; {a_fence} {between} {forbids}",
                    name(&store)
                )
            }
            ReorderingKind::StoreStore => format!(
                "store to {} (line {b}) reached memory before the earlier store to {} (line {a}) of {thread}; \
                 {a_fence} {between} {forbids}",
                name(&later),
                name(&store)
            ),
            ReorderingKind::StoreAtomicEnd => format!(
                "store to {} (line {a}) still buffered when the atomic section of {thread} ends (line {b}), \
                 so that other threads can run before it reaches memory; {a_fence} {between} {forbids}",
                name(&store)
            ),
        };
        let kind = reordering.kind.name();
        let fence = self.fence_advice(reordering, &thread, (fence_kind, insert));
        (
            ReorderingReport {
                kind,
                thread,
                store,
                later,
                explanation,
            },
            fence,
        )
    }
}
