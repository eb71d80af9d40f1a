//! Runs the native machine for RF-SMC: replays a witness trace of a
//! schedule (thread moves and flushes in the order the consistency check
//! found), extends it maximally (the lowest thread that can move runs,
//! its stores reach memory at once), and reads each move off as an
//! [`Event`] with the write it read from and the nondeterministic values
//! it took: the ones its schedule fixes, the first of each domain for the
//! others ([`Scripted`]). A move's outcome under another read value, or
//! under other values of its choices, is simulated from the state before
//! it.

use super::event::{Access, Chosen, Event, Key, Source, Visible, visible};
use super::heap::{HEAP_ORDER, HeapOrder};
use super::order::PlainRaces;
use crate::options::MemoryModel;
use crate::smc::interpreter::eval::{Choices, NotedChoices, Unmodelled, undecided};
use crate::smc::interpreter::value::Value;
use crate::smc::search::PathStep;
use crate::smc::semantics::machine::{
    Machine, Move, Outcome, State, Status, Unsupported, Violation,
};
use crate::smc::semantics::memory::{flush, memory_id, set_carried};
use crate::smc::semantics::plain::{PlainAccess, PlainPart};
use crate::smc::symbolic::decide::Decider;
use crate::smc::symbolic::path::Carried;
use crate::smc::symbolic::path::Symbolic;
use crate::smc::symbolic::term::Formula;
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::sync::Arc;

/// Why RF-SMC stops without an answer.
#[derive(Debug, Clone)]
pub enum Abort {
    /// The program uses what the machine does not model.
    Unsupported(Unsupported),
    /// What RF-SMC does not handle (yet), and the details: the explicit
    /// search answers.
    Fallback(&'static str, String),
}

/// Why RF-SMC stops at a write to a plain global that another thread may
/// read before or after it ([`Runner::check_plain`]).
pub const PLAIN_SHARED: &str = "a plain global shared by running threads";

/// Why RF-SMC stops at an access outside atomic sections to a location
/// that a section of a thread running beside it may touch
/// ([`Runner::check_sections`]).
pub const SECTION_SHARED: &str =
    "a location accessed outside atomic sections while a section that touches it may run";

/// Why RF-SMC stops at an execution that ends with the section lock held
/// by a thread that waits inside its section, or that ended inside it
/// ([`Runner::check_section_end`]).
pub const SECTION_WAIT: &str = "a wait inside an atomic section";

/// Why RF-SMC stops at an unlock of a mutex that its thread does not
/// hold: its locks read from the unlocks of the holders (the reads-from
/// search and its oracle order a mutex's critical sections), which such
/// an unlock breaks. The explicit search frees the mutex, as the SMA's
/// unlock does, and a violation after it is reported as that unlock.
pub const FOREIGN_UNLOCK: &str = "an unlock of a mutex its thread does not hold";

/// Why RF-SMC stops where a read simulated from a heap cell's initial
/// value (the symbol `malloc` left there) needs a concrete value.
pub const HEAP_CELL: &str =
    "a read of a heap cell's initial value used where a concrete value is needed";

/// The fallback reason of what should not happen (a defect of RF-SMC).
pub const INTERNAL: &str = "an internal inconsistency of RF-SMC";

/// One step of a witness in machine terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WStep {
    /// The event's thread moves.
    Run(Key),
    /// The event's buffered store reaches memory.
    Flush(Key),
    /// The event is a lock attempt that finds its mutex held.
    Blocked(Key),
}

/// What a move did.
#[derive(Debug, Clone)]
pub enum Ran {
    Event(Event),
    /// Cut off before anything it read: its thread stops.
    Stopped,
    /// It cannot happen now (a held mutex, a running joined thread).
    Disabled,
    Violated(Violation),
}

/// The nondeterministic values of one move: the values its schedule
/// fixes, in order, then the first value of each domain; every value
/// taken is noted with its domain.
///
/// A nondeterministic value of more than 256 values is a symbol, and a
/// branch on a term whose two sides are both feasible under the path
/// condition is a choice of two values (0: the condition fails, 1: it
/// holds); a branch with one feasible side takes it without a choice.
pub struct Scripted<'f> {
    forced: &'f [i64],
    pub taken: Vec<Chosen>,
    decider: &'f Decider,
}

impl<'f> Scripted<'f> {
    pub fn new(forced: &'f [i64], decider: &'f Decider) -> Self {
        Scripted {
            forced,
            taken: Vec::new(),
            decider,
        }
    }
}

impl Choices for Scripted<'_> {
    fn choose(&mut self, lo: i64, values: u32) -> i64 {
        let value = self.forced.get(self.taken.len()).copied().unwrap_or(lo);
        self.taken.push(Chosen { value, lo, values });
        value
    }

    fn decider(&self) -> Option<&Decider> {
        Some(self.decider)
    }

    fn branch(
        &mut self,
        formula: &Formula,
        symbolic: &mut Symbolic,
    ) -> Result<Option<bool>, Unmodelled> {
        let decider = self.decider;
        decider
            .branch(formula, symbolic, &mut || self.choose(0, 2) != 0)
            .map(Some)
            .map_err(undecided)
    }
}

