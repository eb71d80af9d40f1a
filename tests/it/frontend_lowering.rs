//! Structural checks of the lowering of small programs: which statements
//! are visible reads and writes, location layout, evaluation order,
//! short-circuit, builtins, and located diagnostics.

use lazysma::frontend::{self, FrontendError};
use lazysma::ir::*;
use lazysma::options::TranslateOptions;

fn lower(source: &str) -> Result<Program, FrontendError> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("prog.c");
    std::fs::write(&path, source).expect("write program");
    frontend::load(&path, &TranslateOptions::default())
}

fn ok(source: &str) -> Program {
    match lower(source) {
        Ok(p) => p,
        Err(FrontendError::Source(d)) => {
            panic!("{}:{}: {} ({})", d.line, d.column, d.message, d.label)
        }
        Err(e) => panic!("{e}"),
    }
}

fn diagnostic(source: &str) -> lazysma::diagnostics::Diagnostic {
    match lower(source) {
        Err(FrontendError::Source(d)) => *d,
        Err(e) => panic!("expected a diagnostic, got {e}"),
        Ok(_) => panic!("expected a diagnostic, the program lowered"),
    }
}

fn function<'p>(p: &'p Program, name: &str) -> &'p Function {
    p.functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn location(p: &Program, name: &str) -> i64 {
    p.locations
        .iter()
        .position(|l| l.name == name)
        .unwrap_or_else(|| panic!("no location {name}")) as i64
}

/// The statements of a block with nested blocks flattened, in order.
fn flat(block: &Block) -> Vec<&StmtKind> {
    let mut out = Vec::new();
    for s in block {
        out.push(&s.kind);
        match &s.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                out.extend(flat(then_branch));
                out.extend(flat(else_branch));
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                out.extend(flat(prelude));
                out.extend(flat(body));
                out.extend(flat(latch));
            }
            _ => {}
        }
    }
    out
}

/// A compact trace of the visible statements: R(addr) / W(addr) / F / ...
/// The visible accesses as [`visible`] names them: `R3` reads location 3.
fn accesses(kinds_and_locations: &[(&str, i64)]) -> Vec<String> {
    kinds_and_locations
        .iter()
        .map(|(kind, location)| format!("{kind}{location}"))
        .collect()
}

fn visible(block: &Block) -> Vec<String> {
    flat(block)
        .into_iter()
        .filter_map(|k| match k {
            StmtKind::Read {
                address: Expr::Const(a),
                ..
            } => Some(format!("R{a}")),
            StmtKind::Read { .. } => Some("R?".into()),
            StmtKind::Write {
                address: Expr::Const(a),
                ..
            } => Some(format!("W{a}")),
            StmtKind::Write { .. } => Some("W?".into()),
            StmtKind::Rmw {
                address: Expr::Const(a),
                ..
            } => Some(format!("RMW{a}")),
            StmtKind::Rmw { .. } => Some("RMW?".into()),
            StmtKind::Fence(FenceKind::Full) => Some("F".into()),
            StmtKind::Fence(FenceKind::StoreStore) => Some("FSS".into()),
            StmtKind::MutexLock(_) => Some("L".into()),
            StmtKind::MutexUnlock(_) => Some("U".into()),
            StmtKind::ThreadCreate { .. } => Some("C".into()),
            StmtKind::ThreadJoin { .. } => Some("J".into()),
            _ => None,
        })
        .collect()
}

#[test]
fn global_to_global_copy_is_a_read_then_a_write() {
    let p = ok("int r1, y;\nint main(void) { r1 = y; return 0; }\n");
    let (r1, y) = (location(&p, "r1"), location(&p, "y"));
    assert_eq!((r1, y), (1, 2));
    let body = &function(&p, "main").body;
    match (&body[0].kind, &body[1].kind) {
        (
            StmtKind::Read {
                target: Place::Local(t),
                address: Expr::Const(2),
            },
            StmtKind::Write {
                address: Expr::Const(1),
                value: Expr::Load(Place::Local(u)),
            },
        ) => {
            assert_eq!(t, u)
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn locations_are_flattened_with_names_and_initial_values() {
    let p = ok(
        "struct node { int v; struct node *next; };\nstruct q { int n; struct node data[2]; };\nint vars[2];\nstruct node s;\nstruct q q;\nint x = 5;\nint *px = &vars[1];\nint main(void) { return 0; }\n",
    );
    let names: Vec<String> = p.locations.iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        [
            "NULL",
            "vars[0]",
            "vars[1]",
            "s.v",
            "s.next",
            "q.n",
            "q.data[0].v",
            "q.data[0].next",
            "q.data[1].v",
            "q.data[1].next",
            "x",
            "px"
        ]
    );
    assert_eq!(p.locations.get(10).expect("a location").initial, 5);
    assert_eq!(
        p.locations.get(11).expect("a location").initial,
        2,
        "px points at vars[1]"
    );
    assert_eq!(p.locations.get(6).expect("a location").object, "q");
}

#[test]
fn evaluation_order_and_private_arithmetic() {
    let p = ok("int x, y, z;\nint main(void) { int a = 3; x = y + z * a; return 0; }\n");
    assert_eq!(visible(&function(&p, "main").body), ["R2", "R3", "W1"]);
}

#[test]
fn increments_and_compound_assignments_read_then_write() {
    let p = ok("int x, y;\nint main(void) { x++; y += x; return 0; }\n");
    assert_eq!(
        visible(&function(&p, "main").body),
        ["R1", "W1", "R2", "R1", "W2"]
    );
}

#[test]
fn short_circuit_keeps_the_second_read_conditional() {
    let p = ok("int x, y;\nint main(void) { int r = 0; if (x && y) r = 1; return r; }\n");
    let body = &function(&p, "main").body;
    // Read x at top level; the read of y only inside an If.
    let top: Vec<String> = visible(
        &body
            .iter()
            .filter(|s| !matches!(s.kind, StmtKind::If { .. }))
            .cloned()
            .collect(),
    );
    assert_eq!(top, ["R1"]);
    let nested = body.iter().find_map(|s| match &s.kind {
        StmtKind::If { then_branch, .. } if visible(then_branch) == ["R2"] => Some(()),
        _ => None,
    });
    assert!(nested.is_some(), "{body:#?}");
}

#[test]
fn pure_conditions_stay_expressions() {
    let p = ok("int main(void) { int a = 1, b = 2, r = 0; if (a && b) r = 1; return r; }\n");
    let body = &function(&p, "main").body;
    let conditions: Vec<&Expr> = body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::If { condition, .. } => Some(condition),
            _ => None,
        })
        .collect();
    assert!(
        matches!(conditions[0], Expr::Binary(BinaryOp::LogicalAnd, _, _)),
        "{conditions:?}"
    );
}

