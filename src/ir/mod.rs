//! The program representation shared by the frontend and the passes: functions
//! of three-address-like statements in which every shared-memory access is an
//! explicit, separate *visible statement* (`Read`, `Write`, `Rmw`, `Fence`,
//! mutex operations), and everything else touches thread-private data only.
//!
//! Conventions every stage relies on:
//! - Shared memory is a flat array of scalar *locations*. Id 0 is the null
//!   location and is never accessed; globals are flattened (one id per scalar,
//!   arrays and struct fields consecutive) and described by
//!   [`Program::locations`]. A pointer to shared memory is a location id
//!   (times 8 when [`Program::byte_addresses`]), so an address is an
//!   ordinary integer [`Expr`].
//! - Address-taken locals are shared objects too ([`Local::shared`]). Because a
//!   function may be inlined or instantiated for several threads, their
//!   location ids are assigned after instantiation: until then an address of
//!   such a local is written [`Expr::ObjectAddress`].
//! - Heap blocks are allocated at run time by the SMA from a region after all
//!   static locations ([`StmtKind::Malloc`]).
//! - [`Expr`] is pure: no side effects, no shared access, no calls.

use std::collections::BTreeSet;

mod locations;
mod runs;
pub use locations::{Location, Locations, Shape, SharedObject};
pub use runs::Runs;

/// Index into [`Function::locals`].
pub type LocalId = usize;
/// Index into [`Program::functions`].
pub type FunctionId = usize;
/// Index into [`Program::plain_globals`].
pub type PlainGlobalId = usize;
/// Index into [`Program::structs`].
pub type StructId = usize;
/// Index into [`Program::origins`].
pub type OriginId = usize;
/// A label inside one function body; unique within that function.
pub type LabelId = usize;

/// A whole program after lowering.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub functions: Vec<Function>,
    /// The function `main`.
    pub main: FunctionId,
    /// Scalar shared locations of global objects, by object; location 0
    /// is the reserved null location.
    pub locations: Locations,
    /// Globals that are not shared memory (thread handles `pthread_t`,
    /// attributes): plain C variables of the sequential program.
    pub plain_globals: Vec<PlainGlobal>,
    pub structs: Vec<StructDef>,
    /// Source positions; every statement points at one.
    pub origins: Vec<Origin>,
    /// Largest heap block in scalars that a `malloc` site may request.
    pub heap_block_size: u32,
    /// The plain global array holding each thread's return value (`return`
    /// or `pthread_exit` of its start function), when some `pthread_join`
    /// collects one. It is one of the `per_thread` arrays.
    pub thread_results: Option<PlainGlobalId>,
    /// Plain global arrays with one element per thread slot, each with the
    /// value every element starts with (a thread-local variable: element
    /// `pthread_self()` is the running thread's copy). The frontend declares
    /// them empty; the lazy pass gives them their length and their initial
    /// values.
    pub per_thread: Vec<(PlainGlobalId, i64)>,
    /// Whether some store of a 64-bit value may find shared memory of
    /// `--bitwidth` 32 or less too narrow: such executions are cut off.
    pub cuts_wide_values: bool,
    /// The widest scalar of shared memory, in bits (64 for a `double` or a
    /// `long`): a `--bitwidth` below it cuts off executions that store
    /// values it cannot hold.
    pub shared_bits: u32,
    /// The frontend's warnings: constructs it translates with a caveat.
    pub warnings: Vec<crate::diagnostics::Diagnostic>,
    /// Whether pointer values are byte addresses: location `l` is pointed
    /// to by `8 * l`, so that the three low bits of an address are free, as
    /// on hardware, for the tag bits and alignment tests of a program that
    /// takes addresses apart. Otherwise a pointer value is the location id
    /// itself. Accesses ([`StmtKind::Read`], ...) always take location ids.
    pub byte_addresses: bool,
    /// The width of shared memory's values the program was lowered for:
    /// `--bitwidth`, or wider where the option was not given and a
    /// scalar of shared memory needs more (64 for a `double` or a `long`).
    pub value_bits: u32,
    /// The type each allocation's pointer is converted to, by the
    /// statement that allocates (`double *h = malloc(...)`: `double`):
    /// reports show the values of its block as an array of that type.
    pub allocation_types: std::collections::HashMap<OriginId, Ty>,
    /// The struct members that shared memory leaves out (`stack.pad`):
    /// integers or arrays of integers that no expression names, padding
    /// whose values nothing reads. `sizeof` and `offsetof` still count
    /// their bytes.
    pub padding: Vec<String>,
    /// Static locations whose address the program holds as a value (`&x`,
    /// an array that decays, a string literal, a global's initialiser
    /// `&a[2]`): the objects holding them, or ending just before them (an
    /// address one past the end), are the static objects a pointer may
    /// point into. Address-taken locals are such objects as well.
    pub address_taken: BTreeSet<u32>,
    /// Every access through a pointer the frontend lowered with its scalar
    /// type known, by the statement id it was given.
    pub pointer_accesses: Vec<PointerAccess>,
    /// Whether the program converts a pointer to an integer (`(long)p`,
    /// `intptr_t a = p`): a constant integer, even one stored as a scalar
    /// narrower than a pointer, may then be an address (the front end
    /// folds `(int)(intptr_t)&x` into the constant `&x` is).
    pub addresses_as_integers: bool,
    /// The loops the program gives an unrolling depth of their own with
    /// Dat3M's `__VERIFIER_loop_bound(n)` before them: (the loop's
    /// statement, n), read as `--unwindset` reads its lines.
    pub loop_bounds: Vec<(OriginId, u32)>,
    /// The thread-local objects whose address the program takes: shared
    /// memory with one copy per thread that uses it.
    pub thread_local_objects: Vec<ThreadLocalObject>,
}

