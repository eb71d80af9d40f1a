//! The concrete replay of a parameterised counterexample: the program with
//! main's creation loop unrolled `N` times (`--unwindset` on that loop
//! only, the thread's own loops keep their bound) is verified by the
//! native engine, which searches every execution of up to `N` threads. A
//! violation it finds is a real execution of the program, reported with
//! the usual witness, diagnosis and fence advice.

use crate::ir::Origin;
use crate::options::{LoopLine, TranslateOptions};
use crate::report::document::{Verdict, VerifyReport};
use crate::verify::VerifyRequest;
use std::path::Path;

/// The verify request of the program with `threads` copies of the thread.
pub fn request(
    file: &Path,
    options: &TranslateOptions,
    creation_loop: &Origin,
    threads: u32,
    color: bool,
) -> VerifyRequest {
    let mut options = options.clone();
    let in_input = Path::new(&creation_loop.file) == file
        || Path::new(&creation_loop.file).file_name() == file.file_name();
    let line = LoopLine {
        file: (!in_input).then(|| creation_loop.file.clone()),
        line: creation_loop.line,
    };
    options.bounds.unwindset.insert(line, threads);
    // a document (the translation warnings stay in the report, which the
    // caller renders as text) of the threads' properties only: no deadlock
    // check
    VerifyRequest {
        color,
        memory_limit: crate::verify::memory::limit(None),
        ..VerifyRequest::of_command(file.to_path_buf(), options)
    }
}

/// Verifies the program with `threads` copies of the thread; the report
/// when the native engine confirms a violation.
pub fn confirm(request: &VerifyRequest) -> (bool, VerifyReport) {
    let (report, _) = crate::verify::check(request);
    (report.verdict == Verdict::Violation, report)
}
