//! The core of the lowering: program-wide tables (globals, functions,
//! origins) and the per-function state (scopes, temporaries, the block
//! being built) that the expression, statement and builtin lowering files
//! extend, with the small types they share (a global's binding, the
//! thread-specific tables, memory orders). It imports none of the files
//! that extend it.

use super::analysis::scan::AddressUse;
use super::analysis::specialisations::Specialisations;
use super::c_types::types::{CType, TypeEnv};
use super::source::source_map::SourceMap;
use crate::diagnostics::Diagnostic;
use crate::ir::*;
use lang_c::ast::InitializerListItem;
use lang_c::span::Node;
use lang_c::span::Span;
use std::collections::{HashMap, HashSet};

pub type LResult<T> = Result<T, Box<Diagnostic>>;

/// Program-wide lowering state.
pub struct Lowerer<'a> {
    pub source: &'a SourceMap,
    pub types: TypeEnv<'a>,
    pub program: Program,
    pub globals: HashMap<String, Global>,
    /// User-defined functions.
    pub functions: HashMap<String, FunctionId>,
    /// Return types of declared functions (prototypes and definitions).
    pub prototypes: HashMap<String, CType>,
    /// Parameter and return types of user functions.
    pub signatures: HashMap<FunctionId, (Vec<CType>, CType)>,
    /// The user functions whose parameter list ends in `...`: a call's
    /// arguments past the parameters are evaluated and dropped (the body
    /// cannot read them: `va_arg` is refused).
    pub variadic: HashSet<FunctionId>,
    origin_cache: HashMap<(usize, usize), OriginId>,
    /// Largest constant heap block seen, in scalars.
    pub heap_block: Option<u64>,
    /// Whether some heap block size was not a constant.
    pub heap_unknown: bool,
    /// The first call of `callee` in `caller`: (caller name, callee) -> call span.
    pub call_sites: HashMap<(String, FunctionId), Span>,
    /// The bit width of a value in shared memory (`--bitwidth`).
    pub value_bits: u32,
    /// Whether a floating object of shared memory wider than
    /// [`Self::value_bits`] asks for wider memory
    /// ([`Self::shared_bits_needed`]) instead of being bad input.
    pub widen_for_floating: bool,
    /// The widest scalar of shared memory seen so far, in bits: a floating
    /// object, or an integer (a `long`, `size_t`, `uint64_t` or `intptr_t`
    /// holds 64 bits); without `--bitwidth` memory is made this wide.
    pub shared_bits_needed: u32,
    /// The thread-local `errno`, once the program or a failing call uses it.
    errno: Option<PlainGlobalId>,
    /// The objects of the string literals used as values (`char *p =
    /// "ab";`), by their characters: the location of the first.
    pub string_objects: HashMap<Vec<i64>, u32>,
    /// Where the program first takes an address apart (`(uintptr_t)p &
    /// 1`, a marked pointer) or makes a computed integer an address again:
    /// lowered with location numbers, such a program is lowered again
    /// with [`Program::byte_addresses`].
    pub address_taken_apart_at: Option<Span>,
    /// The accesses through pointers and the conversions that make
    /// pointers (`converted_accesses`).
    pub converted: super::analysis::pointer_accesses::ConvertedAccesses,
    /// The user functions used as values (`fp = f`, `&f`, `{ .get = f }`):
    /// those a call through a function pointer may reach.
    pub function_values: HashSet<String>,
    /// The names whose address the unit takes (`&x`): a `const` global
    /// among them is an object, not a named constant.
    pub addressed_names: HashSet<String>,
    /// The names whose address a function takes other than for a builtin
    /// that keeps no address (`pthread_create(&t, ...)` does not; `start(&t)`
    /// does): a global thread handle among them is in shared memory.
    pub names_passed_by_address: HashSet<String>,
    /// The plain globals of thread-specific data, once a call uses them.
    pub key_tables: Option<KeyTables>,
    /// Whether a division checks its divisor ([`crate::options::TranslateOptions::division_checks`]).
    pub division_checks: bool,
    /// The functions lowered once per constant size they are called with.
    pub specialisations: Specialisations,
}

