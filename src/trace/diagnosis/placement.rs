//! Where a fence goes in a thread's events: after the whole source
//! statement of its store (where a fence inserted into the source runs),
//! right after the store inside it, or right before a later statement.

use crate::consistency::EventId;
use crate::trace::execution::Decoded;

/// Where a fence for a store goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// After the store's statement: what a fence inserted into the source
    /// does.
    Statement,
    /// Right after the store, inside its statement.
    Event,
}

/// The events of `event`'s thread from `event` on that its source
/// statement makes (`x = y = 0;`, a structure copy, or one statement run
/// again, as a loop body without other accesses): where a fence inserted
/// after that statement comes, the last of them. At least `event`.
pub fn rest_of_statement(decoded: &Decoded, event: EventId) -> &[EventId] {
    let execution = &decoded.execution;
    let this = execution.event(event);
    let thread = &execution.threads()[this.thread];
    let statement = decoded.events.get(event).and_then(|info| info.stmt);
    let same = thread[this.index..]
        .iter()
        .take_while(|&&other| {
            statement.is_some()
                && decoded
                    .events
                    .get(other)
                    .is_some_and(|info| info.stmt == statement && !info.kind.is_synthetic())
        })
        .count();
    &thread[this.index..this.index + same.max(1)]
}

/// The event right before the statement of `later` in its thread, where a
/// fence inserted into the source just before that statement comes; `None`
/// unless it comes after `earliest` (the store's own statement) and
/// differs from it.
pub fn before_statement(decoded: &Decoded, later: EventId, earliest: EventId) -> Option<EventId> {
    let execution = &decoded.execution;
    let this = execution.event(later);
    let thread = &execution.threads()[this.thread];
    let statement = decoded.events.get(later).and_then(|info| info.stmt)?;
    let first = thread[..this.index].iter().rposition(|&other| {
        decoded
            .events
            .get(other)
            .is_none_or(|info| info.stmt != Some(statement) || info.kind.is_synthetic())
    })?;
    let point = thread[first];
    let earliest_index = execution.event(earliest).index;
    (execution.event(point).thread == execution.event(earliest).thread && first > earliest_index)
        .then_some(point)
}

/// The event a fence for `store` goes after: under `Statement`, the last
/// of [`rest_of_statement`], `None` when one of `laters` is among them
/// (only a fence inside the statement comes between); under `Event`, the
/// store.
pub fn fence_point(
    decoded: &Decoded,
    store: EventId,
    laters: &[EventId],
    placement: Placement,
) -> Option<EventId> {
    match placement {
        Placement::Event => Some(store),
        Placement::Statement => {
            let rest = rest_of_statement(decoded, store);
            match rest.last() {
                Some(&last) if !rest.iter().any(|event| laters.contains(event)) => Some(last),
                _ => None,
            }
        }
    }
}
