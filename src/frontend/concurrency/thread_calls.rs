//! Threads: `pthread_create` (the start routine named, the handle where
//! the program keeps it), `pthread_join` and the results threads return.

use crate::frontend::analysis::scan::uncast;
use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, LResult};
use crate::frontend::values::{LVal, Val};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
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
    pub(in crate::frontend) fn protect_earlier(&mut self, values: &mut [Expr], mark: usize) {
        for earlier in values.iter_mut() {
            let e = std::mem::replace(earlier, Expr::Const(0));
            *earlier = self.protect(e, &CType::LONG, mark);
        }
    }

    /// Stores the result of the joined thread `handle` where `pointer`
    /// points: a `void *`, or with `c11` an `int`.
    pub(in crate::frontend) fn collect_thread_result(
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

    pub(in crate::frontend) fn thread_create(
        &mut self,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
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
}
