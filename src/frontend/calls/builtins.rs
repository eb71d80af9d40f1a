//! Calls: user functions, and the dispatch of every library and builtin
//! call to its lowering (threads in `thread_calls.rs`, synchronisation
//! objects in `sync_objects.rs`, atomics in `atomics.rs`, memory functions
//! in `memory_functions.rs`, inline assembly in `assembly.rs`), with the
//! verification builtins (`__VERIFIER_*`, `assert`, `reach_error`) and
//! fences lowered here.

use super::bit_builtins;
use super::math_builtins;
use crate::frontend::analysis::scan::uncast;
use crate::frontend::c_types::types::CType;
use crate::frontend::concurrency::atomics::atomic_builtin;
use crate::frontend::concurrency::c11_threads;
use crate::frontend::concurrency::sync_objects;
use crate::frontend::concurrency::thread_specific;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::Val;
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
            | "__VERIFIER_loop_bound"
            | "assert"
            | "abort"
            | "exit"
    ) || name.starts_with("__VERIFIER_nondet_")
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
                || crate::frontend::expr::arithmetic::compound_assignment(operator).is_some()
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
    /// Dat3M's `__VERIFIER_loop_bound(n)`: the next loop of the function
    /// (in the order of the text) is unrolled `n` times, as `--unwindset
    /// LINE:n` would unroll it ([`Program::loop_bounds`]).
    fn loop_bound_directive(&mut self, bound: &'a Node<Expression>, span: Span) -> LResult<Val> {
        let depth = self
            .lw
            .types
            .const_eval(bound)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0);
        let Some(depth) = depth else {
            return self.lw.refuse(
                bound.span,
                "a loop bound that is not a positive integer constant",
                Some("give the number of iterations the next loop may run, e.g. __VERIFIER_loop_bound(3)"),
            );
        };
        if let Some((_, earlier)) = self.pending_loop_bound {
            return self.lw.refuse(
                earlier,
                "a `__VERIFIER_loop_bound` followed by another one before any loop",
                Some("give each loop one bound, right before it"),
            );
        }
        self.pending_loop_bound = Some((depth, span));
        Ok(Val::void())
    }

    /// Gives the loop at `origin` the depth of the `__VERIFIER_loop_bound`
    /// that waits for it, if one does.
    pub(in crate::frontend) fn take_loop_bound(&mut self, origin: OriginId) {
        if let Some((depth, _)) = self.pending_loop_bound.take() {
            self.lw.program.loop_bounds.push((origin, depth));
        }
    }

    /// Refuses a `__VERIFIER_loop_bound` that no loop of the function
    /// follows.
    pub(in crate::frontend) fn check_no_loop_bound_waits(&self) -> LResult<()> {
        match self.pending_loop_bound {
            Some((depth, span)) => self.lw.refuse(
                span,
                format!(
                    "`__VERIFIER_loop_bound({depth})` with no loop after it in `{}`",
                    self.name
                ),
                Some("put it right before the loop it bounds"),
            ),
            None => Ok(()),
        }
    }

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
            "__VERIFIER_loop_bound" => self.loop_bound_directive(argument(0)?, span),
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
            "pthread_cond_wait" | "pthread_cond_timedwait" => self.condition_wait(name, arguments, span),
            _ if sync_objects::is_read_write_lock_call(name) => self.read_write_lock(name, arguments, span),
            "pthread_barrier_init" | "pthread_barrier_wait" | "pthread_barrier_destroy" => self.barrier(name, arguments, span),
            "pthread_once" => self.once(arguments, span),
            _ if thread_specific::is_thread_specific_call(name) => self.thread_specific(name, arguments, span),
            "pthread_cond_signal" | "pthread_cond_broadcast" => self.condition_signal(name, arguments, span),
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
        let function = self.call_target(function, name, &values, span)?;
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
}
