//! Accesses at computed addresses into arrays of any size, end to end: the
//! program of `tests/fixtures/arrays/computed_index.c`, for array sizes on
//! both sides of the largest object the printer dispatches over (64
//! scalars), global and local, with a constant or nondeterministic index, a
//! read or a write, fails its assertion under SC, TSO and PSO with every
//! shared memory abstraction, and its safe variant verifies: an in-bounds
//! access never cuts an execution off.

use crate::support;

use std::path::{Path, PathBuf};
use support::{Verdict, parallel_map, require_cbmc, verify, workers};

/// The fixture, its expectations in its opening comment.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/arrays/computed_index.c")
}

/// One `lazysma verify` run: the array's size, the fixture's variant
/// macros, the model and SMA arguments, and the verdict expected.
#[derive(Debug, Clone)]
struct Run {
    size: u32,
    variant: Vec<&'static str>,
    model: Vec<&'static str>,
    expected: Verdict,
}

/// Sizes swept: one element, either side of the dispatch limit, and large.
const SIZES: [u32; 6] = [1, 63, 64, 65, 128, 4096];

/// The models, and the reference SMAs beside the default ones (the
/// reference SMAs only up to [`LARGEST_WITH_EVERY_SMA`]).
const MODELS: [&[&str]; 5] = [
    &["--sc"],
    &["--tso"],
    &["--pso"],
    &["--tso", "--sma", "tso-ref"],
    &["--pso", "--sma", "pso-ref"],
];

/// Largest array size run with the reference SMAs too; past it, the default
/// SMAs of SC, TSO and PSO (each large run takes CBMC seconds).
const LARGEST_WITH_EVERY_SMA: u32 = 128;

/// The models and SMAs an array of `size` runs under.
fn models(size: u32) -> impl Iterator<Item = &'static [&'static str]> {
    let every = size <= LARGEST_WITH_EVERY_SMA;
    MODELS
        .into_iter()
        .filter(move |model| every || !model.contains(&"--sma"))
}

/// The unsafe runs: every size, place, index and access under every model
/// (a local array of 4096 elements is left out: CBMC spends minutes on its
/// 4096 initialising stores, whatever the access).
fn unsafe_runs() -> Vec<Run> {
    let mut runs = Vec::new();
    for size in SIZES {
        for local in [false, true] {
            if local && size > LARGEST_WITH_EVERY_SMA {
                continue;
            }
            for nondet in [false, true] {
                for read in [false, true] {
                    let variant: Vec<&'static str> = [
                        local.then_some("-DLOCAL"),
                        nondet.then_some("-DNONDET"),
                        read.then_some("-DREAD"),
                    ]
                    .into_iter()
                    .flatten()
                    .collect();
                    for model in models(size) {
                        runs.push(Run {
                            size,
                            variant: variant.clone(),
                            model: model.to_vec(),
                            expected: Verdict::Unsafe,
                        });
                    }
                }
            }
        }
    }
    runs
}

/// The safe runs: around the limit, each access and index kind, global and
/// local, under every model (a safe verdict on an array of thousands of
/// elements takes CBMC minutes).
fn safe_runs() -> Vec<Run> {
    let variants: [&[&'static str]; 3] = [
        &["-DSAFE"],
        &["-DSAFE", "-DREAD", "-DNONDET"],
        &["-DSAFE", "-DLOCAL", "-DREAD"],
    ];
    let mut runs = Vec::new();
    for size in [64, 65, 128] {
        for variant in variants {
            if variant.contains(&"-DLOCAL") && size > LARGEST_WITH_EVERY_SMA {
                continue;
            }
            for model in models(size) {
                runs.push(Run {
                    size,
                    variant: variant.to_vec(),
                    model: model.to_vec(),
                    expected: Verdict::Safe,
                });
            }
        }
    }
    runs
}

/// The runs of a tier: every model and SMA of every array size and variant
/// in the full tier (`LAZYSMA_FULL=1`); in the default tier one of them
/// per size and variant, a different one from one variant to the next, so
/// that every model and SMA still meets each size and access kind.
fn tiered(runs: Vec<Run>) -> Vec<Run> {
    if support::full_tier() {
        return runs;
    }
    let mut groups: Vec<Vec<Run>> = Vec::new();
    for run in runs {
        match groups.last_mut() {
            Some(group) if group[0].size == run.size && group[0].variant == run.variant => {
                group.push(run)
            }
            _ => groups.push(vec![run]),
        }
    }
    groups
        .into_iter()
        .enumerate()
        .map(|(index, mut group)| group.swap_remove(index % group.len()))
        .collect()
}

/// The runs whose exit code is not the expected verdict's, described.
fn failures(runs: &[Run]) -> Vec<String> {
    let program = fixture();
    let outcomes = parallel_map(runs, workers(), |run| {
        let size = format!("-DSIZE={}", run.size);
        let mut arguments = vec![size.as_str()];
        arguments.extend(&run.variant);
        arguments.extend(&run.model);
        arguments.extend(["--timeout", "300"]);
        let (code, stdout, stderr) = verify(&program, &arguments);
        (code != run.expected.exit_code()).then(|| {
            format!(
                "{} expected {:?}, exit {code}\n{stdout}{stderr}",
                arguments.join(" "),
                run.expected
            )
        })
    });
    outcomes.into_iter().flatten().collect()
}

#[test]
fn a_computed_index_into_an_array_of_any_size_reaches_its_element() {
    if !require_cbmc() {
        return;
    }
    let failed = failures(&tiered(unsafe_runs()));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn an_in_bounds_computed_index_raises_no_alarm() {
    if !require_cbmc() {
        return;
    }
    let failed = failures(&tiered(safe_runs()));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
