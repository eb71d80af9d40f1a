//! Floating constants: the spelling the printed C keeps, and the values
//! the translator itself needs, the initial values of `float` and `double`
//! objects in shared memory, which holds every value as the integer of its
//! bits.

use super::float_value::FloatValue;
use crate::frontend::c_types::types::TypeEnv;
use crate::ir::FloatLiteral;
use lang_c::ast::{self, Constant, Expression, FloatBase, FloatFormat, UnaryOperator};
use lang_c::span::Node;

/// The bits of a literal's type: 32 for `f`, 64 without a suffix; `None`
/// for `long double`, the TS 18661 types and imaginary constants.
fn literal_bits(float: &ast::Float) -> Option<u8> {
    if float.suffix.imaginary {
        return None;
    }
    match float.suffix.format {
        FloatFormat::Float => Some(32),
        FloatFormat::Double => Some(64),
        _ => None,
    }
}

/// The digits of a literal as C spells them, without a suffix: a
/// hexadecimal one with its `0x`.
fn digits(float: &ast::Float) -> String {
    let number = float
        .number
        .trim_start_matches("0x")
        .trim_start_matches("0X");
    match float.base {
        FloatBase::Decimal => number.to_string(),
        FloatBase::Hexadecimal => format!("0x{number}"),
    }
}

/// The IR constant of a floating literal; `None` for the types lazysma
/// does not model.
pub fn literal(float: &ast::Float) -> Option<FloatLiteral> {
    Some(FloatLiteral {
        bits: literal_bits(float)?,
        spelling: digits(float),
    })
}

/// The value of a floating literal, rounded to its type as C rounds it.
pub fn literal_value(float: &ast::Float) -> Option<FloatValue> {
    let bits = literal_bits(float)?;
    let number = float
        .number
        .trim_start_matches("0x")
        .trim_start_matches("0X");
    match (&float.base, bits) {
        (FloatBase::Decimal, 32) => number.parse::<f32>().ok().map(FloatValue::Single),
        (FloatBase::Decimal, _) => number.parse::<f64>().ok().map(FloatValue::Double),
        (FloatBase::Hexadecimal, _) => {
            hexadecimal(number).map(|v| FloatValue::Double(v).to_bits_of(bits))
        }
    }
}

/// The value of a hexadecimal floating constant's digits (`1.8p3`), when
/// its significand has at most 13 hexadecimal digits, so that a `double`
/// holds it exactly (larger ones are not computed here).
fn hexadecimal(number: &str) -> Option<f64> {
    let (significand, exponent) = number.split_once(['p', 'P'])?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = significand.split_once('.').unwrap_or((significand, ""));
    let hex = format!("{whole}{fraction}");
    if hex.is_empty() || hex.len() > 13 {
        return None;
    }
    let value = u64::from_str_radix(&hex, 16).ok()? as f64;
    let shift = exponent.checked_sub(4 * i32::try_from(fraction.len()).ok()?)?;
    Some(value * 2f64.powi(shift))
}

/// The value of a constant expression of floating type (a literal, an
/// integer constant converted, `-`, `+`, casts, `+ - * /`), computed as C
/// computes it; `None` for every other expression.
pub fn constant_value<'a>(types: &mut TypeEnv<'a>, e: &'a Node<Expression>) -> Option<FloatValue> {
    match &e.node {
        Expression::Constant(c) => match &c.node {
            Constant::Float(float) => literal_value(float),
            _ => types.const_eval(e).map(|v| FloatValue::Double(v as f64)),
        },
        Expression::UnaryOperator(u) => {
            let value = constant_value(types, &u.node.operand)?;
            match u.node.operator.node {
                UnaryOperator::Plus => Some(value),
                UnaryOperator::Minus => Some(match value {
                    FloatValue::Single(v) => FloatValue::Single(-v),
                    FloatValue::Double(v) => FloatValue::Double(-v),
                }),
                _ => None,
            }
        }
        Expression::Cast(c) => {
            let bits = types.type_name(&c.node.type_name).ok()?.float_bits()?;
            match super::long_double::converted_value(&c.node.expression, bits) {
                Some(value) => Some(value),
                None => Some(constant_value(types, &c.node.expression)?.to_bits_of(bits)),
            }
        }
        Expression::BinaryOperator(b) => {
            let (left, right) = (
                constant_value(types, &b.node.lhs)?,
                constant_value(types, &b.node.rhs)?,
            );
            binary(&b.node.operator.node, left, right)
        }
        Expression::Call(call) => builtin_constant(&call.node),
        _ => types.const_eval(e).map(|v| FloatValue::Double(v as f64)),
    }
}

