//! The verify report as data, against the original source: the violated
//! property, the witness steps (thread, file:line, statement, memory effect
//! in plain words), the diagnosis with fence advice, and the check result.
//! Both renderers (text and JSON) read this one structure.

use super::diagnosis::{Diagnosis, Reordering, ReorderingKind, rest_of_statement};
use super::execution::{Decoded, EventKind};
use super::statements::{self, Statement};
use crate::consistency::{EventId, Model, Op, Phase, Source, Witness};
use crate::ir::{FenceKind, Origin};
use crate::passes::TranslationMap;
use serde::Serialize;
use std::collections::HashMap;

/// The verdict of `lazysma verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every property holds within the bounds.
    Safe,
    /// A property fails and the native check confirmed the counterexample.
    Violation,
    /// A property fails; the native check was skipped (`--no-check`).
    UncheckedViolation,
    /// The counterexample failed the native check: a lazysma defect.
    CheckFailed,
    /// The input could not be translated.
    BadInput,
    /// CBMC is missing, failed, ran out of memory or was inconclusive.
    BackendError,
    /// The time limit was reached.
    Timeout,
    /// `--unwinding-assertions`: a loop can run longer than `--unwind`
    /// allows, in an execution the native check confirms. A bound, not a
    /// bug: results within the bounds miss the longer executions.
    UnwindingBound,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Violation => "violation",
            Verdict::UncheckedViolation => "unchecked-violation",
            Verdict::CheckFailed => "check-failed",
            Verdict::BadInput => "bad-input",
            Verdict::BackendError => "backend-error",
            Verdict::Timeout => "timeout",
            Verdict::UnwindingBound => "unwinding-bound",
        }
    }
}

/// How CBMC was run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CbmcReport {
    pub version: String,
    pub path: String,
    /// Wall-clock time of the CBMC run.
    pub seconds: f64,
    pub exit_code: Option<i32>,
    /// The SAT solver used instead of or beside CBMC's own, if any.
    pub sat_solver: Option<String>,
    /// What gave the verdict: `cbmc` (CBMC's run, with its own solver) or
    /// the SAT solver's name; `None` without a verdict.
    pub decided_by: Option<String>,
    /// What that solver found when it ran beside CBMC's own and CBMC's run
    /// ended without a verdict: `true`, the formula is satisfiable (some
    /// property can fail, though no counterexample came), `false`, it is
    /// not (every property holds); `null` otherwise.
    pub formula_satisfiable: Option<bool>,
}

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
    pub kind: PropertyKind,
    /// The statement that fails, as the description gives it.
    pub statement: Option<String>,
}

/// What kind of property failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PropertyKind {
    /// `assert`, `__VERIFIER_assert`, `__CPROVER_assert`.
    Assertion,
    /// An index of a shared array outside its bounds.
    ArrayIndexOutOfBounds,
    /// An access through a null pointer.
    NullDereference,
    /// An access through a pointer outside every object it may point into.
    PointerOutsideObject,
    /// An access to a heap block after its `free`.
    UseAfterFree,
    /// A second `free` of a heap block.
    DoubleFree,
    /// A `free` of a pointer that no `malloc` returned.
    InvalidFree,
    /// `pthread_mutex_unlock` by a thread that does not hold the mutex.
    UnlockNotHeld,
    /// A `/` or `%` by zero.
    DivisionByZero,
    /// A call through a pointer to no function.
    InvalidFunctionPointer,
    /// `reach_error()`, `__VERIFIER_error()` is reached.
    ErrorCall,
    /// `--unwinding-assertions`: a loop runs longer than `--unwind`.
    UnwindingAssertion,
}

impl PropertyKind {
    /// What happens when a property of this kind fails, in words.
    pub fn failure(self) -> &'static str {
        match self {
            PropertyKind::Assertion => "the assertion does not hold",
            PropertyKind::ArrayIndexOutOfBounds => "array index out of bounds",
            PropertyKind::NullDereference => "a null pointer is dereferenced",
            PropertyKind::PointerOutsideObject => "a pointer outside its object is dereferenced",
            PropertyKind::UseAfterFree => "freed memory is used",
            PropertyKind::DoubleFree => "a heap block is freed twice",
            PropertyKind::InvalidFree => "a pointer malloc did not return is freed",
            PropertyKind::UnlockNotHeld => "a thread unlocks a mutex it does not hold",
            PropertyKind::DivisionByZero => "a division by zero",
            PropertyKind::InvalidFunctionPointer => "a call through a pointer to no function",
            PropertyKind::ErrorCall => "the error call is reached",
            PropertyKind::UnwindingAssertion => "the loop runs longer than --unwind allows",
        }
    }
}

impl PropertyReport {
    /// Maps a property back to the source through its description.
    pub fn new(id: &str, description: &str) -> PropertyReport {
        let (file, line, text) = parse_description(description);
        let source = match (&file, line) {
            (Some(file), Some(line)) => source_line(file, line).or(text),
            _ => text,
        };
        let (kind, statement) =
            classify(split_description(description).map_or(description, |(_, _, rest)| rest));
        PropertyReport {
            id: id.to_string(),
            description: description.to_string(),
            file,
            line,
            source,
            kind,
            statement,
        }
    }

    /// Whether this is an unwinding assertion of the translator
    /// (`--unwinding-assertions`), not an assertion of the program.
    pub fn is_unwinding_assertion(&self) -> bool {
        self.kind == PropertyKind::UnwindingAssertion
    }

    /// The thread slot whose code the property is in: the translator names
    /// thread `t`'s copy of its start function `thread<t>_<function>`, and
    /// CBMC's property ids begin with the function.
    pub fn thread_slot(&self) -> Option<usize> {
        let rest = self.id.strip_prefix("thread")?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !rest[digits..].starts_with('_') {
            return None;
        }
        rest[..digits].parse().ok()
    }
}

/// The kind of a property and the statement that fails, from the text of
/// its description after `file:line:`.
fn classify(text: &str) -> (PropertyKind, Option<String>) {
    let text = text.trim();
    let statement = |rest: &str| {
        let rest = rest.trim();
        (!rest.is_empty()).then(|| rest.to_string())
    };
    if let Some(rest) = text.strip_prefix(crate::ir::ARRAY_INDEX_OUT_OF_BOUNDS) {
        return (
            PropertyKind::ArrayIndexOutOfBounds,
            statement(rest.strip_prefix(':').unwrap_or(rest)),
        );
    }
    let located_errors = [
        (crate::ir::DIVISION_BY_ZERO, PropertyKind::DivisionByZero),
        (
            crate::ir::INVALID_FUNCTION_POINTER,
            PropertyKind::InvalidFunctionPointer,
        ),
        (crate::ir::NULL_DEREFERENCE, PropertyKind::NullDereference),
        (
            crate::ir::POINTER_OUTSIDE_OBJECT,
            PropertyKind::PointerOutsideObject,
        ),
        (crate::ir::USE_AFTER_FREE, PropertyKind::UseAfterFree),
        (crate::ir::DOUBLE_FREE, PropertyKind::DoubleFree),
        (crate::ir::INVALID_FREE, PropertyKind::InvalidFree),
    ];
    for (words, kind) in located_errors {
        if let Some(rest) = text.strip_prefix(words) {
            return (kind, statement(rest.strip_prefix(':').unwrap_or(rest)));
        }
    }
    if let Some(rest) = text.strip_prefix(crate::ir::UNLOCK_NOT_HELD) {
        return (
            PropertyKind::UnlockNotHeld,
            statement(rest.strip_prefix(':').unwrap_or(rest)),
        );
    }
    if let Some(rest) = text.strip_prefix(crate::ir::UNWINDING_ASSERTION) {
        let rest = rest.split_once("):").map_or(rest, |(_, after)| after);
        return (PropertyKind::UnwindingAssertion, statement(rest));
    }
    if let Some(rest) = text.strip_prefix("error call") {
        return (PropertyKind::ErrorCall, statement(rest));
    }
    let rest = text.strip_prefix("assertion").unwrap_or(text);
    let calls_error = ["reach_error", "__VERIFIER_error"]
        .iter()
        .any(|name| rest.contains(name));
    if calls_error && !rest.contains("assert") {
        return (PropertyKind::ErrorCall, statement(rest));
    }
    (PropertyKind::Assertion, statement(rest))
}

