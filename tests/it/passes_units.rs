//! Unit tests of each pass on hand-built IR: inlining, unrolling, thread
//! instantiation and the lazy guard numbering, plus printer determinism.

use crate::passes_support;
use crate::support;

use lazysma::ir::*;
use lazysma::passes::walk::{LabelGen, for_each_stmt};
use lazysma::passes::{SeqStmt, SeqThread, inline, instantiate, sequentialise, unroll};
use passes_support::*;
use std::collections::HashSet;

fn kinds(block: &Block) -> Vec<StmtKind> {
    let mut out = Vec::new();
    for_each_stmt(block, &mut |k| out.push(k.clone()));
    out
}

fn count(block: &Block, pred: impl Fn(&StmtKind) -> bool) -> usize {
    kinds(block).iter().filter(|k| pred(k)).count()
}

/// All sequential statements in textual order.
fn flatten(body: &[SeqStmt], out: &mut Vec<SeqStmt>) {
    for s in body {
        out.push(s.clone());
        if let SeqStmt::If {
            then_branch,
            else_branch,
            ..
        } = s
        {
            flatten(then_branch, out);
            flatten(else_branch, out);
        }
    }
}

/// `int f(int a) { int v = a; if (v > 1) return 5; return v; }` and
/// `main: r = f(3); x = r;`
fn call_program(atomic: bool) -> (Builder, FunctionId) {
    let mut b = Builder::new();
    let x = b.global("x", 0);
    let main = b.reserve("main");
    let f = b.reserve(if atomic { "__VERIFIER_atomic_f" } else { "f" });
    let early = b.st(StmtKind::Return(Some(c(5))));
    let body = vec![
        b.st(StmtKind::Assign(local(1), load(0))),
        b.st(StmtKind::Write {
            address: x.clone(),
            value: load(1),
        }),
        b.st(StmtKind::If {
            condition: bin(BinaryOp::Gt, load(1), c(1)),
            then_branch: vec![early],
            else_branch: vec![],
        }),
        b.st(StmtKind::Return(Some(load(1)))),
    ];
    b.define(
        f,
        1,
        &[("a", int(), false), ("v", int(), false)],
        int(),
        body,
    );
    let main_body = vec![
        b.st(StmtKind::Call {
            target: Some(local(0)),
            function: f,
            arguments: vec![c(3)],
        }),
        b.st(StmtKind::Write {
            address: x,
            value: load(0),
        }),
    ];
    b.define(main, 0, &[("r", int(), false)], int(), main_body);
    b.set_main(main);
    (b, main)
}

