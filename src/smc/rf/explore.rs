//! Reads-from stateless model checking, RF-SMC (Bui et al., OOPSLA 2021,
//! sec. 5, Algorithm 3 with Remark 1), over the native machine: each call
//! replays a witness of its schedule, extends it maximally, proposes the
//! mutations of its unmarked reads, keeps those the consistency check
//! realises (and that no sibling proposed before) in the schedule set of
//! the mutated read's prefix, and explores the sets of its extension's
//! reads, last read first. Atomic events (RMWs, locks) of any number of
//! threads on one location are ordered every way: besides Remark 1's
//! reversal, a mutation that makes an atomic event read a write another
//! atomic event already reads moves it into that chain (see
//! `mutation.rs`). Every reads-from class of the program's executions is
//! explored; the property tests find each explored once, but with such
//! chains that is checked, not proven (a class explored twice would cost
//! time, not a verdict). A violation comes back with its machine path.
//! A move's nondeterministic values are part of its event: the other
//! values of a choice the search left free become schedules like a read's
//! other sources (`choice.rs`).

use super::event::{Chosen, Event, Key, Source};
use super::mutation::{Mutation, Trace};
use super::oracle::{TraceCoherence, Verdict, witness, witness_ordered};
use super::run::{Abort, INTERNAL, Ran, Runner, Simulated, WStep, simulate};
use super::split;
use crate::options::MemoryModel;
use crate::smc::progress::Phase;
use crate::smc::search::{Limits, NOT_ROBUST, PathStep, SearchKind, Statistics, Stopped, rate};
use crate::smc::semantics::machine::{Machine, State, Violation};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Why RF-SMC ended without an answer.
#[derive(Debug, Clone)]
pub enum RfStopped {
    Abort(Abort),
    Stopped(Stopped),
}

impl From<Abort> for RfStopped {
    fn from(abort: Abort) -> Self {
        RfStopped::Abort(abort)
    }
}

/// The description of a non-robust execution's violation.
pub const NOT_ROBUST_DESCRIPTION: &str =
    "the reads-from of this execution is one no sequentially consistent execution has";

/// What RF-SMC found.
#[derive(Debug, Clone)]
pub enum RfFound {
    Safe,
    Violation {
        violation: Violation,
        path: Vec<PathStep>,
    },
}

/// A schedule (τ', RF', σ', mrk') of Algorithm 3.
pub(super) struct Schedule {
    /// τ' with each read's source: RF'.
    events: Vec<Event>,
    /// The schedule set of each event's prefix, by key.
    sets: FxHashMap<Key, usize>,
    marked: FxHashSet<Key>,
    /// σ' as machine steps.
    witness: Vec<WStep>,
    /// The events whose reads were mutated (two for a reversal), or whose
    /// choices were changed.
    mutated: Vec<Key>,
    /// The schedule set it was filed in (none for the root): where the
    /// other values of its events' free choices go.
    pub(super) set: Option<usize>,
}

/// A schedule up to the order of τ': its events with their sources, the
/// values of their choices and how many of them are fixed, and its marks.
pub(super) type Signature = (Vec<(Key, Option<Source>, Vec<i64>, usize)>, Vec<Key>);

/// The schedules proposed for one prefix.
#[derive(Default)]
pub(super) struct ScheduleSet {
    pub(super) pending: Vec<Schedule>,
    /// Every (τ', RF') proposed, realisable or not, as sorted events with
    /// their sources, and the marked reads.
    pub(super) seen: FxHashSet<Signature>,
    pub(super) closed: bool,
}

pub(super) struct Explorer<'m, 'a> {
    pub(super) machine: &'m Machine<'a>,
    pub(super) limits: &'m Limits,
    pub(super) threads: usize,
    pub(super) initial: crate::smc::semantics::cells::Cells,
    /// The schedule sets of this explorer, numbered from `base`.
    pub(super) sets: Vec<ScheduleSet>,
    /// The number of the first of `sets`: a worker of the parallel search
    /// numbers its own sets after those of the explorers above it.
    pub(super) base: usize,
    /// In a worker of the parallel search: the sets above it and what it
    /// files into them (`parallel.rs`).
    pub(super) above: Option<Above<'m>>,
    pub(super) statistics: Statistics,
    /// The final memory of each complete execution, when collected.
    finals: Option<Vec<Vec<i64>>>,
    /// A probe of the estimate (`probe.rs`) expands one schedule at a
    /// time: a realisable violation is filed like any schedule, not
    /// explored at once.
    probing: bool,
    /// Some run watched a plain global for races (`super::order`): the
    /// explicit search, whose moves run a thread's private prefix with
    /// its first visible statement, must not answer for RF-SMC then.
    pub(super) plain_watched: bool,
    /// The schedules proposed for other values of choices: each is a
    /// class waiting to be explored, bounded like the classes.
    pub(super) choice_schedules: usize,
}

