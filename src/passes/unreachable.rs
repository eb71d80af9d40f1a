//! Removes the code of an unrolled function that no execution reaches: what
//! follows an assumption that always fails, a jump or a thread exit, up to
//! the next label. Constant propagation over the thread's private integer
//! locals, with the least values that assumptions and branches give the
//! others (`assume(n >= 5)`), finds the assumptions that always fail, above
//! all the loop bounds of counted loops that `--unwind` cuts short; counting the allocations on
//! every path finds the ones the heap bounds (`--nmalloc`, `--heap-block`)
//! always cut off. A bound that cuts every path to code that matters (a
//! visible statement or an assertion), or to the end of a thread that is
//! joined, is reported: that code is never checked, whatever the verdict.
//!
//! Only executions that cannot exist are removed, so verdicts stay the
//! same; the program gets smaller, and thread creations no execution
//! reaches create no threads.

use super::walk::for_each_stmt;
use super::{diagnostic_at, loop_depth};
use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::{
    BinaryOp, Block, Expr, Function, FunctionId, LabelId, Local, LocalId, OriginId, Place, Program,
    PropertyKind, Stmt, StmtKind, Ty, UnaryOp,
};
use crate::options::{Bounds, TranslateOptions};
use std::collections::{BTreeMap, HashMap};

/// A statement at which a bound cuts off every execution that reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The loop at this origin needs more iterations than its unwinding
    /// bound on every path.
    LoopBound(OriginId),
    /// The allocation at this origin finds every heap block used
    /// (`--nmalloc`): the thread has allocated that many before it.
    HeapBlocks(OriginId),
    /// The allocation at this origin asks for more scalars than a heap
    /// block holds (`--heap-block`).
    HeapBlockSize { origin: OriginId, scalars: i64 },
    /// After the `pthread_join` at this origin, every path has seen more
    /// allocations than `--nmalloc` lets happen: `allocations`, this
    /// thread's and those of the threads it joined, which ended.
    HeapBlocksJoined { origin: OriginId, allocations: u32 },
}

impl Cut {
    pub fn origin(self) -> OriginId {
        match self {
            Cut::LoopBound(origin)
            | Cut::HeapBlocks(origin)
            | Cut::HeapBlockSize { origin, .. }
            | Cut::HeapBlocksJoined { origin, .. } => origin,
        }
    }
}

/// A bound that cuts every execution before code that matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundCut {
    pub cut: Cut,
    /// The first statement that matters after it, which no execution reaches.
    pub first_unreached: OriginId,
}

/// What removing the unreachable code of a function found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reachability {
    /// The bounds that cut code that matters, one per cutting statement.
    pub cuts: Vec<BoundCut>,
    /// The bound that keeps every execution from ending the function (from
    /// its end, a `return` or a thread exit), if one does: a thread running
    /// it never ends, so a `pthread_join` on it never returns.
    pub end_cut_by: Option<Cut>,
    /// The allocations that every path to the function's end makes, its
    /// own and those of the threads it joins (0 when it never ends).
    pub allocations_at_end: u32,
    /// For each start function the function creates a thread of, the
    /// allocations every path to each of its creations has seen, the
    /// function's start count included: the thread starts with them made.
    pub allocations_at_creation: BTreeMap<FunctionId, u32>,
    /// Whether a heap bound cut off every execution at some allocation or
    /// join (with code that matters after it or not).
    pub heap_cut: bool,
}

/// The allocations every execution of a thread function makes before it
/// ends ([`Reachability::allocations_at_end`]), by function: a thread that
/// joins one has seen them all.
pub type AllocationsAtEnd = HashMap<FunctionId, u32>;

/// Removes the unreachable code of `function` (loops already unrolled)
/// under `bounds`; a join of a thread that runs a function of `joined`
/// counts that function's allocations, and the function starts with
/// `started_after` allocations made (by its creators).
pub fn remove_unreachable(
    function: &mut Function,
    bounds: &Bounds,
    joined: &AllocationsAtEnd,
    started_after: u32,
) -> Reachability {
    let mut pass = Pass {
        locals: &function.locals,
        bounds,
        joined,
        started_after,
        allocations_at_creation: BTreeMap::new(),
        heap_cut: false,
        jumps: jumps_to_labels(&function.body),
        arrivals: HashMap::new(),
        cuts: Vec::new(),
        ends: false,
        allocations_at_end: None,
    };
    let body = std::mem::take(&mut function.body);
    let (body, after) = pass.block(body, pass.nothing_known());
    let end_cut_by = if pass.ends || after.reachable {
        None
    } else {
        after.cut_by
    };
    if after.reachable {
        pass.ended_with(after.allocations);
    }
    let cuts = pass.cuts;
    function.body = body;
    let allocations_at_end = pass.allocations_at_end.unwrap_or(0);
    Reachability {
        cuts,
        end_cut_by,
        allocations_at_end,
        allocations_at_creation: pass.allocations_at_creation,
        heap_cut: pass.heap_cut,
    }
}

/// The warnings for what removing the unreachable code of `function` found:
/// each loop bound that cuts code that matters, and, when the program joins
/// threads, the one that keeps a thread function from ending.
pub fn warnings(
    program: &Program,
    options: &TranslateOptions,
    function: FunctionId,
    found: &Reachability,
) -> Vec<Diagnostic> {
    let never_ends = found
        .end_cut_by
        .filter(|_| function != program.main && joins_threads(program));
    let mut warnings: Vec<Diagnostic> = found
        .cuts
        .iter()
        .map(|cut| {
            let ends_thread = never_ends == Some(cut.cut);
            bound_cut_warning(
                program,
                options,
                cut.cut,
                Some(cut.first_unreached),
                ends_thread,
            )
        })
        .collect();
    if let Some(cut) = never_ends
        && !found.cuts.iter().any(|found| found.cut == cut)
    {
        warnings.push(bound_cut_warning(program, options, cut, None, true));
    }
    warnings
}

/// How `--unwindset` names the line `origin` starts on: `71` in the input
/// file, `queue.h:12` in an included one (by its file name).
fn unwindset_name(program: &Program, origin: OriginId) -> String {
    match super::source_line(program, origin) {
        None => "LINE".to_string(),
        Some((_, line, true)) => line.to_string(),
        Some((file, line, false)) => {
            let name = std::path::Path::new(file)
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or(file);
            format!("{name}:{line}")
        }
    }
}

