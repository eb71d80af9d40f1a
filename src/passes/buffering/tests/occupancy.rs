//! The count of buffered stores.

use super::*;

#[test]
fn a_drain_ends_a_run_of_buffered_stores() {
    let stores = stores(
        &[write(1), write(2), fence(), write(1), write(1), write(1)],
        false,
    );
    assert_eq!(stores.most, 3);
    assert_eq!(stores.at(1), 3);
    assert_eq!(stores.at(2), 1);
    assert_eq!(stores.at(3), 0);
    assert!(!stores.unbounded && !stores.store_fences);
}

#[test]
fn phases_move_stores_only_up_to_the_newest_observed_one() {
    let (shared, observed) = (
        LocationSet::default(),
        Accesses {
            locations: [1].into(),
            anywhere: false,
        },
    );
    let context = Context::new(&shared, &observed);
    let count = |body: &[SeqStmt]| walk(body, false, &layout(), context).result;
    // Location 1 is observed: the phases must reach its store, behind
    // the store to 4; the stores to 5 and 6 behind it wait for the drain.
    let stores = count(&[write(4), write(1), write(5), write(6)]);
    assert_eq!((stores.most, stores.observed_most), (4, 2));
    let stores = count(&[write(4), write(5)]);
    assert_eq!((stores.most, stores.observed_most), (2, 0));
    // A store through an unknown address may be observed.
    let stores = count(&[write(4), write_through_pointer(), write(5)]);
    assert_eq!(stores.observed_most, 2);
    // A drain starts over.
    let stores = count(&[write(1), write(4), fence(), write(4), write(5)]);
    assert_eq!(stores.observed_most, 1);
}

#[test]
fn accesses_beside_other_threads_are_collected() {
    let read = read_at;
    let accesses = stores(&[read(4), write(5), write_to_array()], false).accesses;
    assert_eq!(accesses.locations, [1, 2, 3, 4, 5].into());
    assert!(!accesses.anywhere);
    assert!(stores(&[write_through_pointer()], false).accesses.anywhere);
    // Main before its first creation runs alone: nothing to observe.
    assert!(
        stores(&[read(4), write(5)], true)
            .accesses
            .locations
            .is_empty()
    );
}

#[test]
fn branches_count_their_larger_side() {
    let body = [
        write(1),
        branch(vec![write(2), write(2)], vec![fence(), write(3)]),
        write(4),
    ];
    let stores = stores(&body, false);
    assert_eq!(stores.most, 4, "write 1, two writes to 2, write 4");
    assert_eq!(stores.at(2), 2);
    assert_eq!(stores.at(3), 1);
    assert_eq!(stores.at(1), 1);
}

#[test]
fn a_forward_jump_carries_its_stores_past_a_drain() {
    let body = [
        write(1),
        branch(vec![SeqStmt::Goto(7)], vec![]),
        fence(),
        SeqStmt::Label(7),
        write(1),
    ];
    let stores = stores(&body, false);
    assert_eq!(stores.at(1), 2, "the jump skips the fence");
    assert!(!stores.unbounded);
}

#[test]
fn a_backward_jump_makes_the_count_unbounded() {
    let body = [SeqStmt::Label(3), write(1), SeqStmt::Goto(3)];
    assert!(stores(&body, false).unbounded);
}

#[test]
fn a_computed_address_may_be_any_location() {
    let body = [write(1), write_through_pointer()];
    let stores = stores(&body, false);
    assert_eq!(stores.anywhere, 1);
    assert_eq!(stores.at(1), 2);
    assert_eq!(stores.at(9), 1);
}

#[test]
fn a_store_dispatched_over_an_array_may_reach_each_of_its_locations() {
    let stores = stores(&[write_to_array(), write(2)], false);
    assert_eq!(stores.anywhere, 0);
    assert_eq!(
        (stores.at(1), stores.at(2), stores.at(3), stores.at(4)),
        (1, 2, 1, 0)
    );
    assert_eq!(stores.most, 2);
}

#[test]
fn stores_to_shared_locations_are_counted_with_the_stores_ahead_of_them() {
    let shared = LocationSet::from(BTreeSet::from([2]));
    let body = [write(1), write(2), write(3), write_to_array(), write(4)];
    let observed = Accesses::everything();
    let context = Context::new(&shared, &observed);
    let stores = walk(&body, false, &layout(), context).result;
    assert_eq!(
        stores.shared, 2,
        "the store to 2 and the one dispatched over 1-3"
    );
    assert_eq!(
        stores.ahead_of_shared, 3,
        "three stores are ahead of the dispatched one"
    );
    assert_eq!(stores.most, 5);
}

#[test]
fn store_store_fences_are_noted_and_do_not_drain() {
    let body = [
        write(1),
        SeqStmt::Fence {
            kind: FenceKind::StoreStore,
            stmt: 0,
        },
        write(2),
    ];
    let stores = stores(&body, false);
    assert!(stores.store_fences);
    assert_eq!(stores.most, 2);
}
