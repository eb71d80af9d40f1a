//! lazysma: finds weak-memory bugs in concurrent C by lazy sequentialisation
//! through a shared memory abstraction, for the CBMC bounded model checker.
//!
//! Stages, data flowing one way:
//! frontend (C -> [`ir`]) -> passes (inline, unroll, lazy) -> printer
//! (sequential C with one [`sma`] header inlined); verify mode: backend (run
//! CBMC, parse its JSON) -> trace (decode SMA records into an execution) ->
//! consistency (VerifyTSO / VerifyPSO) -> report; beside CBMC, the native
//! engine [`smc`] explores the sequentialised program's executions itself.

/// The stack of a thread that translates: the parser, the passes and
/// the printer recurse once per level of nesting of the program's
/// expressions and statements, and gcc accepts thousands of levels. Only
/// the pages a program needs are ever used.
pub const WORKER_STACK_BYTES: usize = 1 << 30;

pub mod backend;
pub mod batch;
pub mod check;
pub mod consistency;
pub mod diagnostics;
pub mod exit;
pub mod fences;
pub mod frontend;
pub mod interrupt;
pub mod ir;
pub mod options;
pub mod output;
pub mod param;
pub mod passes;
pub mod printer;
pub mod report;
pub mod sma;
pub mod smc;
pub mod trace;
pub mod translate;
pub mod verify;

#[cfg(test)]
mod documents {
    //! The documents name only paths of `src/` that exist.

    use std::path::Path;

    /// The documents that describe the tree.
    const DOCUMENTS: &[&str] = &[
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "README.md",
        "sma/README.md",
    ];

    /// Every `src/...` path quoted in `text`: a word that starts with
    /// `src/`, up to the first character no path has. Paths of C files are
    /// a user's programs in examples, not the tree's.
    fn quoted_source_paths(text: &str) -> Vec<&str> {
        let is_path = |c: char| c.is_ascii_alphanumeric() || "_/.-*".contains(c);
        let mut paths = Vec::new();
        for (start, _) in text.match_indices("src/") {
            let before = text[..start].chars().next_back();
            if before.is_some_and(is_path) {
                continue;
            }
            let end = text[start..]
                .find(|c: char| !is_path(c))
                .map_or(text.len(), |length| start + length);
            let path = text[start..end].trim_end_matches(['.', '-']);
            if !path.contains('*') && !path.ends_with(".c") && !path.ends_with(".h") {
                paths.push(path);
            }
        }
        paths
    }

    #[test]
    fn every_source_path_a_document_names_exists() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut documents: Vec<_> = DOCUMENTS.iter().map(|name| root.join(name)).collect();
        let guides = std::fs::read_dir(root.join("docs")).expect("docs/ is readable");
        documents.extend(guides.filter_map(Result::ok).map(|entry| entry.path()));
        let mut missing = Vec::new();
        let mut named = 0;
        for document in documents
            .iter()
            .filter(|path| path.extension().is_some_and(|e| e == "md"))
        {
            let text = std::fs::read_to_string(document).expect("a document is readable");
            for path in quoted_source_paths(&text) {
                named += 1;
                if !root.join(path).exists() {
                    missing.push(format!("{}: {path}", document.display()));
                }
            }
        }
        assert!(named > 20, "the documents name {named} paths of src/");
        assert!(
            missing.is_empty(),
            "paths that do not exist:\n{}",
            missing.join("\n")
        );
    }

    #[test]
    fn quoted_paths_end_where_the_path_does() {
        let text = "see `src/passes/lazy.rs`, and src/smc/. Not a/src/x.rs, nor src/frontend/*.rs or src/queue.c";
        assert_eq!(
            quoted_source_paths(text),
            ["src/passes/lazy.rs", "src/smc/"]
        );
    }
}
