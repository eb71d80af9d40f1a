//! `verify --graph FILE`: the drawing of a confirmed violation written to
//! its file (atomically), or, when the run confirmed none, one note on
//! standard error and no file.

use crate::exit;
use crate::report::document::VerifyReport;
pub use crate::report::graph::GraphFile;
use crate::report::graph::render;

/// Writes the drawing `file` asks for of `report`'s violation; the exit
/// code of a failure to write it, if one happened.
pub fn write(file: Option<&GraphFile>, report: &VerifyReport) -> Option<u8> {
    let file = file?;
    let name = file.path.display();
    match render(report, file.format) {
        Err(none) => {
            crate::output::eprintln(&format!("note: no graph written to {name}: {none}"));
            None
        }
        Ok(drawing) => match crate::output::write_atomically(&file.path, drawing.as_bytes()) {
            Ok(()) => None,
            Err(error) => {
                crate::output::eprintln(&format!("error: cannot write the graph {name}: {error}"));
                Some(exit::BACKEND_FAILURE)
            }
        },
    }
}
