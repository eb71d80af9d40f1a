//! The heap of the native engine, as the printed program's SMA keeps it
//! (`sma/common.h`): `malloc` takes the next block of the layout (bump
//! allocation, blocks never reused) or cuts the execution off, only the
//! requested part of a block is valid, `free` frees a whole block for every
//! thread at once (the allocator's state is not buffered), and an access
//! through a pointer is checked as the printer checks it (null, outside
//! its objects or past the requested part of a block, freed). A heap
//! location holds a nondeterministic value from its `malloc` until it is
//! first written in memory (`calloc` zeroes it): the engine never samples
//! values, so an execution that reads such a value declines the program.

use super::machine::{Access, AllocationCutOff, Machine, Outcome, Unsupported, Violation};
use super::memory::record;
pub use super::state::Heap;
use super::state::State;
use crate::ir::{Expr, OriginId, Place};
use crate::smc::interpreter::eval::{Choices, Unmodelled};
use crate::smc::interpreter::value::CType;
use crate::trace::records::RecordKind;

impl Machine<'_> {
    /// Scalars per heap block, and whether the layout has a heap at all
    /// (`SMA_HEAP_SCALARS > 0`).
    fn heap_layout(&self) -> Option<u32> {
        let memory = &self.program.memory;
        (memory.heap_blocks > 0 && memory.heap_block_size > 0).then_some(memory.heap_block_size)
    }

    /// `target = sma_malloc(size, zeroed, t, stmt)`: takes the next block
    /// (`sma_heap_take_block`), or cuts the execution off when every block
    /// is used or the request is negative or larger than a block.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn malloc(
        &self,
        state: &mut State,
        slot: usize,
        target: &Place,
        size: &Expr,
        zeroed: bool,
        stmt: OriginId,
        choices: &mut dyn Choices,
    ) -> Result<Outcome<()>, Unsupported> {
        let pc = state.threads[slot].pc;
        let fail = |what: Unmodelled| self.unsupported(slot, pc, what.0);
        let scalars = self.widened(state, slot, size, choices).map_err(fail)?;
        let memory = &self.program.memory;
        // without a heap (`SMA_HEAP_SCALARS` 0) every block is used
        let block = self.heap_layout().unwrap_or(memory.heap_block_size);
        if scalars > i64::from(block) {
            self.note_allocation_cut_off(stmt, |cut| {
                cut.largest = Some(cut.largest.map_or(scalars, |largest| largest.max(scalars)));
            });
            return Ok(Outcome::CutOff);
        }
        if scalars < 0 {
            // as the printed program: a negative size (as `size_t`, more
            // than any block holds) is cut off, and named like a size
            // larger than the block
            self.note_allocation_cut_off(stmt, |cut| cut.negative = true);
            return Ok(Outcome::CutOff);
        }
        if state.heap.used >= memory.heap_blocks || self.heap_layout().is_none() {
            self.note_allocation_cut_off(stmt, |cut| cut.blocks_used = true);
            return Ok(Outcome::CutOff);
        }
        let first = state.heap.used as usize * block as usize;
        let base = memory.heap_base + state.heap.used * block;
        for i in 0..block as usize {
            if (i as i64) < scalars {
                state.heap.allocated[first + i] = true;
            }
            state.heap.uninitialised[first + i] = !zeroed;
            state.heap.nondet[first + i] = !zeroed;
            state.memory.set(base + i as u32, 0);
            super::memory::set_carried(state, base + i as u32, None);
        }
        state.heap.used += 1;
        state.heap.sites.push(stmt);
        record(state, RecordKind::Malloc, slot, base, scalars, 0, 0, stmt);
        self.private(state, slot)
            .store(target, i64::from(base), choices)
            .map_err(fail)?;
        Ok(Outcome::Next(()))
    }

    /// Notes in [`Machine::allocation_cut_offs`] how the heap bounds cut an
    /// execution off at the allocation `stmt`.
    fn note_allocation_cut_off(&self, stmt: OriginId, note: impl FnOnce(&mut AllocationCutOff)) {
        if let Ok(mut cut_offs) = self.allocation_cut_offs.lock() {
            note(cut_offs.entry(stmt).or_default());
        }
    }

    /// `free(address)` as the printer writes it: nothing for null, a
    /// double free for a location in a freed block, an invalid free for
    /// anything but the first location of a block handed out, and else
    /// the block is freed (for every thread at once).
    pub(super) fn free(
        &self,
        state: &mut State,
        slot: usize,
        address: &Expr,
        stmt: OriginId,
        choices: &mut dyn Choices,
    ) -> Result<Outcome<()>, Unsupported> {
        let pc = state.threads[slot].pc;
        let value = self
            .eval(state, slot, address, choices)
            .map_err(|what| self.unsupported(slot, pc, what.0))?;
        let location = i64::from(LOCATION.convert(value) as u32);
        if location == 0 {
            return Ok(Outcome::Next(()));
        }
        let violation = |what: &str, kind: &'static str| {
            Outcome::Violated(Violation {
                slot,
                description: self.describe(stmt, what),
                kind,
                origin: None,
            })
        };
        if self.freed(state, location) {
            return Ok(violation(crate::ir::DOUBLE_FREE, "double-free"));
        }
        let block = self.heap_layout().map(i64::from);
        let start = block.and_then(|block| {
            let offset = location - i64::from(self.program.memory.heap_base);
            let handed_out = offset >= 0 && offset < i64::from(state.heap.used) * block;
            (handed_out && offset % block == 0).then_some((offset / block) as usize)
        });
        let Some(index) = start else {
            return Ok(violation(crate::ir::INVALID_FREE, "invalid-free"));
        };
        state.heap.freed[index] = true;
        record(
            state,
            RecordKind::Free,
            slot,
            location as u32,
            0,
            0,
            0,
            stmt,
        );
        Ok(Outcome::Next(()))
    }

    /// `sma_freed(location)`: in a freed heap block.
    fn freed(&self, state: &State, location: i64) -> bool {
        match (self.heap_layout(), state.heap.index(location)) {
            (Some(block), Some(index)) => state.heap.freed[index / block as usize],
            _ => false,
        }
    }

    /// `sma_valid_loc(location)`: an id of memory, and in a heap block only
    /// in the requested part of an allocated one.
    fn valid(&self, state: &State, location: i64) -> bool {
        if location < 1 || location >= i64::from(self.locations) {
            return false;
        }
        state
            .heap
            .index(location)
            .is_none_or(|index| state.heap.allocated[index])
    }

    /// The printed checks of an access at `address` that reaches the heap
    /// or past static memory (`location`, not null): the pointer's
    /// validity (`valid_access`: a violation with `--pointer-check`, else a
    /// cut-off), then a freed block (a violation), then the SMA's own
    /// assumption (`sma_check_loc`).
    pub(super) fn heap_access(
        &self,
        state: &State,
        slot: usize,
        address: &Expr,
        location: i64,
        stmt: OriginId,
    ) -> Result<Access, Unsupported> {
        let pc = state.threads[slot].pc;
        let memory = &self.program.memory;
        let violation = |what: &str, kind: &'static str| {
            Err(Outcome::Violated(Violation {
                slot,
                description: self.describe(stmt, what),
                kind,
                origin: None,
            }))
        };
        let valid = self.valid(state, location);
        let constant = matches!(address, Expr::Const(_));
        // the condition the printer checks (None: no check printed)
        let checked = if constant {
            memory.is_heap_location(address).then_some(valid)
        } else {
            self.printed_validity(state, slot, address, location)?
        };
        match checked {
            Some(false) if self.pointer_checks => {
                return Ok(violation(
                    crate::ir::POINTER_OUTSIDE_OBJECT,
                    "pointer-dereference",
                ));
            }
            Some(false) => {
                if let Ok(mut cut_offs) = self.pointer_cut_offs.lock() {
                    cut_offs.insert(stmt);
                }
                return Ok(Err(Outcome::CutOff));
            }
            Some(true) | None => {}
        }
        let heap_checked = !constant || memory.is_heap_location(address);
        if heap_checked && self.frees && self.freed(state, location) {
            return Ok(violation(crate::ir::USE_AFTER_FREE, "pointer-dereference"));
        }
        if !valid {
            // the printer checks nothing here, and its points-to facts
            // say that no execution gets here
            return Err(self.unsupported(
                slot,
                pc,
                format!(
                    "an access to location {location}, outside the objects the program may point to"
                ),
            ));
        }
        Ok(Ok(location as u32))
    }

    /// The printer's `valid_access` at run time: whether the location is
    /// among those the points-to facts give the pointer and, where they
    /// reach the heap or any location, valid; None where the printer
    /// checks nothing.
    fn printed_validity(
        &self,
        state: &State,
        slot: usize,
        address: &Expr,
        location: i64,
    ) -> Result<Option<bool>, Unsupported> {
        let memory = &self.program.memory;
        let heap = self.heap_layout().is_some();
        let valid = self.valid(state, location);
        let pointees = self
            .program
            .points_to
            .as_ref()
            .and_then(|facts| facts.locations(slot, address));
        let Some(pointees) = pointees else {
            return Ok(Some(valid));
        };
        if pointees.len() as u32 + 1 >= memory.location_count() {
            return Ok(heap.then_some(valid));
        }
        if pointees.is_empty() {
            // the facts know no location: the printer lets no execution
            // past with --pointer-check, and checks nothing without
            let pc = state.threads[slot].pc;
            return match self.pointer_checks {
                true => Ok(Some(false)),
                false => Err(self.unsupported(
                    slot,
                    pc,
                    format!(
                        "an access to location {location}, where the program's pointer may point nowhere"
                    ),
                )),
            };
        }
        let inside = u32::try_from(location).is_ok_and(|l| pointees.contains(&l));
        let reaches_heap = heap && pointees.iter().any(|&l| l >= memory.heap_base);
        Ok(Some(inside && (!reaches_heap || valid)))
    }

    /// Declines a read of memory at `location` by `slot` that would see a
    /// heap block's initial contents: nondeterministic (malloc's), which
    /// the engine does not explore. A thread reads a store it has
    /// buffered there instead (an RMW or a lock finds its buffers empty).
    /// The heap index of `location` when `slot` would read the value
    /// its block's `malloc` gave it there (no store of its own buffered,
    /// none in memory).
    pub(super) fn uninitialised_cell(
        &self,
        state: &State,
        slot: usize,
        location: u32,
    ) -> Option<usize> {
        let index = state.heap.index(i64::from(location))?;
        let own = state.buffers[slot]
            .iter()
            .any(|store| store.location == location);
        (!own && state.heap.uninitialised[index]).then_some(index)
    }

    pub(super) fn check_initialised(
        &self,
        state: &State,
        slot: usize,
        location: u32,
    ) -> Result<(), Unsupported> {
        let Some(index) = self.uninitialised_cell(state, slot, location) else {
            return Ok(());
        };
        let block = self.program.memory.heap_block_size.max(1) as usize;
        let site = state.heap.sites.get(index / block).copied();
        let pc = state.threads[slot].pc;
        Err(self.unsupported(
            slot,
            pc,
            format!(
                "a read of the uninitialised contents of a heap block allocated at {} \
                 (nondeterministic values, which the native engine does not explore)",
                crate::smc::decline::located(self.program, site)
            ),
        ))
    }
}

/// `sma_loc_t`: how a pointer value becomes a location id.
const LOCATION: CType = CType {
    bits: 32,
    signed: false,
};
