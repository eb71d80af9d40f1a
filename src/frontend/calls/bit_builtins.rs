//! GCC's bit-counting and byte-swapping builtins (`__builtin_ctz`,
//! `__builtin_clz`, `__builtin_popcount`, `__builtin_parity`, `ffs`,
//! `__builtin_bswap32`, ...), which bitmaps of free slots and lock words
//! use: each is a pure expression over the bits of its operand, which a
//! private temporary holds.

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::Val;
use crate::ir::*;
use lang_c::ast::Expression;
use lang_c::span::{Node, Span};

/// What a bit builtin computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BitOperation {
    /// The zero bits below the lowest one bit (`ctz`).
    TrailingZeros,
    /// The zero bits above the highest one bit (`clz`).
    LeadingZeros,
    /// The one bits (`popcount`).
    OneBits,
    /// The one bits modulo 2 (`parity`).
    Parity,
    /// One more than the index of the lowest one bit, 0 for 0 (`ffs`).
    FirstSet,
    /// The bytes in the reverse order (`bswap`).
    ByteSwap,
}

/// A bit builtin: its operation and the width of its operand, unsigned
/// (signed for `ffs`, whose operand is an `int` or a `long`).
struct BitBuiltin {
    operation: BitOperation,
    bits: u8,
}

/// The bit builtin that the function `name` is, if any.
fn bit_builtin(name: &str) -> Option<BitBuiltin> {
    use BitOperation::*;
    let operations = [
        ("ctz", TrailingZeros),
        ("clz", LeadingZeros),
        ("popcount", OneBits),
        ("parity", Parity),
        ("ffs", FirstSet),
    ];
    let (operation, bits) = if let Some(width) = name.strip_prefix("__builtin_bswap") {
        (
            ByteSwap,
            width
                .parse()
                .ok()
                .filter(|bits| [16, 32, 64].contains(bits))?,
        )
    } else {
        let name = name.strip_prefix("__builtin_").unwrap_or(name);
        let (stem, operation) = operations.iter().find(|(stem, _)| name.starts_with(stem))?;
        let bits = match &name[stem.len()..] {
            "" => 32,
            "l" | "ll" => 64,
            _ => return None,
        };
        (*operation, bits)
    };
    Some(BitBuiltin { operation, bits })
}

/// Whether `name` is a bit builtin: GCC's `__builtin_` forms, and libc's
/// `ffs`, `ffsl`, `ffsll` (`<strings.h>`).
pub fn is_bit_builtin(name: &str) -> bool {
    let libc = matches!(name, "ffs" | "ffsl" | "ffsll");
    (libc || name.starts_with("__builtin_")) && bit_builtin(name).is_some()
}

impl BitBuiltin {
    /// The type of the operand as the builtin takes it.
    fn operand_type(&self) -> CType {
        CType::Int {
            bits: self.bits,
            signed: self.operation == BitOperation::FirstSet,
        }
    }

    /// The type of the result: the operand's for `bswap`, else `int`.
    fn result_type(&self) -> CType {
        match self.operation {
            BitOperation::ByteSwap => self.operand_type(),
            _ => CType::INT,
        }
    }

