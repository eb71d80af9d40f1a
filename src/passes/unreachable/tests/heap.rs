//! Allocations cut off by the heap bounds.

use super::*;

#[test]
fn an_allocation_past_the_heap_blocks_cuts_what_follows() {
    // --nmalloc 2 (the default): the third allocation on every path cuts
    let body = vec![malloc(1, 1), malloc(1, 2), malloc(1, 3), write(9)];
    let mut f = function(vec![int("p")], body);
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
    assert_eq!(
        found.cuts,
        vec![BoundCut {
            cut: Cut::HeapBlocks(3),
            first_unreached: 9
        }]
    );
    assert!(found.heap_cut);
    assert_eq!(f.body.len(), 3);
    // allocations in one branch only do not count on every path
    let branch = st(
        StmtKind::If {
            condition: Expr::Nondet(Ty::INT),
            then_branch: vec![malloc(1, 1)],
            else_branch: vec![],
        },
        4,
    );
    let body = vec![branch, malloc(1, 2), malloc(1, 3), write(9)];
    let mut f = function(vec![int("p")], body.clone());
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
    assert_eq!(
        found,
        Reachability {
            allocations_at_end: 2,
            ..Reachability::default()
        }
    );
    assert_eq!(f.body, body);
}

#[test]
fn a_join_counts_the_allocations_of_the_thread_it_waits_for() {
    // p = malloc; create t running function 1; join t: function 1
    // allocates 2 blocks before it ends, so 3 in all, past --nmalloc 2
    let create = st(
        StmtKind::ThreadCreate {
            handle: Place::Local(1),
            function: 1,
            argument: Expr::Const(0),
        },
        2,
    );
    let join = st(StmtKind::ThreadJoin { handle: load(1) }, 3);
    let body = vec![malloc(1, 1), create.clone(), join.clone(), write(9)];
    let locals = vec![
        int("p"),
        Local {
            name: "t".into(),
            ty: Ty::ThreadHandle,
            temporary: false,
            shared: false,
        },
    ];
    let mut f = function(locals.clone(), body.clone());
    let joined = AllocationsAtEnd::from([(1, 2)]);
    let found = remove_unreachable(&mut f, &Bounds::default(), &joined, 0);
    assert_eq!(
        found.cuts,
        vec![BoundCut {
            cut: Cut::HeapBlocksJoined {
                origin: 3,
                allocations: 3
            },
            first_unreached: 9
        }]
    );
    // with one allocation in the thread, or more heap, it is reached
    let mut f = function(locals.clone(), body.clone());
    let found = remove_unreachable(
        &mut f,
        &Bounds::default(),
        &AllocationsAtEnd::from([(1, 1)]),
        0,
    );
    assert_eq!((found.cuts, found.allocations_at_end), (vec![], 2));
    let mut f = function(locals.clone(), body.clone());
    let more = Bounds {
        nmalloc: 3,
        ..Bounds::default()
    };
    assert_eq!(remove_unreachable(&mut f, &more, &joined, 0).cuts, vec![]);
    // a handle written between creation and join names another thread
    let overwritten = st(StmtKind::Assign(Place::Local(1), Expr::Const(0)), 4);
    let mut f = function(
        locals,
        vec![malloc(1, 1), create, overwritten, join, write(9)],
    );
    assert_eq!(
        remove_unreachable(&mut f, &Bounds::default(), &joined, 0).cuts,
        vec![]
    );
}

#[test]
fn a_thread_starts_with_the_allocations_its_creators_made() {
    // malloc; create function 1; malloc: the creation has seen the
    // start count and one allocation, the end both allocations
    let create = st(
        StmtKind::ThreadCreate {
            handle: Place::Local(1),
            function: 1,
            argument: Expr::Const(0),
        },
        2,
    );
    let locals = vec![
        int("p"),
        Local {
            name: "t".into(),
            ty: Ty::ThreadHandle,
            temporary: false,
            shared: false,
        },
    ];
    let body = vec![malloc(1, 1), create, malloc(1, 3), write(9)];
    let mut f = function(locals.clone(), body.clone());
    let more = Bounds {
        nmalloc: 4,
        ..Bounds::default()
    };
    let found = remove_unreachable(&mut f, &more, &AllocationsAtEnd::new(), 1);
    assert_eq!(
        found.allocations_at_creation,
        BTreeMap::from([(1, 2)]),
        "the start count and the first allocation"
    );
    assert_eq!(
        found.allocations_at_end, 2,
        "its own allocations only: a join adds them to the joiner's"
    );
    assert_eq!(found.cuts, vec![]);
    // started after one allocation, the second of its own is the third
    let mut f = function(locals.clone(), body.clone());
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 1);
    assert_eq!(
        found.cuts,
        vec![BoundCut {
            cut: Cut::HeapBlocks(3),
            first_unreached: 9
        }]
    );
    // a label that a jump back reaches still knows the start count
    let body = vec![
        st(StmtKind::Label(5, "again".into()), 1),
        malloc(1, 2),
        malloc(1, 3),
        write(9),
        maybe(vec![goto(5, 4)], 4),
    ];
    let mut f = function(vec![int("p")], body);
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 1);
    assert_eq!(
        found.cuts,
        vec![BoundCut {
            cut: Cut::HeapBlocks(3),
            first_unreached: 9
        }]
    );
}

#[test]
fn an_allocation_larger_than_a_given_heap_block_cuts_what_follows() {
    let body = vec![malloc(9, 1), write(9)];
    let mut f = function(vec![int("p")], body.clone());
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
    assert_eq!(
        found,
        Reachability {
            allocations_at_end: 1,
            ..Reachability::default()
        },
        "no --heap-block: it fits"
    );
    let small = Bounds {
        heap_block: Some(8),
        ..Bounds::default()
    };
    let found = remove_unreachable(&mut f, &small, &AllocationsAtEnd::new(), 0);
    assert_eq!(
        found.cuts,
        vec![BoundCut {
            cut: Cut::HeapBlockSize {
                origin: 1,
                scalars: 9
            },
            first_unreached: 9
        }]
    );
}
