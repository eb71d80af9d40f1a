//! Definite assignment over a sequentialised thread body: which scalar
//! locals may be read before any assignment, and so need a
//! nondeterministic initial value (every other initialisation is waste).

use super::SeqStmt;
use crate::ir::{Expr, LabelId, LocalId, Place};
use std::collections::{BTreeMap, BTreeSet};

/// Locals assigned on every path so far; `None` = unreachable point.
type Assigned = Option<BTreeSet<LocalId>>;

/// The locals of `body` that some path reads before assigning them
/// (gotos jump forward only, as the sequentialiser checks).
pub fn read_before_assigned(body: &[SeqStmt]) -> BTreeSet<LocalId> {
    let mut analysis = Analysis::default();
    analysis.block(body, Some(BTreeSet::new()));
    analysis.early
}

#[derive(Default)]
struct Analysis {
    early: BTreeSet<LocalId>,
    at_label: BTreeMap<LabelId, Assigned>,
}

fn meet(a: Assigned, b: Assigned) -> Assigned {
    match (a, b) {
        (None, other) | (other, None) => other,
        (Some(a), Some(b)) => Some(a.intersection(&b).copied().collect()),
    }
}

impl Analysis {
    fn block(&mut self, body: &[SeqStmt], mut state: Assigned) -> Assigned {
        for stmt in body {
            state = self.stmt(stmt, state);
        }
        state
    }

    fn uses(&mut self, e: &Expr, state: &Assigned) {
        match e {
            Expr::Load(place) => self.place_uses(place, state, true),
            Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Reinterpret(_, a) => self.uses(a, state),
            Expr::Binary(_, a, b) => {
                self.uses(a, state);
                self.uses(b, state);
            }
            Expr::Conditional(c, a, b) => {
                self.uses(c, state);
                self.uses(a, state);
                self.uses(b, state);
            }
            Expr::LibraryCall(_, arguments) => arguments
                .iter()
                .for_each(|argument| self.uses(argument, state)),
            Expr::Const(_)
            | Expr::FloatConst(_)
            | Expr::ObjectAddress(_)
            | Expr::Nondet(_)
            | Expr::CurrentThread => {}
        }
    }

    /// Index operands of `place` are read; its base too when `read`.
    fn place_uses(&mut self, place: &Place, state: &Assigned, read: bool) {
        match place {
            Place::Local(id) => {
                let assigned = state.as_ref().is_none_or(|s| s.contains(id));
                if read && !assigned {
                    self.early.insert(*id);
                }
            }
            Place::PlainGlobal(_) => {}
            Place::Index(base, index) => {
                self.uses(index, state);
                self.place_uses(base, state, read);
            }
            Place::Field(base, _) => self.place_uses(base, state, read),
        }
    }

    fn assign(&mut self, place: &Place, mut state: Assigned) -> Assigned {
        self.place_uses(place, &state, false);
        if let (Place::Local(id), Some(s)) = (place, state.as_mut()) {
            s.insert(*id);
        }
        state
    }

    fn stmt(&mut self, stmt: &SeqStmt, state: Assigned) -> Assigned {
        match stmt {
            SeqStmt::Assign(place, value) => {
                self.uses(value, &state);
                self.assign(place, state)
            }
            SeqStmt::Read {
                target, address, ..
            } => {
                self.uses(address, &state);
                self.assign(target, state)
            }
            SeqStmt::Write { address, value, .. } => {
                self.uses(address, &state);
                self.uses(value, &state);
                state
            }
            SeqStmt::TryLock {
                target, address, ..
            } => {
                self.uses(address, &state);
                self.assign(target, state)
            }
            SeqStmt::Rmw {
                target,
                address,
                operand,
                expected,
                ..
            } => {
                for e in [address, operand, expected] {
                    self.uses(e, &state);
                }
                match target {
                    Some(target) => self.assign(target, state),
                    None => state,
                }
            }
            SeqStmt::Malloc { target, size, .. } => {
                self.uses(size, &state);
                self.assign(target, state)
            }
            SeqStmt::Lock { address: e, .. }
            | SeqStmt::Unlock { address: e, .. }
            | SeqStmt::Assert { condition: e, .. }
            | SeqStmt::Assume(e)
            | SeqStmt::Await { condition: e, .. }
            | SeqStmt::LoopBound { condition: e, .. }
            | SeqStmt::Free { address: e, .. }
            | SeqStmt::Join { handle: e, .. } => {
                self.uses(e, &state);
                state
            }
            SeqStmt::If {
                condition,
                then_branch,
                else_branch,
            } => {
                self.uses(condition, &state);
                let then_end = self.block(then_branch, state.clone());
                let else_end = self.block(else_branch, state);
                meet(then_end, else_end)
            }
            SeqStmt::Goto(label) => {
                let entry = self.at_label.remove(label).unwrap_or(None);
                self.at_label.insert(*label, meet(entry, state));
                None
            }
            SeqStmt::Label(label) => {
                let entry = self.at_label.remove(label).unwrap_or(None);
                meet(entry, state)
            }
            SeqStmt::Guard(_)
            | SeqStmt::AtomicBegin { .. }
            | SeqStmt::AtomicEnd { .. }
            | SeqStmt::ResumeCheck(_)
            | SeqStmt::Fence { .. }
            | SeqStmt::Create { .. } => state,
        }
    }
}
