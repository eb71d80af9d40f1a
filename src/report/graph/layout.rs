//! The picture's own layout, herd's: one column per thread, its events
//! top to bottom in program order, each event pushed below the store it
//! reads from in another thread (the longest path of program order and
//! external reads-from, so that a value is read below where it was
//! written); and the geometry of each edge: a straight line to the next
//! event of a column, a curve on the column's side between other events
//! of one thread, a gently bent line between columns.

use super::model::{Edge, EdgeKind, ExecutionGraph};

/// The width and height of an event's box.
pub const NODE_WIDTH: f64 = 236.0;
pub const NODE_HEIGHT: f64 = 44.0;
/// The distance between the centres of neighbouring columns.
pub const COLUMN_WIDTH: f64 = 330.0;
/// The distance between the tops of neighbouring rows.
pub const ROW_HEIGHT: f64 = 100.0;
/// The space left of the first column and right of the last.
pub const MARGIN: f64 = 40.0;
/// The space above the first row: title and thread names.
pub const TOP: f64 = 84.0;
/// The space below the last row: the legend.
pub const BOTTOM: f64 = 80.0;
/// How far the longest fence label (`fix:
/// __atomic_thread_fence(__ATOMIC_RELEASE);`) reaches past its box.
pub const FENCE_LABEL_OVERHANG: f64 = 72.0;
/// The narrowest picture: room for the title and the legend.
pub const MIN_WIDTH: f64 = 640.0;

/// A rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn centre_x(&self) -> f64 {
        self.x + self.width / 2.0
    }

    pub fn centre_y(&self) -> f64 {
        self.y + self.height / 2.0
    }

    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }

    pub fn right(&self) -> f64 {
        self.x + self.width
    }

    /// Whether the two rectangles share any point.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.right()
            && other.x < self.right()
            && self.y < other.bottom()
            && other.y < self.bottom()
    }
}

/// Where everything goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    /// The centre of each column.
    pub columns: Vec<f64>,
    /// Each node's box.
    pub boxes: Vec<Rect>,
    /// Each node's row.
    pub rows: Vec<usize>,
}

/// An edge drawn: its SVG path and where its label goes.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeShape {
    pub path: String,
    pub label_x: f64,
    pub label_y: f64,
    /// The label's `text-anchor`.
    pub anchor: &'static str,
}

/// Each node's row: its place in program order, pushed down below the
/// stores of other threads it reads from.
pub fn rows(graph: &ExecutionGraph) -> Vec<usize> {
    let count = graph.nodes.len();
    let mut rows: Vec<usize> = graph.nodes.iter().map(|n| n.index).collect();
    let mut before: Vec<(usize, usize)> = Vec::new();
    for column in graph.columns() {
        before.extend(column.windows(2).map(|pair| (pair[0], pair[1])));
    }
    before.extend(
        graph
            .edges
            .iter()
            .filter(|e| e.kind == EdgeKind::ReadsFrom && !same_column(graph, e))
            .map(|e| (e.from, e.to)),
    );
    // the longest path, by relaxation; a cycle (no such order) keeps
    // program order alone
    for _ in 0..=count {
        let mut changed = false;
        for &(from, to) in &before {
            if rows[to] < rows[from] + 1 {
                rows[to] = rows[from] + 1;
                changed = true;
            }
        }
        if !changed {
            return rows;
        }
    }
    graph.nodes.iter().map(|n| n.index).collect()
}

fn same_column(graph: &ExecutionGraph, edge: &Edge) -> bool {
    graph.nodes[edge.from].column == graph.nodes[edge.to].column
}

/// The layout of `graph`.
pub fn layout(graph: &ExecutionGraph) -> Layout {
    let rows = rows(graph);
    let columns: Vec<f64> = (0..graph.threads.len().max(1))
        .map(|c| MARGIN + NODE_WIDTH / 2.0 + c as f64 * COLUMN_WIDTH)
        .collect();
    let boxes: Vec<Rect> = graph
        .nodes
        .iter()
        .zip(&rows)
        .map(|(node, &row)| Rect {
            x: columns.get(node.column).copied().unwrap_or(0.0) - NODE_WIDTH / 2.0,
            y: TOP + row as f64 * ROW_HEIGHT,
            width: NODE_WIDTH,
            height: NODE_HEIGHT,
        })
        .collect();
    let depth = rows.iter().max().map_or(0, |&row| row + 1);
    Layout {
        // (on the right, room for a fence's label longer than a box)
        width: (2.0 * MARGIN
            + FENCE_LABEL_OVERHANG
            + NODE_WIDTH
            + (columns.len() - 1) as f64 * COLUMN_WIDTH)
            .max(MIN_WIDTH),
        height: TOP + depth as f64 * ROW_HEIGHT - (ROW_HEIGHT - NODE_HEIGHT) + BOTTOM,
        columns,
        boxes,
        rows,
    }
}

