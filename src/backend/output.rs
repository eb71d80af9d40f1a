//! Parser of CBMC's `--json-ui` output: messages, property results, the
//! verification status, and the trace of the first failing property (other
//! traces are only validated, never turned into a tree, unless every trace
//! is asked for; `binary` fields are skipped).

use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;

/// Everything CBMC printed with `--json-ui`, in typed form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CbmcOutput {
    /// The `program` banner, e.g. `CBMC 5.12 (cbmc-5.12)`.
    pub program: Option<String>,
    /// Status messages, warnings and errors, in order.
    pub messages: Vec<Message>,
    /// The property results; `None` when CBMC printed no `result` entry.
    pub properties: Option<Vec<Property>>,
    /// The trace of the first property with status FAILURE, in CBMC's order.
    pub first_failure_trace: Option<Trace>,
    /// The traces of the other failing properties, by property id in
    /// CBMC's order, when every trace was asked for
    /// ([`parse_cbmc_output_with`]); empty otherwise.
    pub further_failure_traces: Vec<(String, Trace)>,
    /// The final `cProverStatus` (`success`, `failure`, `error`...).
    pub cprover_status: Option<String>,
}

impl CbmcOutput {
    /// The messages of type ERROR.
    pub fn errors(&self) -> impl Iterator<Item = &Message> {
        self.messages
            .iter()
            .filter(|m| m.kind == MessageKind::Error)
    }

    /// The messages of type WARNING.
    pub fn warnings(&self) -> impl Iterator<Item = &Message> {
        self.messages
            .iter()
            .filter(|m| m.kind == MessageKind::Warning)
    }

    /// The first property with status FAILURE, in CBMC's order.
    pub fn first_failure(&self) -> Option<&Property> {
        self.properties
            .as_ref()?
            .iter()
            .find(|p| p.status == PropertyStatus::Failure)
    }

    /// Whether CBMC reported running out of memory.
    pub fn reports_out_of_memory(&self) -> bool {
        self.errors().any(|m| mentions_out_of_memory(&m.text))
    }
}

/// Whether a CBMC message or stderr line says that memory ran out.
pub fn mentions_out_of_memory(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("out of memory") || lower.contains("std::bad_alloc")
}

/// The kind of a CBMC message (`messageType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageKind {
    Status,
    Warning,
    Error,
    Other(String),
}

impl MessageKind {
    fn from_json(text: &str) -> Self {
        match text {
            "STATUS-MESSAGE" => MessageKind::Status,
            "WARNING" => MessageKind::Warning,
            "ERROR" => MessageKind::Error,
            other => MessageKind::Other(other.to_string()),
        }
    }
}

/// One message of CBMC.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub kind: MessageKind,
    pub text: String,
    pub location: Option<SourceLocation>,
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(location) => write!(f, "{location}: {}", self.text),
            None => f.write_str(&self.text),
        }
    }
}

/// A place in a C file as CBMC reports it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct SourceLocation {
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default, deserialize_with = "number_from_text")]
    pub line: Option<u32>,
    #[serde(default, deserialize_with = "number_from_text")]
    pub column: Option<u32>,
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default, rename = "workingDirectory")]
    pub working_directory: Option<String>,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.file.as_deref().unwrap_or("<unknown>"))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(column) = self.column {
            write!(f, ":{column}")?;
        }
        Ok(())
    }
}

/// The verdict of CBMC on one property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropertyStatus {
    Success,
    Failure,
    Unknown,
    NotChecked,
    Error,
    Other(String),
}

impl PropertyStatus {
    fn from_json(text: &str) -> Self {
        match text {
            "SUCCESS" => PropertyStatus::Success,
            "FAILURE" => PropertyStatus::Failure,
            "UNKNOWN" => PropertyStatus::Unknown,
            "NOT CHECKED" | "NOT_CHECKED" => PropertyStatus::NotChecked,
            "ERROR" => PropertyStatus::Error,
            other => PropertyStatus::Other(other.to_string()),
        }
    }
}