/// Why RF-SMC stops for [`Limits::section_budget`] in a program with
/// atomic sections: their lock orders every two sections (and accesses
/// wrapped in one) even where they touch different locations, and the
/// explicit search, whose stored states fold those orders, often answers
/// in a fraction of RF-SMC's time.
pub const SECTION_BUDGET: &str = "a search this large with atomic sections";

/// The reads-from classes RF-SMC explores in a program with atomic
/// sections before the explicit search answers first
/// ([`Limits::section_budget`]). When that search stops at its state
/// limit, RF-SMC runs again without the budget.
pub const SECTION_CLASSES: usize = 20;

pub(super) type Call = Result<Option<RfFound>, RfStopped>;

/// One schedule expanded: a violation, or its extension's events (in
/// order) with the schedule set of each of its mutable reads.
pub(super) enum Expanded {
    Found(RfFound),
    Extended {
        extension: Vec<Key>,
        sets: FxHashMap<Key, usize>,
    },
}

/// A run of `machine` for a search within `limits` (its part of a split
/// search).
fn runner<'m, 'a>(machine: &'m Machine<'a>, limits: &Limits) -> Runner<'m, 'a> {
    let mut runner = Runner::new(machine);
    runner.split = limits.split;
    runner
}

pub(super) fn diverged(what: String) -> RfStopped {
    RfStopped::Abort(Abort::Fallback(
        INTERNAL,
        format!("the replay diverged: {what}"),
    ))
}

/// Runs RF-SMC on `machine`.
pub fn explore(machine: &Machine, limits: &Limits) -> Result<(RfFound, Statistics), RfStopped> {
    explore_collecting(machine, limits, false).map(|(found, statistics, _)| (found, statistics))
}

/// [`explore`], also giving the final memory of each complete execution
/// it explored when `collect` is set (for tests).
pub fn explore_collecting(
    machine: &Machine,
    limits: &Limits,
    collect: bool,
) -> Result<(RfFound, Statistics, Vec<Vec<i64>>), RfStopped> {
    timed(limits, || {
        let mut explorer = Explorer::new(machine, limits, false);
        explorer.finals = collect.then(Vec::new);
        let found = explorer.call(Schedule::root())?.unwrap_or(RfFound::Safe);
        Ok((found, explorer.statistics, explorer.finals))
    })
    .map(|(found, statistics, finals)| (found, statistics, finals.unwrap_or_default()))
}

/// What a search gives: the answer, its counts and the final memories
/// it collected, if asked to.
type Searched = (RfFound, Statistics, Option<Vec<Vec<i64>>>);

/// Runs `search` in the phase of RF-SMC and sets the time and rate of
/// its statistics.
pub(super) fn timed(
    limits: &Limits,
    search: impl FnOnce() -> Result<Searched, RfStopped>,
) -> Result<Searched, RfStopped> {
    if let Some(progress) = &limits.progress {
        progress.enter(Phase::ReadsFrom);
    }
    let started = Instant::now();
    let (found, mut statistics, finals) = search()?;
    statistics.milliseconds = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    statistics.per_second = rate(statistics.reads_from_classes, started.elapsed());
    if let Some(progress) = &limits.progress {
        progress.set_classes(statistics.reads_from_classes);
    }
    Ok((found, statistics, finals))
}

impl Schedule {
    /// The empty schedule the search starts from.
    pub(super) fn root() -> Self {
        Schedule {
            events: Vec::new(),
            sets: FxHashMap::default(),
            marked: FxHashSet::default(),
            witness: Vec::new(),
            mutated: Vec::new(),
            set: None,
        }
    }
}

impl<'m, 'a> Explorer<'m, 'a> {
    /// An explorer of `machine` with no schedule set yet.
    pub(super) fn new(machine: &'m Machine<'a>, limits: &'m Limits, probing: bool) -> Self {
        let initial = machine.initial(false);
        Self::starting(
            machine,
            limits,
            initial.threads.len(),
            initial.memory,
            probing,
        )
    }

    /// An explorer of the same machine and limits as `other`, with no
    /// schedule set yet (a worker of the parallel search).
    pub(super) fn new_like(other: &Explorer<'m, 'a>) -> Self {
        let initial = other.initial.clone();
        Self::starting(other.machine, other.limits, other.threads, initial, false)
    }

    /// An explorer of `machine` whose `threads` start from the memory
    /// `initial`, with no schedule set and no statistics yet.
    fn starting(
        machine: &'m Machine<'a>,
        limits: &'m Limits,
        threads: usize,
        initial: crate::smc::semantics::cells::Cells,
        probing: bool,
    ) -> Self {
        Explorer {
            machine,
            limits,
            threads,
            initial,
            sets: Vec::new(),
            base: 0,
            above: None,
            statistics: Statistics {
                search: SearchKind::RfSmc,
                ..Statistics::default()
            },
            finals: None,
            probing,
            plain_watched: false,
            choice_schedules: 0,
        }
    }

