//! The happens-before cycle of a violation reduced to a small program:
//! each thread of the cycle with the loads and stores of the cycle's
//! events in program order, the shared locations they touch with initial
//! values, the weak outcome (the values the cycle's loads read, and the
//! final value of a location whose stores the cycle orders), the fences
//! the diagnosis advises placed between the accesses, and the reorderings
//! the cycle needs. Built from the report's typed diagnosis
//! ([`CycleStep`], [`FenceAdvice`]) only.

use crate::options::MemoryModel;
use crate::report::document::{
    CycleOperation, CycleStep, DiagnosisReport, FenceAdvice, Verdict, VerifyReport,
};
use thiserror::Error;

/// Why a report gives no program to reproduce.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Unreproducible {
    #[error("the verdict is {0}, not a confirmed violation: there is no weak outcome to reproduce")]
    NoViolation(&'static str),
    #[error(
        "the violation needs no weak memory (sequential consistency has it): there is no happens-before cycle to reproduce"
    )]
    NoCycle,
    #[error(
        "the happens-before cycle has {what} at line {line}; only cycles of plain loads and stores are reproduced"
    )]
    Unsupported { what: &'static str, line: String },
    #[error(
        "the happens-before cycle orders more than two stores to {0}; only two stores to a location are reproduced"
    )]
    StoreOrder(String),
}

/// The reduced program of a cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleProgram {
    /// The model under which the violation was found.
    pub model: MemoryModel,
    /// The verified program's file.
    pub source: String,
    pub locations: Vec<SharedLocation>,
    pub threads: Vec<CycleThread>,
    /// The weak outcome: every condition holds together.
    pub outcome: Vec<Condition>,
    /// The reorderings the cycle needs, in cycle order, without repeats.
    pub relaxations: Vec<Relaxation>,
    /// The program's values could not tell the outcome apart (not
    /// integers, or equal): the reduced program uses its own (initial 0,
    /// stores 1, 2, ... per location).
    pub renumbered: bool,
    /// The lines of advised fences that fall outside the reduced threads.
    pub unplaced_fences: Vec<u32>,
}

/// A shared location of the cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedLocation {
    /// A C identifier for it.
    pub name: String,
    /// Its name in the report (`x`, `s.next`, `heap#0[1]`).
    pub source_name: String,
    pub initial: i64,
}

/// A thread of the cycle, reduced to the cycle's accesses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleThread {
    /// Its name in the report (`writer_x#0`).
    pub source_name: String,
    pub accesses: Vec<Access>,
    /// How many loads (registers `r0`, `r1`, ...) it makes.
    pub registers: usize,
}

/// One access of a reduced thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    Store {
        location: usize,
        value: i64,
        line: Option<u32>,
    },
    /// Reads `location` into register `register`.
    Load {
        location: usize,
        register: usize,
        line: Option<u32>,
    },
    /// A fence the diagnosis advises (in force only with the fix):
    /// `store_store` for PSO's store-store fence; `insert`, the C statement
    /// the diagnosis gives for it; `line`, the line it goes after.
    Fence {
        store_store: bool,
        insert: &'static str,
        line: u32,
    },
}

/// One condition of the weak outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// Thread `thread`'s register `register` holds `value`.
    Register {
        thread: usize,
        register: usize,
        value: i64,
    },
    /// `location` holds `value` at the end.
    Final { location: usize, value: i64 },
}

/// The weak outcome's conditions written with `register` (thread,
/// register, value) and `at_end` (location's name, value), joined by
/// `and`: the one walk the C header and the litmus test share.
pub fn outcome_terms(
    program: &CycleProgram,
    register: impl Fn(usize, usize, i64) -> String,
    at_end: impl Fn(&str, i64) -> String,
    and: &str,
) -> String {
    let terms: Vec<String> = program
        .outcome
        .iter()
        .map(|condition| match *condition {
            Condition::Register {
                thread,
                register: slot,
                value,
            } => register(thread, slot, value),
            Condition::Final { location, value } => {
                at_end(&program.locations[location].name, value)
            }
        })
        .collect();
    terms.join(and)
}

/// A reordering the cycle needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relaxation {
    /// A store still buffered when a later load of another location reads.
    StoreLoad,
    /// A store reaching memory after a later store of another location (PSO).
    StoreStore,
}

/// One access of the cycle, before its thread is put in program order.
#[derive(Debug, Clone)]
struct Event<'a> {
    step: &'a CycleStep,
    thread: usize,
    location: usize,
    store: bool,
    /// The event of the cycle it reads from (`None`: the initial value).
    reads_from: Option<usize>,
}