#[test]
fn inlining_replaces_calls_returns_and_locals() {
    let (b, main) = call_program(false);
    let mut labels = LabelGen::for_program(&b.program);
    let f = inline::inline_function(&b.program, main, &mut labels).expect("inlines");
    assert!(!inline::has_calls(&f.body));
    assert_eq!(f.locals.len(), 3, "r plus the callee's a and v");
    assert_eq!(f.locals[1].name, "f_a");
    // The parameter is assigned the argument, into the fresh local.
    assert_eq!(f.body[0].kind, StmtKind::Assign(Place::Local(1), c(3)));
    // The early return: `r = 5; goto end`, and the end label follows the copy.
    let all = kinds(&f.body);
    assert!(all.contains(&StmtKind::Assign(Place::Local(0), c(5))));
    let gotos: Vec<LabelId> = all
        .iter()
        .filter_map(|k| {
            if let StmtKind::Goto(l) = k {
                Some(*l)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(gotos.len(), 1);
    assert!(
        matches!(f.body.iter().rev().nth(1).map(|s| &s.kind), Some(StmtKind::Label(l, _)) if *l == gotos[0])
    );
    // The final return became a plain assignment.
    assert!(all.contains(&StmtKind::Assign(Place::Local(0), load(2))));
    assert_eq!(count(&f.body, |k| matches!(k, StmtKind::Return(_))), 0);
}

#[test]
fn atomic_functions_are_wrapped() {
    let (b, main) = call_program(true);
    let mut labels = LabelGen::for_program(&b.program);
    let f = inline::inline_function(&b.program, main, &mut labels).expect("inlines");
    assert_eq!(
        f.body.first().map(|s| &s.kind),
        Some(&StmtKind::AtomicBegin)
    );
    assert_eq!(count(&f.body, |k| matches!(k, StmtKind::AtomicEnd)), 1);
    // No guard inside the atomic section: main has guard 0, the section,
    // the write after it and the end: 4 guards.
    let seq = sequentialise(&b.program, &options(1, 1)).expect("sequentialises");
    let mut flat = Vec::new();
    flatten(&seq.threads[0].body, &mut flat);
    let guards = flat
        .iter()
        .filter(|s| matches!(s, SeqStmt::Guard(_)))
        .count();
    assert_eq!(guards, 4);
    assert_eq!(seq.threads[0].lines, 4);
    assert_eq!(seq.memory.heap_blocks, 0, "no heap without malloc");
    assert_eq!(
        seq.memory.location_count() as usize,
        seq.map.locations.len()
    );
}

#[test]
fn recursion_is_refused_at_the_call() {
    let mut b = Builder::new();
    let main = b.reserve("main");
    let f = b.reserve("f");
    let g = b.reserve("g");
    let call_g = b.st(StmtKind::Call {
        target: None,
        function: g,
        arguments: vec![],
    });
    b.define(f, 0, &[], Ty::Void, vec![call_g]);
    let call_f_again = b.st(StmtKind::Call {
        target: None,
        function: f,
        arguments: vec![],
    });
    let line = b.program.origins[call_f_again.origin].line;
    b.define(g, 0, &[], Ty::Void, vec![call_f_again]);
    let call_f = b.st(StmtKind::Call {
        target: None,
        function: f,
        arguments: vec![],
    });
    b.define(main, 0, &[], int(), vec![call_f]);
    b.set_main(main);
    let error = sequentialise(&b.program, &options(1, 1)).expect_err("recursion");
    assert!(error.message.contains("recursion"), "{}", error.message);
    assert_eq!(error.line, line);
    assert_eq!(error.file.to_string_lossy(), "test.c");
}

/// `while (i < 9) { if (i == 4) break; x = i; i = i + 1; }`
fn while_loop(b: &mut Builder, test_first: bool) -> Stmt {
    let x = b.global("x", 0);
    let brk = b.st(StmtKind::Break);
    let body = vec![
        b.st(StmtKind::If {
            condition: bin(BinaryOp::Eq, load(0), c(4)),
            then_branch: vec![brk],
            else_branch: vec![],
        }),
        b.st(StmtKind::Write {
            address: x,
            value: load(0),
        }),
        b.st(StmtKind::Continue),
    ];
    let latch = vec![b.st(StmtKind::Assign(
        local(0),
        bin(BinaryOp::Add, load(0), c(1)),
    ))];
    b.st(StmtKind::Loop {
        test_first,
        prelude: vec![],
        condition: bin(BinaryOp::Lt, load(0), c(9)),
        body,
        latch,
    })
}

/// No loop with its own depth (`--unwindset`).
static NO_OWN_DEPTHS: std::collections::BTreeMap<usize, u32> = std::collections::BTreeMap::new();

fn unrolling(unwind: u32, assertions: bool) -> unroll::Unrolling<'static> {
    unroll::Unrolling {
        unwind,
        assertions,
        own: &NO_OWN_DEPTHS,
    }
}

#[test]
fn unwinding_assertions_precede_the_closing_assumption() {
    let mut b = Builder::new();
    let l = while_loop(&mut b, true);
    let mut labels = LabelGen::for_program(&b.program);
    let plain = unroll::unroll_block(&vec![l.clone()], unrolling(3, false), &mut labels);
    let is_unwinding = |k: &StmtKind| {
        matches!(
            k,
            StmtKind::Assert {
                kind: PropertyKind::UnwindingAssertion,
                ..
            }
        )
    };
    assert_eq!(count(&plain, is_unwinding), 0);
    let asserted = unroll::unroll_block(&vec![l], unrolling(3, true), &mut labels);
    assert_eq!(count(&asserted, is_unwinding), 1);
    assert_eq!(
        count(&asserted, |k| matches!(k, StmtKind::LoopBound(_))),
        1,
        "the assumption stays"
    );
    let order: Vec<&str> = kinds(&asserted)
        .iter()
        .filter_map(|k| match k {
            StmtKind::Assert { .. } => Some("assert"),
            StmtKind::LoopBound(_) => Some("assume"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["assert", "assume"]);
}

#[test]
fn a_loop_nothing_leaves_is_closed_by_a_plain_assumption_not_a_bound() {
    let mut b = Builder::new();
    let x = b.global("x", 0);
    let forever = |b: &mut Builder, body: Vec<Stmt>| {
        b.st(StmtKind::Loop {
            test_first: true,
            prelude: vec![],
            condition: c(1),
            body,
            latch: vec![],
        })
    };
    // while (1) x = 0;  no execution leaves it at any depth
    let write = b.st(StmtKind::Write {
        address: x.clone(),
        value: c(0),
    });
    let endless = forever(&mut b, vec![write.clone()]);
    let mut labels = LabelGen::for_program(&b.program);
    let out = unroll::unroll_block(&vec![endless], unrolling(2, false), &mut labels);
    assert_eq!(count(&out, |k| matches!(k, StmtKind::LoopBound(_))), 0);
    assert_eq!(count(&out, |k| matches!(k, StmtKind::Assume(_))), 1);
    // while (1) { x = 0; break; }  the bound cuts the executions that stay
    let brk = b.st(StmtKind::Break);
    let leaving = forever(&mut b, vec![write, brk]);
    let out = unroll::unroll_block(&vec![leaving], unrolling(2, false), &mut labels);
    assert_eq!(count(&out, |k| matches!(k, StmtKind::LoopBound(_))), 1);
}

#[test]
fn unrolling_makes_nested_copies_and_forward_jumps() {
    let mut b = Builder::new();
    let l = while_loop(&mut b, true);
    let mut labels = LabelGen::for_program(&b.program);
    let out = unroll::unroll_block(&vec![l], unrolling(3, false), &mut labels);
    assert_eq!(count(&out, |k| matches!(k, StmtKind::Loop { .. })), 0);
    assert_eq!(count(&out, |k| matches!(k, StmtKind::Write { .. })), 3);
    assert_eq!(
        count(&out, |k| matches!(k, StmtKind::LoopBound(_))),
        1,
        "one closing assumption"
    );
    // Test first: the first statement is the test of copy 1.
    assert!(matches!(out[0].kind, StmtKind::If { .. }));
    let labels_defined: Vec<LabelId> = kinds(&out)
        .iter()
        .filter_map(|k| {
            if let StmtKind::Label(l, _) = k {
                Some(*l)
            } else {
                None
            }
        })
        .collect();
    let unique: HashSet<_> = labels_defined.iter().collect();
    assert_eq!(unique.len(), labels_defined.len(), "labels are unique");
    // Every goto is forward and hits a defined label: break -> exit, continue -> latch.
    let mut seen = HashSet::new();
    for k in kinds(&out) {
        match k {
            StmtKind::Goto(l) => assert!(!seen.contains(&l) && unique.contains(&l)),
            StmtKind::Label(l, _) => {
                seen.insert(l);
            }
            _ => {}
        }
    }
    assert_eq!(
        count(&out, |k| matches!(k, StmtKind::Goto(_))),
        6,
        "3 breaks and 3 continues"
    );
    // The loop exit is the last statement.
    assert!(matches!(
        out.last().map(|s| &s.kind),
        Some(StmtKind::Label(..))
    ));
}

#[test]
fn do_while_runs_the_body_first_and_nested_loops_multiply() {
    let mut b = Builder::new();
    let inner = while_loop(&mut b, true);
    let outer = b.st(StmtKind::Loop {
        test_first: false,
        prelude: vec![],
        condition: c(1),
        body: vec![inner],
        latch: vec![],
    });
    let mut labels = LabelGen::for_program(&b.program);
    let out = unroll::unroll_block(&vec![outer], unrolling(2, false), &mut labels);
    assert_eq!(count(&out, |k| matches!(k, StmtKind::Write { .. })), 4);
    assert_eq!(
        count(&out, |k| matches!(k, StmtKind::LoopBound(_))),
        3,
        "two inner closings and one outer"
    );
    // Body first: the outer do-while starts with the inner loop's first test.
    assert!(
        matches!(&out[0].kind, StmtKind::If { condition, .. } if *condition == bin(BinaryOp::Lt, load(0), c(9)))
    );
}

/// main creates `worker` in a loop of three iterations; each worker has a
/// shared local `s`.
fn workers(creates_itself: bool) -> Builder {
    let mut b = Builder::new();
    let main = b.reserve("main");
    let worker = b.reserve("worker");
    let mut wbody = vec![b.st(StmtKind::Write {
        address: Expr::ObjectAddress(1),
        value: c(1),
    })];
    if creates_itself {
        wbody.push(b.st(StmtKind::ThreadCreate {
            handle: local(2),
            function: worker,
            argument: c(0),
        }));
    }
    let locals = [
        ("arg", Ty::Pointer(Box::new(Ty::Void)), false),
        ("s", Ty::Array(Box::new(int()), 2), true),
        ("h", Ty::ThreadHandle, false),
    ];
    b.define(worker, 1, &locals, Ty::Pointer(Box::new(Ty::Void)), wbody);
    let create = b.st(StmtKind::ThreadCreate {
        handle: local(1),
        function: worker,
        argument: c(0),
    });
    let latch = vec![b.st(StmtKind::Assign(
        local(0),
        bin(BinaryOp::Add, load(0), c(1)),
    ))];
    let body = vec![
        b.st(StmtKind::Malloc {
            target: local(2),
            size: c(1),
            zeroed: false,
        }),
        b.st(StmtKind::Assign(local(0), c(0))),
        b.st(StmtKind::Loop {
            test_first: true,
            prelude: vec![],
            condition: bin(BinaryOp::Lt, load(0), c(3)),
            body: vec![create],
            latch,
        }),
    ];
    b.define(
        main,
        0,
        &[
            ("i", int(), false),
            ("h", Ty::ThreadHandle, false),
            ("p", Ty::Pointer(Box::new(int())), false),
        ],
        int(),
        body,
    );
    b.set_main(main);
    b
}

#[test]
fn instantiation_gives_each_creation_site_a_slot_and_memory() {
    let b = workers(false);
    let mut o = options(2, 3);
    o.bounds.nmalloc = 2;
    let mut labels = LabelGen::for_program(&b.program);
    let instances = instantiate::instantiate(&b.program, &o, &mut labels).expect("instantiates");
    assert_eq!(
        instances.threads.len(),
        4,
        "main and three unrolled creations"
    );
    assert_eq!(instances.threads[0].created, vec![1, 2, 3]);
    let slots: Vec<(String, u32)> = instances
        .slots()
        .into_iter()
        .map(|s| (s.function, s.instance))
        .collect();
    assert_eq!(slots[3], ("worker".to_string(), 2));
    let names: Vec<String> = instances.locations.iter().map(|l| l.name).collect();
    assert_eq!(names[1], "worker#0::s[0]");
    assert_eq!(names[2], "worker#0::s[1]");
    assert_eq!(names[5], "worker#2::s[0]");
    assert_eq!(instances.memory.heap_base, 7);
    // main's one allocation takes one block of the two --nmalloc allows
    assert_eq!(names[7], "heap#0[0]");
    assert_eq!(names.len(), 8);
    assert_eq!(instances.memory.heap_blocks, 1);
    assert_eq!(names.len() as u32, instances.memory.location_count());
    // Each copy writes its own array.
    for (k, thread) in instances.threads.iter().enumerate().skip(1) {
        assert!(!instantiate::has_object_address(&thread.body));
        let expected = StmtKind::Write {
            address: Expr::Const(1 + 2 * (k as i64 - 1)),
            value: c(1),
        };
        assert!(kinds(&thread.body).contains(&expected), "{:?}", thread.body);
    }
}

#[test]
fn copies_of_a_loop_no_execution_reaches_create_no_threads() {
    // the creation loop runs three times; at --unwind 5 its fourth and
    // fifth copies are unreachable (i is 3 there), so two slots are not made
    let b = workers(false);
    let mut labels = LabelGen::for_program(&b.program);
    let instances =
        instantiate::instantiate(&b.program, &options(2, 5), &mut labels).expect("instantiates");
    assert_eq!(instances.threads.len(), 4, "main and three creations");
    assert!(
        instances.warnings.is_empty(),
        "the loop ends within the bound"
    );
    // at --unwind 2 the loop cannot end: two creations, and nothing after the
    // loop matters, so no warning
    let instances =
        instantiate::instantiate(&b.program, &options(2, 2), &mut labels).expect("instantiates");
    assert_eq!(instances.threads.len(), 3);
    assert!(instances.warnings.is_empty());
}

#[test]
fn unbounded_thread_creation_is_refused() {
    let b = workers(true);
    let error = sequentialise(&b.program, &options(2, 2)).expect_err("unbounded");
    assert!(error.message.contains("unbounded"), "{}", error.message);
}

/// `if (c) { x = 1; ...(then_writes stores) } else { r = y; x = 2; } fence; r = x`,
/// sequentialised.
fn branching_thread(then_writes: i64) -> SeqThread {
    let mut b = Builder::new();
    let x = b.global("x", 0);
    let y = b.global("y", 0);
    let main = b.reserve("main");
    let then_branch = (1..=then_writes)
        .map(|value| {
            b.st(StmtKind::Write {
                address: x.clone(),
                value: c(value),
            })
        })
        .collect();
    let else_branch = vec![
        b.st(StmtKind::Read {
            target: local(0),
            address: y.clone(),
        }),
        b.st(StmtKind::Write {
            address: x.clone(),
            value: c(2),
        }),
    ];
    let body = vec![
        b.st(StmtKind::If {
            condition: Expr::Nondet(Ty::Bool),
            then_branch,
            else_branch,
        }),
        b.st(StmtKind::Fence(FenceKind::Full)),
        b.st(StmtKind::Read {
            target: local(0),
            address: x,
        }),
    ];
    b.define(main, 0, &[("r", int(), false)], int(), body);
    b.set_main(main);
    let mut seq = sequentialise(&b.program, &options(2, 1)).expect("sequentialises");
    seq.threads.remove(0)
}

fn guard_numbers(thread: &SeqThread) -> Vec<u32> {
    let mut flat = Vec::new();
    flatten(&thread.body, &mut flat);
    flat.iter()
        .filter_map(|s| {
            if let SeqStmt::Guard(i) = s {
                Some(*i)
            } else {
                None
            }
        })
        .collect()
}

fn the_if(thread: &SeqThread) -> (usize, &[SeqStmt], &[SeqStmt]) {
    thread
        .body
        .iter()
        .enumerate()
        .find_map(|(k, s)| match s {
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => Some((k, then_branch.as_slice(), else_branch.as_slice())),
            _ => None,
        })
        .expect("an if")
}

#[test]
fn guards_number_visible_statements_and_joins_forbid_skipped_switches() {
    let thread = branching_thread(2);
    // 0 (entry), 1-2 (then), 3-4 (else), 5 fence, 6 read, 7 end.
    assert_eq!(thread.lines, 8);
    assert_eq!(guard_numbers(&thread), (0..8).collect::<Vec<_>>());
    let (at, then_branch, else_branch) = the_if(&thread);
    assert_eq!(
        thread.body[at - 1],
        SeqStmt::Guard(1),
        "the branch's opening guard stands before the if"
    );
    assert!(
        matches!(then_branch.first(), Some(SeqStmt::Write { .. })),
        "{then_branch:?}"
    );
    assert_eq!(then_branch.get(1), Some(&SeqStmt::Guard(2)));
    assert_eq!(
        else_branch.first(),
        Some(&SeqStmt::ResumeCheck(3)),
        "else skips switch point 2: it starts with assume(cs >= 3)"
    );
    assert_eq!(
        thread.body[at + 1],
        SeqStmt::ResumeCheck(5),
        "join: assume(cs >= 5) before guard 5"
    );
    assert_eq!(thread.body[at + 2], SeqStmt::Guard(5));
    let mut flat = Vec::new();
    flatten(&thread.body, &mut flat);
    assert_eq!(
        flat.last(),
        Some(&SeqStmt::Guard(thread.lines - 1)),
        "the thread ends after its last guard"
    );
}

#[test]
fn a_branch_with_one_switch_point_has_it_before_the_if_and_skips_none() {
    // `a && b` of shared reads lowers to this shape; a guard inside the
    // branch made CBMC's path conditions grow exponentially along a chain
    let thread = branching_thread(1);
    assert_eq!(guard_numbers(&thread), (0..7).collect::<Vec<_>>());
    let (at, then_branch, else_branch) = the_if(&thread);
    assert_eq!(thread.body[at - 1], SeqStmt::Guard(1));
    assert!(
        !then_branch
            .iter()
            .any(|s| matches!(s, SeqStmt::Guard(_) | SeqStmt::ResumeCheck(_)))
    );
    assert_eq!(
        else_branch.first(),
        Some(&SeqStmt::Guard(2)),
        "the else skips no switch point"
    );
    assert_eq!(
        thread.body[at + 1],
        SeqStmt::ResumeCheck(4),
        "the else's switch points are skipped by the then branch"
    );
}

#[test]
fn backward_goto_is_refused() {
    let mut b = Builder::new();
    let main = b.reserve("main");
    let body = vec![
        b.st(StmtKind::Label(0, "again".into())),
        b.st(StmtKind::Goto(0)),
    ];
    b.define(main, 0, &[], int(), body);
    b.set_main(main);
    let error = sequentialise(&b.program, &options(1, 1)).expect_err("backward goto");
    assert!(error.message.contains("backward"), "{}", error.message);
}

#[test]
fn printing_is_deterministic_and_fast() {
    let b = workers(false);
    let start = std::time::Instant::now();
    let (_, first) = translate(&b.program, &options(3, 8));
    let elapsed = start.elapsed();
    let (_, second) = translate(&b.program, &options(3, 8));
    assert_eq!(first, second);
    assert!(elapsed.as_millis() < 500, "translation took {elapsed:?}");
    if let Some(Err(e)) = gcc_accepts(&first) {
        panic!("gcc rejects the output:\n{e}");
    }
}

#[test]
fn properties_carry_their_source_position() {
    let mut b = Builder::new();
    let main = b.reserve("main");
    let assertion = b.st(StmtKind::Assert {
        condition: bin(BinaryOp::Eq, load(0), c(1)),
        kind: PropertyKind::Assertion,
    });
    let error = b.st(StmtKind::Assert {
        condition: c(1),
        kind: PropertyKind::ErrorCall,
    });
    let (line, text) = (
        b.program.origins[assertion.origin].line,
        b.program.origins[assertion.origin].text.clone(),
    );
    b.define(
        main,
        0,
        &[("r", int(), false)],
        int(),
        vec![assertion, error],
    );
    b.set_main(main);
    let seq = sequentialise(&b.program, &options(1, 1)).expect("sequentialises");
    let asserts: Vec<&SeqStmt> = seq.threads[0]
        .body
        .iter()
        .filter(|s| matches!(s, SeqStmt::Assert { .. }))
        .collect();
    assert_eq!(asserts.len(), 2);
    let SeqStmt::Assert { description, .. } = asserts[0] else {
        unreachable!()
    };
    assert_eq!(description, &format!("test.c:{line}: {text}"));
    let SeqStmt::Assert { condition, .. } = asserts[1] else {
        unreachable!()
    };
    assert_eq!(condition, &c(0), "reaching an error call is the violation");
}

#[test]
fn definite_assignment_finds_locals_read_before_assigned() {
    use lazysma::passes::definite::read_before_assigned;
    let assign = |id: LocalId, e: Expr| SeqStmt::Assign(local(id), e);
    let body = vec![
        SeqStmt::Guard(0),
        // 0 is assigned before its read; 1 only in one branch; 2 read first.
        assign(0, c(1)),
        SeqStmt::If {
            condition: load(0),
            then_branch: vec![assign(1, c(2))],
            else_branch: vec![],
        },
        assign(3, bin(BinaryOp::Add, load(1), load(2))),
        // 4 is assigned on both branches; 5 is set before a goto that skips
        // its other assignment, and the label's other entry assigns it too.
        SeqStmt::If {
            condition: load(3),
            then_branch: vec![assign(4, c(0)), assign(5, c(0)), SeqStmt::Goto(7)],
            else_branch: vec![assign(4, c(1))],
        },
        assign(5, load(4)),
        SeqStmt::Label(7),
        SeqStmt::Assert {
            condition: bin(BinaryOp::Eq, load(5), load(0)),
            description: String::new(),
        },
        // 6 is skipped by a goto from a path that did not assign it.
        SeqStmt::If {
            condition: load(3),
            then_branch: vec![SeqStmt::Goto(8)],
            else_branch: vec![],
        },
        assign(6, c(3)),
        SeqStmt::Label(8),
        SeqStmt::Assume(load(6)),
    ];
    let early: Vec<LocalId> = read_before_assigned(&body).into_iter().collect();
    assert_eq!(early, vec![1, 2, 6]);
}

#[test]
fn main_runs_its_prefix_in_round_zero_and_its_joined_suffix_last() {
    let path = support::corpus_dir()
        .join("litmus")
        .join("visible")
        .join("SB.c");
    let options = lazysma::options::TranslateOptions::default();
    let text = match lazysma::translate::translate(&path, &options) {
        Ok(t) => t.c_source,
        Err(e) => panic!("SB.c: {e}"),
    };
    // SB's main writes four variables, creates two threads (statements 5
    // and 6), joins them (7 and 8) and reads from statement 9 on.
    assert!(
        text.contains("if (lazy_later || lazy_pc[0] > 4 || 4 >= lazy_cs)"),
        "{text}"
    );
    assert!(
        text.contains("if (lazy_pc[0] > 5 || 5 >= lazy_cs)"),
        "{text}"
    );
    assert!(
        text.contains("if (!lazy_final || lazy_pc[0] > 9 || 9 >= lazy_cs)"),
        "{text}"
    );
    assert!(
        text.contains("__CPROVER_assume(5 <= lazy_cs && lazy_cs <= 9);\n  thread0_main(0, 0);"),
        "{text}"
    );
    assert!(
        text.contains("lazy_cs <= 9);\n    thread0_main(1, 0);"),
        "{text}"
    );
    assert!(
        text.contains("lazy_cs <= lazy_lines[0]);\n    thread0_main(1, 1);"),
        "{text}"
    );
}

#[test]
fn an_else_branch_opening_with_a_switch_point_has_it_before_the_if_when_the_then_branch_has_none() {
    // `a || b` of shared reads lowers to this shape
    let thread = branching_thread(0);
    assert_eq!(guard_numbers(&thread), (0..6).collect::<Vec<_>>());
    let (at, then_branch, else_branch) = the_if(&thread);
    assert_eq!(
        thread.body[at - 1],
        SeqStmt::Guard(1),
        "the else branch's opening guard stands before the if"
    );
    assert!(then_branch.is_empty(), "{then_branch:?}");
    assert!(
        matches!(else_branch.first(), Some(SeqStmt::Read { .. })),
        "{else_branch:?}"
    );
    assert_eq!(else_branch.get(1), Some(&SeqStmt::Guard(2)));
    assert_eq!(
        thread.body[at + 1],
        SeqStmt::ResumeCheck(3),
        "the then branch skips switch point 2"
    );
}

/// `atomic_begin; if (*) { [end_inside: atomic_end; goto out] } else {}; x = 1;
/// atomic_end; out: x = 2`, sequentialised; `end_inside: false` ends the
/// section in the then branch only and falls through.
fn atomic_section_with_an_early_exit(
    end_inside: bool,
) -> Result<SeqThread, Box<lazysma::diagnostics::Diagnostic>> {
    let mut b = Builder::new();
    let x = b.global("x", 0);
    let main = b.reserve("main");
    let mut then_branch = vec![b.st(StmtKind::AtomicEnd)];
    if end_inside {
        then_branch.push(b.st(StmtKind::Goto(0)));
    }
    let body = vec![
        b.st(StmtKind::AtomicBegin),
        b.st(StmtKind::If {
            condition: Expr::Nondet(Ty::Bool),
            then_branch,
            else_branch: vec![],
        }),
        b.st(StmtKind::Write {
            address: x.clone(),
            value: c(1),
        }),
        b.st(StmtKind::AtomicEnd),
        b.st(StmtKind::Label(0, "out".into())),
        b.st(StmtKind::Write {
            address: x,
            value: c(2),
        }),
    ];
    b.define(main, 0, &[], int(), body);
    b.set_main(main);
    let mut seq = sequentialise(&b.program, &options(2, 1))?;
    Ok(seq.threads.remove(0))
}

#[test]
fn a_path_that_leaves_an_atomic_section_early_leaves_the_others_inside() {
    // the write after the if is inside the section on the one path that
    // reaches it: no switch point before it (there was one when the
    // then branch's end closed the section for the rest of the walk)
    let thread = atomic_section_with_an_early_exit(true).expect("sequentialises");
    let mut flat = Vec::new();
    flatten(&thread.body, &mut flat);
    let writes: Vec<usize> = flat
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, SeqStmt::Write { .. }))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(writes.len(), 2, "{flat:?}");
    assert!(
        !matches!(flat[writes[0] - 1], SeqStmt::Guard(_)),
        "no switch point inside the section: {flat:?}"
    );
    assert!(
        matches!(flat[writes[1] - 1], SeqStmt::Guard(_)),
        "a switch point after it: {flat:?}"
    );
    // a section closed on one path only is refused where the paths meet
    let error = atomic_section_with_an_early_exit(false).expect_err("paths disagree");
    assert!(
        error.message.contains("open on some paths"),
        "{}",
        error.message
    );
}