/// A run of the machine, recording events.
pub struct Runner<'m, 'a> {
    machine: &'m Machine<'a>,
    pub state: State,
    /// The values the schedule fixes for the choices of its events.
    pub forced: FxHashMap<Key, Vec<i64>>,
    /// The event of each write id.
    writers: HashMap<u64, Key>,
    /// The write id of each storing event.
    write_ids: FxHashMap<Key, u64>,
    /// Each thread's next event index.
    pub next: Vec<usize>,
    /// Threads that will not move again (cut off, blocked on a lock).
    pub stopped: Vec<bool>,
    /// Of those, the threads stopped by the failed iteration of an await
    /// loop (not by a bound).
    spinning: Vec<bool>,
    /// Of those, the threads an assumption or a bound cut off (not
    /// waiting for a lock).
    cut_off: Vec<bool>,
    last: Vec<Option<Key>>,
    /// The machine path, for the replay that records a violation.
    pub path: Vec<PathStep>,
    /// The events in the order they happened.
    pub events: Vec<Event>,
    /// The state before each reading event, to simulate other values.
    pub snapshots: FxHashMap<Key, State>,
    pub moves: usize,
    /// Per thread, the threads known to have finished before its current
    /// point by happens-before (joins, and what its creator knew).
    finished_before: Vec<Vec<bool>>,
    /// Whether a write to a plain global failed that order, so that the
    /// run watches the global for races ([`super::order`]).
    pub plain_watched: bool,
    /// `--split`: the part whose classes the search explores
    /// ([`super::split`]).
    pub split: Option<crate::options::Split>,
    /// Whether a thread stopped at a read that puts the execution in
    /// another part.
    pub left_part: bool,
    /// In a program with a heap, the happens-before order of the events
    /// and the heap operations (`super::heap`).
    heap: Option<HeapOrder>,
    /// After [`Runner::extend`]: the accesses to a heap block that
    /// happens-before does not order with the block's `free` by another
    /// thread, each after that `free`.
    pub heap_races: Vec<(Key, Key)>,
    /// The plain accesses of the run, and the globals whose accesses
    /// happens-before must order ([`super::order`]).
    plain_races: PlainRaces,
}

impl<'m, 'a> Runner<'m, 'a> {
    pub fn new(machine: &'m Machine<'a>) -> Self {
        let state = machine.initial(true);
        let threads = state.threads.len();
        Runner {
            machine,
            state,
            forced: FxHashMap::default(),
            writers: HashMap::new(),
            write_ids: FxHashMap::default(),
            next: vec![0; threads],
            stopped: vec![false; threads],
            spinning: vec![false; threads],
            cut_off: vec![false; threads],
            last: vec![None; threads],
            path: Vec::new(),
            events: Vec::new(),
            snapshots: FxHashMap::default(),
            moves: 0,
            finished_before: vec![vec![false; threads]; threads],
            plain_watched: false,
            split: None,
            left_part: false,
            heap: machine
                .sections
                .as_ref()
                .is_some_and(|lock| lock.heap)
                .then(|| HeapOrder::new(threads)),
            heap_races: Vec::new(),
            plain_races: PlainRaces::default(),
        }
    }

    fn source(&self, id: u64) -> Result<Source, Abort> {
        if id == 0 {
            return Ok(Source::Init);
        }
        self.writers
            .get(&id)
            .map(|&key| Source::Event(key))
            .ok_or_else(|| Abort::Fallback(INTERNAL, format!("write id {id} of no event")))
    }

    fn alive(&self, slot: usize) -> bool {
        !self.stopped[slot]
            && matches!(
                self.state.threads[slot].status,
                Status::Created | Status::Running
            )
    }

