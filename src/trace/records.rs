//! Decodes the SMA event records (`sma/common.h`) from the assignments of a
//! CBMC trace: the record fields are assigned in a fixed order and the
//! assignment to `sma_rec_kind` commits one record.

use thiserror::Error;

/// What an SMA event record says happened (`SMA_EV_*` in `sma/common.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// A store is issued (buffered, or straight to memory under SC).
    Write,
    /// A buffered store reaches memory (reference models).
    Flush,
    Read,
    Fence,
    Lock,
    Unlock,
    /// A try-lock finds the mutex held by another thread.
    LockBusy,
    /// Atomic read-modify-write (`write_id` 0: a CAS that failed).
    Rmw,
    StoreFence,
    Malloc,
    /// The heap block at `loc` is freed.
    Free,
    /// A thread is created (`loc` = the created thread's slot).
    Create,
    /// A finished thread is joined (`loc` = the joined thread's slot).
    Join,
    /// An atomic section begins (no other thread runs until it ends).
    AtomicBegin,
    AtomicEnd,
}

impl RecordKind {
    /// The kind of a record code; `None` for an unknown code.
    pub fn from_code(code: u64) -> Option<RecordKind> {
        Some(match code {
            1 => RecordKind::Write,
            2 => RecordKind::Flush,
            3 => RecordKind::Read,
            4 => RecordKind::Fence,
            5 => RecordKind::Lock,
            6 => RecordKind::Unlock,
            7 => RecordKind::Rmw,
            8 => RecordKind::StoreFence,
            // 9 was a thread's end, which drained it; the join drains it now
            10 => RecordKind::Malloc,
            11 => RecordKind::Create,
            12 => RecordKind::Join,
            13 => RecordKind::AtomicBegin,
            14 => RecordKind::AtomicEnd,
            15 => RecordKind::LockBusy,
            16 => RecordKind::Free,
            _ => return None,
        })
    }
}

/// One committed SMA event record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub kind: RecordKind,
    /// The thread slot (0 = main).
    pub thread: usize,
    pub loc: u64,
    pub value: i128,
    pub timestamp: u64,
    pub write_id: u64,
    pub read_from: u64,
    /// The source statement id (index into the translation's origins).
    pub stmt: usize,
}

/// Why the records of a trace could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("record {index}: unknown event kind {code}")]
    UnknownKind { index: usize, code: i128 },
    #[error("record {index}: field `{field}` was never assigned")]
    MissingField { index: usize, field: &'static str },
    #[error("record {index}: field `{field}` has the unreadable value `{data}`")]
    Unreadable {
        index: usize,
        field: &'static str,
        data: String,
    },
    #[error("record {index}: field `{field}` has the out-of-range value {value}")]
    OutOfRange {
        index: usize,
        field: &'static str,
        value: i128,
    },
}

/// The record fields in the order the SMA assigns them, `sma_rec_kind` last.
const FIELDS: [&str; 8] = [
    "sma_rec_thread",
    "sma_rec_loc",
    "sma_rec_value",
    "sma_rec_timestamp",
    "sma_rec_write_id",
    "sma_rec_read_from",
    "sma_rec_stmt",
    "sma_rec_kind",
];
const KIND: usize = 7;

/// One assignment of a trace: the assigned lvalue and its value as CBMC
/// prints it (`1u`, `-3`, `4294967295ul`...) and, when known, as a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assignment<'a> {
    pub lhs: &'a str,
    pub data: Option<&'a str>,
    pub integer: Option<i128>,
}

/// The value of a field: the number if given, else parsed from the text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FieldValue {
    Number(i128),
    Unreadable(String),
}

/// Decodes every committed record (kind != 0) in trace order. Assignments
/// to other lvalues are ignored; a kind of 0 is the static initialisation.
pub fn decode<'a>(
    assignments: impl IntoIterator<Item = Assignment<'a>>,
) -> Result<Vec<Record>, DecodeError> {
    let mut current: [Option<FieldValue>; 8] = Default::default();
    let mut records = Vec::new();
    for assignment in assignments {
        let Some(field) = FIELDS
            .iter()
            .position(|name| *name == base_name(assignment.lhs))
        else {
            continue;
        };
        let value = match assignment
            .integer
            .or_else(|| assignment.data.and_then(parse_c_integer))
        {
            Some(number) => FieldValue::Number(number),
            None => FieldValue::Unreadable(assignment.data.unwrap_or("").to_string()),
        };
        current[field] = Some(value);
        if field == KIND
            && let Some(record) = commit(&current, records.len())?
        {
            records.push(record);
        }
    }
    Ok(records)
}

/// The variable name of an lvalue as CBMC prints it (without an SSA suffix).
fn base_name(lhs: &str) -> &str {
    let end = lhs.find(['!', '@', '#']).unwrap_or(lhs.len());
    lhs[..end].trim()
}

