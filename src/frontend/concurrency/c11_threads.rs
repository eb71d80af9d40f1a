//! C11 threads (`<threads.h>`): each call is the pthreads call lazysma
//! models, with C11's arguments and results (`thrd_success`, `thrd_busy`,
//! `thrd_timedout`, a thread's `int` result). lazysma's own `threads.h`
//! makes the C11 types the pthreads ones.

use crate::frontend::analysis::scan::uncast;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::Val;
use crate::ir::*;
use lang_c::ast::Expression;
use lang_c::span::{Node, Span};

/// `thrd_busy` and `thrd_timedout` of lazysma's `threads.h` (and glibc's).
const THRD_BUSY: i64 = 1;
const THRD_TIMEDOUT: i64 = 4;
/// The `mtx_recursive` bit of a mutex type.
const MTX_RECURSIVE: i64 = 1;

/// The pthreads call that the C11 call `name` is, where arguments and
/// results are alike.
pub fn pthread_equivalent(name: &str) -> Option<&'static str> {
    Some(match name {
        "thrd_current" => "pthread_self",
        "thrd_equal" => "pthread_equal",
        "thrd_exit" => "pthread_exit",
        "thrd_detach" => "pthread_detach",
        "thrd_yield" => "sched_yield",
        "mtx_lock" => "pthread_mutex_lock",
        "mtx_unlock" => "pthread_mutex_unlock",
        "mtx_destroy" => "pthread_mutex_destroy",
        "cnd_init" => "pthread_cond_init",
        "cnd_destroy" => "pthread_cond_destroy",
        "cnd_signal" => "pthread_cond_signal",
        "cnd_broadcast" => "pthread_cond_broadcast",
        "cnd_wait" => "pthread_cond_wait",
        "call_once" => "pthread_once",
        "tss_create" => "pthread_key_create",
        "tss_get" => "pthread_getspecific",
        "tss_set" => "pthread_setspecific",
        "tss_delete" => "pthread_key_delete",
        _ => return None,
    })
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// The C11 calls whose arguments or results differ from their pthreads
    /// call's; `None` for another name.
    pub fn c11_thread_call(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> Option<LResult<Val>> {
        let needed = match name {
            "thrd_create" => 3,
            "thrd_join" | "mtx_init" => 2,
            "cnd_timedwait" => 3,
            "mtx_trylock" | "thrd_sleep" | "mtx_timedlock" => 1,
            _ => return None,
        };
        if arguments.len() < needed {
            return Some(self.lw.error(
                span,
                format!("`{name}` needs {needed} argument(s)"),
                "too few arguments",
            ));
        }
        Some(match name {
            "thrd_create" => self.create_thread(&arguments[0], &arguments[1], &arguments[2]),
            "thrd_join" => self.join(&arguments[0], Some(&arguments[1]), true),
            "mtx_init" => self.c11_mutex_init(&arguments[0], &arguments[1]),
            "mtx_trylock" => self
                .try_lock(&arguments[0])
                .map(|taken| c11_result(taken, THRD_BUSY)),
            "cnd_timedwait" => self
                .condition_wait("pthread_cond_timedwait", arguments, span)
                .map(|waited| c11_result(waited, THRD_TIMEDOUT)),
            "mtx_timedlock" => self
                .timed_lock(&arguments[0])
                .map(|locked| c11_result(locked, THRD_TIMEDOUT)),
            // any time may pass: the schedules cover it
            _ => Ok(Val::int(0)),
        })
    }

    /// `mtx_init(mutex, type)`: a plain or timed mutex starts free; a
    /// recursive one is refused (its holder may lock it again).
    fn c11_mutex_init(
        &mut self,
        mutex: &'a Node<Expression>,
        kind: &'a Node<Expression>,
    ) -> LResult<Val> {
        if self
            .lw
            .types
            .const_eval(uncast(kind))
            .is_none_or(|kind| kind & MTX_RECURSIVE != 0)
        {
            return self.lw.refuse(
                kind.span,
                "a recursive mutex (or a type that is not a constant)",
                Some("use mtx_plain, with the thread's own count of how often it holds it"),
            );
        }
        let mutex = self.rvalue(mutex)?;
        let mutex = self.lw.location_of(mutex.expr);
        self.emit(StmtKind::Write {
            address: mutex,
            value: Expr::Const(0),
        });
        Ok(Val::int(0))
    }
}

/// A pthreads call's result (0 or an error number) as C11's:
/// `thrd_success`, else `failure`.
fn c11_result(result: Val, failure: i64) -> Val {
    let failed = binary(BinaryOp::Ne, result.expr, Expr::Const(0));
    Val {
        expr: binary(BinaryOp::Mul, failed, Expr::Const(failure)),
        ty: result.ty,
    }
}