impl fmt::Display for PropertyStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PropertyStatus::Success => "SUCCESS",
            PropertyStatus::Failure => "FAILURE",
            PropertyStatus::Unknown => "UNKNOWN",
            PropertyStatus::NotChecked => "NOT CHECKED",
            PropertyStatus::Error => "ERROR",
            PropertyStatus::Other(text) => text,
        })
    }
}

/// One property (assertion) and CBMC's verdict on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// CBMC's id, e.g. `main.assertion.1`.
    pub id: String,
    /// The assertion's message, e.g. the string of `__CPROVER_assert`.
    pub description: String,
    pub status: PropertyStatus,
    /// Where the property is, when CBMC tells (from its failure step).
    pub location: Option<SourceLocation>,
}

/// A counterexample: the steps CBMC reports for a failing property.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    pub steps: Vec<TraceStep>,
}

impl Trace {
    /// The steps not marked `hidden` by CBMC.
    pub fn visible_steps(&self) -> impl Iterator<Item = &TraceStep> {
        self.steps.iter().filter(|s| !s.hidden)
    }

    /// The assignments, hidden ones included, in trace order.
    pub fn assignments(&self) -> impl Iterator<Item = &TraceStep> {
        self.steps.iter().filter(|s| s.kind == StepKind::Assignment)
    }

    /// The last value assigned to `lhs` in the trace, if any.
    pub fn last_value_of(&self, lhs: &str) -> Option<&TraceValue> {
        self.assignments()
            .filter(|s| s.lhs.as_deref() == Some(lhs))
            .last()
            .and_then(|s| s.value.as_ref())
    }
}

/// The type of a trace step (`stepType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepKind {
    Assignment,
    FunctionCall,
    FunctionReturn,
    LocationOnly,
    Failure,
    Output,
    Input,
    Other(String),
}

impl StepKind {
    fn from_json(text: &str) -> Self {
        match text {
            "assignment" => StepKind::Assignment,
            "function-call" => StepKind::FunctionCall,
            "function-return" => StepKind::FunctionReturn,
            "location-only" => StepKind::LocationOnly,
            "failure" => StepKind::Failure,
            "output" => StepKind::Output,
            "input" => StepKind::Input,
            other => StepKind::Other(other.to_string()),
        }
    }
}

/// One step of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    pub kind: StepKind,
    /// CBMC's thread number (0 in a sequential program).
    pub thread: u32,
    /// Steps CBMC itself would not show (library initialisation and the like).
    pub hidden: bool,
    pub internal: bool,
    pub location: Option<SourceLocation>,
    /// Assignment: the assigned lvalue as text, e.g. `x`, `arr[1l]`, `s.f`.
    pub lhs: Option<String>,
    /// Assignment: `variable`, `actual-parameter`...
    pub assignment_type: Option<String>,
    /// Assignment: the assigned value.
    pub value: Option<TraceValue>,
    /// Function call or return: the function's identifier.
    pub function: Option<String>,
    /// Failure: the violated property's id.
    pub property: Option<String>,
    /// Failure: the property's description.
    pub reason: Option<String>,
    /// Input and output steps: their values.
    pub io_values: Vec<TraceValue>,
    /// Input and output steps: the id (`inputID` / `outputID`).
    pub io_id: Option<String>,
}

impl TraceStep {
    /// The assigned lvalue split into variable, fields and indices.
    pub fn lhs_path(&self) -> Option<LhsPath> {
        LhsPath::parse(self.lhs.as_deref()?)
    }
}

/// An lvalue of a trace as a path: `g`, `arr[1l]`, `s.buf[2l].value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LhsPath {
    /// The variable.
    pub base: String,
    pub accessors: Vec<Accessor>,
}

/// One step into an aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accessor {
    Field(String),
    Index(i128),
}

