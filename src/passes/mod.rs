//! Passes from the lowered program to the sequential program: inline every
//! non-thread function, unroll loops, remove the code no execution reaches,
//! instantiate one copy per thread creation site, then apply the Lazy-CSeq
//! scheme (guards at visible statements, context-switch guesses,
//! round-robin driver).

pub mod access_sizes;
pub mod await_loops;
pub mod buffering;
pub mod definite;
pub mod heap_needs;
pub mod inline;
pub mod instantiate;
pub mod lazy;
pub mod points_to;
pub mod private_blocks;
pub mod properties;
pub mod sufficient;
pub mod thread_arguments;
pub mod unreachable;
pub mod unroll;
pub mod value_types;
pub mod walk;

use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::{
    AwaitKind, BinaryOp, Expr, FenceKind, LabelId, Local, Origin, OriginId, Place, PlainGlobal,
    Program, StmtKind, StructDef, Ty,
};
use crate::options::{Bounds, LoopLine, MemoryModel, SmaImplementation, TranslateOptions};
use std::collections::{BTreeMap, BTreeSet};

/// One thread of the sequential program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSlot {
    /// The start function (`main` for slot 0).
    pub function: String,
    /// Which creation of that function this is (0, 1, ...).
    pub instance: u32,
}

impl ThreadSlot {
    /// The thread's name in reports: `main` for slot 0, else
    /// `function#instance`.
    pub fn name(&self, slot: usize) -> String {
        if slot == 0 {
            self.function.clone()
        } else {
            format!("{}#{}", self.function, self.instance)
        }
    }
}

/// What verify mode needs to map a CBMC trace back to the source.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranslationMap {
    /// Index = thread slot recorded by the SMA.
    pub threads: Vec<ThreadSlot>,
    /// Every location by object; heap locations are named `heap#k[j]`.
    pub locations: crate::ir::Locations,
    /// The C types of the locations, by which the report shows their
    /// values (unsigned, pointers as the locations they point to).
    pub value_types: value_types::ValueTypes,
    /// Index = statement id recorded by the SMA.
    pub origins: Vec<Origin>,
    /// Every property of the printed program by CBMC's id for it, with
    /// its kind, statement and thread (filled by the printer).
    pub properties: properties::PropertyTable,
    /// The await loops that are waits rather than unrolled loops
    /// ([`await_loops`]), by origin.
    pub await_loops: Vec<OriginId>,
}

/// The read-modify-write codes of the SMA API (`SMA_RMW_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RmwCode {
    Exchange,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Cas,
}

impl RmwCode {
    /// The C constant defined by `sma/common.h`.
    pub fn c_name(self) -> &'static str {
        match self {
            RmwCode::Exchange => "SMA_RMW_EXCHANGE",
            RmwCode::Add => "SMA_RMW_ADD",
            RmwCode::Sub => "SMA_RMW_SUB",
            RmwCode::And => "SMA_RMW_AND",
            RmwCode::Or => "SMA_RMW_OR",
            RmwCode::Xor => "SMA_RMW_XOR",
            RmwCode::Cas => "SMA_RMW_CAS",
        }
    }
}

