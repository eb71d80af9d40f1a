//! One C function per thread copy: its private locals, and each statement
//! with its guard, its SMA calls and the checks of its properties.

use super::driver::{main_prefix, main_suffix};
use super::expr::{self, Declarations, Names};
use super::{
    REACH_BLOCK_SIZE, REACH_BLOCKS_USED, REACH_END_OF_MAIN, REACH_POINTER_CUT, comment_text,
    dispatch,
};
use crate::ir::{Expr, FenceKind, Origin, OriginId};
use crate::options::{SmaImplementation, TranslateOptions};
use crate::passes::properties::{Property, PropertyKind, PropertyTable};
use crate::passes::{SeqStmt, SeqThread, SequentialProgram};
use std::fmt::Write as _;

pub(super) fn print_thread(
    out: &mut String,
    program: &SequentialProgram,
    names: &Names,
    thread: &SeqThread,
    nondet: &mut Declarations,
    options: &TranslateOptions,
    properties: &mut PropertyTable,
) {
    let t = thread.slot;
    let _ = writeln!(
        out,
        "\n/* thread {t}: {}, instance {}; visible statements 0..{} */",
        thread.function,
        thread.instance,
        thread.lines.saturating_sub(1)
    );
    let parameter = if t == 0 {
        "_Bool lazy_later, _Bool lazy_final"
    } else {
        "void"
    };
    let _ = writeln!(
        out,
        "static void {}({parameter})\n{{",
        names.thread_function(thread)
    );
    for (id, local) in thread.locals.iter().enumerate() {
        if !local.shared {
            let _ = writeln!(
                out,
                "  static {};",
                expr::declaration(&local.ty, &names.local(t, id, &local.name), names)
            );
        }
    }
    let mut printer = ThreadPrinter {
        out,
        program,
        names,
        thread,
        nondet,
        main_prefix: if t == 0 { main_prefix(thread) } else { 0 },
        main_suffix: if t == 0 {
            main_suffix(program)
        } else {
            u32::MAX
        },
        sma: options.sma,
        frees: program
            .threads
            .iter()
            .any(|thread| crate::passes::frees(&thread.body)),
        pointer_checks: options.pointer_checks,
        function: names.thread_function(thread),
        properties,
    };
    printer.block(&thread.body, 1);
    let _ = writeln!(printer.out, "t{t}_L{}: ;\n}}", thread.lines);
}

struct ThreadPrinter<'a> {
    out: &'a mut String,
    program: &'a SequentialProgram,
    names: &'a Names,
    thread: &'a SeqThread,
    nondet: &'a mut Declarations,
    /// Main's visible statements `0..main_prefix` run in round 0 only.
    main_prefix: u32,
    /// Main's visible statements from `main_suffix` on run in its final
    /// context only.
    main_suffix: u32,
    /// The SMA: the reference models have `_alone` variants, the
    /// timestamped ones `sma_write_unobserved` and `sma_read_newest`.
    sma: SmaImplementation,
    /// Some thread frees heap memory: an access through a pointer checks
    /// that its block was not freed.
    frees: bool,
    /// An access through a pointer outside every location it may point to
    /// is a violation (`--pointer-check`); otherwise it is cut off.
    pointer_checks: bool,
    /// The name of the C function of this thread copy.
    function: String,
    /// The properties printed so far, this function's among them.
    properties: &'a mut PropertyTable,
}

