//! Store-buffer occupancy: for every thread of the sequential program, the
//! most stores it can have buffered at once, in all and per location, while
//! other threads run. The reference SMAs (`tso_ref.h`, `pso_ref.h`) flush
//! only the buffers that can hold stores and run only as many flush passes as
//! stores can be buffered, instead of every (thread, location) pair and
//! `SMA_QSIZE * SMA_THREADS` passes.
//!
//! A buffer is emptied by every draining visible statement (full fence, RMW,
//! lock, unlock, thread creation, thread end). The count is taken over the
//! loop-free thread bodies (loops are unrolled), with the maximum over the
//! branches of an `if` and over the forward jumps to a label. Stores of the
//! main thread before its first `pthread_create` are not counted: no other
//! thread runs yet, so no flush phase needs to move them, and the creation
//! drains them.

use super::{SeqStmt, SequentialProgram};
use crate::ir::{Expr, FenceKind, LabelId};
use std::collections::BTreeMap;

/// What one thread can have in its store buffers while other threads run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadStores {
    /// The most stores buffered at once (all locations together).
    pub most: u32,
    /// Per location id written at a constant address: the most stores to it
    /// buffered at once (stores through computed addresses included).
    pub per_location: BTreeMap<u32, u32>,
    /// The most stores through computed addresses buffered at once: every
    /// location not in `per_location` can hold that many.
    pub anywhere: u32,
    /// Whether the thread executes a store-store fence.
    pub store_fences: bool,
    /// Whether a backward jump defeated the count: then every count is
    /// unbounded (the SMA's own bound `SMA_QSIZE` applies).
    pub unbounded: bool,
}

impl ThreadStores {
    /// The most stores buffered at once for `location`.
    pub fn at(&self, location: u32) -> u32 {
        let constant = self.per_location.get(&location).copied().unwrap_or(0);
        constant.max(self.anywhere)
    }
}

/// The store buffers of one thread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadBuffers {
    pub slot: usize,
    /// Everything the thread can buffer: what a drain must empty.
    pub whole: ThreadStores,
    /// What it can buffer while another thread runs: what the flush phases
    /// must be able to move.
    pub concurrent: ThreadStores,
}

/// The store buffers of every thread.
pub fn store_buffering(program: &SequentialProgram) -> Vec<ThreadBuffers> {
    program
        .threads
        .iter()
        .map(|thread| ThreadBuffers {
            slot: thread.slot,
            whole: thread_stores(&thread.body, false),
            concurrent: thread_stores(&thread.body, thread.slot == 0),
        })
        .collect()
}

/// The buffered stores at one program point, since the last drain.
#[derive(Debug, Clone, Default)]
struct State {
    per_location: BTreeMap<u32, u32>,
    anywhere: u32,
    all: u32,
    /// Whether another thread may be running (false for `main` before its
    /// first thread creation).
    concurrent: bool,
}

impl State {
    fn join(mut self, other: &State) -> State {
        for (location, count) in &other.per_location {
            let mine = self.per_location.entry(*location).or_insert(0);
            *mine = (*mine).max(*count);
        }
        self.anywhere = self.anywhere.max(other.anywhere);
        self.all = self.all.max(other.all);
        self.concurrent |= other.concurrent;
        self
    }

    fn drain(&mut self) {
        self.per_location.clear();
        self.anywhere = 0;
        self.all = 0;
    }
}

struct Counter {
    result: ThreadStores,
    /// States arriving at labels not reached yet by forward jumps.
    pending: BTreeMap<LabelId, State>,
    /// Labels already passed: a jump to one of them goes backward.
    passed: Vec<LabelId>,
}

/// The occupancy of one thread body; `solo_start`: no other thread runs
/// until the first thread creation (the main thread).
fn thread_stores(body: &[SeqStmt], solo_start: bool) -> ThreadStores {
    let mut counter = Counter {
        result: ThreadStores::default(),
        pending: BTreeMap::new(),
        passed: Vec::new(),
    };
    let start = State {
        concurrent: !solo_start,
        ..State::default()
    };
    counter.block(body, Some(start));
    counter.result
}

impl Counter {
    /// Walks `block` from `state` (None: unreachable) and returns the state
    /// after it.
    fn block(&mut self, block: &[SeqStmt], mut state: Option<State>) -> Option<State> {
        for stmt in block {
            state = self.stmt(stmt, state);
        }
        state
    }