    /// The result over the operand `x`, a private value of
    /// [`Self::operand_type`]. `ctz` and `clz` of 0, undefined in C, give
    /// the operand's width, as x86's `tzcnt` and `lzcnt` do.
    fn result(&self, x: &Expr) -> Expr {
        let bits = i64::from(self.bits);
        // bit i of x, unsigned so that shifts bring in zeros
        let unsigned = Expr::Cast(
            Ty::Int {
                bits: self.bits,
                signed: false,
            },
            Box::new(x.clone()),
        );
        let bit = |i: i64| {
            binary(
                BinaryOp::BitAnd,
                binary(BinaryOp::Shr, unsigned.clone(), Expr::Const(i)),
                Expr::Const(1),
            )
        };
        let choose = |condition: Expr, then: i64, otherwise: Expr| {
            Expr::Conditional(
                Box::new(condition),
                Box::new(Expr::Const(then)),
                Box::new(otherwise),
            )
        };
        match self.operation {
            // the lowest one bit decides: the choice for bit 0 is outermost
            BitOperation::TrailingZeros => (0..bits)
                .rev()
                .fold(Expr::Const(bits), |rest, i| choose(bit(i), i, rest)),
            BitOperation::FirstSet => (0..bits)
                .rev()
                .fold(Expr::Const(0), |rest, i| choose(bit(i), i + 1, rest)),
            // the highest one bit decides
            BitOperation::LeadingZeros => (0..bits).fold(Expr::Const(bits), |rest, i| {
                choose(bit(i), bits - 1 - i, rest)
            }),
            BitOperation::OneBits => {
                (1..bits).fold(bit(0), |sum, i| binary(BinaryOp::Add, sum, bit(i)))
            }
            BitOperation::Parity => {
                (1..bits).fold(bit(0), |sum, i| binary(BinaryOp::BitXor, sum, bit(i)))
            }
            BitOperation::ByteSwap => {
                let bytes = bits / 8;
                let byte = |k: i64| {
                    let low = binary(
                        BinaryOp::BitAnd,
                        binary(BinaryOp::Shr, unsigned.clone(), Expr::Const(8 * k)),
                        Expr::Const(0xff),
                    );
                    binary(
                        BinaryOp::Shl,
                        Expr::Cast(
                            Ty::Int {
                                bits: self.bits,
                                signed: false,
                            },
                            Box::new(low),
                        ),
                        Expr::Const(8 * (bytes - 1 - k)),
                    )
                };
                let swapped =
                    (1..bytes).fold(byte(0), |all, k| binary(BinaryOp::BitOr, all, byte(k)));
                Expr::Cast(
                    Ty::Int {
                        bits: self.bits,
                        signed: false,
                    },
                    Box::new(swapped),
                )
            }
        }
    }
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// The call of the bit builtin `name` ([`is_bit_builtin`]) on
    /// `arguments`.
    pub fn bit_builtin_call(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        let Some(builtin) = bit_builtin(name) else {
            return self
                .lw
                .error(span, format!("`{name}` is no bit builtin"), "here");
        };
        let [operand] = arguments else {
            return self.lw.error(
                span,
                format!("`{name}` takes 1 argument"),
                "wrong number of arguments",
            );
        };
        let value = self.rvalue(operand)?;
        let operand_type = builtin.operand_type();
        let converted = self.convert(value, &operand_type, operand.span)?;
        // the operand once, in a temporary: the result reads it per bit
        let temp = self.temp(&operand_type);
        self.emit(StmtKind::Assign(Place::Local(temp), converted));
        let x = Expr::Load(Place::Local(temp));
        Ok(Val {
            expr: builtin.result(&x),
            ty: builtin.result_type(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of a pure expression over the constant `x` (the only
    /// load), with C's unsigned shifts on values of `bits` bits.
    fn evaluate(e: &Expr, x: i64, bits: u8) -> i64 {
        let mask = |v: i64| {
            if bits >= 64 {
                v
            } else {
                v & ((1i64 << bits) - 1)
            }
        };
        match e {
            Expr::Const(v) => *v,
            Expr::Load(_) => x,
            Expr::Cast(
                Ty::Int {
                    bits,
                    signed: false,
                },
                inner,
            ) => {
                let v = evaluate(inner, x, *bits);
                if *bits >= 64 {
                    v
                } else {
                    v & ((1i64 << bits) - 1)
                }
            }
            Expr::Conditional(c, t, f) => {
                if evaluate(c, x, bits) != 0 {
                    evaluate(t, x, bits)
                } else {
                    evaluate(f, x, bits)
                }
            }
            Expr::Binary(op, a, b) => {
                let (a, b) = (evaluate(a, x, bits), evaluate(b, x, bits));
                match op {
                    BinaryOp::Shr => ((a as u64) >> b) as i64,
                    BinaryOp::Shl => mask(((a as u64) << b) as i64),
                    BinaryOp::BitAnd => a & b,
                    BinaryOp::BitOr => a | b,
                    BinaryOp::BitXor => a ^ b,
                    BinaryOp::Add => a + b,
                    other => panic!("unexpected {other:?}"),
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    fn result(name: &str, x: i64) -> i64 {
        let builtin = bit_builtin(name).expect("a bit builtin");
        evaluate(
            &builtin.result(&Expr::Load(Place::Local(0))),
            x,
            builtin.bits,
        )
    }

    #[test]
    fn each_builtin_agrees_with_rusts_bit_operations() {
        for x in [
            1i64,
            2,
            6,
            0x80,
            0x7fff_ffff,
            0x8000_0000,
            0xf0f0,
            0x1234_5678,
        ] {
            let x32 = x as u32;
            assert_eq!(
                result("__builtin_ctz", x),
                i64::from(x32.trailing_zeros()),
                "ctz {x:#x}"
            );
            assert_eq!(
                result("__builtin_clz", x),
                i64::from(x32.leading_zeros()),
                "clz {x:#x}"
            );
            assert_eq!(
                result("__builtin_popcount", x),
                i64::from(x32.count_ones()),
                "popcount {x:#x}"
            );
            assert_eq!(
                result("__builtin_parity", x),
                i64::from(x32.count_ones() % 2),
                "parity {x:#x}"
            );
            assert_eq!(
                result("ffs", x),
                i64::from(x32.trailing_zeros() + 1),
                "ffs {x:#x}"
            );
            assert_eq!(
                result("__builtin_bswap32", x) as u32,
                x32.swap_bytes(),
                "bswap32 {x:#x}"
            );
            assert_eq!(
                result("__builtin_bswap16", x) as u16,
                (x as u16).swap_bytes(),
                "bswap16 {x:#x}"
            );
            let wide = x << 24 | 1 << 62;
            assert_eq!(
                result("__builtin_ctzll", wide),
                i64::from(wide.trailing_zeros()),
                "ctzll {wide:#x}"
            );
            assert_eq!(
                result("__builtin_clzl", wide),
                i64::from(wide.leading_zeros()),
                "clzl {wide:#x}"
            );
            assert_eq!(
                result("__builtin_popcountll", wide),
                i64::from(wide.count_ones()),
                "popcountll {wide:#x}"
            );
            assert_eq!(
                result("__builtin_bswap64", wide) as u64,
                (wide as u64).swap_bytes(),
                "bswap64 {wide:#x}"
            );
        }
        assert_eq!(result("ffs", 0), 0);
        assert_eq!(result("__builtin_ctz", 0), 32);
        assert_eq!(result("__builtin_clzll", 0), 64);
    }

    #[test]
    fn only_these_names_are_bit_builtins() {
        for name in [
            "__builtin_ctz",
            "__builtin_clzll",
            "__builtin_popcountl",
            "__builtin_parity",
            "ffs",
            "ffsll",
            "__builtin_ffsl",
            "__builtin_bswap16",
        ] {
            assert!(is_bit_builtin(name), "{name}");
        }
        for name in [
            "ctz",
            "popcount",
            "__builtin_ctzs",
            "__builtin_bswap8",
            "__builtin_clrsb",
            "ffsx",
            "__builtin_bswap128",
        ] {
            assert!(!is_bit_builtin(name), "{name}");
        }
    }
}