/// `file`, `line` and the rest of a description `file:line: rest`: the
/// first `:digits:` after a non-empty file name separates them.
fn split_description(description: &str) -> Option<(&str, u32, &str)> {
    for (colon, _) in description.match_indices(':') {
        if colon == 0 {
            continue;
        }
        let rest = &description[colon + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !rest[digits..].starts_with(':') {
            continue;
        }
        let Ok(line) = rest[..digits].parse::<u32>() else {
            continue;
        };
        return Some((&description[..colon], line, &rest[digits + 1..]));
    }
    None
}

/// Splits the description the translator gives a property,
/// `file:line: text` (older form: `file:line: assertion text`), into its
/// parts; the first `:digits:` after a non-empty file name separates them.
pub fn parse_description(description: &str) -> (Option<String>, Option<u32>, Option<String>) {
    let Some((file, line, rest)) = split_description(description) else {
        return (None, None, None);
    };
    let mut text = rest.trim();
    for marker in ["assertion ", "error call "] {
        text = text.strip_prefix(marker).unwrap_or(text);
    }
    let text =
        (!text.is_empty() && text != "assertion" && text != "error call").then(|| text.to_string());
    (Some(file.to_string()), Some(line), text)
}

/// Line `line` (1-based) of `file`, trimmed; `None` when unreadable.
pub fn source_line(file: &str, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    text.lines().nth(index).map(|l| l.trim().to_string())
}

/// A thread of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadReport {
    /// The thread slot (0 = main).
    pub slot: usize,
    /// Its start function.
    pub function: String,
    /// Which creation of that function it is (0, 1, ...).
    pub instance: u32,
    /// `main`, or `function#instance`.
    pub name: String,
}

impl ThreadReport {
    pub fn new(map: &TranslationMap, slot: usize) -> ThreadReport {
        match map.threads.get(slot) {
            Some(thread) => ThreadReport {
                slot,
                function: thread.function.clone(),
                instance: thread.instance,
                name: thread.name(slot),
            },
            None => ThreadReport {
                slot,
                function: String::new(),
                instance: 0,
                name: format!("thread {slot}"),
            },
        }
    }
}

/// One row of the witness table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepReport {
    /// 1-based row number.
    pub step: usize,
    pub thread: ThreadReport,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The source statement.
    pub statement: Option<String>,
    /// The memory effect in plain words.
    pub effect: String,
    /// A machine-readable kind (see [`StepKind`]).
    pub kind: StepKind,
    /// The shared location (or mutex) accessed, if any.
    pub location: Option<String>,
    /// The value written or read, if any.
    pub value: Option<String>,
    /// The step comes after the property failed: the execution the check
    /// confirms has it, the failure does not need it.
    pub after_failure: bool,
}

/// The thread's store buffer as a witness row sees it: the stores a
/// draining event flushes, the stores buffered now, and whether a read
/// takes its value from the buffer.
#[derive(Debug, Clone, Copy)]
struct Buffers {
    drained: usize,
    buffered: usize,
    own_buffer: bool,
}

/// What a witness row does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepKind {
    /// A store enters the store buffer.
    StoreBuffered,
    /// A buffered store reaches memory.
    StoreToMemory,
    /// A store issued and in memory at once (SC, or flushed right away).
    Store,
    LoadFromMemory,
    LoadFromBuffer,
    Fence,
    /// A store-store fence: later stores of the thread wait for earlier ones.
    StoreFence,
    /// An atomic section begins: no other thread runs until it ends.
    AtomicBegin,
    AtomicEnd,
    Rmw,
    CasFailed,
    Lock,
    Unlock,
    /// A try-lock finds the mutex held by another thread.
    LockBusy,
    /// The thread creates another thread.
    Create,
    /// The thread joins a finished thread.
    Join,
}

/// A point of the source: where an event comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourcePoint {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub statement: Option<String>,
    pub location: Option<String>,
}

/// A fence that forbids the counterexample, in a form a tool can apply:
/// insert the statement `insert` right after the statement
/// `after_statement`, which ends at `after_line`:`after_column`, before the
/// statement `before_statement` at `before_line`:`before_column`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FenceAdvice {
    pub file: String,
    /// The line where the statement the fence goes after ends.
    pub after_line: u32,
    /// The line of the statement the fence goes before (informative: it
    /// may be in another function, or earlier in a loop).
    pub before_line: u32,
    pub thread: String,
    /// `full` (drains the store buffers) or `store-store` (under PSO keeps
    /// the earlier stores ahead of the later ones, cheaper).
    pub kind: &'static str,
    /// The C statement to insert.
    pub insert: &'static str,
    /// The column of the last character (the `;`) of the statement the
    /// fence goes right after; `None` when lazysma cannot place the fence
    /// in the text (see `placement`).
    pub after_column: Option<u32>,
    /// That statement: where it begins and its text.
    pub after_statement: StatementPoint,
    /// Where the statement the fence goes before begins.
    pub before_column: Option<u32>,
    /// That statement, when known.
    pub before_statement: Option<StatementPoint>,
    /// `after-statement` (insert at `after_line`:`after_column`),
    /// `in-braces` (the same, but the statement is the body of an `if`,
    /// `else` or loop without braces: put it and the fence in braces),
    /// `split-statement` (the statement also makes the later access: the
    /// fence must go between them, inside it) or `unlocated` (the statement
    /// is not in the text as the program gives it, from a macro or a
    /// condition: after the store, in the statement of `after_line`).
    pub placement: &'static str,
}

/// A statement of the source: where it begins, and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatementPoint {
    pub line: u32,
    pub column: u32,
    pub text: String,
}

impl From<&Origin> for StatementPoint {
    fn from(origin: &Origin) -> Self {
        StatementPoint {
            line: origin.line,
            column: origin.column,
            text: origin.text.clone(),
        }
    }
}

/// One reordering the bug needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReorderingReport {
    /// `store-load` (delayed store) or `store-store` (PSO).
    pub kind: &'static str,
    pub thread: String,
    pub store: SourcePoint,
    pub later: SourcePoint,
    /// The sentence of the text report.
    pub explanation: String,
}

