//! The instance (X, RF) compiled for the search, and the search state: a
//! trace prefix with its thread positions, store buffers, memory and the
//! TSO/PSO-executability conditions of seed 000 sec. 4.1-4.2 and 4.4.

use super::bitset::BitSet;
use super::execution::{EventId, Execution, MutexId, Op, Source, ThreadId, VarId};
use super::model::MemoryModel;
use super::witness::{Phase, Step, Witness};
use std::rc::Rc;

/// A node of the search: a thread event or the memory phase of a write.
pub(crate) type Node = usize;
/// A reads-from source: `0..vars` are the initial values, `vars + e` the
/// writer event `e`.
pub(crate) type Src = usize;

const FREE: u32 = u32::MAX;

/// The kind of an internal thread event. RMW, lock and unlock are preceded
/// by an internal `Fence { user: None }` (their drain), as in sec. 4.4,
/// except an RMW of a variable that no store buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Write { slot: usize },
    Read { var: VarId, src: Src },
    Fence { user: Option<EventId> },
    StoreFence,
    AtomicBegin,
    AtomicEnd,
    Rmw { var: VarId, src: Src, own: Src },
    Lock { mutex: MutexId },
    Unlock { mutex: MutexId },
    LockBusy { mutex: MutexId },
}

#[derive(Debug, Clone)]
pub(crate) struct ThreadNode {
    pub(crate) kind: Kind,
    pub(crate) thread: ThreadId,
    /// Position in the thread's internal event list.
    pub(crate) index: usize,
    pub(crate) user: EventId,
}

/// A buffered (two-phase) write.
#[derive(Debug, Clone)]
pub(crate) struct PlainWrite {
    pub(crate) event: EventId,
    pub(crate) thread: ThreadId,
    pub(crate) var: VarId,
    /// Index among the thread's writes (TSO buffer order).
    pub(crate) t_index: usize,
    /// Index among the thread's writes on `var` (PSO buffer order).
    pub(crate) tx_index: usize,
    /// How many of the thread's writes precede its latest store-store fence
    /// before this write: under PSO they reach memory first.
    pub(crate) fenced_before: usize,
}

/// (X, RF) compiled for one memory model.
pub(crate) struct Instance<'a> {
    pub(crate) execution: &'a Execution,
    pub(crate) model: MemoryModel,
    pub(crate) vars: usize,
    pub(crate) nodes: Vec<ThreadNode>,
    pub(crate) threads: Vec<Vec<Node>>,
    pub(crate) writes: Vec<PlainWrite>,
    pub(crate) writes_tx: Vec<Vec<usize>>,
    /// Per thread: its plain writes in program (TSO buffer) order.
    pub(crate) writes_t: Vec<Vec<usize>>,
    /// Per event: its plain-write slot, if it is a `write`.
    pub(crate) slot_of_event: Vec<Option<usize>>,
    /// Number of reads and RMWs reading from each source.
    pub(crate) readers: Vec<u32>,
    /// Per writer source: plain writes that must reach memory before it
    /// (condition 2b: earlier writes of a remote reader's thread on the var).
    pub(crate) prereqs: Vec<Vec<usize>>,
    /// Per thread: the read-like nodes (reads, RMWs), in program order.
    pub(crate) reads: Vec<Vec<Node>>,
    /// Per thread: one past the last fence-like node, 0 if none.
    pub(crate) fence_end: Vec<usize>,
    /// Closure predecessors of every node (thread nodes, then memory nodes).
    pub(crate) pred: Option<Vec<BitSet>>,
    /// Whether a thread has a store-store fence (which orders its writes
    /// under PSO).
    pub(crate) store_fences: bool,
    /// Whether a thread has an atomic section.
    pub(crate) atomic_sections: bool,
    /// Whether a failed try-lock (`LockBusy`) occurs: an unlock then ends
    /// the window in which it can run, so VerifyTSO branches on unlocks
    /// (and on the try-locks).
    pub(crate) busy_locks: bool,
}

