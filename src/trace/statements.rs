//! Statements in the source text, for the fence advice: where the
//! statement an origin names ends (its `;`), so that a fence can be
//! inserted right after it even when other statements share its line, and
//! whether it is the body of an `if`, `else`, `for`, `while` or `do`
//! without braces (a fence after it would then leave that body, and before
//! an `else` would not compile).

use crate::ir::Origin;

/// A statement found in the source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// Where it begins (1-based).
    pub line: u32,
    pub column: u32,
    /// Its last character, the `;` (1-based).
    pub end_line: u32,
    pub end_column: u32,
    /// Its text, the lines of a statement that spans several joined by a
    /// space.
    pub text: String,
    /// It is the body of an `if`, `else`, `for`, `while` or `do` without
    /// braces.
    pub unbraced_body: bool,
}

/// How far a statement may span.
const MAX_STATEMENT_LINES: usize = 50;

/// Keywords that open statements a fence cannot simply follow: a store in
/// their condition or a `return` (a fence after it would not run).
const COMPOUND_KEYWORDS: [&str; 12] = [
    "if", "else", "for", "while", "do", "switch", "return", "case", "default", "goto", "break",
    "continue",
];

/// The statement `origin` names in `source` (the text of `origin.file`): an
/// expression statement or a declaration that begins where the origin says
/// with the origin's text and ends where it does (or, spanning lines, after
/// its line). `None` when the text is not there, or holds more than one
/// statement (an origin in a macro's expansion has the whole line), or the
/// construct is not such a statement.
pub fn locate(source: &str, origin: &Origin) -> Option<Statement> {
    let code = Code::new(source);
    let line = usize::try_from(origin.line).ok()?.checked_sub(1)?;
    let column = usize::try_from(origin.column).ok()?.checked_sub(1)?;
    let first: String = code.lines.get(line)?.get(column..)?.iter().collect();
    let expected = origin.text.trim();
    if expected.is_empty() || !first.starts_with(expected) || !code.is_code(line, column) {
        return None;
    }
    let word: String = first
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if COMPOUND_KEYWORDS.contains(&word.as_str()) || first.starts_with('{') {
        return None;
    }
    let (end_line, end_column) = code.statement_end(line, column)?;
    if end_line == line && end_column + 1 != column + expected.chars().count() {
        return None;
    }
    let text = code.text(line, column, end_line, end_column);
    Some(Statement {
        line: origin.line,
        column: origin.column,
        end_line: u32::try_from(end_line + 1).ok()?,
        end_column: u32::try_from(end_column + 1).ok()?,
        text,
        unbraced_body: code.follows_a_control_header(line, column),
    })
}

/// The source text as characters per line, each marked as code or not
/// (comments, string and character literals, preprocessor lines).
struct Code {
    lines: Vec<Vec<char>>,
    code: Vec<Vec<bool>>,
}

