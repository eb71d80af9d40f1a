//! A brute-force operational explorer of [`Program`]s under SC, TSO and
//! PSO: every interleaving of thread steps, nondeterministic values and
//! store-buffer flushes (one
//! FIFO buffer per thread under TSO, one per thread and location under
//! PSO; fences, RMWs, locks, creations and joins wait for empty buffers),
//! collecting the final state and the reads-from map of every complete
//! execution. Independent of lazysma's interpreter. The stores of the
//! outputs that main reads after the joins go to memory at once.

use super::program::{Instr, Program, Value2};
use std::collections::{BTreeMap, HashSet};

/// A write: its thread and instruction, or the initial value.
type Writer = Option<(usize, usize)>;

/// What a complete execution read from where: each reading instruction
/// (loads, RMWs, lock acquisitions) and its writer.
pub type ReadsFrom = BTreeMap<(usize, usize), Writer>;

/// The value each choosing instruction took.
pub type Chosen = BTreeMap<(usize, usize), i64>;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    pc: Vec<usize>,
    locals: Vec<Vec<i64>>,
    memory: Vec<(i64, Writer)>,
    buffers: Vec<Vec<(usize, i64, Writer)>>,
    created: Vec<bool>,
    rf: ReadsFrom,
    chosen: Chosen,
}

/// What the exploration found.
#[derive(Debug, Default)]
pub struct Outcomes {
    /// Final values of the observed locations (variables, outputs).
    pub finals: HashSet<Vec<i64>>,
    pub reads_from: HashSet<ReadsFrom>,
    /// The reads-from map and the values chosen of every complete
    /// execution: its class.
    pub classes: HashSet<(ReadsFrom, Chosen)>,
}

struct Explorer {
    code: Vec<Vec<Instr>>,
    model: &'static str,
    observed: Vec<usize>,
    /// The first output location: only main reads outputs, after joining
    /// their thread, so their stores go to memory at once (their flushes
    /// would only multiply the interleavings).
    outputs: usize,
    visited: HashSet<State>,
    outcomes: Outcomes,
}

