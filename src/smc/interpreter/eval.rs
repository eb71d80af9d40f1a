//! Evaluation of the pure expressions and private places of one thread,
//! exactly as the printed C program computes them: each expression has the
//! C type the printer gives it, operands undergo C's promotions and usual
//! arithmetic conversions, and results wrap to their type. Floating
//! values are computed as CBMC computes them ([`super::float`]).

use super::float;
use super::value::{CType, Num, Value};
use crate::ir::{BinaryOp, Expr, Place, PlainGlobal, StructDef, Ty, UnaryOp};
use crate::passes::SeqThread;
use crate::smc::symbolic::decide::Decider;
use crate::smc::symbolic::path::Symbolic;
use crate::smc::symbolic::term::{self, Formula, Term};
use std::sync::Arc;

/// Why an evaluation stopped: what the native engine does not model
/// exactly, which the whole exploration then declines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmodelled(pub String);

/// How [`Unmodelled::out_of_bounds`] begins its message.
const OUT_OF_BOUNDS: &str = "an index outside a private array: ";

/// The message of [`Unmodelled::infeasible`].
const INFEASIBLE: &str = "no side of a branch on symbolic values is feasible";

/// The most values a symbolic value used where the engine needs a
/// concrete one (an address, an array index, a lock, an allocation's
/// size) may take: each is a choice, as a nondeterministic value of at
/// most 256 values is.
pub const CONCRETE_USES: usize = 256;

/// Why a run without symbolic values stops at a test of one.
const SYMBOLIC_TEST: &str =
    "a test of a symbolic value where the engine cannot split the execution";

impl Unmodelled {
    /// An index outside a private array: no value to read or write. In an
    /// execution of the program that is an access out of bounds (the
    /// machine reports it as a violation); in a move simulated with a
    /// value the program may never read (RF-SMC tries other sources for a
    /// read), the execution it belongs to is checked before anything is
    /// reported.
    pub fn out_of_bounds(index: i64, length: u64) -> Unmodelled {
        Unmodelled(format!(
            "{OUT_OF_BOUNDS}index {index} outside a private array of {length} elements"
        ))
    }

    /// Whether this is [`Unmodelled::out_of_bounds`].
    pub fn is_out_of_bounds(&self) -> bool {
        self.0.starts_with(OUT_OF_BOUNDS)
    }

    /// No side of a branch on terms is feasible under the path condition:
    /// no execution goes on from here (the move is cut off, as by a
    /// failed assumption; it is neither a violation nor a deadlock).
    pub fn infeasible() -> Unmodelled {
        Unmodelled(INFEASIBLE.into())
    }

    /// Whether this is [`Unmodelled::infeasible`].
    pub fn is_infeasible(&self) -> bool {
        self.0 == INFEASIBLE
    }

    /// A symbolic value where the engine needs a concrete one.
    fn symbolic(what: &str) -> Unmodelled {
        Unmodelled(format!(
            "a symbolic value that may take more than {CONCRETE_USES} values there is used as {what}, which the native engine computes only with concrete values"
        ))
    }
}

/// A scalar's value: concrete, or a term over symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    Concrete(i64),
    Symbolic(Term),
}

pub type Eval<T> = Result<T, Unmodelled>;

/// A floating value, or why the engine does not compute it.
fn computed<T>(value: float::Computed<T>) -> Eval<T> {
    value.map_err(Unmodelled)
}

/// `value` of type `from` converted to `to`, as C converts it.
fn cast(from: Num, to: Num, value: i64) -> Eval<i64> {
    computed(float::convert(from, to, value))
}

/// Whether a value of type `ty` is not zero.
fn nonzero(ty: Num, value: i64) -> bool {
    match ty {
        Num::Int(_) => value != 0,
        Num::Float(bits) => float::nonzero(bits, value),
    }
}

/// Where nondeterministic values come from: the exploration enumerates
/// them.
pub trait Choices {
    /// One value of the `values` values `lo..lo+values` (in order).
    fn choose(&mut self, lo: i64, values: u32) -> i64;

    /// The solver's front of a run that takes a nondeterministic value of
    /// more than 256 values as a symbol; `None` for a run that does not
    /// (reading one declines the program).
    fn decider(&self) -> Option<&Decider> {
        None
    }

    /// Whether the run takes a nondeterministic value of more than 256
    /// values as a symbol (else reading one declines the program).
    fn symbolic(&self) -> bool {
        self.decider().is_some()
    }

    /// The side a branch on `formula` takes: when both sides are feasible
    /// under the path condition of `symbolic`, a choice of two values;
    /// the side taken is added to the path condition. `None` when no
    /// side is feasible.
    fn branch(&mut self, formula: &Formula, symbolic: &mut Symbolic) -> Eval<Option<bool>> {
        let _ = (formula, symbolic);
        Err(Unmodelled(SYMBOLIC_TEST.into()))
    }

    /// An assumption of `formula`: when it may hold under the path
    /// condition of `symbolic`, it is added to it (true); else false. No
    /// choice: the executions where it fails do not exist.
    fn assume(&mut self, formula: &Formula, symbolic: &mut Symbolic) -> Eval<bool> {
        match self.decider() {
            Some(decider) => decider.assume(formula, symbolic).map_err(undecided),
            None => Err(Unmodelled(SYMBOLIC_TEST.into())),
        }
    }

    /// The values the term `term` of type `ty` can take under the path
    /// condition of `symbolic`, in increasing order, when there are at
    /// most [`CONCRETE_USES`]; `None` when there are more.
    fn values(&mut self, term: &Term, ty: CType, symbolic: &Symbolic) -> Eval<Option<Vec<i64>>> {
        match self.decider() {
            Some(decider) => decider
                .values(term, ty, symbolic, CONCRETE_USES)
                .map_err(undecided),
            None => Ok(None),
        }
    }

