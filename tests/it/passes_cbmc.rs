//! End-to-end tests of the passes and the printer: hand-built IR programs,
//! sequentialised with the stand-in SC memory, checked by gcc and CBMC.

use crate::passes_support;

use lazysma::ir::*;
use passes_support::*;

/// Thread function with one `void *` parameter and the given extra locals.
fn thread_locals(extra: &[(&'static str, Ty, bool)]) -> Vec<(&'static str, Ty, bool)> {
    let mut v = vec![("arg", Ty::Pointer(Box::new(Ty::Void)), false)];
    v.extend_from_slice(extra);
    v
}

/// Defines thread function `f`: the `void *arg` parameter, then `extra`
/// locals; returns `void *`.
fn define_thread(
    b: &mut Builder,
    f: FunctionId,
    extra: &[(&'static str, Ty, bool)],
    body: Vec<Stmt>,
) {
    b.define(
        f,
        1,
        &thread_locals(extra),
        Ty::Pointer(Box::new(Ty::Void)),
        body,
    );
}

/// `target = *address; assert(condition)`: a program's final check.
fn read_and_assert(b: &mut Builder, target: LocalId, address: &Expr, condition: Expr) -> Vec<Stmt> {
    vec![
        b.st(StmtKind::Read {
            target: local(target),
            address: address.clone(),
        }),
        b.st(StmtKind::Assert {
            condition,
            kind: PropertyKind::Assertion,
        }),
    ]
}

/// main: create each of `threads`, join them all, then `tail`.
fn main_creating(
    b: &mut Builder,
    main: FunctionId,
    threads: &[FunctionId],
    tail: Vec<Stmt>,
    extra_locals: &[(&str, Ty, bool)],
) {
    let mut locals: Vec<(&str, Ty, bool)> = vec![(
        "h",
        Ty::Array(Box::new(Ty::ThreadHandle), threads.len() as u64),
        false,
    )];
    locals.extend_from_slice(extra_locals);
    let mut body = Vec::new();
    for (i, f) in threads.iter().enumerate() {
        let handle = Place::Index(Box::new(local(0)), Box::new(c(i as i64)));
        body.push(b.st(StmtKind::ThreadCreate {
            handle,
            function: *f,
            argument: c(0),
        }));
    }
    for i in 0..threads.len() {
        let handle = Expr::Load(Place::Index(Box::new(local(0)), Box::new(c(i as i64))));
        body.push(b.st(StmtKind::ThreadJoin { handle }));
    }
    body.extend(tail);
    b.define(main, 0, &locals, int(), body);
    b.set_main(main);
}

/// Store buffering: `x = 1; r0 = y` || `y = 1; r1 = x`; `assert(!(r0 == 0 && r1 == 0))`.
fn store_buffering() -> Builder {
    let mut b = Builder::new();
    let x = b.global("x", 0);
    let y = b.global("y", 0);
    let r = [b.global("r0", 1), b.global("r1", 1)];
    let main = b.reserve("main");
    let t0 = b.reserve("t0");
    let t1 = b.reserve("t1");
    for (k, (f, (mine, other))) in [(t0, (&x, &y)), (t1, (&y, &x))].into_iter().enumerate() {
        let body = vec![
            b.st(StmtKind::Write {
                address: mine.clone(),
                value: c(1),
            }),
            b.st(StmtKind::Read {
                target: local(1),
                address: other.clone(),
            }),
            b.st(StmtKind::Write {
                address: r[k].clone(),
                value: load(1),
            }),
            b.st(StmtKind::Return(Some(c(0)))),
        ];
        define_thread(&mut b, f, &[("v", int(), false)], body);
    }
    let tail = vec![
        b.st(StmtKind::Read {
            target: local(1),
            address: r[0].clone(),
        }),
        b.st(StmtKind::Read {
            target: local(2),
            address: r[1].clone(),
        }),
        b.st(StmtKind::Assert {
            condition: Expr::Unary(
                UnaryOp::Not,
                Box::new(bin(
                    BinaryOp::LogicalAnd,
                    bin(BinaryOp::Eq, load(1), c(0)),
                    bin(BinaryOp::Eq, load(2), c(0)),
                )),
            ),
            kind: PropertyKind::Assertion,
        }),
    ];
    main_creating(
        &mut b,
        main,
        &[t0, t1],
        tail,
        &[("a", int(), false), ("b", int(), false)],
    );
    b
}

#[test]
fn store_buffering_is_safe_under_sc() {
    let b = store_buffering();
    let (_, text) = translate(&b.program, &options(2, 2));
    expect_verdict(&text, true, "SB under SC");
}

/// Increments `cnt` twice by `read; write` (lost update unless protected).
fn counter(protect: Option<&str>) -> Builder {
    let mut b = Builder::new();
    let cnt = b.global("cnt", 0);
    let m = b.mutex("m");
    let main = b.reserve("main");
    let inc = b.reserve(
        protect
            .filter(|p| p.starts_with("__VERIFIER"))
            .unwrap_or("inc"),
    );
    let workers = [b.reserve("w1"), b.reserve("w2")];
    let mut inc_body = vec![
        b.st(StmtKind::Read {
            target: local(0),
            address: cnt.clone(),
        }),
        b.st(StmtKind::Write {
            address: cnt.clone(),
            value: bin(BinaryOp::Add, load(0), c(1)),
        }),
    ];
    if protect == Some("mutex") {
        inc_body.insert(0, b.st(StmtKind::MutexLock(m.clone())));
        inc_body.push(b.st(StmtKind::MutexUnlock(m.clone())));
    }
    b.define(inc, 0, &[("tmp", int(), false)], Ty::Void, inc_body);
    for w in workers {
        let body = vec![b.st(StmtKind::Call {
            target: None,
            function: inc,
            arguments: vec![],
        })];
        define_thread(&mut b, w, &[], body);
    }
    let tail = read_and_assert(&mut b, 1, &cnt, bin(BinaryOp::Eq, load(1), c(2)));
    main_creating(&mut b, main, &workers, tail, &[("r", int(), false)]);
    b
}

#[test]
fn lost_update_is_found() {
    let (_, text) = translate(&counter(None).program, &options(2, 2));
    expect_verdict(&text, false, "unprotected counter");
}

#[test]
fn mutex_protected_counter_is_safe() {
    let (_, text) = translate(&counter(Some("mutex")).program, &options(2, 2));
    expect_verdict(&text, true, "mutex counter");
}

#[test]
fn atomic_function_counter_is_safe() {
    let b = counter(Some("__VERIFIER_atomic_inc"));
    assert!(b.program.functions.iter().any(|f| f.is_atomic));
    let (_, text) = translate(&b.program, &options(2, 2));
    expect_verdict(&text, true, "atomic counter");
}

/// t1: `x = 1; v = y; if (v == 1) x = 2;`
/// t2: `u = x; if (u == 1) y = 1; u = x; if (u == 2) flag = 1;`
/// The flag is set only by the schedule t1 t2 t1 t2 (two rounds).
fn ping_pong() -> Builder {
    let mut b = Builder::new();
    let x = b.global("x", 0);
    let y = b.global("y", 0);
    let flag = b.global("flag", 0);
    let main = b.reserve("main");
    let t1 = b.reserve("t1");
    let t2 = b.reserve("t2");
    let set_x2 = b.st(StmtKind::Write {
        address: x.clone(),
        value: c(2),
    });
    let body1 = vec![
        b.st(StmtKind::Write {
            address: x.clone(),
            value: c(1),
        }),
        b.st(StmtKind::Read {
            target: local(1),
            address: y.clone(),
        }),
        b.st(StmtKind::If {
            condition: bin(BinaryOp::Eq, load(1), c(1)),
            then_branch: vec![set_x2],
            else_branch: vec![],
        }),
    ];
    define_thread(&mut b, t1, &[("v", int(), false)], body1);
    let set_y = b.st(StmtKind::Write {
        address: y.clone(),
        value: c(1),
    });
    let set_flag = b.st(StmtKind::Write {
        address: flag.clone(),
        value: c(1),
    });
    let body2 = vec![
        b.st(StmtKind::Read {
            target: local(1),
            address: x.clone(),
        }),
        b.st(StmtKind::If {
            condition: bin(BinaryOp::Eq, load(1), c(1)),
            then_branch: vec![set_y],
            else_branch: vec![],
        }),
        b.st(StmtKind::Read {
            target: local(1),
            address: x.clone(),
        }),
        b.st(StmtKind::If {
            condition: bin(BinaryOp::Eq, load(1), c(2)),
            then_branch: vec![set_flag],
            else_branch: vec![],
        }),
    ];
    define_thread(&mut b, t2, &[("u", int(), false)], body2);
    let tail = read_and_assert(&mut b, 1, &flag, bin(BinaryOp::Eq, load(1), c(0)));
    main_creating(&mut b, main, &[t1, t2], tail, &[("f", int(), false)]);
    b
}

#[test]
fn violation_needing_two_rounds() {
    let b = ping_pong();
    let (_, one) = translate(&b.program, &options(1, 2));
    expect_verdict(&one, true, "ping-pong with one round");
    let (_, two) = translate(&b.program, &options(2, 2));
    expect_verdict(&two, false, "ping-pong with two rounds");
}

/// main: `for (i = 0; i < 2; i++) { tmp = cnt; cnt = tmp + 1; }` then
/// `assert(cnt != 2)`: reachable only when the loop is unwound twice.
fn counting_loop() -> Builder {
    let mut b = Builder::new();
    let cnt = b.global("cnt", 0);
    let main = b.reserve("main");
    let body = vec![
        b.st(StmtKind::Read {
            target: local(1),
            address: cnt.clone(),
        }),
        b.st(StmtKind::Write {
            address: cnt.clone(),
            value: bin(BinaryOp::Add, load(1), c(1)),
        }),
    ];
    let latch = vec![b.st(StmtKind::Assign(
        local(0),
        bin(BinaryOp::Add, load(0), c(1)),
    ))];
    let mut main_body = vec![
        b.st(StmtKind::Assign(local(0), c(0))),
        b.st(StmtKind::Loop {
            test_first: true,
            prelude: vec![],
            condition: bin(BinaryOp::Lt, load(0), c(2)),
            body,
            latch,
        }),
    ];
    main_body.extend(read_and_assert(
        &mut b,
        1,
        &cnt,
        bin(BinaryOp::Ne, load(1), c(2)),
    ));
    b.define(
        main,
        0,
        &[("i", int(), false), ("tmp", int(), false)],
        int(),
        main_body,
    );
    b.set_main(main);
    b
}

#[test]
fn loop_needs_unwind_two() {
    let b = counting_loop();
    let (_, one) = translate(&b.program, &options(1, 1));
    expect_verdict(
        &one,
        true,
        "loop unwound once (the exit assumption cuts the path)",
    );
    let (_, two) = translate(&b.program, &options(1, 2));
    expect_verdict(&two, false, "loop unwound twice");
}

/// main creates `worker(i)` for i = 0, 1 in a loop, joins them in a loop;
/// worker: `done[arg] = 1`.
fn creation_in_loop(assert_both: bool) -> Builder {
    let mut b = Builder::new();
    let done = b.global_array("done", 2);
    let main = b.reserve("main");
    let worker = b.reserve("worker");
    let wbody = vec![b.st(StmtKind::Write {
        address: at(&done, load(0)),
        value: c(1),
    })];
    define_thread(&mut b, worker, &[], wbody);
    let handle = |i: LocalId| Place::Index(Box::new(local(0)), Box::new(load(i)));
    let create = b.st(StmtKind::ThreadCreate {
        handle: handle(1),
        function: worker,
        argument: load(1),
    });
    let join = b.st(StmtKind::ThreadJoin {
        handle: Expr::Load(handle(1)),
    });
    let inc = b.st(StmtKind::Assign(
        local(1),
        bin(BinaryOp::Add, load(1), c(1)),
    ));
    let reset = b.st(StmtKind::Assign(local(1), c(0)));
    let loop_of = |b: &mut Builder, s: Stmt| {
        b.st(StmtKind::Loop {
            test_first: true,
            prelude: vec![],
            condition: bin(BinaryOp::Lt, load(1), c(2)),
            body: vec![s],
            latch: vec![inc.clone()],
        })
    };
    let create_loop = loop_of(&mut b, create);
    let join_loop = loop_of(&mut b, join);
    let condition = if assert_both {
        bin(
            BinaryOp::LogicalAnd,
            bin(BinaryOp::Eq, load(2), c(1)),
            bin(BinaryOp::Eq, load(3), c(1)),
        )
    } else {
        bin(BinaryOp::Eq, load(3), c(0))
    };
    let body = vec![
        reset.clone(),
        create_loop,
        reset,
        join_loop,
        b.st(StmtKind::Read {
            target: local(2),
            address: at(&done, c(0)),
        }),
        b.st(StmtKind::Read {
            target: local(3),
            address: at(&done, c(1)),
        }),
        b.st(StmtKind::Assert {
            condition,
            kind: PropertyKind::Assertion,
        }),
    ];
    let locals = [
        ("h", Ty::Array(Box::new(Ty::ThreadHandle), 2), false),
        ("i", int(), false),
        ("d0", int(), false),
        ("d1", int(), false),
    ];
    b.define(main, 0, &locals, int(), body);
    b.set_main(main);
    b
}

#[test]
fn threads_created_in_a_loop_get_their_arguments_and_are_joined() {
    let (seq, text) = translate(&creation_in_loop(true).program, &options(2, 2));
    assert_eq!(seq.threads.len(), 3, "main and two workers");
    expect_verdict(&text, true, "both workers ran before the joins returned");
    let (_, text) = translate(&creation_in_loop(false).program, &options(2, 2));
    expect_verdict(&text, false, "worker 1 sets done[1]");
}

/// main: create t; [join t;] read x; assert(x == 1) where t: x = 1.
fn join_program(join: bool) -> Builder {
    let mut b = Builder::new();
    let x = b.global("x", 0);
    let main = b.reserve("main");
    let t = b.reserve("t");
    let tbody = vec![b.st(StmtKind::Write {
        address: x.clone(),
        value: c(1),
    })];
    define_thread(&mut b, t, &[], tbody);
    let mut body = vec![b.st(StmtKind::ThreadCreate {
        handle: local(0),
        function: t,
        argument: c(0),
    })];
    if join {
        body.push(b.st(StmtKind::ThreadJoin { handle: load(0) }));
    }
    body.extend(read_and_assert(
        &mut b,
        1,
        &x,
        bin(BinaryOp::Eq, load(1), c(1)),
    ));
    b.define(
        main,
        0,
        &[("h", Ty::ThreadHandle, false), ("r", int(), false)],
        int(),
        body,
    );
    b.set_main(main);
    b
}

#[test]
fn join_waits_for_the_thread() {
    let (_, text) = translate(&join_program(true).program, &options(2, 2));
    expect_verdict(&text, true, "joined");
    let (_, text) = translate(&join_program(false).program, &options(2, 2));
    expect_verdict(&text, false, "not joined");
}

/// A shared (address-taken) local of a thread, passed by address to an
/// inlined function with an early return; the thread then writes a global.
fn shared_local_and_early_return() -> Builder {
    let mut b = Builder::new();
    let out = b.global("out", 0);
    let main = b.reserve("main");
    let get = b.reserve("get");
    // int get(int *p) { if (*p > 5) return 7; return *p + 1; }
    let early = b.st(StmtKind::Return(Some(c(7))));
    let get_body = vec![
        b.st(StmtKind::Read {
            target: local(1),
            address: load(0),
        }),
        b.st(StmtKind::If {
            condition: bin(BinaryOp::Gt, load(1), c(5)),
            then_branch: vec![early],
            else_branch: vec![],
        }),
        b.st(StmtKind::Return(Some(bin(BinaryOp::Add, load(1), c(1))))),
    ];
    b.define(
        get,
        1,
        &[
            ("p", Ty::Pointer(Box::new(int())), false),
            ("v", int(), false),
        ],
        int(),
        get_body,
    );
    // main: int s = 9 (shared); r = get(&s); out = r; assert(out == 7)
    let mut body = vec![
        b.st(StmtKind::Write {
            address: Expr::ObjectAddress(0),
            value: c(9),
        }),
        b.st(StmtKind::Call {
            target: Some(local(1)),
            function: get,
            arguments: vec![Expr::ObjectAddress(0)],
        }),
        b.st(StmtKind::Write {
            address: out.clone(),
            value: load(1),
        }),
    ];
    body.extend(read_and_assert(
        &mut b,
        2,
        &out,
        bin(BinaryOp::Eq, load(2), c(7)),
    ));
    b.define(
        main,
        0,
        &[("s", int(), true), ("r", int(), false), ("o", int(), false)],
        int(),
        body,
    );
    b.set_main(main);
    b
}

#[test]
fn inlined_early_return_and_shared_local() {
    let (seq, text) = translate(&shared_local_and_early_return().program, &options(1, 1));
    assert!(
        seq.map.locations.iter().any(|n| n.name == "main#0::s"),
        "{:?}",
        seq.map.locations
    );
    expect_verdict(&text, true, "early return yields 7");
}

/// main: `p = calloc(2); p[1] = 5; create t(p); join; assert(out == 5)`;
/// t: `out = ((int *)arg)[1]`.
fn heap_program(expected: i64) -> Builder {
    let mut b = Builder::new();
    b.program.heap_block_size = 2;
    let out = b.global("out", 0);
    let main = b.reserve("main");
    let t = b.reserve("t");
    let tbody = vec![
        b.st(StmtKind::Read {
            target: local(1),
            address: at(&load(0), c(1)),
        }),
        b.st(StmtKind::Write {
            address: out.clone(),
            value: load(1),
        }),
    ];
    define_thread(&mut b, t, &[("v", int(), false)], tbody);
    let mut body = vec![
        b.st(StmtKind::Malloc {
            target: local(0),
            size: c(2),
            zeroed: true,
        }),
        b.st(StmtKind::Write {
            address: at(&load(0), c(1)),
            value: c(5),
        }),
        b.st(StmtKind::ThreadCreate {
            handle: local(1),
            function: t,
            argument: load(0),
        }),
        b.st(StmtKind::ThreadJoin { handle: load(1) }),
    ];
    body.extend(read_and_assert(
        &mut b,
        2,
        &out,
        bin(BinaryOp::Eq, load(2), c(expected)),
    ));
    let locals = [
        ("p", Ty::Pointer(Box::new(int())), false),
        ("h", Ty::ThreadHandle, false),
        ("r", int(), false),
    ];
    b.define(main, 0, &locals, int(), body);
    b.set_main(main);
    b
}

#[test]
fn heap_blocks_are_shared_through_the_thread_argument() {
    let (seq, text) = translate(&heap_program(5).program, &options(2, 1));
    // one allocation: one block of the two --nmalloc allows is all it can take
    assert_eq!(
        seq.map
            .locations
            .name(seq.map.locations.len() - 1)
            .as_deref(),
        Some("heap#0[1]")
    );
    assert_eq!(
        (
            seq.memory.heap_blocks,
            seq.memory.heap_needs.map(|needs| needs.blocks)
        ),
        (1, Some(1))
    );
    expect_verdict(&text, true, "the thread reads the heap block main filled");
    let (_, text) = translate(&heap_program(6).program, &options(2, 1));
    expect_verdict(&text, false, "the value is 5, not 6");
}

/// The shipped SMA headers (`sma/*.h`), unless they are still placeholders.
fn shipped_sma_available() -> bool {
    let available = !lazysma::sma::COMMON_HEADER.contains("placeholder");
    if !available {
        eprintln!("sma/common.h is a placeholder: shipped-SMA test not run");
    }
    available
}

#[test]
fn store_buffering_with_the_shipped_memory_models() {
    if !shipped_sma_available() {
        return;
    }
    use lazysma::options::SmaImplementation;
    let b = store_buffering();
    for (sma, safe) in [
        (SmaImplementation::Sc, true),
        (SmaImplementation::Etso, false),
    ] {
        let options = lazysma::options::TranslateOptions {
            sma,
            ..options(2, 1)
        };
        let seq = lazysma::passes::sequentialise(&b.program, &options).expect("sequentialises");
        let text = lazysma::printer::print(&seq, &options);
        expect_verdict(&text, safe, &format!("SB with {}", sma.name()));
    }
}
