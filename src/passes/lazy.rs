//! The Lazy-CSeq scheme: numbers each thread copy's visible statements,
//! guards each with a jump past it when it ran in an earlier round or lies
//! beyond the guessed context switch, forbids switch points inside skipped
//! branches, and turns shared accesses into SMA calls.

use super::instantiate::{Instances, ThreadInstance};
use super::value_types::ValueTypes;
use super::walk::LabelGen;
use super::{RmwCode, SeqStmt, SeqThread, SequentialProgram, TranslationMap, diagnostic_at};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Expr, FenceKind, LabelId, OriginId, PER_THREAD_VALUE, Place, PlainGlobal, Program,
    PropertyKind, RmwOp, Stmt, StmtKind, StructDef, Ty, per_thread_array,
};
use crate::options::TranslateOptions;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Largest array whose elements get nondeterministic initial values one by one.
const MAX_NONDET_ELEMENTS: u64 = 256;

/// Sequentialises the instantiated threads.
pub fn sequentialise_threads(
    program: &Program,
    mut instances: Instances,
    options: &TranslateOptions,
    labels: &mut LabelGen,
) -> Result<SequentialProgram, Box<Diagnostic>> {
    for thread in &mut instances.threads {
        name_current_thread(thread);
    }
    let slots = instances.slots();
    let mut plain_globals = program.plain_globals.clone();
    let thread_arg = plain_globals.len();
    plain_globals.push(PlainGlobal {
        name: "thread_arg".into(),
        ty: per_thread_array(instances.threads.len() as u64),
    });
    for &(id, _) in &program.per_thread {
        if let Ty::Array(element, _) = &plain_globals[id].ty {
            plain_globals[id].ty = Ty::Array(element.clone(), instances.threads.len() as u64);
        }
    }
    let takes_argument = instances
        .threads
        .iter()
        .filter(|t| t.slot > 0 && mentions_parameter(t))
        .map(|t| t.slot)
        .collect();
    let context = Context {
        program,
        options,
        thread_arg,
        takes_argument,
    };
    let threads = instances
        .threads
        .iter()
        .map(|t| sequentialise_thread(&context, t, labels))
        .collect::<Result<Vec<_>, _>>()?;
    let thread_names = slots
        .iter()
        .enumerate()
        .map(|(slot, thread)| thread.name(slot))
        .collect();
    Ok(SequentialProgram {
        map: TranslationMap {
            threads: slots,
            locations: instances.locations,
            value_types: ValueTypes {
                thread_names,
                ..instances.value_types
            },
            origins: program.origins.clone(),
            properties: Default::default(),
            await_loops: instances.await_loops,
        },
        threads,
        plain_globals,
        structs: program.structs.clone(),
        thread_arg,
        per_thread: program.per_thread.iter().map(|&(id, _)| id).collect(),
        memory: instances.memory,
        points_to: None,
        rounds: options.bounds.rounds,
        warnings: instances.warnings,
        sufficient: None,
        store_buffers: None,
    })
}

struct Context<'a> {
    program: &'a Program,
    options: &'a TranslateOptions,
    thread_arg: usize,
    /// Slots whose start function uses its parameter.
    takes_argument: HashSet<usize>,
}

/// Replaces `pthread_self()` in the thread copy's body by its slot.
fn name_current_thread(thread: &mut ThreadInstance) {
    let slot = Expr::Const(thread.slot as i64);
    super::walk::for_each_stmt_mut(&mut thread.body, &mut |kind| {
        super::walk::visit_operands(
            kind,
            &mut |expr| {
                if *expr == Expr::CurrentThread {
                    *expr = slot.clone();
                }
            },
            &mut |_| {},
        )
    });
}

/// Whether the thread copy's body mentions its first parameter.
fn mentions_parameter(thread: &ThreadInstance) -> bool {
    let Some(&param) = thread.params.first() else {
        return false;
    };
    let mut body = thread.body.clone();
    let mut found = false;
    super::walk::for_each_stmt_mut(&mut body, &mut |kind| {
        super::walk::visit_operands(kind, &mut |_| {}, &mut |p| {
            found |= matches!(p, Place::Local(l) if *l == param)
        })
    });
    found
}

