//! Casts: numeric conversions, pointers converted between types, integers
//! made addresses, and the addresses of members computed from a pointer to
//! a member or from the null pointer (`container_of`, hand-written
//! `offsetof`).

use crate::frontend::c_types::types::{CType, Unit};
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::Val;
use crate::ir::*;
use lang_c::ast::{self, BinaryOperator, Expression, MemberOperator, UnaryOperator};
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    pub(in crate::frontend) fn cast(
        &mut self,
        c: &'a ast::CastExpression,
        span: Span,
    ) -> LResult<Val> {
        self.resolve_typeof_in_type_name(&c.type_name)?;
        let (to, _) = self.lw.types.type_name(&c.type_name)?.without_atomic();
        if let CType::Pointer(target) = &to
            && let Some(member) = self.member_step(target, &c.expression, span)?
        {
            return Ok(Val {
                expr: member,
                ty: to,
            });
        }
        // `(double)1.797...e+308L`, as <float.h> spells DBL_MAX
        if let Some(bits) = to.float_bits()
            && let Some(literal) = super::long_double::converted_literal(&c.expression, bits)
        {
            return Ok(Val {
                expr: Expr::FloatConst(literal),
                ty: to,
            });
        }
        let v = self.rvalue(&c.expression)?;
        match (&to, &v.ty) {
            (CType::Void, _) => Ok(Val::void()),
            (CType::Float(_), _) | (_, CType::Float(_)) => {
                self.lw.supported_float(&to, span)?;
                let expr = self.convert(v, &to, span)?;
                Ok(Val { expr, ty: to })
            }
            (CType::Pointer(target), CType::Pointer(source)) => {
                self.note_conversion(&v, &to);
                self.note_allocation_type(&v, &to);
                let sizes = (
                    self.lw.types.byte_size(source),
                    self.lw.types.byte_size(target),
                );
                if target.is_scalar() && source.is_scalar() && sizes.0 != sizes.1 {
                    return self.lw.refuse(
                        span,
                        format!("a cast between pointers to scalars of different sizes ({} and {} bytes)", sizes.0, sizes.1),
                        Some("memory is made of whole scalars here: the bytes of one cannot be accessed one by one; copy the value instead"),
                    );
                }
                if !self.compatible_pointees(target, source)
                    && !self.first_member_of(target, source)
                    && !self.first_member_of(source, target)
                {
                    return self.lw.refuse(
                        span,
                        "a cast that reinterprets memory between different object types",
                        Some("keep one pointer type per object"),
                    );
                }
                Ok(Val {
                    expr: v.expr,
                    ty: to,
                })
            }
            (CType::Pointer(target), _) => {
                self.note_conversion(&v, &to);
                if self.integer_made_an_address(target, &v.expr, &c.expression) {
                    self.lw.address_taken_apart_at.get_or_insert(span);
                }
                Ok(Val {
                    expr: self.integer_constant_as_pointer(v.expr, &to),
                    ty: to,
                })
            }
            (CType::Int { .. } | CType::Bool, _) => {
                let expr = self.convert(v, &to, span)?;
                Ok(Val { expr, ty: to })
            }
            (CType::ThreadHandle, _) | (CType::Opaque(_), _) => Ok(Val {
                expr: v.expr,
                ty: to,
            }),
            _ => self.lw.refuse(span, "this cast", None),
        }
    }

    /// `(T *)((char *)p - offsetof(T, m))`, the `container_of` of Linux
    /// and of intrusive lists: the struct `T` whose member `m` `p` points
    /// to; and `(U *)((char *)p + offsetof(T, m))`, the member `m` of the
    /// struct `T` at `p`. The byte offset is the member's scalars here, and
    /// the casts through `char *`, `void *` or an integer that C needs for
    /// it cast nothing. `None` when `e` has another form.
    pub(in crate::frontend) fn member_step(
        &mut self,
        target: &CType,
        e: &'a Node<Expression>,
        span: Span,
    ) -> LResult<Option<Expr>> {
        let Expression::BinaryOperator(b) = &crate::frontend::analysis::scan::uncast(e).node else {
            return Ok(None);
        };
        let op = match b.node.operator.node {
            BinaryOperator::Minus => BinaryOp::Sub,
            BinaryOperator::Plus => BinaryOp::Add,
            _ => return Ok(None),
        };
        let (container, scalars) = match &crate::frontend::analysis::scan::uncast(&b.node.rhs).node
        {
            Expression::OffsetOf(offset) => {
                self.resolve_typeof_in_type_name(&offset.node.type_name)?;
                let container = self.lw.types.type_name(&offset.node.type_name)?;
                let Some(scalars) = self.lw.types.member_offset(offset, Unit::Scalars)? else {
                    return self.lw.refuse(
                        b.node.rhs.span,
                        "`offsetof` with an index that is not a constant",
                        None,
                    );
                };
                (container, scalars)
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                match self.null_member_offset(&u.node.operand)? {
                    Some(found) => found,
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        if op == BinaryOp::Sub && !self.compatible_pointees(target, &container) {
            return self.lw.refuse(
                span,
                "a `container_of` cast to a type other than the one `offsetof` names",
                Some("cast to a pointer to the struct that contains the member"),
            );
        }
        let pointer = self.rvalue(crate::frontend::analysis::scan::uncast(&b.node.lhs))?;
        if !pointer.ty.is_pointer() {
            return self.lw.refuse(
                b.node.lhs.span,
                "a member's offset added to or taken from something other than a pointer",
                Some("step from a pointer to the struct or to its member"),
            );
        }
        let step = Expr::Const(scalars as i64 * self.lw.program.address_unit());
        Ok(Some(binary(op, pointer.expr, step)))
    }

    /// The hand-written `offsetof` of older code, `&((T *)0)->m` (or
    /// `->m.n`): the struct `T` and the member's offset in scalars; `None`
    /// for another expression.
    pub(in crate::frontend) fn null_member_offset(
        &mut self,
        e: &'a Node<Expression>,
    ) -> LResult<Option<(CType, u64)>> {
        let mut members = Vec::new();
        let mut at = e;
        let base = loop {
            match &at.node {
                Expression::Member(member) => {
                    members.push(member);
                    at = &member.node.expression;
                }
                Expression::Cast(cast) => break cast,
                _ => return Ok(None),
            }
        };
        let null = matches!(&crate::frontend::analysis::scan::uncast(&base.node.expression).node,
            Expression::Constant(c) if matches!(&c.node, ast::Constant::Integer(i) if i.number.trim_start_matches('0').is_empty()));
        let Some(first) = members.last() else {
            return Ok(None);
        };
        if !null || first.node.operator.node != MemberOperator::Indirect {
            return Ok(None);
        }
        self.resolve_typeof_in_type_name(&base.node.type_name)?;
        let pointer = self.lw.types.type_name(&base.node.type_name)?;
        let Some(container) = pointer.target().cloned() else {
            return Ok(None);
        };
        let mut ty = container.clone();
        let mut total = 0u64;
        for (step, member) in members.iter().rev().enumerate() {
            // `->` only on the null pointer, `.` after it
            if step > 0 && member.node.operator.node == MemberOperator::Indirect {
                return Ok(None);
            }
            let CType::Struct(id) = ty else {
                return Ok(None);
            };
            let name = &member.node.identifier;
            let (offset, field) = self.lw.types.field(id, &name.node.name, name.span)?;
            total = total.saturating_add(offset);
            ty = field;
        }
        Ok(Some((container, total)))
    }

    /// Whether the cast of the integer `value` (lowered to `lowered`) to a
    /// pointer to `target` may make an address of an integer computed from
    /// one: a computed integer cast to a typed pointer (`(struct node
    /// *)raw`), or the result of a bit operation cast to any pointer
    /// (`(void *)(raw & ~1)`, unmarking a marked pointer). Constants
    /// (`(int *)0`) and integers passed as a `void *` are no addresses.
    pub(in crate::frontend) fn integer_made_an_address(
        &self,
        target: &CType,
        lowered: &Expr,
        value: &'a Node<Expression>,
    ) -> bool {
        let bit_operation = matches!(&crate::frontend::analysis::scan::uncast(value).node,
            Expression::BinaryOperator(b) if matches!(b.node.operator.node,
                BinaryOperator::BitwiseAnd | BinaryOperator::BitwiseOr | BinaryOperator::BitwiseXor));
        bit_operation || (!matches!(target, CType::Void) && !matches!(lowered, Expr::Const(_)))
    }

    /// An integer constant other than 0 converted to the pointer type
    /// `to` (`(void *)1`, a thread's number passed as its argument): kept
    /// a conversion of that constant, so that the passes can tell it from
    /// the constant address of an object, which the frontend makes a bare
    /// constant. Any other value as it is.
    fn integer_constant_as_pointer(&self, value: Expr, to: &CType) -> Expr {
        match value {
            Expr::Const(constant) if constant != 0 => {
                Expr::Cast(self.lw.types.ir_type(to), Box::new(Expr::Const(constant)))
            }
            value => value,
        }
    }

    /// Whether `member` is the first member of the struct `outer`, or the
    /// first member of its first member, and so on (C11 6.7.2.1p15: a
    /// pointer to a struct, converted, points to its first member, and
    /// back). Memory is one location per scalar and a pointer to a struct
    /// is the location of its first scalar, so the converted pointer is
    /// the same address; the accesses through it are checked, as those
    /// through any converted pointer, against what it may reach. A first
    /// member that shared memory leaves out as padding is none.
    pub(in crate::frontend) fn first_member_of(&self, outer: &CType, member: &CType) -> bool {
        let CType::Struct(id) = outer.clone().without_atomic().0 else {
            return false;
        };
        let info = &self.lw.types.structs[id];
        if info.is_union {
            return false;
        }
        let Some((name, first)) = info.fields.as_ref().and_then(|fields| fields.first()) else {
            return false;
        };
        if info.declared.first().map(|(declared, _)| declared) != Some(name) {
            return false;
        }
        self.compatible_pointees(first, member) || self.first_member_of(first, member)
    }

    /// Whether a pointer to `a` may be used as a pointer to `b`.
    pub(in crate::frontend) fn compatible_pointees(&self, a: &CType, b: &CType) -> bool {
        match (a, b) {
            (CType::Void, _) | (_, CType::Void) => true,
            (CType::Atomic(x), y) | (y, CType::Atomic(x)) => self.compatible_pointees(x, y),
            (CType::Function(..), _) | (_, CType::Function(..)) => false,
            // memory is whole scalars: no view of a scalar's bytes as
            // smaller ones (`(char *)&i`), nor of two as one
            (x, y) if x.is_scalar() && y.is_scalar() => {
                self.lw.types.byte_size(x) == self.lw.types.byte_size(y)
            }
            (CType::Struct(x), CType::Struct(y)) => {
                x == y || self.lw.types.structs[*x].fields == self.lw.types.structs[*y].fields
            }
            (CType::Array(x, _), y) | (y, CType::Array(x, _)) => self.compatible_pointees(x, y),
            _ => false,
        }
    }
}