    /// Whether `formula` may hold under the path condition of `symbolic`.
    fn possible(&mut self, formula: &Formula, symbolic: &Symbolic) -> Eval<bool> {
        match self.decider() {
            Some(decider) => decider
                .satisfiable(&symbolic.condition_with(formula))
                .map_err(undecided),
            None => Err(Unmodelled(SYMBOLIC_TEST.into())),
        }
    }
}

/// A question the solver did not answer, as what the engine declines.
pub fn undecided(error: impl std::fmt::Display) -> Unmodelled {
    Unmodelled(error.to_string())
}

/// Choices that take the first value and note that one was asked for: the
/// runs that must not depend on a nondeterministic value (RF-SMC's replay,
/// the deadlock check) look at `chose` afterwards.
#[derive(Default)]
pub struct NotedChoices {
    pub chose: bool,
}

impl Choices for NotedChoices {
    fn choose(&mut self, lo: i64, _values: u32) -> i64 {
        self.chose = true;
        lo
    }

    fn branch(&mut self, _formula: &Formula, _symbolic: &mut Symbolic) -> Eval<Option<bool>> {
        self.chose = true;
        Err(Unmodelled(SYMBOLIC_TEST.into()))
    }
}

/// The private state an expression of one thread reads and a private
/// assignment writes.
pub struct Private<'a> {
    pub thread: &'a SeqThread,
    pub plain_globals: &'a [PlainGlobal],
    pub structs: &'a [StructDef],
    pub locals: &'a mut [Value],
    pub plain: &'a mut [Value],
    /// The execution's symbols and path condition.
    pub symbolic: &'a mut Symbolic,
}

