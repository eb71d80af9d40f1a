//! Read-modify-writes on terms: a compare-and-swap, an exchange or a
//! fetch-and-op whose old value, operand or expected value is symbolic
//! (a term carried through shared memory, `symbolic::path::Carried`).
//! A compare-and-swap whose comparison is a term takes the outcome the
//! thread's causal condition forces; one that may both succeed and fail
//! is a choice of the two (`Choices::branch`), the side taken added to
//! the path condition: the move's event then writes or is a failed CAS,
//! as the choice says, and the search proposes the other side like any
//! other value of a choice (`rf::choice`). The new value is a term
//! carried with the causal condition.

use super::machine::{Machine, Outcome, SymbolicRmw};
use super::memory::{memory_id, record, record_term, store_carried_in_memory};
use super::state::State;
use crate::ir::{BinaryOp, OriginId, Place};
use crate::passes::RmwCode;
use crate::smc::interpreter::eval::{Choices, Unmodelled};
use crate::smc::symbolic::term::{self, Formula, Term};
use crate::trace::records::RecordKind;

impl Machine<'_> {
    /// Runs the read-modify-write `rmw` of `slot` at `location` (its
    /// buffer is drained: memory holds what it reads).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn symbolic_rmw(
        &self,
        state: &mut State,
        slot: usize,
        location: u32,
        rmw: SymbolicRmw,
        target: Option<&Place>,
        stmt: OriginId,
        choices: &mut dyn Choices,
    ) -> Result<Outcome<()>, Unmodelled> {
        if self.narrow.is_some() {
            return Err(Unmodelled(
                "a read-modify-write of a symbolic value narrowed by --bitwidth, which the native engine does not model".into(),
            ));
        }
        let wide = self.wide;
        let constant = |(value, term): (i64, Option<Term>)| {
            term.unwrap_or_else(|| Term::constant(value, wide))
        };
        let old = match &rmw.old.1 {
            Some(carried) => {
                state.symbolic.import(slot, carried);
                carried.term.as_ref().clone()
            }
            None => Term::constant(rmw.old.0, wide),
        };
        let writes = match rmw.op {
            RmwCode::Cas => {
                let equal = Formula::compare_equal(old.clone(), constant(rmw.expected));
                state.symbolic.running = slot;
                match choices.branch(&equal, &mut state.symbolic)? {
                    Some(succeeds) => succeeds,
                    None => return Err(Unmodelled::infeasible()),
                }
            }
            _ => true,
        };
        let operation = match rmw.op {
            RmwCode::Exchange | RmwCode::Cas => None,
            RmwCode::Add => Some(BinaryOp::Add),
            RmwCode::Sub => Some(BinaryOp::Sub),
            RmwCode::And => Some(BinaryOp::BitAnd),
            RmwCode::Or => Some(BinaryOp::BitOr),
            RmwCode::Xor => Some(BinaryOp::BitXor),
        };
        let new = match (operation, rmw.operand) {
            (None, (value, None)) => (value, None),
            (None, (_, Some(term))) => (0, Some(term)),
            (Some(op), operand) => {
                let computed = term::arithmetic(op, old, constant(operand), wide)
                    .map_err(|error| Unmodelled(error.to_string()))?;
                (0, Some(computed.term))
            }
        };
        let from = memory_id(state, location);
        if writes {
            let carried = new.1.map(|term| state.symbolic.carried(term));
            let id = store_carried_in_memory(state, location, new.0, carried.clone());
            record(
                state,
                RecordKind::Rmw,
                slot,
                location,
                new.0,
                id,
                from,
                stmt,
            );
            if let Some(carried) = carried {
                record_term(state, &carried.term);
            }
        } else {
            record(
                state,
                RecordKind::Rmw,
                slot,
                location,
                rmw.old.0,
                0,
                from,
                stmt,
            );
            if let Some(carried) = &rmw.old.1 {
                record_term(state, &carried.term);
            }
        }
        if let Some(target) = target {
            let (value, carried) = rmw.old;
            self.store_read(state, slot, target, value, carried.as_deref(), choices)?;
        }
        Ok(Outcome::Next(()))
    }
}
