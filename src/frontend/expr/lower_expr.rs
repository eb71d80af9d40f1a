//! Lowering of C expressions to values (rvalues): constants, `sizeof`,
//! unary operators, compound literals, `&&`, `||` and `?:` with their
//! short-circuit semantics, and GNU statement expressions. Every shared
//! access becomes its own `Read` or `Write` into or from a fresh temporary
//! (`memory_access.rs`), and side effects are split out in evaluation
//! order; lvalues, casts, binary operators, assignments and struct values
//! have their own files.

use super::bit_fields::value_type;
use crate::frontend::c_types::constants::constant_value;
use crate::frontend::c_types::types::{CType, truncate};
use crate::frontend::lower::{Binding, FnLowerer, LResult, binary};
use crate::frontend::values::{LVal, Val, common, floating_bits, promote};
use crate::ir::*;
use lang_c::ast::{self, Expression, UnaryOperator};
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
                if let Some(Binding::Constant(v, ty)) = self.lookup(&id.node.name) {
                    return Ok(Val { expr: Expr::Const(v), ty });
                }
                if let Some(&v) = self.lw.types.enum_constants.get(&id.node.name)
                    && self.lookup(&id.node.name).is_none()
                    && !self.lw.globals.contains_key(&id.node.name)
                {
                    // a folded `const` global keeps its type
                    // (`const uint64_t g = UINT64_MAX; l < g` compares
                    // as unsigned long long)
                    return Ok(match self.lw.types.constant_types.get(&id.node.name) {
                        Some(ty) => Val {
                            expr: Expr::Const(v),
                            ty: ty.clone(),
                        },
                        None => Val::int(v),
                    });
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
            Expression::OffsetOf(offset) => {
                // `offsetof(typeof(*p), m)` of the kernel's `container_of`
                self.resolve_typeof_in_type_name(&offset.node.type_name)?;
                match self.lw.types.offset_of(offset)? {
                    Some(bytes) => Ok(Val { expr: Expr::Const(bytes as i64), ty: CType::SIZE }),
                    None => self.lw.refuse(e.span, "`offsetof` with an index that is not a constant", None),
                }
            }
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

    /// Shared memory holds an `int` up to `--bitwidth 32` (the SMA narrows
    /// it further below 32 bits): a 64-bit value that no `int` holds would
    /// be cut down on its way there, so the execution is cut off instead
    /// of going on with another value (a bound hides bugs, never invents
    /// them). The value goes through `int` and back unchanged, or it is
    /// assumed away.
    pub(in crate::frontend) fn cut_off_wider_than_shared_memory(
        &mut self,
        value: &Expr,
        ty: &CType,
    ) {
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

    pub(in crate::frontend) fn index(
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
                self.note_pointer_base(&address, &pointer.ty, span);
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
    pub(in crate::frontend) fn compound_literal(
        &mut self,
        literal: &'a ast::CompoundLiteral,
        span: Span,
    ) -> LResult<LVal> {
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

    /// A value of type `ty` as shared memory holds it: a floating value as
    /// the integer of its bits, any other as itself.
    pub(in crate::frontend) fn to_memory(&self, value: Expr, ty: &CType) -> Expr {
        match floating_bits(ty) {
            Some(bits) => Expr::Reinterpret(self.lw.types.ir_type(&bits), Box::new(value)),
            None => value,
        }
    }

    /// The value of type `ty` whose memory form is `stored` ([`Self::to_memory`]).
    pub(in crate::frontend) fn value_from_memory(&self, stored: Expr, ty: &CType) -> Expr {
        match floating_bits(ty) {
            Some(_) => Expr::Reinterpret(self.lw.types.ir_type(ty), Box::new(stored)),
            None => stored,
        }
    }

    /// `a && b` / `a || b`: pure when `b` emits nothing, otherwise an `If`.
    pub(in crate::frontend) fn short_circuit(
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
