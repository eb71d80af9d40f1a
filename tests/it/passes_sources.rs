//! The passes and printer on real C sources (frontend included): litmus
//! tests under SC checked by CBMC, and every benchmark program translated
//! into C that gcc accepts, in milliseconds.

use crate::passes_support;
use crate::support;

use lazysma::options::{SmaImplementation, TranslateOptions};
use lazysma::translate::translate;
use passes_support::{cbmc_output, expect_verdict, gcc_accepts};
use support::corpus_dir as corpus;

fn sc_options() -> TranslateOptions {
    TranslateOptions {
        sma: SmaImplementation::Sc,
        ..TranslateOptions::default()
    }
}

#[test]
fn litmus_sample_under_sc() {
    let dir = corpus().join("litmus").join("visible");
    for (file, safe) in [
        ("SB.c", true),
        ("2+2W.c", true),
        ("bf.c", false),
        ("non-treelike-coherence.c", false),
    ] {
        let translation = match translate(&dir.join(file), &sc_options()) {
            Ok(t) => t,
            Err(e) => panic!("{file}: {e}"),
        };
        assert!(
            translation.map.threads.len() >= 3,
            "{file}: main and at least two threads"
        );
        expect_verdict(&translation.c_source, safe, file);
    }
}

#[test]
fn every_benchmark_translates_to_c_that_gcc_accepts() {
    let manifest = corpus().join("bench").join("manifest.tsv");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|error| panic!("{} is readable: {error}", manifest.display()));
    let mut translated = 0;
    for line in text.lines().skip(1) {
        let Some(path) = line.split('\t').next() else {
            continue;
        };
        let file = corpus().join("bench").join(path);
        let mut options = TranslateOptions::default();
        options.bounds.unwind = 3;
        let start = std::time::Instant::now();
        match translate(&file, &options) {
            Ok(t) => {
                let elapsed = start.elapsed();
                assert!(
                    elapsed.as_millis() < 2000,
                    "{path}: translation took {elapsed:?}"
                );
                if let Some(Err(e)) = gcc_accepts(&t.c_source) {
                    panic!("{path}: gcc rejects the output:\n{e}");
                }
                translated += 1;
            }
            // Unsupported constructs are reported, never a panic.
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
    assert!(
        translated >= 40,
        "only {translated} benchmark programs translated"
    );
}

/// A thread writes `a[i]` and a field of `s[i % 2]` at a nondeterministic
/// index; main reads `a[j]`. `bound` is the largest index allowed.
fn computed_index_program(bound: &str) -> String {
    format!(
        r#"#include <pthread.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
int a[4];
struct pair {{ int x; int y; }} s[2];
void *writer(void *arg) {{
  int i = __VERIFIER_nondet_int();
  __VERIFIER_assume(0 <= i && i {bound});
  a[i] = i + 1;
  s[i % 2].y = 7;
  int r = a[i];
  assert(r == i + 1);
  return 0;
}}
int main(void) {{
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  int j = __VERIFIER_nondet_int();
  __VERIFIER_assume(0 <= j && j < 4);
  int v = a[j];
  assert(v == 0 || v == j + 1);
  assert(s[0].x == 0);
  pthread_join(t, 0);
  return 0;
}}
"#
    )
}

fn translate_text(name: &str, source: &str) -> (tempfile::TempDir, String) {
    translate_text_with(name, source, &sc_options())
}

fn translate_text_with(
    name: &str,
    source: &str,
    options: &TranslateOptions,
) -> (tempfile::TempDir, String) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("temporary directory: {e}"),
    };
    let path = dir.path().join(name);
    if let Err(e) = std::fs::write(&path, source) {
        panic!("writing {name}: {e}");
    }
    match translate(&path, options) {
        Ok(t) => (dir, t.c_source),
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn computed_index_within_bounds_is_dispatched_and_safe() {
    // Under eTSO each of the four accesses at a computed address compares it
    // with the locations of its object: a[0..4] are locations 1..4, s is 5..8.
    let options = TranslateOptions {
        sma: SmaImplementation::Etso,
        ..TranslateOptions::default()
    };
    let (_dir, text) = translate_text_with("inbounds.c", &computed_index_program("< 4"), &options);
    assert_eq!(
        text.matches("long long lazy_address =").count(),
        4,
        "{text}"
    );
    assert!(
        text.contains("if (lazy_address == 1) sma_write(1, "),
        "{text}"
    );
    assert!(
        text.contains("  if (lazy_address == 8) sma_write(8, 7, "),
        "{text}"
    );
    assert!(!text.contains("lazy_address == 9"), "{text}");
    // an address outside the object fails the property before any access
    assert!(
        text.contains("if (lazy_address < 5 || lazy_address >= 9) { __CPROVER_assert(0, "),
        "{text}"
    );
    expect_verdict(&text, true, "a[i] with 0 <= i < 4 under eTSO");
    // Under SC, whose memory is one cell per location, the same bounds check
    // is followed by one access at the address itself.
    let (_dir, text) = translate_text("inbounds.c", &computed_index_program("< 4"));
    assert_eq!(
        text.matches("long long lazy_address =").count(),
        4,
        "{text}"
    );
    assert!(!text.contains("if (lazy_address =="), "{text}");
    assert!(text.contains("sma_write(lazy_address, 7, "), "{text}");
    assert!(
        text.contains("if (lazy_address < 5 || lazy_address >= 9) { __CPROVER_assert(0, "),
        "{text}"
    );
    expect_verdict(&text, true, "a[i] with 0 <= i < 4 under SC");
}

#[test]
fn computed_index_out_of_bounds_is_a_violation_at_its_line() {
    let (_dir, text) = translate_text("outofbounds.c", &computed_index_program("<= 4"));
    let Some(stdout) = cbmc_output(&text) else {
        eprintln!("cbmc not found: out-of-bounds dispatch not checked");
        return;
    };
    let failures: Vec<&str> = stdout
        .lines()
        .filter(|l| l.ends_with(": FAILURE"))
        .collect();
    assert!(
        failures
            .iter()
            .any(|l| l.contains("outofbounds.c:10: array index out of bounds: a[i] = i + 1;")),
        "{stdout}"
    );
    // Only the write can go out of bounds: the read after it is cut off.
    assert_eq!(failures.len(), 1, "{stdout}");
}

#[test]
fn main_keeps_its_suffix_in_every_round_unless_every_thread_is_joined() {
    let program = |joins: &str| {
        format!(
            r#"#include <pthread.h>
#include <assert.h>
int x;
void *w(void *arg) {{ x = 1; return 0; }}
int main(void) {{
  pthread_t a, b;
  pthread_create(&a, 0, w, 0);
  pthread_create(&b, 0, w, 0);
  {joins}
  assert(x == 0 || x == 1);
  return 0;
}}
"#
        )
    };
    let (_d1, both) = translate_text(
        "both.c",
        &program("pthread_join(a, 0); pthread_join(b, 0);"),
    );
    assert!(both.contains("!lazy_final ||"), "{both}");
    let (_d2, one) = translate_text("one.c", &program("pthread_join(a, 0); pthread_join(a, 0);"));
    assert!(!one.contains("!lazy_final ||"), "{one}");
    let (_d3, branch) = translate_text(
        "branch.c",
        &program("if (x) b = a; pthread_join(a, 0); pthread_join(b, 0);"),
    );
    assert!(!branch.contains("!lazy_final ||"), "{branch}");
    expect_verdict(&both, true, "both joined");
}

#[test]
fn write_ids_are_counted_per_issuing_statement() {
    // Each instance of `w` has four statements that issue a write id (both
    // branches of the `if` count, the RMW too), main three (lock, store,
    // unlock): ids 1..11 suffice, and the SMA sizes its write ids from that.
    let source = r#"#include <pthread.h>
int x, y;
pthread_mutex_t m;
void *w(void *arg) { x = 1; if (y) x = 2; else y = 3; __sync_fetch_and_add(&y, 1); return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, w, 0);
  pthread_create(&b, 0, w, 0);
  pthread_mutex_lock(&m);
  y = 5;
  pthread_mutex_unlock(&m);
  return 0;
}
"#;
    let (_dir, text) = translate_text("write_ids.c", source);
    assert!(text.contains("#define SMA_WRITE_IDS 11\n"), "{text}");
    if let Some(Err(e)) = gcc_accepts(&text) {
        panic!("gcc rejects the output:\n{e}");
    }
    // CBMC accepts the narrow write ids (the program has no assertion).
    expect_verdict(&text, true, "write ids");
}

