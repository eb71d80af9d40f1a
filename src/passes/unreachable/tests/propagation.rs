//! The constant propagation against C's own values.

use super::*;

/// Random pure expressions over constants and two known locals.
fn expressions() -> impl proptest::strategy::Strategy<Value = Expr> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        (0i64..300).prop_map(Expr::Const),
        (0usize..2).prop_map(load)
    ];
    leaf.prop_recursive(4, 32, 3, |inner| {
        let binary_ops = prop::sample::select(vec![
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Rem,
            BinaryOp::Shl,
            BinaryOp::Shr,
            BinaryOp::BitAnd,
            BinaryOp::BitOr,
            BinaryOp::BitXor,
            BinaryOp::LogicalAnd,
            BinaryOp::LogicalOr,
            BinaryOp::Eq,
            BinaryOp::Ne,
            BinaryOp::Lt,
            BinaryOp::Le,
            BinaryOp::Gt,
            BinaryOp::Ge,
        ]);
        let unary_ops = prop::sample::select(vec![UnaryOp::Not, UnaryOp::Neg, UnaryOp::BitNot]);
        let casts = prop::sample::select(vec![
            Ty::Bool,
            Ty::Int {
                bits: 8,
                signed: true,
            },
            Ty::Int {
                bits: 8,
                signed: false,
            },
            Ty::Int {
                bits: 16,
                signed: true,
            },
            Ty::INT,
            Ty::Int {
                bits: 32,
                signed: false,
            },
        ]);
        prop_oneof![
            (binary_ops, inner.clone(), inner.clone()).prop_map(|(op, l, r)| bin(op, l, r)),
            (unary_ops, inner.clone()).prop_map(|(op, e)| Expr::Unary(op, Box::new(e))),
            (casts, inner.clone()).prop_map(|(ty, e)| Expr::Cast(ty, Box::new(e))),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| Expr::Conditional(
                Box::new(c),
                Box::new(a),
                Box::new(b)
            )),
        ]
    })
}

/// C's value of `expr` when every integer in it is of type `int`
/// (`signed`) or `unsigned int`, as 64 bits; `None` where C leaves the
/// result undefined (division by 0, signed overflow, shifts too wide).
fn c_value(expr: &Expr, locals: &[i64], signed: bool) -> Option<i64> {
    let wrap = |v: i64| -> Option<i64> {
        if signed {
            i32::try_from(v).ok().map(i64::from)
        } else {
            Some(i64::from(v as u32))
        }
    };
    Some(match expr {
        Expr::Const(c) => wrap(*c)?,
        Expr::Load(Place::Local(l)) => wrap(locals[*l])?,
        Expr::Unary(op, e) => {
            let v = c_value(e, locals, signed)?;
            match op {
                UnaryOp::Not => i64::from(v == 0),
                UnaryOp::Neg => wrap(-v)?,
                UnaryOp::BitNot => wrap(!v)?,
            }
        }
        Expr::Binary(op, l, r) => {
            let (l, r) = (c_value(l, locals, signed), c_value(r, locals, signed));
            match op {
                BinaryOp::LogicalAnd if l == Some(0) || r == Some(0) => return Some(0),
                BinaryOp::LogicalOr if l.is_some_and(|v| v != 0) || r.is_some_and(|v| v != 0) => {
                    return Some(1);
                }
                _ => {}
            }
            let (l, r) = (l?, r?);
            match op {
                BinaryOp::Add => wrap(l + r)?,
                BinaryOp::Sub => wrap(l - r)?,
                BinaryOp::Mul => wrap(l.checked_mul(r)?)?,
                BinaryOp::Div | BinaryOp::Rem if r == 0 => return None,
                BinaryOp::Div => wrap(l / r)?,
                BinaryOp::Rem => wrap(l % r)?,
                BinaryOp::Shl | BinaryOp::Shr if !(0..32).contains(&r) || (signed && l < 0) => {
                    return None;
                }
                BinaryOp::Shl => wrap(l << r)?,
                BinaryOp::Shr => wrap(l >> r)?,
                BinaryOp::BitAnd => wrap(l & r)?,
                BinaryOp::BitOr => wrap(l | r)?,
                BinaryOp::BitXor => wrap(l ^ r)?,
                BinaryOp::LogicalAnd => i64::from(l != 0 && r != 0),
                BinaryOp::LogicalOr => i64::from(l != 0 || r != 0),
                BinaryOp::Eq => i64::from(l == r),
                BinaryOp::Ne => i64::from(l != r),
                BinaryOp::Lt => i64::from(l < r),
                BinaryOp::Le => i64::from(l <= r),
                BinaryOp::Gt => i64::from(l > r),
                BinaryOp::Ge => i64::from(l >= r),
            }
        }
        Expr::Conditional(c, a, b) => {
            if c_value(c, locals, signed)? != 0 {
                c_value(a, locals, signed)?
            } else {
                c_value(b, locals, signed)?
            }
        }
        Expr::Cast(ty, e) => {
            let v = c_value(e, locals, signed)?;
            let converted = match ty {
                Ty::Bool => i64::from(v != 0),
                Ty::Int {
                    bits,
                    signed: to_signed,
                } => crate::ir::truncate(v, *bits, *to_signed),
                _ => return None,
            };
            // back to the expression's type, as the usual conversions do
            wrap(converted)?
        }
        _ => return None,
    })
}

proptest::proptest! {
    #[test]
    fn a_propagated_value_is_cs_value_in_int_and_in_unsigned(expr in expressions(), a in 0i64..300, b in 0i64..300) {
        let constants = HashMap::from([(0, a), (1, b)]);
        if let Some(v) = value(&expr, &constants) {
            proptest::prop_assert_eq!(c_value(&expr, &[a, b], true), Some(v), "as int: {:?}", expr);
            proptest::prop_assert_eq!(c_value(&expr, &[a, b], false), Some(v), "as unsigned: {:?}", expr);
        }
    }
}
