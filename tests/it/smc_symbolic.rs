//! The symbolic values of the native engine (`src/smc/symbolic/`): C
//! arithmetic built as bit-vector terms gives, on every value of its
//! symbols, what C's integer arithmetic gives (an independent reference
//! here: wrapping `i64` arithmetic truncated to the type, as the printed
//! program computes), and each SMT solver of the portfolio, `boolector`
//! and `z3`, reads the terms' SMT-LIB text the same way (the term equals
//! its computed value under those values, and differs from every other).
//! Needs both (`scripts/install-smt-solvers.sh`): a missing solver fails
//! these tests, never skips them.

use lazysma::ir::BinaryOp;
use lazysma::smc::interpreter::value::CType;
use lazysma::smc::symbolic::solver::{self, Bounds, Decision, Program};
use lazysma::smc::symbolic::term::{
    self, Arithmetic, Formula, SymbolId, Term, arithmetic, compare, convert, shift, value_of,
};
use proptest::prelude::*;
use std::collections::HashMap;

/// `unsigned char`.
const BYTE: CType = CType {
    bits: 8,
    signed: false,
};

const TYPES: [CType; 6] = [
    CType {
        bits: 8,
        signed: true,
    },
    BYTE,
    CType {
        bits: 32,
        signed: true,
    },
    CType {
        bits: 32,
        signed: false,
    },
    CType {
        bits: 64,
        signed: true,
    },
    CType {
        bits: 64,
        signed: false,
    },
];

const ARITHMETIC: [BinaryOp; 8] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::BitAnd,
    BinaryOp::BitOr,
    BinaryOp::BitXor,
];

const COMPARISONS: [BinaryOp; 6] = [
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
];

/// The portfolio's solvers, each asked alone.
const PROGRAMS: [Program; 2] = [Program::Boolector, Program::Z3];

/// `program`'s decision of `formula`, without a time limit.
fn decision(program: Program, formula: &Formula) -> Decision {
    program
        .decide(formula, Bounds::default())
        .unwrap_or_else(|error| panic!("{error}"))
}

fn satisfiable(program: Program, formula: &Formula) -> bool {
    match decision(program, formula) {
        Decision::Satisfiable(_) => true,
        Decision::Unsatisfiable => false,
        Decision::Unknown => panic!("{program:?} did not decide {formula:?}"),
    }
}

/// `value` of type `ty` as the printed program holds it.
fn truncated(value: i64, ty: CType) -> i64 {
    lazysma::ir::truncate(value, ty.bits, ty.signed)
}

/// C's `a op b` in type `ty` (both operands already of it), or `None`
/// where the interpreter declines (a division by zero).
fn reference(op: BinaryOp, a: i64, b: i64, ty: CType) -> Option<i64> {
    let wide_unsigned = !ty.signed && ty.bits == 64;
    let value = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div | BinaryOp::Rem if b == 0 => return None,
        BinaryOp::Div if wide_unsigned => ((a as u64) / (b as u64)) as i64,
        BinaryOp::Rem if wide_unsigned => ((a as u64) % (b as u64)) as i64,
        BinaryOp::Div => a.wrapping_div(b),
        BinaryOp::Rem => a.wrapping_rem(b),
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        _ => return None,
    };
    Some(truncated(value, ty))
}

/// C's comparison `a op b` in type `ty`.
fn reference_comparison(op: BinaryOp, a: i64, b: i64, ty: CType) -> bool {
    let order = if !ty.signed && ty.bits == 64 {
        (a as u64).cmp(&(b as u64))
    } else {
        a.cmp(&b)
    };
    use std::cmp::Ordering::*;
    match op {
        BinaryOp::Eq => order == Equal,
        BinaryOp::Ne => order != Equal,
        BinaryOp::Lt => order == Less,
        BinaryOp::Le => order != Greater,
        BinaryOp::Gt => order == Greater,
        _ => order != Less,
    }
}

/// The symbols 0 and 1 fixed to `a` and `b` (of type `ty`).
fn fixed(a: i64, b: i64, ty: CType) -> Formula {
    let equal = |id: SymbolId, value: i64| {
        compare(
            BinaryOp::Eq,
            Term::symbol(id, ty),
            Term::constant(value, ty),
            ty,
        )
        .expect("a comparison")
    };
    equal(0, a).and(equal(1, b))
}

/// Whether each solver finds `term` equal to `expected` under
/// `assumption` and never different.
fn solvers_agree(assumption: &Formula, term: &Term, expected: i64, ty: CType) {
    let equal = compare(BinaryOp::Eq, term.clone(), Term::constant(expected, ty), ty)
        .expect("a comparison");
    for program in PROGRAMS {
        let holds = assumption.clone().and(equal.clone());
        assert!(satisfiable(program, &holds), "{program:?} {term:?}");
        let differs = assumption.clone().and(!equal.clone());
        assert!(!satisfiable(program, &differs), "{program:?} {term:?}");
    }
}

