//! Unit tests of the audit: true reorderings pass, planted false ones are
//! each caught with their reason.

use super::*;
use crate::consistency::{EventSpec, OpSpec, RfSpec, Step, replay};
use crate::ir::FenceKind;

fn write(id: &str, var: &str) -> EventSpec {
    EventSpec::new(id, OpSpec::Write { var: var.into() })
}

fn read(id: &str, var: &str, rf: Option<&str>) -> EventSpec {
    let rf = rf.map_or(RfSpec::Init, |id| RfSpec::Event(id.into()));
    EventSpec::new(
        id,
        OpSpec::Read {
            var: var.into(),
            rf,
        },
    )
}

/// t0: `x = 1; y = 1; r = y; atomic { } ; r = z;`  t1: `v = 1;`, the
/// loads reading what memory holds when they run.
fn execution() -> Execution {
    Execution::new(vec![
        vec![
            write("x", "x"),
            write("y", "y"),
            read("ry", "y", Some("y")),
            EventSpec::new("begin", OpSpec::AtomicBegin),
            EventSpec::new("end", OpSpec::AtomicEnd),
            read("rz", "z", None),
        ],
        vec![write("v", "v")],
    ])
    .expect("a valid execution")
}

fn id(execution: &Execution, name: &str) -> EventId {
    execution
        .events()
        .iter()
        .position(|event| event.id == name)
        .expect("an event of that name")
}

/// A witness of [`execution`] from (event, phase) names.
fn witness(execution: &Execution, steps: &[(&str, Phase)], model: MemoryModel) -> Witness {
    let witness = Witness {
        steps: steps
            .iter()
            .map(|&(name, phase)| Step {
                event: id(execution, name),
                phase,
            })
            .collect(),
    };
    replay(execution, &witness, model).expect("the witness replays");
    witness
}

/// `y` overtakes `x` (PSO), `x` is still buffered when the section ends
/// and when `rz` reads memory; so is `v`, which reaches memory last.
fn delaying_x(execution: &Execution) -> Witness {
    use Phase::*;
    witness(
        execution,
        &[
            ("v", Buffer),
            ("x", Buffer),
            ("y", Buffer),
            ("y", Memory),
            ("ry", Execute),
            ("begin", Execute),
            ("end", Execute),
            ("rz", Execute),
            ("x", Memory),
            ("v", Memory),
        ],
        MemoryModel::Pso,
    )
}

/// Every event in program order, each store reaching memory at once.
fn in_order(execution: &Execution) -> Witness {
    use Phase::*;
    witness(
        execution,
        &[
            ("x", Buffer),
            ("x", Memory),
            ("y", Buffer),
            ("y", Memory),
            ("ry", Execute),
            ("begin", Execute),
            ("end", Execute),
            ("rz", Execute),
            ("v", Buffer),
            ("v", Memory),
        ],
        MemoryModel::Sc,
    )
}

fn reordering(
    execution: &Execution,
    kind: ReorderingKind,
    (store, later): (&str, &str),
) -> Reordering {
    Reordering {
        kind,
        store: id(execution, store),
        later: id(execution, later),
        fence: FenceKind::Full,
        fence_after: id(execution, store),
    }
}

/// The one falsehood the audit finds in `claimed`, under `model`.
fn falsehood_of(
    execution: &Execution,
    witness: &Witness,
    model: MemoryModel,
    claimed: Reordering,
) -> Option<Falsehood> {
    let found = audit(execution, witness, model, &[claimed]);
    assert!(found.len() <= 1);
    found.first().map(|sentence| {
        assert_eq!((sentence.index, sentence.kind), (0, claimed.kind));
        sentence.falsehood
    })
}

#[test]
fn true_reorderings_pass() {
    let execution = execution();
    let witness = delaying_x(&execution);
    let pso = [
        reordering(&execution, ReorderingKind::StoreLoad, ("x", "rz")),
        reordering(&execution, ReorderingKind::StoreStore, ("x", "y")),
        reordering(&execution, ReorderingKind::StoreAtomicEnd, ("x", "end")),
    ];
    assert_eq!(audit(&execution, &witness, MemoryModel::Pso, &pso), vec![]);
    let tso = [pso[0], pso[2]];
    assert_eq!(audit(&execution, &witness, MemoryModel::Tso, &tso), vec![]);
}

