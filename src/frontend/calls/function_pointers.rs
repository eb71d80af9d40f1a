//! Calls through function pointers: a pointer to a function is the
//! function's number ([`crate::frontend::lower::function_number`]), and a
//! call through one chooses among the functions the program uses as values
//! ([`crate::frontend::lower::Lowerer::function_values`]) by comparing
//! numbers, each choice an ordinary call.

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, LResult, binary, function_number};
use crate::frontend::values::Val;
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// `callee(arguments)` where `callee` is a pointer to a function
    /// (`fp(x)`, `(*fp)(x)`, `ops->get(x)`): the call of the function it
    /// points to, among those the program uses as values that take as many
    /// arguments and return a value or not alike. A pointer to none of them
    /// (`NULL`) is a violation.
    pub fn pointer_call(
        &mut self,
        callee: &'a Node<Expression>,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let callee = match &callee.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                &*u.node.operand
            }
            _ => callee,
        };
        let pointer = self.rvalue(callee)?;
        let return_type = match &pointer.ty {
            CType::Pointer(target) => match &**target {
                CType::Function(return_type, _) => (**return_type).clone(),
                _ => return self.not_a_function(callee.span),
            },
            CType::Function(return_type, _) => (**return_type).clone(),
            _ => return self.not_a_function(callee.span),
        };
        let pointer = self.save(pointer.expr, &pointer.ty);
        let result = (return_type != CType::Void).then(|| self.temp(&return_type));
        let arity = arguments.len();
        // recursion is refused: executions that would take it are cut off
        let itself = self.fitting(&self.name, arity, &return_type);
        if itself.is_some() {
            self.warn_recursive_pointer_call(span);
        }
        let targets = self.pointer_targets(arity, &return_type);
        self.dispatch(&pointer, targets, itself, |f, function, name| {
            let value = f.user_call(function, name, arguments, span)?;
            if let Some(result) = result {
                let value = f.convert(value, &return_type, span)?;
                f.emit(StmtKind::Assign(Place::Local(result), value));
            }
            Ok(())
        })?;
        Ok(match result {
            Some(result) => Val {
                expr: Expr::Load(Place::Local(result)),
                ty: return_type,
            },
            None => Val::void(),
        })
    }

    /// `pthread_create(&handle, attributes, routine, argument)` where
    /// `routine` is a pointer to a function (`routines[i]`): the creation
    /// of a thread running the function it points to, among those the
    /// program uses as values that take one argument and return a value.
    pub fn create_through_pointer(
        &mut self,
        routine: &'a Node<Expression>,
        argument: &'a Node<Expression>,
        handle: &Place,
    ) -> LResult<()> {
        let pointer = self.rvalue(routine)?;
        if !matches!(&pointer.ty, CType::Pointer(target) if matches!(**target, CType::Function(..)))
        {
            return self.lw.refuse(
                routine.span,
                "a thread entry that is not a function defined in the program",
                Some("name the thread function, or pass a pointer to one"),
            );
        }
        let pointer = self.save(pointer.expr, &pointer.ty);
        let argument = self.rvalue(argument)?;
        let argument = self.save(argument.expr, &argument.ty);
        let targets = self.pointer_targets(1, &CType::Pointer(Box::new(CType::Void)));
        self.dispatch(&pointer, targets, None, |f, function, _| {
            f.emit(StmtKind::ThreadCreate {
                handle: handle.clone(),
                function,
                argument: argument.clone(),
            });
            Ok(())
        })
    }

    /// Emits, for the pointer to a function `pointer`, the statements `body`
    /// lowers for each of `targets` when it points to that one; a pointer to
    /// `cut_off` ends the execution, one to none of them is a violation.
    fn dispatch(
        &mut self,
        pointer: &Expr,
        targets: Vec<(FunctionId, String)>,
        cut_off: Option<FunctionId>,
        mut body: impl FnMut(&mut Self, FunctionId, &str) -> LResult<()>,
    ) -> LResult<()> {
        let origin = self.origin;
        let at = |kind| Stmt { kind, origin };
        let points_to = |function| {
            binary(
                BinaryOp::Eq,
                pointer.clone(),
                Expr::Const(function_number(function)),
            )
        };
        let mut otherwise = vec![
            at(StmtKind::Assert {
                condition: Expr::Const(0),
                kind: PropertyKind::InvalidFunctionPointer,
            }),
            at(StmtKind::Assume(Expr::Const(0))),
        ];
        if let Some(function) = cut_off {
            let end = vec![at(StmtKind::Assume(Expr::Const(0)))];
            otherwise = vec![at(StmtKind::If {
                condition: points_to(function),
                then_branch: end,
                else_branch: otherwise,
            })];
        }
        for (function, name) in targets.into_iter().rev() {
            let (chosen, ()) = self.in_block(|f| body(f, function, &name))?;
            otherwise = vec![at(StmtKind::If {
                condition: points_to(function),
                then_branch: chosen,
                else_branch: otherwise,
            })];
        }
        for stmt in otherwise {
            self.emit(stmt.kind);
        }
        Ok(())
    }

    /// The functions a pointer to a function taking `arity` arguments and
    /// returning `return_type` may reach, in the order of their definitions:
    /// those used as values whose signature fits. The function being
    /// lowered is left out (recursion is refused: [`Self::pointer_call`]
    /// cuts off the executions that would call it).
    fn pointer_targets(&self, arity: usize, return_type: &CType) -> Vec<(FunctionId, String)> {
        let mut targets: Vec<(FunctionId, String)> = self
            .lw
            .function_values
            .iter()
            .filter(|name| **name != self.name)
            .filter_map(|name| Some((self.fitting(name, arity, return_type)?, name.clone())))
            .collect();
        targets.sort();
        targets
    }

    /// The function `name` if the program uses it as a value and it takes
    /// `arity` arguments (or fewer and `...`) and returns a value or not as
    /// `return_type` does.
    fn fitting(&self, name: &str, arity: usize, return_type: &CType) -> Option<FunctionId> {
        if !self.lw.function_values.contains(name) {
            return None;
        }
        let &function = self.lw.functions.get(name)?;
        let (parameters, returns) = self.lw.signatures.get(&function)?;
        let takes = parameters.len() == arity
            || (self.lw.variadic.contains(&function) && parameters.len() < arity);
        let fits = takes && (*returns == CType::Void) == (*return_type == CType::Void);
        fits.then_some(function)
    }

    /// Warns that the call through a pointer at `span` may reach the
    /// function it is in.
    fn warn_recursive_pointer_call(&mut self, span: Span) {
        let mut warning = self.lw.source.diagnostic(
            span.start,
            span.end,
            format!("this call through a function pointer may reach `{}` itself", self.name),
            "may call its own function",
            Some("recursion is not supported: executions in which the pointer points to this function are cut off".to_string()),
        );
        warning.severity = crate::diagnostics::Severity::Warning;
        self.lw.program.warnings.push(warning);
    }

    fn not_a_function(&self, span: Span) -> LResult<Val> {
        self.lw.error(
            span,
            "called object is not a function or a pointer to a function",
            "not a function",
        )
    }
}