impl LhsPath {
    /// Parses CBMC's text of an lvalue; `None` for anything but variables,
    /// member accesses and constant indices (e.g. `*p`).
    pub fn parse(text: &str) -> Option<LhsPath> {
        let text = text.trim();
        let base_end = text.find(['.', '[']).unwrap_or(text.len());
        let base = &text[..base_end];
        if !is_identifier(base) {
            return None;
        }
        let mut accessors = Vec::new();
        let mut rest = &text[base_end..];
        while !rest.is_empty() {
            if let Some(after_dot) = rest.strip_prefix('.') {
                let end = after_dot.find(['.', '[']).unwrap_or(after_dot.len());
                let field = &after_dot[..end];
                if !is_identifier(field) {
                    return None;
                }
                accessors.push(Accessor::Field(field.to_string()));
                rest = &after_dot[end..];
            } else if let Some(after_bracket) = rest.strip_prefix('[') {
                let end = after_bracket.find(']')?;
                accessors.push(Accessor::Index(integer_from_data(&after_bracket[..end])?));
                rest = &after_bracket[end + 1..];
            } else {
                return None;
            }
        }
        Some(LhsPath {
            base: base.to_string(),
            accessors,
        })
    }
}

/// CBMC's identifiers: C identifiers, plus `$` and `::` of generated names.
fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with(|c: char| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | ':' | '#' | '!'))
}

/// A value in a trace: a scalar with its text and, for integers, its number;
/// or an array or struct of values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceValue {
    /// CBMC's kind of value: `integer`, `pointer`, `array`, `struct`, `unknown`...
    pub name: String,
    /// The C type, e.g. `signed int`, `unsigned __CPROVER_bitvector[3]`.
    pub c_type: Option<String>,
    pub width: Option<u32>,
    /// The value as CBMC prints it, e.g. `-7`, `4294967295u`, `'a'`, `TRUE`.
    pub data: Option<String>,
    /// The number, where `data` is an integer, a character or a boolean.
    pub integer: Option<i128>,
    /// Array elements as (index, value).
    pub elements: Vec<(u64, TraceValue)>,
    /// Struct or union members as (name, value).
    pub members: Vec<(String, TraceValue)>,
}

/// Why CBMC's output could not be read.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("CBMC's output is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("CBMC's output is empty")]
    Empty,
}

/// Parses the whole `--json-ui` output of CBMC.
pub fn parse_cbmc_output(text: &str) -> Result<CbmcOutput, OutputError> {
    parse_cbmc_output_with(text, false)
}

/// [`parse_cbmc_output`], also turning the trace of every failing property
/// after the first into a tree when `every_trace` is set
/// ([`CbmcOutput::further_failure_traces`]).
pub fn parse_cbmc_output_with(text: &str, every_trace: bool) -> Result<CbmcOutput, OutputError> {
    if text.trim().is_empty() {
        return Err(OutputError::Empty);
    }
    let raw: Vec<RawEntry<'_>> = serde_json::from_str(text)?;
    let mut output = CbmcOutput::default();
    for entry in raw {
        absorb_entry(&mut output, entry, every_trace)?;
    }
    Ok(output)
}

fn absorb_entry(
    output: &mut CbmcOutput,
    entry: RawEntry<'_>,
    every_trace: bool,
) -> Result<(), OutputError> {
    if let Some(program) = entry.program {
        output.program = Some(program);
    }
    if let Some(text) = entry.message_text {
        output.messages.push(Message {
            kind: MessageKind::from_json(entry.message_type.as_deref().unwrap_or("")),
            text,
            location: entry.source_location,
        });
    }
    if let Some(results) = entry.result {
        absorb_results(output, results, every_trace)?;
    }
    if let Some(status) = entry.cprover_status {
        output.cprover_status = Some(status);
    }
    Ok(())
}

fn absorb_results(
    output: &mut CbmcOutput,
    results: Vec<RawProperty<'_>>,
    every_trace: bool,
) -> Result<(), OutputError> {
    let properties = output.properties.get_or_insert_with(Vec::new);
    for raw in results {
        let status = PropertyStatus::from_json(&raw.status);
        let mut location = raw.source_location;
        let first = output.first_failure_trace.is_none();
        if status == PropertyStatus::Failure
            && (first || every_trace)
            && let Some(raw_trace) = raw.trace
        {
            let trace = parse_trace(raw_trace.get())?;
            if location.is_none() {
                location = trace
                    .steps
                    .iter()
                    .rev()
                    .find(|s| s.kind == StepKind::Failure)
                    .and_then(|s| s.location.clone());
            }
            if first {
                output.first_failure_trace = Some(trace);
            } else {
                output
                    .further_failure_traces
                    .push((raw.property.clone(), trace));
            }
        }
        properties.push(Property {
            id: raw.property,
            description: raw.description.unwrap_or_default(),
            status,
            location,
        });
    }
    Ok(())
}

