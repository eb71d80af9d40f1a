//! Random small concurrent programs for the RF-SMC property tests: threads
//! of stores, loads into locals, full fences, fetch-and-adds,
//! compare-and-swaps, one critical section of a mutex and (in
//! [`program_with_choices`]) nondeterministic booleans, created and
//! joined by main, which then loads every shared variable and every
//! thread's locals (published in output variables), so that the final
//! state is read. Printed as C for lazysma, and compiled to instructions
//! for the brute-force explorer.

use proptest::prelude::*;
use std::fmt::Write as _;

/// A value a store writes: a constant, or a local plus a constant.
#[derive(Debug, Clone, Copy)]
pub enum Value {
    Const(i64),
    Local(usize, i64),
}

/// One operation of a worker thread.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    Store {
        var: usize,
        value: Value,
    },
    /// Loads into the thread's next local.
    Load {
        var: usize,
    },
    Fence,
    /// `__sync_fetch_and_add`, the old value into the next local.
    FetchAdd {
        var: usize,
        add: i64,
    },
    /// `__sync_val_compare_and_swap`, the old value into the next local.
    Cas {
        var: usize,
        expected: i64,
        new: i64,
    },
    Lock,
    Unlock,
    /// `__VERIFIER_nondet_bool()` into the next local.
    Choose,
}

impl Op {
    fn defines_local(self) -> bool {
        matches!(
            self,
            Op::Load { .. } | Op::FetchAdd { .. } | Op::Cas { .. } | Op::Choose
        )
    }
}

/// A program: shared variables `v0..`, worker threads `t1..`.
#[derive(Debug, Clone)]
pub struct Program {
    pub vars: usize,
    pub threads: Vec<Vec<Op>>,
}

/// One instruction of the brute-force explorer; locations are the
/// variables, then the mutex, then the output variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Instr {
    Store(usize, Value2),
    Load(usize, usize),
    Fence,
    FetchAdd(usize, i64, usize),
    Cas(usize, i64, i64, usize),
    Lock(usize),
    Unlock(usize),
    /// A nondeterministic 0 or 1 into a local.
    Choose(usize),
    Create(usize),
    Join(usize),
}

/// [`Value`] with a hashable form for instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value2 {
    Const(i64),
    Local(usize, i64),
}

impl Program {
    /// The locals thread `t` (1-based) defines.
    pub fn locals(&self, thread: usize) -> usize {
        self.threads[thread - 1]
            .iter()
            .filter(|op| op.defines_local())
            .count()
    }

    /// The names of the observed locations, in location order (the
    /// variables, then each thread's outputs).
    pub fn observed(&self) -> Vec<String> {
        let mut names: Vec<String> = (0..self.vars).map(|v| format!("v{v}")).collect();
        for thread in 1..=self.threads.len() {
            for local in 0..self.locals(thread) {
                names.push(format!("o{thread}_{local}"));
            }
        }
        names
    }

    fn mutex(&self) -> usize {
        self.vars
    }

    /// The location of thread `t`'s output `k`.
    fn output(&self, thread: usize, local: usize) -> usize {
        let before: usize = (1..thread).map(|t| self.locals(t)).sum();
        self.vars + 1 + before + local
    }