/// How far from a box's middle an edge of `kind` leaves or enters its
/// side, so that edges of different kinds between the same boxes part.
fn port(kind: EdgeKind) -> f64 {
    match kind {
        EdgeKind::ReadsFrom => -10.0,
        EdgeKind::FromRead => 10.0,
        EdgeKind::ProgramOrder | EdgeKind::Coherence | EdgeKind::MutexOrder => 0.0,
    }
}

impl Layout {
    /// The shape of `edge` of `graph`.
    pub fn edge(&self, graph: &ExecutionGraph, edge: &Edge) -> EdgeShape {
        let (from, to) = (self.boxes[edge.from], self.boxes[edge.to]);
        if !same_column(graph, edge) {
            return between_columns(from, to, edge.kind);
        }
        let next_in_column = edge.kind == EdgeKind::ProgramOrder
            && graph.nodes[edge.to].index == graph.nodes[edge.from].index + 1;
        if next_in_column {
            return straight_down(from, to);
        }
        // program order on the left, the other relations on the right
        let side = if edge.kind == EdgeKind::ProgramOrder {
            -1.0
        } else {
            1.0
        };
        beside_column(from, to, side, edge.kind)
    }

    /// The y of the dashed bar of a fence right after the box `after`.
    pub fn fence_y(&self, after: usize) -> f64 {
        self.boxes[after].bottom() + (ROW_HEIGHT - NODE_HEIGHT) / 2.0
    }
}

fn straight_down(from: Rect, to: Rect) -> EdgeShape {
    let x = from.centre_x();
    let (y1, y2) = (from.bottom(), to.y);
    EdgeShape {
        path: format!("M {x:.1} {y1:.1} L {x:.1} {y2:.1}"),
        label_x: x - 6.0,
        label_y: (y1 + y2) / 2.0 + 14.0,
        anchor: "end",
    }
}

/// A curve out of the side (`side` -1 left, 1 right) of one box into the
/// same side of another box of its column.
fn beside_column(from: Rect, to: Rect, side: f64, kind: EdgeKind) -> EdgeShape {
    let x = if side < 0.0 { from.x } else { from.right() };
    let (y1, y2) = (from.centre_y() + port(kind), to.centre_y() + port(kind));
    let bulge = (30.0 + 0.12 * (y2 - y1).abs()).min(60.0) * side;
    let control = x + bulge * 4.0 / 3.0;
    EdgeShape {
        path: format!(
            "M {x:.1} {y1:.1} C {control:.1} {y1:.1}, {control:.1} {y2:.1}, {x:.1} {y2:.1}"
        ),
        label_x: x + bulge + 4.0 * side,
        label_y: (y1 + y2) / 2.0 + 4.0,
        anchor: if side < 0.0 { "end" } else { "start" },
    }
}

