//! Thread arguments known to be constants: when the creator of a thread
//! stores a constant as its `pthread_create` argument (`&workers[i]` with
//! `i` known in an unrolled loop), the thread's read of that argument
//! becomes the constant, so that the accesses through it fold to constant
//! locations ([`buffering::fold_constant_addresses`], which runs after).
//!
//! Each thread slot's argument element is stored once, at the one
//! creation site of the slot, before the thread starts, and by nothing
//! else: a value known there is the value the thread reads.
//!
//! [`buffering::fold_constant_addresses`]: super::buffering::fold_constant_addresses

use super::buffering::evaluate;
use super::walk;
use super::{SeqStmt, SequentialProgram};
use crate::ir::{Expr, LocalId, Place};
use std::collections::BTreeMap;

/// Replaces each thread's read of its argument by the constant its
/// creator stores, where the creator's private locals determine it.
pub fn propagate_thread_arguments(program: &mut SequentialProgram) {
    let mut stored = Stored {
        thread_arg: program.thread_arg,
        values: BTreeMap::new(),
        spoiled: false,
    };
    for thread in &program.threads {
        stored.walk(&thread.body, &mut BTreeMap::new());
    }
    if stored.spoiled {
        return;
    }
    let known: BTreeMap<i64, i64> = stored
        .values
        .into_iter()
        .filter_map(|(slot, value)| Some((slot, value?)))
        .collect();
    if known.is_empty() {
        return;
    }
    for thread in &mut program.threads {
        substitute(&mut thread.body, program.thread_arg, &known);
    }
}

/// The argument values stored so far: by slot, the constant, or `None`
/// when one store's value is not known or two stores differ.
struct Stored {
    thread_arg: usize,
    values: BTreeMap<i64, Option<i64>>,
    /// Some store goes to an element that no constant names: any slot's.
    spoiled: bool,
}

impl Stored {
    /// Follows `body` with the private locals known to hold `constants`.
    fn walk(&mut self, body: &[SeqStmt], constants: &mut BTreeMap<LocalId, i64>) {
        for stmt in body {
            match stmt {
                SeqStmt::Assign(place, value) => {
                    if let Some(slot) = argument_slot(place, self.thread_arg) {
                        self.store(slot, evaluate(value, constants));
                    } else if matches!(place, Place::Index(base, _) if **base == Place::PlainGlobal(self.thread_arg))
                    {
                        self.spoiled = true;
                    }
                    assign(constants, place, evaluate(value, constants));
                }
                SeqStmt::Read { target, .. }
                | SeqStmt::TryLock { target, .. }
                | SeqStmt::Malloc { target, .. } => {
                    assign(constants, target, None);
                }
                SeqStmt::Rmw {
                    target: Some(target),
                    ..
                } => assign(constants, target, None),
                SeqStmt::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    let mut after_else = constants.clone();
                    self.walk(then_branch, constants);
                    self.walk(else_branch, &mut after_else);
                    constants.retain(|local, value| after_else.get(local) == Some(value));
                }
                // a jump may arrive with other values
                SeqStmt::Label(_) => constants.clear(),
                _ => {}
            }
        }
    }

    /// A store of `value` to the argument of `slot`: known if it is the
    /// only store there.
    fn store(&mut self, slot: i64, value: Option<i64>) {
        let known = if self.values.contains_key(&slot) {
            None
        } else {
            value
        };
        self.values.insert(slot, known);
    }
}

/// The slot whose argument element `place` is, when a constant names it.
fn argument_slot(place: &Place, thread_arg: usize) -> Option<i64> {
    match place {
        Place::Index(base, index) if **base == Place::PlainGlobal(thread_arg) => match **index {
            Expr::Const(slot) => Some(slot),
            _ => None,
        },
        _ => None,
    }
}

/// `place = value` for the known constants: a private local takes the
/// value if known; anything else written forgets its local.
fn assign(constants: &mut BTreeMap<LocalId, i64>, place: &Place, value: Option<i64>) {
    match (place, value) {
        (Place::Local(local), Some(value)) => {
            constants.insert(*local, value);
        }
        _ => {
            if let Some(local) = place.root_local() {
                constants.remove(&local);
            }
        }
    }
}