    /// Each thread's instructions (main is thread 0).
    pub fn instructions(&self) -> Vec<Vec<Instr>> {
        let workers = self.threads.len();
        let mut main: Vec<Instr> = (1..=workers).map(Instr::Create).collect();
        main.extend((1..=workers).map(Instr::Join));
        let observed = self.observed().len();
        main.extend((0..observed).map(|at| {
            let location = if at < self.vars { at } else { at + 1 };
            Instr::Load(location, at)
        }));
        let mut all = vec![main];
        for (index, ops) in self.threads.iter().enumerate() {
            let thread = index + 1;
            let mut code = Vec::new();
            let mut next = 0;
            for op in ops {
                code.push(match *op {
                    Op::Store { var, value } => Instr::Store(
                        var,
                        match value {
                            Value::Const(c) => Value2::Const(c),
                            Value::Local(k, c) => Value2::Local(k, c),
                        },
                    ),
                    Op::Load { var } => Instr::Load(var, next),
                    Op::Fence => Instr::Fence,
                    Op::FetchAdd { var, add } => Instr::FetchAdd(var, add, next),
                    Op::Cas { var, expected, new } => Instr::Cas(var, expected, new, next),
                    Op::Lock => Instr::Lock(self.mutex()),
                    Op::Unlock => Instr::Unlock(self.mutex()),
                    Op::Choose => Instr::Choose(next),
                });
                next += usize::from(op.defines_local());
            }
            for local in 0..next {
                code.push(Instr::Store(
                    self.output(thread, local),
                    Value2::Local(local, 0),
                ));
            }
            all.push(code);
        }
        all
    }

    /// The program as C.
    pub fn c_text(&self) -> String {
        let mut c = String::from("#include <pthread.h>\n\n_Bool __VERIFIER_nondet_bool(void);\n\n");
        for name in self.observed() {
            let _ = writeln!(c, "int {name};");
        }
        c.push_str("pthread_mutex_t m;\n\n");
        for (index, ops) in self.threads.iter().enumerate() {
            let thread = index + 1;
            let _ = writeln!(c, "void *t{thread}(void *arg) {{");
            let locals = self.locals(thread);
            for local in 0..locals {
                let _ = writeln!(c, "  int r{local} = 0;");
            }
            let mut next = 0;
            for op in ops {
                let line = match *op {
                    Op::Store { var, value } => match value {
                        Value::Const(k) => format!("v{var} = {k};"),
                        Value::Local(l, k) => format!("v{var} = r{l} + {k};"),
                    },
                    Op::Load { var } => format!("r{next} = v{var};"),
                    Op::Fence => "__sync_synchronize();".into(),
                    Op::FetchAdd { var, add } => {
                        format!("r{next} = __sync_fetch_and_add(&v{var}, {add});")
                    }
                    Op::Cas { var, expected, new } => format!(
                        "r{next} = __sync_val_compare_and_swap(&v{var}, {expected}, {new});"
                    ),
                    Op::Lock => "pthread_mutex_lock(&m);".into(),
                    Op::Unlock => "pthread_mutex_unlock(&m);".into(),
                    Op::Choose => format!("r{next} = __VERIFIER_nondet_bool();"),
                };
                next += usize::from(op.defines_local());
                let _ = writeln!(c, "  {line}");
            }
            for local in 0..locals {
                let _ = writeln!(c, "  o{thread}_{local} = r{local};");
            }
            c.push_str("  return 0;\n}\n\n");
        }
        c.push_str("int main(void) {\n");
        let workers = self.threads.len();
        for thread in 1..=workers {
            let _ = writeln!(c, "  pthread_t h{thread};");
        }
        for thread in 1..=workers {
            let _ = writeln!(c, "  pthread_create(&h{thread}, 0, t{thread}, 0);");
        }
        for thread in 1..=workers {
            let _ = writeln!(c, "  pthread_join(h{thread}, 0);");
        }
        for (at, name) in self.observed().iter().enumerate() {
            let _ = writeln!(c, "  int f{at} = {name};");
        }
        c.push_str("  return 0;\n}\n");
        c
    }
}

fn op(vars: usize) -> impl Strategy<Value = Op> {
    let value = prop_oneof![
        (1i64..4).prop_map(Value::Const),
        (0usize..4, 0i64..3).prop_map(|(k, c)| Value::Local(k, c)),
    ];
    prop_oneof![
        3 => (0..vars, value).prop_map(|(var, value)| Op::Store { var, value }),
        3 => (0..vars).prop_map(|var| Op::Load { var }),
        1 => Just(Op::Fence),
        1 => (0..vars, 1i64..3).prop_map(|(var, add)| Op::FetchAdd { var, add }),
        1 => (0..vars, 0i64..3, 1i64..4)
            .prop_map(|(var, expected, new)| Op::Cas { var, expected, new }),
    ]
}

