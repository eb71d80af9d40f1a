//! Calls: user functions, the pthread API (its synchronisation objects
//! beside mutexes in `sync_objects.rs`), verification builtins
//! (`__VERIFIER_*`, `assert`, `reach_error`), fences, read-modify-writes
//! (C11 `atomic_*`, `__sync_*`, `__atomic_*`), heap allocation and inline
//! assembly fences.

use super::bit_builtins;
use super::c11_threads;
use super::lower::{ACQ_REL, FnLowerer, LResult, MemoryOrder, RELEASE, SEQ_CST, binary};
use super::math_builtins;
use super::scan::uncast;
use super::sync_objects;
use super::thread_specific;
use super::types::{CType, truncate};
use super::values::{LVal, Val, floating_bits, memory_type};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};

/// `PTHREAD_MUTEX_NORMAL` (= `PTHREAD_MUTEX_DEFAULT`) of glibc.
const PTHREAD_MUTEX_NORMAL: i64 = 0;

/// Library calls with no effect on the checked behaviour.
const IGNORED: &[&str] = &[
    "printf",
    "fprintf",
    "vprintf",
    "vfprintf",
    "vdprintf",
    "syslog",
    "vsyslog",
    // a variadic function's own list: its body cannot read the arguments
    // (`va_arg` is refused), so starting and ending the list does nothing
    "__builtin_va_start",
    "__builtin_va_end",
    "__builtin_va_copy",
    "puts",
    "putchar",
    "fputs",
    "fflush",
    "perror",
    "sleep",
    "usleep",
    "nanosleep",
    "sched_yield",
    "pthread_yield",
    "pthread_mutex_destroy",
    "pthread_attr_init",
    "pthread_attr_destroy",
    "pthread_attr_setdetachstate",
    "pthread_mutexattr_init",
    "pthread_mutexattr_destroy",
    "srand",
    "setbuf",
    "setvbuf",
    "atomic_signal_fence",
    "__atomic_signal_fence",
    "__builtin_expect_no_effect",
    // hints to the processor, no effect on memory
    "__builtin_prefetch",
    "__builtin_ia32_pause",
    "pthread_detach",
];

/// Functions that always mean their builtin, even when the program defines them.
pub fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "reach_error"
            | "__VERIFIER_error"
            | "__VERIFIER_assert"
            | "__VERIFIER_assume"
            | "assume_abort_if_not"
            | "__CPROVER_assume"
            | "__CPROVER_assert"
            | "__VERIFIER_atomic_begin"
            | "__VERIFIER_atomic_end"
            | "assert"
            | "abort"
            | "exit"
    ) || name.starts_with("__VERIFIER_nondet_")
}

