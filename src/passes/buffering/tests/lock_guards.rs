//! The mutexes that guard locations.

use super::*;

#[test]
fn the_mutexes_held_at_every_access_are_collected() {
    // location 4 always under mutex 9; 5 under 9 once and bare once;
    // the array (1-3) under 9 on one branch only
    let body = [
        lock(9),
        write(4),
        write(5),
        branch(vec![write_to_array()], vec![unlock(9), lock(8)]),
        unlock(9),
        write(5),
    ];
    let guards = stores(&body, false).guards;
    let (nine, eight) = (BTreeSet::from([9]), BTreeSet::from([8]));
    assert!(guards.protect(4, &nine));
    assert!(!guards.protect(4, &eight), "another mutex protects nothing");
    assert!(!guards.protect(5, &nine), "one bare access is enough");
    assert!(guards.protect(1, &nine), "the array's only access holds 9");
    assert!(
        guards.protect(6, &BTreeSet::new()),
        "nothing accessed, nothing to protect from"
    );
    // after the branches only 8 or 9 is held: neither on every path
    let body = [lock(9), branch(vec![], vec![unlock(9), lock(8)]), write(4)];
    assert!(!stores(&body, false).guards.protect(4, &nine));
    // an access through any address counts for every location
    let guards = stores(&[write_through_pointer()], false).guards;
    assert!(!guards.protect(7, &nine));
}

#[test]
fn a_mutex_unlocked_without_being_held_guards_nothing() {
    let unheld = |body: &[SeqStmt]| stores(body, false).unheld_unlocks;
    assert_eq!(unheld(&[lock(9), unlock(9)]), Accesses::default());
    assert_eq!(unheld(&[unlock(9)]).locations, BTreeSet::from([9]));
    // held on one branch only
    assert_eq!(
        unheld(&[branch(vec![lock(9)], vec![]), unlock(9)]).locations,
        BTreeSet::from([9])
    );
    let mut others = stores(&[lock(9), write(4), unlock(9)], false).guards;
    assert!(others.protect(4, &BTreeSet::from([9])));
    others.distrust(&unheld(&[unlock(9)]));
    assert!(
        !others.protect(4, &BTreeSet::from([9])),
        "a distrusted mutex guards nothing"
    );
}
