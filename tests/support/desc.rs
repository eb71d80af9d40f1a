//! The `.desc` files of the fixture folders (`tests/fixtures/verify/`,
//! `tests/fixtures/param/`): each a list of runs of one command on the
//! `.c` beside it, every run opened by a `run:` line with its arguments and
//! followed by what it must give (`exit:`, `contains:`, `not-contains:`,
//! `json:`, `json-length:`, `tier: full`; the keys are described in
//! `tests/engines/verify_fixtures.rs`).

use serde_json::Value;
use std::path::{Path, PathBuf};

/// What one run must give.
#[derive(Debug, Default)]
pub struct Run {
    pub arguments: Vec<String>,
    pub exit: Option<i32>,
    pub contains: Vec<String>,
    pub not_contains: Vec<String>,
    /// (path, value) of the JSON report.
    pub json: Vec<(String, Value)>,
    /// (path, length) of arrays of the JSON report.
    pub json_lengths: Vec<(String, usize)>,
    /// `tier: full`: the run is left to the full tier.
    pub full_tier_only: bool,
}

/// One case: its program and its runs.
#[derive(Debug)]
pub struct Case {
    pub program: PathBuf,
    pub runs: Vec<Run>,
}

/// The runs of a `.desc` file; `Err` names a line this driver does not read.
pub fn parse(desc: &str) -> Result<Vec<Run>, String> {
    let mut runs: Vec<Run> = Vec::new();
    for (number, line) in desc.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once(':')
            .ok_or_else(|| format!("line {}: no `key:`", number + 1))?;
        let value = value.trim().to_string();
        if key == "run" {
            let arguments = words(&value);
            runs.push(Run {
                arguments,
                ..Run::default()
            });
            continue;
        }
        let run = runs
            .last_mut()
            .ok_or_else(|| format!("line {}: `{key}:` before any `run:`", number + 1))?;
        match key {
            "exit" => {
                let code = value
                    .parse()
                    .map_err(|_| format!("line {}: exit code", number + 1))?;
                run.exit = Some(code);
            }
            "contains" => run.contains.push(value),
            "tier" if value == "full" => run.full_tier_only = true,
            "tier" => {
                return Err(format!(
                    "line {}: `tier: full` is the only tier",
                    number + 1
                ));
            }
            "not-contains" => run.not_contains.push(value),
            "json" => {
                let (path, expected) = value
                    .split_once(" = ")
                    .ok_or_else(|| format!("line {}: json: PATH = VALUE", number + 1))?;
                let expected = serde_json::from_str(expected)
                    .map_err(|error| format!("line {}: {error}", number + 1))?;
                run.json.push((path.trim().to_string(), expected));
            }
            "json-length" => {
                let (path, length) = value
                    .split_once(" = ")
                    .ok_or_else(|| format!("line {}: json-length: PATH = N", number + 1))?;
                let length = length
                    .trim()
                    .parse()
                    .map_err(|_| format!("line {}: a length", number + 1))?;
                run.json_lengths.push((path.trim().to_string(), length));
            }
            other => return Err(format!("line {}: unknown key `{other}`", number + 1)),
        }
    }
    Ok(runs)
}

/// `text` split at white space outside double quotes, the quotes removed
/// (`-D "A=f(a, b)"`: two words).
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

pub fn cases(folder: &Path) -> Vec<Case> {
    let mut descs: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "desc"))
        .collect();
    descs.sort();
    descs
        .into_iter()
        .map(|desc| {
            let text = std::fs::read_to_string(&desc).expect("read the .desc");
            let runs = parse(&text).unwrap_or_else(|error| panic!("{}: {error}", desc.display()));
            let program = desc.with_extension("c");
            assert!(
                program.is_file(),
                "{}: no program beside it",
                desc.display()
            );
            assert!(!runs.is_empty(), "{}: no run", desc.display());
            Case { program, runs }
        })
        .collect()
}
