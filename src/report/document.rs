//! The verify report as data: the JSON contract of `lazysma verify
//! --format json` (the verdict and its exit code, the violated property,
//! the witness steps, the diagnosis with fence advice, the check result,
//! the runs). Every renderer (text, JSON, SARIF) reads this one structure;
//! [`report_builder`](crate::trace::report_builder) builds its witness and
//! diagnosis from a decoded execution.

pub use super::kinds::{AnsweringEngine, NativeOutcome, NativeSearch, WitnessSource};
pub use super::property::{PropertyKind, PropertyReport, source_line};
use crate::exit;
use crate::ir::Origin;
use crate::options::MemoryModel;
use crate::passes::TranslationMap;
use serde::Serialize;

/// What a run checks: the program's assertions (`verify`), or its
/// robustness (`robust`: every execution's reads-from is one an SC
/// execution has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Goal {
    Assertions,
    Robustness,
}

/// Whether a report covers the built-in property `deadlock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeadlockCheck {
    /// The native engine answered: a deadlock within the bounds would be
    /// the violation.
    Checked,
    /// The answer is the CBMC path's, which does not decide deadlocks (the
    /// native engine gave none).
    NotChecked,
    /// `--no-deadlock-check`, and `robust`.
    Off,
}

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
    /// The counterexample failed the native check, or its diagnosis its
    /// audit (`CheckReport::false_sentences`): a lazysma defect.
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

    /// The exit code of a run that ends with this verdict: 0 safe, 10 a
    /// violation (checked or not) or an unwinding bound reached, 4 a
    /// counterexample that fails the native check, 1 bad input, 2 a
    /// back-end failure, 3 the time limit.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Safe => exit::SUCCESS,
            Verdict::Violation | Verdict::UncheckedViolation | Verdict::UnwindingBound => {
                exit::VIOLATION
            }
            Verdict::CheckFailed => exit::CHECK_FAILED,
            Verdict::BadInput => exit::BAD_INPUT,
            Verdict::BackendError => exit::BACKEND_FAILURE,
            Verdict::Timeout => exit::TIMEOUT,
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
    /// The memory event of the step, an index into
    /// [`WitnessReport::events`] (a buffered store and its reaching memory
    /// are one event); `None` for a step that is no memory event (thread
    /// creation and join, atomic section boundaries, drains).
    pub event: Option<usize>,
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
    /// The memory event of the witness the fence goes right after (the
    /// last one of its thread up to that place), an index into
    /// [`WitnessReport::events`].
    pub after_event: Option<usize>,
    /// The memory event of the witness the fence goes before, when it is
    /// one.
    pub before_event: Option<usize>,
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
    /// The happens-before cycle no sequentially consistent order has, in
    /// cycle order (empty when the reads-from is SC's).
    pub cycle: Vec<CycleStep>,
}

/// One access of a happens-before cycle and why it comes before the next
/// (the last step's `then` leads back to the first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CycleStep {
    pub thread: String,
    /// What the access does, in plain words (`reads y = 0 (initial value)`).
    pub access: String,
    /// What the access is, for machines: `store`, `load`, `rmw`, `lock`,
    /// `unlock` or `other`.
    pub operation: CycleOperation,
    /// The value stored or read (an RMW's value written), as a number, as
    /// a witness step's `value` gives it; `None` for other accesses.
    pub value: Option<String>,
    /// Its position among its thread's events (0 first): the accesses of
    /// one thread in the cycle, sorted by it, are in program order.
    pub program_order: usize,
    pub point: SourcePoint,
    /// `program-order`, `reads-from`, `coherence`, `from-read` or
    /// `mutex-order`.
    pub then: &'static str,
    /// A program-order step the memory model relaxes (the store was still
    /// buffered, or under PSO reached memory late): the weak-memory step.
    pub relaxed: bool,
    /// The access as a memory event of the witness, an index into
    /// [`WitnessReport::events`].
    pub event: Option<usize>,
}

/// What an access of a happens-before cycle is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CycleOperation {
    Store,
    Load,
    /// An atomic read-modify-write.
    Rmw,
    Lock,
    Unlock,
    /// Anything else: a try-lock that finds the mutex held, a fence.
    Other,
}