    /// The schedules filed since the sets were last taken from, out of
    /// their sets (a probe's children).
    pub(super) fn take_pending(&mut self) -> Vec<Schedule> {
        self.sets
            .iter_mut()
            .flat_map(|set| set.pending.drain(..))
            .collect()
    }
}

impl Explorer<'_, '_> {
    fn check_limits(&self) -> Result<(), RfStopped> {
        let stopped = |why| Err(RfStopped::Stopped(why));
        // the whole search's counts, when workers share it
        let classes = match &self.above {
            Some(above) => above.shared.classes(&above.position())?,
            None => self.statistics.reads_from_classes,
        };
        if let Some(limit) = self.limits.max_classes.filter(|&limit| classes > limit) {
            return stopped(Stopped::TooManyStates(limit));
        }
        let watched = match &self.above {
            Some(above) => above.shared.watched(self.plain_watched),
            None => self.plain_watched,
        };
        let sections = (self.machine.sections.as_ref()).is_some_and(|lock| lock.user_sections);
        let budget = self.limits.section_budget.filter(|_| sections && !watched);
        if let Some(budget) = budget.filter(|&budget| classes > budget) {
            return Err(RfStopped::Abort(Abort::Fallback(
                SECTION_BUDGET,
                format!("more than {budget} reads-from classes"),
            )));
        }
        self.limits.check().map_err(RfStopped::Stopped)
    }

    /// Replays the witness of `schedule`, checking each event against it.
    fn replay(&self, runner: &mut Runner, schedule: &Schedule) -> Call {
        let expected: FxHashMap<Key, &Event> = schedule.events.iter().map(|e| (e.key, e)).collect();
        runner.forced = schedule
            .events
            .iter()
            .filter(|event| event.forced > 0)
            .map(|event| (event.key, event.choice_values()[..event.forced].to_vec()))
            .collect();
        for step in &schedule.witness {
            match *step {
                WStep::Run(key) => {
                    if runner.next[key.thread] != key.index {
                        return Err(diverged(format!("{key:?} out of program order")));
                    }
                    match runner.run_move(key.thread)? {
                        Ran::Event(event) => {
                            let same = expected.get(&key).is_some_and(|wanted| {
                                wanted.access == event.access
                                    && wanted.source == event.source
                                    && wanted.blocked == event.blocked
                                    && wanted.chosen == event.chosen
                            });
                            if !same {
                                return Err(diverged(format!(
                                    "{event:?} instead of {:?}",
                                    expected.get(&key)
                                )));
                            }
                        }
                        Ran::Violated(violation) => {
                            return Ok(Some(RfFound::Violation {
                                violation,
                                path: std::mem::take(&mut runner.path),
                            }));
                        }
                        Ran::Stopped | Ran::Disabled => {
                            return Err(diverged(format!("{key:?} did not happen")));
                        }
                    }
                }
                WStep::Flush(key) => runner.flush_event(key)?,
                WStep::Blocked(key) => {
                    let wanted = expected.get(&key).copied();
                    let location = wanted.and_then(|e| e.access.read_location());
                    let Some(location) = location else {
                        return Err(diverged(format!("{key:?} is no lock")));
                    };
                    let event = runner.block_on_lock(key.thread, location)?;
                    if Some(event.source) != wanted.map(|e| e.source) {
                        return Err(diverged(format!("{key:?} reads another lock")));
                    }
                }
            }
        }
        if runner.events.len() != schedule.events.len() {
            return Err(diverged("the witness misses events".into()));
        }
        Ok(None)
    }

    /// One call of Algorithm 3: the schedule expanded, then the schedule
    /// sets of its extension's reads explored, last read first.
    pub(super) fn call(&mut self, schedule: Schedule) -> Call {
        let (extension, sets) = match self.expand(schedule)? {
            Expanded::Found(found) => return Ok(Some(found)),
            Expanded::Extended { extension, sets } => (extension, sets),
        };
        for key in extension.iter().rev() {
            let Some(&set) = sets.get(key) else {
                continue;
            };
            let found = if self.above.is_some() {
                self.explore_set_in_parallel(set)?
            } else {
                self.explore_set(set)?
            };
            if found.is_some() {
                return Ok(found);
            }
            *self.set_mut(set) = ScheduleSet {
                closed: true,
                ..ScheduleSet::default()
            };
        }
        Ok(None)
    }

