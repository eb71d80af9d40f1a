//! `verify --graph`: the violating execution of every example that has
//! one, drawn as SVG and DOT. The SVG is well-formed XML (a small checker
//! of tags, attributes and entities below), has one node per memory event
//! of the witness in the JSON report and marks exactly the cycle's edges;
//! a program without a violation gets no file; a name that is neither
//! `.svg` nor `.dot` is refused as a bad option.

use crate::support;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The examples, each a C program.
fn examples() -> Vec<PathBuf> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("examples/ is readable")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "c"))
        .collect();
    programs.sort();
    programs
}

/// `verify PROGRAM --MODEL --engine smc --graph GRAPH` with `extra`:
/// (exit code, stdout, stderr).
fn draw(program: &Path, model: &str, graph: &Path, extra: &[&str]) -> (i32, String, String) {
    let graph = graph.to_string_lossy().into_owned();
    let mut arguments = vec![model, "--engine", "smc", "--graph", graph.as_str()];
    arguments.extend(extra);
    support::verify(program, &arguments)
}

/// Why `text` is not well-formed XML, if it is not: tags balance, every
/// attribute is `name="value"` without `<` in its value, `&` begins an
/// entity everywhere, one root element.
fn xml_error(text: &str) -> Option<String> {
    let mut open: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = text.trim_start();
    if let Some(declaration) = rest.strip_prefix("<?xml") {
        rest = declaration.split_once("?>").map(|(_, after)| after)?;
    }
    while !rest.is_empty() {
        let Some(start) = rest.find('<') else {
            return check_text(rest).err().or_else(|| {
                (!rest.trim().is_empty() && open.is_empty())
                    .then(|| "text after the root".to_string())
            });
        };
        if let Err(error) = check_text(&rest[..start]) {
            return Some(error);
        }
        let Some(length) = rest[start..].find('>') else {
            return Some("a tag does not end".to_string());
        };
        let tag = &rest[start + 1..start + length];
        rest = &rest[start + length + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(opened) if opened == name.trim() => continue,
                other => return Some(format!("</{name}> closes {other:?}")),
            }
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name = body.split_whitespace().next().unwrap_or("");
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Some(format!("bad tag name in <{tag}>"));
        }
        if let Err(error) = check_attributes(&body[name.len()..]) {
            return Some(format!("<{name}>: {error}"));
        }
        if open.is_empty() {
            roots += 1;
        }
        if !self_closing {
            open.push(name.to_string());
        }
    }
    match (open.is_empty(), roots) {
        (true, 1) => None,
        (false, _) => Some(format!("unclosed elements {open:?}")),
        (true, n) => Some(format!("{n} root elements")),
    }
}

/// Text content: no `<`, every `&` an entity.
fn check_text(text: &str) -> Result<(), String> {
    if text.contains('<') {
        return Err("a raw `<` in text".to_string());
    }
    check_entities(text)
}

fn check_entities(text: &str) -> Result<(), String> {
    for (at, _) in text.match_indices('&') {
        let entity = &text[at..];
        let known = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
            .iter()
            .any(|name| entity.starts_with(name))
            || entity.starts_with("&#");
        if !known {
            return Err(format!("a bare `&` in {text:?}"));
        }
    }
    Ok(())
}

/// ` name="value" name="value"`, the values quoted and escaped.
fn check_attributes(mut text: &str) -> Result<(), String> {
    loop {
        text = text.trim_start();
        if text.is_empty() {
            return Ok(());
        }
        let (name, after) = text
            .split_once('=')
            .ok_or_else(|| format!("an attribute without a value: {text:?}"))?;
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-:_".contains(c))
        {
            return Err(format!("bad attribute name {name:?}"));
        }
        let quoted = after
            .strip_prefix('"')
            .ok_or_else(|| format!("attribute {name} is not quoted"))?;
        let (value, after) = quoted
            .split_once('"')
            .ok_or_else(|| format!("attribute {name} is not closed"))?;
        if value.contains('<') {
            return Err(format!("a raw `<` in attribute {name}"));
        }
        check_entities(value)?;
        text = after;
    }
}

/// The number of elements whose opening tag begins with `prefix`.
fn count(text: &str, prefix: &str) -> usize {
    text.matches(prefix).count()
}

/// The memory kinds of witness steps: each is one event of the witness.
const MEMORY_STEPS: [&str; 12] = [
    "store-buffered",
    "store-to-memory",
    "store",
    "load-from-memory",
    "load-from-buffer",
    "fence",
    "store-fence",
    "rmw",
    "cas-failed",
    "lock",
    "unlock",
    "lock-busy",
];

/// The events of the JSON report's witness, checked against its steps:
/// every memory step names an event, and every event is some step's.
fn witness_events(report: &Value) -> usize {
    let witness = &report["witness"];
    let events = witness["events"].as_array().expect("witness.events");
    let steps = witness["steps"].as_array().expect("witness.steps");
    let mut named: Vec<u64> = Vec::new();
    for step in steps {
        let kind = step["kind"].as_str().expect("step kind");
        match step["event"].as_u64() {
            Some(event) => named.push(event),
            None => assert!(
                !MEMORY_STEPS.contains(&kind),
                "a {kind} step without its event: {step}"
            ),
        }
    }
    named.sort_unstable();
    named.dedup();
    let ids: Vec<u64> = events.iter().filter_map(|e| e["id"].as_u64()).collect();
    assert_eq!(named, ids, "the steps' events are the witness's events");
    events.len()
}