/// Which read-modify-write a builtin name denotes.
enum Atomic {
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
struct CompareExchange {
    old: Expr,
    succeeded: Expr,
}

/// The desired value of a compare-and-swap argument: the argument's value,
/// or the value it points to.
enum Desired<'a> {
    Value(&'a Node<Expression>),
    Pointee(&'a Node<Expression>),
}

/// Builds the RMW operation from its operand.
type RmwConstructor = fn(Expr) -> RmwOp;

fn fetch_op(op: &str) -> Option<(RmwConstructor, BinaryOp)> {
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
const FETCH_SPELLINGS: [(&str, &str, bool, bool); 5] = [
    ("atomic_fetch_", "", true, false),
    ("__sync_fetch_and_", "", false, false),
    ("__sync_", "_and_fetch", false, true),
    ("__atomic_fetch_", "", false, false),
    ("__atomic_", "_fetch", false, true),
];

fn atomic_builtin(name: &str) -> Option<Atomic> {
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

/// The type a `__VERIFIER_nondet_*` function returns.
fn nondet_type(suffix: &str) -> Option<CType> {
    Some(match suffix {
        "int" => CType::INT,
        "uint" | "unsigned" | "unsigned_int" => CType::UINT,
        "bool" | "_Bool" => CType::Bool,
        "char" => CType::CHAR,
        "uchar" | "unsigned_char" => CType::Int {
            bits: 8,
            signed: false,
        },
        "short" => CType::Int {
            bits: 16,
            signed: true,
        },
        "ushort" | "unsigned_short" => CType::Int {
            bits: 16,
            signed: false,
        },
        "long" | "longlong" | "long_long" => CType::LONG,
        "ulong" | "ulonglong" | "size_t" | "unsigned_long" => CType::Int {
            bits: 64,
            signed: false,
        },
        "loff_t" => CType::LONG,
        // any value of the type, NaNs and infinities included
        "float" => CType::Float(4),
        "double" => CType::Float(8),
        _ => return None,
    })
}

/// Whether evaluating `e` changes anything: a call, an assignment, `++` or
/// `--` in it.
fn has_side_effects(e: &Node<Expression>) -> bool {
    match &e.node {
        Expression::Call(_) | Expression::CompoundLiteral(_) | Expression::Statement(_) => true,
        Expression::UnaryOperator(u) => {
            matches!(
                u.node.operator.node,
                UnaryOperator::PreIncrement
                    | UnaryOperator::PreDecrement
                    | UnaryOperator::PostIncrement
                    | UnaryOperator::PostDecrement
            ) || has_side_effects(&u.node.operand)
        }
        Expression::BinaryOperator(b) => {
            let operator = &b.node.operator.node;
            *operator == BinaryOperator::Assign
                || super::lower_expr::compound_assignment(operator).is_some()
                || has_side_effects(&b.node.lhs)
                || has_side_effects(&b.node.rhs)
        }
        Expression::Conditional(c) => {
            has_side_effects(&c.node.condition)
                || has_side_effects(&c.node.then_expression)
                || has_side_effects(&c.node.else_expression)
        }
        Expression::Cast(c) => has_side_effects(&c.node.expression),
        Expression::Comma(items) => items.iter().any(has_side_effects),
        Expression::Member(m) => has_side_effects(&m.node.expression),
        _ => false,
    }
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Lowers a call expression.
    pub fn call(&mut self, call: &'a Node<CallExpression>, span: Span) -> LResult<Val> {
        let arguments = &call.node.arguments;
        let callee = match &uncast(&call.node.callee).node {
            Expression::Identifier(callee)
                if self.lookup(&callee.node.name).is_none()
                    && !self.lw.globals.contains_key(&callee.node.name) =>
            {
                callee
            }
            _ => return self.pointer_call(&call.node.callee, arguments, span),
        };
        let name = callee.node.name.as_str();
        if !is_builtin(name)
            && let Some(&function) = self.lw.functions.get(name)
        {
            return self.user_call(function, name, arguments, span);
        }
        let name = c11_threads::pthread_equivalent(name).unwrap_or(name);
        if let Some(result) = self.c11_thread_call(name, arguments, span) {
            return result;
        }
        let argument = |k: usize| -> LResult<&'a Node<Expression>> {
            arguments.get(k).ok_or_else(|| {
                Box::new(self.lw.source.diagnostic(
                    span.start,
                    span.end,
                    format!("`{name}` needs at least {} argument(s)", k + 1),
                    "too few arguments",
                    None,
                ))
            })
        };
        if let Some(kind) = atomic_builtin(name) {
            return self.atomic(kind, arguments, span, name);
        }
        if let Some(suffix) = name.strip_prefix("__VERIFIER_nondet_") {
            let Some(ty) = nondet_type(suffix) else {
                return self.lw.refuse(
                    span,
                    format!("`{name}`"),
                    Some("use __VERIFIER_nondet_int"),
                );
            };
            let temp = self.temp(&ty);
            let ir_ty = self.lw.types.ir_type(&ty);
            self.emit(StmtKind::Assign(Place::Local(temp), Expr::Nondet(ir_ty)));
            return Ok(Val {
                expr: Expr::Load(Place::Local(temp)),
                ty,
            });
        }
        match name {
            "pthread_create" => self.thread_create(arguments, span),
            // any number glibc's generators may give: 0 to RAND_MAX; the
            // seed is the generator's own business
            "rand" | "random" | "rand_r" => {
                for argument in arguments {
                    self.rvalue(argument)?;
                }
                let temp = self.temp(&CType::INT);
                self.emit(StmtKind::Assign(Place::Local(temp), Expr::Nondet(Ty::INT)));
                let value = Expr::Load(Place::Local(temp));
                self.emit(StmtKind::Assume(binary(BinaryOp::Ge, value.clone(), Expr::Const(0))));
                Ok(Val { expr: value, ty: CType::INT })
            }
            "srand" | "srandom" => {
                for argument in arguments {
                    self.rvalue(argument)?;
                }
                Ok(Val::void())
            }
            // A thread's handle is its slot (`pthread_create` stores it).
            "pthread_self" => Ok(Val { expr: Expr::CurrentThread, ty: CType::ThreadHandle }),
            "pthread_equal" => {
                let (first, second) = (self.rvalue(argument(0)?)?, self.rvalue(argument(1)?)?);
                Ok(Val { expr: binary(BinaryOp::Eq, first.expr, second.expr), ty: CType::INT })
            }
            "pthread_join" => self.join(argument(0)?, arguments.get(1), false),
            "pthread_exit" => {
                let value = match arguments.first() {
                    Some(a) => Some(self.rvalue(a)?.expr),
                    None => None,
                };
                self.emit(StmtKind::ThreadExit(value));
                Ok(Val::void())
            }
            // A spin lock is a mutex that waits by spinning: the same
            // executions (both synchronise memory).
            "pthread_mutex_lock" | "pthread_mutex_unlock" | "pthread_mutex_init" | "pthread_spin_lock"
            | "pthread_spin_unlock" | "pthread_spin_init" => {
                let mutex = self.rvalue(argument(0)?)?;
                let mutex = self.lw.location_of(mutex.expr);
                self.emit(match name {
                    "pthread_mutex_lock" | "pthread_spin_lock" => StmtKind::MutexLock(mutex),
                    "pthread_mutex_unlock" | "pthread_spin_unlock" => StmtKind::MutexUnlock(mutex),
                    _ => StmtKind::Write {
                        address: mutex,
                        value: Expr::Const(0),
                    },
                });
                Ok(Val::int(0))
            }
            "__VERIFIER_atomic_begin" => {
                self.emit(StmtKind::AtomicBegin);
                Ok(Val::void())
            }
            "__VERIFIER_atomic_end" => {
                self.emit(StmtKind::AtomicEnd);
                Ok(Val::void())
            }
            "assert" | "__VERIFIER_assert" | "__CPROVER_assert" => {
                let condition = self.rvalue(argument(0)?)?;
                self.emit(StmtKind::Assert {
                    condition: condition.expr,
                    kind: PropertyKind::Assertion,
                });
                Ok(Val::void())
            }
            "__assert_fail" | "__assert_perror_fail" | "__assert" => {
                self.emit(StmtKind::Assert {
                    condition: Expr::Const(0),
                    kind: PropertyKind::Assertion,
                });
                Ok(Val::void())
            }
            "reach_error" | "__VERIFIER_error" => {
                self.emit(StmtKind::Assert {
                    condition: Expr::Const(0),
                    kind: PropertyKind::ErrorCall,
                });
                Ok(Val::void())
            }
            "abort" | "exit" | "_Exit" | "__builtin_unreachable" | "__builtin_trap" => {
                if name != "__builtin_unreachable" {
                    self.emit(StmtKind::Assert {
                        condition: Expr::Const(1),
                        kind: PropertyKind::ProgramEnd,
                    });
                }
                self.emit(StmtKind::Assume(Expr::Const(0)));
                Ok(Val::void())
            }
            "assume_abort_if_not" | "__VERIFIER_assume" | "__CPROVER_assume" => {
                let condition = self.rvalue(argument(0)?)?;
                self.emit(StmtKind::Assume(condition.expr));
                Ok(Val::void())
            }
            // every object here is lock-free; the arguments (a size, an
            // object) have no effect
            "atomic_is_lock_free" | "__atomic_always_lock_free" | "__atomic_is_lock_free" => {
                Ok(Val { expr: Expr::Const(1), ty: CType::Bool })
            }
            "__sync_synchronize" => {
                self.emit(StmtKind::Fence(FenceKind::Full));
                Ok(Val::void())
            }
            "atomic_thread_fence" | "__atomic_thread_fence" => {
                let order = self.order(arguments.first())?;
                self.fence_for_order(&order)?;
                Ok(Val::void())
            }
            "malloc" | "calloc" => self.allocate(name == "calloc", arguments, span),
            "free" => {
                let pointer = self.rvalue(argument(0)?)?;
                self.emit(StmtKind::Free(self.lw.location_of(pointer.expr)));
                Ok(Val::void())
            }
            "__builtin_expect" => self.rvalue(argument(0)?),
            _ if bit_builtins::is_bit_builtin(name) => self.bit_builtin_call(name, arguments, span),
            _ if math_builtins::is_math_builtin(name) => self.math_builtin_call(name, arguments, span),
            // a hint: the pointer itself
            "__builtin_assume_aligned" => self.rvalue(argument(0)?),
            // whether gcc folds the operand to a constant: constant
            // expressions here, nothing else (gcc without optimisation)
            "__builtin_constant_p" => {
                let operand = argument(0)?;
                Ok(Val::int(i64::from(self.lw.types.const_eval(operand).is_some())))
            }
            "setjmp" | "longjmp" | "_setjmp" | "__sigsetjmp" | "siglongjmp" | "sigsetjmp" => self
                .lw
                .refuse(span, "setjmp/longjmp", Some("restructure the control flow")),
            "pthread_mutex_trylock" | "pthread_spin_trylock" => self.try_lock(argument(0)?),
            "pthread_mutex_timedlock" => self.timed_lock(argument(0)?),
            "pthread_cond_wait" | "pthread_cond_timedwait" => self.condition_wait(name, argument(1)?),
            _ if sync_objects::is_read_write_lock_call(name) => self.read_write_lock(name, arguments, span),
            "pthread_barrier_init" | "pthread_barrier_wait" | "pthread_barrier_destroy" => self.barrier(name, arguments, span),
            "pthread_once" => self.once(arguments, span),
            _ if thread_specific::is_thread_specific_call(name) => self.thread_specific(name, arguments, span),
            // POSIX lets signal and broadcast wake nobody (a waiter may wake
            // spuriously anyway); they synchronise memory (XBD 4.12).
            "pthread_cond_signal" | "pthread_cond_broadcast" => {
                self.emit(StmtKind::Fence(FenceKind::Full));
                Ok(Val::int(0))
            }
            "pthread_cond_init" | "pthread_cond_destroy" | "pthread_spin_destroy" => Ok(Val::int(0)),
            // Only the normal kind, whose relock by its holder blocks.
            "pthread_mutexattr_settype" => {
                let kind = argument(1)?;
                if self.lw.types.const_eval(uncast(kind)) != Some(PTHREAD_MUTEX_NORMAL) {
                    return self.lw.refuse(
                        kind.span,
                        "a recursive or error-checking mutex (any type but PTHREAD_MUTEX_NORMAL or DEFAULT)",
                        Some("use a normal mutex, with the thread's own count of how often it holds it"),
                    );
                }
                Ok(Val::int(0))
            }
            "sem_init" | "sem_destroy" | "sem_post" | "sem_wait" | "sem_trywait" | "sem_timedwait"
            | "sem_getvalue" => self.semaphore(name, arguments, span),
            "strcpy" => self.copy_string_literal(arguments, span),
            "memset" | "__builtin_memset" => self.set_memory(arguments, span),
            "memcpy" | "__builtin_memcpy" => self.copy_memory(arguments, false, span),
            "memmove" | "__builtin_memmove" => self.copy_memory(arguments, true, span),
            "sscanf" | "scanf" => {
                self.havoc_outputs(arguments, if name == "scanf" { 1 } else { 2 })
            }
            // any time at all: a timed wait may time out whatever it is
            "clock_gettime" => self.havoc_outputs(arguments, 1),
            // one message for every error number, a string of its own
            "strerror" => {
                self.rvalue(argument(0)?)?;
                let (base, _) = self.lw.library_string("error", span)?;
                Ok(Val { expr: self.lw.pointer_to(Expr::Const(base)), ty: CType::Pointer(Box::new(CType::CHAR)) })
            }
            "realloc" => self
                .lw
                .refuse(span, "`realloc`", Some("use malloc and copy")),
            _ if IGNORED.contains(&name) => {
                // the call does nothing here, its arguments' effects remain
                for argument in arguments.iter().filter(|argument| has_side_effects(argument)) {
                    self.rvalue(argument)?;
                }
                Ok(Val::int(0))
            }
            _ if ["__atomic_", "__sync_", "atomic_", "__c11_atomic_", "__builtin_"].iter().any(|prefix| name.starts_with(prefix)) => {
                self.lw.refuse(
                    span,
                    format!("the compiler builtin `{name}`"),
                    Some("the C11 atomic_* functions and GCC's __atomic_* and __sync_* builtins are understood, other builtins are not (docs/supported-c.md)"),
                )
            }
            _ => {
                let what = if self.lw.prototypes.contains_key(name) {
                    "declared but not defined"
                } else {
                    "not declared"
                };
                self.lw.refuse(
                    span,
                    format!("calling `{name}` ({what})"),
                    Some("define the function in the program"),
                )
            }
        }
    }

    pub fn user_call(
        &mut self,
        function: FunctionId,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let (parameter_types, return_type) = self
            .lw
            .signatures
            .get(&function)
            .cloned()
            .unwrap_or((Vec::new(), CType::INT));
        let variadic = self.lw.variadic.contains(&function);
        let (arguments, extra) = arguments.split_at(arguments.len().min(parameter_types.len()));
        if parameter_types.len() != arguments.len() || (!extra.is_empty() && !variadic) {
            return self.lw.error(
                span,
                format!(
                    "`{name}` takes {} argument(s) but is called with {}",
                    parameter_types.len(),
                    arguments.len() + extra.len()
                ),
                "wrong number of arguments",
            );
        }
        self.lw
            .call_sites
            .entry((self.name.clone(), function))
            .or_insert(span);
        let mut values = Vec::new();
        for (argument, ty) in arguments.iter().zip(&parameter_types) {
            let mark = self.mark();
            let converted = match ty {
                CType::Struct(_) => self.struct_value(argument, ty, argument.span)?,
                _ => {
                    let value = self.rvalue(argument)?;
                    self.convert(value, ty, argument.span)?
                }
            };
            self.protect_earlier(&mut values, mark);
            values.push(converted);
        }
        // the arguments past a variadic function's parameters: their
        // effects, in order after the others (the body cannot read them)
        for argument in extra.iter().filter(|argument| has_side_effects(argument)) {
            let mark = self.mark();
            self.rvalue(argument)?;
            self.protect_earlier(&mut values, mark);
        }
        let target = match return_type {
            CType::Void => None,
            ref ty => Some(self.temp(ty)),
        };
        self.emit(StmtKind::Call {
            target: target.map(Place::Local),
            function,
            arguments: values,
        });
        Ok(match target {
            Some(t) => Val {
                expr: Expr::Load(Place::Local(t)),
                ty: return_type,
            },
            None => Val::void(),
        })
    }

    /// `pthread_join(handle, result)` with a `result` (`pointer`, already
    /// evaluated): after the join, the
    /// joining thread stores the thread's return value at `*result` (an
    /// ordinary store of its own; the value itself passes through the
    /// thread library, not through shared memory).
    /// `pthread_join(handle, result)`, or with `c11` `thrd_join`, whose
    /// thread returns an `int`: waits for the thread, then stores its
    /// result where `result` points unless it is `NULL`.
    pub fn join(
        &mut self,
        handle: &'a Node<Expression>,
        result: Option<&'a Node<Expression>>,
        c11: bool,
    ) -> LResult<Val> {
        let handle = self.rvalue(handle)?;
        let result = result.filter(|result| self.lw.types.const_eval(uncast(result)) != Some(0));
        let Some(result) = result else {
            self.emit(StmtKind::ThreadJoin {
                handle: handle.expr,
            });
            return Ok(Val::int(0));
        };
        // Both arguments are evaluated before the call.
        let handle = self.save(handle.expr, &handle.ty);
        let pointer = self.rvalue(result)?;
        let pointer = Val {
            expr: self.save(pointer.expr, &pointer.ty),
            ty: pointer.ty,
        };
        self.emit(StmtKind::ThreadJoin {
            handle: handle.clone(),
        });
        self.collect_thread_result(handle, pointer, result.span, c11)?;
        Ok(Val::int(0))
    }

    /// Keeps the argument values computed before `mark` from the effects of
    /// the statements emitted since (a later argument's `x++`).
    fn protect_earlier(&mut self, values: &mut [Expr], mark: usize) {
        for earlier in values.iter_mut() {
            let e = std::mem::replace(earlier, Expr::Const(0));
            *earlier = self.protect(e, &CType::LONG, mark);
        }
    }

    /// Stores the result of the joined thread `handle` where `pointer`
    /// points: a `void *`, or with `c11` an `int`.
    fn collect_thread_result(
        &mut self,
        handle: Expr,
        pointer: Val,
        span: Span,
        c11: bool,
    ) -> LResult<()> {
        let result_type = if c11 {
            CType::INT
        } else {
            CType::Pointer(Box::new(CType::Void))
        };
        let fits = |target: &CType| {
            if c11 {
                target.is_scalar() && !target.is_pointer() && target.float_bits().is_none()
            } else {
                target.is_pointer()
            }
        };
        let Some(target) = pointer.ty.target().filter(|target| fits(target)).cloned() else {
            let (call, wanted) = if c11 {
                ("thrd_join", "an `int *`")
            } else {
                ("pthread_join", "a `void **`")
            };
            return Err(Box::new(self.lw.source.diagnostic(
                span.start,
                span.end,
                format!("{call}'s second argument is not {wanted}"),
                "where the thread's return value goes",
                Some(format!(
                    "pass the address of {} variable, or NULL",
                    if c11 { "an `int`" } else { "a `void *`" }
                )),
            )));
        };
        let results = self.lw.thread_results();
        let stored = Place::plain_element(results, handle);
        let value = Val {
            expr: Expr::Cast(
                self.lw.types.ir_type(&result_type),
                Box::new(Expr::Load(stored)),
            ),
            ty: result_type,
        };
        let destination = LVal::Shared {
            address: self.lw.location_of(pointer.expr),
            ty: target,
            atomic: false,
        };
        self.store(&destination, value, span)
    }

    /// The function an argument names (`f` or `&f`) with its name, if the
    /// program defines it.
    pub fn named_function(&self, argument: &'a Node<Expression>) -> Option<(FunctionId, &'a str)> {
        let named = match &uncast(argument).node {
            Expression::Identifier(id) => id,
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                match &uncast(&u.node.operand).node {
                    Expression::Identifier(id) => id,
                    _ => return None,
                }
            }
            _ => return None,
        };
        let name = named.node.name.as_str();
        self.lw
            .functions
            .get(name)
            .map(|&function| (function, name))
    }

    fn thread_create(&mut self, arguments: &'a [Node<Expression>], span: Span) -> LResult<Val> {
        if arguments.len() != 4 {
            return self.lw.error(
                span,
                "pthread_create takes 4 arguments",
                "wrong number of arguments",
            );
        }
        self.create_thread(&arguments[0], &arguments[2], &arguments[3])
    }

    /// A thread creation: `handle` (`&t`) gets the new thread's handle;
    /// the thread runs `routine` on `argument`.
    pub fn create_thread(
        &mut self,
        handle_pointer: &'a Node<Expression>,
        routine: &'a Node<Expression>,
        argument: &'a Node<Expression>,
    ) -> LResult<Val> {
        let handle = match &uncast(handle_pointer).node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                self.lvalue(&u.node.operand)?
            }
            // `t + i` is `&t[i]`, `t` an array of handles or a pointer to one
            Expression::BinaryOperator(b)
                if b.node.operator.node == BinaryOperator::Plus
                    && matches!(self.type_of(&b.node.lhs)?, CType::Array(element, _) if *element == CType::ThreadHandle) =>
            {
                self.index(&b.node.lhs, &b.node.rhs, handle_pointer.span)?
            }
            // a pointer to the handle (`t + i`, `ts + 0`, a parameter, a
            // struct field's address passed on): the handle it points to
            _ => {
                let pointer = self.rvalue(handle_pointer)?;
                if pointer.ty.target() != Some(&CType::ThreadHandle) {
                    return self.lw.refuse(
                        handle_pointer.span,
                        "a thread handle that is not a pointer to a `pthread_t`",
                        Some("pass the address of a pthread_t variable"),
                    );
                }
                LVal::Shared {
                    address: self.lw.location_of(pointer.expr),
                    ty: CType::ThreadHandle,
                    atomic: false,
                }
            }
        };
        // A handle in shared or heap memory (`pthread_create(&t[i], ...)` with
        // `t` from malloc) is created in a private temporary and then stored
        // there like any other write of the creating thread.
        let (handle, shared_handle) = match handle {
            LVal::Private(place, CType::ThreadHandle) => (place, None),
            shared @ LVal::Shared {
                ty: CType::ThreadHandle,
                ..
            } => (Place::Local(self.temp(&CType::ThreadHandle)), Some(shared)),
            _ => {
                return self.lw.refuse(
                    handle_pointer.span,
                    "a thread handle that is not a `pthread_t` variable",
                    None,
                );
            }
        };
        match self.named_function(routine) {
            Some((function, _)) => {
                let argument = self.rvalue(argument)?;
                self.emit(StmtKind::ThreadCreate {
                    handle: handle.clone(),
                    function,
                    argument: argument.expr,
                });
            }
            None => self.create_through_pointer(routine, argument, &handle)?,
        }
        if let Some(shared) = shared_handle {
            let created = Val {
                expr: Expr::Load(handle),
                ty: CType::ThreadHandle,
            };
            self.store(&shared, created, handle_pointer.span)?;
        }
        Ok(Val::int(0))
    }

