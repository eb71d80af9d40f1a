//! Struct values: struct objects as operands, struct assignment and
//! copies, parameters passed by value, scalar by scalar.

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::{LVal, Val};
use crate::ir::*;
use lang_c::ast::{BinaryOperator, Expression};
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Struct assignment: shared to shared one location at a time, else as
    /// [`Self::copy_struct`] copies.
    pub(in crate::frontend) fn assign_struct(
        &mut self,
        target: LVal,
        rhs: &'a Node<Expression>,
        span: Span,
    ) -> LResult<Val> {
        let source = self.struct_object(rhs)?;
        if source.ty() != target.ty() {
            return self
                .lw
                .refuse(span, "assigning between different struct types", None);
        }
        match (target, source) {
            (
                LVal::Shared {
                    address: to, ty, ..
                },
                LVal::Shared { address: from, .. },
            ) => {
                for k in 0..self.lw.types.size(&ty) as i64 {
                    let temp = self.temp(&CType::LONG);
                    self.emit(StmtKind::Read {
                        target: Place::Local(temp),
                        address: binary(BinaryOp::Add, from.clone(), Expr::Const(k)),
                    });
                    self.emit(StmtKind::Write {
                        address: binary(BinaryOp::Add, to.clone(), Expr::Const(k)),
                        value: Expr::Load(Place::Local(temp)),
                    });
                }
            }
            (target, source) => self.copy_struct(&target, &source, span)?,
        }
        Ok(Val::void())
    }

    /// The struct object `e` designates: an lvalue, or the private
    /// temporary that holds the result of a call returning a struct.
    pub fn struct_object(&mut self, e: &'a Node<Expression>) -> LResult<LVal> {
        match &e.node {
            Expression::Call(call) => {
                let result = self.call(call, e.span)?;
                match (result.expr, result.ty) {
                    (Expr::Load(place), ty @ CType::Struct(_)) => Ok(LVal::Private(place, ty)),
                    _ => self.lw.error(
                        e.span,
                        "a struct is needed here",
                        "this call does not return a struct",
                    ),
                }
            }
            Expression::Conditional(c) => {
                let condition = self.rvalue(&c.node.condition)?.expr;
                let ty = self.type_of(&c.node.then_expression)?;
                let copy = self.private_struct(&ty, e.span)?;
                let (then_branch, ()) =
                    self.in_block(|f| f.copy_struct_value(&copy, &c.node.then_expression))?;
                let (else_branch, ()) =
                    self.in_block(|f| f.copy_struct_value(&copy, &c.node.else_expression))?;
                self.emit(StmtKind::If {
                    condition,
                    then_branch,
                    else_branch,
                });
                Ok(copy)
            }
            Expression::Comma(items) => {
                let Some((last, others)) = items.split_last() else {
                    return self.lw.error(e.span, "an empty comma expression", "here");
                };
                for item in others {
                    self.rvalue(item)?;
                }
                self.struct_object(last)
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Assign => {
                // the value is the source's, copied once: reading a shared
                // target back could see another thread's store
                let ty = self.type_of(&b.node.lhs)?;
                let copy = self.private_struct(&ty, e.span)?;
                self.copy_struct_value(&copy, &b.node.rhs)?;
                let target = self.modifiable_lvalue(&b.node.lhs)?;
                self.copy_struct(&target, &copy, e.span)?;
                Ok(copy)
            }
            _ => self.lvalue(e),
        }
    }

    /// A fresh private struct of type `ty`, for a struct value.
    pub(in crate::frontend) fn private_struct(&mut self, ty: &CType, span: Span) -> LResult<LVal> {
        if !matches!(ty, CType::Struct(_)) {
            return self
                .lw
                .error(span, "a struct is needed here", "not a struct");
        }
        Ok(LVal::Private(Place::Local(self.temp(ty)), ty.clone()))
    }

    /// Copies the struct value of `e` into `target`, of the same type.
    pub(in crate::frontend) fn copy_struct_value(
        &mut self,
        target: &LVal,
        e: &'a Node<Expression>,
    ) -> LResult<()> {
        let source = self.struct_object(e)?;
        if source.ty() != target.ty() {
            return self.lw.error(
                e.span,
                "a struct of another type than the other operand's",
                "another struct type",
            );
        }
        self.copy_struct(target, &source, e.span)
    }

    /// The value of the struct expression `e` as a function argument or
    /// result, of struct type `ty`: a fresh private copy, which later
    /// changes of the original do not reach (C passes and returns structs
    /// by value).
    pub fn struct_value(
        &mut self,
        e: &'a Node<Expression>,
        ty: &CType,
        span: Span,
    ) -> LResult<Expr> {
        let source = self.struct_object(e)?;
        if source.ty() != ty {
            return self.lw.error(
                span,
                "a struct of another type than the one declared",
                "not of the parameter's or result's struct type",
            );
        }
        let copy = self.temp(ty);
        let target = LVal::Private(Place::Local(copy), ty.clone());
        self.copy_struct(&target, &source, span)?;
        Ok(Expr::Load(Place::Local(copy)))
    }

    /// Copies the struct `source` into `target` of the same type: as a
    /// whole between private objects, scalar by scalar from or to shared
    /// memory. It copies a scalar so too (`memcpy`), but no array: C
    /// assigns no arrays as a whole.
    pub fn copy_struct(&mut self, target: &LVal, source: &LVal, span: Span) -> LResult<()> {
        match (target, source) {
            (LVal::Private(to, _), LVal::Private(from, _)) => {
                self.emit(StmtKind::Assign(to.clone(), Expr::Load(from.clone())));
                Ok(())
            }
            (target, source) => self.copy_scalars(target, source, span),
        }
    }

    /// Stores the value of the private parameter `private` into its shared
    /// home `shared` (the parameter's address is taken).
    pub fn store_parameter(
        &mut self,
        shared: LocalId,
        private: LocalId,
        ty: &CType,
        span: Span,
    ) -> LResult<()> {
        if matches!(ty, CType::Struct(_)) {
            let target = LVal::Shared {
                address: Expr::ObjectAddress(shared),
                ty: ty.clone(),
                atomic: false,
            };
            let source = LVal::Private(Place::Local(private), ty.clone());
            return self.copy_scalars(&target, &source, span);
        }
        self.write_shared(
            Expr::ObjectAddress(shared),
            Expr::Load(Place::Local(private)),
            ty,
        );
        Ok(())
    }

    /// Copies an object between private and shared memory scalar by
    /// scalar: a load and a store of each field and element, in order.
    pub fn copy_scalars(&mut self, target: &LVal, source: &LVal, span: Span) -> LResult<()> {
        match target.ty().clone() {
            CType::Struct(id) => {
                let fields: Vec<String> = self
                    .lw
                    .types
                    .fields(id, span)?
                    .iter()
                    .map(|(name, _)| name.clone())
                    .collect();
                for field in fields {
                    let (to, from) = (
                        self.member(target, id, &field, span)?,
                        self.member(source, id, &field, span)?,
                    );
                    self.copy_scalars(&to, &from, span)?;
                }
                Ok(())
            }
            CType::Array(_, length) => (0..length).try_for_each(|index| {
                let (to, from) = (self.element(target, index), self.element(source, index));
                self.copy_scalars(&to, &from, span)
            }),
            _ => {
                let value = self.load(source.clone(), span)?;
                self.store(target, value, span)
            }
        }
    }
}
