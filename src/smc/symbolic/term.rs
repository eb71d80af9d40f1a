//! Bit-vector terms over symbols with C's semantics: a term has the width
//! of its C type, arithmetic wraps around, division and remainder truncate
//! toward zero, a right shift is arithmetic for signed types and logical
//! for unsigned ones, conversions extend by the source's signedness or
//! keep the low bits. What the interpreter declines on concrete values (a
//! division by zero, a shift by a negative amount or by the width or more,
//! a left shift of a negative value) is returned beside the term as the
//! condition under which it happens ([`Arithmetic::undefined`]): a caller
//! declines when that condition is feasible. Booleans of C (comparisons,
//! `!`, `&&`, `||`) are [`Formula`]s. [`Term::evaluate`] computes a term
//! on concrete values, as the interpreter does, for tests.

use super::ctype::CType;
use crate::ir::BinaryOp;
use std::collections::HashMap;
use std::sync::Arc;

/// The name of a symbol: one nondeterministic value of a search.
pub type SymbolId = u32;

/// An operation on two bit-vectors of one width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitOp {
    Add,
    Sub,
    Mul,
    SignedDiv,
    UnsignedDiv,
    SignedRem,
    UnsignedRem,
    And,
    Or,
    Xor,
    Shl,
    LogicalShr,
    ArithmeticShr,
}

/// A comparison of two bit-vectors of one width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparison {
    Equal,
    SignedLess,
    UnsignedLess,
    SignedLessEqual,
    UnsignedLessEqual,
}

/// A bit-vector term; `width` is in bits (1 to 64).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// A constant: its value as the interpreter holds it (the low `width`
    /// bits count).
    Constant {
        value: i64,
        width: u8,
    },
    Symbol {
        id: SymbolId,
        width: u8,
    },
    Binary {
        op: BitOp,
        left: Arc<Term>,
        right: Arc<Term>,
    },
    /// `argument` extended to `width` bits, by its sign when `signed`.
    Extend {
        signed: bool,
        argument: Arc<Term>,
        width: u8,
    },
    /// The low `width` bits of `argument`.
    Low {
        argument: Arc<Term>,
        width: u8,
    },
    /// `then` where `condition` holds, else `otherwise` (one width).
    Choice {
        condition: Arc<Formula>,
        then: Arc<Term>,
        otherwise: Arc<Term>,
    },
}

/// A truth over terms.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Formula {
    Constant(bool),
    Compare {
        op: Comparison,
        left: Arc<Term>,
        right: Arc<Term>,
    },
    Not(Arc<Formula>),
    And(Arc<Formula>, Arc<Formula>),
    Or(Arc<Formula>, Arc<Formula>),
}

/// A C operation's result: its term, and the condition under which the
/// interpreter declines it (none when it never does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arithmetic {
    pub term: Term,
    pub undefined: Option<Formula>,
}

/// Why a C operation has no term here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} has no bit-vector term")]
pub struct NoTerm(pub String);

/// The low `width` bits of `value`, as an unsigned number.
pub fn bits(value: i64, width: u8) -> u64 {
    if width >= 64 {
        value as u64
    } else {
        (value as u64) & ((1u64 << width) - 1)
    }
}

/// `bits` of `width` bits as the `i64` the interpreter holds for a value
/// of that width and signedness.
fn held(bits: u64, width: u8, signed: bool) -> i64 {
    crate::ir::truncate(bits as i64, width, signed)
}

impl Term {
    /// The constant `value` of type `ty`.
    pub fn constant(value: i64, ty: CType) -> Term {
        Term::Constant {
            value,
            width: ty.bits,
        }
    }

    /// The symbol `id`, a value of type `ty`.
    pub fn symbol(id: SymbolId, ty: CType) -> Term {
        Term::Symbol { id, width: ty.bits }
    }

    /// The term's width in bits.
    pub fn width(&self) -> u8 {
        match self {
            Term::Constant { width, .. }
            | Term::Symbol { width, .. }
            | Term::Extend { width, .. }
            | Term::Low { width, .. } => *width,
            Term::Binary { left, .. } => left.width(),
            Term::Choice { then, .. } => then.width(),
        }
    }

    fn binary(op: BitOp, left: Term, right: Term) -> Term {
        Term::Binary {
            op,
            left: Arc::new(left),
            right: Arc::new(right),
        }
    }

