//! Unit tests of the diagnosis: reorderings and the fences that forbid them.

use super::*;
use crate::consistency::{Phase, Step};
use crate::options::SmaImplementation;
use crate::trace::execution::{EventKind, build};
use crate::trace::records::{Record, RecordKind};

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

fn names() -> Vec<String> {
    ["null", "x", "y", "r1", "r2"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// SB: t1: x = 1; r1 = y;  t2: y = 1; r2 = x; both loads read 0.
fn store_buffering() -> Decoded {
    use RecordKind::*;
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(Write, 1, 1, 1, 1, 0, 10),
        record(Read, 1, 2, 0, 0, 0, 11),
        record(Write, 2, 2, 1, 2, 0, 20),
        record(Read, 2, 1, 0, 0, 0, 21),
        record(Join, 0, 1, 0, 0, 0, 2),
        record(Join, 0, 2, 0, 0, 0, 3),
    ];
    build(&records, &names(), SmaImplementation::Etso).unwrap()
}

/// MP: t1: x = 1; y = 1;  t2: reads y = 1, then x = 0.
fn message_passing_records() -> Vec<Record> {
    use RecordKind::*;
    vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(Write, 1, 1, 1, 1, 0, 10),
        record(Write, 1, 2, 1, 2, 0, 11),
        record(Read, 2, 2, 1, 0, 2, 20),
        record(Read, 2, 1, 0, 0, 0, 21),
    ]
}

fn message_passing() -> Decoded {
    build(
        &message_passing_records(),
        &names(),
        SmaImplementation::Epso,
    )
    .unwrap()
}

fn stmt_of(decoded: &Decoded, event: EventId) -> Option<usize> {
    decoded.events[event].stmt
}

#[test]
fn store_buffering_needs_a_fence_in_each_thread() {
    let decoded = store_buffering();
    let witness = verify(&decoded.execution, MemoryModel::Tso).expect("SB is TSO-realisable");
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Tso);
    assert!(!diagnosis.sc_realisable);
    assert!(diagnosis.fences_suffice);
    let mut pairs: Vec<(Option<usize>, Option<usize>)> = diagnosis
        .reorderings
        .iter()
        .map(|r| (stmt_of(&decoded, r.store), stmt_of(&decoded, r.later)))
        .collect();
    pairs.sort();
    assert_eq!(pairs, vec![(Some(10), Some(11)), (Some(20), Some(21))]);
    assert!(
        diagnosis
            .reorderings
            .iter()
            .all(|r| r.kind == ReorderingKind::StoreLoad)
    );
}

#[test]
fn message_passing_under_pso_needs_a_store_store_fence() {
    let decoded = message_passing();
    assert!(verify(&decoded.execution, MemoryModel::Tso).is_err());
    let witness = verify(&decoded.execution, MemoryModel::Pso).expect("MP is PSO-realisable");
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Pso);
    assert!(!diagnosis.sc_realisable);
    assert_eq!(diagnosis.reorderings.len(), 1);
    let reordering = diagnosis.reorderings[0];
    assert_eq!(reordering.kind, ReorderingKind::StoreStore);
    assert_eq!(
        (
            stmt_of(&decoded, reordering.store),
            stmt_of(&decoded, reordering.later)
        ),
        (Some(10), Some(11))
    );
    assert_eq!(
        reordering.fence,
        FenceKind::StoreStore,
        "the cheaper fence suffices"
    );
}

/// The event of `decoded` made by statement `stmt`.
fn event_of(decoded: &Decoded, stmt: usize) -> EventId {
    decoded
        .events
        .iter()
        .position(|e| e.stmt == Some(stmt))
        .expect("an event of the statement")
}

