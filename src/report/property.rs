//! The violated property of a report, mapped back to the original source
//! through the translation's property table: its kind, its statement
//! (file, line, column, text) and the thread whose code holds it come from
//! the table entry of its id, never from the text of its description.

use crate::ir::OriginId;
use crate::passes::TranslationMap;
pub use crate::passes::properties::PropertyKind;
use serde::Serialize;

/// The violated property, mapped back to the original file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PropertyReport {
    /// CBMC's property id, e.g. `main.assertion.1`.
    pub id: String,
    /// CBMC's description (the translator writes `file:line: assertion text`).
    pub description: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// The source line of the assertion in the original file.
    pub source: Option<String>,
    /// What failed.
    #[serde(serialize_with = "super::schema::property_kind")]
    pub kind: PropertyKind,
    /// The statement that fails.
    pub statement: Option<String>,
    /// The thread slot whose code holds the property (`None` when the
    /// table does not know it).
    #[serde(skip)]
    pub thread: Option<usize>,
}

impl PropertyReport {
    /// A property known by its id and description only, placed in the
    /// source once the translation map is at hand ([`PropertyReport::of`]).
    pub fn new(id: &str, description: &str) -> PropertyReport {
        PropertyReport {
            id: id.to_string(),
            description: description.to_string(),
            file: None,
            line: None,
            source: None,
            kind: PropertyKind::Assertion,
            statement: None,
            thread: None,
        }
    }

    /// The property CBMC (or the native engine) names `id` with
    /// `description`, as the translation's property table knows it: by its
    /// id, or, for an engine that does not number the assertions, by the
    /// C function its id names and its exact description, and then by the
    /// table's id (CBMC's). A property the table does not hold is reported
    /// as an assertion without a place.
    pub fn of(map: &TranslationMap, id: &str, description: &str) -> PropertyReport {
        let function = id.split('.').next().unwrap_or(id);
        let entry = map.properties.get(id).map(|entry| (id, entry)).or_else(|| {
            map.properties
                .find(function, description)
                .map(|(id, entry)| (id.as_str(), entry))
        });
        match entry {
            Some((id, entry)) => PropertyReport::at(
                map,
                id,
                description,
                entry.kind,
                entry.origin,
                Some(entry.thread),
            ),
            None => PropertyReport::new(id, description),
        }
    }

    /// The property `kind` of the statement at `origin` in thread
    /// `thread`, as CBMC names it `id` with `description`.
    pub fn at(
        map: &TranslationMap,
        id: &str,
        description: &str,
        kind: PropertyKind,
        origin: Option<OriginId>,
        thread: Option<usize>,
    ) -> PropertyReport {
        let origin = origin.and_then(|origin| map.origins.get(origin));
        let statement = origin
            .map(|origin| origin.text.trim().to_string())
            .filter(|text| !text.is_empty());
        let source = origin
            .and_then(|origin| source_line(&origin.file, origin.line))
            .or_else(|| statement.clone());
        PropertyReport {
            id: id.to_string(),
            description: description.to_string(),
            file: origin.map(|origin| origin.file.clone()),
            line: origin.map(|origin| origin.line),
            source,
            kind,
            statement,
            thread,
        }
    }

    /// Whether this is an unwinding assertion of the translator
    /// (`--unwinding-assertions`), not an assertion of the program.
    pub fn is_unwinding_assertion(&self) -> bool {
        self.kind == PropertyKind::UnwindingAssertion
    }

    /// The thread slot whose code the property is in.
    pub fn thread_slot(&self) -> Option<usize> {
        self.thread
    }
}

/// Line `line` (1-based) of `file`, trimmed; `None` when unreadable.
pub fn source_line(file: &str, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    text.lines().nth(index).map(|l| l.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Origin;
    use crate::passes::properties::Property;

    /// A map of two statements of `file` and three properties in the
    /// copies of `worker` of threads 1 and 2.
    fn map(file: &str) -> TranslationMap {
        let origin = |line: u32, text: &str| Origin {
            file: file.into(),
            line,
            column: 3,
            text: text.into(),
        };
        let mut map = TranslationMap {
            origins: vec![origin(2, "assert(x == 0);"), origin(3, "a[i] = 1;")],
            ..TranslationMap::default()
        };
        let mut add = |kind, origin, thread, function: &str, description: &str| {
            map.properties.add(Property {
                kind,
                origin: Some(origin),
                thread,
                function: function.into(),
                description: description.into(),
            })
        };
        let assertion = format!("{file}:2: assert(x == 0);");
        let bounds = format!("{file}:3: array index out of bounds: a[i] = 1;");
        add(PropertyKind::Assertion, 0, 1, "thread1_worker", &assertion);
        add(
            PropertyKind::ArrayIndexOutOfBounds,
            1,
            1,
            "thread1_worker",
            &bounds,
        );
        add(PropertyKind::Assertion, 0, 2, "thread2_worker", &assertion);
        map
    }

    #[test]
    fn a_property_is_placed_by_the_table_entry_of_its_id() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("a.c");
        std::fs::write(&path, "int x;\n  assert(x == 0);\n  a[i] = 1;\n").expect("write");
        let file = path.to_str().expect("a path");
        let map = map(file);
        // the description is what CBMC shows; the table decides the rest
        let bounds = PropertyReport::of(&map, "thread1_worker.assertion.2", "anything");
        assert_eq!(bounds.kind, PropertyKind::ArrayIndexOutOfBounds);
        assert_eq!((bounds.file.as_deref(), bounds.line), (Some(file), Some(3)));
        assert_eq!(bounds.statement.as_deref(), Some("a[i] = 1;"));
        assert_eq!(bounds.source.as_deref(), Some("a[i] = 1;"));
        assert_eq!(bounds.thread_slot(), Some(1));
        assert!(!bounds.is_unwinding_assertion());
        let second = PropertyReport::of(&map, "thread2_worker.assertion.1", "anything");
        assert_eq!(
            (second.kind, second.thread_slot()),
            (PropertyKind::Assertion, Some(2))
        );
        assert_eq!(second.source.as_deref(), Some("assert(x == 0);"));
    }

    #[test]
    fn a_native_id_finds_its_property_by_function_and_exact_description() {
        let map = map("missing.c");
        let description = "missing.c:2: assert(x == 0);";
        let native = PropertyReport::of(&map, "thread2_worker.assertion.native", description);
        assert_eq!(native.thread_slot(), Some(2));
        assert_eq!(native.line, Some(2));
        // an unreadable file: the statement stands for the source line
        assert_eq!(native.source.as_deref(), Some("assert(x == 0);"));
        let elsewhere = PropertyReport::of(&map, "thread3_other.assertion.native", description);
        assert_eq!((elsewhere.thread_slot(), elsewhere.line), (None, None));
        let unknown = PropertyReport::of(&map, "main.assertion.1", "a.c:1: assert(0);");
        assert_eq!(
            unknown,
            PropertyReport::new("main.assertion.1", "a.c:1: assert(0);")
        );
    }

    #[test]
    fn source_lines_are_read_from_the_file() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("a.c");
        std::fs::write(&path, "int x;\n  assert(x == 0);\n").expect("write");
        let file = path.to_str().expect("a path");
        assert_eq!(source_line(file, 2).as_deref(), Some("assert(x == 0);"));
        assert_eq!(source_line(file, 0), None);
        assert_eq!(source_line(file, 9), None);
    }
}