/// The warning for a bound that cuts every execution: before
/// `first_unreached`, code that matters, and, when `ends_thread`, before the
/// end of a thread function, so that joining the thread never returns.
fn bound_cut_warning(
    program: &Program,
    options: &TranslateOptions,
    cut: Cut,
    first_unreached: Option<OriginId>,
    ends_thread: bool,
) -> Diagnostic {
    let bound = program.origins.get(cut.origin());
    let unreached = first_unreached
        .and_then(|origin| program.origins.get(origin))
        .map(|first| match bound {
            Some(bound) if bound.file == first.file => {
                format!("line {} (`{}`)", first.line, first.text)
            }
            _ => format!("{}:{} (`{}`)", first.file, first.line, first.text),
        });
    let lost = match (unreached, ends_thread) {
        (Some(unreached), false) => format!("nothing from {unreached} on is checked"),
        (Some(unreached), true) => {
            format!(
                "nothing from {unreached} on is checked, and the thread never ends, so nothing after a pthread_join on it is checked either"
            )
        }
        (None, _) => {
            "the thread never ends, so nothing after a pthread_join on it is checked".to_string()
        }
    };
    let (message, label, remedy) = match cut {
        Cut::LoopBound(origin) => {
            let unwind = loop_depth(program, &options.bounds, origin);
            let line = unwindset_name(program, origin);
            (
                format!("no execution gets past this loop within its unwinding bound of {unwind}"),
                format!("every path through it needs more than {unwind} iterations"),
                format!(
                    "unroll this loop as often as it runs: --unwindset {line}:N (N its iterations), or a larger --unwind"
                ),
            )
        }
        Cut::HeapBlocks(_) => {
            let blocks = options.bounds.nmalloc;
            (
                format!("no execution gets past this allocation within --nmalloc {blocks}"),
                format!(
                    "every path to it has taken {blocks} heap block{}, in this thread, the threads it joined or its creators before it started",
                    if blocks == 1 { "" } else { "s" }
                ),
                format!(
                    "raise --nmalloc to the number of allocations an execution makes (at least {}), or give --nmalloc auto for as many as the threads can take",
                    blocks + 1
                ),
            )
        }
        Cut::HeapBlocksJoined { allocations, .. } => {
            let blocks = options.bounds.nmalloc;
            (
                format!("no execution gets past this join within --nmalloc {blocks}"),
                format!(
                    "every path to it has taken {allocations} heap blocks, in this thread, the threads it joined or its creators before it started"
                ),
                format!(
                    "raise --nmalloc to the number of allocations an execution makes (at least {allocations}), or give --nmalloc auto for as many as the threads can take"
                ),
            )
        }
        Cut::HeapBlockSize { scalars, .. } => {
            let block = options.bounds.heap_block.unwrap_or_default();
            (
                format!(
                    "this allocation does not fit a heap block of --heap-block {block} scalars"
                ),
                format!("asks for {scalars} scalars on every path"),
                format!(
                    "raise --heap-block to at least {scalars}, or leave it out (the default fits every allocation of constant size)"
                ),
            )
        }
    };
    let mut warning = *diagnostic_at(
        program,
        cut.origin(),
        message,
        label,
        Some(format!("{lost}, whatever the verdict; {remedy}")),
    );
    warning.severity = Severity::Warning;
    warning
}

/// Whether some function of `program` joins a thread.
fn joins_threads(program: &Program) -> bool {
    let mut joins = false;
    for function in &program.functions {
        for_each_stmt(&function.body, &mut |kind| {
            joins |= matches!(kind, StmtKind::ThreadJoin { .. })
        });
    }
    joins
}

/// The largest value the propagation keeps: values in `0..=LIMIT` mean the
/// same in every integer type of at least 32 bits, signed or not, so the
/// propagation needs no types of intermediate results.
const LIMIT: i64 = i32::MAX as i64;

/// What is known at a point of the function.
#[derive(Debug, Clone, Default)]
struct Flow {
    reachable: bool,
    /// Private integer locals with a known value.
    constants: HashMap<LocalId, i64>,
    /// Private integer locals of unknown value with a known least value
    /// (in `0..`), from the conditions that hold on every path to here.
    at_least: HashMap<LocalId, i64>,
    /// Allocations every path to here has made, in this thread and in the
    /// threads it joined.
    allocations: u32,
    /// The threads this one created and has not joined yet, by the place
    /// that holds their handle (indices known), with their functions.
    running: Vec<(Place, FunctionId)>,
    /// Where the flow is unreachable because a bound always cuts: where.
    cut_by: Option<Cut>,
}

impl Flow {
    /// At the function's entry and at a label: reachable, nothing known.
    fn entry() -> Flow {
        Flow {
            reachable: true,
            ..Flow::default()
        }
    }

    fn unreachable(cut_by: Option<Cut>) -> Flow {
        Flow {
            reachable: false,
            cut_by,
            ..Flow::default()
        }
    }

    /// The flow after two branches.
    fn join(self, other: Flow) -> Flow {
        match (self.reachable, other.reachable) {
            (false, false) => Flow::unreachable(self.cut_by.or(other.cut_by)),
            (false, true) => other,
            (true, false) => self,
            (true, true) => {
                let constants = self
                    .constants
                    .into_iter()
                    .filter(|(local, value)| other.constants.get(local) == Some(value))
                    .collect();
                let at_least = self
                    .at_least
                    .into_iter()
                    .filter_map(|(local, least)| {
                        Some((local, least.min(*other.at_least.get(&local)?)))
                    })
                    .collect();
                let allocations = self.allocations.min(other.allocations);
                let running = self
                    .running
                    .into_iter()
                    .filter(|thread| other.running.contains(thread))
                    .collect();
                Flow {
                    reachable: true,
                    constants,
                    at_least,
                    allocations,
                    running,
                    cut_by: None,
                }
            }
        }
    }

    /// Forgets what is known of the local that `place` is part of.
    fn forget(&mut self, place: &Place) {
        if let Some(local) = place.root_local() {
            self.constants.remove(&local);
            self.at_least.remove(&local);
            self.running
                .retain(|(handle, _)| handle.root_local() != Some(local));
        }
    }

    /// `place` with the indices the known locals give, if they give all.
    fn resolved(&self, place: &Place) -> Option<Place> {
        Some(match place {
            Place::Local(_) | Place::PlainGlobal(_) => place.clone(),
            Place::Index(base, index) => Place::Index(
                Box::new(self.resolved(base)?),
                Box::new(Expr::Const(value(index, &self.constants)?)),
            ),
            Place::Field(base, field) => {
                Place::Field(Box::new(self.resolved(base)?), field.clone())
            }
        })
    }