    /// The term's value, unsigned, in its low `width` bits, under the
    /// symbols' `values` (a missing symbol is 0).
    pub fn evaluate(&self, values: &HashMap<SymbolId, i64>) -> u64 {
        let width = self.width();
        match self {
            Term::Constant { value, width } => bits(*value, *width),
            Term::Symbol { id, width } => bits(values.get(id).copied().unwrap_or(0), *width),
            Term::Binary { op, left, right } => {
                let (a, b) = (left.evaluate(values), right.evaluate(values));
                bits(apply(*op, a, b, width) as i64, width)
            }
            Term::Extend {
                signed,
                argument,
                width,
            } => {
                let inner = argument.evaluate(values);
                let value = if *signed {
                    held(inner, argument.width(), true)
                } else {
                    inner as i64
                };
                bits(value, *width)
            }
            Term::Low { argument, width } => bits(argument.evaluate(values) as i64, *width),
            Term::Choice {
                condition,
                then,
                otherwise,
            } => {
                if condition.evaluate(values) {
                    then.evaluate(values)
                } else {
                    otherwise.evaluate(values)
                }
            }
        }
    }
}

/// `op` on the unsigned `width`-bit values `a` and `b`, as SMT-LIB defines
/// it (a division by zero gives all ones, a remainder by zero `a`).
fn apply(op: BitOp, a: u64, b: u64, width: u8) -> u64 {
    let signed = |value: u64| held(value, width, true);
    let shift = |b: u64| u32::try_from(b).ok().filter(|&b| b < u32::from(width));
    match op {
        BitOp::Add => a.wrapping_add(b),
        BitOp::Sub => a.wrapping_sub(b),
        BitOp::Mul => a.wrapping_mul(b),
        BitOp::UnsignedDiv if b == 0 => u64::MAX,
        BitOp::UnsignedDiv => a / b,
        BitOp::UnsignedRem if b == 0 => a,
        BitOp::UnsignedRem => a % b,
        BitOp::SignedDiv if b == 0 => {
            if signed(a) < 0 {
                1
            } else {
                u64::MAX
            }
        }
        BitOp::SignedDiv => signed(a).wrapping_div(signed(b)) as u64,
        BitOp::SignedRem if b == 0 => a,
        BitOp::SignedRem => signed(a).wrapping_rem(signed(b)) as u64,
        BitOp::And => a & b,
        BitOp::Or => a | b,
        BitOp::Xor => a ^ b,
        BitOp::Shl => shift(b).map_or(0, |b| a << b),
        BitOp::LogicalShr => shift(b).map_or(0, |b| a >> b),
        BitOp::ArithmeticShr => {
            let b = shift(b).unwrap_or(u32::from(width) - 1);
            (signed(a) >> b) as u64
        }
    }
}

impl std::ops::Not for Formula {
    type Output = Formula;

    fn not(self) -> Formula {
        match self {
            Formula::Constant(holds) => Formula::Constant(!holds),
            other => Formula::Not(Arc::new(other)),
        }
    }
}

impl Formula {
    fn compare(op: Comparison, left: Term, right: Term) -> Formula {
        Formula::Compare {
            op,
            left: Arc::new(left),
            right: Arc::new(right),
        }
    }

    /// `left == right` (one width).
    pub fn compare_equal(left: Term, right: Term) -> Formula {
        Formula::compare(Comparison::Equal, left, right)
    }

    pub fn and(self, other: Formula) -> Formula {
        Formula::And(Arc::new(self), Arc::new(other))
    }

    pub fn or(self, other: Formula) -> Formula {
        Formula::Or(Arc::new(self), Arc::new(other))
    }

    /// Whether the formula holds under the symbols' `values`.
    pub fn evaluate(&self, values: &HashMap<SymbolId, i64>) -> bool {
        match self {
            Formula::Constant(holds) => *holds,
            Formula::Compare { op, left, right } => {
                let width = left.width();
                let (a, b) = (left.evaluate(values), right.evaluate(values));
                let (sa, sb) = (held(a, width, true), held(b, width, true));
                match op {
                    Comparison::Equal => a == b,
                    Comparison::SignedLess => sa < sb,
                    Comparison::UnsignedLess => a < b,
                    Comparison::SignedLessEqual => sa <= sb,
                    Comparison::UnsignedLessEqual => a <= b,
                }
            }
            Formula::Not(inner) => !inner.evaluate(values),
            Formula::And(a, b) => a.evaluate(values) && b.evaluate(values),
            Formula::Or(a, b) => a.evaluate(values) || b.evaluate(values),
        }
    }

    /// The C value of the truth (1 or 0) as a term of type `ty`.
    pub fn value(self, ty: CType) -> Term {
        Term::Choice {
            condition: Arc::new(self),
            then: Arc::new(Term::constant(1, ty)),
            otherwise: Arc::new(Term::constant(0, ty)),
        }
    }
}

/// `term`, a value of type `from`, converted to type `to` as C converts
/// it (to `_Bool`: whether it is not zero).
pub fn convert(term: Term, from: CType, to: CType) -> Term {
    if to.bits == 1 && from.bits != 1 {
        return nonzero(term, from).value(to);
    }
    match from.bits.cmp(&to.bits) {
        std::cmp::Ordering::Equal => term,
        std::cmp::Ordering::Less => Term::Extend {
            signed: from.signed && from.bits != 1,
            argument: Arc::new(term),
            width: to.bits,
        },
        std::cmp::Ordering::Greater => Term::Low {
            argument: Arc::new(term),
            width: to.bits,
        },
    }
}