impl Private<'_> {
    /// The declared type of a place.
    pub fn place_type(&self, place: &Place) -> Eval<Ty> {
        match place {
            Place::Local(id) => self
                .thread
                .locals
                .get(*id)
                .map(|local| local.ty.clone())
                .ok_or_else(|| Unmodelled(format!("unknown local {id}"))),
            Place::PlainGlobal(id) => self
                .plain_globals
                .get(*id)
                .map(|global| global.ty.clone())
                .ok_or_else(|| Unmodelled(format!("unknown plain global {id}"))),
            Place::Index(base, _) => match self.place_type(base)? {
                Ty::Array(element, _) => Ok(*element),
                _ => Err(Unmodelled("an index into a non-array".into())),
            },
            Place::Field(base, field) => match self.place_type(base)? {
                Ty::Struct(id) => self
                    .structs
                    .get(id)
                    .and_then(|s| s.fields.iter().find(|(name, _)| name == field))
                    .map(|(_, ty)| ty.clone())
                    .ok_or_else(|| Unmodelled(format!("unknown field {field}"))),
                _ => Err(Unmodelled("a field of a non-struct".into())),
            },
        }
    }

    /// The path of element indices from the root of `place` to it, and
    /// whether its root is a plain global.
    fn path(
        &mut self,
        place: &Place,
        choices: &mut dyn Choices,
    ) -> Eval<(bool, usize, Vec<usize>)> {
        match place {
            Place::Local(id) => Ok((false, *id, Vec::new())),
            Place::PlainGlobal(id) => Ok((true, *id, Vec::new())),
            Place::Index(base, index) => {
                let length = match self.place_type(base)? {
                    Ty::Array(_, length) => length,
                    _ => return Err(Unmodelled("an index into a non-array".into())),
                };
                let (_, index) = self.eval(index, choices)?;
                let (global, root, mut path) = self.path(base, choices)?;
                match u64::try_from(index) {
                    Ok(index) if index < length.max(1) => {
                        path.push(index as usize);
                        Ok((global, root, path))
                    }
                    _ => Err(Unmodelled::out_of_bounds(index, length)),
                }
            }
            Place::Field(base, field) => {
                let Ty::Struct(id) = self.place_type(base)? else {
                    return Err(Unmodelled("a field of a non-struct".into()));
                };
                let position = self
                    .structs
                    .get(id)
                    .and_then(|s| s.fields.iter().position(|(name, _)| name == field))
                    .ok_or_else(|| Unmodelled(format!("unknown field {field}")))?;
                let (global, root, mut path) = self.path(base, choices)?;
                path.push(position);
                Ok((global, root, path))
            }
        }
    }

    fn slot(&mut self, place: &Place, choices: &mut dyn Choices) -> Eval<&mut Value> {
        let (global, root, path) = self.path(place, choices)?;
        let mut value = if global {
            self.plain.get_mut(root)
        } else {
            self.locals.get_mut(root)
        }
        .ok_or_else(|| Unmodelled("an unknown private object".into()))?;
        for index in path {
            value = match value {
                Value::Aggregate(elements) => elements
                    .get_mut(index)
                    .ok_or_else(|| Unmodelled("a private element out of range".into()))?,
                Value::Scalar(_)
                | Value::Unknown { .. }
                | Value::NonZero { .. }
                | Value::Moved
                | Value::Symbolic { .. } => {
                    return Err(Unmodelled("an element of a scalar".into()));
                }
            };
        }
        Ok(value)
    }

    /// The value stored in `place`.
    pub fn load(&mut self, place: &Place, choices: &mut dyn Choices) -> Eval<Value> {
        self.slot(place, choices).map(|value| value.clone())
    }

    /// Assigns the integer `value` (a value of shared memory) to `place`,
    /// converted to the place's type.
    pub fn store(&mut self, place: &Place, value: i64, choices: &mut dyn Choices) -> Eval<()> {
        self.store_typed(place, Num::LONG_LONG, value, choices)
    }

    /// Assigns the term `term` of type `from` (a value of shared memory)
    /// to `place`, converted to the place's type.
    pub fn store_term(
        &mut self,
        place: &Place,
        from: CType,
        term: Term,
        choices: &mut dyn Choices,
    ) -> Eval<()> {
        self.store_operand(place, Num::Int(from), Operand::Symbolic(term), choices)
    }

    /// Assigns the scalar `value` of type `from` to `place`, converted to
    /// the place's type.
    fn store_typed(
        &mut self,
        place: &Place,
        from: Num,
        value: i64,
        choices: &mut dyn Choices,
    ) -> Eval<()> {
        let ty = self.place_type(place)?;
        let to =
            Num::of(&ty).ok_or_else(|| Unmodelled("a scalar assigned to an aggregate".into()))?;
        *self.slot(place, choices)? = Value::Scalar(cast(from, to, value)?);
        Ok(())
    }

    /// Assigns the scalar `value` (concrete or a term) of type `from` to
    /// `place`, converted to the place's type.
    fn store_operand(
        &mut self,
        place: &Place,
        from: Num,
        value: Operand,
        choices: &mut dyn Choices,
    ) -> Eval<()> {
        let term = match value {
            Operand::Concrete(value) => return self.store_typed(place, from, value, choices),
            Operand::Symbolic(term) => term,
        };
        let ty = self.place_type(place)?;
        let (Num::Int(from), Some(Num::Int(to))) = (from, Num::of(&ty)) else {
            return Err(Unmodelled::symbolic("a floating value"));
        };
        *self.slot(place, choices)? = Value::Symbolic {
            term: Arc::new(term::convert(term, from, to)),
            ty: to,
        };
        Ok(())
    }

    /// `place = value` of the program: a scalar, or a whole struct or
    /// array copied from another place.
    pub fn assign(&mut self, place: &Place, value: &Expr, choices: &mut dyn Choices) -> Eval<()> {
        let ty = self.place_type(place)?;
        if Num::of(&ty).is_some() {
            if let Expr::Nondet(nondet) = value
                && let Some(kind) = Num::of(nondet).filter(|kind| kind.bits() > 8)
                // a symbolic run makes the symbol at once when its type is
                // not the place's (a read would not know the source type)
                && (!choices.symbolic() || Num::of(&ty) == Some(kind) || matches!(kind, Num::Float(_)))
            {
                let bits = kind.bits();
                // left unknown until read: most such values are
                // overwritten first (locals the printed program declares
                // without an initial value)
                *self.slot(place, choices)? = Value::Unknown { bits };
                return Ok(());
            }
            if !choices.symbolic()
                && let Some(source) = self.truth_kept_source(&ty, value)
                && let moved @ (Value::Unknown { .. } | Value::NonZero { .. }) =
                    self.load(source, choices)?
            {
                // the value moves: tests of the copy decide it
                *self.slot(source, choices)? = Value::Moved;
                *self.slot(place, choices)? = moved;
                return Ok(());
            }
            let (from, scalar) = self.operand(value, choices)?;
            return self.store_operand(place, from, scalar, choices);
        }
        let source = match value {
            Expr::Load(source) => source,
            Expr::Cast(_, inner) => match inner.as_ref() {
                Expr::Load(source) => source,
                _ => return Err(Unmodelled("an aggregate computed by an expression".into())),
            },
            _ => return Err(Unmodelled("an aggregate computed by an expression".into())),
        };
        let copied = self.load(source, choices)?;
        *self.slot(place, choices)? = copied;
        Ok(())
    }

    /// The C type of `expr` in the printed program.
    pub fn type_of(&self, expr: &Expr) -> Eval<Num> {
        match expr {
            Expr::Const(value) => Ok(if i32::try_from(*value).is_ok() {
                Num::INT
            } else {
                Num::LONG_LONG
            }),
            Expr::FloatConst(literal) => Ok(Num::Float(if literal.bits <= 32 { 32 } else { 64 })),
            Expr::Load(place) => Num::of(&self.place_type(place)?)
                .ok_or_else(|| Unmodelled("an aggregate value in an expression".into())),
            Expr::ObjectAddress(_) | Expr::CurrentThread => Ok(Num::INT),
            Expr::Unary(UnaryOp::Not, _) => Ok(Num::INT),
            Expr::Unary(_, operand) => Ok(self.type_of(operand)?.promoted()),
            Expr::Binary(op, a, b) => match op {
                BinaryOp::Shl | BinaryOp::Shr => Ok(self.type_of(a)?.promoted()),
                BinaryOp::LogicalAnd
                | BinaryOp::LogicalOr
                | BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge => Ok(Num::INT),
                _ => Ok(self.type_of(a)?.common(self.type_of(b)?)),
            },
            Expr::Conditional(_, a, b) => Ok(self.type_of(a)?.common(self.type_of(b)?)),
            Expr::Cast(ty, inner) => match ty {
                Ty::Array(..) | Ty::Struct(_) | Ty::Void => self.type_of(inner),
                scalar => Num::of(scalar)
                    .ok_or_else(|| Unmodelled("a conversion to an unknown type".into())),
            },
            Expr::Reinterpret(to, _) => Ok(reinterpreted(to).1),
            Expr::Nondet(ty) => Num::of(ty)
                .ok_or_else(|| Unmodelled("a nondeterministic value of no scalar type".into())),
            Expr::LibraryCall(function, _) => {
                Ok(Num::Float(if function.bits <= 32 { 32 } else { 64 }))
            }
        }
    }

    /// Whether the condition `expr` holds. A nondeterministic scalar whose
    /// truth alone the condition tests (`if (x)`, `!x`, `x != 0`, `x == 0`,
    /// `x && ...`, `if (__VERIFIER_nondet_int())`) takes two values, zero
    /// and "not zero", however wide it is: a choice, exact as long as the
    /// program reads nothing of it but its truth (a later read of its
    /// value declines the program, as a read of an unknown value does).
    pub fn truth(&mut self, expr: &Expr, choices: &mut dyn Choices) -> Eval<bool> {
        if choices.symbolic() && !matches!(expr, Expr::Nondet(_)) {
            // an unknown scalar becomes a symbol, and the condition one
            // formula
            return self.eval_truth(expr, choices);
        }
        match expr {
            Expr::Load(place) => match self.load(place, choices)? {
                // a floating zero has two values, and its other values
                // differ in more than truth: only an integer is split
                Value::Unknown { bits }
                    if !choices.symbolic() && matches!(self.type_of(expr)?, Num::Int(_)) =>
                {
                    let holds = choices.choose(0, 2) != 0;
                    *self.slot(place, choices)? = if holds {
                        Value::NonZero { bits }
                    } else {
                        Value::Scalar(0)
                    };
                    Ok(holds)
                }
                Value::NonZero { .. } => Ok(true),
                _ => self.eval_truth(expr, choices),
            },
            Expr::Nondet(_) => Ok(choices.choose(0, 2) != 0),
            Expr::Cast(ty, inner) if self.keeps_truth(ty, inner) => self.truth(inner, choices),
            Expr::Unary(UnaryOp::Not, inner) => Ok(!self.truth(inner, choices)?),
            Expr::Binary(BinaryOp::Ne, a, zero) if matches!(**zero, Expr::Const(0)) => {
                self.truth(a, choices)
            }
            Expr::Binary(BinaryOp::Eq, a, zero) if matches!(**zero, Expr::Const(0)) => {
                Ok(!self.truth(a, choices)?)
            }
            Expr::Binary(BinaryOp::LogicalAnd, a, b) => {
                Ok(self.truth(a, choices)? && self.truth(b, choices)?)
            }
            Expr::Binary(BinaryOp::LogicalOr, a, b) => {
                Ok(self.truth(a, choices)? || self.truth(b, choices)?)
            }
            _ => self.eval_truth(expr, choices),
        }
    }

    /// Whether the assumption `expr` holds: as [`Private::truth`], but a
    /// symbolic condition is added to the path condition where it may
    /// hold ([`Choices::assume`]) rather than split the execution (its
    /// failing side would be cut off at once).
    pub fn assumption(&mut self, expr: &Expr, choices: &mut dyn Choices) -> Eval<bool> {
        if !choices.symbolic() {
            return self.truth(expr, choices);
        }
        match self.operand(expr, choices)? {
            (ty, Operand::Concrete(value)) => Ok(nonzero(ty, value)),
            (Num::Int(ty), Operand::Symbolic(term)) => {
                choices.assume(&truth_formula(term, ty), self.symbolic)
            }
            (Num::Float(_), Operand::Symbolic(_)) => {
                Err(Unmodelled::symbolic("a floating condition"))
            }
        }
    }

    /// Whether the value of `expr` is not zero; a symbolic value splits
    /// the execution ([`Choices::branch`]).
    fn eval_truth(&mut self, expr: &Expr, choices: &mut dyn Choices) -> Eval<bool> {
        match self.operand(expr, choices)? {
            (ty, Operand::Concrete(value)) => Ok(nonzero(ty, value)),
            (Num::Int(ty), Operand::Symbolic(term)) => {
                self.decide(&truth_formula(term, ty), choices)
            }
            (Num::Float(_), Operand::Symbolic(_)) => {
                Err(Unmodelled::symbolic("a floating condition"))
            }
        }
    }

    /// Gives each nondeterministic scalar not read yet whose values the
    /// assumption `condition` bounds to at most 256 (`x >= 0 && x < 8`,
    /// `x == 3`: comparisons with constants in a conjunction) one of those
    /// values, a choice. Exact: every other value fails the assumption,
    /// which cuts the execution off. Unbounded scalars stay unknown.
    pub fn bound_unknowns(&mut self, condition: &Expr, choices: &mut dyn Choices) -> Eval<()> {
        let mut bounds: Vec<(Place, i128, i128)> = Vec::new();
        self.collect_bounds(condition, &mut bounds)?;
        for (place, lo, hi) in bounds {
            let Ok(count) = u32::try_from((hi - lo + 1).max(1)) else {
                continue;
            };
            let (Ok(lo), true) = (i64::try_from(lo), count <= 256) else {
                continue;
            };
            // an empty range: every value fails the assumption
            let value = choices.choose(lo, count);
            if let Value::Symbolic { term, ty } = self.load(&place, choices)? {
                // a symbol not computed on yet (its copies keep it): the
                // path condition says which value it took
                let equal =
                    Formula::compare_equal(term.as_ref().clone(), Term::constant(value, ty));
                if !choices.assume(&equal, self.symbolic)? {
                    return Err(Unmodelled::infeasible());
                }
            }
            *self.slot(&place, choices)? = Value::Scalar(value);
        }
        Ok(())
    }

    /// The ranges the conjunction `condition` gives unknown scalars, each
    /// within its type's values.
    fn collect_bounds(
        &mut self,
        condition: &Expr,
        bounds: &mut Vec<(Place, i128, i128)>,
    ) -> Eval<()> {
        let Expr::Binary(op, a, b) = condition else {
            return Ok(());
        };
        if *op == BinaryOp::LogicalAnd {
            self.collect_bounds(a, bounds)?;
            return self.collect_bounds(b, bounds);
        }
        let found = match (self.constant(a)?, self.constant(b)?) {
            (None, Some(constant)) => self
                .unknown_operand(a)?
                .map(|(place, operand)| (place, operand, constant, *op)),
            (Some(constant), None) => self
                .unknown_operand(b)?
                .map(|(place, operand)| (place, operand, constant, mirrored(*op))),
            _ => None,
        };
        let Some((place, operand, (constant_type, constant), op)) = found else {
            return Ok(());
        };
        let compared = operand.common(constant_type);
        let plain = if compared.signed {
            operand.signed || operand.bits < compared.bits
        } else {
            !operand.signed && constant >= 0
        };
        if !plain {
            return Ok(());
        }
        let own = CType::of(&self.place_type(&place)?)
            .ok_or_else(|| Unmodelled("an aggregate in a comparison".into()))?;
        let index = match bounds.iter().position(|(known, ..)| *known == place) {
            Some(index) => index,
            None => {
                let (lo, hi) = type_range(own);
                bounds.push((place, lo, hi));
                bounds.len() - 1
            }
        };
        let c = i128::from(constant);
        let (_, lo, hi) = &mut bounds[index];
        match op {
            BinaryOp::Lt => *hi = (*hi).min(c - 1),
            BinaryOp::Le => *hi = (*hi).min(c),
            BinaryOp::Gt => *lo = (*lo).max(c + 1),
            BinaryOp::Ge => *lo = (*lo).max(c),
            BinaryOp::Eq => {
                *lo = (*lo).max(c);
                *hi = (*hi).min(c);
            }
            _ => {}
        }
        Ok(())
    }

    /// The type and value of `expr` when it is a constant expression
    /// (`-3`, `(unsigned int)5`, `(long long)(-7)`).
    fn constant(&mut self, expr: &Expr) -> Eval<Option<(CType, i64)>> {
        if !is_constant(expr) {
            return Ok(None);
        }
        Ok(match self.eval(expr, &mut NoChoice)? {
            (Num::Int(ty), value) => Some((ty, value)),
            (Num::Float(_), _) => None,
        })
    }

    /// The place `expr` loads and the type the comparison sees, when it
    /// holds an unknown scalar (directly, or converted without changing
    /// its value).
    fn unknown_operand(&mut self, expr: &Expr) -> Eval<Option<(Place, CType)>> {
        let integer = |ty: Num| match ty {
            Num::Int(ty) => Some(ty),
            Num::Float(_) => None,
        };
        let (load, operand) = match expr {
            Expr::Load(_) => match integer(self.type_of(expr)?) {
                Some(ty) => (expr, ty),
                None => return Ok(None),
            },
            Expr::Cast(_, inner) if matches!(inner.as_ref(), Expr::Load(_)) => {
                let (Some(to), Some(from)) =
                    (integer(self.type_of(expr)?), integer(self.type_of(inner)?))
                else {
                    return Ok(None);
                };
                let keeps = (to.bits > from.bits && (to.signed || !from.signed))
                    || (to.bits == from.bits && to.signed == from.signed);
                if !keeps {
                    return Ok(None);
                }
                (inner.as_ref(), to)
            }
            _ => return Ok(None),
        };
        // a place without an index: finding it chooses nothing
        let Expr::Load(place) = load else {
            return Ok(None);
        };
        if has_index(place) {
            return Ok(None);
        }
        let unknown = match self.load(place, &mut NoChoice)? {
            Value::Unknown { .. } => true,
            Value::Symbolic { term, .. } => matches!(term.as_ref(), Term::Symbol { .. }),
            _ => false,
        };
        Ok(unknown.then(|| (place.clone(), operand)))
    }

    /// The place `value` loads, when assigning it to a place of type `ty`
    /// keeps whether it is zero (directly or through such a conversion).
    fn truth_kept_source<'e>(&self, ty: &Ty, value: &'e Expr) -> Option<&'e Place> {
        let (source, load) = match value {
            Expr::Load(source) => (source, value),
            Expr::Cast(to, inner) if self.keeps_truth(to, inner) => match inner.as_ref() {
                Expr::Load(source) => (source, inner.as_ref()),
                _ => return None,
            },
            _ => return None,
        };
        self.keeps_truth(ty, load).then_some(source)
    }

    /// Whether converting `inner` to `ty` keeps whether it is zero: a
    /// conversion to `_Bool` or to a type at least as wide.
    fn keeps_truth(&self, ty: &Ty, inner: &Expr) -> bool {
        match (CType::of(ty), self.type_of(inner)) {
            (Some(to), Ok(Num::Int(from))) => to.bits == 1 || to.bits >= from.bits,
            _ => false,
        }
    }

    /// The value of `expr` and its C type, concrete (an address, an array
    /// index, a lock, an allocation's size): a symbolic value of at most
    /// [`CONCRETE_USES`] values under the path condition is a choice of
    /// one of them, which the path condition takes; one of more declines.
    pub fn eval(&mut self, expr: &Expr, choices: &mut dyn Choices) -> Eval<(Num, i64)> {
        let (ty, term) = match self.operand(expr, choices)? {
            (ty, Operand::Concrete(value)) => return Ok((ty, value)),
            (ty, Operand::Symbolic(term)) => (ty, term),
        };
        let declined =
            || Unmodelled::symbolic("an address, an array index, a lock or an allocation's size");
        let Num::Int(int) = ty else {
            return Err(declined());
        };
        let values = choices
            .values(&term, int, self.symbolic)?
            .ok_or_else(declined)?;
        let value = match values[..] {
            // the path condition is feasible, so the term has some value
            [] => return Err(Unmodelled::infeasible()),
            // a value the path condition forces is as good as a constant
            [value] => value,
            _ => {
                let index = choices.choose(0, values.len() as u32) as usize;
                let value = values.get(index).copied().ok_or_else(declined)?;
                let side = Formula::compare_equal(term, Term::constant(value, int));
                self.symbolic.take(side);
                value
            }
        };
        Ok((ty, value))
    }

    /// The value of `expr` (concrete or a term) and its C type.
    pub fn operand(&mut self, expr: &Expr, choices: &mut dyn Choices) -> Eval<(Num, Operand)> {
        let ty = self.type_of(expr)?;
        let value = match expr {
            Expr::Const(value) => *value,
            Expr::FloatConst(literal) => computed(float::literal(literal))?,
            Expr::Load(place) => return Ok((ty, self.load_operand(place, ty, choices)?)),
            Expr::ObjectAddress(_) => 0,
            Expr::CurrentThread => self.thread.slot as i64,
            Expr::Unary(op, operand) => {
                let (from, value) = self.operand(operand, choices)?;
                let value = match value {
                    Operand::Concrete(value) => value,
                    Operand::Symbolic(term) => {
                        return Ok((ty, Operand::Symbolic(unary_term(*op, from, term, ty)?)));
                    }
                };
                match (op, ty) {
                    (UnaryOp::Not, _) => i64::from(!nonzero(from, value)),
                    (UnaryOp::Neg, Num::Int(int)) => {
                        int.convert(cast(from, ty, value)?.wrapping_neg())
                    }
                    (UnaryOp::Neg, Num::Float(bits)) => {
                        computed(float::negate(bits, cast(from, ty, value)?))?
                    }
                    (UnaryOp::BitNot, Num::Int(int)) => int.convert(!cast(from, ty, value)?),
                    (UnaryOp::BitNot, Num::Float(_)) => {
                        return Err(Unmodelled("`~` of a floating value".into()));
                    }
                }
            }
            Expr::Binary(op, a, b) => return self.binary(*op, a, b, ty, choices),
            Expr::Conditional(condition, a, b) => {
                // a symbolic condition splits the execution
                let chosen = if self.eval_truth(condition, choices)? {
                    a
                } else {
                    b
                };
                let (from, value) = self.operand(chosen, choices)?;
                return Ok((ty, converted(from, ty, value)?));
            }
            Expr::Cast(_, inner) => {
                let (from, value) = self.operand(inner, choices)?;
                return Ok((ty, converted(from, ty, value)?));
            }
            Expr::Reinterpret(to, inner) => {
                // the union's member `from` takes the value as C assigns
                // it; its bits are the other member's, which the engine
                // holds alike
                let (from, value) = self.eval(inner, choices)?;
                cast(from, reinterpreted(to).0, value)?
            }
            Expr::Nondet(_) => match ty {
                Num::Int(int) => match int.bits {
                    1 => choices.choose(0, 2),
                    8 if int.signed => choices.choose(-128, 256),
                    8 => choices.choose(0, 256),
                    _ if choices.symbolic() => {
                        return Ok((ty, Operand::Symbolic(self.fresh(int)?)));
                    }
                    bits => {
                        return Err(Unmodelled(format!(
                            "a nondeterministic value of 2^{bits} values"
                        )));
                    }
                },
                Num::Float(bits) => {
                    return Err(Unmodelled(format!(
                        "a nondeterministic floating value of 2^{bits} values"
                    )));
                }
            },
            Expr::LibraryCall(function, arguments) => {
                let mut values = Vec::with_capacity(arguments.len());
                for argument in arguments {
                    let (from, value) = self.eval(argument, choices)?;
                    values.push(cast(from, ty, value)?);
                }
                computed(super::float_library::call(function, &values))?
            }
        };
        Ok((ty, Operand::Concrete(value)))
    }

    /// A fresh symbol of type `ty`, read by this thread.
    fn fresh(&mut self, ty: CType) -> Eval<Term> {
        self.symbolic
            .fresh(ty, self.thread.slot)
            .map_err(|error| Unmodelled(error.to_string()))
    }

    /// The value a load of `place` (of type `ty`) gives: an unknown scalar
    /// becomes a symbol there in a symbolic run (a later load gives the
    /// same symbol).
    fn load_operand(&mut self, place: &Place, ty: Num, choices: &mut dyn Choices) -> Eval<Operand> {
        Ok(match self.load(place, choices)? {
            Value::Scalar(value) => Operand::Concrete(value),
            Value::Symbolic { term, .. } => Operand::Symbolic(term.as_ref().clone()),
            Value::Aggregate(_) => {
                return Err(Unmodelled("an aggregate in an expression".into()));
            }
            Value::Unknown { .. } if choices.symbolic() && matches!(ty, Num::Int(_)) => {
                let Num::Int(int) = ty else {
                    return Err(Unmodelled("a floating symbol".into()));
                };
                let term = self.fresh(int)?;
                *self.slot(place, choices)? = Value::Symbolic {
                    term: Arc::new(term.clone()),
                    ty: int,
                };
                Operand::Symbolic(term)
            }
            Value::Unknown { bits } => {
                let what = match ty {
                    Num::Float(32) => "float".to_string(),
                    Num::Float(_) => "double".to_string(),
                    Num::Int(_) => format!("value of {bits} bits"),
                };
                let symbolic = if choices.symbolic() {
                    " (symbolic floating values are not modelled)"
                } else {
                    ""
                };
                return Err(Unmodelled(format!(
                    "a nondeterministic {what} is read (it has 2^{bits} values; the native engine explores at most 256){symbolic}"
                )));
            }
            Value::NonZero { bits } => {
                return Err(Unmodelled(format!(
                    "a nondeterministic value of {bits} bits that a test found not zero is read (it has 2^{bits} - 1 values; the native engine explores at most 256)"
                )));
            }
            Value::Moved => {
                return Err(Unmodelled(
                    "a nondeterministic value is read again after it was copied (the native engine follows one copy of it)".into(),
                ));
            }
        })
    }

    /// `left && b` or `left || b` (as `op` says) as a term of type `ty`,
    /// `b` evaluated whatever `left` is (it is [`always_defined`]).
    fn logical_term(
        &mut self,
        op: BinaryOp,
        left: Formula,
        b: &Expr,
        ty: Num,
        choices: &mut dyn Choices,
    ) -> Eval<(Num, Operand)> {
        let right = match self.operand(b, choices)? {
            (b_type, Operand::Concrete(value)) => Formula::Constant(nonzero(b_type, value)),
            (Num::Int(b_type), Operand::Symbolic(term)) => truth_formula(term, b_type),
            (Num::Float(_), Operand::Symbolic(_)) => {
                return Err(Unmodelled::symbolic("a floating condition"));
            }
        };
        let Num::Int(int) = ty else {
            return Err(Unmodelled::symbolic("a floating condition"));
        };
        let formula = if op == BinaryOp::LogicalAnd {
            left.and(right)
        } else {
            left.or(right)
        };
        Ok((ty, Operand::Symbolic(formula.value(int))))
    }

    /// The side a branch on `formula` takes (a choice when both may).
    fn decide(&mut self, formula: &Formula, choices: &mut dyn Choices) -> Eval<bool> {
        if let Formula::Constant(holds) = formula {
            return Ok(*holds);
        }
        choices
            .branch(formula, self.symbolic)?
            .ok_or_else(Unmodelled::infeasible)
    }

    /// Declines an operation whose `undefined` condition may hold (the
    /// interpreter declines it on such concrete values): `what` names it.
    fn check_defined(
        &mut self,
        undefined: Option<&Formula>,
        what: &str,
        choices: &mut dyn Choices,
    ) -> Eval<()> {
        let Some(undefined) = undefined else {
            return Ok(());
        };
        if matches!(undefined, Formula::Constant(false)) {
            return Ok(());
        }
        if choices.possible(undefined, self.symbolic)? {
            return Err(Unmodelled(format!(
                "{what} on symbolic values, which some of their values make undefined"
            )));
        }
        Ok(())
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        ty: Num,
        choices: &mut dyn Choices,
    ) -> Eval<(Num, Operand)> {
        // `&&` and `||` evaluate their right operand only when the left
        // one does not decide, as C does (a guarded shift or division); a
        // symbolic operand splits the execution
        if matches!(op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr) {
            let left = match self.operand(a, choices)? {
                (a_type, Operand::Concrete(value)) => nonzero(a_type, value),
                (Num::Int(a_type), Operand::Symbolic(term)) => {
                    let left = truth_formula(term, a_type);
                    if always_defined(b) {
                        // both operands in one formula: no split here
                        return self.logical_term(op, left, b, ty, choices);
                    }
                    self.decide(&left, choices)?
                }
                (Num::Float(_), Operand::Symbolic(_)) => {
                    return Err(Unmodelled::symbolic("a floating condition"));
                }
            };
            let value = match (op, left) {
                (BinaryOp::LogicalAnd, false) => false,
                (BinaryOp::LogicalOr, true) => true,
                _ => self.eval_truth(b, choices)?,
            };
            return Ok((ty, Operand::Concrete(i64::from(value))));
        }
        let (a_type, a) = self.operand(a, choices)?;
        let (b_type, b) = self.operand(b, choices)?;
        match (a, b) {
            (Operand::Concrete(a), Operand::Concrete(b)) => Ok((
                ty,
                Operand::Concrete(concrete_binary(op, ty, (a_type, a), (b_type, b))?),
            )),
            (a, b) => {
                let (term, undefined) = symbolic_binary(op, ty, (a_type, a), (b_type, b))?;
                let what = match op {
                    BinaryOp::Shl | BinaryOp::Shr => "a shift",
                    _ => "a division",
                };
                self.check_defined(undefined.as_ref(), what, choices)?;
                Ok((ty, Operand::Symbolic(term)))
            }
        }
    }
}

