//! Runs the C preprocessor (`gcc -E`) with lazysma's own headers (embedded
//! in the binary, written to a temporary directory) on the include path
//! after the program's `-I` directories and before the system's, and the
//! compiler's own check (`gcc -fsyntax-only`, same options) beside the
//! lowering: a program it rejects is refused with the compiler's first
//! error, whatever the lowering made of it.

use super::herd_litmus;
use crate::diagnostics::{Diagnostic, Severity};
use crate::frontend::FrontendError;
use crate::options::TranslateOptions;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Headers that replace the system's: (file name, contents).
const OWN_HEADERS: &[(&str, &str)] = &[
    ("stdatomic.h", include_str!("../../../include/stdatomic.h")),
    ("assert.h", include_str!("../../../include/assert.h")),
    ("threads.h", include_str!("../../../include/threads.h")),
    ("genmc.h", include_str!("../../../include/genmc.h")),
    ("x86intrin.h", X86_INTRINSICS),
    ("immintrin.h", X86_INTRINSICS),
    ("emmintrin.h", X86_INTRINSICS),
    ("xmmintrin.h", X86_INTRINSICS),
];

/// The x86 fences and `_mm_pause`, under each header that declares them.
const X86_INTRINSICS: &str = include_str!("../../../include/x86intrin.h");

/// Preprocesses `path` and returns the text with `# line "file"` markers.
pub fn preprocess(path: &Path, options: &TranslateOptions) -> Result<String, FrontendError> {
    preprocess_checked(path, options).map(|(text, _)| text)
}

/// The compiler's own check of a program (`gcc -fsyntax-only`), running
/// beside the preprocessor and the lowering: [`SyntaxCheck::finish`] waits
/// for it; dropped, it is stopped.
pub struct SyntaxCheck {
    child: Option<Child>,
    /// The program it checks.
    program: PathBuf,
    /// lazysma's headers, which gcc reads.
    _headers: tempfile::TempDir,
}

impl SyntaxCheck {
    /// Waits for the check: the compiler's first error, located, when it
    /// rejects the program.
    pub fn finish(mut self) -> Result<(), FrontendError> {
        let Some(child) = self.child.take() else {
            return Ok(());
        };
        let output = child.wait_with_output().map_err(cannot_run)?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(match compiler_error(&stderr, &self.program) {
            Some(diagnostic) => FrontendError::Source(Box::new(diagnostic)),
            None => FrontendError::Environment(format!(
                "the C compiler's check (gcc -fsyntax-only) failed without a located error:\n{stderr}"
            )),
        })
    }
}