/// A thread-local object whose address the program takes (`static __thread
/// struct node me; ... tail = &me;`): other threads may reach it, so it is
/// shared memory, one copy per thread, accessed through the SMA. Until the
/// threads are instantiated its address in the running thread is
/// `Expr::Load(Place::PlainGlobal(address))`; instantiation gives each
/// thread copy that uses it its own locations and puts their address there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadLocalObject {
    /// As the program names it (`me`, or `function::me` for a `static`
    /// one of a function).
    pub name: String,
    pub ty: Ty,
    /// The plain global whose load stands for the running thread's copy.
    pub address: PlainGlobalId,
    /// The initial value of a scalar (arrays and structs start at zero).
    pub initial: i64,
}

/// An access (`Read`, `Write`, `Rmw`) through a pointer (`*p`, `p[i]`,
/// `p->m`), which the frontend gives a statement id of its own
/// (`origin`, at the access's text) so that the passes can find it: they
/// check it against what the pointer may point to, then give it back
/// the id of its `statement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointerAccess {
    pub origin: OriginId,
    pub statement: OriginId,
    /// The byte size of the scalar the access reads or writes.
    pub bytes: u32,
    /// Whether that scalar is an integer (`size_t`, `int`, `bool`, a
    /// bit-field), not a pointer: where the program converts no pointer to
    /// an integer, a constant it stores is a number, no address.
    pub integer: bool,
    /// Whether the pointer's type may differ from its pointee's: the
    /// program converts some other pointer or an integer to a pointer to
    /// this access's pointee type (`(unsigned char *)p`, `int *q = arg`).
    pub checked: bool,
}

impl Program {
    /// The pointer value of location 1 ([`Program::byte_addresses`]).
    pub fn address_unit(&self) -> i64 {
        if self.byte_addresses {
            BYTE_ADDRESS_UNIT
        } else {
            1
        }
    }
}

/// The pointer value of location 1 in a program of byte addresses
/// ([`Program::byte_addresses`]).
pub const BYTE_ADDRESS_UNIT: i64 = 8;

/// The type of a plain global array with one 64-bit value per thread slot
/// (the `pthread_create` arguments).
pub fn per_thread_array(threads: u64) -> Ty {
    Ty::Array(Box::new(PER_THREAD_VALUE), threads)
}

