//! GNU C's `$` in identifiers (`main$tmp_guard0`, as goto-instrument
//! writes SV-COMP's pthread-wmm tasks), which the parser does not know:
//! each `$` of an identifier becomes one character that makes no name
//! clash, byte for byte, so that every source position stays where it was;
//! [`DollarNames::restore`] spells the names back in the texts the reports
//! show.

use std::collections::{BTreeSet, HashSet};

/// The characters that may stand for `$`, in the order they are tried.
const STAND_INS: &str = "_QZXJKqzxjk";

/// How `$` was replaced in a text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DollarNames {
    /// The renamed identifiers and the originals they stand for.
    renamed: Vec<(String, String)>,
}

impl DollarNames {
    /// `text` with each `$` of an identifier replaced by the first stand-in
    /// that makes no two names one, and how; `text` unchanged when no
    /// identifier has a `$` or no stand-in keeps the names apart.
    pub fn rename(text: &str) -> (String, DollarNames) {
        let (plain, dollar) = identifiers(text);
        if dollar.is_empty() {
            return (text.to_string(), DollarNames::default());
        }
        for stand_in in STAND_INS.chars() {
            let renamed: Vec<(String, String)> = dollar
                .iter()
                .map(|name| (name.replace('$', &stand_in.to_string()), name.clone()))
                .collect();
            let distinct: HashSet<&String> = renamed.iter().map(|(new, _)| new).collect();
            if distinct.len() == renamed.len()
                && renamed.iter().all(|(new, _)| !plain.contains(new))
            {
                let text = replace_in_identifiers(text, stand_in);
                return (text, DollarNames { renamed });
            }
        }
        (text.to_string(), DollarNames::default())
    }

    /// `text` (a statement of the program, a location's name) with the
    /// renamed identifiers spelt as the program spells them.
    pub fn restore(&self, text: &str) -> String {
        if self.renamed.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let original = self
                .renamed
                .iter()
                .find(|(new, _)| new == word)
                .map_or(word.as_str(), |(_, original)| original.as_str());
            out.push_str(original);
            word.clear();
        };
        for c in text.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }
}

/// The identifiers of `text` outside literals and line markers: those
/// without a `$` and those with one.
fn identifiers(text: &str) -> (HashSet<String>, BTreeSet<String>) {
    let mut plain = HashSet::new();
    let mut dollar = BTreeSet::new();
    for_each_identifier(text, |name| {
        if name.contains('$') {
            dollar.insert(name.to_string());
        } else {
            plain.insert(name.to_string());
        }
    });
    (plain, dollar)
}

/// `text` with `$` replaced by `stand_in` in every identifier.
fn replace_in_identifiers(text: &str, stand_in: char) -> String {
    let mut spans = Vec::new();
    let base = text.as_ptr() as usize;
    for_each_identifier(text, |name| {
        if name.contains('$') {
            spans.push(name.as_ptr() as usize - base);
        }
    });
    let mut bytes = text.as_bytes().to_vec();
    let mut rest = spans.into_iter().peekable();
    let mut at = 0;
    while at < bytes.len() {
        if rest.peek() == Some(&at) {
            rest.next();
            while at < bytes.len() && is_identifier_byte(bytes[at]) {
                if bytes[at] == b'$' {
                    bytes[at] = stand_in as u8;
                }
                at += 1;
            }
        } else {
            at += 1;
        }
    }
    // only ASCII bytes were replaced by ASCII bytes
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}

/// Calls `found` with each identifier of `text` (a slice of it), outside
/// string and character literals and the preprocessor's `#` lines.
fn for_each_identifier<'t>(text: &'t str, mut found: impl FnMut(&'t str)) {
    for line in text.split('\n') {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let bytes = line.as_bytes();
        let mut quote = None;
        let mut at = 0;
        while at < bytes.len() {
            let byte = bytes[at];
            match quote {
                Some(_) if byte == b'\\' => at += 1,
                Some(q) if byte == q => quote = None,
                Some(_) => {}
                None if byte == b'"' || byte == b'\'' => quote = Some(byte),
                None if is_identifier_byte(byte) => {
                    let start = at;
                    while at < bytes.len() && is_identifier_byte(bytes[at]) {
                        at += 1;
                    }
                    if !bytes[start].is_ascii_digit() {
                        found(&line[start..at]);
                    }
                    continue;
                }
                None => {}
            }
            at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_become_a_stand_in_of_the_same_length_that_clashes_with_nothing() {
        let text = "int main$tmp = 1;\nint main_tmp;\n# 3 \"a$b.c\"\nchar *s = \"$x\"; int a$ = main$tmp;\n";
        let (renamed, names) = DollarNames::rename(text);
        assert_eq!(renamed.len(), text.len());
        // `_` would make `main$tmp` the existing `main_tmp`
        assert!(renamed.contains("int mainQtmp = 1;"), "{renamed}");
        assert!(renamed.contains("# 3 \"a$b.c\""), "{renamed}");
        assert!(renamed.contains("\"$x\"; int aQ = mainQtmp;"), "{renamed}");
        assert_eq!(
            names.restore("aQ = mainQtmp + main_tmp"),
            "a$ = main$tmp + main_tmp"
        );
    }

    #[test]
    fn text_without_dollar_names_is_unchanged() {
        let text = "int x = '$';\n";
        let (renamed, names) = DollarNames::rename(text);
        assert_eq!(renamed, text);
        assert_eq!(names, DollarNames::default());
    }
}