/// A statement of a sequentialised thread function. Shared-memory accesses
/// are SMA calls by the owning thread; `stmt` is the origin id recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeqStmt {
    /// Visible statement `i`: `L_t_i: if (pc[t] > i || i >= cs) goto L_t_{i+1};`
    Guard(u32),
    /// `assume(cs >= k)` where control arrives other than by falling through
    /// (Lazy-CSeq's `G(L)`): no context switch inside a skipped branch.
    ResumeCheck(u32),
    Assign(Place, Expr),
    Read {
        target: Place,
        address: Expr,
        stmt: OriginId,
        /// No other thread can hold buffered stores here (see
        /// [`buffering::mark_main_alone`]): the SMA may skip its memory
        /// updates before the read.
        alone: bool,
        /// No other thread can have a pending store to the location here
        /// (see [`buffering::mark_uncontended_accesses`], which runs for
        /// the timestamped SMAs only): the read takes the newest write of
        /// the location's list.
        newest: bool,
    },
    Write {
        address: Expr,
        value: Expr,
        stmt: OriginId,
        /// No other thread accesses the location while this one runs (see
        /// [`buffering::mark_uncontended_accesses`], which runs for the
        /// timestamped SMAs only): the store takes the least timestamp it
        /// can have.
        unobserved: bool,
    },
    Rmw {
        target: Option<Place>,
        address: Expr,
        op: RmwCode,
        operand: Expr,
        expected: Expr,
        stmt: OriginId,
    },
    Fence {
        kind: FenceKind,
        stmt: OriginId,
    },
    Lock {
        address: Expr,
        stmt: OriginId,
    },
    Unlock {
        address: Expr,
        stmt: OriginId,
    },
    /// `target = ` 1 if the mutex at `address` was free and is now taken,
    /// 0 if a thread, this one too, holds it (`pthread_mutex_trylock`);
    /// drains first.
    TryLock {
        target: Place,
        address: Expr,
        stmt: OriginId,
    },
    Malloc {
        target: Place,
        size: Expr,
        zeroed: bool,
        stmt: OriginId,
    },
    /// `free(address)`: the heap block at `address` is freed (nothing for
    /// a null address).
    Free {
        address: Expr,
        stmt: OriginId,
    },
    /// `__CPROVER_assert(condition, description)`.
    Assert {
        condition: Expr,
        description: String,
    },
    Assume(Expr),
    /// `__CPROVER_assume(condition)` closing the last unrolled copy of the
    /// loop at `stmt` (`--unwind`): the native engine names the loops
    /// where it cut executions off.
    LoopBound {
        condition: Expr,
        stmt: OriginId,
    },
    /// The exit of an await loop ([`await_loops`]): for the printed
    /// program the assumption `condition`; the native engine runs the
    /// statements from label `restart` again when it asks whether the
    /// thread can ever pass (the property `liveness`).
    Await {
        condition: Expr,
        restart: LabelId,
        waits_for: AwaitKind,
        stmt: OriginId,
    },
    If {
        condition: Expr,
        then_branch: Vec<SeqStmt>,
        else_branch: Vec<SeqStmt>,
    },
    Goto(LabelId),
    Label(LabelId),
    /// Drains the creator's stores and activates thread `slot` (its argument
    /// and the handle are stored by the `Assign`s that follow).
    Create {
        slot: usize,
        stmt: OriginId,
    },
    /// `assume(pc[handle] == lines[handle])`, then the joined thread's
    /// stores drain (its termination is observable only here, so they
    /// drain here rather than when it ends: the thread can end in the
    /// context of its last statement, whatever its stores wait for).
    Join {
        handle: Expr,
        stmt: OriginId,
    },
    /// The outermost `__VERIFIER_atomic_begin` (or atomic function) of a
    /// section: recorded for the native check, which keeps other threads
    /// out until the matching [`SeqStmt::AtomicEnd`]. No context switch
    /// lies between the two anyway.
    AtomicBegin {
        stmt: OriginId,
    },
    AtomicEnd {
        stmt: OriginId,
    },
}

impl SeqStmt {
    /// The address a shared-memory access goes to, if this is one (a
    /// read, write, read-modify-write or mutex operation).
    pub fn access_address(&self) -> Option<&Expr> {
        match self {
            SeqStmt::Read { address, .. }
            | SeqStmt::Write { address, .. }
            | SeqStmt::Rmw { address, .. }
            | SeqStmt::Lock { address, .. }
            | SeqStmt::Unlock { address, .. }
            | SeqStmt::TryLock { address, .. } => Some(address),
            _ => None,
        }
    }
}