impl<'a> Lowerer<'a> {
    /// The pointer value of the shared scalar at `location`: an address the
    /// program now holds as a value, so its object is one a pointer may
    /// point into ([`Program::address_taken`]).
    pub fn pointer_to(&mut self, location: Expr) -> Expr {
        self.note_address_taken(&location);
        binary(
            BinaryOp::Mul,
            location,
            Expr::Const(self.program.address_unit()),
        )
    }

    /// Notes the static location an address `location` of an object starts
    /// from (`&a[i]`: the first of `a`); every constant in it when it has no
    /// such start. An address computed from a pointer value or a local's
    /// object address adds nothing: its object is noted already.
    pub fn note_address_taken(&mut self, location: &Expr) {
        fn start(location: &Expr) -> Option<i64> {
            match location {
                Expr::Const(c) => Some(*c),
                Expr::Binary(BinaryOp::Add | BinaryOp::Sub, base, _) | Expr::Cast(_, base) => {
                    start(base)
                }
                _ => None,
            }
        }
        fn constants(expr: &Expr, found: &mut Vec<i64>) {
            match expr {
                Expr::Const(c) => found.push(*c),
                Expr::Unary(_, a) | Expr::Cast(_, a) => constants(a, found),
                Expr::Binary(_, a, b) => {
                    constants(a, found);
                    constants(b, found);
                }
                Expr::Conditional(c, a, b) => {
                    [c, a, b].into_iter().for_each(|e| constants(e, found))
                }
                // a floating value's bits are no address
                Expr::Load(_)
                | Expr::ObjectAddress(_)
                | Expr::Nondet(_)
                | Expr::CurrentThread
                | Expr::FloatConst(_)
                | Expr::Reinterpret(..)
                | Expr::LibraryCall(..) => {}
            }
        }
        let mut found = Vec::new();
        match start(location) {
            Some(first) => found.push(first),
            None => constants(location, &mut found),
        }
        let locations = found
            .into_iter()
            .filter_map(|location| u32::try_from(location).ok())
            .filter(|&l| l > 0);
        self.program.address_taken.extend(locations);
    }

    /// `pointer op offset` (`op` adds or subtracts). A constant address
    /// moved by a constant to another object, or one past the last (`a +
    /// 3` for `int a[3]`), stays a sum: folded, it would name the next
    /// object, which an index taken from it later (`*(a + 3 - i)`) must not
    /// be dispatched over.
    pub fn pointer_step(&self, op: BinaryOp, pointer: Expr, offset: Expr) -> Expr {
        if let (Expr::Const(from), Expr::Const(by)) = (&pointer, &offset) {
            let unit = self.program.address_unit();
            let to = if op == BinaryOp::Sub {
                from.wrapping_sub(*by)
            } else {
                from.wrapping_add(*by)
            };
            let object = |value: i64| {
                let location = usize::try_from(value.div_euclid(unit)).ok()?;
                self.program.locations.object_name(location)
            };
            if object(*from).is_some() && object(*from) != object(to) {
                return Expr::Binary(op, Box::new(pointer), Box::new(offset));
            }
        }
        binary(op, pointer, offset)
    }