    /// Whether `condition` holds on every path here (`Some(true)`), on
    /// none (`Some(false)`), or is not known.
    fn decides(&self, condition: &Expr) -> Option<bool> {
        if let Some(v) = value(condition, &self.constants) {
            return Some(v != 0);
        }
        match condition {
            Expr::Unary(UnaryOp::Not, operand) => self.decides(operand).map(|holds| !holds),
            Expr::Cast(Ty::Bool, operand) => self.decides(operand),
            Expr::Binary(BinaryOp::LogicalAnd, left, right) => {
                match (self.decides(left), self.decides(right)) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                }
            }
            Expr::Binary(BinaryOp::LogicalOr, left, right) => {
                match (self.decides(left), self.decides(right)) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                }
            }
            Expr::Binary(op, left, right) => {
                let (local, op, bound, _) = self.local_against_value(*op, left, right)?;
                let least = *self.at_least.get(&local)?;
                // `local >= least >= 0`: the same number in any type it is
                // compared in
                match op {
                    BinaryOp::Gt | BinaryOp::Ne if least > bound => Some(true),
                    BinaryOp::Ge if least >= bound => Some(true),
                    BinaryOp::Lt if least >= bound => Some(false),
                    BinaryOp::Le | BinaryOp::Eq if least > bound => Some(false),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Learns what `condition` holding (`holds`) or not says of the least
    /// value of a private integer local (`assume(n >= 5)`, the else branch
    /// of `if (n < 5)`), where `locals` says it is one.
    fn learn(&mut self, condition: &Expr, holds: bool, locals: &[Local]) {
        match condition {
            Expr::Unary(UnaryOp::Not, operand) => self.learn(operand, !holds, locals),
            Expr::Cast(Ty::Bool, operand) => self.learn(operand, holds, locals),
            Expr::Binary(BinaryOp::LogicalAnd, left, right) if holds => {
                self.learn(left, true, locals);
                self.learn(right, true, locals);
            }
            Expr::Binary(BinaryOp::LogicalOr, left, right) if !holds => {
                self.learn(left, false, locals);
                self.learn(right, false, locals);
            }
            Expr::Binary(op, left, right) => {
                let Some((local, op, bound, other)) = self.local_against_value(*op, left, right)
                else {
                    return;
                };
                let op = if holds { op } else { negated(op) };
                let least = match op {
                    BinaryOp::Ge => bound,
                    BinaryOp::Gt => bound + 1,
                    _ => return,
                };
                if locals
                    .get(local)
                    .is_some_and(|declared| compared_as_its_own_type(declared, other))
                {
                    let known = self.at_least.entry(local).or_insert(least);
                    *known = (*known).max(least);
                }
            }
            _ => {}
        }
    }

    /// `left op right` as `local op' value`, where one side is a local of
    /// unknown value and the other's (`other`) value is known.
    fn local_against_value<'e>(
        &self,
        op: BinaryOp,
        left: &'e Expr,
        right: &'e Expr,
    ) -> Option<(LocalId, BinaryOp, i64, &'e Expr)> {
        let unknown = |e: &Expr| match e {
            Expr::Load(Place::Local(local)) if !self.constants.contains_key(local) => Some(*local),
            _ => None,
        };
        match (unknown(left), unknown(right)) {
            (Some(local), None) => Some((local, op, value(right, &self.constants)?, right)),
            (None, Some(local)) => {
                Some((local, mirrored(op)?, value(left, &self.constants)?, left))
            }
            _ => None,
        }
    }
}

/// `a op b` as `b op' a`, for a comparison.
fn mirrored(op: BinaryOp) -> Option<BinaryOp> {
    Some(match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Ge => BinaryOp::Le,
        BinaryOp::Eq | BinaryOp::Ne => op,
        _ => return None,
    })
}

/// The comparison that holds where `op` fails.
fn negated(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Ge,
        BinaryOp::Ge => BinaryOp::Lt,
        BinaryOp::Gt => BinaryOp::Le,
        BinaryOp::Le => BinaryOp::Gt,
        BinaryOp::Eq => BinaryOp::Ne,
        BinaryOp::Ne => BinaryOp::Eq,
        other => other,
    }
}

/// Whether comparing `local`, a private integer, with `other` compares
/// the local's own value: always for an unsigned local; for a signed one,
/// when `other` is a literal of a signed type (`n >= 5`, not `n >= 5u`,
/// which `-1` passes as a large unsigned number).
fn compared_as_its_own_type(local: &Local, other: &Expr) -> bool {
    let signed_literal = match other {
        Expr::Const(_) => true,
        Expr::Cast(Ty::Int { signed: true, bits }, operand) => {
            *bits >= 32 && matches!(**operand, Expr::Const(_))
        }
        _ => false,
    };
    match local.ty {
        _ if local.shared => false,
        Ty::Bool | Ty::Int { signed: false, .. } => true,
        Ty::Int { signed: true, .. } => signed_literal,
        _ => false,
    }
}

struct Pass<'a> {
    locals: &'a [Local],
    /// The heap bounds (`nmalloc`, a given `heap_block`) cut allocations off.
    bounds: &'a Bounds,
    /// The allocations of the thread functions this one may join.
    joined: &'a AllocationsAtEnd,
    /// The allocations made before the function starts.
    started_after: u32,
    /// [`Reachability::allocations_at_creation`] so far.
    allocations_at_creation: BTreeMap<FunctionId, u32>,
    /// [`Reachability::heap_cut`] so far.
    heap_cut: bool,
    cuts: Vec<BoundCut>,
    /// Whether some execution reaches a `return` or a thread exit.
    ends: bool,
    /// The least allocations on the paths to an end seen so far.
    allocations_at_end: Option<u32>,
    /// How many `goto`s of the function jump to each label.
    jumps: HashMap<LabelId, usize>,
    /// The flows of the `goto`s seen so far to each label, joined, and
    /// how many they are.
    arrivals: HashMap<LabelId, (Flow, usize)>,
}

/// How many `goto`s of `body` jump to each label.
fn jumps_to_labels(body: &Block) -> HashMap<LabelId, usize> {
    let mut jumps = HashMap::new();
    for_each_stmt(body, &mut |kind| {
        if let StmtKind::Goto(label) = kind {
            *jumps.entry(*label).or_insert(0) += 1;
        }
    });
    jumps
}

