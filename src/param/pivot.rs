//! Reachability of a failing property for any number of copies of a
//! process under TSO, by the pivot abstraction of Abdulla, Atig and Rezvan
//! (POPL 2020, section 4).
//!
//! A concrete run ranks the assignments `(x, d)` by the first time each
//! reaches memory: the pivot assignment sequence `ω`. The k-provider, a
//! copy run from the initial state, must write `ω[k]` using only
//! assignments of lower rank (write(2) ends it); the verifier, run last,
//! may use all of `ω` and must reach the failing property. A provider's
//! view (section 4.3) is its state, its latest write per variable `L`,
//! the external pointer `φE` (how far along `ω` memory was when it last
//! read from memory or fenced), and a local pointer `φL(x)` per variable
//! (the highest rank of its own writes up to its latest write of `x`).
//! The rules (Fig. 2):
//!
//! - write(1) `w(x, d)`, rank `r < φP`: `L(x) = d`,
//!   `φL(x) = max(φL^max, r)`; write(2), `r = φP`: the provider is done;
//! - read(1): `L(x) = d` (its own buffered write);
//! - read(2): `L(x) = ∅`, no assignment of `x` in `ω[1..φE]`, `d` the
//!   initial value;
//! - read(3): rank `r < φP`: `φE = max(φE, φL(x), r)`;
//! - fence: `φE = max(φE, φL^max)`.
//!
//! Given `ω`, each provider and the verifier run on their own, so the
//! search grows `ω` one assignment at a time: one exploration of the
//! views of the (|ω|+1)-provider from its initial view gives both whether
//! the verifier reaches a failing property with `ω` and which assignments
//! a provider can write next (write(2)). Prefixes are memoised. The
//! sequence has at most as many assignments as there are pairs of a
//! variable and a value of its domain.
//!
//! Every concrete run is simulated by such a pivot run (the argument of
//! section 5.1; our read(3) needs no `L(x) ≠ d`, which only adds runs),
//! so "no failing property reachable" holds for every number of threads.
//! The converse (section 5.2) is where the copies come from; lazysma does
//! not rely on it: a parameterised counterexample is replayed with a
//! concrete number of threads by the native engine before it is reported.
//!
//! Under SC the same search runs with a fence after every write (TSO with
//! a full fence after each store is SC).

use super::process::{Operation, Process, Target};
use super::refusal::Refusal;
use std::collections::{HashMap, HashSet, VecDeque};

/// The most pivot assignment sequences the search explores.
pub const MAX_SEQUENCES: usize = 20_000;
/// The most views one exploration stores.
pub const MAX_VIEWS: usize = 2_000_000;

/// The memory model of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Semantics {
    Tso,
    Sc,
}

/// An assignment `(x, d)`: indices of the variable and of the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Assignment {
    pub variable: usize,
    pub value: usize,
}

/// The search's answer.
#[derive(Debug, Clone)]
pub enum Answer {
    /// No pivot run reaches a failing property.
    Safe(Statistics),
    /// The verifier reaches the property of `violation` with the pivot
    /// assignment sequence `sequence`.
    Unsafe {
        sequence: Vec<Assignment>,
        violation: usize,
        statistics: Statistics,
    },
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Statistics {
    /// Pivot assignment sequences explored.
    pub sequences: usize,
    /// Views stored, over all explorations.
    pub views: usize,
    /// The longest sequence explored.
    pub longest: usize,
}

/// A provider's view, without the sequence (fixed per exploration) and
/// the progress pointer (its length plus one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct View {
    state: u32,
    external: u8,
    /// Per variable: 0 for no write, else the value index plus one.
    last_write: Vec<u8>,
    local: Vec<u8>,
}

/// What one exploration of the views of the (|ω|+1)-provider finds.
struct Explored {
    violation: Option<usize>,
    providable: Vec<Assignment>,
    views: usize,
}

/// Searches every pivot assignment sequence.
pub fn search(process: &Process, semantics: Semantics) -> Result<Answer, Refusal> {
    let assignments: usize = process.domains.iter().map(Vec::len).sum();
    if assignments >= usize::from(u8::MAX) {
        return Err(Refusal::new(
            format!(
                "the thread's shared variables have {assignments} assignments, more than the check stores"
            ),
            None,
            "narrow the shared variables' domains",
        ));
    }
    let mut statistics = Statistics::default();
    let mut seen: HashSet<Vec<Assignment>> = HashSet::new();
    let mut stack: Vec<Vec<Assignment>> = vec![Vec::new()];
    while let Some(sequence) = stack.pop() {
        if !seen.insert(sequence.clone()) {
            continue;
        }
        statistics.sequences += 1;
        statistics.longest = statistics.longest.max(sequence.len());
        if statistics.sequences > MAX_SEQUENCES {
            return Err(Refusal::new(
                format!("the search explores more than {MAX_SEQUENCES} pivot assignment sequences"),
                None,
                "the check takes small finite-state threads; narrow the shared variables' domains",
            ));
        }
        let explored = explore(process, semantics, &sequence)?;
        statistics.views += explored.views;
        if let Some(violation) = explored.violation {
            return Ok(Answer::Unsafe {
                sequence,
                violation,
                statistics,
            });
        }
        for assignment in explored.providable.into_iter().rev() {
            let mut longer = sequence.clone();
            longer.push(assignment);
            stack.push(longer);
        }
    }
    Ok(Answer::Safe(statistics))
}