/// The SMA call of the line that `statement` ends the comment of.
fn call_of(text: &str, statement: &str) -> String {
    let line = text
        .lines()
        .find(|line| line.contains(&format!(": {statement} */")));
    line.unwrap_or_else(|| panic!("no line for `{statement}` in:\n{text}"))
        .trim()
        .to_string()
}

#[test]
fn an_access_through_a_pointer_loaded_from_memory_reaches_only_what_the_pointer_may_point_to() {
    // The worker takes a job from a list under `m` and reads its members
    // through the pointer it loaded: the points-to facts know these are
    // members of heap blocks, which main accesses only under `m` or before
    // it publishes the block, so the loads read the newest write (under
    // TSO; under PSO the `next` only). Its store
    // through `where` reaches `counter` only, so main's load of `x` reads
    // the newest write too. Without the facts, each of these accesses may
    // reach any location.
    let source = r#"#include <pthread.h>
#include <stdlib.h>
struct job { int input; struct job *next; };
struct job *head;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int counter, x, taken;
int *where = &counter;
void *worker(void *arg) {
  pthread_mutex_lock(&m);
  struct job *j = head;
  if (j) {
    head = j->next;
    taken = j->input;
  }
  pthread_mutex_unlock(&m);
  *where = 1;
  return 0;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  struct job *j = malloc(sizeof *j);
  j->input = 2;
  pthread_mutex_lock(&m);
  j->next = head;
  head = j;
  pthread_mutex_unlock(&m);
  int seen = x;
  pthread_join(t, 0);
  return seen;
}
"#;
    for sma in [SmaImplementation::Etso, SmaImplementation::Epso] {
        let options = TranslateOptions {
            sma,
            pointer_checks: true,
            ..TranslateOptions::default()
        };
        let (_dir, text) = translate_text_with("points_to.c", source, &options);
        assert!(
            call_of(&text, "head = j->next;").contains("sma_read_newest("),
            "{sma:?}\n{text}"
        );
        // under PSO, `head = j` may reach memory before `j->input = 2`,
        // which main makes before it takes the mutex: the block is an
        // ordinary one (the unlock orders them, but the count does not see it)
        let input = call_of(&text, "taken = j->input;");
        assert_eq!(
            input.contains("sma_read_newest("),
            sma == SmaImplementation::Etso,
            "{sma:?}\n{text}"
        );
        assert!(
            call_of(&text, "int seen = x;").contains("sma_read_newest("),
            "{sma:?}\n{text}"
        );
        // every pointer stays inside what it may point to, or the access fails
        let counter = text
            .lines()
            .find(|line| line.contains("pointer outside its object: *where = 1;"));
        assert!(
            counter.is_some_and(|line| line.contains("if (!((")),
            "{text}"
        );
        // without --pointer-check, such an execution is cut off
        let (_dir, text) = translate_text_with(
            "points_to.c",
            source,
            &TranslateOptions {
                pointer_checks: false,
                ..options
            },
        );
        assert!(!text.contains("pointer outside its object"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        let store = lines
            .iter()
            .rposition(|line| line.contains(": *where = 1; */"))
            .expect("the store through `where`");
        assert!(
            lines[..store]
                .iter()
                .rev()
                .take(3)
                .any(|line| line.trim_start().starts_with("__CPROVER_assume((")),
            "{text}"
        );
    }
    // the reference SMAs keep the plain count, but check the pointers too
    for sma in [
        SmaImplementation::Sc,
        SmaImplementation::TsoReference,
        SmaImplementation::PsoReference,
    ] {
        let options = TranslateOptions {
            sma,
            pointer_checks: true,
            ..TranslateOptions::default()
        };
        let (_dir, text) = translate_text_with("points_to.c", source, &options);
        assert!(!text.contains("sma_read_newest("), "{sma:?}");
        assert!(
            text.contains("pointer outside its object: *where = 1;"),
            "{sma:?}"
        );
    }
}

#[test]
fn stores_no_other_thread_observes_get_the_least_timestamp_under_the_timestamped_smas() {
    // `flag` and `cell[0]` only the worker accesses while it runs (main
    // reads `flag` after the join); main reads `x` meanwhile; `*p` may be
    // any cell, so main's `cell[1] = 3` beside the worker is observed; main's
    // stores before the creation and after the join no other thread sees.
    let source = r#"#include <pthread.h>
int x, flag, cell[2];
int *p = &cell[1];
void *w(void *arg) { x = 1; flag = 1; cell[0] = 1; *p = 2; return 0; }
int main(void) {
  pthread_t a;
  x = 5;
  pthread_create(&a, 0, w, 0);
  int seen = x;
  cell[1] = 3;
  pthread_join(a, 0);
  x = 7;
  return flag + seen;
}
"#;
    for sma in [SmaImplementation::Etso, SmaImplementation::Epso] {
        let options = TranslateOptions {
            sma,
            ..TranslateOptions::default()
        };
        let (_dir, text) = translate_text_with("unobserved.c", source, &options);
        assert!(
            call_of(&text, "flag = 1;").starts_with("sma_write_unobserved("),
            "{text}"
        );
        assert!(
            call_of(&text, "cell[0] = 1;").starts_with("sma_write_unobserved("),
            "{text}"
        );
        assert!(call_of(&text, "x = 1;").starts_with("sma_write("), "{text}");
        assert!(
            !call_of(&text, "*p = 2;").contains("sma_write_unobserved("),
            "{text}"
        );
        assert!(
            call_of(&text, "x = 5;").starts_with("sma_write_unobserved("),
            "{text}"
        );
        assert!(
            call_of(&text, "cell[1] = 3;").starts_with("sma_write("),
            "{text}"
        );
        assert!(
            call_of(&text, "x = 7;").starts_with("sma_write_unobserved("),
            "{text}"
        );
    }
    for sma in [
        SmaImplementation::Sc,
        SmaImplementation::TsoReference,
        SmaImplementation::PsoReference,
    ] {
        let options = TranslateOptions {
            sma,
            ..TranslateOptions::default()
        };
        let (_dir, text) = translate_text_with("unobserved.c", source, &options);
        assert!(!text.contains("sma_write_unobserved("), "{sma:?}");
    }
}

#[test]
fn accesses_under_a_mutex_every_other_access_holds_need_no_guess() {
    // Two workers: `count` and `items` only ever under `m`; `mixed` under
    // `m` in the workers but read by main under `n`; `loose` with no lock;
    // `half` under `h` on one path only, which a worker may also unlock
    // without holding it, as far as the translator can tell (it does not
    // know that both `if`s take the same branch): `h` guards nothing.
    let source = r#"#include <pthread.h>
pthread_mutex_t m, n, h;
int count, items[2], mixed, loose, half;
void *w(void *arg) {
  pthread_mutex_lock(&m);
  count = count + 1;
  items[count - 1] = 1;
  mixed = 1;
  pthread_mutex_unlock(&m);
  loose = 1;
  if (arg) pthread_mutex_lock(&h);
  half = 1;
  if (arg) pthread_mutex_unlock(&h);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, w, 0);
  pthread_create(&b, 0, w, 0);
  pthread_mutex_lock(&n);
  int seen = mixed;
  pthread_mutex_unlock(&n);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return seen + count;
}
"#;
    // the stores (or loads) of a statement, one per worker
    let accesses_of = |text: &str, statement: &str, access: &str| -> Vec<String> {
        let calls: Vec<String> = text
            .lines()
            .filter(|line| line.contains(&format!(": {statement} */")) && line.contains(access))
            .map(|line| line.trim().to_string())
            .collect();
        assert_eq!(
            calls.len(),
            2,
            "one {access} per worker for `{statement}` in:\n{text}"
        );
        calls
    };
    let calls_of = |text: &str, statement: &str| accesses_of(text, statement, "sma_write");
    for sma in [SmaImplementation::Etso, SmaImplementation::Epso] {
        let options = TranslateOptions {
            sma,
            ..TranslateOptions::default()
        };
        let (_dir, text) = translate_text_with("guarded.c", source, &options);
        for call in calls_of(&text, "count = count + 1;") {
            assert!(call.contains("sma_write_unobserved("), "{call}\n{text}");
        }
        // and the loads of `count` read the newest write of its list
        for call in accesses_of(&text, "count = count + 1;", "= sma_read") {
            assert!(call.contains("= sma_read_newest("), "{call}\n{text}");
        }
        let seen: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("int seen = mixed;"))
            .collect();
        assert!(
            seen.iter().all(|line| line.contains("= sma_read(")) && !seen.is_empty(),
            "{seen:?}"
        );
        // `items[count - 1]` is dispatched over both cells, in each worker
        let dispatched: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("(lazy_address =="))
            .collect();
        assert_eq!(dispatched.len(), 4, "{text}");
        assert!(
            dispatched
                .iter()
                .all(|line| line.contains("sma_write_unobserved(")),
            "{dispatched:?}"
        );
        for statement in ["mixed = 1;", "loose = 1;", "half = 1;"] {
            for call in calls_of(&text, statement) {
                assert!(call.starts_with("sma_write("), "{call}");
            }
        }
    }
    for sma in [
        SmaImplementation::TsoReference,
        SmaImplementation::PsoReference,
    ] {
        let options = TranslateOptions {
            sma,
            ..TranslateOptions::default()
        };
        let (_dir, text) = translate_text_with("guarded.c", source, &options);
        assert!(
            !text.contains("sma_write_unobserved(") && !text.contains("sma_read_newest("),
            "{sma:?}"
        );
    }
}

