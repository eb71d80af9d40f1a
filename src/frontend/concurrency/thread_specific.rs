//! Thread-specific data (`pthread_key_create`, `pthread_setspecific`,
//! `pthread_getspecific`, `pthread_key_delete`): a key is a number given
//! out in creation order, and every thread has its own value per key, each
//! starting at `NULL` (plain globals of the sequential program: the values
//! pass through the thread library, not through shared memory).

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, KeyTables, LResult, Lowerer, binary};
use crate::frontend::values::Val;
use crate::ir::*;
use lang_c::ast::Expression;
use lang_c::span::{Node, Span};

/// The most keys a program may create: an execution that creates more is
/// cut off.
pub const MAX_KEYS: i64 = 8;

impl Lowerer<'_> {
    fn key_tables(&mut self) -> KeyTables {
        if let Some(tables) = self.key_tables {
            return tables;
        }
        self.program.plain_globals.push(PlainGlobal {
            name: "keys_created".into(),
            ty: Ty::INT,
        });
        let created = self.program.plain_globals.len() - 1;
        let values = self.per_thread_global(
            "key_values",
            Ty::Array(Box::new(PER_THREAD_VALUE), MAX_KEYS as u64),
            0,
        );
        let tables = KeyTables { created, values };
        self.key_tables = Some(tables);
        tables
    }
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// One of the thread-specific data calls `name`.
    pub fn thread_specific(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let needed = match name {
            "pthread_key_create" | "pthread_setspecific" => 2,
            _ => 1,
        };
        if arguments.len() < needed {
            return self.lw.error(
                span,
                format!("`{name}` needs {needed} argument(s)"),
                "too few arguments",
            );
        }
        let tables = self.lw.key_tables();
        let created = Place::PlainGlobal(tables.created);
        match name {
            "pthread_key_create" => {
                // the destructor is not run at thread exit: values it would
                // free stay allocated, which hides no violation of the program
                let key = self.pointer_argument(&arguments[0])?;
                self.emit(StmtKind::Assume(binary(
                    BinaryOp::Lt,
                    Expr::Load(created.clone()),
                    Expr::Const(MAX_KEYS),
                )));
                self.store(
                    &key,
                    Val {
                        expr: Expr::Load(created.clone()),
                        ty: CType::UINT,
                    },
                    span,
                )?;
                self.emit(StmtKind::Assign(
                    created.clone(),
                    binary(BinaryOp::Add, Expr::Load(created), Expr::Const(1)),
                ));
                Ok(Val::int(0))
            }
            "pthread_setspecific" => {
                let slot = self.key_value(&arguments[0], tables)?;
                let value = self.rvalue(&arguments[1])?;
                let value = self.convert(value, &CType::LONG, span)?;
                self.emit(StmtKind::Assign(slot, value));
                Ok(Val::int(0))
            }
            "pthread_getspecific" => {
                let slot = self.key_value(&arguments[0], tables)?;
                let void_pointer = CType::Pointer(Box::new(CType::Void));
                let expr = Expr::Cast(
                    self.lw.types.ir_type(&void_pointer),
                    Box::new(Expr::Load(slot)),
                );
                Ok(Val {
                    expr,
                    ty: void_pointer,
                })
            }
            _ => {
                self.rvalue(&arguments[0])?;
                Ok(Val::int(0))
            }
        }
    }

    /// The running thread's value of the key `key`, a key created before
    /// (an execution that uses another number is cut off).
    fn key_value(&mut self, key: &'a Node<Expression>, tables: KeyTables) -> LResult<Place> {
        let key = self.rvalue(key)?;
        let key = self.save(key.expr, &key.ty);
        let created = Expr::Load(Place::PlainGlobal(tables.created));
        self.emit(StmtKind::Assume(binary(BinaryOp::Lt, key.clone(), created)));
        let values = Place::plain_element(tables.values, Expr::CurrentThread);
        Ok(Place::Index(Box::new(values), Box::new(key)))
    }
}

/// Whether `name` is a thread-specific data call.
pub fn is_thread_specific_call(name: &str) -> bool {
    matches!(
        name,
        "pthread_key_create" | "pthread_setspecific" | "pthread_getspecific" | "pthread_key_delete"
    )
}
