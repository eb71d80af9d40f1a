//! Removes the code of an unrolled function that no execution reaches: what
//! follows an assumption that always fails, a jump or a thread exit, up to
//! the next label. Constant propagation over the thread's private integer
//! locals, with the least values that assumptions and branches give the
//! others (`assume(n >= 5)`), finds the assumptions that always fail, above
//! all the loop bounds of counted loops that `--unwind` cuts short; counting the allocations on
//! every path finds the ones the heap bounds (`--nmalloc`, `--heap-block`)
//! always cut off. A bound that cuts every path to code that matters (a
//! visible statement or an assertion), or to the end of a thread that is
//! joined, is reported: that code is never checked, whatever the verdict.
//!
//! Only executions that cannot exist are removed, so verdicts stay the
//! same; the program gets smaller, and thread creations no execution
//! reaches create no threads.
//!
//! The walk ([`pass`]) carries what is known at each point ([`flow`]: the
//! constant propagation); [`warnings`] tells the user what the bounds cut.

mod flow;
mod pass;
#[cfg(test)]
mod tests;
mod warnings;

pub use warnings::warnings;

use crate::ir::{Function, FunctionId, OriginId};
use crate::options::Bounds;
use pass::{Pass, jumps_to_labels};
use std::collections::{BTreeMap, HashMap};

/// A statement at which a bound cuts off every execution that reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The loop at this origin needs more iterations than its unwinding
    /// bound on every path.
    LoopBound(OriginId),
    /// The allocation at this origin finds every heap block used
    /// (`--nmalloc`): the thread has allocated that many before it.
    HeapBlocks(OriginId),
    /// The allocation at this origin asks for more scalars than a heap
    /// block holds (`--heap-block`).
    HeapBlockSize { origin: OriginId, scalars: i64 },
    /// After the `pthread_join` at this origin, every path has seen more
    /// allocations than `--nmalloc` lets happen: `allocations`, this
    /// thread's and those of the threads it joined, which ended.
    HeapBlocksJoined { origin: OriginId, allocations: u32 },
}

impl Cut {
    pub fn origin(self) -> OriginId {
        match self {
            Cut::LoopBound(origin)
            | Cut::HeapBlocks(origin)
            | Cut::HeapBlockSize { origin, .. }
            | Cut::HeapBlocksJoined { origin, .. } => origin,
        }
    }
}

/// A bound that cuts every execution before code that matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundCut {
    pub cut: Cut,
    /// The first statement that matters after it, which no execution reaches.
    pub first_unreached: OriginId,
}

/// What removing the unreachable code of a function found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reachability {
    /// The bounds that cut code that matters, one per cutting statement.
    pub cuts: Vec<BoundCut>,
    /// The bound that keeps every execution from ending the function (from
    /// its end, a `return` or a thread exit), if one does: a thread running
    /// it never ends, so a `pthread_join` on it never returns.
    pub end_cut_by: Option<Cut>,
    /// The allocations that every path to the function's end makes, its
    /// own and those of the threads it joins (0 when it never ends).
    pub allocations_at_end: u32,
    /// For each start function the function creates a thread of, the
    /// allocations every path to each of its creations has seen, the
    /// function's start count included: the thread starts with them made.
    pub allocations_at_creation: BTreeMap<FunctionId, u32>,
    /// Whether a heap bound cut off every execution at some allocation or
    /// join (with code that matters after it or not).
    pub heap_cut: bool,
}

/// The allocations every execution of a thread function makes before it
/// ends ([`Reachability::allocations_at_end`]), by function: a thread that
/// joins one has seen them all.
pub type AllocationsAtEnd = HashMap<FunctionId, u32>;

/// Removes the unreachable code of `function` (loops already unrolled)
/// under `bounds`; a join of a thread that runs a function of `joined`
/// counts that function's allocations, and the function starts with
/// `started_after` allocations made (by its creators).
pub fn remove_unreachable(
    function: &mut Function,
    bounds: &Bounds,
    joined: &AllocationsAtEnd,
    started_after: u32,
) -> Reachability {
    let mut pass = Pass {
        locals: &function.locals,
        bounds,
        joined,
        started_after,
        allocations_at_creation: BTreeMap::new(),
        heap_cut: false,
        jumps: jumps_to_labels(&function.body),
        arrivals: HashMap::new(),
        cuts: Vec::new(),
        ends: false,
        allocations_at_end: None,
    };
    let body = std::mem::take(&mut function.body);
    let (body, after) = pass.block(body, pass.nothing_known());
    let end_cut_by = if pass.ends || after.reachable {
        None
    } else {
        after.cut_by
    };
    if after.reachable {
        pass.ended_with(after.allocations);
    }
    let cuts = pass.cuts;
    function.body = body;
    let allocations_at_end = pass.allocations_at_end.unwrap_or(0);
    Reachability {
        cuts,
        end_cut_by,
        allocations_at_end,
        allocations_at_creation: pass.allocations_at_creation,
        heap_cut: pass.heap_cut,
    }
}
