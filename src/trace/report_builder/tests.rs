//! Unit tests of the building of the report: witness rows, diagnosis
//! and fence advice against the source.

use super::*;
use crate::consistency::{Step, Witness, verify};
use crate::ir::Origin;
use crate::options::SmaImplementation;
use crate::passes::ThreadSlot;
use crate::trace::execution::build_typed;
use crate::trace::records::{Record, RecordKind};

fn map() -> TranslationMap {
    let origin = |line: u32, text: &str| Origin {
        file: "t.c".into(),
        line,
        column: 3,
        text: text.into(),
    };
    TranslationMap {
        threads: vec![
            ThreadSlot {
                function: "main".into(),
                instance: 0,
            },
            ThreadSlot {
                function: "worker".into(),
                instance: 0,
            },
        ],
        locations: crate::ir::Locations::named(&["null", "x", "y"].map(String::from)),
        value_types: Default::default(),
        origins: vec![
            origin(1, "pthread_create(...);"),
            origin(2, "x = 1;"),
            origin(3, "r = x;"),
            origin(4, "y = 2;"),
            origin(5, "__sync_synchronize();"),
        ],
        properties: Default::default(),
        await_loops: Vec::new(),
    }
}

fn record(
    kind: RecordKind,
    thread: usize,
    loc: u64,
    value: i128,
    write_id: u64,
    read_from: u64,
    stmt: usize,
) -> Record {
    Record {
        kind,
        thread,
        loc,
        value,
        timestamp: 0,
        write_id,
        read_from,
        stmt,
    }
}

#[test]
fn effects_name_buffers_memory_and_drains() {
    use RecordKind::*;
    let records = vec![
        record(Fence, 0, 0, 0, 0, 0, 0),
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Write, 1, 1, 1, 1, 0, 1),
        record(Read, 1, 1, 1, 0, 1, 2),
        record(Write, 1, 2, 2, 2, 0, 3),
        record(Fence, 1, 0, 0, 0, 0, 4),
    ];
    let decoded = build_typed(
        &records,
        &map().locations,
        &Default::default(),
        SmaImplementation::Etso,
    )
    .unwrap();
    // Events: main: create drain 0, spawn 1; worker: start 2, w x 3,
    // read 4, w y 5, fence 6.
    let step = |event, phase| Step { event, phase };
    let witness = Witness {
        steps: vec![
            step(0, Phase::Execute),
            step(1, Phase::Buffer),
            step(1, Phase::Memory),
            step(2, Phase::Execute),
            step(3, Phase::Buffer),
            step(4, Phase::Execute),
            step(5, Phase::Buffer),
            step(3, Phase::Memory),
            step(5, Phase::Memory),
            step(6, Phase::Execute),
        ],
    };
    let map = map();
    let renderer = Renderer {
        decoded: &decoded,
        map: &map,
        atomic_writes: false,
    };
    let rows = renderer.steps(&witness);
    let effects: Vec<&str> = rows.iter().map(|r| r.effect.as_str()).collect();
    assert_eq!(
        effects,
        vec![
            "starts worker#0",
            "x := 1 (buffered)",
            "reads x = 1 from own buffer",
            "y := 2 (buffered)",
            "x = 1 reaches memory",
            "y = 2 reaches memory",
            "fence: drains 2 stores",
        ]
    );
    assert_eq!(
        rows.iter().map(|r| r.step).collect::<Vec<_>>(),
        (1..=7).collect::<Vec<_>>()
    );
    assert_eq!(rows[1].thread.name, "worker#0");
    assert_eq!(rows[0].thread.name, "main");
    assert_eq!(
        (rows[2].line, rows[2].statement.as_deref()),
        (Some(3), Some("r = x;"))
    );
    assert_eq!(rows[2].kind, StepKind::LoadFromBuffer);
    let atomic = Renderer {
        decoded: &decoded,
        map: &map,
        atomic_writes: true,
    };
    let sc_witness = Witness {
        steps: vec![
            step(0, Phase::Execute),
            step(1, Phase::Buffer),
            step(1, Phase::Memory),
            step(2, Phase::Execute),
            step(3, Phase::Buffer),
            step(3, Phase::Memory),
        ],
    };
    let effects: Vec<String> = atomic
        .steps(&sc_witness)
        .into_iter()
        .map(|r| r.effect)
        .collect();
    assert_eq!(effects, vec!["starts worker#0", "x := 1"]);
    // under TSO, a store that reaches memory before anything else happens
    let effects: Vec<String> = renderer
        .steps(&sc_witness)
        .into_iter()
        .map(|r| r.effect)
        .collect();
    assert_eq!(
        effects,
        vec!["starts worker#0", "x := 1 (reaches memory right away)"]
    );
}