/// The diagnosis in report form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiagnosisReport {
    /// The same reads-from is realisable under sequential consistency.
    pub sc_realisable: bool,
    pub summary: String,
    pub reorderings: Vec<ReorderingReport>,
    pub fences: Vec<FenceAdvice>,
    /// The native check showed that the fences together forbid this
    /// counterexample.
    pub fences_suffice: bool,
}

/// The native engine's run in report form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NativeReport {
    /// `safe`, `violation`, `declined` (the reason says what it does not
    /// model, and where), `stopped` (the other engine answered first),
    /// `timeout` or `failed`.
    pub outcome: &'static str,
    pub reason: Option<String>,
    pub seconds: f64,
    /// What its search counted (none when it declined before searching).
    pub statistics: Option<NativeStatistics>,
}

/// What the native engine's search counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NativeStatistics {
    /// The search that answered: `rf-smc` (reads-from stateless model
    /// checking) or `explicit` (the explicit-state search).
    pub search: &'static str,
    /// Why RF-SMC left the program to the explicit search, if it did.
    pub fallback: Option<&'static str>,
    /// Reads-from classes RF-SMC explored (one execution each).
    pub reads_from_classes: usize,
    /// Distinct states of the program (threads, memory, store buffers).
    pub states: usize,
    /// Moves between them: thread steps and flushes of buffered stores.
    pub moves: usize,
    /// Final states where every thread ended and every store reached memory.
    pub complete_executions: usize,
    /// Executions an assumption or loop bound cut off, or that wait forever.
    pub blocked_executions: usize,
    /// Visible events the thread steps issued.
    pub events: usize,
}

/// The native check in report form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    pub performed: bool,
    /// `tso`, `pso` or `sc`.
    pub model: &'static str,
    /// `Some(true)`: the reads-from is realisable; `None`: not checked.
    pub realisable: Option<bool>,
    /// Why the check failed, when it did.
    pub reason: Option<String>,
}

/// The witness in report form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WitnessReport {
    /// `native-check` (the interleaving the check found) or `sma-trace`
    /// (the order CBMC's counterexample recorded, when unchecked).
    pub source: &'static str,
    pub steps: Vec<StepReport>,
    /// The property fails right after this step (0: before the first);
    /// `None` when the failing thread is not known.
    pub fails_after_step: Option<usize>,
    /// The heap blocks the execution frees, in the order CBMC's trace
    /// freed them. A `free` is no memory access, so it is no step.
    pub frees: Vec<FreeReport>,
}

/// A `free` of the execution: which thread freed which block where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FreeReport {
    pub thread: ThreadReport,
    /// The block's first location (`heap#0[0]`).
    pub location: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The `free` statement.
    pub statement: Option<String>,
}

/// What produced a report, to reproduce it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Invocation {
    /// lazysma's version.
    pub version: &'static str,
    /// The command line's arguments after the program's name
    /// (`verify`, the file, the options).
    pub arguments: Vec<String>,
}

impl Invocation {
    /// This process's version and arguments.
    pub fn current() -> Invocation {
        Invocation {
            version: env!("CARGO_PKG_VERSION"),
            arguments: std::env::args_os()
                .skip(1)
                .map(|argument| argument.to_string_lossy().into_owned())
                .collect(),
        }
    }

    /// The command line as a POSIX shell reads it: `lazysma verify a.c --tso`.
    pub fn command_line(&self) -> String {
        let mut words = vec!["lazysma".to_string()];
        words.extend(self.arguments.iter().map(|argument| shell_word(argument)));
        words.join(" ")
    }
}

/// `word` quoted for a POSIX shell where it needs quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The whole report of one `lazysma verify` run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    /// The version and arguments that produced it.
    pub lazysma: Invocation,
    pub verdict: Verdict,
    pub exit_code: u8,
    pub file: String,
    pub model: &'static str,
    pub sma: crate::options::SmaImplementation,
    /// The bounds the translation used (`heap_block` as the translator set it).
    pub bounds: crate::options::Bounds,
    /// Whether every loop was asserted to exit within `--unwind`.
    pub unwinding_assertions: bool,
    /// The `--qsize` and `--maxclock` that cut off no execution of the
    /// program (`null` under SC or when its stores cannot be counted).
    pub sufficient_bounds: Option<crate::passes::sufficient::SufficientBounds>,
    /// The `--nmalloc` that cuts off no execution and with which none needs
    /// more heap (0 when the program allocates nothing; `null` when its
    /// allocations cannot be counted, a heap bound cut code off, or an
    /// allocation's size may not fit a heap block).
    pub sufficient_nmalloc: Option<u32>,
    /// Whether executions that store a value shared memory cannot hold
    /// were cut off: `--bitwidth` is narrower than a scalar of shared
    /// memory (without the option memory is as wide as they are). A safe
    /// report's `message` then says so, as its text headline does.
    pub cuts_wide_values: bool,
    /// The engine whose answer this is: `smc` (the native engine) or
    /// `cbmc`.
    pub engine: &'static str,
    /// The native engine's run, when it ran (`--engine auto` or `smc`).
    pub native: Option<NativeReport>,
    pub cbmc: Option<CbmcReport>,
    /// The violation came from the run under SC beside the TSO/PSO run:
    /// it needs no weak memory, and every SC execution is a TSO and a PSO
    /// execution. `cbmc`, `check` and `witness` are that run's.
    pub found_under_sc: bool,
    pub property: Option<PropertyReport>,
    pub check: CheckReport,
    pub witness: Option<WitnessReport>,
    pub diagnosis: Option<DiagnosisReport>,
    /// A human-readable message for errors and warnings.
    pub message: Option<String>,
    /// Where the input cannot be translated, when the translator located
    /// it (bad input); `null` otherwise.
    pub diagnostic: Option<DiagnosticReport>,
    /// The translator's warnings about the program: code that no execution
    /// within the bounds reaches, which no verdict covers.
    pub warnings: Vec<WarningReport>,
    /// Where `--keep` kept the programs CBMC checked (`null` without it).
    pub kept: Option<KeptPrograms>,
    /// After a safe verdict without the translator's warnings, whether any
    /// execution within the bounds reaches the end of `main` (`null` for
    /// other verdicts, and when a warning already names the code a bound
    /// cut off).
    pub reach: Option<ReachReport>,
}

/// The reachability run after a safe verdict (`verify::reach`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReachReport {
    /// Whether some execution within the bounds reaches the end of `main`:
    /// `false` makes the safe verdict vacuous past the cut; `null` when the
    /// run gave no answer.
    pub end_of_main: Option<bool>,
    /// The run's wall-clock time.
    pub seconds: f64,
    /// Why the end of `main` is not reached, or why the run gave no answer.
    pub reason: Option<String>,
}

impl VerifyReport {
    /// What a safe verdict's headline adds when `--bitwidth` cut off
    /// executions ([`VerifyReport::cuts_wide_values`]); None otherwise.
    pub fn values_cut_off(&self) -> Option<String> {
        let bits = self.bounds.bitwidth;
        self.cuts_wide_values.then(|| {
            format!(
                "executions that store a value wider than {bits} bits in shared memory were cut off by --bitwidth {bits}"
            )
        })
    }
}

/// The sequential programs `--keep` kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptPrograms {
    /// The program under the model asked for (the path `--keep` names).
    pub program: String,
    /// The program of the run under SC beside a TSO/PSO run, if there was
    /// one: beside `program`, its name ending in `.sc.c`.
    pub sc_program: Option<String>,
}