/// Whether evaluating `expr` can neither fail nor choose: integer
/// constants, loads of places without an index, and operations other
/// than divisions and shifts on them (C would skip it as the right
/// operand of a decided `&&` or `||`; evaluated anyway, it changes
/// nothing).
fn always_defined(expr: &Expr) -> bool {
    match expr {
        Expr::Const(_) | Expr::CurrentThread | Expr::ObjectAddress(_) => true,
        Expr::Load(place) => !has_index(place),
        Expr::Unary(_, inner) => always_defined(inner),
        Expr::Cast(ty, inner) => CType::of(ty).is_some() && always_defined(inner),
        Expr::Binary(op, a, b) => {
            !matches!(
                op,
                BinaryOp::Div | BinaryOp::Rem | BinaryOp::Shl | BinaryOp::Shr
            ) && always_defined(a)
                && always_defined(b)
        }
        _ => false,
    }
}

/// `value` of type `from` converted to `to`, concrete or a term.
fn converted(from: Num, to: Num, value: Operand) -> Eval<Operand> {
    match (value, from, to) {
        (Operand::Concrete(value), ..) => Ok(Operand::Concrete(cast(from, to, value)?)),
        (Operand::Symbolic(term), Num::Int(from), Num::Int(to)) => {
            Ok(Operand::Symbolic(term::convert(term, from, to)))
        }
        (Operand::Symbolic(_), ..) => Err(Unmodelled::symbolic("a floating value")),
    }
}

