//! Differential check of the SMA implementations (Theorems 1 and 2 of
//! Tomasco et al., FMCAD 2016): for the same sequence of SMA operations,
//! `etso.h` and `tso_ref.h` reach the same set of outcomes, and so do
//! `epso.h` and `pso_ref.h`; and SC ⊆ TSO ⊆ PSO.
//!
//! Each operation sequence (hand-written litmus shapes and pseudo-random
//! ones) becomes a C harness whose outcome is the vector of values returned
//! by its reads and RMWs plus the final memory. The harness asserts the
//! negation of every candidate outcome, so one CBMC run per model reports
//! exactly the reachable outcomes (the failing assertions). Bounds are
//! chosen per model so that none of them cuts off a behaviour. Every model
//! also reaches the same outcomes compiled with `SMA_VERDICT_ONLY` (no
//! event records, write ids or memory order).

use crate::sma_support as support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use support::{Model, Status};

/// Thread slots 1.. run the operations; slot 0 reads the final memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Write {
        thread: u32,
        loc: u32,
        value: i32,
    },
    Read {
        thread: u32,
        loc: u32,
    },
    Fence {
        thread: u32,
    },
    StoreFence {
        thread: u32,
    },
    Exchange {
        thread: u32,
        loc: u32,
        value: i32,
    },
    Cas {
        thread: u32,
        loc: u32,
        expected: i32,
        value: i32,
    },
    Lock {
        thread: u32,
        mutex: u32,
    },
    Unlock {
        thread: u32,
        mutex: u32,
    },
}

impl Op {
    fn thread(self) -> u32 {
        match self {
            Op::Write { thread, .. }
            | Op::Read { thread, .. }
            | Op::Fence { thread }
            | Op::StoreFence { thread }
            | Op::Exchange { thread, .. }
            | Op::Cas { thread, .. }
            | Op::Lock { thread, .. }
            | Op::Unlock { thread, .. } => thread,
        }
    }

    /// The location the operation writes in memory, with the value, if any.
    fn written(self) -> Option<(u32, i32)> {
        match self {
            Op::Write { loc, value, .. }
            | Op::Exchange { loc, value, .. }
            | Op::Cas { loc, value, .. } => Some((loc, value)),
            Op::Lock { mutex, .. } => Some((mutex, 1)),
            Op::Unlock { mutex, .. } => Some((mutex, 0)),
            _ => None,
        }
    }

    /// The location whose value the operation returns, if any.
    fn observed(self) -> Option<u32> {
        match self {
            Op::Read { loc, .. } | Op::Exchange { loc, .. } | Op::Cas { loc, .. } => Some(loc),
            _ => None,
        }
    }
}

/// A sequence of SMA operations over locations 1..locations-1 (initially 0).
#[derive(Debug, Clone)]
struct Program {
    name: String,
    locations: u32,
    ops: Vec<Op>,
}

impl Program {
    fn threads(&self) -> u32 {
        self.ops.iter().map(|op| op.thread()).max().unwrap_or(0) + 1
    }

    /// The values location `loc` can hold: 0 and every value written to it.
    fn domain(&self, loc: u32) -> Vec<i32> {
        let mut values: BTreeSet<i32> = BTreeSet::from([0]);
        values.extend(
            self.ops
                .iter()
                .filter_map(|op| op.written())
                .filter(|&(l, _)| l == loc)
                .map(|(_, v)| v),
        );
        values.into_iter().collect()
    }

    /// The locations observed, in outcome order: one per returning operation,
    /// then every location's final value.
    fn observed_locations(&self) -> Vec<u32> {
        let mut observed: Vec<u32> = self.ops.iter().filter_map(|op| op.observed()).collect();
        observed.extend(1..self.locations);
        observed
    }

    fn max_count<K: Ord>(&self, key: impl Fn(&Op) -> Option<K>) -> u32 {
        let mut counts: BTreeMap<K, u32> = BTreeMap::new();
        for op in &self.ops {
            if let Some(k) = key(op) {
                *counts.entry(k).or_insert(0) += 1;
            }
        }
        counts.values().copied().max().unwrap_or(0)
    }

