//! Calls of a function whose parameter is the size of a memory function
//! in its body, with a constant for it (`specialisations.rs`): the copy of
//! the function for those constants is the call's target; in an
//! allocation's size, a function that computes only a number runs as its
//! copy whose `sizeof` counts scalars (`size_functions.rs`); and in that
//! copy a `switch` on such a parameter lowers only the statements of the
//! case it takes, as gcc's constant propagation leaves them.

use crate::frontend::analysis::scan::uncast;
use crate::frontend::analysis::specialisations::MAX_COPIES;
use crate::frontend::c_types::types::{CType, truncate};
use crate::frontend::lower::{Binding, BreakTarget, FnLowerer, LResult};
use crate::ir::*;
use lang_c::ast::*;
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// The function that a call of `function` (`name`) with the converted
    /// arguments `values` runs: for constants in its size parameters, its
    /// copy for them; else the function itself, which is then lowered for
    /// every value.
    pub(in crate::frontend) fn call_target(
        &mut self,
        function: FunctionId,
        name: &str,
        values: &[Expr],
        span: Span,
    ) -> LResult<FunctionId> {
        if self.in_allocation_size
            && let Some(copy) = self.lw.specialisations.scalar_copy_of(function)
        {
            self.copy_signature(function, copy);
            return Ok(copy);
        }
        let Some(positions) = self
            .lw
            .specialisations
            .size_parameters
            .get(&function)
            .cloned()
        else {
            return Ok(function);
        };
        let constants: Option<Vec<i64>> = positions
            .iter()
            .map(|&k| match values.get(k) {
                Some(Expr::Const(v)) => Some(*v),
                _ => None,
            })
            .collect();
        let Some(constants) = constants else {
            self.lw.specialisations.need_generic(function, Some(span));
            return Ok(function);
        };
        let Some(copy) = self
            .lw
            .specialisations
            .copy_for(function, &positions, constants)
        else {
            return self.lw.refuse(
                span,
                format!("calls of `{name}` with more than {MAX_COPIES} different sizes"),
                Some("call it with fewer different sizes"),
            );
        };
        self.copy_signature(function, copy);
        Ok(copy)
    }

    /// Gives the copy `copy` of `function` the function's signature.
    fn copy_signature(&mut self, function: FunctionId, copy: FunctionId) {
        if let Some(signature) = self.lw.signatures.get(&function).cloned() {
            self.lw.signatures.insert(copy, signature);
        }
        if self.lw.variadic.contains(&function) {
            self.lw.variadic.insert(copy);
        }
    }

    /// A `switch` on a parameter that is a constant in this copy of its
    /// function: the statements from the case it takes (or `default`) on,
    /// to the end or a `break` of the switch's block, and no others. Whether it was lowered so;
    /// not when a case label is not at the top of the switch's block (a
    /// case inside a loop, Duff's device), a label is inside, or the block
    /// declares something: the switch is then lowered as any other.
    pub(in crate::frontend) fn constant_switch(
        &mut self,
        sw: &'a SwitchStatement,
    ) -> LResult<bool> {
        let Expression::Identifier(id) = &uncast(&sw.expression).node else {
            return Ok(false);
        };
        let Some(Binding::Constant(value, ty)) = self.lookup(&id.node.name) else {
            return Ok(false);
        };
        let Statement::Compound(items) = &sw.statement.node else {
            return Ok(false);
        };
        // each item: its case labels (None for default) and its statement
        let mut statements = Vec::new();
        for item in items {
            let BlockItem::Statement(statement) = &item.node else {
                return Ok(false);
            };
            let (labels, inner) = case_labels(statement);
            if has_labels(inner) {
                return Ok(false);
            }
            let mut values = Vec::new();
            for label in labels {
                values.push(match label {
                    Some(case) => match self.lw.types.const_eval(case) {
                        Some(v) => Some(match ty {
                            CType::Int { bits, signed } => truncate(v, bits, signed),
                            _ => v,
                        }),
                        None => return Ok(false),
                    },
                    None => None,
                });
            }
            statements.push((values, inner));
        }
        let taken = statements
            .iter()
            .position(|(labels, _)| labels.contains(&Some(value)))
            .or_else(|| {
                statements
                    .iter()
                    .position(|(labels, _)| labels.contains(&None))
            });
        let end = self.fresh_label();
        self.breaks.push(BreakTarget::Switch(end));
        self.scopes.push(Default::default());
        let mut result = Ok(());
        for (_, statement) in taken.map_or(&statements[..0], |k| &statements[k..]) {
            // a `break` of the switch's own block ends what runs: the
            // statements after it are reached only through their labels
            if matches!(statement.node, Statement::Break) {
                break;
            }
            result = self.lower_statement(statement);
            if result.is_err() {
                break;
            }
        }
        self.scopes.pop();
        self.breaks.pop();
        result?;
        self.emit(StmtKind::Label(end, "switch_end".into()));
        Ok(true)
    }
}

/// The `case` and `default` labels in front of a statement of a switch's
/// block (`case 1: case 2: s`: the expressions, `None` for `default`), and
/// the statement they label.
fn case_labels(statement: &Node<Statement>) -> (Vec<Option<&Node<Expression>>>, &Node<Statement>) {
    let mut labels = Vec::new();
    let mut inner = statement;
    while let Statement::Labeled(labeled) = &inner.node {
        match &labeled.node.label.node {
            Label::Case(value) => labels.push(Some(&**value)),
            Label::Default => labels.push(None),
            _ => break,
        }
        inner = &labeled.node.statement;
    }
    (labels, inner)
}

/// Whether a statement holds a label a jump could reach: a `goto` label,
/// or a `case` or `default` of the enclosing switch.
fn has_labels(statement: &Node<Statement>) -> bool {
    let mut scan = Labels::default();
    scan.visit_statement(&statement.node, &statement.span);
    scan.found
}

#[derive(Default)]
struct Labels {
    /// How many switches inside the scanned statement enclose the place.
    switches: usize,
    found: bool,
}

impl<'ast> Visit<'ast> for Labels {
    fn visit_labeled_statement(&mut self, labeled: &'ast LabeledStatement, span: &'ast Span) {
        match labeled.label.node {
            Label::Identifier(_) => self.found = true,
            _ if self.switches == 0 => self.found = true,
            _ => {}
        }
        visit::visit_labeled_statement(self, labeled, span);
    }

    fn visit_switch_statement(&mut self, switch: &'ast SwitchStatement, span: &'ast Span) {
        self.switches += 1;
        visit::visit_switch_statement(self, switch, span);
        self.switches -= 1;
    }
}
