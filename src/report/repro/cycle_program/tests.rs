use super::*;
use crate::report::document::{SourcePoint, StatementPoint};

/// A step of a cycle: `operation` of `location` at `line` in `thread`,
/// with `value`, leading to the next by `then`.
fn step(
    thread: &str,
    operation: CycleOperation,
    location: &str,
    value: &str,
    (line, order): (u32, usize),
    then: &'static str,
    relaxed: bool,
) -> CycleStep {
    CycleStep {
        thread: thread.to_string(),
        access: String::new(),
        operation,
        value: Some(value.to_string()),
        program_order: order,
        point: SourcePoint {
            file: Some("p.c".to_string()),
            line: Some(line),
            column: Some(3),
            statement: None,
            location: Some(location.to_string()),
        },
        then,
        relaxed,
        event: None,
    }
}

fn fence(thread: &str, after: u32, before: u32, kind: &'static str) -> FenceAdvice {
    FenceAdvice {
        file: "p.c".to_string(),
        after_line: after,
        before_line: before,
        thread: thread.to_string(),
        kind,
        insert: "__sync_synchronize();",
        after_event: None,
        before_event: None,
        after_column: Some(8),
        after_statement: StatementPoint {
            line: after,
            column: 3,
            text: String::new(),
        },
        before_column: Some(3),
        before_statement: Some(StatementPoint {
            line: before,
            column: 3,
            text: String::new(),
        }),
        placement: "after-statement",
    }
}

fn diagnosis(cycle: Vec<CycleStep>, fences: Vec<FenceAdvice>) -> DiagnosisReport {
    DiagnosisReport {
        sc_realisable: false,
        summary: String::new(),
        reorderings: Vec::new(),
        fences,
        fences_suffice: true,
        cycle,
    }
}

use CycleOperation::{Load, Store};

/// Store buffering, each thread's cycle accesses given out of order.
fn store_buffering(x_value: &str) -> DiagnosisReport {
    diagnosis(
        vec![
            step("a", Store, "x", x_value, (16, 4), "program-order", true),
            step("a", Load, "y", "0", (17, 6), "from-read", false),
            step("b", Store, "y", "1", (22, 2), "program-order", true),
            step("b", Load, "x", "0", (23, 3), "from-read", false),
        ],
        vec![fence("a", 16, 17, "full"), fence("b", 22, 23, "full")],
    )
}

#[test]
fn store_buffering_reads_the_initial_values_after_its_stores() {
    let program =
        CycleProgram::from_diagnosis(&store_buffering("1"), MemoryModel::Tso, "p.c").unwrap();
    assert!(!program.renumbered);
    assert_eq!(program.threads.len(), 2);
    assert_eq!(
        program.threads[0].accesses,
        vec![
            Access::Store {
                location: 0,
                value: 1,
                line: Some(16)
            },
            Access::Fence {
                store_store: false,
                insert: "__sync_synchronize();",
                line: 16
            },
            Access::Load {
                location: 1,
                register: 0,
                line: Some(17)
            },
        ]
    );
    assert_eq!(
        program.outcome,
        vec![
            Condition::Register {
                thread: 0,
                register: 0,
                value: 0
            },
            Condition::Register {
                thread: 1,
                register: 0,
                value: 0
            },
        ]
    );
    assert_eq!(program.relaxations, vec![Relaxation::StoreLoad]);
    assert!(program.unplaced_fences.is_empty());
}

#[test]
fn values_that_cannot_tell_the_outcome_apart_are_renumbered() {
    // x = 0 stores the value its load must not see
    let program =
        CycleProgram::from_diagnosis(&store_buffering("0"), MemoryModel::Tso, "p.c").unwrap();
    assert!(program.renumbered);
    assert!(
        program
            .locations
            .iter()
            .all(|location| location.initial == 0)
    );
    let stored: Vec<i64> = program
        .threads
        .iter()
        .flat_map(|thread| &thread.accesses)
        .filter_map(|access| match access {
            Access::Store { value, .. } => Some(*value),
            _ => None,
        })
        .collect();
    assert_eq!(stored, vec![1, 1]);
    let floating =
        CycleProgram::from_diagnosis(&store_buffering("1.5"), MemoryModel::Tso, "p.c").unwrap();
    assert!(floating.renumbered);
}

#[test]
fn message_passing_reads_from_the_store_and_a_stand_in_initial_value() {
    // the consumer reads data = 7 from a store outside the cycle: the
    // reduced program starts data at 7, so that the store of 42 tells
    let cycle = vec![
        step("p", Store, "data", "42", (14, 0), "program-order", true),
        step("p", Store, "ready", "1", (15, 1), "reads-from", false),
        step("c", Load, "ready", "1", (20, 0), "program-order", false),
        step("c", Load, "data", "7", (21, 1), "from-read", false),
    ];
    let report = diagnosis(cycle, vec![fence("p", 13, 15, "store-store")]);
    let program = CycleProgram::from_diagnosis(&report, MemoryModel::Pso, "p.c").unwrap();
    assert_eq!(program.locations[0].initial, 7);
    assert_eq!(program.locations[1].initial, 0);
    assert_eq!(program.relaxations, vec![Relaxation::StoreStore]);
    assert!(program.needs_store_store());
    // the fence's statement is not in the cycle: it goes before `ready = 1`
    assert!(matches!(
        program.threads[0].accesses[1],
        Access::Fence {
            store_store: true,
            ..
        }
    ));
    assert_eq!(
        program.outcome,
        vec![
            Condition::Register {
                thread: 1,
                register: 0,
                value: 1
            },
            Condition::Register {
                thread: 1,
                register: 1,
                value: 7
            },
        ]
    );
}

#[test]
fn ordered_stores_become_a_final_value() {
    // 2+2W under PSO: each thread's second store is overwritten by the
    // other thread's first
    let cycle = vec![
        step("a", Store, "x", "1", (5, 0), "program-order", true),
        step("a", Store, "y", "2", (6, 1), "coherence", false),
        step("b", Store, "y", "1", (10, 0), "program-order", true),
        step("b", Store, "x", "2", (11, 1), "coherence", false),
    ];
    let program =
        CycleProgram::from_diagnosis(&diagnosis(cycle, Vec::new()), MemoryModel::Pso, "p.c")
            .unwrap();
    assert_eq!(
        program.outcome,
        vec![
            Condition::Final {
                location: 1,
                value: 1
            },
            Condition::Final {
                location: 0,
                value: 1
            },
        ]
    );
}

#[test]
fn locks_and_empty_cycles_are_not_reproduced() {
    let mut cycle = store_buffering("1").cycle;
    cycle[1].operation = CycleOperation::Lock;
    let refused =
        CycleProgram::from_diagnosis(&diagnosis(cycle, Vec::new()), MemoryModel::Tso, "p.c");
    assert!(matches!(
        refused,
        Err(Unreproducible::Unsupported { what: "a lock", .. })
    ));
    let empty =
        CycleProgram::from_diagnosis(&diagnosis(Vec::new(), Vec::new()), MemoryModel::Tso, "p.c");
    assert_eq!(empty, Err(Unreproducible::NoCycle));
}

#[test]
fn location_names_become_distinct_identifiers() {
    let names = ["s.next", "s_next", "r0", "heap#1[0]", "int"].map(String::from);
    let locations = shared_locations(&names, &[0; 5]);
    let identifiers: Vec<&str> = locations.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        identifiers,
        ["s_next", "s_next_1", "r0_v", "heap_1_0", "int_v"]
    );
}
