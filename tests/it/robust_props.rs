//! `lazysma robust`'s check against brute force: on random small programs
//! (2 to 4 threads; stores, loads, fences, RMWs, locks; a third of them
//! with RMWs or critical sections of 3 or 4 threads on one location), the
//! native engine's robustness verdict under TSO and PSO is robust exactly
//! when every reads-from map a complete execution has under the model
//! (found by the brute-force store-buffer explorer of
//! `tests/smc_rf/brute.rs`, independent of lazysma's interpreter) is one a
//! complete SC execution has. `LAZYSMA_PROPTEST_CASES` raises the number
//! of programs.

use crate::smc_rf;

use lazysma::smc::{self, Answer, Limits};
use proptest::prelude::*;
use smc_rf::program::Program;
use smc_rf::{brute, limits, prepare, program};

fn cases() -> u32 {
    std::env::var("LAZYSMA_PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(24)
}

/// The native engine's robustness verdict on `program` under `model`.
fn robust_natively(program: &Program, model: &str) -> bool {
    let directory =
        std::env::temp_dir().join(format!("lazysma-robust-props-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    let path = directory.join(format!("{model}.c"));
    std::fs::write(&path, program.c_text()).expect("the program is written");
    let prepared = prepare(&path, model, 2);
    let limits = Limits {
        robustness: true,
        ..limits()
    };
    match smc::check(&prepared, &limits) {
        Ok(Answer::Safe(..)) => true,
        Ok(Answer::Violation { violation, .. }) => {
            assert_eq!(violation.kind, smc::NOT_ROBUST, "{}", program.c_text());
            false
        }
        Err(no_answer) => panic!(
            "no robustness verdict ({no_answer}) on\n{}",
            program.c_text()
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn robust_exactly_when_every_reads_from_map_is_one_sc_has(program in program::program()) {
        let sequential = brute::explore(&program, "sc").reads_from;
        for model in ["tso", "pso"] {
            let weak = brute::explore(&program, model).reads_from;
            let robust = weak.is_subset(&sequential);
            let natively = robust_natively(&program, model);
            prop_assert_eq!(
                natively,
                robust,
                "robustness under {} of\n{}",
                model,
                program.c_text()
            );
        }
    }
}
