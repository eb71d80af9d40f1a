//! Private data of the native engine: the values of locals and plain
//! globals as trees of scalars, their C types as the printed program
//! declares them, and C's integer conversions. A `float` or `double`
//! scalar holds the bits of its value, as shared memory holds them
//! (a `float`'s as a sign-extended 32-bit integer); its type says so.

use crate::ir::{StructDef, Ty};

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

/// A scalar C type of the printed program: its width and signedness
/// (`_Bool` is an unsigned type of one bit; pointers, thread handles and
/// function pointers are `unsigned int`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CType {
    pub bits: u8,
    pub signed: bool,
}

impl CType {
    pub const INT: CType = CType {
        bits: 32,
        signed: true,
    };
    pub const BOOL: CType = CType {
        bits: 1,
        signed: false,
    };

    /// The scalar C type the printer declares for `ty`; `None` for a
    /// floating type, an aggregate or `void`.
    pub fn of(ty: &Ty) -> Option<CType> {
        match ty {
            Ty::Bool => Some(CType::BOOL),
            Ty::Int { bits, signed } => Some(CType {
                bits: match bits {
                    0..=8 => 8,
                    9..=16 => 16,
                    17..=32 => 32,
                    _ => 64,
                },
                signed: *signed,
            }),
            Ty::Pointer(_) | Ty::ThreadHandle | Ty::FunctionPointer => Some(CType {
                bits: 32,
                signed: false,
            }),
            Ty::Void | Ty::Array(..) | Ty::Struct(_) | Ty::Float { .. } => None,
        }
    }

    /// C's integer promotion: types narrower than `int` become `int`.
    pub fn promoted(self) -> CType {
        if self.bits < 32 { CType::INT } else { self }
    }

    /// C's usual arithmetic conversions of two integer operands.
    pub fn common(self, other: CType) -> CType {
        let (a, b) = (self.promoted(), other.promoted());
        if a.signed == b.signed {
            return if a.bits >= b.bits { a } else { b };
        }
        let (unsigned, signed) = if a.signed { (b, a) } else { (a, b) };
        if unsigned.bits >= signed.bits {
            unsigned
        } else {
            signed
        }
    }

    /// `value` (any integer) converted to this type, as C converts it; the
    /// result is the type's value, with `unsigned long long` held as the
    /// bits of an `i64`.
    pub fn convert(self, value: i64) -> i64 {
        if self.bits == 1 {
            return i64::from(value != 0);
        }
        crate::ir::truncate(value, self.bits, self.signed)
    }

    /// Whether the type is `unsigned long long` (its values above
    /// `i64::MAX` are held as negative `i64`s).
    pub fn is_wide_unsigned(self) -> bool {
        !self.signed && self.bits >= 64
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
    fn usual_arithmetic_conversions_follow_c() {
        let uint = CType {
            bits: 32,
            signed: false,
        };
        let llong = CType {
            bits: 64,
            signed: true,
        };
        let ullong = CType {
            bits: 64,
            signed: false,
        };
        assert_eq!(CType::INT.common(uint), uint);
        assert_eq!(uint.common(llong), llong);
        assert_eq!(ullong.common(CType::INT), ullong);
        assert_eq!(CType::BOOL.common(CType::BOOL), CType::INT);
        assert_eq!(uint.convert(-1), 4_294_967_295);
        assert_eq!(CType::INT.convert(4_294_967_295), -1);
        assert_eq!(CType::BOOL.convert(7), 1);
    }

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
