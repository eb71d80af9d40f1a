//! Maps byte offsets of the preprocessed text back to the original file,
//! line and column through gcc's `# line "file" flags` markers, and builds
//! diagnostics and statement origins from them.

use crate::diagnostics::{Diagnostic, Severity};
use crate::ir::Origin;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

/// One line of the preprocessed text and where it came from.
#[derive(Debug, Clone)]
struct LineInfo {
    /// Byte offset of the line start in the preprocessed text.
    start: usize,
    /// Index into `SourceMap::files`.
    file: usize,
    /// 1-based line in that file.
    line: u32,
    /// Whether the line comes from a system header (flag 3).
    system: bool,
}

/// A resolved original position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub system: bool,
}

/// Offset-to-source mapping of one preprocessed translation unit.
#[derive(Debug)]
pub struct SourceMap {
    text: String,
    files: Vec<String>,
    lines: Vec<LineInfo>,
    /// Original file contents, read on demand for origin texts.
    originals: RefCell<HashMap<String, Option<Vec<String>>>>,
}

impl SourceMap {
    /// Indexes `text`, the output of `gcc -E`, following gcc's rules for
    /// line markers ([`LineMarkers`]).
    pub fn new(text: &str) -> SourceMap {
        let mut markers = LineMarkers {
            line: 1,
            ..LineMarkers::default()
        };
        let mut lines = Vec::new();
        let mut start = 0usize;
        for raw in text.split_inclusive('\n') {
            let content = raw.trim_end_matches(['\n', '\r']);
            let followed = parse_marker(content).is_some_and(|marker| markers.follow(marker));
            lines.push(LineInfo {
                start,
                file: markers.file,
                line: if followed { 0 } else { markers.line },
                system: followed || markers.system,
            });
            if !followed {
                markers.line = markers.line.saturating_add(1);
            }
            start += raw.len();
        }
        let mut files = markers.files;
        if files.is_empty() {
            files.push(String::new());
        }
        SourceMap {
            text: text.to_string(),
            files,
            lines,
            originals: RefCell::new(HashMap::new()),
        }
    }

