//! The happens-before cycles of the classic weak-memory executions.

use super::*;
use crate::consistency::{EventSpec, OpSpec, RfSpec, verify};

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

/// The cycle of `threads` under `model` (which must allow the execution),
/// as (event id, relation, relaxed) triples.
fn cycle_of(threads: Vec<Vec<EventSpec>>, model: MemoryModel) -> Vec<(String, Relation, bool)> {
    let execution = Execution::new(threads).expect("a well-formed execution");
    let witness = verify(&execution, model).expect("realisable under the model");
    happens_before_cycle(&execution, &witness, model)
        .into_iter()
        .map(|edge| {
            let id = execution.event(edge.event).id.clone();
            (id, edge.relation, edge.relaxed)
        })
        .collect()
}

/// Rotates `cycle` to start at the event `first`.
fn starting_at(
    mut cycle: Vec<(String, Relation, bool)>,
    first: &str,
) -> Vec<(String, Relation, bool)> {
    let at = cycle
        .iter()
        .position(|(id, ..)| id == first)
        .expect("in the cycle");
    cycle.rotate_left(at);
    cycle
}

#[test]
fn store_buffering_has_two_relaxed_stores_and_two_from_reads() {
    let threads = vec![
        vec![write("wx", "x"), read("ry", "y", None)],
        vec![write("wy", "y"), read("rx", "x", None)],
    ];
    let cycle = starting_at(cycle_of(threads, MemoryModel::Tso), "wx");
    let expected = [
        ("wx", Relation::ProgramOrder, true),
        ("ry", Relation::FromRead, false),
        ("wy", Relation::ProgramOrder, true),
        ("rx", Relation::FromRead, false),
    ];
    let expected: Vec<(String, Relation, bool)> = expected
        .iter()
        .map(|(id, relation, relaxed)| (id.to_string(), *relation, *relaxed))
        .collect();
    assert_eq!(cycle, expected);
}

#[test]
fn message_passing_under_pso_relaxes_the_store_store_order() {
    let threads = vec![
        vec![write("data", "d"), write("flag", "f")],
        vec![read("seen", "f", Some("flag")), read("got", "d", None)],
    ];
    let cycle = starting_at(cycle_of(threads, MemoryModel::Pso), "data");
    let relations: Vec<(Relation, bool)> = cycle.iter().map(|(_, r, x)| (*r, *x)).collect();
    assert_eq!(
        relations,
        [
            (Relation::ProgramOrder, true),
            (Relation::ReadsFrom, false),
            (Relation::ProgramOrder, false),
            (Relation::FromRead, false),
        ]
    );
}

#[test]
fn a_sequentially_consistent_execution_has_no_cycle() {
    let threads = vec![
        vec![write("wx", "x"), read("ry", "y", None)],
        vec![write("wy", "y"), read("rx", "x", Some("wx"))],
    ];
    assert!(cycle_of(threads, MemoryModel::Tso).is_empty());
}