/// The element type of [`per_thread_array`] and of the threads' return
/// values.
pub const PER_THREAD_VALUE: Ty = Ty::Int {
    bits: 64,
    signed: true,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainGlobal {
    pub name: String,
    pub ty: Ty,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
}

/// Where a statement came from in the ORIGINAL (not preprocessed) source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// 1-based.
    pub column: u32,
    /// The source text of the statement or expression (one line, trimmed).
    pub text: String,
}

impl Origin {
    /// The name of the origin's file without its directories, as reports
    /// show it beside the line (`ticket.c:7`).
    pub fn file_name(&self) -> String {
        std::path::Path::new(&self.file)
            .file_name()
            .map_or(self.file.clone(), |name| {
                name.to_string_lossy().into_owned()
            })
    }
}

/// Types of private data. Shared memory has no types: every location holds
/// one integer of the configured bit width.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    Void,
    Bool,
    Int {
        bits: u8,
        signed: bool,
    },
    /// A pointer into shared memory, represented as a location id. The
    /// pointee type gives the stride of pointer arithmetic.
    Pointer(Box<Ty>),
    Array(Box<Ty>, u64),
    Struct(StructId),
    /// `pthread_t`: holds a thread slot index.
    ThreadHandle,
    /// A pointer to a function: the function's number (its index in
    /// [`Program::functions`] plus one; 0 is `NULL`).
    FunctionPointer,
    /// `float` (32 bits) or `double` (64 bits). Shared memory holds such a
    /// value as the integer of its bits ([`Expr::Reinterpret`]).
    Float {
        bits: u8,
    },
}

impl Ty {
    pub const INT: Ty = Ty::Int {
        bits: 32,
        signed: true,
    };
}

/// Truncates `v` to an integer type of `bits` bits, as a C conversion does.
pub fn truncate(v: i64, bits: u8, signed: bool) -> i64 {
    if bits >= 64 {
        return v;
    }
    let mask = (1i64 << bits) - 1;
    let low = v & mask;
    if signed && low >> (bits - 1) & 1 == 1 {
        low | !mask
    } else {
        low
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// Parameters are the first locals, in order.
    pub params: Vec<LocalId>,
    pub locals: Vec<Local>,
    pub return_type: Ty,
    pub body: Block,
    /// `__VERIFIER_atomic_*`: the whole body runs without a context switch.
    pub is_atomic: bool,
    pub origin: OriginId,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    pub name: String,
    /// The type the program declares it with; for a
    /// [`temporary`](Local::temporary), the type of the value it holds
    /// (`int` where that value has none: an array's address, a call's).
    pub ty: Ty,
    /// A temporary the frontend made (`__tmp`), not a variable of the
    /// program.
    pub temporary: bool,
    /// Address taken: the object lives in shared memory and every access to
    /// it is a visible statement addressed through [`Expr::ObjectAddress`].
    pub shared: bool,
}

pub type Block = Vec<Stmt>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub origin: OriginId,
}

/// A private (non-shared) storage place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Local(LocalId),
    PlainGlobal(PlainGlobalId),
    Index(Box<Place>, Box<Expr>),
    Field(Box<Place>, String),
}

impl Place {
    /// The private local this place is part of, if it is one (`a` of
    /// `a[i].f`).
    pub fn root_local(&self) -> Option<LocalId> {
        match self {
            Place::Local(local) => Some(*local),
            Place::Index(base, _) | Place::Field(base, _) => base.root_local(),
            Place::PlainGlobal(_) => None,
        }
    }