#[test]
fn reference_smas_run_a_dispatched_access_updates_once_before_its_comparisons() {
    // pso_ref dispatches; tso_ref makes the access once at the checked address.
    // Store buffering through the cells of `a`, at computed addresses; with
    // `fenced`, each thread's store is an RMW (which drains) and main also
    // takes a mutex of an array: safe under TSO and PSO, else not.
    let program = |fenced: bool| {
        let store = |cell: &str| {
            if fenced {
                format!("__sync_fetch_and_add(&a[{cell}], 1);")
            } else {
                format!("a[{cell}] = 1;")
            }
        };
        let (store_i, store_j) = (store("i"), store("j + 1"));
        let lock = if fenced {
            "pthread_mutex_lock(&m[j]); pthread_mutex_unlock(&m[j]);"
        } else {
            ""
        };
        format!(
            r#"#include <pthread.h>
#include <assert.h>
int __VERIFIER_nondet_int(void);
int a[2], r0, r1;
pthread_mutex_t m[2];
void *t0(void *arg) {{
  int i = __VERIFIER_nondet_int();
  __CPROVER_assume(i == 0);
  {store_i}
  r0 = a[i + 1];
  return 0;
}}
int main(void) {{
  pthread_t t;
  int j = __VERIFIER_nondet_int();
  __CPROVER_assume(j == 0);
  pthread_create(&t, 0, t0, 0);
  {store_j}
  {lock}
  r1 = a[j];
  pthread_join(t, 0);
  assert(r0 == 1 || r1 == 1);
  return 0;
}}
"#
        )
    };
    for sma in [
        SmaImplementation::TsoReference,
        SmaImplementation::PsoReference,
    ] {
        let options = TranslateOptions {
            sma,
            ..TranslateOptions::default()
        };
        for fenced in [false, true] {
            let (_dir, text) = translate_text_with("dispatched.c", &program(fenced), &options);
            if sma == SmaImplementation::TsoReference {
                // one FIFO per thread: no dispatch, one whole operation at the
                // checked address
                assert!(!text.contains("if (lazy_address =="), "{text}");
                let at_address = text.matches("(lazy_address,").count();
                assert_eq!(at_address, if fenced { 6 } else { 4 }, "{text}");
                assert!(
                    !text.contains("sma_settle(0,")
                        && !text.contains("sma_read_alone(lazy_address"),
                    "{text}"
                );
                expect_verdict(&text, fenced, &format!("{sma:?}, fenced: {fenced}"));
                continue;
            }
            let lines: Vec<&str> = text.lines().collect();
            // every dispatch opens on the line after its updates
            for (n, line) in lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.contains("long long lazy_address ="))
            {
                let before = lines[n - 1].trim();
                let branches: Vec<&str> = lines[n + 2..n + 4].iter().map(|l| l.trim()).collect();
                if branches.iter().all(|b| b.contains("= sma_read_alone(")) {
                    assert!(
                        before.starts_with("sma_flush_some("),
                        "{before}\n{line}\n{text}"
                    );
                } else if branches.iter().all(|b| {
                    b.contains("sma_rmw_drained(")
                        || b.contains("sma_lock_drained(")
                        || b.contains("sma_unlock_drained(")
                }) {
                    assert!(
                        before.starts_with("sma_settle("),
                        "{before}\n{line}\n{text}"
                    );
                } else {
                    assert!(
                        branches.iter().all(|b| b.contains("sma_write(")),
                        "{sma:?}: {branches:?}\n{text}"
                    );
                }
            }
            // the four accesses of `a` (and the lock and the unlock)
            let dispatches = text.matches("long long lazy_address =").count();
            assert_eq!(dispatches, if fenced { 6 } else { 4 }, "{text}");
            if fenced {
                assert!(
                    text.contains("sma_settle(0,")
                        && text.contains("sma_settle(1,")
                        && text.contains("sma_lock_drained("),
                    "{text}"
                );
            }
            expect_verdict(&text, fenced, &format!("{sma:?}, fenced: {fenced}"));
        }
    }
}

