//! Printer: writes the sequential program as one self-contained C file with
//! the chosen SMA implementation inlined.

mod buffers;
mod dispatch;
mod expr;
mod fresh_lists;

use crate::ir::{Expr, FenceKind, Origin, OriginId, Place};
use crate::options::{Bounds, SmaImplementation, TranslateOptions};
use crate::passes::{
    SeqStmt, SeqThread, SequentialProgram, creates_threads, nested_creation,
    write_issuing_statements,
};
use expr::{Declarations, Names};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The C text of the sequential program.
pub fn print(program: &SequentialProgram, options: &TranslateOptions) -> String {
    print_with_sma(
        program,
        options,
        crate::sma::COMMON_HEADER,
        crate::sma::header(options.sma),
    )
}

/// The C text with the given SMA sources (`common.h` text, model header text).
pub fn print_with_sma(
    program: &SequentialProgram,
    options: &TranslateOptions,
    common: &str,
    model: &str,
) -> String {
    let mut nondet = BTreeSet::new();
    let names = Names::new(program);
    let pc_bits = pc_bits(program);
    let mut threads = String::new();
    for thread in &program.threads {
        print_thread(&mut threads, program, &names, thread, &mut nondet, options);
    }
    let built = built_options(program, options);
    let mut out = String::new();
    print_header_comment(&mut out, program, options, &built);
    print_shims(&mut out);
    print_prologue(&mut out, program, &built);
    buffers::print_store_buffers(&mut out, program, &built);
    fresh_lists::print_fresh_lists(&mut out, program, &built);
    out.push_str("\n/* ---- SMA: common.h ---- */\n");
    out.push_str(common);
    let _ = writeln!(out, "\n/* ---- SMA: {}.h ---- */", options.sma.name());
    out.push_str(model);
    out.push_str("\n/* ---- lazy sequentialisation state ---- */\n");
    let _ = writeln!(
        out,
        "#ifdef __CPROVER__\ntypedef unsigned __CPROVER_bitvector[{pc_bits}] lazy_pc_t;\n#else"
    );
    let _ = writeln!(out, "typedef unsigned int lazy_pc_t;\n#endif");
    out.push_str("lazy_pc_t nondet_lazy_pc(void);\n");
    for (function, ty, parameters) in &nondet {
        let _ = writeln!(out, "{ty} {function}({parameters});");
    }
    out.push_str("static lazy_pc_t lazy_pc[SMA_THREADS];\nstatic lazy_pc_t lazy_cs;\nstatic _Bool lazy_active[SMA_THREADS];\n");
    let lines: Vec<String> = program
        .threads
        .iter()
        .map(|t| t.lines.to_string())
        .collect();
    let _ = writeln!(
        out,
        "static const lazy_pc_t lazy_lines[SMA_THREADS] = {{ {} }};",
        lines.join(", ")
    );
    out.push_str(REACH_PROLOGUE);
    out.push_str("\n/* ---- program data ---- */\n");
    print_structs(&mut out, program, &names);
    for (id, global) in program.plain_globals.iter().enumerate() {
        let _ = writeln!(
            out,
            "static {};",
            expr::declaration(&global.ty, &names.plain_global(id), &names)
        );
    }
    out.push_str(&threads);
    print_driver(&mut out, program, &names);
    out
}

/// Width of `pc`/`cs`: enough for the largest `lines[t]`.
fn pc_bits(program: &SequentialProgram) -> u32 {
    let max = program
        .threads
        .iter()
        .map(|t| t.lines)
        .max()
        .unwrap_or(1)
        .max(1);
    (32 - max.leading_zeros()).max(1)
}

