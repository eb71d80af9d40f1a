//! RF-SMC with symbolic values: random small programs whose thread takes a
//! nondeterministic `int` assumed to hold 4 bits (`(x & 15) == x`, a bound
//! the engine does not enumerate, so the value is a symbol), computes on it
//! privately (wrapping arithmetic, bit operations, divisions by constants,
//! shifts) and branches on it, beside a second thread that updates the
//! same shared global. The native verdict equals the brute force's, which
//! runs the program once per input value with the value written in, and
//! (under `LAZYSMA_FULL=1`) CBMC's on the translation. A second kind of
//! program passes the input through a shared global, written by one
//! thread and read by another, and a third through compare-and-swaps of
//! two threads that may both succeed and fail. Needs the SMT solvers
//! (`scripts/install-smt-solvers.sh`).

use crate::smc_rf::{prepare, reads_from};
use lazysma::smc::Answer;
use proptest::prelude::*;
use std::path::Path;

/// Few cases in the default tier; `LAZYSMA_FULL=1` or
/// `LAZYSMA_PROPTEST_CASES` for more.
fn cases() -> u32 {
    let full = std::env::var("LAZYSMA_FULL").is_ok_and(|value| value == "1");
    std::env::var("LAZYSMA_PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(if full { 48 } else { 4 })
}

fn full() -> bool {
    std::env::var("LAZYSMA_FULL").is_ok_and(|value| value == "1")
}

/// An integer expression over the input `x` and the local `y`.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("y".to_string()),
        (0i32..9).prop_map(|c| c.to_string()),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone(), 0usize..6).prop_map(|(a, b, op)| {
                let op = ["+", "-", "*", "&", "|", "^"][op];
                format!("({a} {op} {b})")
            }),
            (inner.clone(), 1i32..6).prop_map(|(a, c)| format!("({a} / {c})")),
            (inner.clone(), 1i32..6).prop_map(|(a, c)| format!("({a} % {c})")),
            (inner, 0i32..3).prop_map(|(a, c)| format!("(({a} & 255) >> {c})")),
        ]
    })
}

/// A condition on expressions.
fn condition() -> impl Strategy<Value = String> {
    (expression(), expression(), 0usize..5).prop_map(|(a, b, op)| {
        let op = ["<", "<=", "==", "!=", ">"][op];
        format!("{a} {op} {b}")
    })
}

/// A statement of the thread that takes the input.
fn statement() -> impl Strategy<Value = String> {
    prop_oneof![
        (condition(), 0i32..3, 0i32..3)
            .prop_map(|(c, a, b)| format!("if ({c}) g = g + {a}; else g = g + {b};")),
        expression().prop_map(|e| format!("y = {e};")),
        (condition(), 0i32..3).prop_map(|(c, a)| format!("if ({c}) y = y + {a};")),
    ]
}

/// A program: the input thread's statements, whether `main` updates `g`
/// beside it, and the value of `g` the assertion rules out.
#[derive(Debug, Clone)]
struct Program {
    statements: Vec<String>,
    racing: bool,
    ruled_out: i32,
}

fn program() -> impl Strategy<Value = Program> {
    (
        prop::collection::vec(statement(), 1..4),
        any::<bool>(),
        0i32..5,
    )
        .prop_map(|(statements, racing, ruled_out)| Program {
            statements,
            racing,
            ruled_out,
        })
}

/// The declaration of the input `x`: symbolic, a nondeterministic `int`
/// assumed to hold 4 bits (`None`), or fixed.
fn take(input: Option<i32>) -> String {
    match input {
        None => "int x = __VERIFIER_nondet_int();\n  __VERIFIER_assume((x & 15) == x);".to_string(),
        Some(value) => format!("int x = {value};"),
    }
}

/// The program's C text with the input `x` symbolic (`None`) or fixed.
fn source(program: &Program, input: Option<i32>) -> String {
    let take = take(input);
    let racing = if program.racing { "g = g + 1;" } else { "" };
    format!(
        "#include <pthread.h>\n#include <assert.h>\nextern int __VERIFIER_nondet_int(void);\n\
         extern void __VERIFIER_assume(int);\nint g;\n\
         void *worker(void *arg) {{\n  {take}\n  int y = 1;\n  {}\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  {racing}\n  \
         pthread_join(t, 0);\n  assert(g != {});\n  return 0;\n}}\n",
        program.statements.join("\n  "),
        program.ruled_out
    )
}

/// RF-SMC's verdict on `text` (true: safe) under `model`.
fn native(text: &str, model: &str) -> bool {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let path = directory.path().join("symbolic.c");
    std::fs::write(&path, text).expect("the program written");
    match reads_from(&prepare(&path, model, 2)) {
        Ok(Answer::Safe(..)) => true,
        Ok(Answer::Violation { .. }) => false,
        Err(why) => panic!("no answer ({why}) on\n{text}"),
    }
}

/// The native verdicts (true: safe) under `model` on the program `source`
/// gives with the input symbolic, and on all of the 16 programs with the
/// input fixed (the brute force).
fn verdicts(source: impl Fn(Option<i32>) -> String, model: &str) -> (bool, bool) {
    let symbolic = native(&source(None), model);
    let brute = (0..16).all(|value| native(&source(Some(value)), model));
    (symbolic, brute)
}

