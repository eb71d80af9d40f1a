//! Runs the C preprocessor (`gcc -E`) with lazysma's own headers (embedded
//! in the binary, written to a temporary directory) first on the include path.

use super::FrontendError;
use crate::options::TranslateOptions;
use std::path::Path;
use std::process::Command;

/// Headers that replace the system's: (file name, contents).
const OWN_HEADERS: &[(&str, &str)] = &[
    ("stdatomic.h", include_str!("../../include/stdatomic.h")),
    ("assert.h", include_str!("../../include/assert.h")),
    ("x86intrin.h", X86_INTRINSICS),
    ("immintrin.h", X86_INTRINSICS),
    ("emmintrin.h", X86_INTRINSICS),
    ("xmmintrin.h", X86_INTRINSICS),
];

/// The x86 fences and `_mm_pause`, under each header that declares them.
const X86_INTRINSICS: &str = include_str!("../../include/x86intrin.h");

/// Preprocesses `path` and returns the text with `# line "file"` markers.
pub fn preprocess(path: &Path, options: &TranslateOptions) -> Result<String, FrontendError> {
    let failure = |stderr: String| FrontendError::Preprocessor {
        path: path.to_path_buf(),
        stderr,
    };
    let unreadable = |source| FrontendError::Unreadable { path: path.to_path_buf(), source };
    match std::fs::metadata(path) {
        Err(source) => return Err(unreadable(source)),
        Ok(metadata) if metadata.is_dir() => {
            return Err(unreadable(std::io::Error::other("it is a directory; give the C file of the program")));
        }
        Ok(_) => {}
    }
    let include_dir = tempfile::tempdir().map_err(|e| {
        FrontendError::Environment(format!("cannot create a temporary directory for the preprocessor: {e}"))
    })?;
    for (name, contents) in OWN_HEADERS {
        std::fs::write(include_dir.path().join(name), contents).map_err(|e| {
            FrontendError::Environment(format!("cannot write the header {name} for the preprocessor: {e}"))
        })?;
    }
    let mut command = Command::new("gcc");
    command
        .arg("-E")
        .arg("-std=gnu11")
        .arg("-D__LAZYSMA__")
        // GNU's thread-local keyword, as C11 spells it.
        .arg("-D__thread=_Thread_local")
        // GNU C's `asm` keyword, which the parser knows as `__asm__` only
        .arg("-Dasm=__asm__")
        .arg("-I")
        .arg(include_dir.path());
    for dir in &options.include_dirs {
        command.arg("-I").arg(dir);
    }
    for define in &options.defines {
        command.arg(format!("-D{define}"));
    }
    command.arg(path);
    let output = command.output().map_err(|e| {
        FrontendError::Environment(format!(
            "cannot run the C preprocessor gcc: {e}; install gcc (Debian/Ubuntu: apt-get install gcc) or put it on the PATH"
        ))
    })?;
    if !output.status.success() {
        return Err(failure(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| failure("the preprocessed text is not UTF-8".into()))
}
