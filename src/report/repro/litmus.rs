//! A reduced cycle as a herd C litmus test (`C name`, the init block,
//! threads `Pn(int *x, ...)` with `WRITE_ONCE` and `READ_ONCE`, and the
//! weak outcome as the `exists` clause), which herd7 and lazysma read
//! (`frontend::source::herd_litmus`). The advised fences are left out:
//! the test asks whether the weak outcome is allowed.

use super::cycle_program::{Access, CycleProgram, outcome_terms};
use super::hardware;
use std::fmt::Write as _;

/// The litmus test of `program`, named after `name` (the file's stem).
pub fn render(program: &CycleProgram, name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "C {}\n", test_name(name));
    comment(&mut out, program);
    let initial: Vec<String> = program
        .locations
        .iter()
        .map(|location| format!("{}={};", location.name, location.initial))
        .collect();
    let _ = writeln!(out, "{{ {} }}\n", initial.join(" "));
    let parameters: Vec<String> = program
        .locations
        .iter()
        .map(|location| format!("int *{}", location.name))
        .collect();
    for (index, thread) in program.threads.iter().enumerate() {
        let _ = writeln!(out, "P{index}({})\n{{", parameters.join(", "));
        for register in 0..thread.registers {
            let _ = writeln!(out, "\tint r{register};");
        }
        for access in &thread.accesses {
            statement(&mut out, access, program);
        }
        out.push_str("}\n\n");
    }
    let _ = writeln!(out, "exists ({})", exists_clause(program));
    out
}

/// A herd test name: letters, digits and `+-_.` of `name`.
fn test_name(name: &str) -> String {
    let kept: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "+-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if kept.is_empty() {
        "repro".to_string()
    } else {
        kept
    }
}

fn comment(out: &mut String, program: &CycleProgram) {
    let _ = writeln!(
        out,
        "(*\n * Written by lazysma from {}, a violation under {}:\n \
         * the happens-before cycle of its witness, reduced to the accesses\n \
         * the cycle needs.",
        program.source,
        program.model.to_string().to_uppercase()
    );
    for (index, thread) in program.threads.iter().enumerate() {
        let _ = writeln!(out, " * P{index} is {}.", thread.source_name);
    }
    for location in &program.locations {
        if location.name != location.source_name {
            let _ = writeln!(out, " * {} is {}.", location.name, location.source_name);
        }
    }
    for line in hardware::explanation(program, false) {
        let _ = writeln!(out, " * {line}");
    }
    out.push_str(" *)\n\n");
}

fn statement(out: &mut String, access: &Access, program: &CycleProgram) {
    let _ = match access {
        Access::Store {
            location, value, ..
        } => writeln!(
            out,
            "\tWRITE_ONCE(*{}, {value});",
            program.locations[*location].name
        ),
        Access::Load {
            location, register, ..
        } => writeln!(
            out,
            "\tr{register} = READ_ONCE(*{});",
            program.locations[*location].name
        ),
        Access::Fence { .. } => Ok(()),
    };
}

/// The weak outcome as herd writes it: `0:r0=0 /\ 1:r0=0 /\ x=2`.
fn exists_clause(program: &CycleProgram) -> String {
    outcome_terms(
        program,
        |thread, register, value| format!("{thread}:r{register}={value}"),
        |location, value| format!("{location}={value}"),
        " /\\ ",
    )
}
