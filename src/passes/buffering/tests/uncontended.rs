//! Unobserved stores, newest reads, private blocks and main alone.

use super::*;

#[test]
fn a_store_under_a_mutex_the_others_hold_is_unobserved() {
    let guards_of = |body: &[SeqStmt]| stores(body, false).guards;
    let other = guards_of(&[lock(9), read_at(4), unlock(9)]);
    let (shared, observed) = (LocationSet::default(), Accesses::everything());
    let unobserved = |body: &[SeqStmt], guards: Option<&LockGuards>| {
        walk(
            body,
            false,
            &layout(),
            Context {
                guards,
                ..Context::new(&shared, &observed)
            },
        )
        .unobserved
    };
    // store 1 (to 4, under 9) is unobserved; store 3 (after the unlock) is not
    let body = [lock(9), write(4), unlock(9), write(4)];
    assert_eq!(unobserved(&body, Some(&other)), BTreeSet::from([1]));
    // without the guards (the reference SMAs' count) neither is
    assert!(unobserved(&body, None).is_empty());
    // nor under another mutex
    assert!(unobserved(&[lock(8), write(4), unlock(8)], Some(&other)).is_empty());
}

/// The reads of `body` (a thread beside others) that read the newest
/// write, given what the other threads hold at their accesses.
fn newest_reads(body: &[SeqStmt], others: &LockGuards) -> BTreeSet<usize> {
    let (shared, observed) = (LocationSet::default(), Accesses::everything());
    walk(
        body,
        false,
        &layout(),
        Context {
            guards: Some(others),
            ..Context::new(&shared, &observed)
        },
    )
    .newest
}

#[test]
fn a_load_under_a_mutex_the_others_hold_reads_the_newest_write() {
    // the others store to 4 under mutex 9 only, and to 5 bare
    let others = stores(&[lock(9), write(4), unlock(9), write(5)], false).guards;
    // read 1 (of 4, under 9) reads the newest write; read 2 (of 5) and
    // read 4 (of 4, after the unlock) do not
    let body = [lock(9), read_at(4), read_at(5), unlock(9), read_at(4)];
    assert_eq!(newest_reads(&body, &others), BTreeSet::from([1]));
    // a location the others never access needs no mutex
    assert_eq!(newest_reads(&[read_at(6)], &others), BTreeSet::from([0]));
    // under another mutex, or for the reference SMAs' count, nothing
    assert!(newest_reads(&[lock(8), read_at(4), unlock(8)], &others).is_empty());
    let (shared, observed) = (LocationSet::default(), Accesses::everything());
    let memory = layout();
    let plain = walk(&body, false, &memory, Context::new(&shared, &observed));
    assert!(plain.newest.is_empty());
}

#[test]
fn a_load_of_a_location_no_other_thread_writes_reads_the_newest_write() {
    // the others read 4 bare, store to 5, lock 6 and compare-and-swap 7:
    // only the store can be pending (the others write memory at once)
    let others = stores(
        &[
            read_at(4),
            write(5),
            lock(6),
            unlock(6),
            compare_and_swap_at(7),
        ],
        false,
    );
    let written = others.writes();
    assert_eq!(
        written,
        Accesses {
            locations: BTreeSet::from([5]),
            anywhere: false
        }
    );
    let (shared, observed) = (LocationSet::default(), Accesses::everything());
    let memory = layout();
    let context = Context {
        guards: Some(&others.guards),
        written_by_others: Some(&written),
        ..Context::new(&shared, &observed)
    };
    // its own store to 4 comes last in 4's list: the load reads it
    let body = [write(4), read_at(4), read_at(5), read_at(6), read_at(7)];
    assert_eq!(
        walk(&body, false, &memory, context).newest,
        BTreeSet::from([1, 3, 4])
    );
    // without what the others write, a bare read by them is an access
    let context = Context {
        guards: Some(&others.guards),
        ..Context::new(&shared, &observed)
    };
    assert!(walk(&body, false, &memory, context).newest.is_empty());
    // a store of theirs through an unknown address may write anything
    let anywhere = SeqStmt::Write {
        address: Expr::Load(Place::Local(0)),
        value: Expr::Const(1),
        stmt: 0,
        unobserved: false,
    };
    assert_eq!(stores(&[anywhere], false).writes(), Accesses::everything());
}

