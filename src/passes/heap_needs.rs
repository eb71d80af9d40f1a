//! The heap blocks that no execution of the instantiated threads needs more
//! of: once loops are unrolled, every thread runs each allocation at most
//! once, so the most allocations along one path of each thread, summed over
//! the threads, bound the blocks any execution takes (`--nmalloc auto`).
//!
//! Why it suffices: `malloc` hands out the blocks in order and never hands
//! one out twice (`sma/common.h`), so an execution takes one block per
//! allocation it runs. A thread's body has no loops and no calls left; when
//! every jump goes forward, each of its statements runs at most once, and a
//! path through an `if` runs one branch: the larger count of the two bounds
//! it. A forward jump only skips statements, so counting as if it fell
//! through is an upper bound. A backward jump could repeat an allocation:
//! then nothing is known.

use crate::ir::{Block, Expr, LabelId, StmtKind};
use std::collections::HashSet;

/// What the threads of a program can allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeapNeeds {
    /// The most heap blocks one execution can take.
    pub blocks: u32,
    /// Whether every allocation's size is a constant that fits a heap block
    /// (then no execution needs larger blocks either).
    pub sizes_fit: bool,
    /// Whether a heap bound (`--nmalloc`, `--heap-block`) cut code off
    /// before the count: it then counts only the code the bound left.
    pub cut_by_bound: bool,
}

impl HeapNeeds {
    /// The `--nmalloc` that cuts off no execution and with which no
    /// execution needs more heap: none when a heap bound already cut code
    /// or a size may not fit a block.
    pub fn sufficient_nmalloc(&self) -> Option<u32> {
        (self.sizes_fit && !self.cut_by_bound).then_some(self.blocks)
    }
}

/// The heap needs of threads with these (flattened) bodies, whose heap
/// blocks hold `block_size` scalars; `None` when a jump goes backward.
pub fn heap_needs<'a>(
    bodies: impl IntoIterator<Item = &'a Block>,
    block_size: u32,
    cut_by_bound: bool,
) -> Option<HeapNeeds> {
    let mut needs = HeapNeeds {
        blocks: 0,
        sizes_fit: true,
        cut_by_bound,
    };
    for body in bodies {
        let mut count = AllocationCount {
            labels_seen: HashSet::new(),
            block_size,
            sizes_fit: true,
        };
        needs.blocks = needs.blocks.saturating_add(count.most_allocations(body)?);
        needs.sizes_fit &= count.sizes_fit;
    }
    Some(needs)
}

/// The count along the paths of one thread's body, in textual order.
struct AllocationCount {
    /// The labels before the statement counted now: a jump to one of them
    /// goes backward.
    labels_seen: HashSet<LabelId>,
    block_size: u32,
    sizes_fit: bool,
}

impl AllocationCount {
    /// The most allocations along one path through `block`; `None` when a
    /// jump goes backward (or a loop or call is left, which flattening
    /// removes).
    fn most_allocations(&mut self, block: &Block) -> Option<u32> {
        let mut most = 0u32;
        for stmt in block {
            most = most.saturating_add(match &stmt.kind {
                StmtKind::Malloc { size, .. } => {
                    self.sizes_fit &= matches!(size, Expr::Const(scalars) if *scalars <= i64::from(self.block_size));
                    1
                }
                StmtKind::If { then_branch, else_branch, .. } => {
                    let then_most = self.most_allocations(then_branch)?;
                    then_most.max(self.most_allocations(else_branch)?)
                }
                StmtKind::Label(label, _) => {
                    self.labels_seen.insert(*label);
                    0
                }
                StmtKind::Goto(label) if self.labels_seen.contains(label) => return None,
                StmtKind::Loop { .. } | StmtKind::Call { .. } => return None,
                _ => 0,
            });
        }
        Some(most)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Place, Stmt};

    fn st(kind: StmtKind) -> Stmt {
        Stmt { kind, origin: 0 }
    }

    fn malloc(scalars: i64) -> Stmt {
        st(StmtKind::Malloc {
            target: Place::Local(0),
            size: Expr::Const(scalars),
            zeroed: false,
        })
    }

    fn branch(then_branch: Block, else_branch: Block) -> Stmt {
        st(StmtKind::If {
            condition: Expr::Const(1),
            then_branch,
            else_branch,
        })
    }

    #[test]
    fn a_path_takes_one_branch_and_the_threads_add_up() {
        let main = vec![
            malloc(1),
            branch(vec![malloc(1), malloc(1)], vec![malloc(1)]),
            malloc(2),
        ];
        let worker = vec![branch(vec![], vec![malloc(1)])];
        let needs = heap_needs([&main, &worker], 2, false);
        assert_eq!(
            needs,
            Some(HeapNeeds {
                blocks: 5,
                sizes_fit: true,
                cut_by_bound: false
            })
        );
        assert_eq!(needs.and_then(|needs| needs.sufficient_nmalloc()), Some(5));
    }

    #[test]
    fn a_forward_jump_counts_as_falling_through_and_a_backward_one_is_unknown() {
        let forward = vec![
            st(StmtKind::Goto(3)),
            malloc(1),
            st(StmtKind::Label(3, "out".into())),
            malloc(1),
        ];
        assert_eq!(
            heap_needs([&forward], 1, false).map(|needs| needs.blocks),
            Some(2)
        );
        let backward = vec![
            st(StmtKind::Label(3, "again".into())),
            malloc(1),
            branch(vec![st(StmtKind::Goto(3))], vec![]),
        ];
        assert_eq!(heap_needs([&backward], 1, false), None);
    }

    #[test]
    fn a_size_past_the_block_or_a_cut_leaves_the_sufficient_bound_unknown() {
        let body = vec![malloc(3)];
        let needs = heap_needs([&body], 2, false).expect("counted");
        assert_eq!(
            (needs.blocks, needs.sizes_fit, needs.sufficient_nmalloc()),
            (1, false, None)
        );
        let unknown_size = vec![st(StmtKind::Malloc {
            target: Place::Local(0),
            size: Expr::Load(Place::Local(1)),
            zeroed: false,
        })];
        assert_eq!(
            heap_needs([&unknown_size], 8, false).and_then(|needs| needs.sufficient_nmalloc()),
            None
        );
        let cut = heap_needs([&vec![malloc(1)]], 1, true).expect("counted");
        assert_eq!((cut.blocks, cut.sufficient_nmalloc()), (1, None));
    }
}
