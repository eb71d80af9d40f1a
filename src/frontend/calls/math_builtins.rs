//! The floating-point functions of `<math.h>`. Those that are exact
//! operations on a value's bits, the classification macros (`isnan`,
//! `isinf`, `isfinite`, `signbit`, which glibc spells as gcc's `__builtin_`
//! forms), `fabs`, `copysign`, `fmin`, `fmax`, and the constants
//! `INFINITY`, `HUGE_VAL` and `NAN`, are expressions over the bits of their
//! operands, which private temporaries hold. Those that CBMC's own library
//! defines exactly (`sqrt`, `floor`, `fmod`, ...) are called in the printed
//! program.

use crate::frontend::c_types::types::CType;
use crate::frontend::lower::{FnLowerer, LResult, binary};
use crate::frontend::values::Val;
use crate::ir::*;
use lang_c::ast::Expression;
use lang_c::span::{Node, Span};

/// What a math builtin computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MathOperation {
    /// Whether the operand is a NaN.
    IsNan,
    /// Whether the operand is an infinity.
    IsInfinite,
    /// -1 for minus infinity, 1 for plus infinity, 0 otherwise.
    InfinitySign,
    /// Whether the operand is neither an infinity nor a NaN.
    IsFinite,
    /// Whether the operand's sign bit is set (-0.0 and negative NaNs too).
    SignBit,
    /// The operand without its sign bit.
    Absolute,
    /// The first operand with the second's sign bit.
    CopySign,
    /// The smaller operand; the other where one is a NaN.
    Minimum,
    /// The larger operand; the other where one is a NaN.
    Maximum,
    /// Plus infinity (`INFINITY`, `HUGE_VAL`).
    Infinity,
    /// The default quiet NaN (`NAN`, `nan("")`).
    QuietNan,
}

/// A math builtin: its operation and the floating type it computes in
/// (`None` for the type-generic classification builtins, which take
/// their operand's type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MathBuiltin {
    operation: MathOperation,
    bits: Option<u8>,
}

/// The math builtin that the function `name` is, if any: libc's names
/// (`fabs`, `fabsf`, ...) and gcc's `__builtin_` forms.
fn math_builtin(name: &str) -> Option<MathBuiltin> {
    use MathOperation::*;
    let generic = |operation| {
        Some(MathBuiltin {
            operation,
            bits: None,
        })
    };
    match name {
        "__builtin_isnan" => return generic(IsNan),
        "__builtin_isinf" => return generic(IsInfinite),
        "__builtin_isinf_sign" => return generic(InfinitySign),
        "__builtin_isfinite" => return generic(IsFinite),
        "__builtin_signbit" | "__builtin_signbitf" => return generic(SignBit),
        _ => {}
    }
    let stem = name.strip_prefix("__builtin_").unwrap_or(name);
    let (stem, bits) = match stem.strip_suffix('f') {
        Some(stem) if stem != "in" => (stem, 32),
        _ => (stem, 64),
    };
    let operation = match stem {
        "fabs" => Absolute,
        "copysign" => CopySign,
        "fmin" => Minimum,
        "fmax" => Maximum,
        "inf" | "huge_val" if name.starts_with("__builtin_") => Infinity,
        "nan" => QuietNan,
        _ => return None,
    };
    Some(MathBuiltin {
        operation,
        bits: Some(bits),
    })
}

/// The functions of C's math library whose bodies CBMC's own library
/// gives, by their `double` and `float` names, with how many operands
/// they take. The printed program calls CBMC's bodies, which are not
/// always IEEE 754's results (`floor(0.25)` is `-0.0`, `fdim` of a NaN is
/// `+0.0`, one `sqrt` of a tiny value rounds up; the native engine
/// follows CBMC: `src/smc/interpreter/float_library.rs`). (CBMC's `sin` and `cos` are
/// approximations, and `pow`, `exp` and `log` have no body: those stay
/// undefined.)
const LIBRARY_FUNCTIONS: [(&str, &str, u8); 10] = [
    ("sqrt", "sqrtf", 1),
    ("floor", "floorf", 1),
    ("ceil", "ceilf", 1),
    ("trunc", "truncf", 1),
    ("round", "roundf", 1),
    ("nearbyint", "nearbyintf", 1),
    ("rint", "rintf", 1),
    ("fmod", "fmodf", 2),
    ("remainder", "remainderf", 2),
    ("fdim", "fdimf", 2),
];

/// The library function that `name` is, if any ([`LIBRARY_FUNCTIONS`]).
fn library_function(name: &str) -> Option<LibraryFunction> {
    LIBRARY_FUNCTIONS
        .iter()
        .find_map(|&(double, float, arity)| match name {
            _ if name == double => Some(LibraryFunction {
                name: double,
                bits: 64,
                arity,
            }),
            _ if name == float => Some(LibraryFunction {
                name: float,
                bits: 32,
                arity,
            }),
            _ => None,
        })
}

/// Whether `name` is a math builtin ([`math_builtin`]) or a library
/// function CBMC defines ([`LIBRARY_FUNCTIONS`]).
pub fn is_math_builtin(name: &str) -> bool {
    math_builtin(name).is_some() || library_function(name).is_some()
}