/// Explores the views of the (|ω|+1)-provider from its initial view.
fn explore(
    process: &Process,
    semantics: Semantics,
    sequence: &[Assignment],
) -> Result<Explored, Refusal> {
    let variables = process.variables.len();
    let rank: HashMap<Assignment, u8> = sequence
        .iter()
        .enumerate()
        .map(|(at, assignment)| (*assignment, u8::try_from(at + 1).unwrap_or(u8::MAX)))
        .collect();
    // the first position of an assignment of each variable in ω (dirty
    // from there on)
    let dirty_from: Vec<u8> = (0..variables)
        .map(|variable| {
            sequence
                .iter()
                .position(|assignment| assignment.variable == variable)
                .map_or(u8::MAX, |at| u8::try_from(at + 1).unwrap_or(u8::MAX))
        })
        .collect();
    let initial = View {
        state: 0,
        external: 0,
        last_write: vec![0; variables],
        local: vec![0; variables],
    };
    let mut seen: HashSet<View> = HashSet::new();
    let mut queue = VecDeque::new();
    seen.insert(initial.clone());
    queue.push_back(initial);
    let mut providable: Vec<Assignment> = Vec::new();
    while let Some(view) = queue.pop_front() {
        let Some(transitions) = process.transitions.get(view.state as usize) else {
            continue;
        };
        for transition in transitions {
            let successors = step(&view, transition.operation, &rank, &dirty_from, semantics);
            let next = match successors {
                Step::Provides(assignment) => {
                    if !providable.contains(&assignment) {
                        providable.push(assignment);
                    }
                    continue;
                }
                Step::Views(next) => next,
            };
            for mut next in next {
                match transition.target {
                    Target::Violation(violation) => {
                        return Ok(Explored {
                            violation: Some(violation),
                            providable,
                            views: seen.len(),
                        });
                    }
                    Target::State(state) => {
                        next.state = u32::try_from(state).unwrap_or(u32::MAX);
                        if seen.insert(next.clone()) {
                            if seen.len() > MAX_VIEWS {
                                return Err(Refusal::new(
                                    format!("one provider has more than {MAX_VIEWS} views"),
                                    None,
                                    "the check takes small finite-state threads",
                                ));
                            }
                            queue.push_back(next);
                        }
                    }
                }
            }
        }
    }
    providable.sort();
    Ok(Explored {
        violation: None,
        providable,
        views: seen.len(),
    })
}

enum Step {
    /// The views after the operation (none when it cannot happen).
    Views(Vec<View>),
    /// write(2) of an assignment not yet in ω: a provider ends here.
    Provides(Assignment),
}

fn step(
    view: &View,
    operation: Operation,
    rank: &HashMap<Assignment, u8>,
    dirty_from: &[u8],
    semantics: Semantics,
) -> Step {
    let local_max = view.local.iter().copied().max().unwrap_or(0);
    match operation {
        Operation::Skip => Step::Views(vec![view.clone()]),
        Operation::Fence => {
            let mut next = view.clone();
            next.external = next.external.max(local_max);
            Step::Views(vec![next])
        }
        Operation::Write { variable, value } => {
            let assignment = Assignment { variable, value };
            let Some(&rank) = rank.get(&assignment) else {
                return Step::Provides(assignment);
            };
            let mut next = view.clone();
            next.last_write[variable] = u8::try_from(value + 1).unwrap_or(u8::MAX);
            next.local[variable] = local_max.max(rank);
            if semantics == Semantics::Sc {
                next.external = next.external.max(next.local[variable]);
            }
            Step::Views(vec![next])
        }
        Operation::Read { variable, value } => {
            let mut views = Vec::new();
            let own = u8::try_from(value + 1).unwrap_or(u8::MAX);
            // read(1): its own latest write
            if view.last_write[variable] == own {
                views.push(view.clone());
            }
            // read(2): the initial value, clean for the provider (value
            // index 0 is the initial value)
            if view.last_write[variable] == 0 && value == 0 && dirty_from[variable] > view.external
            {
                views.push(view.clone());
            }
            // read(3): an assignment of lower rank from memory
            if let Some(&rank) = rank.get(&Assignment { variable, value }) {
                let mut next = view.clone();
                next.external = view.external.max(view.local[variable]).max(rank);
                if !views.contains(&next) {
                    views.push(next);
                }
            }
            Step::Views(views)
        }
    }
}