/// The value of a call of the builtins behind `<math.h>`'s `INFINITY`,
/// `HUGE_VAL` and `NAN` (`__builtin_inff()`, `__builtin_nanf("")`), which
/// gcc folds to constants; `None` for every other call.
fn builtin_constant(call: &ast::CallExpression) -> Option<FloatValue> {
    let Expression::Identifier(name) = &call.callee.node else {
        return None;
    };
    let empty_string = |arguments: &[Node<Expression>]| matches!(arguments, [argument] if is_empty_string(argument));
    match (name.node.name.as_str(), call.arguments.is_empty()) {
        ("__builtin_inf" | "__builtin_huge_val", true) => Some(FloatValue::Double(f64::INFINITY)),
        ("__builtin_inff" | "__builtin_huge_valf", true) => Some(FloatValue::Single(f32::INFINITY)),
        ("__builtin_nan", false) if empty_string(&call.arguments) => {
            Some(FloatValue::Double(f64::NAN))
        }
        ("__builtin_nanf", false) if empty_string(&call.arguments) => {
            Some(FloatValue::Single(f32::NAN))
        }
        _ => None,
    }
}

/// Whether `e` is the string literal `""`: `nan`'s argument that asks
/// for the default quiet NaN.
pub fn is_empty_string(e: &Node<Expression>) -> bool {
    matches!(&crate::frontend::analysis::scan::uncast(e).node, Expression::StringLiteral(l) if l.node.iter().all(|part| part == "\"\""))
}

/// `left op right` in the type C computes it in: `float` when both are,
/// else `double`.
fn binary(op: &ast::BinaryOperator, left: FloatValue, right: FloatValue) -> Option<FloatValue> {
    use ast::BinaryOperator as B;
    if let (FloatValue::Single(l), FloatValue::Single(r)) = (left, right) {
        return Some(FloatValue::Single(match op {
            B::Plus => l + r,
            B::Minus => l - r,
            B::Multiply => l * r,
            B::Divide => l / r,
            _ => return None,
        }));
    }
    let (l, r) = (left.as_double(), right.as_double());
    Some(FloatValue::Double(match op {
        B::Plus => l + r,
        B::Minus => l - r,
        B::Multiply => l * r,
        B::Divide => l / r,
        _ => return None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexadecimal_digits_give_their_value() {
        assert_eq!(hexadecimal("1.8p3"), Some(12.0));
        assert_eq!(hexadecimal("1p-2"), Some(0.25));
        assert_eq!(hexadecimal(".8p1"), Some(1.0));
        assert_eq!(hexadecimal("12345678901234p0"), None);
    }

    #[test]
    fn a_float_is_stored_as_its_bits_sign_extended() {
        assert_eq!(FloatValue::Single(1.5).stored(), 0x3fc0_0000);
        assert_eq!(
            FloatValue::Single(-1.5).stored(),
            i64::from(0xbfc0_0000u32 as i32)
        );
        assert_eq!(FloatValue::Double(1.5).stored(), 0x3ff8_0000_0000_0000);
    }

    #[test]
    fn a_double_converted_to_float_rounds_once() {
        // 0.1 as a double, then to float: the float nearest that double
        assert_eq!(
            FloatValue::Double(0.1).to_bits_of(32),
            FloatValue::Single(0.1f64 as f32)
        );
    }
}