/// Explores every execution of `program` under `model` (`sc`, `tso`,
/// `pso`).
pub fn explore(program: &Program, model: &'static str) -> Outcomes {
    let code = program.instructions();
    let threads = code.len();
    let observed_count = program.observed().len();
    let observed = (0..observed_count)
        .map(|at| if at < program.vars { at } else { at + 1 })
        .collect();
    let locations = observed_count + 1;
    let locals = code
        .iter()
        .map(|instrs| {
            let defined = instrs
                .iter()
                .filter_map(|instr| match *instr {
                    Instr::Load(_, local)
                    | Instr::FetchAdd(_, _, local)
                    | Instr::Cas(_, _, _, local)
                    | Instr::Choose(local) => Some(local + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            vec![0; defined]
        })
        .collect();
    let mut created = vec![false; threads];
    created[0] = true;
    let initial = State {
        pc: vec![0; threads],
        locals,
        memory: vec![(0, None); locations],
        buffers: vec![Vec::new(); threads],
        created,
        rf: BTreeMap::new(),
        chosen: BTreeMap::new(),
    };
    let mut explorer = Explorer {
        code,
        model,
        observed,
        outputs: program.vars + 1,
        visited: HashSet::new(),
        outcomes: Outcomes::default(),
    };
    explorer.search(initial);
    explorer.outcomes
}

impl Explorer {
    fn search(&mut self, initial: State) {
        let mut stack = vec![initial];
        while let Some(state) = stack.pop() {
            if !self.visited.insert(state.clone()) {
                continue;
            }
            let mut moved = false;
            for thread in 0..state.pc.len() {
                if let Some(next) = self.step(&state, thread) {
                    stack.push(next);
                    moved = true;
                }
                if let Some(mut other) = self.other_choice(&state, thread) {
                    stack.append(&mut other);
                    moved = true;
                }
                for index in self.flushable(&state.buffers[thread]) {
                    let mut next = state.clone();
                    let (location, value, writer) = next.buffers[thread].remove(index);
                    next.memory[location] = (value, writer);
                    stack.push(next);
                    moved = true;
                }
            }
            let finished = (0..state.pc.len()).all(|t| state.pc[t] == self.code[t].len());
            if !moved && finished {
                let finals = self.observed.iter().map(|&l| state.memory[l].0).collect();
                self.outcomes.finals.insert(finals);
                self.outcomes.reads_from.insert(state.rf.clone());
                let class = (state.rf.clone(), state.chosen.clone());
                self.outcomes.classes.insert(class);
            }
        }
    }

    fn flushable(&self, buffer: &[(usize, i64, Writer)]) -> Vec<usize> {
        match self.model {
            "tso" if !buffer.is_empty() => vec![0],
            "pso" => {
                let mut seen = Vec::new();
                let mut indices = Vec::new();
                for (index, store) in buffer.iter().enumerate() {
                    if !seen.contains(&store.0) {
                        seen.push(store.0);
                        indices.push(index);
                    }
                }
                indices
            }
            _ => Vec::new(),
        }
    }

    /// Thread `thread`'s next instruction taking 1 if it chooses (`step`
    /// takes 0).
    fn other_choice(&self, state: &State, thread: usize) -> Option<Vec<State>> {
        let pc = state.pc[thread];
        let Some(&Instr::Choose(local)) = self.code[thread].get(pc) else {
            return None;
        };
        let mut next = self.step(state, thread)?;
        next.locals[thread][local] = 1;
        next.chosen.insert((thread, pc), 1);
        Some(vec![next])
    }

    /// Thread `thread`'s next instruction, if it can run.
    fn step(&self, state: &State, thread: usize) -> Option<State> {
        let pc = state.pc[thread];
        let instr = *self.code[thread].get(pc)?;
        if !state.created[thread] {
            return None;
        }
        let drained = state.buffers[thread].is_empty();
        let me = Some((thread, pc));
        let mut next = state.clone();
        next.pc[thread] += 1;
        match instr {
            Instr::Store(location, value) => {
                let value = match value {
                    Value2::Const(c) => c,
                    Value2::Local(k, c) => state.locals[thread][k] + c,
                };
                if self.model == "sc" || location >= self.outputs {
                    next.memory[location] = (value, me);
                } else {
                    next.buffers[thread].push((location, value, me));
                }
            }
            Instr::Load(location, local) => {
                let own = state.buffers[thread]
                    .iter()
                    .rev()
                    .find(|store| store.0 == location);
                let (value, writer) = match own {
                    Some(&(_, value, writer)) => (value, writer),
                    None => state.memory[location],
                };
                next.locals[thread][local] = value;
                next.rf.insert((thread, pc), writer);
            }
            Instr::Fence if drained => {}
            Instr::FetchAdd(location, add, local) if drained => {
                let (old, writer) = state.memory[location];
                next.locals[thread][local] = old;
                next.rf.insert((thread, pc), writer);
                next.memory[location] = (old + add, me);
            }
            Instr::Cas(location, expected, new, local) if drained => {
                let (old, writer) = state.memory[location];
                next.locals[thread][local] = old;
                next.rf.insert((thread, pc), writer);
                if old == expected {
                    next.memory[location] = (new, me);
                }
            }
            Instr::Lock(location) if drained && state.memory[location].0 == 0 => {
                next.rf.insert((thread, pc), state.memory[location].1);
                next.memory[location] = (1, me);
            }
            Instr::Unlock(location) if drained => next.memory[location] = (0, me),
            Instr::Choose(local) => {
                next.locals[thread][local] = 0;
                next.chosen.insert((thread, pc), 0);
            }
            Instr::Create(child) if drained => next.created[child] = true,
            Instr::Join(child)
                if state.pc[child] == self.code[child].len() && state.buffers[child].is_empty() => {
            }
            _ => return None,
        }
        Some(next)
    }
}
