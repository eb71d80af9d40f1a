//! The heap inside RF-SMC: the machine wraps each `malloc`, `calloc` and
//! `free` in a section of its own (`crate::smc::semantics::sections`), so
//! the section lock orders every two of them and RF-SMC explores those
//! orders as it explores a mutex's. What the lock does not order is an
//! access to a block with the block's allocation and its `free` by
//! another thread; this module checks each run for it, with vector
//! clocks of happens-before (program order, reads-from, creations,
//! joins): an access must come after its block's allocation in
//! happens-before, or RF-SMC hands the program to the explicit search. An
//! access that happens-before does not order with its block's `free` by
//! another thread is a possible use after free: the oracle is asked for
//! an execution of the class in which the `free` comes first
//! (`rf::explore`), and its replay, which the machine checks, reports the
//! violation; when there is none, every execution of the class has the
//! access first.
//!
//! Why that suffices: events ordered by happens-before keep their order
//! in every execution of a reads-from class (a read comes after the write
//! it reads, a thread's events in program order, a child after its
//! creation, a join after the joined thread's end). In a class whose run
//! passes the check, every execution therefore allocates each block
//! before each access to it, and each access comes before the block's
//! `free` unless the oracle finds an execution with the `free` first (a
//! use after free, reported); the machine checked each access of the run
//! (a block not allocated yet, a block freed, as the printed program
//! does), so the class has one behaviour or a violation, and the search
//! shows it. Up to the first access that the check would find unordered,
//! an execution behaves as its reads-from class says, so RF-SMC explores
//! a class whose run contains that access unordered: no such execution
//! escapes the check.

use super::event::{Event, Key};
use super::order::HappensBefore;
use crate::smc::semantics::machine::Machine;
use std::collections::HashMap;

/// Why RF-SMC stops at an access to a heap block that happens-before
/// does not order with the block's allocation.
pub const HEAP_ORDER: &str = "a heap block accessed unordered with its allocation";

/// The happens-before order of a run's events and its heap operations.
#[derive(Debug, Clone)]
pub struct HeapOrder {
    order: HappensBefore,
    /// The event that allocated each block, by the block's first location.
    allocations: HashMap<u32, Key>,
    /// The event that freed each block, by the block's first location.
    frees: HashMap<u32, Key>,
}

impl HeapOrder {
    pub fn new(threads: usize) -> HeapOrder {
        HeapOrder {
            order: HappensBefore::new(threads),
            allocations: HashMap::new(),
            frees: HashMap::new(),
        }
    }

    /// Notes `event`, the next event of its thread
    /// ([`HappensBefore::note`]).
    pub fn note(&mut self, event: &Event) {
        self.order.note(event);
    }

    /// Notes that the event `key` allocated (`allocated`) or freed the
    /// block at `block`.
    pub fn heap_operation(&mut self, key: Key, block: u32, allocated: bool) {
        let operations = if allocated {
            &mut self.allocations
        } else {
            &mut self.frees
        };
        operations.insert(block, key);
    }

    /// Whether `earlier` happens before `later` (or is it).
    fn before(&self, earlier: Key, later: Key) -> bool {
        self.order.before(earlier, later)
    }

    /// Whether every access of `events` to a heap block comes after the
    /// block's allocation in happens-before; the accesses that
    /// happens-before does not order with their block's `free` by another
    /// thread, each with that `free` (first) and the access.
    /// An access that does not follow its block's allocation is the
    /// error, described.
    pub fn check(&self, machine: &Machine, events: &[Event]) -> Result<Vec<(Key, Key)>, String> {
        let mut races = Vec::new();
        let memory = &machine.program.memory;
        let block = memory.heap_block_size.max(1);
        let heap = memory.heap_base..memory.heap_base + memory.heap_blocks * block;
        for event in events {
            let locations = [event.access.read_location(), event.access.write_location()];
            for location in locations.into_iter().flatten() {
                if !heap.contains(&location) {
                    continue;
                }
                let start = location - (location - memory.heap_base) % block;
                let allocated = self.allocations.get(&start);
                if allocated.is_some_and(|&at| !self.before(at, event.key)) {
                    return Err(format!("location {location} by {:?}", event.key));
                }
                let freed = self
                    .frees
                    .get(&start)
                    .copied()
                    .filter(|&at| at.thread != event.key.thread && !self.before(event.key, at));
                if let Some(free) = freed
                    && !races.contains(&(free, event.key))
                {
                    races.push((free, event.key));
                }
            }
        }
        Ok(races)
    }
}
