//! The functions of C's math library that the printed program calls
//! (`sqrt`, `floor`, `round`, ...), computed as the C code of CBMC's own
//! library computes them, which is not always IEEE 754's function: its
//! `floor(0.5)` is `-0.0`, its `ceil(-0.5)` and `round(-0.3)` are `+0.0`,
//! its `fdim` of a NaN is `+0.0`, and its `sqrt` picks the root by
//! comparing rounded squares. `fmod` and
//! `remainder` compute in `long double` there, which the engine does not
//! model: it declines them.

use super::float::{Computed, Ieee, Rounding, in_width, made};
use crate::ir::LibraryFunction;

/// Why the engine does not compute `function`, if it does not.
pub fn unmodelled(function: &LibraryFunction) -> Option<String> {
    match stem(function) {
        "fmod" | "remainder" => Some(format!(
            "{} is not modelled by the native engine (CBMC's library computes it in long double)",
            function.name
        )),
        "sqrt" | "floor" | "ceil" | "trunc" | "round" | "nearbyint" | "rint" | "fdim" => None,
        _ => Some(format!(
            "{} is not modelled by the native engine",
            function.name
        )),
    }
}

/// The name of the `double` function (`sqrt` of `sqrtf`).
fn stem(function: &LibraryFunction) -> &'static str {
    let name = function.name;
    if function.bits <= 32 {
        name.strip_suffix('f').unwrap_or(name)
    } else {
        name
    }
}

/// `function` of `arguments`, values of its floating type.
pub fn call(function: &LibraryFunction, arguments: &[i64]) -> Computed<i64> {
    if let Some(reason) = unmodelled(function) {
        return Err(reason);
    }
    let argument = |k: usize| {
        arguments
            .get(k)
            .copied()
            .ok_or_else(|| format!("{} without its argument {}", function.name, k + 1))
    };
    in_width!(function.bits, F => {
        let x = F::from_held(argument(0)?);
        let result = match stem(function) {
            "sqrt" => square_root(x)?,
            "floor" => round_to_integral(Rounding::Down, x),
            "ceil" => round_to_integral(Rounding::Up, x),
            "trunc" => round_to_integral(Rounding::TowardZero, x),
            // CBMC's library reads the rounding mode, which the program
            // cannot change: to nearest
            "nearbyint" | "rint" => round_to_integral(Rounding::Nearest, x),
            "round" => round(x),
            "fdim" => {
                let y = F::from_held(argument(1)?);
                if x > y { made(x - y) } else { F::ZERO }
            }
            other => return Err(format!("{other} is not modelled by the native engine")),
        };
        Ok(result.held())
    })
}

/// CBMC's `__sort_of_CPROVER_round_to_integral(mode, d)`: `d` itself when
/// it is zero or at least 2^52 (2^23) in magnitude; otherwise
/// `(d + 2^52) - 2^52` (for a negative `d`, `(d - 2^52) + 2^52`) in the
/// rounding direction `mode`. That is `d` rounded to an integer in that
/// direction, except that a zero comes out as the sum of two opposite
/// values gives it: `-0.0` when rounding down, `+0.0` otherwise. A NaN
/// comes out as CBMC's NaN.
fn round_to_integral<F: Ieee>(mode: Rounding, d: F) -> F {
    if d.is_nan() {
        return F::from_raw(F::CBMC_NAN);
    }
    if d.magnitude() >= F::INTEGRAL || d == F::ZERO {
        return d;
    }
    let rounded = d.integral(mode);
    if rounded != F::ZERO {
        rounded
    } else if mode == Rounding::Down {
        -F::ZERO
    } else {
        F::ZERO
    }
}

/// CBMC's `round(x)`: `x + 0.5` (`x - 0.5` for a negative `x`) rounded
/// toward zero, then rounded to an integer toward zero
/// ([`round_to_integral`]).
fn round<F: Ieee>(x: F) -> F {
    let shifted = if x > F::ZERO {
        add_toward_zero(x, F::HALF)
    } else if x < F::ZERO {
        add_toward_zero(x, -F::HALF)
    } else {
        x
    };
    round_to_integral(Rounding::TowardZero, shifted)
}

/// `a + b` rounded toward zero: the sum rounded to nearest, one step
/// toward zero when the exact sum (its error by Knuth's TwoSum, exact
/// without overflow) lies nearer zero.
fn add_toward_zero<F: Ieee>(a: F, b: F) -> F {
    let sum = a + b;
    if sum.is_infinite() || sum.is_nan() {
        return sum;
    }
    let b_part = sum - a;
    let error = (a - (sum - b_part)) + (b - b_part);
    if error == F::ZERO || (error < F::ZERO) != (sum > F::ZERO) {
        sum
    } else {
        // one step toward zero: the magnitude's bits less one
        F::from_raw(sum.raw() - 1)
    }
}