/// `options` with `--qsize` and `--maxclock` lowered to the values that cut
/// off no execution of this program, where larger ones were asked for: the
/// executions are the same, and a smaller list or buffer and a narrower
/// clock make a smaller formula.
fn built_options(program: &SequentialProgram, options: &TranslateOptions) -> TranslateOptions {
    let mut built = options.clone();
    if let Some(sufficient) = &program.sufficient {
        built.bounds.qsize = built
            .bounds
            .qsize
            .min(sufficient.qsize.max(Bounds::LEAST_QSIZE));
        if let Some(maxclock) = sufficient.maxclock {
            built.bounds.maxclock = built
                .bounds
                .maxclock
                .min(maxclock.max(Bounds::LEAST_MAXCLOCK));
        }
    }
    built
}

/// What the header says about the heap of a program that allocates: the
/// blocks no execution needs more of, and fewer blocks than `--nmalloc`
/// asked for when the threads cannot take more.
fn heap_lines(memory: &crate::passes::MemoryLayout, asked: u32) -> Vec<String> {
    let (Some(needs), Some(_)) = (memory.heap_needs, memory.heap_block()) else {
        return Vec::new();
    };
    let blocks = |count: u32| format!("{count} heap block{}", if count == 1 { "" } else { "s" });
    let mut lines = Vec::new();
    let fewer = format!(
        "so the SMA below has {}: the same executions, a smaller formula",
        blocks(memory.heap_blocks)
    );
    if let Some(sufficient) = needs.sufficient_nmalloc() {
        lines.push(format!(
            "no execution needs more than {} (a larger --nmalloc cuts off nothing more)",
            blocks(sufficient)
        ));
        if memory.heap_blocks < asked {
            lines.push(fewer);
        }
    } else if memory.heap_blocks < asked {
        lines.push(format!(
            "the threads take at most {}, {fewer}",
            blocks(needs.blocks)
        ));
    }
    lines
}

fn print_header_comment(
    out: &mut String,
    program: &SequentialProgram,
    options: &TranslateOptions,
    built: &TranslateOptions,
) {
    let _ = writeln!(
        out,
        "/* Generated by lazysma {}: lazy sequentialisation for CBMC.",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(
        out,
        " * memory model: {}, shared memory abstraction: {}",
        options.sma.model().name(),
        options.sma.name()
    );
    let _ = writeln!(out, " * bounds: {}", program.bounds(options).describe());
    for line in source_lines(program, options) {
        let _ = writeln!(out, " * {}", line.replace("*/", "* /"));
    }
    if let Some(sufficient) = &program.sufficient {
        let _ = writeln!(
            out,
            " * no execution needs more than {} (larger ones cut off nothing more)",
            sufficient.describe()
        );
        let (asked, used) = (&options.bounds, &built.bounds);
        if (asked.qsize, asked.maxclock) != (used.qsize, used.maxclock) {
            let clock = if options.sma.is_reference() {
                String::new()
            } else {
                format!(", maxclock {}", used.maxclock)
            };
            let _ = writeln!(
                out,
                " * so the SMA below is built with qsize {}{clock}: the same executions, a smaller formula",
                used.qsize
            );
        }
    }
    for line in heap_lines(&program.memory, options.bounds.nmalloc) {
        let _ = writeln!(out, " * {line}");
    }
    let _ = writeln!(
        out,
        " * threads: {}, shared locations: {}",
        program.threads.len(),
        program.memory.location_count()
    );
    if !program.memory.padding.is_empty() {
        let _ = writeln!(
            out,
            " * members that no expression names (padding), left out of shared memory: {}",
            program.memory.padding.join(", ")
        );
    }
    if program.map.value_types.byte_addresses {
        out.push_str(
            " * addresses: bytes (a pointer to location l is 8 * l; accesses go to p >> 3)\n",
        );
    }
    if options.fence_atomic_sections {
        out.push_str(" * atomic sections are fenced\n");
    }
    if options.unwinding_assertions {
        out.push_str(" * every loop is asserted to exit within the unwind bound\n");
    }
    for warning in &program.warnings {
        // the translator's warnings travel with the file; `*/` cannot occur
        // in a message built from a source line, but is kept out anyway
        let text = format!(
            "{}:{}: warning: {}",
            warning.file.display(),
            warning.line,
            warning.message
        );
        let _ = writeln!(out, " * {}", text.replace("*/", "* /"));
    }
    out.push_str(
        " * Check with:  cbmc THIS_FILE.c   (no other flag needed; every loop is unrolled)\n */\n",
    );
}

/// What the program was translated from, for the header: the files its
/// code comes from (the one that defines `main` first, which is the input
/// unless the input includes it; the translation knows no other name of
/// the input), and the preprocessor options.
fn source_lines(program: &SequentialProgram, options: &TranslateOptions) -> Vec<String> {
    let origins = &program.map.origins;
    let main = origins
        .iter()
        .find(|origin| defines_main(&origin.text))
        .map(|origin| origin.file.as_str());
    let mut files: Vec<&str> = main.into_iter().collect();
    for origin in origins {
        if !origin.file.is_empty() && !files.contains(&origin.file.as_str()) {
            files.push(&origin.file);
        }
    }
    let mut lines = Vec::new();
    match (files.as_slice(), main) {
        ([], _) => {}
        ([only], _) => lines.push(format!("code from: {only}")),
        ([first, rest @ ..], Some(_)) => {
            lines.push(format!("code from: {first} (main), {}", rest.join(", ")))
        }
        (all, None) => lines.push(format!("code from: {}", all.join(", "))),
    }
    let mut preprocessor: Vec<String> = options
        .defines
        .iter()
        .map(|define| format!("-D {define}"))
        .collect();
    preprocessor.extend(
        options
            .include_dirs
            .iter()
            .map(|dir| format!("-I {}", dir.display())),
    );
    if !preprocessor.is_empty() {
        lines.push(format!("preprocessor options: {}", preprocessor.join(" ")));
    }
    lines
}

/// Whether an origin's text is the head of `main`'s definition (`int
/// main(void)`): `main` as a whole word followed by `(`, not a statement.
fn defines_main(text: &str) -> bool {
    let text = text.trim();
    if text.ends_with(';') {
        return false;
    }
    text.match_indices("main").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let whole_word = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        whole_word && text[at + 4..].trim_start().starts_with('(') && at > 0
    })
}