impl Code {
    fn new(source: &str) -> Code {
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            Code,
            LineComment,
            BlockComment,
            Literal(char),
            Directive,
        }
        let lines: Vec<Vec<char>> = source.lines().map(|line| line.chars().collect()).collect();
        let mut code = Vec::with_capacity(lines.len());
        let mut state = State::Code;
        for line in &lines {
            let mut marks = vec![false; line.len()];
            if state == State::LineComment {
                state = State::Code;
            }
            if state == State::Code && line.iter().find(|c| !c.is_whitespace()) == Some(&'#') {
                state = State::Directive;
            }
            let mut i = 0;
            while i < line.len() {
                let c = line[i];
                let next = line.get(i + 1).copied();
                match state {
                    State::Code => match (c, next) {
                        ('/', Some('/')) => state = State::LineComment,
                        ('/', Some('*')) => {
                            state = State::BlockComment;
                            i += 1;
                        }
                        ('"' | '\'', _) => state = State::Literal(c),
                        _ => marks[i] = true,
                    },
                    State::BlockComment => {
                        if (c, next) == ('*', Some('/')) {
                            state = State::Code;
                            i += 1;
                        }
                    }
                    State::Literal(quote) => {
                        if c == '\\' {
                            i += 1;
                        } else if c == quote {
                            state = State::Code;
                        }
                    }
                    State::LineComment | State::Directive => {}
                }
                i += 1;
            }
            let continued = line.last() == Some(&'\\');
            if matches!(state, State::Directive | State::Literal(_)) && !continued {
                state = State::Code;
            }
            code.push(marks);
        }
        Code { lines, code }
    }

    fn is_code(&self, line: usize, column: usize) -> bool {
        self.code
            .get(line)
            .and_then(|marks| marks.get(column))
            .copied()
            .unwrap_or(false)
    }

    /// The code characters from (`line`, `column`) on, with their positions.
    fn forward(
        &self,
        line: usize,
        column: usize,
    ) -> impl Iterator<Item = (usize, usize, char)> + '_ {
        let last = (line + MAX_STATEMENT_LINES).min(self.lines.len());
        (line..last).flat_map(move |l| {
            let from = if l == line { column } else { 0 };
            (from..self.lines[l].len())
                .filter(move |&c| self.is_code(l, c))
                .map(move |c| (l, c, self.lines[l][c]))
        })
    }

    /// The `;` that ends the statement beginning at (`line`, `column`):
    /// the first outside parentheses, brackets and braces. `None` when a
    /// bracket closes one opened before the statement, or a brace opens a
    /// block (not an initialiser after `=`).
    fn statement_end(&self, line: usize, column: usize) -> Option<(usize, usize)> {
        let mut depth = 0usize;
        let mut previous = ' ';
        for (l, c, character) in self.forward(line, column) {
            match character {
                ';' if depth == 0 => return Some((l, c)),
                '{' if depth == 0 && previous != '=' => return None,
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth = depth.checked_sub(1)?,
                _ => {}
            }
            if !character.is_whitespace() {
                previous = character;
            }
        }
        None
    }

    /// The source text from (`line`, `column`) to (`end_line`,
    /// `end_column`), both included, lines joined by a space.
    fn text(&self, line: usize, column: usize, end_line: usize, end_column: usize) -> String {
        let mut parts = Vec::new();
        for l in line..=end_line {
            let chars = &self.lines[l];
            let from = if l == line { column } else { 0 };
            let to = if l == end_line {
                end_column + 1
            } else {
                chars.len()
            };
            let part: String = chars
                .get(from..to.min(chars.len()))
                .unwrap_or_default()
                .iter()
                .collect();
            let part = part.trim();
            if !part.is_empty() {
                parts.push(part.to_string());
            }
        }
        parts.join(" ")
    }

    /// Whether the code right before (`line`, `column`) ends a control
    /// header (`if (...)`, `while (...)`, `for (...)`) or is `else` or `do`.
    fn follows_a_control_header(&self, line: usize, column: usize) -> bool {
        let mut before = Vec::new();
        let first = line.saturating_sub(MAX_STATEMENT_LINES);
        for l in (first..=line).rev() {
            let to = if l == line {
                column
            } else {
                self.lines[l].len()
            };
            for c in (0..to.min(self.lines[l].len())).rev() {
                if !self.is_code(l, c) {
                    continue;
                }
                let character = self.lines[l][c];
                if character.is_whitespace() {
                    if before.is_empty() {
                        continue;
                    }
                    return is_header_end(&before);
                }
                before.push(character);
                if !(character.is_ascii_alphanumeric() || character == '_') {
                    return is_header_end(&before);
                }
            }
            if !before.is_empty() {
                return is_header_end(&before);
            }
        }
        is_header_end(&before)
    }
}