/// Walks one thread copy in textual order.
struct Sequentialiser<'a> {
    context: &'a Context<'a>,
    /// The thread copy's slot.
    slot: usize,
    /// Number of the next visible statement.
    next: u32,
    /// How many `__VERIFIER_atomic_begin`s are open here: every path to a
    /// statement has the same depth (checked), so a visible statement is
    /// inside a section or outside on all of them.
    atomic_depth: u32,
    /// Whether control can reach the statement being walked by falling
    /// through from the one before (not after a `goto` or `return`).
    falls_through: bool,
    /// The atomic depth at the gotos to each label seen so far.
    depth_at_jumps: HashMap<LabelId, u32>,
    created: std::vec::IntoIter<usize>,
    end: LabelId,
    defined: HashSet<LabelId>,
    label_names: BTreeMap<LabelId, String>,
    /// Gotos seen, with their origin, to check they jump forward to a label.
    jumps: Vec<(LabelId, OriginId)>,
    /// [`SeqThread::assertions`] so far.
    assertions: BTreeMap<String, (PropertyKind, OriginId)>,
}

/// Sequentialises one thread copy.
pub fn sequentialise_thread_for_test(
    program: &Program,
    options: &TranslateOptions,
    thread: &ThreadInstance,
    labels: &mut LabelGen,
) -> Result<SeqThread, Box<Diagnostic>> {
    let context = Context {
        program,
        options,
        thread_arg: program.plain_globals.len(),
        takes_argument: HashSet::from([thread.slot]),
    };
    sequentialise_thread(&context, thread, labels)
}

fn sequentialise_thread(
    context: &Context,
    thread: &ThreadInstance,
    labels: &mut LabelGen,
) -> Result<SeqThread, Box<Diagnostic>> {
    let mut s = Sequentialiser {
        context,
        slot: thread.slot,
        next: 1,
        atomic_depth: 0,
        falls_through: true,
        depth_at_jumps: HashMap::new(),
        created: thread.created.clone().into_iter(),
        end: labels.fresh(),
        defined: HashSet::new(),
        label_names: BTreeMap::new(),
        jumps: Vec::new(),
        assertions: BTreeMap::new(),
    };
    let mut body = vec![SeqStmt::Guard(0)];
    // The thread's copies of the thread-local variables start at their
    // initial values (0 needs nothing: the arrays are static).
    for &(id, initial) in context
        .program
        .per_thread
        .iter()
        .filter(|(_, initial)| *initial != 0)
    {
        body.push(SeqStmt::Assign(
            Place::plain_element(id, Expr::Const(thread.slot as i64)),
            Expr::Const(initial),
        ));
    }
    if thread.slot > 0
        && context.takes_argument.contains(&thread.slot)
        && let Some(&param) = thread.params.first()
    {
        let argument = Expr::Load(Place::plain_element(
            context.thread_arg,
            Expr::Const(thread.slot as i64),
        ));
        let ty = thread
            .locals
            .get(param)
            .map(|l| l.ty.clone())
            .unwrap_or(Ty::INT);
        let value = Expr::Cast(ty, Box::new(argument));
        if thread.locals.get(param).is_some_and(|l| l.shared) {
            return Err(diagnostic_at(
                context.program,
                thread.origin,
                "the address of a thread function's parameter is taken".into(),
                "this thread function".into(),
                Some(
                    "copy the parameter into a local variable and take the address of that".into(),
                ),
            ));
        }
        body.push(SeqStmt::Assign(Place::Local(param), value));
    }
    // A final `return` falls through to the end anyway (keeping its value).
    match thread.body.split_last() {
        Some((last, rest))
            if matches!(last.kind, StmtKind::Return(_) | StmtKind::ThreadExit(_)) =>
        {
            s.block(rest, &mut body)?;
            s.note_result(&last.kind, &mut body);
        }
        _ => s.block(&thread.body, &mut body)?,
    }
    s.end_atomic_section(thread.origin, &mut body);
    s.check_jumps()?;
    if s.jumps.iter().any(|(label, _)| *label == s.end) {
        body.push(SeqStmt::Label(s.end));
        s.label_names.insert(s.end, "thread_end".into());
    }
    s.join(&mut body);
    // The thread has ended when its context passes this last guard
    // (pc == lines); its stores drain when it is joined (SeqStmt::Join).
    body.push(SeqStmt::Guard(s.next));
    // Nondeterministic initial values, only where a path may read one.
    let early = super::definite::read_before_assigned(&body);
    let mut initial = Vec::new();
    for (id, local) in thread.locals.iter().enumerate() {
        let is_argument = thread.slot > 0 && thread.params.first() == Some(&id);
        let scalar = !matches!(local.ty, Ty::Array(..) | Ty::Struct(_));
        if !local.shared && !is_argument && (!scalar || early.contains(&id)) {
            nondet_init(
                Place::Local(id),
                &local.ty,
                &context.program.structs,
                &mut initial,
            );
        }
    }
    body.splice(1..1, initial);
    Ok(SeqThread {
        slot: thread.slot,
        function: thread.name.clone(),
        instance: thread.instance,
        locals: thread.locals.clone(),
        body,
        lines: s.next + 1,
        label_names: s.label_names,
        assertions: s.assertions,
    })
}