fn print_shims(out: &mut String) {
    out.push_str(
        "#ifndef __CPROVER__\n/* declarations that let an ordinary C compiler check this file */\n\
         void __CPROVER_assume(_Bool assumption);\n\
         void __CPROVER_assert(_Bool assertion, const char *description);\n#endif\n\n",
    );
}

fn print_prologue(out: &mut String, program: &SequentialProgram, options: &TranslateOptions) {
    let m = &program.memory;
    let b = &options.bounds;
    let _ = writeln!(out, "#define SMA_THREADS {}", program.threads.len().max(1));
    let _ = writeln!(out, "#define SMA_LOCATIONS {}", m.location_count());
    let _ = writeln!(out, "#define SMA_HEAP_BASE {}", m.heap_base);
    let _ = writeln!(out, "#define SMA_HEAP_BLOCKS {}", m.heap_blocks);
    let _ = writeln!(out, "#define SMA_HEAP_BLOCK_SIZE {}", m.heap_block_size);
    let _ = writeln!(out, "#define SMA_QSIZE {}", b.qsize);
    let _ = writeln!(out, "#define SMA_MAXCLOCK {}", b.maxclock);
    let _ = writeln!(out, "#define SMA_BITWIDTH {}", b.bitwidth);
    let write_ids: u64 = program
        .threads
        .iter()
        .map(|t| write_issuing_statements(&t.body))
        .sum();
    let _ = writeln!(out, "#define SMA_WRITE_IDS {write_ids}");
    let plain = if b.bitwidth > 32 { "long long" } else { "int" };
    if b.narrows_values() {
        let _ = writeln!(
            out,
            "#ifdef __CPROVER__\ntypedef __CPROVER_bitvector[{}] sma_value_t;\n#else\ntypedef {plain} sma_value_t;\n#endif",
            b.bitwidth.max(1)
        );
    } else {
        let _ = writeln!(out, "typedef {plain} sma_value_t;");
    }
    let mut values: Vec<String> = m
        .initial_values
        .iter()
        .map(|v| expr::constant(*v))
        .collect();
    values.resize(m.location_count().max(1) as usize, "0".into());
    print_initial_values(out, &values);
}

