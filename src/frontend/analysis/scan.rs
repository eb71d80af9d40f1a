//! Pre-scans of the syntax: which local names have their address taken
//! (they become shared objects) and which are used as a value rather than
//! indexed (arrays that decay to a pointer are shared too); how struct
//! members are named, addressed and used; jumps.

use crate::frontend::c_types::types::MemberUses;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};
use std::collections::HashSet;

/// Names whose storage must live in shared memory.
#[derive(Debug, Default)]
pub struct AddressUse {
    /// Roots of `&expr`.
    address_taken: HashSet<String>,
    /// Roots of `&expr` that `[]` applies to directly (`&p[1].f`): an
    /// array's address, but only a pointer's value.
    indexed_address: HashSet<String>,
    /// Identifiers used as values (not as the base of `[]` or a `sizeof` operand).
    pub used_as_value: HashSet<String>,
    /// Offsets of `&x` operands that the builtins handle without sharing `x`.
    exempt: HashSet<usize>,
    /// Offsets of identifiers that are indexed or measured.
    not_value: HashSet<usize>,
    /// The functions the program defines: a call of one is a call of its
    /// body, even if a builtin has its name (no exemptions then).
    program_functions: HashSet<String>,
}

/// Builtins whose pointer argument at this index may point to private data.
pub fn private_pointer_argument(function: &str) -> Option<usize> {
    match function {
        "atomic_compare_exchange_strong"
        | "atomic_compare_exchange_strong_explicit"
        | "atomic_compare_exchange_weak"
        | "atomic_compare_exchange_weak_explicit"
        | "__atomic_compare_exchange_n"
        | "__atomic_compare_exchange" => Some(1),
        "pthread_create" | "pthread_join" | "thrd_create" => Some(0),
        _ => None,
    }
}

/// Builtins that take these arguments as objects (`&x` or an array `a`),
/// private ones included, without keeping their addresses.
pub fn private_object_arguments(function: &str) -> &'static [usize] {
    match function {
        "memset" | "__builtin_memset" => &[0],
        "memcpy" | "__builtin_memcpy" | "memmove" | "__builtin_memmove" => &[0, 1],
        _ => &[],
    }
}

/// Strips casts around an expression.
pub fn uncast(e: &Node<Expression>) -> &Node<Expression> {
    match &e.node {
        Expression::Cast(c) => uncast(&c.node.expression),
        _ => e,
    }
}

/// The variable at the root of an lvalue such as `s.f[2]`, and whether
/// `[]` applies to it directly (`p[2].f`).
fn lvalue_root(e: &Expression) -> Option<(&str, bool)> {
    let (inner, indexed) = match e {
        Expression::Identifier(id) => return Some((&id.node.name, false)),
        Expression::Member(m) if m.node.operator.node == MemberOperator::Direct => {
            (&m.node.expression.node, false)
        }
        Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
            (&b.node.lhs.node, true)
        }
        _ => return None,
    };
    match inner {
        Expression::Identifier(id) => Some((&id.node.name, indexed)),
        inner => lvalue_root(inner),
    }
}

impl AddressUse {
    /// Scans a function body; `program_functions` are the functions the
    /// program defines.
    pub fn of(body: &Node<Statement>, program_functions: HashSet<String>) -> AddressUse {
        let mut scan = AddressUse {
            program_functions,
            ..AddressUse::default()
        };
        scan.visit_statement(&body.node, &body.span);
        scan
    }

    /// Whether the variable `name` of type `ty` has its address taken:
    /// `&x`, `&s.f`, `&a[1]` of an array `a`, but not `&p[1]` of a
    /// pointer `p`, which is `p + 1`.
    pub fn address_taken(&self, name: &str, ty: &crate::frontend::c_types::types::CType) -> bool {
        self.address_taken.contains(name)
            || (self.indexed_address.contains(name)
                && !matches!(ty, crate::frontend::c_types::types::CType::Pointer(_)))
    }
}