#[test]
fn while_loop_reads_its_condition_in_the_prelude() {
    let p = ok("int flag;\nint main(void) { while (flag != 0) { } return 0; }\n");
    let body = &function(&p, "main").body;
    match &body[0].kind {
        StmtKind::Loop {
            test_first: true,
            prelude,
            condition: Expr::Binary(BinaryOp::Ne, _, _),
            body,
            latch,
        } => {
            assert_eq!(visible(prelude), ["R1"]);
            assert!(body.is_empty() && latch.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn for_and_do_loops() {
    let p = ok(
        "int x;\nint main(void) { for (int i = 0; i < 2; i++) x = i; do { x = 0; } while (x); return 0; }\n",
    );
    let body = &function(&p, "main").body;
    let loops: Vec<&StmtKind> = body
        .iter()
        .map(|s| &s.kind)
        .filter(|k| matches!(k, StmtKind::Loop { .. }))
        .collect();
    assert_eq!(loops.len(), 2);
    match loops[0] {
        StmtKind::Loop {
            test_first: true,
            latch,
            ..
        } => assert!(!latch.is_empty()),
        other => panic!("{other:?}"),
    }
    match loops[1] {
        StmtKind::Loop {
            test_first: false,
            prelude,
            ..
        } => assert_eq!(visible(prelude), ["R1"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn threads_mutexes_and_joins() {
    let p = ok(
        "#include <pthread.h>\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nint c;\npthread_t h2;\nvoid *t(void *arg) { pthread_mutex_lock(&m); c = c + 1; pthread_mutex_unlock(&m); return NULL; }\nint main(void) { pthread_t h; pthread_create(&h, NULL, t, NULL); pthread_create(&h2, 0, t, 0); pthread_join(h, NULL); return 0; }\n",
    );
    let m = location(&p, "m");
    assert!(p.locations.get(m as usize).expect("a location").is_mutex);
    assert_eq!(p.plain_globals.len(), 1);
    assert_eq!(p.plain_globals[0].ty, Ty::ThreadHandle);
    assert_eq!(visible(&function(&p, "t").body), ["L", "R2", "W2", "U"]);
    let main = function(&p, "main");
    assert_eq!(visible(&main.body), ["C", "C", "J"]);
    let t_id = p.functions.iter().position(|f| f.name == "t");
    let creates: Vec<&StmtKind> = main
        .body
        .iter()
        .map(|s| &s.kind)
        .filter(|k| matches!(k, StmtKind::ThreadCreate { .. }))
        .collect();
    match creates[1] {
        StmtKind::ThreadCreate {
            handle: Place::PlainGlobal(0),
            function,
            ..
        } => assert_eq!(Some(*function), t_id),
        other => panic!("{other:?}"),
    }
    assert!(
        main.locals.iter().all(|l| !l.shared),
        "pthread_t locals stay private"
    );
}

#[test]
fn address_taken_locals_are_shared() {
    let p = ok("int main(void) { int a = 0; int b = 1; int *p = &a; *p = 2; return a + b; }\n");
    let main = function(&p, "main");
    let a = main.locals.iter().position(|l| l.name == "a").expect("a");
    let b = main.locals.iter().position(|l| l.name == "b").expect("b");
    assert!(main.locals[a].shared);
    assert!(!main.locals[b].shared);
    let writes: Vec<&StmtKind> = flat(&main.body)
        .into_iter()
        .filter(|k| matches!(k, StmtKind::Write { .. }))
        .collect();
    assert!(
        matches!(writes[0], StmtKind::Write { address: Expr::ObjectAddress(x), .. } if *x == a)
    );
    assert!(matches!(
        writes[1],
        StmtKind::Write {
            address: Expr::Load(_),
            ..
        }
    ));
}

#[test]
fn pointer_arithmetic_scales_by_scalars() {
    let p = ok(
        "struct s { int a, b, c; };\nstruct s arr[3];\nint main(void) { struct s *q = &arr[0]; q = q + 2; q->c = 7; arr[1].b = 1; return 0; }\n",
    );
    let main = function(&p, "main");
    let kinds = flat(&main.body);
    assert!(
        kinds.iter().any(|k| matches!(
            k,
            StmtKind::Write {
                address: Expr::Const(5),
                value: Expr::Const(1)
            }
        )),
        "arr[1].b is location 5: {kinds:#?}"
    );
    assert!(kinds.iter().any(|k| matches!(k, StmtKind::Assign(_, Expr::Binary(BinaryOp::Add, _, r)) if **r == Expr::Const(6))), "q + 2 adds 6 scalars");
}

#[test]
fn heap_allocation_counts_scalars() {
    let p = ok(
        "#include <stdlib.h>\nstruct node { int v; struct node *next; };\nstruct node *head;\nint main(void) { struct node *n = malloc(sizeof(struct node)); n->v = 1; head = n; free(n); return 0; }\n",
    );
    assert_eq!(p.heap_block_size, 2);
    let kinds = flat(&function(&p, "main").body);
    assert!(kinds.iter().any(|k| matches!(
        k,
        StmtKind::Malloc {
            size: Expr::Const(2),
            zeroed: false,
            ..
        }
    )));
    assert!(kinds.iter().any(|k| matches!(k, StmtKind::Free(_))));
}

#[test]
fn fences_in_their_spellings() {
    let p = ok(
        "int x;\nint main(void) { x = 1; __asm__ __volatile__(\"mfence\" ::: \"memory\"); __sync_synchronize(); asm volatile(\"\" ::: \"memory\"); __asm__(\"lwsync\"); __asm__ __volatile__(\"sync\" ::: \"memory\"); return 0; }\n",
    );
    assert_eq!(
        visible(&function(&p, "main").body),
        ["W1", "F", "F", "FSS", "F"]
    );
}

#[test]
fn assembly_fences_and_instructions_without_a_memory_effect() {
    let p = ok(
        "int x;\nint main(void) { x = 1; asm volatile(\"lock; addl $0,0(%%rsp)\" ::: \"memory\", \"cc\"); asm volatile(\"pause\"); __asm__(\"lock\\n\\torq $0, (%rsp)\"); asm(\"sfence; nop\"); return 0; }\n",
    );
    assert_eq!(visible(&function(&p, "main").body), ["W1", "F", "F", "FSS"]);
}

#[test]
fn ignored_calls_keep_the_effects_of_their_arguments() {
    // printf does nothing, but x++ and y = 2 in its arguments happen; the
    // plain read of x for printing is not needed
    let p = ok(
        "#include <stdio.h>\nint x, y;\nint main(void) { printf(\"%d %d %d\\n\", x++, y = 2, x); return 0; }\n",
    );
    assert_eq!(visible(&function(&p, "main").body), ["R1", "W1", "W2"]);
}

#[test]
fn structs_copy_between_private_and_shared_memory_scalar_by_scalar() {
    let p = ok(
        "struct pair { int a; int b[2]; };\nstruct pair g;\nint main(void) { struct pair l = g; l.a = 5; g = l; struct pair m; m = g; return m.b[1]; }\n",
    );
    let (a, b0, b1) = (
        location(&p, "g.a"),
        location(&p, "g.b[0]"),
        location(&p, "g.b[1]"),
    );
    let expected = accesses(&[
        ("R", a),
        ("R", b0),
        ("R", b1),
        ("W", a),
        ("W", b0),
        ("W", b1),
        ("R", a),
        ("R", b0),
        ("R", b1),
    ]);
    assert_eq!(visible(&function(&p, "main").body), expected);
}

#[test]
fn struct_arguments_and_results_copy_shared_memory_scalar_by_scalar() {
    let p = ok(
        "struct pair { int a; int b[2]; };\nstruct pair g;\nint first(struct pair p) { p.a = 1; return p.a + p.b[0]; }\nstruct pair same(struct pair p) { return p; }\nint main(void) { g = same(g); return first(g); }\n",
    );
    let (a, b0, b1) = (
        location(&p, "g.a"),
        location(&p, "g.b[0]"),
        location(&p, "g.b[1]"),
    );
    let expected = accesses(&[
        ("R", a),
        ("R", b0),
        ("R", b1),
        ("W", a),
        ("W", b0),
        ("W", b1),
        ("R", a),
        ("R", b0),
        ("R", b1),
    ]);
    assert_eq!(visible(&function(&p, "main").body), expected);
    // the callees work on private copies
    assert!(visible(&function(&p, "first").body).is_empty());
    assert!(visible(&function(&p, "same").body).is_empty());
}

#[test]
fn char_arrays_take_their_string_and_its_length() {
    let p = ok(
        "char word[] = \"hi\";\nchar name[4] = \"\\xff\";\nint main(void) { return word[0]; }\n",
    );
    let initial = |name: &str| {
        p.locations
            .get(location(&p, name) as usize)
            .expect("a location")
            .initial
    };
    assert_eq!(
        [initial("word[0]"), initial("word[1]"), initial("word[2]")],
        [104, 105, 0]
    );
    assert!(p.locations.iter().all(|l| l.name != "word[3]"));
    // a plain char is signed
    assert_eq!(
        [initial("name[0]"), initial("name[1]"), initial("name[3]")],
        [-1, 0, 0]
    );
    // a braced string initialises the first string of an array of strings
    let p = ok(
        "char one[1][4] = { \"abc\" };\nchar two[][3] = { \"x\" };\nint main(void) { char l[1][4] = { \"ab\" }; return l[0][1] + one[0][2] + two[0][0]; }\n",
    );
    let initial = |name: &str| {
        p.locations
            .get(location(&p, name) as usize)
            .expect("a location")
            .initial
    };
    assert_eq!(
        [
            initial("one[0][2]"),
            initial("one[0][3]"),
            initial("two[0][0]")
        ],
        [99, 0, 120]
    );
    assert!(p.locations.iter().all(|l| l.name != "two[1][0]"));
}

/// Each source is refused with a message containing its needle, at its
/// (line, column).
fn refused_at(cases: &[(&str, &str, (u32, u32))]) {
    for (source, needle, (line, column)) in cases {
        let d = diagnostic(source);
        assert!(d.message.contains(needle), "{source}: {}", d.message);
        assert_eq!(
            (d.line, d.column),
            (*line, *column),
            "{source}: {}",
            d.message
        );
    }
}

#[test]
fn refused_struct_values_and_strings_are_located() {
    let cases: &[(&str, &str, (u32, u32))] = &[
        (
            // not C: the compiler's words
            "struct s { int a; };\nstruct t { int a; };\nint f(struct s v) { return v.a; }\nint main(void) {\n  struct s x; struct t y; int c = 1;\n  return f(c ? x : y);\n}\n",
            "the C compiler rejects this program: type mismatch in conditional expression",
            (6, 18),
        ),
        (
            // not C: the compiler's words
            "struct s { int a; };\nstruct t { int a; };\nint f(struct s v) { return v.a; }\nint main(void) {\n  struct t y;\n  return f(y);\n}\n",
            "incompatible type for argument 1 of 'f'",
            (6, 12),
        ),
        (
            "int main(void) {\n  char s[2] = \"abc\";\n  return s[0];\n}\n",
            "the string needs 3 characters but the array holds 2",
            (2, 15),
        ),
        (
            // not C: the compiler's words
            "char s[4] = L\"ab\";\nint main(void) { return s[0]; }\n",
            "cannot initialize array of 'char' from a string literal with type array of 'int'",
            (1, 13),
        ),
        (
            // not C: the compiler's words
            "struct s { int a; };\nstruct s make(void) { struct s v = { 1 }; return v; }\nint main(void) {\n  make().a += 3;\n  return 0;\n}\n",
            "lvalue required as left operand of assignment",
            (4, 12),
        ),
    ];
    refused_at(cases);
}

#[test]
fn read_modify_writes() {
    let p = ok(
        "#include <stdatomic.h>\natomic_int x;\nint y;\nint main(void) { int e = 0; int old = __sync_fetch_and_add(&y, 1); _Bool ok = atomic_compare_exchange_strong(&x, &e, 1); atomic_store_explicit(&x, 2, memory_order_seq_cst); int r = atomic_load_explicit(&x, memory_order_relaxed); atomic_store_explicit(&y, 3, memory_order_relaxed); return old + ok + r; }\n",
    );
    let main = function(&p, "main");
    assert_eq!(
        visible(&main.body),
        ["RMW2", "RMW1", "FSS", "W1", "F", "R1", "W2"]
    );
    assert!(
        main.locals.iter().all(|l| !l.shared),
        "the expected value of a CAS stays private"
    );
    let kinds = flat(&main.body);
    assert!(kinds.iter().any(|k| matches!(
        k,
        StmtKind::Rmw {
            op: RmwOp::FetchAdd(Expr::Const(1)),
            ..
        }
    )));
    assert!(kinds.iter().any(|k| matches!(
        k,
        StmtKind::Rmw {
            op: RmwOp::CompareExchange {
                desired: Expr::Const(1),
                ..
            },
            ..
        }
    )));
}

#[test]
fn verification_builtins() {
    let p = ok(
        "#include <assert.h>\nextern void abort(void);\nvoid reach_error() { assert(0); }\nint __VERIFIER_nondet_int(void);\nvoid __VERIFIER_assume(int);\nint x;\nint main(void) { int n = __VERIFIER_nondet_int(); __VERIFIER_assume(n > 0); __VERIFIER_atomic_begin(); x = n; __VERIFIER_atomic_end(); assert(x == n); if (n > 5) { reach_error(); abort(); } return 0; }\n",
    );
    assert!(
        p.functions.iter().all(|f| f.name != "reach_error"),
        "reach_error is a builtin even when defined"
    );
    let kinds = flat(&function(&p, "main").body);
    assert!(kinds.iter().any(|k| matches!(
        k,
        StmtKind::Assign(
            _,
            Expr::Nondet(Ty::Int {
                bits: 32,
                signed: true
            })
        )
    )));
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, StmtKind::Assume(Expr::Binary(BinaryOp::Gt, _, _))))
    );
    assert!(kinds.iter().any(|k| matches!(k, StmtKind::AtomicBegin)));
    assert!(kinds.iter().any(|k| matches!(
        k,
        StmtKind::Assert {
            kind: PropertyKind::Assertion,
            ..
        }
    )));
    assert!(kinds.iter().any(|k| matches!(
        k,
        StmtKind::Assert {
            condition: Expr::Const(0),
            kind: PropertyKind::ErrorCall
        }
    )));
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, StmtKind::Assume(Expr::Const(0)))),
        "abort cuts the execution"
    );
}

#[test]
fn atomic_functions_are_marked() {
    let p = ok(
        "int x;\nvoid __VERIFIER_atomic_inc(void) { x = x + 1; }\nint main(void) { __VERIFIER_atomic_inc(); return 0; }\n",
    );
    assert!(function(&p, "__VERIFIER_atomic_inc").is_atomic);
    assert!(!function(&p, "main").is_atomic);
    assert!(matches!(
        function(&p, "main").body[0].kind,
        StmtKind::Call { target: None, .. }
    ));
}

#[test]
fn switch_becomes_conditional_gotos() {
    let p = ok(
        "int x;\nint main(void) { int r = 0; switch (x) { case 1: r = 1; break; case 2: r = 2; default: r = 3; } return r; }\n",
    );
    let kinds = flat(&function(&p, "main").body);
    let gotos = kinds
        .iter()
        .filter(|k| matches!(k, StmtKind::Goto(_)))
        .count();
    let labels = kinds
        .iter()
        .filter(|k| matches!(k, StmtKind::Label(..)))
        .count();
    assert_eq!(labels, 4, "three cases and the end");
    assert!(gotos >= 4, "{kinds:#?}");
    assert_eq!(visible(&function(&p, "main").body), ["R1"]);
}

#[test]
fn origins_point_at_the_original_source() {
    let p = ok("int x, y;\nint main(void) {\n  x = 1;\n  y = x;\n  return 0;\n}\n");
    let body = &function(&p, "main").body;
    let origin = &p.origins[body[0].origin];
    assert_eq!(
        (origin.line, origin.column, origin.text.as_str()),
        (3, 3, "x = 1;")
    );
    let origin = &p.origins[body[1].origin];
    assert_eq!((origin.line, origin.text.as_str()), (4, "y = x;"));
    assert!(origin.file.ends_with("prog.c"));
}

#[test]
fn calls_split_out_of_expressions_in_order() {
    let p = ok(
        "int x;\nint f(int a) { return a + 1; }\nint main(void) { int r = x + f(x); return r; }\n",
    );
    let main = function(&p, "main");
    let kinds: Vec<&StmtKind> = main.body.iter().map(|s| &s.kind).collect();
    let read = kinds
        .iter()
        .position(|k| matches!(k, StmtKind::Read { .. }))
        .expect("read");
    let call = kinds
        .iter()
        .position(|k| matches!(k, StmtKind::Call { .. }))
        .expect("call");
    assert!(read < call);
}

#[test]
fn syntax_errors_are_located() {
    let d = diagnostic("int main(void) {\n  int x = ;\n  return 0;\n}\n");
    assert_eq!(
        d.message,
        "the C compiler rejects this program: expected expression before ';' token"
    );
    assert_eq!((d.line, d.column), (2, 11));
    assert!(d.file.ends_with("prog.c"));
}

#[test]
fn recursion_is_refused_at_the_call() {
    let d = diagnostic(
        "int fib(int n) {\n  if (n < 2) return n;\n  return fib(n - 1) + fib(n - 2);\n}\nint main(void) { return fib(3); }\n",
    );
    assert_eq!(d.message, "recursion is not supported");
    assert_eq!(
        (d.line, d.column, d.length),
        (3, 10, 10),
        "points at `fib(n - 1)`"
    );
    assert!(d.label.contains("fib"));
}

#[test]
fn mutual_recursion_is_refused() {
    let d = diagnostic(
        "int g(int n);\nint f(int n) { return g(n); }\nint g(int n) { return f(n); }\nint main(void) { return f(1); }\n",
    );
    assert_eq!(d.message, "recursion is not supported");
    assert!(d.line == 2 || d.line == 3);
}

#[test]
fn unsupported_constructs_name_themselves() {
    let cases: &[(&str, &str, u32)] = &[
        (
            // into a block that has ended
            "int main(void) {\n  { l: ; }\n  goto l;\n}\n",
            "backward `goto l`",
            3,
        ),
        (
            "#include <pthread.h>\nvoid *w(void *a) { return a; }\nint main(void) {\n  long g = 1;\n  pthread_t t;\n  pthread_create(&t, 0, g, 0);\n  return 0;\n}\n",
            "a thread entry that is not a function defined in the program",
            6,
        ),
        (
            "long double d;\nint main(void) { return 0; }\n",
            "a `long double` or complex type",
            1,
        ),
        (
            "#include <setjmp.h>\njmp_buf b;\nint main(void) { return 0; }\n",
            "setjmp",
            2,
        ),
        (
            "int main(void) {\n  __asm__(\"cpuid\");\n  return 0;\n}\n",
            "inline assembly instruction `cpuid`",
            2,
        ),
        (
            // a locked increment is an atomic update, not a fence
            "int x;\nint main(void) {\n  asm volatile(\"lock; incl x(%%rip)\" ::: \"memory\", \"cc\");\n  return x;\n}\n",
            "instruction `lock incl x(%rip)`",
            3,
        ),
        (
            // the store after the fence would be lost
            "int x;\nint main(void) {\n  __asm__(\"mfence\\n\\tmovl $1, x(%rip)\");\n  return x;\n}\n",
            "instruction `movl $1, x(%rip)`",
            3,
        ),
        (
            // a variadic function runs, but may not read its arguments
            "#include <stdarg.h>\nint f(int n, ...) {\n  va_list a;\n  va_start(a, n);\n  return va_arg(a, int);\n}\nint main(void) { return f(1, 2); }\n",
            "variadic arguments (`va_arg`)",
            5,
        ),
        (
            // not a first-member cast (C11 6.7.2.1p15): the struct begins
            // with a `long`, the pointer is to an `int`
            "struct s { long a; };\nint main(void) { int x[2]; struct s *p = (struct s *)&x[0]; return p->a; }\n",
            "reinterprets memory",
            2,
        ),
        (
            "int main(void) {\n  return undefined_function(3);\n}\n",
            "undefined_function",
            2,
        ),
        (
            "int x;\nint main(void) {\n  return __atomic_fetch_min(&x, 3, 5);\n}\n",
            "the compiler builtin `__atomic_fetch_min` is not supported",
            3,
        ),
    ];
    for (source, needle, line) in cases {
        let d = diagnostic(source);
        assert!(d.message.contains(needle), "{source}: {}", d.message);
        assert_eq!(d.line, *line, "{source}: {}", d.message);
        assert!(d.column > 0);
    }
}

#[test]
fn missing_main_is_a_diagnostic() {
    let d = diagnostic("int x;\n");
    assert!(d.message.contains("main"));
}

#[test]
fn atomic_objects_get_seq_cst_stores() {
    // seq_cst, x86 mapping: a store-store fence (release, for PSO), the
    // store, a full fence; loads are plain
    let p = ok("_Atomic int a;\nint b;\nint main(void) { a = 1; b = 2; int r = a; return r; }\n");
    assert_eq!(
        visible(&function(&p, "main").body),
        ["FSS", "W1", "F", "W2", "R1"]
    );
}

#[test]
fn atomic_fields_pointer_targets_and_typedefs_are_atomic_too() {
    let p = ok(
        "struct s { _Atomic int a; int b; };\nstruct s g;\n_Atomic int x;\ntypedef _Atomic int aint;\naint y;\n_Atomic(int) z[2];\nint main(void) { _Atomic int *p = &x; *p = 1; g.a = 2; g.b = 3; y = 4; z[1] = 5; p[0] = 6; return 0; }\n",
    );
    let (a, b, y, z1) = (
        location(&p, "g.a"),
        location(&p, "g.b"),
        location(&p, "y"),
        location(&p, "z[1]"),
    );
    let expected: Vec<String> = ["FSS", "W?", "F"]
        .into_iter()
        .map(String::from)
        .chain(["FSS".into(), format!("W{a}"), "F".into(), format!("W{b}")])
        .chain([
            "FSS".into(),
            format!("W{y}"),
            "F".into(),
            "FSS".into(),
            format!("W{z1}"),
            "F".into(),
        ])
        .chain(["FSS", "W?", "F"].map(String::from))
        .collect();
    assert_eq!(visible(&function(&p, "main").body), expected);
}

#[test]
fn updates_of_atomic_objects_are_one_compare_and_swap_each() {
    let p = ok(
        "struct s { _Atomic unsigned char n; };\nstruct s g;\n_Atomic int x;\nint main(void) { x++; --x; x += 2; g.n *= 3; int r = x--; return r; }\n",
    );
    let (x, n) = (location(&p, "x"), location(&p, "g.n"));
    let rmw = |l: i64| format!("RMW{l}");
    assert_eq!(
        visible(&function(&p, "main").body),
        [rmw(x), rmw(x), rmw(x), rmw(n), rmw(x)]
    );
    let cas = flat(&function(&p, "main").body)
        .into_iter()
        .filter(|k| {
            matches!(
                k,
                StmtKind::Rmw {
                    op: RmwOp::CompareExchange { .. },
                    ..
                }
            )
        })
        .count();
    assert_eq!(cas, 5);
}

#[test]
fn a_memory_order_the_translator_cannot_evaluate_chooses_its_fences_at_run_time() {
    let p = ok(
        "#include <stdatomic.h>\natomic_int f;\nvoid put(memory_order order) { atomic_store_explicit(&f, 1, order); atomic_thread_fence(order); }\nint main(void) { put(memory_order_relaxed); return 0; }\n",
    );
    let body = &function(&p, "put").body;
    // each fence under a test of the order: store-store fence, store, full
    // fence; then the fence's full and store-store fences
    let fences_under_tests: Vec<String> = body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } if else_branch.is_empty() => Some(visible(then_branch).join(" ")),
            StmtKind::Write { .. } => Some("W".into()),
            _ => None,
        })
        .collect();
    assert_eq!(fences_under_tests, ["FSS", "W", "F", "F", "FSS"]);
}

