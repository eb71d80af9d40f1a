//! Global objects: flattening into scalar shared locations (arrays and
//! struct fields consecutive), constant initialisers, and the plain
//! (non-shared) globals such as thread handles.

use super::c_types::types::{BitField, CType};
use super::expr::bit_fields::low_bits;
use super::lower::{Global, LResult, Lowerer};
use super::stmt::initialisers::{Filled, Part};
use super::values::fits_shared_memory;
use crate::ir::{PlainGlobal, Runs, Shape};
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::{BTreeMap, HashSet};

/// The most scalars shared memory may hold in globals: each is one location
/// of the shared memory abstraction, and a pointer to any of them must fit
/// in shared memory's values of 32 bits as a byte address (8 per
/// location). lazysma describes locations by object, so their number costs
/// no memory of its own.
pub const MAX_SHARED_SCALARS: u64 = 1 << 28;

impl<'a> Lowerer<'a> {
    /// Declares a thread-local global (`_Thread_local`, `__thread`): each
    /// thread has its own copy, starting at the constant initial value
    /// (arrays and structs at zero). The copy is private to its thread,
    /// unless the program takes its address (`&me`, for `me` or a
    /// `static` one of a function named `function::me`): then other
    /// threads may reach it, and it is shared memory
    /// ([`crate::ir::ThreadLocalObject`]).
    pub fn declare_thread_local(
        &mut self,
        name: &str,
        (ty, atomic): (CType, bool),
        init: Option<&'a Node<Initializer>>,
        span: Span,
    ) -> LResult<()> {
        if matches!(ty, CType::Float(_)) {
            return self.refuse(
                span,
                "a thread-local floating variable",
                Some("make it a local of the thread function"),
            );
        }
        let initial = match init.map(|init| &init.node) {
            None => None,
            Some(Initializer::Expression(e)) if ty.is_scalar() => Some(self.static_value(e)?),
            // each thread's copy of an array or struct starts at zero
            Some(Initializer::List(items)) if !ty.is_scalar() && self.all_zero(items) => None,
            Some(_) if ty.is_scalar() => {
                return self.refuse(span, "a braced initialiser of a thread-local scalar", None);
            }
            Some(_) => {
                return self.refuse(
                    span,
                    "a thread-local array or struct initialised to values other than zero",
                    Some("start it at zero (`= { 0 }`) and set it in the thread"),
                );
            }
        };
        // A definition after an `extern` declaration gives the initial value.
        if let Some(Global::ThreadLocalShared { address, .. }) = self.globals.get(name) {
            let address = *address;
            if let Some(value) = initial
                && let Some(object) = self
                    .program
                    .thread_local_objects
                    .iter_mut()
                    .find(|object| object.address == address)
            {
                object.initial = value;
            }
            return Ok(());
        }
        if let Some(Global::ThreadLocal { id, .. }) = self.globals.get(name) {
            let id = *id;
            if let Some(value) = initial
                && let Some(entry) = self
                    .program
                    .per_thread
                    .iter_mut()
                    .find(|(array, _)| *array == id)
            {
                entry.1 = value;
            }
            return Ok(());
        }
        if self.globals.contains_key(name) {
            return Ok(());
        }
        let initial = initial.unwrap_or(0);
        let ir_ty = self.types.ir_type(&ty);
        let simple_name = name.rsplit("::").next().unwrap_or(name);
        if self.addressed_names.contains(simple_name) {
            self.declare_shared_thread_local(name, (ty, atomic), ir_ty, initial);
            return Ok(());
        }
        let id = self.per_thread_global(name, ir_ty, initial);
        self.types.object_types.insert(name.to_string(), ty.clone());
        self.globals
            .insert(name.to_string(), Global::ThreadLocal { id, ty });
        Ok(())
    }