/// Whether `term`, a value of type `ty`, is not zero.
pub fn nonzero(term: Term, ty: CType) -> Formula {
    !Formula::compare(Comparison::Equal, term, Term::constant(0, ty))
}

/// C's arithmetic `op` (`+ - * / % & | ^`) on `left` and `right`, both
/// already of their common type `ty` (`CType::common`).
pub fn arithmetic(op: BinaryOp, left: Term, right: Term, ty: CType) -> Result<Arithmetic, NoTerm> {
    let signed = ty.signed;
    let bit_op = match op {
        BinaryOp::Add => BitOp::Add,
        BinaryOp::Sub => BitOp::Sub,
        BinaryOp::Mul => BitOp::Mul,
        BinaryOp::Div if signed => BitOp::SignedDiv,
        BinaryOp::Div => BitOp::UnsignedDiv,
        BinaryOp::Rem if signed => BitOp::SignedRem,
        BinaryOp::Rem => BitOp::UnsignedRem,
        BinaryOp::BitAnd => BitOp::And,
        BinaryOp::BitOr => BitOp::Or,
        BinaryOp::BitXor => BitOp::Xor,
        other => return Err(NoTerm(format!("the operator {other:?}"))),
    };
    let undefined =
        matches!(op, BinaryOp::Div | BinaryOp::Rem).then(|| !nonzero(right.clone(), ty));
    Ok(Arithmetic {
        term: Term::binary(bit_op, left, right),
        undefined,
    })
}

/// C's shift `op` of `left` (of its promoted type `ty`) by `right` (of
/// type `amount`): undefined for an amount below 0 or of `ty`'s width or
/// more, and for a left shift of a negative signed value.
pub fn shift(
    op: BinaryOp,
    left: Term,
    ty: CType,
    right: Term,
    amount: CType,
) -> Result<Arithmetic, NoTerm> {
    let bit_op = match op {
        BinaryOp::Shl => BitOp::Shl,
        BinaryOp::Shr if ty.signed => BitOp::ArithmeticShr,
        BinaryOp::Shr => BitOp::LogicalShr,
        other => return Err(NoTerm(format!("the shift {other:?}"))),
    };
    let width = Term::constant(i64::from(ty.bits), amount);
    let within = if amount.signed {
        let negative = compare(
            BinaryOp::Lt,
            right.clone(),
            Term::constant(0, amount),
            amount,
        )?;
        let at_least = compare(BinaryOp::Ge, right.clone(), width, amount)?;
        negative.or(at_least)
    } else {
        compare(BinaryOp::Ge, right.clone(), width, amount)?
    };
    let undefined = if op == BinaryOp::Shl && ty.signed {
        let negative = compare(BinaryOp::Lt, left.clone(), Term::constant(0, ty), ty)?;
        within.or(negative)
    } else {
        within
    };
    let right = convert(
        right,
        amount,
        CType {
            signed: false,
            ..ty
        },
    );
    Ok(Arithmetic {
        term: Term::binary(bit_op, left, right),
        undefined: Some(undefined),
    })
}

/// C's comparison `op` of `left` and `right`, both of their common type
/// `ty`.
pub fn compare(op: BinaryOp, left: Term, right: Term, ty: CType) -> Result<Formula, NoTerm> {
    let (less, less_equal) = if ty.signed {
        (Comparison::SignedLess, Comparison::SignedLessEqual)
    } else {
        (Comparison::UnsignedLess, Comparison::UnsignedLessEqual)
    };
    Ok(match op {
        BinaryOp::Eq => Formula::compare(Comparison::Equal, left, right),
        BinaryOp::Ne => !Formula::compare(Comparison::Equal, left, right),
        BinaryOp::Lt => Formula::compare(less, left, right),
        BinaryOp::Le => Formula::compare(less_equal, left, right),
        BinaryOp::Gt => Formula::compare(less, right, left),
        BinaryOp::Ge => Formula::compare(less_equal, right, left),
        other => return Err(NoTerm(format!("the comparison {other:?}"))),
    })
}

/// `-term` and `~term` of type `ty`.
pub fn negated(term: Term, ty: CType) -> Term {
    Term::binary(BitOp::Sub, Term::constant(0, ty), term)
}

/// `~term` of type `ty`.
pub fn complement(term: Term, ty: CType) -> Term {
    Term::binary(BitOp::Xor, term, Term::constant(-1, ty))
}

/// The value a term of type `ty` has under `values`, as the interpreter
/// holds it.
pub fn value_of(term: &Term, ty: CType, values: &HashMap<SymbolId, i64>) -> i64 {
    held(term.evaluate(values), ty.bits, ty.signed && ty.bits != 1)
}
