//! `--split K/N` for RF-SMC: the reads-from classes of a program divided
//! into N parts, each explored by its own run, with no class in two parts
//! and none in no part.
//!
//! A class's part is named by its *key*: the writes that the first
//! [`Split::key_reads`] reads of thread [`Split::KEY_THREAD`] (the first
//! thread `main` creates) take their values from, in that thread's
//! order, fewer when the thread makes fewer. Executions of one class have
//! one reads-from relation, so one key: the partition is exact.
//!
//! Part K runs the program with one instruction added, as if that thread
//! ended its key read with `assume(part(key) == K)`: when the read that
//! completes the key names another part, the thread stops there, like a
//! move an assumption cuts off (its read stays, so that the search still
//! proposes the read's other sources). That is a thread-local assumption
//! on what the thread read, which RF-SMC handles as it handles the
//! program's own (every class of the program it makes is explored), and
//! its classes are those of the program whose key names part K, each
//! unchanged, and executions cut at the key read. A class whose key stays
//! short (the thread made fewer reads) is explored in every part and
//! counted in the part its short key names. The executions counted for
//! other parts are [`other_part_executions`]; the rest, summed over the
//! N parts, are a whole run's classes.
//!
//! A violation is real in whichever part finds it (its execution is one
//! of the program, or a prefix of one: the stopped thread only did not
//! move on). A deadlock or an endless wait is reported only in an
//! execution no stop for the split cut short.
//!
//! [`other_part_executions`]: crate::smc::search::Statistics::other_part_executions

use super::event::{Event, Source};
use crate::options::Split;

/// A source as a number for the key: 0 for the initial value, else the
/// writing event's thread and position.
fn number(source: Source) -> u64 {
    match source {
        Source::Init => 0,
        Source::Event(key) => ((key.thread as u64 + 1) << 32) | key.index as u64,
    }
}

/// Whether `event` is one of the reads that make up a key.
fn counts(event: &Event) -> bool {
    event.key.thread == Split::KEY_THREAD && event.is_mutable_read()
}

/// The key of an execution, from its events in any order that keeps each
/// thread's program order.
pub fn key<'e>(split: Split, events: impl IntoIterator<Item = &'e Event>) -> Vec<u64> {
    events
        .into_iter()
        .filter(|event| counts(event))
        .filter_map(|event| event.source)
        .take(split.key_reads())
        .map(number)
        .collect()
}

/// Whether `event`, coming after `before` (the execution's earlier events,
/// or at least the key thread's), completes a key that names another part
/// than `split`'s: its thread must then stop there.
pub fn leaves_part<'e>(
    split: Option<Split>,
    before: impl IntoIterator<Item = &'e Event>,
    event: &Event,
) -> bool {
    let Some(split) = split else {
        return false;
    };
    if !counts(event) {
        return false;
    }
    let mut key = key(
        split,
        before.into_iter().filter(|earlier| {
            earlier.key.thread == event.key.thread && earlier.key.index < event.key.index
        }),
    );
    if key.len() + 1 != split.key_reads() {
        return false;
    }
    key.extend(event.source.map(number));
    !split.owns(key)
}

/// Whether the execution of `events` is counted in `split`'s part.
pub fn owned<'e>(split: Option<Split>, events: impl IntoIterator<Item = &'e Event>) -> bool {
    split.is_none_or(|split| split.owns(key(split, events)))
}

/// Makes `event` a stop of its thread for the split: its read stays, its
/// write and what follows are gone.
pub fn stop(event: &mut Event) {
    event.blocked = true;
    event.written = None;
    event.finishes = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smc::rf::event::{Access, Key};

    fn read(thread: usize, index: usize, source: Source) -> Event {
        Event {
            key: Key { thread, index },
            access: Access::Read { location: 0 },
            source: Some(source),
            read_value: Some(0),
            written: None,
            written_term: None,
            blocked: false,
            finishes: false,
            chosen: Vec::new(),
            forced: 0,
        }
    }

    #[test]
    fn every_key_is_in_exactly_one_part() {
        for parts in 1..6 {
            let key_reads = Split { part: 1, parts }.key_reads();
            let reads: Vec<Event> = (0..key_reads)
                .map(|index| read(Split::KEY_THREAD, index, Source::Init))
                .collect();
            let (last, before) = reads.split_last().expect("reads");
            let leaving = (1..=parts)
                .filter(|&part| leaves_part(Some(Split { part, parts }), before, last))
                .count();
            assert_eq!(leaving, parts - 1, "{parts} parts");
            let owning = (1..=parts)
                .filter(|&part| owned(Some(Split { part, parts }), &reads))
                .count();
            assert_eq!(owning, 1);
        }
    }

    #[test]
    fn only_the_key_thread_reads_complete_a_key() {
        let split = Some(Split { part: 1, parts: 2 });
        let key_reads = split.map_or(0, Split::key_reads);
        let other = read(2, key_reads - 1, Source::Init);
        let before: Vec<Event> = (0..key_reads - 1)
            .map(|index| read(2, index, Source::Init))
            .collect();
        assert!(!leaves_part(split, &before, &other));
    }
}
