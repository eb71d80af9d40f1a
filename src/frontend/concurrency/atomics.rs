//! Atomic operations: C11 `atomic_*`, GCC's `__sync_*` and `__atomic_*`
//! read-modify-writes, loads, stores and compare-exchanges, with the
//! fences their memory orders ask for.

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{ACQ_REL, FnLowerer, LResult, MemoryOrder, RELEASE, SEQ_CST, binary};
use crate::frontend::values::{Val, floating_bits, memory_type};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};

/// Which read-modify-write a builtin name denotes.
pub(in crate::frontend) enum Atomic {
    /// Returns the old value (`fetch_op`), or the new one (`op_fetch`).
    Fetch {
        op: RmwConstructor,
        binary: BinaryOp,
        returns_new: bool,
    },
    /// `~(old & operand)`, which no RMW operation of the SMA computes: a
    /// compare-and-swap of a guessed old value.
    FetchNand {
        returns_new: bool,
    },
    /// `generic`: GCC's `__atomic_exchange(p, &value, &old, order)`.
    Exchange {
        generic: bool,
    },
    /// C11-style CAS with an `expected` pointer written back on failure;
    /// `generic`: GCC's `__atomic_compare_exchange`, whose desired value
    /// is behind a pointer too.
    CompareExchangePointer {
        generic: bool,
    },
    /// `__sync_bool_compare_and_swap` (returns success) / `_val_` (returns old).
    CompareAndSwap {
        returns_old: bool,
    },
    /// `generic`: GCC's `__atomic_load(p, &result, order)`.
    Load {
        generic: bool,
    },
    /// `generic`: GCC's `__atomic_store(p, &value, order)`.
    Store {
        order_argument: Option<usize>,
        generic: bool,
    },
    Init,
    FlagTestAndSet,
    FlagClear {
        order_argument: Option<usize>,
    },
    LockRelease,
}

/// What a compare-and-swap gives its caller: the value it found in the
/// object's type, and whether it swapped (for a floating object, whether
/// the bits were equal, as C11 compares representations).
pub(in crate::frontend) struct CompareExchange {
    pub(in crate::frontend) old: Expr,
    pub(in crate::frontend) succeeded: Expr,
}