    /// Element `index` of the plain global array `array` (one element per
    /// thread slot: `thread_arg`, the threads' results, thread-locals).
    pub fn plain_element(array: PlainGlobalId, index: Expr) -> Place {
        Place::Index(Box::new(Place::PlainGlobal(array)), Box::new(index))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Const(i64),
    /// A floating constant as the program spells it.
    FloatConst(FloatLiteral),
    /// The value stored in a private place.
    Load(Place),
    /// Location id of the first scalar of a shared (address-taken) local.
    ObjectAddress(LocalId),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast(Ty, Box<Expr>),
    /// The bits of a value read as a value of another type of the same
    /// size (a `float` as an `int` and back): how a floating value enters
    /// and leaves shared memory. `Cast` converts the value instead.
    Reinterpret(Ty, Box<Expr>),
    /// A function of C's math library that CBMC's own library defines
    /// exactly (`sqrt`, `floor`, `fmod`), on private values, called in the
    /// printed program.
    LibraryCall(LibraryFunction, Vec<Expr>),
    /// `__VERIFIER_nondet_*()`: any value of the type.
    Nondet(Ty),
    /// `pthread_self()`: the handle of the running thread, its slot. The
    /// lazy pass replaces it by the slot of each thread copy.
    CurrentThread,
}

/// A pure function of `float`s (`bits` 32) or `double`s (64) of C's math
/// library, which takes `arity` of them and gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LibraryFunction {
    pub name: &'static str,
    pub bits: u8,
    pub arity: u8,
}

/// A floating constant: its digits as C spells them (decimal, or
/// hexadecimal with its `0x`), and whether it is a `float` (32 bits) or a
/// `double` (64 bits). The printer writes the spelling back, so that the C
/// compiler rounds it exactly as it would have in the program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FloatLiteral {
    pub bits: u8,
    pub spelling: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    /// Both operands are already evaluated (pure), so `&&`/`||` need no
    /// short-circuit here; the frontend splits them when an operand reads
    /// shared memory.
    LogicalAnd,
    LogicalOr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenceKind {
    /// Drains all of the thread's buffers (`mfence`, `__sync_synchronize`).
    Full,
    /// Orders earlier stores before later ones without draining (PSO
    /// `lwsync`/`sfence`); a no-op under SC and TSO.
    StoreStore,
}

/// Read-modify-write operations (x86 locked-instruction semantics: drain
/// the thread's buffers, then read and write memory atomically). Each
/// returns the old value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RmwOp {
    Exchange(Expr),
    FetchAdd(Expr),
    FetchSub(Expr),
    FetchAnd(Expr),
    FetchOr(Expr),
    FetchXor(Expr),
    /// Writes `desired` when the old value equals `expected`.
    CompareExchange {
        expected: Expr,
        desired: Expr,
    },
}

/// The words that open the text of an unwinding assertion's description
/// (`file:line: unwinding assertion (--unwind U): loop`), by which verify
/// mode tells a bound reached from a violated assertion.
pub const UNWINDING_ASSERTION: &str = "unwinding assertion";

/// The words after `file:line: ` of the property that an access outside
/// its array or struct fails.
pub const ARRAY_INDEX_OUT_OF_BOUNDS: &str = "array index out of bounds";

/// The words after `file:line: ` of the property that an access through a
/// null pointer fails.
pub const NULL_DEREFERENCE: &str = "dereference of a null pointer";

/// The words after `file:line: ` of the property that an access through a
/// pointer that has left every object it may point into fails (pointer
/// arithmetic past its object, an integer made a pointer).
pub const POINTER_OUTSIDE_OBJECT: &str = "pointer outside its object";

/// The words after `file:line: ` of the property that an access to a heap
/// block after its `free` fails.
pub const USE_AFTER_FREE: &str = "use of freed memory";

/// The words after `file:line: ` of the property that a second `free` of a
/// heap block fails.
pub const DOUBLE_FREE: &str = "double free";

/// The words after `file:line: ` of the property that a `free` of a pointer
/// that no `malloc` returned fails (a global, a local, the inside of a
/// block).
pub const INVALID_FREE: &str = "free of a pointer malloc did not return";

/// The words after `file:line: ` of the property that a `/` or `%` by
/// zero fails.
pub const DIVISION_BY_ZERO: &str = "division by zero";

/// The words after `file:line: ` of the property that a call through a
/// pointer to no function fails.
pub const INVALID_FUNCTION_POINTER: &str = "call through a pointer to no function";

