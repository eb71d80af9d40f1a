//! The values and objects that every part of the lowering hands around:
//! a pure value with its C type ([`Val`]), an object private to the
//! sequential program or in shared memory ([`LVal`]), and the types in
//! which shared memory holds each C type's values.

use super::c_types::types::CType;
use crate::ir::*;

/// A pure value and its C type.
#[derive(Debug, Clone)]
pub struct Val {
    pub expr: Expr,
    pub ty: CType,
}

impl Val {
    pub fn int(v: i64) -> Val {
        Val {
            expr: Expr::Const(v),
            ty: CType::INT,
        }
    }
    pub fn void() -> Val {
        Val {
            expr: Expr::Const(0),
            ty: CType::Void,
        }
    }
}

/// An object designated by an lvalue.
#[derive(Debug, Clone)]
pub enum LVal {
    /// Thread-private storage.
    Private(Place, CType),
    /// Shared memory at a location id; `atomic` for `_Atomic` objects.
    Shared {
        address: Expr,
        ty: CType,
        atomic: bool,
    },
}

impl LVal {
    pub fn ty(&self) -> &CType {
        match self {
            LVal::Private(_, ty) | LVal::Shared { ty, .. } => ty,
        }
    }

    /// The object as its initialiser stores into it: C11's initialisation
    /// of an `_Atomic` object is not an atomic operation (`atomic_init`).
    pub fn initialised(&self) -> LVal {
        match self {
            LVal::Shared { address, ty, .. } => LVal::Shared {
                address: address.clone(),
                ty: ty.clone(),
                atomic: false,
            },
            private => private.clone(),
        }
    }
}

/// The integer type of a floating type's bits (`int` for a `float`,
/// `long long` for a `double`), in which shared memory holds its values;
/// `None` for every other type.
pub fn floating_bits(ty: &CType) -> Option<CType> {
    ty.float_bits()
        .map(|bits| CType::Int { bits, signed: true })
}

/// The type in which shared memory holds a value of type `ty`: a floating
/// type's bits ([`floating_bits`]), any other type itself.
pub fn memory_type(ty: &CType) -> CType {
    floating_bits(ty).unwrap_or_else(|| ty.clone())
}

/// Integer promotion (a floating type stays itself).
pub fn promote(ty: &CType) -> CType {
    match ty {
        CType::Float(bytes) => CType::Float(*bytes),
        CType::Int { bits, signed } if *bits >= 32 => CType::Int {
            bits: *bits,
            signed: *signed,
        },
        CType::Pointer(_) => CType::LONG,
        _ => CType::INT,
    }
}

/// The usual arithmetic conversions: the wider floating type where an
/// operand is floating, else the integers' common type.
pub fn common(a: &CType, b: &CType) -> CType {
    match (promote(a), promote(b)) {
        (CType::Float(x), CType::Float(y)) => CType::Float(x.max(y)),
        (CType::Float(x), CType::Int { .. } | CType::Bool)
        | (CType::Int { .. } | CType::Bool, CType::Float(x)) => CType::Float(x),
        (CType::Int { bits: x, signed: s }, CType::Int { bits: y, signed: t }) => {
            if x == y {
                CType::Int {
                    bits: x,
                    signed: s && t,
                }
            } else if x > y {
                CType::Int { bits: x, signed: s }
            } else {
                CType::Int { bits: y, signed: t }
            }
        }
        _ => CType::INT,
    }
}

/// The value a scalar of type `ty` hands to shared memory: an unsigned
/// type narrower than `int` goes as the signed type of its width (250 as
/// an `unsigned char` is -6), which reads back as the same unsigned value;
/// wider types go as they are.
pub fn stored_value(value: i64, ty: &CType) -> i64 {
    match ty {
        CType::Int {
            bits,
            signed: false,
        } if *bits < 32 => crate::ir::truncate(value, *bits, true),
        _ => value,
    }
}