impl<'a> Instance<'a> {
    pub(crate) fn new(execution: &'a Execution, model: MemoryModel) -> Self {
        let vars = execution.variables().len();
        let mut instance = Instance {
            execution,
            model,
            vars,
            nodes: Vec::new(),
            threads: Vec::new(),
            writes: Vec::new(),
            writes_tx: vec![Vec::new(); execution.threads().len() * vars],
            writes_t: vec![Vec::new(); execution.threads().len()],
            slot_of_event: vec![None; execution.events().len()],
            readers: vec![0; vars + execution.events().len()],
            prereqs: vec![Vec::new(); vars + execution.events().len()],
            reads: Vec::new(),
            fence_end: Vec::new(),
            pred: None,
            store_fences: false,
            atomic_sections: false,
            busy_locks: false,
        };
        for (thread, events) in execution.threads().iter().enumerate() {
            instance.add_thread(thread, events);
        }
        instance.compute_prereqs();
        instance
    }

    pub(crate) fn src(&self, source: Source, var: VarId) -> Src {
        match source {
            Source::Init => var,
            Source::Event(event) => self.vars + event,
        }
    }

    /// The thread of a source; `None` for an initial value.
    pub(crate) fn src_thread(&self, src: Src) -> Option<ThreadId> {
        (src >= self.vars).then(|| self.execution.event(src - self.vars).thread)
    }

    /// The plain-write slot of a source, if it is a buffered write.
    pub(crate) fn src_slot(&self, src: Src) -> Option<usize> {
        src.checked_sub(self.vars)
            .and_then(|event| self.slot_of_event.get(event).copied().flatten())
    }

