//! Property tests: VerifyTSO, VerifyPSO, SC and the naive baselines, with
//! and without closure, agree with a brute-force operational explorer on
//! random executions, and every witness replays with exactly the given RF;
//! so does `verify_quickly`, the native engine's oracle.

use crate::consistency_support as support;

use lazysma::consistency::{Execution, MemoryModel, Options, replay, verify_quickly, verify_with};
use proptest::prelude::*;
use support::{
    Rng, Shape, VARIANTS, litmus_shapes, mp_shapes, oracle, random_rf_execution,
    random_run_execution, random_run_ignoring_store_fences, random_shapes, replays,
    without_store_fences,
};

const MODELS: [MemoryModel; 3] = [MemoryModel::Sc, MemoryModel::Tso, MemoryModel::Pso];

/// Checks every algorithm variant against the oracle under every model;
/// returns how many (model) instances were realisable.
fn agree_with_oracle(execution: &Execution) -> Result<usize, TestCaseError> {
    let mut realisable = 0;
    for model in MODELS {
        let expected = oracle(execution, model);
        if let Some(witness) = &expected {
            prop_assert!(
                replays(execution, witness, model).is_ok(),
                "oracle witness must replay"
            );
            realisable += 1;
        }
        for options in VARIANTS {
            let report = verify_with(execution, model, options);
            prop_assert_eq!(
                report.outcome.is_ok(),
                expected.is_some(),
                "{:?} under {} disagrees with the oracle on {:?}",
                options,
                model,
                execution
            );
            if let Ok(witness) = &report.outcome {
                if let Err(error) = replays(execution, witness, model) {
                    return Err(TestCaseError::fail(format!(
                        "{options:?} under {model}: witness does not replay: {error}\n{witness:?}\n{execution:?}"
                    )));
                }
                prop_assert!(replay(execution, witness, model).is_ok());
            }
        }
        let quick = verify_quickly(execution, model);
        prop_assert_eq!(
            quick.is_ok(),
            expected.is_some(),
            "verify_quickly under {} disagrees with the oracle on {:?}",
            model,
            execution
        );
        if let Ok(witness) = &quick {
            prop_assert!(replay(execution, witness, model).is_ok());
        }
    }
    Ok(realisable)
}

/// Program shapes from one of three generators: uniform random, litmus-like
/// (stores then loads: store-load reorderings), message-passing-like
/// (store-store reorderings).
fn shapes(
    generator: usize,
    rng: &mut Rng,
    threads: usize,
    events: usize,
    vars: usize,
    features: bool,
) -> Vec<Vec<Shape>> {
    match generator % 3 {
        0 => random_shapes(rng, threads, events, vars, features),
        1 => litmus_shapes(rng, threads, events, vars, features),
        _ => mp_shapes(rng, threads, events, vars, features),
    }
}

/// 1500 cases per property, or `PROPTEST_CASES` for longer runs.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(1500)
}

/// The largest execution size (15, or `CONSISTENCY_MAX_EVENTS`).
fn max_events() -> usize {
    std::env::var("CONSISTENCY_MAX_EVENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(15)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Arbitrary reads-from maps (mostly unrealisable), with fences, RMWs
    /// and locks.
    #[test]
    fn random_rf_agrees(seed in any::<u64>(), generator in 0usize..3, threads in 2usize..=4, events in 4usize..=max_events(), vars in 1usize..=3) {
        let mut rng = Rng::new(seed);
        let shapes = shapes(generator, &mut rng, threads, events, vars, true);
        let execution = random_rf_execution(&mut rng, &shapes);
        agree_with_oracle(&execution)?;
    }

    /// Reads-from maps of random TSO/PSO/SC runs (realisable under the model
    /// of the run, maybe not under the others).
    #[test]
    fn random_runs_agree(seed in any::<u64>(), generator in 0usize..3, threads in 2usize..=4, events in 4usize..=max_events(), vars in 1usize..=3, model in 0usize..3, features in any::<bool>()) {
        let mut rng = Rng::new(seed);
        let shapes = shapes(generator, &mut rng, threads, events, vars, features);
        if let Some(execution) = random_run_execution(&mut rng, &shapes, MODELS[model]) {
            let realisable = agree_with_oracle(&execution)?;
            prop_assert!(realisable >= 1);
            prop_assert!(verify_with(&execution, MODELS[model], Options::default()).outcome.is_ok());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Reads-from maps of PSO runs that ignore the store-store fences:
    /// realisable without the fences, often not with them.
    #[test]
    fn runs_ignoring_store_fences_agree(seed in any::<u64>(), generator in 0usize..3, threads in 2usize..=4, events in 4usize..=max_events(), vars in 1usize..=3) {
        let mut rng = Rng::new(seed);
        let shapes = shapes(generator, &mut rng, threads, events, vars, true);
        if let Some(execution) = random_run_ignoring_store_fences(&mut rng, &shapes, MemoryModel::Pso) {
            agree_with_oracle(&execution)?;
        }
    }
}

/// The generators reach every interesting class: SC executions, TSO-only
/// (store-load reordering), PSO-only (store-store reordering) and
/// unrealisable ones, with fences, RMWs and locks present.
#[test]
fn generators_cover_every_class() {
    let mut classes = [0usize; 4];
    for seed in 0..1200u64 {
        let mut rng = Rng::new(seed);
        let model = MODELS[(seed % 3) as usize];
        let shapes = shapes(
            seed as usize / 3,
            &mut rng,
            2 + (seed % 3) as usize,
            12,
            2,
            seed % 2 == 0,
        );
        let Some(execution) = random_run_execution(&mut rng, &shapes, model) else {
            continue;
        };
        let realisable = |model| lazysma::consistency::verify(&execution, model).is_ok();
        let class = match (
            realisable(MemoryModel::Sc),
            realisable(MemoryModel::Tso),
            realisable(MemoryModel::Pso),
        ) {
            (true, true, true) => 0,
            (false, true, true) => 1,
            (false, false, true) => 2,
            other => panic!("SC within TSO within PSO violated: {other:?}"),
        };
        classes[class] += 1;
        let unrealisable = random_rf_execution(&mut rng, &shapes);
        if lazysma::consistency::verify(&unrealisable, MemoryModel::Pso).is_err() {
            classes[3] += 1;
        }
    }
    assert!(classes.iter().all(|&count| count >= 10), "{classes:?}");
}

/// Runs that ignore store-store fences often give reads-from maps that only
/// those fences forbid under PSO: the property above tests that case.
#[test]
fn store_fences_forbid_some_runs() {
    let mut forbidden = 0;
    for seed in 0..600u64 {
        let mut rng = Rng::new(seed);
        // Message passing with a store-store fence at a random place
        // among the writer's stores, and a reader of the other order.
        let mut writer = vec![Shape::Write(0), Shape::Write(1), Shape::Write(2)];
        writer.insert(1 + rng.below(2), Shape::StoreFence);
        let shapes = vec![writer, vec![Shape::Read(2), Shape::Read(1), Shape::Read(0)]];
        let Some(execution) = random_run_ignoring_store_fences(&mut rng, &shapes, MemoryModel::Pso)
        else {
            continue;
        };
        assert!(
            lazysma::consistency::verify(&without_store_fences(&execution), MemoryModel::Pso)
                .is_ok()
        );
        if lazysma::consistency::verify(&execution, MemoryModel::Pso).is_err() {
            forbidden += 1;
        }
    }
    assert!(
        forbidden >= 10,
        "only {forbidden} runs are forbidden by their store fences"
    );
}