/// `value` as a term of type `ty` (integer types only).
fn as_term(from: Num, value: Operand, ty: CType) -> Eval<Term> {
    let Num::Int(from) = from else {
        return Err(Unmodelled::symbolic("an operand of floating arithmetic"));
    };
    Ok(match value {
        Operand::Concrete(value) => term::convert(Term::constant(value, from), from, ty),
        Operand::Symbolic(term) => term::convert(term, from, ty),
    })
}

/// Whether a term of type `ty` is not zero, as a formula (a truth value
/// `c ? 1 : 0` gives back `c`).
pub fn truth_formula(term: Term, ty: CType) -> Formula {
    if let Term::Choice {
        condition,
        then,
        otherwise,
    } = &term
        && matches!(then.as_ref(), Term::Constant { value: 1, .. })
        && matches!(otherwise.as_ref(), Term::Constant { value: 0, .. })
    {
        return condition.as_ref().clone();
    }
    term::nonzero(term, ty)
}

/// C's unary `op` on the term `operand` of type `from`, a result of type
/// `ty`.
fn unary_term(op: UnaryOp, from: Num, operand: Term, ty: Num) -> Eval<Term> {
    let (Num::Int(from), Num::Int(to)) = (from, ty) else {
        return Err(Unmodelled::symbolic("an operand of floating arithmetic"));
    };
    Ok(match op {
        UnaryOp::Not => (!truth_formula(operand, from)).value(to),
        UnaryOp::Neg => term::negated(term::convert(operand, from, to), to),
        UnaryOp::BitNot => term::complement(term::convert(operand, from, to), to),
    })
}

