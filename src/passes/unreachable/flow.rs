//! What the walk knows at a point of a function: whether it is reachable
//! (and which bound cut it off), the private integer locals of known value
//! or known least value, the allocations made and the threads running; and
//! the constant propagation that finds those values.

use super::Cut;
use crate::ir::{BinaryOp, Expr, FunctionId, Local, LocalId, Place, Ty, UnaryOp};
use std::collections::HashMap;

/// The largest value the propagation keeps: values in `0..=LIMIT` mean the
/// same in every integer type of at least 32 bits, signed or not, so the
/// propagation needs no types of intermediate results.
pub(super) const LIMIT: i64 = i32::MAX as i64;

/// What is known at a point of the function.
#[derive(Debug, Clone, Default)]
pub(super) struct Flow {
    pub(super) reachable: bool,
    /// Private integer locals with a known value.
    pub(super) constants: HashMap<LocalId, i64>,
    /// Private integer locals of unknown value with a known least value
    /// (in `0..`), from the conditions that hold on every path to here.
    pub(super) at_least: HashMap<LocalId, i64>,
    /// Allocations every path to here has made, in this thread and in the
    /// threads it joined.
    pub(super) allocations: u32,
    /// The threads this one created and has not joined yet, by the place
    /// that holds their handle (indices known), with their functions.
    pub(super) running: Vec<(Place, FunctionId)>,
    /// Where the flow is unreachable because a bound always cuts: where.
    pub(super) cut_by: Option<Cut>,
}

impl Flow {
    /// At the function's entry and at a label: reachable, nothing known.
    pub(super) fn entry() -> Flow {
        Flow {
            reachable: true,
            ..Flow::default()
        }
    }

    pub(super) fn unreachable(cut_by: Option<Cut>) -> Flow {
        Flow {
            reachable: false,
            cut_by,
            ..Flow::default()
        }
    }

    /// The flow after two branches.
    pub(super) fn join(self, other: Flow) -> Flow {
        match (self.reachable, other.reachable) {
            (false, false) => Flow::unreachable(self.cut_by.or(other.cut_by)),
            (false, true) => other,
            (true, false) => self,
            (true, true) => {
                let constants = self
                    .constants
                    .into_iter()
                    .filter(|(local, value)| other.constants.get(local) == Some(value))
                    .collect();
                let at_least = self
                    .at_least
                    .into_iter()
                    .filter_map(|(local, least)| {
                        Some((local, least.min(*other.at_least.get(&local)?)))
                    })
                    .collect();
                let allocations = self.allocations.min(other.allocations);
                let running = self
                    .running
                    .into_iter()
                    .filter(|thread| other.running.contains(thread))
                    .collect();
                Flow {
                    reachable: true,
                    constants,
                    at_least,
                    allocations,
                    running,
                    cut_by: None,
                }
            }
        }
    }

    /// Forgets what is known of the local that `place` is part of.
    pub(super) fn forget(&mut self, place: &Place) {
        if let Some(local) = place.root_local() {
            self.constants.remove(&local);
            self.at_least.remove(&local);
            self.running
                .retain(|(handle, _)| handle.root_local() != Some(local));
        }
    }

    /// `place` with the indices the known locals give, if they give all.
    pub(super) fn resolved(&self, place: &Place) -> Option<Place> {
        Some(match place {
            Place::Local(_) | Place::PlainGlobal(_) => place.clone(),
            Place::Index(base, index) => Place::Index(
                Box::new(self.resolved(base)?),
                Box::new(Expr::Const(value(index, &self.constants)?)),
            ),
            Place::Field(base, field) => {
                Place::Field(Box::new(self.resolved(base)?), field.clone())
            }
        })
    }