/// Replaces the reads of known argument elements in the values of `body`'s
/// assignments (where a thread copies its argument into its parameter).
fn substitute(body: &mut [SeqStmt], thread_arg: usize, known: &BTreeMap<i64, i64>) {
    for stmt in body {
        match stmt {
            SeqStmt::Assign(_, value) => substitute_expr(value, thread_arg, known),
            SeqStmt::If {
                then_branch,
                else_branch,
                ..
            } => {
                substitute(then_branch, thread_arg, known);
                substitute(else_branch, thread_arg, known);
            }
            _ => {}
        }
    }
}

fn substitute_expr(expr: &mut Expr, thread_arg: usize, known: &BTreeMap<i64, i64>) {
    let mut constant = |e: &mut Expr| {
        if let Expr::Load(place) = e
            && let Some(value) = argument_slot(place, thread_arg).and_then(|slot| known.get(&slot))
        {
            *e = Expr::Const(*value);
        }
    };
    walk::expr_mut(expr, &mut constant, &mut |_| {});
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Ty};

    const ARG: usize = 7;

    fn element(slot: i64) -> Place {
        Place::plain_element(ARG, Expr::Const(slot))
    }

    fn local(id: LocalId) -> Expr {
        Expr::Load(Place::Local(id))
    }

    fn known(bodies: &[Vec<SeqStmt>]) -> BTreeMap<i64, Option<i64>> {
        let mut stored = Stored {
            thread_arg: ARG,
            values: BTreeMap::new(),
            spoiled: false,
        };
        for body in bodies {
            stored.walk(body, &mut BTreeMap::new());
        }
        if stored.spoiled {
            BTreeMap::new()
        } else {
            stored.values
        }
    }

    #[test]
    fn a_constant_stored_by_the_creator_is_known() {
        // i = 0; arg[1] = 1 + i * 11; if (..) { i = 1; arg[2] = 1 + i * 11 }
        let address = || {
            Expr::Binary(
                BinaryOp::Add,
                Box::new(Expr::Const(1)),
                Box::new(Expr::Binary(
                    BinaryOp::Mul,
                    Box::new(local(0)),
                    Box::new(Expr::Const(11)),
                )),
            )
        };
        let body = vec![
            SeqStmt::Assign(Place::Local(0), Expr::Const(0)),
            SeqStmt::Assign(element(1), address()),
            SeqStmt::If {
                condition: Expr::Nondet(Ty::INT),
                then_branch: vec![
                    SeqStmt::Assign(Place::Local(0), Expr::Const(1)),
                    SeqStmt::Assign(element(2), address()),
                ],
                else_branch: vec![],
            },
        ];
        assert_eq!(
            known(&[body]),
            BTreeMap::from([(1, Some(1)), (2, Some(12))])
        );
    }

    #[test]
    fn an_unknown_or_twice_stored_argument_is_not() {
        let body = vec![
            SeqStmt::Assign(element(1), local(3)),
            SeqStmt::Assign(element(2), Expr::Const(5)),
            SeqStmt::Assign(element(2), Expr::Const(5)),
        ];
        assert_eq!(known(&[body]), BTreeMap::from([(1, None), (2, None)]));
        // a branch forgets what only one side knows; a label, everything
        let body = vec![
            SeqStmt::If {
                condition: Expr::Nondet(Ty::INT),
                then_branch: vec![SeqStmt::Assign(Place::Local(0), Expr::Const(1))],
                else_branch: vec![],
            },
            SeqStmt::Assign(element(1), local(0)),
            SeqStmt::Assign(Place::Local(1), Expr::Const(4)),
            SeqStmt::Label(9),
            SeqStmt::Assign(element(2), local(1)),
        ];
        assert_eq!(known(&[body]), BTreeMap::from([(1, None), (2, None)]));
        // a store at an index no constant names spoils all of them
        let body = vec![
            SeqStmt::Assign(element(1), Expr::Const(5)),
            SeqStmt::Assign(Place::plain_element(ARG, local(0)), Expr::Const(6)),
        ];
        assert_eq!(known(&[body]), BTreeMap::new());
    }

    #[test]
    fn the_thread_reads_the_constant() {
        let mut body = vec![SeqStmt::Assign(
            Place::Local(0),
            Expr::Cast(
                Ty::Int {
                    bits: 32,
                    signed: false,
                },
                Box::new(Expr::Load(element(2))),
            ),
        )];
        substitute(&mut body, ARG, &BTreeMap::from([(2, 12)]));
        assert_eq!(
            body,
            vec![SeqStmt::Assign(
                Place::Local(0),
                Expr::Cast(
                    Ty::Int {
                        bits: 32,
                        signed: false
                    },
                    Box::new(Expr::Const(12))
                )
            )]
        );
    }
}