#[test]
fn a_store_store_reordering_under_tso_is_false() {
    let execution = execution();
    let witness = delaying_x(&execution);
    let claimed = reordering(&execution, ReorderingKind::StoreStore, ("x", "y"));
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Tso, claimed),
        Some(Falsehood::ModelForbids {
            model: MemoryModel::Tso,
            kind_later: "store",
        })
    );
}

#[test]
fn no_reordering_is_true_under_sc() {
    let execution = execution();
    let witness = in_order(&execution);
    for kind in [
        ReorderingKind::StoreLoad,
        ReorderingKind::StoreStore,
        ReorderingKind::StoreAtomicEnd,
    ] {
        let claimed = reordering(&execution, kind, ("x", "rz"));
        assert!(matches!(
            falsehood_of(&execution, &witness, MemoryModel::Sc, claimed),
            Some(Falsehood::ModelForbids { .. })
        ));
    }
}

#[test]
fn a_reordering_whose_events_happened_in_program_order_is_false() {
    let execution = execution();
    let witness = in_order(&execution);
    for (kind, pair) in [
        (ReorderingKind::StoreLoad, ("x", "rz")),
        (ReorderingKind::StoreStore, ("x", "y")),
        (ReorderingKind::StoreAtomicEnd, ("x", "end")),
    ] {
        let claimed = reordering(&execution, kind, pair);
        assert_eq!(
            falsehood_of(&execution, &witness, MemoryModel::Pso, claimed),
            Some(Falsehood::InProgramOrder),
            "{kind}"
        );
    }
}

#[test]
fn a_reordering_between_events_of_two_threads_is_false() {
    let execution = execution();
    let witness = delaying_x(&execution);
    // `v` (thread 1) is still buffered when `rz` (thread 0) reads memory
    let mut claimed = reordering(&execution, ReorderingKind::StoreLoad, ("v", "rz"));
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Tso, claimed),
        Some(Falsehood::DifferentThreads)
    );
    claimed.fence_after = id(&execution, "rz");
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Tso, claimed),
        Some(Falsehood::DifferentThreads)
    );
}

#[test]
fn a_load_of_the_stores_own_location_is_no_reordering() {
    let execution = execution();
    let witness = delaying_x(&execution);
    let claimed = reordering(&execution, ReorderingKind::StoreLoad, ("y", "ry"));
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Tso, claimed),
        Some(Falsehood::SameLocation)
    );
}

#[test]
fn the_events_must_be_of_the_kind_named_in_program_order() {
    let execution = execution();
    let witness = delaying_x(&execution);
    let wrong_later = reordering(&execution, ReorderingKind::StoreLoad, ("x", "y"));
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Pso, wrong_later),
        Some(Falsehood::WrongLater { expected: "load" })
    );
    let not_a_store = reordering(&execution, ReorderingKind::StoreLoad, ("ry", "rz"));
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Pso, not_a_store),
        Some(Falsehood::NotAStore)
    );
    let backwards = reordering(&execution, ReorderingKind::StoreStore, ("y", "x"));
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Pso, backwards),
        Some(Falsehood::NotLater)
    );
}

#[test]
fn a_fence_outside_the_pair_is_false() {
    let execution = execution();
    let witness = delaying_x(&execution);
    let mut claimed = reordering(&execution, ReorderingKind::StoreLoad, ("x", "rz"));
    claimed.fence_after = id(&execution, "rz");
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Tso, claimed),
        Some(Falsehood::FenceOutside)
    );
    claimed.fence_after = id(&execution, "end");
    assert_eq!(
        falsehood_of(&execution, &witness, MemoryModel::Tso, claimed),
        None,
        "a fence anywhere between the two is true"
    );
}

#[test]
fn every_false_sentence_is_listed_with_its_index() {
    let execution = execution();
    let witness = delaying_x(&execution);
    let claimed = [
        reordering(&execution, ReorderingKind::StoreLoad, ("x", "rz")),
        reordering(&execution, ReorderingKind::StoreStore, ("x", "y")),
        reordering(&execution, ReorderingKind::StoreAtomicEnd, ("x", "end")),
        reordering(&execution, ReorderingKind::StoreLoad, ("y", "rz")),
    ];
    let found = audit(&execution, &witness, MemoryModel::Tso, &claimed);
    let indices: Vec<usize> = found.iter().map(|sentence| sentence.index).collect();
    // `y` reached memory before `rz` read it
    assert_eq!(indices, vec![1, 3]);
    assert_eq!(found[1].falsehood, Falsehood::InProgramOrder);
    assert!(found[0].to_string().contains("TSO does not reorder"));
}