    /// The location of the shared scalar a pointer value points to: its
    /// value divided by the address unit, rounded down (a marked pointer
    /// `p | 1` points where `p` does).
    pub fn location_of(&self, pointer: Expr) -> Expr {
        let unit = self.program.address_unit();
        if unit == 1 {
            return pointer;
        }
        if let Some(location) = exact_quotient(&pointer, unit) {
            return location;
        }
        // (p + k * unit) / unit is p / unit + k for any p
        if let Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) = &pointer
            && let Some(offset) = exact_quotient(b, unit)
        {
            return binary(*op, self.location_of((**a).clone()), offset);
        }
        let shift = i64::from(unit.trailing_zeros());
        Expr::Binary(
            BinaryOp::Shr,
            Box::new(pointer),
            Box::new(Expr::Const(shift)),
        )
    }

    /// The value of the user function `name` used as a value: its number
    /// ([`function_number`]), a pointer to a function returning its
    /// return type.
    pub fn function_value(&self, name: &str) -> Option<(i64, CType)> {
        let &function = self.functions.get(name)?;
        let return_type = self
            .signatures
            .get(&function)
            .map_or(CType::INT, |(_, ret)| ret.clone());
        Some((
            function_number(function),
            CType::Pointer(Box::new(CType::Function(Box::new(return_type), false))),
        ))
    }

    /// The plain global holding the threads' return values
    /// ([`Program::thread_results`]), declared at its first use.
    pub fn thread_results(&mut self) -> PlainGlobalId {
        if let Some(id) = self.program.thread_results {
            return id;
        }
        let id = self.per_thread_global("thread_result", PER_THREAD_VALUE, 0);
        self.program.thread_results = Some(id);
        id
    }

    /// `errno`, each thread's own int (glibc's `*__errno_location()`),
    /// declared at its first use.
    pub fn errno(&mut self) -> Place {
        let id = match self.errno {
            Some(id) => id,
            None => {
                let id = self.per_thread_global("errno", Ty::INT, 0);
                self.errno = Some(id);
                id
            }
        };
        Place::plain_element(id, Expr::CurrentThread)
    }

    /// Declares a plain global array with one element of type `element` per
    /// thread slot, each starting at `initial` ([`Program::per_thread`]).
    pub fn per_thread_global(&mut self, name: &str, element: Ty, initial: i64) -> PlainGlobalId {
        self.program.plain_globals.push(PlainGlobal {
            name: name.to_string(),
            ty: Ty::Array(Box::new(element), 0),
        });
        let id = self.program.plain_globals.len() - 1;
        self.program.per_thread.push((id, initial));
        id
    }

    pub fn new(source: &'a SourceMap) -> Self {
        let mut program = Program::default();
        program.locations.push_object(
            "NULL".into(),
            crate::ir::Shape::scalar(Ty::Pointer(Box::new(Ty::Void))),
        );
        Lowerer {
            source,
            types: TypeEnv::new(source),
            program,
            globals: HashMap::new(),
            functions: HashMap::new(),
            prototypes: HashMap::new(),
            signatures: HashMap::new(),
            variadic: HashSet::new(),
            origin_cache: HashMap::new(),
            heap_block: None,
            heap_unknown: false,
            call_sites: HashMap::new(),
            value_bits: 32,
            widen_for_floating: false,
            shared_bits_needed: 0,
            errno: None,
            string_objects: HashMap::new(),
            address_taken_apart_at: None,
            function_values: HashSet::new(),
            addressed_names: HashSet::new(),
            names_passed_by_address: HashSet::new(),
            key_tables: None,
            division_checks: true,
            specialisations: Specialisations::default(),
            converted: Default::default(),
        }
    }

    /// The origin of the source text at `span` (deduplicated).
    pub fn origin(&mut self, span: Span) -> OriginId {
        if let Some(&id) = self.origin_cache.get(&(span.start, span.end)) {
            return id;
        }
        let origin = self.source.origin(span.start, span.end);
        self.program.origins.push(origin);
        let id = self.program.origins.len() - 1;
        self.origin_cache.insert((span.start, span.end), id);
        id
    }

    /// Refuses an item of a braced initialiser of struct `id` that, with
    /// no designator, lands on `member`, a member of an anonymous struct:
    /// C groups such members by the item's braces, which lazysma does not
    /// follow ([`TypeEnv::is_anonymous_member`]).
    pub fn refuse_positional_anonymous_member(
        &self,
        id: StructId,
        member: &str,
        item: &Node<InitializerListItem>,
    ) -> LResult<()> {
        if item.node.designation.is_empty() && self.types.is_anonymous_member(id, member) {
            return self.refuse(
                item.span,
                "a positional initialiser of an anonymous struct's member",
                Some("name the members it sets (`.b = 3`)"),
            );
        }
        Ok(())
    }

    /// A diagnostic refusing `what` at `span`.
    pub fn refuse<T>(&self, span: Span, what: impl Into<String>, help: Option<&str>) -> LResult<T> {
        let what = what.into();
        Err(Box::new(self.source.diagnostic(
            span.start,
            span.end,
            format!("{what} is not supported"),
            what,
            help.map(str::to_string),
        )))
    }

    /// Refuses a floating type that lazysma does not model: `float` and
    /// `double` are, `long double` and the complex types are not.
    pub fn supported_float(&self, ty: &CType, span: Span) -> LResult<()> {
        match ty {
            CType::Float(_) if ty.float_bits().is_none() => self.refuse(
                span,
                "a `long double` or complex type",
                Some("use `double`"),
            ),
            _ => Ok(()),
        }
    }

    /// Notes the width of a scalar of shared memory, and refuses a
    /// floating one that `--bitwidth` cannot hold: memory holds a floating
    /// value as the integer of its bits, so a `double` needs `--bitwidth
    /// 64` and a `float` at least 32 (a narrower memory would cut off
    /// nearly every store of one). An integer wider than `--bitwidth` is no
    /// error: a store of a value memory cannot hold is cut off.
    pub fn shared_float_fits(&mut self, ty: &CType, span: Span) -> LResult<()> {
        self.supported_float(ty, span)?;
        if let CType::Int { bits, .. } = ty {
            self.shared_bits_needed = self.shared_bits_needed.max(u32::from(*bits));
        }
        let Some(bits) = ty.float_bits() else {
            return Ok(());
        };
        let bits_needed = u32::from(bits);
        self.shared_bits_needed = self.shared_bits_needed.max(bits_needed);
        if bits_needed <= self.value_bits || self.widen_for_floating {
            return Ok(());
        }
        let name = if bits == 64 { "`double`" } else { "`float`" };
        Err(Box::new(self.source.diagnostic(
            span.start,
            span.end,
            format!("a {name} in shared memory needs --bitwidth {bits} or more (it is {})", self.value_bits),
            format!("this {name} is in shared memory"),
            Some(format!(
                "shared memory holds a floating value as the integer of its bits; give --bitwidth {bits}, or leave --bitwidth out (then it is as wide as the floating objects need)"
            )),
        )))
    }

    /// A diagnostic with a free message.
    pub fn error<T>(
        &self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> LResult<T> {
        Err(Box::new(
            self.source
                .diagnostic(span.start, span.end, message, label, None),
        ))
    }
}

