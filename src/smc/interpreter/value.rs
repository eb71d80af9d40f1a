//! Private data of the native engine: the values of locals and plain
//! globals as trees of scalars, their C types as the printed program
//! declares them, and C's integer conversions. A `float` or `double`
//! scalar holds the bits of its value, as shared memory holds them
//! (a `float`'s as a sign-extended 32-bit integer); its type says so.

use crate::ir::{StructDef, Ty};
pub use crate::smc::symbolic::ctype::CType;
use crate::smc::symbolic::term::Term;
use std::sync::Arc;

/// The value of a private object: a scalar, or the elements of an array or
/// the fields of a struct in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    Scalar(i64),
    Aggregate(Vec<Value>),
    /// A scalar given a nondeterministic value of more than 256 values (an
    /// uninitialised local, a `__VERIFIER_nondet_int()` result): the
    /// engine does not enumerate it, so an execution that reads it stops
    /// the search (the program is declined there); one that overwrites it
    /// first behaves alike for every value it could have had.
    Unknown {
        bits: u8,
    },
    /// Such a scalar after a test of its truth found it not zero
    /// ([`Private::truth`](super::eval::Private::truth)): its other
    /// `2^bits - 1` values behave alike while only its truth is read.
    NonZero {
        bits: u8,
    },
    /// A place whose unknown or not-zero value was copied elsewhere (`go =
    /// __tmp`): the value lives on in the copy only, so that a test of the
    /// copy cannot disagree with the original. Reading it declines.
    Moved,
    /// A scalar with a nondeterministic value of more than 256 values in
    /// a run that takes such values symbolically (RF-SMC's): a term over
    /// symbols, of the place's C type. A copy is the same term, so a test
    /// of one copy decides the others.
    Symbolic {
        term: Arc<Term>,
        ty: CType,
    },
}

impl Value {
    /// The zero value of `ty` (private locals are static in the printed
    /// program, plain globals are globals: both start at zero).
    pub fn zero(ty: &Ty, structs: &[StructDef]) -> Value {
        match ty {
            Ty::Array(element, length) => {
                let element = Value::zero(element, structs);
                Value::Aggregate(vec![element; usize::try_from(*length).unwrap_or(0).max(1)])
            }
            Ty::Struct(id) => Value::Aggregate(
                structs
                    .get(*id)
                    .map(|s| {
                        s.fields
                            .iter()
                            .map(|(_, t)| Value::zero(t, structs))
                            .collect()
                    })
                    .unwrap_or_default(),
            ),
            _ => Value::Scalar(0),
        }
    }
}

/// The type of a scalar the printed program computes with: an integer
/// type, or a floating one of 32 (`float`) or 64 (`double`) bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Num {
    Int(CType),
    Float(u8),
}

impl Num {
    pub const INT: Num = Num::Int(CType::INT);
    pub const LONG_LONG: Num = Num::Int(CType {
        bits: 64,
        signed: true,
    });

    /// The scalar type the printer declares for `ty`; `None` for an
    /// aggregate or `void`.
    pub fn of(ty: &Ty) -> Option<Num> {
        match ty {
            Ty::Float { bits } => Some(Num::Float(if *bits <= 32 { 32 } else { 64 })),
            other => CType::of(other).map(Num::Int),
        }
    }

    /// C's integer promotion (a floating type stays as it is).
    pub fn promoted(self) -> Num {
        match self {
            Num::Int(ty) => Num::Int(ty.promoted()),
            float => float,
        }
    }

    /// C's usual arithmetic conversions: the wider floating type if
    /// either operand has one (`int + float` is a `float`, `float +
    /// double` a `double`), else the integers' common type.
    pub fn common(self, other: Num) -> Num {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Num::Int(a.common(b)),
            (Num::Float(a), Num::Float(b)) => Num::Float(a.max(b)),
            (Num::Float(bits), Num::Int(_)) | (Num::Int(_), Num::Float(bits)) => Num::Float(bits),
        }
    }

    /// The width of the type's values.
    pub fn bits(self) -> u8 {
        match self {
            Num::Int(ty) => ty.bits,
            Num::Float(bits) => bits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floating_types_win_the_usual_arithmetic_conversions() {
        let (float, double) = (Num::Float(32), Num::Float(64));
        assert_eq!(Num::INT.common(float), float);
        assert_eq!(float.common(Num::LONG_LONG), float);
        assert_eq!(float.common(double), double);
        assert_eq!(float.common(float), float);
        assert_eq!(float.promoted(), float);
        assert_eq!(Num::of(&Ty::Float { bits: 64 }), Some(double));
        assert_eq!(Num::of(&Ty::Bool), Some(Num::Int(CType::BOOL)));
    }
}