    /// The preprocessed text.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn line_index(&self, offset: usize) -> Option<usize> {
        if self.lines.is_empty() {
            return None;
        }
        Some(
            match self.lines.binary_search_by(|l| l.start.cmp(&offset)) {
                Ok(i) => i,
                Err(i) => i.saturating_sub(1),
            },
        )
    }

    /// Original position of a byte offset of the preprocessed text.
    pub fn position(&self, offset: usize) -> Position {
        let Some(index) = self.line_index(offset) else {
            return Position {
                file: self.files[0].clone(),
                line: 0,
                column: 0,
                system: false,
            };
        };
        let info = &self.lines[index];
        let prefix = self
            .text
            .get(info.start..offset.min(self.text.len()))
            .unwrap_or("");
        let column = prefix.chars().count() as u32 + 1;
        Position {
            file: self.files[info.file].clone(),
            line: info.line,
            column,
            system: info.system,
        }
    }

    /// Whether the offset lies in a system header.
    pub fn is_system(&self, offset: usize) -> bool {
        self.line_index(offset)
            .map(|i| self.lines[i].system)
            .unwrap_or(false)
    }

    /// The preprocessed text of a span, clipped to its first line.
    fn span_text(&self, start: usize, end: usize) -> &str {
        let end = end.min(self.text.len());
        let text = self.text.get(start.min(end)..end).unwrap_or("");
        text.split('\n').next().unwrap_or("")
    }

    /// A line of an original file (1-based), when readable.
    fn original_line(&self, file: &str, line: u32) -> Option<String> {
        let mut cache = self.originals.borrow_mut();
        let lines = cache.entry(file.to_string()).or_insert_with(|| {
            std::fs::read_to_string(file)
                .ok()
                .map(|s| s.lines().map(str::to_string).collect())
        });
        lines.as_ref()?.get(line.checked_sub(1)? as usize).cloned()
    }

    /// Original position and source text of `start..end`. Macro expansion
    /// shifts columns in the preprocessed text, so the text is looked up in
    /// the original line; when it is not there (it came from a macro), the
    /// whole original line is used.
    fn resolve(&self, start: usize, end: usize) -> (Position, String) {
        let (position, text, _) = self.resolve_located(start, end);
        (position, text)
    }

    /// [`SourceMap::resolve`], and whether the text was found in the
    /// original line (else it is the whole line, from a macro).
    fn resolve_located(&self, start: usize, end: usize) -> (Position, String, bool) {
        let mut position = self.position(start);
        let preprocessed = self.span_text(start, end).trim().to_string();
        let Some(line) = self.original_line(&position.file, position.line) else {
            return (position, preprocessed, true);
        };
        let chars: Vec<char> = line.chars().collect();
        let column = position.column.saturating_sub(1) as usize;
        let at = |k: usize| -> String {
            chars
                .get(k..)
                .map(|c| c.iter().collect())
                .unwrap_or_default()
        };
        if !preprocessed.is_empty() && at(column).starts_with(&preprocessed) {
            return (position, preprocessed, true);
        }
        if !preprocessed.is_empty()
            && let Some(byte) = line.find(&preprocessed)
        {
            position.column = line[..byte].chars().count() as u32 + 1;
            return (position, preprocessed, true);
        }
        let indent = chars.iter().take_while(|c| c.is_whitespace()).count();
        if position.column as usize > chars.len() || !preprocessed.is_empty() {
            position.column = indent as u32 + 1;
        }
        (position, line.trim().to_string(), false)
    }

    /// The origin of the construct spanning `start..end`: original position
    /// and its source text (from the original file when it can be found).
    pub fn origin(&self, start: usize, end: usize) -> Origin {
        let (position, text) = self.resolve(start, end);
        Origin {
            file: position.file,
            line: position.line,
            column: position.column,
            text,
        }
    }

    /// A diagnostic pointing at `start..end`.
    pub fn diagnostic(
        &self,
        start: usize,
        end: usize,
        message: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) -> Diagnostic {
        let (position, text, located) = self.resolve_located(start, end);
        let preprocessed = self.span_text(start, end).trim().chars().count();
        // a construct from a macro's expansion is not in the line's text:
        // the whole line is marked, and the label says why
        let (length, label) = if located {
            (
                preprocessed.min(text.chars().count()).max(1) as u32,
                label.into(),
            )
        } else {
            (
                text.chars().count().max(1) as u32,
                format!("{} (in a macro expansion on this line)", label.into()),
            )
        };
        Diagnostic {
            message: message.into(),
            file: PathBuf::from(position.file),
            line: position.line,
            column: position.column,
            length,
            label,
            help,
            severity: Severity::Error,
        }
    }
}

/// Where the lines of preprocessed text come from, as gcc reads its line
/// markers (`# 12 "a.h" 1 3`): flag 1 enters a file from the current one,
/// flag 2 returns to the file that entered the current one, a marker
/// without either renames the current file; flag 3 marks a system header.
/// A return to a file that did not enter the current one (or with no file
/// entered) is ignored, as gcc ignores it ("linemarker ignored due to
/// incorrect nesting"): the lines after it stay in the current file, the
/// marker's own line counted among them. A return to `""` names the file
/// returned to.
#[derive(Default)]
struct LineMarkers {
    files: Vec<String>,
    /// The current file, an index into `files`.
    file: usize,
    /// The line number of the next line of the current file.
    line: u32,
    system: bool,
    /// The files that entered the current one, innermost last.
    entered_from: Vec<usize>,
}