/// Checks the SVG and DOT drawings of one violation against its report.
fn check_drawings(program: &Path, model: &str, directory: &Path, report: &Value) {
    let events = witness_events(report);
    assert!(events > 0, "{program:?} {model}: a witness without events");
    let cycle = report["diagnosis"]["cycle"].as_array().map_or(0, Vec::len);
    let stem = program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    let svg_path = directory.join(format!("{}_{model}.svg", stem.clone().unwrap_or_default()));
    let (code, _, stderr) = draw(program, &format!("--{model}"), &svg_path, &[]);
    assert_eq!(code, 10, "{program:?} {model}: {stderr}");
    let svg = std::fs::read_to_string(&svg_path).expect("the SVG is written");
    if let Some(error) = xml_error(&svg) {
        panic!("{program:?} {model}: the SVG is not well-formed: {error}");
    }
    assert!(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(
        count(&svg, "<g class=\"event\""),
        events,
        "{program:?} {model}: one node per event"
    );
    for event in 0..events {
        assert_eq!(count(&svg, &format!("id=\"event-{event}\"")), 1);
    }
    assert_eq!(
        count(&svg, " on-cycle\">"),
        cycle,
        "{program:?} {model}: the cycle's edges marked"
    );
    assert!(
        cycle > 0,
        "{program:?} {model}: a weak-memory violation has a cycle"
    );
    let fences = report["diagnosis"]["fences"].as_array().map_or(0, Vec::len);
    assert_eq!(count(&svg, "<g class=\"fence\""), fences);

    let dot_path = svg_path.with_extension("dot");
    let (code, _, stderr) = draw(program, &format!("--{model}"), &dot_path, &[]);
    assert_eq!(code, 10, "{program:?} {model}: {stderr}");
    let dot = std::fs::read_to_string(&dot_path).expect("the DOT file is written");
    assert!(dot.starts_with("digraph execution {") && dot.trim_end().ends_with('}'));
    assert_eq!(count(&dot, "{"), count(&dot, "}"), "braces balance");
    let nodes = dot
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with('e') && !line.contains("->") && line.contains(" [label="))
        .count();
    assert_eq!(nodes, events, "{program:?} {model}: one DOT node per event");
    assert_eq!(count(&dot, "class=\"on-cycle\""), cycle);
}

#[test]
fn every_violating_example_is_drawn_with_its_events_and_cycle() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let mut drawn = Vec::new();
    for program in examples() {
        for model in ["tso", "pso"] {
            let (code, stdout, stderr) = support::verify(
                &program,
                &[&format!("--{model}"), "--engine", "smc", "--format", "json"],
            );
            let report: Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|error| panic!("{program:?} {model}: {error}: {stderr}"));
            if report["verdict"] != "violation" {
                assert_ne!(code, 10, "{program:?} {model}");
                continue;
            }
            check_drawings(&program, model, directory.path(), &report);
            let name = program
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned());
            drawn.push(format!("{}/{model}", name.unwrap_or_default()));
        }
    }
    for expected in ["store_buffering/tso", "message_passing/pso", "dekker/tso"] {
        assert!(
            drawn.iter().any(|d| d == expected),
            "{expected} is drawn: {drawn:?}"
        );
    }
}

#[test]
fn a_program_without_a_violation_gets_a_note_and_no_file() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/message_passing.c");
    let graph = directory.path().join("mp.svg");
    let (code, _, stderr) = draw(&program, "--tso", &graph, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!graph.exists(), "no graph is written for a safe program");
    assert_eq!(stderr.matches("no graph written").count(), 1, "{stderr}");
}

#[test]
fn a_graph_file_neither_svg_nor_dot_is_refused() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/store_buffering.c");
    let graph = directory.path().join("out.txt");
    let (code, stdout, stderr) = draw(&program, "--tso", &graph, &[]);
    assert_eq!(code, 1, "a bad option is bad input: {stderr}");
    assert!(
        stderr.contains(".svg") && stderr.contains(".dot"),
        "{stderr}"
    );
    assert!(stdout.is_empty());
    let (code, stdout, _) = draw(&program, "--tso", &graph, &["--format", "json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(report["verdict"], "bad-input");
    assert!(!graph.exists(), "nothing is written");
}

#[test]
fn the_xml_checker_refuses_what_is_not_well_formed() {
    assert_eq!(
        xml_error("<svg a=\"1\"><g><text>a &amp; b</text></g></svg>"),
        None
    );
    for bad in [
        "<svg><g></svg>",
        "<svg a=1></svg>",
        "<svg><text>a < b</text></svg>",
        "<svg><text>a & b</text></svg>",
        "<svg a=\"x<y\"></svg>",
        "<svg></svg><svg></svg>",
        "<svg>",
    ] {
        assert!(xml_error(bad).is_some(), "{bad} is refused");
    }
}