/// What a thread beside others marks and leaves to the others when its
/// unpublished heap blocks are private, stores reaching memory in
/// `order`: (unobserved stores, newest reads, what it may have pending,
/// what it accesses).
fn private_walk(
    body: &[SeqStmt],
    order: StoreOrder,
) -> (BTreeSet<usize>, BTreeSet<usize>, Accesses, Accesses) {
    let memory = MemoryLayout {
        heap_blocks: 2,
        heap_block_size: 2,
        ..layout()
    };
    // the others access and write everything, holding no mutex
    let guards = LockGuards {
        per_location: BTreeMap::new(),
        anywhere: Some(BTreeSet::new()),
    };
    let (shared, observed, written) = (
        LocationSet::default(),
        Accesses::everything(),
        Accesses::everything(),
    );
    let context = Context {
        guards: Some(&guards),
        written_by_others: Some(&written),
        private_blocks: Some(order),
        ..Context::new(&shared, &observed)
    };
    let counter = walk(body, false, &memory, context);
    (
        counter.unobserved,
        counter.newest,
        counter.result.writes(),
        counter.result.accesses,
    )
}

#[test]
fn a_block_the_thread_has_not_published_is_private() {
    let local = |id: usize| Expr::Load(Place::Local(id));
    let field = |id: usize, offset: i64| {
        Expr::Binary(
            BinaryOp::Add,
            Box::new(local(id)),
            Box::new(Expr::Const(offset)),
        )
    };
    let store = |address: Expr, value: Expr| SeqStmt::Write {
        address,
        value,
        stmt: 0,
        unobserved: false,
    };
    let load = |address: Expr| SeqStmt::Read {
        target: Place::Local(5),
        address,
        stmt: 0,
        alone: false,
        newest: false,
    };
    let malloc = SeqStmt::Malloc {
        target: Place::Local(0),
        size: Expr::Const(2),
        zeroed: false,
        stmt: 0,
    };
    let link = SeqStmt::Rmw {
        target: None,
        address: Expr::Const(4),
        op: crate::passes::RmwCode::Cas,
        operand: local(0),
        expected: Expr::Const(0),
        stmt: 0,
    };
    // `n = malloc(..); n->value = 1; n->next = 0; v = n->value;
    // CAS(&top, 0, n); n->value = 2; v = n->value;`
    let body = [
        malloc.clone(),
        store(local(0), Expr::Const(1)),
        store(field(0, 1), Expr::Const(0)),
        load(local(0)),
        link.clone(),
        store(local(0), Expr::Const(2)),
        load(local(0)),
    ];
    for order in [StoreOrder::ProgramOrder, StoreOrder::PerLocation] {
        let (unobserved, newest, writes, accesses) = private_walk(&body, order);
        assert_eq!(
            unobserved,
            BTreeSet::from([1, 2]),
            "the stores before the compare-and-swap publishes n"
        );
        assert_eq!(newest, BTreeSet::from([3]));
        assert!(
            writes.anywhere,
            "the store after it may be pending anywhere"
        );
        assert!(accesses.anywhere && accesses.locations.contains(&4));
    }
    // published by a plain store: in order under TSO; under PSO its
    // stores may reach memory after it, so the block is an ordinary one
    let publish = store(Expr::Const(4), local(0));
    let body = [
        malloc.clone(),
        store(local(0), Expr::Const(1)),
        load(local(0)),
        publish.clone(),
    ];
    let (unobserved, newest, writes, _) = private_walk(&body, StoreOrder::ProgramOrder);
    assert_eq!(
        (unobserved, newest),
        (BTreeSet::from([1]), BTreeSet::from([2]))
    );
    assert_eq!(writes.locations, BTreeSet::from([4]));
    assert!(!writes.anywhere);
    let (unobserved, newest, writes, _) = private_walk(&body, StoreOrder::PerLocation);
    assert!(unobserved.is_empty() && newest.is_empty());
    assert!(writes.anywhere);
    // a store-store fence between them orders them under PSO too
    let fence = SeqStmt::Fence {
        kind: FenceKind::StoreStore,
        stmt: 0,
    };
    let body = [
        malloc.clone(),
        store(local(0), Expr::Const(1)),
        fence,
        publish.clone(),
    ];
    assert_eq!(
        private_walk(&body, StoreOrder::PerLocation).0,
        BTreeSet::from([1])
    );
    // lost on one path (another value on the other), then published
    let body = [
        malloc.clone(),
        store(local(0), Expr::Const(1)),
        branch(
            vec![SeqStmt::Assign(Place::Local(0), Expr::Const(0))],
            vec![],
        ),
        publish,
    ];
    assert!(private_walk(&body, StoreOrder::PerLocation).0.is_empty());
    // an address through an unknown index may leave the block
    let body = [
        malloc,
        store(
            Expr::Binary(BinaryOp::Add, Box::new(local(0)), Box::new(local(7))),
            Expr::Const(1),
        ),
    ];
    let (unobserved, _, writes, _) = private_walk(&body, StoreOrder::ProgramOrder);
    assert!(unobserved.is_empty() && writes.anywhere);
}

