//! The `lazysma check` command: reads an execution from JSON and decides
//! whether it is realisable under a memory model.

use crate::exit;
use crate::options::MemoryModel;
use std::path::Path;

/// Runs `lazysma check` and returns the exit code.
pub fn run(file: &Path, model: MemoryModel, json: bool) -> u8 {
    let _ = (file, model, json);
    eprintln!("error: check is not implemented yet");
    exit::BAD_INPUT
}