impl<'ast> Visit<'ast> for AddressUse {
    fn visit_call_expression(&mut self, call: &'ast CallExpression, span: &'ast Span) {
        let builtin = match &call.callee.node {
            Expression::Identifier(id) if !self.program_functions.contains(&id.node.name) => {
                Some(id)
            }
            _ => None,
        };
        if let Some(id) = builtin
            && let Some(index) = private_pointer_argument(&id.node.name)
            && let Some(argument) = call.arguments.get(index)
        {
            self.exempt.insert(argument.span.start);
        }
        if let Some(id) = builtin {
            for index in private_object_arguments(&id.node.name) {
                let Some(argument) = call.arguments.get(*index) else {
                    continue;
                };
                let object = uncast(argument);
                match &object.node {
                    Expression::UnaryOperator(_) => self.exempt.insert(object.span.start),
                    _ => self.not_value.insert(object.span.start),
                };
            }
        }
        visit::visit_call_expression(self, call, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        unary: &'ast UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        if unary.operator.node == UnaryOperator::Address
            && !self.exempt.contains(&span.start)
            && let Some((name, indexed)) = lvalue_root(&unary.operand.node)
        {
            let names = if indexed {
                &mut self.indexed_address
            } else {
                &mut self.address_taken
            };
            names.insert(name.to_string());
        }
        visit::visit_unary_operator_expression(self, unary, span);
    }

    fn visit_binary_operator_expression(
        &mut self,
        binary: &'ast BinaryOperatorExpression,
        span: &'ast Span,
    ) {
        if binary.operator.node == BinaryOperator::Index {
            self.not_value.insert(binary.lhs.span.start);
        }
        visit::visit_binary_operator_expression(self, binary, span);
    }

    fn visit_sizeofval(&mut self, sizeof: &'ast SizeOfVal, span: &'ast Span) {
        self.not_value.insert(sizeof.0.span.start);
        visit::visit_sizeofval(self, sizeof, span);
    }

    fn visit_expression(&mut self, expression: &'ast Expression, span: &'ast Span) {
        if let Expression::Identifier(id) = expression
            && !self.not_value.contains(&span.start)
        {
            self.used_as_value.insert(id.node.name.clone());
        }
        visit::visit_expression(self, expression, span);
    }
}

/// The names used as values anywhere in the unit (not as the callee of a
/// call, nor as the start routine of `pthread_create` or `pthread_once`):
/// the functions among them are those a call through a function pointer
/// may reach.
pub fn names_used_as_values(unit: &TranslationUnit) -> HashSet<String> {
    let mut scan = ValueNames::default();
    scan.visit_translation_unit(unit);
    scan.names
}

#[derive(Default)]
struct ValueNames {
    names: HashSet<String>,
    /// Offsets of identifiers that name a function without taking its value.
    named_only: HashSet<usize>,
}

impl<'ast> Visit<'ast> for ValueNames {
    fn visit_call_expression(&mut self, call: &'ast CallExpression, span: &'ast Span) {
        self.named_only.insert(call.callee.span.start);
        let routine = match &call.callee.node {
            Expression::Identifier(id) if id.node.name == "pthread_create" => Some(2),
            Expression::Identifier(id)
                if matches!(
                    id.node.name.as_str(),
                    "pthread_once" | "thrd_create" | "call_once"
                ) =>
            {
                Some(1)
            }
            _ => None,
        };
        if let Some(argument) = routine.and_then(|index| call.arguments.get(index)) {
            let routine = uncast(argument);
            let routine = match &routine.node {
                Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                    &*u.node.operand
                }
                _ => routine,
            };
            self.named_only.insert(routine.span.start);
        }
        visit::visit_call_expression(self, call, span);
    }

    fn visit_expression(&mut self, expression: &'ast Expression, span: &'ast Span) {
        if let Expression::Identifier(id) = expression
            && !self.named_only.contains(&span.start)
        {
            self.names.insert(id.node.name.clone());
        }
        visit::visit_expression(self, expression, span);
    }
}

/// The names whose address `&name` the unit takes anywhere (in a function
/// or in an initialiser): a `const` global among them is an object in
/// memory, not a named constant.
pub fn names_with_address_taken(unit: &TranslationUnit) -> HashSet<String> {
    let mut scan = AddressedNames::default();
    scan.visit_translation_unit(unit);
    scan.names
}

