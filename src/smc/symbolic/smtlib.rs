//! Terms and formulas as SMT-LIB 2 text (logic `QF_BV`): a symbol `id`
//! is the constant `s<id>`, a constant is `(_ bv<value> <width>)`.

use super::term::{BitOp, Comparison, Formula, SymbolId, Term, bits};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The SMT-LIB name of symbol `id`.
pub fn name(id: SymbolId) -> String {
    format!("s{id}")
}

/// The declaration of symbol `id` of `width` bits.
pub fn declaration(id: SymbolId, width: u8) -> String {
    format!("(declare-fun {} () (_ BitVec {width}))", name(id))
}

/// `term` as SMT-LIB.
pub fn term(term: &Term) -> String {
    let mut text = String::new();
    write_term(&mut text, term);
    text
}

/// `formula` as SMT-LIB.
pub fn formula(formula: &Formula) -> String {
    let mut text = String::new();
    write_formula(&mut text, formula);
    text
}

fn bit_op(op: BitOp) -> &'static str {
    match op {
        BitOp::Add => "bvadd",
        BitOp::Sub => "bvsub",
        BitOp::Mul => "bvmul",
        BitOp::SignedDiv => "bvsdiv",
        BitOp::UnsignedDiv => "bvudiv",
        BitOp::SignedRem => "bvsrem",
        BitOp::UnsignedRem => "bvurem",
        BitOp::And => "bvand",
        BitOp::Or => "bvor",
        BitOp::Xor => "bvxor",
        BitOp::Shl => "bvshl",
        BitOp::LogicalShr => "bvlshr",
        BitOp::ArithmeticShr => "bvashr",
    }
}

fn comparison(op: Comparison) -> &'static str {
    match op {
        Comparison::Equal => "=",
        Comparison::SignedLess => "bvslt",
        Comparison::UnsignedLess => "bvult",
        Comparison::SignedLessEqual => "bvsle",
        Comparison::UnsignedLessEqual => "bvule",
    }
}

fn write_term(text: &mut String, term: &Term) {
    match term {
        Term::Constant { value, width } => {
            let _ = write!(text, "(_ bv{} {width})", bits(*value, *width));
        }
        Term::Symbol { id, .. } => text.push_str(&name(*id)),
        Term::Binary { op, left, right } => {
            let _ = write!(text, "({} ", bit_op(*op));
            write_term(text, left);
            text.push(' ');
            write_term(text, right);
            text.push(')');
        }
        Term::Extend {
            signed,
            argument,
            width,
        } => {
            let kind = if *signed {
                "sign_extend"
            } else {
                "zero_extend"
            };
            let by = width.saturating_sub(argument.width());
            let _ = write!(text, "((_ {kind} {by}) ");
            write_term(text, argument);
            text.push(')');
        }
        Term::Low { argument, width } => {
            let _ = write!(text, "((_ extract {} 0) ", width.saturating_sub(1));
            write_term(text, argument);
            text.push(')');
        }
        Term::Choice {
            condition,
            then,
            otherwise,
        } => {
            text.push_str("(ite ");
            write_formula(text, condition);
            text.push(' ');
            write_term(text, then);
            text.push(' ');
            write_term(text, otherwise);
            text.push(')');
        }
    }
}

fn write_formula(text: &mut String, formula: &Formula) {
    match formula {
        Formula::Constant(holds) => text.push_str(if *holds { "true" } else { "false" }),
        Formula::Compare { op, left, right } => {
            let _ = write!(text, "({} ", comparison(*op));
            write_term(text, left);
            text.push(' ');
            write_term(text, right);
            text.push(')');
        }
        Formula::Not(inner) => {
            text.push_str("(not ");
            write_formula(text, inner);
            text.push(')');
        }
        Formula::And(a, b) | Formula::Or(a, b) => {
            let connective = if matches!(formula, Formula::And(..)) {
                "and"
            } else {
                "or"
            };
            let _ = write!(text, "({connective} ");
            write_formula(text, a);
            text.push(' ');
            write_formula(text, b);
            text.push(')');
        }
    }
}

/// The symbols of `formula` with their widths.
pub fn symbols(formula: &Formula, found: &mut BTreeMap<SymbolId, u8>) {
    match formula {
        Formula::Constant(_) => {}
        Formula::Compare { left, right, .. } => {
            term_symbols(left, found);
            term_symbols(right, found);
        }
        Formula::Not(inner) => symbols(inner, found),
        Formula::And(a, b) | Formula::Or(a, b) => {
            symbols(a, found);
            symbols(b, found);
        }
    }
}

/// The symbols of `term` with their widths.
pub fn term_symbols(term: &Term, found: &mut BTreeMap<SymbolId, u8>) {
    match term {
        Term::Constant { .. } => {}
        Term::Symbol { id, width } => {
            found.insert(*id, *width);
        }
        Term::Binary { left, right, .. } => {
            term_symbols(left, found);
            term_symbols(right, found);
        }
        Term::Extend { argument, .. } | Term::Low { argument, .. } => term_symbols(argument, found),
        Term::Choice {
            condition,
            then,
            otherwise,
        } => {
            symbols(condition, found);
            term_symbols(then, found);
            term_symbols(otherwise, found);
        }
    }
}