#[test]
fn stdatomic_typedefs_of_the_own_header_are_atomic_types() {
    // C11 7.17.6: `atomic_int` is `_Atomic int`, and `atomic_uint_fast64_t`
    // `_Atomic uint_fast64_t`: a plain store to one is seq_cst
    let p = ok(
        "#include <stdatomic.h>\natomic_int x;\natomic_uint_fast64_t y;\nint main(void) { x = 1; y = 2; return x; }\n",
    );
    assert_eq!(
        visible(&function(&p, "main").body),
        ["FSS", "W1", "F", "FSS", "W2", "F", "R1"]
    );
}

#[test]
fn statements_from_macros_keep_the_original_line() {
    let p = ok(
        "int x;\nvoid reach_error(void);\n#define check(e) if (!(e)) ERROR: reach_error()\nint main(void) {\n  check(x == 0);\n  return 0;\n}\n",
    );
    let kinds = flat(&function(&p, "main").body);
    assert!(
        kinds
            .iter()
            .any(|k| matches!(k, StmtKind::Label(_, name) if name == "ERROR"))
    );
    let main = function(&p, "main");
    let origins: Vec<&Origin> = main.body.iter().map(|s| &p.origins[s.origin]).collect();
    assert!(
        origins
            .iter()
            .all(|o| o.line != 5 || o.text == "check(x == 0);"),
        "{origins:?}"
    );
    assert!(origins.iter().any(|o| o.line == 5 && o.column == 3));
}