/// Parses one trace (the JSON array of a property's `trace` field).
pub fn parse_trace(text: &str) -> Result<Trace, OutputError> {
    let raw: Vec<RawStep> = serde_json::from_str(text)?;
    Ok(Trace {
        steps: raw.into_iter().map(RawStep::into_step).collect(),
    })
}

/// The number a CBMC value text denotes: decimal integers with C suffixes
/// (`-7`, `4294967295u`, `0ul`), character literals (`'a'`, `'\n'`) and
/// `TRUE`/`FALSE`.
pub fn integer_from_data(text: &str) -> Option<i128> {
    let text = text.trim();
    match text {
        "TRUE" | "true" => return Some(1),
        "FALSE" | "false" => return Some(0),
        _ => {}
    }
    if text.len() >= 3 && text.starts_with('\'') && text.ends_with('\'') {
        return char_literal_value(&text[1..text.len() - 1]);
    }
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if digits.is_empty() {
        return None;
    }
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return i128::from_str_radix(hex, 16).ok();
    }
    if let Some(hex) = digits.strip_prefix("-0x") {
        return i128::from_str_radix(hex, 16).ok().map(|v| -v);
    }
    digits.parse::<i128>().ok()
}

fn char_literal_value(body: &str) -> Option<i128> {
    let mut chars = body.chars();
    let first = chars.next()?;
    if first != '\\' {
        return if chars.next().is_none() {
            Some(first as i128)
        } else {
            None
        };
    }
    let rest: String = chars.collect();
    let simple = match rest.as_str() {
        "n" => Some(10),
        "t" => Some(9),
        "r" => Some(13),
        "0" => Some(0),
        "\\" => Some(92),
        "'" => Some(39),
        "\"" => Some(34),
        "a" => Some(7),
        "b" => Some(8),
        "f" => Some(12),
        "v" => Some(11),
        _ => None,
    };
    if simple.is_some() {
        return simple;
    }
    if let Some(hex) = rest.strip_prefix('x') {
        return i128::from_str_radix(hex, 16).ok();
    }
    i128::from_str_radix(&rest, 8).ok()
}

// ---- raw serde shapes -------------------------------------------------------

#[derive(Deserialize)]
struct RawEntry<'a> {
    #[serde(default)]
    program: Option<String>,
    #[serde(default, rename = "messageText")]
    message_text: Option<String>,
    #[serde(default, rename = "messageType")]
    message_type: Option<String>,
    #[serde(default, rename = "sourceLocation")]
    source_location: Option<SourceLocation>,
    #[serde(default, borrow)]
    result: Option<Vec<RawProperty<'a>>>,
    #[serde(default, rename = "cProverStatus")]
    cprover_status: Option<String>,
}

#[derive(Deserialize)]
struct RawProperty<'a> {
    property: String,
    #[serde(default)]
    description: Option<String>,
    status: String,
    #[serde(default, rename = "sourceLocation")]
    source_location: Option<SourceLocation>,
    #[serde(default, borrow)]
    trace: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawStep {
    #[serde(rename = "stepType")]
    step_type: String,
    #[serde(default)]
    thread: u32,
    #[serde(default)]
    hidden: bool,
    #[serde(default)]
    internal: bool,
    #[serde(default, rename = "sourceLocation")]
    source_location: Option<SourceLocation>,
    #[serde(default)]
    lhs: Option<String>,
    #[serde(default, rename = "assignmentType")]
    assignment_type: Option<String>,
    #[serde(default)]
    value: Option<RawValueShape>,
    #[serde(default)]
    function: Option<RawFunction>,
    #[serde(default)]
    property: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    values: Vec<RawValueShape>,
    #[serde(default, rename = "outputID")]
    output_id: Option<String>,
    #[serde(default, rename = "inputID")]
    input_id: Option<String>,
}