/// Why the input cannot be translated, at its source position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiagnosticReport {
    pub message: String,
    pub file: String,
    /// 1-based; 0 when unknown.
    pub line: u32,
    /// 1-based; 0 when unknown.
    pub column: u32,
    /// What the mark under the source excerpt says.
    pub label: String,
    /// What to do about it.
    pub help: Option<String>,
}

impl From<&crate::diagnostics::Diagnostic> for DiagnosticReport {
    fn from(diagnostic: &crate::diagnostics::Diagnostic) -> Self {
        DiagnosticReport {
            message: diagnostic.message.clone(),
            file: diagnostic.file.display().to_string(),
            line: diagnostic.line,
            column: diagnostic.column,
            label: diagnostic.label.clone(),
            help: diagnostic.help.clone(),
        }
    }
}

/// A translator warning, with its source position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WarningReport {
    pub message: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub help: Option<String>,
}

impl From<&crate::diagnostics::Diagnostic> for WarningReport {
    fn from(diagnostic: &crate::diagnostics::Diagnostic) -> Self {
        WarningReport {
            message: diagnostic.message.clone(),
            file: diagnostic.file.display().to_string(),
            line: diagnostic.line,
            column: diagnostic.column,
            help: diagnostic.help.clone(),
        }
    }
}

/// Renders witness steps against the source.
pub struct Renderer<'a> {
    pub decoded: &'a Decoded,
    pub map: &'a TranslationMap,
    /// Writes reach memory when issued (the report collapses both phases).
    pub atomic_writes: bool,
}

/// The file, line, column and statement text of an origin, as the reports
/// carry them (each `None` without one).
fn origin_fields(
    origin: Option<&Origin>,
) -> (Option<String>, Option<u32>, Option<u32>, Option<String>) {
    (
        origin.map(|o| o.file.clone()),
        origin.map(|o| o.line),
        origin.map(|o| o.column),
        origin.map(|o| o.text.clone()),
    )
}