#[test]
fn cas_builtins_and_read_only_atomics() {
    let p = ok(
        "int lock;\nint main(void) { while (!__sync_bool_compare_and_swap(&lock, 0, 1)) { } int v = __sync_val_compare_and_swap(&lock, 1, 0); __sync_lock_release(&lock); return v + __atomic_load_n(&lock, __ATOMIC_SEQ_CST); }\n",
    );
    let main = function(&p, "main");
    match &main.body[0].kind {
        StmtKind::Loop {
            prelude,
            condition: Expr::Unary(UnaryOp::Not, _),
            ..
        } => assert_eq!(visible(prelude), ["RMW1"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(visible(&main.body), ["RMW1", "RMW1", "FSS", "W1", "R1"]);
}

#[test]
fn struct_and_array_initialisers_of_locals_and_globals() {
    let p = ok(
        "struct p { int a; int b[2]; };\nstruct p g = { 1, { 2, 3 } };\nint h[4] = { [2] = 7 };\nint main(void) { struct p l = { .b = { 4 } }; int *q = &l.a; return *q + l.b[0]; }\n",
    );
    let initial: Vec<i64> = p.locations.iter().map(|l| l.initial).collect();
    assert_eq!(initial, [0, 1, 2, 3, 0, 0, 7, 0]);
    let main = function(&p, "main");
    let l = main.locals.iter().position(|x| x.name == "l").expect("l");
    assert!(main.locals[l].shared);
    // member by member, the unmentioned ones zero: a, b[0] = 4, b[1].
    let written: Vec<&Expr> = flat(&main.body)
        .into_iter()
        .filter_map(|k| match k {
            StmtKind::Write { value, .. } => Some(value),
            _ => None,
        })
        .collect();
    assert_eq!(written, [&Expr::Const(0), &Expr::Const(4), &Expr::Const(0)]);
}

#[test]
fn extern_array_completed_by_its_definition() {
    let p = ok("extern int a[];\nint a[3] = { 1, 2, 3 };\nint main(void) { return a[2]; }\n");
    let names: Vec<String> = p.locations.iter().map(|l| l.name).collect();
    assert_eq!(names, ["NULL", "a[0]", "a[1]", "a[2]"]);
    assert_eq!(p.locations.get(3).expect("a location").initial, 3);
}

#[test]
fn private_operands_are_saved_only_when_a_later_effect_may_change_them() {
    // `i < n` with shared n: the read of n cannot change i, so i is not copied.
    let p = ok(
        "int n;\nint main(void) { int i = 0; int r = i < n; int k = i + (i = 5); return r + k; }\n",
    );
    let main = function(&p, "main");
    let copies_of_i = flat(&main.body)
        .into_iter()
        .filter(|k| matches!(k, StmtKind::Assign(Place::Local(t), Expr::Load(Place::Local(0)))  if main.locals[*t].name.starts_with("__tmp")))
        .count();
    assert_eq!(
        copies_of_i, 1,
        "only `i + (i = 5)` needs a copy of i: {:#?}",
        main.body
    );
}

#[test]
fn variable_length_arrays_of_thread_handles_are_bounded_by_the_unwinding() {
    let p = ok(
        "#include <pthread.h>\nint n = 2;\nvoid *t(void *a) { return a; }\nint main(void) { pthread_t pool[n]; for (int i = 0; i < n; i++) pthread_create(&pool[i], 0, t, 0); return 0; }\n",
    );
    let main = function(&p, "main");
    let pool = main.locals.iter().find(|l| l.name == "pool").expect("pool");
    let unwind = u64::from(TranslateOptions::default().bounds.unwind);
    assert_eq!(pool.ty, Ty::Array(Box::new(Ty::ThreadHandle), unwind + 1));
    let d = diagnostic("int n = 2;\nint main(void) {\n  int a[n];\n  return 0;\n}\n");
    assert!(d.message.contains("variable-length array"));
    assert_eq!(d.line, 3);
}

#[test]
fn defines_and_include_directories_reach_the_preprocessor() {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::create_dir(dir.path().join("inc")).expect("include directory");
    std::fs::write(
        dir.path().join("inc/fence.h"),
        "#define FENCE() __sync_synchronize()\n",
    )
    .expect("header");
    let path = dir.path().join("prog.c");
    std::fs::write(&path, "#include <fence.h>\nint x;\nint main(void) { x = 1;\n#ifdef WITH_FENCE\n  FENCE();\n#endif\n  return 0; }\n").expect("program");
    let mut options = TranslateOptions {
        include_dirs: vec![dir.path().join("inc")],
        ..TranslateOptions::default()
    };
    let without = frontend::load(&path, &options).expect("lowers");
    assert_eq!(visible(&function(&without, "main").body), ["W1"]);
    options.defines.push("WITH_FENCE".into());
    let with = frontend::load(&path, &options).expect("lowers");
    assert_eq!(visible(&function(&with, "main").body), ["W1", "F"]);
}

#[test]
fn missing_files_and_headers_are_errors_not_panics() {
    let missing = frontend::load(
        std::path::Path::new("/nonexistent/prog.c"),
        &TranslateOptions::default(),
    );
    assert!(matches!(missing, Err(FrontendError::Unreadable { .. })));
    assert!(matches!(
        lower("#include <no_such_header.h>\nint main(void) { return 0; }\n"),
        Err(FrontendError::Preprocessor { .. })
    ));
}

#[test]
fn const_globals_with_constant_initialisers_are_folded() {
    let p = ok(
        "#include <stdlib.h>\nconst int N = 3;\nconst char WRAP = 300;\nint *a;\nint main(void) { a = malloc(sizeof(int) * N); a[N - 1] = WRAP; return 0; }\n",
    );
    assert!(
        p.locations
            .iter()
            .all(|l| l.name != "N" && l.name != "WRAP"),
        "named constants are not locations"
    );
    assert_eq!(
        p.heap_block_size, 3,
        "malloc(sizeof(int) * N) has a constant size"
    );
    let kinds = flat(&function(&p, "main").body);
    assert!(
        kinds.iter().any(|k| matches!(
            k,
            StmtKind::Malloc {
                size: Expr::Const(3),
                ..
            }
        )),
        "{kinds:#?}"
    );
    assert!(
        kinds.iter().any(|k| matches!(
            k,
            StmtKind::Write {
                value: Expr::Const(44),
                ..
            }
        )),
        "WRAP is 300 truncated to a char: {kinds:#?}"
    );
}

#[test]
fn thread_handles_in_heap_memory_are_stored_after_the_creation() {
    let p = ok(
        "#include <pthread.h>\n#include <stdlib.h>\nvoid *t(void *arg) { return 0; }\nint main(void) { pthread_t *h = malloc(sizeof(pthread_t) * 2); pthread_create(&h[1], 0, t, 0); pthread_join(h[1], 0); return 0; }\n",
    );
    let main = function(&p, "main");
    let kinds = flat(&main.body);
    let create = kinds
        .iter()
        .position(|k| matches!(k, StmtKind::ThreadCreate { .. }))
        .expect("a creation");
    let StmtKind::ThreadCreate {
        handle: Place::Local(temp),
        ..
    } = kinds[create]
    else {
        panic!(
            "the handle is created in a private temporary: {:?}",
            kinds[create]
        );
    };
    assert!(
        matches!(kinds[create + 1], StmtKind::Write { value: Expr::Load(Place::Local(t)), .. } if t == temp),
        "the temporary is then written to heap memory: {:?}",
        kinds[create + 1]
    );
    assert!(
        kinds[create + 1..]
            .iter()
            .any(|k| matches!(k, StmtKind::ThreadJoin { .. }))
    );
}

#[test]
fn constant_arithmetic_folds_wrapped_to_its_type() {
    let p = ok(
        "int x;\nunsigned u;\nint main(void) { x = 2147483647 + 1; u = 0u - 1; x = 7 / 2; x = 7 % 0; x = -7 / 2; return 0; }\n",
    );
    let writes: Vec<&Expr> = flat(&function(&p, "main").body)
        .into_iter()
        .filter_map(|k| match k {
            StmtKind::Write { value, .. } => Some(value),
            _ => None,
        })
        .collect();
    assert_eq!(
        writes[0],
        &Expr::Const(-2147483648),
        "int addition wraps at 32 bits"
    );
    assert_eq!(
        writes[1],
        &Expr::Const(4294967295),
        "unsigned subtraction wraps"
    );
    assert_eq!(
        writes[2],
        &Expr::Const(3),
        "division of non-negative constants folds"
    );
    assert!(
        matches!(writes[3], Expr::Binary(BinaryOp::Rem, ..)),
        "a remainder by zero is left to the program: {:?}",
        writes[3]
    );
    assert!(
        matches!(writes[4], Expr::Binary(BinaryOp::Div, ..)),
        "a negative operand is left to the program: {:?}",
        writes[4]
    );
}

#[test]
fn pthread_join_stores_the_thread_result_at_its_pointer_after_the_join() {
    let p = ok(
        "#include <pthread.h>\nvoid *t(void *a) { return a; }\nint main(void) {\n  pthread_t h;\n  void *r;\n  pthread_create(&h, 0, t, 0);\n  pthread_join(h, &r);\n  return r != 0;\n}\n",
    );
    let results = p
        .thread_results
        .expect("the program collects a thread result");
    assert_eq!(p.plain_globals[results].name, "thread_result");
    let main = flat(&function(&p, "main").body);
    let join = main
        .iter()
        .position(|k| matches!(k, StmtKind::ThreadJoin { .. }))
        .expect("a join");
    // The store of the result comes after the join and reads the array.
    let store = main
        .iter()
        .position(|k| matches!(k, StmtKind::Write { .. }))
        .expect("a store of the result");
    assert!(store > join, "{main:?}");
    let StmtKind::Write { value, .. } = main[store] else {
        unreachable!()
    };
    assert!(
        format!("{value:?}").contains(&format!("PlainGlobal({results})")),
        "{value:?}"
    );
    // Without a result pointer there is no such array.
    let p = ok(
        "#include <pthread.h>\nvoid *t(void *a) { return a; }\nint main(void) {\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  pthread_join(h, 0);\n  return 0;\n}\n",
    );
    assert_eq!(p.thread_results, None);
}

#[test]
fn pthread_join_into_a_non_pointer_is_refused_at_the_argument() {
    let d = diagnostic(
        "#include <pthread.h>\nvoid *t(void *a) { return a; }\nint main(void) {\n  pthread_t h;\n  int x;\n  pthread_create(&h, 0, t, 0);\n  pthread_join(h, &x);\n  return 0;\n}\n",
    );
    assert_eq!(
        d.message,
        "pthread_join's second argument is not a `void **`"
    );
    assert_eq!((d.line, d.column), (7, 19));
    assert!(
        d.help.as_deref().is_some_and(|h| h.contains("void *")),
        "{d:?}"
    );
}

#[test]
fn a_condition_wait_releases_and_retakes_its_mutex_and_a_signal_is_a_fence() {
    let p = ok(
        "#include <pthread.h>\nstruct q { pthread_mutex_t m; pthread_cond_t c; int n; } q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };\npthread_cond_t other = PTHREAD_COND_INITIALIZER;\nint main(void) {\n  pthread_cond_t local = PTHREAD_COND_INITIALIZER;\n  pthread_cond_init(&local, 0);\n  pthread_mutex_lock(&q.m);\n  while (q.n == 0)\n    pthread_cond_wait(&q.c, &q.m);\n  pthread_cond_signal(&other);\n  pthread_cond_broadcast(&q.c);\n  pthread_mutex_unlock(&q.m);\n  pthread_cond_destroy(&local);\n  return 0;\n}\n",
    );
    let main = flat(&function(&p, "main").body);
    let mutex = Expr::Const(location(&p, "q.m"));
    let locks: Vec<&StmtKind> = main
        .iter()
        .copied()
        .filter(|k| matches!(k, StmtKind::MutexLock(_) | StmtKind::MutexUnlock(_)))
        .collect();
    // lock; in the loop: unlock, lock; after it: unlock. All of q.m.
    assert_eq!(
        locks,
        vec![
            &StmtKind::MutexLock(mutex.clone()),
            &StmtKind::MutexUnlock(mutex.clone()),
            &StmtKind::MutexLock(mutex.clone()),
            &StmtKind::MutexUnlock(mutex.clone()),
        ]
    );
    let fences = main
        .iter()
        .filter(|k| matches!(k, StmtKind::Fence(FenceKind::Full)))
        .count();
    assert_eq!(
        fences, 2,
        "signal and broadcast synchronise memory: {main:?}"
    );
}

#[test]
fn a_braced_initialiser_stores_each_scalar_once_and_zero_only_where_unmentioned() {
    // `a` is shared (its address reaches a thread): each store is visible.
    let p = ok(
        "#include <pthread.h>\nstruct p { int x, y; };\nvoid *t(void *arg) { return arg; }\nint main(void) {\n  int a[4] = {1, [2] = 5};\n  struct p s[2] = {[1] = {.y = 9}};\n  pthread_t h;\n  pthread_create(&h, 0, t, a);\n  pthread_create(&h, 0, t, s);\n  return 0;\n}\n",
    );
    let main = flat(&function(&p, "main").body);
    let stored: Vec<String> = main
        .iter()
        .filter_map(|k| match k {
            StmtKind::Write { value, .. } => Some(format!("{value:?}")),
            _ => None,
        })
        .collect();
    assert_eq!(stored.len(), 4 + 4, "one store per scalar: {stored:?}");
    let constants: Vec<&str> = stored
        .iter()
        .map(|v| v.trim_start_matches("Const(").trim_end_matches(')'))
        .collect();
    // element by element, the unmentioned ones zero: a = { 1, 0, 5, 0 },
    // s[1].y = 9 after three zeros
    assert_eq!(
        constants,
        vec!["1", "0", "5", "0", "0", "0", "0", "9"],
        "{stored:?}"
    );
}

#[test]
fn sem_wait_is_a_compare_and_swap_that_must_find_a_positive_count() {
    let p = ok(
        "#include <semaphore.h>\nsem_t s;\nint main(void) {\n  sem_init(&s, 0, 1);\n  sem_wait(&s);\n  sem_post(&s);\n  return 0;\n}\n",
    );
    let main = flat(&function(&p, "main").body);
    let s = Expr::Const(location(&p, "s"));
    assert!(
        main.iter().any(
            |k| matches!(k, StmtKind::Write { address, value: Expr::Const(1) } if *address == s)
        ),
        "sem_init stores the count: {main:?}"
    );
    let rmws: Vec<&RmwOp> = main
        .iter()
        .filter_map(|k| match k {
            StmtKind::Rmw { address, op, .. } if *address == s => Some(op),
            _ => None,
        })
        .collect();
    assert!(
        matches!(
            rmws[..],
            [
                RmwOp::CompareExchange { .. },
                RmwOp::FetchAdd(Expr::Const(1))
            ]
        ),
        "{rmws:?}"
    );
    let rmw = main
        .iter()
        .position(|k| matches!(k, StmtKind::Rmw { .. }))
        .expect("the wait's compare-and-swap");
    let assumes = main
        .iter()
        .enumerate()
        .filter(|(_, k)| matches!(k, StmtKind::Assume(_)))
        .map(|(i, _)| i)
        .collect::<Vec<_>>();
    assert_eq!(
        assumes.len(),
        2,
        "a positive guess before, the guess found after: {main:?}"
    );
    assert!(assumes[0] < rmw && rmw < assumes[1]);
}

#[test]
fn a_try_lock_is_one_visible_statement_whose_result_is_zero_or_ebusy() {
    let p = ok(
        "#include <pthread.h>\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nint main(void) {\n  int r = pthread_mutex_trylock(&m);\n  if (r == 0) pthread_mutex_unlock(&m);\n  return r;\n}\n",
    );
    let main = flat(&function(&p, "main").body);
    let m = Expr::Const(location(&p, "m"));
    let try_locks: Vec<&StmtKind> = main
        .iter()
        .copied()
        .filter(|k| matches!(k, StmtKind::MutexTryLock { .. }))
        .collect();
    assert_eq!(try_locks.len(), 1, "{main:?}");
    let StmtKind::MutexTryLock { target, mutex } = try_locks[0] else {
        unreachable!()
    };
    assert_eq!(mutex, &m);
    assert!(try_locks[0].is_visible());
    // r is 0 when the try-lock took the mutex, else EBUSY (16).
    let assigned = main
        .iter()
        .find_map(|k| match k {
            StmtKind::Assign(_, value) if format!("{value:?}").contains(&format!("{target:?}")) => {
                Some(format!("{value:?}"))
            }
            _ => None,
        })
        .expect("r is assigned from the try-lock's result");
    assert!(
        assigned.contains("Const(16)") && assigned.contains("Const(0)"),
        "{assigned}"
    );
}

#[test]
fn a_spin_lock_is_a_mutex() {
    let p = ok(
        "#include <pthread.h>\npthread_spinlock_t s;\nint main(void) {\n  pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);\n  pthread_spin_lock(&s);\n  pthread_spin_unlock(&s);\n  if (pthread_spin_trylock(&s) == 0) pthread_spin_unlock(&s);\n  pthread_spin_destroy(&s);\n  return 0;\n}\n",
    );
    let s = location(&p, "s");
    assert!(
        p.locations.get(s as usize).expect("a location").is_mutex,
        "a spin lock's location is a mutex"
    );
    let kinds: Vec<&str> = flat(&function(&p, "main").body)
        .iter()
        .filter_map(|k| match k {
            StmtKind::MutexLock(Expr::Const(l)) if *l == s => Some("lock"),
            StmtKind::MutexUnlock(Expr::Const(l)) if *l == s => Some("unlock"),
            StmtKind::MutexTryLock {
                mutex: Expr::Const(l),
                ..
            } if *l == s => Some("trylock"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["lock", "unlock", "trylock", "unlock"]);
}

#[test]
fn a_synchronisation_call_without_a_pointer_to_its_object_is_refused_at_the_argument() {
    let d =
        diagnostic("#include <semaphore.h>\nint main(void) {\n  sem_wait(5);\n  return 0;\n}\n");
    assert_eq!(d.message, "`sem_wait` needs a pointer to its object");
    assert_eq!((d.line, d.column), (3, 12));
    let d = diagnostic(
        "#include <pthread.h>\nint x;\nint main(void) {\n  pthread_barrier_wait(&x);\n  return 0;\n}\n",
    );
    assert_eq!(
        d.message,
        "`pthread_barrier_wait` needs a pointer to a `pthread_barrier_t`"
    );
    assert!(d.help.is_some());
}

#[test]
fn a_thread_local_global_is_the_running_threads_element_of_a_per_thread_array() {
    // Each thread has its own copy: one shared variable would report bugs
    // that cannot happen.
    for source in [
        "_Thread_local int mine = 3;\nint main(void) { return mine; }\n",
        "#include <pthread.h>\n__thread int mine = 3;\nint main(void) { return mine; }\n",
    ] {
        let p = ok(source);
        assert!(
            p.locations.iter().all(|l| l.name != "mine"),
            "not shared memory: {source}"
        );
        let &(id, initial) = p.per_thread.first().expect("a per-thread array");
        assert_eq!(
            (p.plain_globals[id].name.as_str(), initial),
            ("mine", 3),
            "{source}"
        );
        let main = format!("{:?}", function(&p, "main").body);
        assert!(
            main.contains(&format!("Index(PlainGlobal({id}), CurrentThread)")),
            "{main}"
        );
    }
    // A definition after an `extern` declaration gives the initial value.
    let p = ok(
        "extern _Thread_local int mine;\n_Thread_local int mine = 4;\nint main(void) { return mine; }\n",
    );
    assert_eq!(
        p.per_thread
            .iter()
            .map(|&(_, initial)| initial)
            .collect::<Vec<_>>(),
        [4]
    );
    // inside a function: each thread's own copy too
    let p = ok("int main(void) {\n  static _Thread_local int mine = 2;\n  return mine;\n}\n");
    assert_eq!(
        p.per_thread
            .iter()
            .map(|&(_, initial)| initial)
            .collect::<Vec<_>>(),
        [2]
    );
    // not C: the compiler's words
    let d = diagnostic("int main(void) {\n  _Thread_local int mine;\n  return mine;\n}\n");
    assert!(
        d.message
            .contains("function-scope 'mine' implicitly auto and declared '_Thread_local'"),
        "{}",
        d.message
    );
    assert_eq!(d.line, 2);
    // an array or struct of each thread's own, starting at zero
    let p =
        ok("_Thread_local int mine[2] = { 0 };\nint main(void) { mine[1] = 5; return mine[0]; }\n");
    let &(id, _) = p.per_thread.first().expect("a per-thread array");
    assert!(
        matches!(&p.plain_globals[id].ty, Ty::Array(element, _) if **element == Ty::Array(Box::new(Ty::INT), 2)),
        "{:?}",
        p.plain_globals[id]
    );
    let d =
        diagnostic("_Thread_local int mine[2] = { 1, 2 };\nint main(void) { return mine[0]; }\n");
    assert!(
        d.message
            .starts_with("a thread-local array or struct initialised to values other than zero"),
        "{}",
        d.message
    );
}

#[test]
fn only_normal_mutexes_are_accepted() {
    // A recursive mutex relocked by its holder would block here, hiding
    // what follows: refused rather than checked wrongly.
    let program = |kind: &str| {
        format!(
            "#include <pthread.h>\npthread_mutex_t m;\nint main(void) {{\n  pthread_mutexattr_t a;\n  pthread_mutexattr_init(&a);\n  pthread_mutexattr_settype(&a, {kind});\n  pthread_mutex_init(&m, &a);\n  return 0;\n}}\n"
        )
    };
    for kind in ["PTHREAD_MUTEX_RECURSIVE", "PTHREAD_MUTEX_ERRORCHECK"] {
        let d = diagnostic(&program(kind));
        assert!(
            d.message.starts_with("a recursive or error-checking mutex"),
            "{kind}: {}",
            d.message
        );
        assert_eq!((d.line, d.column), (6, 33), "{kind}");
    }
    for kind in ["PTHREAD_MUTEX_NORMAL", "PTHREAD_MUTEX_DEFAULT"] {
        ok(&program(kind));
    }
}

#[test]
fn memset_and_memcpy_touch_every_scalar_and_leave_private_objects_private() {
    let p = ok(
        "#include <string.h>\nstruct pair { int a; char b[2]; };\nstruct pair g;\nint t[3];\nint main(void) {\n  struct pair l;\n  int m[3];\n  memset(&l, 0, sizeof l);\n  memset(t, -1, 2 * sizeof(int));\n  memcpy(&g, &l, sizeof g);\n  memcpy(m, t, sizeof m);\n  return l.a + l.b[0] + m[0];\n}\n",
    );
    let main = function(&p, "main");
    assert!(
        main.locals.iter().all(|l| !l.shared),
        "l and m stay private: {:?}",
        main.locals
    );
    let (t0, t1) = (location(&p, "t[0]"), location(&p, "t[1]"));
    let (ga, gb0, gb1, t2) = (
        location(&p, "g.a"),
        location(&p, "g.b[0]"),
        location(&p, "g.b[1]"),
        location(&p, "t[2]"),
    );
    let expected = accesses(&[
        ("W", t0),
        ("W", t1),
        ("W", ga),
        ("W", gb0),
        ("W", gb1),
        ("R", t0),
        ("R", t1),
        ("R", t2),
    ]);
    assert_eq!(visible(&main.body), expected);
    let stored: Vec<&Expr> = flat(&main.body)
        .into_iter()
        .filter_map(|k| match k {
            StmtKind::Write { value, .. } => Some(value),
            _ => None,
        })
        .collect();
    assert_eq!(
        stored[..2],
        [&Expr::Const(-1), &Expr::Const(-1)],
        "bytes of 0xff make -1"
    );
}

#[test]
fn refused_memset_and_memcpy_are_located() {
    let cases: &[(&str, &str, (u32, u32))] = &[
        (
            "#include <string.h>\nint g;\nint main(void) {\n  void *p = &g;\n  memset(p, 0, 4);\n  return 0;\n}\n",
            "a pointer without a pointee type",
            (5, 10),
        ),
        (
            "#include <string.h>\nlong g;\nint main(void) {\n  memset(&g, 0, 4);\n  return 0;\n}\n",
            "4 bytes from an object of 8 bytes",
            (4, 10),
        ),
        (
            "#include <string.h>\nint main(void) {\n  int a[3];\n  memset(&a[1], 0, 3 * sizeof(int));\n  return a[0];\n}\n",
            "beyond a private array",
            (4, 10),
        ),
        (
            "#include <string.h>\nint g[4];\nint main(int n, char **v) {\n  memset(g, 0, n);\n  return 0;\n}\n",
            "not a positive constant",
            (4, 16),
        ),
        (
            "#include <string.h>\nint a;\nunsigned b;\nint main(void) {\n  memcpy(&a, &b, sizeof a);\n  return 0;\n}\n",
            "copying memory between objects of different types",
            (5, 3),
        ),
        (
            "#include <string.h>\nint *p;\nint main(void) {\n  memset(&p, 1, sizeof p);\n  return 0;\n}\n",
            "setting the bytes of a pointer to 0x01",
            (4, 3),
        ),
    ];
    refused_at(cases);
}

#[test]
fn the_address_of_an_element_shares_an_array_but_not_a_pointer() {
    let p = ok(
        "#include <stdlib.h>\nint *out;\nint f(int *q) { out = &q[1]; return 0; }\nint main(void) {\n  int *p = malloc(2 * sizeof(int));\n  int a[2];\n  int *e = &p[1];\n  int *g = &a[1];\n  *e = 1; *g = 2;\n  return f(p);\n}\n",
    );
    let shared = |function_name: &str, local: &str| {
        let f = function(&p, function_name);
        f.locals
            .iter()
            .find(|l| l.name == local)
            .unwrap_or_else(|| panic!("{local} in {:?}", f.locals))
            .shared
    };
    assert!(
        !shared("main", "p"),
        "&p[1] of a pointer is p + 1: p stays private"
    );
    assert!(!shared("f", "q"), "so does a pointer parameter's");
    assert!(
        shared("main", "a"),
        "&a[1] of an array takes the array's address"
    );
}

#[test]
fn an_error_inside_a_macro_expansion_marks_the_whole_line_and_says_so() {
    let d = diagnostic(
        "int g;\n#define BAD(x) (x = main())\n\n\nint main(void) {\n  BAD(g);\n  return 0;\n}\n",
    );
    assert!(d.message.contains("recursion"), "{}", d.message);
    assert_eq!((d.line, d.column, d.length), (6, 3, "BAD(g);".len() as u32));
    assert!(
        d.label.contains("in a macro expansion on this line"),
        "{}",
        d.label
    );
    // a construct written out in the line keeps its own columns
    let d = diagnostic("struct s { int a; };\nint main(void) {\n  struct s v;\n  return v.b;\n}\n");
    assert!(!d.label.contains("macro"), "{}", d.label);
}

#[test]
fn memmove_loads_every_scalar_before_it_stores_any() {
    let p = ok(
        "#include <string.h>\nint t[3];\nint main(void) {\n  memmove(&t[1], t, 2 * sizeof(int));\n  memcpy(&t[1], t, sizeof(int));\n  return 0;\n}\n",
    );
    let (t0, t1, t2) = (
        location(&p, "t[0]"),
        location(&p, "t[1]"),
        location(&p, "t[2]"),
    );
    let expected = accesses(&[
        ("R", t0),
        ("R", t1),
        ("W", t1),
        ("W", t2),
        ("R", t0),
        ("W", t1),
    ]);
    assert_eq!(visible(&function(&p, "main").body), expected);
}

#[test]
fn a_program_that_takes_addresses_apart_gets_byte_addresses() {
    let p = ok(
        "#include <stdint.h>\nstruct node { int v; struct node *next; };\nstruct node a;\nstruct node *head = &a;\nint main(void) {\n  uintptr_t raw = (uintptr_t)head;\n  int aligned = (raw & 7) == 0;\n  struct node *marked = (struct node *)((uintptr_t)head | 1);\n  return aligned + (marked != 0) + marked->v;\n}\n",
    );
    assert!(p.byte_addresses, "the bits of an address are tested");
    assert!(
        p.warnings.is_empty(),
        "byte addresses need no warning: {:?}",
        p.warnings
    );
    let (head, a) = (location(&p, "head"), location(&p, "a.v"));
    assert_eq!(
        p.locations.get(head as usize).expect("a location").initial,
        8 * a,
        "a pointer value is 8 times its location"
    );
    // `marked->v` reads a.v's location: the tag bit is shifted out
    let reads_through_pointer = flat(&function(&p, "main").body)
        .into_iter()
        .filter(|k| matches!(k, StmtKind::Read { address: Expr::Binary(BinaryOp::Shr, _, shift), .. } if **shift == Expr::Const(3)))
        .count();
    assert_eq!(reads_through_pointer, 1, "{:?}", function(&p, "main").body);
    // so does one that makes a computed integer an address again
    let p = ok(
        "#include <stdint.h>\nstruct node { int v; };\nstruct node a;\nuintptr_t word = 0;\nint main(void) {\n  uintptr_t clean = word;\n  return ((struct node *)clean)->v;\n}\n",
    );
    assert!(p.byte_addresses, "an integer cast to a typed pointer");
    let p = ok(
        "int main(void) {\n  long bits = 6;\n  int *p = (void *)(bits & ~1L);\n  return p == 0;\n}\n",
    );
    assert!(p.byte_addresses, "a bit operation cast to a pointer");
    let p = ok("int x;\nint main(void) {\n  int *none = (int *)0;\n  return none == 0;\n}\n");
    assert!(!p.byte_addresses, "a constant cast to a pointer");
    // an integer carried by a thread's `void *` argument is no address
    let p = ok(
        "#include <pthread.h>\nint x;\nvoid *t(void *arg) { long id = (long)arg; x = id % 2 + ((long)arg & 1); return 0; }\nint main(void) { pthread_t h; pthread_create(&h, 0, t, (void *)5L); return 0; }\n",
    );
    assert!(!p.byte_addresses, "no address is taken apart");
    // nor is a pointer that is only compared and stored
    let p = ok("int a[2];\nint *p = &a[1];\nint main(void) { return p == &a[1] && *p == 0; }\n");
    assert!(!p.byte_addresses);
    assert_eq!(
        p.locations
            .get(location(&p, "p") as usize)
            .expect("a location")
            .initial,
        location(&p, "a[1]")
    );
}

#[test]
fn a_division_checks_its_divisor_unless_it_is_a_constant_other_than_zero() {
    let checks = |source: &str| {
        let p = ok(source);
        flat(&function(&p, "main").body)
            .into_iter()
            .filter(|k| {
                matches!(
                    k,
                    StmtKind::Assert {
                        kind: PropertyKind::DivisionByZero,
                        ..
                    }
                )
            })
            .count()
    };
    assert_eq!(
        checks("int x, y;\nint main(void) { int k = y; x = 10 / k + 10 % k; return 0; }\n"),
        2
    );
    assert_eq!(
        checks("int x, y;\nint main(void) { int k = y; x = k / 4 + k % 3; x /= 2; return 0; }\n"),
        0
    );
    assert_eq!(
        checks("int x;\nint main(void) { x = 1 / 0; return 0; }\n"),
        1
    );
    assert_eq!(
        checks("int x, y;\nint main(void) { int k = y; x /= k; return 0; }\n"),
        1
    );
    // the divisor's test guards it: the check sits in the branch that divides
    let p = ok("int x, y;\nint main(void) { int k = y; x = k && 10 / k; return 0; }\n");
    let main = &function(&p, "main").body;
    let guarded = main.iter().any(|s| matches!(&s.kind, StmtKind::If { then_branch, .. }
        if then_branch.iter().any(|t| matches!(t.kind, StmtKind::Assert { kind: PropertyKind::DivisionByZero, .. }))));
    assert!(guarded, "{main:?}");
}

#[test]
fn accesses_through_pointers_are_noted_for_the_size_check() {
    let p = ok(
        "int x; long y;\nint main(void) {\n  void *v = &x;\n  int *p = v;\n  long *q = &y;\n  *p = 1;\n  *q = 2;\n  return 0;\n}\n",
    );
    // `*p` goes through an `int *` made from a `void *`; `*q` through a
    // pointer no conversion makes
    let noted: Vec<(u32, bool, &str)> = p
        .pointer_accesses
        .iter()
        .map(|a| (a.bytes, a.checked, p.origins[a.origin].text.as_str()))
        .collect();
    assert_eq!(noted, [(4, true, "*p"), (8, false, "*q")]);
    // each access has an id of its own, after its statement's, which the
    // passes give back to it
    for access in &p.pointer_accesses {
        assert!(access.origin > access.statement, "{access:?}");
        let (own, statement) = (&p.origins[access.origin], &p.origins[access.statement]);
        assert!(
            statement.text.starts_with(&own.text),
            "{own:?} {statement:?}"
        );
    }
}

#[test]
fn container_of_steps_back_by_the_members_scalars() {
    let source = "#include <stddef.h>\nstruct link { struct link *next; };\nstruct item { int key; int pad[2]; struct link node; };\nstruct item items[2];\nstruct item *found;\nint main(void) {\n  struct link *l = &items[1].node;\n  found = (struct item *)((char *)l - offsetof(struct item, node));\n  return 0;\n}\n";
    let p = ok(source);
    let stores: Vec<&Expr> = flat(&function(&p, "main").body)
        .into_iter()
        .filter_map(|k| match k {
            StmtKind::Write {
                address: Expr::Const(a),
                value,
            } if *a == location(&p, "found") => Some(value),
            _ => None,
        })
        .collect();
    // items[1].node.next is 3 scalars into items[1] (key, pad[2]): the pad
    // that no expression names stays, as `&items[1].node` takes a member's
    // address, from which a pointer may reach it: l - 3
    assert!(
        matches!(stores.as_slice(), [Expr::Binary(BinaryOp::Sub, _, three)] if **three == Expr::Const(3)),
        "{stores:?}"
    );
    refused_at(&[
        (
            "#include <stddef.h>\nstruct link { struct link *next; };\nstruct item { int key; struct link node; };\nstruct other { int a, b; };\nint main(void) {\n  struct link *l = 0;\n  struct other *o = (struct other *)((char *)l - offsetof(struct item, node));\n  return o != 0;\n}\n",
            "a `container_of` cast to a type other than the one `offsetof` names",
            (7, 21),
        ),
        (
            "#include <stddef.h>\nstruct item { int key; int node; };\nint main(void) {\n  long n = 8;\n  struct item *i = (struct item *)(n - offsetof(struct item, node));\n  return i != 0;\n}\n",
            "something other than a pointer",
            (5, 36),
        ),
    ]);
}

#[test]
fn a_view_of_a_scalars_bytes_is_refused() {
    refused_at(&[
        (
            "int i = 7;\nint main(void) {\n  char *b = (char *)&i;\n  return b[1];\n}\n",
            "pointers to scalars of different sizes (4 and 1 bytes)",
            (3, 13),
        ),
        (
            "long l;\nint main(void) {\n  int *half = (int *)&l;\n  return *half;\n}\n",
            "(8 and 4 bytes)",
            (3, 15),
        ),
    ]);
    // the same size is one scalar seen as another type
    ok(
        "#include <stdint.h>\nstruct n { struct n *next; };\nstruct n a;\nint main(void) {\n  long *u = (long *)&a.next;\n  uintptr_t *w = (uintptr_t *)&a.next;\n  return (*u != 0) + (*w != 0);\n}\n",
    );
}

#[test]
fn a_call_through_a_pointer_chooses_among_the_functions_used_as_values() {
    // `twice` and `other` fit `int (*)(int)`; `unused` is never a value,
    // `pair` takes two arguments
    let p = ok(
        "int twice(int x) { return 2 * x; }\nint other(int x) { return x; }\nint unused(int x) { return x; }\nint pair(int a, int b) { return a + b; }\nint (*fp)(int) = twice;\nint main(void) {\n  int (*q)(int, int) = pair;\n  fp = other;\n  return fp(3) + q(1, 2);\n}\n",
    );
    let main = function(&p, "main");
    let called: Vec<&str> = flat(&main.body)
        .into_iter()
        .filter_map(|k| match k {
            StmtKind::Call { function, .. } => Some(p.functions[*function].name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(called, ["twice", "other", "pair"], "{:?}", main.body);
    let invalid = flat(&main.body)
        .into_iter()
        .filter(|k| {
            matches!(
                k,
                StmtKind::Assert {
                    kind: PropertyKind::InvalidFunctionPointer,
                    ..
                }
            )
        })
        .count();
    assert_eq!(invalid, 2, "one per call through a pointer");
    // a call that may reach its own function is cut off there, and warned
    let p = ok(
        "int (*fp)(int);\nint f(int x) { return x > 0 ? fp(x - 1) : 0; }\nint main(void) {\n  fp = f;\n  return f(2);\n}\n",
    );
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert!(
        p.warnings[0].message.contains("may reach `f` itself"),
        "{}",
        p.warnings[0].message
    );
    // mutual recursion through a pointer is refused as recursion
    let d = diagnostic(
        "int f(int n);\nint (*fp)(int) = f;\nint g(int n) { return fp(n); }\nint f(int n) { return g(n); }\nint main(void) { return f(1); }\n",
    );
    assert_eq!(d.message, "recursion is not supported");
}

#[test]
fn adjacent_bit_fields_share_one_storage_unit() {
    let p = ok(
        "struct s { unsigned a : 1; unsigned b : 2; int c; unsigned d : 4; unsigned : 0; unsigned e : 1; };\nstruct s x;\nint main(void) { x.b = 3; return x.a + x.c + x.d + x.e; }\n",
    );
    let names: Vec<String> = p.locations.iter().map(|l| l.name).collect();
    assert_eq!(names, ["NULL", "x.{a,b}", "x.c", "x.{d}", "x.{e}"]);
    // storing b reads the unit and writes it back
    let unit = location(&p, "x.{a,b}");
    assert_eq!(
        visible(&function(&p, "main").body)[..2],
        accesses(&[("R", unit), ("W", unit)])[..]
    );
    // a static initialiser packs the members into their unit
    let p = ok(
        "struct s { unsigned a : 1; unsigned b : 2; int c; };\nstruct s x = { 1, 2, 7 };\nint main(void) { return x.a + x.c; }\n",
    );
    let initial: Vec<i64> = p.locations.iter().map(|l| l.initial).collect();
    assert_eq!(initial, [0, 1 | 2 << 1, 7]);
    refused_at(&[(
        // not C: the compiler's words
        "struct s { unsigned a : 40; };\nint main(void) { return 0; }\n",
        "the C compiler rejects this program: width of 'a' exceeds its type",
        (1, 21),
    )]);
    let d = diagnostic(
        "struct s { unsigned a : 1; };\nstruct s x;\nint main(void) { unsigned *p = &x.a; return *p; }\n",
    );
    // not C: the compiler's words
    assert!(
        d.message.contains("cannot take address of bit-field 'a'"),
        "{}",
        d.message
    );
}

#[test]
fn a_union_of_scalars_of_one_size_is_one_location() {
    let p = ok(
        "#include <stdint.h>\nunion word { void *p; uintptr_t bits; long l; };\nunion word w;\nint main(void) { w.bits = 8; return w.l == 8 && w.p != 0; }\n",
    );
    let names: Vec<String> = p.locations.iter().map(|l| l.name).collect();
    assert_eq!(names, ["NULL", "w.p"]);
    let d = diagnostic(
        "union mixed { int i; long l; };\nunion mixed m;\nint main(void) { return m.i; }\n",
    );
    assert!(d.message.contains("the union `mixed`"), "{}", d.message);
}

#[test]
fn a_goto_back_to_a_label_of_its_block_is_a_loop() {
    let p = ok(
        "int x;\nint main(void) {\nretry:\n  x++;\n  if (x < 3)\n    goto retry;\n  return x;\n}\n",
    );
    let main = &function(&p, "main").body;
    assert!(
        main.iter().any(|s| matches!(s.kind, StmtKind::Loop { .. })),
        "{main:?}"
    );
    // a `break` between the label and the goto would leave another construct
    let d = diagnostic(
        "int x;\nint main(void) {\n  for (;;) {\n  L:\n    x++;\n    if (x < 3)\n      goto L;\n    break;\n  }\n  return x;\n}\n",
    );
    assert!(
        d.message
            .contains("a `break` or `continue` between the label `L` and a `goto L` back to it"),
        "{}",
        d.message
    );
    assert_eq!((d.line, d.column), (8, 5));
}

#[test]
fn main_gets_the_arguments_of_a_run_without_any() {
    let p = ok("int main(int argc, char **argv) {\n  return argc > 1 ? argv[1][0] : 0;\n}\n");
    let names: Vec<String> = p.locations.iter().map(|l| l.name).collect();
    assert!(
        names.iter().any(|n| n == "argv[0]")
            && names.iter().any(|n| n == "argv[1]")
            && names.iter().any(|n| n == "program_name[0]"),
        "{names:?}"
    );
    assert_eq!(
        p.locations.initial(location(&p, "argv[0]") as usize),
        location(&p, "program_name[0]")
    );
    assert_eq!(p.locations.initial(location(&p, "argv[1]") as usize), 0);
    // unused arguments cost nothing
    let p = ok("int main(int argc, char **argv) {\n  return 0;\n}\n");
    assert_eq!(p.locations.len(), 1, "only NULL: {:?}", p.locations);
}

#[test]
fn a_function_the_program_defines_is_called_even_with_a_builtins_name() {
    // SV-COMP's workstealqueue defines its own compare-and-swap: `&expected`
    // of a local is an ordinary address then, not a builtin's private
    // argument (it was refused), and the call runs the program's body
    let p = ok(
        "_Bool atomic_compare_exchange_strong(long *o, long *e, long d) { if (*o == *e) { *o = d; return 1; } *e = *o; return 0; }\nlong v = 5;\nint main(void) { long expected = 0; atomic_compare_exchange_strong(&v, &expected, 0); return expected; }\n",
    );
    let calls = flat(&function(&p, "main").body);
    assert!(
        calls.iter().any(|k| matches!(k, StmtKind::Call { .. })),
        "{calls:?}"
    );
    assert!(
        !calls.iter().any(|k| matches!(k, StmtKind::Rmw { .. })),
        "{calls:?}"
    );
    let p = ok(
        "void *memset(void *s, int c, unsigned long n) { char *b = s; while (n--) *b++ = c; return s; }\nint main(void) { char local[4]; memset(local, 1, 4); return local[2]; }\n",
    );
    let calls = flat(&function(&p, "main").body);
    assert!(
        calls.iter().any(|k| matches!(k, StmtKind::Call { .. })),
        "{calls:?}"
    );
}

#[test]
fn a_variadic_function_that_reads_its_arguments_is_refused_where_it_reads() {
    refused_at(&[
        (
            "int first(int n, ...) {\n  __builtin_va_list a;\n  __builtin_va_start(a, n);\n  return __builtin_va_arg(a, int);\n}\nint main(void) { return first(1, 2); }\n",
            "variadic arguments (`va_arg`)",
            (4, 10),
        ),
        // too many arguments for a function without `...`
        (
            // not C: the compiler's words
            "int f(int a) { return a; }\nint main(void) { return f(1, 2); }\n",
            "the C compiler rejects this program: too many arguments to function 'f'",
            (2, 25),
        ),
    ]);
    // one that only hands them on is lowered, its extra arguments' effects kept
    let p = ok(
        "void note(const char *f, ...) {}\nint x;\nint main(void) { int k = 0; note(\"%d\", k++, x); return k; }\n",
    );
    let main = flat(&function(&p, "main").body);
    assert!(
        main.iter()
            .any(|k| matches!(k, StmtKind::Call { arguments, .. } if arguments.len() == 1)),
        "{main:?}"
    );
    assert!(
        !main.iter().any(|k| matches!(k, StmtKind::Read { .. })),
        "x, without effects, is not read: {main:?}"
    );
}

#[test]
fn padding_that_no_expression_names_takes_no_location() {
    let p = ok(
        "struct line { int head; char pad[60]; int tail; int spare[2]; };\nstruct line a = { 1, { 7 }, 2, { 3, 4 } };\nint size = sizeof(struct line);\nint main(void) { a.tail = a.spare[1]; return 0; }\n",
    );
    let names: Vec<String> = p.locations.iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        [
            "NULL",
            "a.head",
            "a.tail",
            "a.spare[0]",
            "a.spare[1]",
            "size"
        ]
    );
    let initial: Vec<i64> = p.locations.iter().map(|l| l.initial).collect();
    assert_eq!(
        initial,
        [0, 1, 2, 3, 4, 76],
        "the padding's initial values are dropped; sizeof counts its bytes"
    );
    assert_eq!(p.padding, ["line.pad"]);
}

#[test]
fn a_struct_a_member_pointer_may_cross_keeps_its_padding() {
    // `&a.first` (also in a call), `&c.words[0]` and an array member that
    // decays (`long *m = e.more;`) let a pointer reach the unnamed members
    let addressed = [
        ("long *q = &a.first; q[1] = 5;", "s.second"),
        ("memcpy(&b.first, &a.first, 16);", "s.second"),
        ("long *q = &c.words[0]; q[1] = 2;", "w.rest"),
        ("long *m = e.more; m[0] = 1;", "m.tail"),
    ];
    for (statement, member) in addressed {
        let p = ok(&format!(
            "#include <string.h>\nstruct s {{ long first; long second; }};\nstruct s a, b;\nstruct w {{ long words[1]; long rest; }};\nstruct w c;\nstruct m {{ long head; long more[1]; long tail; }};\nstruct m e;\nint main(void) {{ {statement} return 0; }}\n"
        ));
        assert!(
            p.padding.iter().all(|pad| pad != member),
            "{statement}: {member} is kept, not {:?}",
            p.padding
        );
    }
    // `&q->head` given to atomics only: the padding beside it stays out,
    // as does a member passed by value
    let p = ok(
        "#include <stdatomic.h>\nstruct line { atomic_int head; char pad[60]; int tail; int spare; };\nstruct line l;\nint use(int v) { return v; }\nint main(void) { struct line *q = &l; atomic_fetch_add(&q->head, 1); atomic_store_explicit(&l.head, 0, memory_order_release); return use(l.tail); }\n",
    );
    assert_eq!(p.padding, ["line.pad", "line.spare"]);
}

#[test]
fn a_first_member_or_a_named_one_is_no_padding() {
    // the first member is where a converted pointer to the struct points;
    // `pad` is named by a designator, `gap` by offsetof, `flags` is a struct
    let p = ok(
        "#include <stddef.h>\nstruct inner { int x; };\nstruct s { int first; int pad[2]; int gap; struct inner flags; int used; };\nstruct s a = { .pad = { 1 } };\nint at = offsetof(struct s, gap);\nint main(void) { return a.used; }\n",
    );
    assert!(p.padding.is_empty(), "{:?}", p.padding);
    assert_eq!(location(&p, "a.used"), 6);
}

#[test]
fn strerror_gives_a_message_and_evaluates_its_argument() {
    // error paths print strerror(rc); its argument is still evaluated
    let p = ok(
        "#include <stdio.h>\n#include <string.h>\nint e;\nint main(void) {\n  const char *m = strerror(e++);\n  fprintf(stderr, \"%s\\n\", strerror(2));\n  return m[0];\n}\n",
    );
    let names: Vec<String> = p.locations.iter().map(|l| l.name).collect();
    assert!(
        names.iter().any(|n| n == "string#0[5]"),
        "one message string, \"error\" and its zero: {names:?}"
    );
    let main = function(&p, "main");
    let e = location(&p, "e");
    assert_eq!(
        visible(&main.body)[..2],
        accesses(&[("R", e), ("W", e)])[..],
        "e++ happens"
    );
}

#[test]
fn excess_initialisers_are_ignored_with_a_warning_at_the_first() {
    // globals and locals, an array without a length read twice for it
    let p = ok(
        "int a[2] = { 1, 2, 3, 4 };\nstruct pair { int x, y; } s = { 1, 2, 3 };\nint main(void) {\n  int b[1] = { 5, 6 };\n  int c[] = { 7, 8 };\n  return a[1] + s.y + b[0] + c[1];\n}\n",
    );
    let warnings: Vec<(String, u32, u32)> = p
        .warnings
        .iter()
        .map(|w| (w.message.clone(), w.line, w.column))
        .collect();
    assert_eq!(
        warnings,
        [
            ("excess elements in array initialiser".to_string(), 1, 20),
            ("excess elements in struct initialiser".to_string(), 2, 39),
            ("excess elements in array initialiser".to_string(), 4, 19),
        ],
        "{:?}",
        p.warnings
    );
    assert!(
        p.warnings
            .iter()
            .all(|w| w.severity == lazysma::diagnostics::Severity::Warning)
    );
}

/// `source` lowered with shared memory of `bits` bits.
fn lower_at_bitwidth(source: &str, bits: u32) -> Result<Program, FrontendError> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("prog.c");
    std::fs::write(&path, source).expect("write program");
    let mut options = TranslateOptions::default();
    options.bounds.bitwidth = bits;
    frontend::load(&path, &options)
}

#[test]
fn floating_objects_in_shared_memory_start_as_the_bits_of_their_constants() {
    // converted to the object's type, as C converts: 0.1 rounds to a
    // float once, from the double; -1.0 / 4 is computed in double
    let source = "float f = 1.5f;\nfloat g = 0.1;\ndouble d = -1.0 / 4;\ndouble n = 3;\nstruct s { int id; float w; } s = { 1, 0.25f };\nint main(void) { return 0; }\n";
    let p = match lower_at_bitwidth(source, 64) {
        Ok(p) => p,
        Err(FrontendError::Source(d)) => panic!("{}:{}: {}", d.line, d.column, d.message),
        Err(e) => panic!("{e}"),
    };
    let initial = |name: &str| {
        p.locations
            .get(location(&p, name) as usize)
            .expect("a location")
            .initial
    };
    assert_eq!(initial("f"), 0x3fc0_0000);
    assert_eq!(initial("g"), i64::from((0.1f64 as f32).to_bits() as i32));
    assert_eq!(initial("d"), (-0.25f64).to_bits() as i64);
    assert_eq!(initial("n"), 3.0f64.to_bits() as i64);
    assert_eq!(initial("s.w"), i64::from(0.25f32.to_bits() as i32));
    assert_eq!(
        p.locations
            .get(location(&p, "d") as usize)
            .expect("a location")
            .ty,
        Some(Ty::Float { bits: 64 })
    );
}

#[test]
fn a_double_in_shared_memory_needs_a_bit_width_of_64() {
    let source = "int x;\ndouble total;\nint main(void) { return 0; }\n";
    let Err(FrontendError::Source(d)) = lower_at_bitwidth(source, 32) else {
        panic!("a double at --bitwidth 32 lowered")
    };
    assert_eq!(
        d.message,
        "a `double` in shared memory needs --bitwidth 64 or more (it is 32)"
    );
    assert_eq!((d.line, d.column), (2, 8));
    assert!(
        d.help
            .as_deref()
            .is_some_and(|help| help.contains("--bitwidth 64")),
        "{:?}",
        d.help
    );
    // a float needs 32, a private double nothing
    assert!(
        lower_at_bitwidth(
            "float f;\nint main(void) { double d = 2; return (int)d; }\n",
            32
        )
        .is_ok()
    );
    let Err(FrontendError::Source(d)) =
        lower_at_bitwidth("float f;\nint main(void) { return 0; }\n", 16)
    else {
        panic!("a float at --bitwidth 16 lowered")
    };
    assert!(
        d.message
            .starts_with("a `float` in shared memory needs --bitwidth 32"),
        "{}",
        d.message
    );
}

#[test]
fn floating_values_enter_and_leave_shared_memory_as_their_bits() {
    // the store writes the bits of the float, the load reads bits back
    let p = ok("float f;\nint main(void) { f = 2.5f; float g = f; return g > 1; }\n");
    let main = function(&p, "main");
    let stores: Vec<&Expr> = flat(&main.body)
        .into_iter()
        .filter_map(|s| match s {
            StmtKind::Write { value, .. } => Some(value),
            _ => None,
        })
        .collect();
    assert_eq!(stores.len(), 1);
    let Expr::Reinterpret(to, value) = stores[0] else {
        panic!("{:?}", stores[0])
    };
    assert_eq!(
        *to,
        Ty::Int {
            bits: 32,
            signed: true
        }
    );
    assert!(
        matches!(&**value, Expr::FloatConst(FloatLiteral { bits: 32, spelling }) if spelling == "2.5"),
        "{value:?}"
    );
}

#[test]
fn floating_operations_that_c_forbids_or_lazysma_does_not_model_are_diagnostics() {
    let cases: &[(&str, &str, u32)] = &[
        (
            // not C: the compiler's words
            "float f;\nint main(void) {\n  return __atomic_fetch_add(&f, 1, 5);\n}\n",
            "operand type 'float *' is incompatible with argument 1 of '__atomic_fetch_add'",
            3,
        ),
        (
            // not C: the compiler's words
            "float d;\nint main(void) {\n  return __sync_bool_compare_and_swap(&d, 0, 1);\n}\n",
            "operand type 'float *' is incompatible with argument 1 of '__sync_bool_compare_and_swap'",
            3,
        ),
        (
            // not C: the compiler's words
            "int main(void) {\n  double d = 2;\n  return d % 2;\n}\n",
            "invalid operands to binary % (have 'double' and 'int')",
            3,
        ),
        (
            // not C: the compiler's words
            "int x;\nfloat f = x;\nint main(void) { return 0; }\n",
            "initializer element is not constant",
            2,
        ),
        (
            "int main(void) {\n  long double d = 1;\n  return 0;\n}\n",
            "a `long double` or complex type is not supported",
            2,
        ),
        (
            "int main(void) {\n  return 1.0L > 0;\n}\n",
            "`long double`, imaginary or TS 18661 floating constant",
            2,
        ),
        (
            // not C: the compiler's words
            "int main(void) {\n  float f = 1;\n  return ~f;\n}\n",
            "wrong type argument to bit-complement",
            3,
        ),
        (
            // not C: the compiler's words
            "int main(void) {\n  double d = 2;\n  switch (d) { default: break; }\n  return 0;\n}\n",
            "switch quantity not an integer",
            3,
        ),
        (
            // not C: the compiler's words
            "int a[4];\nint main(void) {\n  double d = 3;\n  return a[d];\n}\n",
            "array subscript is not an integer",
            4,
        ),
        (
            // not C: the compiler's words
            "#include <math.h>\nint main(void) {\n  return isnan(1);\n}\n",
            "non-floating-point argument in call to function '__builtin_isnan'",
            3,
        ),
        (
            "#include <math.h>\nint main(void) {\n  double d = nan(\"7\");\n  return d > 0;\n}\n",
            "`nan` with a NaN payload is not supported",
            3,
        ),
        (
            // not C: the compiler's words
            "#include <math.h>\nint main(void) {\n  return fabs(1, 2) > 0;\n}\n",
            "too many arguments to function 'fabs'",
            3,
        ),
        (
            // not C: the compiler's words
            "#include <math.h>\nint main(void) {\n  return fmod(1.0) > 0;\n}\n",
            "too few arguments to function 'fmod'",
            3,
        ),
        (
            "union word { unsigned bits; float f; };\nint main(void) {\n  return ((union word){ .f = 2.0f }).bits != 0;\n}\n",
            "a union that puns a floating value, held in private data here",
            3,
        ),
        (
            // not C: the compiler's words
            "int x;\nint main(void) {\n  int *p = &x;\n  double d = 1;\n  return p + d != 0;\n}\n",
            "invalid operands to binary + (have 'int *' and 'double')",
            5,
        ),
    ];
    for (source, needle, line) in cases {
        let d = diagnostic(source);
        assert!(d.message.contains(needle), "{source}: {}", d.message);
        assert_eq!(d.line, *line, "{source}: {}", d.message);
    }
}