/// `place = nondet` for every scalar of `place`.
fn nondet_init(place: Place, ty: &Ty, structs: &[StructDef], out: &mut Vec<SeqStmt>) {
    match ty {
        Ty::Void => {}
        Ty::Array(element, n) => {
            if *n <= MAX_NONDET_ELEMENTS {
                for i in 0..*n {
                    let p = Place::Index(Box::new(place.clone()), Box::new(Expr::Const(i as i64)));
                    nondet_init(p, element, structs, out);
                }
            }
        }
        Ty::Struct(id) => {
            if let Some(s) = structs.get(*id) {
                for (field, t) in &s.fields {
                    nondet_init(
                        Place::Field(Box::new(place.clone()), field.clone()),
                        t,
                        structs,
                        out,
                    );
                }
            }
        }
        scalar => out.push(SeqStmt::Assign(place, Expr::Nondet(scalar.clone()))),
    }
}

impl Sequentialiser<'_> {
    /// A guard before a visible statement (none inside an atomic section).
    fn visible(&mut self, out: &mut Vec<SeqStmt>) {
        if self.atomic_depth == 0 {
            out.push(SeqStmt::Guard(self.next));
            self.next += 1;
        }
    }

    /// Where the path that ended at `other` (its atomic depth, and whether
    /// it arrives) meets the one being walked: the depth of the paths that
    /// arrive, which must agree (a section that ends on some paths only
    /// cannot be told apart statically, and is refused).
    fn meet(&mut self, other: (u32, bool), origin: OriginId) -> Result<(), Box<Diagnostic>> {
        match (self.falls_through, other) {
            (true, (depth, true)) if depth != self.atomic_depth => {
                Err(self.sections_disagree(origin))
            }
            (false, (depth, arrives)) => {
                (self.atomic_depth, self.falls_through) = (depth, arrives);
                Ok(())
            }
            (true, _) => Ok(()),
        }
    }

    /// A `goto label` at `origin`: its path's depth, which the other gotos
    /// to `label` must share; what follows it is not reached by falling
    /// through.
    fn jump_depth(&mut self, label: LabelId, origin: OriginId) -> Result<(), Box<Diagnostic>> {
        if self.falls_through {
            let earlier = *self
                .depth_at_jumps
                .entry(label)
                .or_insert(self.atomic_depth);
            if earlier != self.atomic_depth {
                return Err(self.sections_disagree(origin));
            }
        }
        self.falls_through = false;
        Ok(())
    }

    fn sections_disagree(&self, origin: OriginId) -> Box<Diagnostic> {
        diagnostic_at(
            self.context.program,
            origin,
            "an atomic section that is open on some paths to here and closed on others".into(),
            "paths with different `__VERIFIER_atomic_begin`/`_end` meet here".into(),
            Some(
                "end each `__VERIFIER_atomic_begin` section on every path before the paths meet"
                    .into(),
            ),
        )
    }

    /// A thread that ends inside an atomic section (a `return` between
    /// `__VERIFIER_atomic_begin` and `_end`) ends the section too.
    fn end_atomic_section(&mut self, origin: OriginId, out: &mut Vec<SeqStmt>) {
        if self.atomic_depth > 0 && self.falls_through {
            self.atomic_depth = 0;
            out.push(SeqStmt::AtomicEnd { stmt: origin });
        }
    }

    /// Control may arrive here other than by falling through.
    fn join(&self, out: &mut Vec<SeqStmt>) {
        if self.atomic_depth == 0 && out.last() != Some(&SeqStmt::ResumeCheck(self.next)) {
            out.push(SeqStmt::ResumeCheck(self.next));
        }
    }

    fn unsupported(&self, origin: OriginId, message: &str, label: &str) -> Box<Diagnostic> {
        diagnostic_at(
            self.context.program,
            origin,
            message.into(),
            label.into(),
            None,
        )
    }

    /// A thread's `return value` or `pthread_exit(value)`: keeps the value
    /// for `pthread_join`, where the program collects one.
    fn note_result(&self, kind: &StmtKind, out: &mut Vec<SeqStmt>) {
        let (StmtKind::Return(Some(value)) | StmtKind::ThreadExit(Some(value))) = kind else {
            return;
        };
        let Some(results) = self.context.program.thread_results else {
            return;
        };
        let place = Place::plain_element(results, Expr::Const(self.slot as i64));
        out.push(SeqStmt::Assign(
            place,
            Expr::Cast(PER_THREAD_VALUE, Box::new(value.clone())),
        ));
    }

    fn block(&mut self, block: &[Stmt], out: &mut Vec<SeqStmt>) -> Result<(), Box<Diagnostic>> {
        for stmt in block {
            self.stmt(&stmt.kind, stmt.origin, out)?;
        }
        Ok(())
    }

    fn stmt(
        &mut self,
        kind: &StmtKind,
        origin: OriginId,
        out: &mut Vec<SeqStmt>,
    ) -> Result<(), Box<Diagnostic>> {
        match kind {
            StmtKind::Assign(place, value) => {
                out.push(SeqStmt::Assign(place.clone(), value.clone()))
            }
            StmtKind::Read { target, address } => {
                self.visible(out);
                out.push(SeqStmt::Read {
                    target: target.clone(),
                    address: address.clone(),
                    stmt: origin,
                    alone: false,
                    newest: false,
                });
            }
            StmtKind::Write { address, value } => {
                self.visible(out);
                out.push(SeqStmt::Write {
                    address: address.clone(),
                    value: value.clone(),
                    stmt: origin,
                    unobserved: false,
                });
            }
            StmtKind::Rmw {
                target,
                address,
                op,
            } => {
                self.visible(out);
                let (op, operand, expected) = rmw_operands(op);
                out.push(SeqStmt::Rmw {
                    target: target.clone(),
                    address: address.clone(),
                    op,
                    operand,
                    expected,
                    stmt: origin,
                });
            }
            StmtKind::Fence(kind) => {
                self.visible(out);
                out.push(SeqStmt::Fence {
                    kind: *kind,
                    stmt: origin,
                });
            }
            StmtKind::MutexLock(address) => {
                self.visible(out);
                out.push(SeqStmt::Lock {
                    address: address.clone(),
                    stmt: origin,
                });
            }
            StmtKind::MutexUnlock(address) => {
                self.visible(out);
                out.push(SeqStmt::Unlock {
                    address: address.clone(),
                    stmt: origin,
                });
            }
            StmtKind::MutexTryLock { target, mutex } => {
                self.visible(out);
                out.push(SeqStmt::TryLock {
                    target: target.clone(),
                    address: mutex.clone(),
                    stmt: origin,
                });
            }
            StmtKind::Malloc {
                target,
                size,
                zeroed,
            } => out.push(SeqStmt::Malloc {
                target: target.clone(),
                size: size.clone(),
                zeroed: *zeroed,
                stmt: origin,
            }),
            StmtKind::Free(address) => out.push(SeqStmt::Free {
                address: address.clone(),
                stmt: origin,
            }),
            StmtKind::Assert {
                kind: PropertyKind::ProgramEnd,
                ..
            } => out.push(SeqStmt::Assert {
                condition: Expr::Const(1),
                description: super::properties::REACH_END_OF_MAIN.to_string(),
            }),
            StmtKind::Assert { condition, kind } => {
                let condition = match kind {
                    PropertyKind::Assertion
                    | PropertyKind::UnwindingAssertion
                    | PropertyKind::DivisionByZero
                    | PropertyKind::InvalidFunctionPointer
                    | PropertyKind::ProgramEnd => condition.clone(),
                    PropertyKind::ErrorCall => Expr::Const(0),
                };
                let description = self.describe(origin, *kind);
                self.assertions
                    .entry(description.clone())
                    .or_insert((*kind, origin));
                out.push(SeqStmt::Assert {
                    condition,
                    description,
                });
            }
            StmtKind::Assume(condition) | StmtKind::LoopBound(condition) => {
                if *condition == Expr::Const(0) {
                    self.falls_through = false;
                }
                out.push(match kind {
                    StmtKind::LoopBound(_) => SeqStmt::LoopBound {
                        condition: condition.clone(),
                        stmt: origin,
                    },
                    _ => SeqStmt::Assume(condition.clone()),
                })
            }
            StmtKind::Await {
                condition,
                restart,
                waits_for,
            } => out.push(SeqStmt::Await {
                condition: condition.clone(),
                restart: *restart,
                waits_for: *waits_for,
                stmt: origin,
            }),
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                // both branches start at the depth here; where they meet,
                // those that arrive must agree
                let (depth, falls_through) = (self.atomic_depth, self.falls_through);
                let mut then_out = Vec::new();
                self.block(then_branch, &mut then_out)?;
                let then_end = (self.atomic_depth, self.falls_through);
                (self.atomic_depth, self.falls_through) = (depth, falls_through);
                let then_visible = contains_guard(&then_out);
                hoist_opening_guard(&mut then_out, out);
                let then_switches = contains_guard(&then_out);
                let mut else_out = Vec::new();
                if !else_branch.is_empty() {
                    if then_switches {
                        self.join(&mut else_out);
                    }
                    self.block(else_branch, &mut else_out)?;
                }
                if !then_visible {
                    hoist_opening_guard(&mut else_out, out);
                }
                self.meet(then_end, origin)?;
                let switches = then_switches || contains_guard(&else_out);
                out.push(SeqStmt::If {
                    condition: condition.clone(),
                    then_branch: then_out,
                    else_branch: else_out,
                });
                if switches {
                    self.join(out);
                }
            }
            StmtKind::Goto(label) => {
                if self.defined.contains(label) {
                    return Err(diagnostic_at(
                        self.context.program,
                        origin,
                        "backward `goto` (a loop built from `goto`) is not supported".into(),
                        "jumps backward".into(),
                        Some(
                            "write the loop with `while` or `for` so that it can be unrolled"
                                .into(),
                        ),
                    ));
                }
                self.jumps.push((*label, origin));
                self.jump_depth(*label, origin)?;
                out.push(SeqStmt::Goto(*label));
            }
            StmtKind::Label(label, name) => {
                self.label_names.insert(*label, name.clone());
                if !self.defined.insert(*label) {
                    return Err(self.unsupported(origin, "label defined twice", "duplicate label"));
                }
                if let Some(&depth) = self.depth_at_jumps.get(label) {
                    self.meet((depth, true), origin)?;
                }
                self.falls_through = true;
                out.push(SeqStmt::Label(*label));
                self.join(out);
            }
            StmtKind::Return(_) | StmtKind::ThreadExit(_) => {
                self.note_result(kind, out);
                self.end_atomic_section(origin, out);
                self.jumps.push((self.end, origin));
                self.falls_through = false;
                out.push(SeqStmt::Goto(self.end));
            }
            StmtKind::ThreadCreate {
                handle, argument, ..
            } => {
                self.visible(out);
                let Some(slot) = self.created.next() else {
                    return Err(self.unsupported(
                        origin,
                        "internal error: thread creation without a slot",
                        "here",
                    ));
                };
                out.push(SeqStmt::Create { slot, stmt: origin });
                if self.context.takes_argument.contains(&slot) {
                    let arg_place =
                        Place::plain_element(self.context.thread_arg, Expr::Const(slot as i64));
                    out.push(SeqStmt::Assign(arg_place, argument.clone()));
                }
                out.push(SeqStmt::Assign(handle.clone(), Expr::Const(slot as i64)));
            }
            StmtKind::ThreadJoin { handle } => {
                self.visible(out);
                out.push(SeqStmt::Join {
                    handle: handle.clone(),
                    stmt: origin,
                });
            }
            StmtKind::AtomicBegin => {
                self.visible(out);
                if self.atomic_depth == 0 {
                    out.push(SeqStmt::AtomicBegin { stmt: origin });
                }
                self.atomic_depth += 1;
                if self.context.options.fence_atomic_sections {
                    out.push(SeqStmt::Fence {
                        kind: FenceKind::Full,
                        stmt: origin,
                    });
                }
            }
            StmtKind::AtomicEnd => {
                if self.context.options.fence_atomic_sections {
                    out.push(SeqStmt::Fence {
                        kind: FenceKind::Full,
                        stmt: origin,
                    });
                }
                self.atomic_depth = self.atomic_depth.saturating_sub(1);
                if self.atomic_depth == 0 {
                    out.push(SeqStmt::AtomicEnd { stmt: origin });
                }
            }
            StmtKind::Loop { .. } => {
                return Err(self.unsupported(
                    origin,
                    "internal error: loop left after unrolling",
                    "this loop",
                ));
            }
            StmtKind::Call { .. } => {
                return Err(self.unsupported(
                    origin,
                    "internal error: call left after inlining",
                    "this call",
                ));
            }
            StmtKind::Break | StmtKind::Continue => {
                return Err(self.unsupported(
                    origin,
                    "`break` or `continue` outside a loop",
                    "here",
                ));
            }
        }
        Ok(())
    }

    /// `file:line: text` of a property (the statement's source text), mapped
    /// back to the source by verify mode. An unwinding assertion's text
    /// opens with `unwinding assertion (--unwind U): `, the marker by which
    /// verify mode tells a bound reached ([`crate::ir::UNWINDING_ASSERTION`]).
    fn describe(&self, origin: OriginId, kind: PropertyKind) -> String {
        let (what, marked) = match kind {
            PropertyKind::Assertion => ("assertion".to_string(), false),
            PropertyKind::ErrorCall => ("error call".to_string(), false),
            PropertyKind::ProgramEnd => ("the end of the program".to_string(), false),
            PropertyKind::DivisionByZero => (crate::ir::DIVISION_BY_ZERO.to_string(), true),
            PropertyKind::InvalidFunctionPointer => {
                (crate::ir::INVALID_FUNCTION_POINTER.to_string(), true)
            }
            PropertyKind::UnwindingAssertion => {
                let unwind =
                    super::loop_depth(self.context.program, &self.context.options.bounds, origin);
                (
                    format!("{} (--unwind {unwind})", crate::ir::UNWINDING_ASSERTION),
                    true,
                )
            }
        };
        match self.context.program.origins.get(origin) {
            Some(o) if !o.text.is_empty() && marked => {
                format!("{}:{}: {what}: {}", o.file, o.line, o.text)
            }
            Some(o) if !o.text.is_empty() => format!("{}:{}: {}", o.file, o.line, o.text),
            Some(o) => format!("{}:{}: {what}", o.file, o.line),
            None => what,
        }
    }

    /// Every goto targets a label defined later in the same thread copy.
    fn check_jumps(&self) -> Result<(), Box<Diagnostic>> {
        let mut order: Vec<(LabelId, OriginId)> = self.jumps.clone();
        order.retain(|(label, _)| *label != self.end);
        for (label, origin) in order {
            if !self.defined.contains(&label) {
                return Err(self.unsupported(
                    origin,
                    "`goto` to a label outside the function",
                    "this jump",
                ));
            }
        }
        Ok(())
    }
}