#[test]
fn a_reordering_names_the_later_store_another_thread_observes() {
    use RecordKind::*;
    // MP with a store to r1, which no other thread accesses, between
    // the data and the flag: t1: x = 1; r1 = 1; y = 1;  t2 reads y = 1,
    // then x = 0. In the witness both r1 and y reach memory before x.
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(Write, 1, 1, 1, 1, 0, 10),
        record(Write, 1, 3, 1, 2, 0, 11),
        record(Write, 1, 2, 1, 3, 0, 12),
        record(Read, 2, 2, 1, 0, 3, 20),
        record(Read, 2, 1, 0, 0, 0, 21),
    ];
    let decoded = build(&records, &names(), SmaImplementation::Epso).unwrap();
    let [x, r1, y, read_y, read_x] = [10, 11, 12, 20, 21].map(|stmt| event_of(&decoded, stmt));
    let step = |event, phase| Step { event, phase };
    let mut steps = Vec::new();
    for &event in &decoded.execution.threads()[0] {
        match decoded.execution.event(event).op {
            Op::Write { .. } => {
                steps.extend([step(event, Phase::Buffer), step(event, Phase::Memory)])
            }
            _ => steps.push(step(event, Phase::Execute)),
        }
    }
    let start = |thread: usize| step(decoded.execution.threads()[thread][0], Phase::Execute);
    steps.extend([
        start(1),
        step(x, Phase::Buffer),
        step(r1, Phase::Buffer),
        step(y, Phase::Buffer),
        step(r1, Phase::Memory),
        step(y, Phase::Memory),
        start(2),
        step(read_y, Phase::Execute),
        step(read_x, Phase::Execute),
        step(x, Phase::Memory),
    ]);
    let witness = Witness { steps };
    crate::consistency::replay(&decoded.execution, &witness, MemoryModel::Pso)
        .expect("the witness replays");
    let observed = observed_reorderings(&decoded, &witness, MemoryModel::Pso);
    assert_eq!(observed.len(), 1, "one reordering per store: {observed:?}");
    assert_eq!(
        (observed[0].store, observed[0].later),
        (x, y),
        "not the store to r1, which nobody observes"
    );
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Pso);
    assert_eq!(diagnosis.reorderings.len(), 1);
    assert_eq!(
        (
            diagnosis.reorderings[0].store,
            diagnosis.reorderings[0].later
        ),
        (x, y)
    );
    assert_eq!(diagnosis.reorderings[0].fence, FenceKind::StoreStore);
}

/// 2+2W: t1: x = 1; y = 2;  t2: y = 1; x = 2; main joins both and
/// reads x = 1 and y = 1: each thread's second store reached memory
/// before its first.
fn two_plus_two_writes() -> Decoded {
    use RecordKind::*;
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(Write, 1, 1, 1, 1, 0, 10),
        record(Write, 1, 2, 2, 2, 0, 11),
        record(Write, 2, 2, 1, 3, 0, 20),
        record(Write, 2, 1, 2, 4, 0, 21),
        record(Join, 0, 1, 0, 0, 0, 2),
        record(Join, 0, 2, 0, 0, 0, 3),
        record(Read, 0, 1, 1, 0, 1, 4),
        record(Read, 0, 2, 1, 0, 3, 5),
    ];
    build(&records, &names(), SmaImplementation::Epso).unwrap()
}

#[test]
fn stores_overtaking_stores_in_two_threads_need_store_store_fences_only() {
    let decoded = two_plus_two_writes();
    assert!(verify(&decoded.execution, MemoryModel::Tso).is_err());
    let witness = verify(&decoded.execution, MemoryModel::Pso).expect("2+2W is PSO-realisable");
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Pso);
    assert!(diagnosis.fences_suffice);
    let mut fences: Vec<(Option<usize>, ReorderingKind, FenceKind)> = diagnosis
        .reorderings
        .iter()
        .map(|r| (stmt_of(&decoded, r.store), r.kind, r.fence))
        .collect();
    fences.sort_by_key(|f| f.0);
    assert_eq!(
        fences,
        vec![
            (Some(10), ReorderingKind::StoreStore, FenceKind::StoreStore),
            (Some(20), ReorderingKind::StoreStore, FenceKind::StoreStore),
        ]
    );
}