/// The native engine's run in report form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NativeReport {
    /// `safe`, `violation`, `declined` (the reason says what it does not
    /// model, and where), `stopped` (the other engine answered first),
    /// `timeout`, `memory-limit` or `failed`.
    pub outcome: NativeOutcome,
    pub reason: Option<String>,
    pub seconds: f64,
    /// What its search counted (none when it declined before searching).
    pub statistics: Option<NativeStatistics>,
    /// How far its search had come when it ended without an answer (a
    /// time limit, the memory limit, the other engine's answer); none
    /// when it answered or did not search.
    pub explored: Option<NativeExplored>,
}

/// How far the native engine's search had come when it stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NativeExplored {
    /// The search that ran last: `rf-smc` or `explicit`.
    pub search: NativeSearch,
    /// Reads-from classes RF-SMC had explored.
    pub reads_from_classes: usize,
    /// Distinct states the explicit search had reached.
    pub states: usize,
    /// The estimate of the number of reads-from classes, when random
    /// probes made one (the JSON report, the live line on a terminal).
    pub estimated_classes: Option<u64>,
}

/// What the native engine's search counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NativeStatistics {
    /// The search that answered: `rf-smc` (reads-from stateless model
    /// checking) or `explicit` (the explicit-state search).
    pub search: NativeSearch,
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
    /// Of those, the executions in which every unfinished thread waits for
    /// ever (a deadlock; with the deadlock check on, the first is the
    /// violation).
    pub deadlocked_executions: usize,
    /// Executions that end only because a spin loop read too early
    /// (another execution reads later): neither complete nor cut off.
    pub awaiting_executions: usize,
    /// Under `--split`: executions explored for the classes of this
    /// part that belong to other parts (not counted above).
    pub other_part_executions: usize,
    /// Visible events the thread steps issued.
    pub events: usize,
    /// What the search explored per second: reads-from classes
    /// (`rf-smc`) or states (`explicit`).
    pub per_second: u64,
    /// The estimate of the number of reads-from classes that random
    /// probes made before RF-SMC searched, when one was asked for (the
    /// JSON report, the live line on a terminal) and a probe finished.
    pub estimate: Option<ClassEstimateReport>,
}

/// Random probes' estimate of the number of reads-from classes
/// (Knuth's estimator, see `docs/native-engine.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClassEstimateReport {
    /// The estimated number of classes, at least 1.
    pub classes: u64,
    /// The probes it averages.
    pub probes: usize,
    /// The time the probes took.
    pub milliseconds: u64,
}

/// The native check in report form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    pub performed: bool,
    /// `tso`, `pso` or `sc`.
    pub model: MemoryModel,
    /// `Some(true)`: the reads-from is realisable; `None`: not checked.
    pub realisable: Option<bool>,
    /// Why the check failed, when it did.
    pub reason: Option<String>,
    /// The diagnosis's reorderings that its audit found untrue of the
    /// witness or of the model, each with why (empty when every one is
    /// true): a lazysma defect, which makes the verdict `check-failed`.
    pub false_sentences: Vec<String>,
}

/// The witness in report form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WitnessReport {
    /// `native-check` (the interleaving the check found) or `sma-trace`
    /// (the order CBMC's counterexample recorded, when unchecked).
    pub source: WitnessSource,
    pub steps: Vec<StepReport>,
    /// The property fails right after this step (0: before the first);
    /// `None` when the failing thread is not known.
    pub fails_after_step: Option<usize>,
    /// The heap blocks the execution frees, in the order CBMC's trace
    /// freed them. A `free` is no memory access, so it is no step.
    pub frees: Vec<FreeReport>,
    /// The execution's memory events (loads, stores, read-modify-writes,
    /// fences, mutex operations), thread by thread in program order, with
    /// the reads-from and coherence of the witness.
    pub events: Vec<EventReport>,
    /// The nondeterministic values the native engine took symbolically,
    /// in the order the execution read them, each with the value the
    /// solver's model gives it (the violation happens with these values:
    /// the model is checked on every branch the execution took). Empty
    /// for CBMC's witnesses and without such values.
    pub inputs: Vec<InputReport>,
}

