//! Integer constant expressions: their values (`sizeof` in bytes, enum
//! constants, character constants, arithmetic as C does it) where C
//! requires a constant.

use super::types::{CType, TypeEnv};
use crate::ir::truncate;
use lang_c::ast::*;
use lang_c::span::Node;

impl<'a> TypeEnv<'a> {
    /// Evaluates an integer constant expression (`sizeof` in bytes).
    pub fn const_eval(&mut self, e: &'a Node<Expression>) -> Option<i64> {
        match &e.node {
            Expression::Constant(c) => constant_value(&c.node),
            Expression::Identifier(id) => self.enum_constants.get(&id.node.name).copied(),
            Expression::UnaryOperator(u) => {
                let v = self.const_eval(&u.node.operand)?;
                match u.node.operator.node {
                    UnaryOperator::Minus => Some(v.wrapping_neg()),
                    UnaryOperator::Plus => Some(v),
                    UnaryOperator::Complement => Some(!v),
                    UnaryOperator::Negate => Some((v == 0) as i64),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) => {
                let l = self.const_eval(&b.node.lhs)?;
                let r = self.const_eval(&b.node.rhs)?;
                binary_value(&b.node.operator.node, l, r)
            }
            Expression::Conditional(c) => {
                if self.const_eval(&c.node.condition)? != 0 {
                    self.const_eval(&c.node.then_expression)
                } else {
                    self.const_eval(&c.node.else_expression)
                }
            }
            Expression::Cast(c) => {
                let v = self.const_eval(&c.node.expression)?;
                match self.type_name(&c.node.type_name).ok()?.without_atomic().0 {
                    CType::Int { bits, signed } => Some(truncate(v, bits, signed)),
                    CType::Bool => Some((v != 0) as i64),
                    CType::Pointer(_) => Some(v),
                    _ => None,
                }
            }
            Expression::SizeOfTy(s) => {
                let ty = self.type_name(&s.node.0).ok()?;
                Some(self.byte_size(&ty) as i64)
            }
            Expression::SizeOfVal(s) => {
                let ty = self.static_type(&s.node.0)?;
                Some(self.byte_size(&ty) as i64)
            }
            Expression::AlignOf(s) => {
                let ty = self.type_name(&s.node.0).ok()?;
                Some(self.alignment(&ty) as i64)
            }
            Expression::OffsetOf(offset) => self.offset_of(offset).ok()?.map(|bytes| bytes as i64),
            _ => None,
        }
    }

    /// The type of an expression over global objects, when evident.
    pub(in crate::frontend) fn static_type(&mut self, e: &'a Node<Expression>) -> Option<CType> {
        match &e.node {
            Expression::Identifier(id) => self.object_types.get(&id.node.name).cloned(),
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Indirection => {
                self.static_type(&u.node.operand)?.target().cloned()
            }
            Expression::BinaryOperator(b) if b.node.operator.node == BinaryOperator::Index => {
                self.static_type(&b.node.lhs)?.target().cloned()
            }
            Expression::Member(m) => {
                let base = self.static_type(&m.node.expression)?;
                let id = match (&m.node.operator.node, base) {
                    (MemberOperator::Direct, CType::Struct(id)) => id,
                    (MemberOperator::Indirect, CType::Pointer(t)) => match *t {
                        CType::Struct(id) => id,
                        _ => return None,
                    },
                    _ => return None,
                };
                self.field(id, &m.node.identifier.node.name, m.span)
                    .ok()
                    .map(|(_, t)| t)
            }
            _ => None,
        }
    }
}

/// Value of an integer or character constant.
pub fn constant_value(c: &Constant) -> Option<i64> {
    match c {
        Constant::Integer(i) => {
            let radix = match i.base {
                IntegerBase::Decimal => 10,
                IntegerBase::Octal => 8,
                IntegerBase::Hexadecimal => 16,
                IntegerBase::Binary => 2,
            };
            let digits = integer_digits(i);
            u64::from_str_radix(digits, radix).ok().map(|v| v as i64)
        }
        Constant::Character(s) => char_value(s),
        Constant::Float(_) => None,
    }
}

/// The digits of an integer literal without its base prefix. The prefix
/// goes once and only as its base has it: `0x0B5486B6` keeps the `0B`,
/// which are hexadecimal digits, not a binary prefix.
pub(in crate::frontend) fn integer_digits(i: &Integer) -> &str {
    let number: &str = &i.number;
    let prefixes: &[&str] = match i.base {
        IntegerBase::Hexadecimal => &["0x", "0X"],
        IntegerBase::Binary => &["0b", "0B"],
        IntegerBase::Decimal | IntegerBase::Octal => &[],
    };
    let digits = prefixes
        .iter()
        .find_map(|prefix| number.strip_prefix(prefix))
        .unwrap_or(number);
    if digits.is_empty() { "0" } else { digits }
}

pub(in crate::frontend) fn char_value(s: &str) -> Option<i64> {
    let inner = s.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    let first = chars.next()?;
    if first != '\\' {
        return Some(first as i64);
    }
    let rest: String = chars.collect();
    Some(match rest.as_str() {
        "n" => 10,
        "t" => 9,
        "r" => 13,
        "0" => 0,
        "\\" => 92,
        "'" => 39,
        "\"" => 34,
        "a" => 7,
        "b" => 8,
        "f" => 12,
        "v" => 11,
        // a character constant is an int of the value of a `char`, which
        // is signed here (x86): '\xff' is -1
        other if other.starts_with('x') => {
            i64::from(u8::from_str_radix(&other[1..], 16).ok()? as i8)
        }
        other => i64::from(u8::from_str_radix(other, 8).ok()? as i8),
    })
}

/// Folds a binary operator on constants.
pub fn binary_value(op: &BinaryOperator, l: i64, r: i64) -> Option<i64> {
    Some(match op {
        BinaryOperator::Multiply => l.wrapping_mul(r),
        BinaryOperator::Divide => l.checked_div(r)?,
        BinaryOperator::Modulo => l.checked_rem(r)?,
        BinaryOperator::Plus => l.wrapping_add(r),
        BinaryOperator::Minus => l.wrapping_sub(r),
        BinaryOperator::ShiftLeft => l.checked_shl(u32::try_from(r).ok()?)?,
        BinaryOperator::ShiftRight => l.checked_shr(u32::try_from(r).ok()?)?,
        BinaryOperator::Less => (l < r) as i64,
        BinaryOperator::Greater => (l > r) as i64,
        BinaryOperator::LessOrEqual => (l <= r) as i64,
        BinaryOperator::GreaterOrEqual => (l >= r) as i64,
        BinaryOperator::Equals => (l == r) as i64,
        BinaryOperator::NotEquals => (l != r) as i64,
        BinaryOperator::BitwiseAnd => l & r,
        BinaryOperator::BitwiseXor => l ^ r,
        BinaryOperator::BitwiseOr => l | r,
        BinaryOperator::LogicalAnd => (l != 0 && r != 0) as i64,
        BinaryOperator::LogicalOr => (l != 0 || r != 0) as i64,
        _ => return None,
    })
}