impl Drop for SyntaxCheck {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The failure to run gcc.
fn cannot_run(e: std::io::Error) -> FrontendError {
    FrontendError::Environment(format!(
        "cannot run the C preprocessor gcc: {e}; install gcc (Debian/Ubuntu: apt-get install gcc) or put it on the PATH"
    ))
}

/// Preprocesses `path` as [`preprocess`] does, and starts the compiler's
/// own check of it with the same options beside the preprocessor.
pub fn preprocess_checked(
    path: &Path,
    options: &TranslateOptions,
) -> Result<(String, SyntaxCheck), FrontendError> {
    let failure = |stderr: String| FrontendError::Preprocessor {
        path: path.to_path_buf(),
        stderr,
    };
    let unreadable = |source| FrontendError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::metadata(path) {
        Err(source) => return Err(unreadable(source)),
        Ok(metadata) if metadata.is_dir() => {
            return Err(unreadable(std::io::Error::other(
                "it is a directory; give the C file of the program",
            )));
        }
        Ok(_) => {}
    }
    let include_dir = tempfile::tempdir().map_err(|e| {
        FrontendError::Environment(format!(
            "cannot create a temporary directory for the preprocessor: {e}"
        ))
    })?;
    for (name, contents) in OWN_HEADERS {
        std::fs::write(include_dir.path().join(name), contents).map_err(|e| {
            FrontendError::Environment(format!(
                "cannot write the header {name} for the preprocessor: {e}"
            ))
        })?;
    }
    let program = litmus_as_c(path, include_dir.path())?;
    let program = program.as_deref().unwrap_or(path);
    let mut syntax = gcc(program, options, include_dir.path(), "-fsyntax-only");
    syntax
        .env("LC_ALL", "C")
        .arg("-fdiagnostics-color=never")
        .arg("-fno-diagnostics-show-caret")
        .arg("-w")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let preprocessor = gcc(program, options, include_dir.path(), "-E");
    // started first, it runs beside the preprocessor too
    let check = SyntaxCheck {
        child: Some(syntax.spawn().map_err(cannot_run)?),
        program: path.to_path_buf(),
        _headers: include_dir,
    };
    let output = { preprocessor }.output().map_err(cannot_run)?;
    if !output.status.success() {
        return Err(failure(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    let text = String::from_utf8(output.stdout)
        .map_err(|_| failure("the preprocessed text is not UTF-8".into()))?;
    let text = struct_attributes_after_bodies(&alignment_specifiers_as_attributes(&text));
    Ok((text, check))
}

/// For a herd C litmus test (`TEST.litmus`), the path of its C program,
/// written beside lazysma's headers (its `#line` directives name `path`);
/// `None` for a C file.
fn litmus_as_c(path: &Path, directory: &Path) -> Result<Option<PathBuf>, FrontendError> {
    if !herd_litmus::is_litmus(path) {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|source| FrontendError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let program = herd_litmus::to_c(&text, path).map_err(FrontendError::Source)?;
    let c_path = directory.join("litmus-test.c");
    std::fs::write(&c_path, program).map_err(|e| {
        FrontendError::Environment(format!(
            "cannot write the C program of the litmus test for the preprocessor: {e}"
        ))
    })?;
    Ok(Some(c_path))
}

/// gcc with lazysma's options and `mode` (`-E`, `-fsyntax-only`) on
/// `path`: the program's `-I` directories before lazysma's headers in
/// `headers`, its `-D` definitions.
fn gcc(path: &Path, options: &TranslateOptions, headers: &Path, mode: &str) -> Command {
    let mut command = Command::new("gcc");
    command
        .arg(mode)
        .arg("-std=gnu11")
        .arg("-D__LAZYSMA__")
        // GNU's thread-local keyword, as C11 spells it.
        .arg("-D__thread=_Thread_local")
        // GNU C's `asm` keyword, which the parser knows as `__asm__` only
        .arg("-Dasm=__asm__");
    // the program's own headers first: its `threads.h` replaces the bundled one
    for dir in &options.include_dirs {
        command.arg("-I").arg(dir);
    }
    command.arg("-I").arg(headers);
    for define in &options.defines {
        command.arg(format!("-D{define}"));
    }
    command.arg(path);
    command
}

/// The first error of gcc's `stderr` (`file:line:column: error: what`) as
/// a diagnostic at its place (in `program`, without a line, when gcc
/// places it elsewhere: `<command-line>` for a `-D`): a program the
/// compiler rejects is not C, and lazysma does not translate it. `None`
/// when no line is an error.
fn compiler_error(stderr: &str, program: &Path) -> Option<Diagnostic> {
    stderr.lines().find_map(|line| {
        let (place, message) = line
            .split_once(": error: ")
            .or_else(|| line.split_once(": fatal error: "))?;
        let mut parts = place.rsplitn(3, ':');
        let located = match (parts.next(), parts.next(), parts.next()) {
            (Some(column), Some(line), Some(file)) => {
                match (line.trim().parse::<u32>(), column.trim().parse::<u32>()) {
                    (Ok(line), Ok(column)) => Some((PathBuf::from(file), line, column)),
                    _ => None,
                }
            }
            _ => None,
        };
        let (file, line_number, column, message) = match located {
            Some((file, line, column)) => (file, line, column, message.to_string()),
            None => (
                program.to_path_buf(),
                0,
                0,
                format!("{message} (in {place})"),
            ),
        };
        Some(Diagnostic {
            message: format!("the C compiler rejects this program: {message}"),
            file,
            line: line_number,
            column,
            length: 1,
            label: "gcc -fsyntax-only reports an error here".to_string(),
            help: Some(
                "lazysma translates only programs the C compiler accepts (gcc -fsyntax-only \
                 -std=gnu11, with the same -I and -D options); correct the program"
                    .to_string(),
            ),
            severity: Severity::Error,
        })
    })
}

/// The preprocessed `text` with each C11 alignment specifier spelt as the
/// GNU attribute, which the parser knows everywhere (it knows `_Alignas`
/// in declarations, but not before a struct member): `_Alignas(64)` is
/// `__attribute__((__aligned__(64)))`, and `_Alignas(long)`, whose operand
/// is a type, `__attribute__((__aligned__(_Alignof(long))))`. Lines keep
/// their breaks, so locations stay right.
fn alignment_specifiers_as_attributes(text: &str) -> String {
    const SPECIFIER: &str = "_Alignas";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(SPECIFIER) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let after = &from[SPECIFIER.len()..];
        let starts_word = !before.ends_with(is_word_character);
        // the preprocessor may put line markers before the `(` (`alignas`
        // is a macro of a system header)
        let between = &after[..after.len() - skip_space_and_markers(after).len()];
        let operand = after[between.len()..]
            .strip_prefix('(')
            .and_then(balanced_operand);
        match operand.filter(|_| starts_word && !inside_literal(&out)) {
            Some((operand, remaining)) => {
                let alignment = if names_a_type(operand) {
                    format!("_Alignof({operand})")
                } else {
                    operand.to_string()
                };
                out.push_str(&format!(
                    "__attribute__((__aligned__{between}({alignment})))"
                ));
                rest = remaining;
            }
            None => {
                out.push_str(SPECIFIER);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The preprocessed `text` with each GNU attribute between `struct` (or
/// `union`) and the tag moved after the struct's body, where the parser
/// reads it (`struct __attribute__((aligned(64))) s { ... };` is `struct s
/// { ... } __attribute__((aligned(64)));`). Before a struct without a body
/// the attribute says nothing (gcc ignores it) and is left out. Lines keep
/// their breaks.
fn struct_attributes_after_bodies(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = next_struct_keyword(rest) {
        let keyword_end = at
            + if rest[at..].starts_with("struct") {
                6
            } else {
                5
            };
        out.push_str(&rest[..keyword_end]);
        rest = &rest[keyword_end..];
        if inside_literal(&out) {
            continue;
        }
        let mut attributes = String::new();
        let mut kept = String::new();
        loop {
            let after_space = skip_space_and_markers(rest);
            let Some((attribute, remaining)) = leading_attribute(after_space) else {
                break;
            };
            kept.push_str(&rest[..rest.len() - after_space.len()]);
            kept.push_str(&" ".repeat(attribute.len()));
            attributes.push(' ');
            attributes.push_str(attribute);
            rest = remaining;
        }
        out.push_str(&kept);
        if attributes.is_empty() {
            continue;
        }
        // the tag, then the body, if the struct has one
        let after_tag = skip_space_and_markers(rest).trim_start_matches(is_word_character);
        let after_tag = skip_space_and_markers(after_tag);
        let body_end = after_tag
            .strip_prefix('{')
            .and_then(|body| closing(body, '{', '}'))
            .map(|end| rest.len() - after_tag.len() + 1 + end + 1);
        if let Some(body_end) = body_end {
            out.push_str(&rest[..body_end]);
            out.push_str(&attributes);
            rest = &rest[body_end..];
        }
    }
    out.push_str(rest);
    out
}

/// Where the next word `struct` or `union` begins in `text`.
fn next_struct_keyword(text: &str) -> Option<usize> {
    let mut from = 0;
    while from < text.len() {
        let at = from + text[from..].find(['s', 'u'])?;
        let keyword = ["struct", "union"]
            .into_iter()
            .find(|k| text[at..].starts_with(k));
        if let Some(keyword) = keyword {
            let before = text[..at]
                .chars()
                .next_back()
                .is_some_and(is_word_character);
            let after = text[at + keyword.len()..]
                .chars()
                .next()
                .is_some_and(is_word_character);
            if !before && !after {
                return Some(at);
            }
        }
        from = at + 1;
    }
    None
}

/// A GNU attribute at the start of `text` (`__attribute__((packed))`, its
/// parentheses balanced) and the text after it.
fn leading_attribute(text: &str) -> Option<(&str, &str)> {
    let after_name = text
        .strip_prefix("__attribute__")
        .or_else(|| text.strip_prefix("__attribute"))?;
    let arguments = after_name.trim_start();
    let (_, after) = balanced_operand(arguments.strip_prefix('(')?)?;
    let length = text.len() - after.len();
    Some((&text[..length], after))
}

/// Whether `c` may be part of a C identifier or keyword.
fn is_word_character(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The offset in `text` of the `close` that closes an `open` already
/// consumed (`)` of `(`, `}` of `{`), nested pairs skipped.
fn closing(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return Some(at);
            }
            depth -= 1;
        }
    }
    None
}

/// `text` after its leading white space and line markers (`# 5 "a.c"`).
fn skip_space_and_markers(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_start();
        let at_line_start =
            trimmed.len() == text.len() || text[..text.len() - trimmed.len()].contains('\n');
        match trimmed.strip_prefix('#') {
            Some(marker) if at_line_start => {
                text = marker.split_once('\n').map_or("", |(_, next)| next)
            }
            _ => return trimmed,
        }
    }
}

/// The text of a parenthesised operand whose `(` is already consumed, up to
/// its `)`, and the text after that; `None` if the parentheses do not close.
fn balanced_operand(text: &str) -> Option<(&str, &str)> {
    closing(text, '(', ')').map(|at| (&text[..at], &text[at + 1..]))
}

/// Whether an alignment operand names a type rather than a constant: it
/// begins with a letter or `_` (constants of macros are expanded by now;
/// an enumeration constant as an alignment is the rare exception).
fn names_a_type(operand: &str) -> bool {
    operand
        .trim_start()
        .starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// Whether the end of `text`'s last line lies inside a string or
/// character literal.
fn inside_literal(text: &str) -> bool {
    let line = text.rsplit('\n').next().unwrap_or("");
    let mut quote = None;
    let mut escaped = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            _ => {}
        }
    }
    quote.is_some()
}

#[cfg(test)]
mod tests {
    use super::alignment_specifiers_as_attributes as spelt;

    #[test]
    fn alignment_specifiers_become_aligned_attributes() {
        assert_eq!(
            spelt("struct s { _Alignas(64) int a; };"),
            "struct s { __attribute__((__aligned__(64))) int a; };"
        );
        assert_eq!(
            spelt("_Alignas (long) char c; _Alignas(struct node) char d;"),
            "__attribute__((__aligned__ (_Alignof(long)))) char c; __attribute__((__aligned__(_Alignof(struct node)))) char d;"
        );
        assert_eq!(
            spelt("_Alignas((8 * 8)) int a;"),
            "__attribute__((__aligned__((8 * 8)))) int a;"
        );
        // `alignas(long)` through <stdalign.h>: line markers before the `(`
        assert_eq!(
            spelt("{ _Alignas\n# 5 \"a.c\"\n   (long) char c; }"),
            "{ __attribute__((__aligned__\n# 5 \"a.c\"\n   (_Alignof(long)))) char c; }"
        );
    }

    #[test]
    fn attributes_before_a_struct_tag_follow_its_body() {
        use super::struct_attributes_after_bodies as moved;
        assert_eq!(
            moved("struct __attribute__((aligned(32))) b { int x; } v;"),
            "struct                              b { int x; } __attribute__((aligned(32))) v;"
        );
        assert_eq!(
            moved("typedef union __attribute__((packed)) { struct { char c; } s; int i; } u;"),
            "typedef union                         { struct { char c; } s; int i; } __attribute__((packed)) u;"
        );
        // no body: gcc ignores the attribute
        assert_eq!(
            moved("struct __attribute__((packed)) s *p;"),
            "struct                         s *p;"
        );
        for text in [
            "struct s { int x; };",
            "destruct __attribute__((x)) a",
            "char *s = \"struct __attribute__((x)) s {}\";",
        ] {
            assert_eq!(moved(text), text);
        }
    }

    #[test]
    fn other_text_is_left_alone() {
        for text in [
            "my_Alignas(4)",
            "puts(\"_Alignas(4)\");",
            "_Alignas",
            "_Alignas(4",
            "int x;\nint y;",
        ] {
            assert_eq!(spelt(text), text);
        }
        assert_eq!(spelt("a\n_Alignas(8) int b;\nc").lines().count(), 3);
    }
}