fn rmw_operands(op: &RmwOp) -> (RmwCode, Expr, Expr) {
    let zero = Expr::Const(0);
    match op {
        RmwOp::Exchange(v) => (RmwCode::Exchange, v.clone(), zero),
        RmwOp::FetchAdd(v) => (RmwCode::Add, v.clone(), zero),
        RmwOp::FetchSub(v) => (RmwCode::Sub, v.clone(), zero),
        RmwOp::FetchAnd(v) => (RmwCode::And, v.clone(), zero),
        RmwOp::FetchOr(v) => (RmwCode::Or, v.clone(), zero),
        RmwOp::FetchXor(v) => (RmwCode::Xor, v.clone(), zero),
        RmwOp::CompareExchange { expected, desired } => {
            (RmwCode::Cas, desired.clone(), expected.clone())
        }
    }
}

/// Moves the guard that opens a branch before its `if` (the else branch's
/// only when the then branch has none, so that guards stay in order). The
/// condition reads private state only, so a context switch just before the
/// test is the same as one just after it; and the guards' jumps then stay
/// at the top level instead of entering the next branch. Jumps into
/// branches made CBMC's path conditions grow exponentially along
/// `a && b && c` or `a || b || c` of shared reads.
fn hoist_opening_guard(branch: &mut Vec<SeqStmt>, before: &mut Vec<SeqStmt>) {
    if let Some(SeqStmt::Guard(_)) = branch.first() {
        before.push(branch.remove(0));
    }
}

/// Whether `body` has a visible statement, so that a path around it skips a
/// context switch point.
fn contains_guard(body: &[SeqStmt]) -> bool {
    body.iter().any(|stmt| match stmt {
        SeqStmt::Guard(_) => true,
        SeqStmt::If {
            then_branch,
            else_branch,
            ..
        } => contains_guard(then_branch) || contains_guard(else_branch),
        _ => false,
    })
}
