//! Functions that compute a number and nothing else, as the helpers that
//! give a structure's size with its trailing array in bytes
//! (`vdeque_memsize(cap)`: `return sizeof(vdeque_array_t) + cap *
//! sizeof(vatomicptr_t);`). Memory here is counted in scalars, so an
//! allocation's size is lowered with `sizeof` counting scalars
//! (`FnLowerer::in_allocation_size`); a call of such a helper in an
//! allocation's size runs a copy of it lowered the same way
//! (`specialisations.rs`), so that `malloc(vdeque_memsize(4))` asks for
//! the scalars of the array and its four cells, not for as many scalars
//! as it has bytes.
//!
//! A `sizeof` counted in scalars must change nothing but that size: the
//! helper may use only its parameters, its own locals and named constants
//! (outside `sizeof`, which evaluates nothing), and may call nothing, take
//! or follow no address, convert to no pointer and use no `offsetof` (a
//! byte offset, which has no scalar count).

use lang_c::ast::*;
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};
use std::collections::HashSet;

/// Whether the function of `body` and `parameters` (names) computes a
/// number and nothing else (see the module comment); `is_constant` says
/// whether a name is a named constant (an enumerator).
pub fn computes_only_a_number(
    body: &Node<Statement>,
    parameters: &[String],
    is_constant: &dyn Fn(&str) -> bool,
) -> bool {
    let mut declared = DeclaredNames::default();
    declared.visit_statement(&body.node, &body.span);
    declared.names.extend(parameters.iter().cloned());
    let mut scan = NumberScan {
        own_names: &declared.names,
        is_constant,
        only_a_number: true,
    };
    scan.visit_statement(&body.node, &body.span);
    scan.only_a_number
}

/// The names a body declares.
#[derive(Default)]
struct DeclaredNames {
    names: HashSet<String>,
}

impl<'ast> Visit<'ast> for DeclaredNames {
    fn visit_declarator_kind(&mut self, kind: &'ast DeclaratorKind, span: &'ast Span) {
        if let DeclaratorKind::Identifier(name) = kind {
            self.names.insert(name.node.name.clone());
        }
        visit::visit_declarator_kind(self, kind, span);
    }
}

/// Looks for what a function that computes only a number may not do.
struct NumberScan<'n> {
    own_names: &'n HashSet<String>,
    is_constant: &'n dyn Fn(&str) -> bool,
    only_a_number: bool,
}

impl<'ast> Visit<'ast> for NumberScan<'_> {
    fn visit_statement(&mut self, statement: &'ast Statement, span: &'ast Span) {
        match statement {
            Statement::Asm(_) | Statement::Goto(_) => self.only_a_number = false,
            _ => visit::visit_statement(self, statement, span),
        }
    }

    fn visit_expression(&mut self, expression: &'ast Expression, span: &'ast Span) {
        match expression {
            // evaluate nothing: any name may be measured
            Expression::SizeOfTy(_) | Expression::SizeOfVal(_) | Expression::AlignOf(_) => {}
            Expression::Identifier(name) => {
                let name = &name.node.name;
                if !self.own_names.contains(name) && !(self.is_constant)(name) {
                    self.only_a_number = false;
                }
            }
            Expression::UnaryOperator(unary)
                if matches!(
                    unary.node.operator.node,
                    UnaryOperator::Address | UnaryOperator::Indirection
                ) =>
            {
                self.only_a_number = false
            }
            Expression::Cast(cast) if cast.node.type_name.node.declarator.is_some() => {
                self.only_a_number = false
            }
            Expression::Call(_)
            | Expression::Member(_)
            | Expression::StringLiteral(_)
            | Expression::CompoundLiteral(_)
            | Expression::Statement(_)
            | Expression::GenericSelection(_)
            | Expression::OffsetOf(_)
            | Expression::VaArg(_) => self.only_a_number = false,
            _ => visit::visit_expression(self, expression, span),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::computes_only_a_number;
    use lang_c::driver::{Config, parse_preprocessed};

    /// Whether the function `f` of `source` computes only a number, with
    /// `N` the one named constant.
    fn only_a_number(source: &str) -> bool {
        let parse = parse_preprocessed(&Config::default(), source.to_string()).expect("parses");
        let definition = parse
            .unit
            .0
            .iter()
            .find_map(|external| match &external.node {
                lang_c::ast::ExternalDeclaration::FunctionDefinition(f) => Some(f),
                _ => None,
            })
            .expect("a function");
        computes_only_a_number(&definition.node.statement, &["n".to_string()], &|name| {
            name == "N"
        })
    }

    #[test]
    fn a_size_with_a_trailing_array_is_only_a_number() {
        assert!(only_a_number(
            "struct a { long size; long cells[1]; };\n\
             unsigned long f(unsigned long n) { unsigned long k = n + N; return sizeof(struct a) + k * sizeof(long); }"
        ));
    }

    #[test]
    fn globals_calls_addresses_and_offsets_are_more_than_a_number() {
        for body in [
            "int g; unsigned long f(unsigned long n) { g = 1; return n * sizeof(long); }",
            "unsigned long h(void); unsigned long f(unsigned long n) { return h() + n; }",
            "unsigned long f(unsigned long n) { long x; return (unsigned long)&x + n; }",
            "struct a { int x; int y; }; unsigned long f(unsigned long n) { return __builtin_offsetof(struct a, y) + n; }",
            "unsigned long f(unsigned long n) { return (unsigned long)(char *)0 + n; }",
        ] {
            assert!(!only_a_number(body), "{body}");
        }
    }

    #[test]
    fn a_global_measured_by_sizeof_is_not_read() {
        assert!(only_a_number(
            "long table[4]; unsigned long f(unsigned long n) { return sizeof(table) + n; }"
        ));
    }
}
