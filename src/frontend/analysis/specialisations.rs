//! Functions lowered once per constant they are called with: a function
//! whose parameter is the size of a `memcpy`, `memmove` or `memset` in its
//! body (the Linux kernel's `__read_once_size(p, res, size)`, always
//! inlined and always called with `sizeof(x)`) copies a known number of
//! bytes only where that size is known. As gcc does after inlining and
//! constant propagation, each call that passes constants for such
//! parameters gets a copy of the function in which the parameters are
//! those constants (and a `switch` on one lowers only the case it takes);
//! the function itself is lowered only where a call passes another value.
//! This file holds the tables and the pre-scan; the lowering side is in
//! `constant_calls.rs`.

use lang_c::ast::*;
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};
use std::collections::{HashMap, HashSet, VecDeque};

/// How many copies of one function its constant calls may make: more
/// means the constants change from call to call without end (a recursion,
/// which is refused anyway).
pub const MAX_COPIES: usize = 64;

/// The constants of a copy: (parameter position, value).
pub type Constants = Vec<(usize, i64)>;

/// The functions lowered per constant, their copies, and the copies still
/// to lower.
#[derive(Debug, Default)]
pub struct Specialisations {
    /// The functions with size parameters: their positions.
    pub size_parameters: HashMap<usize, Vec<usize>>,
    /// The copy made for a function and the constants of its size
    /// parameters (in order).
    pub copies: HashMap<(usize, Vec<i64>), usize>,
    /// Copies to lower: (copy's id, function, constants by position).
    pub pending: VecDeque<(usize, usize, Constants)>,
    /// The id the next copy gets.
    pub next_id: usize,
    /// The functions with size parameters that a call reaches with a value
    /// known only at run time (or as a function pointer): their first such
    /// call, if it is a call.
    pub generic: HashMap<usize, Option<Span>>,
    /// Those of [`Self::generic`] lowered already.
    pub generic_lowered: HashSet<usize>,
    /// While a function with size parameters is lowered for every value:
    /// the call that needs it, for the refusal's help.
    pub lowering_generic: Option<Option<Span>>,
}

impl Specialisations {
    /// The copy of `function` for the constants `values` of its size
    /// parameters (at `positions`), made if new; `None` when the function
    /// has had too many copies.
    pub fn copy_for(
        &mut self,
        function: usize,
        positions: &[usize],
        values: Vec<i64>,
    ) -> Option<usize> {
        if let Some(&id) = self.copies.get(&(function, values.clone())) {
            return Some(id);
        }
        let made = self.copies.keys().filter(|(f, _)| *f == function).count();
        if made >= MAX_COPIES {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let constants = positions
            .iter()
            .copied()
            .zip(values.iter().copied())
            .collect();
        self.copies.insert((function, values), id);
        self.pending.push_back((id, function, constants));
        Some(id)
    }

    /// Notes that `function` is reached with a size known only at run time.
    pub fn need_generic(&mut self, function: usize, call: Option<Span>) {
        self.generic.entry(function).or_insert(call);
    }

    /// A function with size parameters reached for every value and not
    /// lowered yet.
    pub fn next_generic(&mut self) -> Option<(usize, Option<Span>)> {
        let mut waiting: Vec<(usize, Option<Span>)> = self
            .generic
            .iter()
            .filter(|(function, _)| !self.generic_lowered.contains(function))
            .map(|(function, call)| (*function, *call))
            .collect();
        waiting.sort_by_key(|(function, _)| *function);
        let first = waiting.first().copied()?;
        self.generic_lowered.insert(first.0);
        Some(first)
    }
}

/// The positions of `parameters` (names, in order) that the body uses in
/// the size argument of `memcpy`, `memmove` or `memset` (or their
/// `__builtin_` forms).
pub fn size_parameters(body: &Node<Statement>, parameters: &[String]) -> Vec<usize> {
    let mut scan = SizeScan::default();
    scan.visit_statement(&body.node, &body.span);
    parameters
        .iter()
        .enumerate()
        .filter(|(_, name)| !name.is_empty())
        .filter(|(_, name)| scan.sizes.iter().any(|size| mentions_in(name, size)))
        .map(|(k, _)| k)
        .collect()
}

/// Whether the expression `e` names `name`.
fn mentions_in(name: &str, e: &Node<Expression>) -> bool {
    let mut scan = Names::default();
    scan.visit_expression(&e.node, &e.span);
    scan.names.contains(name)
}

/// The identifiers of an expression.
#[derive(Default)]
struct Names {
    names: HashSet<String>,
}

impl<'ast> Visit<'ast> for Names {
    fn visit_identifier(&mut self, identifier: &'ast Identifier, span: &'ast Span) {
        self.names.insert(identifier.name.clone());
        visit::visit_identifier(self, identifier, span);
    }
}

/// The size arguments of the memory functions a body calls.
#[derive(Default)]
struct SizeScan<'ast> {
    sizes: Vec<&'ast Node<Expression>>,
}

impl<'ast> Visit<'ast> for SizeScan<'ast> {
    fn visit_call_expression(&mut self, call: &'ast CallExpression, span: &'ast Span) {
        if let Expression::Identifier(id) = &call.callee.node
            && matches!(
                id.node.name.as_str(),
                "memcpy"
                    | "__builtin_memcpy"
                    | "memmove"
                    | "__builtin_memmove"
                    | "memset"
                    | "__builtin_memset"
            )
            && let Some(size) = call.arguments.get(2)
        {
            self.sizes.push(size);
        }
        visit::visit_call_expression(self, call, span);
    }
}
