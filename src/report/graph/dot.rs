//! The execution graph in Graphviz's DOT language, for those who have
//! Graphviz (`dot -Tpdf`): a cluster per thread, the same labels and
//! colours as the SVG, the cycle red and thicker, each fence of the fix a
//! dashed note beside the event it follows.

use super::model::{EdgeKind, ExecutionGraph};
use std::fmt::Write as _;

/// `text` as a DOT double-quoted string (a backslash of C code stays a
/// backslash, a quote stays a quote).
pub fn quote(text: &str) -> String {
    format!("\"{}\"", escape(text))
}

/// `text` escaped for the inside of a DOT double-quoted string.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            '\n' | '\r' => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    escaped
}

fn colour(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::ProgramOrder => "#444444",
        EdgeKind::ReadsFrom => "#1a8a3a",
        EdgeKind::Coherence => "#1f5fbf",
        EdgeKind::FromRead => "#d97a00",
        EdgeKind::MutexOrder => "#7b3294",
    }
}

/// The DOT text of `graph`.
pub fn render(graph: &ExecutionGraph) -> String {
    let mut dot = String::new();
    let _ = writeln!(dot, "digraph execution {{");
    let _ = writeln!(dot, "  label={};", quote(&graph.title));
    dot.push_str(
        "  labelloc=t;\n  newrank=true;\n  fontname=\"monospace\";\n  \
         node [shape=box, style=rounded, fontname=\"monospace\", fontsize=11];\n  \
         edge [fontname=\"monospace\", fontsize=10];\n",
    );
    for (column, (thread, nodes)) in graph.threads.iter().zip(graph.columns()).enumerate() {
        let _ = writeln!(dot, "  subgraph cluster_{column} {{");
        let _ = writeln!(dot, "    label={};", quote(thread));
        for node in nodes {
            let n = &graph.nodes[node];
            // (two lines: the access, the source)
            let _ = writeln!(
                dot,
                "    e{} [label=\"{}: {}\\n{}\"];",
                n.event,
                escape(&n.name),
                escape(&n.access),
                escape(&n.source)
            );
        }
        dot.push_str("  }\n");
    }
    for edge in &graph.edges {
        let (from, to) = (graph.nodes[edge.from].event, graph.nodes[edge.to].event);
        let label = match edge.relaxed {
            true => format!("{} (relaxed)", edge.kind.label()),
            false => edge.kind.label().to_string(),
        };
        // program order alone ranks the events of a thread
        let constraint = match edge.kind {
            EdgeKind::ProgramOrder | EdgeKind::ReadsFrom => "",
            _ => ", constraint=false",
        };
        let style = match edge.on_cycle {
            true => ", color=\"#d7191c\", fontcolor=\"#d7191c\", penwidth=3, class=\"on-cycle\"",
            false => "",
        };
        let _ = writeln!(
            dot,
            "  e{from} -> e{to} [label={}, color=\"{colour}\", fontcolor=\"{colour}\"{constraint}{style}];",
            quote(&label),
            colour = colour(edge.kind),
        );
    }
    for (number, fence) in graph.fences.iter().enumerate() {
        let Some(after) = graph.nodes.get(fence.after) else {
            continue;
        };
        let _ = writeln!(
            dot,
            "  fix{number} [shape=note, style=dashed, color=\"#7b3294\", fontcolor=\"#7b3294\", label={}];\n  \
             e{} -> fix{number} [style=dashed, color=\"#7b3294\", arrowhead=none, constraint=false];",
            quote(&format!("fix: {} after {}", fence.insert, after.name)),
            after.event,
        );
    }
    dot.push_str("}\n");
    dot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backslashes_and_quotes_of_c_code_stay_what_they_are() {
        assert_eq!(quote(r#"printf("%d\n", x);"#), r#""printf(\"%d\\n\", x);""#);
        assert_eq!(quote("a\nb"), "\"a b\"");
    }
}