/// CBMC's `sqrt(d)`: a NaN for a negative `d`; `d` itself for a zero, an
/// infinity or a NaN; for a normal `d`, of the two neighbours `lower` and
/// `upper = nextUp(lower)` with `lower * lower <= d < upper * upper` (the
/// products rounded), `lower` when `d - lower * lower < upper * upper -
/// d`, else `upper`. For a subnormal `d` the library takes any `root` with
/// `root * root == d`, of which there may be several or none: declined.
fn square_root<F: Ieee>(d: F) -> Computed<F> {
    if d < F::ZERO {
        return Ok(F::from_raw(F::CBMC_NAN));
    }
    if d.is_infinite() || d == F::ZERO || d.is_nan() {
        return Ok(d);
    }
    if !d.is_normal() {
        return Err(
            "sqrt of a subnormal number (CBMC's library takes any of its roots in the rounded arithmetic)"
                .into(),
        );
    }
    // the bound holds for exactly one `lower`, within a few steps of the
    // correctly rounded root
    let near = d.ieee_sqrt().raw();
    let mut found = None;
    for step in 0..9u64 {
        let Some(bits) = (near + step).checked_sub(4) else {
            continue;
        };
        let lower = F::from_raw(bits);
        let lower_square = lower * lower;
        if !(lower > F::ZERO && lower.is_normal() && lower_square.is_normal()) {
            continue;
        }
        let upper = F::from_raw(bits + 1);
        let upper_square = upper * upper;
        if lower_square <= d && d < upper_square {
            if found.is_some() {
                return Err("sqrt: CBMC's library bounds two roots".into());
            }
            found = Some((lower, lower_square, upper, upper_square));
        }
    }
    let (lower, lower_square, upper, upper_square) =
        found.ok_or("sqrt: no root meets CBMC's library's bounds")?;
    Ok(if d - lower_square < upper_square - d {
        lower
    } else {
        upper
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(name: &'static str, bits: u8, arity: u8) -> LibraryFunction {
        LibraryFunction { name, bits, arity }
    }

    fn double(name: &'static str, x: f64) -> f64 {
        f64::from_held(call(&function(name, 64, 1), &[x.held()]).unwrap())
    }

    #[test]
    fn rounding_gives_cbmc_signed_zeros() {
        // as CBMC 5.12 computes them (checked with cbmc --trace)
        assert_eq!(double("floor", 0.3).to_bits(), (-0.0f64).to_bits());
        assert_eq!(double("ceil", -0.3).to_bits(), 0.0f64.to_bits());
        assert_eq!(double("trunc", -0.3).to_bits(), 0.0f64.to_bits());
        assert_eq!(double("round", -0.3).to_bits(), 0.0f64.to_bits());
        assert_eq!(double("rint", -0.3).to_bits(), 0.0f64.to_bits());
        assert_eq!(double("rint", -2.5), -2.0);
        assert_eq!(double("round", -2.5), -3.0);
        assert_eq!(double("round", 0.49999999999999994), 0.0);
        assert_eq!(double("floor", -1e300), -1e300);
        assert_eq!(double("ceil", 2.25), 3.0);
        assert_eq!(double("floor", f64::NAN).to_bits(), 0x7ff0_0000_0000_0001);
    }

    #[test]
    fn square_roots_are_cbmc_ones() {
        assert_eq!(double("sqrt", 2.0), 2f64.sqrt());
        assert_eq!(double("sqrt", -1.0).to_bits(), 0x7ff0_0000_0000_0001);
        assert_eq!(double("sqrt", -0.0).to_bits(), (-0.0f64).to_bits());
        // CBMC 5.12 gives this root, one step above IEEE's (checked with
        // cbmc): its choice compares rounded squares
        assert_eq!(
            double("sqrt", 3.1909958451618493e-299),
            5.648890019430233e-150
        );
        assert_eq!(3.1909958451618493e-299f64.sqrt(), 5.648890019430232e-150);
        let near = |a: u64, b: u64| a.abs_diff(b) <= 1;
        let mut x = 1.0e-300f64;
        while x < 1.0e300 {
            assert!(near(double("sqrt", x).to_bits(), x.sqrt().to_bits()), "{x}");
            x *= 1.37;
        }
        let single = |x: f32| f32::from_held(call(&function("sqrtf", 32, 1), &[x.held()]).unwrap());
        assert_eq!(single(2.0), 2f32.sqrt());
        let mut x = 1.2e-38f32;
        while x < 3.0e38 {
            let (root, ieee) = (single(x).to_bits(), x.sqrt().to_bits());
            assert!(near(u64::from(root), u64::from(ieee)), "{x}");
            x *= 1.37;
        }
        assert!(call(&function("sqrt", 64, 1), &[5e-324f64.held()]).is_err());
    }

    #[test]
    fn fmod_and_remainder_are_declined() {
        assert!(unmodelled(&function("fmodf", 32, 2)).is_some());
        assert!(unmodelled(&function("remainder", 64, 2)).is_some());
        assert!(unmodelled(&function("sqrtf", 32, 1)).is_none());
        let fdim = |x: f64, y: f64| {
            f64::from_held(call(&function("fdim", 64, 2), &[x.held(), y.held()]).unwrap())
        };
        assert_eq!(fdim(3.0, 1.0), 2.0);
        assert_eq!(fdim(1.0, 3.0).to_bits(), 0);
        assert_eq!(fdim(f64::NAN, 3.0).to_bits(), 0);
    }
}
