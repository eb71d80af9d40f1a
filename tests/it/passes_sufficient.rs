//! The bounds that cut off no execution (`passes::sufficient`): their values
//! on small programs under every SMA, and `--qsize auto` / `--maxclock auto`
//! in the translation.

use lazysma::options::{AutoBounds, BoundChoice, SmaImplementation, TranslateOptions};
use lazysma::passes::sufficient::SufficientBounds;
use lazysma::translate::{Translation, translate};

/// Store buffering where one thread stores to `x` three times before its
/// load: the violation needs all three pending at once.
const THREE_PENDING: &str = r#"#include <pthread.h>
#include <assert.h>
int x, y, r0, r1;
void *t0(void *a) { x = 1; x = 2; x = 3; r0 = y; return 0; }
void *t1(void *a) { y = 1; __sync_synchronize(); r1 = x; return 0; }
int main() {
  pthread_t a, b;
  x = 0; y = 0;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
"#;

/// A program whose main runs `t0` and `t1` (statements) side by side, joins
/// them and returns `result`.
fn two_threads(globals: &str, t0: &str, t1: &str, result: &str) -> String {
    format!(
        "#include <pthread.h>\n{globals}\nvoid *t0(void *arg) {{ {t0} return 0; }}\nvoid *t1(void *arg) {{ {t1} return 0; }}\n\
         int main() {{\n  pthread_t a, b;\n  pthread_create(&a, 0, t0, 0);\n  pthread_create(&b, 0, t1, 0);\n  \
         pthread_join(a, 0);\n  pthread_join(b, 0);\n  return {result};\n}}\n"
    )
}

fn translated(source: &str, options: &TranslateOptions) -> Translation {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("program.c");
    std::fs::write(&path, source).expect("program");
    translate(&path, options).unwrap_or_else(|error| panic!("translation: {error}"))
}

fn sufficient(source: &str, sma: SmaImplementation) -> Option<SufficientBounds> {
    translated(
        source,
        &TranslateOptions {
            sma,
            ..TranslateOptions::default()
        },
    )
    .sufficient
}

#[test]
fn the_timestamped_lists_need_a_node_per_pending_store_and_the_clock_a_tick_per_guessed_store() {
    // x: t0's three stores pending at once, plus the memory value; main's
    // stores before the creations are drained by them and need no node of
    // their own. Timestamps: t0's three stores to x and t1's store to y;
    // r0 and r1 only main reads, after the joins, so they take the least
    // timestamp, as do main's stores before its first creation.
    for sma in [SmaImplementation::Etso, SmaImplementation::Epso] {
        assert_eq!(
            sufficient(THREE_PENDING, sma),
            Some(SufficientBounds {
                qsize: 4,
                maxclock: Some(4)
            }),
            "{sma:?}"
        );
    }
}

#[test]
fn the_reference_buffers_need_a_slot_per_pending_store_of_a_thread_or_of_a_location() {
    // TSO: t0 has its three stores to x and its store to r0 in one FIFO;
    // PSO: one buffer per location, x's holds three. No clock.
    assert_eq!(
        sufficient(THREE_PENDING, SmaImplementation::TsoReference),
        Some(SufficientBounds {
            qsize: 4,
            maxclock: None
        })
    );
    assert_eq!(
        sufficient(THREE_PENDING, SmaImplementation::PsoReference),
        Some(SufficientBounds {
            qsize: 3,
            maxclock: None
        })
    );
    assert_eq!(sufficient(THREE_PENDING, SmaImplementation::Sc), None);
}

#[test]
fn an_atomic_write_takes_a_node_while_other_stores_are_pending() {
    let source = two_threads(
        "int x, y, r;",
        "x = 1; r = y;",
        "__sync_fetch_and_add(&x, 1);",
        "x",
    );
    let with_rmw = sufficient(&source, SmaImplementation::Etso).expect("counted");
    assert_eq!(
        with_rmw.qsize, 3,
        "x: t0's pending store, the memory value and the RMW's node"
    );
    let plain = source.replace("__sync_fetch_and_add(&x, 1)", "y = 2");
    assert_eq!(
        sufficient(&plain, SmaImplementation::Etso)
            .expect("counted")
            .qsize,
        2
    );
}

#[test]
fn a_store_through_an_unknown_pointer_counts_for_every_location() {
    let globals = "int __VERIFIER_nondet_int(void);\nint a, b;\nint *p;";
    let source = two_threads(
        globals,
        "p = __VERIFIER_nondet_int() ? &a : &b; *p = 1; *p = 2;",
        "a = 1;",
        "a",
    );
    // a: two stores of t0 that may land anywhere, t1's own, the memory value
    assert_eq!(
        sufficient(&source, SmaImplementation::Etso),
        Some(SufficientBounds {
            qsize: 4,
            maxclock: Some(3)
        })
    );
}

#[test]
fn loop_copies_and_thread_instances_each_count() {
    let source = r#"#include <pthread.h>
int x, y;
void *w(void *arg) { for (int i = 0; i < 3; i++) x = i; y = 1; return 0; }
int main() {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, w, 0);
  int seen = x + y;
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  return seen;
}
"#;
    let options = |unwind: u32| {
        let mut options = TranslateOptions::default();
        options.bounds.unwind = unwind;
        options
    };
    // unwind 3: three copies of `x = i` per instance, two instances
    let three = translated(source, &options(3)).sufficient.expect("counted");
    assert_eq!(
        three,
        SufficientBounds {
            qsize: 7,
            maxclock: Some(8)
        }
    );
    // unwind 2: two copies, and no execution gets past the loop to `y = 1`
    let two = translated(source, &options(2)).sufficient.expect("counted");
    assert_eq!(
        two,
        SufficientBounds {
            qsize: 5,
            maxclock: Some(4)
        }
    );
}

