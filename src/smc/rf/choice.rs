//! The nondeterministic values of RF-SMC's events. An execution is named
//! by its reads-from relation and the values its moves chose; a choice is
//! a read whose alternatives are known at once (its domain). A choice the
//! search left *free* (the move took the domain's first value because no
//! schedule fixed it) proposes each other value `v` at its position `i`
//! as a schedule: τ̃ up to its event, the event simulated from the state
//! before it with its first `i` values as they were and `v` at `i` (the
//! later ones free again, so that they are proposed in turn), and the
//! events after it in τ̃ that its causal past holds (its read keeps its
//! source). Each prefix of values is proposed once, so every combination
//! of a move's values is explored once, odometer-style.
//!
//! Which choices are free: those of an extension's events, and those of
//! the events of a schedule that the schedule changed (a read mutated,
//! whose move may now choose differently, or a choice changed, whose
//! later choices are new). Events carried into a read's mutation keep
//! their values fixed: their other values are proposed by the call that
//! left them free, whose subtree mutates the read again (the read is
//! before them, or their write is new there). Events carried into a
//! choice's schedule after it keep their free choices free: the choices of
//! a schedule's events are proposed nowhere else, and only those of the
//! changed event's own prefix are fixed (their other values are proposed
//! by this call). The other values of an extension's event go into its
//! own schedule set; those of a schedule's event into the set the schedule
//! came from (the set being explored, which is still open).
//!
//! The schedules proposed for other values have a limit (the explicit
//! search's limit of states, whose waiting states they are like): a move
//! with three 8-bit choices has 256^3 combinations.
//!
//! A move whose other values make it read another location (or none) is
//! left to the explicit search ([`CHOSEN_READ`](super::run::CHOSEN_READ)).

use super::event::{Chosen, Event, Key, Source};
use super::explore::{Call, Context, Explorer, Proposal, RfStopped, diverged};
use super::run::{Simulated, rechoose};
use super::split;
use crate::smc::search::Stopped;
use rustc_hash::FxHashMap;

impl Explorer<'_, '_> {
    /// Proposes the other values of the free choices of the event at
    /// `at` (a violation reached by one of them is explored at once).
    pub(super) fn propose_choices(&mut self, context: &Context, at: usize) -> Call {
        let event = &context.trace.events[at];
        if !event.has_free_choices() {
            return Ok(None);
        }
        let set = if at >= context.trace.start {
            context.sets.get(&event.key).copied()
        } else {
            context.set
        };
        let Some(set) = set else {
            return Err(diverged(format!("{:?} has no schedule set", event.key)));
        };
        let values = event.choice_values();
        let proposed: usize = event.chosen[event.forced..]
            .iter()
            .map(|chosen| chosen.values.saturating_sub(1) as usize)
            .sum();
        self.choice_schedules += proposed;
        let total = match &self.above {
            Some(above) => above.shared.count_choice_schedules(proposed),
            None => self.choice_schedules,
        };
        if total > self.limits.max_states {
            let most = self.limits.max_states;
            return Err(RfStopped::Stopped(Stopped::TooManyChoices(most)));
        }
        for position in event.forced..event.chosen.len() {
            for value in event.chosen[position].others() {
                let mut forced = values[..position].to_vec();
                forced.push(value);
                if let Some(found) = self.propose_choice(context, at, forced, set)? {
                    return Ok(Some(found));
                }
            }
        }
        Ok(None)
    }

    /// The schedule of the event at `at` with the values `forced` for its
    /// first choices, offered to the set `set`.
    fn propose_choice(
        &mut self,
        context: &Context,
        at: usize,
        forced: Vec<i64>,
        set: usize,
    ) -> Call {
        let trace = context.trace;
        let event = &trace.events[at];
        let Some(snapshot) = context.snapshots.get(&event.key) else {
            return Err(diverged(format!("no state before {:?}", event.key)));
        };
        let (mut changed, violates) = match rechoose(self.machine, snapshot, event, &forced)? {
            Some(Simulated::Event(changed)) => (changed, false),
            Some(Simulated::Violated(chosen)) => (violated(event, chosen), true),
            // cut off before it reads (`rechoose`): nothing to explore
            None => return Ok(None),
        };
        if !violates && split::leaves_part(self.limits.split, &trace.events[..at], &changed) {
            split::stop(&mut changed);
        }
        let after = trace.causes_after(&[event.key], at, &[]);
        let mut events: Vec<Event> = trace.events[..at]
            .iter()
            .map(|before| before.clone().fixed())
            .collect();
        let changed_key = changed.key;
        events.push(changed);
        events.extend(after.iter().map(|&later| trace.events[later].clone()));
        let events = without_stale_reads(events, changed_key);
        let marked = events
            .iter()
            .map(|kept| kept.key)
            .filter(|key| context.marked.contains(key))
            .collect();
        let mut mutated: Vec<_> = trace
            .mutated
            .iter()
            .copied()
            .filter(|key| events.iter().any(|kept| kept.key == *key))
            .collect();
        mutated.push(event.key);
        let proposal = Proposal {
            events,
            marked,
            mutated,
            violates,
        };
        self.offer(context, set, proposal)
    }
}

/// The events of a choice's schedule without the reads of a write that
/// is no longer among them, or no longer writes: τ̃ keeps a displaced
/// atomic event where its old position was, before the event whose write
/// it reads (`mutation.rs`), so τ̃ up to the changed event may hold a read
/// of it, which another value may have cut off. Each such read goes, with
/// its thread's later events (their threads run again in the extension),
/// and so do the reads of what went. Unchanged when the changed event
/// itself would go: the oracle then refuses the schedule.
fn without_stale_reads(events: Vec<Event>, changed: Key) -> Vec<Event> {
    let mut stale = stale_reads(&events);
    if stale.is_empty() {
        return events;
    }
    let mut kept = events.clone();
    while !stale.is_empty() {
        let gone = |key: Key| {
            stale
                .iter()
                .any(|stale| stale.thread == key.thread && key.index >= stale.index)
        };
        if gone(changed) {
            return events;
        }
        kept.retain(|event| !gone(event.key));
        stale = stale_reads(&kept);
    }
    kept
}

/// The events that read a write no event of `events` makes.
fn stale_reads(events: &[Event]) -> Vec<Key> {
    let by_key: FxHashMap<Key, &Event> = events.iter().map(|event| (event.key, event)).collect();
    events
        .iter()
        .filter(|event| match event.source {
            Some(Source::Event(key)) => !by_key.get(&key).is_some_and(|source| {
                event
                    .access
                    .encoded_read_location()
                    .is_none_or(|location| source.writes_to(location))
            }),
            _ => false,
        })
        .map(|event| event.key)
        .collect()
}

/// `event` stopped at a violation with the values `chosen`: only its read
/// counts (a move that reads nothing keeps only its choices).
fn violated(event: &Event, chosen: Vec<Chosen>) -> Event {
    let mut stopped = event.clone();
    stopped.blocked = true;
    stopped.written = None;
    stopped.forced = chosen.len();
    stopped.chosen = chosen;
    if stopped.source.is_none() {
        stopped.access = super::event::Access::Internal;
        stopped.read_value = None;
    }
    stopped
}
