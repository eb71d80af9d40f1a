//! Lowering of C statements and local declarations: structured control
//! flow to `If`/`Loop`, `switch` to conditional gotos, forward `goto` only,
//! and local objects (private, or shared when their address is taken).

use super::initialisers::{Filled, Part};
use crate::frontend::c_types::types::{self, CType};
use crate::frontend::lower::{Binding, BreakTarget, FnLowerer, LResult};
use crate::frontend::values::{LVal, Val};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use std::collections::{BTreeMap, HashSet};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Lowers one statement into the current block.
    pub fn lower_statement(&mut self, s: &'a Node<Statement>) -> LResult<()> {
        if !matches!(s.node, Statement::Compound(_) | Statement::Labeled(_)) {
            self.origin = self.lw.origin(s.span);
        }
        match &s.node {
            Statement::Compound(items) => {
                self.scopes.push(Default::default());
                let result = self.lower_items(items);
                self.scopes.pop();
                result
            }
            Statement::Expression(Some(e)) => self.discard(e),
            Statement::Expression(None) => Ok(()),
            Statement::Labeled(labeled) => self.labeled(&labeled.node, s.span),
            Statement::If(i) => {
                let condition = self.rvalue(&i.node.condition)?.expr;
                let (then_branch, _) =
                    self.in_block(|f| f.lower_statement(&i.node.then_statement))?;
                let (else_branch, _) = match &i.node.else_statement {
                    Some(e) => self.in_block(|f| f.lower_statement(e))?,
                    None => (Vec::new(), ()),
                };
                self.origin = self.lw.origin(s.span);
                self.emit(StmtKind::If {
                    condition,
                    then_branch,
                    else_branch,
                });
                Ok(())
            }
            Statement::While(w) => self.lower_loop(
                true,
                None,
                Some(&w.node.expression),
                &w.node.statement,
                None,
                s.span,
            ),
            Statement::DoWhile(d) => self.lower_loop(
                false,
                None,
                Some(&d.node.expression),
                &d.node.statement,
                None,
                s.span,
            ),
            Statement::For(f) => {
                self.scopes.push(Default::default());
                let result = self.lower_loop(
                    true,
                    Some(&f.node.initializer),
                    f.node.condition.as_deref(),
                    &f.node.statement,
                    f.node.step.as_deref(),
                    s.span,
                );
                self.scopes.pop();
                result
            }
            Statement::Switch(sw) => self.switch(&sw.node, s.span),
            Statement::Goto(label) => {
                let name = &label.node.name;
                if let Some(&again) = self.backward_labels.get(name) {
                    self.emit(StmtKind::Goto(again));
                    return Ok(());
                }
                if self.defined_labels.contains(name) {
                    return self.lw.refuse(
                        s.span,
                        format!("a backward `goto {name}`"),
                        Some("write the loop with `while` or `for`"),
                    );
                }
                let id = self.label(name);
                self.emit(StmtKind::Goto(id));
                Ok(())
            }
            Statement::Continue => {
                if !self.breaks.iter().any(|b| matches!(b, BreakTarget::Loop)) {
                    return self.lw.error(s.span, "`continue` outside a loop", "here");
                }
                self.emit(StmtKind::Continue);
                Ok(())
            }
            Statement::Break => match self.breaks.last() {
                Some(BreakTarget::Loop) => {
                    self.emit(StmtKind::Break);
                    Ok(())
                }
                Some(BreakTarget::Switch(label)) => {
                    let label = *label;
                    self.emit(StmtKind::Goto(label));
                    Ok(())
                }
                None => self
                    .lw
                    .error(s.span, "`break` outside a loop or switch", "here"),
            },
            Statement::Return(value) => {
                let value = match value {
                    Some(e) => match self.return_type.clone() {
                        ty @ CType::Struct(_) => Some(self.struct_value(e, &ty, e.span)?),
                        CType::Void => {
                            self.rvalue(e)?;
                            None
                        }
                        ty => {
                            let v = self.rvalue(e)?;
                            Some(self.convert(v, &ty, e.span)?)
                        }
                    },
                    None => None,
                };
                self.emit(StmtKind::Return(value));
                Ok(())
            }
            Statement::Asm(asm) => self.asm(&asm.node, s.span),
        }
    }

    /// Lowers an expression whose value is unused (`i++` needs no copy of `i`).
    fn discard(&mut self, e: &'a Node<Expression>) -> LResult<()> {
        if let Expression::UnaryOperator(u) = &e.node
            && matches!(
                u.node.operator.node,
                UnaryOperator::PostIncrement | UnaryOperator::PostDecrement
            )
        {
            let op = if u.node.operator.node == UnaryOperator::PostIncrement {
                BinaryOperator::Plus
            } else {
                BinaryOperator::Minus
            };
            let lv = self.lvalue(&u.node.operand)?;
            if let LVal::Shared {
                address,
                ty,
                atomic: true,
            } = &lv
            {
                self.atomic_step(address.clone(), ty, op == BinaryOperator::Plus, e.span)?;
                return Ok(());
            }
            let old = self.load(lv.clone(), e.span)?;
            let one = crate::frontend::values::Val::int(1);
            let new = self.arithmetic(&op, old, one, e.span)?;
            return self.store(&lv, new, e.span);
        }
        if let Expression::Comma(items) = &e.node {
            return items.iter().try_for_each(|item| self.discard(item));
        }
        self.rvalue(e).map(|_| ())
    }

    /// Lowers the items of a block. A label that a later `goto` of the block
    /// jumps back to starts a loop ([`Self::goto_loop`]).
    fn lower_items(&mut self, items: &'a [Node<BlockItem>]) -> LResult<()> {
        for (index, item) in items.iter().enumerate() {
            if let BlockItem::Statement(statement) = &item.node
                && let Statement::Labeled(labeled) = &statement.node
                && let Label::Identifier(name) = &labeled.node.label.node
                && crate::frontend::analysis::scan::goes_to(&name.node.name, &items[index..])
            {
                return self.goto_loop(
                    &name.node.name,
                    &labeled.node.statement,
                    &items[index + 1..],
                    statement.span,
                );
            }
            self.lower_block_item(item)?;
        }
        Ok(())
    }

    /// `label: first; rest...` of a block in which a later `goto label`
    /// jumps back: a loop whose body is `first; rest...` once, a `goto
    /// label` inside going on to the next iteration (`retry: ... if
    /// (!cas) goto retry;`), unrolled like any loop. A `break` or
    /// `continue` there that would leave the body is refused.
    fn goto_loop(
        &mut self,
        label: &str,
        first: &'a Node<Statement>,
        rest: &'a [Node<BlockItem>],
        span: Span,
    ) -> LResult<()> {
        if let Some(jump) = crate::frontend::analysis::scan::leaving_jump(first, rest) {
            return self.lw.refuse(
                jump,
                format!("a `break` or `continue` between the label `{label}` and a `goto {label}` back to it"),
                Some("write the loop with `while` or `for`"),
            );
        }
        // a forward `goto label` enters the loop at its start
        let id = self.label(label);
        self.defined_labels.insert(label.to_string());
        let origin = self.lw.origin(span);
        self.origin = origin;
        self.take_loop_bound(origin);
        self.emit(StmtKind::Label(id, label.to_string()));
        let again = self.fresh_label();
        let outer = self.backward_labels.insert(label.to_string(), again);
        self.breaks.push(BreakTarget::Loop);
        let body = self.in_block(|f| {
            f.lower_statement(first)?;
            f.lower_items(rest)?;
            f.origin = origin;
            f.emit(StmtKind::Break);
            f.emit(StmtKind::Label(again, format!("{label}_again")));
            Ok(())
        });
        self.breaks.pop();
        match outer {
            Some(outer) => self.backward_labels.insert(label.to_string(), outer),
            None => self.backward_labels.remove(label),
        };
        let (body, ()) = body?;
        self.origin = origin;
        self.emit(StmtKind::Loop {
            test_first: true,
            prelude: Vec::new(),
            condition: Expr::Const(1),
            body,
            latch: Vec::new(),
        });
        Ok(())
    }

    /// Lowers a declaration or statement of a block.
    pub fn lower_block_item(&mut self, item: &'a Node<BlockItem>) -> LResult<()> {
        match &item.node {
            BlockItem::Declaration(d) => {
                self.origin = self.lw.origin(item.span);
                self.declaration(d)
            }
            BlockItem::StaticAssert(_) => Ok(()),
            BlockItem::Statement(s) => self.lower_statement(s),
        }
    }

    fn labeled(&mut self, labeled: &'a LabeledStatement, span: Span) -> LResult<()> {
        match &labeled.label.node {
            Label::Identifier(name) => {
                let id = self.label(&name.node.name);
                self.defined_labels.insert(name.node.name.clone());
                self.origin = self.lw.origin(span);
                self.emit(StmtKind::Label(id, name.node.name.clone()));
            }
            Label::Case(value) => {
                let Some(v) = self.lw.types.const_eval(value) else {
                    return self.lw.error(
                        value.span,
                        "case label is not a constant",
                        "not constant",
                    );
                };
                let id = self.fresh_label();
                let Some(cases) = self.cases.last_mut() else {
                    return self.lw.error(span, "`case` outside a switch", "here");
                };
                cases.push((Some(v), id));
                self.emit(StmtKind::Label(id, format!("case_{v}")));
            }
            Label::Default => {
                let id = self.fresh_label();
                let Some(cases) = self.cases.last_mut() else {
                    return self.lw.error(span, "`default` outside a switch", "here");
                };
                cases.push((None, id));
                self.emit(StmtKind::Label(id, "default".into()));
            }
            Label::CaseRange(_) => return self.lw.refuse(span, "a case range", None),
        }
        self.lower_statement(&labeled.statement)
    }

    fn lower_loop(
        &mut self,
        test_first: bool,
        init: Option<&'a Node<ForInitializer>>,
        condition: Option<&'a Node<Expression>>,
        body: &'a Node<Statement>,
        step: Option<&'a Node<Expression>>,
        span: Span,
    ) -> LResult<()> {
        let origin = self.lw.origin(span);
        self.origin = origin;
        self.take_loop_bound(origin);
        match init.map(|i| &i.node) {
            Some(ForInitializer::Declaration(d)) => self.declaration(d)?,
            Some(ForInitializer::Expression(e)) => {
                self.rvalue(e)?;
            }
            _ => {}
        }
        self.breaks.push(BreakTarget::Loop);
        let result = (|| -> LResult<(Block, Block, Expr, Block)> {
            let (body_block, _) = self.in_block(|f| f.lower_statement(body))?;
            self.origin = origin;
            let (prelude, condition) = match condition {
                Some(c) => {
                    self.origin = self.lw.origin(c.span);
                    self.in_block(|f| f.rvalue(c).map(|v| v.expr))?
                }
                None => (Vec::new(), Expr::Const(1)),
            };
            let (latch, _) = match step {
                Some(e) => self.in_block(|f| f.discard(e))?,
                None => (Vec::new(), ()),
            };
            Ok((body_block, prelude, condition, latch))
        })();
        self.breaks.pop();
        let (body, prelude, condition, latch) = result?;
        self.origin = origin;
        self.emit(StmtKind::Loop {
            test_first,
            prelude,
            condition,
            body,
            latch,
        });
        Ok(())
    }

    fn switch(&mut self, sw: &'a SwitchStatement, span: Span) -> LResult<()> {
        if self.constant_switch(sw)? {
            return Ok(());
        }
        let value = self.integer_rvalue(&sw.expression, "a `switch` value")?;
        let value = self.save(value.expr, &value.ty);
        let end = self.fresh_label();
        self.cases.push(Vec::new());
        self.breaks.push(BreakTarget::Switch(end));
        let result = self.in_block(|f| f.lower_statement(&sw.statement));
        self.breaks.pop();
        let cases = self.cases.pop().unwrap_or_default();
        let (body, _) = result?;
        self.origin = self.lw.origin(span);
        let mut default = end;
        for (case, label) in &cases {
            match case {
                Some(v) => self.emit(StmtKind::If {
                    condition: Expr::Binary(
                        BinaryOp::Eq,
                        Box::new(value.clone()),
                        Box::new(Expr::Const(*v)),
                    ),
                    then_branch: vec![Stmt {
                        kind: StmtKind::Goto(*label),
                        origin: self.origin,
                    }],
                    else_branch: Vec::new(),
                }),
                None => default = *label,
            }
        }
        self.emit(StmtKind::Goto(default));
        if let Some(block) = self.blocks.last_mut() {
            block.extend(body);
        }
        self.emit(StmtKind::Label(end, "switch_end".into()));
        Ok(())
    }

    /// A local declaration.
    pub fn declaration(&mut self, d: &'a Node<Declaration>) -> LResult<()> {
        let specs = &d.node.specifiers;
        self.resolve_typeof_in_declaration(specs)?;
        if types::is_typedef(specs) {
            self.lw.types.add_typedef(&d.node);
            return Ok(());
        }
        let is_static = types::has_storage(specs, |s| matches!(s, StorageClassSpecifier::Static));
        let is_extern = types::has_storage(specs, |s| matches!(s, StorageClassSpecifier::Extern));
        if let Some(span) = types::thread_local_specifier(specs) {
            if !is_static && !is_extern {
                return self.lw.error(
                    span,
                    "a thread-local variable inside a function must be `static` or `extern`",
                    "here",
                );
            }
            return self.thread_local_declaration(d, is_static);
        }
        if d.node.declarators.is_empty() {
            self.lw.types.declared_type(specs, None, d.span)?;
        }
        for init in &d.node.declarators {
            let Some(name) = types::declarator_name(&init.node.declarator.node) else {
                continue;
            };
            let name = name.node.name.clone();
            let declared =
                self.lw
                    .types
                    .declared_type(specs, Some(&init.node.declarator), init.span)?;
            let (ty, atomic) = types::atomic_object(specs, declared);
            if let CType::Function(ret, _) = ty {
                self.lw.prototypes.insert(name, ret.without_atomic().0);
                continue;
            }
            if is_extern {
                self.bind(&name, Binding::Global(name.clone()));
                continue;
            }
            if is_static {
                let key = format!("{}::{name}", self.name);
                self.lw.declare_global(
                    &key,
                    ty,
                    init.node.initializer.as_ref(),
                    atomic,
                    init.span,
                )?;
                if let Some(crate::frontend::lower::Global::Shared { base, .. }) =
                    self.lw.globals.get(&key).cloned()
                {
                    self.lw.program.locations.rename_object(base, &name);
                }
                self.bind(&name, Binding::Global(key));
                continue;
            }
            self.local_object(&name, ty, init, atomic)?;
        }
        Ok(())
    }

    /// `static _Thread_local T x;` inside a function (or `extern`): each
    /// thread's own copy, as a file-scope thread-local of the function's
    /// (named `function::x` in the program).
    fn thread_local_declaration(
        &mut self,
        d: &'a Node<Declaration>,
        is_static: bool,
    ) -> LResult<()> {
        for init in &d.node.declarators {
            let Some(name) = types::declarator_name(&init.node.declarator.node) else {
                continue;
            };
            let name = name.node.name.clone();
            if !is_static {
                self.bind(&name, Binding::Global(name.clone()));
                continue;
            }
            let declared = self.lw.types.declared_type(
                &d.node.specifiers,
                Some(&init.node.declarator),
                init.span,
            )?;
            let object = types::atomic_object(&d.node.specifiers, declared);
            let key = format!("{}::{name}", self.name);
            self.lw.declare_thread_local(
                &key,
                object,
                init.node.initializer.as_ref(),
                init.span,
            )?;
            self.bind(&name, Binding::Global(key));
        }
        Ok(())
    }

    fn local_object(
        &mut self,
        name: &str,
        ty: CType,
        init: &'a Node<InitDeclarator>,
        atomic: bool,
    ) -> LResult<()> {
        let span = init.span;
        self.lw.supported_float(&ty, span)?;
        // only an array without a length needs its list read here
        let items = match (&ty, init.node.initializer.as_ref()) {
            (
                CType::Array(_, 0),
                Some(Node {
                    node: Initializer::List(items),
                    ..
                }),
            ) => &items[..],
            _ => &[],
        };
        let struct_values = self.struct_values(items);
        let whole = |expression: &'a Node<Expression>| {
            struct_values.contains(&std::ptr::from_ref(expression))
        };
        let ty = self
            .lw
            .completed_array(ty, init.node.initializer.as_ref(), &whole)?;
        let is_array = matches!(ty, CType::Array(..));
        // a union punning a floating value lives in shared memory, which
        // reads one member's bits as the other
        // a thread handle whose address a function is given (`start(&t)`,
        // which creates the thread) is a handle in shared memory, as one
        // in a global struct or a heap block is
        let shared = match ty.is_thread_data() {
            true => ty.is_thread_handle() && self.address_use.address_taken(name, &ty),
            false => {
                self.address_use.address_taken(name, &ty)
                    || (is_array && self.address_use.used_as_value.contains(name))
                    || atomic
                    || self.lw.types.puns_floating(&ty)
                    || self.lw.types.has_byte_alias(&ty)
            }
        };
        let id = self.new_local(name, ty.clone(), shared);
        if atomic {
            self.atomic_locals.insert(id);
        }
        self.bind(name, Binding::Local(id));
        let target = if shared {
            LVal::Shared {
                address: Expr::ObjectAddress(id),
                ty,
                atomic,
            }
        } else {
            LVal::Private(Place::Local(id), ty)
        };
        if let Some(initializer) = &init.node.initializer {
            if let Initializer::Expression(value) = &initializer.node {
                self.note_address_integer(name, target.ty(), value);
            }
            self.fill(&target, initializer)?;
        }
        Ok(())
    }

    /// Initialises an object: stores the values of an initialiser, and zero
    /// into the elements and fields of a braced list that it does not
    /// mention. Every scalar is stored once (a shared object's stores are
    /// visible statements), except where designators name one twice.
    fn fill(&mut self, target: &LVal, init: &'a Node<Initializer>) -> LResult<()> {
        if let CType::Array(element, length) = target.ty()
            && let Some(literal) = super::strings::array_string_initialiser(element, init)
        {
            let values = self.lw.string_values(literal, element, *length)?;
            return self.fill_characters(target, values, init.span);
        }
        match (&init.node, target.ty().clone()) {
            // A condition variable or attribute has no value here
            // (`PTHREAD_COND_INITIALIZER`).
            (_, CType::Opaque(_)) => Ok(()),
            (Initializer::Expression(e), ty)
                if ty.is_scalar() || matches!(ty, CType::Bool | CType::BitField(_)) =>
            {
                let v = self.rvalue(e)?;
                self.store(&target.initialised(), v, init.span)
            }
            (Initializer::List(items), _) => self.fill_list(target, items, init.span),
            (Initializer::Expression(e), CType::Struct(_)) => {
                let source = self.struct_object(e)?;
                if source.ty() != target.ty() {
                    return self.lw.refuse(
                        init.span,
                        "initialising a struct from one of another type",
                        None,
                    );
                }
                self.copy_struct(&target.initialised(), &source, init.span)
            }
            _ => self.lw.refuse(init.span, "this initialiser", None),
        }
    }

    /// Initialises an object from a braced list (an initialiser's, or a
    /// compound literal's: `(struct node){ .value = 1 }`), with zero for
    /// the elements and fields that the list does not mention.
    pub fn fill_list(
        &mut self,
        target: &LVal,
        items: &'a [Node<InitializerListItem>],
        span: Span,
    ) -> LResult<()> {
        let ty = target.ty().clone();
        if ty.is_scalar() {
            return match items.first() {
                Some(item) => self.fill(target, &item.node.initializer),
                None => self.store(target, Val::int(0), span),
            };
        }
        if !matches!(ty, CType::Array(..) | CType::Struct(_)) {
            return self.lw.refuse(span, "this initialiser", None);
        }
        // the expressions that initialise a struct subobject whole
        let struct_values = self.struct_values(items);
        let whole = |expression: &'a Node<Expression>| {
            struct_values.contains(&std::ptr::from_ref(expression))
        };
        let parts = self.lw.braced_initialiser(&ty, items, &whole)?;
        self.fill_parts(target, &parts, span)
    }

    /// The expressions among `items` (nested lists included) whose type is
    /// a struct: they initialise a struct subobject whole
    /// ([`Lowerer::braced_initialiser`](crate::frontend::lower::Lowerer)).
    fn struct_values(
        &mut self,
        items: &'a [Node<InitializerListItem>],
    ) -> HashSet<*const Node<Expression>> {
        let mut values = HashSet::new();
        for item in items {
            match &item.node.initializer.node {
                // a literal, `sizeof` or a cast is never a struct: no need
                // to lower it once more to find its type (a string literal
                // would leave its characters in shared memory)
                Initializer::Expression(e) if !may_be_struct(e) => {}
                Initializer::Expression(e) => {
                    if matches!(self.type_of(e), Ok(CType::Struct(_))) {
                        values.insert(std::ptr::from_ref(&**e));
                    }
                }
                Initializer::List(inner) => values.extend(self.struct_values(inner)),
            }
        }
        values
    }

    /// Stores what a braced initialiser gives the subobjects of the array
    /// or struct `target` ([`Lowerer::braced_initialiser`]), and zero into
    /// the others.
    fn fill_parts(
        &mut self,
        target: &LVal,
        parts: &BTreeMap<u64, Part<'a>>,
        span: Span,
    ) -> LResult<()> {
        match target.ty().clone() {
            CType::Array(_, n) => {
                for index in 0..n {
                    let element = self.element(target, index);
                    match parts.get(&index) {
                        Some(part) => self.fill_filled(&element, &part.filled, span)?,
                        None => self.zero(&element, span)?,
                    }
                }
                Ok(())
            }
            CType::Struct(id) => {
                // bit-field members one by one, each stored into its unit
                let members = self.lw.types.members(id, span)?;
                for (position, field) in members.iter().enumerate() {
                    if self.lw.types.is_padding(id, field) {
                        continue;
                    }
                    match parts.get(&(position as u64)) {
                        Some(part) => {
                            // a union of scalars' other member names its first
                            let field = part.alias.as_ref().unwrap_or(field);
                            let member = self.member(target, id, field, span)?;
                            self.fill_filled(&member, &part.filled, span)?;
                        }
                        None => {
                            let member = self.member(target, id, field, span)?;
                            self.zero(&member, span)?;
                        }
                    }
                }
                Ok(())
            }
            _ => self.lw.refuse(span, "this initialiser", None),
        }
    }

    /// Stores what `filled` gives the object `target`.
    fn fill_filled(&mut self, target: &LVal, filled: &Filled<'a>, span: Span) -> LResult<()> {
        match filled {
            Filled::Value(init) => self.fill(target, init),
            Filled::Parts(parts) => self.fill_parts(target, parts, span),
        }
    }

    /// Stores the characters of a string, then zeros, into the character
    /// array `target`, one element after the other.
    fn fill_characters(&mut self, target: &LVal, values: Vec<i64>, span: Span) -> LResult<()> {
        let element_ty = target.ty().target().cloned().unwrap_or(CType::INT);
        for (index, value) in values.into_iter().enumerate() {
            let element = self.element(target, index as u64);
            let value = Val {
                expr: Expr::Const(value),
                ty: element_ty.clone(),
            };
            self.store(&element.initialised(), value, span)?;
        }
        Ok(())
    }

    /// Element `index` of the array object `target`.
    pub fn element(&self, target: &LVal, index: u64) -> LVal {
        let element = target.ty().target().cloned().unwrap_or(CType::INT);
        match target {
            LVal::Private(place, _) => LVal::Private(
                Place::Index(Box::new(place.clone()), Box::new(Expr::Const(index as i64))),
                element,
            ),
            LVal::Shared {
                address, atomic, ..
            } => {
                let offset = index as i64 * self.lw.types.size(&element) as i64;
                LVal::Shared {
                    address: crate::frontend::lower::binary(
                        BinaryOp::Add,
                        address.clone(),
                        Expr::Const(offset),
                    ),
                    ty: element,
                    atomic: *atomic,
                }
            }
        }
    }

    /// Stores zero into every scalar of an object.
    fn zero(&mut self, target: &LVal, span: Span) -> LResult<()> {
        self.fill_bytes(target, 0, span)
    }

    /// Stores into every scalar of an object the value whose bytes are all
    /// `byte` (`memset`), one scalar after the other. Only integers take
    /// other bytes than 0: a pointer, `_Bool` or mutex of other bytes has
    /// no value here.
    pub fn fill_bytes(&mut self, target: &LVal, byte: u8, span: Span) -> LResult<()> {
        match target.ty().clone() {
            CType::Array(_, n) => (0..n).try_for_each(|i| {
                let element = self.element(target, i);
                self.fill_bytes(&element, byte, span)
            }),
            CType::Struct(id) => {
                let fields = self.lw.types.fields(id, span)?.to_vec();
                for (field, _) in fields {
                    let member = self.member(target, id, &field, span)?;
                    self.fill_bytes(&member, byte, span)?;
                }
                Ok(())
            }
            CType::ThreadHandle | CType::Opaque(_) => Ok(()),
            _ if byte == 0 => self.store(&target.initialised(), Val::int(0), span),
            CType::Int { bits, signed } => {
                let repeated = (0..bits / 8).fold(0i64, |value, _| (value << 8) | i64::from(byte));
                let value = Val {
                    expr: Expr::Const(types::truncate(repeated, bits, signed)),
                    ty: target.ty().clone(),
                };
                self.store(&target.initialised(), value, span)
            }
            other => {
                let kind = match other {
                    CType::Pointer(_) => "pointer",
                    CType::Bool => "`_Bool`",
                    CType::Mutex => "mutex",
                    _ => "floating-point number",
                };
                self.lw.refuse(
                    span,
                    format!("setting the bytes of a {kind} to {byte:#04x}"),
                    Some("only integers take bytes other than 0 here; store the value you mean"),
                )
            }
        }
    }
}

/// Whether the value of `e` may be a struct, by its form: not a literal,
/// `sizeof`, `_Alignof` or a cast, nor an operator other than `*`.
fn may_be_struct(e: &Node<Expression>) -> bool {
    match &e.node {
        Expression::Constant(_)
        | Expression::StringLiteral(_)
        | Expression::SizeOfTy(_)
        | Expression::SizeOfVal(_)
        | Expression::AlignOf(_)
        | Expression::Cast(_) => false,
        Expression::UnaryOperator(unary) => {
            matches!(unary.node.operator.node, UnaryOperator::Indirection)
        }
        _ => true,
    }
}
