//! RF-SMC on several threads (`--jobs N`), with rayon's work stealing.
//! The schedules of one schedule set are independent but for what their
//! calls file into the sets above them (the set itself and those of
//! earlier reads of the calls that hold it), so a set is explored in
//! waves: the schedules pending in it are explored side by side, each by
//! a worker [`Explorer`] that reads the sets above it and keeps what it
//! files there in an [`Above`] of its own; after the wave, their filings
//! go into those sets in the order the sequential search would have made
//! them (the order of the wave, each worker's in its own order), the ones
//! already filed dropped as the sequential search drops them, and what
//! the wave filed into the set itself is the next wave. So each schedule
//! set closes holding the same signatures (sorted events, sources and
//! marks) as in the sequential search, and only the order differs. Where
//! two schedules of one signature differ in the order of their events,
//! the one kept may differ from the sequential search's; the classes
//! explored are the same as long as a schedule's subtree depends only on
//! its signature, which the search's own deduplication assumes too, and
//! which `tests/it/smc_rf_props.rs` (random programs) and
//! `tests/engines/smc_jobs.rs` (the examples, litmus tests and corpus
//! programs: the same counts with one worker and two) check rather than
//! prove. A violation stops the workers after it in the search's order
//! (the sequential search's order with each wave's schedules side by
//! side: [`Above::position`]), those before it go on, and the violation
//! reported is the first in that order, with the counts of the work
//! before it: the same on every run and for any number of workers above
//! one, though it may be another one than the sequential search reports
//! (the verdict is the same).

use super::explore::{Above, Explorer, RfFound, RfStopped, Schedule, ScheduleSet, Shared, Worked};
use super::run::{Abort, INTERNAL};
use crate::smc::search::{Limits, Statistics, Stopped};
use crate::smc::semantics::machine::Machine;
use rayon::prelude::*;

/// The stack of a worker thread: the search recurses once per call, and
/// a worker waiting for a wave runs stolen calls on top of its own.
const WORKER_STACK_BYTES: usize = 256 << 20;

/// Whether a worker ended because another ended the search.
fn cancelled(stopped: &RfStopped) -> bool {
    matches!(stopped, RfStopped::Stopped(Stopped::Cancelled))
}

fn internal(what: String) -> RfStopped {
    RfStopped::Abort(Abort::Fallback(INTERNAL, what))
}

/// RF-SMC on `limits.workers` threads: the answer and the statistics
/// (the sequential search's counts).
pub fn explore(machine: &Machine, limits: &Limits) -> Result<(RfFound, Statistics), RfStopped> {
    super::explore::timed(limits, || {
        let (found, statistics) = search(machine, limits)?;
        Ok((found, statistics, None))
    })
    .map(|(found, statistics, _)| (found, statistics))
}

/// [`explore`] without the time and the progress's phase.
fn search(machine: &Machine, limits: &Limits) -> Result<(RfFound, Statistics), RfStopped> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(limits.workers)
        .stack_size(WORKER_STACK_BYTES)
        .thread_name(|index| format!("rf-smc-{index}"))
        .build()
        .map_err(|error| internal(format!("no worker threads: {error}")))?;
    let shared = Shared::default();
    pool.install(|| {
        let mut explorer = Explorer::new(machine, limits, false);
        explorer.above = Some(Above::top(&shared));
        let found = explorer.call(Schedule::root())?.unwrap_or(RfFound::Safe);
        Ok((found, explorer.statistics))
    })
}

impl<'a> Explorer<'_, 'a> {
    /// A worker below this explorer: it reads this explorer's sets and
    /// those above, and numbers its own after them.
    fn worker(&self, place: usize) -> Explorer<'_, 'a> {
        let above = self.above.as_ref();
        let mut parts: Vec<(usize, &[ScheduleSet])> =
            above.map_or(Vec::new(), |above| above.parts().to_vec());
        parts.push((self.base, &self.sets[..]));
        let mut worker = Explorer::new_like(self);
        worker.base = self.base + self.sets.len();
        worker.above = above.map(|above| above.below(parts, place));
        worker
    }

    /// The schedules of the set `set` explored in waves, each wave's on
    /// the worker threads (see the module's comment).
    pub(super) fn explore_set_in_parallel(
        &mut self,
        set: usize,
    ) -> Result<Option<RfFound>, RfStopped> {
        loop {
            let mut wave = std::mem::take(&mut self.set_mut(set).pending);
            // the order in which the sequential search pops them
            wave.reverse();
            if wave.len() <= 1 {
                let Some(next) = wave.pop() else {
                    return Ok(None);
                };
                if let Some(found) = self.call(next)? {
                    return Ok(Some(found));
                }
                continue;
            }
            let this = &*self;
            let worked: Vec<Worked> = wave
                .into_par_iter()
                .enumerate()
                .map(|(place, schedule)| {
                    let mut worker = this.worker(place);
                    let call = worker.call(schedule);
                    if let Some(above) = &worker.above {
                        match &call {
                            Ok(None) => {}
                            Ok(Some(_)) => above.shared.violation_at(above.position()),
                            // a worker stopped by an earlier violation
                            Err(RfStopped::Stopped(Stopped::Cancelled)) => {}
                            Err(_) => above.shared.stop_all(),
                        }
                    }
                    Worked {
                        call,
                        statistics: worker.statistics,
                        filed: worker.above.map_or(Vec::new(), Above::into_filed),
                    }
                })
                .collect();
            if let Some(above) = &mut self.above {
                above.waves += 1;
            }
            if let Some(found) = self.gather(worked)? {
                return Ok(Some(found));
            }
        }
    }

    /// Adds the workers' counts and files their filings in order; their
    /// first violation, else their first failure, if any.
    fn gather(&mut self, worked: Vec<Worked>) -> Result<Option<RfFound>, RfStopped> {
        let mut found = None;
        let mut failure: Option<RfStopped> = None;
        let mut filings = Vec::new();
        for each in worked {
            if found.is_some() {
                // after the first violation in the search's order: what
                // the workers did before they stopped is not counted, so
                // the counts are the same on every run
                break;
            }
            self.statistics.add(&each.statistics);
            match each.call {
                Ok(Some(violation)) => {
                    found = found.or(Some(violation));
                }
                Ok(None) => filings.push(each.filed),
                // a worker stopped by another's end says less than that end
                Err(error) => {
                    let keep = failure
                        .as_ref()
                        .is_none_or(|kept| cancelled(kept) && !cancelled(&error));
                    if keep {
                        failure = Some(error);
                    }
                }
            }
        }
        if let Some(found) = found {
            return Ok(Some(found));
        }
        if let Some(failure) = failure {
            return Err(failure);
        }
        for filing in filings.into_iter().flatten() {
            if self.note(filing.set, &filing.signature)? {
                self.file(filing.set, filing.signature, filing.schedule);
            }
        }
        Ok(None)
    }
}