#[test]
fn bounds_above_the_sufficient_values_build_the_sma_with_the_sufficient_ones() {
    let options = |sma: SmaImplementation, qsize: u32, maxclock: u32| {
        let mut options = TranslateOptions {
            sma,
            ..TranslateOptions::default()
        };
        options.bounds.qsize = qsize;
        options.bounds.maxclock = maxclock;
        options
    };
    // epso: qsize 4, maxclock 4 suffice; the bounds asked for stay the ones reported
    let translation = translated(THREE_PENDING, &options(SmaImplementation::Epso, 9, 12));
    assert_eq!(
        (translation.bounds.qsize, translation.bounds.maxclock),
        (9, 12)
    );
    assert!(
        translation.c_source.contains("#define SMA_QSIZE 4\n"),
        "{}",
        translation.c_source
    );
    assert!(translation.c_source.contains("#define SMA_MAXCLOCK 4\n"));
    assert!(
        translation
            .c_source
            .contains(" * bounds: rounds 2, unwind 2, qsize 9, maxclock 12,")
    );
    assert!(
        translation
            .c_source
            .contains(" * so the SMA below is built with qsize 4, maxclock 4: the same executions")
    );
    // only the bound above its sufficient value is lowered
    let translation = translated(THREE_PENDING, &options(SmaImplementation::Epso, 3, 12));
    assert!(translation.c_source.contains("#define SMA_QSIZE 3\n"));
    assert!(translation.c_source.contains("#define SMA_MAXCLOCK 4\n"));
    // bounds within the sufficient values are kept, and nothing is said
    let translation = translated(THREE_PENDING, &options(SmaImplementation::Epso, 3, 2));
    assert!(
        translation.c_source.contains("#define SMA_QSIZE 3\n")
            && translation.c_source.contains("#define SMA_MAXCLOCK 2\n")
    );
    assert!(
        !translation
            .c_source
            .contains("so the SMA below is built with")
    );
    // a reference SMA has no clock: its buffer depth alone is lowered
    let sufficient = sufficient(THREE_PENDING, SmaImplementation::TsoReference).expect("counted");
    let translation = translated(
        THREE_PENDING,
        &options(SmaImplementation::TsoReference, 9, 12),
    );
    assert!(
        translation
            .c_source
            .contains(&format!("#define SMA_QSIZE {}\n", sufficient.qsize)),
        "{}",
        translation.c_source
    );
    assert!(translation.c_source.contains("#define SMA_MAXCLOCK 12\n"));
    assert!(translation.c_source.contains(&format!(
        " * so the SMA below is built with qsize {}: the same",
        sufficient.qsize
    )));
}

#[test]
fn auto_bounds_take_the_sufficient_values_and_name_them_in_the_output() {
    let options = TranslateOptions {
        sma: SmaImplementation::Epso,
        auto_bounds: AutoBounds::SUFFICIENT,
        ..TranslateOptions::default()
    };
    let translation = translated(THREE_PENDING, &options);
    assert_eq!(
        (translation.bounds.qsize, translation.bounds.maxclock),
        (4, 4)
    );
    assert!(
        translation.c_source.contains("#define SMA_QSIZE 4\n"),
        "{}",
        translation.c_source
    );
    assert!(translation.c_source.contains("#define SMA_MAXCLOCK 4\n"));
    assert!(
        translation
            .c_source
            .contains(" * bounds: rounds 2, unwind 2, qsize 4, maxclock 4,")
    );
    assert!(
        translation
            .c_source
            .contains(" * no execution needs more than qsize 4, maxclock 4 ")
    );

    // only the bound asked for changes
    let options = TranslateOptions {
        auto_bounds: AutoBounds {
            qsize: BoundChoice::Given,
            maxclock: BoundChoice::Sufficient,
            nmalloc: BoundChoice::Given,
            bitwidth: BoundChoice::Given,
        },
        ..options
    };
    let translation = translated(THREE_PENDING, &options);
    assert_eq!(
        (translation.bounds.qsize, translation.bounds.maxclock),
        (2, 4)
    );

    // SC has neither bound: `auto` keeps the defaults
    let options = TranslateOptions {
        sma: SmaImplementation::Sc,
        auto_bounds: AutoBounds::SUFFICIENT,
        ..options
    };
    let translation = translated(THREE_PENDING, &options);
    assert_eq!(
        (translation.bounds.qsize, translation.bounds.maxclock),
        (2, 3)
    );
    assert!(
        !translation
            .c_source
            .contains("no execution needs more than")
    );
}
