//! Inlining: replaces every `Call` by a copy of the callee's body with fresh
//! locals and labels; `return` becomes an assignment to the call's target and
//! a forward jump to the end of the copy. Recursion is refused.

use super::diagnostic_at;
use super::walk::{LabelGen, for_each_stmt, relabel, remap_locals, try_map_nested_blocks};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Block, Expr, Function, FunctionId, LabelId, Local, Place, Program, Stmt, StmtKind,
};

/// `function` with every call inlined (transitively).
pub fn inline_function(
    program: &Program,
    function: FunctionId,
    labels: &mut LabelGen,
) -> Result<Function, Box<Diagnostic>> {
    let Some(original) = program.functions.get(function) else {
        return Err(diagnostic_at(
            program,
            0,
            format!("function #{function} does not exist"),
            "here".into(),
            None,
        ));
    };
    let mut result = original.clone();
    let mut stack = vec![function];
    let mut locals = std::mem::take(&mut result.locals);
    let body = inline_block(program, &original.body, &mut locals, &mut stack, labels)?;
    result.locals = locals;
    result.body = if original.is_atomic {
        atomic(body, original.origin)
    } else {
        body
    };
    Ok(result)
}

fn atomic(body: Block, origin: usize) -> Block {
    let mut out = Vec::with_capacity(body.len() + 2);
    out.push(Stmt {
        kind: StmtKind::AtomicBegin,
        origin,
    });
    out.extend(body);
    out.push(Stmt {
        kind: StmtKind::AtomicEnd,
        origin,
    });
    out
}

fn inline_block(
    program: &Program,
    block: &Block,
    locals: &mut Vec<Local>,
    stack: &mut Vec<FunctionId>,
    labels: &mut LabelGen,
) -> Result<Block, Box<Diagnostic>> {
    let mut out = Vec::with_capacity(block.len());
    for stmt in block {
        match &stmt.kind {
            StmtKind::Call {
                target,
                function,
                arguments,
            } => {
                out.extend(inline_call(
                    program,
                    stmt.origin,
                    target.as_ref(),
                    *function,
                    arguments,
                    locals,
                    stack,
                    labels,
                )?);
            }
            _ => out.push(try_map_nested_blocks(stmt, &mut |nested| {
                inline_block(program, nested, locals, stack, labels)
            })?),
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn inline_call(
    program: &Program,
    origin: usize,
    target: Option<&Place>,
    function: FunctionId,
    arguments: &[Expr],
    locals: &mut Vec<Local>,
    stack: &mut Vec<FunctionId>,
    labels: &mut LabelGen,
) -> Result<Block, Box<Diagnostic>> {
    let Some(callee) = program.functions.get(function) else {
        return Err(diagnostic_at(
            program,
            origin,
            "call of an unknown function".into(),
            "called here".into(),
            None,
        ));
    };
    if stack.contains(&function) {
        return Err(diagnostic_at(
            program,
            origin,
            "recursion is not supported".into(),
            format!("`{}` is called again while it is running", callee.name),
            Some("rewrite the recursion as a loop; lazysma inlines every call".into()),
        ));
    }
    if arguments.len() < callee.params.len() {
        return Err(diagnostic_at(
            program,
            origin,
            format!(
                "`{}` is called with {} arguments but takes {}",
                callee.name,
                arguments.len(),
                callee.params.len()
            ),
            "called here".into(),
            None,
        ));
    }
    let base = locals.len();
    let map: Vec<usize> = (0..callee.locals.len()).map(|i| base + i).collect();
    locals.extend(callee.locals.iter().map(|l| Local {
        name: format!("{}_{}", callee.name, l.name),
        ..l.clone()
    }));
    let mut body = callee.body.clone();
    remap_locals(&mut body, &map);
    relabel(&mut body, labels);
    stack.push(function);
    let inlined = inline_block(program, &body, locals, stack, labels);
    stack.pop();
    let mut inlined = inlined?;

    let mut out = Vec::new();
    for (param, argument) in callee.params.iter().zip(arguments) {
        let Some(&local) = map.get(*param) else {
            continue;
        };
        let kind = if callee.locals.get(*param).is_some_and(|l| l.shared) {
            StmtKind::Write {
                address: Expr::ObjectAddress(local),
                value: argument.clone(),
            }
        } else {
            StmtKind::Assign(Place::Local(local), argument.clone())
        };
        out.push(Stmt { kind, origin });
    }
    let end = labels.fresh();
    if matches!(inlined.last().map(|s| &s.kind), Some(StmtKind::Return(_))) {
        // A final `return` needs no jump: the end of the copy follows.
        if let Some(last) = inlined.pop()
            && let (StmtKind::Return(Some(value)), Some(target)) = (&last.kind, target)
        {
            inlined.push(Stmt {
                kind: StmtKind::Assign(target.clone(), value.clone()),
                origin: last.origin,
            });
        }
    }
    let jumps = replace_returns(&mut inlined, target, end);
    out.extend(inlined);
    if jumps {
        out.push(Stmt {
            kind: StmtKind::Label(end, format!("{}_end", callee.name)),
            origin,
        });
    }
    Ok(if callee.is_atomic {
        atomic(out, origin)
    } else {
        out
    })
}

/// Rewrites each `return e` into `target = e; goto end`; whether any was found.
fn replace_returns(block: &mut Block, target: Option<&Place>, end: LabelId) -> bool {
    let mut found = false;
    replace_in(block, target, end, &mut found);
    found
}

fn replace_in(block: &mut Block, target: Option<&Place>, end: LabelId, found: &mut bool) {
    let mut i = 0;
    while i < block.len() {
        let origin = block[i].origin;
        match &mut block[i].kind {
            StmtKind::Return(value) => {
                *found = true;
                let assign = match (value.take(), target) {
                    (Some(v), Some(t)) => Some(Stmt {
                        kind: StmtKind::Assign(t.clone(), v),
                        origin,
                    }),
                    _ => None,
                };
                block[i].kind = StmtKind::Goto(end);
                if let Some(a) = assign {
                    block.insert(i, a);
                    i += 1;
                }
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                replace_in(then_branch, target, end, found);
                replace_in(else_branch, target, end, found);
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                replace_in(prelude, target, end, found);
                replace_in(body, target, end, found);
                replace_in(latch, target, end, found);
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether `block` still contains a call (used by tests and checks).
pub fn has_calls(block: &Block) -> bool {
    let mut found = false;
    for_each_stmt(block, &mut |k| found |= matches!(k, StmtKind::Call { .. }));
    found
}
