//! The closure of seed 000 sec. 4.3: the weakest partial order refining the
//! program order that every witness must respect, or a proof (a cycle) that
//! no witness exists. RMWs are single nodes, so rules 4-5 hold by design.

use super::bitset::BitSet;
use super::model::MemoryModel;
use super::state::{Instance, Kind, Node, Src};

/// The closure found a cycle: the instance is not realisable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cycle;

/// A strict partial order with its transitive closure kept up to date:
/// a square matrix of bits, row `u` holding every node strictly after `u`,
/// in one allocation (the closure runs thousands of times a second inside
/// the native engine's oracle).
struct Order {
    nodes: usize,
    /// Words per row.
    width: usize,
    rows: Vec<u64>,
    /// The row being added, reused between additions.
    scratch: Vec<u64>,
}

impl Order {
    fn new(nodes: usize) -> Self {
        let width = nodes.div_ceil(64);
        Order {
            nodes,
            width,
            rows: vec![0; nodes * width],
            scratch: vec![0; width],
        }
    }

    fn row(&self, u: Node) -> &[u64] {
        &self.rows[u * self.width..(u + 1) * self.width]
    }

    fn before(&self, a: Node, b: Node) -> bool {
        self.row(a)[b / 64] & (1 << (b % 64)) != 0
    }

    /// Adds `a < b`; returns whether the order changed.
    fn add(&mut self, a: Node, b: Node) -> Result<bool, Cycle> {
        if a == b || self.before(b, a) {
            return Err(Cycle);
        }
        if self.before(a, b) {
            return Ok(false);
        }
        let width = self.width;
        self.scratch
            .copy_from_slice(&self.rows[b * width..(b + 1) * width]);
        self.scratch[b / 64] |= 1 << (b % 64);
        let (word, bit) = (a / 64, 1u64 << (a % 64));
        for u in 0..self.nodes {
            let row = &mut self.rows[u * width..(u + 1) * width];
            if u == a || row[word] & bit != 0 {
                for (mine, &add) in row.iter_mut().zip(&self.scratch) {
                    *mine |= add;
                }
            }
        }
        Ok(true)
    }

    /// Orders `chain` totally, in its order: each node before every later
    /// one. Its nodes must be unordered so far with every node (the
    /// program order of each thread, set first), so that no other row
    /// changes.
    fn chain(&mut self, chain: &[Node]) {
        for (position, &u) in chain.iter().enumerate() {
            let start = u * self.width;
            for &v in &chain[position + 1..] {
                self.rows[start + v / 64] |= 1 << (v % 64);
            }
        }
    }

    /// `pred[v]`: every node strictly before `v`.
    fn predecessors(&self) -> Vec<BitSet> {
        let mut pred = vec![BitSet::new(self.nodes); self.nodes];
        for u in 0..self.nodes {
            for (index, &word) in self.row(u).iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let v = index * 64 + word.trailing_zeros() as usize;
                    pred[v].insert(u);
                    word &= word - 1;
                }
            }
        }
        pred
    }
}

/// A memory writer of a variable as seen by the closure rules.
#[derive(Debug, Clone, Copy)]
struct Writer {
    node: Node,
    thread: usize,
    src: Src,
}

/// Computes the closure and returns, for every node, its predecessors.
pub(crate) fn closure(instance: &Instance) -> Result<Vec<BitSet>, Cycle> {
    let mut order = Order::new(instance.node_count());
    add_program_order(instance, &mut order)?;
    let writers = writers_by_var(instance);
    let reads: Vec<Node> = instance.reads.iter().flatten().copied().collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &read in &reads {
            changed |= apply_rules(instance, &mut order, &writers, read)?;
        }
    }
    Ok(order.predecessors())
}

/// The memory node of a writer source (the RMW node itself for an RMW).
fn memory_of(instance: &Instance, src: Src) -> Option<Node> {
    let event = src.checked_sub(instance.vars)?;
    match instance.slot_of_event[event] {
        Some(slot) => Some(instance.memory_node(slot)),
        None => instance.threads[instance.execution.event(event).thread]
            .iter()
            .copied()
            .find(|&n| {
                instance.nodes[n].user == event
                    && matches!(instance.nodes[n].kind, Kind::Rmw { .. })
            }),
    }
}