/// The desired value of a compare-and-swap argument: the argument's value,
/// or the value it points to.
pub(in crate::frontend) enum Desired<'a> {
    Value(&'a Node<Expression>),
    Pointee(&'a Node<Expression>),
}

/// Builds the RMW operation from its operand.
pub(in crate::frontend) type RmwConstructor = fn(Expr) -> RmwOp;

pub(in crate::frontend) fn fetch_op(op: &str) -> Option<(RmwConstructor, BinaryOp)> {
    Some(match op {
        "add" => (RmwOp::FetchAdd as RmwConstructor, BinaryOp::Add),
        "sub" => (RmwOp::FetchSub, BinaryOp::Sub),
        "and" => (RmwOp::FetchAnd, BinaryOp::BitAnd),
        "or" => (RmwOp::FetchOr, BinaryOp::BitOr),
        "xor" => (RmwOp::FetchXor, BinaryOp::BitXor),
        _ => return None,
    })
}

/// Spellings of the fetch-and-op builtins, tried in order: (prefix, suffix,
/// matched against the name without `_explicit`, returns the new value).
pub(in crate::frontend) const FETCH_SPELLINGS: [(&str, &str, bool, bool); 5] = [
    ("atomic_fetch_", "", true, false),
    ("__sync_fetch_and_", "", false, false),
    ("__sync_", "_and_fetch", false, true),
    ("__atomic_fetch_", "", false, false),
    ("__atomic_", "_fetch", false, true),
];

pub(in crate::frontend) fn atomic_builtin(name: &str) -> Option<Atomic> {
    let explicit = name.ends_with("_explicit");
    let base = name.trim_end_matches("_explicit");
    for &(prefix, suffix, subject_is_base, returns_new) in &FETCH_SPELLINGS {
        let subject = if subject_is_base { base } else { name };
        if let Some(op) = subject
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix))
        {
            if op == "nand" {
                return Some(Atomic::FetchNand { returns_new });
            }
            let (op, binary) = fetch_op(op)?;
            return Some(Atomic::Fetch {
                op,
                binary,
                returns_new,
            });
        }
    }
    Some(match base {
        "atomic_exchange" | "__atomic_exchange_n" | "__sync_lock_test_and_set" => {
            Atomic::Exchange { generic: false }
        }
        "__atomic_exchange" => Atomic::Exchange { generic: true },
        "atomic_compare_exchange_strong"
        | "atomic_compare_exchange_weak"
        | "__atomic_compare_exchange_n" => Atomic::CompareExchangePointer { generic: false },
        "__atomic_compare_exchange" => Atomic::CompareExchangePointer { generic: true },
        "__sync_bool_compare_and_swap" => Atomic::CompareAndSwap { returns_old: false },
        "__sync_val_compare_and_swap" => Atomic::CompareAndSwap { returns_old: true },
        "atomic_load" | "__atomic_load_n" => Atomic::Load { generic: false },
        "__atomic_load" => Atomic::Load { generic: true },
        "atomic_store" => Atomic::Store {
            order_argument: explicit.then_some(2),
            generic: false,
        },
        "__atomic_store_n" | "__atomic_store" => Atomic::Store {
            order_argument: Some(2),
            generic: base == "__atomic_store",
        },
        "atomic_init" => Atomic::Init,
        "atomic_flag_test_and_set" | "__atomic_test_and_set" => Atomic::FlagTestAndSet,
        "atomic_flag_clear" => Atomic::FlagClear {
            order_argument: explicit.then_some(1),
        },
        "__atomic_clear" => Atomic::FlagClear {
            order_argument: Some(1),
        },
        "__sync_lock_release" => Atomic::LockRelease,
        _ => return None,
    })
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// The memory order of an optional argument (seq_cst when absent or unknown).
    /// The memory order an argument gives: `seq_cst` when there is none, its
    /// value when the translator can evaluate it, else the value the program
    /// computes (a wrapper's `memory_order` parameter: the fences it implies
    /// are then chosen when the program runs).
    pub(in crate::frontend) fn order(
        &mut self,
        argument: Option<&'a Node<Expression>>,
    ) -> LResult<MemoryOrder> {
        let Some(argument) = argument else {
            return Ok(MemoryOrder::Known(SEQ_CST));
        };
        if let Some(order) = self.lw.types.const_eval(argument) {
            return Ok(MemoryOrder::Known(order));
        }
        let order = self.rvalue(argument)?;
        Ok(MemoryOrder::Computed(self.save(order.expr, &CType::INT)))
    }

    /// Emits a fence of `kind` where `order` is one of `orders`.
    pub(in crate::frontend) fn fence_where_order_is(
        &mut self,
        order: &MemoryOrder,
        orders: &[i64],
        kind: FenceKind,
    ) -> LResult<()> {
        match order {
            MemoryOrder::Known(order) => {
                if orders.contains(order) {
                    self.emit(StmtKind::Fence(kind));
                }
            }
            MemoryOrder::Computed(order) => {
                let condition = orders
                    .iter()
                    .map(|&o| binary(BinaryOp::Eq, order.clone(), Expr::Const(o)))
                    .reduce(|any, test| binary(BinaryOp::LogicalOr, any, test))
                    .unwrap_or(Expr::Const(0));
                let (fence, ()) = self.in_block(|f| {
                    f.emit(StmtKind::Fence(kind));
                    Ok(())
                })?;
                self.emit(StmtKind::If {
                    condition,
                    then_branch: fence,
                    else_branch: Vec::new(),
                });
            }
        }
        Ok(())
    }

    /// x86 mapping of fences: seq_cst drains, release/acq_rel order stores
    /// (a no-op under TSO, a store-store fence under PSO), others are free.
    pub(in crate::frontend) fn fence_for_order(&mut self, order: &MemoryOrder) -> LResult<()> {
        self.fence_where_order_is(order, &[SEQ_CST], FenceKind::Full)?;
        self.fence_where_order_is(order, &[RELEASE, ACQ_REL], FenceKind::StoreStore)
    }

    /// A store with a memory order, x86 mapping: release and seq_cst order
    /// the thread's earlier stores before it (a store-store fence, which
    /// matters under PSO only), seq_cst drains the buffers after it.
    pub fn ordered_store(
        &mut self,
        address: Expr,
        value: Expr,
        ty: &CType,
        order: &MemoryOrder,
    ) -> LResult<()> {
        self.fence_where_order_is(order, &[SEQ_CST, RELEASE, ACQ_REL], FenceKind::StoreStore)?;
        self.write_shared(address, value, ty);
        self.fence_where_order_is(order, &[SEQ_CST], FenceKind::Full)
    }

    pub(in crate::frontend) fn atomic(
        &mut self,
        kind: Atomic,
        arguments: &'a [Node<Expression>],
        span: Span,
        name: &str,
    ) -> LResult<Val> {
        let needed = match kind {
            Atomic::Load { generic: false }
            | Atomic::FlagTestAndSet
            | Atomic::FlagClear { .. }
            | Atomic::LockRelease => 1,
            Atomic::CompareExchangePointer { .. }
            | Atomic::CompareAndSwap { .. }
            | Atomic::Exchange { generic: true } => 3,
            _ => 2,
        };
        if arguments.len() < needed {
            return self.lw.error(
                span,
                format!("`{name}` needs {needed} arguments"),
                "too few arguments",
            );
        }
        let pointer = self.rvalue(&arguments[0])?;
        let ty = match pointer.ty.target() {
            Some(t) if t.is_scalar() => t.clone(),
            _ => CType::INT,
        };
        let read_modify_write = matches!(
            kind,
            Atomic::Fetch { .. }
                | Atomic::FetchNand { .. }
                | Atomic::Exchange { .. }
                | Atomic::CompareExchangePointer { .. }
                | Atomic::CompareAndSwap { .. }
        );
        if matches!(ty, CType::Float(_)) {
            // C11 compares and swaps an object's representation: a
            // floating exchange or compare-and-swap works on the bits
            if matches!(kind, Atomic::Fetch { .. } | Atomic::FetchNand { .. }) {
                return self.lw.error(
                    span,
                    format!("`{name}` of a floating value"),
                    "C's fetch-and-op takes integers and pointers",
                );
            }
            // as gcc: its `__sync_*` and `__atomic_*_n` builtins take
            // integers and pointers only, the generic ones any type
            if read_modify_write && (name.starts_with("__sync_") || name.ends_with("_n")) {
                return Err(Box::new(self.lw.source.diagnostic(
                    span.start,
                    span.end,
                    format!("`{name}` of a floating value"),
                    "gcc's builtin takes integers and pointers".to_string(),
                    Some("use C11's atomic_exchange or atomic_compare_exchange_* on an `_Atomic` object".to_string()),
                )));
            }
            self.lw.shared_float_fits(&ty, span)?;
        }
        let address = self.lw.location_of(pointer.expr);
        self.note_pointer_base(&address, &pointer.ty, arguments[0].span);
        match kind {
            Atomic::Fetch {
                binary: operator,
                returns_new,
                ..
            } if read_modify_write && self.wider_than_shared_memory(&ty) => {
                // the SMA would compute the new value as an int: compute it
                // in the object's type and write it by compare-and-swap
                let operand = self.rvalue(&arguments[1])?.expr;
                let operand = self.save(operand, &ty);
                let (old, new) = self.atomic_update(address, &ty, span, |_, old| {
                    Ok(Val {
                        expr: Expr::Binary(operator, Box::new(old.expr), Box::new(operand)),
                        ty: old.ty,
                    })
                })?;
                Ok(if returns_new { new } else { old })
            }
            Atomic::Fetch {
                op,
                binary: operator,
                returns_new,
            } => {
                let operand = self.rvalue(&arguments[1])?.expr;
                let operand = self.save(operand, &ty);
                let old = self.temp(&ty);
                self.note_access_type(&ty);
                self.emit(StmtKind::Rmw {
                    target: Some(Place::Local(old)),
                    address,
                    op: op(operand.clone()),
                });
                let old = Expr::Load(Place::Local(old));
                let expr = if returns_new {
                    Expr::Binary(operator, Box::new(old), Box::new(operand))
                } else {
                    old
                };
                Ok(Val { expr, ty })
            }
            Atomic::FetchNand { returns_new } => {
                let operand = self.rvalue(&arguments[1])?;
                let operand = Val {
                    expr: self.save(operand.expr, &operand.ty),
                    ty: operand.ty,
                };
                let (old, new) = self.atomic_update(address, &ty, span, |f, old| {
                    let both = f.arithmetic(&BinaryOperator::BitwiseAnd, old, operand, span)?;
                    Ok(Val {
                        expr: Expr::Unary(UnaryOp::BitNot, Box::new(both.expr)),
                        ty: both.ty,
                    })
                })?;
                Ok(if returns_new { new } else { old })
            }
            Atomic::Exchange { .. } | Atomic::FlagTestAndSet => {
                let value = match kind {
                    Atomic::FlagTestAndSet => Expr::Const(1),
                    Atomic::Exchange { generic: true } => {
                        let value = self.pointee(&arguments[1])?;
                        self.floating_operand(value, &ty, span)?
                    }
                    _ => {
                        let value = self.rvalue(&arguments[1])?;
                        self.floating_operand(value, &ty, span)?
                    }
                };
                let value = self.cut_off_unless_shared_memory_holds(value, &ty);
                let old = self.temp(&memory_type(&ty));
                self.note_access_type(&ty);
                self.emit(StmtKind::Rmw {
                    target: Some(Place::Local(old)),
                    address,
                    op: RmwOp::Exchange(value),
                });
                let old = Val {
                    expr: self.value_from_memory(Expr::Load(Place::Local(old)), &ty),
                    ty,
                };
                if let Atomic::Exchange { generic: true } = kind {
                    let result = self.pointer_argument(&arguments[2])?;
                    self.store(&result, old, span)?;
                    return Ok(Val::void());
                }
                Ok(old)
            }
            Atomic::CompareAndSwap { returns_old } => {
                let expected = self.rvalue(&arguments[1])?;
                let swap = self.compare_exchange(
                    address,
                    expected,
                    Desired::Value(&arguments[2]),
                    &ty,
                    span,
                )?;
                if returns_old {
                    Ok(Val { expr: swap.old, ty })
                } else {
                    Ok(Val {
                        expr: swap.succeeded,
                        ty: CType::Bool,
                    })
                }
            }
            Atomic::CompareExchangePointer { generic } => {
                let expected_object = self.pointer_argument(&arguments[1])?;
                let expected = self.load(expected_object.clone(), arguments[1].span)?;
                let desired = if generic {
                    Desired::Pointee(&arguments[2])
                } else {
                    Desired::Value(&arguments[2])
                };
                let CompareExchange { old, succeeded } =
                    self.compare_exchange(address, expected, desired, &ty, span)?;
                let success = self.temp(&CType::Bool);
                self.emit(StmtKind::Assign(Place::Local(success), succeeded));
                let (write_back, _) = self.in_block(|f| {
                    f.store(
                        &expected_object,
                        Val {
                            expr: old,
                            ty: ty.clone(),
                        },
                        span,
                    )
                })?;
                self.emit(StmtKind::If {
                    condition: Expr::Binary(
                        BinaryOp::Eq,
                        Box::new(Expr::Load(Place::Local(success))),
                        Box::new(Expr::Const(0)),
                    ),
                    then_branch: write_back,
                    else_branch: Vec::new(),
                });
                Ok(Val {
                    expr: Expr::Load(Place::Local(success)),
                    ty: CType::Bool,
                })
            }
            Atomic::Load { generic: false } => Ok(self.read_shared(address, ty)),
            Atomic::Load { generic: true } => {
                let value = self.read_shared(address, ty);
                let result = self.pointer_argument(&arguments[1])?;
                self.store(&result, value, span)?;
                Ok(Val::void())
            }
            Atomic::Store { order_argument, .. } | Atomic::FlagClear { order_argument } => {
                let value = match kind {
                    Atomic::FlagClear { .. } => Expr::Const(0),
                    Atomic::Store { generic: true, .. } => self.pointee(&arguments[1])?.expr,
                    _ => self.rvalue(&arguments[1])?.expr,
                };
                let order = self.order(order_argument.and_then(|k| arguments.get(k)))?;
                self.ordered_store(address, value, &ty, &order)?;
                Ok(Val::void())
            }
            Atomic::Init => {
                let value = self.rvalue(&arguments[1])?.expr;
                self.write_shared(address, value, &ty);
                Ok(Val::void())
            }
            Atomic::LockRelease => {
                self.emit(StmtKind::Fence(FenceKind::StoreStore));
                self.note_access_type(&ty);
                self.emit(StmtKind::Write {
                    address,
                    value: Expr::Const(0),
                });
                Ok(Val::void())
            }
        }
    }

    /// Whether an object of type `ty` holds values that shared memory does
    /// not: a 64-bit object up to `--bitwidth 32`, where shared memory holds
    /// an `int` and the SMA computes an RMW's new value as one (sma_wide_t).
    pub(in crate::frontend) fn wider_than_shared_memory(&self, ty: &CType) -> bool {
        matches!(ty, CType::Int { bits, .. } if *bits > 32 && self.lw.value_bits <= 32)
    }

    /// `value`, an operand an RMW of an object of type `ty` writes or
    /// compares: on an object wider than shared memory, saved and cut off
    /// unless shared memory holds it, as a store of it is.
    pub(in crate::frontend) fn cut_off_unless_shared_memory_holds(
        &mut self,
        value: Expr,
        ty: &CType,
    ) -> Expr {
        if !self.wider_than_shared_memory(ty) {
            return value;
        }
        let value = self.save(value, ty);
        self.cut_off_wider_than_shared_memory(&value, ty);
        value
    }

    /// Emits a compare-and-swap at `address`: `expected` (saved first, so
    /// that it is evaluated once) against the old value, `desired` (lowered
    /// after it) written on a match. Returns the old value and the saved
    /// expected value. On a 64-bit object up to `--bitwidth 32`, an
    /// expected or desired value that no `int` holds cuts the execution
    /// off, as a store of it does (the SMA compares and writes `int`s).
    pub(in crate::frontend) fn compare_exchange(
        &mut self,
        address: Expr,
        expected: Val,
        desired: Desired<'a>,
        ty: &CType,
        span: Span,
    ) -> LResult<CompareExchange> {
        // memory's type: a floating object's bits are compared and swapped
        let stored = memory_type(ty);
        let expected = self.floating_operand(expected, ty, span)?;
        let expected = self.save(expected, &stored);
        let desired = match desired {
            Desired::Value(value) => self.rvalue(value)?,
            Desired::Pointee(pointer) => self.pointee(pointer)?,
        };
        let desired = self.floating_operand(desired, ty, span)?;
        Ok(self.emit_compare_exchange(address, expected, desired, ty))
    }

    /// Emits the compare-and-swap of `expected` (already saved) by
    /// `desired` at `address`, on an object of `ty`: each value cut off
    /// where shared memory does not hold it, the old value in a temporary.
    /// Shared by the C atomics and x86's `lock cmpxchg`.
    pub(in crate::frontend) fn emit_compare_exchange(
        &mut self,
        address: Expr,
        expected: Expr,
        desired: Expr,
        ty: &CType,
    ) -> CompareExchange {
        let expected = self.cut_off_unless_shared_memory_holds(expected, ty);
        let desired = self.cut_off_unless_shared_memory_holds(desired, ty);
        let old = self.temp(&memory_type(ty));
        self.note_access_type(ty);
        self.emit(StmtKind::Rmw {
            target: Some(Place::Local(old)),
            address,
            op: RmwOp::CompareExchange {
                expected: expected.clone(),
                desired,
            },
        });
        let old = Expr::Load(Place::Local(old));
        CompareExchange {
            succeeded: Expr::Binary(BinaryOp::Eq, Box::new(old.clone()), Box::new(expected)),
            old: self.value_from_memory(old, ty),
        }
    }

    /// An operand that an exchange or compare-and-swap of an object of
    /// type `ty` writes or compares: for a floating object the bits of the
    /// value converted to its type, any other operand as it is.
    pub(in crate::frontend) fn floating_operand(
        &mut self,
        value: Val,
        ty: &CType,
        span: Span,
    ) -> LResult<Expr> {
        if floating_bits(ty).is_none() {
            return Ok(value.expr);
        }
        let converted = self.convert(value, ty, span)?;
        Ok(self.to_memory(converted, ty))
    }
}