/// One thread copy as a function of the sequential program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqThread {
    pub slot: usize,
    /// The start function's name.
    pub function: String,
    pub instance: u32,
    /// Private locals (static in the thread function); shared locals are
    /// listed too but live in SMA memory and are not declared.
    pub locals: Vec<Local>,
    pub body: Vec<SeqStmt>,
    /// Number of visible statements, the entry pseudo statement 0 and the
    /// final guard included; `pc[t] == lines` = finished.
    pub lines: u32,
    /// Source names of the labels of `body` (for readable output).
    pub label_names: BTreeMap<LabelId, String>,
    /// The kind of property and the statement of each
    /// [`SeqStmt::Assert`] of `body`, by its description (the first
    /// statement where two have the same).
    pub assertions: BTreeMap<String, (crate::ir::PropertyKind, OriginId)>,
}

/// Layout of SMA memory: static locations, then the heap region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryLayout {
    /// Initial value per static location id (heap excluded).
    pub initial_values: crate::ir::Runs<i64>,
    pub heap_base: u32,
    pub heap_blocks: u32,
    pub heap_block_size: u32,
    /// Static objects (global variables, address-taken locals) as ranges of
    /// consecutive location ids, `(first, scalars)`, in id order.
    pub objects: Vec<(u32, u32)>,
    /// The static objects a pointer may point into, by their first
    /// location: those whose address the program takes
    /// ([`Program::address_taken`](crate::ir::Program)), and every
    /// address-taken local ([`points_to`]).
    pub pointees: BTreeSet<u32>,
    /// The struct members that shared memory leaves out, as padding that
    /// no expression names ([`Program::padding`](crate::ir::Program)).
    pub padding: Vec<String>,
    /// What the threads can allocate (none when a jump goes backward).
    pub heap_needs: Option<heap_needs::HeapNeeds>,
}

impl MemoryLayout {
    /// Scalars per heap block, if the program allocates at all.
    pub fn heap_block(&self) -> Option<u32> {
        (self.heap_blocks > 0).then_some(self.heap_block_size)
    }

    /// All location ids, the null location and the heap included.
    pub fn location_count(&self) -> u32 {
        self.heap_base + self.heap_blocks * self.heap_block_size
    }

    /// The static object `(first, scalars)` an access at the computed
    /// `address` indexes (`a[e]` is `base + e*stride`), whatever its size:
    /// the printer checks the address against the object's bounds (an
    /// address outside it is an out-of-bounds violation) and then selects
    /// one SMA call per location ([`MemoryLayout::dispatches`]) or calls the
    /// SMA once at the address. `None` for a constant address or an address
    /// whose object is unknown (pointers, heap).
    pub fn indexed_object(&self, address: &Expr) -> Option<(u32, u32)> {
        if matches!(address, Expr::Const(_)) {
            return None;
        }
        let base = arithmetic_base(address)?;
        if base <= 0 || base >= i64::from(self.heap_base) {
            return None;
        }
        self.object_of(base)
    }

    /// Whether an access into `object` (`(first, scalars)`) at a computed
    /// address is dispatched over its locations: up to
    /// [`MAX_DISPATCH_SCALARS`] of them.
    pub fn dispatches((_, scalars): (u32, u32)) -> bool {
        scalars <= MAX_DISPATCH_SCALARS
    }

    /// Whether `address` is a constant location in the heap.
    pub fn is_heap_location(&self, address: &Expr) -> bool {
        let heap = i64::from(self.heap_base)
            ..i64::from(self.heap_base)
                + i64::from(self.heap_blocks) * i64::from(self.heap_block_size);
        matches!(address, Expr::Const(id) if heap.contains(id))
    }

    /// The static object holding location `id`, as `(first, scalars)`.
    pub fn object_of(&self, id: i64) -> Option<(u32, u32)> {
        object_holding(&self.objects, u32::try_from(id).ok()?)
    }
}

/// The object of `objects` (`(first, scalars)`, in id order) holding
/// `location`.
fn object_holding(objects: &[(u32, u32)], location: u32) -> Option<(u32, u32)> {
    let at = objects.partition_point(|(first, _)| *first <= location);
    let (first, scalars) = *objects.get(at.checked_sub(1)?)?;
    (location < first.saturating_add(scalars)).then_some((first, scalars))
}

/// Largest object, in scalars, whose accesses at computed addresses are
/// dispatched over its locations; accesses to larger objects are checked
/// against the same bounds and keep the generic SMA call with a symbolic
/// location.
pub const MAX_DISPATCH_SCALARS: u32 = 64;