impl Renderer<'_> {
    fn origin(&self, event: EventId) -> Option<&Origin> {
        self.decoded
            .events
            .get(event)?
            .stmt
            .and_then(|stmt| self.map.origins.get(stmt))
    }

    /// The source point of an event.
    pub fn point(&self, event: EventId) -> SourcePoint {
        let (file, line, column, statement) = origin_fields(self.origin(event));
        SourcePoint {
            file,
            line,
            column,
            statement,
            location: self
                .decoded
                .events
                .get(event)
                .and_then(|e| e.kind.location().map(str::to_string)),
        }
    }

    /// The event a fence right after `after` goes before: the next event
    /// of its thread from another statement that accesses memory (not an
    /// atomic section's boundary), up to `later`; the next event when
    /// `after`'s statement goes on (the fence splits it).
    fn fence_before(&self, after: EventId, later: EventId) -> EventId {
        let execution = &self.decoded.execution;
        let event = execution.event(after);
        let following = &execution.threads()[event.thread][event.index + 1..];
        let up_to_later = following
            .iter()
            .position(|&e| e == later)
            .map_or(following, |i| &following[..=i]);
        let statement = self.decoded.events.get(after).and_then(|info| info.stmt);
        let splits = rest_of_statement(self.decoded, after).len() > 1;
        up_to_later
            .iter()
            .copied()
            .find(|&e| {
                self.decoded.events.get(e).is_some_and(|info| {
                    !info.kind.is_synthetic()
                        && !matches!(info.kind, EventKind::AtomicBegin | EventKind::AtomicEnd)
                        && (splits || info.stmt != statement)
                        && self.origin(e).is_some()
                })
            })
            .unwrap_or(later)
    }

    /// The statement of the source a fence right after `after` follows,
    /// when it is in the text where its origin says.
    fn statement_of(&self, after: EventId) -> Option<Statement> {
        let origin = self.origin(after)?;
        let source = std::fs::read_to_string(&origin.file).ok()?;
        statements::locate(&source, origin)
    }

    /// Where the fence of `reordering` goes in the source.
    fn fence_advice(
        &self,
        reordering: &Reordering,
        thread: &str,
        (kind, insert): (&'static str, &'static str),
    ) -> Option<FenceAdvice> {
        let after = reordering.fence_after;
        let origin = self.origin(after)?;
        let before = self.fence_before(after, reordering.later);
        let before_origin = self.origin(before);
        let splits = rest_of_statement(self.decoded, after).len() > 1;
        let statement = if splits {
            None
        } else {
            self.statement_of(after)
        };
        let (after_line, after_column, after_statement, placement) = match &statement {
            Some(found) => {
                let placement = if found.unbraced_body {
                    "in-braces"
                } else {
                    "after-statement"
                };
                let point = StatementPoint {
                    line: found.line,
                    column: found.column,
                    text: found.text.clone(),
                };
                (found.end_line, Some(found.end_column), point, placement)
            }
            None => (
                origin.line,
                None,
                StatementPoint::from(origin),
                if splits {
                    "split-statement"
                } else {
                    "unlocated"
                },
            ),
        };
        Some(FenceAdvice {
            file: origin.file.clone(),
            after_line,
            before_line: before_origin.map_or(after_line, |o| o.line),
            thread: thread.to_string(),
            kind,
            insert,
            after_column,
            after_statement,
            before_column: before_origin.map(|o| o.column),
            before_statement: before_origin.map(StatementPoint::from),
            placement,
        })
    }

    fn thread_of(&self, event: EventId) -> ThreadReport {
        ThreadReport::new(self.map, self.decoded.events[event].slot)
    }

    /// The execution's `free`s in report form.
    fn frees(&self) -> Vec<FreeReport> {
        self.decoded
            .frees
            .iter()
            .map(|freed| {
                let (file, line, column, statement) =
                    origin_fields(self.map.origins.get(freed.stmt));
                FreeReport {
                    thread: ThreadReport::new(self.map, freed.slot),
                    location: freed.location.clone(),
                    file,
                    line,
                    column,
                    statement,
                }
            })
            .collect()
    }

    fn thread_name(&self, slot: usize) -> String {
        ThreadReport::new(self.map, slot).name
    }

    /// The witness in report form, `source` telling where its order comes
    /// from, with the step after which the property fails in thread slot
    /// `failing` (when known).
    pub fn witness(
        &self,
        witness: &Witness,
        source: &'static str,
        failing: Option<usize>,
    ) -> WitnessReport {
        // The failing thread's last step: its last memory access, after
        // which the property reads nothing the other threads can change,
        // so that it fails right there. The steps after it (other threads,
        // stores reaching memory) complete the execution the check needs.
        let fails_at = failing.map(|slot| {
            witness.steps.iter().rposition(|step| {
                step.phase != Phase::Memory
                    && self
                        .decoded
                        .events
                        .get(step.event)
                        .is_some_and(|info| info.slot == slot)
            })
        });
        let rows = self.steps_failing(witness, fails_at.flatten());
        let fails_after_step =
            fails_at.map(|_| rows.iter().filter(|row| !row.after_failure).count());
        WitnessReport {
            source,
            steps: rows,
            fails_after_step,
            frees: self.frees(),
        }
    }

    /// The rows of a witness; synthetic events and drains of empty
    /// buffers are left out, a store flushed right after it was issued is
    /// one row.
    pub fn steps(&self, witness: &Witness) -> Vec<StepReport> {
        self.steps_failing(witness, None)
    }

    /// [`Self::steps`], the rows of the steps after the witness step
    /// `fails_at` marked as after the failure.
    fn steps_failing(&self, witness: &Witness, fails_at: Option<usize>) -> Vec<StepReport> {
        let execution = &self.decoded.execution;
        let mut buffers: HashMap<usize, Vec<EventId>> = HashMap::new();
        // The threads of the program stores that reached memory since the
        // last thread event: a draining event flushed its own among them
        // (earlier flushes served other threads' loads).
        let mut recent_flushes: Vec<usize> = Vec::new();
        let mut rows = Vec::new();
        let steps = &witness.steps;
        let after_failure = |index: usize| fails_at.is_some_and(|fails_at| index > fails_at);
        let mut i = 0;
        while i < steps.len() {
            let step = steps[i];
            let index = i;
            i += 1;
            let Some(info) = self.decoded.events.get(step.event) else {
                continue;
            };
            let slot = info.slot;
            let buffer = buffers.entry(slot).or_default();
            if step.phase == Phase::Memory {
                buffer.retain(|&w| w != step.event);
                if !info.kind.is_synthetic() {
                    let mut row = self.row(step.event, self.flush_effect(step.event));
                    row.after_failure = after_failure(index);
                    rows.push(row);
                    recent_flushes.push(slot);
                }
                continue;
            }
            // A join drains the joined thread, any other draining event its own.
            let drainer = match info.kind {
                EventKind::Joined { joined } => joined,
                _ => slot,
            };
            let drained = recent_flushes
                .iter()
                .filter(|&&flushed| flushed == drainer)
                .count();
            recent_flushes.clear();
            // (not when the store is issued before the failure and reaches
            // memory after it)
            let flushed_at_once = steps
                .get(i)
                .is_some_and(|next| next.event == step.event && next.phase == Phase::Memory)
                && after_failure(i) == after_failure(index);
            let row = if step.phase == Phase::Buffer {
                if flushed_at_once {
                    i += 1;
                } else {
                    buffer.push(step.event);
                }
                self.store_row(step.event, flushed_at_once)
            } else {
                let own_buffer = match execution.event(step.event).op {
                    Op::Read {
                        rf: Source::Event(w),
                        ..
                    } => buffer.contains(&w),
                    _ => false,
                };
                let buffered = self.program_stores(buffer);
                self.execute_row(
                    step.event,
                    Buffers {
                        drained,
                        buffered,
                        own_buffer,
                    },
                )
            };
            rows.extend(row.map(|mut row| {
                row.after_failure = after_failure(index);
                row
            }));
        }
        for (number, row) in rows.iter_mut().enumerate() {
            row.step = number + 1;
        }
        rows
    }

    fn row(
        &self,
        event: EventId,
        (effect, kind, value): (String, StepKind, Option<String>),
    ) -> StepReport {
        let (file, line, column, statement) = origin_fields(self.origin(event));
        StepReport {
            step: 0,
            thread: self.thread_of(event),
            file,
            line,
            column,
            statement,
            effect,
            kind,
            location: self.decoded.events[event]
                .kind
                .location()
                .map(str::to_string),
            value,
            after_failure: false,
        }
    }

    /// A value of `location` as the report shows it.
    fn shown(&self, location: &str, value: i128) -> String {
        self.decoded.values.show(location, value)
    }

    /// A value of `location` as the JSON report gives it.
    fn number(&self, location: &str, value: i128) -> Option<String> {
        Some(self.decoded.values.number(location, value))
    }

    fn flush_effect(&self, event: EventId) -> (String, StepKind, Option<String>) {
        match &self.decoded.events[event].kind {
            EventKind::Write { location, value } => {
                let shown = self.shown(location, *value);
                (
                    format!("{location} = {shown} reaches memory"),
                    StepKind::StoreToMemory,
                    self.number(location, *value),
                )
            }
            other => (
                format!("{other:?} reaches memory"),
                StepKind::StoreToMemory,
                None,
            ),
        }
    }

    fn store_row(&self, event: EventId, at_once: bool) -> Option<StepReport> {
        match &self.decoded.events[event].kind {
            EventKind::Write { location, value } => {
                let shown = self.shown(location, *value);
                let (effect, kind) = if self.atomic_writes {
                    (format!("{location} := {shown}"), StepKind::Store)
                } else if at_once {
                    (
                        format!("{location} := {shown} (reaches memory right away)"),
                        StepKind::Store,
                    )
                } else {
                    (
                        format!("{location} := {shown} (buffered)"),
                        StepKind::StoreBuffered,
                    )
                };
                Some(self.row(event, (effect, kind, self.number(location, *value))))
            }
            EventKind::Spawn { child } => Some(self.row(
                event,
                (
                    format!("starts {}", self.thread_name(*child)),
                    StepKind::Create,
                    None,
                ),
            )),
            _ => None,
        }
    }

    /// Whether the thread of the failed try-lock `event` holds its mutex
    /// itself: its last lock or unlock of the mutex before it is a lock.
    fn holds_mutex(&self, event: EventId) -> bool {
        let info = &self.decoded.events[event];
        let EventKind::LockBusy { mutex } = &info.kind else {
            return false;
        };
        let before = self.decoded.issue_order.iter().take_while(|&&e| e != event);
        let own = before.filter_map(|&e| {
            Some(&self.decoded.events[e]).filter(|earlier| earlier.slot == info.slot)
        });
        own.filter_map(|earlier| match &earlier.kind {
            EventKind::Lock { mutex: m } if m == mutex => Some(true),
            EventKind::Unlock { mutex: m } if m == mutex => Some(false),
            _ => None,
        })
        .last()
        .unwrap_or(false)
    }

    /// How many of `buffer`'s stores are program stores.
    fn program_stores(&self, buffer: &[EventId]) -> usize {
        buffer
            .iter()
            .filter(|&&w| !self.decoded.events[w].kind.is_synthetic())
            .count()
    }

    fn execute_row(
        &self,
        event: EventId,
        Buffers {
            drained,
            buffered,
            own_buffer,
        }: Buffers,
    ) -> Option<StepReport> {
        let drains = |what: &str| match drained {
            0 => what.to_string(),
            1 => format!("{what}, drains 1 store"),
            n => format!("{what}, drains {n} stores"),
        };
        let (effect, kind, value) = match &self.decoded.events[event].kind {
            EventKind::Read {
                location,
                value,
                from,
            } => {
                let initial = if from.is_none() {
                    " (initial value)"
                } else {
                    ""
                };
                let shown = self.shown(location, *value);
                if own_buffer {
                    (
                        format!("reads {location} = {shown} from own buffer"),
                        StepKind::LoadFromBuffer,
                        self.number(location, *value),
                    )
                } else {
                    (
                        format!("reads {location} = {shown}{initial} from memory"),
                        StepKind::LoadFromMemory,
                        self.number(location, *value),
                    )
                }
            }
            EventKind::Fence => {
                let effect = match drained {
                    0 => "fence: buffer already empty".to_string(),
                    1 => "fence: drains 1 store".to_string(),
                    n => format!("fence: drains {n} stores"),
                };
                (effect, StepKind::Fence, None)
            }
            EventKind::StoreFence => {
                let effect = match buffered {
                    0 => "store-store fence: no store buffered".to_string(),
                    1 => "store-store fence: the buffered store reaches memory before later ones"
                        .to_string(),
                    n => format!(
                        "store-store fence: the {n} buffered stores reach memory before later ones"
                    ),
                };
                (effect, StepKind::StoreFence, None)
            }
            EventKind::AtomicBegin => (
                "atomic section begins: no other thread runs until it ends".to_string(),
                StepKind::AtomicBegin,
                None,
            ),
            EventKind::AtomicEnd => ("atomic section ends".to_string(), StepKind::AtomicEnd, None),
            EventKind::CreateDrain | EventKind::CasDrain if drained == 0 => return None,
            EventKind::CreateDrain => (
                drains("before creating a thread").replacen(", d", ": d", 1),
                StepKind::Fence,
                None,
            ),
            EventKind::CasDrain => (
                drains("before compare-and-swap").replacen(", d", ": d", 1),
                StepKind::Fence,
                None,
            ),
            EventKind::Rmw {
                location, old, new, ..
            } => {
                let old = old.map_or_else(
                    || "its initial value".to_string(),
                    |v| self.shown(location, v),
                );
                let shown = self.shown(location, *new);
                (
                    drains(&format!("atomic {location}: reads {old}, writes {shown}")),
                    StepKind::Rmw,
                    self.number(location, *new),
                )
            }
            EventKind::CasRead {
                location, value, ..
            } => {
                let shown = self.shown(location, *value);
                (
                    format!("compare-and-swap on {location} fails: reads {shown}"),
                    StepKind::CasFailed,
                    self.number(location, *value),
                )
            }
            EventKind::Lock { mutex } => (drains(&format!("lock {mutex}")), StepKind::Lock, None),
            EventKind::Unlock { mutex } => {
                (drains(&format!("unlock {mutex}")), StepKind::Unlock, None)
            }
            EventKind::LockBusy { mutex } => {
                let holder = if self.holds_mutex(event) {
                    "its own thread"
                } else {
                    "another thread"
                };
                (
                    drains(&format!("try-lock {mutex} fails: {holder} holds it")),
                    StepKind::LockBusy,
                    None,
                )
            }
            EventKind::Joined { joined } => {
                let joins = format!("joins {} (finished)", self.thread_name(*joined));
                let effect = match drained {
                    0 => joins,
                    1 => format!("{joins}, whose 1 buffered store drains"),
                    n => format!("{joins}, whose {n} buffered stores drain"),
                };
                (effect, StepKind::Join, None)
            }
            EventKind::Write { .. }
            | EventKind::Spawn { .. }
            | EventKind::Started
            | EventKind::Done => return None,
        };
        Some(self.row(event, (effect, kind, value)))
    }

    /// The diagnosis in report form, of a violation under `model`.
    pub fn diagnosis(&self, diagnosis: &Diagnosis, model: Model) -> DiagnosisReport {
        if diagnosis.sc_realisable {
            // (under SC itself, that the same reads-from is possible under
            // SC says nothing)
            let summary = if model == Model::Sc {
                "a violation under sequential consistency, which no fence can prevent"
            } else {
                "the same reads-from is possible under sequential consistency: the bug also happens under SC, \
                 it is not caused by store buffering"
            };
            return DiagnosisReport {
                sc_realisable: true,
                summary: summary.to_string(),
                reorderings: Vec::new(),
                fences: Vec::new(),
                fences_suffice: false,
            };
        }
        let several = diagnosis.reorderings.len() > 1;
        let mut reorderings = Vec::new();
        let mut fences = Vec::new();
        for reordering in &diagnosis.reorderings {
            let (report, fence) = self.reordering(reordering, several && diagnosis.fences_suffice);
            reorderings.push(report);
            let same_place = |a: &FenceAdvice, b: &FenceAdvice| {
                (
                    &a.file,
                    a.after_line,
                    a.after_column,
                    &a.after_statement.text,
                    a.insert,
                    &a.thread,
                ) == (
                    &b.file,
                    b.after_line,
                    b.after_column,
                    &b.after_statement.text,
                    b.insert,
                    &b.thread,
                )
            };
            if let Some(fence) = fence
                && !fences.iter().any(|other| same_place(other, &fence))
            {
                fences.push(fence);
            }
        }
        let summary = match (diagnosis.fences_suffice, reorderings.len()) {
            (_, 0) => format!(
                "impossible under sequential consistency; needs {model} reorderings lazysma could not pin down"
            ),
            (true, 1) => {
                format!("impossible under sequential consistency; needs this {model} reordering")
            }
            (true, n) => format!(
                "impossible under sequential consistency; needs these {n} {model} reorderings, each fence alone is not enough"
            ),
            (false, _) => format!(
                "impossible under sequential consistency; uses these {model} reorderings (fences after these stores were not shown to suffice)"
            ),
        };
        DiagnosisReport {
            sc_realisable: false,
            summary,
            reorderings,
            fences,
            fences_suffice: diagnosis.fences_suffice,
        }
    }

    fn reordering(
        &self,
        reordering: &Reordering,
        together: bool,
    ) -> (ReorderingReport, Option<FenceAdvice>) {
        let store = self.point(reordering.store);
        let later = self.point(reordering.later);
        let thread = self.thread_of(reordering.store).name;
        let line = |p: &SourcePoint| p.line.map_or_else(|| "?".to_string(), |l| l.to_string());
        let name = |p: &SourcePoint| p.location.clone().unwrap_or_else(|| "memory".to_string());
        let (a, b) = (line(&store), line(&later));
        let forbids = if together {
            "forbids this, together with the other fences listed"
        } else {
            "forbids this"
        };
        // The fence's name in the advice, the statement to insert, and its
        // name in the explanation.
        let (fence_kind, insert, a_fence) = match reordering.fence {
            FenceKind::Full => ("full", "__sync_synchronize();", "a fence"),
            FenceKind::StoreStore => (
                "store-store",
                "__atomic_thread_fence(__ATOMIC_RELEASE);",
                "a store-store fence",
            ),
        };
        // Where the fence goes: between the lines, or on one line between
        // the statements.
        let between = match (&store.statement, &later.statement) {
            // (a store's statement from a macro is its whole line)
            (Some(first), Some(second))
                if a == b && first != second && first.contains(second.as_str()) =>
            {
                format!("after the store and before `{second}` (line {a})")
            }
            (Some(first), Some(second)) if a == b && first != second => {
                format!("between `{first}` and `{second}` (line {a})")
            }
            (Some(statement), _) if a == b => format!("inside `{statement}` (line {a})"),
            _ => format!("between lines {a} and {b}"),
        };
        let (kind, explanation) = match reordering.kind {
            ReorderingKind::StoreLoad => {
                let when = match &later.location {
                    Some(location) => format!("{thread} loads {location} (line {b})"),
                    None => format!("{thread} reaches line {b}"),
                };
                (
                    "store-load",
                    format!(
                        "store to {} (line {a}) still buffered when {when}; {a_fence} {between} {forbids}",
                        name(&store)
                    ),
                )
            }
            ReorderingKind::StoreStore => (
                "store-store",
                format!(
                    "store to {} (line {b}) reached memory before the earlier store to {} (line {a}) of {thread}; \
                     {a_fence} {between} {forbids}",
                    name(&later),
                    name(&store)
                ),
            ),
        };
        let fence = self.fence_advice(reordering, &thread, (fence_kind, insert));
        (
            ReorderingReport {
                kind,
                thread,
                store,
                later,
                explanation,
            },
            fence,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_map_back_to_file_and_line() {
        let (file, line, text) =
            parse_description("examples/sb.c:33: assertion r1 == 1 || r2 == 1");
        assert_eq!(file.as_deref(), Some("examples/sb.c"));
        assert_eq!(line, Some(33));
        assert_eq!(text.as_deref(), Some("r1 == 1 || r2 == 1"));
        let (file, line, text) = parse_description("examples/sb.c:33: assert(r1 == 1);");
        assert_eq!(
            (file.as_deref(), line, text.as_deref()),
            (Some("examples/sb.c"), Some(33), Some("assert(r1 == 1);"))
        );
        let (file, line, _) = parse_description("C:/x/a.c:7: error call reach_error()");
        assert_eq!((file.as_deref(), line), (Some("C:/x/a.c"), Some(7)));
        assert_eq!(
            parse_description("a.c:7: assertion"),
            (Some("a.c".into()), Some(7), None)
        );
        assert_eq!(parse_description("assertion"), (None, None, None));
        assert_eq!(parse_description("a.c:x: assertion y"), (None, None, None));
        assert_eq!(parse_description(":7: x"), (None, None, None));
    }

    #[test]
    fn properties_know_what_fails_and_in_which_thread() {
        let property = |id: &str, description: &str| PropertyReport::new(id, description);
        let assertion = property("thread0_main.assertion.1", "a.c:3: assert(x == 1);");
        assert_eq!(
            (assertion.kind, assertion.statement.as_deref()),
            (PropertyKind::Assertion, Some("assert(x == 1);"))
        );
        assert_eq!(assertion.thread_slot(), Some(0));
        let old_form = property("thread12_worker_2.assertion.3", "a.c:3: assertion x == 1");
        assert_eq!(
            (old_form.kind, old_form.statement.as_deref()),
            (PropertyKind::Assertion, Some("x == 1"))
        );
        assert_eq!(old_form.thread_slot(), Some(12));
        let bounds = property(
            "thread1_t.assertion.1",
            "a.c:5: array index out of bounds: arr[i + 3] = 1;",
        );
        assert_eq!(
            (bounds.kind, bounds.statement.as_deref()),
            (PropertyKind::ArrayIndexOutOfBounds, Some("arr[i + 3] = 1;"))
        );
        let null = property(
            "thread1_t.assertion.2",
            "a.c:6: dereference of a null pointer: *p = 1;",
        );
        assert_eq!(
            (null.kind, null.statement.as_deref()),
            (PropertyKind::NullDereference, Some("*p = 1;"))
        );
        let error = property("thread0_main.assertion.2", "a.c:9: reach_error();");
        assert_eq!(error.kind, PropertyKind::ErrorCall);
        let unwinding = property(
            "thread0_main.assertion.4",
            "a.c:6: unwinding assertion (--unwind 2): while (x) {",
        );
        assert_eq!(
            (unwinding.kind, unwinding.statement.as_deref()),
            (PropertyKind::UnwindingAssertion, Some("while (x) {"))
        );
        assert!(unwinding.is_unwinding_assertion() && !bounds.is_unwinding_assertion());
        for id in [
            "main.assertion.1",
            "thread_x.assertion.1",
            "threadx_main.assertion.1",
            "thread3main.assertion.1",
        ] {
            assert_eq!(
                property(id, "a.c:1: assert(0);").thread_slot(),
                None,
                "{id}"
            );
        }
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let invocation = Invocation {
            version: "1.0",
            arguments: ["verify", "my file.c", "-D", "S=\"a\"", "--tso", "it's", ""]
                .map(String::from)
                .to_vec(),
        };
        assert_eq!(
            invocation.command_line(),
            "lazysma verify 'my file.c' -D 'S=\"a\"' --tso 'it'\\''s' ''"
        );
        assert_eq!(Invocation::current().version, env!("CARGO_PKG_VERSION"));
    }

    #[test]
    fn source_lines_are_read_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.c");
        std::fs::write(&path, "int x;\n  assert(x == 0);\n").unwrap();
        let file = path.to_str().unwrap();
        assert_eq!(source_line(file, 2).as_deref(), Some("assert(x == 0);"));
        assert_eq!(source_line(file, 0), None);
        assert_eq!(source_line(file, 9), None);
        let report =
            PropertyReport::new("main.assertion.1", &format!("{file}:2: assertion x == 0"));
        assert_eq!(report.source.as_deref(), Some("assert(x == 0);"));
    }
}

