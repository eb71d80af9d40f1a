//! Writing output: files atomically (a temporary file beside the target,
//! then a rename, so an existing file is never left truncated), and
//! standard output without a panic when it fails.

use std::io::{ErrorKind, Write};
use std::path::Path;

/// Whether an `-o` argument names standard output (`-`).
pub fn is_standard_output(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Writes `text` to standard output. A reader that closed the pipe early
/// (`| head`) is not an error; any other failure (a full disk) is returned
/// for the caller to report.
pub fn print(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() == ErrorKind::BrokenPipe => Ok(()),
        result => result,
    }
}

/// Writes `contents` to `path` atomically.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temporary = tempfile::NamedTempFile::new_in(directory)?;
    temporary.write_all(contents)?;
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}