fn commit(fields: &[Option<FieldValue>; 8], index: usize) -> Result<Option<Record>, DecodeError> {
    let number = |field: usize| -> Result<i128, DecodeError> {
        match &fields[field] {
            Some(FieldValue::Number(number)) => Ok(*number),
            Some(FieldValue::Unreadable(data)) => Err(DecodeError::Unreadable {
                index,
                field: FIELDS[field],
                data: data.clone(),
            }),
            None => Err(DecodeError::MissingField {
                index,
                field: FIELDS[field],
            }),
        }
    };
    let unsigned = |field: usize| -> Result<u64, DecodeError> {
        let value = number(field)?;
        u64::try_from(value).map_err(|_| DecodeError::OutOfRange {
            index,
            field: FIELDS[field],
            value,
        })
    };
    let code = number(KIND)?;
    if code == 0 {
        return Ok(None);
    }
    let kind = u64::try_from(code)
        .ok()
        .and_then(RecordKind::from_code)
        .ok_or(DecodeError::UnknownKind { index, code })?;
    let small = |field: usize| -> Result<usize, DecodeError> {
        let value = unsigned(field)?;
        usize::try_from(value).map_err(|_| DecodeError::OutOfRange {
            index,
            field: FIELDS[field],
            value: value.into(),
        })
    };
    Ok(Some(Record {
        kind,
        thread: small(0)?,
        loc: unsigned(1)?,
        value: number(2)?,
        timestamp: unsigned(3)?,
        write_id: unsigned(4)?,
        read_from: unsigned(5)?,
        stmt: small(6)?,
    }))
}

/// Parses a C integer constant as CBMC prints it: optional sign, decimal or
/// `0x` hexadecimal digits, optional `u`/`l` suffixes; also `TRUE`/`FALSE`.
pub fn parse_c_integer(text: &str) -> Option<i128> {
    let text = text.trim();
    match text {
        "TRUE" | "true" => return Some(1),
        "FALSE" | "false" => return Some(0),
        _ => {}
    }
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let digits = rest.trim_end_matches(['u', 'U', 'l', 'L']);
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse::<i128>().ok()?
        }
        None => return None,
    };
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lhs: &'static str, data: &'static str) -> Assignment<'static> {
        Assignment {
            lhs,
            data: Some(data),
            integer: None,
        }
    }

    /// The assignments of one `sma_record` call.
    fn event(
        kind: &'static str,
        thread: &'static str,
        loc: &'static str,
        value: &'static str,
        read_from: &'static str,
    ) -> Vec<Assignment<'static>> {
        vec![
            text("sma_rec_thread", thread),
            text("sma_rec_loc", loc),
            text("sma_rec_value", value),
            text("sma_rec_timestamp", "2u"),
            text("sma_rec_write_id", "0u"),
            text("sma_rec_read_from", read_from),
            text("sma_rec_stmt", "7u"),
            text("sma_rec_kind", kind),
        ]
    }

    #[test]
    fn parses_c_constants_with_suffixes() {
        assert_eq!(parse_c_integer("1u"), Some(1));
        assert_eq!(parse_c_integer("-3"), Some(-3));
        assert_eq!(parse_c_integer("4294967295ul"), Some(4_294_967_295));
        assert_eq!(parse_c_integer("0x1F"), Some(31));
        assert_eq!(parse_c_integer("TRUE"), Some(1));
        assert_eq!(parse_c_integer("abc"), None);
        assert_eq!(parse_c_integer("-"), None);
        assert_eq!(parse_c_integer(""), None);
    }

    #[test]
    fn commits_on_kind_and_skips_initialisation() {
        let mut assignments = event("0u", "0u", "0u", "0", "0u");
        assignments.push(text("x", "5"));
        assignments.extend(event("3u", "1u", "2u", "-1", "4u"));
        let records = decode(assignments).unwrap();
        assert_eq!(records.len(), 1);
        let read = &records[0];
        assert_eq!(read.kind, RecordKind::Read);
        assert_eq!(
            (
                read.thread,
                read.loc,
                read.value,
                read.read_from,
                read.stmt,
                read.timestamp
            ),
            (1, 2, -1, 4, 7, 2)
        );
    }

    #[test]
    fn later_assignments_overwrite_fields() {
        let mut assignments = event("4u", "2u", "0u", "0", "0u");
        // Only thread and kind change for the next record: the others keep
        // their last values, as in a trace where CBMC prints every step.
        assignments.push(text("sma_rec_thread", "1u"));
        assignments.push(text("sma_rec_kind", "6u"));
        let records = decode(assignments).unwrap();
        assert_eq!(
            records
                .iter()
                .map(|r| (r.kind, r.thread))
                .collect::<Vec<_>>(),
            vec![(RecordKind::Fence, 2), (RecordKind::Unlock, 1)]
        );
    }

    #[test]
    fn rejects_unknown_kinds_missing_and_bad_fields() {
        assert!(matches!(
            decode(event("99u", "0u", "0u", "0", "0u")),
            Err(DecodeError::UnknownKind { code: 99, .. })
        ));
        assert!(matches!(
            decode(vec![text("sma_rec_kind", "1u")]),
            Err(DecodeError::MissingField {
                field: "sma_rec_thread",
                ..
            })
        ));
        assert!(matches!(
            decode(event("1u", "?", "0u", "0", "0u")),
            Err(DecodeError::Unreadable { .. })
        ));
        assert!(matches!(
            decode(event("1u", "-1", "0u", "0", "0u")),
            Err(DecodeError::OutOfRange { .. })
        ));
    }

    #[test]
    fn prefers_the_given_number_and_strips_ssa_suffixes() {
        let mut assignments = event("1u", "0u", "0u", "0", "0u");
        assignments[2] = Assignment {
            lhs: "sma_rec_value!0@1",
            data: Some("ignored"),
            integer: Some(42),
        };
        let records = decode(assignments).unwrap();
        assert_eq!(records[0].value, 42);
    }
}
