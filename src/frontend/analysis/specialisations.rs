//! Functions lowered once per constant they are called with: a function
//! whose parameter is the size of a `memcpy`, `memmove` or `memset` in its
//! body (the Linux kernel's `__read_once_size(p, res, size)`, always
//! inlined and always called with `sizeof(x)`) copies a known number of
//! bytes only where that size is known. As gcc does after inlining and
//! constant propagation, each call that passes constants for such
//! parameters gets a copy of the function in which the parameters are
//! those constants (and a `switch` on one lowers only the case it takes);
//! the function itself is lowered only where a call passes another value.
//! A function that computes a number and nothing else, called in an
//! allocation's size, gets one more copy: itself with `sizeof` counting
//! scalars (`size_functions.rs`).
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

/// What `sizeof` counts in a function's body: bytes, as C says, or
/// scalars, memory's unit, in the copy of a function that computes an
/// allocation's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeUnit {
    Bytes,
    Scalars,
}

/// A copy of a function still to lower.
#[derive(Debug)]
pub struct PendingCopy {
    /// The copy's function id.
    pub id: usize,
    /// The function copied.
    pub function: usize,
    /// Parameters that are constants in the copy.
    pub constants: Constants,
    /// What `sizeof` counts in the copy.
    pub sizes: SizeUnit,
}

/// The functions lowered per constant, their copies, and the copies still
/// to lower.
#[derive(Debug, Default)]
pub struct Specialisations {
    /// The functions with size parameters: their positions.
    pub size_parameters: HashMap<usize, Vec<usize>>,
    /// The copy made for a function and the constants of its size
    /// parameters (in order).
    pub copies: HashMap<(usize, Vec<i64>), usize>,
    /// The functions that compute a number and nothing else, with
    /// integer parameters and result (`size_functions.rs`).
    pub size_functions: HashSet<usize>,
    /// The copy of a size function whose `sizeof` counts scalars.
    pub scalar_copies: HashMap<usize, usize>,
    /// Copies to lower.
    pub pending: VecDeque<PendingCopy>,
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
        self.pending.push_back(PendingCopy {
            id,
            function,
            constants,
            sizes: SizeUnit::Bytes,
        });
        Some(id)
    }

    /// The copy of the size function `function` whose `sizeof` counts
    /// scalars, made if new; `None` when `function` is no size function.
    pub fn scalar_copy_of(&mut self, function: usize) -> Option<usize> {
        if !self.size_functions.contains(&function) {
            return None;
        }
        if let Some(&id) = self.scalar_copies.get(&function) {
            return Some(id);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.scalar_copies.insert(function, id);
        self.pending.push_back(PendingCopy {
            id,
            function,
            constants: Vec::new(),
            sizes: SizeUnit::Scalars,
        });
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
