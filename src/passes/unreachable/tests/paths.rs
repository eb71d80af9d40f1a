//! Labels, returns and branches around a cut.

use super::*;

#[test]
fn a_label_that_its_jumps_reach_forward_keeps_what_every_path_did() {
    // an inlined call that returns early or late: both paths allocated
    // twice when they meet at the label, so the third allocation cuts
    let body = vec![
        malloc(1, 1),
        malloc(1, 2),
        maybe(vec![goto(5, 3)], 3),
        write(4),
        st(StmtKind::Label(5, "returned".into()), 5),
        malloc(1, 6),
        write(9),
    ];
    let mut f = function(vec![int("p")], body);
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
    assert_eq!(
        found.cuts,
        vec![BoundCut {
            cut: Cut::HeapBlocks(6),
            first_unreached: 9
        }]
    );
    // a jump back to the label: nothing is known there
    let body = vec![
        malloc(1, 1),
        malloc(1, 2),
        st(StmtKind::Label(5, "again".into()), 5),
        malloc(1, 6),
        write(9),
        maybe(vec![goto(5, 3)], 3),
    ];
    let mut f = function(vec![int("p")], body.clone());
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
    assert_eq!(found.cuts, vec![]);
    assert_eq!(f.body, body);
}

#[test]
fn a_function_that_returns_before_the_cut_ends() {
    // if (nondet) return; counted loop that cuts
    let mut body = vec![st(
        StmtKind::If {
            condition: Expr::Nondet(Ty::INT),
            then_branch: vec![st(StmtKind::Return(None), 4)],
            else_branch: vec![],
        },
        3,
    )];
    body.extend(counted_loop(128, 7));
    let mut f = function(vec![int("i")], body);
    let found = remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0);
    assert_eq!(found.end_cut_by, None);
    assert_eq!(found.cuts, vec![], "nothing that matters follows the loop");
}

#[test]
fn a_label_after_the_cut_is_reachable_by_a_jump() {
    let mut body = vec![maybe(vec![goto(3, 6)], 6)];
    body.extend(counted_loop(128, 7));
    body.push(write(9));
    body.push(st(StmtKind::Label(3, "loop_exit".into()), 7));
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
    assert_eq!(found.end_cut_by, None, "a jump reaches the end");
    let kinds: Vec<_> = f.body.iter().skip(3).map(|s| s.origin).collect();
    assert_eq!(kinds, vec![7, 10], "the label and what follows it stay");
}

#[test]
fn a_failing_user_assumption_removes_code_without_a_warning() {
    let mut body = vec![st(StmtKind::Assume(Expr::Const(0)), 1)];
    body.push(write(9));
    let mut f = function(vec![], body);
    assert_eq!(
        remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
        Reachability::default(),
        "an assumption is no loop bound"
    );
    assert_eq!(f.body.len(), 1);
}

#[test]
fn a_cut_in_one_branch_keeps_the_code_the_other_reaches() {
    // if (nondet) { counted loop that cuts } ; write
    let branch = counted_loop(128, 7);
    let body = vec![
        st(
            StmtKind::If {
                condition: Expr::Nondet(Ty::INT),
                then_branch: branch,
                else_branch: vec![],
            },
            5,
        ),
        write(9),
    ];
    let mut f = function(vec![int("i")], body);
    assert_eq!(
        remove_unreachable(&mut f, &Bounds::default(), &AllocationsAtEnd::new(), 0),
        Reachability::default()
    );
    assert_eq!(f.body.len(), 2);
}