/// The constants of a floating type of `bits` bits, as the signed integer
/// of its bits: the sign bit, the other bits, the exponent of an infinity
/// (every exponent bit set), the default quiet NaN.
struct FloatingBits {
    sign: i64,
    magnitude: i64,
    infinity: i64,
    quiet_nan: i64,
}

impl FloatingBits {
    fn of(bits: u8) -> FloatingBits {
        match bits {
            32 => FloatingBits {
                sign: i64::from(i32::MIN),
                magnitude: i64::from(i32::MAX),
                infinity: i64::from(f32::INFINITY.to_bits()),
                quiet_nan: i64::from(f32::NAN.to_bits()),
            },
            _ => FloatingBits {
                sign: i64::MIN,
                magnitude: i64::MAX,
                infinity: f64::INFINITY.to_bits() as i64,
                quiet_nan: f64::NAN.to_bits() as i64,
            },
        }
    }
}

/// The result of `operation` over `operands`, private values of the
/// floating type `ty` of `bits` bits.
fn result(operation: MathOperation, operands: &[Expr], ty: &Ty, bits: u8) -> Expr {
    use MathOperation::*;
    let constants = FloatingBits::of(bits);
    let integer = Ty::Int { bits, signed: true };
    let bits_of = |x: &Expr| Expr::Reinterpret(integer.clone(), Box::new(x.clone()));
    let magnitude = |x: &Expr| {
        binary(
            BinaryOp::BitAnd,
            bits_of(x),
            Expr::Const(constants.magnitude),
        )
    };
    let floating = |bits: Expr| Expr::Reinterpret(ty.clone(), Box::new(bits));
    let choose = |condition: Expr, then: Expr, otherwise: Expr| {
        Expr::Conditional(Box::new(condition), Box::new(then), Box::new(otherwise))
    };
    let is_nan = |x: &Expr| binary(BinaryOp::Gt, magnitude(x), Expr::Const(constants.infinity));
    let operand = |k: usize| operands.get(k).cloned().unwrap_or(Expr::Const(0));
    let (x, y) = (operand(0), operand(1));
    match operation {
        IsNan => is_nan(&x),
        IsInfinite => binary(BinaryOp::Eq, magnitude(&x), Expr::Const(constants.infinity)),
        InfinitySign => {
            let signed = choose(
                binary(BinaryOp::Lt, bits_of(&x), Expr::Const(0)),
                Expr::Const(-1),
                Expr::Const(1),
            );
            choose(
                binary(BinaryOp::Eq, magnitude(&x), Expr::Const(constants.infinity)),
                signed,
                Expr::Const(0),
            )
        }
        IsFinite => binary(BinaryOp::Lt, magnitude(&x), Expr::Const(constants.infinity)),
        SignBit => binary(BinaryOp::Lt, bits_of(&x), Expr::Const(0)),
        Absolute => floating(magnitude(&x)),
        CopySign => {
            let sign = binary(BinaryOp::BitAnd, bits_of(&y), Expr::Const(constants.sign));
            floating(binary(BinaryOp::BitOr, magnitude(&x), sign))
        }
        Minimum | Maximum => {
            let order = if operation == Minimum {
                BinaryOp::Lt
            } else {
                BinaryOp::Gt
            };
            let ordered = choose(binary(order, x.clone(), y.clone()), x.clone(), y.clone());
            choose(is_nan(&x), y.clone(), choose(is_nan(&y), x, ordered))
        }
        Infinity => floating(Expr::Const(constants.infinity)),
        QuietNan => floating(Expr::Const(constants.quiet_nan)),
    }
}

impl MathBuiltin {
    /// How many value operands the builtin takes (`nan`'s string aside).
    fn operands(&self) -> usize {
        match self.operation {
            MathOperation::CopySign | MathOperation::Minimum | MathOperation::Maximum => 2,
            MathOperation::Infinity | MathOperation::QuietNan => 0,
            _ => 1,
        }
    }

    /// Whether the result is the floating type itself (else an `int`).
    fn gives_floating(&self) -> bool {
        use MathOperation::*;
        matches!(
            self.operation,
            Absolute | CopySign | Minimum | Maximum | Infinity | QuietNan
        )
    }
}