    /// Runs `slot`'s next move.
    pub fn run_move(&mut self, slot: usize) -> Result<Ran, Abort> {
        let before = self.state.clone();
        let key = Key {
            thread: slot,
            index: self.next[slot],
        };
        let forced = self.forced.get(&key).map_or(&[][..], Vec::as_slice);
        let mut choices = Scripted::new(forced, &self.machine.decider);
        let (outcome, seen, mut accesses) =
            run_on(self.machine, &mut self.state, slot, &mut choices)?;
        let outcome = match outcome {
            // threads that read each other's terms decided each under its
            // own causal condition: a violation needs them all to hold
            Outcome::Violated(_) if !self.feasible()? => Outcome::CutOff,
            other => other,
        };
        let forced = forced.len().min(choices.taken.len());
        let chosen = choices.taken;
        let values: Vec<i64> = chosen.iter().map(|chosen| chosen.value).collect();
        match outcome {
            Outcome::Disabled => {
                self.state = before;
                self.check_races(key, &accesses)?;
                Ok(Ran::Disabled)
            }
            Outcome::Violated(violation) => {
                self.path.push((Move::Run(slot), values));
                Ok(Ran::Violated(violation))
            }
            Outcome::CutOff => {
                let pc = self.state.threads[slot].pc;
                self.spinning[slot] = self.machine.codes[slot].restarts.contains_key(&pc);
                self.state = before;
                self.stopped[slot] = true;
                self.cut_off[slot] = true;
                if !reads(seen.access) && chosen.is_empty() {
                    self.check_races(key, &accesses)?;
                    return Ok(Ran::Stopped);
                }
                self.check_sections(&self.state, slot, seen.access)?;
                let mut event = self.event(key, &seen, &self.state)?;
                cut_off(&mut event);
                event.chosen = chosen;
                event.forced = forced;
                self.commit(event.clone(), Some(self.state.clone()));
                self.check_races(key, &accesses)?;
                Ok(Ran::Event(event))
            }
            Outcome::Next(()) => {
                let section_lock = self.machine.sections.as_ref().map(|lock| lock.location);
                if let Access::Unlock { location } = seen.access
                    && section_lock != Some(location)
                    && !before.held.contains(&(location, slot))
                {
                    return Err(Abort::Fallback(
                        FOREIGN_UNLOCK,
                        format!("location {location} by thread {slot}"),
                    ));
                }
                self.check_plain(&before, slot, &mut accesses);
                self.check_sections(&before, slot, seen.access)?;
                let mut event = self.event(key, &seen, &before)?;
                event.chosen = chosen;
                event.forced = forced;
                if super::split::leaves_part(self.split, &self.events, &event) {
                    self.state = before;
                    self.stopped[slot] = true;
                    self.left_part = true;
                    super::split::stop(&mut event);
                    self.commit(event.clone(), Some(self.state.clone()));
                    return Ok(Ran::Event(event));
                }
                self.moves += 1;
                self.path.push((Move::Run(slot), values));
                event.finishes = self.state.threads[slot].status == Status::Finished;
                self.note_order(slot, event.access);
                if let Some(id) = seen.write_id {
                    self.writers.insert(id, key);
                    self.write_ids.insert(key, id);
                }
                let alternatives = event.is_mutable_read() || !event.chosen.is_empty();
                let snapshot = alternatives.then_some(before);
                self.commit(event.clone(), snapshot);
                self.check_races(key, &accesses)?;
                if let Some(heap) = self.heap.as_mut() {
                    for (block, allocated) in [(seen.allocated, true), (seen.freed, false)] {
                        if let Some(block) = block {
                            heap.heap_operation(key, block, allocated);
                        }
                    }
                }
                Ok(Ran::Event(event))
            }
        }
    }

    fn commit(&mut self, event: Event, snapshot: Option<State>) {
        let key = event.key;
        self.next[key.thread] += 1;
        self.last[key.thread] = Some(key);
        if let Some(snapshot) = snapshot {
            self.snapshots.insert(key, snapshot);
        }
        if let Some(heap) = self.heap.as_mut() {
            heap.note(&event);
        }
        self.plain_races.note(&event);
        self.events.push(event);
    }

    /// The event of a move, its sources taken in `before` where the
    /// records do not name them (locks read memory).
    fn event(&self, key: Key, seen: &Visible, before: &State) -> Result<Event, Abort> {
        let memory_source = |location: u32| {
            let id = before
                .recording
                .as_ref()
                .and_then(|recording| recording.memory_ids.get(&location))
                .copied()
                .unwrap_or(0);
            self.source(id)
        };
        let source = match seen.access {
            Access::Lock { location } | Access::Unlock { location } => {
                Some(memory_source(location)?)
            }
            Access::Join { child } => self.last[child].map(Source::Event),
            _ => seen.read_from.map(|id| self.source(id)).transpose()?,
        };
        Ok(Event {
            key,
            access: seen.access,
            source,
            read_value: seen.read_value,
            written: seen.written,
            written_term: seen.written_term.clone(),
            blocked: false,
            finishes: false,
            chosen: Vec::new(),
            forced: 0,
        })
    }

