//! The estimate of how many reads-from classes RF-SMC will explore, made
//! before it searches: random probes ([`crate::smc::estimate`], Knuth's
//! estimator) of the tree in which each class's children are the
//! schedules its call files (every schedule filed is explored once, as a
//! class of its own, so that tree has one node per class). A probe
//! expands a schedule as the search does (`Explorer::expand`: replay,
//! maximal extension, the mutations of its unmarked reads checked by the
//! oracle), picks one of the schedules it filed uniformly, and goes on
//! from there until a schedule files none or reaches a violation. A probe
//! drops a schedule only when its own path proposed it before, where the
//! search also drops one a sibling proposed first: the tree the probes
//! sample has every class the search explores and more (the same class
//! reached from several siblings), so the estimate is an unbiased
//! estimate of an upper bound, high where siblings propose the same
//! schedules (by a factor of about 9 on a program of ten thousand
//! classes, `tests/it/smc_estimate.rs`). Bounded by [`PROBES`] probes
//! and [`PROBE_TIME`], from a fixed seed: the same program gives the same
//! estimate when every probe finishes in time.

use super::explore::{Expanded, Explorer, RfStopped, Schedule};
use crate::smc::estimate::{Budget, Rng, average, probe};
use crate::smc::progress::Phase;
use crate::smc::search::{ClassEstimate, Limits};
use crate::smc::semantics::machine::Machine;
use std::time::{Duration, Instant};

/// The most probes an estimate makes.
pub const PROBES: usize = 32;

/// The most time the probes take together (a probe started before it
/// ends is finished).
pub const PROBE_TIME: Duration = Duration::from_millis(100);

/// The seed of the probes' choices.
const SEED: u64 = 0x5EED_0FC1_A55E_5EED;

/// The estimated number of reads-from classes of `machine`'s program;
/// `None` when no probe finished (the search was stopped, or a probe met
/// what RF-SMC does not handle, which the search itself then reports).
pub fn estimate(machine: &Machine, limits: &Limits) -> Option<ClassEstimate> {
    let budget = Budget {
        probes: PROBES,
        time: PROBE_TIME,
    };
    estimate_within(machine, limits, budget, SEED)
}

/// [`estimate`] with another budget and seed (tests measure it with many
/// probes).
pub fn estimate_within(
    machine: &Machine,
    limits: &Limits,
    budget: Budget,
    seed: u64,
) -> Option<ClassEstimate> {
    let started = Instant::now();
    // a count of checks of its own, so that the search's first check
    // still reads the resident memory
    let limits = &Limits {
        checks: Default::default(),
        ..limits.clone()
    };
    if let Some(progress) = &limits.progress {
        progress.enter(Phase::Estimating);
    }
    let go_on = || limits.check().is_ok();
    let mut sum = 0.0;
    let one_probe = |rng: &mut Rng, done: usize| {
        let mut explorer = Explorer::new(machine, limits, true);
        let found = probe(
            Schedule::root(),
            rng,
            |schedule| children(&mut explorer, schedule),
            &go_on,
        );
        if let (Ok(Some(nodes)), Some(progress)) = (&found, &limits.progress) {
            sum += nodes;
            let probes = done + 1;
            progress.set_estimate(probes, Some(rounded(sum / probes as f64)));
        }
        found
    };
    let estimate = average(budget, one_probe, seed)?;
    Some(ClassEstimate {
        classes: rounded(estimate.nodes),
        probes: estimate.probes,
        milliseconds: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// The schedules expanding `schedule` files: none when it reaches a
/// violation.
fn children(explorer: &mut Explorer, schedule: Schedule) -> Result<Vec<Schedule>, RfStopped> {
    match explorer.expand(schedule)? {
        Expanded::Found(_) => Ok(Vec::new()),
        Expanded::Extended { .. } => Ok(explorer.take_pending()),
    }
}

/// An estimate as a whole number of classes, at least one.
fn rounded(nodes: f64) -> u64 {
    if nodes.is_finite() && nodes >= 1.0 {
        nodes.round() as u64
    } else if nodes.is_finite() {
        1
    } else {
        u64::MAX
    }
}