/// The words after `file:line: ` of the property that an unlock by a
/// thread that does not hold the mutex fails (found by the native check).
pub const UNLOCK_NOT_HELD: &str = "unlock of a mutex its thread does not hold";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropertyKind {
    /// `assert`, `__VERIFIER_assert`, `__CPROVER_assert`.
    Assertion,
    /// `reach_error()`, `__VERIFIER_error()`: reaching it is the violation.
    ErrorCall,
    /// `--unwinding-assertions`: the loop exits after its last unrolled
    /// copy. Its failure is a bound reached, not a bug of the program.
    UnwindingAssertion,
    /// The divisor of a `/` or `%` is not zero.
    DivisionByZero,
    /// A call through a function pointer that points to no function the
    /// program defines (`NULL`, or a value that is no function's).
    InvalidFunctionPointer,
    /// `exit`, `abort`: the program ends here. Never fails; the
    /// reachability run after a safe verdict counts it as an end of the
    /// program that an execution reached (`verify::reach`).
    ProgramEnd,
}

/// What an [`StmtKind::Await`] waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AwaitKind {
    /// The exit of an await loop: what its iteration reads lets it out.
    SpinLoop,
    /// A signal of the condition variable a `pthread_cond_wait` waits on,
    /// sent after the wait began.
    ConditionSignal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StmtKind {
    /// `place = value` on private data.
    Assign(Place, Expr),
    /// Visible: `target = shared[address]`.
    Read {
        target: Place,
        address: Expr,
    },
    /// Visible: `shared[address] = value`.
    Write {
        address: Expr,
        value: Expr,
    },
    /// Visible: atomic read-modify-write; `target` receives the old value.
    Rmw {
        target: Option<Place>,
        address: Expr,
        op: RmwOp,
    },
    /// Visible.
    Fence(FenceKind),
    /// Visible: waits until the mutex at `address` is free, then takes it.
    MutexLock(Expr),
    /// Visible.
    MutexUnlock(Expr),
    /// Visible: `pthread_mutex_trylock`. Drains, then takes the mutex at
    /// `mutex` if it is free (`target` = 1), else finds it held by another
    /// thread (`target` = 0).
    MutexTryLock {
        target: Place,
        mutex: Expr,
    },
    /// `target = ` fresh heap block of `size` scalars (0 when the heap bound
    /// is exhausted is NOT allowed: the execution is cut off instead).
    Malloc {
        target: Place,
        size: Expr,
        zeroed: bool,
    },
    Free(Expr),
    Assert {
        condition: Expr,
        kind: PropertyKind,
    },
    Assume(Expr),
    /// The exit of an await loop (see `passes::await_loops`) or a
    /// condition wait's wait for a signal (`FnLowerer::condition_wait`):
    /// the thread waits here until `condition` holds, each try running
    /// again the statements from label `restart` (which change nothing
    /// when they fail). For safety this is the assumption that `condition`
    /// holds; a thread that can never pass it waits for ever (the property
    /// `liveness` for a spin loop, `deadlock` for a signal).
    Await {
        condition: Expr,
        restart: LabelId,
        waits_for: AwaitKind,
    },
    /// The assumption that a loop exits after its last unrolled copy
    /// (`--unwind`): executions that need more iterations are cut off here.
    LoopBound(Expr),
    If {
        condition: Expr,
        then_branch: Block,
        else_branch: Block,
    },
    /// Every C loop. `while (c) B` is `{ test_first: true, prelude, condition: c,
    /// body: B, latch: [] }`; `for (;c;s) B` has `latch: s`; `do B while (c)`
    /// has `test_first: false`. `prelude` computes `condition` (it holds the
    /// visible reads the condition needs) and runs before every test.
    /// `continue` goes to the latch; `break` leaves the loop.
    Loop {
        test_first: bool,
        prelude: Block,
        condition: Expr,
        body: Block,
        latch: Block,
    },
    Break,
    Continue,
    Goto(LabelId),
    Label(LabelId, String),
    Return(Option<Expr>),
    /// A call of a non-thread function (removed by inlining).
    Call {
        target: Option<Place>,
        function: FunctionId,
        arguments: Vec<Expr>,
    },
    /// Visible: `pthread_create(&handle, _, function, argument)`. The creator's
    /// stores are drained first.
    ThreadCreate {
        handle: Place,
        function: FunctionId,
        argument: Expr,
    },
    /// Visible: `pthread_join(handle, _)`.
    ThreadJoin {
        handle: Expr,
    },
    /// `pthread_exit(value)`: ends the current thread.
    ThreadExit(Option<Expr>),
    /// `__VERIFIER_atomic_begin()` / `end()`: no context switch in between.
    AtomicBegin,
    AtomicEnd,
}

