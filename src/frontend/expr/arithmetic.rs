//! Binary operators: integer, pointer and floating arithmetic with C's
//! conversions, comparisons, and division checks.

use super::bit_fields::value_type;
use crate::frontend::c_types::types::{CType, truncate};
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::{LVal, Val, common, promote};
use crate::ir::*;
use lang_c::ast::{self, BinaryOperator, Expression};
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    pub(in crate::frontend) fn binary_expression(
        &mut self,
        b: &'a ast::BinaryOperatorExpression,
        e: &'a Node<Expression>,
    ) -> LResult<Val> {
        use BinaryOperator as B;
        match b.operator.node.clone() {
            B::Index => {
                let lv = self.lvalue(e)?;
                self.load(lv, e.span)
            }
            B::LogicalAnd | B::LogicalOr => {
                self.short_circuit(b.operator.node == B::LogicalAnd, &b.lhs, &b.rhs)
            }
            B::Assign => self.assign(&b.lhs, &b.rhs, e.span),
            compound if let Some(op) = compound_assignment(&compound) => {
                self.note_bits_taken_apart(&op, b, e.span);
                let lv = self.modifiable_lvalue(&b.lhs)?;
                if let LVal::Shared {
                    address,
                    ty,
                    atomic: true,
                } = lv
                {
                    let mark = self.mark();
                    let rhs = self.rvalue(&b.rhs)?;
                    let rhs = Val {
                        expr: self.save(rhs.expr, &rhs.ty),
                        ty: rhs.ty,
                    };
                    let address = self.protect(address, &CType::LONG, mark);
                    let (_, new) = self.atomic_update(address, &ty, e.span, |f, old| {
                        f.arithmetic(&op, old, rhs, e.span)
                    })?;
                    return Ok(new);
                }
                let current = self.load(lv.clone(), e.span)?;
                let mark = self.mark();
                let rhs = self.rvalue(&b.rhs)?;
                let current = Val {
                    expr: self.protect(current.expr, &current.ty, mark),
                    ty: current.ty,
                };
                // the value is the target's afterwards, in its type
                let new = self.arithmetic(&op, current, rhs, e.span)?;
                let ty = lv.ty().clone();
                let new = self.convert(new, &ty, e.span)?;
                let new = Val {
                    expr: self.save(new, &ty),
                    ty: value_type(&ty),
                };
                self.store(&lv, new.clone(), e.span)?;
                Ok(new)
            }
            op => {
                self.note_bits_taken_apart(&op, b, e.span);
                let lhs = self.rvalue(&b.lhs)?;
                let mark = self.mark();
                let rhs = self.rvalue(&b.rhs)?;
                let lhs = Val {
                    expr: self.protect(lhs.expr, &lhs.ty, mark),
                    ty: lhs.ty,
                };
                self.arithmetic(&op, lhs, rhs, e.span)
            }
        }
    }

    /// `lhs op rhs` on pure operands, with pointer arithmetic scaled by the
    /// pointee size in scalars.
    pub fn arithmetic(
        &mut self,
        op: &BinaryOperator,
        lhs: Val,
        rhs: Val,
        span: Span,
    ) -> LResult<Val> {
        use BinaryOperator as B;
        if matches!(lhs.ty, CType::Float(_)) || matches!(rhs.ty, CType::Float(_)) {
            return self.floating_arithmetic(op, lhs, rhs, span);
        }
        let stride = |s: &Self, ty: &CType| s.pointer_stride(ty);
        let (ir_op, ty) = match op {
            B::Plus | B::Minus => {
                let sub = matches!(op, B::Minus);
                let op = if sub { BinaryOp::Sub } else { BinaryOp::Add };
                match (lhs.ty.is_pointer(), rhs.ty.is_pointer()) {
                    (true, false) => {
                        let k = stride(self, &lhs.ty);
                        let expr = self.lw.pointer_step(
                            op,
                            lhs.expr,
                            binary(BinaryOp::Mul, rhs.expr, Expr::Const(k)),
                        );
                        return Ok(Val { expr, ty: lhs.ty });
                    }
                    (false, true) if !sub => {
                        let k = stride(self, &rhs.ty);
                        let expr = self.lw.pointer_step(
                            op,
                            rhs.expr,
                            binary(BinaryOp::Mul, lhs.expr, Expr::Const(k)),
                        );
                        return Ok(Val { expr, ty: rhs.ty });
                    }
                    (true, true) if sub => {
                        let k = stride(self, &lhs.ty);
                        // pointers are unsigned in the sequential program:
                        // their difference is signed before it is divided
                        let difference = match binary(BinaryOp::Sub, lhs.expr, rhs.expr) {
                            Expr::Const(c) => Expr::Const(c),
                            difference => Expr::Cast(Ty::INT, Box::new(difference)),
                        };
                        let expr = if k == 1 {
                            difference
                        } else {
                            binary(BinaryOp::Div, difference, Expr::Const(k))
                        };
                        return Ok(Val {
                            expr,
                            ty: CType::LONG,
                        });
                    }
                    (false, false) => (op, common(&lhs.ty, &rhs.ty)),
                    _ => return self.lw.refuse(span, "this pointer arithmetic", None),
                }
            }
            B::Multiply => (BinaryOp::Mul, common(&lhs.ty, &rhs.ty)),
            B::Divide => (BinaryOp::Div, common(&lhs.ty, &rhs.ty)),
            B::Modulo => (BinaryOp::Rem, common(&lhs.ty, &rhs.ty)),
            B::ShiftLeft => (BinaryOp::Shl, promote(&lhs.ty)),
            B::ShiftRight => (BinaryOp::Shr, promote(&lhs.ty)),
            B::BitwiseAnd => (BinaryOp::BitAnd, common(&lhs.ty, &rhs.ty)),
            B::BitwiseOr => (BinaryOp::BitOr, common(&lhs.ty, &rhs.ty)),
            B::BitwiseXor => (BinaryOp::BitXor, common(&lhs.ty, &rhs.ty)),
            B::Less => (BinaryOp::Lt, CType::INT),
            B::Greater => (BinaryOp::Gt, CType::INT),
            B::LessOrEqual => (BinaryOp::Le, CType::INT),
            B::GreaterOrEqual => (BinaryOp::Ge, CType::INT),
            B::Equals => (BinaryOp::Eq, CType::INT),
            B::NotEquals => (BinaryOp::Ne, CType::INT),
            B::LogicalAnd => (BinaryOp::LogicalAnd, CType::INT),
            B::LogicalOr => (BinaryOp::LogicalOr, CType::INT),
            _ => return self.lw.refuse(span, "this operator", None),
        };
        if matches!(lhs.ty, CType::Struct(_)) || matches!(rhs.ty, CType::Struct(_)) {
            return self.lw.refuse(span, "an operator on a struct value", None);
        }
        // The type the operands are computed in: a constant operand must
        // carry it into the printed C when it is wider than `int` (a plain
        // `1` in `1L << 33` would shift a 32-bit one).
        let operand_ty = match ir_op {
            BinaryOp::Shl | BinaryOp::Shr => ty.clone(),
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => CType::INT,
            _ if ty == CType::INT => common(&lhs.ty, &rhs.ty),
            _ => ty.clone(),
        };

        if matches!(ir_op, BinaryOp::Div | BinaryOp::Rem) {
            self.check_divisor(&rhs.expr);
        }
        // Constant operands of `+ - * / %` fold (`sizeof(T) * N` becomes
        // the allocation size, `sizeof a / sizeof a[0]` the length), wrapped
        // to the result type as C computes it.
        if let (
            Expr::Const(_),
            Expr::Const(_),
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem,
            CType::Int { bits, signed },
        ) = (&lhs.expr, &rhs.expr, ir_op, &ty)
            && let Expr::Const(v) = binary(ir_op, lhs.expr.clone(), rhs.expr.clone())
        {
            return Ok(Val {
                expr: Expr::Const(truncate(v, *bits, *signed)),
                ty,
            });
        }
        let lhs = widen_constant(lhs.expr, &operand_ty, self);
        let rhs = match ir_op {
            BinaryOp::Shl | BinaryOp::Shr => rhs.expr,
            _ => widen_constant(rhs.expr, &operand_ty, self),
        };
        Ok(Val {
            expr: Expr::Binary(ir_op, Box::new(lhs), Box::new(rhs)),
            ty,
        })
    }

    /// `lhs op rhs` where an operand is floating: both are converted to
    /// the wider floating type (C's usual arithmetic conversions) and
    /// computed as C computes them. A division by zero gives an infinity
    /// or a NaN (IEEE 754, C's Annex F), no violation.
    pub(in crate::frontend) fn floating_arithmetic(
        &mut self,
        op: &BinaryOperator,
        lhs: Val,
        rhs: Val,
        span: Span,
    ) -> LResult<Val> {
        use BinaryOperator as B;
        let (ir_op, result) = match op {
            B::Plus => (BinaryOp::Add, None),
            B::Minus => (BinaryOp::Sub, None),
            B::Multiply => (BinaryOp::Mul, None),
            B::Divide => (BinaryOp::Div, None),
            B::Less => (BinaryOp::Lt, Some(CType::INT)),
            B::Greater => (BinaryOp::Gt, Some(CType::INT)),
            B::LessOrEqual => (BinaryOp::Le, Some(CType::INT)),
            B::GreaterOrEqual => (BinaryOp::Ge, Some(CType::INT)),
            B::Equals => (BinaryOp::Eq, Some(CType::INT)),
            B::NotEquals => (BinaryOp::Ne, Some(CType::INT)),
            B::LogicalAnd | B::LogicalOr => {
                let ir_op = if matches!(op, B::LogicalAnd) {
                    BinaryOp::LogicalAnd
                } else {
                    BinaryOp::LogicalOr
                };
                return Ok(Val {
                    expr: binary(ir_op, lhs.expr, rhs.expr),
                    ty: CType::INT,
                });
            }
            _ => {
                return self.lw.error(
                    span,
                    "this operator on a floating value",
                    "needs integer operands",
                );
            }
        };
        let common = common(&lhs.ty, &rhs.ty);
        if !matches!(common, CType::Float(_)) {
            return self.lw.error(
                span,
                "arithmetic between a pointer and a floating value",
                "not a number",
            );
        }
        let lhs = self.convert(lhs, &common, span)?;
        let rhs = self.convert(rhs, &common, span)?;
        Ok(Val {
            expr: Expr::Binary(ir_op, Box::new(lhs), Box::new(rhs)),
            ty: result.unwrap_or(common),
        })
    }

    /// A division by `divisor` is a violation where it is zero (C leaves
    /// its result undefined): a check before it, unless the divisor is a
    /// constant other than zero.
    pub(in crate::frontend) fn check_divisor(&mut self, divisor: &Expr) {
        if !self.lw.division_checks || matches!(divisor, Expr::Const(c) if *c != 0) {
            return;
        }
        let condition = binary(BinaryOp::Ne, divisor.clone(), Expr::Const(0));
        self.emit(StmtKind::Assert {
            condition,
            kind: PropertyKind::DivisionByZero,
        });
    }
}