/// A worker: its operations, a store's local taken among those defined
/// before it, and maybe one critical section around some of them.
fn thread(vars: usize, most: usize) -> impl Strategy<Value = Vec<Op>> {
    (
        prop::collection::vec(op(vars), 1..=most),
        prop::option::weighted(0.3, (0usize..8, 0usize..8)),
    )
        .prop_map(|(ops, section)| {
            let mut defined = 0;
            let mut fixed: Vec<Op> = ops
                .into_iter()
                .map(|op| {
                    let op = match op {
                        Op::Store {
                            var,
                            value: Value::Local(k, c),
                        } => Op::Store {
                            var,
                            value: if defined == 0 {
                                Value::Const(c + 1)
                            } else {
                                Value::Local(k % defined, c)
                            },
                        },
                        other => other,
                    };
                    defined += usize::from(op.defines_local());
                    op
                })
                .collect();
            if let Some((a, b)) = section {
                let len = fixed.len();
                let (start, end) = (a % (len + 1), b % (len + 1));
                let (start, end) = (start.min(end), start.max(end));
                fixed.insert(end, Op::Unlock);
                fixed.insert(start, Op::Lock);
            }
            fixed
        })
}

/// Programs of 2 to 4 workers over 2 or 3 variables; about a third of
/// them are contended: 3 or 4 workers that each do an atomic operation on
/// `v0` or take the mutex, where RMW chains and critical sections of
/// three or more threads must be ordered every way.
pub fn program() -> impl Strategy<Value = Program> {
    prop_oneof![2 => mixed(), 1 => contended()]
}

/// Programs of 2 to 4 workers over 2 or 3 variables, of random operations.
fn mixed() -> impl Strategy<Value = Program> {
    (2usize..=3, 2usize..=4).prop_flat_map(|(vars, workers)| {
        let most = if workers == 2 { 4 } else { 3 };
        prop::collection::vec(thread(vars, most), workers)
            .prop_map(move |threads| Program { vars, threads })
    })
}

/// An atomic operation on `v0`, or a critical section (`None`).
fn atomic() -> impl Strategy<Value = Option<Op>> {
    prop_oneof![
        2 => (1i64..3).prop_map(|add| Some(Op::FetchAdd { var: 0, add })),
        2 => (0i64..3, 1i64..4)
            .prop_map(|(expected, new)| Some(Op::Cas { var: 0, expected, new })),
        1 => Just(None),
    ]
}

/// Programs of 3 or 4 workers over 2 variables: in each worker one
/// atomic operation on `v0` or a critical section, at a random place among
/// at most 2 (with 4 workers 1) random operations.
fn contended() -> impl Strategy<Value = Program> {
    (3usize..=4).prop_flat_map(|workers| {
        let most = if workers == 3 { 2 } else { 1 };
        let worker = (thread(2, most), atomic(), 0usize..4).prop_map(|(mut ops, atomic, at)| {
            ops.retain(|op| !matches!(op, Op::Lock | Op::Unlock));
            let at = at % (ops.len() + 1);
            match atomic {
                Some(op) => ops.insert(at, op),
                None => {
                    ops.insert(at, Op::Unlock);
                    ops.insert(at / 2, Op::Lock);
                }
            }
            ops
        });
        prop::collection::vec(worker, workers).prop_map(|threads| Program { vars: 2, threads })
    })
}

/// [`program`]s with one or two nondeterministic booleans inserted at
/// random places of random workers (later stores may write them).
pub fn program_with_choices() -> impl Strategy<Value = Program> {
    (
        program(),
        prop::collection::vec((0usize..4, 0usize..5), 1..=2),
    )
        .prop_map(|(mut program, places)| {
            for (worker, at) in places {
                let workers = program.threads.len();
                let ops = &mut program.threads[worker % workers];
                let at = at % (ops.len() + 1);
                ops.insert(at, Op::Choose);
            }
            program
        })
}