/// CBMC's verdict on `text` (true: safe) under `model`.
fn cbmc(text: &str, model: &str) -> bool {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let path = directory.path().join("symbolic.c");
    std::fs::write(&path, text).expect("the program written");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_lazysma"))
        .args(["verify", "--engine", "cbmc", "--unwind", "2"])
        .arg(format!("--{model}"))
        .arg(Path::new(&path))
        .output()
        .expect("lazysma runs");
    match status.status.code() {
        Some(0) => true,
        Some(10) => false,
        other => panic!("CBMC gave {other:?} on\n{text}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn symbolic_inputs_give_the_brute_forces_verdict(
        program in program(),
        model in prop::sample::select(vec!["sc", "tso", "pso"]),
    ) {
        let (symbolic, brute) = verdicts(|input| source(&program, input), model);
        prop_assert_eq!(symbolic, brute, "under {}:\n{}", model, source(&program, None));
        if full() {
            let text = source(&program, None);
            prop_assert_eq!(symbolic, cbmc(&text, model), "CBMC under {}:\n{}", model, text);
        }
    }

    #[test]
    fn symbolic_inputs_through_shared_memory_give_the_brute_forces_verdict(
        program in shared_program(),
        model in prop::sample::select(vec!["sc", "tso", "pso"]),
    ) {
        let (symbolic, brute) = verdicts(|input| shared_source(&program, input), model);
        prop_assert_eq!(symbolic, brute, "under {}:\n{}", model, shared_source(&program, None));
    }

    #[test]
    fn compare_and_swaps_on_symbolic_values_give_the_brute_forces_verdict(
        program in swapping_program(),
        model in prop::sample::select(vec!["sc", "tso", "pso"]),
    ) {
        let (symbolic, brute) = verdicts(|input| swapping_source(&program, input), model);
        prop_assert_eq!(symbolic, brute, "under {}:\n{}", model, swapping_source(&program, None));
    }
}

/// A program whose input reaches the compare-and-swaps of two threads:
/// a producer writes a value computed from the input to the shared `s`,
/// and two threads each compare-and-swap `s` (an expected constant, a new
/// constant) and compute and branch on the old value they read. Where the
/// old value is a term, a swap may both succeed and fail: each side is
/// an execution of its own, with its condition.
#[derive(Debug, Clone)]
struct Swapping {
    produced: (String, String, String),
    swaps: [(i32, i32, Vec<String>); 2],
    ruled_out: i32,
}

fn swapping_program() -> impl Strategy<Value = Swapping> {
    let swap = || (0i32..4, 1i32..5, prop::collection::vec(statement(), 1..3));
    (
        (condition(), expression(), expression()),
        swap(),
        swap(),
        0i32..5,
    )
        .prop_map(|(produced, first, second, ruled_out)| Swapping {
            produced,
            swaps: [first, second],
            ruled_out,
        })
}

/// The swapping program's C text with the input symbolic (`None`) or
/// fixed.
fn swapping_source(program: &Swapping, input: Option<i32>) -> String {
    let take = take(input);
    let (condition, then, otherwise) = &program.produced;
    let swappers: String = program
        .swaps
        .iter()
        .enumerate()
        .map(|(number, (expected, new, statements))| {
            format!(
                "void *swapper{number}(void *arg) {{\n  \
                 int x = __sync_val_compare_and_swap(&s, {expected}, {new});\n  int y = 1;\n  \
                 {}\n  return 0;\n}}\n",
                statements.join("\n  ")
            )
        })
        .collect();
    format!(
        "#include <pthread.h>\n#include <assert.h>\nextern int __VERIFIER_nondet_int(void);\n\
         extern void __VERIFIER_assume(int);\nint g, s;\n\
         void *producer(void *arg) {{\n  {take}\n  int y = 1;\n  \
         if ({condition}) s = {then}; else s = {otherwise};\n  return 0;\n}}\n{swappers}\
         int main(void) {{\n  pthread_t p, a, b;\n  pthread_create(&p, 0, producer, 0);\n  \
         pthread_create(&a, 0, swapper0, 0);\n  pthread_create(&b, 0, swapper1, 0);\n  \
         pthread_join(p, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n  \
         assert(g != {});\n  return 0;\n}}\n",
        program.ruled_out
    )
}

/// A program whose input travels through shared memory: a producer takes
/// the input, branches on it and writes a value computed from it to the
/// shared `s`; a consumer reads `s` (the producer's term, or the initial
/// 0 when it reads first) and computes and branches on what it read. The
/// producer branches on the input again after the write, so that the two
/// threads decide on the same symbol, each without the other's sides.
#[derive(Debug, Clone)]
struct Shared {
    produced: (String, String, String),
    after: String,
    consumer: Vec<String>,
    ruled_out: i32,
}

fn shared_program() -> impl Strategy<Value = Shared> {
    (
        (condition(), expression(), expression()),
        statement(),
        prop::collection::vec(statement(), 1..3),
        0i32..5,
    )
        .prop_map(|(produced, after, consumer, ruled_out)| Shared {
            produced,
            after,
            consumer,
            ruled_out,
        })
}

/// The shared program's C text with the input symbolic (`None`) or fixed.
fn shared_source(program: &Shared, input: Option<i32>) -> String {
    let take = take(input);
    let (condition, then, otherwise) = &program.produced;
    format!(
        "#include <pthread.h>\n#include <assert.h>\nextern int __VERIFIER_nondet_int(void);\n\
         extern void __VERIFIER_assume(int);\nint g, s;\n\
         void *producer(void *arg) {{\n  {take}\n  int y = 1;\n  \
         if ({condition}) s = {then}; else s = {otherwise};\n  {}\n  return 0;\n}}\n\
         void *consumer(void *arg) {{\n  int x = s;\n  int y = 1;\n  {}\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_t p, c;\n  pthread_create(&p, 0, producer, 0);\n  \
         pthread_create(&c, 0, consumer, 0);\n  pthread_join(p, 0);\n  pthread_join(c, 0);\n  \
         assert(g != {});\n  return 0;\n}}\n",
        program.after,
        program.consumer.join("\n  "),
        program.ruled_out
    )
}