    /// The schedules of the set `set` explored one after the other, each
    /// schedule filed meanwhile too.
    fn explore_set(&mut self, set: usize) -> Call {
        while let Some(next) = self.set_mut(set).pending.pop() {
            if let Some(found) = self.call(next)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// This explorer's own set numbered `set`.
    pub(super) fn set_mut(&mut self, set: usize) -> &mut ScheduleSet {
        &mut self.sets[set - self.base]
    }

    /// Lines 1-21 of one call: replays the schedule, extends it maximally
    /// and files the mutations of its unmarked reads in their sets.
    pub(super) fn expand(&mut self, schedule: Schedule) -> Result<Expanded, RfStopped> {
        self.check_limits()?;
        self.statistics.reads_from_classes += 1;
        let classes = match &self.above {
            Some(above) => above.shared.count_class(),
            None => self.statistics.reads_from_classes,
        };
        if let Some(progress) = &self.limits.progress {
            // a call replays and extends a whole execution: one relaxed
            // store beside it costs nothing measurable
            progress.set_classes(classes);
        }
        let mut runner = runner(self.machine, self.limits);
        if let Some(found) = self.replay(&mut runner, &schedule)? {
            return Ok(Expanded::Found(found));
        }
        let start = runner.events.len();
        let violation = runner.extend();
        self.plain_watched |= runner.plain_watched;
        let violation = violation?;
        self.statistics.events += runner.events.len();
        self.statistics.moves += runner.moves;
        if let Some(violation) = violation {
            return Ok(Expanded::Found(RfFound::Violation {
                violation,
                path: runner.path,
            }));
        }
        let owned = !runner.left_part && split::owned(self.limits.split, &runner.events);
        let deadlock = (!runner.left_part && runner.blocked())
            .then(|| runner.deadlock())
            .transpose()?
            .flatten();
        if !owned {
            self.statistics.reads_from_classes -= 1;
            self.statistics.other_part_executions += 1;
        }
        if let Some((violation, path)) = deadlock {
            if owned {
                self.statistics.blocked_executions += 1;
                self.statistics.deadlocked_executions += 1;
            }
            if self.limits.deadlocks {
                return Ok(Expanded::Found(RfFound::Violation { violation, path }));
            }
        } else if !owned {
            // counted in its own part
        } else if runner.spins_too_early() {
            self.statistics.awaiting_executions += 1;
        } else if runner.blocked() || runner.stopped.iter().any(|&stopped| stopped) {
            self.statistics.blocked_executions += 1;
        } else {
            self.statistics.complete_executions += 1;
            if let Some(finals) = self.finals.as_mut() {
                let mut memory = runner.state.memory.to_vec();
                // the section lock's location is the machine's own
                memory.truncate(self.machine.locations as usize);
                finals.push(memory);
            }
        }
        // τ̃ = τ ∘ the extension's events; τ's values as the replay
        // computed them (a simulation saw only its own event)
        let replayed: FxHashMap<Key, &Event> = runner.events[..start]
            .iter()
            .map(|event| (event.key, event))
            .collect();
        let mut events: Vec<Event> = schedule
            .events
            .into_iter()
            .map(|event| replayed.get(&event.key).map_or(event, |&run| run.clone()))
            .collect();
        events.extend(runner.events.drain(start..));
        let trace = Trace::new(events, start, schedule.mutated);
        if self.limits.robustness
            && runner.feasible()?
            && let Some(found) = self.not_robust(&trace.events, &runner.path)?
        {
            return Ok(Expanded::Found(found));
        }
        let races = std::mem::take(&mut runner.heap_races);
        if let Some(found) = self.use_after_free(&trace.events, &races)? {
            return Ok(Expanded::Found(found));
        }
        let mut sets = schedule.sets;
        for event in &trace.events[start..] {
            if event.is_mutable_read() || event.has_free_choices() {
                sets.insert(event.key, self.base + self.sets.len());
                self.sets.push(ScheduleSet::default());
            }
        }
        let context = Context {
            trace: &trace,
            sets: &sets,
            marked: &schedule.marked,
            snapshots: &runner.snapshots,
            set: schedule.set,
        };
        let mut coherence =
            TraceCoherence::new(&trace.events, self.machine.model, self.section_lock());
        for at in 0..trace.events.len() {
            if let Some(found) = self.propose_choices(&context, at)? {
                return Ok(Expanded::Found(found));
            }
            let read = &trace.events[at];
            if !read.is_mutable_read() || schedule.marked.contains(&read.key) {
                continue;
            }
            for mutation in trace.mutations(at) {
                let plain = mutation.reversed.is_none() && mutation.displaced.is_none();
                if plain && coherence.refutes(at, mutation.source) {
                    continue;
                }
                if let Some(found) = self.propose(&context, mutation)? {
                    return Ok(Expanded::Found(found));
                }
            }
        }
        let extension = trace.events[start..]
            .iter()
            .map(|event| event.key)
            .collect();
        Ok(Expanded::Extended { extension, sets })
    }

    /// The execution of `events` (reached by `path`) as a violation when
    /// no SC execution has its reads-from (the program is not robust).
    fn not_robust(&mut self, events: &[Event], path: &[PathStep]) -> Call {
        self.statistics.witness_checks += 1;
        match witness(events, self.threads, MemoryModel::Sc, self.section_lock()) {
            Ok(Verdict::Realisable(_)) => Ok(None),
            Ok(Verdict::Unrealisable) => Ok(Some(RfFound::Violation {
                violation: Violation {
                    slot: events.last().map_or(0, |event| event.key.thread),
                    description: NOT_ROBUST_DESCRIPTION.to_string(),
                    kind: NOT_ROBUST,
                    origin: None,
                },
                path: path.to_vec(),
            })),
            Err(reason) => Err(RfStopped::Abort(Abort::Fallback(INTERNAL, reason))),
        }
    }

    /// A use after free in the class of `events`: for each access and
    /// `free` of its block by another thread that happens-before does not
    /// order (`races`, the `free` first, see `rf::heap`), an execution of
    /// the class in which the `free` comes first, replayed to the
    /// violation the machine finds at the access.
    fn use_after_free(&mut self, events: &[Event], races: &[(Key, Key)]) -> Call {
        for &order in races {
            self.statistics.witness_checks += 1;
            let model = self.machine.model;
            let lock = self.section_lock();
            let steps = match witness_ordered(events, self.threads, model, lock, &[order]) {
                Ok(Verdict::Realisable(steps)) => steps,
                Ok(Verdict::Unrealisable) => continue,
                Err(reason) => return Err(RfStopped::Abort(Abort::Fallback(INTERNAL, reason))),
            };
            let schedule = Schedule {
                events: events.to_vec(),
                sets: FxHashMap::default(),
                marked: FxHashSet::default(),
                witness: steps,
                mutated: Vec::new(),
                set: None,
            };
            let mut runner = runner(self.machine, self.limits);
            if let Some(found) = self.replay(&mut runner, &schedule)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// The location of the machine's section lock, if it has one.
    fn section_lock(&self) -> Option<u32> {
        self.machine.sections.as_ref().map(|lock| lock.location)
    }

    /// The value a source gives at `location`, and its term if it wrote
    /// one.
    fn value(&self, trace: &Trace, source: Source, location: u32) -> Option<Written> {
        match source {
            Source::Init => self.initial.get(location).map(|value| (value, None)),
            Source::Event(key) => {
                let event = &trace.events[*trace.position.get(&key)?];
                event
                    .written
                    .map(|value| (value, event.written_term.clone()))
            }
        }
    }

    /// The event at `at` simulated with its read from `source`.
    fn simulated(
        &self,
        context: &Context,
        at: usize,
        source: Source,
        value: Written,
    ) -> Result<Simulated, RfStopped> {
        let event = &context.trace.events[at];
        let Some(snapshot) = context.snapshots.get(&event.key) else {
            return Err(RfStopped::Abort(Abort::Fallback(
                INTERNAL,
                format!("no state before {:?}", event.key),
            )));
        };
        let mut simulated = simulate(
            self.machine,
            snapshot,
            event,
            source,
            value,
            self.machine.model,
        )?;
        if let Simulated::Event(event) = &mut simulated
            && split::leaves_part(self.limits.split, &context.trace.events[..at], event)
        {
            split::stop(event);
        }
        Ok(simulated)
    }

    /// Lines 12-21 for one mutation: builds the schedule, checks it is new
    /// and realisable, and files it.
    fn propose(&mut self, context: &Context, mutation: Mutation) -> Call {
        let trace = context.trace;
        let read = &trace.events[mutation.read];
        let Some(location) = read.access.read_location() else {
            return Ok(None);
        };
        let mut ignored = vec![mutation.read];
        let mut changed: Vec<(usize, Event)> = Vec::new();
        let mut violates = false;
        // the schedule keeps τ̃ up to `prefix` and goes into its read's set
        let mut prefix = mutation.read;
        let mut targets: Vec<Key> = match mutation.source {
            Source::Event(key) => vec![key],
            Source::Init => Vec::new(),
        };
        let value = match (mutation.reversed, mutation.displaced) {
            (Some(other), _) => {
                // Remark 1: `other` reads `read`'s old source and writes
                ignored.push(other);
                let Some(old) = read.source else {
                    return Ok(None);
                };
                let Some(value) = self.value(trace, old, location) else {
                    return Ok(None);
                };
                match self.simulated(context, other, old, value)? {
                    Simulated::Event(event) if event.writes_to(location) => {
                        changed.push((other, event))
                    }
                    _ => return Ok(None),
                }
                changed.first().and_then(|(_, event)| {
                    event
                        .written
                        .map(|value| (value, event.written_term.clone()))
                })
            }
            (None, Some(displaced)) => {
                // `read` goes between its new source and the atomic event
                // that read it, which reads `read`'s write instead
                if context.marked.contains(&trace.events[displaced].key) {
                    return Ok(None);
                }
                ignored.push(displaced);
                prefix = displaced;
                targets.push(read.key);
                let Some(value) = self.value(trace, mutation.source, location) else {
                    return Ok(None);
                };
                let moved = match self.simulated(context, mutation.read, mutation.source, value)? {
                    Simulated::Event(event) if event.writes_to(location) => event,
                    _ => return Ok(None),
                };
                let Some(written) = moved.written else {
                    return Ok(None);
                };
                let written = (written, moved.written_term.clone());
                let source = Source::Event(read.key);
                match self.simulated(context, displaced, source, written)? {
                    Simulated::Event(event) => changed.push((displaced, event)),
                    Simulated::Violated(chosen) => {
                        violates = true;
                        let stopped = stopped_at(&trace.events[displaced], source, chosen);
                        changed.push((displaced, stopped));
                    }
                }
                changed.push((mutation.read, moved));
                None
            }
            (None, None) => self.value(trace, mutation.source, location),
        };
        if mutation.displaced.is_none() {
            let Some(value) = value else {
                return Ok(None);
            };
            match self.simulated(context, mutation.read, mutation.source, value)? {
                Simulated::Event(event) => changed.push((mutation.read, event)),
                Simulated::Violated(chosen) => {
                    violates = true;
                    let stopped = stopped_at(read, mutation.source, chosen);
                    changed.push((mutation.read, stopped));
                }
            }
        }
        if let Some(other) = mutation.reversed {
            targets = vec![trace.events[other].key];
        }
        let after = if targets.is_empty() {
            Vec::new()
        } else {
            trace.causes_after(&targets, prefix, &ignored)
        };
        // the mutated events' own later events would follow another path
        let stale = |at: &usize| {
            let key = trace.events[*at].key;
            changed.iter().any(|(position, _)| {
                let changed = trace.events[*position].key;
                changed.thread == key.thread && changed.index < key.index
            })
        };
        if after.iter().any(stale) {
            return Ok(None);
        }
        let positions: Vec<usize> = (0..=prefix).chain(after.iter().copied()).collect();
        let events: Vec<Event> = positions
            .iter()
            .map(|&at| {
                changed
                    .iter()
                    .find(|(position, _)| *position == at)
                    .map_or_else(
                        || trace.events[at].clone().fixed(),
                        |(_, event)| event.clone(),
                    )
            })
            .collect();
        if !sources_write(&events) {
            // a mutated event no longer writes what another reads from it
            return Ok(None);
        }
        let owner = trace.events[prefix].key;
        let Some(&set) = context.sets.get(&owner) else {
            return Err(diverged(format!("{owner:?} has no schedule set")));
        };
        let mut marked: FxHashSet<Key> = events
            .iter()
            .map(|event| event.key)
            .filter(|key| context.marked.contains(key))
            .collect();
        marked.extend(after.iter().map(|&at| trace.events[at].key));
        let mutated = changed.iter().map(|(_, event)| event.key).collect();
        let proposal = Proposal {
            events,
            marked,
            mutated,
            violates,
        };
        self.offer(context, set, proposal)
    }

    /// Files a proposed schedule in the set `set` when it is new there and
    /// realisable; explores it at once when it reaches a violation.
    pub(super) fn offer(&mut self, context: &Context, set: usize, proposal: Proposal) -> Call {
        let Proposal {
            events,
            marked,
            mutated,
            violates,
        } = proposal;
        let signature = signature(&events, &marked);
        if !self.note(set, &signature)? {
            return Ok(None);
        }
        self.statistics.witness_checks += 1;
        let steps = match witness(
            &events,
            self.threads,
            self.machine.model,
            self.section_lock(),
        ) {
            Ok(Verdict::Realisable(steps)) => steps,
            Ok(Verdict::Unrealisable) => {
                self.file(set, signature, None);
                return Ok(None);
            }
            Err(reason) => return Err(RfStopped::Abort(Abort::Fallback(INTERNAL, reason))),
        };
        let sets = events
            .iter()
            .filter_map(|event| context.sets.get(&event.key).map(|&set| (event.key, set)))
            .collect();
        let schedule = Schedule {
            events,
            sets,
            marked,
            witness: steps,
            mutated,
            set: Some(set),
        };
        if violates && !self.probing {
            // the violation is realisable: report it at once
            self.file(set, signature, None);
            return self.call(schedule);
        }
        self.file(set, signature, Some(schedule));
        Ok(None)
    }

    /// Notes the signature of a schedule proposed for the set `set`:
    /// whether it is new there (a closed set is a divergence).
    pub(super) fn note(&mut self, set: usize, signature: &Signature) -> Result<bool, RfStopped> {
        if set < self.base {
            return match &mut self.above {
                Some(above) => above.note(set, signature),
                None => Err(diverged(format!("no schedule set {set}"))),
            };
        }
        let own = self.set_mut(set);
        if own.closed {
            return Err(diverged(format!("the schedule set {set} is closed")));
        }
        // the signature is kept once filed: realisable or not, new or not
        Ok(!own.seen.contains(signature))
    }

    /// Files a schedule that [`Explorer::note`] found new in the set
    /// `set`, by its signature (without the schedule when its reads-from
    /// is not realisable, or when it was explored at once).
    pub(super) fn file(&mut self, set: usize, signature: Signature, schedule: Option<Schedule>) {
        if set < self.base {
            if let Some(above) = &mut self.above {
                above.file(set, signature, schedule);
            }
            return;
        }
        let own = self.set_mut(set);
        own.seen.insert(signature);
        own.pending.extend(schedule);
    }
}

// What the workers of the parallel search (`parallel.rs`) share and keep.

/// What every worker of one search shares.
#[derive(Default)]
pub(super) struct Shared {
    /// The classes explored by all workers.
    classes: AtomicUsize,
    /// A worker failed: the others stop.
    stop: AtomicBool,
    /// Where the first violation found in the search's order is
    /// ([`Above::position`]): the workers after it stop, those before
    /// it go on, so that the violation reported is the same on every run.
    first_violation: Mutex<Option<Vec<usize>>>,
    violated: AtomicBool,
    /// Some worker's run watched a plain global (`Explorer::plain_watched`).
    plain_watched: AtomicBool,
    /// The schedules proposed for other values of choices by all workers.
    choice_schedules: AtomicUsize,
}

impl Shared {
    /// The classes explored so far, or the cancellation when another
    /// worker ended the search.
    pub(super) fn classes(&self, position: &[usize]) -> Result<usize, RfStopped> {
        if self.stop.load(Ordering::Relaxed) || self.after_violation(position) {
            return Err(RfStopped::Stopped(Stopped::Cancelled));
        }
        Ok(self.classes.load(Ordering::Relaxed))
    }

    /// Whether some worker's run watched a plain global (`local`: this
    /// worker's).
    pub(super) fn watched(&self, local: bool) -> bool {
        if local {
            self.plain_watched.store(true, Ordering::Relaxed);
        }
        self.plain_watched.load(Ordering::Relaxed)
    }

    /// Asks every worker to stop: one failed.
    pub(super) fn stop_all(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Notes a violation found at `position`: the workers after it stop.
    pub(super) fn violation_at(&self, position: Vec<usize>) {
        if let Ok(mut first) = self.first_violation.lock() {
            if first.as_ref().is_none_or(|first| position < *first) {
                *first = Some(position);
            }
            self.violated.store(true, Ordering::Relaxed);
        }
    }

    /// Whether a violation was found before `position` in the search's order.
    fn after_violation(&self, position: &[usize]) -> bool {
        if !self.violated.load(Ordering::Relaxed) {
            return false;
        }
        match self.first_violation.lock() {
            Ok(first) => first
                .as_ref()
                .is_some_and(|first| position > first.as_slice()),
            Err(_) => true,
        }
    }

    /// Counts `more` schedules proposed for other values of choices; the
    /// number proposed so far.
    pub(super) fn count_choice_schedules(&self, more: usize) -> usize {
        self.choice_schedules.fetch_add(more, Ordering::Relaxed) + more
    }

    /// Counts one more class; the classes explored so far.
    pub(super) fn count_class(&self) -> usize {
        self.classes.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// A schedule a worker filed into a set above it (`None` for a schedule
/// whose reads-from is not realisable, or that it explored at once).
pub(super) struct Filing {
    pub(super) set: usize,
    pub(super) signature: Signature,
    pub(super) schedule: Option<Schedule>,
}

/// What a worker sees of the explorers above it, and what it files there.
pub(super) struct Above<'m> {
    /// Their sets, read only: each explorer's first set number and sets.
    parts: Vec<(usize, &'m [ScheduleSet])>,
    pub(super) shared: &'m Shared,
    filed: Vec<Filing>,
    /// The signatures filed, by set.
    noted: HashMap<usize, FxHashSet<Signature>>,
    /// Where this explorer is in the search's order: for each explorer
    /// above, the wave that holds the next one down and its place in it.
    path: Vec<usize>,
    /// The waves this explorer has explored.
    pub(super) waves: usize,
}

impl<'m> Above<'m> {
    /// What the top explorer of a parallel search sees: no set above it.
    pub(super) fn top(shared: &'m Shared) -> Above<'m> {
        Above {
            parts: Vec::new(),
            shared,
            filed: Vec::new(),
            noted: HashMap::new(),
            path: Vec::new(),
            waves: 0,
        }
    }

    /// Where the explorer is now in the search's order: its path and
    /// its current wave.
    pub(super) fn position(&self) -> Vec<usize> {
        let mut position = self.path.clone();
        position.push(self.waves);
        position
    }

    /// What the worker at `place` of the current wave sees: the sets
    /// `parts` (each explorer's first set number and its sets) and
    /// nothing filed yet.
    pub(super) fn below<'w>(
        &self,
        parts: Vec<(usize, &'w [ScheduleSet])>,
        place: usize,
    ) -> Above<'w>
    where
        'm: 'w,
    {
        let mut path = self.position();
        path.push(place);
        Above {
            parts,
            shared: self.shared,
            filed: Vec::new(),
            noted: HashMap::new(),
            path,
            waves: 0,
        }
    }

    /// The sets above, each explorer's first set number and its sets.
    pub(super) fn parts(&self) -> &[(usize, &'m [ScheduleSet])] {
        &self.parts
    }

    /// What was filed above, in order.
    pub(super) fn into_filed(self) -> Vec<Filing> {
        self.filed
    }

    /// Whether `signature` is new in the set `set` above (a closed set is
    /// a divergence).
    pub(super) fn note(&mut self, set: usize, signature: &Signature) -> Result<bool, RfStopped> {
        let part = self
            .parts
            .iter()
            .rev()
            .find(|(base, _)| *base <= set)
            .and_then(|(base, sets)| sets.get(set - base));
        let Some(above) = part else {
            return Err(diverged(format!("no schedule set {set} above a worker")));
        };
        if above.closed {
            return Err(diverged(format!("the schedule set {set} is closed")));
        }
        let noted = self
            .noted
            .get(&set)
            .is_some_and(|noted| noted.contains(signature));
        Ok(!above.seen.contains(signature) && !noted)
    }

    /// Keeps a filing into the set `set` above for after the wave.
    pub(super) fn file(&mut self, set: usize, signature: Signature, schedule: Option<Schedule>) {
        self.noted.entry(set).or_default().insert(signature.clone());
        self.filed.push(Filing {
            set,
            signature,
            schedule,
        });
    }
}

/// What one worker gave back.
pub(super) struct Worked {
    pub(super) call: Result<Option<RfFound>, RfStopped>,
    pub(super) statistics: Statistics,
    pub(super) filed: Vec<Filing>,
}

/// A value a write gives: concrete, or a term (the `i64` is 0 then).
type Written = (
    i64,
    Option<std::sync::Arc<crate::smc::symbolic::path::Carried>>,
);

/// `event` encoded by its read from `source` alone: its move stops at a
/// violation with the values `chosen` for its choices.
fn stopped_at(event: &Event, source: Source, chosen: Vec<Chosen>) -> Event {
    let mut event = event.clone();
    event.source = Some(source);
    event.blocked = true;
    event.written = None;
    event.forced = chosen.len();
    event.chosen = chosen;
    event
}

/// A schedule proposed for a set: τ' with RF' and the choices of its
/// events, its marks, the events whose reads or choices changed, and
/// whether its last changed move violates a property.
pub(super) struct Proposal {
    pub(super) events: Vec<Event>,
    pub(super) marked: FxHashSet<Key>,
    pub(super) mutated: Vec<Key>,
    pub(super) violates: bool,
}

/// (τ', RF') as a set with the choices and the marks: schedules that
/// differ only in the order of τ' lead to the same classes.
fn signature(events: &[Event], marked: &FxHashSet<Key>) -> Signature {
    let mut signature: Vec<(Key, Option<Source>, Vec<i64>, usize)> = events
        .iter()
        .map(|event| {
            let values = event.choice_values();
            (event.key, event.source, values, event.forced)
        })
        .collect();
    signature.sort_by_key(|(key, ..)| *key);
    let mut marks: Vec<Key> = marked.iter().copied().collect();
    marks.sort();
    (signature, marks)
}

/// Whether every read of `events` reads from an event among them that
/// writes its location (a join, from a thread's last event).
fn sources_write(events: &[Event]) -> bool {
    let by_key: FxHashMap<Key, &Event> = events.iter().map(|event| (event.key, event)).collect();
    events.iter().all(|event| match event.source {
        Some(Source::Event(key)) => {
            by_key
                .get(&key)
                .is_some_and(|source| match event.access.read_location() {
                    Some(location) => source.writes_to(location),
                    None => true,
                })
        }
        _ => true,
    })
}

/// What the proposals of one call read.
pub(super) struct Context<'c> {
    pub(super) trace: &'c Trace,
    pub(super) sets: &'c FxHashMap<Key, usize>,
    pub(super) marked: &'c FxHashSet<Key>,
    pub(super) snapshots: &'c FxHashMap<Key, State>,
    /// The set the call's schedule was filed in.
    pub(super) set: Option<usize>,
}
