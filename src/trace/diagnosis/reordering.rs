//! A reordering the diagnosis names: two events of one thread that took
//! effect out of program order in the witness (a store with a later load,
//! a later store under PSO, or the end of its atomic section), and the
//! fence that forbids it.

use crate::consistency::EventId;
use crate::ir::FenceKind;
use crate::options::MemoryModel;

/// How two events of one thread were reordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReorderingKind {
    /// The store was still buffered when the later load (of another
    /// location) read memory.
    StoreLoad,
    /// The later store (to another location) reached memory before the
    /// store (PSO).
    StoreStore,
    /// The store was still buffered when its thread's atomic section
    /// ended: another thread's section could run before it reached memory
    /// (an atomic section does not drain the buffers).
    StoreAtomicEnd,
}

impl ReorderingKind {
    /// The kind's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            ReorderingKind::StoreLoad => "store-load",
            ReorderingKind::StoreStore => "store-store",
            ReorderingKind::StoreAtomicEnd => "store-atomic-end",
        }
    }

    /// Whether `model` lets a store be reordered so: under TSO a store
    /// with a later load or the end of its atomic section, under PSO also
    /// with a later store; under SC with nothing.
    pub fn allowed_under(self, model: MemoryModel) -> bool {
        match self {
            ReorderingKind::StoreLoad | ReorderingKind::StoreAtomicEnd => model != MemoryModel::Sc,
            ReorderingKind::StoreStore => model == MemoryModel::Pso,
        }
    }
}

impl std::fmt::Display for ReorderingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A reordering of `store` with the `later` event of the same thread; a
/// `fence` between them forbids it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reordering {
    pub kind: ReorderingKind,
    pub store: EventId,
    pub later: EventId,
    pub fence: FenceKind,
    /// The event right after which the fence goes: the last event of the
    /// store's statement ([`rest_of_statement`](super::placement::rest_of_statement)), as a fence inserted into
    /// the source after that statement; the store itself when the fence
    /// must split its statement.
    pub fence_after: EventId,
}
