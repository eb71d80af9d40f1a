//! The violating execution drawn (`verify --graph FILE.svg` or
//! `FILE.dot`), in herd's conventions: the graph as data from the typed
//! report ([`model`]: events, program-order, reads-from, coherence and
//! from-read edges, the happens-before cycle, the fences of the fix), its
//! own column layout ([`layout`]), and its two renderings, SVG drawn
//! without Graphviz ([`svg`]) and DOT for Graphviz ([`dot`]). What belongs
//! here: anything about the picture; nothing here reads text back or
//! writes files (`verify` writes them).

pub mod dot;
pub mod layout;
pub mod model;
pub mod svg;

use super::document::VerifyReport;
use model::ExecutionGraph;
use std::path::{Path, PathBuf};

/// The drawing's format, chosen by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphFormat {
    /// `.svg`: drawn by lazysma.
    Svg,
    /// `.dot`: Graphviz's language.
    Dot,
}

/// Where `--graph` writes the drawing, and in which format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphFile {
    pub path: PathBuf,
    pub format: GraphFormat,
}

/// A `--graph` file name lazysma cannot draw into.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphFileError {
    #[error("`{0}` ends neither in .svg nor in .dot: the extension chooses the graph's format")]
    UnknownExtension(String),
}

impl GraphFile {
    /// The graph file `path`, its format from its extension (`.svg`,
    /// `.dot`, in any case).
    pub fn from_path(path: &Path) -> Result<GraphFile, GraphFileError> {
        let extension = path
            .extension()
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase);
        let format = match extension.as_deref() {
            Some("svg") => GraphFormat::Svg,
            Some("dot") => GraphFormat::Dot,
            _ => return Err(GraphFileError::UnknownExtension(path.display().to_string())),
        };
        Ok(GraphFile {
            path: path.to_path_buf(),
            format,
        })
    }
}

impl std::str::FromStr for GraphFile {
    type Err = GraphFileError;

    fn from_str(text: &str) -> Result<GraphFile, GraphFileError> {
        GraphFile::from_path(Path::new(text))
    }
}

/// Why a report has no graph to draw.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoGraph {
    #[error("the verdict is `{0}`: there is no confirmed violation to draw")]
    NoViolation(&'static str),
    #[error(
        "the violation's counterexample was not checked (--no-check): there is no witness to draw"
    )]
    Unchecked,
    #[error("the violation has no witness execution to draw")]
    NoWitness,
}

/// The drawing of `report`'s violation in `format`.
pub fn render(report: &VerifyReport, format: GraphFormat) -> Result<String, NoGraph> {
    let graph = ExecutionGraph::from_report(report)?;
    Ok(match format {
        GraphFormat::Svg => svg::render(&graph),
        GraphFormat::Dot => dot::render(&graph),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_chooses_the_format() {
        let svg = GraphFile::from_path(Path::new("out/sb.SVG")).map(|file| file.format);
        assert_eq!(svg, Ok(GraphFormat::Svg));
        let dot: Result<GraphFile, _> = "sb.dot".parse();
        assert_eq!(dot.map(|file| file.format), Ok(GraphFormat::Dot));
        for refused in ["sb.txt", "sb", "svg", "sb.svg.bak"] {
            assert_eq!(
                refused.parse::<GraphFile>(),
                Err(GraphFileError::UnknownExtension(refused.to_string()))
            );
        }
    }
}