/// A name in a function scope.
#[derive(Debug, Clone)]
pub enum Binding {
    Local(LocalId),
    /// A `static` or `extern` local naming a global object.
    Global(String),
    /// A parameter that is this constant of its type in the copy of its
    /// function being lowered (`specialisations.rs`).
    Constant(i64, CType),
}

/// Where a `break` inside the current construct goes.
#[derive(Debug, Clone, Copy)]
pub enum BreakTarget {
    Loop,
    Switch(LabelId),
}

/// Per-function lowering state.
pub struct FnLowerer<'l, 'a> {
    pub lw: &'l mut Lowerer<'a>,
    pub name: String,
    pub locals: Vec<Local>,
    /// C type of each local.
    pub local_types: Vec<CType>,
    /// Locals declared `_Atomic`.
    pub atomic_locals: HashSet<LocalId>,
    pub scopes: Vec<HashMap<String, Binding>>,
    pub blocks: Vec<Block>,
    pub origin: OriginId,
    pub temps: HashSet<LocalId>,
    pub labels: HashMap<String, LabelId>,
    pub defined_labels: HashSet<String>,
    /// The labels that a `goto` jumps back to, each the start of a loop
    /// ([`FnLowerer::goto_loop`]): the label that goes on to its next
    /// iteration.
    pub backward_labels: HashMap<String, LabelId>,
    pub next_label: LabelId,
    pub breaks: Vec<BreakTarget>,
    /// Case labels of the switch being lowered: (value or None for default, label).
    pub cases: Vec<Vec<(Option<i64>, LabelId)>>,
    pub address_use: AddressUse,
    pub return_type: CType,
    /// Integer locals that were given an address (`uintptr_t raw =
    /// (uintptr_t)p;`), for [`Lowerer::address_taken_apart_at`].
    pub address_integers: HashSet<String>,
    /// Whether the expression being lowered is the size of an allocation,
    /// where `sizeof` counts scalars (memory's unit here) instead of bytes.
    pub in_allocation_size: bool,
    /// The pointer the latest allocation gave (`malloc`'s `void *`) and
    /// its statement: converted to `T *`, it types its block for reports
    /// ([`Program::allocation_types`]).
    pub latest_allocation: Option<(Expr, OriginId)>,
    /// The objects designated through pointers (`converted_accesses`).
    pub pointer_bases: super::analysis::pointer_accesses::PointerBases,
    /// The depth and place of a `__VERIFIER_loop_bound(n)` that waits for
    /// the next loop ([`Program::loop_bounds`]).
    pub pending_loop_bound: Option<(u32, Span)>,
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    pub fn new(
        lw: &'l mut Lowerer<'a>,
        name: String,
        address_use: AddressUse,
        return_type: CType,
        origin: OriginId,
    ) -> Self {
        FnLowerer {
            lw,
            name,
            locals: Vec::new(),
            local_types: Vec::new(),
            atomic_locals: HashSet::new(),
            scopes: vec![HashMap::new()],
            blocks: vec![Vec::new()],
            origin,
            temps: HashSet::new(),
            labels: HashMap::new(),
            defined_labels: HashSet::new(),
            backward_labels: HashMap::new(),
            next_label: 0,
            breaks: Vec::new(),
            cases: Vec::new(),
            address_use,
            return_type,
            address_integers: HashSet::new(),
            in_allocation_size: false,
            latest_allocation: None,
            pointer_bases: Default::default(),
            pending_loop_bound: None,
        }
    }