impl ThreadPrinter<'_> {
    /// `function`, or its variant without memory updates where no other
    /// thread can hold buffered stores (reference SMAs only).
    fn alone_variant(&self, alone: bool, function: &str) -> String {
        if alone && self.sma.is_reference() {
            format!("{function}_alone")
        } else {
            function.to_string()
        }
    }

    fn e(&mut self, e: &crate::ir::Expr) -> String {
        expr::expression(e, self.names, self.thread, self.nondet)
    }

    fn p(&mut self, p: &crate::ir::Place) -> String {
        expr::place(p, self.names, self.thread, self.nondet)
    }

    /// The reachability run's properties of an allocation of run-time
    /// `size` at `stmt` (`verify::reach`): whether an execution gets there
    /// asking for more than a heap block, or with every block used.
    fn reach_allocation(&mut self, indent: usize, size: &Expr, stmt: OriginId) {
        let scalars = self.e(size);
        if scalars.contains("nondet") {
            // printed twice, it would choose twice
            return;
        }
        let _ = writeln!(self.out, "#ifdef LAZYSMA_REACH");
        self.line(
            indent,
            &format!(
                "(__CPROVER_assert)(({scalars}) <= SMA_HEAP_BLOCK_SIZE, \"{REACH_BLOCK_SIZE}{stmt}\");"
            ),
        );
        self.line(
            indent,
            &format!(
                "(__CPROVER_assert)(sma_heap_blocks_used < SMA_HEAP_BLOCKS, \"{REACH_BLOCKS_USED}{stmt}\");"
            ),
        );
        let _ = writeln!(self.out, "#endif");
    }

    fn origin_comment(&self, stmt: OriginId) -> String {
        match self.program.map.origins.get(stmt) {
            Some(Origin { line, text, .. }) => {
                format!("  /* {line}: {} */", comment_text(text))
            }
            None => String::new(),
        }
    }

    /// `t1_name_7`: label 7 of thread 1 (source name when known).
    fn label(&self, label: crate::ir::LabelId) -> String {
        let t = self.thread.slot;
        match self.thread.label_names.get(&label) {
            Some(name) => format!("t{t}_{}_{label}", expr::sanitize(name)),
            None => format!("t{t}_l{label}"),
        }
    }

    /// A shared access `operation(function, location)` at `address`: one
    /// call when the location is constant or its object unknown; at a
    /// computed address into a static object, a check of the object's
    /// bounds, then a dispatch over the object's locations (a small object,
    /// an SMA that needs constant locations) or one call at the address. Where the reference SMAs'
    /// `function` begins with memory updates independent of the location
    /// ([`Self::settling`]), the dispatch runs them once before its
    /// comparisons and each location's branch calls the function without
    /// them: every branch would otherwise carry them whole.
    fn access(
        &mut self,
        indent: usize,
        address: &crate::ir::Expr,
        stmt: OriginId,
        function: &str,
        operation: &dyn Fn(&str, &str) -> String,
    ) {
        let comment = self.origin_comment(stmt);
        let location = self.e(address);
        let text = match self.program.memory.indexed_object(address) {
            Some(object)
                if crate::passes::MemoryLayout::dispatches(object)
                    && !self.sma.accesses_computed_addresses_in_place() =>
            {
                let function = match self.settling(function, stmt) {
                    Some((updates, settled)) => {
                        self.line(indent, &updates);
                        settled
                    }
                    None => function.to_string(),
                };
                let call = |a: &str| operation(&function, a);
                let description = self.violation(stmt, crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS);
                self.note_property(
                    PropertyKind::ArrayIndexOutOfBounds,
                    Some(stmt),
                    &description,
                );
                let description = expr::string_literal(&description);
                let indent = "  ".repeat(indent);
                let body = dispatch::dispatch_text(&location, object, &call, &description, &indent);
                format!("{body}{comment}")
            }
            Some(object) => {
                let call = operation(function, dispatch::ADDRESS_TEMPORARY);
                let description = self.violation(stmt, crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS);
                self.note_property(
                    PropertyKind::ArrayIndexOutOfBounds,
                    Some(stmt),
                    &description,
                );
                let description = expr::string_literal(&description);
                let body = dispatch::checked_text(
                    &location,
                    object,
                    &call,
                    &description,
                    &"  ".repeat(indent),
                );
                format!("{body}{comment}")
            }
            // an address that may be null: a null pointer dereference is a
            // property violation (a dispatched access reports it as out of
            // its object's bounds)
            None if !matches!(address, crate::ir::Expr::Const(_)) => {
                self.violation_if(
                    indent,
                    &format!("({location}) == 0"),
                    stmt,
                    crate::ir::NULL_DEREFERENCE,
                );
                if let Some(valid) = self.valid_access(address, &location) {
                    self.pointer_cut(indent, &valid, stmt);
                }
                if self.frees {
                    self.violation_if(
                        indent,
                        &format!("sma_freed({location})"),
                        stmt,
                        crate::ir::USE_AFTER_FREE,
                    );
                }
                format!("{}{comment}", operation(function, &location))
            }
            // a heap location the translator knows (an allocation's result
            // on a path that knows it) may still have been freed
            None => {
                if self.program.memory.is_heap_location(address) {
                    // past the part of its block that malloc was asked for?
                    self.pointer_cut(indent, &format!("sma_valid_loc({location})"), stmt);
                }
                if self.frees && self.program.memory.is_heap_location(address) {
                    self.violation_if(
                        indent,
                        &format!("sma_freed({location})"),
                        stmt,
                        crate::ir::USE_AFTER_FREE,
                    );
                }
                format!("{}{comment}", operation(function, &location))
            }
        };
        self.line(indent, &text);
    }

    /// The condition under which the access at `address` (printed
    /// `location`) is one the translation models: among the locations its
    /// pointer may point to (the points-to facts the marks rely on) and,
    /// where it may reach the heap or any location, at a valid one
    /// (`sma_valid_loc`: an id of memory, not past the part of a heap block
    /// malloc was asked for). None when every location it can reach is valid.
    fn valid_access(&self, address: &crate::ir::Expr, location: &str) -> Option<String> {
        let memory = &self.program.memory;
        let heap = memory.heap_blocks > 0 && memory.heap_block_size > 0;
        let valid = format!("sma_valid_loc({location})");
        let pointees = self
            .program
            .points_to
            .as_ref()
            .and_then(|facts| facts.locations(self.thread.slot, address));
        let Some(pointees) = pointees else {
            // no facts: the pointer may hold any id
            return Some(valid);
        };
        if pointees.len() as u32 + 1 >= memory.location_count() {
            // every location but null (checked before): only the heap's
            // unrequested parts can be invalid
            return heap.then_some(valid);
        }
        let inside: Vec<String> = runs(&pointees)
            .into_iter()
            .map(|(first, last)| match first == last {
                true => format!("({location}) == {first}"),
                false => format!("(({location}) >= {first} && ({location}) <= {last})"),
            })
            .collect();
        if inside.is_empty() {
            return Some(NO_LOCATION.to_string());
        }
        let inside = inside.join(" || ");
        Some(
            match heap && pointees.iter().any(|&l| l >= memory.heap_base) {
                true => format!("({inside}) && {valid}"),
                false => inside,
            },
        )
    }

    /// What happens to an access whose pointer fails `valid`
    /// ([`ThreadPrinter::valid_access`]): with `--pointer-check` a violation
    /// (a pointer outside its object); without, the execution is cut off
    /// there, and the reachability run after a safe verdict names the
    /// access when some execution gets cut off so (a warning of the report).
    fn pointer_cut(&mut self, indent: usize, valid: &str, stmt: OriginId) {
        match self.pointer_checks {
            true => self.violation_if(
                indent,
                &format!("!({valid})"),
                stmt,
                crate::ir::POINTER_OUTSIDE_OBJECT,
            ),
            // where the facts know no location at all, no execution would
            // get past: none is cut off
            false if valid == NO_LOCATION => {}
            false => {
                let _ = writeln!(self.out, "#ifdef LAZYSMA_REACH");
                self.line(
                    indent,
                    &format!("(__CPROVER_assert)({valid}, \"{REACH_POINTER_CUT}{stmt}\");"),
                );
                let _ = writeln!(self.out, "#endif");
                self.line(indent, &format!("__CPROVER_assume({valid});"));
            }
        }
    }

    /// `if (condition) { assert(0, "file:line: what: statement"); assume(0); }`:
    /// statement `stmt` violates property `what` when `condition` holds, and
    /// the execution ends there.
    fn violation_if(&mut self, indent: usize, condition: &str, stmt: OriginId, what: &str) {
        let kind = PropertyKind::of_access_check(what).unwrap_or(PropertyKind::Assertion);
        let description = self.violation(stmt, what);
        self.note_property(kind, Some(stmt), &description);
        let description = expr::string_literal(&description);
        let check = format!(
            "if ({condition}) {{ __CPROVER_assert(0, {description}); __CPROVER_assume(0); }}"
        );
        self.line(indent, &check);
    }

    /// For a reference SMA's `function` that begins with memory updates
    /// independent of the location: those updates, and the function without
    /// them. A read's are its flush phase (`sma_read_alone` follows); a
    /// lock's, unlock's or RMW's the phase and the drain (`sma_settle`;
    /// the `_drained` variant follows). None otherwise.
    fn settling(&self, function: &str, stmt: OriginId) -> Option<(String, String)> {
        if !self.sma.is_reference() {
            return None;
        }
        let t = self.thread.slot;
        match function {
            "sma_read" => Some((format!("sma_flush_some({stmt});"), "sma_read_alone".into())),
            "sma_rmw" | "sma_lock" | "sma_unlock" | "sma_trylock" => Some((
                format!("sma_settle({t}, {stmt});"),
                format!("{function}_drained"),
            )),
            _ => None,
        }
    }

    /// `file:line: what: text` of statement `stmt`: the description of a
    /// property the statement violates.
    fn violation(&self, stmt: OriginId, what: &str) -> String {
        match self.program.map.origins.get(stmt) {
            Some(o) => format!("{}:{}: {what}: {}", o.file, o.line, o.text),
            None => what.into(),
        }
    }

    /// Notes the `__CPROVER_assert` about to be printed, of property
    /// `kind` of statement `origin`, in the property table.
    fn note_property(&mut self, kind: PropertyKind, origin: Option<OriginId>, description: &str) {
        self.properties.add(Property {
            kind,
            origin,
            thread: self.thread.slot,
            function: self.function.clone(),
            description: description.to_string(),
        });
    }

    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{}{}", "  ".repeat(indent), text);
    }

    fn block(&mut self, body: &[SeqStmt], indent: usize) {
        for stmt in body {
            self.stmt(stmt, indent);
        }
    }

    /// The record of an atomic section's begin or end (for the native check).
    fn atomic_record(&mut self, kind: &str, stmt: OriginId, indent: usize) {
        let t = self.thread.slot;
        let text = format!(
            "sma_record({kind}, {t}, 0, 0, 0, 0, 0, {stmt});{}",
            self.origin_comment(stmt)
        );
        self.line(indent, &text);
    }

    fn stmt(&mut self, stmt: &SeqStmt, indent: usize) {
        let t = self.thread.slot;
        match stmt {
            SeqStmt::Guard(i) => {
                // Guard 0 is the entry: no guard jumps to it.
                let label = if *i == 0 {
                    "  ".to_string()
                } else {
                    format!("t{t}_L{i}: ")
                };
                // Main's statements before its first thread creation run in
                // round 0 (the driver makes its first context reach them).
                let later = if *i < self.main_prefix {
                    "lazy_later || "
                } else if *i >= self.main_suffix {
                    "!lazy_final || "
                } else {
                    ""
                };
                let text = format!(
                    "{label}if ({later}lazy_pc[{t}] > {i} || {i} >= lazy_cs) goto t{t}_L{};",
                    i + 1
                );
                let _ = writeln!(self.out, "{text}");
            }
            SeqStmt::ResumeCheck(k) => {
                self.line(indent, &format!("__CPROVER_assume(lazy_cs >= {k});"))
            }
            SeqStmt::Assign(place, value) => {
                let text = format!("{} = {};", self.p(place), self.e(value));
                self.line(indent, &text);
            }
            SeqStmt::Read {
                target,
                address,
                stmt,
                alone,
                newest,
            } => {
                let target = self.p(target);
                // only the timestamped SMAs' marks set `newest`, as `unobserved`
                let function = if *newest {
                    "sma_read_newest".to_string()
                } else {
                    self.alone_variant(*alone, "sma_read")
                };
                let read =
                    |function: &str, a: &str| format!("{target} = {function}({a}, {t}, {stmt});");
                self.access(indent, address, *stmt, &function, &read);
            }
            SeqStmt::Write {
                address,
                value,
                stmt,
                unobserved,
            } => {
                let value = self.e(value);
                let function = if *unobserved {
                    "sma_write_unobserved"
                } else {
                    "sma_write"
                };
                let write =
                    |function: &str, a: &str| format!("{function}({a}, {value}, {t}, {stmt});");
                self.access(indent, address, *stmt, function, &write);
            }
            SeqStmt::Rmw {
                target,
                address,
                op,
                operand,
                expected,
                stmt,
            } => {
                let (operand, expected) = (self.e(operand), self.e(expected));
                let assign = match target {
                    Some(target) => format!("{} = ", self.p(target)),
                    None => String::new(),
                };
                let op = op.c_name();
                let rmw = |function: &str, a: &str| {
                    format!("{assign}{function}({a}, {op}, {operand}, {expected}, {t}, {stmt});")
                };
                self.access(indent, address, *stmt, "sma_rmw", &rmw);
            }
            SeqStmt::Fence { kind, stmt } => {
                let function = match kind {
                    FenceKind::Full => "sma_fence",
                    FenceKind::StoreStore => "sma_store_fence",
                };
                let text = format!("{function}({t}, {stmt});{}", self.origin_comment(*stmt));
                self.line(indent, &text);
            }
            SeqStmt::Lock { address, stmt } => {
                let mutex = |function: &str, a: &str| format!("{function}({a}, {t}, {stmt});");
                self.access(indent, address, *stmt, "sma_lock", &mutex);
            }
            SeqStmt::Unlock { address, stmt } => {
                let mutex = |function: &str, a: &str| format!("{function}({a}, {t}, {stmt});");
                self.access(indent, address, *stmt, "sma_unlock", &mutex);
            }
            SeqStmt::TryLock {
                target,
                address,
                stmt,
            } => {
                let target = self.p(target);
                let mutex =
                    |function: &str, a: &str| format!("{target} = {function}({a}, {t}, {stmt});");
                self.access(indent, address, *stmt, "sma_trylock", &mutex);
            }
            SeqStmt::Malloc {
                target,
                size,
                zeroed,
                stmt,
            } => {
                if !matches!(size, Expr::Const(_)) {
                    self.reach_allocation(indent, size, *stmt);
                }
                let text = format!(
                    "{} = sma_malloc({}, {}, {t}, {stmt});{}",
                    self.p(target),
                    self.e(size),
                    i32::from(*zeroed),
                    self.origin_comment(*stmt)
                );
                self.line(indent, &text);
            }
            SeqStmt::Free { address, stmt } => {
                // free(NULL) does nothing
                let location = self.e(address);
                self.line(indent, &format!("if (({location}) != 0) {{"));
                self.violation_if(
                    indent + 1,
                    &format!("sma_freed({location})"),
                    *stmt,
                    crate::ir::DOUBLE_FREE,
                );
                self.violation_if(
                    indent + 1,
                    &format!("!sma_heap_block_start({location})"),
                    *stmt,
                    crate::ir::INVALID_FREE,
                );
                let t = self.thread.slot;
                let text = format!(
                    "sma_free({location}); sma_record(SMA_EV_FREE, {t}, {location}, 0, 0, 0, 0, {stmt});{}",
                    self.origin_comment(*stmt)
                );
                self.line(indent + 1, &text);
                self.line(indent, "}");
            }
            SeqStmt::Assert { description, .. } if description == REACH_END_OF_MAIN => {
                // `exit`, `abort`: an end of the program
                let _ = writeln!(self.out, "#ifdef LAZYSMA_REACH");
                self.line(
                    indent,
                    &format!("(__CPROVER_assert)(0, \"{REACH_END_OF_MAIN}\");"),
                );
                let _ = writeln!(self.out, "#endif");
            }
            SeqStmt::Assert {
                condition,
                description,
            } => {
                let (kind, origin) = match self.thread.assertions.get(description) {
                    Some(&(kind, origin)) => (PropertyKind::of_assertion(kind), Some(origin)),
                    None => (None, None),
                };
                let kind = kind.unwrap_or(PropertyKind::Assertion);
                self.note_property(kind, origin, description);
                let text = format!(
                    "__CPROVER_assert({}, {});",
                    self.e(condition),
                    expr::string_literal(description)
                );
                self.line(indent, &text);
            }
            SeqStmt::Assume(condition)
            | SeqStmt::Await { condition, .. }
            | SeqStmt::LoopBound { condition, .. } => {
                let text = format!("__CPROVER_assume({});", self.e(condition));
                self.line(indent, &text);
            }
            SeqStmt::If {
                condition,
                then_branch,
                else_branch,
            } => {
                let text = format!("if ({}) {{", self.e(condition));
                self.line(indent, &text);
                self.block(then_branch, indent + 1);
                if else_branch.is_empty() {
                    self.line(indent, "}");
                } else {
                    self.line(indent, "} else {");
                    self.block(else_branch, indent + 1);
                    self.line(indent, "}");
                }
            }
            SeqStmt::Goto(label) => {
                let text = format!("goto {};", self.label(*label));
                self.line(indent, &text);
            }
            SeqStmt::Label(label) => {
                let _ = writeln!(self.out, "{}: ;", self.label(*label));
            }
            SeqStmt::Create { slot, stmt } => {
                let text = format!(
                    "sma_fence({t}, {stmt}); sma_record(SMA_EV_CREATE, {t}, {slot}, 0, 0, 0, 0, {stmt}); lazy_active[{slot}] = 1;  /* creates thread {slot} */{}",
                    self.origin_comment(*stmt)
                );
                self.line(indent, &text);
            }
            SeqStmt::Join { handle, stmt } => {
                let h = self.e(handle);
                let text = format!(
                    "__CPROVER_assume((unsigned int)({h}) < SMA_THREADS && lazy_pc[(unsigned int)({h})] == lazy_lines[(unsigned int)({h})]); sma_join((unsigned int)({h}), {t}, {stmt});{}",
                    self.origin_comment(*stmt)
                );
                self.line(indent, &text);
            }
            SeqStmt::AtomicBegin { stmt: origin } => {
                self.atomic_record("SMA_EV_ATOMIC_BEGIN", *origin, indent)
            }
            SeqStmt::AtomicEnd { stmt: origin } => {
                self.atomic_record("SMA_EV_ATOMIC_END", *origin, indent)
            }
        }
    }
}

/// The condition [`ThreadPrinter::inside_pointees`] gives when the points-to
/// facts know no location an access may reach: with `--pointer-check` the
/// access is reported as outside its objects; without, no execution is cut
/// off on that account (an assumption none satisfies would cut off every
/// execution reaching the access, as the facts' gap for arrays whose
/// address is never taken once did).
const NO_LOCATION: &str = "0";

/// The runs of consecutive locations in the ordered `locations`, as
/// `(first, last)`.
fn runs(locations: &[u32]) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &location in locations {
        match runs.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(location) => *last = location,
            _ => runs.push((location, location)),
        }
    }
    runs
}
