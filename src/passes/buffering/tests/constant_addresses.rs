//! Constant addresses.

use super::*;

#[test]
fn known_pointer_locals_are_folded_into_addresses() {
    let local = |id: usize| Expr::Load(Place::Local(id));
    let plus =
        |left: Expr, right: Expr| Expr::Binary(BinaryOp::Add, Box::new(left), Box::new(right));
    let write_at = |address: Expr| SeqStmt::Write {
        address,
        value: Expr::Const(1),
        stmt: 0,
        unobserved: false,
    };
    let folded = |body: &[SeqStmt]| {
        let (shared, observed) = (LocationSet::default(), Accesses::default());
        let context = Context::new(&shared, &observed);
        walk_folding(body, false, &layout(), context, true)
            .folded
            .unwrap_or_default()
    };
    // local 0 holds the array's base (location 1), local 1 is unknown
    let base = SeqStmt::Assign(Place::Local(0), Expr::Const(1));
    let body = [
        base.clone(),
        write_at(plus(local(0), Expr::Const(2))),
        write_at(plus(local(0), local(1))),
        write_at(local(1)),
    ];
    assert_eq!(
        folded(&body),
        BTreeMap::from([(1, Expr::Const(3)), (2, plus(Expr::Const(1), local(1)))]),
        "a constant location, and one dispatched over the array; an unknown pointer stays"
    );
    // an address the printer dispatches over the array (1..=3) becomes
    // its location inside it, and stays dispatched (bounds-checked)
    // outside it
    assert_eq!(
        folded(&[base.clone(), write_to_array()]),
        BTreeMap::from([(1, Expr::Const(2))])
    );
    assert!(
        folded(&[
            SeqStmt::Assign(Place::Local(0), Expr::Const(3)),
            write_to_array()
        ])
        .is_empty()
    );
    // a local assigned on one branch only is not known
    let body = [
        branch(vec![base], vec![]),
        write_at(plus(local(0), Expr::Const(2))),
    ];
    assert!(folded(&body).is_empty());
}

#[test]
fn the_sole_allocators_heap_pointers_are_folded_into_addresses() {
    let local = |id: usize| Expr::Load(Place::Local(id));
    let plus =
        |left: Expr, right: Expr| Expr::Binary(BinaryOp::Add, Box::new(left), Box::new(right));
    let write_at = |address: Expr| SeqStmt::Write {
        address,
        value: Expr::Const(1),
        stmt: 0,
        unobserved: false,
    };
    let malloc = |local: usize| SeqStmt::Malloc {
        target: Place::Local(local),
        size: Expr::Const(4),
        zeroed: false,
        stmt: 0,
    };
    // two blocks of 4 scalars from location 10 on
    let memory = MemoryLayout {
        heap_blocks: 2,
        heap_block_size: 4,
        ..layout()
    };
    let folded = |body: &[SeqStmt], allocates_alone: bool| {
        let (shared, observed) = (LocationSet::default(), Accesses::default());
        let context = Context {
            allocates_alone,
            ..Context::new(&shared, &observed)
        };
        walk_folding(body, true, &memory, context, true)
            .folded
            .unwrap_or_default()
    };
    // `p = malloc(..); q = malloc(..); q[1] = 1; p[3] = 1; r = malloc(..); r[0] = 1;`
    let body = [
        malloc(0),
        malloc(1),
        write_at(plus(local(1), Expr::Const(1))),
        write_at(plus(local(0), Expr::Const(3))),
        malloc(2),
        write_at(local(2)),
    ];
    assert_eq!(
        folded(&body, true),
        BTreeMap::from([(2, Expr::Const(15)), (3, Expr::Const(13))]),
        "each allocation takes the next block; the third finds none (no execution gets past it)"
    );
    assert!(
        folded(&body, false).is_empty(),
        "another thread allocates too: the order of the blocks is not known"
    );
    // an allocation on one branch only: the blocks after it are not known
    let body = [
        branch(vec![malloc(0)], vec![]),
        malloc(1),
        write_at(local(1)),
    ];
    assert!(folded(&body, true).is_empty());
    // the same count on both branches is
    let body = [
        branch(vec![malloc(0)], vec![malloc(2)]),
        malloc(1),
        write_at(local(1)),
    ];
    assert_eq!(folded(&body, true), BTreeMap::from([(4, Expr::Const(14))]));
}

#[test]
fn an_address_dependency_on_a_read_value_is_a_constant_location() {
    // r = vars[0]; d = r ^ r; array[d] = 1 (array at 1-3): location 1.
    let read = read_at(4);
    let r = || Box::new(Expr::Load(Place::Local(1)));
    let dependency = SeqStmt::Assign(Place::Local(0), Expr::Binary(BinaryOp::BitXor, r(), r()));
    let stores = stores(&[read, dependency, write_to_array()], false);
    assert_eq!((stores.at(1), stores.at(2), stores.at(3)), (1, 0, 0));
}

#[test]
fn a_local_assigned_in_one_branch_only_is_not_constant() {
    let set = |value| SeqStmt::Assign(Place::Local(0), value);
    let body = [
        set(Expr::Const(0)),
        branch(
            vec![set(Expr::Unary(UnaryOp::Neg, Box::new(Expr::Const(-1))))],
            vec![],
        ),
        write_to_array(),
    ];
    let stores = stores(&body, false);
    assert_eq!((stores.at(1), stores.at(2), stores.at(3)), (1, 1, 1));
}

#[test]
fn nondet_values_are_not_equal_to_themselves() {
    let nondet = || Box::new(Expr::Nondet(Ty::INT));
    let body = [
        SeqStmt::Assign(
            Place::Local(0),
            Expr::Binary(BinaryOp::BitXor, nondet(), nondet()),
        ),
        write_to_array(),
    ];
    assert_eq!(stores(&body, false).at(3), 1);
}