/// Whether the initial value `value` of a scalar of type `ty` reads back
/// unchanged from shared memory `bits` wide (the SMA's `sma_value_t`). The
/// program hands memory an `int` up to `--bitwidth 32`, so a value of a
/// 64-bit type must go through `int` unchanged, and a `long long` above;
/// below 64 bits memory holds -2^(bits-1) .. 2^(bits-1)-1 of that
/// (`sma_narrow` in sma/common.h cuts off the stores of other values).
pub fn fits_shared_memory(value: i64, ty: &CType, bits: u32) -> bool {
    let stored = stored_value(value, ty);
    let handed = if bits > 32 {
        stored
    } else {
        i64::from(stored as i32)
    };
    let wider_than_int = matches!(ty, CType::Int { bits: type_bits, .. } if *type_bits > 32);
    if wider_than_int && handed != stored {
        return false;
    }
    if bits == 32 || bits == 0 || bits >= 64 {
        return true;
    }
    let limit = 1i64 << (bits - 1);
    (-limit..limit).contains(&handed)
}

#[cfg(test)]
mod tests {
    use super::{CType, fits_shared_memory, stored_value};

    const INT: CType = CType::Int {
        bits: 32,
        signed: true,
    };
    const UNSIGNED: CType = CType::Int {
        bits: 32,
        signed: false,
    };
    const LONG: CType = CType::Int {
        bits: 64,
        signed: true,
    };
    const UNSIGNED_LONG: CType = CType::Int {
        bits: 64,
        signed: false,
    };

    #[test]
    fn values_fit_a_bit_width_as_the_program_hands_them_to_memory() {
        let fits = |value: i64, bits: u32| fits_shared_memory(value, &INT, bits);
        assert!(fits(127, 8) && fits(-128, 8));
        assert!(!fits(128, 8) && !fits(-129, 8) && !fits(200, 8));
        // an unsigned 0xffffffff is -1 as an int, which 8 bits hold
        assert!(
            fits_shared_memory(0xffff_ffff, &UNSIGNED, 8)
                && fits_shared_memory(0xffff_ffff, &UNSIGNED, 32)
        );
        assert!(fits(-1, 1) && !fits(1, 1));
        let fits_long = |value: i64, bits: u32| fits_shared_memory(value, &LONG, bits);
        assert!(fits_long((1 << 39) - 1, 40) && fits_long(-(1 << 39), 40));
        assert!(!fits_long(1 << 39, 40) && !fits_long(1 << 40, 40) && fits_long(i64::MIN, 64));
    }

    #[test]
    fn sixty_four_bit_values_must_go_through_int_up_to_bitwidth_32() {
        assert!(!fits_shared_memory(1 << 40, &LONG, 32) && fits_shared_memory(1 << 40, &LONG, 64));
        assert!(
            fits_shared_memory(-5, &LONG, 32) && fits_shared_memory(i64::from(i32::MIN), &LONG, 32)
        );
        // 4294967295 as an int is -1, which reads back as 2^64 - 1
        assert!(!fits_shared_memory(0xffff_ffff, &UNSIGNED_LONG, 32));
        // 2^64 - 1 (held as -1) reads back unchanged
        assert!(
            fits_shared_memory(-1, &UNSIGNED_LONG, 32)
                && !fits_shared_memory(0x7fff_ffff, &UNSIGNED_LONG, 16)
        );
        assert!(fits_shared_memory(0xffff_ffff, &UNSIGNED_LONG, 33));
    }

    #[test]
    fn narrow_unsigned_values_go_to_shared_memory_as_their_signed_bits() {
        let unsigned_char = CType::Int {
            bits: 8,
            signed: false,
        };
        assert_eq!(stored_value(250, &unsigned_char), -6);
        assert!(fits_shared_memory(250, &unsigned_char, 8));
        assert_eq!(stored_value(250, &UNSIGNED), 250);
        assert_eq!(
            stored_value(
                -6,
                &CType::Int {
                    bits: 8,
                    signed: true
                }
            ),
            -6
        );
    }
}
