//! A `--qsize` and a `--maxclock` that cut off no execution of a sequential
//! program, from the stores each thread can have buffered at once and issue
//! in all ([`store_buffering`](super::buffering::store_buffering)): at these bounds (or above) the
//! shared memory abstraction hides nothing, and a safe verdict holds for
//! every number of pending stores and every memory clock. They are upper
//! bounds, not always the least that would do.
//!
//! Why they suffice, for the timestamped SMAs (`tcdll.h`): a list of `qsize`
//! nodes holds the memory value (the head), the pending stores after it and
//! at least one free node before it when a store takes one. A thread's
//! pending stores are at most those since its last drain, so a location with
//! P stores pending at once in all threads needs `P + 1` nodes, and one more
//! when an RMW, lock or unlock writes it (that write takes a node while the
//! other threads' stores stay pending). For the clock, give every store with
//! a guessed timestamp the position at which it reaches memory among those
//! stores (1, 2, ...), and let the clock be the number of them in memory:
//! every constraint of the list operations holds, and the other writes (the
//! stores marked unobserved, RMWs, locks, unlocks) take a timestamp that the
//! clock or another store already has. So a program whose threads issue S
//! stores with guessed timestamps needs no timestamp above S. The reference
//! SMAs have no clock; their buffers hold the stores one thread has pending
//! (TSO) or has pending to one location (PSO).

use super::buffering::{ThreadBuffers, distinct_locations_of};
use crate::options::{Bounds, SmaImplementation};

/// Bounds that cut off nothing (`maxclock` only for the SMAs with a clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SufficientBounds {
    pub qsize: u32,
    pub maxclock: Option<u32>,
}

impl SufficientBounds {
    /// `qsize 4, maxclock 9`, as the bounds are described elsewhere.
    pub fn describe(&self) -> String {
        match self.maxclock {
            Some(maxclock) => format!("qsize {}, maxclock {maxclock}", self.qsize),
            None => format!("qsize {}", self.qsize),
        }
    }

    /// Whether `bounds` cut off nothing that these bounds keep.
    pub fn covered_by(&self, bounds: &Bounds) -> (bool, bool) {
        (
            bounds.qsize >= self.qsize,
            self.maxclock
                .is_none_or(|maxclock| bounds.maxclock >= maxclock),
        )
    }
}

/// The sufficient bounds under `sma` of a program whose threads' store
/// buffers are `threads` and that has `locations` locations (the null one
/// included); `None` under SC (no buffers) and when a backward jump leaves
/// the stores uncounted.
pub fn sufficient_bounds(
    threads: &[ThreadBuffers],
    locations: u32,
    sma: SmaImplementation,
) -> Option<SufficientBounds> {
    // what one qsize holds: a location's list, or one thread's buffer
    let qsize_needed: fn(&[ThreadBuffers], u32) -> u32 = match sma {
        SmaImplementation::Sc => return None,
        SmaImplementation::Etso | SmaImplementation::Epso => most_list_nodes,
        SmaImplementation::TsoReference => most_pending_in_a_thread,
        SmaImplementation::PsoReference => most_pending_to_a_location,
    };
    if threads.iter().any(|thread| thread.whole.unbounded) {
        return None;
    }
    let qsize = qsize_needed(threads, locations);
    let guessed = threads
        .iter()
        .map(|thread| thread.whole.guessed)
        .sum::<u32>();
    let maxclock = sma
        .is_timestamped()
        .then_some(guessed.max(Bounds::LEAST_MAXCLOCK));
    Some(SufficientBounds {
        qsize: qsize.max(Bounds::LEAST_QSIZE),
        maxclock,
    })
}

/// The most nodes a T-CDLL of locations 1..`locations` needs.
fn most_list_nodes(threads: &[ThreadBuffers], locations: u32) -> u32 {
    distinct_locations_of(threads, locations)
        .into_iter()
        .map(|location| list_nodes(threads, location))
        .max()
        .unwrap_or(0)
}

/// The most stores one thread can have pending (a TSO buffer).
fn most_pending_in_a_thread(threads: &[ThreadBuffers], _locations: u32) -> u32 {
    threads
        .iter()
        .map(|thread| thread.whole.most)
        .max()
        .unwrap_or(0)
}

/// The most stores one thread can have pending to one of locations
/// 1..`locations` (a PSO buffer).
fn most_pending_to_a_location(threads: &[ThreadBuffers], locations: u32) -> u32 {
    distinct_locations_of(threads, locations)
        .into_iter()
        .flat_map(|location| threads.iter().map(move |thread| thread.whole.at(location)))
        .max()
        .unwrap_or(0)
}

/// The nodes `location`'s T-CDLL needs: its memory value, the stores that
/// can be pending at once, and a node for an atomic write. Main's stores
/// while it runs alone are drained by its first creation, before another
/// thread can store: they count on their own.
fn list_nodes(threads: &[ThreadBuffers], location: u32) -> u32 {
    let beside_others: u32 = threads
        .iter()
        .map(|thread| thread.concurrent.at(location))
        .sum();
    let main_alone = threads
        .iter()
        .filter(|thread| thread.slot == 0)
        .map(|thread| thread.whole.at(location))
        .max()
        .unwrap_or(0);
    let atomic = threads
        .iter()
        .any(|thread| thread.whole.atomic_writes.contains(location));
    1 + beside_others.max(main_alone) + u32::from(atomic)
}
