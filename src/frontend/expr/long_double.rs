//! `long double` constants converted at once to `double` or `float`, as
//! `<float.h>` spells its limits (gcc's `DBL_MAX` is
//! `((double)1.79769313486231570814527423731704357e+308L)`): lazysma models
//! no `long double`, but such a constant has the value of its conversion
//! when the `long double` (x87 extended precision, a 64-bit significand)
//! nearest the literal is a `double` itself, so that the conversion to
//! `double` is exact and the one to `float` rounds once. Whether it is is
//! decided exactly, with the literal's decimal digits as a big integer.

use super::float_value::FloatValue;
use crate::ir::FloatLiteral;
use lang_c::ast::{Constant, Expression, FloatBase, FloatFormat, UnaryOperator};
use lang_c::span::Node;
use std::cmp::Ordering;

/// The constant that `e`, a `long double` literal (possibly negated),
/// converted to the floating type of `bits` bits is, when the conversion
/// is exact as above; `None` for anything else.
pub fn converted_literal(e: &Node<Expression>, bits: u8) -> Option<FloatLiteral> {
    let value = converted_value(e, bits)?;
    let spelling = match value {
        FloatValue::Single(v) => format!("{v:e}"),
        FloatValue::Double(v) => format!("{v:e}"),
    };
    Some(FloatLiteral { bits, spelling })
}