#[derive(Default)]
struct AddressedNames {
    names: HashSet<String>,
}

impl<'ast> Visit<'ast> for AddressedNames {
    fn visit_unary_operator_expression(
        &mut self,
        unary: &'ast UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        if unary.operator.node == UnaryOperator::Address
            && let Some((name, _)) = lvalue_root(&uncast(&unary.operand).node)
        {
            self.names.insert(name.to_string());
        }
        visit::visit_unary_operator_expression(self, unary, span);
    }
}

/// Whether a `goto label` occurs in `items`, at any depth.
pub fn goes_to(label: &str, items: &[Node<BlockItem>]) -> bool {
    let mut scan = Jumps {
        label,
        ..Jumps::default()
    };
    for item in items {
        scan.visit_block_item(&item.node, &item.span);
    }
    scan.goes_to
}

/// The first `break` or `continue` of the statement `first` and the items
/// `rest` that leaves them: one that no loop of theirs encloses (nor, for
/// a `break`, a `switch`).
pub fn leaving_jump(first: &Node<Statement>, rest: &[Node<BlockItem>]) -> Option<Span> {
    let mut scan = Jumps::default();
    scan.visit_statement(&first.node, &first.span);
    for item in rest {
        scan.visit_block_item(&item.node, &item.span);
    }
    scan.leaving
}

#[derive(Default)]
struct Jumps<'l> {
    label: &'l str,
    goes_to: bool,
    loops: usize,
    switches: usize,
    leaving: Option<Span>,
}

impl<'ast> Visit<'ast> for Jumps<'_> {
    fn visit_statement(&mut self, statement: &'ast Statement, span: &'ast Span) {
        match statement {
            Statement::Goto(label) if label.node.name == self.label => self.goes_to = true,
            Statement::Break if self.loops == 0 && self.switches == 0 => {
                self.leaving.get_or_insert(*span);
            }
            Statement::Continue if self.loops == 0 => {
                self.leaving.get_or_insert(*span);
            }
            Statement::While(_) | Statement::DoWhile(_) | Statement::For(_) => {
                self.loops += 1;
                visit::visit_statement(self, statement, span);
                self.loops -= 1;
                return;
            }
            Statement::Switch(_) => {
                self.switches += 1;
                visit::visit_statement(self, statement, span);
                self.switches -= 1;
                return;
            }
            _ => {}
        }
        visit::visit_statement(self, statement, span);
    }
}

/// Whether the identifier `name` occurs in `body`.
pub fn mentions(name: &str, body: &Node<Statement>) -> bool {
    let mut scan = Mentions { name, found: false };
    scan.visit_statement(&body.node, &body.span);
    scan.found
}

struct Mentions<'n> {
    name: &'n str,
    found: bool,
}

impl<'ast> Visit<'ast> for Mentions<'_> {
    fn visit_identifier(&mut self, identifier: &'ast Identifier, span: &'ast Span) {
        self.found |= identifier.name == self.name;
        visit::visit_identifier(self, identifier, span);
    }
}

/// Whether the call of `function` accesses exactly the object its
/// pointer arguments point to (atomics, locks, condition variables,
/// semaphores, the kernel's `__read_once_size`): `&q->head` passed to
/// one reaches nothing beside `head`.
pub fn accesses_exactly(function: &str) -> bool {
    const PREFIXES: [&str; 12] = [
        "atomic_",
        "__atomic_",
        "__c11_atomic_",
        "__sync_",
        "pthread_",
        "__VERIFIER_",
        "mtx_",
        "cnd_",
        "sem_",
        "tss_",
        "call_once",
        "__builtin_ia32_",
    ];
    PREFIXES.iter().any(|prefix| function.starts_with(prefix))
        || matches!(
            function,
            "__read_once_size" | "__write_once_size" | "_mm_clflush"
        )
}

/// How the unit uses struct members ([`MemberUses`]).
pub fn member_uses(unit: &TranslationUnit) -> MemberUses {
    let mut scan = MemberScan::default();
    scan.visit_translation_unit(unit);
    scan.uses
}