/// A constant that C computes in an unsigned type (`2u`, or `2` next to an
/// unsigned operand) or one wider than `int` (`1L`, or `1` next to a `long`
/// operand), cast to that type: the printer writes constants without a
/// suffix, so `v - 2u` would be computed signed.
pub(in crate::frontend) fn widen_constant(expr: Expr, ty: &CType, lowerer: &FnLowerer) -> Expr {
    match (&expr, ty) {
        (Expr::Const(v), CType::Int { bits, signed })
            if !*signed || (*bits > 32 && i32::try_from(*v).is_ok()) =>
        {
            Expr::Cast(lowerer.lw.types.ir_type(ty), Box::new(expr))
        }
        _ => expr,
    }
}

/// The operator a compound assignment (`+=`, `<<=`, ...) applies.
/// Whether `operator` works on the bits of its operands (an address's
/// bits, when an operand holds one: [`FnLowerer::holds_address`]).
pub fn takes_bits_apart(operator: &BinaryOperator) -> bool {
    use BinaryOperator as B;
    matches!(
        operator,
        B::BitwiseAnd | B::BitwiseOr | B::BitwiseXor | B::ShiftLeft | B::ShiftRight | B::Modulo
    )
}

pub fn compound_assignment(operator: &BinaryOperator) -> Option<BinaryOperator> {
    use BinaryOperator as B;
    Some(match operator {
        B::AssignMultiply => B::Multiply,
        B::AssignDivide => B::Divide,
        B::AssignModulo => B::Modulo,
        B::AssignPlus => B::Plus,
        B::AssignMinus => B::Minus,
        B::AssignShiftLeft => B::ShiftLeft,
        B::AssignShiftRight => B::ShiftRight,
        B::AssignBitwiseAnd => B::BitwiseAnd,
        B::AssignBitwiseXor => B::BitwiseXor,
        B::AssignBitwiseOr => B::BitwiseOr,
        _ => return None,
    })
}