impl Pass<'_> {
    /// A path ends the function with `allocations` made, its creators'
    /// before it started too.
    fn ended_with(&mut self, allocations: u32) {
        let own = allocations.saturating_sub(self.started_after);
        self.allocations_at_end = Some(self.allocations_at_end.map_or(own, |least| least.min(own)));
    }

    /// The flow where nothing is known (the start, a label a jump back
    /// reaches): reachable, with the allocations made before the start.
    fn nothing_known(&self) -> Flow {
        Flow {
            allocations: self.started_after,
            ..Flow::entry()
        }
    }

    /// `pthread_join` of the thread whose handle `handle` holds: a thread
    /// this one created there has ended, with its allocations made. More
    /// than the heap has cut off every such execution.
    fn join(&mut self, handle: &Expr, origin: OriginId, flow: &mut Flow) {
        let Expr::Load(place) = handle else { return };
        let Some(place) = flow.resolved(place) else {
            return;
        };
        let Some(position) = flow
            .running
            .iter()
            .position(|(running, _)| *running == place)
        else {
            return;
        };
        let (_, function) = flow.running.remove(position);
        flow.allocations = flow
            .allocations
            .saturating_add(self.joined.get(&function).copied().unwrap_or(0));
        if flow.allocations > self.bounds.nmalloc {
            let allocations = flow.allocations;
            self.heap_cut = true;
            *flow = Flow::unreachable(Some(Cut::HeapBlocksJoined {
                origin,
                allocations,
            }));
        }
    }

    /// A `goto label` with `flow` (unreachable for one that no execution
    /// reaches).
    fn jump(&mut self, label: LabelId, flow: Flow) {
        let arrived = match self.arrivals.remove(&label) {
            Some((arrived, count)) => (arrived.join(flow), count + 1),
            None => (flow, 1),
        };
        self.arrivals.insert(label, arrived);
    }

    /// The flow at `label` after the flow `falling` through to it: with
    /// those of its `goto`s when all of them came before it, else (a jump
    /// back, or one the pass did not see) nothing known.
    fn arrive(&mut self, label: LabelId, falling: Flow) -> Flow {
        let expected = self.jumps.get(&label).copied().unwrap_or(0);
        match self.arrivals.remove(&label) {
            None if expected == 0 => falling,
            Some((arrived, count)) if count == expected => falling.join(arrived),
            _ => self.nothing_known(),
        }
    }

    /// `block` without its unreachable statements, and the flow after it.
    fn block(&mut self, block: Block, mut flow: Flow) -> (Block, Flow) {
        let mut out = Vec::with_capacity(block.len());
        for stmt in block {
            if let StmtKind::Label(label, _) = stmt.kind {
                flow = self.arrive(label, flow);
                out.push(stmt);
            } else if flow.reachable {
                flow = self.statement(stmt, flow, &mut out);
            } else {
                flow = self.unreachable_statement(stmt, flow, &mut out);
            }
        }
        (out, flow)
    }

    /// A statement the flow reaches: kept, with the flow after it.
    fn statement(&mut self, stmt: Stmt, mut flow: Flow, out: &mut Block) -> Flow {
        let Stmt { kind, origin } = stmt;
        let kind = match kind {
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                let (taken_then, taken_else) = match flow.decides(&condition) {
                    Some(false) => (Flow::unreachable(None), flow.clone()),
                    Some(true) => (flow.clone(), Flow::unreachable(None)),
                    None => {
                        let (mut taken_then, mut taken_else) = (flow.clone(), flow.clone());
                        taken_then.learn(&condition, true, self.locals);
                        taken_else.learn(&condition, false, self.locals);
                        (taken_then, taken_else)
                    }
                };
                let (then_branch, after_then) = self.block(then_branch, taken_then);
                let (else_branch, after_else) = self.block(else_branch, taken_else);
                flow = after_then.join(after_else);
                StmtKind::If {
                    condition,
                    then_branch,
                    else_branch,
                }
            }
            StmtKind::Assume(condition) => {
                match flow.decides(&condition) {
                    Some(false) => flow = Flow::unreachable(None),
                    _ => flow.learn(&condition, true, self.locals),
                }
                StmtKind::Assume(condition)
            }
            StmtKind::LoopBound(condition) => {
                if flow.decides(&condition) == Some(false) {
                    flow = Flow::unreachable(Some(Cut::LoopBound(origin)));
                }
                StmtKind::LoopBound(condition)
            }
            StmtKind::Malloc {
                target,
                size,
                zeroed,
            } => {
                flow.forget(&target);
                match self.allocation_cut(origin, &size, &flow) {
                    Some(cut) => {
                        self.heap_cut = true;
                        flow = Flow::unreachable(Some(cut));
                    }
                    None => flow.allocations += 1,
                }
                StmtKind::Malloc {
                    target,
                    size,
                    zeroed,
                }
            }
            StmtKind::Return(_) | StmtKind::ThreadExit(_) => {
                self.ends = true;
                self.ended_with(flow.allocations);
                flow = Flow::unreachable(None);
                kind
            }
            StmtKind::ThreadCreate {
                handle,
                function,
                argument,
            } => {
                let least = self
                    .allocations_at_creation
                    .entry(function)
                    .or_insert(flow.allocations);
                *least = (*least).min(flow.allocations);
                flow.forget(&handle);
                if let Some(place) = flow.resolved(&handle) {
                    flow.running.push((place, function));
                }
                StmtKind::ThreadCreate {
                    handle,
                    function,
                    argument,
                }
            }
            StmtKind::ThreadJoin { handle } => {
                self.join(&handle, origin, &mut flow);
                StmtKind::ThreadJoin { handle }
            }
            StmtKind::Goto(label) => {
                self.jump(label, std::mem::replace(&mut flow, Flow::unreachable(None)));
                kind
            }
            StmtKind::Break | StmtKind::Continue => {
                flow = Flow::unreachable(None);
                kind
            }
            StmtKind::Assign(place, expr) => {
                self.assign(&place, &expr, &mut flow);
                StmtKind::Assign(place, expr)
            }
            StmtKind::Loop { .. } => {
                // not unrolled: what its body changes is unknown
                flow.constants.clear();
                flow.at_least.clear();
                kind
            }
            kind => {
                if let Some(target) = written_place(&kind) {
                    flow.forget(target);
                }
                kind
            }
        };
        out.push(Stmt { kind, origin });
        flow
    }

    /// The heap bound that cuts off every execution of an allocation of
    /// `size` scalars after `flow`, if one does.
    fn allocation_cut(&self, origin: OriginId, size: &Expr, flow: &Flow) -> Option<Cut> {
        if flow.allocations >= self.bounds.nmalloc {
            return Some(Cut::HeapBlocks(origin));
        }
        let scalars = value(size, &flow.constants)?;
        let block = self.bounds.heap_block?;
        (scalars > i64::from(block)).then_some(Cut::HeapBlockSize { origin, scalars })
    }

    /// A statement the flow does not reach: removed, unless it holds a
    /// label that a jump may reach.
    fn unreachable_statement(&mut self, stmt: Stmt, flow: Flow, out: &mut Block) -> Flow {
        if let StmtKind::Goto(label) = stmt.kind {
            self.jump(label, Flow::unreachable(None));
        }
        if let Some(cut) = flow.cut_by
            && matters(&stmt.kind)
            && !self.cuts.iter().any(|found| found.cut == cut)
        {
            self.cuts.push(BoundCut {
                cut,
                first_unreached: stmt.origin,
            });
        }
        match stmt.kind {
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } if holds_label(&then_branch) || holds_label(&else_branch) => {
                let (then_branch, after_then) = self.block(then_branch, flow.clone());
                let (else_branch, after_else) = self.block(else_branch, flow);
                out.push(Stmt {
                    kind: StmtKind::If {
                        condition,
                        then_branch,
                        else_branch,
                    },
                    origin: stmt.origin,
                });
                after_then.join(after_else)
            }
            StmtKind::Loop { .. } if holds_label(std::slice::from_ref(&stmt)) => {
                out.push(stmt);
                self.nothing_known()
            }
            _ => flow,
        }
    }

    /// `place = expr`: a private integer local takes the value, when known
    /// and representable; anything else written is forgotten.
    fn assign(&self, place: &Place, expr: &Expr, flow: &mut Flow) {
        let stored = match place {
            Place::Local(local) => value(expr, &flow.constants)
                .and_then(|v| stored_value(self.locals.get(*local)?, v))
                .map(|v| (*local, v)),
            _ => None,
        };
        flow.forget(place);
        if let Some((local, v)) = stored {
            flow.constants.insert(local, v);
        }
    }
}

/// The value a private local of integer type holds after `v` is stored in
/// it, when the propagation can represent it.
fn stored_value(local: &Local, v: i64) -> Option<i64> {
    if local.shared {
        return None;
    }
    match local.ty {
        Ty::Bool => Some(i64::from(v != 0)),
        Ty::Int { bits, .. } if fits(v, bits) => Some(v),
        _ => None,
    }
}

/// Whether `v` (in `0..=LIMIT`) is the same value in an integer type of
/// `bits` bits, signed or not.
fn fits(v: i64, bits: u8) -> bool {
    bits >= 32 || (bits >= 2 && v < 1i64 << (bits - 1))
}

