//! What the native engine declines before it runs, with the statement to
//! blame: data nondeterminism over more than 256 values (it never samples
//! values) and the math functions it does not compute (a `--bitwidth`
//! that narrows shared memory is modelled: `Machine::fits`). Everything else
//! it cannot model exactly it finds while running, and declines then.

use super::interpreter::code::{Code, Instr};
use crate::ir::{Expr, OriginId, Place, Ty};
use crate::ir::{collect_place, visit_expr as visit};
use crate::passes::{SeqStmt, SequentialProgram};

/// Why the native engine does not answer for a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declined {
    /// What it cannot model, and where (`file:line:column`).
    pub reason: String,
}

/// The first construct of the program the engine declines, if any.
pub fn check(program: &SequentialProgram, codes: &[Code]) -> Result<(), Declined> {
    for (slot, (thread, code)) in program.threads.iter().zip(codes).enumerate() {
        if thread.slot != slot {
            return Err(Declined {
                reason: format!("thread slot {} is not in its place {slot}", thread.slot),
            });
        }
        for (instr, origin) in code.instrs.iter().zip(&code.origins) {
            if let Some(what) = instr_declined(instr) {
                return Err(Declined {
                    reason: format!("{what} at {}", located(program, *origin)),
                });
            }
        }
    }
    Ok(())
}

/// `file:line:column` of an origin.
pub fn located(program: &SequentialProgram, origin: Option<OriginId>) -> String {
    match origin.and_then(|origin| program.map.origins.get(origin)) {
        Some(o) => format!("{}:{}:{}", o.file, o.line, o.column),
        None => "an unknown position".to_string(),
    }
}

fn instr_declined(instr: &Instr) -> Option<String> {
    let mut exprs: Vec<&Expr> = Vec::new();
    let mut places: Vec<&Place> = Vec::new();
    match instr {
        Instr::Jump(_) => {}
        Instr::BranchUnless { condition, .. } => exprs.push(condition),
        Instr::Do(stmt) => match stmt {
            SeqStmt::Malloc { target, size, .. } => {
                places.push(target);
                exprs.push(size);
            }
            SeqStmt::Free { address, .. } => exprs.push(address),
            SeqStmt::Assign(place, value) => {
                places.push(place);
                // a nondeterministic scalar assigned whole is left unknown
                // and declined only where an execution reads it
                if !matches!(value, Expr::Nondet(_)) {
                    exprs.push(value);
                }
            }
            SeqStmt::Read {
                target, address, ..
            } => {
                places.push(target);
                exprs.push(address);
            }
            SeqStmt::Write { address, value, .. } => exprs.extend([address, value]),
            SeqStmt::Rmw {
                target,
                address,
                operand,
                expected,
                ..
            } => {
                places.extend(target);
                exprs.extend([address, operand, expected]);
            }
            SeqStmt::Lock { address, .. } | SeqStmt::Unlock { address, .. } => exprs.push(address),
            SeqStmt::TryLock {
                target, address, ..
            } => {
                places.push(target);
                exprs.push(address);
            }
            SeqStmt::Assert { condition, .. }
            | SeqStmt::Assume(condition)
            | SeqStmt::Await { condition, .. }
            | SeqStmt::LoopBound { condition, .. } => exprs.push(condition),
            SeqStmt::Join { handle, .. } => exprs.push(handle),
            _ => {}
        },
    }
    for place in places {
        collect_place(place, &mut exprs);
    }
    let mut found = None;
    for expr in exprs {
        visit(expr, &mut |e| {
            if found.is_none() {
                found = expr_declined(e);
            }
        });
    }
    found
}

fn expr_declined(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Nondet(ty) => nondet_declined(ty),
        Expr::LibraryCall(function, _) => super::interpreter::float_library::unmodelled(function),
        _ => None,
    }
}

/// The reason for a nondeterministic value of `ty`: more than 256 values.
fn nondet_declined(ty: &Ty) -> Option<String> {
    match ty {
        Ty::Bool => None,
        Ty::Int { bits, .. } if *bits <= 8 => None,
        Ty::Int { bits, signed } => Some(format!(
            "a nondeterministic {} of {bits} bits has 2^{bits} values (the native engine explores at most 256)",
            if *signed { "int" } else { "unsigned int" }
        )),
        Ty::Float { bits } => Some(format!(
            "a nondeterministic {} has 2^{bits} values (the native engine explores at most 256)",
            if *bits <= 32 { "float" } else { "double" }
        )),
        _ => Some("a nondeterministic pointer or handle has 2^32 values (the native engine explores at most 256)".into()),
    }
}