#[test]
fn a_fence_goes_after_the_whole_statement_of_its_store() {
    use RecordKind::*;
    // SB where t1's statement 10 stores x and z (`x = z = 1;`) before
    // it loads y: the fence goes after the store to z.
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(Write, 1, 1, 1, 1, 0, 10),
        record(Write, 1, 3, 1, 2, 0, 10),
        record(Read, 1, 2, 0, 0, 0, 11),
        record(Write, 2, 2, 1, 3, 0, 20),
        record(Read, 2, 1, 0, 0, 0, 21),
    ];
    let decoded = build(&records, &names(), SmaImplementation::Etso).unwrap();
    let [x, z] = [2, 3].map(|index| {
        decoded
            .events
            .iter()
            .position(|e| e.record == Some(index))
            .expect("the store of the record")
    });
    assert_eq!(rest_of_statement(&decoded, x), &[x, z]);
    let witness = verify(&decoded.execution, MemoryModel::Tso).unwrap();
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Tso);
    assert!(diagnosis.fences_suffice);
    let t1 = diagnosis
        .reorderings
        .iter()
        .find(|r| stmt_of(&decoded, r.store) == Some(10))
        .expect("t1's fence");
    assert_eq!(t1.fence_after, z, "{:?}", diagnosis.reorderings);
    let t2 = diagnosis
        .reorderings
        .iter()
        .find(|r| stmt_of(&decoded, r.store) == Some(20))
        .expect("t2's fence");
    assert_eq!(t2.fence_after, t2.store);
}

#[test]
fn a_statement_that_also_makes_the_later_access_is_split_by_the_fence() {
    use RecordKind::*;
    // SB where t1's store and load are one statement (`x = 1, r1 = y;`):
    // only a fence inside it comes between them.
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(Write, 1, 1, 1, 1, 0, 10),
        record(Read, 1, 2, 0, 0, 0, 10),
        record(Write, 2, 2, 1, 2, 0, 20),
        record(Read, 2, 1, 0, 0, 0, 21),
    ];
    let decoded = build(&records, &names(), SmaImplementation::Etso).unwrap();
    let witness = verify(&decoded.execution, MemoryModel::Tso).unwrap();
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Tso);
    assert!(diagnosis.fences_suffice);
    assert_eq!(diagnosis.reorderings.len(), 2);
    assert!(
        diagnosis
            .reorderings
            .iter()
            .all(|r| r.fence_after == r.store),
        "{:?}",
        diagnosis.reorderings
    );
}

#[test]
fn a_store_fence_record_orders_the_stores_under_pso() {
    // MP with a store-store fence between the stores, and the reader
    // seeing the flag but not the data: not PSO-realisable any more.
    let mut records = message_passing_records();
    records.insert(3, record(RecordKind::StoreFence, 1, 0, 0, 0, 0, 12));
    let decoded = build(&records, &names(), SmaImplementation::Epso).unwrap();
    let fence = decoded
        .events
        .iter()
        .position(|e| e.kind == EventKind::StoreFence)
        .expect("a store fence event");
    assert_eq!(decoded.execution.event(fence).op, Op::StoreFence);
    assert!(verify(&decoded.execution, MemoryModel::Pso).is_err());
    // The same records without the fence are realisable.
    assert!(verify(&message_passing().execution, MemoryModel::Pso).is_ok());
}

#[test]
fn store_load_reorderings_need_a_full_fence() {
    let decoded = store_buffering();
    let stores: Vec<EventId> = decoded
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stmt == Some(10) || e.stmt == Some(20))
        .map(|(event, _)| event)
        .collect();
    assert_eq!(stores.len(), 2);
    assert!(!forbids_with(
        &decoded.execution,
        &stores,
        FenceKind::StoreStore,
        MemoryModel::Pso
    ));
    assert!(forbids_with(
        &decoded.execution,
        &stores,
        FenceKind::Full,
        MemoryModel::Pso
    ));
    let witness = verify(&decoded.execution, MemoryModel::Pso).expect("SB is PSO-realisable");
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Pso);
    assert!(
        diagnosis
            .reorderings
            .iter()
            .all(|r| r.fence == FenceKind::Full)
    );
}

#[test]
fn an_sc_outcome_is_reported_as_such() {
    use RecordKind::*;
    // t1 writes x = 1, t2 reads it: fine under SC.
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(Write, 1, 1, 1, 1, 0, 10),
        record(Read, 2, 1, 1, 0, 1, 20),
    ];
    let decoded = build(&records, &names(), SmaImplementation::Etso).unwrap();
    let witness = verify(&decoded.execution, MemoryModel::Tso).unwrap();
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Tso);
    assert!(diagnosis.sc_realisable);
    assert!(diagnosis.reorderings.is_empty());
}