    /// Whether a move of `slot` that took `before` to the current state
    /// changed a plain global in a way RF-SMC can miss. Plain globals
    /// (thread handles, arguments, results, thread-locals) are private
    /// data of the sequential program, invisible to RF-SMC, whose events
    /// are the accesses to shared memory; threads share them through
    /// creation and joins. A move's writes to them are the parts its
    /// instructions may write ([`written`](crate::smc::semantics::plain::PlainUses::written), also a write that
    /// leaves the value as it was) and the parts that changed.
    ///
    /// A write by `slot` to a part is accepted when every other thread
    /// whose code reads that part ([`reads`](crate::smc::semantics::plain::PlainUses::reads)) is ordered with
    /// it by happens-before (program order, creation, join), whatever the
    /// interleaving:
    /// - the reader has finished, and `slot` joined it (or joined a thread
    ///   that knew it finished, or was created by one): all its reads
    ///   come before the write;
    /// - the reader is not created yet, and the one thread that creates
    ///   it is `slot`, or is itself not created yet and created so by
    ///   `slot` (each creation site has one slot): all its reads come
    ///   after the write, which is before its creation in program order.
    ///
    /// A reader still running, stopped, or finished without a join that
    /// orders it could read before or after the write in two executions
    /// of one reads-from class, of which RF-SMC explores one: the explicit
    /// search answers instead. Two exceptions keep their own argument: a
    /// thread's own element of a per-thread array (another thread reads
    /// it only through a join of its thread), and the `thread_arg` element
    /// of a thread not created yet.
    ///
    /// Why that suffices: in an execution whose every move passed this
    /// check, a read of a plain part and a write to it by another thread
    /// are ordered by happens-before, and so are the writes that precede
    /// one read (they are by the reader, or by the threads of its chain of
    /// creators, each before the next was created). A read's value is
    /// therefore that of the last write before it in happens-before,
    /// which program order, creations and joins fix. Every execution of
    /// the same reads-from class has the same creations, joins and
    /// program order, so (by induction over its moves) its threads read
    /// the same plain values and take the same steps: the class has one
    /// behaviour, and the causal prefixes RF-SMC keeps when it mutates a
    /// read (program order, creations, joins, reads-from) carry every
    /// write a plain read depends on. One that main writes before it
    /// creates the thread that reads it (a handle, an argument) is
    /// accepted so. One that a thread writes for main to read after
    /// joining it is ordered too, but main still runs at the write and the
    /// check does not know where in main's code the reads are: it falls
    /// back (a thread's result, its own element, is the exception).
    fn check_plain(&mut self, before: &State, slot: usize, accesses: &mut Vec<PlainAccess>) {
        let from = before.threads[slot].pc;
        let to = self.state.threads[slot].pc;
        let mut parts: Vec<PlainPart> = self.machine.plain.written(slot, from, to).collect();
        if before.plain != self.state.plain {
            let mut changed = Vec::new();
            changed_parts(&before.plain, &self.state.plain, &mut changed);
            accesses.extend(changed.iter().map(|&part| PlainAccess {
                part,
                write: true,
                prefix: false,
            }));
            parts.extend(changed);
        }
        for part in parts {
            if !self.unobserved(before, slot, part) {
                let threads = self.state.threads.len();
                self.plain_races.watch(part.global, threads, &self.events);
                self.plain_watched = true;
            }
        }
    }

    /// Notes the plain accesses of the move `key` (after its event, if it
    /// made one) and stops RF-SMC at one that happens-before does not
    /// order with a conflicting access of another thread to a watched
    /// global ([`super::order`]).
    fn check_races(&mut self, key: Key, accesses: &[PlainAccess]) -> Result<(), Abort> {
        let Some(part) = self.plain_races.access(key, accesses) else {
            return Ok(());
        };
        let name = self
            .machine
            .program
            .plain_globals
            .get(part.global)
            .map_or("?", |global| global.name.as_str());
        Err(Abort::Fallback(
            PLAIN_SHARED,
            match part.element {
                Some(element) => format!("{name}[{element}]"),
                None => name.to_string(),
            },
        ))
    }

    /// Whether a write of `slot` to `part` needs no reader ordered with
    /// it: a thread's own element of a per-thread array, or the
    /// `thread_arg` element of a thread not created yet.
    fn excepted(&self, slot: usize, part: PlainPart) -> bool {
        let program = self.machine.program;
        let Some(element) = part.element else {
            return false;
        };
        let own = usize::try_from(element).is_ok_and(|element| element == slot);
        if own && program.per_thread.contains(&part.global) {
            return true;
        }
        let not_created = usize::try_from(element)
            .ok()
            .and_then(|element| self.state.threads.get(element))
            .is_some_and(|thread| thread.status == Status::NotCreated);
        part.global == program.thread_arg && not_created
    }

    /// Whether a write of `slot` to `part` is ordered with every read of
    /// it by another thread ([`Runner::check_plain`]).
    fn unobserved(&self, before: &State, slot: usize, part: PlainPart) -> bool {
        if self.excepted(slot, part) {
            return true;
        }
        (0..before.threads.len())
            .filter(|&reader| reader != slot && self.machine.plain.reads(reader, part))
            .all(|reader| self.ordered(before, slot, reader))
    }

    /// Whether every move of `reader` is ordered with `writer`'s next move
    /// by happens-before: all before it (finished, and known finished to
    /// `writer` by joins) or all after it (created later by `writer`).
    fn ordered(&self, before: &State, writer: usize, reader: usize) -> bool {
        match before.threads[reader].status {
            Status::Finished => self.finished_before[writer][reader],
            Status::NotCreated => created_after(self.machine, before, writer, reader),
            Status::Created | Status::Running => false,
        }
    }