#[test]
fn steps_after_the_failing_threads_last_step_are_after_the_failure() {
    use RecordKind::*;
    // main creates the worker and fails; the worker runs after.
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Write, 1, 1, 1, 1, 0, 1),
        record(Read, 1, 1, 1, 0, 1, 2),
    ];
    let decoded = build_typed(
        &records,
        &map().locations,
        &Default::default(),
        SmaImplementation::Etso,
    )
    .unwrap();
    // Events: main: spawn 0; worker: start 1, w x 2, read 3.
    let step = |event, phase| Step { event, phase };
    let witness = Witness {
        steps: vec![
            step(0, Phase::Buffer),
            step(0, Phase::Memory),
            step(1, Phase::Execute),
            step(2, Phase::Buffer),
            step(2, Phase::Memory),
            step(3, Phase::Execute),
        ],
    };
    let map = map();
    let renderer = Renderer {
        decoded: &decoded,
        map: &map,
        atomic_writes: false,
    };
    let report = renderer.witness(&witness, WitnessSource::NativeCheck, Some(0));
    assert_eq!(report.fails_after_step, Some(1));
    let marks: Vec<(&str, bool)> = report
        .steps
        .iter()
        .map(|r| (r.effect.as_str(), r.after_failure))
        .collect();
    assert_eq!(
        marks,
        vec![
            ("starts worker#0", false),
            ("x := 1 (reaches memory right away)", true),
            ("reads x = 1 from memory", true),
        ]
    );
    // failing in the worker: after its load, the last step
    let report = renderer.witness(&witness, WitnessSource::NativeCheck, Some(1));
    assert_eq!(report.fails_after_step, Some(3));
    assert!(report.steps.iter().all(|r| !r.after_failure));
    // a store issued before the failure that reaches memory after it
    // is two rows
    let witness = Witness {
        steps: witness.steps[..4]
            .iter()
            .copied()
            .chain([step(3, Phase::Execute), step(2, Phase::Memory)])
            .collect(),
    };
    let report = renderer.witness(&witness, WitnessSource::NativeCheck, Some(1));
    let marks: Vec<(&str, bool)> = report
        .steps
        .iter()
        .map(|r| (r.effect.as_str(), r.after_failure))
        .collect();
    assert_eq!(
        marks,
        vec![
            ("starts worker#0", false),
            ("x := 1 (buffered)", false),
            ("reads x = 1 from own buffer", false),
            ("x = 1 reaches memory", true),
        ]
    );
    assert_eq!(report.fails_after_step, Some(3));
    assert_eq!(
        renderer
            .witness(&witness, WitnessSource::NativeCheck, None)
            .fails_after_step,
        None
    );
}

#[test]
fn a_violation_under_sc_is_not_said_to_be_possible_under_sc_too() {
    use crate::trace::diagnosis::Diagnosis;
    let decoded = build_typed(
        &[record(RecordKind::Create, 0, 1, 0, 0, 0, 0)],
        &map().locations,
        &Default::default(),
        SmaImplementation::Sc,
    )
    .unwrap();
    let map = map();
    let renderer = Renderer {
        decoded: &decoded,
        map: &map,
        atomic_writes: true,
    };
    let found = Diagnosis {
        sc_realisable: true,
        reorderings: Vec::new(),
        fences_suffice: false,
        cycle: Vec::new(),
    };
    let under_sc = renderer.diagnosis(&found, MemoryModel::Sc);
    assert_eq!(
        under_sc.summary,
        "a violation under sequential consistency, which no fence can prevent"
    );
    assert!(under_sc.sc_realisable && under_sc.fences.is_empty());
    let under_tso = renderer.diagnosis(&found, MemoryModel::Tso);
    assert!(
        under_tso
            .summary
            .starts_with("the same reads-from is possible under sequential consistency"),
        "{}",
        under_tso.summary
    );
}

#[test]
fn atomic_sections_are_events_of_the_checked_execution() {
    use RecordKind::*;
    // Two atomic increments of x that both read 0: TSO (the first
    // store still buffered), not SC.
    let records = [
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 0),
        record(AtomicBegin, 1, 0, 0, 0, 0, 0),
        record(Read, 1, 1, 0, 0, 0, 0),
        record(Write, 1, 1, 1, 1, 0, 0),
        record(AtomicEnd, 1, 0, 0, 0, 0, 0),
        record(AtomicBegin, 2, 0, 0, 0, 0, 0),
        record(Read, 2, 1, 0, 0, 0, 0),
        record(Write, 2, 1, 1, 2, 0, 0),
        record(AtomicEnd, 2, 0, 0, 0, 0, 0),
    ];
    let decoded = build_typed(
        &records,
        &map().locations,
        &Default::default(),
        SmaImplementation::Etso,
    )
    .unwrap();
    let sections = decoded
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::AtomicBegin | EventKind::AtomicEnd));
    assert_eq!(sections.count(), 4);
    assert!(verify(&decoded.execution, MemoryModel::Tso).is_ok());
    assert!(
        verify(&decoded.execution, MemoryModel::Sc).is_err(),
        "the sections keep the increments apart under SC"
    );
}
