//! Object designators (lvalues): variables, globals, dereferences,
//! elements, struct members (through anonymous members, bit-fields and
//! unions of scalars) and compound literals as the objects they name.

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{Binding, FnLowerer, Global, LResult, binary};
use crate::frontend::values::LVal;
use crate::ir::*;
use lang_c::ast::{BinaryOperator, Expression, MemberOperator, UnaryOperator};
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Lowers `e` as an object designator.
    pub fn lvalue(&mut self, e: &'a Node<Expression>) -> LResult<LVal> {
        match &e.node {
            Expression::Identifier(id) => self.variable(&id.node.name, e.span),
            Expression::Member(m) => {
                let (base, struct_ty) = match m.node.operator.node {
                    MemberOperator::Direct => {
                        let base = self.struct_object(&m.node.expression)?;
                        let ty = base.ty().clone();
                        (base, ty)
                    }
                    MemberOperator::Indirect => {
                        let pointer = self.rvalue(&m.node.expression)?;
                        let Some(target) = pointer.ty.target().cloned() else {
                            return self.lw.error(
                                e.span,
                                "`->` applied to a non-pointer",
                                "not a pointer",
                            );
                        };
                        let address = self.lw.location_of(pointer.expr);
                        self.note_pointer_base(&address, &pointer.ty, e.span);
                        (
                            LVal::Shared {
                                address,
                                ty: target.clone(),
                                atomic: pointer.ty.target_is_atomic(),
                            },
                            target,
                        )
                    }
                };
                let CType::Struct(id) = struct_ty else {
                    return self
                        .lw
                        .error(e.span, "member access on a non-struct", "not a struct");
                };
                self.member(
                    &base,
                    id,
                    &m.node.identifier.node.name,
                    m.node.identifier.span,
                )
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.index(&b.node.lhs, &b.node.rhs, e.span)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                if let Expression::Call(call) = &u.node.operand.node
                    && matches!(&call.node.callee.node, Expression::Identifier(callee) if callee.node.name == "__errno_location")
                    && call.node.arguments.is_empty()
                {
                    // `errno` as glibc's errno.h spells it
                    return Ok(LVal::Private(self.lw.errno(), CType::INT));
                }
                // `*(a + i)` is `a[i]`, also for an array of private data
                if let Expression::BinaryOperator(b) = &u.node.operand.node
                    && b.node.operator.node == BinaryOperator::Plus
                    && matches!(self.type_of(&b.node.lhs)?, CType::Array(..))
                {
                    return self.index(&b.node.lhs, &b.node.rhs, e.span);
                }
                let pointer = self.rvalue(&u.node.operand)?;
                match pointer.ty.target().cloned() {
                    Some(CType::Function(..)) => {
                        self.lw
                            .refuse(e.span, "a call through a function pointer", None)
                    }
                    Some(CType::Void) | None => self.lw.refuse(
                        e.span,
                        "dereferencing a pointer without a pointee type",
                        Some("cast it to a typed pointer first"),
                    ),
                    Some(target) => {
                        let address = self.lw.location_of(pointer.expr);
                        self.note_pointer_base(&address, &pointer.ty, e.span);
                        Ok(LVal::Shared {
                            address,
                            ty: target,
                            atomic: pointer.ty.target_is_atomic(),
                        })
                    }
                }
            }
            Expression::Cast(c) => {
                // `*(T *)p`-style lvalues come through Indirection; a cast itself is not an lvalue,
                // except GNU's cast of an lvalue to its own type.
                let inner = self.lvalue(&c.node.expression)?;
                self.resolve_typeof_in_type_name(&c.node.type_name)?;
                let (ty, _) = self.lw.types.type_name(&c.node.type_name)?.without_atomic();
                if &ty == inner.ty() {
                    Ok(inner)
                } else {
                    self.lw.refuse(e.span, "a cast used as an lvalue", None)
                }
            }
            Expression::CompoundLiteral(literal) => self.compound_literal(&literal.node, e.span),
            // the array of the string's characters (`sizeof "ab"` is 3)
            Expression::StringLiteral(literal) => {
                let (address, ty) = self.lw.string_object(literal)?;
                Ok(LVal::Shared {
                    address: Expr::Const(address),
                    ty,
                    atomic: false,
                })
            }
            _ => self.lw.error(
                e.span,
                "expression is not an object that can be accessed here",
                "not an lvalue",
            ),
        }
    }

    /// The field `field` of `base`, an object of struct `id`.
    pub fn member(&self, base: &LVal, id: StructId, field: &str, span: Span) -> LResult<LVal> {
        // a member of an anonymous union: a member of that union
        if let Some((whole, inner)) = self.lw.types.anonymous_path(id, field) {
            let whole = self.member(base, id, &whole, span)?;
            return self.member(&whole, inner, field, span);
        }
        if let Some(bits) = self.lw.types.bit_field_member(id, field) {
            return self.bit_field_lvalue(base, id, bits, span);
        }
        if let Some(ty) = self.lw.types.alias_member(id, field) {
            // a member of a union of scalars: its first member's scalar
            let first = self
                .lw
                .types
                .fields(id, span)?
                .first()
                .map(|(name, _)| name.clone())
                .unwrap_or_default();
            let first = self.member(base, id, &first, span)?;
            return match first {
                // a private copy holds the first member's value, not its bits
                LVal::Private(_, first) if first.float_bits().is_some() != ty.float_bits().is_some() => self.lw.refuse(
                    span,
                    "a union that puns a floating value, held in private data here (a result, a compound literal or a thread-local)",
                    Some("copy the union into a local variable or a global first"),
                ),
                LVal::Private(place, _) => Ok(LVal::Private(place, ty)),
                LVal::Shared { address, atomic, .. } => Ok(LVal::Shared { address, ty, atomic }),
            };
        }
        let (offset, field_ty) = self.lw.types.field(id, field, span)?;
        let atomic_field = self.lw.types.field_is_atomic(id, field);
        Ok(match base {
            LVal::Private(place, _) => LVal::Private(
                Place::Field(Box::new(place.clone()), field.to_string()),
                field_ty,
            ),
            LVal::Shared {
                address, atomic, ..
            } => LVal::Shared {
                address: binary(BinaryOp::Add, address.clone(), Expr::Const(offset as i64)),
                ty: field_ty,
                atomic: *atomic || atomic_field,
            },
        })
    }

    pub(in crate::frontend) fn variable(&mut self, name: &str, span: Span) -> LResult<LVal> {
        match self.lookup(name) {
            Some(Binding::Local(id)) => {
                let ty = self.local_types[id].clone();
                if self.locals[id].shared {
                    let atomic = self.atomic_locals.contains(&id);
                    Ok(LVal::Shared {
                        address: Expr::ObjectAddress(id),
                        ty,
                        atomic,
                    })
                } else {
                    Ok(LVal::Private(Place::Local(id), ty))
                }
            }
            Some(Binding::Global(global)) => self.global(&global, span),
            Some(Binding::Constant(..)) => self.lw.refuse(
                span,
                format!("assigning to or taking the address of `{name}`, a size parameter that is a constant at this call"),
                Some("copy the parameter into a local variable and change that"),
            ),
            None => self.global(name, span),
        }
    }

    pub(in crate::frontend) fn global(&mut self, name: &str, span: Span) -> LResult<LVal> {
        match self.lw.globals.get(name) {
            Some(Global::Shared { base, ty, atomic }) => Ok(LVal::Shared {
                address: Expr::Const(*base as i64),
                ty: ty.clone(),
                atomic: *atomic,
            }),
            Some(Global::Plain { id, ty }) => {
                Ok(LVal::Private(Place::PlainGlobal(*id), ty.clone()))
            }
            Some(Global::ThreadLocalShared {
                address,
                ty,
                atomic,
            }) => Ok(LVal::Shared {
                address: Expr::Load(Place::PlainGlobal(*address)),
                ty: ty.clone(),
                atomic: *atomic,
            }),
            Some(Global::ThreadLocal { id, ty }) => Ok(LVal::Private(
                Place::plain_element(*id, Expr::CurrentThread),
                ty.clone(),
            )),
            None if self.lw.functions.contains_key(name)
                || self.lw.prototypes.contains_key(name) =>
            {
                self.lw.refuse(
                    span,
                    format!("using the function `{name}` as a value (function pointer)"),
                    Some("only pthread_create may name a thread entry function"),
                )
            }
            None => self
                .lw
                .error(span, format!("unknown identifier `{name}`"), "not declared"),
        }
    }
}