/// C's binary `op` (not `&&`, `||`) with a symbolic operand: the term of
/// type `ty`, and the condition under which the operation is undefined.
fn symbolic_binary(
    op: BinaryOp,
    ty: Num,
    (a_type, a): (Num, Operand),
    (b_type, b): (Num, Operand),
) -> Eval<(Term, Option<Formula>)> {
    let no_term = |error: term::NoTerm| Unmodelled(error.to_string());
    let Num::Int(int) = ty else {
        return Err(Unmodelled::symbolic("an operand of floating arithmetic"));
    };
    match op {
        BinaryOp::Shl | BinaryOp::Shr => {
            let Num::Int(amount) = b_type else {
                return Err(Unmodelled("a shift by a floating value".into()));
            };
            let left = as_term(a_type, a, int)?;
            let right = as_term(b_type, b, amount)?;
            let shifted = term::shift(op, left, int, right, amount).map_err(no_term)?;
            Ok((shifted.term, shifted.undefined))
        }
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            let Num::Int(common) = a_type.common(b_type) else {
                return Err(Unmodelled::symbolic("an operand of a floating comparison"));
            };
            let (left, right) = (as_term(a_type, a, common)?, as_term(b_type, b, common)?);
            let formula = term::compare(op, left, right, common).map_err(no_term)?;
            Ok((formula.value(int), None))
        }
        _ => {
            let (left, right) = (as_term(a_type, a, int)?, as_term(b_type, b, int)?);
            let computed = term::arithmetic(op, left, right, int).map_err(no_term)?;
            Ok((computed.term, computed.undefined))
        }
    }
}

