//! The execution graph of a confirmed violation, as data: one node per
//! memory event of the witness (with its thread, C line, access and value),
//! the program-order, reads-from, coherence and from-read edges that herd
//! draws (each between neighbours: the next event of the thread, the next
//! store in coherence, the first store a read's value was overwritten
//! by), the happens-before cycle's edges marked (added where the cycle
//! takes a longer step), and the fences of the fix. Built from the report's
//! typed data alone; the renderers only draw it.

use super::NoGraph;
use crate::report::document::{
    EventReport, EventReportKind, Verdict, VerifyReport, WitnessReport, WitnessSource,
};
use std::collections::HashMap;

/// The drawn execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionGraph {
    /// What the picture shows: the file and the verdict under the model.
    pub title: String,
    /// The threads with memory events, by slot: one column each.
    pub threads: Vec<String>,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub fences: Vec<FenceMark>,
}

/// A memory event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The event's index in the report's `witness.events`.
    pub event: usize,
    /// herd's name of the event: `a`, `b`, ..., `z`, `aa`, ...
    pub name: String,
    /// The column of its thread.
    pub column: usize,
    /// Its place in its thread's program order.
    pub index: usize,
    /// The access: `W x = 1`, `R y = 0 (init)`, `F full`.
    pub access: String,
    /// Where it comes from: `line 16: x = 1;`.
    pub source: String,
}

/// Why one event comes before another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    ProgramOrder,
    ReadsFrom,
    Coherence,
    FromRead,
    /// The order of a mutex's operations (only on a cycle).
    MutexOrder,
}

impl EdgeKind {
    /// herd's label of the relation.
    pub fn label(self) -> &'static str {
        match self {
            EdgeKind::ProgramOrder => "po",
            EdgeKind::ReadsFrom => "rf",
            EdgeKind::Coherence => "co",
            EdgeKind::FromRead => "fr",
            EdgeKind::MutexOrder => "mo",
        }
    }

    /// The kind of a cycle step's relation (`CycleStep::then`).
    pub fn of_relation(relation: &str) -> Option<EdgeKind> {
        match relation {
            "program-order" => Some(EdgeKind::ProgramOrder),
            "reads-from" => Some(EdgeKind::ReadsFrom),
            "coherence" => Some(EdgeKind::Coherence),
            "from-read" => Some(EdgeKind::FromRead),
            "mutex-order" => Some(EdgeKind::MutexOrder),
            _ => None,
        }
    }
}

/// An edge between two nodes (indices into [`ExecutionGraph::nodes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
    /// The edge is a step of the happens-before cycle.
    pub on_cycle: bool,
    /// A program-order step of the cycle that the memory model relaxes.
    pub relaxed: bool,
}

/// Where a fence of the fix goes: right after node `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenceMark {
    pub after: usize,
    /// The statement to insert.
    pub insert: String,
}

/// The name herd gives the `n`th event: `a` to `z`, then `aa`, `ab`, ...
pub fn event_name(n: usize) -> String {
    let mut name = Vec::new();
    let mut rest = n + 1;
    while rest > 0 {
        rest -= 1;
        name.push(b'a' + (rest % 26) as u8);
        rest /= 26;
    }
    name.reverse();
    String::from_utf8_lossy(&name).into_owned()
}