    /// A thread-local object whose address the program takes: a plain
    /// global stands for the running thread's copy until instantiation
    /// gives each thread its own ([`crate::ir::ThreadLocalObject`]).
    fn declare_shared_thread_local(
        &mut self,
        name: &str,
        (ty, atomic): (CType, bool),
        ir_ty: crate::ir::Ty,
        initial: i64,
    ) {
        self.program.plain_globals.push(crate::ir::PlainGlobal {
            name: format!("{name}__thread_copy"),
            ty: crate::ir::PER_THREAD_VALUE,
        });
        let address = self.program.plain_globals.len() - 1;
        self.program
            .thread_local_objects
            .push(crate::ir::ThreadLocalObject {
                name: name.to_string(),
                ty: ir_ty,
                address,
                initial,
            });
        self.types.object_types.insert(name.to_string(), ty.clone());
        self.globals.insert(
            name.to_string(),
            Global::ThreadLocalShared {
                address,
                ty,
                atomic,
            },
        );
    }

    /// Puts the initial value `init` of the bit-field `bits` into the
    /// initial value of its storage unit, `values[unit]`.
    fn initialise_bit_field(
        &mut self,
        bits: &BitField,
        init: &'a Node<Initializer>,
        values: &mut Runs<i64>,
        unit: usize,
    ) -> LResult<()> {
        let expression = match &init.node {
            Initializer::Expression(e) => e,
            Initializer::List(items) => match items.first().map(|item| &item.node.initializer.node)
            {
                Some(Initializer::Expression(e)) => e,
                _ => return self.refuse(init.span, "this initialiser of a bit-field", None),
            },
        };
        let value = self.static_value(expression)?;
        let mask = low_bits(bits.width);
        let placed = (value & mask) << bits.offset;
        if let Some(&old) = values.get(unit) {
            let slot = (old & !(mask << bits.offset)) | placed;
            values.set(unit, slot);
            if !fits_shared_memory(slot, &bits.unit_type, self.value_bits) {
                return self.value_too_wide(slot, expression.span);
            }
        }
        Ok(())
    }

    /// Whether a braced initialiser sets every element to zero (`{ 0 }`,
    /// `{ { 0 }, 0 }`, `{}`).
    fn all_zero(&mut self, items: &'a [Node<InitializerListItem>]) -> bool {
        items.iter().all(|item| match &item.node.initializer.node {
            Initializer::Expression(e) => self.types.const_eval(e) == Some(0),
            Initializer::List(inner) => self.all_zero(inner),
        })
    }

    /// Declares (or completes the initialiser of) a global object.
    pub fn declare_global(
        &mut self,
        name: &str,
        ty: CType,
        init: Option<&'a Node<Initializer>>,
        atomic: bool,
        span: Span,
    ) -> LResult<()> {
        if let CType::Array(_, 0) = ty
            && init.is_none()
            && self.globals.contains_key(name)
        {
            return Ok(());
        }
        match self.globals.get(name).cloned() {
            // `extern int a[];` followed by the definition `int a[N];`.
            Some(Global::Shared {
                ty: CType::Array(_, 0),
                ..
            }) if !matches!(ty, CType::Array(_, 0)) => {
                self.globals.remove(name);
            }
            Some(Global::Shared { base, ty: old, .. }) => {
                if let Some(init) = init {
                    let size = self.types.size(&old) as usize;
                    let values = self.initial_values(&old, init, size)?;
                    self.set_initial_values(base, &values);
                }
                return Ok(());
            }
            Some(
                Global::Plain { .. }
                | Global::ThreadLocal { .. }
                | Global::ThreadLocalShared { .. },
            ) => return Ok(()),
            None => {}
        }
        // a handle whose address the program takes (`start(&t)`) is in
        // shared memory, as one in a struct or a heap block is
        let handle_escapes = ty.is_thread_handle() && self.names_passed_by_address.contains(name);
        if ty.is_thread_data() && !handle_escapes {
            let ir_ty = self.types.ir_type(&ty);
            self.program.plain_globals.push(PlainGlobal {
                name: name.to_string(),
                ty: ir_ty,
            });
            let id = self.program.plain_globals.len() - 1;
            self.types.object_types.insert(name.to_string(), ty.clone());
            self.globals
                .insert(name.to_string(), Global::Plain { id, ty });
            return Ok(());
        }
        let ty = match init.and_then(literal_initialiser) {
            Some(literal) if matches!(ty, CType::Array(_, 0)) => {
                self.literal_type(&literal.node)?
            }
            _ => self.completed_array(ty, init, &|_| false)?,
        };
        self.check_shared_size(name, &ty, span)?;
        let shape = self.shape(&ty, span)?;
        let base = self.program.locations.push_object(name.to_string(), shape);
        // Declared before its initialiser, which may take its own address
        // (`struct node dummy = { 0, &dummy };`, a circular list's head).
        self.types.object_types.insert(name.to_string(), ty.clone());
        self.globals.insert(
            name.to_string(),
            Global::Shared {
                base,
                ty: ty.clone(),
                atomic,
            },
        );
        if let Some(init) = init {
            let count = self.types.size(&ty) as usize;
            let values = self.initial_values(&ty, init, count)?;
            self.set_initial_values(base, &values);
        }
        Ok(())
    }