#[cfg(test)]
mod render_tests {
    use super::*;
    use crate::consistency::{Step, Witness, verify};
    use crate::ir::Origin;
    use crate::options::SmaImplementation;
    use crate::passes::ThreadSlot;
    use crate::trace::execution::build;
    use crate::trace::records::{Record, RecordKind};

    fn map() -> TranslationMap {
        let origin = |line: u32, text: &str| Origin {
            file: "t.c".into(),
            line,
            column: 3,
            text: text.into(),
        };
        TranslationMap {
            threads: vec![
                ThreadSlot {
                    function: "main".into(),
                    instance: 0,
                },
                ThreadSlot {
                    function: "worker".into(),
                    instance: 0,
                },
            ],
            locations: ["null", "x", "y"].iter().map(|s| s.to_string()).collect(),
            value_types: Default::default(),
            origins: vec![
                origin(1, "pthread_create(...);"),
                origin(2, "x = 1;"),
                origin(3, "r = x;"),
                origin(4, "y = 2;"),
                origin(5, "__sync_synchronize();"),
            ],
            properties: Default::default(),
        }
    }

    fn record(
        kind: RecordKind,
        thread: usize,
        loc: u64,
        value: i128,
        write_id: u64,
        read_from: u64,
        stmt: usize,
    ) -> Record {
        Record {
            kind,
            thread,
            loc,
            value,
            timestamp: 0,
            write_id,
            read_from,
            stmt,
        }
    }