    /// Whether `condition` holds on every path here (`Some(true)`), on
    /// none (`Some(false)`), or is not known.
    pub(super) fn decides(&self, condition: &Expr) -> Option<bool> {
        if let Some(v) = value(condition, &self.constants) {
            return Some(v != 0);
        }
        match condition {
            Expr::Unary(UnaryOp::Not, operand) => self.decides(operand).map(|holds| !holds),
            Expr::Cast(Ty::Bool, operand) => self.decides(operand),
            Expr::Binary(BinaryOp::LogicalAnd, left, right) => {
                match (self.decides(left), self.decides(right)) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                }
            }
            Expr::Binary(BinaryOp::LogicalOr, left, right) => {
                match (self.decides(left), self.decides(right)) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                }
            }
            Expr::Binary(op, left, right) => {
                let (local, op, bound, _) = self.local_against_value(*op, left, right)?;
                let least = *self.at_least.get(&local)?;
                // `local >= least >= 0`: the same number in any type it is
                // compared in
                match op {
                    BinaryOp::Gt | BinaryOp::Ne if least > bound => Some(true),
                    BinaryOp::Ge if least >= bound => Some(true),
                    BinaryOp::Lt if least >= bound => Some(false),
                    BinaryOp::Le | BinaryOp::Eq if least > bound => Some(false),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Learns what `condition` holding (`holds`) or not says of the least
    /// value of a private integer local (`assume(n >= 5)`, the else branch
    /// of `if (n < 5)`), where `locals` says it is one.
    pub(super) fn learn(&mut self, condition: &Expr, holds: bool, locals: &[Local]) {
        match condition {
            Expr::Unary(UnaryOp::Not, operand) => self.learn(operand, !holds, locals),
            Expr::Cast(Ty::Bool, operand) => self.learn(operand, holds, locals),
            Expr::Binary(BinaryOp::LogicalAnd, left, right) if holds => {
                self.learn(left, true, locals);
                self.learn(right, true, locals);
            }
            Expr::Binary(BinaryOp::LogicalOr, left, right) if !holds => {
                self.learn(left, false, locals);
                self.learn(right, false, locals);
            }
            Expr::Binary(op, left, right) => {
                let Some((local, op, bound, other)) = self.local_against_value(*op, left, right)
                else {
                    return;
                };
                let op = if holds { op } else { negated(op) };
                let least = match op {
                    BinaryOp::Ge => bound,
                    BinaryOp::Gt => bound + 1,
                    _ => return,
                };
                if locals
                    .get(local)
                    .is_some_and(|declared| compared_as_its_own_type(declared, other))
                {
                    let known = self.at_least.entry(local).or_insert(least);
                    *known = (*known).max(least);
                }
            }
            _ => {}
        }
    }

    /// `left op right` as `local op' value`, where one side is a local of
    /// unknown value and the other's (`other`) value is known.
    pub(super) fn local_against_value<'e>(
        &self,
        op: BinaryOp,
        left: &'e Expr,
        right: &'e Expr,
    ) -> Option<(LocalId, BinaryOp, i64, &'e Expr)> {
        let unknown = |e: &Expr| match e {
            Expr::Load(Place::Local(local)) if !self.constants.contains_key(local) => Some(*local),
            _ => None,
        };
        match (unknown(left), unknown(right)) {
            (Some(local), None) => Some((local, op, value(right, &self.constants)?, right)),
            (None, Some(local)) => {
                Some((local, mirrored(op)?, value(left, &self.constants)?, left))
            }
            _ => None,
        }
    }
}

/// `a op b` as `b op' a`, for a comparison.
pub(super) fn mirrored(op: BinaryOp) -> Option<BinaryOp> {
    Some(match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Ge => BinaryOp::Le,
        BinaryOp::Eq | BinaryOp::Ne => op,
        _ => return None,
    })
}

/// The comparison that holds where `op` fails.
pub(super) fn negated(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Ge,
        BinaryOp::Ge => BinaryOp::Lt,
        BinaryOp::Gt => BinaryOp::Le,
        BinaryOp::Le => BinaryOp::Gt,
        BinaryOp::Eq => BinaryOp::Ne,
        BinaryOp::Ne => BinaryOp::Eq,
        other => other,
    }
}

/// Whether comparing `local`, a private integer, with `other` compares
/// the local's own value: always for an unsigned local; for a signed one,
/// when `other` is a literal of a signed type (`n >= 5`, not `n >= 5u`,
/// which `-1` passes as a large unsigned number).
pub(super) fn compared_as_its_own_type(local: &Local, other: &Expr) -> bool {
    let signed_literal = match other {
        Expr::Const(_) => true,
        Expr::Cast(Ty::Int { signed: true, bits }, operand) => {
            *bits >= 32 && matches!(**operand, Expr::Const(_))
        }
        _ => false,
    };
    match local.ty {
        _ if local.shared => false,
        Ty::Bool | Ty::Int { signed: false, .. } => true,
        Ty::Int { signed: true, .. } => signed_literal,
        _ => false,
    }
}