/// A symbolic input of a native witness: the thread that read it first,
/// its C type and its value from the solver's model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputReport {
    pub thread: usize,
    pub function: String,
    /// The C type: `int`, `unsigned int`, `long long`, ...
    #[serde(rename = "type")]
    pub ty: String,
    /// As a string of decimal digits, as [`StepReport::value`] gives values.
    pub value: String,
}

/// One memory event of the witness's execution: a node of its graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventReport {
    /// Its index in [`WitnessReport::events`].
    pub id: usize,
    pub thread: ThreadReport,
    /// Its position among its thread's memory events (program order).
    pub index: usize,
    pub kind: EventReportKind,
    /// The shared location (or mutex) accessed; `None` for a fence.
    pub location: Option<String>,
    /// The value written (a store, a read-modify-write) or read (a load),
    /// as [`StepReport::value`] gives values.
    pub value: Option<String>,
    /// The value a read-modify-write read (`None`: its initial value, or
    /// another kind of event).
    pub old_value: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub statement: Option<String>,
    /// The store a read takes its value from, an index into
    /// [`WitnessReport::events`]; `None` for the initial value, and for an
    /// event that reads nothing.
    pub reads_from: Option<usize>,
    /// A store's place in its location's coherence order (the order in
    /// which the witness's stores to it reached memory), from 0; `None`
    /// for an event that writes nothing.
    pub coherence: Option<usize>,
}

impl EventReport {
    /// Whether the event reads a location (and so has a `reads_from`).
    pub fn reads(&self) -> bool {
        matches!(
            self.kind,
            EventReportKind::Load | EventReportKind::Rmw | EventReportKind::CasFailed
        )
    }
}

/// What a memory event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventReportKind {
    Store,
    Load,
    Rmw,
    /// The read of a compare-and-swap that failed.
    CasFailed,
    Fence,
    StoreFence,
    Lock,
    Unlock,
    LockBusy,
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
    /// What was checked: `assertions` (`verify`) or `robustness`
    /// (`robust`, where a violation is a non-robust execution).
    pub goal: Goal,
    pub verdict: Verdict,
    pub exit_code: u8,
    pub file: String,
    pub model: MemoryModel,
    #[serde(serialize_with = "super::schema::sma")]
    pub sma: crate::options::SmaImplementation,
    /// The bounds the translation used (`heap_block` as the translator set it).
    #[serde(serialize_with = "super::schema::bounds")]
    pub bounds: crate::options::Bounds,
    /// Whether every loop was asserted to exit within `--unwind`.
    pub unwinding_assertions: bool,
    /// The `--qsize` and `--maxclock` that cut off no execution of the
    /// program (`null` under SC or when its stores cannot be counted).
    #[serde(serialize_with = "super::schema::sufficient_bounds")]
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
    pub engine: AnsweringEngine,
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
    /// Whether the verdict covers deadlocks (the property `deadlock`).
    pub deadlock: DeadlockCheck,
    /// Whether the program has a loop (or a `goto`, which may make one):
    /// without one, no `--unwind` cuts an execution off.
    pub has_loops: bool,
    /// The await loops treated as waits, not unrolled (unless
    /// `--unroll-spin-loops`): no `--unwind` cuts them.
    pub spin_loops: Vec<SourcePoint>,
    /// `--all-violations`: the violations after the first (which is this
    /// report's own `property`, `check`, `witness` and `diagnosis`), and
    /// whether the search covered every execution. Absent without the
    /// option.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_violations: Option<AllViolations>,
    /// `--split K/N`: the part of the executions this run checked
    /// (`part`, from 1, of `parts`); the program is safe only when every
    /// part is (`lazysma merge`). Absent without the option.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<crate::options::Split>,
}

/// The list of `--all-violations`: every property found violated, each
/// once; the first is the report's own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AllViolations {
    /// Whether the search covered every execution within the bounds:
    /// `false` when it stopped first (the time limit), and the list may
    /// miss a property.
    pub complete: bool,
    /// Why the search stopped before it covered every execution.
    pub stopped: Option<String>,
    /// How many properties fail: the report's own and the further ones.
    pub count: usize,
    /// The violations after the report's own, in the order found.
    pub further: Vec<ViolationReport>,
}