/// The statement text shown in a node, shortened to `limit` characters.
pub fn shorten(text: &str, limit: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= limit {
        return text;
    }
    let kept: String = text.chars().take(limit.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// The longest statement text a node shows.
const STATEMENT_CHARS: usize = 24;

/// What a node says the event does.
fn access(event: &EventReport) -> String {
    let location = event.location.as_deref().unwrap_or("?");
    let value = event.value.as_deref().unwrap_or("?");
    let initial = if event.reads_from.is_none() {
        " (init)"
    } else {
        ""
    };
    match event.kind {
        EventReportKind::Store => format!("W {location} = {value}"),
        EventReportKind::Load => format!("R {location} = {value}{initial}"),
        EventReportKind::Rmw => {
            let old = event.old_value.as_deref().unwrap_or("init");
            format!("RMW {location}: {old} -> {value}")
        }
        EventReportKind::CasFailed => format!("R {location} = {value}{initial}, CAS fails"),
        EventReportKind::Fence => "F full".to_string(),
        EventReportKind::StoreFence => "F store-store".to_string(),
        EventReportKind::Lock => format!("lock {location}"),
        EventReportKind::Unlock => format!("unlock {location}"),
        EventReportKind::LockBusy => format!("trylock {location} fails"),
    }
}

/// Where a node says the event comes from.
fn source(event: &EventReport) -> String {
    let line = event
        .line
        .map_or_else(|| "line ?".to_string(), |line| format!("line {line}"));
    match &event.statement {
        Some(statement) => format!("{line}: {}", shorten(statement, STATEMENT_CHARS)),
        None => line,
    }
}

/// The witness a graph can be drawn of: a violation the native check
/// confirmed.
fn checked_witness(report: &VerifyReport) -> Result<&WitnessReport, NoGraph> {
    if report.verdict != Verdict::Violation {
        return Err(NoGraph::NoViolation(report.verdict.name()));
    }
    match &report.witness {
        Some(witness) if witness.source == WitnessSource::NativeCheck => Ok(witness),
        Some(_) => Err(NoGraph::Unchecked),
        None => Err(NoGraph::NoWitness),
    }
}

impl ExecutionGraph {
    /// The graph of `report`'s violation.
    pub fn from_report(report: &VerifyReport) -> Result<ExecutionGraph, NoGraph> {
        let witness = checked_witness(report)?;
        let mut slots: Vec<usize> = witness.events.iter().map(|e| e.thread.slot).collect();
        slots.sort_unstable();
        slots.dedup();
        let threads = slots
            .iter()
            .filter_map(|&slot| witness.events.iter().find(|e| e.thread.slot == slot))
            .map(|event| event.thread.name.clone())
            .collect();
        let nodes: Vec<Node> = witness
            .events
            .iter()
            .enumerate()
            .map(|(n, event)| Node {
                event: event.id,
                name: event_name(n),
                column: slots.binary_search(&event.thread.slot).unwrap_or(0),
                index: event.index,
                access: access(event),
                source: source(event),
            })
            .collect();
        let mut graph = ExecutionGraph {
            title: format!(
                "{}: violation under {}",
                report.file,
                report.model.to_string().to_uppercase()
            ),
            threads,
            nodes,
            edges: Vec::new(),
            fences: Vec::new(),
        };
        let ids = graph.node_ids();
        graph.add_relations(&witness.events, &ids);
        if let Some(diagnosis) = &report.diagnosis {
            graph.mark_cycle(&diagnosis.cycle, &ids);
            graph.fences = diagnosis
                .fences
                .iter()
                .filter_map(|fence| {
                    Some(FenceMark {
                        after: *ids.get(&fence.after_event?)?,
                        insert: fence.insert.to_string(),
                    })
                })
                .collect();
        }
        Ok(graph)
    }

    /// The node of each report event.
    fn node_ids(&self) -> HashMap<usize, usize> {
        self.nodes
            .iter()
            .enumerate()
            .map(|(node, n)| (n.event, node))
            .collect()
    }

    fn add(&mut self, from: usize, to: usize, kind: EdgeKind) {
        if from != to
            && !self
                .edges
                .iter()
                .any(|e| (e.from, e.to, e.kind) == (from, to, kind))
        {
            self.edges.push(Edge {
                from,
                to,
                kind,
                on_cycle: false,
                relaxed: false,
            });
        }
    }

    /// herd's edges: program order to the next event, reads-from,
    /// coherence to the next store, from-read to the store that overwrote
    /// the value read first.
    fn add_relations(&mut self, events: &[EventReport], ids: &HashMap<usize, usize>) {
        let node = |event: usize| ids.get(&event).copied();
        for pair in events.windows(2) {
            if pair[0].thread.slot == pair[1].thread.slot
                && let (Some(a), Some(b)) = (node(pair[0].id), node(pair[1].id))
            {
                self.add(a, b, EdgeKind::ProgramOrder);
            }
        }
        let stores = coherence_orders(events);
        for event in events {
            let Some(read) = node(event.id) else { continue };
            if let Some(write) = event.reads_from.and_then(node) {
                self.add(write, read, EdgeKind::ReadsFrom);
            }
            if !event.reads() {
                continue;
            }
            let Some(order) = event.location.as_ref().and_then(|l| stores.get(l)) else {
                continue;
            };
            let overwritten_from = match event.reads_from {
                None => 0,
                Some(source) => order
                    .iter()
                    .position(|&w| w == source)
                    .map_or(order.len(), |p| p + 1),
            };
            if let Some(&next) = order[overwritten_from..].iter().find(|&&w| w != event.id)
                && let Some(next) = node(next)
            {
                self.add(read, next, EdgeKind::FromRead);
            }
        }
        for order in stores.values() {
            for pair in order.windows(2) {
                if let (Some(a), Some(b)) = (node(pair[0]), node(pair[1])) {
                    self.add(a, b, EdgeKind::Coherence);
                }
            }
        }
    }

    /// Marks the cycle's edges, adding those herd's neighbour edges do not
    /// have (a program-order step over events between, say).
    fn mark_cycle(
        &mut self,
        cycle: &[crate::report::document::CycleStep],
        ids: &HashMap<usize, usize>,
    ) {
        let count = cycle.len();
        for (at, step) in cycle.iter().enumerate() {
            let next = &cycle[(at + 1) % count];
            let (Some(from), Some(to), Some(kind)) = (
                step.event.and_then(|e| ids.get(&e).copied()),
                next.event.and_then(|e| ids.get(&e).copied()),
                EdgeKind::of_relation(step.then),
            ) else {
                continue;
            };
            self.add(from, to, kind);
            if let Some(edge) = self
                .edges
                .iter_mut()
                .find(|e| (e.from, e.to, e.kind) == (from, to, kind))
            {
                edge.on_cycle = true;
                edge.relaxed = step.relaxed;
            }
        }
    }

    /// The nodes of each column, in program order.
    pub fn columns(&self) -> Vec<Vec<usize>> {
        let mut columns = vec![Vec::new(); self.threads.len()];
        for (node, n) in self.nodes.iter().enumerate() {
            if let Some(column) = columns.get_mut(n.column) {
                column.push(node);
            }
        }
        for column in &mut columns {
            column.sort_by_key(|&node| self.nodes[node].index);
        }
        columns
    }
}

/// The stores to each location, in coherence order (report event ids).
fn coherence_orders(events: &[EventReport]) -> HashMap<String, Vec<usize>> {
    let mut orders: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    for event in events {
        if let (Some(location), Some(place)) = (&event.location, event.coherence) {
            orders
                .entry(location.clone())
                .or_default()
                .push((place, event.id));
        }
    }
    orders
        .into_iter()
        .map(|(location, mut stores)| {
            stores.sort_unstable();
            (location, stores.into_iter().map(|(_, id)| id).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::document::{CycleStep, SourcePoint, ThreadReport};

    fn event(
        id: usize,
        slot: usize,
        index: usize,
        kind: EventReportKind,
        location: &str,
    ) -> EventReport {
        EventReport {
            id,
            thread: ThreadReport {
                slot,
                function: format!("t{slot}"),
                instance: 0,
                name: format!("t{slot}#0"),
            },
            index,
            kind,
            location: Some(location.to_string()),
            value: Some("1".to_string()),
            old_value: None,
            file: None,
            line: Some(10 + id as u32),
            column: None,
            statement: Some("x = 1;".to_string()),
            reads_from: None,
            coherence: (kind == EventReportKind::Store).then_some(0),
        }
    }

    fn step(event: usize, then: &'static str) -> CycleStep {
        CycleStep {
            thread: String::new(),
            access: String::new(),
            operation: crate::report::document::CycleOperation::Other,
            value: None,
            program_order: 0,
            point: SourcePoint {
                file: None,
                line: None,
                column: None,
                statement: None,
                location: None,
            },
            then,
            relaxed: then == "program-order",
            event: Some(event),
        }
    }

    /// Store buffering: each thread stores one location and reads the
    /// other's initial value.
    fn store_buffering() -> (ExecutionGraph, Vec<EventReport>) {
        use EventReportKind::{Load, Store};
        let events = vec![
            event(0, 1, 0, Store, "x"),
            event(1, 1, 1, Load, "y"),
            event(2, 2, 0, Store, "y"),
            event(3, 2, 1, Load, "x"),
        ];
        let graph = ExecutionGraph {
            title: String::new(),
            threads: vec!["t1#0".into(), "t2#0".into()],
            nodes: events
                .iter()
                .map(|e| Node {
                    event: e.id,
                    name: event_name(e.id),
                    column: e.thread.slot - 1,
                    index: e.index,
                    access: access(e),
                    source: source(e),
                })
                .collect(),
            edges: Vec::new(),
            fences: Vec::new(),
        };
        (graph, events)
    }

    fn edges_of(graph: &ExecutionGraph) -> Vec<(usize, usize, &'static str, bool)> {
        graph
            .edges
            .iter()
            .map(|e| (e.from, e.to, e.kind.label(), e.on_cycle))
            .collect()
    }

    #[test]
    fn reads_of_the_initial_value_are_overwritten_by_the_first_store() {
        let (mut graph, events) = store_buffering();
        let ids = graph.node_ids();
        graph.add_relations(&events, &ids);
        let mut edges = edges_of(&graph);
        edges.sort_unstable();
        assert_eq!(
            edges,
            [
                (0, 1, "po", false),
                (1, 2, "fr", false),
                (2, 3, "po", false),
                (3, 0, "fr", false)
            ]
        );
        assert_eq!(graph.nodes[1].access, "R y = 1 (init)");
        assert_eq!(graph.nodes[0].source, "line 10: x = 1;");
    }

    #[test]
    fn the_cycle_marks_its_edges_and_adds_the_ones_herd_leaves_out() {
        let (mut graph, events) = store_buffering();
        let ids = graph.node_ids();
        graph.add_relations(&events, &ids);
        let cycle = [
            step(0, "program-order"),
            step(1, "from-read"),
            step(2, "program-order"),
            step(3, "from-read"),
        ];
        graph.mark_cycle(&cycle, &ids);
        assert_eq!(graph.edges.len(), 4);
        assert!(graph.edges.iter().all(|e| e.on_cycle));
        assert_eq!(graph.edges.iter().filter(|e| e.relaxed).count(), 2);
        // steps that herd's neighbour edges do not have are added, marked
        graph.mark_cycle(&[step(0, "from-read"), step(3, "reads-from")], &ids);
        assert!(edges_of(&graph).contains(&(0, 3, "fr", true)));
        assert!(edges_of(&graph).contains(&(3, 0, "rf", true)));
    }

    #[test]
    fn events_are_named_as_herd_names_them() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 701, 702].map(event_name).to_vec();
        assert_eq!(names, ["a", "b", "z", "aa", "ab", "zz", "aaa"]);
    }

    #[test]
    fn long_statements_are_shortened_on_one_line() {
        assert_eq!(shorten("x  =\n 1;", 24), "x = 1;");
        let long = shorten("assert(r1 == 1 || r2 == 1 || r3 == 1);", 12);
        assert_eq!(long.chars().count(), 12);
        assert!(long.ends_with('…'));
    }
}