    /// Appends a statement to the block being built.
    pub fn emit(&mut self, kind: StmtKind) {
        let origin = self.access_origin(&kind);
        let stmt = Stmt { kind, origin };
        if let Some(block) = self.blocks.last_mut() {
            block.push(stmt);
        }
    }

    /// Number of statements in the current block (a mark for [`Self::protect`]).
    pub fn mark(&self) -> usize {
        self.blocks.last().map(Vec::len).unwrap_or(0)
    }

    /// Runs `f` with a fresh block and returns what it emitted.
    pub fn in_block<T>(&mut self, f: impl FnOnce(&mut Self) -> LResult<T>) -> LResult<(Block, T)> {
        self.blocks.push(Vec::new());
        let result = f(self);
        let block = self.blocks.pop().unwrap_or_default();
        result.map(|value| (block, value))
    }

    /// A new private local.
    pub fn new_local(&mut self, name: &str, ty: CType, shared: bool) -> LocalId {
        let ir_ty = self.lw.types.ir_type(&ty);
        self.locals.push(Local {
            name: name.to_string(),
            ty: ir_ty,
            temporary: false,
            shared,
        });
        self.local_types.push(ty);
        self.locals.len() - 1
    }

    /// A fresh temporary, assigned once.
    pub fn temp(&mut self, ty: &CType) -> LocalId {
        let ty = match ty {
            CType::Void | CType::Array(..) | CType::Function(..) | CType::Opaque(_) => CType::INT,
            other => other.clone(),
        };
        let id = self.new_local(&format!("__tmp{}", self.locals.len()), ty, false);
        self.locals[id].temporary = true;
        self.temps.insert(id);
        id
    }

    /// A label id for `name`, created on first mention.
    pub fn label(&mut self, name: &str) -> LabelId {
        if let Some(&id) = self.labels.get(name) {
            return id;
        }
        let id = self.fresh_label();
        self.labels.insert(name.to_string(), id);
        id
    }

    pub fn fresh_label(&mut self) -> LabelId {
        let id = self.next_label;
        self.next_label += 1;
        id
    }

