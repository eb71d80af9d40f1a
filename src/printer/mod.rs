//! Printer: writes the sequential program as one self-contained C file with
//! the chosen SMA implementation inlined.
//!
//! The header comment ([`header`]), one function per thread copy
//! ([`thread`]) and the round-robin driver ([`driver`]) each have their own
//! file; this one assembles them with the prologue and the SMA.

mod buffers;
mod dispatch;
mod driver;
mod expr;
mod fresh_lists;
mod header;
mod thread;

use crate::ir::Runs;
use crate::options::{Bounds, TranslateOptions};
use crate::passes::properties::PropertyTable;
use crate::passes::{SequentialProgram, write_issuing_statements};
use driver::print_driver;
use expr::Names;
use header::print_header_comment;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use thread::print_thread;

/// The C text of the sequential program.
pub fn print(program: &SequentialProgram, options: &TranslateOptions) -> String {
    print_with_sma(
        program,
        options,
        crate::sma::COMMON_HEADER,
        crate::sma::header(options.sma),
    )
}

/// The printed program with the table of its properties.
pub struct Printed {
    pub c_source: String,
    pub properties: PropertyTable,
}

/// The C text of the sequential program and the table of the properties
/// it checks.
pub fn print_with_properties(program: &SequentialProgram, options: &TranslateOptions) -> Printed {
    print_parts(
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
    print_parts(program, options, common, model).c_source
}

/// [`print_with_sma`], with the property table.
fn print_parts(
    program: &SequentialProgram,
    options: &TranslateOptions,
    common: &str,
    model: &str,
) -> Printed {
    let mut nondet = BTreeSet::new();
    let names = Names::new(program);
    let pc_bits = pc_bits(program);
    let mut threads = String::new();
    let mut properties = PropertyTable::default();
    for thread in &program.threads {
        print_thread(
            &mut threads,
            program,
            &names,
            thread,
            &mut nondet,
            options,
            &mut properties,
        );
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
    print_driver(&mut out, program, &names, options.split);
    Printed {
        c_source: out,
        properties,
    }
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
    if lazy_init(program) {
        out.push_str("#define SMA_LAZY_INIT\n");
    }
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
    let mut values = m.initial_values.clone();
    values.pad_to(m.location_count().max(1) as usize, 0);
    print_initial_values(out, &values);
}

/// Whether the SMA sets up each static location when an operation first
/// touches it (`SMA_LAZY_INIT`, `sma_touch` in `sma/common.h`) rather than
/// every one at the start, which CBMC unrolls location by location: beyond
/// [`LAZY_INIT_LOCATIONS`] locations when every access goes to a constant
/// location (or is dispatched over constant ones), where the set-up of a
/// touched location is a few constant stores (1,200 locations under TSO:
/// 0.6 s against 7.8 s); an access at a symbolic location would set up a
/// symbolic one, which costs CBMC more than the set-up of all (4,096
/// locations: over 120 s against 22 s), so such a program keeps the set-up
/// at the start up to [`EAGER_INIT_LOCATIONS`].
fn lazy_init(program: &SequentialProgram) -> bool {
    let locations = program.memory.location_count() as usize;
    if locations <= LAZY_INIT_LOCATIONS {
        return false;
    }
    let symbolic = |address: &crate::ir::Expr| {
        !matches!(address, crate::ir::Expr::Const(_))
            && !program
                .memory
                .indexed_object(address)
                .is_some_and(crate::passes::MemoryLayout::dispatches)
    };
    let symbolic_access = program
        .threads
        .iter()
        .flat_map(|thread| &thread.body)
        .filter_map(|stmt| stmt.access_address())
        .any(symbolic);
    !symbolic_access || locations > EAGER_INIT_LOCATIONS
}

/// The fewest locations for which the SMA's set-up may wait for the first
/// access ([`lazy_init`]): where the prologue's tables of fresh lists stop.
const LAZY_INIT_LOCATIONS: usize = 1000;

/// Beyond this many locations the set-up always waits for the first
/// access: CBMC could not unroll the set-up of all of them.
const EAGER_INIT_LOCATIONS: usize = 1 << 16;

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

/// The reachability properties are named by the passes, which place the
/// end of `main`; the printer writes them and `verify::reach` reads them.
use crate::passes::properties::{
    REACH_BLOCK_SIZE, REACH_BLOCKS_USED, REACH_END_OF_MAIN, REACH_POINTER_CUT,
};

/// The table of initial values `sma_initial_value`, or, beyond
/// [`CBMC_INITIALISER_LIMIT`] locations, the macro `SMA_INITIAL_VALUE(v)`
/// that `common.h` reads them with: each run of at least [`LONG_RUN`]
/// locations of one value is a range in the macro, and only the other
/// locations' values are listed (in rows of that many when they are more),
/// so that a large array of one value costs a few lines whatever its size.
fn print_initial_values(out: &mut String, values: &Runs<i64>) {
    if values.len() <= CBMC_INITIALISER_LIMIT {
        out.push_str("static const sma_value_t sma_initial_value[SMA_LOCATIONS] = {");
        print_list(
            out,
            &values
                .iter()
                .map(|v| expr::constant(*v))
                .collect::<Vec<_>>(),
        );
        out.push_str("\n};\n");
        return;
    }
    let segments = initial_value_segments(values);
    let listed: Vec<String> = segments
        .iter()
        .filter(|segment| segment.constant.is_none())
        .flat_map(|segment| segment.start..segment.end)
        .map(|location| expr::constant(values.get(location).copied().unwrap_or(0)))
        .collect();
    let read_listed = print_listed_values(out, &listed);
    // `(v) < end ? value : ...`, one branch per segment, the last without
    // a test (v is a location below SMA_LOCATIONS)
    let mut offset = 0;
    let mut branches = Vec::new();
    for segment in &segments {
        let value = match &segment.constant {
            Some(constant) => format!("({constant})"),
            None => {
                let index = format!("(v) - {}", segment.start as i64 - offset as i64);
                offset += segment.end - segment.start;
                read_listed(&index)
            }
        };
        branches.push((segment.end, value));
    }
    let mut chain = String::new();
    let last = branches.pop().map(|(_, value)| value).unwrap_or_default();
    for (end, value) in &branches {
        let _ = write!(chain, "(v) < {end} ? {value} : ");
    }
    let _ = writeln!(
        out,
        "/* the initial values by ranges of locations: runs of one value are not listed */\n\
         #define SMA_INITIAL_VALUE(v) ({chain}{last})"
    );
}

/// The fewest locations of one initial value that [`print_initial_values`]
/// gives as a range rather than listing them.
const LONG_RUN: usize = 64;

/// Consecutive locations `start..end` whose initial values are listed, or
/// are all `constant`.
struct Segment {
    start: usize,
    end: usize,
    constant: Option<String>,
}

/// `values` cut into runs of one value of at least [`LONG_RUN`] locations
/// and the stretches between them.
fn initial_value_segments(values: &Runs<i64>) -> Vec<Segment> {
    let mut segments: Vec<Segment> = Vec::new();
    let mut start = 0;
    for (value, run) in values.stretches() {
        if run >= LONG_RUN {
            segments.push(Segment {
                start,
                end: start + run,
                constant: Some(expr::constant(value)),
            });
        } else {
            match segments.last_mut() {
                Some(last) if last.constant.is_none() => last.end = start + run,
                _ => segments.push(Segment {
                    start,
                    end: start + run,
                    constant: None,
                }),
            }
        }
        start += run;
    }
    segments
}

/// Prints the table of the `listed` initial values (none when empty; in
/// rows when longer than [`CBMC_INITIALISER_LIMIT`]) and returns how C
/// reads its element at an index expression.
fn print_listed_values(out: &mut String, listed: &[String]) -> impl Fn(&str) -> String + use<> {
    let rows = listed.len().div_ceil(CBMC_INITIALISER_LIMIT);
    if rows > 1 {
        let _ = write!(
            out,
            "/* in rows of {CBMC_INITIALISER_LIMIT}: CBMC 5.12 cannot initialise a longer array from a list */\n\
             static const sma_value_t sma_initial_value_rows[{rows}][{CBMC_INITIALISER_LIMIT}] = {{"
        );
        for row in listed.chunks(CBMC_INITIALISER_LIMIT) {
            out.push_str("\n {");
            print_list(out, row);
            out.push_str("\n },");
        }
        out.push_str("\n};\n");
    } else if rows == 1 {
        let _ = write!(
            out,
            "static const sma_value_t sma_initial_value_listed[{}] = {{",
            listed.len()
        );
        print_list(out, listed);
        out.push_str("\n};\n");
    }
    move |index: &str| {
        if rows > 1 {
            format!(
                "sma_initial_value_rows[({index}) / {CBMC_INITIALISER_LIMIT}][({index}) % {CBMC_INITIALISER_LIMIT}]"
            )
        } else {
            format!("sma_initial_value_listed[{index}]")
        }
    }
}

/// The values of an initialiser list, 16 a line.
fn print_list(out: &mut String, values: &[String]) {
    for (i, v) in values.iter().enumerate() {
        if i % 16 == 0 {
            out.push_str("\n  ");
        }
        out.push_str(v);
        out.push_str(", ");
    }
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
}