    /// Whether an access of `slot`'s move from `before` outside its atomic
    /// sections is ordered with every section that may touch its
    /// locations. The section lock orders the sections among themselves
    /// (`crate::smc::semantics::sections`), not with the accesses outside
    /// them: an access to a location that a section of another thread may
    /// touch is accepted only when that thread is ordered with it by
    /// happens-before whatever the interleaving (it finished and `slot`
    /// joined it, or it is created after the access, see
    /// [`Runner::ordered`]), so that it never falls inside that section.
    /// Every other access touches locations no section running beside it
    /// touches, and commutes with the section's events.
    fn check_sections(&self, before: &State, slot: usize, access: Access) -> Result<(), Abort> {
        let Some(lock) = &self.machine.sections else {
            return Ok(());
        };
        if before.atomic == Some(slot) {
            return Ok(());
        }
        let locations = [access.read_location(), access.write_location()];
        for location in locations.into_iter().flatten() {
            if location == lock.location {
                continue;
            }
            let unordered = (0..before.threads.len()).find(|&other| {
                other != slot
                    && lock.may_touch(other, location)
                    && !self.ordered(before, slot, other)
            });
            if let Some(other) = unordered {
                return Err(Abort::Fallback(
                    SECTION_SHARED,
                    format!("location {location} by thread {slot}, beside thread {other}"),
                ));
            }
        }
        Ok(())
    }

    /// Whether a run that ends with the section lock held ends so only
    /// because its holder was cut off inside its section (an assumption
    /// or a bound there: no execution goes on after it, and the threads
    /// that wait for the lock are no deadlock, see
    /// `crate::smc::semantics::deadlock`). A holder that waits there
    /// (a lock, a join) or that ended inside its section falls back.
    fn check_section_end(&self) -> Result<(), Abort> {
        if !self.machine.section_lock_held(&self.state) {
            return Ok(());
        }
        match self.state.atomic {
            Some(holder) if self.cut_off[holder] => Ok(()),
            Some(holder) => Err(Abort::Fallback(
                SECTION_WAIT,
                format!("thread {holder} waits inside its section"),
            )),
            None => Err(Abort::Fallback(
                SECTION_WAIT,
                "a thread ended inside its section".into(),
            )),
        }
    }

    /// Notes the happens-before order a creation or a join of `slot`'s
    /// move gives: a child knows what its creator knows; a join knows the
    /// joined thread finished, and what it knew.
    fn note_order(&mut self, slot: usize, access: Access) {
        match access {
            Access::Create { child } if child < self.finished_before.len() => {
                self.finished_before[child] = self.finished_before[slot].clone();
            }
            Access::Join { child } if child < self.finished_before.len() => {
                let known = self.finished_before[child].clone();
                let mine = &mut self.finished_before[slot];
                for (mine, theirs) in mine.iter_mut().zip(known) {
                    *mine |= theirs;
                }
                mine[child] = true;
            }
            _ => {}
        }
    }

    /// Moves every buffered store of `slot` to memory, oldest first.
    pub fn flush_all(&mut self, slot: usize) {
        while !self.state.buffers[slot].is_empty() {
            flush(&mut self.state, slot, 0);
            self.path.push((Move::Flush { slot, index: 0 }, Vec::new()));
            self.moves += 1;
        }
        if let Some(recording) = self.state.recording.as_mut() {
            recording.records.clear();
        }
    }

    /// Moves the buffered store of event `key` to memory.
    pub fn flush_event(&mut self, key: Key) -> Result<(), Abort> {
        let id = self.write_ids.get(&key).copied();
        let index = self.state.buffers[key.thread]
            .iter()
            .position(|store| Some(store.id) == id);
        let Some(index) = index else {
            return Err(Abort::Fallback(
                INTERNAL,
                format!("no buffered store of {key:?}"),
            ));
        };
        flush(&mut self.state, key.thread, index);
        if let Some(recording) = self.state.recording.as_mut() {
            recording.records.clear();
        }
        self.path.push((
            Move::Flush {
                slot: key.thread,
                index,
            },
            Vec::new(),
        ));
        self.moves += 1;
        Ok(())
    }

    /// Records that `slot`'s lock of `location` finds the mutex held: the
    /// thread waits for ever.
    pub fn block_on_lock(&mut self, slot: usize, location: u32) -> Result<Event, Abort> {
        let id = self
            .state
            .recording
            .as_ref()
            .and_then(|recording| recording.memory_ids.get(&location))
            .copied()
            .unwrap_or(0);
        let event = Event {
            key: Key {
                thread: slot,
                index: self.next[slot],
            },
            access: Access::BlockedLock { location },
            source: Some(self.source(id)?),
            read_value: self.state.memory.get(location),
            written: None,
            written_term: None,
            blocked: false,
            finishes: false,
            chosen: Vec::new(),
            forced: 0,
        };
        self.stopped[slot] = true;
        self.commit(event.clone(), Some(self.state.clone()));
        Ok(event)
    }