/// The constant location that pointer arithmetic `address` starts from:
/// the frontend writes `a[e]` as `base + e*stride` (plus field offsets)
/// with the pointer as the left operand.
fn arithmetic_base(address: &Expr) -> Option<i64> {
    match address {
        Expr::Const(c) => Some(*c),
        Expr::Binary(BinaryOp::Add | BinaryOp::Sub, pointer, _) => arithmetic_base(pointer),
        Expr::Cast(Ty::Pointer(_), pointer) => arithmetic_base(pointer),
        Expr::Cast(Ty::Int { bits, .. }, pointer) if *bits >= 32 => arithmetic_base(pointer),
        _ => None,
    }
}

/// The sequential program, ready for the printer.
#[derive(Debug, Clone)]
pub struct SequentialProgram {
    pub map: TranslationMap,
    pub threads: Vec<SeqThread>,
    /// The program's plain globals plus [`SequentialProgram::thread_arg`].
    pub plain_globals: Vec<PlainGlobal>,
    pub structs: Vec<StructDef>,
    /// The plain global array holding each slot's `pthread_create` argument.
    pub thread_arg: usize,
    /// The plain global arrays with one element per thread slot that the
    /// slot's thread alone writes and names by its own slot
    /// ([`Program::per_thread`](crate::ir::Program): thread-locals, the
    /// threads' results); another thread reads an element only through a
    /// join of its thread.
    pub per_thread: Vec<usize>,
    pub memory: MemoryLayout,
    /// Where the pointers the program computes may point
    /// ([`points_to::points_to`]), once [`sequentialise`] has rewritten
    /// the addresses; None before.
    pub points_to: Option<points_to::PointsTo>,
    pub rounds: u32,
    /// What the user must know though the translation succeeded.
    pub warnings: Vec<Diagnostic>,
    /// The `--qsize` and `--maxclock` that cut off no execution
    /// ([`sufficient::sufficient_bounds`]).
    pub sufficient: Option<sufficient::SufficientBounds>,
    /// What each thread can have in its store buffers
    /// ([`buffering::store_buffering`]), counted once [`sequentialise`]
    /// has marked the accesses: the sufficient bounds and the reference
    /// SMAs' flush phases both come from it. None under SC (no buffers).
    pub store_buffers: Option<Vec<buffering::ThreadBuffers>>,
}

impl SequentialProgram {
    /// The bounds the translation used: the options' bounds with the heap
    /// block size the translator chose (none when nothing is allocated).
    pub fn bounds(&self, options: &TranslateOptions) -> Bounds {
        Bounds {
            heap_block: self.memory.heap_block(),
            ..options.bounds.clone()
        }
    }
}

/// Whether `body` creates a thread.
pub fn creates_threads(body: &[SeqStmt]) -> bool {
    any_statement(body, &|stmt| matches!(stmt, SeqStmt::Create { .. }))
}

/// Whether `body` frees heap memory.
pub fn frees(body: &[SeqStmt]) -> bool {
    any_statement(body, &|stmt| matches!(stmt, SeqStmt::Free { .. }))
}

/// Whether `body` allocates heap memory (`malloc`, `calloc`).
fn allocates(body: &[SeqStmt]) -> bool {
    any_statement(body, &|stmt| matches!(stmt, SeqStmt::Malloc { .. }))
}

/// The index of the only thread that allocates heap memory, if exactly one
/// does: the heap blocks are then handed out in its program order, so the
/// address each of its allocations returns is known on a path that knows
/// how many it made before.
pub fn sole_allocator(threads: &[SeqThread]) -> Option<usize> {
    let mut allocating = threads
        .iter()
        .enumerate()
        .filter(|(_, thread)| allocates(&thread.body));
    match (allocating.next(), allocating.next()) {
        (Some((index, _)), None) => Some(index),
        _ => None,
    }
}

