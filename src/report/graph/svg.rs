//! The execution graph as SVG, drawn by lazysma itself on its own column
//! layout ([`super::layout`]), so that no Graphviz is needed: boxes for
//! events, lines with arrowheads and herd's labels for relations, the
//! happens-before cycle red and thicker, each fence of the fix a dashed
//! bar where it goes, a legend.

use super::layout::{BOTTOM, Layout, layout};
use super::model::{EdgeKind, ExecutionGraph, shorten};
use std::fmt::Write as _;

/// The colour of a relation's edges off the cycle.
fn colour(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::ProgramOrder => "#444444",
        EdgeKind::ReadsFrom => "#1a8a3a",
        EdgeKind::Coherence => "#1f5fbf",
        EdgeKind::FromRead => "#d97a00",
        EdgeKind::MutexOrder => "#7b3294",
    }
}

/// The longest first line of a box (bold, in its width).
const ACCESS_CHARS: usize = 28;

/// The colour of the cycle's edges.
const CYCLE: &str = "#d7191c";
/// The colour of the fences of the fix.
const FIX: &str = "#7b3294";

/// `text` escaped for XML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            // (no other control character is allowed in XML 1.0)
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The SVG document of `graph`.
pub fn render(graph: &ExecutionGraph) -> String {
    let layout = layout(graph);
    let mut svg = String::new();
    let (width, height) = (layout.width, layout.height);
    let _ = writeln!(
        svg,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"13\">"
    );
    let _ = writeln!(svg, "<title>{}</title>", escape(&graph.title));
    svg.push_str(&markers());
    let _ = writeln!(
        svg,
        "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{width:.0}\" height=\"{height:.0}\" fill=\"#ffffff\"/>"
    );
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"28\" font-size=\"15\" font-weight=\"bold\">{}</text>",
        super::layout::MARGIN,
        escape(&graph.title)
    );
    threads(&mut svg, graph, &layout);
    for node in 0..graph.nodes.len() {
        event(&mut svg, graph, &layout, node);
    }
    fences(&mut svg, graph, &layout);
    // the cycle's edges last, over the others
    let mut order: Vec<_> = graph.edges.iter().collect();
    order.sort_by_key(|edge| edge.on_cycle);
    for edge in order {
        edge_element(&mut svg, graph, &layout, edge);
    }
    legend(&mut svg, &layout);
    svg.push_str("</svg>\n");
    svg
}

/// The arrowheads: one per relation colour, one for the cycle.
fn markers() -> String {
    let mut defs = String::from("<defs>\n");
    let kinds = [
        EdgeKind::ProgramOrder,
        EdgeKind::ReadsFrom,
        EdgeKind::Coherence,
        EdgeKind::FromRead,
        EdgeKind::MutexOrder,
    ];
    let heads = kinds
        .iter()
        .map(|&kind| (kind.label(), colour(kind)))
        .chain([("cycle", CYCLE)]);
    for (name, fill) in heads {
        let _ = writeln!(
            defs,
            "<marker id=\"head-{name}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
             markerWidth=\"7\" markerHeight=\"7\" markerUnits=\"userSpaceOnUse\" orient=\"auto\">\
             <path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{fill}\"/></marker>"
        );
    }
    // (the cycle's thicker lines scale their heads: keep them the same size)
    defs.replace(
        "id=\"head-cycle\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\"",
        "id=\"head-cycle\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"11\" markerHeight=\"11\"",
    ) + "</defs>\n"
}

fn threads(svg: &mut String, graph: &ExecutionGraph, layout: &Layout) {
    for (name, &x) in graph.threads.iter().zip(&layout.columns) {
        let _ = writeln!(
            svg,
            "<text class=\"thread\" x=\"{x:.1}\" y=\"62\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>",
            escape(name)
        );
    }
}

fn event(svg: &mut String, graph: &ExecutionGraph, layout: &Layout, node: usize) {
    let n = &graph.nodes[node];
    let rect = layout.boxes[node];
    let on_cycle = graph
        .edges
        .iter()
        .any(|e| e.on_cycle && (e.from == node || e.to == node));
    let stroke = if on_cycle { CYCLE } else { "#333333" };
    let _ = writeln!(
        svg,
        "<g class=\"event\" id=\"event-{}\">\
         <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"6\" fill=\"#fdfdf6\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" font-weight=\"bold\">{}</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#555555\">{}</text></g>",
        n.event,
        rect.x,
        rect.y,
        rect.width,
        rect.height,
        rect.x + 8.0,
        rect.y + 18.0,
        escape(&shorten(&format!("{}: {}", n.name, n.access), ACCESS_CHARS)),
        rect.x + 8.0,
        rect.y + 36.0,
        escape(&n.source),
    );
}

