//! The round-robin driver of the lazy scheme, in `main`: the contexts of
//! each thread per round, with main's first and last statements run where
//! no other thread can act.

use super::REACH_END_OF_MAIN;
use super::expr::Names;
use crate::ir::{Expr, Place};
use crate::options::Split;
use crate::passes::{SeqStmt, SeqThread, SequentialProgram, creates_threads, nested_creation};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The number of main's visible statements before its first thread
/// creation (all but the final one when it creates none). No other thread
/// is active before it, so main's first context may as well run them all:
/// the driver forces that, and later rounds skip them.
pub(super) fn main_prefix(main: &SeqThread) -> u32 {
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
pub(super) fn main_suffix(program: &SequentialProgram) -> u32 {
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

pub(super) fn print_driver(
    out: &mut String,
    program: &SequentialProgram,
    names: &Names,
    split: Option<Split>,
) {
    out.push_str("\n/* driver: round-robin schedule of the thread functions */\nint main(void)\n{\n  sma_init();\n  lazy_active[0] = 1;\n");
    if split.is_some() {
        out.push_str("  lazy_pc_t lazy_split = 0;\n");
    }
    // --split: the sum of the first round's guesses names an execution's part
    let sum = if split.is_some() {
        "lazy_split += lazy_cs; "
    } else {
        ""
    };
    let prefix = program.threads.first().map(main_prefix).unwrap_or(0);
    let suffix = main_suffix(program);
    let run = |out: &mut String, thread: &SeqThread, round: u32| {
        let sum = if round == 0 { sum } else { "" };
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
                "  lazy_cs = nondet_lazy_pc();\n  __CPROVER_assume({prefix} <= lazy_cs && lazy_cs <= {end});\n  {sum}{function}({arguments});\n  lazy_pc[0] = lazy_cs;"
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
        let _ = writeln!(out, "    {sum}{function}({arguments});");
        let _ = writeln!(out, "    lazy_pc[{t}] = lazy_cs;\n  }}");
    };
    for round in 0..program.rounds {
        let _ = writeln!(out, "  /* round {round} */");
        for thread in &program.threads {
            run(out, thread, round);
        }
        if let (0, Some(split)) = (round, split) {
            let _ = writeln!(
                out,
                "  /* --split {split}: this part's executions alone */\n  __CPROVER_assume(lazy_split % {} == {});",
                split.parts,
                split.part - 1
            );
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