    fn stmt(&mut self, stmt: &SeqStmt, state: Option<State>) -> Option<State> {
        match stmt {
            SeqStmt::Label(label) => {
                self.passed.push(*label);
                let arriving = self.pending.remove(label);
                merge(state, arriving)
            }
            SeqStmt::Goto(label) => {
                if self.passed.contains(label) {
                    self.result.unbounded = true;
                } else if let Some(state) = state {
                    let merged = merge(self.pending.remove(label), Some(state));
                    if let Some(merged) = merged {
                        self.pending.insert(*label, merged);
                    }
                }
                None
            }
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                let after_then = self.block(then_branch, state.clone());
                let after_else = self.block(else_branch, state);
                merge(after_then, after_else)
            }
            SeqStmt::Write { address, .. } => state.map(|mut state| {
                self.store(&mut state, address);
                state
            }),
            SeqStmt::Fence {
                kind: FenceKind::StoreStore,
                ..
            } => {
                self.result.store_fences = true;
                state
            }
            SeqStmt::Fence {
                kind: FenceKind::Full,
                ..
            }
            | SeqStmt::Rmw { .. }
            | SeqStmt::Lock { .. }
            | SeqStmt::Unlock { .. }
            | SeqStmt::ThreadEnd { .. } => state.map(|mut state| {
                state.drain();
                state
            }),
            SeqStmt::Create { .. } => state.map(|mut state| {
                state.drain();
                state.concurrent = true;
                state
            }),
            SeqStmt::Guard(_)
            | SeqStmt::ResumeCheck(_)
            | SeqStmt::Assign(..)
            | SeqStmt::Read { .. }
            | SeqStmt::Malloc { .. }
            | SeqStmt::Assert { .. }
            | SeqStmt::Assume(_)
            | SeqStmt::Join { .. } => state,
        }
    }

    /// A store enters the buffer at `state`.
    fn store(&mut self, state: &mut State, address: &Expr) {
        state.all += 1;
        match address {
            Expr::Const(location) if *location >= 0 => {
                let location = u32::try_from(*location).unwrap_or(u32::MAX);
                *state.per_location.entry(location).or_insert(0) += 1;
            }
            _ => state.anywhere += 1,
        }
        if !state.concurrent {
            return;
        }
        let result = &mut self.result;
        result.most = result.most.max(state.all);
        result.anywhere = result.anywhere.max(state.anywhere);
        for (location, count) in &state.per_location {
            let most = result.per_location.entry(*location).or_insert(0);
            *most = (*most).max(count + state.anywhere);
        }
    }
}

fn merge(a: Option<State>, b: Option<State>) -> Option<State> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.join(&b)),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Place;

    fn write(location: i64) -> SeqStmt {
        SeqStmt::Write {
            address: Expr::Const(location),
            value: Expr::Const(1),
            stmt: 0,
        }
    }

    fn write_through_pointer() -> SeqStmt {
        SeqStmt::Write {
            address: Expr::Load(Place::Local(0)),
            value: Expr::Const(1),
            stmt: 0,
        }
    }

    fn fence() -> SeqStmt {
        SeqStmt::Fence {
            kind: FenceKind::Full,
            stmt: 0,
        }
    }

    fn branch(then_branch: Vec<SeqStmt>, else_branch: Vec<SeqStmt>) -> SeqStmt {
        SeqStmt::If {
            condition: Expr::Const(1),
            then_branch,
            else_branch,
        }
    }

    #[test]
    fn a_drain_ends_a_run_of_buffered_stores() {
        let stores = thread_stores(&[write(1), write(2), fence(), write(1), write(1), write(1)], false);
        assert_eq!(stores.most, 3);
        assert_eq!(stores.at(1), 3);
        assert_eq!(stores.at(2), 1);
        assert_eq!(stores.at(3), 0);
        assert!(!stores.unbounded && !stores.store_fences);
    }

    #[test]
    fn branches_count_their_larger_side() {
        let body = [
            write(1),
            branch(vec![write(2), write(2)], vec![fence(), write(3)]),
            write(4),
        ];
        let stores = thread_stores(&body, false);
        assert_eq!(stores.most, 4, "write 1, two writes to 2, write 4");
        assert_eq!(stores.at(2), 2);
        assert_eq!(stores.at(3), 1);
        assert_eq!(stores.at(1), 1);
    }

    #[test]
    fn a_forward_jump_carries_its_stores_past_a_drain() {
        let body = [
            write(1),
            branch(vec![SeqStmt::Goto(7)], vec![]),
            fence(),
            SeqStmt::Label(7),
            write(1),
        ];
        let stores = thread_stores(&body, false);
        assert_eq!(stores.at(1), 2, "the jump skips the fence");
        assert!(!stores.unbounded);
    }

    #[test]
    fn a_backward_jump_makes_the_count_unbounded() {
        let body = [SeqStmt::Label(3), write(1), SeqStmt::Goto(3)];
        assert!(thread_stores(&body, false).unbounded);
    }

    #[test]
    fn a_computed_address_may_be_any_location() {
        let body = [write(1), write_through_pointer()];
        let stores = thread_stores(&body, false);
        assert_eq!(stores.anywhere, 1);
        assert_eq!(stores.at(1), 2);
        assert_eq!(stores.at(9), 1);
    }

    #[test]
    fn main_alone_before_its_first_creation_holds_nothing_concurrently() {
        let body = [
            write(1),
            write(2),
            SeqStmt::Create { slot: 1, stmt: 0 },
            write(3),
        ];
        let alone = thread_stores(&body, true);
        assert_eq!(alone.most, 1, "only the store after the creation");
        assert_eq!(alone.at(1), 0);
        let whole = thread_stores(&body, false);
        assert_eq!(whole.most, 2, "the drain must still empty both");
    }

    #[test]
    fn store_store_fences_are_noted_and_do_not_drain() {
        let body = [
            write(1),
            SeqStmt::Fence {
                kind: FenceKind::StoreStore,
                stmt: 0,
            },
            write(2),
        ];
        let stores = thread_stores(&body, false);
        assert!(stores.store_fences);
        assert_eq!(stores.most, 2);
    }
}