    /// Extends the run maximally: the lowest thread that can move runs and
    /// its stores reach memory at once; threads left waiting on a held
    /// mutex become blocked attempts. Returns a violation if one occurs.
    pub fn extend(&mut self) -> Result<Option<Violation>, Abort> {
        let threads = self.state.threads.len();
        'moves: loop {
            for slot in 0..threads {
                if !self.alive(slot) {
                    continue;
                }
                match self.run_move(slot)? {
                    Ran::Disabled => continue,
                    Ran::Violated(violation) => return Ok(Some(violation)),
                    Ran::Event(_) | Ran::Stopped => {
                        self.flush_all(slot);
                        continue 'moves;
                    }
                }
            }
            break;
        }
        self.check_section_end()?;
        if let Some(heap) = &self.heap {
            self.heap_races = heap
                .check(self.machine, &self.events)
                .map_err(|detail| Abort::Fallback(HEAP_ORDER, detail))?;
        }
        for slot in 0..threads {
            if !self.alive(slot) {
                continue;
            }
            let mut choices = NotedChoices::default();
            if let Some(location) = self.machine.pending_lock(&self.state, slot, &mut choices) {
                self.block_on_lock(slot, location)?;
            }
        }
        Ok(None)
    }

    /// The deadlock the run ends in, if it ends in one, with its machine
    /// path: the run's, then the flushes of the stores still buffered
    /// (a deadlock has every buffer empty, see
    /// [`crate::smc::semantics::deadlock`]).
    pub fn deadlock(&self) -> Result<Option<(Violation, Vec<PathStep>)>, Abort> {
        let (state, path) = self.drained();
        let Some(violation) = self.machine.deadlock(&state) else {
            return Ok(None);
        };
        Ok(self.feasible()?.then_some((violation, path)))
    }

    /// Whether the run so far is an execution: the path condition of all
    /// its threads together is satisfiable (each thread decided its
    /// branches under its causal condition alone,
    /// [`Symbolic`](crate::smc::symbolic::path::Symbolic)).
    pub fn feasible(&self) -> Result<bool, Abort> {
        self.machine
            .decider
            .feasible_execution(&self.state.symbolic)
            .map_err(|error| {
                Abort::Unsupported(Unsupported {
                    what: error.to_string(),
                    origin: None,
                    out_of_bounds: false,
                    infeasible: false,
                })
            })
    }

    /// Whether the run ends only because a spin loop read too early
    /// ([`Machine::only_spinning_too_early`], its buffers drained).
    pub fn spins_too_early(&self) -> bool {
        let by_waits =
            (0..self.stopped.len()).all(|slot| !self.stopped[slot] || self.spinning[slot]);
        by_waits && self.machine.only_spinning_too_early(&self.drained().0)
    }

    /// The run's state and path, then the flushes of the stores still
    /// buffered.
    fn drained(&self) -> (State, Vec<PathStep>) {
        let mut state = self.state.clone();
        let mut path = self.path.clone();
        for slot in 0..state.buffers.len() {
            while !state.buffers[slot].is_empty() {
                flush(&mut state, slot, 0);
                path.push((Move::Flush { slot, index: 0 }, Vec::new()));
            }
        }
        (state, path)
    }

    /// Whether every thread that started has finished.
    pub fn blocked(&self) -> bool {
        self.state
            .threads
            .iter()
            .any(|thread| matches!(thread.status, Status::Created | Status::Running))
    }
}

/// Whether `reader`, not created in `before`, can only be created after
/// `writer`'s next move: its creator is `writer`, or a thread not created
/// yet that can only be created so.
fn created_after(machine: &Machine, before: &State, writer: usize, reader: usize) -> bool {
    let mut thread = reader;
    for _ in 0..before.threads.len() {
        if before.threads[thread].status != Status::NotCreated {
            return false;
        }
        match machine.plain.creator(thread) {
            Some(creator) if creator == writer => return true,
            Some(creator) => thread = creator,
            None => return false,
        }
    }
    false
}

/// The parts of the plain globals that differ between `old` and `new`:
/// the elements of an array that changed, or the whole global.
fn changed_parts(old: &[Value], new: &[Value], parts: &mut Vec<PlainPart>) {
    for (global, (old, new)) in old.iter().zip(new).enumerate() {
        if old == new {
            continue;
        }
        match (old, new) {
            (Value::Aggregate(old), Value::Aggregate(new)) if old.len() == new.len() => {
                let changed = old.iter().zip(new).enumerate().filter(|(_, (a, b))| a != b);
                parts.extend(changed.map(|(element, _)| PlainPart {
                    global,
                    element: i64::try_from(element).ok(),
                }));
            }
            _ => parts.push(PlainPart {
                global,
                element: None,
            }),
        }
    }
}