/// The value of `e`, a `long double` literal (possibly negated), converted
/// to the floating type of `bits` bits, when its `long double` value is a
/// `double`.
pub fn converted_value(e: &Node<Expression>, bits: u8) -> Option<FloatValue> {
    let negated = |value: FloatValue| match value {
        FloatValue::Single(v) => FloatValue::Single(-v),
        FloatValue::Double(v) => FloatValue::Double(-v),
    };
    match &e.node {
        Expression::UnaryOperator(u) => match u.node.operator.node {
            UnaryOperator::Plus => converted_value(&u.node.operand, bits),
            UnaryOperator::Minus => converted_value(&u.node.operand, bits).map(negated),
            _ => None,
        },
        Expression::Constant(c) => match &c.node {
            Constant::Float(float)
                if float.suffix.format == FloatFormat::LongDouble
                    && !float.suffix.imaginary
                    && matches!(float.base, FloatBase::Decimal)
                    && matches!(bits, 32 | 64) =>
            {
                let double = exact_double(&float.number)?;
                Some(FloatValue::Double(double).to_bits_of(bits))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The `double` that the decimal literal `number` (`1.5e+308`) rounds to
/// in a 64-bit significand, if that `long double` is a finite `double`.
fn exact_double(number: &str) -> Option<f64> {
    let double: f64 = number.parse().ok()?;
    if !double.is_finite() {
        return None;
    }
    let decimal = Decimal::parse(number)?;
    if double == 0.0 {
        return decimal.digits.is_zero().then_some(double);
    }
    // the long doubles nearest `double` are `half` units either side of it
    // (a unit below a power of two is half as large): ties round to
    // `double`, whose significand ends in eleven zero bits
    let (significand, exponent) = integer_parts(double);
    let shift = 65 - (63 - significand.leading_zeros());
    let centre = u128::from(significand) << shift;
    let below = if significand.is_power_of_two() { 1 } else { 2 };
    let unit = exponent - i32::try_from(shift).ok()?;
    let low = Binary {
        significand: centre - below,
        exponent: unit,
    };
    let high = Binary {
        significand: centre + 2,
        exponent: unit,
    };
    (decimal.compare(&low)? != Ordering::Less && decimal.compare(&high)? != Ordering::Greater)
        .then_some(double)
}

/// `|value|` as `significand * 2^exponent`, the significand an integer.
fn integer_parts(value: f64) -> (u64, i32) {
    let bits = value.abs().to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    match biased {
        0 => (fraction, -1074),
        _ => (fraction | (1 << 52), biased - 1075),
    }
}

/// A decimal number `digits * 10^exponent` (its magnitude).
struct Decimal {
    digits: Big,
    exponent: i32,
}

/// A binary number `significand * 2^exponent`.
struct Binary {
    significand: u128,
    exponent: i32,
}

/// The largest power of ten or two taken apart: beyond it, a literal is
/// no `double`.
const LARGEST_EXPONENT: i32 = 5000;

impl Decimal {
    /// The magnitude of a decimal floating literal's digits
    /// (`1.25e-3`); None when they are not such.
    fn parse(number: &str) -> Option<Decimal> {
        let (significand, exponent) = match number.split_once(['e', 'E']) {
            Some((significand, exponent)) => (significand, exponent.parse::<i32>().ok()?),
            None => (number, 0),
        };
        let (whole, fraction) = significand.split_once('.').unwrap_or((significand, ""));
        let mut digits = Big::default();
        for c in whole.chars().chain(fraction.chars()) {
            digits.multiply_add(10, c.to_digit(10)?);
        }
        let exponent = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
        (exponent.abs() <= LARGEST_EXPONENT).then_some(Decimal { digits, exponent })
    }

    /// How this number compares to `binary`, exactly.
    fn compare(&self, binary: &Binary) -> Option<Ordering> {
        if binary.exponent.abs() > LARGEST_EXPONENT {
            return None;
        }
        let mut left = self.digits.clone();
        let mut right = Big::from(binary.significand);
        match self.exponent >= 0 {
            true => (0..self.exponent).for_each(|_| left.multiply_add(10, 0)),
            false => (self.exponent..0).for_each(|_| right.multiply_add(10, 0)),
        }
        match binary.exponent >= 0 {
            true => (0..binary.exponent).for_each(|_| right.multiply_add(2, 0)),
            false => (binary.exponent..0).for_each(|_| left.multiply_add(2, 0)),
        }
        Some(left.compare(&right))
    }
}

/// A natural number, its 32-bit digits least significant first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Big {
    limbs: Vec<u32>,
}

impl From<u128> for Big {
    fn from(mut value: u128) -> Big {
        let mut limbs = Vec::new();
        while value > 0 {
            limbs.push(value as u32);
            value >>= 32;
        }
        Big { limbs }
    }
}

impl Big {
    fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// `self * factor + addend`.
    fn multiply_add(&mut self, factor: u32, addend: u32) {
        let mut carry = u64::from(addend);
        for limb in &mut self.limbs {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn compare(&self, other: &Big) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_h_limits_are_the_doubles_they_name() {
        let limits = [
            ("1.79769313486231570814527423731704357e+308", f64::MAX),
            (
                "2.22507385850720138309023271733240406e-308",
                f64::MIN_POSITIVE,
            ),
            ("2.22044604925031308084726333618164062e-16", f64::EPSILON),
            ("4.94065645841246544176568792868221372e-324", 5e-324),
            ("0.5", 0.5),
            ("0.0", 0.0),
        ];
        for (digits, value) in limits {
            assert_eq!(exact_double(digits), Some(value), "{digits}");
        }
    }

    #[test]
    fn a_long_double_between_doubles_is_refused() {
        // 0.1 is no double: the long double nearest it is not either
        assert_eq!(exact_double("0.1"), None);
        // one more than 2^53 needs 54 bits
        assert_eq!(exact_double("9007199254740993"), None);
        // beyond DBL_MAX
        assert_eq!(exact_double("1.8e308"), None);
        assert_eq!(exact_double("1e5000"), None);
    }

    #[test]
    fn a_literal_within_half_a_long_double_unit_of_a_double_is_it() {
        // 2^53 + 2^-11: half the long double unit (2^-10) above 2^53, a
        // tie that goes to 2^53; 2^53 + 2^-10 is the next long double
        assert_eq!(
            exact_double("9007199254740992.00048828125"),
            Some(9007199254740992.0)
        );
        assert_eq!(exact_double("9007199254740992.0009765625"), None);
        // 1 + 2^-64: the tie between 1 and the next long double goes to 1
        assert_eq!(
            exact_double("1.0000000000000000000542101086242752217003726400434970855712890625"),
            Some(1.0)
        );
    }
}