    pub(crate) fn thread_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The memory node of a plain write slot.
    pub(crate) fn memory_node(&self, slot: usize) -> Node {
        self.nodes.len() + slot
    }

    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len() + self.writes.len()
    }

    fn add_thread(&mut self, thread: ThreadId, events: &[EventId]) {
        let mut list = Vec::new();
        let mut reads = Vec::new();
        let mut t_index = 0;
        let mut fenced_before = 0;
        let mut fence_end = 0;
        for &event in events {
            let op = &self.execution.event(event).op;
            let push = |instance: &mut Self, kind: Kind, list: &mut Vec<Node>| {
                instance.nodes.push(ThreadNode {
                    kind,
                    thread,
                    index: list.len(),
                    user: event,
                });
                list.push(instance.nodes.len() - 1);
            };
            match *op {
                Op::Write { var } => {
                    let slot = self.writes.len();
                    let tx = thread * self.vars + var;
                    self.writes.push(PlainWrite {
                        event,
                        thread,
                        var,
                        t_index,
                        tx_index: self.writes_tx[tx].len(),
                        fenced_before,
                    });
                    self.writes_tx[tx].push(slot);
                    self.writes_t[thread].push(slot);
                    self.slot_of_event[event] = Some(slot);
                    t_index += 1;
                    push(self, Kind::Write { slot }, &mut list);
                }
                Op::Read { var, rf } => {
                    let src = self.src(rf, var);
                    self.readers[src] += 1;
                    reads.push(self.nodes.len());
                    push(self, Kind::Read { var, src }, &mut list);
                }
                Op::Fence => {
                    push(self, Kind::Fence { user: Some(event) }, &mut list);
                    fence_end = list.len();
                }
                Op::StoreFence => {
                    self.store_fences = true;
                    fenced_before = t_index;
                    push(self, Kind::StoreFence, &mut list);
                }
                Op::AtomicBegin => {
                    self.atomic_sections = true;
                    push(self, Kind::AtomicBegin, &mut list);
                }
                Op::AtomicEnd => push(self, Kind::AtomicEnd, &mut list),
                Op::Rmw { var, rf } => {
                    if !self.execution.is_unbuffered(var) {
                        push(self, Kind::Fence { user: None }, &mut list);
                        fence_end = list.len();
                    }
                    let src = self.src(rf, var);
                    self.readers[src] += 1;
                    reads.push(self.nodes.len());
                    push(
                        self,
                        Kind::Rmw {
                            var,
                            src,
                            own: self.vars + event,
                        },
                        &mut list,
                    );
                }
                Op::Lock { mutex } | Op::Unlock { mutex } | Op::LockBusy { mutex } => {
                    push(self, Kind::Fence { user: None }, &mut list);
                    fence_end = list.len();
                    let kind = match op {
                        Op::Lock { .. } => Kind::Lock { mutex },
                        Op::Unlock { .. } => Kind::Unlock { mutex },
                        _ => {
                            self.busy_locks = true;
                            Kind::LockBusy { mutex }
                        }
                    };
                    push(self, kind, &mut list);
                }
            }
        }
        self.threads.push(list);
        self.reads.push(reads);
        self.fence_end.push(fence_end);
    }

    /// For each read-like node reading a remote writer, the last plain write
    /// of the reader's thread on the variable before it must be in memory
    /// before the writer's memory phase.
    fn compute_prereqs(&mut self) {
        for thread in 0..self.threads.len() {
            let mut last_write: Vec<Option<usize>> = vec![None; self.vars];
            for &node in &self.threads[thread] {
                match self.nodes[node].kind {
                    Kind::Write { slot } => last_write[self.writes[slot].var] = Some(slot),
                    Kind::Read { var, src } | Kind::Rmw { var, src, .. } => {
                        if self.src_thread(src).is_some_and(|t| t != thread)
                            && let Some(slot) = last_write[var]
                            && !self.prereqs[src].contains(&slot)
                        {
                            self.prereqs[src].push(slot);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The writes of `slot`'s thread before its latest store-store fence
    /// ahead of `slot` (under PSO they reach memory first), oldest first.
    pub(crate) fn fenced_writes(&self, slot: usize) -> &[usize] {
        let write = &self.writes[slot];
        &self.writes_t[write.thread][..write.fenced_before]
    }

    /// The variable of a read-like node.
    pub(crate) fn read_var(&self, node: Node) -> Option<(VarId, Src)> {
        match self.nodes[node].kind {
            Kind::Read { var, src } | Kind::Rmw { var, src, .. } => Some((var, src)),
            _ => None,
        }
    }
}

/// An immutable, shared trace prefix (cheap to clone when branching).
#[derive(Debug, Clone, Default)]
pub(crate) struct Trace(Option<Rc<Link>>);

#[derive(Debug)]
pub(crate) struct Link {
    node: Node,
    prev: Trace,
}

impl Trace {
    fn push(&mut self, node: Node) {
        let prev = std::mem::take(self);
        *self = Trace(Some(Rc::new(Link { node, prev })));
    }

    fn nodes(&self) -> Vec<Node> {
        let mut nodes = Vec::new();
        let mut cursor = &self.0;
        while let Some(link) = cursor {
            nodes.push(link.node);
            cursor = &link.prev.0;
        }
        nodes.reverse();
        nodes
    }
}

/// A trace prefix and everything the executability conditions look at.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub(crate) pos: Vec<u32>,
    pub(crate) issued_t: Vec<u32>,
    pub(crate) flushed_t: Vec<u32>,
    pub(crate) issued_tx: Vec<u32>,
    pub(crate) flushed_tx: Vec<u32>,
    /// Last memory write per variable.
    pub(crate) memory: Vec<Src>,
    /// Reads (and RMWs) not yet executed, per source.
    pub(crate) readers: Vec<u32>,
    holder: Vec<u32>,
    /// The thread inside an atomic section, or FREE.
    section: u32,
    /// Branching thread events executed per thread (RMWs, locks, SC writes).
    pub(crate) branches: Vec<u32>,
    done: BitSet,
    trace: Trace,
}

impl State {
    pub(crate) fn initial(instance: &Instance) -> Self {
        let threads = instance.threads.len();
        State {
            pos: vec![0; threads],
            issued_t: vec![0; threads],
            flushed_t: vec![0; threads],
            issued_tx: vec![0; threads * instance.vars],
            flushed_tx: vec![0; threads * instance.vars],
            memory: (0..instance.vars).collect(),
            readers: instance.readers.clone(),
            holder: vec![FREE; instance.execution.mutexes().len()],
            section: FREE,
            branches: vec![0; threads],
            done: BitSet::new(instance.node_count()),
            trace: Trace::default(),
        }
    }

    /// The next thread event of `thread`, if any.
    pub(crate) fn next(&self, instance: &Instance, thread: ThreadId) -> Option<Node> {
        instance.threads[thread]
            .get(self.pos[thread] as usize)
            .copied()
    }

    pub(crate) fn is_complete(&self, instance: &Instance) -> bool {
        self.pos
            .iter()
            .zip(&instance.threads)
            .all(|(&pos, list)| pos as usize == list.len())
            && self.issued_t == self.flushed_t
    }

    /// Whether all closure predecessors of `node` are executed.
    fn respects_closure(&self, instance: &Instance, node: Node) -> bool {
        instance
            .pred
            .as_ref()
            .is_none_or(|pred| pred[node].is_subset(&self.done))
    }

    /// The source a read of `var` by `thread` would read now: its own latest
    /// buffered write on `var`, else memory.
    pub(crate) fn visible(&self, instance: &Instance, thread: ThreadId, var: VarId) -> Src {
        let tx = thread * instance.vars + var;
        let issued = self.issued_tx[tx] as usize;
        if issued > self.flushed_tx[tx] as usize {
            instance.vars + instance.writes[instance.writes_tx[tx][issued - 1]].event
        } else {
            self.memory[var]
        }
    }

    pub(crate) fn is_drained(&self, thread: ThreadId) -> bool {
        self.issued_t[thread] == self.flushed_t[thread]
    }

    pub(crate) fn is_flushed(&self, instance: &Instance, slot: usize) -> bool {
        let write = &instance.writes[slot];
        (write.tx_index as u32) < self.flushed_tx[write.thread * instance.vars + write.var]
    }

    /// Whether a memory writer of `var` with source `own` may update memory
    /// now: the variable is not held (2a), the 2b prerequisites are in memory.
    fn may_overwrite(&self, instance: &Instance, var: VarId, own: Src, extra_reader: u32) -> bool {
        self.readers[self.memory[var]] == extra_reader
            && instance.prereqs[own]
                .iter()
                .all(|&slot| self.is_flushed(instance, slot))
    }

    /// Whether the writes of `slot`'s thread before its latest store-store
    /// fence are all in memory.
    pub(crate) fn fenced_writes_flushed(&self, instance: &Instance, slot: usize) -> bool {
        instance
            .fenced_writes(slot)
            .iter()
            .all(|&earlier| self.is_flushed(instance, earlier))
    }

    /// TSO/PSO-executability of the memory phase of a buffered write.
    pub(crate) fn can_flush(&self, instance: &Instance, slot: usize) -> bool {
        let write = &instance.writes[slot];
        let tx = write.thread * instance.vars + write.var;
        let in_order = match instance.model {
            MemoryModel::Pso => self.fenced_writes_flushed(instance, slot),
            MemoryModel::Tso | MemoryModel::Sc => {
                write.t_index as u32 == self.flushed_t[write.thread]
            }
        };
        in_order
            && write.tx_index as u32 == self.flushed_tx[tx]
            && (write.tx_index as u32) < self.issued_tx[tx]
            && self.may_overwrite(instance, write.var, instance.vars + write.event, 0)
            && self.respects_closure(instance, instance.memory_node(slot))
    }

    pub(crate) fn flush(&mut self, instance: &Instance, slot: usize) {
        let write = &instance.writes[slot];
        self.flushed_t[write.thread] += 1;
        self.flushed_tx[write.thread * instance.vars + write.var] += 1;
        self.memory[write.var] = instance.vars + write.event;
        let node = instance.memory_node(slot);
        self.done.insert(node);
        self.trace.push(node);
    }

    /// The oldest buffered write of `thread` (the head of its TSO buffer).
    pub(crate) fn oldest_pending(&self, instance: &Instance, thread: ThreadId) -> Option<usize> {
        if self.is_drained(thread) {
            return None;
        }
        instance.writes_t[thread]
            .get(self.flushed_t[thread] as usize)
            .copied()
    }

    /// The pending writes of `thread` that head their (thread, var) buffer.
    pub(crate) fn pending_heads(&self, instance: &Instance, thread: ThreadId) -> Vec<usize> {
        (0..instance.vars)
            .filter_map(|var| {
                let tx = thread * instance.vars + var;
                (self.flushed_tx[tx] < self.issued_tx[tx])
                    .then(|| instance.writes_tx[tx][self.flushed_tx[tx] as usize])
            })
            .collect()
    }

    /// Executability of a thread event (the next one of its thread). Under
    /// SC a write is executable when its memory phase can follow at once.
    pub(crate) fn can_execute(&self, instance: &Instance, node: Node) -> bool {
        if !self.respects_closure(instance, node) {
            return false;
        }
        let info = &instance.nodes[node];
        let thread = info.thread;
        if self.section != FREE && self.section != thread as u32 {
            return false;
        }
        match info.kind {
            Kind::Write { slot } => {
                instance.model != MemoryModel::Sc || {
                    let write = &instance.writes[slot];
                    self.may_overwrite(instance, write.var, instance.vars + write.event, 0)
                        && instance.pred.as_ref().is_none_or(|pred| {
                            pred[instance.memory_node(slot)]
                                .iter()
                                .all(|n| n == node || self.done.contains(n))
                        })
                }
            }
            Kind::Read { var, src } => self.visible(instance, thread, var) == src,
            Kind::Fence { .. } => self.is_drained(thread),
            Kind::StoreFence | Kind::AtomicBegin | Kind::AtomicEnd => true,
            Kind::Rmw { var, src, own } => {
                (instance.execution.is_unbuffered(var) || self.is_drained(thread))
                    && self.memory[var] == src
                    && self.may_overwrite(instance, var, own, 1)
            }
            Kind::Lock { mutex } => self.is_drained(thread) && self.holder[mutex] == FREE,
            Kind::Unlock { mutex } => {
                self.is_drained(thread) && self.holder[mutex] == thread as u32
            }
            // held by any thread, the trying one too (a normal mutex's
            // try-lock by its holder fails with EBUSY)
            Kind::LockBusy { mutex } => self.is_drained(thread) && self.holder[mutex] != FREE,
        }
    }

    /// Executes a thread event (and, under SC, a write's memory phase).
    pub(crate) fn execute(&mut self, instance: &Instance, node: Node) {
        let info = &instance.nodes[node];
        let thread = info.thread;
        self.pos[thread] += 1;
        self.done.insert(node);
        self.trace.push(node);
        match info.kind {
            Kind::Write { slot } => {
                let write = &instance.writes[slot];
                self.issued_t[thread] += 1;
                self.issued_tx[thread * instance.vars + write.var] += 1;
                if instance.model == MemoryModel::Sc {
                    self.flush(instance, slot);
                    self.branches[thread] += 1;
                }
            }
            Kind::Read { src, .. } => self.readers[src] -= 1,
            Kind::Fence { .. } | Kind::StoreFence => {}
            Kind::AtomicBegin => {
                self.section = thread as u32;
                self.branches[thread] += 1;
            }
            Kind::AtomicEnd => self.section = FREE,
            Kind::Rmw { var, src, own } => {
                self.readers[src] -= 1;
                self.memory[var] = own;
                self.branches[thread] += 1;
            }
            Kind::Lock { mutex } => {
                self.holder[mutex] = thread as u32;
                self.branches[thread] += 1;
            }
            Kind::Unlock { mutex } => {
                self.holder[mutex] = FREE;
                if instance.busy_locks {
                    self.branches[thread] += 1;
                }
            }
            Kind::LockBusy { .. } => self.branches[thread] += 1,
        }
        if self.section == thread as u32
            && self.pos[thread] as usize == instance.threads[thread].len()
        {
            // a thread that ends inside an atomic section leaves it (as the
            // sequentialised program does: the next thread runs)
            self.section = FREE;
        }
    }

    /// The witness of a complete state, in user events and phases.
    pub(crate) fn witness(&self, instance: &Instance) -> Witness {
        let steps = self
            .trace
            .nodes()
            .into_iter()
            .filter_map(|node| {
                if node >= instance.thread_nodes() {
                    let write = &instance.writes[node - instance.thread_nodes()];
                    return Some(Step {
                        event: write.event,
                        phase: Phase::Memory,
                    });
                }
                let info = &instance.nodes[node];
                match info.kind {
                    Kind::Write { .. } => Some(Step {
                        event: info.user,
                        phase: Phase::Buffer,
                    }),
                    Kind::Fence { user: None } => None,
                    _ => Some(Step {
                        event: info.user,
                        phase: Phase::Execute,
                    }),
                }
            })
            .collect();
        Witness { steps }
    }
}