    pub fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.get(name).cloned())
    }

    pub fn bind(&mut self, name: &str, binding: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), binding);
        }
    }

    /// Whether an expression's value cannot change when later statements run.
    pub fn is_stable(&self, e: &Expr) -> bool {
        match e {
            Expr::Const(_) | Expr::FloatConst(_) | Expr::ObjectAddress(_) | Expr::CurrentThread => {
                true
            }
            Expr::Nondet(_) => false,
            Expr::Load(place) => self.place_is_stable(place),
            Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Reinterpret(_, a) => self.is_stable(a),
            Expr::Binary(_, a, b) => self.is_stable(a) && self.is_stable(b),
            Expr::Conditional(a, b, c) => {
                self.is_stable(a) && self.is_stable(b) && self.is_stable(c)
            }
            Expr::LibraryCall(_, arguments) => {
                arguments.iter().all(|argument| self.is_stable(argument))
            }
        }
    }

    fn place_is_stable(&self, place: &Place) -> bool {
        match place {
            Place::Local(id) => self.temps.contains(id),
            _ => false,
        }
    }

    /// Keeps `e` from seeing statements emitted after `mark`: when some
    /// were emitted and `e` reads private data, its value is saved first.
    pub fn protect(&mut self, e: Expr, ty: &CType, mark: usize) -> Expr {
        if self.mark() == mark || !self.may_change(&e, mark) {
            return e;
        }
        let temp = self.temp(ty);
        let stmt = Stmt {
            kind: StmtKind::Assign(Place::Local(temp), e),
            origin: self.origin,
        };
        if let Some(block) = self.blocks.last_mut() {
            block.insert(mark.min(block.len()), stmt);
        }
        Expr::Load(Place::Local(temp))
    }

    /// Whether the statements emitted after `mark` may change the value of
    /// `e`. The cheaper question comes first, so that both shapes of a long
    /// chain stay linear: `x + x + ... + x` makes `e` long and the
    /// statements after it few (one read), `x + (x + ...)` the reverse.
    fn may_change(&self, e: &Expr, mark: usize) -> bool {
        /// Statements few enough to look at before the expression.
        const FEW: usize = 8;
        let later = self
            .blocks
            .last()
            .map(|b| &b[mark.min(b.len())..])
            .unwrap_or(&[]);
        if later.len() <= FEW && !self.may_write_private(later, true) {
            return false;
        }
        !self.is_stable(e) && self.may_write_private(later, reads_plain_global(e))
    }

    /// Whether statements may change private data other than temporaries
    /// (calls may change plain globals).
    fn may_write_private(&self, block: &[Stmt], plain_globals: bool) -> bool {
        let user_place = |p: &Place| !matches!(p, Place::Local(id) if self.temps.contains(id));
        block.iter().any(|stmt| match &stmt.kind {
            StmtKind::Assign(p, _)
            | StmtKind::Read { target: p, .. }
            | StmtKind::Malloc { target: p, .. }
            | StmtKind::ThreadCreate { handle: p, .. }
            | StmtKind::MutexTryLock { target: p, .. } => user_place(p),
            StmtKind::Rmw { target, .. } => target.as_ref().is_some_and(user_place),
            StmtKind::Call { target, .. } => {
                plain_globals || target.as_ref().is_some_and(user_place)
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                self.may_write_private(then_branch, plain_globals)
                    || self.may_write_private(else_branch, plain_globals)
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                self.may_write_private(prelude, plain_globals)
                    || self.may_write_private(body, plain_globals)
                    || self.may_write_private(latch, plain_globals)
            }
            _ => false,
        })
    }

    /// Saves `e` into a fresh temporary now.
    pub fn save(&mut self, e: Expr, ty: &CType) -> Expr {
        if self.is_stable(&e) {
            return e;
        }
        let temp = self.temp(ty);
        self.emit(StmtKind::Assign(Place::Local(temp), e));
        Expr::Load(Place::Local(temp))
    }
}

/// Whether an expression reads a plain global (which a call may change).
fn reads_plain_global(e: &Expr) -> bool {
    fn place(p: &Place) -> bool {
        match p {
            Place::PlainGlobal(_) => true,
            Place::Local(_) => false,
            Place::Index(base, index) => place(base) || reads_plain_global(index),
            Place::Field(base, _) => place(base),
        }
    }
    match e {
        Expr::Const(_)
        | Expr::FloatConst(_)
        | Expr::ObjectAddress(_)
        | Expr::Nondet(_)
        | Expr::CurrentThread => false,
        Expr::Load(p) => place(p),
        Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Reinterpret(_, a) => reads_plain_global(a),
        Expr::Binary(_, a, b) => reads_plain_global(a) || reads_plain_global(b),
        Expr::Conditional(a, b, c) => {
            reads_plain_global(a) || reads_plain_global(b) || reads_plain_global(c)
        }
        Expr::LibraryCall(_, arguments) => arguments.iter().any(reads_plain_global),
    }
}