impl StmtKind {
    /// Whether the statement is a *visible statement*: a point where a
    /// context switch may happen and where the memory model acts.
    pub fn is_visible(&self) -> bool {
        matches!(
            self,
            StmtKind::Read { .. }
                | StmtKind::Write { .. }
                | StmtKind::Rmw { .. }
                | StmtKind::Fence(_)
                | StmtKind::MutexLock(_)
                | StmtKind::MutexUnlock(_)
                | StmtKind::MutexTryLock { .. }
                | StmtKind::ThreadCreate { .. }
                | StmtKind::ThreadJoin { .. }
        )
    }
}

/// Number of scalars of a value of type `ty`.
pub fn scalar_count(ty: &Ty, structs: &[StructDef]) -> u64 {
    match ty {
        Ty::Void => 0,
        Ty::Bool
        | Ty::Int { .. }
        | Ty::Float { .. }
        | Ty::Pointer(_)
        | Ty::ThreadHandle
        | Ty::FunctionPointer => 1,
        Ty::Array(element, n) => scalar_count(element, structs).saturating_mul(*n),
        Ty::Struct(id) => structs
            .get(*id)
            .map(|s| s.fields.iter().map(|(_, t)| scalar_count(t, structs)).sum())
            .unwrap_or(0),
    }
}

/// The scalars of an object `name` of type `ty`, in location order: their
/// names and C types.
pub fn scalar_locations(name: &str, ty: &Ty, structs: &[StructDef], out: &mut Vec<(String, Ty)>) {
    match ty {
        Ty::Void => {}
        Ty::Array(element, n) => {
            for i in 0..*n {
                scalar_locations(&format!("{name}[{i}]"), element, structs, out);
            }
        }
        Ty::Struct(id) => {
            if let Some(s) = structs.get(*id) {
                for (field, t) in &s.fields {
                    scalar_locations(&format!("{name}.{field}"), t, structs, out);
                }
            }
        }
        scalar => out.push((name.to_string(), scalar.clone())),
    }
}

/// The index expressions of `place`, into `exprs`.
pub fn collect_place<'a>(place: &'a Place, exprs: &mut Vec<&'a Expr>) {
    match place {
        Place::Index(base, index) => {
            exprs.push(index);
            collect_place(base, exprs);
        }
        Place::Field(base, _) => collect_place(base, exprs),
        Place::Local(_) | Place::PlainGlobal(_) => {}
    }
}

/// Calls `f` on `expr` and every expression inside it, the indices of its
/// places included.
pub fn visit_expr(expr: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(expr);
    match expr {
        Expr::Unary(_, a) | Expr::Cast(_, a) | Expr::Reinterpret(_, a) => visit_expr(a, f),
        Expr::Binary(_, a, b) => {
            visit_expr(a, f);
            visit_expr(b, f);
        }
        Expr::Conditional(c, a, b) => {
            visit_expr(c, f);
            visit_expr(a, f);
            visit_expr(b, f);
        }
        Expr::LibraryCall(_, arguments) => arguments.iter().for_each(|a| visit_expr(a, f)),
        Expr::Load(place) => {
            let mut indices = Vec::new();
            collect_place(place, &mut indices);
            indices.into_iter().for_each(|a| visit_expr(a, f));
        }
        _ => {}
    }
}
