//! The classic litmus shapes with their textbook SC / TSO / PSO answers,
//! under every algorithm variant, plus RMW, lock and delayed-store cases.

use crate::consistency_support as support;

use lazysma::consistency::json::parse_execution;
use lazysma::consistency::{
    Algorithm, Execution, MemoryModel, NotRealizable, Options, Phase, delayed_stores, replay,
    verify, verify_with,
};

/// A compact notation: threads separated by `|`, events by `;`:
/// `W x` (write), `R x a` (read x from event a, or `init`), `F` (fence),
/// `S` (store-store fence), `B` / `E` (atomic section begin / end), `U x a` (rmw reading a), `L m` / `N m` (lock / unlock). Event ids are
/// the letters a, b, c... in textual order.
fn litmus(text: &str) -> Execution {
    let mut id = b'a';
    let threads: Vec<String> = text
        .split('|')
        .map(|thread| {
            let events: Vec<String> = thread
                .split(';')
                .map(|event| {
                    let parts: Vec<&str> = event.split_whitespace().collect();
                    let name = (id as char).to_string();
                    id += 1;
                    match parts.as_slice() {
                        ["W", var] => format!(r#"{{"id":"{name}","op":"write","var":"{var}"}}"#),
                        ["R", var, rf] => {
                            format!(r#"{{"id":"{name}","op":"read","var":"{var}","rf":"{rf}"}}"#)
                        }
                        ["F"] => format!(r#"{{"id":"{name}","op":"fence"}}"#),
                        ["S"] => format!(r#"{{"id":"{name}","op":"store-fence"}}"#),
                        ["B"] => format!(r#"{{"id":"{name}","op":"atomic-begin"}}"#),
                        ["E"] => format!(r#"{{"id":"{name}","op":"atomic-end"}}"#),
                        ["U", var, rf] => {
                            format!(r#"{{"id":"{name}","op":"rmw","var":"{var}","rf":"{rf}"}}"#)
                        }
                        ["L", m] => format!(r#"{{"id":"{name}","op":"lock","mutex":"{m}"}}"#),
                        ["N", m] => format!(r#"{{"id":"{name}","op":"unlock","mutex":"{m}"}}"#),
                        other => panic!("bad litmus event {other:?}"),
                    }
                })
                .collect();
            format!("[{}]", events.join(","))
        })
        .collect();
    parse_execution(&format!(r#"{{"threads":[{}]}}"#, threads.join(","))).expect("valid litmus")
}

/// Checks the expected (SC, TSO, PSO) answers with every variant and the
/// oracle, and replays every witness.
fn expect(name: &str, text: &str, sc: bool, tso: bool, pso: bool) {
    let execution = litmus(text);
    for (model, expected) in [
        (MemoryModel::Sc, sc),
        (MemoryModel::Tso, tso),
        (MemoryModel::Pso, pso),
    ] {
        assert_eq!(
            support::oracle(&execution, model).is_some(),
            expected,
            "{name}: oracle under {model}"
        );
        for options in support::VARIANTS {
            let report = verify_with(&execution, model, options);
            assert_eq!(
                report.outcome.is_ok(),
                expected,
                "{name} under {model} with {options:?}"
            );
            if let Ok(witness) = &report.outcome {
                assert_eq!(
                    replay(&execution, witness, model),
                    Ok(()),
                    "{name} under {model}"
                );
                assert_eq!(
                    support::replays(&execution, witness, model),
                    Ok(()),
                    "{name} under {model}"
                );
            }
        }
    }
}

#[test]
fn store_buffering() {
    expect("SB", "W x; R y init | W y; R x init", false, true, true);
    expect(
        "SB+fences",
        "W x; F; R y init | W y; F; R x init",
        false,
        false,
        false,
    );
    expect(
        "SB+rmws",
        "U x init; R y init | U y init; R x init",
        false,
        false,
        false,
    );
    expect(
        "SB one fence",
        "W x; F; R y init | W y; R x init",
        false,
        true,
        true,
    );
}

#[test]
fn message_passing() {
    expect("MP", "W x; W y | R y b; R x init", false, false, true);
    expect("MP allowed", "W x; W y | R y b; R x a", true, true, true);
    expect(
        "MP+fence",
        "W x; F; W y | R y c; R x init",
        false,
        false,
        false,
    );
}

/// An atomic section keeps other threads' events out but does not drain:
/// two atomic increments cannot both read the initial value under SC, but
/// can under TSO and PSO, where the first one's store is still buffered.
#[test]
fn atomic_sections() {
    expect(
        "increments",
        "R x init; W x | R x init; W x",
        true,
        true,
        true,
    );
    expect(
        "atomic increments",
        "B; R x init; W x; E | B; R x init; W x; E",
        false,
        true,
        true,
    );
    expect(
        "atomic increments in order",
        "B; R x init; W x; E | B; R x c; W x; E",
        true,
        true,
        true,
    );
    // SB inside sections stays a TSO behaviour.
    expect(
        "SB in sections",
        "B; W x; R y init; E | B; W y; R x init; E",
        false,
        true,
        true,
    );
    // A section left open ends with its thread (a thread that returns
    // inside it, as the sequentialised program lets the next thread run
    // then; a trace cut at a violation has nothing after it anyway): the
    // others run before it or after the thread's last event.
    expect("open section", "B; W x | R x b", true, true, true);
    expect("open section last", "B; W x | R x init", true, true, true);
    expect(
        "open section, not torn",
        "B; W x; W y | R y c; R x init",
        false,
        false,
        true,
    );
    // An end that closes nothing does nothing.
    expect(
        "stray end",
        "E; W x; W y | R y c; R x init",
        false,
        false,
        true,
    );
    // Interleaving into a section is impossible: the reader sees both or
    // neither of the section's stores under SC.
    expect(
        "torn read",
        "B; W x; W y; E | R y c; R x init",
        false,
        false,
        true,
    );
    expect(
        "torn read of a section",
        "W x; W y | B; R y b; R x init; E",
        false,
        false,
        true,
    );
}

/// A store-store fence orders a thread's stores under PSO and nothing else:
/// it forbids MP's store-store reordering but not SB's store-load one.
#[test]
fn store_store_fences() {
    expect(
        "MP+store-fence",
        "W x; S; W y | R y c; R x init",
        false,
        false,
        false,
    );
    expect(
        "MP+store-fence allowed",
        "W x; S; W y | R y c; R x a",
        true,
        true,
        true,
    );
    expect(
        "SB+store-fences",
        "W x; S; R y init | W y; S; R x init",
        false,
        true,
        true,
    );
    // Only the stores before the fence go first: the two after it may
    // still swap.
    expect(
        "fence before both",
        "W x; S; W y; W z | R z d; R y init; R x a",
        false,
        false,
        true,
    );
    expect(
        "fence between",
        "W x; W y; S; W z | R z d; R y init",
        false,
        false,
        false,
    );
    // Same-variable order and the fence together.
    expect(
        "2+2W+store-fences",
        "W x; S; W y | W y; S; W x | R x f; R y init",
        false,
        false,
        false,
    );
    // A store fence does not drain: the thread reads its own buffered
    // store while the store is still invisible to others.
    expect(
        "own buffer across store fence",
        "W x; S; R x a; R y init | W y; R x init",
        false,
        true,
        true,
    );
}

#[test]
fn load_buffering() {
    expect("LB", "R x d; W y | R y b; W x", false, false, false);
}

#[test]
fn independent_reads_of_independent_writes() {
    expect(
        "IRIW",
        "W x | W y | R x a; R y init | R y b; R x init",
        false,
        false,
        false,
    );
    expect(
        "IRIW allowed",
        "W x | W y | R x a; R y b | R y b; R x init",
        true,
        true,
        true,
    );
}

#[test]
fn two_plus_two_writes() {
    // Final x = 1 and y = 1, observed by each thread after a fence.
    expect(
        "2+2W",
        "W x; W y; F; R y e | W y; W x; F; R x a",
        false,
        false,
        true,
    );
}

#[test]
fn coherence() {
    expect("CoRR", "W x | R x a; R x init", false, false, false);
    expect("CoRR allowed", "W x | R x init; R x a", true, true, true);
    expect("CoWR", "W x; R x c | W x", true, true, true);
    expect("CoWR own", "W x; W x; R x a", false, false, false);
    expect("CoRW", "R x c; W x | W x", true, true, true);
    expect("read future own", "R x b; W x", false, false, false);
}

#[test]
fn reads_from_own_buffer() {
    expect(
        "SB+rfi",
        "W x; R x a; R y init | W y; R y d; R x init",
        false,
        true,
        true,
    );
    expect(
        "rfi late",
        "W x; R y init; R x a | W y; R x init",
        false,
        true,
        true,
    );
}

#[test]
fn read_modify_writes() {
    expect(
        "two increments from init",
        "U x init | U x init",
        false,
        false,
        false,
    );
    expect("chained increments", "U x init | U x a", true, true, true);
    expect("rmw reads write", "W x | U x a; R x b", true, true, true);
    expect(
        "SB one rmw",
        "W x; U y init | W y; R x init",
        false,
        true,
        true,
    );
}

#[test]
fn locks() {
    expect(
        "mutual exclusion",
        "L m; R x init; W x; N m | L m; R x init; W x; N m",
        false,
        false,
        false,
    );
    expect(
        "without locks",
        "R x init; W x | R x init; W x",
        true,
        true,
        true,
    );
    expect(
        "critical sections in order",
        "L m; R x init; W x; N m | L m; R x c; W x; N m",
        true,
        true,
        true,
    );
    expect("never released", "L m | L m", false, false, false);
    expect("released", "L m; N m | L m", true, true, true);
    expect("relock own", "L m; L m", false, false, false);
    expect(
        "unlock drains",
        "L m; W x; N m | L m; R x b; N m",
        true,
        true,
        true,
    );
    expect(
        "SB under locks",
        "L m; W x; N m; R y init | L n; W y; N n; R x init",
        false,
        false,
        false,
    );
}

#[test]
fn closure_rejects_without_search() {
    let execution = litmus("W x; W y | R y b; R x init");
    assert_eq!(
        verify(&execution, MemoryModel::Tso),
        Err(NotRealizable::Closure)
    );
    let report = verify_with(
        &execution,
        MemoryModel::Tso,
        Options {
            algorithm: Algorithm::Verify,
            closure: false,
        },
    );
    assert_eq!(report.outcome, Err(NotRealizable::Exhausted));
}

#[test]
fn sc_witness_flushes_at_once() {
    let execution = litmus("W x; R y init | R x a; W y");
    let witness = verify(&execution, MemoryModel::Sc).expect("realisable under SC");
    for pair in witness.steps.windows(2) {
        if pair[0].phase == Phase::Buffer {
            assert_eq!(pair[1].event, pair[0].event);
            assert_eq!(pair[1].phase, Phase::Memory);
        }
    }
    assert_eq!(witness.steps.len(), 6);
}

#[test]
fn delayed_store_of_store_buffering() {
    let execution = litmus("W x; R y init | W y; R x init");
    assert!(verify(&execution, MemoryModel::Sc).is_err());
    let witness = verify(&execution, MemoryModel::Tso).expect("realisable under TSO");
    let delayed = delayed_stores(&execution, &witness);
    let id = |event: usize| execution.event(event).id.clone();
    let pairs: Vec<(String, String, bool)> = delayed
        .iter()
        .map(|d| (id(d.store), id(d.load), d.same_variable))
        .collect();
    // At least one thread's store must still be buffered at its load.
    assert!(
        pairs.contains(&("a".into(), "b".into(), false))
            || pairs.contains(&("c".into(), "d".into(), false)),
        "{pairs:?}"
    );
    let sc_execution = litmus("W x; R y init | R x a; W y");
    let sc_witness = verify(&sc_execution, MemoryModel::Sc).expect("realisable under SC");
    assert!(delayed_stores(&sc_execution, &sc_witness).is_empty());
}

#[test]
fn empty_executions() {
    for text in [r#"{"threads":[]}"#, r#"{"threads":[[],[]]}"#] {
        let execution = parse_execution(text).expect("valid");
        for model in [MemoryModel::Sc, MemoryModel::Tso, MemoryModel::Pso] {
            assert_eq!(verify(&execution, model).map(|w| w.steps.len()), Ok(0));
        }
    }
}

#[test]
fn closure_rejects_reads_behind_own_writes() {
    // CoWR: after its own write, a thread cannot read the initial value
    // or an older write of its own, under any model, whatever the other
    // thread does; and the own latest write or a remote one stays readable.
    for model in [MemoryModel::Sc, MemoryModel::Tso, MemoryModel::Pso] {
        for (shape, realisable) in [
            ("W x; R x init | W x", false),
            ("W x; W x; R x a | W x", false),
            ("W x; U x init | W x", false),
            ("W x; W x; R x b | W x", true),
            ("W x; R x c | W x", true),
        ] {
            let outcome = verify(&litmus(shape), model);
            if realisable {
                assert!(outcome.is_ok(), "{shape} under {model:?}: {outcome:?}");
            } else {
                assert_eq!(
                    outcome,
                    Err(NotRealizable::Closure),
                    "{shape} under {model:?}"
                );
            }
        }
    }
}