/// The value of a pointer to user function `function`: its id plus one,
/// so that no function is NULL.
pub fn function_number(function: FunctionId) -> i64 {
    function as i64 + 1
}

/// `e / divisor` when `e` is a multiple of `divisor` by its form (a
/// constant, a product with such a constant, sums of those).
fn exact_quotient(e: &Expr, divisor: i64) -> Option<Expr> {
    match e {
        Expr::Const(c) if c % divisor == 0 => Some(Expr::Const(c / divisor)),
        Expr::Binary(BinaryOp::Mul, a, b) => match (&**a, &**b) {
            (x, Expr::Const(k)) | (Expr::Const(k), x) if k % divisor == 0 => {
                Some(binary(BinaryOp::Mul, x.clone(), Expr::Const(k / divisor)))
            }
            _ => None,
        },
        Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => Some(binary(
            *op,
            exact_quotient(a, divisor)?,
            exact_quotient(b, divisor)?,
        )),
        _ => None,
    }
}

/// Folds constant operands of a binary operation.
pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    use BinaryOp::*;
    if let (Expr::Const(x), Expr::Const(y)) = (&a, &b) {
        let folded = match op {
            Add => Some(x.wrapping_add(*y)),
            Sub => Some(x.wrapping_sub(*y)),
            Mul => Some(x.wrapping_mul(*y)),
            // signed and unsigned division agree on these operands
            Div if *x >= 0 && *y > 0 => Some(x / y),
            Rem if *x >= 0 && *y > 0 => Some(x % y),
            _ => None,
        };
        if let Some(v) = folded {
            return Expr::Const(v);
        }
    }
    match (op, &b) {
        (Add | Sub, Expr::Const(0)) => return a,
        (Mul, Expr::Const(1)) => return a,
        _ => {}
    }
    if let (Add, Expr::Const(0)) = (op, &a) {
        return b;
    }
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// What a global name denotes.
#[derive(Debug, Clone)]
pub enum Global {
    /// Shared memory starting at location `base`.
    Shared { base: u32, ty: CType, atomic: bool },
    /// A plain variable of the sequential program (`pthread_t`).
    Plain { id: usize, ty: CType },
    /// A thread-local variable: element `pthread_self()` of a plain array
    /// with one element per thread ([`crate::ir::Program::per_thread`]).
    ThreadLocal { id: usize, ty: CType },
    /// A thread-local object whose address the program takes: shared
    /// memory, the running thread's copy at the address that
    /// `Expr::Load(Place::PlainGlobal(address))` stands for
    /// ([`crate::ir::ThreadLocalObject`]).
    ThreadLocalShared {
        address: PlainGlobalId,
        ty: CType,
        atomic: bool,
    },
}

/// The plain globals of thread-specific data, declared at their first use.
#[derive(Debug, Clone, Copy)]
pub struct KeyTables {
    /// How many keys were created (the next key's number).
    pub(super) created: PlainGlobalId,
    /// Per thread slot, the value of each key ([`Program::per_thread`]).
    pub(super) values: PlainGlobalId,
}

/// C11 `memory_order_seq_cst` (also GCC's `__ATOMIC_SEQ_CST`).
pub(super) const SEQ_CST: i64 = 5;

pub(super) const RELEASE: i64 = 3;

pub(super) const ACQ_REL: i64 = 4;

/// The memory order of an atomic operation.
pub enum MemoryOrder {
    /// A constant the translator evaluated.
    Known(i64),
    /// A value the program computes, saved where the operation begins.
    Computed(Expr),
}

impl MemoryOrder {
    pub const SEQ_CST: MemoryOrder = MemoryOrder::Known(SEQ_CST);
}