/// The number of random cases (more with `LAZYSMA_FULL=1`).
fn cases() -> u32 {
    if std::env::var("LAZYSMA_FULL").is_ok_and(|value| value == "1") {
        256
    } else {
        24
    }
}

/// A term of type `ty` built by `steps` over three symbols and a
/// constant: each step applies an operator (an arithmetic one or a
/// shift) to two terms built before.
fn built(ty: CType, constant: i64, steps: &[(usize, usize, usize)]) -> Vec<Term> {
    let mut terms: Vec<Term> = (0..3).map(|id| Term::symbol(id, ty)).collect();
    terms.push(Term::constant(truncated(constant, ty), ty));
    for &(op, left, right) in steps {
        let (left, right) = (
            terms[left % terms.len()].clone(),
            terms[right % terms.len()].clone(),
        );
        let built = match ARITHMETIC.get(op % (ARITHMETIC.len() + 2)) {
            Some(&op) => arithmetic(op, left, right, ty),
            None if op % 2 == 0 => shift(BinaryOp::Shl, left, ty, right, ty),
            None => shift(BinaryOp::Shr, left, ty, right, ty),
        };
        terms.push(built.expect("a term").term);
    }
    terms
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The portfolio's two solvers decide random formulas over free
    /// symbols alike (each model is checked against the terms' semantics
    /// as it is read): a solver that differed would make a search lose
    /// paths or take impossible ones.
    #[test]
    fn the_solvers_agree_on_random_formulas(
        type_index in 0usize..TYPES.len(),
        constant in prop_oneof![any::<i64>(), -2i64..3],
        steps in proptest::collection::vec((0usize..16, 0usize..16, 0usize..16), 1..6),
        comparisons in proptest::collection::vec((0usize..6, 0usize..16, 0usize..16), 1..4),
    ) {
        let ty = TYPES[type_index];
        let terms = built(ty, constant, &steps);
        let formula = comparisons
            .iter()
            .map(|&(op, left, right)| {
                let (left, right) = (terms[left % terms.len()].clone(), terms[right % terms.len()].clone());
                compare(COMPARISONS[op], left, right, ty).expect("a comparison")
            })
            .reduce(Formula::and)
            .expect("a comparison");
        let limit = Bounds {
            deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(10)),
            stop: None,
            memory: None,
        };
        let decided: Vec<Option<bool>> = PROGRAMS
            .iter()
            .map(|program| match program.decide(&formula, limit) {
                Ok(Decision::Satisfiable(_)) => Some(true),
                Ok(Decision::Unsatisfiable) => Some(false),
                Ok(Decision::Unknown) => None,
                Err(error) => panic!("{error}"),
            })
            .collect();
        if let [Some(boolector), Some(z3)] = decided[..] {
            prop_assert_eq!(boolector, z3, "{:?}", formula);
        }
    }

    /// Every arithmetic operator and comparison of every type: the term's
    /// value is C's, its undefined condition holds exactly where the
    /// interpreter declines, and each solver agrees.
    #[test]
    fn terms_compute_as_c_does(
        type_index in 0usize..TYPES.len(),
        a in any::<i64>(),
        b in prop_oneof![any::<i64>(), -2i64..3],
    ) {
        let ty = TYPES[type_index];
        let (a, b) = (truncated(a, ty), truncated(b, ty));
        let values: HashMap<SymbolId, i64> = [(0, a), (1, b)].into();
        let assumption = fixed(a, b, ty);
        for op in ARITHMETIC {
            let Arithmetic { term, undefined } =
                arithmetic(op, Term::symbol(0, ty), Term::symbol(1, ty), ty).expect("a term");
            let declined = undefined.as_ref().is_some_and(|undefined| undefined.evaluate(&values));
            let expected = reference(op, a, b, ty);
            prop_assert_eq!(declined, expected.is_none(), "{:?} {} {} in {:?}", op, a, b, ty);
            if let Some(expected) = expected {
                prop_assert_eq!(value_of(&term, ty, &values), expected, "{:?} {} {} in {:?}", op, a, b, ty);
                solvers_agree(&assumption, &term, expected, ty);
            }
        }
        for op in COMPARISONS {
            let holds = compare(op, Term::symbol(0, ty), Term::symbol(1, ty), ty).expect("a comparison");
            let expected = reference_comparison(op, a, b, ty);
            prop_assert_eq!(holds.evaluate(&values), expected, "{:?} {} {} in {:?}", op, a, b, ty);
            let int = CType::INT;
            solvers_agree(&assumption, &holds.value(int), i64::from(expected), int);
        }
    }

    /// Conversions between the types: C's (extension by the source's
    /// signedness, the low bits), in the term and in each solver.
    #[test]
    fn conversions_keep_cs_values(from in 0usize..TYPES.len(), to in 0usize..TYPES.len(), a in any::<i64>()) {
        let (from, to) = (TYPES[from], TYPES[to]);
        let a = truncated(a, from);
        let values: HashMap<SymbolId, i64> = [(0, a)].into();
        let converted = convert(Term::symbol(0, from), from, to);
        let expected = truncated(a, to);
        prop_assert_eq!(value_of(&converted, to, &values), expected);
        solvers_agree(&fixed(a, 0, from), &converted, expected, to);
    }

    /// Shifts of `int` and `unsigned` by an `int` amount: C's value where
    /// defined, and the undefined condition exactly where the interpreter
    /// declines (an amount outside 0..32, a negative value shifted left).
    #[test]
    fn shifts_are_defined_where_c_defines_them(
        signed in any::<bool>(),
        left in any::<bool>(),
        a in any::<i32>(),
        amount in -3i64..40,
    ) {
        let ty = CType { bits: 32, signed };
        let int = CType::INT;
        let a = truncated(i64::from(a), ty);
        let op = if left { BinaryOp::Shl } else { BinaryOp::Shr };
        let Arithmetic { term, undefined } =
            shift(op, Term::symbol(0, ty), ty, Term::symbol(1, int), int).expect("a shift");
        let values: HashMap<SymbolId, i64> = [(0, a), (1, amount)].into();
        let declined = undefined.is_some_and(|undefined| undefined.evaluate(&values));
        let defined = (0..32).contains(&amount) && !(left && signed && a < 0);
        prop_assert_eq!(declined, !defined);
        if defined {
            let shifted = if left {
                truncated(a.wrapping_shl(amount as u32), ty)
            } else if signed {
                a >> amount
            } else {
                ((a as u64 & 0xffff_ffff) >> amount) as i64
            };
            prop_assert_eq!(value_of(&term, ty, &values), shifted);
        }
    }
}