/// Most elements CBMC 5.12 initialises an array with from a list (its C
/// front end rejects longer lists: "array index designator out of bounds",
/// fixed in later versions).
const CBMC_INITIALISER_LIMIT: usize = 1000;

/// The reachability run (`verify::reach`, with `LAZYSMA_REACH` defined)
/// follows a run in which every assertion held: they become assumptions,
/// and only the `(__CPROVER_assert)` properties that mark places remain
/// (the parentheses keep the macro from applying).
const REACH_PROLOGUE: &str = "
#ifdef LAZYSMA_REACH
#define __CPROVER_assert(condition, description) __CPROVER_assume(condition)
#endif
";

/// The property that fails when an execution reaches the end of `main`
/// (or `exit`, `abort`).
pub const REACH_END_OF_MAIN: &str = "lazysma reach: the end of main";
/// The property, followed by the statement, that fails when an execution
/// reaches an allocation asking for more than a heap block holds.
pub const REACH_BLOCK_SIZE: &str = "lazysma reach: heap block size at ";
/// The same when the allocation finds every heap block used.
pub const REACH_BLOCKS_USED: &str = "lazysma reach: heap blocks at ";

/// The table of initial values `sma_initial_value`, or, beyond
/// [`CBMC_INITIALISER_LIMIT`] locations, rows of that many and the macro
/// `SMA_INITIAL_VALUE(v)` that `common.h` reads them with.
fn print_initial_values(out: &mut String, values: &[String]) {
    let list = |out: &mut String, values: &[String]| {
        for (i, v) in values.iter().enumerate() {
            if i % 16 == 0 {
                out.push_str("\n  ");
            }
            out.push_str(v);
            out.push_str(", ");
        }
    };
    if values.len() <= CBMC_INITIALISER_LIMIT {
        out.push_str("static const sma_value_t sma_initial_value[SMA_LOCATIONS] = {");
        list(out, values);
        out.push_str("\n};\n");
        return;
    }
    let rows = values.len().div_ceil(CBMC_INITIALISER_LIMIT);
    let _ = write!(
        out,
        "/* in rows of {CBMC_INITIALISER_LIMIT}: CBMC 5.12 cannot initialise a longer array from a list */\n\
         static const sma_value_t sma_initial_value_rows[{rows}][{CBMC_INITIALISER_LIMIT}] = {{"
    );
    for row in values.chunks(CBMC_INITIALISER_LIMIT) {
        out.push_str("\n {");
        list(out, row);
        out.push_str("\n },");
    }
    let _ = writeln!(
        out,
        "\n}};\n#define SMA_INITIAL_VALUE(v) sma_initial_value_rows[(v) / {CBMC_INITIALISER_LIMIT}][(v) % {CBMC_INITIALISER_LIMIT}]"
    );
}

fn print_structs(out: &mut String, program: &SequentialProgram, names: &Names) {
    for id in 0..program.structs.len() {
        let _ = writeln!(out, "struct {};", names.structure(id));
    }
    // Definitions in dependency order: a struct after the structs it holds by value.
    let mut done = vec![false; program.structs.len()];
    for id in 0..program.structs.len() {
        define_struct(out, program, names, id, &mut done, 0);
    }
}

fn define_struct(
    out: &mut String,
    program: &SequentialProgram,
    names: &Names,
    id: usize,
    done: &mut [bool],
    depth: usize,
) {
    if done.get(id).copied().unwrap_or(true) || depth > program.structs.len() {
        return;
    }
    let Some(s) = program.structs.get(id) else {
        return;
    };
    for (_, ty) in &s.fields {
        if let Some(inner) = expr::held_struct(ty) {
            define_struct(out, program, names, inner, done, depth + 1);
        }
    }
    if let Some(d) = done.get_mut(id) {
        *d = true;
    }
    let _ = writeln!(out, "struct {} {{", names.structure(id));
    for (field, ty) in &s.fields {
        let _ = writeln!(
            out,
            "  {};",
            expr::declaration(ty, &expr::sanitize(field), names)
        );
    }
    if s.fields.is_empty() {
        out.push_str("  int unused;\n");
    }
    out.push_str("};\n");
}

