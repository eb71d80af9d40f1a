//! Which hardware can show a reduced cycle's weak outcome, from the
//! reorderings it needs: a store-load reordering (TSO's store buffer) on
//! x86-64 and every other TSO machine, a store-store reordering (PSO) not
//! on x86-64 but on ARM, POWER and RISC-V; and what the fix of a PSO
//! diagnosis leaves to those machines. Shared by both renderings.

use super::cycle_program::{CycleProgram, Relaxation};
use crate::options::MemoryModel;

/// The sentences (one a line, each under 76 characters) saying which
/// hardware shows the weak outcome and, `with_fences`, what the advised
/// fences (`WITH_FIX`) cover.
pub fn explanation(program: &CycleProgram, with_fences: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let needs: Vec<&str> = program
        .relaxations
        .iter()
        .map(|relaxation| match relaxation {
            Relaxation::StoreLoad => "store-load (a store still buffered when a later load reads)",
            Relaxation::StoreStore => "store-store (a store overtaking an earlier one)",
        })
        .collect();
    for (at, need) in needs.iter().enumerate() {
        let lead = if at == 0 {
            "Needs the reordering"
        } else {
            "and"
        };
        lines.push(format!("{lead} {need}."));
    }
    if program.needs_store_store() {
        lines.extend(
            [
                "A PSO-only reordering: x86-64 and other TSO machines never show it",
                "(they keep stores in order); ARM, POWER and RISC-V may.",
            ]
            .map(String::from),
        );
    } else {
        lines.extend(
            [
                "TSO's store buffer: x86-64 and every other TSO machine (SPARC TSO)",
                "can show it, and so can ARM, POWER and RISC-V.",
            ]
            .map(String::from),
        );
    }
    if with_fences && program.model == MemoryModel::Pso {
        lines.extend(
            [
                "The fences are those of the PSO diagnosis: on ARM, POWER and RISC-V",
                "loads may also reorder, which those fences do not forbid.",
            ]
            .map(String::from),
        );
    }
    lines
}