/// The place a statement other than an assignment or an allocation
/// writes, if private.
fn written_place(kind: &StmtKind) -> Option<&Place> {
    match kind {
        StmtKind::Read { target, .. } | StmtKind::MutexTryLock { target, .. } => Some(target),
        StmtKind::Rmw { target, .. } | StmtKind::Call { target, .. } => target.as_ref(),
        StmtKind::ThreadCreate { handle, .. } => Some(handle),
        _ => None,
    }
}

/// The value of a pure expression, when the known locals determine it and
/// every value on the way lies in `0..=LIMIT`.
fn value(expr: &Expr, constants: &HashMap<LocalId, i64>) -> Option<i64> {
    let v = match expr {
        Expr::Const(c) => *c,
        Expr::Load(Place::Local(local)) => *constants.get(local)?,
        Expr::Unary(op, operand) => {
            let v = value(operand, constants)?;
            match op {
                UnaryOp::Not => i64::from(v == 0),
                UnaryOp::Neg if v == 0 => 0,
                UnaryOp::Neg | UnaryOp::BitNot => return None,
            }
        }
        Expr::Binary(op, left, right) => binary(*op, left, right, constants)?,
        Expr::Conditional(condition, then_value, else_value) => {
            if value(condition, constants)? != 0 {
                value(then_value, constants)?
            } else {
                value(else_value, constants)?
            }
        }
        Expr::Cast(ty, operand) => {
            let v = value(operand, constants)?;
            match ty {
                Ty::Bool => i64::from(v != 0),
                Ty::Int { bits, .. } if fits(v, *bits) => v,
                _ => return None,
            }
        }
        Expr::Load(_)
        | Expr::ObjectAddress(_)
        | Expr::Nondet(_)
        | Expr::CurrentThread
        | Expr::FloatConst(_)
        | Expr::Reinterpret(..)
        | Expr::LibraryCall(..) => return None,
    };
    (0..=LIMIT).contains(&v).then_some(v)
}

fn binary(
    op: BinaryOp,
    left: &Expr,
    right: &Expr,
    constants: &HashMap<LocalId, i64>,
) -> Option<i64> {
    let (l, r) = (value(left, constants), value(right, constants));
    // one known operand decides these
    match op {
        BinaryOp::LogicalAnd if l == Some(0) || r == Some(0) => return Some(0),
        BinaryOp::LogicalOr if l.is_some_and(|v| v != 0) || r.is_some_and(|v| v != 0) => {
            return Some(1);
        }
        _ => {}
    }
    let (l, r) = (l?, r?);
    Some(match op {
        BinaryOp::Add => l.checked_add(r)?,
        BinaryOp::Sub => l - r,
        BinaryOp::Mul => l.checked_mul(r)?,
        BinaryOp::Div if r != 0 => l / r,
        BinaryOp::Rem if r != 0 => l % r,
        BinaryOp::Div | BinaryOp::Rem => return None,
        BinaryOp::Shl if r < 31 => l << r,
        BinaryOp::Shr if r < 32 => l >> r,
        BinaryOp::Shl | BinaryOp::Shr => return None,
        BinaryOp::BitAnd => l & r,
        BinaryOp::BitOr => l | r,
        BinaryOp::BitXor => l ^ r,
        BinaryOp::LogicalAnd => i64::from(l != 0 && r != 0),
        BinaryOp::LogicalOr => i64::from(l != 0 || r != 0),
        BinaryOp::Eq => i64::from(l == r),
        BinaryOp::Ne => i64::from(l != r),
        BinaryOp::Lt => i64::from(l < r),
        BinaryOp::Le => i64::from(l <= r),
        BinaryOp::Gt => i64::from(l > r),
        BinaryOp::Ge => i64::from(l >= r),
    })
}

/// Whether an unreached statement is one whose loss the user must hear of:
/// a visible statement or an assertion of the program.
fn matters(kind: &StmtKind) -> bool {
    match kind {
        StmtKind::Assert { kind, .. } => *kind != PropertyKind::UnwindingAssertion,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => then_branch
            .iter()
            .chain(else_branch)
            .any(|stmt| matters(&stmt.kind)),
        StmtKind::Loop {
            prelude,
            body,
            latch,
            ..
        } => prelude
            .iter()
            .chain(body)
            .chain(latch)
            .any(|stmt| matters(&stmt.kind)),
        kind => kind.is_visible(),
    }
}