impl CycleProgram {
    /// The reduced program of `report`'s violation.
    pub fn from_report(report: &VerifyReport) -> Result<CycleProgram, Unreproducible> {
        if report.verdict != Verdict::Violation {
            return Err(Unreproducible::NoViolation(report.verdict.name()));
        }
        let diagnosis = report.diagnosis.as_ref().ok_or(Unreproducible::NoCycle)?;
        CycleProgram::from_diagnosis(diagnosis, report.model, &report.file)
    }

    /// The reduced program of the cycle of `diagnosis`, a violation of
    /// `source` under `model`.
    pub fn from_diagnosis(
        diagnosis: &DiagnosisReport,
        model: MemoryModel,
        source: &str,
    ) -> Result<CycleProgram, Unreproducible> {
        let steps = &diagnosis.cycle;
        if steps.is_empty() {
            return Err(Unreproducible::NoCycle);
        }
        check_operations(steps)?;
        let mut thread_names: Vec<String> = Vec::new();
        let mut location_names: Vec<String> = Vec::new();
        let mut events: Vec<Event> = steps
            .iter()
            .map(|step| Event {
                step,
                thread: index_of(&mut thread_names, &step.thread),
                location: index_of(&mut location_names, location_of(step)),
                store: step.operation == CycleOperation::Store,
                reads_from: None,
            })
            .collect();
        link_reads(&mut events);
        let (initials, values, renumbered) = choose_values(&events, location_names.len());
        let finals = final_values(&events, &values, &location_names)?;
        let mut program = CycleProgram {
            model,
            source: source.to_string(),
            locations: shared_locations(&location_names, &initials),
            threads: Vec::new(),
            outcome: Vec::new(),
            relaxations: relaxations(steps),
            renumbered,
            unplaced_fences: Vec::new(),
        };
        program.build_threads(&thread_names, &events, &values);
        program.outcome.extend(finals);
        program.place_fences(diagnosis, &thread_names, &events);
        Ok(program)
    }

    /// The threads in program order, with their registers and the
    /// outcome's register conditions.
    fn build_threads(&mut self, names: &[String], events: &[Event], values: &[i64]) {
        for (thread, name) in names.iter().enumerate() {
            let mut mine: Vec<usize> = (0..events.len())
                .filter(|&at| events[at].thread == thread)
                .collect();
            mine.sort_by_key(|&at| events[at].step.program_order);
            let mut reduced = CycleThread {
                source_name: name.clone(),
                accesses: Vec::new(),
                registers: 0,
            };
            for at in mine {
                let event = &events[at];
                let line = event.step.point.line;
                if event.store {
                    reduced.accesses.push(Access::Store {
                        location: event.location,
                        value: values[at],
                        line,
                    });
                    continue;
                }
                let register = reduced.registers;
                reduced.registers += 1;
                reduced.accesses.push(Access::Load {
                    location: event.location,
                    register,
                    line,
                });
                self.outcome.push(Condition::Register {
                    thread,
                    register,
                    value: values[at],
                });
            }
            self.threads.push(reduced);
        }
    }

    /// Puts each advised fence between the accesses of its thread: right
    /// after the access of the statement it follows, else right before
    /// the access of the statement it precedes.
    fn place_fences(&mut self, diagnosis: &DiagnosisReport, names: &[String], events: &[Event]) {
        for fence in &diagnosis.fences {
            let placed = names
                .iter()
                .position(|name| *name == fence.thread)
                .and_then(|thread| {
                    self.fence_position(fence, thread, events)
                        .map(|at| (thread, at))
                });
            match placed {
                Some((thread, at)) => {
                    let accesses = &mut self.threads[thread].accesses;
                    let is_fence =
                        |access: Option<&Access>| matches!(access, Some(Access::Fence { .. }));
                    let already = is_fence(accesses.get(at))
                        || is_fence(at.checked_sub(1).and_then(|before| accesses.get(before)));
                    if !already {
                        accesses.insert(
                            at,
                            Access::Fence {
                                store_store: fence.kind == "store-store",
                                insert: fence.insert,
                                line: fence.after_line,
                            },
                        );
                    }
                }
                None => self.unplaced_fences.push(fence.after_line),
            }
        }
    }

