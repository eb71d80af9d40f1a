//! The happens-before cycle of an execution that sequential consistency
//! cannot have (Burnim, Sen and Stergiou, TACAS 2011, sec. 4): the graph
//! of program order, reads-from, coherence (the order in which the
//! witness's stores reached memory), from-read and the order of each
//! mutex's operations over the execution's memory events. An execution is
//! sequentially consistent exactly when some coherence makes this graph
//! acyclic; with the witness's coherence, a reads-from map SC cannot have
//! leaves a cycle, and its shortest cycle is the evidence the report shows
//! in source terms.

use crate::consistency::{EventId, Execution, Op, Phase, Source, Witness};
use crate::options::MemoryModel;
use std::collections::{HashMap, VecDeque};

/// Why one event of a cycle comes before the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Earlier in the same thread.
    ProgramOrder,
    /// The next event reads the value this one wrote.
    ReadsFrom,
    /// This store reached memory before the next one, to the same location.
    Coherence,
    /// This read took a value that the next store (to the same location)
    /// later overwrote.
    FromRead,
    /// This operation on a mutex came before the next one on it.
    MutexOrder,
}

/// One edge of a cycle: from `event` to the event of the next edge (the
/// last edge leads back to the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CycleEdge {
    pub event: EventId,
    pub relation: Relation,
    /// A program-order edge that `model` relaxes (a store before a later
    /// load of another location, and under PSO before a later store): the
    /// weak-memory step of the cycle.
    pub relaxed: bool,
}

/// The most events the search looks at (the graph grows as their square).
const MAX_EVENTS: usize = 2_000;

/// The shortest happens-before cycle of `execution` with the coherence of
/// `witness`; empty when there is none (the execution is SC) or when the
/// execution is too large to search.
pub fn happens_before_cycle(
    execution: &Execution,
    witness: &Witness,
    model: MemoryModel,
) -> Vec<CycleEdge> {
    let graph = Graph::new(execution, witness);
    if graph.nodes.len() > MAX_EVENTS {
        return Vec::new();
    }
    let mut best: Option<Vec<(EventId, Relation)>> = None;
    for &start in &graph.nodes {
        let bound = best.as_ref().map_or(usize::MAX, Vec::len);
        if let Some(cycle) = graph.shortest_cycle_through(start, bound) {
            best = Some(cycle);
        }
    }
    let edges = best
        .unwrap_or_default()
        .into_iter()
        .map(|(event, relation)| CycleEdge {
            event,
            relation,
            relaxed: false,
        })
        .collect();
    mark_relaxed(execution, edges, model)
}

/// Marks the program-order edges of `edges` that `model` relaxes.
fn mark_relaxed(
    execution: &Execution,
    mut edges: Vec<CycleEdge>,
    model: MemoryModel,
) -> Vec<CycleEdge> {
    let count = edges.len();
    for at in 0..count {
        if edges[at].relation != Relation::ProgramOrder {
            continue;
        }
        let from = &execution.event(edges[at].event).op;
        let to = &execution.event(edges[(at + 1) % count].event).op;
        edges[at].relaxed = match (model, from, to) {
            (MemoryModel::Sc, _, _) => false,
            (_, Op::Write { var: a }, Op::Read { var: b, .. }) => a != b,
            (MemoryModel::Pso, Op::Write { var: a }, Op::Write { var: b }) => a != b,
            _ => false,
        };
    }
    edges
}

/// The happens-before graph over the memory events.
struct Graph {
    nodes: Vec<EventId>,
    edges: HashMap<EventId, Vec<(EventId, Relation)>>,
}

impl Graph {
    fn new(execution: &Execution, witness: &Witness) -> Graph {
        let nodes: Vec<EventId> = (0..execution.events().len())
            .filter(|&event| is_memory_event(&execution.event(event).op))
            .collect();
        let mut graph = Graph {
            nodes,
            edges: HashMap::new(),
        };
        graph.program_order(execution);
        graph.reads_from_and_from_read(execution, witness);
        graph.mutex_order(execution, witness);
        graph
    }

    fn add(&mut self, from: EventId, to: EventId, relation: Relation) {
        if from != to {
            self.edges.entry(from).or_default().push((to, relation));
        }
    }

    fn program_order(&mut self, execution: &Execution) {
        for thread in execution.threads() {
            let events: Vec<EventId> = thread
                .iter()
                .copied()
                .filter(|&event| is_memory_event(&execution.event(event).op))
                .collect();
            for (at, &from) in events.iter().enumerate() {
                for &to in &events[at + 1..] {
                    self.add(from, to, Relation::ProgramOrder);
                }
            }
        }
    }