/// The value a private local of integer type holds after `v` is stored in
/// it, when the propagation can represent it.
pub(super) fn stored_value(local: &Local, v: i64) -> Option<i64> {
    if local.shared {
        return None;
    }
    match local.ty {
        Ty::Bool => Some(i64::from(v != 0)),
        Ty::Int { bits, .. } if fits(v, bits) => Some(v),
        _ => None,
    }
}

/// Whether `v` (in `0..=LIMIT`) is the same value in an integer type of
/// `bits` bits, signed or not.
pub(super) fn fits(v: i64, bits: u8) -> bool {
    bits >= 32 || (bits >= 2 && v < 1i64 << (bits - 1))
}

/// The value of a pure expression, when the known locals determine it and
/// every value on the way lies in `0..=LIMIT`.
pub(super) fn value(expr: &Expr, constants: &HashMap<LocalId, i64>) -> Option<i64> {
    let v = match expr {
        Expr::Const(c) => *c,
        Expr::Load(Place::Local(local)) => *constants.get(local)?,
        Expr::Unary(op, operand) => {
            let v = value(operand, constants)?;
            match op {
                UnaryOp::Not => i64::from(v == 0),
                UnaryOp::Neg if v == 0 => 0,
                UnaryOp::Neg | UnaryOp::BitNot => return None,
            }
        }
        Expr::Binary(op, left, right) => binary(*op, left, right, constants)?,
        Expr::Conditional(condition, then_value, else_value) => {
            if value(condition, constants)? != 0 {
                value(then_value, constants)?
            } else {
                value(else_value, constants)?
            }
        }
        Expr::Cast(ty, operand) => {
            let v = value(operand, constants)?;
            match ty {
                Ty::Bool => i64::from(v != 0),
                Ty::Int { bits, .. } if fits(v, *bits) => v,
                _ => return None,
            }
        }
        Expr::Load(_)
        | Expr::ObjectAddress(_)
        | Expr::Nondet(_)
        | Expr::CurrentThread
        | Expr::FloatConst(_)
        | Expr::Reinterpret(..)
        | Expr::LibraryCall(..) => return None,
    };
    (0..=LIMIT).contains(&v).then_some(v)
}

pub(super) fn binary(
    op: BinaryOp,
    left: &Expr,
    right: &Expr,
    constants: &HashMap<LocalId, i64>,
) -> Option<i64> {
    let (l, r) = (value(left, constants), value(right, constants));
    // one known operand decides these
    match op {
        BinaryOp::LogicalAnd if l == Some(0) || r == Some(0) => return Some(0),
        BinaryOp::LogicalOr if l.is_some_and(|v| v != 0) || r.is_some_and(|v| v != 0) => {
            return Some(1);
        }
        _ => {}
    }
    let (l, r) = (l?, r?);
    Some(match op {
        BinaryOp::Add => l.checked_add(r)?,
        BinaryOp::Sub => l - r,
        BinaryOp::Mul => l.checked_mul(r)?,
        BinaryOp::Div if r != 0 => l / r,
        BinaryOp::Rem if r != 0 => l % r,
        BinaryOp::Div | BinaryOp::Rem => return None,
        BinaryOp::Shl if r < 31 => l << r,
        BinaryOp::Shr if r < 32 => l >> r,
        BinaryOp::Shl | BinaryOp::Shr => return None,
        BinaryOp::BitAnd => l & r,
        BinaryOp::BitOr => l | r,
        BinaryOp::BitXor => l ^ r,
        BinaryOp::LogicalAnd => i64::from(l != 0 && r != 0),
        BinaryOp::LogicalOr => i64::from(l != 0 || r != 0),
        BinaryOp::Eq => i64::from(l == r),
        BinaryOp::Ne => i64::from(l != r),
        BinaryOp::Lt => i64::from(l < r),
        BinaryOp::Le => i64::from(l <= r),
        BinaryOp::Gt => i64::from(l > r),
        BinaryOp::Ge => i64::from(l >= r),
    })
}