/// C's binary `op` (not `&&`, `||`) on concrete operands, a result of
/// type `ty`.
fn concrete_binary(
    op: BinaryOp,
    ty: Num,
    (a_type, a): (Num, i64),
    (b_type, b): (Num, i64),
) -> Eval<i64> {
    let truth = |holds: bool| i64::from(holds);
    let comparison = matches!(
        op,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
    );
    match op {
        BinaryOp::LogicalAnd => return Ok(truth(nonzero(a_type, a) && nonzero(b_type, b))),
        BinaryOp::LogicalOr => return Ok(truth(nonzero(a_type, a) || nonzero(b_type, b))),
        BinaryOp::Shl | BinaryOp::Shr => {
            let Num::Int(int) = ty else {
                return Err(Unmodelled("a shift of a floating value".into()));
            };
            let a = cast(a_type, ty, a)?;
            let bits = i64::from(int.bits);
            if !(0..bits).contains(&b) || (op == BinaryOp::Shl && int.signed && a < 0) {
                return Err(Unmodelled(format!(
                    "a shift by {b} of a {}-bit value",
                    int.bits
                )));
            }
            let shift = b as u32;
            return Ok(match op {
                BinaryOp::Shl => int.convert(a.wrapping_shl(shift)),
                _ if int.is_wide_unsigned() => ((a as u64) >> shift) as i64,
                _ => a >> shift,
            });
        }
        _ => {}
    }
    // the operands in their common type
    let common = if comparison {
        a_type.common(b_type)
    } else {
        ty
    };
    let (a, b) = (cast(a_type, common, a)?, cast(b_type, common, b)?);
    let int = match common {
        Num::Int(int) => int,
        Num::Float(bits) => return computed(float::binary(op, bits, a, b)),
    };
    let compare = |a: i64, b: i64| {
        if int.is_wide_unsigned() {
            (a as u64).cmp(&(b as u64))
        } else {
            a.cmp(&b)
        }
    };
    use std::cmp::Ordering::*;
    Ok(match op {
        BinaryOp::Add => int.convert(a.wrapping_add(b)),
        BinaryOp::Sub => int.convert(a.wrapping_sub(b)),
        BinaryOp::Mul => int.convert(a.wrapping_mul(b)),
        BinaryOp::Div | BinaryOp::Rem => {
            if b == 0 {
                return Err(Unmodelled("a division by zero".into()));
            }
            let value = match (op, int.is_wide_unsigned()) {
                (BinaryOp::Div, true) => ((a as u64) / (b as u64)) as i64,
                (_, true) => ((a as u64) % (b as u64)) as i64,
                (BinaryOp::Div, false) => a.wrapping_div(b),
                (_, false) => a.wrapping_rem(b),
            };
            int.convert(value)
        }
        BinaryOp::BitAnd => int.convert(a & b),
        BinaryOp::BitOr => int.convert(a | b),
        BinaryOp::BitXor => int.convert(a ^ b),
        BinaryOp::Eq => truth(a == b),
        BinaryOp::Ne => truth(a != b),
        BinaryOp::Lt => truth(compare(a, b) == Less),
        BinaryOp::Le => truth(compare(a, b) != Greater),
        BinaryOp::Gt => truth(compare(a, b) == Greater),
        BinaryOp::Ge => truth(compare(a, b) != Less),
        BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::Shl | BinaryOp::Shr => 0,
    })
}

