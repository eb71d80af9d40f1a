//! Assignments: simple and compound, `++` and `--`, atomic
//! read-modify-writes of `_Atomic` objects, and the notes an assignment
//! leaves about addresses held as integers.

use crate::frontend::c_types::types::CType;
use crate::frontend::expr::arithmetic::takes_bits_apart;
use crate::frontend::expr::bit_fields::value_type;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::{LVal, Val, memory_type};
use crate::ir::*;
use lang_c::ast::{self, BinaryOperator, Expression, MemberOperator};
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// The object that an assignment, `++` or `--` changes: an lvalue
    /// that is not a member of a function's result (`make().x = 3`, which
    /// C rejects: the result is a value).
    pub(in crate::frontend) fn modifiable_lvalue(
        &mut self,
        e: &'a Node<Expression>,
    ) -> LResult<LVal> {
        let mut root = e;
        while let Expression::Member(m) = &root.node
            && m.node.operator.node == MemberOperator::Direct
        {
            root = &m.node.expression;
        }
        if !std::ptr::eq(root, e) && matches!(root.node, Expression::Call(_)) {
            let message = "a member of a function's result is not an lvalue";
            let help = Some("store the result in a variable and change that".to_string());
            return Err(Box::new(self.lw.source.diagnostic(
                e.span.start,
                e.span.end,
                message,
                "cannot be assigned to",
                help,
            )));
        }
        self.lvalue(e)
    }

    /// Whether the integer `e` holds an address: a typed pointer cast to
    /// an integer, or a local that was given one. A `void *` may carry an
    /// integer (a thread's argument `(void *)5`), so it does not count.
    pub fn holds_address(&mut self, e: &'a Node<Expression>) -> bool {
        let inner = crate::frontend::analysis::scan::uncast(e);
        match &inner.node {
            Expression::Identifier(id) if self.address_integers.contains(&id.node.name) => true,
            _ if !std::ptr::eq(inner, e) => {
                matches!(self.type_of(inner), Ok(CType::Pointer(target)) if !matches!(*target, CType::Void))
            }
            _ => false,
        }
    }

    /// Notes whether `operator` of `b` (at `span`) takes an address apart
    /// ([`Lowerer::address_taken_apart_at`]).
    pub(in crate::frontend) fn note_bits_taken_apart(
        &mut self,
        operator: &BinaryOperator,
        b: &'a ast::BinaryOperatorExpression,
        span: Span,
    ) {
        if self.lw.address_taken_apart_at.is_none()
            && takes_bits_apart(operator)
            && (self.holds_address(&b.lhs) || self.holds_address(&b.rhs))
        {
            self.lw.address_taken_apart_at = Some(span);
        }
    }

    /// Notes that the integer local `name` of type `ty` is given the value
    /// `value`, which may be an address.
    pub fn note_address_integer(&mut self, name: &str, ty: &CType, value: &'a Node<Expression>) {
        if matches!(ty, CType::Int { .. }) && self.holds_address(value) {
            self.address_integers.insert(name.to_string());
        }
    }

    pub(in crate::frontend) fn assign(
        &mut self,
        lhs: &'a Node<Expression>,
        rhs: &'a Node<Expression>,
        span: Span,
    ) -> LResult<Val> {
        let lv = self.modifiable_lvalue(lhs)?;
        if let (Expression::Identifier(id), LVal::Private(Place::Local(_), ty)) = (&lhs.node, &lv) {
            let ty = ty.clone();
            self.note_address_integer(&id.node.name, &ty, rhs);
        }
        if let CType::Struct(_) = lv.ty() {
            return self.assign_struct(lv, rhs, span);
        }
        let mark = self.mark();
        let value = self.rvalue(rhs)?;
        let lv = match lv {
            LVal::Shared {
                address,
                ty,
                atomic,
            } => LVal::Shared {
                address: self.protect(address, &CType::LONG, mark),
                ty,
                atomic,
            },
            private => private,
        };
        // the value of `x = e` is x's afterwards: e converted to x's type
        let ty = lv.ty().clone();
        let converted = self.convert(value, &ty, span)?;
        let value = Val {
            expr: self.save_if_shared_target(&lv, converted, &ty),
            ty: value_type(&ty),
        };
        self.store(&lv, value.clone(), span)?;
        Ok(value)
    }

    /// `++` (`increment`) or `--` of the `_Atomic` object at `address`:
    /// returns the old and the new value.
    pub fn atomic_step(
        &mut self,
        address: Expr,
        ty: &CType,
        increment: bool,
        span: Span,
    ) -> LResult<(Val, Val)> {
        let op = if increment {
            BinaryOperator::Plus
        } else {
            BinaryOperator::Minus
        };
        self.atomic_update(address, ty, span, |f, old| {
            f.arithmetic(&op, old, Val::int(1), span)
        })
    }

    /// `++`, `--` or a compound assignment of an `_Atomic` object at
    /// `address`: C11 makes it one atomic read-modify-write (`seq_cst`).
    /// It is a compare-and-swap that must find the value guessed before it
    /// (an execution that guessed wrong is cut off), writing `update` of
    /// the guess, computed as C computes it. Returns the old and the new
    /// value. On a 64-bit object in shared memory of `--bitwidth` 32 or
    /// less, a new value that no `int` holds cuts the execution off, as a
    /// store of it does; a guess that no `int` holds finds no memory value
    /// like it (the assumption compares in the object's type).
    pub fn atomic_update(
        &mut self,
        address: Expr,
        ty: &CType,
        span: Span,
        update: impl FnOnce(&mut Self, Val) -> LResult<Val>,
    ) -> LResult<(Val, Val)> {
        self.lw.shared_float_fits(ty, span)?;
        // memory's type: a floating value's bits are guessed and swapped
        let stored = memory_type(ty);
        let guess = self.temp(&stored);
        self.emit(StmtKind::Assign(
            Place::Local(guess),
            Expr::Nondet(self.lw.types.ir_type(&stored)),
        ));
        let guessed = Expr::Load(Place::Local(guess));
        let old = Val {
            expr: self.value_from_memory(guessed.clone(), ty),
            ty: ty.clone(),
        };
        let new = update(self, old.clone())?;
        let new = self.convert(new, ty, span)?;
        let new = self.save(new, ty);
        let desired = self.to_memory(new.clone(), ty);
        self.cut_off_wider_than_shared_memory(&desired, &stored);
        let found = self.temp(&stored);
        self.note_access_type(ty);
        self.emit(StmtKind::Rmw {
            target: Some(Place::Local(found)),
            address,
            op: RmwOp::CompareExchange {
                expected: guessed.clone(),
                desired,
            },
        });
        self.emit(StmtKind::Assume(binary(
            BinaryOp::Eq,
            Expr::Load(Place::Local(found)),
            guessed,
        )));
        Ok((
            old,
            Val {
                expr: new,
                ty: ty.clone(),
            },
        ))
    }

    /// The value of `x = e` is reused by the enclosing expression; when `x` is
    /// private and `e` reads it, keep `e`'s value.
    pub(in crate::frontend) fn save_if_shared_target(
        &mut self,
        lv: &LVal,
        e: Expr,
        ty: &CType,
    ) -> Expr {
        match lv {
            LVal::Private(..) if !self.is_stable(&e) && !matches!(e, Expr::Load(_)) => {
                self.save(e, ty)
            }
            _ => e,
        }
    }
}
