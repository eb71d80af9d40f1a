//! The scalar integer types of the printed C program as the native
//! engine computes with them: a width and a signedness, C's promotions,
//! usual arithmetic conversions and conversions of values. Both the
//! interpreter's concrete values and the symbolic terms have them.

use crate::ir::Ty;

/// A scalar C type of the printed program: its width and signedness
/// (`_Bool` is an unsigned type of one bit; pointers, thread handles and
/// function pointers are `unsigned int`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
}