#[derive(Default)]
struct MemberScan {
    uses: MemberUses,
    /// Offsets of `&` operands that an atomic or synchronisation call
    /// takes as its object.
    exempt: HashSet<usize>,
    /// Offsets of member expressions that are indexed, measured or whose
    /// address is taken.
    not_value: HashSet<usize>,
    /// The functions the unit defines: a call of one is no library call.
    defined: HashSet<String>,
}

/// The members of the chain of an lvalue such as `p->a.b[2].c`: `c`, `b`,
/// `a`.
fn member_chain<'e>(e: &'e Expression, names: &mut Vec<&'e str>) {
    match e {
        Expression::Member(m) => {
            names.push(&m.node.identifier.node.name);
            member_chain(&m.node.expression.node, names);
        }
        Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
            member_chain(&b.node.lhs.node, names);
        }
        Expression::Cast(c) => member_chain(&c.node.expression.node, names),
        _ => {}
    }
}

impl<'ast> Visit<'ast> for MemberScan {
    fn visit_translation_unit(&mut self, unit: &'ast TranslationUnit) {
        for external in &unit.0 {
            if let ExternalDeclaration::FunctionDefinition(f) = &external.node
                && let Some(name) =
                    crate::frontend::c_types::types::declarator_name(&f.node.declarator.node)
            {
                self.defined.insert(name.node.name.clone());
            }
        }
        visit::visit_translation_unit(self, unit);
    }

    fn visit_call_expression(&mut self, call: &'ast CallExpression, span: &'ast Span) {
        if let Expression::Identifier(id) = &call.callee.node
            && !self.defined.contains(&id.node.name)
            && accesses_exactly(&id.node.name)
        {
            for argument in &call.arguments {
                let object = uncast(argument);
                if let Expression::UnaryOperator(u) = &object.node
                    && u.node.operator.node == UnaryOperator::Address
                {
                    self.exempt.insert(object.span.start);
                }
            }
        }
        visit::visit_call_expression(self, call, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        unary: &'ast UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        if unary.operator.node == UnaryOperator::Address {
            self.not_value.insert(uncast(&unary.operand).span.start);
            if !self.exempt.contains(&span.start) {
                let mut names = Vec::new();
                member_chain(&unary.operand.node, &mut names);
                self.uses
                    .addressed
                    .extend(names.into_iter().map(str::to_string));
            }
        }
        visit::visit_unary_operator_expression(self, unary, span);
    }

    fn visit_binary_operator_expression(
        &mut self,
        binary: &'ast BinaryOperatorExpression,
        span: &'ast Span,
    ) {
        if binary.operator.node == BinaryOperator::Index {
            self.not_value.insert(binary.lhs.span.start);
        }
        visit::visit_binary_operator_expression(self, binary, span);
    }

    fn visit_sizeofval(&mut self, sizeof: &'ast SizeOfVal, span: &'ast Span) {
        self.not_value.insert(sizeof.0.span.start);
        visit::visit_sizeofval(self, sizeof, span);
    }

    fn visit_expression(&mut self, expression: &'ast Expression, span: &'ast Span) {
        if let Expression::Member(member) = expression {
            let name = &member.node.identifier.node.name;
            self.uses.named.insert(name.clone());
            if !self.not_value.contains(&span.start) {
                self.uses.as_values.insert(name.clone());
            }
        }
        visit::visit_expression(self, expression, span);
    }

    fn visit_designator(&mut self, designator: &'ast Designator, span: &'ast Span) {
        if let Designator::Member(name) = designator {
            self.uses.named.insert(name.node.name.clone());
        }
        visit::visit_designator(self, designator, span);
    }

    fn visit_offset_designator(&mut self, designator: &'ast OffsetDesignator, span: &'ast Span) {
        self.uses.named.insert(designator.base.node.name.clone());
        visit::visit_offset_designator(self, designator, span);
    }