/// A line from the side of one box facing the other to the other's facing
/// side, bent to its left so that edges both ways part, and more when it
/// passes columns between.
fn between_columns(from: Rect, to: Rect, kind: EdgeKind) -> EdgeShape {
    let rightwards = to.centre_x() > from.centre_x();
    let (x1, x2) = if rightwards {
        (from.right(), to.x)
    } else {
        (from.x, to.right())
    };
    let (y1, y2) = (from.centre_y() + port(kind), to.centre_y() + port(kind));
    let (dx, dy) = (x2 - x1, y2 - y1);
    let length = (dx * dx + dy * dy).sqrt().max(1.0);
    let spans = ((to.centre_x() - from.centre_x()).abs() / COLUMN_WIDTH).round();
    let bend = 16.0 + 40.0 * (spans - 1.0).max(0.0);
    // the left normal of the direction of travel
    let (nx, ny) = (dy / length, -dx / length);
    let (cx, cy) = ((x1 + x2) / 2.0 + nx * bend, (y1 + y2) / 2.0 + ny * bend);
    // the label a third of the way, so that crossing edges' labels part
    let t: f64 = 0.3;
    let at = |a: f64, c: f64, b: f64| (1.0 - t).powi(2) * a + 2.0 * (1.0 - t) * t * c + t * t * b;
    EdgeShape {
        path: format!("M {x1:.1} {y1:.1} Q {cx:.1} {cy:.1} {x2:.1} {y2:.1}"),
        label_x: at(x1, cx, x2),
        label_y: at(y1, cy, y2) - 4.0,
        anchor: "middle",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::graph::model::{Edge, ExecutionGraph, Node};

    fn node(column: usize, index: usize) -> Node {
        Node {
            event: 0,
            name: String::new(),
            column,
            index,
            access: String::new(),
            source: String::new(),
        }
    }

    fn edge(from: usize, to: usize, kind: EdgeKind) -> Edge {
        Edge {
            from,
            to,
            kind,
            on_cycle: false,
            relaxed: false,
        }
    }

    /// Message passing: a writes x, b writes y; c reads y from b, d reads x.
    fn message_passing() -> ExecutionGraph {
        ExecutionGraph {
            title: String::new(),
            threads: vec!["t0".into(), "t1".into()],
            nodes: vec![node(0, 0), node(0, 1), node(1, 0), node(1, 1)],
            edges: vec![
                edge(0, 1, EdgeKind::ProgramOrder),
                edge(2, 3, EdgeKind::ProgramOrder),
                edge(1, 2, EdgeKind::ReadsFrom),
                edge(3, 0, EdgeKind::FromRead),
            ],
            fences: Vec::new(),
        }
    }

    #[test]
    fn a_read_goes_below_the_store_it_reads_from() {
        let graph = message_passing();
        assert_eq!(rows(&graph), [0, 1, 2, 3]);
    }

    #[test]
    fn a_cycle_of_program_order_and_reads_from_keeps_program_order() {
        let mut graph = message_passing();
        graph.edges.push(edge(3, 0, EdgeKind::ReadsFrom));
        assert_eq!(rows(&graph), [0, 1, 0, 1]);
    }

    #[test]
    fn columns_are_threads_and_boxes_do_not_overlap() {
        let graph = message_passing();
        let layout = layout(&graph);
        assert_eq!(layout.boxes[0].centre_x(), layout.boxes[1].centre_x());
        assert!(layout.boxes[2].x > layout.boxes[0].right());
        assert!(layout.boxes[1].y > layout.boxes[0].bottom());
        for (i, a) in layout.boxes.iter().enumerate() {
            for b in &layout.boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
            assert!(a.right() <= layout.width && a.bottom() <= layout.height);
        }
    }

    #[test]
    fn edges_leave_and_enter_at_the_boxes() {
        let graph = message_passing();
        let layout = layout(&graph);
        let down = layout.edge(&graph, &graph.edges[0]);
        let (a, b) = (layout.boxes[0], layout.boxes[1]);
        assert_eq!(
            down.path,
            format!(
                "M {:.1} {:.1} L {:.1} {:.1}",
                a.centre_x(),
                a.bottom(),
                b.centre_x(),
                b.y
            )
        );
        let across = layout.edge(&graph, &graph.edges[2]);
        assert!(
            across
                .path
                .starts_with(&format!("M {:.1} ", layout.boxes[1].right()))
        );
        assert!(across.path.contains(" Q "));
        let back = layout.edge(&graph, &graph.edges[3]);
        assert!(
            back.path
                .ends_with(&format!("{:.1} {:.1}", a.right(), a.centre_y() + 10.0))
        );
    }

    #[test]
    fn a_longer_program_order_step_curves_beside_its_column() {
        let mut graph = message_passing();
        graph.nodes.push(node(0, 2));
        graph.edges.push(edge(0, 4, EdgeKind::ProgramOrder));
        let layout = layout(&graph);
        let shape = layout.edge(&graph, &graph.edges[4]);
        assert!(shape.path.contains(" C "));
        assert!(shape.label_x < layout.boxes[0].x);
    }
}