    /// Gives the locations from `base` on the initial `values` (a mutex
    /// keeps 0), in as many steps as values that are not 0.
    pub(super) fn set_initial_values(&mut self, base: u32, values: &Runs<i64>) {
        for (k, &value) in values.except(&0) {
            self.program.locations.set_initial(base as usize + k, value);
        }
    }

    /// Refuses the global `name` of type `ty` when shared memory with it
    /// would hold more than [`MAX_SHARED_SCALARS`] scalars, before any of
    /// its locations is made: each costs memory here and in the SMA.
    fn check_shared_size(&self, name: &str, ty: &CType, span: Span) -> LResult<()> {
        let scalars = self.types.size(ty);
        let before = self.program.locations.len() as u64;
        if scalars.saturating_add(before) <= MAX_SHARED_SCALARS {
            return Ok(());
        }
        Err(Box::new(
            self.source.diagnostic(
                span.start,
                span.end,
                format!(
                    "`{name}` has {scalars} scalars, and shared memory can hold at most \
                 {MAX_SHARED_SCALARS} (the program's other globals take {before})"
                ),
                format!("{scalars} scalars"),
                Some(
                    "every scalar of a global is one location of the shared memory abstraction; \
                 make the object smaller (a size from a macro can be given with -D), as small as \
                 the accesses the program makes need"
                        .to_string(),
                ),
            ),
        ))
    }

    /// The shape of an object of type `ty`: one location per scalar.
    fn shape(&mut self, ty: &CType, span: Span) -> LResult<Shape> {
        match ty {
            CType::Array(element, n) => Ok(Shape::array(self.shape(element, span)?, *n)),
            CType::Struct(id) => {
                let fields = self.types.fields(*id, span)?.to_vec();
                let mut members = Vec::with_capacity(fields.len());
                for (field, field_ty) in fields {
                    members.push((field, self.shape(&field_ty, span)?));
                }
                Ok(Shape::structure(members))
            }
            CType::Function(..) => self.refuse(span, "a function-typed object", None),
            _ => {
                self.shared_float_fits(ty, span)?;
                Ok(Shape::Scalar {
                    ty: self.types.ir_type(ty),
                    mutex: *ty == CType::Mutex,
                })
            }
        }
    }

    /// The diagnostic for an initial value that `--bitwidth` cannot hold.
    pub(super) fn value_too_wide<T>(&self, value: i64, span: Span) -> LResult<T> {
        let bits = self.value_bits;
        Err(Box::new(self.source.diagnostic(
            span.start,
            span.end,
            format!("the initial value {value} does not fit in shared memory of --bitwidth {bits}"),
            format!("{value} needs more than {bits} bits"),
            Some(format!(
                "shared memory holds {} .. {} at --bitwidth {bits}; give a larger --bitwidth (32 by default, 64 for 64-bit values)",
                -(1i64 << (bits - 1)),
                (1i64 << (bits - 1)) - 1
            )),
        )))
    }