#[test]
fn heap_pointers_of_the_only_allocating_thread_are_constant_locations() {
    // Message passing through a heap cell: main allocates the handles and
    // the data, publishes the data block, then stores into it through its
    // private pointer `d` and raises `flag`. Only main allocates, so `d`
    // holds the second heap block's first location on every path, and the
    // stores through `t` and `d` go to constant locations. Safe under SC
    // and TSO; under PSO `flag` may reach memory before `d[1]`. With
    // `also_worker_allocates`, the worker allocates too and the order of the
    // blocks is not known: the same verdicts at computed addresses.
    let program = |also_worker_allocates: bool| {
        let worker_allocation = if also_worker_allocates {
            "int *mine = malloc(sizeof(int)); *mine = 1;"
        } else {
            ""
        };
        format!(
            r#"#include <pthread.h>
#include <stdlib.h>
#include <assert.h>
int *data;
int flag;
void *worker(void *arg) {{
  {worker_allocation}
  if (flag == 1) {{
    int seen = data[1];
    assert(seen == 42);
  }}
  return 0;
}}
int main(void) {{
  pthread_t *t = malloc(2 * sizeof(pthread_t));
  int *d = malloc(2 * sizeof(int));
  data = d;
  pthread_create(&t[0], 0, worker, 0);
  d[1] = 42;
  flag = 1;
  pthread_join(t[0], 0);
  return 0;
}}
"#
        )
    };
    let store_of = |text: &str, statement: &str| -> String {
        let line = text
            .lines()
            .find(|line| line.contains(&format!(": {statement} */")) && line.contains("sma_write"));
        match line {
            Some(line) => line.trim().to_string(),
            None => panic!("no store for `{statement}` in:\n{text}"),
        }
    };
    let at_constant = |call: &str| {
        call.split_once('(')
            .is_some_and(|(_, rest)| rest.starts_with(|c: char| c.is_ascii_digit()))
    };
    for sma in [
        SmaImplementation::Sc,
        SmaImplementation::Etso,
        SmaImplementation::TsoReference,
        SmaImplementation::Epso,
        SmaImplementation::PsoReference,
    ] {
        for also_worker_allocates in [false, true] {
            // three heap blocks: the worker's allocation comes after main's two
            let mut options = TranslateOptions {
                sma,
                ..TranslateOptions::default()
            };
            options.bounds.nmalloc = 3;
            let (_dir, text) =
                translate_text_with("heap_message.c", &program(also_worker_allocates), &options);
            for statement in ["d[1] = 42;", "pthread_create(&t[0], 0, worker, 0);"] {
                let call = store_of(&text, statement);
                assert_eq!(
                    at_constant(&call),
                    !also_worker_allocates,
                    "{sma:?}: {call}\n{text}"
                );
            }
            let safe = sma.model() != lazysma::options::MemoryModel::Pso;
            expect_verdict(
                &text,
                safe,
                &format!("{sma:?}, the worker allocates too: {also_worker_allocates}"),
            );
        }
    }
}