    #[test]
    fn effects_name_buffers_memory_and_drains() {
        use RecordKind::*;
        let records = vec![
            record(Fence, 0, 0, 0, 0, 0, 0),
            record(Create, 0, 1, 0, 0, 0, 0),
            record(Write, 1, 1, 1, 1, 0, 1),
            record(Read, 1, 1, 1, 0, 1, 2),
            record(Write, 1, 2, 2, 2, 0, 3),
            record(Fence, 1, 0, 0, 0, 0, 4),
        ];
        let decoded = build(&records, &map().locations, SmaImplementation::Etso).unwrap();
        // Events: main: create drain 0, spawn 1; worker: start 2, w x 3,
        // read 4, w y 5, fence 6.
        let step = |event, phase| Step { event, phase };
        let witness = Witness {
            steps: vec![
                step(0, Phase::Execute),
                step(1, Phase::Buffer),
                step(1, Phase::Memory),
                step(2, Phase::Execute),
                step(3, Phase::Buffer),
                step(4, Phase::Execute),
                step(5, Phase::Buffer),
                step(3, Phase::Memory),
                step(5, Phase::Memory),
                step(6, Phase::Execute),
            ],
        };
        let map = map();
        let renderer = Renderer {
            decoded: &decoded,
            map: &map,
            atomic_writes: false,
        };
        let rows = renderer.steps(&witness);
        let effects: Vec<&str> = rows.iter().map(|r| r.effect.as_str()).collect();
        assert_eq!(
            effects,
            vec![
                "starts worker#0",
                "x := 1 (buffered)",
                "reads x = 1 from own buffer",
                "y := 2 (buffered)",
                "x = 1 reaches memory",
                "y = 2 reaches memory",
                "fence: drains 2 stores",
            ]
        );
        assert_eq!(
            rows.iter().map(|r| r.step).collect::<Vec<_>>(),
            (1..=7).collect::<Vec<_>>()
        );
        assert_eq!(rows[1].thread.name, "worker#0");
        assert_eq!(rows[0].thread.name, "main");
        assert_eq!(
            (rows[2].line, rows[2].statement.as_deref()),
            (Some(3), Some("r = x;"))
        );
        assert_eq!(rows[2].kind, StepKind::LoadFromBuffer);
        let atomic = Renderer {
            decoded: &decoded,
            map: &map,
            atomic_writes: true,
        };
        let sc_witness = Witness {
            steps: vec![
                step(0, Phase::Execute),
                step(1, Phase::Buffer),
                step(1, Phase::Memory),
                step(2, Phase::Execute),
                step(3, Phase::Buffer),
                step(3, Phase::Memory),
            ],
        };
        let effects: Vec<String> = atomic
            .steps(&sc_witness)
            .into_iter()
            .map(|r| r.effect)
            .collect();
        assert_eq!(effects, vec!["starts worker#0", "x := 1"]);
        // under TSO, a store that reaches memory before anything else happens
        let effects: Vec<String> = renderer
            .steps(&sc_witness)
            .into_iter()
            .map(|r| r.effect)
            .collect();
        assert_eq!(
            effects,
            vec!["starts worker#0", "x := 1 (reaches memory right away)"]
        );
    }

