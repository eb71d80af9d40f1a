//! Lowering of C expressions: every shared access becomes its own `Read` or
//! `Write` into or from a fresh temporary, side effects are split out in
//! evaluation order, and `&&`, `||`, `?:` keep short-circuit semantics.

use super::bit_fields::value_type;
use super::lower::{Binding, FnLowerer, Global, LResult, MemoryOrder, binary};
use super::types::{CType, Unit, constant_value, truncate};
use super::values::{LVal, Val, common, floating_bits, memory_type, promote};
use crate::ir::*;
use lang_c::ast::{self, BinaryOperator, Expression, MemberOperator, UnaryOperator};
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// `sizeof` of a value of type `ty`: its bytes, or in an allocation's
    /// size its scalars ([`FnLowerer::in_allocation_size`]).
    fn size_of(&self, ty: &CType) -> Val {
        let types = &self.lw.types;
        let size = if self.in_allocation_size {
            types.size(ty)
        } else {
            types.byte_size(ty)
        };
        Val {
            expr: Expr::Const(size as i64),
            ty: CType::SIZE,
        }
    }

    /// The user function `name` as a value (`fp = f`, `&f`), unless a
    /// variable of that name hides it.
    pub fn function_named(&self, name: &str) -> Option<Val> {
        if self.lookup(name).is_some() || self.lw.globals.contains_key(name) {
            return None;
        }
        let (number, ty) = self.lw.function_value(name)?;
        Some(Val {
            expr: Expr::Const(number),
            ty,
        })
    }

    /// How far apart the pointer values of consecutive objects that
    /// `pointer` (a pointer type) points to are: the pointee's scalars times
    /// the address unit (a `void *` steps by one scalar).
    pub fn pointer_stride(&self, pointer: &CType) -> i64 {
        let scalars = pointer
            .target()
            .map_or(1, |target| self.lw.types.size(target) as i64);
        scalars * self.lw.program.address_unit()
    }

    /// Lowers `e` for its value.
    pub fn rvalue(&mut self, e: &'a Node<Expression>) -> LResult<Val> {
        match &e.node {
            Expression::Identifier(id) => {
                if let Some(&v) = self.lw.types.enum_constants.get(&id.node.name)
                    && self.lookup(&id.node.name).is_none()
                    && !self.lw.globals.contains_key(&id.node.name)
                {
                    return Ok(Val::int(v));
                }
                if let Some(function) = self.function_named(&id.node.name) {
                    return Ok(function);
                }
                let lv = self.lvalue(e)?;
                self.load(lv, e.span)
            }
            Expression::Constant(c) => self.constant(&c.node, e.span),
            // the array decays to a pointer to its first character
            Expression::StringLiteral(literal) => {
                let (location, _) = self.lw.string_object(literal)?;
                Ok(Val { expr: self.lw.pointer_to(Expr::Const(location)), ty: CType::Pointer(Box::new(CType::CHAR)) })
            }
            // an array literal used as a value decays to its first element
            Expression::CompoundLiteral(literal) if self.lw.types.type_name(&literal.node.type_name).is_ok_and(|ty| matches!(ty, CType::Array(..))) => {
                let (address, ty) = self.shared_compound_literal(&literal.node, e.span)?;
                let element = ty.target().cloned().unwrap_or(CType::INT);
                Ok(Val { expr: address, ty: CType::Pointer(Box::new(element)) })
            }
            Expression::Member(_) | Expression::CompoundLiteral(_) => {
                let lv = self.lvalue(e)?;
                self.load(lv, e.span)
            }
            Expression::Call(call) => self.call(call, e.span),
            Expression::SizeOfTy(s) => {
                self.resolve_typeof_in_type_name(&s.node.0)?;
                let ty = self.lw.types.type_name(&s.node.0)?;
                Ok(self.size_of(&ty))
            }
            Expression::SizeOfVal(s) => {
                let ty = self.type_of(&s.node.0)?;
                Ok(self.size_of(&ty))
            }
            Expression::AlignOf(s) => {
                self.resolve_typeof_in_type_name(&s.node.0)?;
                let ty = self.lw.types.type_name(&s.node.0)?;
                Ok(Val { expr: Expr::Const(self.lw.types.alignment(&ty) as i64), ty: CType::SIZE })
            }
            Expression::UnaryOperator(u) => self.unary(&u.node, e),
            Expression::Cast(c) => self.cast(&c.node, e.span),
            Expression::BinaryOperator(b) => self.binary_expression(&b.node, e),
            Expression::Conditional(c) => self.conditional(&c.node),
            Expression::Comma(items) => {
                let mut last = Val::void();
                for item in items.iter() {
                    last = self.rvalue(item)?;
                }
                Ok(last)
            }
            Expression::Statement(s) => self.statement_expression(s),
            Expression::GenericSelection(_) => self.lw.refuse(e.span, "`_Generic`", None),
            Expression::OffsetOf(offset) => match self.lw.types.offset_of(offset)? {
                Some(bytes) => Ok(Val { expr: Expr::Const(bytes as i64), ty: CType::SIZE }),
                None => self.lw.refuse(e.span, "`offsetof` with an index that is not a constant", None),
            },
            Expression::VaArg(_) => self.lw.refuse(
                e.span,
                "variadic arguments (`va_arg`)",
                Some("a function may take `...` and hand its list to a vprintf-like call, but not read the arguments"),
            ),
        }
    }

    fn constant(&mut self, c: &ast::Constant, span: Span) -> LResult<Val> {
        match c {
            ast::Constant::Float(float) => match super::floating::literal(float) {
                Some(literal) => {
                    let ty = CType::Float(literal.bits / 8);
                    Ok(Val {
                        expr: Expr::FloatConst(literal),
                        ty,
                    })
                }
                None => self.lw.refuse(
                    span,
                    "a `long double`, imaginary or TS 18661 floating constant",
                    Some("use a `float` (suffix `f`) or `double` constant"),
                ),
            },
            ast::Constant::Integer(i) => {
                let Some(v) = constant_value(c) else {
                    return self.lw.error(span, "integer constant too large", "here");
                };
                let ty = constant_type(i, v);
                Ok(Val {
                    expr: Expr::Const(v),
                    ty,
                })
            }
            ast::Constant::Character(_) => match constant_value(c) {
                Some(v) => Ok(Val::int(v)),
                None => self.lw.refuse(span, "this character constant", None),
            },
        }
    }

    /// The type of an expression, without keeping any of its effects.
    pub fn type_of(&mut self, e: &'a Node<Expression>) -> LResult<CType> {
        let temps = self.temps.clone();
        let (_, ty) = self.in_block(|s| match s.lvalue(e) {
            Ok(lv) => Ok(lv.ty().clone()),
            Err(_) => s.rvalue(e).map(|v| v.ty),
        })?;
        self.temps = temps;
        Ok(ty)
    }

    /// Reads an lvalue; arrays decay to their address.
    pub fn load(&mut self, lv: LVal, span: Span) -> LResult<Val> {
        if let CType::BitField(bits) = lv.ty().clone() {
            return self.load_bit_field(lv, &bits, span);
        }
        match lv {
            LVal::Private(place, ty) => match ty {
                CType::Array(..) => {
                    self.lw
                        .refuse(span, "using a private array as a pointer", None)
                }
                CType::Function(..) => self.lw.refuse(
                    span,
                    "a function pointer",
                    Some("only thread entry functions may be named without a call"),
                ),
                ty => Ok(Val {
                    expr: Expr::Load(place),
                    ty,
                }),
            },
            LVal::Shared { address, ty, .. } => match ty {
                CType::Array(element, _) => Ok(Val {
                    expr: self.lw.pointer_to(address),
                    ty: CType::Pointer(element),
                }),
                CType::Struct(_) => self.lw.refuse(
                    span,
                    "using a shared struct as a value",
                    Some("access its fields one by one"),
                ),
                CType::Function(..) | CType::Void => self.lw.refuse(span, "this access", None),
                ty => {
                    self.lw.shared_float_fits(&ty, span)?;
                    Ok(self.read_shared(address, ty))
                }
            },
        }
    }

    /// Reads the shared scalar at `address` into a fresh temporary (its own
    /// `Read`) and gives the temporary as the value. A floating value is
    /// read as the integer of its bits ([`floating_bits`]).
    pub fn read_shared(&mut self, address: Expr, ty: CType) -> Val {
        let stored = memory_type(&ty);
        let temp = self.temp(&stored);
        self.emit(StmtKind::Read {
            target: Place::Local(temp),
            address,
        });
        let expr = self.value_from_memory(Expr::Load(Place::Local(temp)), &ty);
        Val { expr, ty }
    }

    /// Stores `value` into an lvalue (a `Write` for shared memory; a store
    /// to an `_Atomic` object is `seq_cst`, as `atomic_store`).
    pub fn store(&mut self, lv: &LVal, value: Val, span: Span) -> LResult<()> {
        if let CType::BitField(bits) = lv.ty() {
            return self.store_bit_field(lv.clone(), &bits.clone(), value, span);
        }
        let converted = self.convert(value, lv.ty(), span)?;
        if let LVal::Shared { ty, .. } = lv {
            self.lw.shared_float_fits(ty, span)?;
        }
        match lv {
            LVal::Private(place, _) => self.emit(StmtKind::Assign(place.clone(), converted)),
            LVal::Shared {
                address,
                atomic: true,
                ty,
            } => self.ordered_store(address.clone(), converted, ty, &MemoryOrder::SEQ_CST)?,
            LVal::Shared { address, ty, .. } => self.write_shared(address.clone(), converted, ty),
        }
        Ok(())
    }

    /// Stores `value`, a value of type `ty`, at `address` in shared memory,
    /// as shared memory of the `--bitwidth` holds it: every store of a typed
    /// program value goes through here.
    pub fn write_shared(&mut self, address: Expr, value: Expr, ty: &CType) {
        // a floating value goes to memory as the integer of its bits
        let value = self.to_memory(value, ty);
        let stored = memory_type(ty);
        let ty = &stored;
        self.cut_off_wider_than_shared_memory(&value, ty);
        let value = self.as_stored(value, ty);
        self.emit(StmtKind::Write { address, value });
    }

    /// Shared memory holds an `int` up to `--bitwidth 32` (the SMA narrows
    /// it further below 32 bits): a 64-bit value that no `int` holds would
    /// be cut down on its way there, so the execution is cut off instead
    /// of going on with another value (a bound hides bugs, never invents
    /// them). The value goes through `int` and back unchanged, or it is
    /// assumed away.
    pub(super) fn cut_off_wider_than_shared_memory(&mut self, value: &Expr, ty: &CType) {
        if let CType::Int { bits, .. } = ty
            && *bits > 32
            && self.lw.value_bits <= 32
            && !matches!(value, Expr::Const(v) if i32::try_from(*v).is_ok())
        {
            self.lw.program.cuts_wide_values = true;
            let wide = self.lw.types.ir_type(ty);
            let through_int =
                Expr::Cast(wide, Box::new(Expr::Cast(Ty::INT, Box::new(value.clone()))));
            self.emit(StmtKind::Assume(Expr::Binary(
                BinaryOp::Eq,
                Box::new(through_int),
                Box::new(value.clone()),
            )));
        }
    }

    /// A value of an unsigned type narrower than `int` goes to a shared
    /// memory narrower than `int` as the signed type of its width (see
    /// `globals::stored_value`), so that all of its values fit when the
    /// memory is at least as wide as the type.
    fn as_stored(&mut self, value: Expr, ty: &CType) -> Expr {
        match (ty, value) {
            (
                CType::Int {
                    bits,
                    signed: false,
                },
                value,
            ) if *bits < 32 && self.lw.value_bits < 32 => match value {
                Expr::Const(v) => Expr::Const(super::values::stored_value(v, ty)),
                value => Expr::Cast(
                    Ty::Int {
                        bits: *bits,
                        signed: true,
                    },
                    Box::new(value),
                ),
            },
            (_, value) => value,
        }
    }

    /// Converts a value to the type it is stored as.
    pub fn convert(&mut self, value: Val, to: &CType, span: Span) -> LResult<Expr> {
        self.note_allocation_type(&value, to);
        if let CType::BitField(bits) = to {
            let converted = self.convert(value, &bits.ty, span)?;
            return Ok(self.as_bit_field(converted, bits));
        }
        match (to, &value.ty) {
            (CType::Float(_), CType::Float(_) | CType::Int { .. } | CType::Bool)
            | (CType::Int { .. }, CType::Float(_)) => Ok(self.numeric_conversion(value, to)),
            (CType::Float(_), _)
            | (CType::Pointer(_) | CType::ThreadHandle | CType::Atomic(_), CType::Float(_)) => {
                self.lw.error(
                    span,
                    "converting between a floating value and a non-number",
                    "not a number",
                )
            }
            (CType::Struct(_), _) | (CType::Array(..), _) => self.lw.refuse(
                span,
                "assigning an aggregate here",
                Some("assign its scalars one by one"),
            ),
            (CType::Bool, CType::Bool) => Ok(value.expr),
            (CType::Bool, _) => Ok(match value.expr {
                Expr::Const(v) => Expr::Const((v != 0) as i64),
                e => Expr::Binary(BinaryOp::Ne, Box::new(e), Box::new(Expr::Const(0))),
            }),
            (CType::Int { bits, signed }, from) => {
                let same = matches!(from, CType::Int { bits: b, signed: s } if b == bits && s == signed)
                    || (*bits >= 32 && from.is_pointer());
                match value.expr {
                    Expr::Const(v) => Ok(Expr::Const(truncate(v, *bits, *signed))),
                    e if same || (matches!(from, CType::Bool)) => Ok(e),
                    e => Ok(Expr::Cast(self.lw.types.ir_type(to), Box::new(e))),
                }
            }
            _ => Ok(value.expr),
        }
    }

    /// Notes the type that the latest allocation's `void *` is converted
    /// to (`double *h = malloc(...)`, `(struct node *)malloc(...)`): its
    /// block holds values of that type, as reports show them. The first
    /// conversion of an allocating statement counts.
    fn note_allocation_type(&mut self, value: &Val, to: &CType) {
        let (CType::Pointer(source), CType::Pointer(target)) = (&value.ty, to) else {
            return;
        };
        if !matches!(**source, CType::Void) || matches!(**target, CType::Void) {
            return;
        }
        match &self.latest_allocation {
            Some((pointer, origin)) if *pointer == value.expr => {
                let (origin, ty) = (*origin, self.lw.types.ir_type(target));
                self.lw.program.allocation_types.entry(origin).or_insert(ty);
            }
            _ => {}
        }
    }

    /// `value` converted to the number type `to` where one of the two is
    /// floating: as C converts (a `double` to an integer rounds toward
    /// zero), in the printed C.
    fn numeric_conversion(&mut self, value: Val, to: &CType) -> Expr {
        if &value.ty == to {
            return value.expr;
        }
        Expr::Cast(self.lw.types.ir_type(to), Box::new(value.expr))
    }

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
                        (
                            LVal::Shared {
                                address: self.lw.location_of(pointer.expr),
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
                    Some(target) => Ok(LVal::Shared {
                        address: self.lw.location_of(pointer.expr),
                        ty: target,
                        atomic: pointer.ty.target_is_atomic(),
                    }),
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

    fn variable(&mut self, name: &str, span: Span) -> LResult<LVal> {
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
            None => self.global(name, span),
        }
    }

    fn global(&mut self, name: &str, span: Span) -> LResult<LVal> {
        match self.lw.globals.get(name) {
            Some(Global::Shared { base, ty, atomic }) => Ok(LVal::Shared {
                address: Expr::Const(*base as i64),
                ty: ty.clone(),
                atomic: *atomic,
            }),
            Some(Global::Plain { id, ty }) => {
                Ok(LVal::Private(Place::PlainGlobal(*id), ty.clone()))
            }
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

    pub(super) fn index(
        &mut self,
        base: &'a Node<Expression>,
        index: &'a Node<Expression>,
        span: Span,
    ) -> LResult<LVal> {
        let mark = self.mark();
        let base_lv = match self.lvalue(base) {
            Ok(lv) => Some(lv),
            Err(_) => {
                if let Some(block) = self.blocks.last_mut() {
                    block.truncate(mark);
                }
                None
            }
        };
        match base_lv {
            Some(LVal::Private(place, CType::Array(element, _))) => {
                let i = self.integer_rvalue(index, "an array index")?;
                Ok(LVal::Private(
                    Place::Index(Box::new(place), Box::new(i.expr)),
                    *element,
                ))
            }
            Some(LVal::Shared {
                address,
                ty: CType::Array(element, _),
                atomic,
            }) => {
                let mark = self.mark();
                let i = self.integer_rvalue(index, "an array index")?;
                let address = self.protect(address, &CType::LONG, mark);
                let stride = self.lw.types.size(&element) as i64;
                let offset = binary(BinaryOp::Mul, i.expr, Expr::Const(stride));
                Ok(LVal::Shared {
                    address: binary(BinaryOp::Add, address, offset),
                    ty: *element,
                    atomic,
                })
            }
            other => {
                let pointer = match other {
                    Some(lv) => self.load(lv, base.span)?,
                    None => self.rvalue(base)?,
                };
                let mark = self.mark();
                let i = self.integer_rvalue(index, "an array index")?;
                let address = self.protect(pointer.expr, &pointer.ty, mark);
                let address = self.lw.location_of(address);
                let Some(element) = pointer.ty.target().cloned() else {
                    return self.lw.error(
                        span,
                        "indexing a value that is not a pointer or array",
                        "not a pointer",
                    );
                };
                if matches!(element, CType::Void) {
                    return self.lw.refuse(
                        span,
                        "indexing a `void *`",
                        Some("cast it to a typed pointer first"),
                    );
                }
                let stride = self.lw.types.size(&element) as i64;
                let offset = binary(BinaryOp::Mul, i.expr, Expr::Const(stride));
                Ok(LVal::Shared {
                    address: binary(BinaryOp::Add, address, offset),
                    ty: element,
                    atomic: pointer.ty.target_is_atomic(),
                })
            }
        }
    }

    /// Lowers `e`, which C requires to be of integer type where it stands
    /// (`what`: an array index, a `switch` value, `~`'s operand): a
    /// floating value there is an error, as in C.
    pub fn integer_rvalue(&mut self, e: &'a Node<Expression>, what: &str) -> LResult<Val> {
        let value = self.rvalue(e)?;
        if matches!(value.ty, CType::Float(_)) {
            return self.lw.error(
                e.span,
                format!("a floating value as {what}"),
                "C requires an integer here",
            );
        }
        Ok(value)
    }

    fn unary(
        &mut self,
        u: &'a ast::UnaryOperatorExpression,
        e: &'a Node<Expression>,
    ) -> LResult<Val> {
        match u.operator.node {
            UnaryOperator::Address => {
                if let Expression::Identifier(id) = &u.operand.node
                    && let Some(function) = self.function_named(&id.node.name)
                {
                    return Ok(function);
                }
                if let Expression::CompoundLiteral(literal) = &u.operand.node {
                    let (address, ty) = self.shared_compound_literal(&literal.node, e.span)?;
                    return Ok(Val {
                        expr: address,
                        ty: CType::Pointer(Box::new(ty)),
                    });
                }
                match self.lvalue(&u.operand)? {
                    LVal::Shared {
                        ty: CType::BitField(_),
                        ..
                    }
                    | LVal::Private(_, CType::BitField(_)) => self.lw.error(
                        e.span,
                        "cannot take the address of a bit-field",
                        "a bit-field",
                    ),
                    LVal::Shared { address, ty, .. } => Ok(Val {
                        expr: self.lw.pointer_to(address),
                        ty: CType::Pointer(Box::new(ty)),
                    }),
                    LVal::Private(..) => {
                        self.lw
                            .refuse(e.span, "taking the address of private data here", None)
                    }
                }
            }
            UnaryOperator::Indirection => {
                let lv = self.lvalue(e)?;
                self.load(lv, e.span)
            }
            UnaryOperator::Plus => self.rvalue(&u.operand),
            UnaryOperator::Minus | UnaryOperator::Complement | UnaryOperator::Negate => {
                let v = match u.operator.node {
                    UnaryOperator::Complement => {
                        self.integer_rvalue(&u.operand, "the operand of `~`")?
                    }
                    _ => self.rvalue(&u.operand)?,
                };
                let (op, ty) = match u.operator.node {
                    UnaryOperator::Minus => (UnaryOp::Neg, promote(&v.ty)),
                    UnaryOperator::Complement => (UnaryOp::BitNot, promote(&v.ty)),
                    _ => (UnaryOp::Not, CType::INT),
                };
                // a folded constant is the value C computes in its type
                let in_type = |value: i64| match &ty {
                    CType::Int { bits, signed } => truncate(value, *bits, *signed),
                    _ => value,
                };
                let expr = match (op, &v.expr) {
                    (UnaryOp::Neg, Expr::Const(c)) => Expr::Const(in_type(c.wrapping_neg())),
                    (UnaryOp::Not, Expr::Const(c)) => Expr::Const((*c == 0) as i64),
                    (UnaryOp::BitNot, Expr::Const(c)) => Expr::Const(in_type(!c)),
                    _ => Expr::Unary(op, Box::new(v.expr)),
                };
                Ok(Val { expr, ty })
            }
            UnaryOperator::PreIncrement
            | UnaryOperator::PreDecrement
            | UnaryOperator::PostIncrement
            | UnaryOperator::PostDecrement => {
                let op = match u.operator.node {
                    UnaryOperator::PreIncrement | UnaryOperator::PostIncrement => BinaryOp::Add,
                    _ => BinaryOp::Sub,
                };
                let post = matches!(
                    u.operator.node,
                    UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
                );
                let lv = self.modifiable_lvalue(&u.operand)?;
                if let LVal::Shared {
                    address,
                    ty,
                    atomic: true,
                } = &lv
                {
                    let (old, new) =
                        self.atomic_step(address.clone(), ty, op == BinaryOp::Add, e.span)?;
                    return Ok(if post { old } else { new });
                }
                let old = self.load(lv.clone(), e.span)?;
                let old_expr = if post {
                    self.save(old.expr, &old.ty)
                } else {
                    old.expr
                };
                let step = match old.ty.target() {
                    Some(_) => self.pointer_stride(&old.ty),
                    None => 1,
                };
                // computed as C computes it: an operand narrower than int
                // is promoted, the store converts back
                let new = Val {
                    expr: binary(op, old_expr.clone(), Expr::Const(step)),
                    ty: if old.ty.is_pointer() {
                        old.ty.clone()
                    } else {
                        promote(&old.ty)
                    },
                };
                self.store(&lv, new.clone(), e.span)?;
                if post {
                    Ok(Val {
                        expr: old_expr,
                        ty: old.ty,
                    })
                } else {
                    match lv {
                        LVal::Private(place, ty) if !matches!(ty, CType::BitField(_)) => Ok(Val {
                            expr: Expr::Load(place),
                            ty,
                        }),
                        LVal::Private(_, ty) | LVal::Shared { ty, .. } => Ok(Val {
                            expr: self.convert(new, &ty, e.span)?,
                            ty: value_type(&ty),
                        }),
                    }
                }
            }
        }
    }

    /// A compound literal, `(struct node){ .value = 1 }`: a private object
    /// of its type, filled from its list where it is evaluated.
    fn compound_literal(&mut self, literal: &'a ast::CompoundLiteral, span: Span) -> LResult<LVal> {
        self.literal_object(literal, false, span)
    }

    /// `&(T){ ... }`, and `(T[]){ ... }` used as a pointer: a compound
    /// literal whose address is taken lives in shared memory, as an
    /// address-taken local does. Its address and type.
    fn shared_compound_literal(
        &mut self,
        literal: &'a ast::CompoundLiteral,
        span: Span,
    ) -> LResult<(Expr, CType)> {
        match self.literal_object(literal, true, span)? {
            LVal::Shared { address, ty, .. } => Ok((self.lw.pointer_to(address), ty)),
            LVal::Private(..) => self
                .lw
                .error(span, "a compound literal in shared memory", "here"),
        }
    }

    /// The object of a compound literal, private or `shared`, filled from
    /// its list.
    fn literal_object(
        &mut self,
        literal: &'a ast::CompoundLiteral,
        shared: bool,
        span: Span,
    ) -> LResult<LVal> {
        self.resolve_typeof_in_type_name(&literal.type_name)?;
        let (ty, _) = self
            .lw
            .types
            .type_name(&literal.type_name)?
            .without_atomic();
        let ty = match ty {
            CType::Array(element, 0) => {
                CType::Array(element, literal.initializer_list.len() as u64)
            }
            ty => ty,
        };
        let name = format!("__literal{}", self.locals.len());
        let local = self.new_local(&name, ty.clone(), shared);
        let object = match shared {
            true => LVal::Shared {
                address: Expr::ObjectAddress(local),
                ty,
                atomic: false,
            },
            false => LVal::Private(Place::Local(local), ty),
        };
        self.fill_list(&object, &literal.initializer_list, span)?;
        Ok(object)
    }

    fn cast(&mut self, c: &'a ast::CastExpression, span: Span) -> LResult<Val> {
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
                if !self.compatible_pointees(target, source) {
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
                if self.integer_made_an_address(target, &v.expr, &c.expression) {
                    self.lw.address_taken_apart_at.get_or_insert(span);
                }
                Ok(Val {
                    expr: v.expr,
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
    fn member_step(
        &mut self,
        target: &CType,
        e: &'a Node<Expression>,
        span: Span,
    ) -> LResult<Option<Expr>> {
        let Expression::BinaryOperator(b) = &super::scan::uncast(e).node else {
            return Ok(None);
        };
        let op = match b.node.operator.node {
            BinaryOperator::Minus => BinaryOp::Sub,
            BinaryOperator::Plus => BinaryOp::Add,
            _ => return Ok(None),
        };
        let (container, scalars) = match &super::scan::uncast(&b.node.rhs).node {
            Expression::OffsetOf(offset) => {
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
        let pointer = self.rvalue(super::scan::uncast(&b.node.lhs))?;
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
    fn null_member_offset(&mut self, e: &'a Node<Expression>) -> LResult<Option<(CType, u64)>> {
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
        let null = matches!(&super::scan::uncast(&base.node.expression).node,
            Expression::Constant(c) if matches!(&c.node, ast::Constant::Integer(i) if i.number.trim_start_matches('0').is_empty()));
        let Some(first) = members.last() else {
            return Ok(None);
        };
        if !null || first.node.operator.node != MemberOperator::Indirect {
            return Ok(None);
        }
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
    fn integer_made_an_address(
        &self,
        target: &CType,
        lowered: &Expr,
        value: &'a Node<Expression>,
    ) -> bool {
        let bit_operation = matches!(&super::scan::uncast(value).node,
            Expression::BinaryOperator(b) if matches!(b.node.operator.node,
                BinaryOperator::BitwiseAnd | BinaryOperator::BitwiseOr | BinaryOperator::BitwiseXor));
        bit_operation || (!matches!(target, CType::Void) && !matches!(lowered, Expr::Const(_)))
    }

    /// Whether a pointer to `a` may be used as a pointer to `b`.
    fn compatible_pointees(&self, a: &CType, b: &CType) -> bool {
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

    fn binary_expression(
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
    fn floating_arithmetic(
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
    fn check_divisor(&mut self, divisor: &Expr) {
        if !self.lw.division_checks || matches!(divisor, Expr::Const(c) if *c != 0) {
            return;
        }
        let condition = binary(BinaryOp::Ne, divisor.clone(), Expr::Const(0));
        self.emit(StmtKind::Assert {
            condition,
            kind: PropertyKind::DivisionByZero,
        });
    }

    /// The object that an assignment, `++` or `--` changes: an lvalue
    /// that is not a member of a function's result (`make().x = 3`, which
    /// C rejects: the result is a value).
    fn modifiable_lvalue(&mut self, e: &'a Node<Expression>) -> LResult<LVal> {
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
        let inner = super::scan::uncast(e);
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
    fn note_bits_taken_apart(
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

    fn assign(
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

    /// A value of type `ty` as shared memory holds it: a floating value as
    /// the integer of its bits, any other as itself.
    pub(super) fn to_memory(&self, value: Expr, ty: &CType) -> Expr {
        match floating_bits(ty) {
            Some(bits) => Expr::Reinterpret(self.lw.types.ir_type(&bits), Box::new(value)),
            None => value,
        }
    }

    /// The value of type `ty` whose memory form is `stored` ([`Self::to_memory`]).
    pub(super) fn value_from_memory(&self, stored: Expr, ty: &CType) -> Expr {
        match floating_bits(ty) {
            Some(_) => Expr::Reinterpret(self.lw.types.ir_type(ty), Box::new(stored)),
            None => stored,
        }
    }

    /// The value of `x = e` is reused by the enclosing expression; when `x` is
    /// private and `e` reads it, keep `e`'s value.
    fn save_if_shared_target(&mut self, lv: &LVal, e: Expr, ty: &CType) -> Expr {
        match lv {
            LVal::Private(..) if !self.is_stable(&e) && !matches!(e, Expr::Load(_)) => {
                self.save(e, ty)
            }
            _ => e,
        }
    }

    /// Struct assignment: shared to shared one location at a time, else as
    /// [`Self::copy_struct`] copies.
    fn assign_struct(
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
    fn private_struct(&mut self, ty: &CType, span: Span) -> LResult<LVal> {
        if !matches!(ty, CType::Struct(_)) {
            return self
                .lw
                .error(span, "a struct is needed here", "not a struct");
        }
        Ok(LVal::Private(Place::Local(self.temp(ty)), ty.clone()))
    }

    /// Copies the struct value of `e` into `target`, of the same type.
    fn copy_struct_value(&mut self, target: &LVal, e: &'a Node<Expression>) -> LResult<()> {
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

    /// `a && b` / `a || b`: pure when `b` emits nothing, otherwise an `If`.
    fn short_circuit(
        &mut self,
        and: bool,
        lhs: &'a Node<Expression>,
        rhs: &'a Node<Expression>,
    ) -> LResult<Val> {
        let left = self.rvalue(lhs)?;
        let (block, right) = self.in_block(|s| s.rvalue(rhs))?;
        let op = if and {
            BinaryOp::LogicalAnd
        } else {
            BinaryOp::LogicalOr
        };
        if block.is_empty() {
            return Ok(Val {
                expr: Expr::Binary(op, Box::new(left.expr), Box::new(right.expr)),
                ty: CType::INT,
            });
        }
        let temp = self.temp(&CType::INT);
        let result = Place::Local(temp);
        let mut evaluated = block;
        evaluated.push(Stmt {
            kind: StmtKind::Assign(
                result.clone(),
                Expr::Binary(BinaryOp::Ne, Box::new(right.expr), Box::new(Expr::Const(0))),
            ),
            origin: self.origin,
        });
        let short = vec![Stmt {
            kind: StmtKind::Assign(result, Expr::Const(if and { 0 } else { 1 })),
            origin: self.origin,
        }];
        let (then_branch, else_branch) = if and {
            (evaluated, short)
        } else {
            (short, evaluated)
        };
        self.emit(StmtKind::If {
            condition: left.expr,
            then_branch,
            else_branch,
        });
        Ok(Val {
            expr: Expr::Load(Place::Local(temp)),
            ty: CType::INT,
        })
    }

    fn conditional(&mut self, c: &'a ast::ConditionalExpression) -> LResult<Val> {
        let condition = self.rvalue(&c.condition)?;
        let (then_block, then_value) = self.in_block(|s| s.rvalue(&c.then_expression))?;
        let (else_block, else_value) = self.in_block(|s| s.rvalue(&c.else_expression))?;
        let ty = if then_value.ty.is_pointer() {
            then_value.ty.clone()
        } else if matches!(then_value.ty, CType::Void) {
            CType::Void
        } else {
            common(&then_value.ty, &else_value.ty)
        };
        if then_block.is_empty() && else_block.is_empty() {
            let expr = Expr::Conditional(
                Box::new(condition.expr),
                Box::new(then_value.expr),
                Box::new(else_value.expr),
            );
            return Ok(Val { expr, ty });
        }
        let mut then_branch = then_block;
        let mut else_branch = else_block;
        if matches!(ty, CType::Void) {
            self.emit(StmtKind::If {
                condition: condition.expr,
                then_branch,
                else_branch,
            });
            return Ok(Val::void());
        }
        let temp = self.temp(&ty);
        then_branch.push(Stmt {
            kind: StmtKind::Assign(Place::Local(temp), then_value.expr),
            origin: self.origin,
        });
        else_branch.push(Stmt {
            kind: StmtKind::Assign(Place::Local(temp), else_value.expr),
            origin: self.origin,
        });
        self.emit(StmtKind::If {
            condition: condition.expr,
            then_branch,
            else_branch,
        });
        Ok(Val {
            expr: Expr::Load(Place::Local(temp)),
            ty,
        })
    }

    /// GNU `({ ... })`: its value is that of the last expression statement.
    fn statement_expression(&mut self, s: &'a Node<ast::Statement>) -> LResult<Val> {
        let ast::Statement::Compound(items) = &s.node else {
            return self.lower_statement(s).map(|_| Val::void());
        };
        self.scopes.push(Default::default());
        let mut value = Val::void();
        let result = (|| {
            for (k, item) in items.iter().enumerate() {
                match &item.node {
                    ast::BlockItem::Statement(st) if k + 1 == items.len() => match &st.node {
                        ast::Statement::Expression(Some(e)) => value = self.rvalue(e)?,
                        _ => self.lower_statement(st)?,
                    },
                    _ => self.lower_block_item(item)?,
                }
            }
            Ok(())
        })();
        self.scopes.pop();
        result.map(|_| value)
    }
}

/// The type of an integer constant of value `value`, as C gives it: the
/// first of int, unsigned int (octal and hexadecimal only), long and
/// unsigned long that holds it, from the one its suffix names.
fn constant_type(constant: &ast::Integer, value: i64) -> CType {
    let unsigned_value = value as u64;
    let decimal = matches!(constant.base, ast::IntegerBase::Decimal);
    let fits = |bits: u8, signed: bool| match (bits, signed) {
        (32, true) => unsigned_value <= i32::MAX as u64,
        (32, false) => unsigned_value <= u64::from(u32::MAX),
        (_, true) => unsigned_value <= i64::MAX as u64,
        _ => true,
    };
    let long_only = !matches!(constant.suffix.size, ast::IntegerSize::Int);
    let candidates: &[(u8, bool)] = match (constant.suffix.unsigned, long_only, decimal) {
        (true, false, _) => &[(32, false), (64, false)],
        (true, true, _) => &[(64, false)],
        (false, false, true) => &[(32, true), (64, true), (64, false)],
        (false, false, false) => &[(32, true), (32, false), (64, true), (64, false)],
        (false, true, _) => &[(64, true), (64, false)],
    };
    let (bits, signed) = candidates
        .iter()
        .copied()
        .find(|&(bits, signed)| fits(bits, signed))
        .unwrap_or((64, false));
    CType::Int { bits, signed }
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

/// A constant that C computes in an unsigned type (`2u`, or `2` next to an
/// unsigned operand) or one wider than `int` (`1L`, or `1` next to a `long`
/// operand), cast to that type: the printer writes constants without a
/// suffix, so `v - 2u` would be computed signed.
fn widen_constant(expr: Expr, ty: &CType, lowerer: &FnLowerer) -> Expr {
    match (&expr, ty) {
        (Expr::Const(v), CType::Int { bits, signed })
            if !*signed || (*bits > 32 && i32::try_from(*v).is_ok()) =>
        {
            Expr::Cast(lowerer.lw.types.ir_type(ty), Box::new(expr))
        }
        _ => expr,
    }
}