/// Whether a statement of `body`, in a branch or not, is `found`.
fn any_statement(body: &[SeqStmt], found: &dyn Fn(&SeqStmt) -> bool) -> bool {
    body.iter().any(|stmt| {
        found(stmt)
            || matches!(stmt, SeqStmt::If { then_branch, else_branch, .. }
                if any_statement(then_branch, found) || any_statement(else_branch, found))
    })
}

/// Whether threads other than `main` (slot 0) create threads (then a join
/// of every thread main created does not leave main alone).
pub fn nested_creation(program: &SequentialProgram) -> bool {
    program
        .threads
        .iter()
        .filter(|thread| thread.slot != 0)
        .any(|thread| creates_threads(&thread.body))
}

/// The number of statements of `body` that hand out a write id when they
/// run (stores, RMWs, locks and unlocks). No statement of a sequentialised
/// thread runs twice (loops are unrolled and backward jumps refused), so
/// the sum over all threads bounds the write ids of any execution.
pub fn write_issuing_statements(body: &[SeqStmt]) -> u64 {
    body.iter()
        .map(|stmt| match stmt {
            SeqStmt::Write { .. }
            | SeqStmt::Rmw { .. }
            | SeqStmt::Lock { .. }
            | SeqStmt::Unlock { .. }
            | SeqStmt::TryLock { .. } => 1,
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => write_issuing_statements(then_branch) + write_issuing_statements(else_branch),
            _ => 0,
        })
        .sum()
}

/// The static pointers of `sequential` that hold no address by the
/// points-to `facts` ([`value_types::ValueTypes::integer_pointers`]).
fn integer_pointers(
    sequential: &SequentialProgram,
    facts: &points_to::PointsTo,
) -> crate::ir::Runs<bool> {
    let kinds = &sequential.map.value_types.locations;
    let Some(holding) = facts.static_locations_holding_addresses() else {
        return kinds.map(|_| false);
    };
    let mut pointers = kinds.map(|kind| matches!(kind, value_types::ValueKind::Pointer { .. }));
    for location in holding {
        pointers.set(location as usize, false);
    }
    pointers
}

/// Runs all passes.
pub fn sequentialise(
    program: &Program,
    options: &TranslateOptions,
) -> Result<SequentialProgram, Box<Diagnostic>> {
    let mut labels = walk::LabelGen::for_program(program);
    let instances = instantiate::instantiate(program, options, &mut labels)?;
    let mut sequential = lazy::sequentialise_threads(program, instances, options, &mut labels)?;
    thread_arguments::propagate_thread_arguments(&mut sequential);
    access_sizes::check_access_sizes(&mut sequential, program)?;
    buffering::fold_constant_addresses(&mut sequential);
    let facts = points_to::points_to_with_numbers(
        &sequential,
        points_to::Numbers {
            integers_made_pointers: !program.addresses_as_integers,
            ..points_to::Numbers::default()
        },
    );
    sequential.map.value_types.integer_pointers = integer_pointers(&sequential, &facts);
    sequential.points_to = Some(facts);
    buffering::mark_main_alone(&mut sequential);
    if options.sma.is_timestamped() {
        let order = match options.sma.model() {
            MemoryModel::Pso => buffering::StoreOrder::PerLocation,
            _ => buffering::StoreOrder::ProgramOrder,
        };
        buffering::mark_uncontended_accesses(&mut sequential, order);
    }
    if options.sma != SmaImplementation::Sc {
        sequential.store_buffers = Some(buffering::store_buffering(&sequential));
    }
    sequential.sufficient = sequential.store_buffers.as_deref().and_then(|threads| {
        sufficient::sufficient_bounds(threads, sequential.memory.location_count(), options.sma)
    });
    Ok(sequential)
}

/// The file the program was read from: the file of `main`.
fn input_file(program: &Program) -> Option<&str> {
    let main = program.functions.get(program.main)?;
    program
        .origins
        .get(main.origin)
        .map(|origin| origin.file.as_str())
}

/// The file and line on which the statement at `origin` starts, and
/// whether that file is the input file: what `--unwindset` names.
fn source_line(program: &Program, origin: OriginId) -> Option<(&str, u32, bool)> {
    let origin = program.origins.get(origin)?;
    Some((
        origin.file.as_str(),
        origin.line,
        Some(origin.file.as_str()) == input_file(program),
    ))
}

