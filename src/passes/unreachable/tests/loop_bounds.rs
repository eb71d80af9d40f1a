//! Loops cut short by their unwinding bound.

use super::*;

#[test]
fn a_loop_that_counts_past_the_bound_cuts_what_follows() {
    let mut body = counted_loop(128, 7);
    body.push(write(9));
    body.push(write(10));
    let mut f = function(vec![int("i")], body);
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
    assert_eq!(
        found.cuts,
        vec![BoundCut {
            cut: Cut::LoopBound(7),
            first_unreached: 9
        }]
    );
    assert_eq!(
        found.end_cut_by,
        Some(Cut::LoopBound(7)),
        "the function never ends"
    );
    assert_eq!(f.body.len(), 2, "both writes are removed");
}

#[test]
fn a_loop_that_ends_within_the_bound_cuts_nothing() {
    let mut body = counted_loop(2, 7);
    body.push(write(9));
    let mut f = function(vec![int("i")], body.clone());
    assert_eq!(
        remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
        Reachability::default()
    );
    assert_eq!(f.body, body);
}

#[test]
fn an_unknown_counter_or_a_value_out_of_range_cuts_nothing() {
    // the counter is read from shared memory
    let mut body = counted_loop(128, 7);
    body.insert(
        1,
        st(
            StmtKind::Read {
                target: Place::Local(0),
                address: Expr::Const(1),
            },
            1,
        ),
    );
    body.push(write(9));
    let mut f = function(vec![int("i")], body.clone());
    assert_eq!(
        remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
        Reachability::default()
    );
    assert_eq!(f.body, body);
    // an unsigned counter that starts at 0 - 1 wraps: not modelled
    let mut body = counted_loop(128, 7);
    body[0] = st(
        StmtKind::Assign(
            Place::Local(0),
            bin(BinaryOp::Sub, Expr::Const(0), Expr::Const(1)),
        ),
        1,
    );
    body.push(write(9));
    let mut f = function(
        vec![Local {
            name: "u".into(),
            ty: Ty::Int {
                bits: 32,
                signed: false,
            },
            temporary: false,
            shared: false,
        }],
        body,
    );
    assert_eq!(
        remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
        Reachability::default()
    );
}

/// `n = nondet; <learning>; counted loop to n; write`, with `i` and an
/// `n` of type `n_type`.
fn loop_to_an_assumed_bound(learning: Vec<Stmt>, n_type: Ty) -> (Reachability, Function) {
    let mut body = vec![st(
        StmtKind::Assign(Place::Local(1), Expr::Nondet(n_type.clone())),
        1,
    )];
    body.extend(learning);
    body.extend(counted_loop_to(load(1), 7));
    body.push(write(9));
    let mut f = function(
        vec![
            int("i"),
            Local {
                name: "n".into(),
                ty: n_type,
                temporary: false,
                shared: false,
            },
        ],
        body,
    );
    (
        remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
        f,
    )
}

#[test]
fn a_loop_to_a_bound_assumed_past_the_unwinding_cuts_what_follows() {
    let n_at_least =
        |op: BinaryOp, k: i64| st(StmtKind::Assume(bin(op, load(1), Expr::Const(k))), 3);
    let cut = vec![BoundCut {
        cut: Cut::LoopBound(7),
        first_unreached: 9,
    }];
    // assume(n >= 5 && n <= 10), assume(n > 2), assume(3 <= n)
    let both = st(
        StmtKind::Assume(bin(
            BinaryOp::LogicalAnd,
            bin(BinaryOp::Ge, load(1), Expr::Const(5)),
            bin(BinaryOp::Le, load(1), Expr::Const(10)),
        )),
        3,
    );
    let mirrored = st(
        StmtKind::Assume(bin(BinaryOp::Le, Expr::Const(3), load(1))),
        3,
    );
    for learning in [
        vec![both],
        vec![n_at_least(BinaryOp::Gt, 2)],
        vec![mirrored],
    ] {
        assert_eq!(
            loop_to_an_assumed_bound(learning.clone(), Ty::INT).0.cuts,
            cut,
            "{learning:?}"
        );
    }
    // the else branch of `if (n < 3) return`
    let early_return = st(
        StmtKind::If {
            condition: bin(BinaryOp::Lt, load(1), Expr::Const(3)),
            then_branch: vec![st(StmtKind::Return(None), 4)],
            else_branch: vec![],
        },
        3,
    );
    assert_eq!(
        loop_to_an_assumed_bound(vec![early_return], Ty::INT).0.cuts,
        cut
    );
    // an unsigned n: any comparison gives its least value
    let unsigned = Ty::Int {
        bits: 32,
        signed: false,
    };
    let against_unsigned = st(
        StmtKind::Assume(bin(
            BinaryOp::Ge,
            load(1),
            Expr::Cast(unsigned.clone(), Box::new(Expr::Const(5))),
        )),
        3,
    );
    assert_eq!(
        loop_to_an_assumed_bound(vec![against_unsigned.clone()], unsigned)
            .0
            .cuts,
        cut
    );
}

#[test]
fn a_bound_that_lets_a_path_through_or_a_wrapping_comparison_cuts_nothing() {
    let assume = |condition: Expr| st(StmtKind::Assume(condition), 3);
    let unsigned = Ty::Int {
        bits: 32,
        signed: false,
    };
    let cases = [
        // n >= 2 lets n == 2 leave the loop within 2 iterations
        (
            vec![assume(bin(BinaryOp::Ge, load(1), Expr::Const(2)))],
            Ty::INT,
        ),
        // a signed n compared as unsigned: -1 passes `n >= 5u`
        (
            vec![assume(bin(
                BinaryOp::Ge,
                load(1),
                Expr::Cast(unsigned, Box::new(Expr::Const(5))),
            ))],
            Ty::INT,
        ),
        // n >= 5 || n == 0
        (
            vec![assume(bin(
                BinaryOp::LogicalOr,
                bin(BinaryOp::Ge, load(1), Expr::Const(5)),
                bin(BinaryOp::Eq, load(1), Expr::Const(0)),
            ))],
            Ty::INT,
        ),
        // n is read again after the assumption
        (
            vec![
                assume(bin(BinaryOp::Ge, load(1), Expr::Const(5))),
                st(
                    StmtKind::Read {
                        target: Place::Local(1),
                        address: Expr::Const(1),
                    },
                    4,
                ),
            ],
            Ty::INT,
        ),
    ];
    for (learning, n_type) in cases {
        let (found, f) = loop_to_an_assumed_bound(learning.clone(), n_type);
        assert_eq!(found, Reachability::default(), "{learning:?}");
        assert!(
            f.body.iter().any(|s| s.origin == 9),
            "the write stays: {learning:?}"
        );
    }
}
