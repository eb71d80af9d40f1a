//! Memory functions: `memset`, `memcpy` and `memmove` over whole objects,
//! string copies, havocked objects, and heap allocation (`malloc`,
//! `calloc`) in blocks of scalars.

use crate::frontend::analysis::scan::uncast;
use crate::frontend::c_types::types::{CType, truncate};
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::{LVal, Val};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// `strcpy(dst, "literal")`: one write per character and the terminator.
    pub(in crate::frontend) fn copy_string_literal(
        &mut self,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let [destination, source] = arguments else {
            return self.lw.error(
                span,
                "strcpy takes 2 arguments",
                "wrong number of arguments",
            );
        };
        let Expression::StringLiteral(literal) = &uncast(source).node else {
            return self.lw.refuse(
                source.span,
                "strcpy from something other than a string literal",
                None,
            );
        };
        let bytes = match crate::frontend::stmt::strings::literal_bytes(&literal.node) {
            Ok(bytes) => bytes,
            Err(what) => {
                return self
                    .lw
                    .refuse(source.span, what, Some("copy the characters one by one"));
            }
        };
        let destination = self.rvalue(destination)?;
        // the characters as the destination's elements hold them: a plain
        // char is signed, so "\xc8" is -56 there
        let signed = !matches!(
            destination.ty.target(),
            Some(CType::Int {
                bits: 8,
                signed: false
            })
        );
        let destination = self.save(destination.expr, &destination.ty);
        let first = self.lw.location_of(destination.clone());
        for (k, byte) in bytes.into_iter().chain(std::iter::once(0)).enumerate() {
            let address = binary(BinaryOp::Add, first.clone(), Expr::Const(k as i64));
            self.emit(StmtKind::Write {
                address,
                value: Expr::Const(truncate(i64::from(byte), 8, signed)),
            });
        }
        Ok(Val {
            expr: destination,
            ty: CType::Pointer(Box::new(CType::CHAR)),
        })
    }

    /// `memset(destination, byte, size)`: every scalar of the `size` bytes
    /// at `destination` gets the value whose bytes are all `byte`, one
    /// store after the other (memset is no atomic operation).
    pub(in crate::frontend) fn set_memory(
        &mut self,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let [destination, byte, size] = arguments else {
            return self.lw.error(
                span,
                "memset takes 3 arguments",
                "wrong number of arguments",
            );
        };
        let Some(byte) = self.lw.types.const_eval(uncast(byte)) else {
            return self.lw.refuse(
                byte.span,
                "memset with a byte that is not a constant",
                Some("store the values one by one"),
            );
        };
        let bytes = self.memory_size(size)?;
        for object in self.memory_objects(destination, bytes, None)? {
            self.fill_bytes(&object, (byte & 0xff) as u8, span)?;
        }
        Ok(Val::void())
    }

    /// `memcpy`/`memmove(destination, source, size)`: the `size` bytes at
    /// `source` are copied to `destination` scalar by scalar, a load and a
    /// store of each, in order; `memmove` loads all of them before it
    /// stores any, so that the two may overlap. Both must hold objects of
    /// the same type.
    pub(in crate::frontend) fn copy_memory(
        &mut self,
        arguments: &'a [Node<Expression>],
        overlapping: bool,
        span: Span,
    ) -> LResult<Val> {
        let [destination, source, size] = arguments else {
            return self.lw.error(
                span,
                "memcpy and memmove take 3 arguments",
                "wrong number of arguments",
            );
        };
        let bytes = self.memory_size(size)?;
        // a `void *` side holds objects of the other side's type
        let (targets, mut origins) =
            if self.points_to_void(destination)? && !self.points_to_void(source)? {
                let origins = self.memory_objects(source, bytes, None)?;
                let kind = origins.first().map(|origin| origin.ty().clone());
                (
                    self.memory_objects(destination, bytes, kind.as_ref())?,
                    origins,
                )
            } else {
                let targets = self.memory_objects(destination, bytes, None)?;
                let kind = targets.first().map(|target| target.ty().clone());
                let origins = self.memory_objects(source, bytes, kind.as_ref())?;
                (targets, origins)
            };
        if targets.first().map(LVal::ty) != origins.first().map(LVal::ty) {
            if self.copy_floating_bits(&targets, &origins, span)? {
                return Ok(Val::void());
            }
            return self.lw.refuse(
                span,
                "copying memory between objects of different types",
                Some("copy between objects of the same type, or field by field"),
            );
        }
        if overlapping {
            // every object into a private copy first
            origins = origins
                .iter()
                .map(|origin| {
                    let copy =
                        LVal::Private(Place::Local(self.temp(origin.ty())), origin.ty().clone());
                    self.copy_struct(&copy, origin, span).map(|()| copy)
                })
                .collect::<LResult<_>>()?;
        }
        for (target, origin) in targets.iter().zip(&origins) {
            self.copy_struct(target, origin, span)?;
        }
        Ok(Val::void())
    }

    /// `memcpy` between a floating scalar and an integer one of its size,
    /// either way (`memcpy(&bits, &f, sizeof f)`): each source's bits
    /// become the target's value. Whether the objects are such pairs (and
    /// the copy was made).
    pub(in crate::frontend) fn copy_floating_bits(
        &mut self,
        targets: &[LVal],
        origins: &[LVal],
        span: Span,
    ) -> LResult<bool> {
        let punned = |target: &CType, origin: &CType| {
            let numbers = [target, origin]
                .iter()
                .all(|ty| ty.is_scalar() && !ty.is_pointer() && !matches!(ty, CType::Atomic(_)));
            let one_floating = target.float_bits().is_some() != origin.float_bits().is_some();
            numbers
                && one_floating
                && self.lw.types.byte_size(target) == self.lw.types.byte_size(origin)
        };
        if targets.len() != origins.len()
            || !targets
                .iter()
                .zip(origins)
                .all(|(target, origin)| punned(target.ty(), origin.ty()))
        {
            return Ok(false);
        }
        for (target, origin) in targets.iter().zip(origins) {
            let value = self.load(origin.clone(), span)?;
            let ty = target.ty().clone();
            let bits = Expr::Reinterpret(self.lw.types.ir_type(&ty), Box::new(value.expr));
            self.store(target, Val { expr: bits, ty }, span)?;
        }
        Ok(true)
    }

    /// Whether the memory-function argument `argument` is a `void *` (with
    /// its casts), so that the objects it covers have no type of their own.
    pub(in crate::frontend) fn points_to_void(
        &mut self,
        argument: &'a Node<Expression>,
    ) -> LResult<bool> {
        let inner = uncast(argument);
        if matches!(&inner.node, Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address)
        {
            return Ok(false);
        }
        Ok(matches!(self.type_of(inner)?, CType::Pointer(target) if matches!(*target, CType::Void)))
    }

    /// The size argument of `memset`/`memcpy`: a constant number of bytes.
    /// In a function lowered for every value of its size parameter
    /// (`specialisations.rs`), the help names the call that passes a
    /// value known only at run time.
    pub(in crate::frontend) fn memory_size(&mut self, size: &'a Node<Expression>) -> LResult<u64> {
        match self.rvalue(size)?.expr {
            Expr::Const(bytes) if bytes > 0 => Ok(bytes as u64),
            _ => {
                let help = match self.lw.specialisations.lowering_generic {
                    Some(Some(call)) => {
                        let at = self.lw.source.position(call.start);
                        format!(
                            "the size is a parameter of `{}`, and the call at {}:{}:{} passes a value known only at run time: pass a constant there (`sizeof x`); each constant gets its own copy of the function, as gcc inlines it",
                            self.name, at.file, at.line, at.column
                        )
                    }
                    Some(None) => format!(
                        "the size is a parameter of `{}`, which is used as a function pointer: call it by name with a constant size (`sizeof x`); each constant gets its own copy of the function, as gcc inlines it",
                        self.name
                    ),
                    None => "give the size as a constant (`sizeof object`, `n * sizeof(T)` with a constant n)".to_string(),
                };
                self.lw.refuse(
                    size.span,
                    "a size that is not a positive constant here",
                    Some(&help),
                )
            }
        }
    }

    /// The objects, all of one type, that the `bytes` bytes at the pointer
    /// `argument` of `memset`/`memcpy` cover: `&x` is `x`, an array is its
    /// elements, and for an element `&a[i]` or a pointer `p` to `T` the
    /// `bytes / sizeof(T)` objects from there on. Private objects stay
    /// private, within their array. A part of a scalar or a struct is
    /// refused.
    pub(in crate::frontend) fn memory_objects(
        &mut self,
        argument: &'a Node<Expression>,
        bytes: u64,
        void_holds: Option<&CType>,
    ) -> LResult<Vec<LVal>> {
        let inner = uncast(argument);
        // the first object, and how many objects from there on its private
        // array holds (shared memory is one sequence of scalars)
        let (mut first, mut room) = match &inner.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                let object = self.lvalue(&u.node.operand)?;
                let room = self.room_after(&u.node.operand, &object)?;
                (object, room)
            }
            _ if matches!(self.type_of(inner)?, CType::Array(..)) => (self.lvalue(inner)?, 1),
            _ => {
                let pointer = self.rvalue(inner)?;
                let pointee = match pointer.ty.target() {
                    Some(CType::Void) => void_holds,
                    other => other,
                };
                let Some(ty) = pointee.cloned() else {
                    return self.lw.refuse(
                        argument.span,
                        "a pointer without a pointee type here",
                        Some("pass the object's own pointer (`&x`, an array, a typed pointer), so that its type is known"),
                    );
                };
                // a `void *` holding the other side's objects is one
                // converted to a pointer to them
                let typed = CType::Pointer(Box::new(ty.clone()));
                self.note_conversion(&pointer, &typed);
                let atomic = pointer.ty.target_is_atomic();
                let address = self.lw.location_of(pointer.expr);
                self.note_pointer_base(&address, &typed, argument.span);
                (
                    LVal::Shared {
                        address,
                        ty,
                        atomic,
                    },
                    u64::MAX,
                )
            }
        };
        // an array is its elements, down to elements that are no arrays
        while let CType::Array(_, length) = first.ty().clone() {
            room = room.saturating_mul(length);
            first = self.element(&first, 0);
        }
        // (a struct without fields has no bytes: no count of them fills any)
        let each = self.lw.types.byte_size(first.ty()).max(1);
        let count = bytes / each;
        let objects = (bytes.is_multiple_of(each) && count <= room)
            .then(|| {
                (0..count)
                    .map(|k| self.following(&first, k))
                    .collect::<Option<Vec<LVal>>>()
            })
            .flatten();
        match objects {
            Some(objects) => Ok(objects),
            None => {
                let what = format!(
                    "{bytes} bytes from an object of {each} bytes (a part of a scalar or struct, or beyond a private array)"
                );
                self.lw.refuse(
                    argument.span,
                    what,
                    Some("give whole objects: `sizeof x`, `n * sizeof(T)`"),
                )
            }
        }
    }

    /// How many objects like `object` (the lvalue `operand`) lie from it on
    /// where memory can be walked: for an element `a[i]` of a private array
    /// with a constant `i`, the elements from `i` on; in shared memory any
    /// number; else 1.
    pub(in crate::frontend) fn room_after(
        &mut self,
        operand: &'a Node<Expression>,
        object: &LVal,
    ) -> LResult<u64> {
        if let LVal::Shared { .. } = object {
            return Ok(u64::MAX);
        }
        let Expression::BinaryOperator(index) = &uncast(operand).node else {
            return Ok(1);
        };
        if index.node.operator.node != BinaryOperator::Index {
            return Ok(1);
        }
        let (CType::Array(_, length), Some(start)) = (
            self.type_of(&index.node.lhs)?,
            self.lw.types.const_eval(&index.node.rhs),
        ) else {
            return Ok(1);
        };
        Ok(u64::try_from(start).map_or(1, |start| length.saturating_sub(start)))
    }

    /// The object `k` places after `object` in memory, of its type: in
    /// shared memory at its address plus `k` objects; for a private array
    /// element, the element `k` further on. `None` for another private
    /// object.
    pub(in crate::frontend) fn following(&self, object: &LVal, k: u64) -> Option<LVal> {
        let step = k as i64;
        match object {
            _ if k == 0 => Some(object.clone()),
            LVal::Shared {
                address,
                ty,
                atomic,
            } => {
                let offset = Expr::Const(step * self.lw.types.size(ty) as i64);
                Some(LVal::Shared {
                    address: binary(BinaryOp::Add, address.clone(), offset),
                    ty: ty.clone(),
                    atomic: *atomic,
                })
            }
            LVal::Private(Place::Index(array, index), ty) => {
                let index = binary(BinaryOp::Add, (**index).clone(), Expr::Const(step));
                Some(LVal::Private(
                    Place::Index(array.clone(), Box::new(index)),
                    ty.clone(),
                ))
            }
            LVal::Private(..) => None,
        }
    }

    /// `scanf`-like input: every pointer argument after the format receives
    /// an arbitrary value.
    pub(in crate::frontend) fn havoc_outputs(
        &mut self,
        arguments: &'a [Node<Expression>],
        first_output: usize,
    ) -> LResult<Val> {
        for argument in arguments.iter().skip(first_output) {
            let object = self.pointer_argument(argument)?;
            self.havoc(object, argument.span)?;
        }
        let result = self.temp(&CType::INT);
        self.emit(StmtKind::Assign(
            Place::Local(result),
            Expr::Nondet(Ty::INT),
        ));
        Ok(Val {
            expr: Expr::Load(Place::Local(result)),
            ty: CType::INT,
        })
    }

    /// Stores arbitrary values into every scalar of a scalar or struct
    /// object (an input the program reads).
    pub(in crate::frontend) fn havoc(&mut self, object: LVal, span: Span) -> LResult<()> {
        let ty = object.ty().clone();
        if let CType::Struct(id) = ty {
            let fields: Vec<String> = self
                .lw
                .types
                .fields(id, span)?
                .iter()
                .map(|(name, _)| name.clone())
                .collect();
            for field in fields {
                let member = self.member(&object, id, &field, span)?;
                self.havoc(member, span)?;
            }
            return Ok(());
        }
        if !ty.is_scalar() {
            return self.lw.refuse(span, "reading input into an array", None);
        }
        let temp = self.temp(&ty);
        self.emit(StmtKind::Assign(
            Place::Local(temp),
            Expr::Nondet(self.lw.types.ir_type(&ty)),
        ));
        self.store(
            &object,
            Val {
                expr: Expr::Load(Place::Local(temp)),
                ty,
            },
            span,
        )
    }

    /// The value at the pointer `argument` (GCC's generic atomics pass
    /// their values so).
    pub(in crate::frontend) fn pointee(&mut self, argument: &'a Node<Expression>) -> LResult<Val> {
        let object = self.pointer_argument(argument)?;
        self.load(object, argument.span)
    }

    /// The object a pointer argument designates; `&x` of a private `x` stays private.
    pub fn pointer_argument(&mut self, argument: &'a Node<Expression>) -> LResult<LVal> {
        if let Expression::UnaryOperator(u) = &uncast(argument).node
            && u.node.operator.node == UnaryOperator::Address
        {
            return self.lvalue(&u.node.operand);
        }
        let pointer = self.rvalue(argument)?;
        let ty = pointer.ty.target().cloned().unwrap_or(CType::INT);
        Ok(LVal::Shared {
            address: self.lw.location_of(pointer.expr),
            ty,
            atomic: false,
        })
    }

    /// `malloc(n)` / `calloc(n, size)`: sizes count scalars.
    pub(in crate::frontend) fn allocate(
        &mut self,
        zeroed: bool,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        // memory is counted in scalars: `malloc(n * sizeof(struct node))`
        // is n times the node's scalars
        self.in_allocation_size = true;
        let size = self.allocation_size(zeroed, arguments, span);
        self.in_allocation_size = false;
        let size = size?;
        match size {
            Expr::Const(n) => {
                self.lw.heap_block = Some(self.lw.heap_block.unwrap_or(0).max(n.max(1) as u64))
            }
            _ => self.lw.heap_unknown = true,
        }
        let temp = self.temp(&CType::Pointer(Box::new(CType::Void)));
        self.emit(StmtKind::Malloc {
            target: Place::Local(temp),
            size,
            zeroed,
        });
        let pointer = self.lw.pointer_to(Expr::Load(Place::Local(temp)));
        self.latest_allocation = Some((pointer.clone(), self.origin));
        Ok(Val {
            expr: pointer,
            ty: CType::Pointer(Box::new(CType::Void)),
        })
    }

    /// The size of an allocation (`malloc(n)`, `calloc(n, s)`).
    pub(in crate::frontend) fn allocation_size(
        &mut self,
        zeroed: bool,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Expr> {
        match (zeroed, arguments) {
            (false, [n]) => Ok(self.rvalue(n)?.expr),
            (true, [n, s]) => {
                let n = self.rvalue(n)?.expr;
                let s = self.rvalue(s)?.expr;
                Ok(binary(BinaryOp::Mul, n, s))
            }
            _ => self
                .lw
                .error(span, "wrong number of arguments to an allocation", "here"),
        }
    }
}