/// Each solver's model gives concrete values, checked against the terms'
/// semantics: `x + 1 == 0` for an `unsigned char` only at 255, a signed
/// `x / y` is undefined only at `y == 0`.
#[test]
fn the_solvers_find_models() {
    let int = CType::INT;
    let one = Term::constant(1, BYTE);
    let sum = arithmetic(BinaryOp::Add, Term::symbol(0, BYTE), one, BYTE).expect("a term");
    let wraps = compare(BinaryOp::Eq, sum.term, Term::constant(0, BYTE), BYTE).expect("==");
    let quotient = arithmetic(
        BinaryOp::Div,
        Term::symbol(1, int),
        Term::symbol(2, int),
        int,
    )
    .expect("/");
    let undefined = quotient.undefined.expect("a division can be undefined");
    let nonzero = term::nonzero(Term::symbol(2, int), int);
    for program in PROGRAMS {
        let Decision::Satisfiable(model) = decision(program, &wraps) else {
            panic!("{program:?}: x + 1 == 0 has a model");
        };
        assert_eq!(model.get(&0), Some(&255), "{program:?}");
        let Decision::Satisfiable(model) = decision(program, &undefined) else {
            panic!("{program:?}: x / y is undefined somewhere");
        };
        assert_eq!(model.get(&2), Some(&0), "{program:?}");
        let both = undefined.clone().and(nonzero.clone());
        assert_eq!(
            decision(program, &both),
            Decision::Unsatisfiable,
            "{program:?}"
        );
    }
    assert!(matches!(
        solver::decide(&wraps, Bounds::default()),
        Ok(Decision::Satisfiable(_))
    ));
}

/// A solver process gets at most the address space `--memory-limit`
/// gives: with 4 MiB neither solver can run, and the question fails with
/// a message that names the limit (the engine declines then), instead of
/// a solver taking the machine's memory.
#[test]
fn the_solvers_memory_is_bounded() {
    let formula = compare(
        BinaryOp::Eq,
        Term::symbol(0, BYTE),
        Term::constant(7, BYTE),
        BYTE,
    )
    .expect("==");
    let bounds = Bounds {
        memory: Some(4 << 20),
        ..Bounds::default()
    };
    match solver::decide(&formula, bounds) {
        Err(error) => assert!(error.to_string().contains("--memory-limit"), "{error}"),
        Ok(decision) => panic!("decided within 4 MiB: {decision:?}"),
    }
}