    /// Reads-from, coherence (every pair of stores to a location, in the
    /// order they reached memory) and from-read edges.
    fn reads_from_and_from_read(&mut self, execution: &Execution, witness: &Witness) {
        let order = memory_order(execution, witness);
        let mut writers: HashMap<usize, Vec<EventId>> = HashMap::new();
        for (event, data) in execution.events().iter().enumerate() {
            if data.op.is_writer()
                && let Some(var) = data.op.var()
            {
                writers.entry(var).or_default().push(event);
            }
        }
        for list in writers.values_mut() {
            list.sort_by_key(|event| order.get(event).copied().unwrap_or(usize::MAX));
        }
        for list in writers.values() {
            for (at, &from) in list.iter().enumerate() {
                for &to in &list[at + 1..] {
                    self.add(from, to, Relation::Coherence);
                }
            }
        }
        for (read, data) in execution.events().iter().enumerate() {
            let (Some(var), Some(source)) = (data.op.var(), data.op.rf()) else {
                continue;
            };
            let Some(list) = writers.get(&var) else {
                continue;
            };
            let later = match source {
                Source::Init => 0,
                Source::Event(write) => {
                    self.add(write, read, Relation::ReadsFrom);
                    list.iter()
                        .position(|&w| w == write)
                        .map_or(list.len(), |p| p + 1)
                }
            };
            for &write in &list[later..] {
                self.add(read, write, Relation::FromRead);
            }
        }
    }

    /// Each mutex's operations in the order the witness executed them.
    fn mutex_order(&mut self, execution: &Execution, witness: &Witness) {
        let mut by_mutex: HashMap<usize, Vec<EventId>> = HashMap::new();
        for step in &witness.steps {
            if let Op::Lock { mutex } | Op::Unlock { mutex } | Op::LockBusy { mutex } =
                execution.event(step.event).op
            {
                by_mutex.entry(mutex).or_default().push(step.event);
            }
        }
        for list in by_mutex.values() {
            for pair in list.windows(2) {
                self.add(pair[0], pair[1], Relation::MutexOrder);
            }
        }
    }

    /// The shortest cycle through `start` of fewer than `bound` edges, by
    /// breadth-first search.
    fn shortest_cycle_through(
        &self,
        start: EventId,
        bound: usize,
    ) -> Option<Vec<(EventId, Relation)>> {
        let mut parent: HashMap<EventId, (EventId, Relation)> = HashMap::new();
        let mut depth: HashMap<EventId, usize> = HashMap::from([(start, 0)]);
        let mut queue = VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            let here = depth[&node];
            if here + 1 >= bound {
                return None;
            }
            for &(next, relation) in self.edges.get(&node).into_iter().flatten() {
                if next == start {
                    return Some(unwind(&parent, start, node, relation));
                }
                if let std::collections::hash_map::Entry::Vacant(slot) = depth.entry(next) {
                    slot.insert(here + 1);
                    parent.insert(next, (node, relation));
                    queue.push_back(next);
                }
            }
        }
        None
    }
}

/// The cycle from `start` to `last` (by the parents) and back to `start`
/// by `closing`, as (event, relation to the next) pairs.
fn unwind(
    parent: &HashMap<EventId, (EventId, Relation)>,
    start: EventId,
    last: EventId,
    closing: Relation,
) -> Vec<(EventId, Relation)> {
    let mut cycle = vec![(last, closing)];
    let mut node = last;
    while node != start {
        let (previous, relation) = parent[&node];
        cycle.push((previous, relation));
        node = previous;
    }
    cycle.reverse();
    cycle
}

/// Whether an event takes part in the happens-before graph.
fn is_memory_event(op: &Op) -> bool {
    matches!(
        op,
        Op::Write { .. }
            | Op::Read { .. }
            | Op::Rmw { .. }
            | Op::Lock { .. }
            | Op::Unlock { .. }
            | Op::LockBusy { .. }
    )
}

/// The position in `witness` at which each store reached memory (a write's
/// memory phase, an RMW's execution); a store still buffered at the end
/// comes after all of them, in the order it was issued.
pub fn memory_order(execution: &Execution, witness: &Witness) -> HashMap<EventId, usize> {
    let mut order = HashMap::new();
    let total = witness.steps.len();
    for (at, step) in witness.steps.iter().enumerate() {
        match (step.phase, &execution.event(step.event).op) {
            (Phase::Memory, _) | (Phase::Execute, Op::Rmw { .. }) => {
                order.insert(step.event, at);
            }
            (Phase::Buffer, _) => {
                order.entry(step.event).or_insert(total + at);
            }
            _ => {}
        }
    }
    order
}

#[cfg(test)]
mod tests;