    /// Prologue bounds per model family, large enough to cut nothing off.
    fn bounds(&self) -> String {
        let buffered = self
            .ops
            .iter()
            .filter(|op| matches!(op, Op::Write { .. }))
            .count() as u32;
        let writes_per_location = self.max_count(|op| op.written().map(|(loc, _)| loc));
        let per_thread = self.max_count(|op| match op {
            Op::Write { thread, .. } => Some(*thread),
            _ => None,
        });
        let per_thread_location = self.max_count(|op| match op {
            Op::Write { thread, loc, .. } => Some((*thread, *loc)),
            _ => None,
        });
        format!(
            "#if defined(SMA_MODEL_ETSO) || defined(SMA_MODEL_EPSO)\n\
             #define SMA_QSIZE {}\n#define SMA_MAXCLOCK {}\n\
             #elif defined(SMA_MODEL_TSO_REF)\n#define SMA_QSIZE {}\n#define SMA_REF_FLUSH_ROUNDS {}\n\
             #elif defined(SMA_MODEL_PSO_REF)\n#define SMA_QSIZE {}\n#define SMA_REF_FLUSH_ROUNDS {}\n\
             #endif\n",
            writes_per_location + 1,
            buffered + 1,
            per_thread.max(1),
            buffered.max(1),
            per_thread_location.max(1),
            buffered.max(1),
        ) + &self.single_buffers(per_thread_location.max(1))
    }

    /// The threads that write once: `pso_ref.h` can give each one slot
    /// instead of a buffer per location.
    fn single_writers(&self) -> Vec<u32> {
        (1..self.threads())
            .filter(|&t| {
                self.ops
                    .iter()
                    .filter(|op| matches!(op, Op::Write { thread, .. } if *thread == t))
                    .count()
                    == 1
            })
            .collect()
    }

    /// With `-DSMA_REF_SINGLES`, `pso_ref.h`'s buffer lists as the
    /// translator writes them: one slot per thread that writes once, a
    /// buffer per location for the others.
    fn single_buffers(&self, qsize: u32) -> String {
        let singles = self.single_writers();
        let buffers: Vec<String> = (0..self.threads())
            .filter(|t| !singles.contains(t))
            .flat_map(|t| {
                (1..self.locations).map(move |v| format!(" F({t}, {v}, {qsize}, {qsize})"))
            })
            .collect();
        let slots: Vec<String> = singles.iter().map(|t| format!(" G({t}, 1)")).collect();
        let tests: Vec<String> = singles.iter().map(|t| format!("(t) == {t}")).collect();
        format!(
            "#if defined(SMA_MODEL_PSO_REF) && defined(SMA_REF_SINGLES)\n\
             #define SMA_REF_BUFFERS(F){}\n#define SMA_REF_SINGLE_BUFFERS(G){}\n#define SMA_REF_SINGLE(t) ({})\n\
             #endif\n",
            buffers.concat(),
            slots.concat(),
            if tests.is_empty() {
                "0".to_string()
            } else {
                tests.join(" || ")
            },
        )
    }

    /// The C harness: the operations in order, then the outcome assertions.
    fn harness(&self) -> Result<String, String> {
        let threads = self.threads();
        let mut c = String::new();
        let w = |error: std::fmt::Error| error.to_string();
        writeln!(c, "/* generated: differential harness \"{}\" */", self.name).map_err(w)?;
        writeln!(
            c,
            "#define SMA_THREADS {threads}\n#define SMA_LOCATIONS {}",
            self.locations
        )
        .map_err(w)?;
        c.push_str(&self.bounds());
        c.push_str("#include \"prologue.h\"\n\nint main(void)\n{\n");
        let observed = self.observed_locations();
        writeln!(c, "    sma_value_t o[{}];", observed.len()).map_err(w)?;
        c.push_str("    sma_init();\n");
        let mut slot = 0;
        for (stmt, op) in self.ops.iter().enumerate() {
            let line = match *op {
                Op::Write { thread, loc, value } => {
                    format!("sma_write({loc}, {value}, {thread}, {stmt});")
                }
                Op::Read { thread, loc } => {
                    format!("o[{slot}] = sma_read({loc}, {thread}, {stmt});")
                }
                Op::Fence { thread } => format!("sma_fence({thread}, {stmt});"),
                Op::StoreFence { thread } => format!("sma_store_fence({thread}, {stmt});"),
                Op::Exchange { thread, loc, value } => {
                    format!(
                        "o[{slot}] = sma_rmw({loc}, SMA_RMW_EXCHANGE, {value}, 0, {thread}, {stmt});"
                    )
                }
                Op::Cas {
                    thread,
                    loc,
                    expected,
                    value,
                } => {
                    format!(
                        "o[{slot}] = sma_rmw({loc}, SMA_RMW_CAS, {value}, {expected}, {thread}, {stmt});"
                    )
                }
                Op::Lock { thread, mutex } => format!("sma_lock({mutex}, {thread}, {stmt});"),
                Op::Unlock { thread, mutex } => format!("sma_unlock({mutex}, {thread}, {stmt});"),
            };
            if op.observed().is_some() {
                slot += 1;
            }
            writeln!(c, "    {line}").map_err(w)?;
        }
        let end = self.ops.len();
        for thread in 1..threads {
            writeln!(c, "    sma_join({thread}, 0, {end});").map_err(w)?;
        }
        for loc in 1..self.locations {
            writeln!(c, "    o[{slot}] = sma_read({loc}, 0, {end});").map_err(w)?;
            slot += 1;
        }
        for outcome in self.candidates() {
            let condition: Vec<String> = outcome
                .iter()
                .enumerate()
                .map(|(i, value)| format!("o[{i}] == {value}"))
                .collect();
            writeln!(
                c,
                "    __CPROVER_assert(!({}), \"outcome {}\");",
                condition.join(" && "),
                render(&outcome)
            )
            .map_err(w)?;
        }
        c.push_str("    return 0;\n}\n");
        Ok(c)
    }