/// Whether the token before a statement, read backwards, ends a control
/// header: `)`, `else` or `do`.
fn is_header_end(reversed: &[char]) -> bool {
    let token: String = reversed.iter().rev().collect();
    token.ends_with(')') || token == "else" || token == "do"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(line: u32, column: u32, text: &str) -> Origin {
        Origin {
            file: "t.c".into(),
            line,
            column,
            text: text.into(),
        }
    }

    #[test]
    fn statements_sharing_a_line_end_at_their_own_semicolon() {
        let source = "int x, y, r1;\nvoid *t1(void *a) { x = 1; r1 = y; return 0; }\n";
        let statement = locate(source, &origin(2, 21, "x = 1;")).expect("found");
        assert_eq!(
            (
                statement.line,
                statement.column,
                statement.end_line,
                statement.end_column
            ),
            (2, 21, 2, 26)
        );
        assert_eq!(statement.text, "x = 1;");
        assert!(!statement.unbraced_body);
        let statement = locate(source, &origin(2, 28, "r1 = y;")).expect("found");
        assert_eq!(statement.end_column, 34);
    }

    #[test]
    fn a_whole_line_from_a_macro_is_no_statement() {
        // the origin of a statement from a macro is its whole line: which
        // of its statements stores is not known
        let source = "  STORE(x, 1); r = y;\n  r = y; STORE(x, 1);\n  STORE(x, 1);\n";
        assert_eq!(locate(source, &origin(1, 3, "STORE(x, 1); r = y;")), None);
        assert_eq!(locate(source, &origin(2, 3, "r = y; STORE(x, 1);")), None);
        let alone =
            locate(source, &origin(3, 3, "STORE(x, 1);")).expect("a macro alone on its line");
        assert_eq!((alone.end_line, alone.end_column), (3, 14));
        // a one-line function's whole line is no statement
        let source = "void *w(void *a) { STORE(x, 1); return 0; }\n";
        assert_eq!(
            locate(
                source,
                &origin(1, 1, "void *w(void *a) { STORE(x, 1); return 0; }")
            ),
            None
        );
    }

    #[test]
    fn statements_span_lines_and_skip_strings_and_comments() {
        let source = "  s = f(\";\", /* ; */ 1,\n        2); // ;\n";
        let statement = locate(source, &origin(1, 3, "s = f(\";\", /* ; */ 1,")).expect("found");
        assert_eq!((statement.end_line, statement.end_column), (2, 11));
        assert_eq!(statement.text, "s = f(\";\", /* ; */ 1, 2);");
        // an initialiser's braces are part of the declaration
        let source = "  int a[2] = { 1, 2 }; x = 1;\n";
        let statement = locate(source, &origin(1, 3, "int a[2] = { 1, 2 };")).expect("found");
        assert_eq!(statement.end_column, 22);
    }

    #[test]
    fn compound_statements_and_misplaced_texts_are_not_found() {
        let source = "  if (c) x = 1;\n  return x = 2;\n  y = 3;\n";
        assert_eq!(locate(source, &origin(1, 3, "if (c) x = 1;")), None);
        assert_eq!(locate(source, &origin(2, 3, "return x = 2;")), None);
        assert_eq!(
            locate(source, &origin(3, 4, "y = 3;")),
            None,
            "not at the column"
        );
        assert_eq!(locate(source, &origin(9, 1, "y = 3;")), None);
        assert_eq!(locate(source, &origin(0, 1, "y = 3;")), None);
        assert!(locate(source, &origin(3, 3, "y = 3;")).is_some());
        // in a comment
        assert_eq!(locate("/* y = 3; */\n", &origin(1, 4, "y = 3;")), None);
        // a loop condition ends at a parenthesis
        assert_eq!(
            locate("  while (x = 1) y = 2;\n", &origin(1, 10, "x = 1")),
            None
        );
    }

    #[test]
    fn bodies_without_braces_are_told() {
        let source = "  if (c) x = 1;\n  else\n    y = 1;\n  do z = 1; while (c);\n  { w = 1; }\n  for (;;)\n    v = 1; // x\n";
        let body = |line, column, text| {
            locate(source, &origin(line, column, text)).map(|s| s.unbraced_body)
        };
        assert_eq!(body(1, 10, "x = 1;"), Some(true));
        assert_eq!(body(3, 5, "y = 1;"), Some(true));
        assert_eq!(body(4, 6, "z = 1;"), Some(true));
        assert_eq!(body(5, 5, "w = 1;"), Some(false));
        assert_eq!(body(7, 5, "v = 1;"), Some(true));
        let after_a_statement = "  x = 1; /* ) */ y = 1;\n";
        assert_eq!(
            locate(after_a_statement, &origin(1, 18, "y = 1;")).map(|s| s.unbraced_body),
            Some(false)
        );
        let after_an_identifier = "  redo: y = 1;\n";
        assert_eq!(
            locate(after_an_identifier, &origin(1, 9, "y = 1;")).map(|s| s.unbraced_body),
            Some(false)
        );
    }
}