    fn visit_offset_member(&mut self, member: &'ast OffsetMember, span: &'ast Span) {
        if let OffsetMember::Member(name) | OffsetMember::IndirectMember(name) = member {
            self.uses.named.insert(name.node.name.clone());
        }
        visit::visit_offset_member(self, member, span);
    }
}

/// The largest depth a `__VERIFIER_loop_bound(n)` of the unit gives with
/// a literal `n` (0 without one): before lowering, it sizes what the
/// deepest unrolling sizes (arrays of thread handles).
pub fn deepest_loop_bound(unit: &TranslationUnit) -> u32 {
    let mut scan = LoopBounds::default();
    scan.visit_translation_unit(unit);
    scan.deepest
}

#[derive(Default)]
struct LoopBounds {
    deepest: u32,
}

impl<'ast> Visit<'ast> for LoopBounds {
    fn visit_call_expression(&mut self, call: &'ast CallExpression, span: &'ast Span) {
        if let Expression::Identifier(id) = &call.callee.node
            && id.node.name == "__VERIFIER_loop_bound"
            && let Some(Expression::Constant(c)) = call.arguments.first().map(|a| &a.node)
            && let Some(depth) = crate::frontend::c_types::constants::constant_value(&c.node)
        {
            let depth = u32::try_from(depth).unwrap_or(0);
            self.deepest = self.deepest.max(depth);
        }
        visit::visit_call_expression(self, call, span);
    }
}

/// The names of the functions an execution may run: `main` and, in turn,
/// every function whose name appears (called, or taken as a value) in
/// one that may run or in a declaration outside the functions (a
/// global's initialiser). An over-approximation: a function outside it is
/// never called, so what it does cannot matter.
pub fn functions_that_may_run(unit: &TranslationUnit) -> HashSet<String> {
    let mut named_in: std::collections::HashMap<String, HashSet<String>> = Default::default();
    let mut roots = Names::default();
    roots.names.insert("main".to_string());
    for external in &unit.0 {
        match &external.node {
            ExternalDeclaration::FunctionDefinition(f) => {
                let Some(name) =
                    crate::frontend::c_types::types::declarator_name(&f.node.declarator.node)
                else {
                    continue;
                };
                let mut names = Names::default();
                names.visit_statement(&f.node.statement.node, &f.node.statement.span);
                named_in
                    .entry(name.node.name.clone())
                    .or_default()
                    .extend(names.names);
            }
            ExternalDeclaration::Declaration(d) => roots.visit_declaration(&d.node, &d.span),
            ExternalDeclaration::StaticAssert(_) => {}
        }
    }
    let mut may_run = HashSet::new();
    let mut pending: Vec<String> = roots.names.into_iter().collect();
    while let Some(name) = pending.pop() {
        if let Some(names) = named_in.get(&name)
            && may_run.insert(name)
        {
            pending.extend(names.iter().cloned());
        }
    }
    may_run
}

/// Every identifier of a piece of syntax.
#[derive(Default)]
struct Names {
    names: HashSet<String>,
}

impl<'ast> Visit<'ast> for Names {
    fn visit_identifier(&mut self, identifier: &'ast Identifier, _: &'ast Span) {
        self.names.insert(identifier.name.clone());
    }
}

/// The names whose address some function of the unit takes other than as
/// an argument of a builtin that keeps no address (`pthread_create(&t,
/// ...)`, `memset(&x, ...)`), as [`AddressUse`] sees them.
pub fn names_passed_by_address(unit: &TranslationUnit) -> HashSet<String> {
    let definitions: Vec<&Node<FunctionDefinition>> = unit
        .0
        .iter()
        .filter_map(|external| match &external.node {
            ExternalDeclaration::FunctionDefinition(f) => Some(f),
            _ => None,
        })
        .collect();
    let program_functions: HashSet<String> = definitions
        .iter()
        .filter_map(|f| crate::frontend::c_types::types::declarator_name(&f.node.declarator.node))
        .map(|name| name.node.name.clone())
        .collect();
    definitions
        .iter()
        .flat_map(|f| {
            let uses = AddressUse::of(&f.node.statement, program_functions.clone());
            uses.address_taken.into_iter().chain(uses.indexed_address)
        })
        .collect()
}
