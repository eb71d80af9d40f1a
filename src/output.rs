//! Writing output: files without losing what was there, and standard
//! output without a panic when it fails.
//!
//! A regular file is written atomically: a temporary file beside it, then a
//! rename, so an existing file is never left truncated. A symbolic link is
//! followed and its target replaced (the link stays a link). A replaced
//! file keeps its permission bits; a new one gets 0666 minus the umask.
//! Anything else that exists (a FIFO, a device such as `/dev/null`, a
//! socket) and the open files of `/dev/stdout`, `/dev/fd/N` and
//! `/proc/*/fd` are written through as they are: a rename would put a
//! regular file in their place.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

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

/// Writes `text` to standard error: diagnostics, warnings and the text
/// report. A failure is dropped: a reader that closed the stream early
/// (`2>&1 | head`) must not turn the run into a panic, and an error stream
/// that cannot be written has nowhere to report it; the exit code still
/// carries the verdict.
pub fn eprint(text: &str) {
    let mut error = std::io::stderr().lock();
    let _ = error
        .write_all(text.as_bytes())
        .and_then(|()| error.flush());
}

/// [`eprint`] of `text` and a line end.
pub fn eprintln(text: &str) {
    eprint(&format!("{text}\n"));
}

/// The most symbolic links followed from one path (Linux's own limit).
const MAX_LINKS: usize = 40;

/// Where the bytes for a path go.
#[derive(Debug)]
enum Destination {
    /// Opened and written as it is (not a regular file, or an open file
    /// reached through `/proc`).
    Through,
    /// The regular file itself (symbolic links followed), to be replaced
    /// by a rename, with its metadata when it exists.
    Replace {
        file: PathBuf,
        existing: Option<Metadata>,
    },
}

/// Writes `contents` to `path` without losing what was there (see the
/// module comment). Errors name no temporary file.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    match destination(path)? {
        Destination::Through => write_through(path, contents),
        Destination::Replace { file, existing } => replace(&file, existing.as_ref(), contents),
    }
}

/// Where `path` leads.
fn destination(path: &Path) -> std::io::Result<Destination> {
    match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => return Ok(Destination::Through),
        Ok(_) => {}
        // a new file, or a symbolic link to one
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    let mut file = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        if in_proc(&file) {
            return Ok(Destination::Through);
        }
        match std::fs::symlink_metadata(&file) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = std::fs::read_link(&file)?;
                // a relative target is relative to the link's directory
                file = match file.parent() {
                    Some(directory) => directory.join(target),
                    None => target,
                };
            }
            Ok(metadata) => {
                return Ok(Destination::Replace {
                    file,
                    existing: Some(metadata),
                });
            }
            Err(error) if error.kind() == ErrorKind::NotFound => {
                return Ok(Destination::Replace {
                    file,
                    existing: None,
                });
            }
            Err(error) => return Err(error),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Whether `file` is in `/proc` (an open file of a process, as
/// `/dev/stdout` and `/dev/fd/N` lead to): its link names the file the
/// descriptor has open, which is to be written through the descriptor,
/// not replaced.
fn in_proc(file: &Path) -> bool {
    let directory = match file.parent() {
        Some(directory) if !directory.as_os_str().is_empty() => directory,
        _ => Path::new("."),
    };
    std::fs::canonicalize(directory).is_ok_and(|directory| directory.starts_with("/proc"))
}

/// Writes `contents` into the existing `path` as it is, appending (a FIFO,
/// a device, or an open file that may already hold output).
fn write_through(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new().append(true).open(path)?;
    file.write_all(contents)?;
    file.flush()
}

/// Writes `contents` to a temporary file beside `file` and renames it to
/// `file`, with the permission bits (and, where allowed, the owner) of
/// `existing`.
fn replace(file: &Path, existing: Option<&Metadata>, contents: &[u8]) -> std::io::Result<()> {
    let directory = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    // created by hand, as the tempfile crate's own creation names the
    // temporary file in its errors; 0666 is the mode of a new file, which
    // the umask reduces
    let mut temporary = tempfile::Builder::new().make_in(directory, |path| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
        options.open(path)
    })?;
    temporary.as_file_mut().write_all(contents)?;
    if let Some(existing) = existing {
        keep_owner(temporary.as_file(), existing);
        temporary
            .as_file()
            .set_permissions(existing.permissions())?;
    }
    temporary.as_file().sync_all()?;
    temporary.persist(file).map_err(|error| error.error)?;
    Ok(())
}

/// Gives `file` the owner and group of `existing`, where this process may
/// (as root, or a group it belongs to); otherwise the new file is the
/// writer's, as with any rename.
#[cfg(unix)]
fn keep_owner(file: &File, existing: &Metadata) {
    use std::os::unix::fs::MetadataExt;
    if let Ok(current) = file.metadata()
        && (current.uid(), current.gid()) != (existing.uid(), existing.gid())
    {
        let _ = std::os::unix::fs::fchown(file, Some(existing.uid()), Some(existing.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_file: &File, _existing: &Metadata) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_and_a_dangling_link_are_replaced_at_their_own_path() {
        let directory = tempfile::tempdir().expect("temporary directory");
        let new = directory.path().join("new.c");
        let found = destination(&new).expect("a destination");
        assert!(
            matches!(&found, Destination::Replace { file, existing: None } if *file == new),
            "{found:?}"
        );
        #[cfg(unix)]
        {
            let link = directory.path().join("link.c");
            std::os::unix::fs::symlink("new.c", &link).expect("a link");
            let found = destination(&link).expect("a destination");
            assert!(
                matches!(&found, Destination::Replace { file, existing: None } if *file == new),
                "{found:?}"
            );
        }
    }

    #[test]
    fn an_error_names_no_temporary_file() {
        let directory = tempfile::tempdir().expect("temporary directory");
        let error = write_atomically(&directory.path().join("missing/out.c"), b"x")
            .expect_err("no such directory");
        assert_eq!(error.kind(), ErrorKind::NotFound);
        assert!(!error.to_string().contains(".tmp"), "{error}");
    }
}