impl RawStep {
    fn into_step(self) -> TraceStep {
        TraceStep {
            kind: StepKind::from_json(&self.step_type),
            thread: self.thread,
            hidden: self.hidden,
            internal: self.internal,
            location: self.source_location,
            lhs: self.lhs,
            assignment_type: self.assignment_type,
            value: self.value.map(RawValueShape::into_value),
            function: self.function.and_then(|f| f.identifier.or(f.display_name)),
            property: self.property,
            reason: self.reason,
            io_values: self
                .values
                .into_iter()
                .map(RawValueShape::into_value)
                .collect(),
            io_id: self.output_id.or(self.input_id),
        }
    }
}

#[derive(Deserialize)]
struct RawFunction {
    #[serde(default)]
    identifier: Option<String>,
    #[serde(default, rename = "displayName")]
    display_name: Option<String>,
}

#[derive(Deserialize)]
struct RawValueShape {
    #[serde(default)]
    name: String,
    #[serde(default, rename = "type")]
    c_type: Option<String>,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    data: Option<ScalarData>,
    #[serde(default)]
    elements: Vec<RawElement>,
    #[serde(default)]
    members: Vec<RawMember>,
}

impl RawValueShape {
    fn into_value(self) -> TraceValue {
        let data = self.data.map(ScalarData::into_text);
        let integer = data.as_deref().and_then(integer_from_data);
        TraceValue {
            name: self.name,
            c_type: self.c_type,
            width: self.width,
            data,
            integer,
            elements: self
                .elements
                .into_iter()
                .map(|e| (e.index, e.value.into_value()))
                .collect(),
            members: self
                .members
                .into_iter()
                .map(|m| (m.name, m.value.into_value()))
                .collect(),
        }
    }
}

#[derive(Deserialize)]
struct RawElement {
    index: u64,
    value: RawValueShape,
}

#[derive(Deserialize)]
struct RawMember {
    name: String,
    value: RawValueShape,
}

/// `data` is a string for most values but a JSON boolean for `boolean`.
#[derive(Deserialize)]
#[serde(untagged)]
enum ScalarData {
    Text(String),
    Bool(bool),
    Number(serde_json::Number),
}

impl ScalarData {
    fn into_text(self) -> String {
        match self {
            ScalarData::Text(text) => text,
            ScalarData::Bool(value) => value.to_string(),
            ScalarData::Number(number) => number.to_string(),
        }
    }
}