#[test]
fn fences_are_inserted_after_the_named_events() {
    let decoded = store_buffering();
    let store = decoded
        .events
        .iter()
        .position(|e| e.stmt == Some(10))
        .unwrap();
    let fenced = with_fences_after(&decoded.execution, &[store], FenceKind::Full).unwrap();
    assert_eq!(fenced.events().len(), decoded.execution.events().len() + 1);
    let thread = &fenced.threads()[1];
    let position = thread
        .iter()
        .position(|&e| fenced.event(e).id == decoded.execution.event(store).id)
        .unwrap();
    assert_eq!(fenced.event(thread[position + 1]).op, Op::Fence);
    // One fence alone does not forbid SB; both do.
    assert!(!forbids(&decoded.execution, &[store], MemoryModel::Tso));
    let other = decoded
        .events
        .iter()
        .position(|e| e.stmt == Some(20))
        .unwrap();
    assert!(forbids(
        &decoded.execution,
        &[store, other],
        MemoryModel::Tso
    ));
}

/// The shape of a writer-reader lock taken in atomic sections: the writer
/// `atomic { reads w = 0, r = 0; w = 1; }  x = 3;`, the reader
/// `atomic { reads w = 0, r = 0; r = 1; }`. Both sections read 0: each
/// thread's store was still buffered when its section ended. The writer
/// has no later load, and its stores reach memory in program order.
fn lock_in_atomic_sections() -> Decoded {
    use RecordKind::*;
    let names: Vec<String> = ["null", "w", "r", "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let records = vec![
        record(Create, 0, 1, 0, 0, 0, 0),
        record(Create, 0, 2, 0, 0, 0, 1),
        record(AtomicBegin, 1, 0, 0, 0, 0, 9),
        record(Read, 1, 1, 0, 0, 0, 10),
        record(Read, 1, 2, 0, 0, 0, 10),
        record(Write, 1, 1, 1, 1, 0, 11),
        record(AtomicEnd, 1, 0, 0, 0, 0, 9),
        record(Write, 1, 3, 3, 2, 0, 12),
        record(AtomicBegin, 2, 0, 0, 0, 0, 19),
        record(Read, 2, 1, 0, 0, 0, 20),
        record(Read, 2, 2, 0, 0, 0, 20),
        record(Write, 2, 2, 1, 3, 0, 21),
        record(AtomicEnd, 2, 0, 0, 0, 0, 19),
    ];
    build(&records, &names, SmaImplementation::Etso).unwrap()
}

#[test]
fn a_store_buffered_past_its_atomic_section_is_no_store_store_reordering_under_tso() {
    let decoded = lock_in_atomic_sections();
    let witness = verify(&decoded.execution, MemoryModel::Tso).expect("realisable under TSO");
    let diagnosis = diagnose(&decoded, &witness, MemoryModel::Tso);
    assert!(!diagnosis.sc_realisable);
    assert!(diagnosis.fences_suffice, "{diagnosis:?}");
    let mut stores: Vec<Option<usize>> = diagnosis
        .reorderings
        .iter()
        .map(|r| stmt_of(&decoded, r.store))
        .collect();
    stores.sort();
    assert_eq!(stores, vec![Some(11), Some(21)], "a fence after each store");
    for reordering in &diagnosis.reorderings {
        assert_eq!(
            reordering.kind,
            ReorderingKind::StoreAtomicEnd,
            "{reordering:?}"
        );
    }
    let false_sentences = audit::audit(
        &decoded.execution,
        &witness,
        MemoryModel::Tso,
        &diagnosis.reorderings,
    );
    assert_eq!(false_sentences, Vec::new());
}

#[test]
fn every_diagnosis_of_the_unit_executions_passes_its_audit() {
    let cases = [
        (store_buffering(), MemoryModel::Tso),
        (store_buffering(), MemoryModel::Pso),
        (message_passing(), MemoryModel::Pso),
        (two_plus_two_writes(), MemoryModel::Pso),
        (lock_in_atomic_sections(), MemoryModel::Tso),
        (lock_in_atomic_sections(), MemoryModel::Pso),
    ];
    for (decoded, model) in cases {
        let witness = verify(&decoded.execution, model).expect("realisable");
        let diagnosis = diagnose(&decoded, &witness, model);
        assert!(!diagnosis.reorderings.is_empty(), "{model}: {diagnosis:?}");
        let false_sentences =
            audit::audit(&decoded.execution, &witness, model, &diagnosis.reorderings);
        assert_eq!(false_sentences, Vec::new(), "{model}: {diagnosis:?}");
    }
}