    /// The initial values of the `size` scalars of an object.
    pub fn initial_values(
        &mut self,
        ty: &CType,
        init: &'a Node<Initializer>,
        size: usize,
    ) -> LResult<Runs<i64>> {
        let mut values = Runs::filled(0, size);
        self.initialise(ty, init, &mut values, 0)?;
        Ok(values)
    }

    fn initialise(
        &mut self,
        ty: &CType,
        init: &'a Node<Initializer>,
        values: &mut Runs<i64>,
        offset: usize,
    ) -> LResult<()> {
        if let CType::Array(element, length) = ty
            && let Some(literal) = super::stmt::strings::array_string_initialiser(element, init)
        {
            return self.initialise_string(literal, element, *length, values, offset);
        }
        match (&init.node, ty) {
            // A mutex starts free; a condition variable or attribute has no
            // value here (`PTHREAD_MUTEX_INITIALIZER`, `PTHREAD_COND_INITIALIZER`).
            (_, CType::Mutex | CType::Opaque(_)) => Ok(()),
            (Initializer::Expression(e), CType::Float(_)) => {
                let v = self.floating_static_value(e, ty)?;
                values.set(offset, v);
                Ok(())
            }
            (Initializer::Expression(e), _) if ty.is_scalar() => {
                let v = self.static_value(e)?;
                if !fits_shared_memory(v, ty, self.value_bits) {
                    return self.value_too_wide(v, e.span);
                }
                values.set(offset, v);
                Ok(())
            }
            (Initializer::List(items), _) if ty.is_scalar() => match items.first() {
                Some(item) => self.initialise(ty, &item.node.initializer, values, offset),
                None => Ok(()),
            },
            (Initializer::List(items), CType::Array(..) | CType::Struct(_)) => {
                let parts = self.static_braced_parts(ty, items)?;
                self.initialise_parts(ty, &parts, values, offset, init.span)
            }
            (Initializer::Expression(e), CType::Array(..) | CType::Struct(_))
                if literal_initialiser(init).is_some() =>
            {
                self.initialise_from_literal(ty, e, values, offset)
            }
            _ => self.refuse(
                init.span,
                "this initialiser",
                Some("initialise the object with constants"),
            ),
        }
    }

    /// The initial values of an array or a struct initialised by a compound
    /// literal of its type (`lib_t lib = (lib_t){ 1, 2, &m };`, GNU C at
    /// file scope), at `offset` in `values`: those of the literal's braced
    /// list, as if it initialised the object itself.
    fn initialise_from_literal(
        &mut self,
        ty: &CType,
        e: &'a Node<Expression>,
        values: &mut Runs<i64>,
        offset: usize,
    ) -> LResult<()> {
        let Expression::CompoundLiteral(literal) = &e.node else {
            return self.refuse(e.span, "this initialiser", None);
        };
        let literal_ty = self.literal_type(&literal.node)?;
        if !self.same_object_type(ty, &literal_ty) {
            return self.refuse(
                e.span,
                "a compound literal of another type than the object it initialises",
                Some("give the literal the object's own type"),
            );
        }
        let parts = self.static_braced_parts(ty, &literal.node.initializer_list)?;
        self.initialise_parts(ty, &parts, values, offset, e.span)
    }