/// The member types of the union through which the printer reinterprets
/// a value as type `to` (`union { int from; float to; }`): the member the
/// value is assigned to, and the member read.
fn reinterpreted(to: &Ty) -> (Num, Num) {
    let (integer, floating) = match to {
        Ty::Float { bits } | Ty::Int { bits, .. } if *bits <= 32 => (Num::INT, Num::Float(32)),
        _ => (Num::LONG_LONG, Num::Float(64)),
    };
    if matches!(to, Ty::Float { .. }) {
        (integer, floating)
    } else {
        (floating, integer)
    }
}

/// `c op x` as `x op' c`.
fn mirrored(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        other => other,
    }
}

/// The values of a scalar type.
fn type_range(ty: CType) -> (i128, i128) {
    let bits = u32::from(ty.bits);
    if ty.bits == 1 {
        (0, 1)
    } else if ty.signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Whether `expr` is made of integer constants alone.
fn is_constant(expr: &Expr) -> bool {
    match expr {
        Expr::Const(_) => true,
        Expr::Unary(_, a) | Expr::Cast(_, a) => is_constant(a),
        Expr::Binary(_, a, b) => is_constant(a) && is_constant(b),
        _ => false,
    }
}

/// Whether the place indexes an array (its index is an expression).
fn has_index(place: &Place) -> bool {
    match place {
        Place::Index(..) => true,
        Place::Field(base, _) => has_index(base),
        Place::Local(_) | Place::PlainGlobal(_) => false,
    }
}

/// Choices for what makes none: a load of a place without an index, a
/// constant expression.
struct NoChoice;

impl Choices for NoChoice {
    fn choose(&mut self, lo: i64, _values: u32) -> i64 {
        lo
    }
}