    /// The index in `thread`'s accesses at which `fence` goes.
    fn fence_position(
        &self,
        fence: &FenceAdvice,
        thread: usize,
        events: &[Event],
    ) -> Option<usize> {
        let accesses = &self.threads[thread].accesses;
        let mut mine: Vec<&Event> = events.iter().filter(|e| e.thread == thread).collect();
        mine.sort_by_key(|event| event.step.program_order);
        // the accesses are `mine` in order, with fences placed before
        let access_index = |event_at: usize| {
            let mut seen = 0;
            accesses.iter().position(|access| {
                if matches!(access, Access::Fence { .. }) {
                    return false;
                }
                seen += 1;
                seen == event_at + 1
            })
        };
        let at_statement = |event: &&Event, line: u32, column: u32| {
            event.step.point.line == Some(line) && event.step.point.column == Some(column)
        };
        let after = &fence.after_statement;
        if let Some(last) = mine
            .iter()
            .rposition(|event| at_statement(event, after.line, after.column))
        {
            return access_index(last).map(|index| index + 1);
        }
        let before = fence.before_statement.as_ref()?;
        let first = mine
            .iter()
            .position(|event| at_statement(event, before.line, before.column))?;
        access_index(first)
    }

    /// Whether the cycle needs a store-store reordering: PSO's, which
    /// TSO machines such as x86-64 never show.
    pub fn needs_store_store(&self) -> bool {
        self.relaxations.contains(&Relaxation::StoreStore)
    }
}

/// Refuses a cycle with anything but loads and stores of known values.
fn check_operations(steps: &[CycleStep]) -> Result<(), Unreproducible> {
    for step in steps {
        let what = match step.operation {
            CycleOperation::Store | CycleOperation::Load => continue,
            CycleOperation::Rmw => "an atomic read-modify-write",
            CycleOperation::Lock => "a lock",
            CycleOperation::Unlock => "an unlock",
            CycleOperation::Other => "an access other than a load or store",
        };
        let line = step
            .point
            .line
            .map_or_else(|| "?".to_string(), |line| line.to_string());
        return Err(Unreproducible::Unsupported { what, line });
    }
    Ok(())
}

/// The index of `name` in `names`, added at the end when new.
fn index_of(names: &mut Vec<String>, name: &str) -> usize {
    names
        .iter()
        .position(|known| known == name)
        .unwrap_or_else(|| {
            names.push(name.to_string());
            names.len() - 1
        })
}

/// The location of a step (its point names it).
fn location_of(step: &CycleStep) -> &str {
    step.point.location.as_deref().unwrap_or("?")
}

/// Links each load to the store of the cycle it reads from: the step
/// before it, when that step's relation is reads-from.
fn link_reads(events: &mut [Event]) {
    let count = events.len();
    for at in 0..count {
        let previous = (at + count - 1) % count;
        let from = &events[previous];
        let reads = !events[at].store
            && from.store
            && from.step.then == "reads-from"
            && from.location == events[at].location;
        if reads {
            events[at].reads_from = Some(previous);
        }
    }
}

/// The initial value of each location and the value of each event (a
/// store's value, a load's expected value), and whether they were
/// renumbered because the program's values cannot tell the outcome apart.
fn choose_values(events: &[Event], locations: usize) -> (Vec<i64>, Vec<i64>, bool) {
    match program_values(events, locations) {
        Some((initials, values)) => (initials, values, false),
        None => {
            let (initials, values) = own_values(events, locations);
            (initials, values, true)
        }
    }
}

/// A value that fits a C `int`.
fn int_value(step: &CycleStep) -> Option<i64> {
    let value: i64 = step.value.as_deref()?.parse().ok()?;
    i32::try_from(value).ok().map(i64::from)
}

/// The program's own values, when they are integers that fit an `int`
/// and tell every store of a location apart from the others and from the
/// value its initial loads read (which becomes the initial value).
fn program_values(events: &[Event], locations: usize) -> Option<(Vec<i64>, Vec<i64>)> {
    let values: Vec<i64> = events
        .iter()
        .map(|e| int_value(e.step))
        .collect::<Option<_>>()?;
    let mut initials = Vec::with_capacity(locations);
    for location in 0..locations {
        let here = |e: &&Event| e.location == location;
        let stored: Vec<i64> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| here(e) && e.store)
            .map(|(at, _)| values[at])
            .collect();
        let mut distinct = stored.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() != stored.len() {
            return None;
        }
        let mut initial_reads = events
            .iter()
            .enumerate()
            .filter(|(_, e)| here(e) && !e.store && e.reads_from.is_none())
            .map(|(at, _)| values[at]);
        let initial = match initial_reads.next() {
            Some(first) => {
                if initial_reads.any(|other| other != first) {
                    return None;
                }
                first
            }
            None => (0..).find(|candidate| !stored.contains(candidate))?,
        };
        if stored.contains(&initial) {
            return None;
        }
        initials.push(initial);
    }
    let values = expected_loads(events, values, &initials);
    Some((initials, values))
}