/// Whether a label is defined anywhere in `block`.
fn holds_label(block: &[Stmt]) -> bool {
    block.iter().any(|stmt| match &stmt.kind {
        StmtKind::Label(..) => true,
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => holds_label(then_branch) || holds_label(else_branch),
        StmtKind::Loop {
            prelude,
            body,
            latch,
            ..
        } => holds_label(prelude) || holds_label(body) || holds_label(latch),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(name: &str) -> Local {
        Local {
            name: name.into(),
            ty: Ty::INT,
            shared: false,
        }
    }

    fn st(kind: StmtKind, origin: OriginId) -> Stmt {
        Stmt { kind, origin }
    }

    fn load(local: LocalId) -> Expr {
        Expr::Load(Place::Local(local))
    }

    fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary(op, Box::new(l), Box::new(r))
    }

    fn write(origin: OriginId) -> Stmt {
        st(
            StmtKind::Write {
                address: Expr::Const(1),
                value: Expr::Const(0),
            },
            origin,
        )
    }

    fn function(locals: Vec<Local>, body: Block) -> Function {
        Function {
            name: "main".into(),
            params: vec![],
            locals,
            return_type: Ty::INT,
            body,
            is_atomic: false,
            origin: 0,
        }
    }

    /// `i = 0; if (i < n) { i = i + 1; if (i < n) { i = i + 1; bound !(i < n) } }`
    fn counted_loop(n: i64, origin: OriginId) -> Vec<Stmt> {
        counted_loop_to(Expr::Const(n), origin)
    }

    /// [`counted_loop`] up to the value of `bound`.
    fn counted_loop_to(bound: Expr, origin: OriginId) -> Vec<Stmt> {
        let condition = || bin(BinaryOp::Lt, load(0), bound.clone());
        let step = || {
            st(
                StmtKind::Assign(Place::Local(0), bin(BinaryOp::Add, load(0), Expr::Const(1))),
                2,
            )
        };
        let inner = vec![
            step(),
            st(
                StmtKind::LoopBound(Expr::Unary(UnaryOp::Not, Box::new(condition()))),
                origin,
            ),
        ];
        let outer = vec![
            step(),
            st(
                StmtKind::If {
                    condition: condition(),
                    then_branch: inner,
                    else_branch: vec![],
                },
                origin,
            ),
        ];
        vec![
            st(StmtKind::Assign(Place::Local(0), Expr::Const(0)), 1),
            st(
                StmtKind::If {
                    condition: condition(),
                    then_branch: outer,
                    else_branch: vec![],
                },
                origin,
            ),
        ]
    }

    #[test]
    fn a_loop_that_counts_past_the_bound_cuts_what_follows() {
        let mut body = counted_loop(128, 7);
        body.push(write(9));
        body.push(write(10));
        let mut f = function(vec![int("i")], body);
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::LoopBound(7),
                first_unreached: 9
            }]
        );
        assert_eq!(
            found.end_cut_by,
            Some(Cut::LoopBound(7)),
            "the function never ends"
        );
        assert_eq!(f.body.len(), 2, "both writes are removed");
    }

    #[test]
    fn a_loop_that_ends_within_the_bound_cuts_nothing() {
        let mut body = counted_loop(2, 7);
        body.push(write(9));
        let mut f = function(vec![int("i")], body.clone());
        assert_eq!(
            remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
            Reachability::default()
        );
        assert_eq!(f.body, body);
    }

    fn malloc(scalars: i64, origin: OriginId) -> Stmt {
        st(
            StmtKind::Malloc {
                target: Place::Local(0),
                size: Expr::Const(scalars),
                zeroed: false,
            },
            origin,
        )
    }

    #[test]
    fn an_allocation_past_the_heap_blocks_cuts_what_follows() {
        // --nmalloc 2 (the default): the third allocation on every path cuts
        let body = vec![malloc(1, 1), malloc(1, 2), malloc(1, 3), write(9)];
        let mut f = function(vec![int("p")], body);
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::HeapBlocks(3),
                first_unreached: 9
            }]
        );
        assert!(found.heap_cut);
        assert_eq!(f.body.len(), 3);
        // allocations in one branch only do not count on every path
        let branch = st(
            StmtKind::If {
                condition: Expr::Nondet(Ty::INT),
                then_branch: vec![malloc(1, 1)],
                else_branch: vec![],
            },
            4,
        );
        let body = vec![branch, malloc(1, 2), malloc(1, 3), write(9)];
        let mut f = function(vec![int("p")], body.clone());
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(
            found,
            Reachability {
                allocations_at_end: 2,
                ..Reachability::default()
            }
        );
        assert_eq!(f.body, body);
    }

    fn goto(label: LabelId, origin: OriginId) -> Stmt {
        st(StmtKind::Goto(label), origin)
    }

    fn maybe(then_branch: Block, origin: OriginId) -> Stmt {
        st(
            StmtKind::If {
                condition: Expr::Nondet(Ty::INT),
                then_branch,
                else_branch: vec![],
            },
            origin,
        )
    }

    #[test]
    fn a_label_that_its_jumps_reach_forward_keeps_what_every_path_did() {
        // an inlined call that returns early or late: both paths allocated
        // twice when they meet at the label, so the third allocation cuts
        let body = vec![
            malloc(1, 1),
            malloc(1, 2),
            maybe(vec![goto(5, 3)], 3),
            write(4),
            st(StmtKind::Label(5, "returned".into()), 5),
            malloc(1, 6),
            write(9),
        ];
        let mut f = function(vec![int("p")], body);
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::HeapBlocks(6),
                first_unreached: 9
            }]
        );
        // a jump back to the label: nothing is known there
        let body = vec![
            malloc(1, 1),
            malloc(1, 2),
            st(StmtKind::Label(5, "again".into()), 5),
            malloc(1, 6),
            write(9),
            maybe(vec![goto(5, 3)], 3),
        ];
        let mut f = function(vec![int("p")], body.clone());
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(found.cuts, vec![]);
        assert_eq!(f.body, body);
    }

    #[test]
    fn a_join_counts_the_allocations_of_the_thread_it_waits_for() {
        // p = malloc; create t running function 1; join t: function 1
        // allocates 2 blocks before it ends, so 3 in all, past --nmalloc 2
        let create = st(
            StmtKind::ThreadCreate {
                handle: Place::Local(1),
                function: 1,
                argument: Expr::Const(0),
            },
            2,
        );
        let join = st(StmtKind::ThreadJoin { handle: load(1) }, 3);
        let body = vec![malloc(1, 1), create.clone(), join.clone(), write(9)];
        let locals = vec![
            int("p"),
            Local {
                name: "t".into(),
                ty: Ty::ThreadHandle,
                shared: false,
            },
        ];
        let mut f = function(locals.clone(), body.clone());
        let joined = AllocationsAtEnd::from([(1, 2)]);
        let found = remove_unreachable(&mut f, &Bounds::default(), &joined, 0);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::HeapBlocksJoined {
                    origin: 3,
                    allocations: 3
                },
                first_unreached: 9
            }]
        );
        // with one allocation in the thread, or more heap, it is reached
        let mut f = function(locals.clone(), body.clone());
        let found = remove_unreachable(
            &mut f,
            &Bounds::default(),
            &AllocationsAtEnd::from([(1, 1)]),
            0,
        );
        assert_eq!((found.cuts, found.allocations_at_end), (vec![], 2));
        let mut f = function(locals.clone(), body.clone());
        let more = Bounds {
            nmalloc: 3,
            ..Bounds::default()
        };
        assert_eq!(remove_unreachable(&mut f, &more, &joined, 0).cuts, vec![]);
        // a handle written between creation and join names another thread
        let overwritten = st(StmtKind::Assign(Place::Local(1), Expr::Const(0)), 4);
        let mut f = function(
            locals,
            vec![malloc(1, 1), create, overwritten, join, write(9)],
        );
        assert_eq!(
            remove_unreachable(&mut f, &Bounds::default(), &joined, 0).cuts,
            vec![]
        );
    }

    #[test]
    fn a_thread_starts_with_the_allocations_its_creators_made() {
        // malloc; create function 1; malloc: the creation has seen the
        // start count and one allocation, the end both allocations
        let create = st(
            StmtKind::ThreadCreate {
                handle: Place::Local(1),
                function: 1,
                argument: Expr::Const(0),
            },
            2,
        );
        let locals = vec![
            int("p"),
            Local {
                name: "t".into(),
                ty: Ty::ThreadHandle,
                shared: false,
            },
        ];
        let body = vec![malloc(1, 1), create, malloc(1, 3), write(9)];
        let mut f = function(locals.clone(), body.clone());
        let more = Bounds {
            nmalloc: 4,
            ..Bounds::default()
        };
        let found = remove_unreachable(&mut f, &more, &AllocationsAtEnd::new(), 1);
        assert_eq!(
            found.allocations_at_creation,
            BTreeMap::from([(1, 2)]),
            "the start count and the first allocation"
        );
        assert_eq!(
            found.allocations_at_end, 2,
            "its own allocations only: a join adds them to the joiner's"
        );
        assert_eq!(found.cuts, vec![]);
        // started after one allocation, the second of its own is the third
        let mut f = function(locals.clone(), body.clone());
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 1);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::HeapBlocks(3),
                first_unreached: 9
            }]
        );
        // a label that a jump back reaches still knows the start count
        let body = vec![
            st(StmtKind::Label(5, "again".into()), 1),
            malloc(1, 2),
            malloc(1, 3),
            write(9),
            maybe(vec![goto(5, 4)], 4),
        ];
        let mut f = function(vec![int("p")], body);
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 1);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::HeapBlocks(3),
                first_unreached: 9
            }]
        );
    }

    #[test]
    fn an_allocation_larger_than_a_given_heap_block_cuts_what_follows() {
        let body = vec![malloc(9, 1), write(9)];
        let mut f = function(vec![int("p")], body.clone());
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(
            found,
            Reachability {
                allocations_at_end: 1,
                ..Reachability::default()
            },
            "no --heap-block: it fits"
        );
        let small = Bounds {
            heap_block: Some(8),
            ..Bounds::default()
        };
        let found = remove_unreachable(&mut f, &small, &AllocationsAtEnd::new(), 0);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::HeapBlockSize {
                    origin: 1,
                    scalars: 9
                },
                first_unreached: 9
            }]
        );
    }

    #[test]
    fn a_function_that_returns_before_the_cut_ends() {
        // if (nondet) return; counted loop that cuts
        let mut body = vec![st(
            StmtKind::If {
                condition: Expr::Nondet(Ty::INT),
                then_branch: vec![st(StmtKind::Return(None), 4)],
                else_branch: vec![],
            },
            3,
        )];
        body.extend(counted_loop(128, 7));
        let mut f = function(vec![int("i")], body);
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(found.end_cut_by, None);
        assert_eq!(found.cuts, vec![], "nothing that matters follows the loop");
    }

    #[test]
    fn a_label_after_the_cut_is_reachable_by_a_jump() {
        let mut body = vec![maybe(vec![goto(3, 6)], 6)];
        body.extend(counted_loop(128, 7));
        body.push(write(9));
        body.push(st(StmtKind::Label(3, "loop_exit".into()), 7));
        body.push(write(10));
        let mut f = function(vec![int("i")], body);
        let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
        assert_eq!(
            found.cuts,
            vec![BoundCut {
                cut: Cut::LoopBound(7),
                first_unreached: 9
            }]
        );
        assert_eq!(found.end_cut_by, None, "a jump reaches the end");
        let kinds: Vec<_> = f.body.iter().skip(3).map(|s| s.origin).collect();
        assert_eq!(kinds, vec![7, 10], "the label and what follows it stay");
    }

    #[test]
    fn an_unknown_counter_or_a_value_out_of_range_cuts_nothing() {
        // the counter is read from shared memory
        let mut body = counted_loop(128, 7);
        body.insert(
            1,
            st(
                StmtKind::Read {
                    target: Place::Local(0),
                    address: Expr::Const(1),
                },
                1,
            ),
        );
        body.push(write(9));
        let mut f = function(vec![int("i")], body.clone());
        assert_eq!(
            remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
            Reachability::default()
        );
        assert_eq!(f.body, body);
        // an unsigned counter that starts at 0 - 1 wraps: not modelled
        let mut body = counted_loop(128, 7);
        body[0] = st(
            StmtKind::Assign(
                Place::Local(0),
                bin(BinaryOp::Sub, Expr::Const(0), Expr::Const(1)),
            ),
            1,
        );
        body.push(write(9));
        let mut f = function(
            vec![Local {
                name: "u".into(),
                ty: Ty::Int {
                    bits: 32,
                    signed: false,
                },
                shared: false,
            }],
            body,
        );
        assert_eq!(
            remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
            Reachability::default()
        );
    }

    /// `n = nondet; <learning>; counted loop to n; write`, with `i` and an
    /// `n` of type `n_type`.
    fn loop_to_an_assumed_bound(learning: Vec<Stmt>, n_type: Ty) -> (Reachability, Function) {
        let mut body = vec![st(
            StmtKind::Assign(Place::Local(1), Expr::Nondet(n_type.clone())),
            1,
        )];
        body.extend(learning);
        body.extend(counted_loop_to(load(1), 7));
        body.push(write(9));
        let mut f = function(
            vec![
                int("i"),
                Local {
                    name: "n".into(),
                    ty: n_type,
                    shared: false,
                },
            ],
            body,
        );
        (
            remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
            f,
        )
    }

    #[test]
    fn a_loop_to_a_bound_assumed_past_the_unwinding_cuts_what_follows() {
        let n_at_least =
            |op: BinaryOp, k: i64| st(StmtKind::Assume(bin(op, load(1), Expr::Const(k))), 3);
        let cut = vec![BoundCut {
            cut: Cut::LoopBound(7),
            first_unreached: 9,
        }];
        // assume(n >= 5 && n <= 10), assume(n > 2), assume(3 <= n)
        let both = st(
            StmtKind::Assume(bin(
                BinaryOp::LogicalAnd,
                bin(BinaryOp::Ge, load(1), Expr::Const(5)),
                bin(BinaryOp::Le, load(1), Expr::Const(10)),
            )),
            3,
        );
        let mirrored = st(
            StmtKind::Assume(bin(BinaryOp::Le, Expr::Const(3), load(1))),
            3,
        );
        for learning in [
            vec![both],
            vec![n_at_least(BinaryOp::Gt, 2)],
            vec![mirrored],
        ] {
            assert_eq!(
                loop_to_an_assumed_bound(learning.clone(), Ty::INT).0.cuts,
                cut,
                "{learning:?}"
            );
        }
        // the else branch of `if (n < 3) return`
        let early_return = st(
            StmtKind::If {
                condition: bin(BinaryOp::Lt, load(1), Expr::Const(3)),
                then_branch: vec![st(StmtKind::Return(None), 4)],
                else_branch: vec![],
            },
            3,
        );
        assert_eq!(
            loop_to_an_assumed_bound(vec![early_return], Ty::INT).0.cuts,
            cut
        );
        // an unsigned n: any comparison gives its least value
        let unsigned = Ty::Int {
            bits: 32,
            signed: false,
        };
        let against_unsigned = st(
            StmtKind::Assume(bin(
                BinaryOp::Ge,
                load(1),
                Expr::Cast(unsigned.clone(), Box::new(Expr::Const(5))),
            )),
            3,
        );
        assert_eq!(
            loop_to_an_assumed_bound(vec![against_unsigned.clone()], unsigned)
                .0
                .cuts,
            cut
        );
    }

    #[test]
    fn a_bound_that_lets_a_path_through_or_a_wrapping_comparison_cuts_nothing() {
        let assume = |condition: Expr| st(StmtKind::Assume(condition), 3);
        let unsigned = Ty::Int {
            bits: 32,
            signed: false,
        };
        let cases = [
            // n >= 2 lets n == 2 leave the loop within 2 iterations
            (
                vec![assume(bin(BinaryOp::Ge, load(1), Expr::Const(2)))],
                Ty::INT,
            ),
            // a signed n compared as unsigned: -1 passes `n >= 5u`
            (
                vec![assume(bin(
                    BinaryOp::Ge,
                    load(1),
                    Expr::Cast(unsigned, Box::new(Expr::Const(5))),
                ))],
                Ty::INT,
            ),
            // n >= 5 || n == 0
            (
                vec![assume(bin(
                    BinaryOp::LogicalOr,
                    bin(BinaryOp::Ge, load(1), Expr::Const(5)),
                    bin(BinaryOp::Eq, load(1), Expr::Const(0)),
                ))],
                Ty::INT,
            ),
            // n is read again after the assumption
            (
                vec![
                    assume(bin(BinaryOp::Ge, load(1), Expr::Const(5))),
                    st(
                        StmtKind::Read {
                            target: Place::Local(1),
                            address: Expr::Const(1),
                        },
                        4,
                    ),
                ],
                Ty::INT,
            ),
        ];
        for (learning, n_type) in cases {
            let (found, f) = loop_to_an_assumed_bound(learning.clone(), n_type);
            assert_eq!(found, Reachability::default(), "{learning:?}");
            assert!(
                f.body.iter().any(|s| s.origin == 9),
                "the write stays: {learning:?}"
            );
        }
    }

    #[test]
    fn a_failing_user_assumption_removes_code_without_a_warning() {
        let mut body = vec![st(StmtKind::Assume(Expr::Const(0)), 1)];
        body.push(write(9));
        let mut f = function(vec![], body);
        assert_eq!(
            remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
            Reachability::default(),
            "an assumption is no loop bound"
        );
        assert_eq!(f.body.len(), 1);
    }

    #[test]
    fn a_cut_in_one_branch_keeps_the_code_the_other_reaches() {
        // if (nondet) { counted loop that cuts } ; write
        let branch = counted_loop(128, 7);
        let body = vec![
            st(
                StmtKind::If {
                    condition: Expr::Nondet(Ty::INT),
                    then_branch: branch,
                    else_branch: vec![],
                },
                5,
            ),
            write(9),
        ];
        let mut f = function(vec![int("i")], body);
        assert_eq!(
            remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
            Reachability::default()
        );
        assert_eq!(f.body.len(), 2);
    }

    /// Random pure expressions over constants and two known locals.
    fn expressions() -> impl proptest::strategy::Strategy<Value = Expr> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            (0i64..300).prop_map(Expr::Const),
            (0usize..2).prop_map(load)
        ];
        leaf.prop_recursive(4, 32, 3, |inner| {
            let binary_ops = prop::sample::select(vec![
                BinaryOp::Add,
                BinaryOp::Sub,
                BinaryOp::Mul,
                BinaryOp::Div,
                BinaryOp::Rem,
                BinaryOp::Shl,
                BinaryOp::Shr,
                BinaryOp::BitAnd,
                BinaryOp::BitOr,
                BinaryOp::BitXor,
                BinaryOp::LogicalAnd,
                BinaryOp::LogicalOr,
                BinaryOp::Eq,
                BinaryOp::Ne,
                BinaryOp::Lt,
                BinaryOp::Le,
                BinaryOp::Gt,
                BinaryOp::Ge,
            ]);
            let unary_ops = prop::sample::select(vec![UnaryOp::Not, UnaryOp::Neg, UnaryOp::BitNot]);
            let casts = prop::sample::select(vec![
                Ty::Bool,
                Ty::Int {
                    bits: 8,
                    signed: true,
                },
                Ty::Int {
                    bits: 8,
                    signed: false,
                },
                Ty::Int {
                    bits: 16,
                    signed: true,
                },
                Ty::INT,
                Ty::Int {
                    bits: 32,
                    signed: false,
                },
            ]);
            prop_oneof![
                (binary_ops, inner.clone(), inner.clone()).prop_map(|(op, l, r)| bin(op, l, r)),
                (unary_ops, inner.clone()).prop_map(|(op, e)| Expr::Unary(op, Box::new(e))),
                (casts, inner.clone()).prop_map(|(ty, e)| Expr::Cast(ty, Box::new(e))),
                (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| Expr::Conditional(
                    Box::new(c),
                    Box::new(a),
                    Box::new(b)
                )),
            ]
        })
    }

    /// C's value of `expr` when every integer in it is of type `int`
    /// (`signed`) or `unsigned int`, as 64 bits; `None` where C leaves the
    /// result undefined (division by 0, signed overflow, shifts too wide).
    fn c_value(expr: &Expr, locals: &[i64], signed: bool) -> Option<i64> {
        let wrap = |v: i64| -> Option<i64> {
            if signed {
                i32::try_from(v).ok().map(i64::from)
            } else {
                Some(i64::from(v as u32))
            }
        };
        Some(match expr {
            Expr::Const(c) => wrap(*c)?,
            Expr::Load(Place::Local(l)) => wrap(locals[*l])?,
            Expr::Unary(op, e) => {
                let v = c_value(e, locals, signed)?;
                match op {
                    UnaryOp::Not => i64::from(v == 0),
                    UnaryOp::Neg => wrap(-v)?,
                    UnaryOp::BitNot => wrap(!v)?,
                }
            }
            Expr::Binary(op, l, r) => {
                let (l, r) = (c_value(l, locals, signed), c_value(r, locals, signed));
                match op {
                    BinaryOp::LogicalAnd if l == Some(0) || r == Some(0) => return Some(0),
                    BinaryOp::LogicalOr
                        if l.is_some_and(|v| v != 0) || r.is_some_and(|v| v != 0) =>
                    {
                        return Some(1);
                    }
                    _ => {}
                }
                let (l, r) = (l?, r?);
                match op {
                    BinaryOp::Add => wrap(l + r)?,
                    BinaryOp::Sub => wrap(l - r)?,
                    BinaryOp::Mul => wrap(l.checked_mul(r)?)?,
                    BinaryOp::Div | BinaryOp::Rem if r == 0 => return None,
                    BinaryOp::Div => wrap(l / r)?,
                    BinaryOp::Rem => wrap(l % r)?,
                    BinaryOp::Shl | BinaryOp::Shr if !(0..32).contains(&r) || (signed && l < 0) => {
                        return None;
                    }
                    BinaryOp::Shl => wrap(l << r)?,
                    BinaryOp::Shr => wrap(l >> r)?,
                    BinaryOp::BitAnd => wrap(l & r)?,
                    BinaryOp::BitOr => wrap(l | r)?,
                    BinaryOp::BitXor => wrap(l ^ r)?,
                    BinaryOp::LogicalAnd => i64::from(l != 0 && r != 0),
                    BinaryOp::LogicalOr => i64::from(l != 0 || r != 0),
                    BinaryOp::Eq => i64::from(l == r),
                    BinaryOp::Ne => i64::from(l != r),
                    BinaryOp::Lt => i64::from(l < r),
                    BinaryOp::Le => i64::from(l <= r),
                    BinaryOp::Gt => i64::from(l > r),
                    BinaryOp::Ge => i64::from(l >= r),
                }
            }
            Expr::Conditional(c, a, b) => {
                if c_value(c, locals, signed)? != 0 {
                    c_value(a, locals, signed)?
                } else {
                    c_value(b, locals, signed)?
                }
            }
            Expr::Cast(ty, e) => {
                let v = c_value(e, locals, signed)?;
                let converted = match ty {
                    Ty::Bool => i64::from(v != 0),
                    Ty::Int {
                        bits,
                        signed: to_signed,
                    } => crate::ir::truncate(v, *bits, *to_signed),
                    _ => return None,
                };
                // back to the expression's type, as the usual conversions do
                wrap(converted)?
            }
            _ => return None,
        })
    }

    proptest::proptest! {
        #[test]
        fn a_propagated_value_is_cs_value_in_int_and_in_unsigned(expr in expressions(), a in 0i64..300, b in 0i64..300) {
            let constants = HashMap::from([(0, a), (1, b)]);
            if let Some(v) = value(&expr, &constants) {
                proptest::prop_assert_eq!(c_value(&expr, &[a, b], true), Some(v), "as int: {:?}", expr);
                proptest::prop_assert_eq!(c_value(&expr, &[a, b], false), Some(v), "as unsigned: {:?}", expr);
            }
        }
    }
}