fn edge_element(
    svg: &mut String,
    graph: &ExecutionGraph,
    layout: &Layout,
    edge: &super::model::Edge,
) {
    let shape = layout.edge(graph, edge);
    let label = edge.kind.label();
    let (stroke, width, head, class) = if edge.on_cycle {
        (CYCLE, 3.0, "cycle", " on-cycle")
    } else {
        (colour(edge.kind), 1.5, label, "")
    };
    let text = if edge.relaxed {
        format!("{label} (relaxed)")
    } else {
        label.to_string()
    };
    let weight = if edge.on_cycle { "bold" } else { "normal" };
    let _ = writeln!(
        svg,
        "<g class=\"edge {label}{class}\">\
         <path d=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{width}\" marker-end=\"url(#head-{head})\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\" fill=\"{stroke}\" font-weight=\"{weight}\" \
         stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">{}</text></g>",
        shape.path,
        shape.label_x,
        shape.label_y,
        shape.anchor,
        escape(&text),
    );
}

fn fences(svg: &mut String, graph: &ExecutionGraph, layout: &Layout) {
    for fence in &graph.fences {
        let Some(rect) = layout.boxes.get(fence.after) else {
            continue;
        };
        let y = layout.fence_y(fence.after);
        let _ = writeln!(
            svg,
            "<g class=\"fence\"><line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" \
             stroke=\"{FIX}\" stroke-width=\"3\" stroke-dasharray=\"8 5\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{FIX}\" font-weight=\"bold\" \
             stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">fix: {}</text></g>",
            rect.x - 8.0,
            rect.right() + 8.0,
            rect.x,
            y - 6.0,
            escape(&fence.insert),
        );
    }
}

fn legend(svg: &mut String, layout: &Layout) {
    let mut y = layout.height - BOTTOM + 34.0;
    let mut x = super::layout::MARGIN;
    let mut entries: Vec<(String, &str, f64, &str)> = [
        (EdgeKind::ProgramOrder, "program order"),
        (EdgeKind::ReadsFrom, "reads-from"),
        (EdgeKind::Coherence, "coherence"),
        (EdgeKind::FromRead, "from-read"),
    ]
    .iter()
    .map(|&(kind, name)| {
        (
            format!("{} {name}", kind.label()),
            colour(kind),
            1.5,
            "none",
        )
    })
    .collect();
    entries.push(("happens-before cycle".to_string(), CYCLE, 3.0, "none"));
    entries.push(("fence of the fix".to_string(), FIX, 3.0, "8 5"));
    let _ = writeln!(svg, "<g class=\"legend\" font-size=\"11\">");
    for (text, stroke, width, dashes) in entries {
        let room = 30.0 + 7.0 * text.chars().count() as f64 + 18.0;
        if x + room > layout.width - super::layout::MARGIN / 2.0 && x > super::layout::MARGIN {
            x = super::layout::MARGIN;
            y += 18.0;
        }
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{stroke}\" stroke-width=\"{width}\" stroke-dasharray=\"{dashes}\"/>\
             <text x=\"{:.1}\" y=\"{y:.1}\" fill=\"#333333\">{}</text>",
            y - 4.0,
            x + 24.0,
            y - 4.0,
            x + 30.0,
            escape(&text),
        );
        x += room;
    }
    svg.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::graph::model::{Edge, FenceMark, Node};

    fn node(event: usize, column: usize, index: usize, source: &str) -> Node {
        Node {
            event,
            name: crate::report::graph::model::event_name(event),
            column,
            index,
            access: "W x = 1".to_string(),
            source: source.to_string(),
        }
    }

    #[test]
    fn a_drawing_has_a_box_per_event_and_marks_the_cycle() {
        let graph = ExecutionGraph {
            title: "a<b>.c: violation under TSO".to_string(),
            threads: vec!["t#0".to_string(), "u#0".to_string()],
            nodes: vec![
                node(0, 0, 0, "line 3: if (a < b && c) x = 1;"),
                node(1, 0, 1, "line 4: r = y;"),
                node(2, 1, 0, "line 9: y = 1;"),
            ],
            edges: vec![
                Edge {
                    from: 0,
                    to: 1,
                    kind: EdgeKind::ProgramOrder,
                    on_cycle: true,
                    relaxed: true,
                },
                Edge {
                    from: 1,
                    to: 2,
                    kind: EdgeKind::FromRead,
                    on_cycle: false,
                    relaxed: false,
                },
            ],
            fences: vec![FenceMark {
                after: 0,
                insert: "__sync_synchronize();".to_string(),
            }],
        };
        let svg = render(&graph);
        assert_eq!(svg.matches("<g class=\"event\"").count(), 3);
        assert_eq!(svg.matches(" on-cycle\">").count(), 1);
        assert_eq!(svg.matches("<g class=\"edge fr\">").count(), 1);
        assert_eq!(svg.matches("<g class=\"fence\">").count(), 1);
        assert!(svg.contains("if (a &lt; b &amp;&amp; c) x = 1;"));
        assert!(svg.contains("a&lt;b&gt;.c"));
        assert!(svg.contains(">po (relaxed)<"));
        assert!(!svg.contains("a < b"));
    }

    #[test]
    fn markup_and_quotes_of_c_code_are_escaped() {
        assert_eq!(
            escape("if (a < b && c > d) s = \"x\"; t = 'y';"),
            "if (a &lt; b &amp;&amp; c &gt; d) s = &quot;x&quot;; t = &apos;y&apos;;"
        );
        assert_eq!(escape("a\u{1}b"), "a b");
        assert_eq!(escape("plain"), "plain");
    }
}
