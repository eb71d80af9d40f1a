//! Unit tests of the decoding of records into executions.

use super::*;
use crate::consistency::{Op, Phase, Source, replay, verify};
use crate::options::MemoryModel;

fn record(
    kind: RecordKind,
    thread: usize,
    loc: u64,
    value: i128,
    timestamp: u64,
    write_id: u64,
    read_from: u64,
) -> Record {
    Record {
        kind,
        thread,
        loc,
        value,
        timestamp,
        write_id,
        read_from,
        stmt: 5,
    }
}

fn names() -> Vec<String> {
    ["null", "x", "y", "m"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// MP with a join: main creates t1, t1 writes x then y, main joins t1
/// and reads y = 1 and x = 0 (from the initial value).
fn joined_message_passing() -> Vec<Record> {
    use RecordKind::*;
    vec![
        record(Fence, 0, 0, 0, 0, 0, 0),
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Write, 1, 1, 1, 2, 1, 0),
        record(Write, 1, 2, 1, 1, 2, 0),
        record(Join, 0, 1, 0, 2, 0, 0),
        record(Read, 0, 2, 1, 2, 0, 2),
        record(Read, 0, 1, 0, 2, 0, 0),
    ]
}

#[test]
fn join_orders_the_joiner_after_the_joined_thread() {
    // Without the join the read of x = 0 could run before x reaches
    // memory; with it the execution is unrealisable even under PSO.
    let decoded = build(&joined_message_passing(), &names(), SmaImplementation::Epso).unwrap();
    assert!(verify(&decoded.execution, MemoryModel::Pso).is_err());
    let mut no_join = joined_message_passing();
    no_join.retain(|r| r.kind != RecordKind::Join);
    let decoded = build(&no_join, &names(), SmaImplementation::Epso).unwrap();
    assert!(verify(&decoded.execution, MemoryModel::Pso).is_ok());
}

#[test]
fn creation_orders_the_child_after_the_creator() {
    use RecordKind::*;
    // main writes x = 1 and creates t1, which reads x = 0: impossible,
    // because creation drains main's buffer first.
    let records = vec![
        record(Write, 0, 1, 1, 1, 1, 0),
        record(Fence, 0, 0, 0, 1, 0, 0),
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Read, 1, 1, 0, 1, 0, 0),
    ];
    let decoded = build(&records, &names(), SmaImplementation::Etso).unwrap();
    assert!(verify(&decoded.execution, MemoryModel::Tso).is_err());
    let first = decoded.execution.threads()[1][0];
    assert_eq!(decoded.events[first].kind, EventKind::Started);
    assert!(decoded.events[first].kind.is_synthetic());
}

#[test]
fn reads_from_resolve_to_the_writes_and_values_are_kept() {
    let decoded = build(&joined_message_passing(), &names(), SmaImplementation::Epso).unwrap();
    let execution = &decoded.execution;
    let read_y = execution.threads()[0].iter().copied().find(
        |&e| matches!(&decoded.events[e].kind, EventKind::Read { location, .. } if location == "y"),
    );
    let read_y = read_y.unwrap();
    let Op::Read {
        rf: Source::Event(writer),
        ..
    } = execution.event(read_y).op
    else {
        panic!("reads from a write")
    };
    assert_eq!(
        decoded.events[writer].kind,
        EventKind::Write {
            location: "y".into(),
            value: 1
        }
    );
    assert!(
        matches!(decoded.events[read_y].kind, EventKind::Read { from: Some(w), value: 1, .. } if w == writer)
    );
}

#[test]
fn failed_cas_is_a_drain_and_a_read_and_rmw_is_a_writer() {
    use RecordKind::*;
    let records = vec![
        record(Rmw, 0, 1, 7, 0, 1, 0),
        record(Rmw, 0, 1, 7, 0, 0, 1),
        record(Lock, 0, 3, 1, 0, 2, 0),
        record(Unlock, 0, 3, 0, 0, 3, 0),
    ];
    let decoded = build(&records, &names(), SmaImplementation::Etso).unwrap();
    let ops: Vec<&'static str> = decoded
        .execution
        .events()
        .iter()
        .map(|e| e.op.name())
        .collect();
    assert_eq!(ops, vec!["rmw", "fence", "read", "lock", "unlock"]);
    assert!(matches!(
        decoded.events[2].kind,
        EventKind::CasRead {
            from: Some(0),
            value: 7,
            ..
        }
    ));
    assert!(matches!(
        decoded.events[0].kind,
        EventKind::Rmw {
            old: None,
            new: 7,
            ..
        }
    ));
    assert!(verify(&decoded.execution, MemoryModel::Tso).is_ok());
}

#[test]
fn malformed_records_are_defects_not_panics() {
    use RecordKind::*;
    let unknown = vec![record(Read, 0, 1, 0, 0, 0, 9)];
    assert!(matches!(
        build(&unknown, &names(), SmaImplementation::Sc),
        Err(BuildError::UnknownWrite { .. })
    ));
    let wrong = vec![
        record(Write, 0, 1, 1, 0, 1, 0),
        record(Read, 0, 2, 1, 0, 0, 1),
    ];
    assert!(matches!(
        build(&wrong, &names(), SmaImplementation::Sc),
        Err(BuildError::WrongLocation { .. })
    ));
    let twice = vec![
        record(Write, 0, 1, 1, 0, 1, 0),
        record(Write, 0, 1, 1, 0, 1, 0),
    ];
    assert!(matches!(
        build(&twice, &names(), SmaImplementation::Sc),
        Err(BuildError::DuplicateWrite { .. })
    ));
    let huge = vec![record(Fence, usize::MAX, 0, 0, 0, 0, 0)];
    assert!(matches!(
        build(&huge, &names(), SmaImplementation::Sc),
        Err(BuildError::BadSlot { .. })
    ));
    let after = vec![
        record(Join, 0, 1, 0, 0, 0, 0),
        record(Fence, 1, 0, 0, 0, 0, 0),
    ];
    assert!(matches!(
        build(&after, &names(), SmaImplementation::Sc),
        Err(BuildError::AfterJoin { .. })
    ));
    let flush = vec![record(Flush, 0, 1, 0, 0, 4, 0)];
    assert!(matches!(
        build(&flush, &names(), SmaImplementation::TsoReference),
        Err(BuildError::BadFlush { .. })
    ));
}

#[test]
fn sma_order_places_flushes_by_timestamp() {
    use RecordKind::*;
    // t0 writes x (ts 2) and y (ts 1) under ePSO; a read at clock 1
    // sees y in memory but not x; a fence at clock 2 drains x.
    let records = vec![
        record(Write, 0, 1, 1, 2, 1, 0),
        record(Write, 0, 2, 1, 1, 2, 0),
        record(Read, 0, 3, 0, 1, 0, 0),
        record(Fence, 0, 0, 0, 2, 0, 0),
    ];
    let decoded = build(&records, &names(), SmaImplementation::Epso).unwrap();
    let steps: Vec<(usize, Phase)> = decoded
        .sma_order
        .steps
        .iter()
        .map(|s| (s.event, s.phase))
        .collect();
    assert_eq!(
        steps,
        vec![
            (0, Phase::Buffer),
            (1, Phase::Buffer),
            (1, Phase::Memory),
            (2, Phase::Execute),
            (0, Phase::Memory),
            (3, Phase::Execute),
        ]
    );
    assert!(replay(&decoded.execution, &decoded.sma_order, MemoryModel::Pso).is_ok());
    assert_eq!(decoded.issue_order, vec![0, 1, 2, 3]);
}