impl<'l, 'a> FnLowerer<'l, 'a> {
    /// The call of the math builtin `name` ([`is_math_builtin`]) on
    /// `arguments`.
    pub fn math_builtin_call(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        if let Some(function) = library_function(name) {
            return self.library_call(function, arguments, span);
        }
        let Some(builtin) = math_builtin(name) else {
            return self
                .lw
                .error(span, format!("`{name}` is no math builtin"), "here");
        };
        if builtin.operation == MathOperation::QuietNan {
            self.default_nan_argument(name, arguments, span)?;
        } else {
            self.takes_arguments(name, arguments, builtin.operands(), span)?;
        }
        let mut values = Vec::new();
        let value_arguments = if builtin.operation == MathOperation::QuietNan {
            &[][..]
        } else {
            arguments
        };
        for argument in value_arguments {
            values.push((self.rvalue(argument)?, argument.span));
        }
        let ty = match builtin.bits {
            Some(bits) => CType::Float(bits / 8),
            None => match values.first() {
                Some((value, _)) if value.ty.float_bits().is_some() => value.ty.clone(),
                _ => {
                    return self.lw.error(
                        span,
                        format!("`{name}` of a value that is not a `float` or `double`"),
                        "needs a floating operand",
                    );
                }
            },
        };
        // a `float` or a `double` (checked above, or the builtin's own)
        let bits = ty.float_bits().unwrap_or(64);
        // each operand once, in a temporary: the result reads it more than once
        let mut operands = Vec::new();
        for (value, operand_span) in values {
            let converted = self.convert(value, &ty, operand_span)?;
            let temp = self.temp(&ty);
            self.emit(StmtKind::Assign(Place::Local(temp), converted));
            operands.push(Expr::Load(Place::Local(temp)));
        }
        let ir_type = self.lw.types.ir_type(&ty);
        let expr = result(builtin.operation, &operands, &ir_type, bits);
        Ok(Val {
            expr,
            ty: if builtin.gives_floating() {
                ty
            } else {
                CType::INT
            },
        })
    }

    /// The call of a library function that CBMC's library defines: its
    /// operands converted to its floating type, called in the printed
    /// program.
    fn library_call(
        &mut self,
        function: LibraryFunction,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<Val> {
        self.takes_arguments(function.name, arguments, usize::from(function.arity), span)?;
        let ty = CType::Float(function.bits / 8);
        let mut operands = Vec::new();
        for argument in arguments {
            let value = self.rvalue(argument)?;
            operands.push(self.convert(value, &ty, argument.span)?);
        }
        Ok(Val {
            expr: Expr::LibraryCall(function, operands),
            ty,
        })
    }

    /// An error unless the call of `name` has `wanted` arguments.
    fn takes_arguments(
        &self,
        name: &str,
        arguments: &[Node<Expression>],
        wanted: usize,
        span: Span,
    ) -> LResult<()> {
        if arguments.len() == wanted {
            return Ok(());
        }
        let plural = if wanted == 1 { "" } else { "s" };
        self.lw.error(
            span,
            format!("`{name}` takes {wanted} argument{plural}"),
            "wrong number of arguments",
        )
    }

    /// `nan`'s argument: the empty string, which asks for the default quiet
    /// NaN; another payload is refused (its bits are the library's choice).
    fn default_nan_argument(
        &mut self,
        name: &str,
        arguments: &'a [Node<Expression>],
        span: Span,
    ) -> LResult<()> {
        self.takes_arguments(name, arguments, 1, span)?;
        let argument = &arguments[0];
        if crate::frontend::expr::floating::is_empty_string(argument) {
            return Ok(());
        }
        self.lw.refuse(
            argument.span,
            format!("`{name}` with a NaN payload"),
            Some("give the empty string, `\"\"`, for the default quiet NaN"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_these_names_are_math_builtins() {
        for name in [
            "fabs",
            "fabsf",
            "__builtin_fabs",
            "copysignf",
            "fmin",
            "__builtin_fmaxf",
            "__builtin_isnan",
            "__builtin_isinf_sign",
            "__builtin_inff",
            "__builtin_huge_val",
            "__builtin_nanf",
            "nan",
        ] {
            assert!(is_math_builtin(name), "{name}");
        }
        for name in [
            "pow",
            "exp",
            "sin",
            "lround",
            "fabsl",
            "sqrtl",
            "inf",
            "huge_val",
            "__builtin_nanl",
            "isnan",
            "__builtin_inf_sign",
        ] {
            assert!(!is_math_builtin(name), "{name}");
        }
        // the library functions CBMC defines
        assert_eq!(
            library_function("sqrt"),
            Some(LibraryFunction {
                name: "sqrt",
                bits: 64,
                arity: 1
            })
        );
        assert_eq!(
            library_function("fmodf"),
            Some(LibraryFunction {
                name: "fmodf",
                bits: 32,
                arity: 2
            })
        );
        assert!(is_math_builtin("floorf") && is_math_builtin("remainder"));
        assert_eq!(
            math_builtin("fabsf"),
            Some(MathBuiltin {
                operation: MathOperation::Absolute,
                bits: Some(32)
            })
        );
        assert_eq!(
            math_builtin("__builtin_inf"),
            Some(MathBuiltin {
                operation: MathOperation::Infinity,
                bits: Some(64)
            })
        );
    }

    #[test]
    fn the_bit_constants_are_ieee_754s() {
        let single = FloatingBits::of(32);
        assert_eq!(single.infinity, 0x7f80_0000);
        assert_eq!(single.magnitude, 0x7fff_ffff);
        assert_eq!(single.sign as i32 as u32, 0x8000_0000);
        assert!(f32::from_bits(single.quiet_nan as u32).is_nan());
        let double = FloatingBits::of(64);
        assert_eq!(double.infinity as u64, 0x7ff0_0000_0000_0000);
        assert!(f64::from_bits(double.quiet_nan as u64).is_nan());
    }
}