fn print_thread(
    out: &mut String,
    program: &SequentialProgram,
    names: &Names,
    thread: &SeqThread,
    nondet: &mut Declarations,
    options: &TranslateOptions,
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
                let description = expr::string_literal(
                    &self.violation(stmt, crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS),
                );
                let indent = "  ".repeat(indent);
                let body = dispatch::dispatch_text(&location, object, &call, &description, &indent);
                format!("{body}{comment}")
            }
            Some(object) => {
                let call = operation(function, dispatch::ADDRESS_TEMPORARY);
                let description = expr::string_literal(
                    &self.violation(stmt, crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS),
                );
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
                if let Some(inside) = self.inside_pointees(address, &location) {
                    match self.pointer_checks {
                        true => self.violation_if(
                            indent,
                            &format!("!({inside})"),
                            stmt,
                            crate::ir::POINTER_OUTSIDE_OBJECT,
                        ),
                        // where the facts know no location at all, no
                        // execution would get past: none is cut off
                        false if inside == NO_LOCATION => {}
                        false => self.line(indent, &format!("__CPROVER_assume({inside});")),
                    }
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
    /// `location`) stays among the locations its pointer may point to (the
    /// points-to facts the marks rely on); None when it may point anywhere.
    fn inside_pointees(&self, address: &crate::ir::Expr, location: &str) -> Option<String> {
        let facts = self.program.points_to.as_ref()?;
        let pointees = facts.locations(self.thread.slot, address)?;
        if pointees.len() as u32 + 1 >= self.program.memory.location_count() {
            return None;
        }
        let inside: Vec<String> = runs(&pointees)
            .into_iter()
            .map(|(first, last)| match first == last {
                true => format!("({location}) == {first}"),
                false => format!("(({location}) >= {first} && ({location}) <= {last})"),
            })
            .collect();
        Some(match inside.is_empty() {
            true => NO_LOCATION.to_string(),
            false => inside.join(" || "),
        })
    }

    /// `if (condition) { assert(0, "file:line: what: statement"); assume(0); }`:
    /// statement `stmt` violates property `what` when `condition` holds, and
    /// the execution ends there.
    fn violation_if(&mut self, indent: usize, condition: &str, stmt: OriginId, what: &str) {
        let description = expr::string_literal(&self.violation(stmt, what));
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
                let text = format!(
                    "__CPROVER_assert({}, {});",
                    self.e(condition),
                    expr::string_literal(description)
                );
                self.line(indent, &text);
            }
            SeqStmt::Assume(condition) => {
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

/// The number of main's visible statements before its first thread
/// creation (all but the final one when it creates none). No other thread
/// is active before it, so main's first context may as well run them all:
/// the driver forces that, and later rounds skip them.
fn main_prefix(main: &SeqThread) -> u32 {
    fn first_create(body: &[SeqStmt], last_guard: &mut u32) -> bool {
        body.iter().any(|stmt| match stmt {
            SeqStmt::Guard(i) => {
                *last_guard = *i;
                false
            }
            SeqStmt::Create { .. } => true,
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => first_create(then_branch, last_guard) || first_create(else_branch, last_guard),
            _ => false,
        })
    }
    let mut last_guard = 0;
    if first_create(&main.body, &mut last_guard) {
        last_guard
    } else {
        main.lines.saturating_sub(1)
    }
}

/// The first of main's visible statements after it has joined every other
/// thread (`u32::MAX` when that point is not evident). From there on no
/// other thread can act, so main may as well run the rest in its final
/// context: earlier contexts stop there and skip it.
///
/// Evident means: only main creates threads; each other slot is joined by a
/// top-level join of a scalar local that a top-level assignment set to that
/// slot, is not assigned anywhere else but by its initialisation, and no
/// creation follows.
fn main_suffix(program: &SequentialProgram) -> u32 {
    let Some(main) = program.threads.first() else {
        return u32::MAX;
    };
    if nested_creation(program) {
        return u32::MAX;
    }
    let mut nested = Vec::new();
    for stmt in &main.body {
        if let SeqStmt::If {
            then_branch,
            else_branch,
            ..
        } = stmt
        {
            assigned_places(then_branch, &mut nested);
            assigned_places(else_branch, &mut nested);
        }
    }
    let mut slots: BTreeMap<usize, Option<usize>> = BTreeMap::new();
    let mut joined = BTreeSet::new();
    let mut complete = false;
    for (k, stmt) in main.body.iter().enumerate() {
        if complete {
            if let SeqStmt::Guard(i) = stmt {
                return if creates_threads(&main.body[k..]) {
                    u32::MAX
                } else {
                    *i
                };
            }
            continue;
        }
        match stmt {
            SeqStmt::Assign(Place::Local(id), Expr::Const(c)) => {
                slots.insert(*id, usize::try_from(*c).ok());
            }
            SeqStmt::Assign(Place::Local(id), Expr::Nondet(_)) => {
                slots.insert(*id, None);
            }
            SeqStmt::Join {
                handle: Expr::Load(Place::Local(id)),
                ..
            } if !nested.contains(&Place::Local(*id)) => {
                if let Some(Some(slot)) = slots.get(id) {
                    joined.insert(*slot);
                }
                complete = (1..program.threads.len()).all(|s| joined.contains(&s));
            }
            other => {
                let mut places = Vec::new();
                assigned_places(std::slice::from_ref(other), &mut places);
                for place in places {
                    if let Place::Local(id) = place {
                        slots.insert(id, None);
                    }
                }
            }
        }
    }
    u32::MAX
}

/// The places `body` assigns (their outermost base for indexed places).
fn assigned_places(body: &[SeqStmt], out: &mut Vec<Place>) {
    fn base(place: &Place) -> Place {
        match place {
            Place::Index(inner, _) | Place::Field(inner, _) => base(inner),
            other => other.clone(),
        }
    }
    for stmt in body {
        match stmt {
            SeqStmt::Assign(place, _)
            | SeqStmt::Read { target: place, .. }
            | SeqStmt::Malloc { target: place, .. }
            | SeqStmt::TryLock { target: place, .. }
            | SeqStmt::Rmw {
                target: Some(place),
                ..
            } => out.push(base(place)),
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                assigned_places(then_branch, out);
                assigned_places(else_branch, out);
            }
            _ => {}
        }
    }
}

fn print_driver(out: &mut String, program: &SequentialProgram, names: &Names) {
    out.push_str("\n/* driver: round-robin schedule of the thread functions */\nint main(void)\n{\n  sma_init();\n  lazy_active[0] = 1;\n");
    let prefix = program.threads.first().map(main_prefix).unwrap_or(0);
    let suffix = main_suffix(program);
    let run = |out: &mut String, thread: &SeqThread, round: u32| {
        let t = thread.slot;
        let function = names.thread_function(thread);
        let last = round == program.rounds;
        // Main's last statement before its final context.
        let end = if t == 0 && !last && suffix != u32::MAX {
            suffix.to_string()
        } else {
            format!("lazy_lines[{t}]")
        };
        let arguments = match (t, round > 0, last) {
            (0, later, last) => format!("{}, {}", u8::from(later), u8::from(last)),
            _ => String::new(),
        };
        if t == 0 && round == 0 {
            // Main is active and at statement 0.
            let _ = writeln!(
                out,
                "  lazy_cs = nondet_lazy_pc();\n  __CPROVER_assume({prefix} <= lazy_cs && lazy_cs <= {end});\n  {function}({arguments});\n  lazy_pc[0] = lazy_cs;"
            );
            return;
        }
        let _ = writeln!(
            out,
            "  if (lazy_active[{t}] && lazy_pc[{t}] < lazy_lines[{t}]) {{"
        );
        let _ = writeln!(out, "    lazy_cs = nondet_lazy_pc();");
        let _ = writeln!(
            out,
            "    __CPROVER_assume(lazy_pc[{t}] <= lazy_cs && lazy_cs <= {end});"
        );
        let _ = writeln!(out, "    {function}({arguments});");
        let _ = writeln!(out, "    lazy_pc[{t}] = lazy_cs;\n  }}");
    };
    for round in 0..program.rounds {
        let _ = writeln!(out, "  /* round {round} */");
        for thread in &program.threads {
            run(out, thread, round);
        }
    }
    if let Some(main) = program.threads.first() {
        out.push_str("  /* main runs on after the last round */\n");
        run(out, main, program.rounds);
    }
    let _ = writeln!(
        out,
        "#ifdef LAZYSMA_REACH\n  (__CPROVER_assert)(lazy_pc[0] != lazy_lines[0], \"{}\");\n#endif",
        REACH_END_OF_MAIN
    );
    out.push_str("  return 0;\n}\n");
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

/// A statement's source text as a comment shows it: at most
/// [`COMMENT_CHARACTERS`] characters (a statement's every access carries
/// the comment, so a long statement with many made the file quadratic in
/// its length), and no `*/` to end the comment early.
fn comment_text(text: &str) -> String {
    let shown = match text.char_indices().nth(COMMENT_CHARACTERS) {
        Some((end, _)) => format!("{} ...", &text[..end]),
        None => text.to_string(),
    };
    shown.replace("*/", "* /")
}

/// The longest source text a statement's comment shows.
const COMMENT_CHARACTERS: usize = 120;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_shows_a_long_statement_cut_and_never_ends_early() {
        assert_eq!(comment_text("x = 1; /* set */"), "x = 1; /* set * /");
        let long = "é".repeat(COMMENT_CHARACTERS + 5);
        let shown = comment_text(&long);
        assert_eq!(shown, format!("{} ...", "é".repeat(COMMENT_CHARACTERS)));
        assert_eq!(
            comment_text(&"a".repeat(COMMENT_CHARACTERS)),
            "a".repeat(COMMENT_CHARACTERS)
        );
    }

    #[test]
    fn main_is_told_by_the_head_of_its_definition() {
        assert!(defines_main("int main(void)"));
        assert!(defines_main("int main (int argc, char **argv)"));
        assert!(defines_main("int main() {"));
        assert!(!defines_main("main();"));
        assert!(!defines_main("void *domain(void *a)"));
        assert!(!defines_main("pthread_create(&t, 0, main_worker, 0);"));
        assert!(!defines_main("main(void)"), "not a definition's head");
    }

    #[test]
    fn the_header_names_the_source_files_and_the_preprocessor_options() {
        let directory = tempfile::tempdir().expect("temporary directory");
        let header = directory.path().join("worker.h");
        std::fs::write(
            &header,
            "int x;\nvoid *worker(void *a) { x = N; return 0; }\n",
        )
        .expect("write the header");
        let program = directory.path().join("main.c");
        std::fs::write(&program, "#include <pthread.h>\n#include \"worker.h\"\nint main(void) {\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  return 0;\n}\n")
            .expect("write the program");
        let options = TranslateOptions {
            defines: vec!["N=2".to_string()],
            include_dirs: vec![directory.path().to_path_buf()],
            ..TranslateOptions::default()
        };
        let translation = crate::translate::translate(&program, &options).expect("translates");
        let end = translation.c_source.find("*/").expect("a header comment");
        let comment = &translation.c_source[..end];
        let expected = format!(
            " * code from: {} (main), {}\n",
            program.display(),
            header.display()
        );
        assert!(comment.contains(&expected), "{comment}");
        assert!(
            comment.contains(&format!(
                " * preprocessor options: -D N=2 -I {}\n",
                directory.path().display()
            )),
            "{comment}"
        );
    }
}