/// PO|X with the TSO/PSO conditions of sec. 2.2 (and SC's immediate flushes).
fn add_program_order(instance: &Instance, order: &mut Order) -> Result<(), Cycle> {
    // each node is in one thread's list, so the chains touch disjoint rows
    for list in &instance.threads {
        order.chain(list);
    }
    for list in &instance.threads {
        let mut last_any: Option<Node> = None;
        let mut last_per_var: Vec<Option<Node>> = vec![None; instance.vars];
        // PSO: the memory phases of the writes before the latest
        // store-store fence, which every later write's must follow.
        let mut fenced: Vec<Node> = Vec::new();
        for (position, &node) in list.iter().enumerate() {
            match instance.nodes[node].kind {
                Kind::Write { slot } => {
                    let memory = instance.memory_node(slot);
                    order.add(node, memory)?;
                    let var = instance.writes[slot].var;
                    let previous = if instance.model == MemoryModel::Pso {
                        last_per_var[var]
                    } else {
                        last_any
                    };
                    if let Some(previous) = previous {
                        order.add(previous, memory)?;
                    }
                    for &earlier in &fenced {
                        order.add(earlier, memory)?;
                    }
                    if instance.model == MemoryModel::Sc
                        && let Some(&next) = list.get(position + 1)
                    {
                        order.add(memory, next)?;
                    }
                    last_any = Some(memory);
                    last_per_var[var] = Some(memory);
                }
                Kind::Fence { .. } => {
                    for memory in last_per_var.iter().flatten() {
                        order.add(*memory, node)?;
                    }
                }
                Kind::StoreFence if instance.model == MemoryModel::Pso => {
                    fenced = last_per_var.iter().flatten().copied().collect();
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn writers_by_var(instance: &Instance) -> Vec<Vec<Writer>> {
    let mut writers = vec![Vec::new(); instance.vars];
    for (slot, write) in instance.writes.iter().enumerate() {
        writers[write.var].push(Writer {
            node: instance.memory_node(slot),
            thread: write.thread,
            src: instance.vars + write.event,
        });
    }
    for info in &instance.nodes {
        if let Kind::Rmw { var, own, .. } = info.kind {
            let node = instance.threads[info.thread][info.index];
            writers[var].push(Writer {
                node,
                thread: info.thread,
                src: own,
            });
        }
    }
    writers
}

/// The last memory writer on `var` of the read's thread before it, if any.
fn last_own_writer(instance: &Instance, read: Node, var: usize) -> Option<Node> {
    let info = &instance.nodes[read];
    instance.threads[info.thread][..info.index]
        .iter()
        .rev()
        .find_map(|&node| match instance.nodes[node].kind {
            Kind::Write { slot } if instance.writes[slot].var == var => {
                Some(instance.memory_node(slot))
            }
            Kind::Rmw { var: v, .. } if v == var => Some(node),
            _ => None,
        })
}

/// Coherence of a read with its own thread's writes (CoWR): after a thread
/// writes a variable, its reads of it see that write or a later one, so a
/// read from the initial value or from an older write of its own thread
/// cannot be realised. (The search would find this out too, by exhausting
/// every interleaving.)
fn reads_behind_own_write(
    instance: &Instance,
    thread: usize,
    src: Src,
    source: Option<Node>,
    own_last: Option<Node>,
) -> bool {
    match (own_last, source) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(own), Some(source)) => instance.src_thread(src) == Some(thread) && source != own,
    }
}

/// Rules 1-3 of sec. 4.3 for one read; returns whether the order changed.
fn apply_rules(
    instance: &Instance,
    order: &mut Order,
    writers: &[Vec<Writer>],
    read: Node,
) -> Result<bool, Cycle> {
    let Some((var, src)) = instance.read_var(read) else {
        return Ok(false);
    };
    let thread = instance.nodes[read].thread;
    let source = memory_of(instance, src);
    let own_last = last_own_writer(instance, read, var);
    if reads_behind_own_write(instance, thread, src, source, own_last) {
        return Err(Cycle);
    }
    let mut changed = false;
    if let Some(source) = source
        && instance.src_thread(src) != Some(thread)
    {
        changed |= order.add(source, read)?;
        if let Some(own) = own_last {
            changed |= order.add(own, source)?;
        }
    }
    for writer in &writers[var] {
        if writer.thread == thread || writer.src == src || writer.node == read {
            continue;
        }
        match source {
            None => changed |= order.add(read, writer.node)?,
            Some(source) => {
                if order.before(writer.node, read) {
                    changed |= order.add(writer.node, source)?;
                }
                if order.before(source, writer.node) {
                    changed |= order.add(read, writer.node)?;
                }
            }
        }
    }
    Ok(changed)
}
