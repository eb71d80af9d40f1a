//! `typeof(expression)` inside a function (`__typeof__(x)` of the Linux
//! kernel's `READ_ONCE`): the expression's type, computed with the
//! function's names in scope and without its effects (`typeof` does not
//! evaluate its operand), before the specifiers that hold it are resolved.

use crate::frontend::lower::{FnLowerer, LResult};
use lang_c::ast::{DeclarationSpecifier, SpecifierQualifier, TypeName, TypeOf, TypeSpecifier};
use lang_c::span::Node;

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// Computes the `typeof` expressions among a declaration's specifiers.
    pub fn resolve_typeof_in_declaration(
        &mut self,
        specs: &'a [Node<DeclarationSpecifier>],
    ) -> LResult<()> {
        for spec in specs {
            if let DeclarationSpecifier::TypeSpecifier(specifier) = &spec.node {
                self.resolve_typeof(specifier)?;
            }
        }
        Ok(())
    }

    /// Computes the `typeof` expressions of a type name (a cast, `sizeof`).
    pub fn resolve_typeof_in_type_name(&mut self, name: &'a Node<TypeName>) -> LResult<()> {
        for spec in &name.node.specifiers {
            if let SpecifierQualifier::TypeSpecifier(specifier) = &spec.node {
                self.resolve_typeof(specifier)?;
            }
        }
        Ok(())
    }

    fn resolve_typeof(&mut self, specifier: &'a Node<TypeSpecifier>) -> LResult<()> {
        match &specifier.node {
            TypeSpecifier::TypeOf(of) => match &of.node {
                TypeOf::Expression(expression) => {
                    let ty = self.type_of(expression)?;
                    self.lw
                        .types
                        .typeof_expressions
                        .insert((of.span.start, of.span.end), ty);
                    Ok(())
                }
                TypeOf::Type(name) => self.resolve_typeof_in_type_name(name),
            },
            TypeSpecifier::Atomic(name) => self.resolve_typeof_in_type_name(name),
            _ => Ok(()),
        }
    }
}