#[test]
fn a_constant_thread_argument_makes_the_threads_accesses_constant_locations() {
    // Each worker gets its own slot, `&slots[i]` with `i` known in the
    // unrolled loop: the worker's accesses through its argument and main's
    // through `slots[i]` go to constant locations (slots[0] is 1 and 2,
    // slots[1] is 3 and 4), with no dispatch over the array.
    let program = |second: &str| {
        format!(
            r#"#include <pthread.h>
#include <assert.h>
struct slot {{ pthread_mutex_t lock; int value; }};
struct slot slots[2];
void *worker(void *arg) {{
  struct slot *s = arg;
  pthread_mutex_lock(&s->lock);
  s->value += 1;
  pthread_mutex_unlock(&s->lock);
  return 0;
}}
int main(void) {{
  pthread_t t[2];
  pthread_create(&t[0], 0, worker, &slots[0]);
  for (int i = 1; i < 2; i++) pthread_create(&t[i], 0, worker, {second});
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  for (int i = 0; i < 2; i++) assert(slots[i].value == 1);
  return 0;
}}
"#
        )
    };
    let options = TranslateOptions {
        sma: SmaImplementation::Etso,
        ..TranslateOptions::default()
    };
    let (_dir, text) = translate_text_with("slots.c", &program("&slots[i]"), &options);
    assert!(!text.contains("lazy_address"), "{text}");
    for call in ["sma_lock(1, 1, ", "sma_lock(3, 2, ", "sma_unlock(3, 2, "] {
        assert!(text.contains(call), "{call}:\n{text}");
    }
    assert!(text.contains("t1_arg_0 = ((unsigned int)1);"), "{text}");
    expect_verdict(&text, true, "each worker increments its own slot");
    // both workers on the first slot: the second slot stays 0
    let (_dir, text) = translate_text_with("slots.c", &program("&slots[i - 1]"), &options);
    assert!(text.contains("sma_lock(1, 2, "), "{text}");
    expect_verdict(&text, false, "both workers increment slots[0]");
}