/// CBMC prints line and column numbers as strings; accept numbers too.
fn number_from_text<'de, D>(deserializer: D) -> Result<Option<u32>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum TextOrNumber {
        Text(String),
        Number(u32),
    }
    Ok(match Option::<TextOrNumber>::deserialize(deserializer)? {
        Some(TextOrNumber::Text(text)) => text.trim().parse().ok(),
        Some(TextOrNumber::Number(number)) => Some(number),
        None => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_with_c_suffixes_parse() {
        assert_eq!(integer_from_data("-7"), Some(-7));
        assert_eq!(integer_from_data("4294967295u"), Some(4294967295));
        assert_eq!(integer_from_data("0ul"), Some(0));
        assert_eq!(
            integer_from_data("-9223372036854775808l"),
            Some(-9223372036854775808)
        );
        assert_eq!(
            integer_from_data("18446744073709551615ull"),
            Some(18446744073709551615)
        );
    }

    #[test]
    fn characters_and_booleans_parse() {
        assert_eq!(integer_from_data("'a'"), Some(97));
        assert_eq!(integer_from_data("'\\n'"), Some(10));
        assert_eq!(integer_from_data("'\\377'"), Some(255));
        assert_eq!(integer_from_data("TRUE"), Some(1));
        assert_eq!(integer_from_data("false"), Some(0));
    }

    #[test]
    fn non_numbers_have_no_integer() {
        assert_eq!(integer_from_data("NULL"), None);
        assert_eq!(integer_from_data("&x"), None);
        assert_eq!(integer_from_data("1.5"), None);
        assert_eq!(integer_from_data(""), None);
        assert_eq!(integer_from_data("u"), None);
        assert_eq!(integer_from_data("''"), None);
    }

    #[test]
    fn lvalues_split_into_paths() {
        let path = LhsPath::parse("s.buf[2l].value").expect("path");
        assert_eq!(path.base, "s");
        assert_eq!(
            path.accessors,
            vec![
                Accessor::Field("buf".into()),
                Accessor::Index(2),
                Accessor::Field("value".into())
            ]
        );
        assert_eq!(
            LhsPath::parse("arr[1l]").map(|p| p.accessors),
            Some(vec![Accessor::Index(1)])
        );
        assert_eq!(
            LhsPath::parse("t.$pad2").map(|p| p.accessors),
            Some(vec![Accessor::Field("$pad2".into())])
        );
        assert_eq!(LhsPath::parse("x").map(|p| p.accessors.len()), Some(0));
        assert_eq!(LhsPath::parse("*p"), None);
        assert_eq!(LhsPath::parse("a[i]"), None);
        assert_eq!(LhsPath::parse("a[1"), None);
        assert_eq!(LhsPath::parse("a..b"), None);
        assert_eq!(LhsPath::parse(""), None);
    }

    #[test]
    fn empty_and_garbage_output_are_errors() {
        assert!(matches!(parse_cbmc_output("  \n"), Err(OutputError::Empty)));
        assert!(matches!(
            parse_cbmc_output("[{\"program\": "),
            Err(OutputError::Json(_))
        ));
        assert!(matches!(
            parse_cbmc_output("Usage error!"),
            Err(OutputError::Json(_))
        ));
    }

    #[test]
    fn trace_of_first_failure_only_is_parsed() {
        let text = r#"[
          {"result": [
            {"property": "p.1", "description": "a", "status": "FAILURE",
             "trace": [{"stepType": "assignment", "lhs": "x", "thread": 0, "hidden": false,
                        "value": {"name": "integer", "data": "1", "binary": "01", "width": 2}}]},
            {"property": "p.2", "description": "b", "status": "FAILURE",
             "trace": [{"stepType": "assignment", "lhs": "y", "value": {"name": "integer", "data": "2"}}]},
            {"property": "p.3", "description": "c", "status": "UNKNOWN"}
          ]},
          {"cProverStatus": "failure"}
        ]"#;
        let output = parse_cbmc_output(text).expect("valid sample");
        let properties = output.properties.as_ref().expect("results present");
        assert_eq!(properties.len(), 3);
        assert_eq!(properties[2].status, PropertyStatus::Unknown);
        let trace = output.first_failure_trace.as_ref().expect("trace");
        assert_eq!(trace.steps.len(), 1);
        assert_eq!(trace.last_value_of("x").and_then(|v| v.integer), Some(1));
        assert!(trace.last_value_of("y").is_none());
        assert_eq!(output.cprover_status.as_deref(), Some("failure"));
        assert!(output.further_failure_traces.is_empty());
        // every trace, when asked for: each failing property's own
        let every = parse_cbmc_output_with(text, true).expect("valid sample");
        assert_eq!(every.first_failure_trace, output.first_failure_trace);
        assert_eq!(every.further_failure_traces.len(), 1);
        let (id, further) = &every.further_failure_traces[0];
        assert_eq!(id, "p.2");
        assert_eq!(further.last_value_of("y").and_then(|v| v.integer), Some(2));
    }

    #[test]
    fn line_numbers_accept_text_and_numbers() {
        let location: SourceLocation =
            serde_json::from_str(r#"{"file": "a.c", "line": "12", "column": 3}"#).expect("valid");
        assert_eq!(location.line, Some(12));
        assert_eq!(location.column, Some(3));
        assert_eq!(location.to_string(), "a.c:12:3");
    }
}
