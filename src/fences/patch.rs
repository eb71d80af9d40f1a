//! Fences in the source text: where a fence goes (after one statement on
//! one line, named by its text and which occurrence of that text on the
//! line it is, so that a place found in a patched program is the same
//! place in the original), the program with fences inserted, and the
//! unified diff between the two.

use std::collections::BTreeSet;

/// Where a fence goes: right after `statement`, the `occurrence`-th (from
/// 0) copy of that text on `line` (1-based); `braces` when the statement
/// is the body of an `if`, `else` or loop without braces, so that the
/// statement and the fence go in braces.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FencePlace {
    pub line: u32,
    pub occurrence: usize,
    pub statement: String,
    pub braces: bool,
    /// The fence: `__sync_synchronize();` (full) or
    /// `__atomic_thread_fence(__ATOMIC_RELEASE);` (store-store, PSO).
    pub insert: String,
}

impl FencePlace {
    /// The place of the statement that begins at `column` (1-based) of
    /// `line` in `text`, when the statement lies on that line.
    pub fn find(
        text: &str,
        line: u32,
        column: u32,
        statement: &str,
        braces: bool,
        insert: &str,
    ) -> Option<FencePlace> {
        let content = text
            .lines()
            .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
        let start = char_to_byte(content, usize::try_from(column).ok()?.checked_sub(1)?)?;
        if !content[start..].starts_with(statement) {
            return None;
        }
        let occurrence = content[..start].matches(statement).count();
        Some(FencePlace {
            line,
            occurrence,
            statement: statement.to_string(),
            braces,
            insert: insert.to_string(),
        })
    }

    /// Where the statement begins in its line's text, in bytes.
    fn start_in(&self, content: &str) -> Option<usize> {
        content
            .match_indices(&self.statement)
            .nth(self.occurrence)
            .map(|(at, _)| at)
    }
}

/// The byte offset of the `chars`-th character of `text`.
fn char_to_byte(text: &str, chars: usize) -> Option<usize> {
    text.char_indices()
        .map(|(at, _)| at)
        .chain(std::iter::once(text.len()))
        .nth(chars)
}

/// `source` with a fence at each place; `Err` names a place that is not
/// in the text.
pub fn insert(source: &str, places: &BTreeSet<FencePlace>) -> Result<String, FencePlace> {
    let mut lines: Vec<String> = source.split('\n').map(str::to_string).collect();
    // later occurrences first, so that earlier ones keep their offsets
    for place in places.iter().rev() {
        let Some(content) = usize::try_from(place.line)
            .ok()
            .and_then(|line| line.checked_sub(1))
            .and_then(|index| lines.get_mut(index))
        else {
            return Err(place.clone());
        };
        let Some(start) = place.start_in(content) else {
            return Err(place.clone());
        };
        let end = start + place.statement.len();
        let patched = if place.braces {
            format!(
                "{}{{ {} {} }}{}",
                &content[..start],
                &place.statement,
                place.insert,
                &content[end..]
            )
        } else {
            format!("{} {}{}", &content[..end], place.insert, &content[end..])
        };
        *content = patched;
    }
    Ok(lines.join("\n"))
}

/// The unified diff of `original` and `patched`, which have the same
/// lines but for some changed ones (fences are inserted within lines),
/// with three lines of context, as `diff -u` prints it.
pub fn unified_diff(name: &str, original: &str, patched: &str) -> String {
    let old: Vec<&str> = original.lines().collect();
    let new: Vec<&str> = patched.lines().collect();
    let changed: Vec<usize> = (0..old.len().max(new.len()))
        .filter(|&at| old.get(at) != new.get(at))
        .collect();
    let mut out = format!("--- {name}\n+++ {name}\n");
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &at in &changed {
        let (start, end) = (
            at.saturating_sub(CONTEXT),
            (at + CONTEXT + 1).min(old.len()),
        );
        match hunks.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => hunks.push((start, end)),
        }
    }
    for (start, end) in hunks {
        let length = end - start;
        out.push_str(&format!(
            "@@ -{},{length} +{},{length} @@\n",
            start + 1,
            start + 1
        ));
        for at in start..end {
            match (old.get(at), new.get(at)) {
                (Some(before), Some(after)) if before == after => {
                    out.push_str(&format!(" {before}\n"));
                }
                (before, after) => {
                    if let Some(before) = before {
                        out.push_str(&format!("-{before}\n"));
                    }
                    if let Some(after) = after {
                        out.push_str(&format!("+{after}\n"));
                    }
                }
            }
        }
    }
    out
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "int x, y;\nvoid f(void) {\n  x = 1; x = 1;\n  if (y) x = 2;\n}\n";

    #[test]
    fn a_place_names_its_statement_by_occurrence_and_survives_patching() {
        let second = FencePlace::find(PROGRAM, 3, 10, "x = 1;", false, "__sync_synchronize();")
            .expect("the second `x = 1;`");
        assert_eq!(second.occurrence, 1);
        let body = FencePlace::find(PROGRAM, 4, 10, "x = 2;", true, "__sync_synchronize();")
            .expect("the if's body");
        let places: BTreeSet<FencePlace> = [second.clone(), body].into_iter().collect();
        let patched = insert(PROGRAM, &places).expect("the places are in the text");
        assert_eq!(
            patched,
            "int x, y;\nvoid f(void) {\n  x = 1; x = 1; __sync_synchronize();\n  if (y) { x = 2; __sync_synchronize(); }\n}\n"
        );
        // the same statement found in the patched text is the same place
        let again = FencePlace::find(&patched, 3, 10, "x = 1;", false, "__sync_synchronize();");
        assert_eq!(again, Some(second));
        assert!(FencePlace::find(PROGRAM, 3, 4, "y = 1;", false, "").is_none());
    }

    #[test]
    fn the_diff_shows_each_changed_line_with_context() {
        let places: BTreeSet<FencePlace> =
            [FencePlace::find(PROGRAM, 3, 3, "x = 1;", false, "F();").expect("a place")]
                .into_iter()
                .collect();
        let patched = insert(PROGRAM, &places).expect("patched");
        let diff = unified_diff("p.c", PROGRAM, &patched);
        assert_eq!(
            diff,
            "--- p.c\n+++ p.c\n@@ -1,5 +1,5 @@\n int x, y;\n void f(void) {\n-  x = 1; x = 1;\n+  x = 1; F(); x = 1;\n   if (y) x = 2;\n }\n"
        );
    }
}