/// One further violation of `--all-violations`, checked and explained as
/// the report's own: its verdict (`violation`, `unchecked-violation`,
/// `unwinding-bound`, or `check-failed` when its witness does not check),
/// property, check, witness and diagnosis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViolationReport {
    pub verdict: Verdict,
    pub property: Option<PropertyReport>,
    pub check: CheckReport,
    pub witness: Option<WitnessReport>,
    pub diagnosis: Option<DiagnosisReport>,
    pub message: Option<String>,
}

impl ViolationReport {
    /// The violation `report` holds as its own.
    pub fn of(report: &VerifyReport) -> ViolationReport {
        ViolationReport {
            verdict: report.verdict,
            property: report.property.clone(),
            check: report.check.clone(),
            witness: report.witness.clone(),
            diagnosis: report.diagnosis.clone(),
            message: report.message.clone(),
        }
    }

    /// Makes this violation `report`'s own: its verdict (with the exit
    /// code), property, check, witness, diagnosis and message.
    pub fn install(&self, report: &mut VerifyReport) {
        report.conclude(self.verdict);
        report.property = self.property.clone();
        report.check = self.check.clone();
        report.witness = self.witness.clone();
        report.diagnosis = self.diagnosis.clone();
        report.message = self.message.clone();
    }

    /// `report` with this violation as its own, and no list: what the
    /// renderers show of one violation.
    pub fn in_place_of(&self, report: &VerifyReport) -> VerifyReport {
        let mut view = VerifyReport {
            all_violations: None,
            split: None,
            ..report.clone()
        };
        self.install(&mut view);
        view
    }
}

impl VerifyReport {
    /// Each violation of the report in turn, as a report of its own: its
    /// own violation first, then the further ones of `--all-violations`.
    pub fn each_violation(&self) -> Vec<VerifyReport> {
        let own = VerifyReport {
            all_violations: None,
            split: None,
            ..self.clone()
        };
        let further = self
            .all_violations
            .iter()
            .flat_map(|all| all.further.iter())
            .map(|violation| violation.in_place_of(self));
        std::iter::once(own).chain(further).collect()
    }
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
    /// Ends the run with `verdict` and its exit code.
    pub fn conclude(&mut self, verdict: Verdict) {
        self.verdict = verdict;
        self.exit_code = verdict.exit_code();
    }

    /// Ends the run with `verdict`, its exit code and `message`.
    pub fn conclude_with(&mut self, verdict: Verdict, message: String) {
        self.conclude(verdict);
        self.message = Some(message);
    }

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
    /// When the warning is about executions a bound cut off at this place
    /// during the run (not code the translator found unreachable): the
    /// bound and what it cut; `null` otherwise.
    pub cut_off: Option<CutOffReport>,
}

/// Executions a bound cut off at one place of the program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CutOffReport {
    /// The option that lifts the bound (`--heap-block`, `--nmalloc`,
    /// `--pointer-check`).
    pub option: &'static str,
    /// What was cut, for the headline: `the allocation at heapcut.c:10 was
    /// cut off above 8 scalars`.
    pub summary: String,
    /// For an allocation larger than a heap block: the most scalars an
    /// execution asked for there, when the run knows it (the native
    /// engine's does; CBMC's tells only that it was more than a block).
    pub asked: Option<i64>,
}

impl From<&crate::diagnostics::Diagnostic> for WarningReport {
    fn from(diagnostic: &crate::diagnostics::Diagnostic) -> Self {
        WarningReport {
            message: diagnostic.message.clone(),
            file: diagnostic.file.display().to_string(),
            line: diagnostic.line,
            column: diagnostic.column,
            help: diagnostic.help.clone(),
            cut_off: None,
        }
    }
}

impl VerifyReport {
    /// What the bounds cut off during the run, from the warnings that say
    /// so ([`WarningReport::cut_off`]), in their order.
    pub fn cut_offs(&self) -> impl Iterator<Item = &CutOffReport> {
        self.warnings
            .iter()
            .filter_map(|warning| warning.cut_off.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