    /// The subobjects of an object of aggregate type `ty` that the braced
    /// list `items` of a static initialiser fills
    /// ([`Lowerer::braced_initialiser`]): a compound literal of a struct
    /// type fills a struct subobject whole (`{ (lib_t){ 1, 2 }, 5 }`).
    fn static_braced_parts(
        &mut self,
        ty: &CType,
        items: &'a [Node<InitializerListItem>],
    ) -> LResult<BTreeMap<u64, Part<'a>>> {
        let mut literals = HashSet::new();
        self.struct_literals(items, &mut literals);
        let whole =
            |expression: &'a Node<Expression>| literals.contains(&std::ptr::from_ref(expression));
        self.braced_initialiser(ty, items, &whole)
    }

    /// Adds to `literals` the compound literals of a struct type among
    /// `items`, nested lists included.
    fn struct_literals(
        &mut self,
        items: &'a [Node<InitializerListItem>],
        literals: &mut HashSet<*const Node<Expression>>,
    ) {
        for item in items {
            match &item.node.initializer.node {
                Initializer::List(inner) => self.struct_literals(inner, literals),
                Initializer::Expression(e) => {
                    if let Expression::CompoundLiteral(literal) = &e.node
                        && let Ok(CType::Struct(_)) = self.types.type_name(&literal.node.type_name)
                    {
                        literals.insert(std::ptr::from_ref(&**e));
                    }
                }
            }
        }
    }

    /// The type of the object a compound literal makes: its type name, an
    /// array without a length one past the last element its list
    /// initialises (`(int[]){ 1, 2, 3 }` has 3).
    fn literal_type(&mut self, literal: &'a CompoundLiteral) -> LResult<CType> {
        let (ty, _) = self.types.type_name(&literal.type_name)?.without_atomic();
        let CType::Array(element, 0) = &ty else {
            return Ok(ty);
        };
        let parts = self.static_braced_parts(&ty, &literal.initializer_list)?;
        let length = parts.keys().next_back().map_or(0, |last| last + 1);
        Ok(CType::Array(element.clone(), length))
    }

    /// Whether objects of types `a` and `b` are laid out alike: the same
    /// type, or structs of the same fields, or arrays of as many such
    /// elements.
    fn same_object_type(&self, a: &CType, b: &CType) -> bool {
        match (a, b) {
            (CType::Struct(x), CType::Struct(y)) => {
                x == y || self.types.structs[*x].fields == self.types.structs[*y].fields
            }
            (CType::Array(x, m), CType::Array(y, n)) => m == n && self.same_object_type(x, y),
            (x, y) => x == y,
        }
    }

    /// The object of a compound literal whose address a global's
    /// initialiser takes (`int *p = (int[]){ 1, 2 };`, `struct s *q =
    /// &(struct s){ 1 };`): a global of the literal's type, named
    /// `literal#N`, initialised from its list; its first location. `None`
    /// for another expression.
    fn static_literal_object(&mut self, e: &'a Node<Expression>) -> LResult<Option<i64>> {
        let Some((literal, decays)) = addressed_literal(e) else {
            return Ok(None);
        };
        let ty = self.literal_type(&literal.node)?;
        if decays && !matches!(ty, CType::Array(..)) {
            return Ok(None);
        }
        let count = self
            .globals
            .keys()
            .filter(|name| name.starts_with("literal#"))
            .count();
        let base = self.program.locations.len() as u32;
        self.declare_global(&format!("literal#{count}"), ty.clone(), None, false, e.span)?;
        let mut values = Runs::filled(0, self.types.size(&ty) as usize);
        let parts = self.static_braced_parts(&ty, &literal.node.initializer_list)?;
        self.initialise_parts(&ty, &parts, &mut values, 0, e.span)?;
        self.set_initial_values(base, &values);
        Ok(Some(i64::from(base)))
    }

    /// The initial values of the subobjects of an array or a struct that a
    /// braced initialiser gives values to ([`Lowerer::braced_initialiser`]),
    /// at `offset` in `values`.
    fn initialise_parts(
        &mut self,
        ty: &CType,
        parts: &BTreeMap<u64, Part<'a>>,
        values: &mut Runs<i64>,
        offset: usize,
        span: Span,
    ) -> LResult<()> {
        match ty {
            CType::Array(element, _) => {
                let stride = self.types.size(element) as usize;
                for (index, part) in parts {
                    self.initialise_filled(
                        element,
                        &part.filled,
                        values,
                        offset + *index as usize * stride,
                        span,
                    )?;
                }
                Ok(())
            }
            CType::Struct(id) => {
                let fields = self.types.fields(*id, span)?.to_vec();
                let members = self.types.members(*id, span)?;
                for (position, part) in parts {
                    let Some(member) = members.get(*position as usize) else {
                        continue;
                    };
                    if self.types.is_padding(*id, member) {
                        continue;
                    }
                    let field_offset = |field: &str| -> usize {
                        let position = fields
                            .iter()
                            .position(|(f, _)| f == field)
                            .unwrap_or(fields.len());
                        fields[..position]
                            .iter()
                            .map(|(_, t)| self.types.size(t))
                            .sum::<u64>() as usize
                    };
                    match (self.types.bit_field_member(*id, member), &part.filled) {
                        (Some(bits), Filled::Value(init)) => {
                            let unit = offset + field_offset(&bits.unit);
                            self.initialise_bit_field(&bits, init, values, unit)?;
                        }
                        _ => {
                            // a union of scalars' other member: the first
                            // member's location, holding a value of the
                            // member's own type
                            let alias_type = part
                                .alias
                                .as_ref()
                                .and_then(|alias| self.types.alias_member(*id, alias));
                            let own_type = fields
                                .iter()
                                .find(|(f, _)| f == member)
                                .map(|(_, t)| t.clone());
                            let field_ty = alias_type.or(own_type).unwrap_or(CType::INT);
                            let at = offset + field_offset(member);
                            self.initialise_filled(&field_ty, &part.filled, values, at, span)?;
                        }
                    }
                }
                Ok(())
            }
            _ => self.refuse(
                span,
                "this initialiser",
                Some("initialise the object with constants"),
            ),
        }
    }

    /// The initial values `filled` gives an object of type `ty` at `offset`.
    fn initialise_filled(
        &mut self,
        ty: &CType,
        filled: &Filled<'a>,
        values: &mut Runs<i64>,
        offset: usize,
        span: Span,
    ) -> LResult<()> {
        match filled {
            Filled::Value(init) => self.initialise(ty, init, values, offset),
            Filled::Parts(parts) => self.initialise_parts(ty, parts, values, offset, span),
        }
    }

    /// The initial values of a character array from a string literal, at
    /// `offset` in `values`.
    fn initialise_string(
        &self,
        literal: &Node<StringLiteral>,
        element: &CType,
        length: u64,
        values: &mut Runs<i64>,
        offset: usize,
    ) -> LResult<()> {
        for (k, v) in self
            .string_values(literal, element, length)?
            .into_iter()
            .enumerate()
        {
            if !fits_shared_memory(v, element, self.value_bits) {
                return self.value_too_wide(v, literal.span);
            }
            values.set(offset + k, v);
        }
        Ok(())
    }

    /// The initial value of a floating scalar of shared memory, as memory
    /// holds it: the bits of the constant converted to the scalar's type.
    fn floating_static_value(&mut self, e: &'a Node<Expression>, ty: &CType) -> LResult<i64> {
        let value = super::expr::floating::constant_value(&mut self.types, e)
            .zip(ty.float_bits())
            .map(|(value, bits)| value.to_bits_of(bits).stored());
        match value {
            Some(bits) => Ok(bits),
            None => self.refuse(
                e.span,
                "a floating initial value other than a constant",
                Some("give a constant (`1.5`, `-2`, `1.0 / 3`) and compute other values in main"),
            ),
        }
    }

    /// The value of a constant expression, including addresses of globals.
    pub fn static_value(&mut self, e: &'a Node<Expression>) -> LResult<i64> {
        if let Some(v) = self.types.const_eval(e) {
            return Ok(v);
        }
        // a function's number (`struct ops table = { .get = get };`, `&get`)
        let named = match &super::analysis::scan::uncast(e).node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                &u.node.operand.node
            }
            other => other,
        };
        if let Expression::Identifier(id) = named
            && !self.globals.contains_key(&id.node.name)
            && let Some((number, _)) = self.function_value(&id.node.name)
        {
            return Ok(number);
        }
        if let Expression::StringLiteral(literal) = &super::analysis::scan::uncast(e).node {
            let (address, _) = self.string_object(literal)?;
            self.note_address_taken(&crate::ir::Expr::Const(address));
            return Ok(address * self.program.address_unit());
        }
        if let Some(address) = self.static_literal_object(e)? {
            self.note_address_taken(&crate::ir::Expr::Const(address));
            return Ok(address * self.program.address_unit());
        }
        match self.static_address(e) {
            Some(address) => {
                self.note_address_taken(&crate::ir::Expr::Const(address));
                Ok(address * self.program.address_unit())
            }
            None => self.refuse(
                e.span,
                "a non-constant initialiser of a global",
                Some("assign the value at the start of `main`"),
            ),
        }
    }

    /// Location id denoted by a constant address expression (`&x`, `a`, `&a[2]`).
    fn static_address(&mut self, e: &'a Node<Expression>) -> Option<i64> {
        match &e.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => self
                .static_lvalue(&u.node.operand)
                .map(|(address, _)| address),
            Expression::Identifier(_) => match self.static_lvalue(e)? {
                (address, CType::Array(..)) => Some(address),
                _ => None,
            },
            Expression::Cast(c) => self.static_address(&c.node.expression),
            _ => None,
        }
    }

    fn static_lvalue(&mut self, e: &'a Node<Expression>) -> Option<(i64, CType)> {
        match &e.node {
            Expression::Identifier(id) => match self.globals.get(&id.node.name)? {
                Global::Shared { base, ty, .. } => Some((*base as i64, ty.clone())),
                Global::Plain { .. }
                | Global::ThreadLocal { .. }
                | Global::ThreadLocalShared { .. } => None,
            },
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                let (base, ty) = self.static_lvalue(&b.node.lhs)?;
                let index = self.types.const_eval(&b.node.rhs)?;
                let element = ty.target()?.clone();
                Some((base + index * self.types.size(&element) as i64, element))
            }
            Expression::Member(m) if m.node.operator.node == MemberOperator::Direct => {
                let (base, ty) = self.static_lvalue(&m.node.expression)?;
                let CType::Struct(id) = ty else { return None };
                let (offset, field) = self
                    .types
                    .field(id, &m.node.identifier.node.name, m.span)
                    .ok()?;
                Some((base + offset as i64, field))
            }
            _ => None,
        }
    }
}

/// The compound literal an initialiser is (`(lib_t){ 1, 2, &m }`), if any.
fn literal_initialiser(init: &Node<Initializer>) -> Option<&Node<CompoundLiteral>> {
    match &init.node {
        Initializer::Expression(e) => match &e.node {
            Expression::CompoundLiteral(literal) => Some(literal),
            _ => None,
        },
        Initializer::List(_) => None,
    }
}

/// The compound literal whose address `e` is, and whether it is the
/// literal itself, which decays to its first element's address only if it
/// is an array (`(int[]){ 1 }`), rather than `&` of it (`&(struct s){ 1 }`).
fn addressed_literal(e: &Node<Expression>) -> Option<(&Node<CompoundLiteral>, bool)> {
    match &super::analysis::scan::uncast(e).node {
        Expression::CompoundLiteral(literal) => Some((literal, true)),
        Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
            match &u.node.operand.node {
                Expression::CompoundLiteral(literal) => Some((literal, false)),
                _ => None,
            }
        }
        _ => None,
    }
}
