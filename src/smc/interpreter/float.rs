//! Floating-point arithmetic of the native engine, as CBMC computes the
//! printed program's `float` and `double`: IEEE 754 binary32 and binary64,
//! round to nearest even, no excess precision (an operation on two `float`s
//! rounds to `float`). A value is held as its bits, a `float`'s
//! sign-extended from 32 bits, as shared memory holds them. Every NaN an
//! operation makes has CBMC's bits (positive, fraction 1:
//! `0x7ff0000000000001`, `0x7f800001`). Where CBMC's result depends on how
//! it encodes the program (a conversion to an integer type out of its
//! range, the bits of a converted negative NaN or of a negated NaN of
//! another payload), the engine declines instead.

use super::value::{CType, Num};
use crate::ir::{BinaryOp, FloatLiteral};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A value, or why the engine does not compute it.
pub type Computed<T> = Result<T, String>;

/// The rounding directions of C's `<fenv.h>`, which CBMC's library sets
/// while it computes `floor`, `ceil`, `trunc` and `round`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    Nearest,
    Up,
    Down,
    TowardZero,
}

/// `f32` and `f64` as the engine holds them.
pub trait Ieee:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The bits of the NaN that CBMC's operations make.
    const CBMC_NAN: u64;
    /// The sign bit.
    const SIGN: u64;
    /// 2 to the number of fraction bits: from there on every value is an
    /// integer.
    const INTEGRAL: Self;
    const ZERO: Self;
    const HALF: Self;
    /// The value held as `held` ([`Ieee::held`]).
    fn from_held(held: i64) -> Self;
    /// The value as the engine holds it.
    fn held(self) -> i64;
    fn raw(self) -> u64;
    fn from_raw(bits: u64) -> Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_normal(self) -> bool;
    fn magnitude(self) -> Self;
    /// The IEEE square root, correctly rounded.
    fn ieee_sqrt(self) -> Self;
    /// The integer nearest the value in the direction `mode`.
    fn integral(self, mode: Rounding) -> Self;
}