/// How often the loop at `origin` is unrolled: its `--unwindset` depth when
/// it starts on a line the set names, else `--unwind`.
pub(crate) fn loop_depth(program: &Program, bounds: &Bounds, origin: OriginId) -> u32 {
    source_line(program, origin).map_or(bounds.unwind, |(file, line, in_input)| {
        bounds.unwind_at(file, line, in_input)
    })
}

/// The loops that `--unwindset` gives their own depth, by origin; an error
/// for a line of the set on which no loop starts.
pub(crate) fn own_loop_depths(
    program: &Program,
    bounds: &Bounds,
) -> Result<BTreeMap<OriginId, u32>, Box<Diagnostic>> {
    let mut depths = BTreeMap::new();
    let mut loop_starts: Vec<(&str, u32, bool)> = Vec::new();
    for function in &program.functions {
        walk::for_each_statement(&function.body, &mut |stmt| {
            if let (StmtKind::Loop { .. }, Some((file, line, in_input))) =
                (&stmt.kind, source_line(program, stmt.origin))
            {
                loop_starts.push((file, line, in_input));
                if let Some(depth) = bounds.own_depth(file, line, in_input) {
                    depths.insert(stmt.origin, depth);
                }
            }
        });
    }
    let unmatched = bounds.unwindset.keys().find(|named| {
        !loop_starts
            .iter()
            .any(|&(file, line, in_input)| named.names(file, line, in_input))
    });
    match unmatched {
        Some(named) => Err(no_loop_on(program, named, &loop_starts)),
        None => Ok(depths),
    }
}

/// The error for an `--unwindset` line on which no loop starts, with the
/// lines of that file on which loops do start.
fn no_loop_on(
    program: &Program,
    named: &LoopLine,
    loop_starts: &[(&str, u32, bool)],
) -> Box<Diagnostic> {
    let file = match &named.file {
        None => input_file(program).map(str::to_string),
        // the included file as the program knows it, when it knows one
        Some(_) => program
            .origins
            .iter()
            .map(|origin| origin.file.as_str())
            .find(|file| named.is_in(file, false))
            .map(str::to_string),
    };
    let lines: std::collections::BTreeSet<u32> = loop_starts
        .iter()
        .filter(|&&(file, _, in_input)| named.is_in(file, in_input))
        .map(|&(_, line, _)| line)
        .collect();
    let help = match (&named.file, lines.is_empty()) {
        (Some(name), _) if file.is_none() => format!(
            "no file of the program has a path that ends with {name}; name an included file by its path or its last components, e.g. --unwindset queue.h:12:N"
        ),
        (_, true) => "no loop starts in this file".to_string(),
        (_, false) => format!(
            "give the line of the loop's keyword; loops start on line{} {}",
            if lines.len() == 1 { "" } else { "s" },
            lines
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Box::new(Diagnostic {
        message: format!(
            "--unwindset names {}, where no loop starts",
            named.describe()
        ),
        file: file
            .or_else(|| named.file.clone())
            .unwrap_or_default()
            .into(),
        line: named.line,
        column: 1,
        length: 1,
        label: "no `for`, `while` or `do` starts on this line".into(),
        help: Some(help),
        severity: Severity::Error,
    })
}

/// A diagnostic pointing at the origin `origin` of `program`.
pub(crate) fn diagnostic_at(
    program: &Program,
    origin: OriginId,
    message: String,
    label: String,
    help: Option<String>,
) -> Box<Diagnostic> {
    let (file, line, column, length) = match program.origins.get(origin) {
        Some(o) => (
            o.file.clone(),
            o.line,
            o.column,
            o.text.chars().count().max(1) as u32,
        ),
        None => (String::new(), 0, 0, 1),
    };
    Box::new(Diagnostic {
        message,
        file: file.into(),
        line,
        column,
        length,
        label,
        help,
        severity: Severity::Error,
    })
}