impl LineMarkers {
    /// Follows a parsed marker; whether it applied (an incorrectly nested
    /// return does not).
    fn follow(&mut self, (line, name, flags): (u32, String, Vec<u32>)) -> bool {
        let file = if flags.contains(&2) {
            let Some(&from) = self.entered_from.last() else {
                return false;
            };
            if !name.is_empty() && self.files.get(from) != Some(&name) {
                return false;
            }
            self.entered_from.pop();
            from
        } else {
            let entered_from_a_file = !self.files.is_empty();
            let file = self.intern(name);
            if flags.contains(&1) && entered_from_a_file {
                self.entered_from.push(self.file);
            }
            file
        };
        self.file = file;
        self.line = line;
        self.system = flags.contains(&3);
        true
    }

    /// The index of the file `name` in `files`, added if new.
    fn intern(&mut self, name: String) -> usize {
        match self.files.iter().position(|f| *f == name) {
            Some(index) => index,
            None => {
                self.files.push(name);
                self.files.len() - 1
            }
        }
    }
}

/// Parses `# 12 "file.c" 1 3` into (12, "file.c", [1, 3]).
fn parse_marker(line: &str) -> Option<(u32, String, Vec<u32>)> {
    let rest = line
        .strip_prefix("# ")
        .or_else(|| line.strip_prefix("#line "))?;
    let (number, rest) = rest.split_once(' ')?;
    let line_number: u32 = number.parse().ok()?;
    let rest = rest.strip_prefix('"')?;
    let mut file = String::new();
    let mut chars = rest.chars();
    loop {
        match chars.next()? {
            '"' => break,
            '\\' => file.push(chars.next()?),
            c => file.push(c),
        }
    }
    let flags = chars
        .as_str()
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    Some((line_number, file, flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_offsets_through_markers() {
        let text = "# 1 \"a.c\"\nint x;\n# 1 \"/usr/include/h.h\" 1 3 4\nint y;\n# 3 \"a.c\" 2\n  int z;\n";
        let map = SourceMap::new(text);
        let z = text.find("int z").unwrap_or(0);
        let p = map.position(z);
        assert_eq!(
            (p.file.as_str(), p.line, p.column, p.system),
            ("a.c", 3, 3, false)
        );
        let y = text.find("int y").unwrap_or(0);
        assert!(map.position(y).system);
        assert_eq!(map.position(y).line, 1);
        let x = text.find("int x").unwrap_or(0);
        assert_eq!(map.position(x).line, 1);
    }

    /// Mis-nested markers: where gcc 13 puts each `char` line of this text
    /// (its warnings at each line, `gcc -Wsystem-headers -c mis.i`).
    #[test]
    fn follows_gcc_on_mis_nested_markers() {
        let text = concat!(
            "# 1 \"prog.c\"\nint x;\n",
            "# 1 \"a.h\" 1\nint y;\n",
            "# 30 \"b.c\" 2\nchar z;\n",
            "# 40 \"prog.c\" 2\nchar w;\n",
            "# 50 \"other.c\"\nchar v;\n",
            "# 7 \"prog.c\" 2\nchar u;\n",
            "# 3 \"c.h\" 1 3\nchar t;\n",
            "# 0 \"\" 2\nchar s;\n",
        );
        let map = SourceMap::new(text);
        let at = |needle: &str| {
            let p = map.position(text.find(needle).unwrap_or(0));
            (p.file, p.line, p.system)
        };
        // a return to a file that did not enter a.h is ignored, and counted
        assert_eq!(at("char z"), ("a.h".to_string(), 3, false));
        assert_eq!(at("char w"), ("prog.c".to_string(), 40, false));
        // a marker without flags renames the file
        assert_eq!(at("char v"), ("other.c".to_string(), 50, false));
        // a return with nothing entered is ignored
        assert_eq!(at("char u"), ("other.c".to_string(), 52, false));
        assert_eq!(at("char t"), ("c.h".to_string(), 3, true));
        // a return to "" names the file that entered c.h
        assert_eq!(at("char s"), ("other.c".to_string(), 0, false));
    }

    #[test]
    fn marker_parsing() {
        assert_eq!(
            parse_marker("# 14 \"a\\\"b.c\" 2"),
            Some((14, "a\"b.c".to_string(), vec![2]))
        );
        assert_eq!(parse_marker("int x;"), None);
    }
}