macro_rules! ieee {
    ($f:ty, $u:ty, $i:ty, $nan:expr, $integral:expr) => {
        impl Ieee for $f {
            const CBMC_NAN: u64 = $nan;
            const SIGN: u64 = 1 << (<$u>::BITS - 1);
            const INTEGRAL: Self = $integral;
            const ZERO: Self = 0.0;
            const HALF: Self = 0.5;
            fn from_held(held: i64) -> Self {
                <$f>::from_bits(held as $u)
            }
            fn held(self) -> i64 {
                self.to_bits() as $i as i64
            }
            fn raw(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn from_raw(bits: u64) -> Self {
                <$f>::from_bits(bits as $u)
            }
            fn is_nan(self) -> bool {
                <$f>::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                <$f>::is_infinite(self)
            }
            fn is_normal(self) -> bool {
                <$f>::is_normal(self)
            }
            fn magnitude(self) -> Self {
                self.abs()
            }
            fn ieee_sqrt(self) -> Self {
                self.sqrt()
            }
            fn integral(self, mode: Rounding) -> Self {
                match mode {
                    Rounding::Nearest => self.round_ties_even(),
                    Rounding::Up => self.ceil(),
                    Rounding::Down => self.floor(),
                    Rounding::TowardZero => self.trunc(),
                }
            }
        }
    };
}

ieee!(f32, u32, i32, 0x7f80_0001, 8_388_608.0);
ieee!(
    f64,
    u64,
    i64,
    0x7ff0_0000_0000_0001,
    4_503_599_627_370_496.0
);

/// Runs `$body` with `$f` the Rust type of a floating type of `$bits`
/// bits.
macro_rules! in_width {
    ($bits:expr, $f:ident => $body:expr) => {
        if $bits <= 32 {
            type $f = f32;
            $body
        } else {
            type $f = f64;
            $body
        }
    };
}
pub(super) use in_width;

/// The result of an operation as CBMC gives it: a NaN has CBMC's bits.
pub fn made<F: Ieee>(x: F) -> F {
    if x.is_nan() {
        F::from_raw(F::CBMC_NAN)
    } else {
        x
    }
}

/// `a op b` for two values of the floating type of `bits` bits: an
/// arithmetic operator gives that type's value, a comparison 0 or 1.
pub fn binary(op: BinaryOp, bits: u8, a: i64, b: i64) -> Computed<i64> {
    in_width!(bits, F => {
        let (a, b) = (F::from_held(a), F::from_held(b));
        let truth = |holds: bool| i64::from(holds);
        Ok(match op {
            BinaryOp::Add => made(a + b).held(),
            BinaryOp::Sub => made(a - b).held(),
            BinaryOp::Mul => made(a * b).held(),
            BinaryOp::Div => made(a / b).held(),
            BinaryOp::Eq => truth(a == b),
            BinaryOp::Ne => truth(a != b),
            BinaryOp::Lt => truth(a < b),
            BinaryOp::Le => truth(a <= b),
            BinaryOp::Gt => truth(a > b),
            BinaryOp::Ge => truth(a >= b),
            other => return Err(format!("the operator {other:?} on floating values")),
        })
    })
}

/// Whether a value of the floating type of `bits` bits is not zero (a NaN
/// is not), as `!x`, `x ? :` and `if (x)` test it.
pub fn nonzero(bits: u8, value: i64) -> bool {
    in_width!(bits, F => F::from_held(value) != 0.0)
}

/// `-x`: the sign bit flipped, as CBMC flips it. Its constant folding
/// gives a NaN of another payload than its own CBMC's payload instead, so
/// such a NaN is declined.
pub fn negate(bits: u8, value: i64) -> Computed<i64> {
    in_width!(bits, F => {
        let x = F::from_held(value);
        if x.is_nan() && x.raw() & !F::SIGN != F::CBMC_NAN {
            return Err(format!(
                "the negation of a NaN of another payload than CBMC's (bits {:#x}): CBMC's bits for it depend on whether it folds a constant",
                x.raw()
            ));
        }
        Ok(F::from_raw(x.raw() ^ F::SIGN).held())
    })
}

/// `value` of type `from` converted to type `to`, as C converts it and
/// CBMC computes it.
pub fn convert(from: Num, to: Num, value: i64) -> Computed<i64> {
    match (from, to) {
        (Num::Int(_), Num::Int(to)) => Ok(to.convert(value)),
        (Num::Int(from), Num::Float(bits)) => Ok(in_width!(bits, F => {
            if from.is_wide_unsigned() {
                (value as u64 as F).held()
            } else {
                (value as F).held()
            }
        })),
        (Num::Float(bits), Num::Int(to)) => to_integer(bits, value, to),
        (Num::Float(a), Num::Float(b)) if a == b => Ok(value),
        (Num::Float(_), Num::Float(64)) => {
            let x = f32::from_held(value);
            if x.is_nan() {
                return converted_nan(x.raw() & f32::SIGN != 0, 64);
            }
            Ok(f64::from(x).held())
        }
        (Num::Float(_), Num::Float(_)) => {
            let x = f64::from_held(value);
            if x.is_nan() {
                return converted_nan(x.raw() & f64::SIGN != 0, 32);
            }
            Ok((x as f32).held())
        }
    }
}

/// A NaN converted to the floating type of `bits` bits: CBMC's NaN of
/// that type. Its constant folding keeps a negative NaN's sign and its
/// solver does not, so a negative one is declined.
fn converted_nan(negative: bool, bits: u8) -> Computed<i64> {
    if negative {
        return Err(
            "a conversion of a negative NaN between float and double: CBMC's sign for it depends on whether it folds a constant"
                .into(),
        );
    }
    Ok(in_width!(bits, F => F::from_raw(F::CBMC_NAN).held()))
}

/// A floating value converted to the integer type `to`: truncated toward
/// zero; `_Bool` tests it for zero. A value whose integer part `to` does
/// not hold is undefined in C, and CBMC's result depends on how it
/// encodes the conversion (its constant folding wraps it, its solver gives
/// another value): declined.
fn to_integer(bits: u8, value: i64, to: CType) -> Computed<i64> {
    if to.bits == 1 {
        return Ok(i64::from(nonzero(bits, value)));
    }
    let x = if bits <= 32 {
        f64::from(f32::from_held(value))
    } else {
        f64::from_held(value)
    };
    let whole = x.trunc();
    let (lo, hi) = if to.signed {
        let half = 2f64.powi(i32::from(to.bits) - 1);
        (-half, half)
    } else {
        (0.0, 2f64.powi(i32::from(to.bits)))
    };
    if !(whole >= lo && whole < hi) {
        return Err(format!(
            "a conversion of {x:?} to a {}-bit {} integer, out of its range (undefined in C; CBMC's value depends on how it encodes the conversion)",
            to.bits,
            if to.signed { "signed" } else { "unsigned" }
        ));
    }
    Ok(to.convert(whole as i128 as i64))
}

/// The value of a floating constant, rounded to its type as C rounds it.
pub fn literal(literal: &FloatLiteral) -> Computed<i64> {
    let spelling = literal.spelling.as_str();
    let unparsed = || format!("the floating constant {spelling}");
    if let Some(digits) = spelling
        .strip_prefix("0x")
        .or_else(|| spelling.strip_prefix("0X"))
    {
        let exact = hexadecimal(digits).ok_or_else(unparsed)?;
        return Ok(in_width!(literal.bits, F => (exact as F).held()));
    }
    in_width!(literal.bits, F => spelling.parse::<F>().map(|x| x.held()).map_err(|_| unparsed()))
}

/// The exact value of a hexadecimal constant's digits (`1.8p3`) as a
/// normal `double` or zero; `None` when a `double` does not hold it
/// exactly (more than 53 significant bits, or out of its normal range).
fn hexadecimal(digits: &str) -> Option<f64> {
    let (significand, exponent) = digits.split_once(['p', 'P'])?;
    let exponent: i64 = exponent.parse().ok()?;
    let (whole, fraction) = significand.split_once('.').unwrap_or((significand, ""));
    let hex = format!("{whole}{fraction}");
    let hex = hex.trim_start_matches('0');
    if hex.is_empty() {
        return Some(0.0);
    }
    if hex.len() > 30 {
        return None;
    }
    let mantissa = u128::from_str_radix(hex, 16).ok()?;
    if 128 - mantissa.leading_zeros() - mantissa.trailing_zeros() > 53 {
        return None;
    }
    let mut shift = exponent - 4 * i64::try_from(fraction.len()).ok()?;
    let mut value = mantissa as f64;
    // powers of two within the normal range, so that each step is exact
    while shift != 0 {
        let step = shift.clamp(-1000, 1000);
        value *= f64::from_bits(((1023 + step) as u64) << 52);
        shift -= step;
        if !value.is_normal() {
            return None;
        }
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f32) -> i64 {
        x.held()
    }
    fn double(x: f64) -> i64 {
        x.held()
    }

    #[test]
    fn a_float_operation_rounds_to_float() {
        let sum = binary(BinaryOp::Add, 32, float(16_777_216.0), float(1.0)).unwrap();
        assert_eq!(sum, float(16_777_216.0));
        let sum = binary(BinaryOp::Add, 64, double(16_777_216.0), double(1.0)).unwrap();
        assert_eq!(sum, double(16_777_217.0));
        assert_eq!(float(-1.5), i64::from(0xbfc0_0000u32 as i32));
    }

    #[test]
    fn nans_have_cbmc_bits_and_compare_unordered() {
        let nan = binary(BinaryOp::Div, 64, double(0.0), double(0.0)).unwrap();
        assert_eq!(nan as u64, 0x7ff0_0000_0000_0001);
        let nan32 = binary(
            BinaryOp::Sub,
            32,
            float(f32::INFINITY),
            float(f32::INFINITY),
        )
        .unwrap();
        assert_eq!(nan32 as u32, 0x7f80_0001);
        assert_eq!(binary(BinaryOp::Eq, 64, nan, nan), Ok(0));
        assert_eq!(binary(BinaryOp::Ne, 64, nan, nan), Ok(1));
        assert_eq!(binary(BinaryOp::Lt, 64, nan, double(1.0)), Ok(0));
        assert!(nonzero(64, nan) && !nonzero(64, double(-0.0)));
        assert_eq!(negate(64, nan).unwrap() as u64, 0xfff0_0000_0000_0001);
        assert!(negate(64, double(f64::NAN)).is_err());
        let one_by_zero = binary(BinaryOp::Div, 64, double(1.0), double(-0.0)).unwrap();
        assert_eq!(one_by_zero, double(f64::NEG_INFINITY));
    }

    #[test]
    fn conversions_follow_c_and_decline_out_of_range() {
        let int = Num::INT;
        let unsigned = Num::Int(CType {
            bits: 32,
            signed: false,
        });
        assert_eq!(convert(Num::Float(64), int, double(-2.9)), Ok(-2));
        assert_eq!(convert(Num::Float(64), unsigned, double(-0.5)), Ok(0));
        assert!(convert(Num::Float(64), unsigned, double(-1.0)).is_err());
        assert!(convert(Num::Float(64), int, double(1e10)).is_err());
        assert!(convert(Num::Float(64), int, double(f64::NAN)).is_err());
        assert_eq!(
            convert(Num::Float(64), int, double(-2_147_483_648.5)),
            Ok(-2_147_483_648)
        );
        assert_eq!(
            convert(Num::Float(64), Num::Int(CType::BOOL), double(0.25)),
            Ok(1)
        );
        // int -> float rounds to nearest even
        assert_eq!(
            convert(int, Num::Float(32), 16_777_217),
            Ok(float(16_777_216.0))
        );
        let ullong = Num::Int(CType {
            bits: 64,
            signed: false,
        });
        assert_eq!(
            convert(ullong, Num::Float(64), -1),
            Ok(double(1.8446744073709552e19))
        );
        assert_eq!(
            convert(Num::Float(64), Num::Float(32), double(0.1)),
            Ok(float(0.1))
        );
        let nan = convert(Num::Float(32), Num::Float(64), float(f32::NAN)).unwrap();
        assert_eq!(nan as u64, 0x7ff0_0000_0000_0001);
        assert!(convert(Num::Float(32), Num::Float(64), float(-f32::NAN)).is_err());
    }

    #[test]
    fn constants_round_to_their_type() {
        let constant = |bits, spelling: &str| {
            literal(&FloatLiteral {
                bits,
                spelling: spelling.into(),
            })
        };
        assert_eq!(constant(32, "0.1"), Ok(float(0.1)));
        assert_eq!(constant(64, "0.1"), Ok(double(0.1)));
        assert_eq!(constant(64, "1e10"), Ok(double(1e10)));
        assert_eq!(constant(64, "0x1.8p3"), Ok(double(12.0)));
        assert_eq!(constant(32, "0x1p-2"), Ok(float(0.25)));
        assert_eq!(constant(64, "0x.8p1"), Ok(double(1.0)));
        assert_eq!(constant(32, "0x1.000001p0"), Ok(float(1.0)));
        assert!(constant(64, "0x1p-1074").is_err());
    }
}