    /// Every combination of values the observed locations can take.
    fn candidates(&self) -> Vec<Vec<i32>> {
        let mut outcomes: Vec<Vec<i32>> = vec![Vec::new()];
        for loc in self.observed_locations() {
            let domain = self.domain(loc);
            outcomes = outcomes
                .into_iter()
                .flat_map(|prefix| {
                    domain.iter().map(move |value| {
                        let mut next = prefix.clone();
                        next.push(*value);
                        next
                    })
                })
                .collect();
        }
        outcomes
    }
}

fn render(outcome: &[i32]) -> String {
    outcome
        .iter()
        .map(|value| value.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The outcomes CBMC finds reachable for `program` under `model`.
fn reachable_outcomes(
    cbmc: &Path,
    dir: &Path,
    program: &Program,
    model: Model,
    defines: &[&str],
) -> Result<BTreeSet<String>, String> {
    let file = dir.join(format!("{}.c", program.name));
    std::fs::write(&file, program.harness()?)
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    let include = support::harness_dir().display().to_string();
    let mut args = vec![model.define().to_string(), "-I".to_string(), include];
    args.extend(defines.iter().map(|define| define.to_string()));
    let run = support::run_cbmc(cbmc, &file, &args)?;
    let mut reachable = BTreeSet::new();
    for (description, status) in &run.properties {
        let Some(outcome) = description.strip_prefix("outcome ") else {
            return Err(format!("unexpected property \"{description}\""));
        };
        match status {
            Status::Failure => {
                reachable.insert(outcome.to_string());
            }
            Status::Success => {}
            Status::Other(text) => {
                return Err(format!("{}: outcome {outcome} is {text}", program.name));
            }
        }
    }
    if run.properties.len() != program.candidates().len() {
        return Err(format!(
            "{}: CBMC reported {} of {} outcomes",
            program.name,
            run.properties.len(),
            program.candidates().len()
        ));
    }
    if reachable.is_empty() {
        return Err(format!(
            "{} under {model:?}: no outcome reachable (everything cut off)",
            program.name
        ));
    }
    Ok(reachable)
}

/// Runs the program under all five models and checks the equivalences.
/// Returns the outcome sets of SC, TSO and PSO.
fn check_program(
    cbmc: &Path,
    dir: &Path,
    program: &Program,
) -> Result<[BTreeSet<String>; 3], String> {
    let mut sets = BTreeMap::new();
    for model in Model::ALL {
        let outcomes = reachable_outcomes(cbmc, dir, program, model, &[])?;
        let verdict_only = reachable_outcomes(cbmc, dir, program, model, &["-DSMA_VERDICT_ONLY"])?;
        if verdict_only != outcomes {
            return Err(format!(
                "{}: {model:?} reaches {outcomes:?} but {verdict_only:?} with SMA_VERDICT_ONLY\n{:?}",
                program.name, program.ops
            ));
        }
        sets.insert(model, outcomes);
    }
    let get = |model: Model| sets.get(&model).cloned().unwrap_or_default();
    let (sc, etso, epso, tso_ref, pso_ref) = (
        get(Model::Sc),
        get(Model::Etso),
        get(Model::Epso),
        get(Model::TsoRef),
        get(Model::PsoRef),
    );
    let name = &program.name;
    if etso != tso_ref {
        return Err(format!(
            "{name}: etso {etso:?} differs from tso_ref {tso_ref:?}\n{:?}",
            program.ops
        ));
    }
    if epso != pso_ref {
        return Err(format!(
            "{name}: epso {epso:?} differs from pso_ref {pso_ref:?}\n{:?}",
            program.ops
        ));
    }
    if !program.single_writers().is_empty() {
        let singles =
            reachable_outcomes(cbmc, dir, program, Model::PsoRef, &["-DSMA_REF_SINGLES"])?;
        if epso != singles {
            return Err(format!(
                "{name}: epso {epso:?} differs from pso_ref with single slots {singles:?}\n{:?}",
                program.ops
            ));
        }
    }
    if !sc.is_subset(&etso) || !etso.is_subset(&epso) {
        return Err(format!(
            "{name}: expected SC {sc:?} ⊆ TSO {etso:?} ⊆ PSO {epso:?}"
        ));
    }
    if sc.len() != 1 {
        return Err(format!(
            "{name}: a fixed sequence has exactly one SC outcome, got {sc:?}"
        ));
    }
    Ok([sc, etso, epso])
}

fn write(thread: u32, loc: u32, value: i32) -> Op {
    Op::Write { thread, loc, value }
}

fn read(thread: u32, loc: u32) -> Op {
    Op::Read { thread, loc }
}

const X: u32 = 1;
const Y: u32 = 2;

/// An outcome (values joined by commas) and whether it is reachable under
/// [SC, TSO, PSO].
type Expectation = (&'static str, [bool; 3]);

fn litmus() -> Vec<(Program, Vec<Expectation>)> {
    let program = |name: &str, locations: u32, ops: Vec<Op>| Program {
        name: name.to_string(),
        locations,
        ops,
    };
    vec![
        (
            program(
                "sb",
                3,
                vec![write(1, X, 1), read(1, Y), write(2, Y, 1), read(2, X)],
            ),
            vec![
                ("0,0,1,1", [false, true, true]),
                ("0,1,1,1", [true, true, true]),
            ],
        ),
        (
            program(
                "mp",
                3,
                vec![write(1, X, 1), write(1, Y, 1), read(2, Y), read(2, X)],
            ),
            vec![
                ("1,0,1,1", [false, false, true]),
                ("1,1,1,1", [true, true, true]),
            ],
        ),
        (
            program(
                "mp_store_fence",
                3,
                vec![
                    write(1, X, 1),
                    Op::StoreFence { thread: 1 },
                    write(1, Y, 1),
                    read(2, Y),
                    read(2, X),
                ],
            ),
            vec![
                ("1,0,1,1", [false, false, false]),
                ("0,0,1,1", [false, true, true]),
            ],
        ),
        (
            program(
                "2+2w",
                3,
                vec![
                    write(1, X, 1),
                    write(1, Y, 2),
                    write(2, Y, 1),
                    write(2, X, 2),
                ],
            ),
            vec![("1,1", [false, false, true]), ("2,1", [true, true, true])],
        ),
        (
            program(
                "forwarding",
                2,
                vec![
                    write(1, X, 1),
                    read(1, X),
                    write(2, X, 2),
                    read(2, X),
                    read(1, X),
                ],
            ),
            vec![
                ("1,2,1,2", [false, true, true]),
                ("1,2,2,2", [true, true, true]),
            ],
        ),
        (
            program(
                "sb_fenced",
                3,
                vec![
                    write(1, X, 1),
                    Op::Fence { thread: 1 },
                    read(1, Y),
                    write(2, Y, 1),
                    Op::Fence { thread: 2 },
                    read(2, X),
                ],
            ),
            vec![("0,0,1,1", [false, false, false])],
        ),
        (
            program(
                "iriw",
                3,
                vec![
                    write(1, X, 1),
                    write(2, Y, 1),
                    read(3, X),
                    read(3, Y),
                    read(4, Y),
                    read(4, X),
                ],
            ),
            vec![
                ("1,0,1,0,1,1", [false, false, false]),
                ("0,0,0,0,1,1", [false, true, true]),
            ],
        ),
        (
            program(
                "cas_past_buffer",
                3,
                vec![
                    write(1, X, 1),
                    Op::Cas {
                        thread: 2,
                        loc: X,
                        expected: 0,
                        value: 2,
                    },
                    read(1, X),
                    Op::Exchange {
                        thread: 2,
                        loc: Y,
                        value: 1,
                    },
                ],
            ),
            vec![
                ("0,1,0,1,1", [false, true, true]),
                ("1,1,0,1,1", [true, true, true]),
            ],
        ),
        (
            program(
                "lock",
                4,
                vec![
                    Op::Lock {
                        thread: 1,
                        mutex: 3,
                    },
                    write(1, X, 1),
                    write(1, Y, 1),
                    Op::Unlock {
                        thread: 1,
                        mutex: 3,
                    },
                    Op::Lock {
                        thread: 2,
                        mutex: 3,
                    },
                    read(2, Y),
                    read(2, X),
                    Op::Unlock {
                        thread: 2,
                        mutex: 3,
                    },
                ],
            ),
            vec![
                ("1,1,1,1,0", [true, true, true]),
                ("1,0,1,1,0", [false, false, false]),
            ],
        ),
    ]
}

#[test]
fn litmus_sequences_agree_across_implementations() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    let dir = tempfile::tempdir().map_err(|error| error.to_string())?;
    for (program, expectations) in litmus() {
        let sets = check_program(&cbmc, dir.path(), &program)?;
        for (outcome, reachable) in expectations {
            for (index, model) in ["SC", "TSO", "PSO"].iter().enumerate() {
                if sets[index].contains(outcome) != reachable[index] {
                    return Err(format!(
                        "{}: outcome {outcome} under {model}: expected reachable = {}, outcomes {:?}",
                        program.name, reachable[index], sets[index]
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Random(u64);

impl Random {
    fn below(&mut self, bound: u32) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as u32 % bound
    }
}

/// A pseudo-random sequence of 6 operations of 2 threads on 2 locations.
fn random_program(seed: u64) -> Program {
    let mut random = Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut ops = Vec::new();
    while ops.len() < 6 {
        let thread = 1 + random.below(2);
        let loc = 1 + random.below(2);
        let value = 1 + random.below(2) as i32;
        let op = match random.below(10) {
            0..=3 => Op::Write { thread, loc, value },
            4..=6 => Op::Read { thread, loc },
            7 => Op::StoreFence { thread },
            8 => Op::Fence { thread },
            _ => {
                if random.below(2) == 0 {
                    Op::Exchange { thread, loc, value }
                } else {
                    Op::Cas {
                        thread,
                        loc,
                        expected: 0,
                        value,
                    }
                }
            }
        };
        ops.push(op);
    }
    Program {
        name: format!("random_{seed}"),
        locations: 3,
        ops,
    }
}

#[test]
fn random_sequences_agree_across_implementations() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    let dir = tempfile::tempdir().map_err(|error| error.to_string())?;
    let mut weak = 0;
    for seed in 1..=8 {
        let program = random_program(seed);
        let [sc, tso, pso] = check_program(&cbmc, dir.path(), &program)?;
        if tso.len() > sc.len() || pso.len() > tso.len() {
            weak += 1;
        }
    }
    // the generator must produce sequences where the models differ at all
    if weak == 0 {
        return Err(
            "no random sequence shows a weak behaviour: the generator is too weak".to_string(),
        );
    }
    Ok(())
}

#[test]
fn generated_harnesses_compile_with_gcc() -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|error| error.to_string())?;
    let programs = litmus()
        .into_iter()
        .map(|(program, _)| program)
        .chain((1..=8).map(random_program));
    for program in programs {
        let file = dir.path().join(format!("{}.c", program.name));
        std::fs::write(&file, program.harness()?).map_err(|error| error.to_string())?;
        for model in Model::ALL {
            support::gcc_syntax_check(&file, &[model.define().to_string()])?;
        }
        support::gcc_syntax_check(
            &file,
            &[
                "-DSMA_MODEL_PSO_REF".to_string(),
                "-DSMA_REF_SINGLES".to_string(),
            ],
        )?;
    }
    Ok(())
}
