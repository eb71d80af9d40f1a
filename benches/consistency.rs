//! Benchmark (not a test): VerifyTSO vs NaiveVerifyTSO and VerifyPSO vs
//! NaiveVerifyPSO, with and without closure, on growing random executions.
//! Run with `cargo bench --bench consistency` (optionally `-- quick`);
//! prints a Markdown table of total times and naive/verify ratios.

#[path = "../tests/consistency_support/mod.rs"]
mod support;

use lazysma::consistency::{
    Algorithm, EventSpec, Execution, MemoryModel, Options, RfSpec, verify_with,
};
use std::time::{Duration, Instant};
use support::{Rng, Shape, op_spec, random_run_execution, rf_spec};

/// Executions per table cell.
const SAMPLES: usize = 12;
/// Timed runs per cell; the fastest counts.
const REPEAT: usize = 5;
/// A variant slower than this on a cell is not run on larger cells.
const BUDGET: Duration = Duration::from_secs(10);

/// Realisable executions (from random runs of `model`) and unrealisable ones
/// (one read of such a run redirected to another write or the initial value).
fn instances(
    model: MemoryModel,
    threads: usize,
    events: usize,
    realisable: bool,
    seed: u64,
) -> Vec<Execution> {
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    let mut attempts = 0;
    while found.len() < SAMPLES && attempts < SAMPLES * 200 {
        attempts += 1;
        let shapes = fixed_shapes(&mut rng, threads, events / threads, 2);
        let Some(execution) = random_run_execution(&mut rng, &shapes, model) else {
            continue;
        };
        if realisable {
            found.push(execution);
        } else if let Some(mutant) = redirect_one_read(&execution, &mut rng)
            && verify_with(&mutant, model, Options::default())
                .outcome
                .is_err()
        {
            found.push(mutant);
        }
    }
    found
}

/// `threads` threads of exactly `length` writes (40%), reads (50%) and
/// fences (10%) over `vars` variables.
fn fixed_shapes(rng: &mut Rng, threads: usize, length: usize, vars: usize) -> Vec<Vec<Shape>> {
    (0..threads)
        .map(|_| {
            (0..length)
                .map(|_| match rng.below(10) {
                    0..=3 => Shape::Write(rng.below(vars)),
                    4..=8 => Shape::Read(rng.below(vars)),
                    _ => Shape::Fence,
                })
                .collect()
        })
        .collect()
}

fn redirect_one_read(execution: &Execution, rng: &mut Rng) -> Option<Execution> {
    let reads: Vec<usize> = (0..execution.events().len())
        .filter(|&e| execution.event(e).op.rf().is_some())
        .collect();
    let target = *reads.get(rng.below(reads.len()))?;
    let var = execution.event(target).op.var()?;
    let writers: Vec<String> = execution
        .events()
        .iter()
        .filter(|e| {
            e.op.is_writer() && e.op.var() == Some(var) && e.id != execution.event(target).id
        })
        .map(|e| e.id.clone())
        .collect();
    let choice = rng.below(writers.len() + 1);
    let rf = writers
        .get(choice)
        .map_or(RfSpec::Init, |w| RfSpec::Event(w.clone()));
    let threads = execution
        .threads()
        .iter()
        .map(|events| {
            events
                .iter()
                .map(|&e| {
                    let reads_from = if e == target {
                        rf.clone()
                    } else {
                        rf_spec(execution, e)
                    };
                    EventSpec::new(
                        execution.event(e).id.clone(),
                        op_spec(execution, e, reads_from),
                    )
                })
                .collect()
        })
        .collect();
    Execution::new(threads).ok()
}

/// Total time of one variant on a set of executions, the best of
/// `REPEAT` runs (the machine is shared); checks the verdicts.
fn time(
    executions: &[Execution],
    model: MemoryModel,
    options: Options,
    expected: bool,
) -> Duration {
    (0..REPEAT)
        .map(|_| {
            let start = Instant::now();
            for execution in executions {
                let report = verify_with(execution, model, options);
                assert_eq!(
                    report.outcome.is_ok(),
                    expected,
                    "{options:?} under {model} disagrees"
                );
            }
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn millis(duration: Option<Duration>) -> String {
    duration.map_or_else(
        || "skipped".into(),
        |d| format!("{:.2}", d.as_secs_f64() * 1000.0),
    )
}

fn ratio(naive: Option<Duration>, fast: Option<Duration>) -> String {
    match (naive, fast) {
        (Some(naive), Some(fast)) => {
            format!("{:.1}x", naive.as_secs_f64() / fast.as_secs_f64().max(1e-9))
        }
        _ => "-".into(),
    }
}

fn main() {
    let quick = std::env::args().any(|arg| arg == "quick");
    let sizes: &[(usize, usize)] = if quick {
        &[(2, 8), (3, 12), (4, 16)]
    } else {
        &[
            (2, 8),
            (2, 16),
            (2, 32),
            (2, 48),
            (3, 12),
            (3, 24),
            (3, 36),
            (4, 16),
            (4, 24),
            (4, 32),
            (4, 40),
        ]
    };
    let variants = [
        Options {
            algorithm: Algorithm::Verify,
            closure: true,
        },
        Options {
            algorithm: Algorithm::Naive,
            closure: true,
        },
        Options {
            algorithm: Algorithm::Verify,
            closure: false,
        },
        Options {
            algorithm: Algorithm::Naive,
            closure: false,
        },
    ];
    println!(
        "| model | threads | events | realisable | n | Verify+closure ms | Naive+closure ms | ratio | Verify ms | Naive ms | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for model in [MemoryModel::Tso, MemoryModel::Pso] {
        for realisable in [true, false] {
            let mut over_budget = [false; 4];
            for (i, &(threads, events)) in sizes.iter().enumerate() {
                let executions = instances(model, threads, events, realisable, 1000 + i as u64);
                let mut times = [None; 4];
                for (slot, options) in variants.iter().enumerate() {
                    if over_budget[slot] {
                        continue;
                    }
                    let elapsed = time(&executions, model, *options, realisable);
                    over_budget[slot] = elapsed > BUDGET;
                    times[slot] = Some(elapsed);
                }
                println!(
                    "| {} | {threads} | {events} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    model.name(),
                    if realisable { "yes" } else { "no" },
                    executions.len(),
                    millis(times[0]),
                    millis(times[1]),
                    ratio(times[1], times[0]),
                    millis(times[2]),
                    millis(times[3]),
                    ratio(times[3], times[2]),
                );
            }
        }
    }
}