/// The reduced program's own values: every location starts at 0, its
/// stores write 1, 2, ... in cycle order.
fn own_values(events: &[Event], locations: usize) -> (Vec<i64>, Vec<i64>) {
    let mut next = vec![1_i64; locations];
    let values = events
        .iter()
        .map(|event| {
            if !event.store {
                return 0;
            }
            let value = next[event.location];
            next[event.location] += 1;
            value
        })
        .collect();
    let initials = vec![0; locations];
    (initials.clone(), expected_loads(events, values, &initials))
}

/// `values` with each load's value the one it must read in the reduced
/// program: its store's, or its location's initial value.
fn expected_loads(events: &[Event], mut values: Vec<i64>, initials: &[i64]) -> Vec<i64> {
    for (at, event) in events.iter().enumerate() {
        if !event.store {
            values[at] = match event.reads_from {
                Some(store) => values[store],
                None => initials[event.location],
            };
        }
    }
    values
}

/// The final values the outcome needs: for each location whose stores
/// the cycle orders (a coherence step, or a load from one store that a
/// later store overwrites), the value of the later store.
fn final_values(
    events: &[Event],
    values: &[i64],
    names: &[String],
) -> Result<Vec<Condition>, Unreproducible> {
    let count = events.len();
    let mut later_stores: Vec<(usize, usize)> = Vec::new();
    for (at, event) in events.iter().enumerate() {
        let next = (at + 1) % count;
        let earlier = match event.step.then {
            "coherence" if event.store => Some(at),
            "from-read" if !event.store => event.reads_from,
            _ => None,
        };
        if let Some(earlier) = earlier
            && events[next].store
            && events[earlier].location == events[next].location
        {
            later_stores.push((events[next].location, next));
        }
    }
    let mut conditions: Vec<Condition> = Vec::new();
    for (location, store) in later_stores {
        let stores = events
            .iter()
            .filter(|e| e.store && e.location == location)
            .count();
        if stores > 2 {
            return Err(Unreproducible::StoreOrder(names[location].clone()));
        }
        let condition = Condition::Final {
            location,
            value: values[store],
        };
        if !conditions.contains(&condition) {
            conditions.push(condition);
        }
    }
    Ok(conditions)
}

/// The reorderings of the cycle's relaxed steps.
fn relaxations(steps: &[CycleStep]) -> Vec<Relaxation> {
    let mut found = Vec::new();
    for (at, step) in steps.iter().enumerate() {
        if !step.relaxed {
            continue;
        }
        let next = &steps[(at + 1) % steps.len()];
        let relaxation = match next.operation {
            CycleOperation::Store => Relaxation::StoreStore,
            _ => Relaxation::StoreLoad,
        };
        if !found.contains(&relaxation) {
            found.push(relaxation);
        }
    }
    found
}

/// The locations with C identifiers for their names.
fn shared_locations(names: &[String], initials: &[i64]) -> Vec<SharedLocation> {
    let mut taken: Vec<String> = Vec::new();
    names
        .iter()
        .zip(initials)
        .map(|(name, &initial)| {
            let identifier = unique_identifier(name, &taken);
            taken.push(identifier.clone());
            SharedLocation {
                name: identifier,
                source_name: name.clone(),
                initial,
            }
        })
        .collect()
}

/// Words a location cannot be called in the reduced programs: C's
/// keywords, the registers, and the names the programs use themselves.
fn reserved(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "main",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "exists",
        "forall",
        "locations",
        "filter",
        "arg",
    ];
    let register = word
        .strip_prefix('r')
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
    let thread = word
        .strip_prefix('P')
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
    WORDS.contains(&word) || register || thread || word.starts_with("repro_")
}

/// A C identifier for the location `name`, other than those `taken`.
fn unique_identifier(name: &str, taken: &[String]) -> String {
    let mut identifier: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    identifier = identifier.trim_end_matches('_').to_string();
    if identifier.is_empty() || identifier.starts_with(|c: char| c.is_ascii_digit()) {
        identifier.insert_str(0, "v_");
    }
    if reserved(&identifier) {
        identifier.push_str("_v");
    }
    let base = identifier.clone();
    let mut suffix = 1;
    while taken.contains(&identifier) {
        identifier = format!("{base}_{suffix}");
        suffix += 1;
    }
    identifier
}

#[cfg(test)]
mod tests;
