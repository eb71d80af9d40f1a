//! Evaluation of the pure expressions and private places of one thread,
//! exactly as the printed C program computes them: each expression has the
//! C type the printer gives it, operands undergo C's promotions and usual
//! arithmetic conversions, and results wrap to their type. Floating
//! values are computed as CBMC computes them ([`super::float`]).

use super::float;
use super::value::{CType, Num, Value};
use crate::ir::{BinaryOp, Expr, Place, PlainGlobal, StructDef, Ty, UnaryOp};
use crate::passes::SeqThread;

/// Why an evaluation stopped: what the native engine does not model
/// exactly, which the whole exploration then declines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmodelled(pub String);

/// How [`Unmodelled::out_of_bounds`] begins its message.
const OUT_OF_BOUNDS: &str = "an index outside a private array: ";

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
}

/// The private state an expression of one thread reads and a private
/// assignment writes.
pub struct Private<'a> {
    pub thread: &'a SeqThread,
    pub plain_globals: &'a [PlainGlobal],
    pub structs: &'a [StructDef],
    pub locals: &'a mut [Value],
    pub plain: &'a mut [Value],
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
                Value::Scalar(_) | Value::Unknown { .. } | Value::NonZero { .. } | Value::Moved => {
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

    /// `place = value` of the program: a scalar, or a whole struct or
    /// array copied from another place.
    pub fn assign(&mut self, place: &Place, value: &Expr, choices: &mut dyn Choices) -> Eval<()> {
        let ty = self.place_type(place)?;
        if Num::of(&ty).is_some() {
            if let Expr::Nondet(nondet) = value
                && let Some(bits) = Num::of(nondet).map(Num::bits).filter(|bits| *bits > 8)
            {
                // left unknown until read: most such values are
                // overwritten first (locals the printed program declares
                // without an initial value)
                *self.slot(place, choices)? = Value::Unknown { bits };
                return Ok(());
            }
            if let Some(source) = self.truth_kept_source(&ty, value)
                && let moved @ (Value::Unknown { .. } | Value::NonZero { .. }) =
                    self.load(source, choices)?
            {
                // the value moves: tests of the copy decide it
                *self.slot(source, choices)? = Value::Moved;
                *self.slot(place, choices)? = moved;
                return Ok(());
            }
            let (from, scalar) = self.eval(value, choices)?;
            return self.store_typed(place, from, scalar, choices);
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
        match expr {
            Expr::Load(place) => match self.load(place, choices)? {
                // a floating zero has two values, and its other values
                // differ in more than truth: only an integer is split
                Value::Unknown { bits } if matches!(self.type_of(expr)?, Num::Int(_)) => {
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

    /// Whether the value of `expr` is not zero.
    fn eval_truth(&mut self, expr: &Expr, choices: &mut dyn Choices) -> Eval<bool> {
        let (ty, value) = self.eval(expr, choices)?;
        Ok(nonzero(ty, value))
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
        Ok(
            matches!(self.load(place, &mut NoChoice)?, Value::Unknown { .. })
                .then(|| (place.clone(), operand)),
        )
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

    /// The value of `expr` and its C type.
    pub fn eval(&mut self, expr: &Expr, choices: &mut dyn Choices) -> Eval<(Num, i64)> {
        let ty = self.type_of(expr)?;
        let value = match expr {
            Expr::Const(value) => *value,
            Expr::FloatConst(literal) => computed(float::literal(literal))?,
            Expr::Load(place) => match self.load(place, choices)? {
                Value::Scalar(value) => value,
                Value::Aggregate(_) => {
                    return Err(Unmodelled("an aggregate in an expression".into()));
                }
                Value::Unknown { bits } => {
                    let what = match ty {
                        Num::Float(32) => "float".to_string(),
                        Num::Float(_) => "double".to_string(),
                        Num::Int(_) => format!("value of {bits} bits"),
                    };
                    return Err(Unmodelled(format!(
                        "a nondeterministic {what} is read (it has 2^{bits} values; the native engine explores at most 256)"
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
            },
            Expr::ObjectAddress(_) => 0,
            Expr::CurrentThread => self.thread.slot as i64,
            Expr::Unary(op, operand) => {
                let (from, value) = self.eval(operand, choices)?;
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
            Expr::Binary(op, a, b) => self.binary(*op, a, b, ty, choices)?,
            Expr::Conditional(condition, a, b) => {
                let chosen = if self.eval_truth(condition, choices)? {
                    a
                } else {
                    b
                };
                let (from, value) = self.eval(chosen, choices)?;
                cast(from, ty, value)?
            }
            Expr::Cast(_, inner) => {
                let (from, value) = self.eval(inner, choices)?;
                cast(from, ty, value)?
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
        Ok((ty, value))
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        ty: Num,
        choices: &mut dyn Choices,
    ) -> Eval<i64> {
        let (a_type, a) = self.eval(a, choices)?;
        // `&&` and `||` evaluate their right operand only when the left
        // one does not decide, as C does (a guarded shift or division)
        let decided = match op {
            BinaryOp::LogicalAnd => (!nonzero(a_type, a)).then_some(0),
            BinaryOp::LogicalOr => nonzero(a_type, a).then_some(1),
            _ => None,
        };
        if let Some(value) = decided {
            return Ok(value);
        }
        let (b_type, b) = self.eval(b, choices)?;
        let truth = |holds: bool| i64::from(holds);
        let comparison = matches!(
            op,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        );
        match op {
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => return Ok(truth(nonzero(b_type, b))),
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