    #[test]
    fn steps_after_the_failing_threads_last_step_are_after_the_failure() {
        use RecordKind::*;
        // main creates the worker and fails; the worker runs after.
        let records = vec![
            record(Create, 0, 1, 0, 0, 0, 0),
            record(Write, 1, 1, 1, 1, 0, 1),
            record(Read, 1, 1, 1, 0, 1, 2),
        ];
        let decoded = build(&records, &map().locations, SmaImplementation::Etso).unwrap();
        // Events: main: spawn 0; worker: start 1, w x 2, read 3.
        let step = |event, phase| Step { event, phase };
        let witness = Witness {
            steps: vec![
                step(0, Phase::Buffer),
                step(0, Phase::Memory),
                step(1, Phase::Execute),
                step(2, Phase::Buffer),
                step(2, Phase::Memory),
                step(3, Phase::Execute),
            ],
        };
        let map = map();
        let renderer = Renderer {
            decoded: &decoded,
            map: &map,
            atomic_writes: false,
        };
        let report = renderer.witness(&witness, "native-check", Some(0));
        assert_eq!(report.fails_after_step, Some(1));
        let marks: Vec<(&str, bool)> = report
            .steps
            .iter()
            .map(|r| (r.effect.as_str(), r.after_failure))
            .collect();
        assert_eq!(
            marks,
            vec![
                ("starts worker#0", false),
                ("x := 1 (reaches memory right away)", true),
                ("reads x = 1 from memory", true),
            ]
        );
        // failing in the worker: after its load, the last step
        let report = renderer.witness(&witness, "native-check", Some(1));
        assert_eq!(report.fails_after_step, Some(3));
        assert!(report.steps.iter().all(|r| !r.after_failure));
        // a store issued before the failure that reaches memory after it
        // is two rows
        let witness = Witness {
            steps: witness.steps[..4]
                .iter()
                .copied()
                .chain([step(3, Phase::Execute), step(2, Phase::Memory)])
                .collect(),
        };
        let report = renderer.witness(&witness, "native-check", Some(1));
        let marks: Vec<(&str, bool)> = report
            .steps
            .iter()
            .map(|r| (r.effect.as_str(), r.after_failure))
            .collect();
        assert_eq!(
            marks,
            vec![
                ("starts worker#0", false),
                ("x := 1 (buffered)", false),
                ("reads x = 1 from own buffer", false),
                ("x = 1 reaches memory", true),
            ]
        );
        assert_eq!(report.fails_after_step, Some(3));
        assert_eq!(
            renderer
                .witness(&witness, "native-check", None)
                .fails_after_step,
            None
        );
    }

    #[test]
    fn a_violation_under_sc_is_not_said_to_be_possible_under_sc_too() {
        use crate::trace::diagnosis::Diagnosis;
        let decoded = build(
            &[record(RecordKind::Create, 0, 1, 0, 0, 0, 0)],
            &map().locations,
            SmaImplementation::Sc,
        )
        .unwrap();
        let map = map();
        let renderer = Renderer {
            decoded: &decoded,
            map: &map,
            atomic_writes: true,
        };
        let found = Diagnosis {
            sc_realisable: true,
            reorderings: Vec::new(),
            fences_suffice: false,
        };
        let under_sc = renderer.diagnosis(&found, Model::Sc);
        assert_eq!(
            under_sc.summary,
            "a violation under sequential consistency, which no fence can prevent"
        );
        assert!(under_sc.sc_realisable && under_sc.fences.is_empty());
        let under_tso = renderer.diagnosis(&found, Model::Tso);
        assert!(
            under_tso
                .summary
                .starts_with("the same reads-from is possible under sequential consistency"),
            "{}",
            under_tso.summary
        );
    }

    #[test]
    fn atomic_sections_are_events_of_the_checked_execution() {
        use RecordKind::*;
        // Two atomic increments of x that both read 0: TSO (the first
        // store still buffered), not SC.
        let records = [
            record(Create, 0, 1, 0, 0, 0, 0),
            record(Create, 0, 2, 0, 0, 0, 0),
            record(AtomicBegin, 1, 0, 0, 0, 0, 0),
            record(Read, 1, 1, 0, 0, 0, 0),
            record(Write, 1, 1, 1, 1, 0, 0),
            record(AtomicEnd, 1, 0, 0, 0, 0, 0),
            record(AtomicBegin, 2, 0, 0, 0, 0, 0),
            record(Read, 2, 1, 0, 0, 0, 0),
            record(Write, 2, 1, 1, 2, 0, 0),
            record(AtomicEnd, 2, 0, 0, 0, 0, 0),
        ];
        let decoded = build(&records, &map().locations, SmaImplementation::Etso).unwrap();
        let sections = decoded
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::AtomicBegin | EventKind::AtomicEnd));
        assert_eq!(sections.count(), 4);
        assert!(verify(&decoded.execution, Model::Tso).is_ok());
        assert!(
            verify(&decoded.execution, Model::Sc).is_err(),
            "the sections keep the increments apart under SC"
        );
    }
}