    /// The memory order of an optional argument (seq_cst when absent or unknown).
    /// The memory order an argument gives: `seq_cst` when there is none, its
    /// value when the translator can evaluate it, else the value the program
    /// computes (a wrapper's `memory_order` parameter: the fences it implies
    /// are then chosen when the program runs).
    fn order(&mut self, argument: Option<&'a Node<Expression>>) -> LResult<MemoryOrder> {
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
    fn fence_where_order_is(
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
    fn fence_for_order(&mut self, order: &MemoryOrder) -> LResult<()> {
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

    fn atomic(
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
    fn wider_than_shared_memory(&self, ty: &CType) -> bool {
        matches!(ty, CType::Int { bits, .. } if *bits > 32 && self.lw.value_bits <= 32)
    }

    /// `value`, an operand an RMW of an object of type `ty` writes or
    /// compares: on an object wider than shared memory, saved and cut off
    /// unless shared memory holds it, as a store of it is.
    fn cut_off_unless_shared_memory_holds(&mut self, value: Expr, ty: &CType) -> Expr {
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
    fn compare_exchange(
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
        let expected = self.cut_off_unless_shared_memory_holds(expected, ty);
        let desired = self.cut_off_unless_shared_memory_holds(desired, ty);
        let old = self.temp(&stored);
        self.emit(StmtKind::Rmw {
            target: Some(Place::Local(old)),
            address,
            op: RmwOp::CompareExchange {
                expected: expected.clone(),
                desired,
            },
        });
        let old = Expr::Load(Place::Local(old));
        Ok(CompareExchange {
            succeeded: Expr::Binary(BinaryOp::Eq, Box::new(old.clone()), Box::new(expected)),
            old: self.value_from_memory(old, ty),
        })
    }

    /// An operand that an exchange or compare-and-swap of an object of
    /// type `ty` writes or compares: for a floating object the bits of the
    /// value converted to its type, any other operand as it is.
    fn floating_operand(&mut self, value: Val, ty: &CType, span: Span) -> LResult<Expr> {
        if floating_bits(ty).is_none() {
            return Ok(value.expr);
        }
        let converted = self.convert(value, ty, span)?;
        Ok(self.to_memory(converted, ty))
    }

    /// `strcpy(dst, "literal")`: one write per character and the terminator.
    fn copy_string_literal(
        &mut self,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let [destination, source] = arguments else {
            return self.lw.error(
                span,
                "strcpy takes 2 arguments",
                "wrong number of arguments",
            );
        };
        let Expression::StringLiteral(literal) = &uncast(source).node else {
            return self.lw.refuse(
                source.span,
                "strcpy from something other than a string literal",
                None,
            );
        };
        let bytes = match super::strings::literal_bytes(&literal.node) {
            Ok(bytes) => bytes,
            Err(what) => {
                return self
                    .lw
                    .refuse(source.span, what, Some("copy the characters one by one"));
            }
        };
        let destination = self.rvalue(destination)?;
        // the characters as the destination's elements hold them: a plain
        // char is signed, so "\xc8" is -56 there
        let signed = !matches!(
            destination.ty.target(),
            Some(CType::Int {
                bits: 8,
                signed: false
            })
        );
        let destination = self.save(destination.expr, &destination.ty);
        let first = self.lw.location_of(destination.clone());
        for (k, byte) in bytes.into_iter().chain(std::iter::once(0)).enumerate() {
            let address = binary(BinaryOp::Add, first.clone(), Expr::Const(k as i64));
            self.emit(StmtKind::Write {
                address,
                value: Expr::Const(truncate(i64::from(byte), 8, signed)),
            });
        }
        Ok(Val {
            expr: destination,
            ty: CType::Pointer(Box::new(CType::CHAR)),
        })
    }

    /// `memset(destination, byte, size)`: every scalar of the `size` bytes
    /// at `destination` gets the value whose bytes are all `byte`, one
    /// store after the other (memset is no atomic operation).
    fn set_memory(&mut self, arguments: &'a [Node<Expression>], span: Span) -> LResult<Val> {
        let [destination, byte, size] = arguments else {
            return self.lw.error(
                span,
                "memset takes 3 arguments",
                "wrong number of arguments",
            );
        };
        let Some(byte) = self.lw.types.const_eval(uncast(byte)) else {
            return self.lw.refuse(
                byte.span,
                "memset with a byte that is not a constant",
                Some("store the values one by one"),
            );
        };
        let bytes = self.memory_size(size)?;
        for object in self.memory_objects(destination, bytes, None)? {
            self.fill_bytes(&object, (byte & 0xff) as u8, span)?;
        }
        Ok(Val::void())
    }

    /// `memcpy`/`memmove(destination, source, size)`: the `size` bytes at
    /// `source` are copied to `destination` scalar by scalar, a load and a
    /// store of each, in order; `memmove` loads all of them before it
    /// stores any, so that the two may overlap. Both must hold objects of
    /// the same type.
    fn copy_memory(
        &mut self,
        arguments: &'a [Node<Expression>],
        overlapping: bool,
        span: Span,
    ) -> LResult<Val> {
        let [destination, source, size] = arguments else {
            return self.lw.error(
                span,
                "memcpy and memmove take 3 arguments",
                "wrong number of arguments",
            );
        };
        let bytes = self.memory_size(size)?;
        // a `void *` side holds objects of the other side's type
        let (targets, mut origins) =
            if self.points_to_void(destination)? && !self.points_to_void(source)? {
                let origins = self.memory_objects(source, bytes, None)?;
                let kind = origins.first().map(|origin| origin.ty().clone());
                (
                    self.memory_objects(destination, bytes, kind.as_ref())?,
                    origins,
                )
            } else {
                let targets = self.memory_objects(destination, bytes, None)?;
                let kind = targets.first().map(|target| target.ty().clone());
                let origins = self.memory_objects(source, bytes, kind.as_ref())?;
                (targets, origins)
            };
        if targets.first().map(LVal::ty) != origins.first().map(LVal::ty) {
            if self.copy_floating_bits(&targets, &origins, span)? {
                return Ok(Val::void());
            }
            return self.lw.refuse(
                span,
                "copying memory between objects of different types",
                Some("copy between objects of the same type, or field by field"),
            );
        }
        if overlapping {
            // every object into a private copy first
            origins = origins
                .iter()
                .map(|origin| {
                    let copy =
                        LVal::Private(Place::Local(self.temp(origin.ty())), origin.ty().clone());
                    self.copy_struct(&copy, origin, span).map(|()| copy)
                })
                .collect::<LResult<_>>()?;
        }
        for (target, origin) in targets.iter().zip(&origins) {
            self.copy_struct(target, origin, span)?;
        }
        Ok(Val::void())
    }

    /// `memcpy` between a floating scalar and an integer one of its size,
    /// either way (`memcpy(&bits, &f, sizeof f)`): each source's bits
    /// become the target's value. Whether the objects are such pairs (and
    /// the copy was made).
    fn copy_floating_bits(
        &mut self,
        targets: &[LVal],
        origins: &[LVal],
        span: Span,
    ) -> LResult<bool> {
        let punned = |target: &CType, origin: &CType| {
            let numbers = [target, origin]
                .iter()
                .all(|ty| ty.is_scalar() && !ty.is_pointer() && !matches!(ty, CType::Atomic(_)));
            let one_floating = target.float_bits().is_some() != origin.float_bits().is_some();
            numbers
                && one_floating
                && self.lw.types.byte_size(target) == self.lw.types.byte_size(origin)
        };
        if targets.len() != origins.len()
            || !targets
                .iter()
                .zip(origins)
                .all(|(target, origin)| punned(target.ty(), origin.ty()))
        {
            return Ok(false);
        }
        for (target, origin) in targets.iter().zip(origins) {
            let value = self.load(origin.clone(), span)?;
            let ty = target.ty().clone();
            let bits = Expr::Reinterpret(self.lw.types.ir_type(&ty), Box::new(value.expr));
            self.store(target, Val { expr: bits, ty }, span)?;
        }
        Ok(true)
    }

    /// Whether the memory-function argument `argument` is a `void *` (with
    /// its casts), so that the objects it covers have no type of their own.
    fn points_to_void(&mut self, argument: &'a Node<Expression>) -> LResult<bool> {
        let inner = uncast(argument);
        if matches!(&inner.node, Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address)
        {
            return Ok(false);
        }
        Ok(matches!(self.type_of(inner)?, CType::Pointer(target) if matches!(*target, CType::Void)))
    }

    /// The size argument of `memset`/`memcpy`: a constant number of bytes.
    fn memory_size(&mut self, size: &'a Node<Expression>) -> LResult<u64> {
        match self.rvalue(size)?.expr {
            Expr::Const(bytes) if bytes > 0 => Ok(bytes as u64),
            _ => self.lw.refuse(
                size.span,
                "a size that is not a positive constant here",
                Some("give the size as a constant (`sizeof object`, `n * sizeof(T)` with a constant n)"),
            ),
        }
    }

    /// The objects, all of one type, that the `bytes` bytes at the pointer
    /// `argument` of `memset`/`memcpy` cover: `&x` is `x`, an array is its
    /// elements, and for an element `&a[i]` or a pointer `p` to `T` the
    /// `bytes / sizeof(T)` objects from there on. Private objects stay
    /// private, within their array. A part of a scalar or a struct is
    /// refused.
    fn memory_objects(
        &mut self,
        argument: &'a Node<Expression>,
        bytes: u64,
        void_holds: Option<&CType>,
    ) -> LResult<Vec<LVal>> {
        let inner = uncast(argument);
        // the first object, and how many objects from there on its private
        // array holds (shared memory is one sequence of scalars)
        let (mut first, mut room) = match &inner.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                let object = self.lvalue(&u.node.operand)?;
                let room = self.room_after(&u.node.operand, &object)?;
                (object, room)
            }
            _ if matches!(self.type_of(inner)?, CType::Array(..)) => (self.lvalue(inner)?, 1),
            _ => {
                let pointer = self.rvalue(inner)?;
                let pointee = match pointer.ty.target() {
                    Some(CType::Void) => void_holds,
                    other => other,
                };
                let Some(ty) = pointee.cloned() else {
                    return self.lw.refuse(
                        argument.span,
                        "a pointer without a pointee type here",
                        Some("pass the object's own pointer (`&x`, an array, a typed pointer), so that its type is known"),
                    );
                };
                let address = self.lw.location_of(pointer.expr);
                (
                    LVal::Shared {
                        address,
                        ty,
                        atomic: pointer.ty.target_is_atomic(),
                    },
                    u64::MAX,
                )
            }
        };
        // an array is its elements, down to elements that are no arrays
        while let CType::Array(_, length) = first.ty().clone() {
            room = room.saturating_mul(length);
            first = self.element(&first, 0);
        }
        // (a struct without fields has no bytes: no count of them fills any)
        let each = self.lw.types.byte_size(first.ty()).max(1);
        let count = bytes / each;
        let objects = (bytes.is_multiple_of(each) && count <= room)
            .then(|| {
                (0..count)
                    .map(|k| self.following(&first, k))
                    .collect::<Option<Vec<LVal>>>()
            })
            .flatten();
        match objects {
            Some(objects) => Ok(objects),
            None => {
                let what = format!(
                    "{bytes} bytes from an object of {each} bytes (a part of a scalar or struct, or beyond a private array)"
                );
                self.lw.refuse(
                    argument.span,
                    what,
                    Some("give whole objects: `sizeof x`, `n * sizeof(T)`"),
                )
            }
        }
    }

    /// How many objects like `object` (the lvalue `operand`) lie from it on
    /// where memory can be walked: for an element `a[i]` of a private array
    /// with a constant `i`, the elements from `i` on; in shared memory any
    /// number; else 1.
    fn room_after(&mut self, operand: &'a Node<Expression>, object: &LVal) -> LResult<u64> {
        if let LVal::Shared { .. } = object {
            return Ok(u64::MAX);
        }
        let Expression::BinaryOperator(index) = &uncast(operand).node else {
            return Ok(1);
        };
        if index.node.operator.node != BinaryOperator::Index {
            return Ok(1);
        }
        let (CType::Array(_, length), Some(start)) = (
            self.type_of(&index.node.lhs)?,
            self.lw.types.const_eval(&index.node.rhs),
        ) else {
            return Ok(1);
        };
        Ok(u64::try_from(start).map_or(1, |start| length.saturating_sub(start)))
    }

    /// The object `k` places after `object` in memory, of its type: in
    /// shared memory at its address plus `k` objects; for a private array
    /// element, the element `k` further on. `None` for another private
    /// object.
    fn following(&self, object: &LVal, k: u64) -> Option<LVal> {
        let step = k as i64;
        match object {
            _ if k == 0 => Some(object.clone()),
            LVal::Shared {
                address,
                ty,
                atomic,
            } => {
                let offset = Expr::Const(step * self.lw.types.size(ty) as i64);
                Some(LVal::Shared {
                    address: binary(BinaryOp::Add, address.clone(), offset),
                    ty: ty.clone(),
                    atomic: *atomic,
                })
            }
            LVal::Private(Place::Index(array, index), ty) => {
                let index = binary(BinaryOp::Add, (**index).clone(), Expr::Const(step));
                Some(LVal::Private(
                    Place::Index(array.clone(), Box::new(index)),
                    ty.clone(),
                ))
            }
            LVal::Private(..) => None,
        }
    }

    /// `scanf`-like input: every pointer argument after the format receives
    /// an arbitrary value.
    fn havoc_outputs(
        &mut self,
        arguments: &'a [Node<Expression>],
        first_output: usize,
    ) -> LResult<Val> {
        for argument in arguments.iter().skip(first_output) {
            let object = self.pointer_argument(argument)?;
            self.havoc(object, argument.span)?;
        }
        let result = self.temp(&CType::INT);
        self.emit(StmtKind::Assign(
            Place::Local(result),
            Expr::Nondet(Ty::INT),
        ));
        Ok(Val {
            expr: Expr::Load(Place::Local(result)),
            ty: CType::INT,
        })
    }

    /// Stores arbitrary values into every scalar of a scalar or struct
    /// object (an input the program reads).
    fn havoc(&mut self, object: LVal, span: Span) -> LResult<()> {
        let ty = object.ty().clone();
        if let CType::Struct(id) = ty {
            let fields: Vec<String> = self
                .lw
                .types
                .fields(id, span)?
                .iter()
                .map(|(name, _)| name.clone())
                .collect();
            for field in fields {
                let member = self.member(&object, id, &field, span)?;
                self.havoc(member, span)?;
            }
            return Ok(());
        }
        if !ty.is_scalar() {
            return self.lw.refuse(span, "reading input into an array", None);
        }
        let temp = self.temp(&ty);
        self.emit(StmtKind::Assign(
            Place::Local(temp),
            Expr::Nondet(self.lw.types.ir_type(&ty)),
        ));
        self.store(
            &object,
            Val {
                expr: Expr::Load(Place::Local(temp)),
                ty,
            },
            span,
        )
    }

    /// The value at the pointer `argument` (GCC's generic atomics pass
    /// their values so).
    fn pointee(&mut self, argument: &'a Node<Expression>) -> LResult<Val> {
        let object = self.pointer_argument(argument)?;
        self.load(object, argument.span)
    }

    /// The object a pointer argument designates; `&x` of a private `x` stays private.
    pub fn pointer_argument(&mut self, argument: &'a Node<Expression>) -> LResult<LVal> {
        if let Expression::UnaryOperator(u) = &uncast(argument).node
            && u.node.operator.node == UnaryOperator::Address
        {
            return self.lvalue(&u.node.operand);
        }
        let pointer = self.rvalue(argument)?;
        let ty = pointer.ty.target().cloned().unwrap_or(CType::INT);
        Ok(LVal::Shared {
            address: self.lw.location_of(pointer.expr),
            ty,
            atomic: false,
        })
    }

    /// `malloc(n)` / `calloc(n, size)`: sizes count scalars.
    fn allocate(
        &mut self,
        zeroed: bool,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        // memory is counted in scalars: `malloc(n * sizeof(struct node))`
        // is n times the node's scalars
        self.in_allocation_size = true;
        let size = self.allocation_size(zeroed, arguments, span);
        self.in_allocation_size = false;
        let size = size?;
        match size {
            Expr::Const(n) => {
                self.lw.heap_block = Some(self.lw.heap_block.unwrap_or(0).max(n.max(1) as u64))
            }
            _ => self.lw.heap_unknown = true,
        }
        let temp = self.temp(&CType::Pointer(Box::new(CType::Void)));
        self.emit(StmtKind::Malloc {
            target: Place::Local(temp),
            size,
            zeroed,
        });
        let pointer = self.lw.pointer_to(Expr::Load(Place::Local(temp)));
        self.latest_allocation = Some((pointer.clone(), self.origin));
        Ok(Val {
            expr: pointer,
            ty: CType::Pointer(Box::new(CType::Void)),
        })
    }

    /// The size of an allocation (`malloc(n)`, `calloc(n, s)`).
    fn allocation_size(
        &mut self,
        zeroed: bool,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Expr> {
        match (zeroed, arguments) {
            (false, [n]) => Ok(self.rvalue(n)?.expr),
            (true, [n, s]) => {
                let n = self.rvalue(n)?.expr;
                let s = self.rvalue(s)?.expr;
                Ok(binary(BinaryOp::Mul, n, s))
            }
            _ => self
                .lw
                .error(span, "wrong number of arguments to an allocation", "here"),
        }
    }

    /// Inline assembly: fences and the instructions without an effect on
    /// memory (`pause`, `nop`, ...) are accepted, each instruction of the
    /// template in turn; anything else is refused, since its effect would
    /// be lost.
    pub fn asm(&mut self, asm: &'a AsmStatement, span: Span) -> LResult<()> {
        let (template, has_operands) = match asm {
            AsmStatement::GnuBasic(s) => (s.node.concat(), false),
            AsmStatement::GnuExtended(e) => (
                e.template.node.concat(),
                !e.outputs.is_empty() || !e.inputs.is_empty(),
            ),
        };
        let text = template
            .replace('"', "")
            .replace("%%", "%")
            .replace("\\n", "\n")
            .replace("\\t", " ");
        if has_operands {
            return self.lw.refuse(
                span,
                format!("inline assembly with operands (`{}`)", text.trim()),
                Some(ASM_HELP),
            );
        }
        for instruction in asm_instructions(&text) {
            match asm_fence(&instruction) {
                Some(Some(kind)) => self.emit(StmtKind::Fence(kind)),
                Some(None) => {}
                None => {
                    return self.lw.refuse(
                        span,
                        format!("the inline assembly instruction `{instruction}`"),
                        Some(ASM_HELP),
                    );
                }
            }
        }
        Ok(())
    }
}

const ASM_HELP: &str = "only fences (mfence, sync, lwsync, sfence, `lock; addl $0,0(%rsp)`) and instructions without a memory effect (pause, nop, lfence, isync) are understood; write other atomic operations with __atomic or C11 builtins";

/// The instructions of an assembly template (separated by `;` or new
/// lines), lower case, each prefix (`lock`) joined to its instruction.
fn asm_instructions(text: &str) -> Vec<String> {
    let mut instructions: Vec<String> = Vec::new();
    let mut prefix = String::new();
    for part in text.split([';', '\n']) {
        let words: Vec<String> = part
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        if words.is_empty() {
            continue;
        }
        if words == ["lock"] {
            prefix = "lock ".to_string();
            continue;
        }
        instructions.push(format!("{prefix}{}", words.join(" ")));
        prefix.clear();
    }
    if !prefix.is_empty() {
        instructions.push(prefix.trim().to_string());
    }
    instructions
}

/// The fence an instruction is (`Some(None)`: none, it has no effect on
/// memory), or `None` for an instruction with another effect.
fn asm_fence(instruction: &str) -> Option<Option<FenceKind>> {
    let words: Vec<&str> = instruction.split_whitespace().collect();
    match words.as_slice() {
        ["mfence" | "sync" | "hwsync"] => Some(Some(FenceKind::Full)),
        ["lwsync" | "sfence" | "eieio"] => Some(Some(FenceKind::StoreStore)),
        ["lfence" | "nop" | "isync" | "pause" | "yield"] | ["rep", "nop"] => Some(None),
        // x86's `smp_mb`: a locked no-op on the stack top drains the buffer
        ["lock", operation, operands @ ..] => {
            let operands: String = operands.concat();
            let no_op = matches!(*operation, "add" | "addl" | "addq" | "or" | "orl" | "orq")
                && matches!(
                    operands.as_str(),
                    "$0,0(%rsp)" | "$0,(%rsp)" | "$0,0(%esp)" | "$0,(%esp)"
                );
            no_op.then_some(Some(FenceKind::Full))
        }
        _ => None,
    }
}