/// Whether a move's visible statement reads shared memory.
fn reads(access: Access) -> bool {
    access.read_location().is_some() || matches!(access, Access::Join { .. })
}

/// An event whose move an assumption or a loop bound cut off: only its
/// read counts (a move that reads nothing keeps only its choices).
fn cut_off(event: &mut Event) {
    event.blocked = true;
    event.written = None;
    if !reads(event.access) {
        event.access = Access::Internal;
        event.source = None;
        event.read_value = None;
    }
}

/// Runs `slot`'s move on `state` with `choices`, with its records.
fn run_on(
    machine: &Machine,
    state: &mut State,
    slot: usize,
    choices: &mut Scripted,
) -> Result<(Outcome<()>, Visible, Vec<PlainAccess>), Abort> {
    let lock_before = machine
        .sections
        .as_ref()
        .map(|lock| state.memory.at(lock.location));
    let outcome = machine
        .apply_in_place(state, Move::Run(slot), choices)
        .map_err(Abort::Unsupported)?;
    let (records, accesses, carried) = state
        .recording
        .as_mut()
        .map(|recording| {
            (
                std::mem::take(&mut recording.records),
                std::mem::take(&mut recording.plain_accesses),
                {
                    recording.terms.clear();
                    recording.carried.take()
                },
            )
        })
        .unwrap_or_default();
    let mut seen = visible(&records);
    seen.written_term = carried;
    if seen.atomic.is_some() || lock_before.is_some() {
        section_event(machine, state, lock_before, &mut seen)?;
    }
    let heap_ordered = machine.sections.as_ref().is_some_and(|lock| lock.heap);
    if seen.heap && !heap_ordered && !alone(state, slot) {
        return Err(Abort::Fallback(
            "the heap (malloc, free) while other threads run",
            String::new(),
        ));
    }
    Ok((outcome, seen, accesses))
}

/// The event of a move that begins or ends an atomic section in RF-SMC's
/// mode (a user's section, or one wrapped around an access, which records
/// nothing): a lock or an unlock of the section lock
/// (`crate::smc::semantics::sections`), whose memory held `lock_before`
/// before the move. Without the section lock the explicit search answers;
/// an end that closes no section (which does nothing) falls back too.
fn section_event(
    machine: &Machine,
    state: &State,
    lock_before: Option<i64>,
    seen: &mut Visible,
) -> Result<(), Abort> {
    let (Some(lock), Some(before)) = (&machine.sections, lock_before) else {
        return Err(Abort::Fallback("an atomic section", String::new()));
    };
    let location = lock.location;
    let after = state.memory.at(location);
    seen.access = match (before, after) {
        (0, 1) => Access::Lock { location },
        (1, 0) => Access::Unlock { location },
        _ if seen.atomic.is_none() => return Ok(()),
        _ => {
            return Err(Abort::Fallback(
                "an atomic section",
                "an end that closes no section".into(),
            ));
        }
    };
    seen.write_id = Some(memory_id(state, location));
    seen.written = Some(after);
    seen.written_term = None;
    seen.read_value = (after == 1).then_some(0);
    Ok(())
}

/// Whether thread `slot` is the only one that may still act: every other
/// thread is not created yet, or has finished with its stores in memory.
/// The heap's allocator and its freed blocks are not shared memory that
/// RF-SMC sees: an allocation or a `free` made alone is ordered with every
/// other thread's moves by creation and joins (and program order), so
/// each schedule replays it alike, and every access to a block is on the
/// same side of its `free` in every schedule. Made while another thread
/// runs, it would race unseen, and RF-SMC leaves the program to the
/// explicit search.
fn alone(state: &State, slot: usize) -> bool {
    state.threads.iter().enumerate().all(|(other, thread)| {
        other == slot
            || match thread.status {
                Status::NotCreated => true,
                Status::Finished => state.buffers[other].is_empty(),
                Status::Created | Status::Running => false,
            }
    })
}

/// The outcome of an event's move had it read `value` from `source`, or
/// taken other values for its choices.
#[derive(Debug, Clone)]
pub enum Simulated {
    Event(Event),
    /// The move violates a property with these values for its choices.
    Violated(Vec<Chosen>),
}