fn alone_reads(body: &[SeqStmt], nested_creation: bool) -> BTreeSet<usize> {
    let (shared, observed) = (LocationSet::default(), Accesses::default());
    walk(
        body,
        true,
        &layout(),
        Context {
            nested_creation,
            ..Context::new(&shared, &observed)
        },
    )
    .alone
}

#[test]
fn main_is_alone_before_creating_and_after_joining_every_thread() {
    let handle = Place::Local(0);
    let body = [
        read(),
        SeqStmt::Create { slot: 1, stmt: 0 },
        SeqStmt::Assign(handle.clone(), Expr::Const(1)),
        read(),
        SeqStmt::Join {
            handle: Expr::Load(handle),
            stmt: 0,
        },
        read(),
    ];
    assert_eq!(alone_reads(&body, false), BTreeSet::from([0, 5]));
    assert_eq!(
        alone_reads(&body, true),
        BTreeSet::from([0]),
        "a thread may have created others"
    );
    let mut program_body = body.to_vec();
    mark(
        &mut program_body,
        &Marks::Alone(&BTreeSet::from([0, 5])),
        &mut 0,
    );
    assert!(matches!(program_body[5], SeqStmt::Read { alone: true, .. }));
    assert!(matches!(
        program_body[3],
        SeqStmt::Read { alone: false, .. }
    ));
}

#[test]
fn a_join_through_an_unknown_handle_leaves_the_thread_running() {
    let body = [
        SeqStmt::Create { slot: 1, stmt: 0 },
        branch(
            vec![SeqStmt::Assign(Place::Local(0), Expr::Const(1))],
            vec![],
        ),
        SeqStmt::Join {
            handle: Expr::Load(Place::Local(0)),
            stmt: 0,
        },
        read(),
    ];
    assert!(alone_reads(&body, false).is_empty());
}

#[test]
fn main_alone_before_its_first_creation_holds_nothing_concurrently() {
    let body = [
        write(1),
        write(2),
        SeqStmt::Create { slot: 1, stmt: 0 },
        write(3),
    ];
    let alone = stores(&body, true);
    assert_eq!(alone.most, 1, "only the store after the creation");
    assert_eq!(alone.at(1), 0);
    let whole = stores(&body, false);
    assert_eq!(whole.most, 2, "the drain must still empty both");
}
