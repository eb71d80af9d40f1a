//! Constant addresses: the private locals known to hold constants folded
//! into the addresses of the shared-memory accesses, where that makes an
//! address a constant location or one the printer dispatches over one
//! object (`q->tail` with `q` holding `&queue`, `vars[1 + (r ^ r)]`): the
//! evaluation of addresses over the constants the count knows
//! ([`fold_constant_addresses`](super::fold_constant_addresses) marks them).

use crate::ir::{BinaryOp, Expr, LocalId, Place, Ty, truncate};
use crate::passes::{MemoryLayout, SeqStmt};
use std::collections::BTreeMap;

/// `address` with the known constants substituted, when that makes a
/// constant or an address the printer dispatches over one object out of one
/// that is neither. An address dispatched over one object (`workers[i]`
/// with `i` known) becomes a constant only inside that object, whose
/// bounds check would otherwise be lost.
pub(super) fn folded_address(
    memory: &MemoryLayout,
    constants: &BTreeMap<LocalId, i64>,
    address: &Expr,
) -> Option<Expr> {
    if matches!(address, Expr::Const(_)) || constants.is_empty() {
        return None;
    }
    let location = evaluate(address, constants);
    if let Some((first, scalars)) = memory.indexed_object(address) {
        let inside = |location: &i64| {
            (i64::from(first)..i64::from(first) + i64::from(scalars)).contains(location)
        };
        return location.filter(inside).map(Expr::Const);
    }
    let folded = match location {
        Some(location) => Expr::Const(location),
        None => substitute_constants(address, constants),
    };
    let known = matches!(folded, Expr::Const(_)) || memory.indexed_object(&folded).is_some();
    known.then_some(folded)
}

/// The address a shared-memory access goes to, if `stmt` is one.
pub(super) fn access_address(stmt: &SeqStmt) -> Option<&Expr> {
    stmt.access_address()
}

/// `expr` with the loads of private locals known to hold a constant
/// replaced by that constant (places' own index operands stay as they are).
fn substitute_constants(expr: &Expr, constants: &BTreeMap<LocalId, i64>) -> Expr {
    let substitute = |inner: &Expr| Box::new(substitute_constants(inner, constants));
    match expr {
        Expr::Load(Place::Local(local)) => constants
            .get(local)
            .map_or_else(|| expr.clone(), |value| Expr::Const(*value)),
        Expr::Unary(op, inner) => Expr::Unary(*op, substitute(inner)),
        Expr::Cast(ty, inner) => Expr::Cast(ty.clone(), substitute(inner)),
        Expr::Reinterpret(ty, inner) => Expr::Reinterpret(ty.clone(), substitute(inner)),
        Expr::Binary(op, left, right) => {
            let substituted = Expr::Binary(*op, substitute(left), substitute(right));
            // a known byte address's location is the base of an address
            // the printer dispatches (`(p >> 3) + i`)
            match (op, evaluate(&substituted, constants)) {
                (BinaryOp::Shr, Some(location)) => Expr::Const(location),
                _ => substituted,
            }
        }
        Expr::Conditional(condition, then_value, else_value) => Expr::Conditional(
            substitute(condition),
            substitute(then_value),
            substitute(else_value),
        ),
        Expr::LibraryCall(function, arguments) => Expr::LibraryCall(
            *function,
            arguments
                .iter()
                .map(|argument| substitute_constants(argument, constants))
                .collect(),
        ),
        Expr::Const(_)
        | Expr::FloatConst(_)
        | Expr::Load(_)
        | Expr::ObjectAddress(_)
        | Expr::Nondet(_)
        | Expr::CurrentThread => expr.clone(),
    }
}

/// The value of `expr` if it is a constant given the known `constants`:
/// constants, known locals, `+ - * >>` and in-range casts of constants, and
/// `e ^ e` and `e - e` of one deterministic `e` (the address dependencies of
/// litmus tests).
pub(crate) fn evaluate(expr: &Expr, constants: &BTreeMap<LocalId, i64>) -> Option<i64> {
    match expr {
        Expr::Const(value) => Some(*value),
        Expr::Load(Place::Local(local)) => constants.get(local).copied(),
        Expr::Binary(BinaryOp::BitXor | BinaryOp::Sub, left, right)
            if left == right && deterministic(left) =>
        {
            Some(0)
        }
        Expr::Binary(op, left, right) => {
            let (left, right) = (evaluate(left, constants)?, evaluate(right, constants)?);
            match op {
                BinaryOp::Add => left.checked_add(right),
                BinaryOp::Sub => left.checked_sub(right),
                BinaryOp::Mul => left.checked_mul(right),
                BinaryOp::BitXor => Some(left ^ right),
                // a byte address's location (`p >> 3`)
                BinaryOp::Shr if left >= 0 && (0..63).contains(&right) => Some(left >> right),
                _ => None,
            }
        }
        Expr::Cast(Ty::Pointer(_), inner) => evaluate(inner, constants),
        Expr::Cast(Ty::Int { bits, signed }, inner) => {
            // Only values the type represents (negative ones not as unsigned).
            let value = evaluate(inner, constants)?;
            (truncate(value, *bits, *signed) == value && (*signed || value >= 0)).then_some(value)
        }
        _ => None,
    }
}

/// Whether evaluating `expr` twice gives the same value (no `nondet`).
fn deterministic(expr: &Expr) -> bool {
    match expr {
        Expr::Nondet(_) => false,
        Expr::Const(_)
        | Expr::FloatConst(_)
        | Expr::Load(_)
        | Expr::ObjectAddress(_)
        | Expr::CurrentThread => true,
        Expr::Unary(_, inner) | Expr::Cast(_, inner) | Expr::Reinterpret(_, inner) => {
            deterministic(inner)
        }
        Expr::Binary(_, left, right) => deterministic(left) && deterministic(right),
        Expr::Conditional(condition, then_value, else_value) => {
            deterministic(condition) && deterministic(then_value) && deterministic(else_value)
        }
        Expr::LibraryCall(_, arguments) => arguments.iter().all(deterministic),
    }
}