/// Simulates `event`'s move from `snapshot` (the state before it), with
/// its read taking `value` (and the term `value.1`, if the source wrote
/// one) from `source`.
pub fn simulate(
    machine: &Machine,
    snapshot: &State,
    event: &Event,
    source: Source,
    value: (i64, Option<Arc<Carried>>),
    model: MemoryModel,
) -> Result<Simulated, Abort> {
    let (value, carried) = value;
    let Some(location) = event.access.read_location() else {
        return Err(Abort::Fallback(
            INTERNAL,
            "a simulated event that reads nothing".into(),
        ));
    };
    let slot = event.key.thread;
    let mut state = snapshot.clone();
    if event.access.is_atomic() || model == MemoryModel::Sc {
        state.buffers[slot].clear();
    } else {
        state.buffers[slot].retain(|store| store.location != location);
    }
    state.memory.set(location, value);
    set_carried(&mut state, location, carried);
    // a heap cell read from its initial value holds what `malloc` gave it
    // (a symbol); from a write, that write's value
    let mut cell = false;
    if let Some(index) = state.heap.index(i64::from(location)) {
        cell = source == Source::Init && state.heap.nondet[index];
        state.heap.uninitialised[index] = cell;
    }
    let mut choices = Scripted::new(&[], &machine.decider);
    let (outcome, seen, _) = match run_on(machine, &mut state, slot, &mut choices) {
        // the read may be one no execution has (its own thread wrote the
        // cell before): the explicit search, which reads only real
        // values, answers instead of a decline
        Err(Abort::Unsupported(why)) if cell => {
            return Err(Abort::Fallback(HEAP_CELL, why.what));
        }
        other => other?,
    };
    let mut simulated = Event {
        key: event.key,
        access: seen.access,
        source: Some(source),
        read_value: Some(value),
        written: seen.written,
        written_term: seen.written_term.clone(),
        blocked: false,
        finishes: false,
        chosen: choices.taken,
        forced: 0,
    };
    match outcome {
        Outcome::Violated(_) => return Ok(Simulated::Violated(simulated.chosen)),
        Outcome::Disabled => {
            // a lock that finds the mutex held
            simulated.access = Access::BlockedLock { location };
            simulated.written = None;
        }
        Outcome::CutOff => {
            simulated.blocked = true;
            simulated.written = None;
        }
        Outcome::Next(()) => {
            simulated.finishes = state.threads[slot].status == Status::Finished;
        }
    }
    if simulated.access.read_location() != Some(location) {
        return Err(Abort::Fallback(
            INTERNAL,
            format!("the simulated move of {:?} reads elsewhere", event.key),
        ));
    }
    Ok(Simulated::Event(simulated))
}

/// Simulates `event`'s move from `snapshot` (the state before it, in
/// which it read what it read) with the values `forced` for its first
/// choices, the first value of each domain for the others. The move reads
/// what `event` read: when other values would make it read elsewhere, or
/// not at all, RF-SMC leaves the program to the explicit search.
///
/// One exception: values under which an assumption (an `abort()`, a
/// failed `__VERIFIER_assume`) cuts the move off before it reads give
/// `None`, an execution RF-SMC need not explore. Its thread stops there,
/// having done nothing the other threads see; it reports no violation
/// and no deadlock (a cut-off execution is blocked), and every violation
/// of the other threads in it happens too in an execution of the other
/// values in which the thread's move comes after the violating one and
/// nothing reads from the thread (the thread's own moves disable none of
/// theirs before they happen), which RF-SMC explores.
pub fn rechoose(
    machine: &Machine,
    snapshot: &State,
    event: &Event,
    forced: &[i64],
) -> Result<Option<Simulated>, Abort> {
    let slot = event.key.thread;
    let mut state = snapshot.clone();
    let mut choices = Scripted::new(forced, &machine.decider);
    let (outcome, seen, _) = run_on(machine, &mut state, slot, &mut choices)?;
    let mut simulated = Event {
        key: event.key,
        access: seen.access,
        source: event.source,
        read_value: seen.read_value,
        written: seen.written,
        written_term: seen.written_term.clone(),
        blocked: false,
        finishes: false,
        chosen: choices.taken,
        forced: forced.len(),
    };
    match outcome {
        Outcome::Violated(_) => return Ok(Some(Simulated::Violated(simulated.chosen))),
        Outcome::Disabled => {
            return Err(Abort::Fallback(
                INTERNAL,
                format!("{:?} is disabled under other values", event.key),
            ));
        }
        Outcome::CutOff if !reads(seen.access) && reads(event.access) => return Ok(None),
        Outcome::CutOff => cut_off(&mut simulated),
        Outcome::Next(()) => {
            simulated.finishes = state.threads[slot].status == Status::Finished;
        }
    }
    if !same_read(simulated.access, event.access) {
        return Err(Abort::Fallback(
            CHOSEN_READ,
            format!("{:?} under other values", event.key),
        ));
    }
    Ok(Some(Simulated::Event(simulated)))
}

/// Why RF-SMC stops where a move's nondeterministic values decide what it
/// reads.
pub const CHOSEN_READ: &str = "a nondeterministic value that decides what a move reads";

/// Whether two accesses of one move read the same thing (or both nothing).
fn same_read(one: Access, other: Access) -> bool {
    let joined = |access| match access {
        Access::Join { child } => Some(child),
        _ => None,
    };
    reads(one) == reads(other)
        && one.read_location() == other.read_location()
        && joined(one) == joined(other)
}
