//! Writing output files atomically: a temporary file beside the target,
//! then a rename, so an existing file is never left truncated.

use std::io::Write;
use std::path::Path;

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
