//! The native engine's estimate of the number of reads-from classes
//! (random probes of RF-SMC's schedules, `smc::rf::probe`) against the
//! number RF-SMC explores, on programs whose search ends safe (so that it
//! explores every class). The probes estimate the size of a tree that has
//! at least the classes RF-SMC explores (a probe does not see that a
//! sibling proposed the same schedule first), so the average of many
//! probes is not far below the count, and above it by at most the factor
//! `docs/native-engine.md` gives.

use crate::smc_rf::{limits, prepare, reads_from};
use crate::support;
use lazysma::smc::estimate::Budget;
use lazysma::smc::search::ClassEstimate;
use lazysma::smc::{self, Answer};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The classes RF-SMC explores in a safe search of `path`.
fn explored(path: &Path, model: &str) -> (smc::Prepared, usize) {
    let prepared = prepare(path, model, 2);
    match reads_from(&prepared) {
        Ok(Answer::Safe(statistics, _)) => (prepared, statistics.reads_from_classes),
        other => panic!("{} under {model}: not safe: {other:?}", path.display()),
    }
}

fn estimate(prepared: &smc::Prepared, probes: usize, seed: u64) -> ClassEstimate {
    let budget = Budget {
        probes,
        time: Duration::from_secs(600),
    };
    smc::estimate_classes(prepared, &limits(), budget, seed).expect("the probes finish")
}

/// The average of `probes` probes against the classes explored: at
/// least `low` times and at most `high` times as many.
fn near(path: &Path, model: &str, probes: usize, (low, high): (f64, f64)) {
    let (prepared, classes) = explored(path, model);
    let estimate = estimate(&prepared, probes, 1);
    assert_eq!(estimate.probes, probes, "every probe finished");
    let ratio = estimate.classes as f64 / classes as f64;
    assert!(
        (low..=high).contains(&ratio),
        "{} under {model}: {classes} classes, estimate {} from {probes} probes",
        path.display(),
        estimate.classes
    );
}

#[test]
fn probes_of_small_programs_estimate_their_classes() {
    for (name, model) in [
        ("spinlock.c", "tso"),
        ("message_passing.c", "tso"),
        ("mutex_publish.c", "pso"),
        ("dekker.c", "sc"),
    ] {
        near(
            &repository().join("examples").join(name),
            model,
            400,
            (0.8, 2.0),
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_estimate_and_another_may_not() {
    let path = repository().join("examples/dekker.c");
    let (prepared, _) = explored(&path, "sc");
    let figures = |estimate: ClassEstimate| (estimate.classes, estimate.probes);
    assert_eq!(
        figures(estimate(&prepared, 8, 3)),
        figures(estimate(&prepared, 8, 3))
    );
    let seeds: Vec<u64> = (0..6)
        .map(|seed| estimate(&prepared, 2, seed).classes)
        .collect();
    assert!(
        seeds.iter().any(|&classes| classes != seeds[0]),
        "probes from other seeds take other paths: {seeds:?}"
    );
}

/// A program of about ten thousand classes (about a minute): the
/// estimate is an upper bound within the factor the documentation gives.
#[test]
fn probes_of_a_large_program_bound_its_classes() {
    if !support::full_tier() {
        return;
    }
    let path = repository().join("tests/fixtures/progress/three_writers.c");
    near(&path, "tso", 500, (1.0, 20.0));
}
