//! The lazysma command line: argument parsing and exit codes, nothing else.

use clap::{Args, Parser, Subcommand, ValueEnum};
use lazysma::exit;
use lazysma::options::{
    AddressForm, AutoBounds, BoundChoice, Bounds, LoopLine, MemoryModel, SmaImplementation,
    TranslateOptions,
};
use lazysma::verify::ReportFormat;
use std::collections::BTreeMap;

/// The native engine's searches allocate and free small vectors at a high
/// rate (states, executions, oracle instances); mimalloc serves them in
/// about half the time of the system allocator (docs/native-engine.md,
/// *Speed*).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Finds weak-memory (TSO/PSO) bugs in concurrent C programs with pthreads,
/// by lazy sequentialisation for the CBMC bounded model checker.
#[derive(Debug, Parser)]
#[command(name = "lazysma", version, about, long_about = None)]
#[command(
    after_help = "Without a subcommand, `lazysma FILE ...` means `lazysma translate FILE ...`.\n\n\
Exit codes: 0 no violation within the bounds (check: realisable), 10 violation found and confirmed \
or an unwinding assertion failed (check: not realisable), 1 bad input, 2 CBMC missing or failed, 3 time limit reached, \
4 counterexample failed the native check (a lazysma defect); batch/merge: 5 an expected violation missed or a result missing."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Translate a pthreads C program into one sequential C file for CBMC.
    Translate(TranslateArgs),
    /// Translate, run CBMC, confirm any counterexample natively and explain it.
    Verify(VerifyArgs),
    /// Decide whether an execution (JSON) is realisable under SC, TSO or PSO.
    Check(CheckArgs),
    /// Decide whether TSO or PSO lets the program's reads observe what no
    /// SC execution can (the native engine; assertions are not checked).
    Robust(RobustArgs),
    /// Find the fewest fences that make the program robust under TSO or
    /// PSO (or its assertions hold), and print the patch.
    Fences(FencesArgs),
    /// Decide whether any number of identical threads can fail an
    /// assertion under TSO or SC (the pivot abstraction).
    Param(ParamArgs),
    /// Verify every harness of a manifest under its models, a few at a
    /// time; print a summary, write JUnit XML and one SARIF log.
    Batch(BatchArgs),
    /// The report of a batch from the result files its jobs wrote
    /// (`batch --print-jobs`, run by GNU parallel, Slurm or a CI matrix).
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
struct BatchArgs {
    /// The manifest: one harness per line, FILE<TAB>MODELS<TAB>EXPECT<TAB>TIMEOUT[<TAB>OPTIONS] (docs/scale.md).
    manifest: PathBuf,
    /// How many jobs run at once [default: the processors this process may use].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
    /// The directory of the jobs' result files (default: a temporary one; with --print-jobs: lazysma-results).
    #[arg(long, value_name = "DIR")]
    results: Option<PathBuf>,
    /// Print one command line per job instead of running them (for GNU parallel, a Slurm array, a CI matrix); `lazysma merge` then reads their results.
    #[arg(long, conflicts_with = "job")]
    print_jobs: bool,
    /// Run the one job ID of the manifest and write its result file (what --print-jobs prints).
    #[arg(long, value_name = "ID")]
    job: Option<String>,
    /// Split each harness's search into N parts, one job each (verify --split K/N); the report combines them.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    split: u32,
    #[command(flatten)]
    files: ReportFileArgs,
}

#[derive(Debug, Args)]
struct ReportFileArgs {
    /// Write a JUnit XML file of the jobs.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write one SARIF 2.1.0 log with the run of every job.
    #[arg(long, value_name = "FILE")]
    sarif: Option<PathBuf>,
}

impl ReportFileArgs {
    fn files(&self) -> lazysma::batch::ReportFiles {
        lazysma::batch::ReportFiles {
            junit: self.junit.clone(),
            sarif: self.sarif.clone(),
        }
    }
}

#[derive(Debug, Args)]
struct MergeArgs {
    /// Result files of batch jobs (or directories of them), or `verify --split K/N --format json` reports.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// The manifest whose every job must have a result (a missing one: exit 5).
    #[arg(long, value_name = "MANIFEST")]
    manifest: Option<PathBuf>,
    /// The --split N the batch's jobs were run with (for --manifest).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    split: u32,
    #[command(flatten)]
    files: ReportFileArgs,
}

/// The `verify` arguments of one harness of a batch.
#[derive(Debug, Parser)]
#[command(name = "lazysma verify", no_binary_name = true)]
struct HarnessArguments {
    #[command(flatten)]
    verify: VerifyArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum SmaChoice {
    Sc,
    Etso,
    Epso,
    #[value(alias = "tso_ref")]
    TsoRef,
    #[value(alias = "pso_ref")]
    PsoRef,
}

#[derive(Debug, Args)]
struct ModelArgs {
    /// Sequential consistency.
    #[arg(long, group = "model")]
    sc: bool,
    /// Total store order (x86), the default.
    #[arg(long, group = "model")]
    tso: bool,
    /// Partial store order (SPARC PSO).
    #[arg(long, group = "model")]
    pso: bool,
}

impl ModelArgs {
    fn model(&self) -> MemoryModel {
        if self.sc {
            MemoryModel::Sc
        } else if self.pso {
            MemoryModel::Pso
        } else {
            MemoryModel::Tso
        }
    }
}

#[derive(Debug, Args)]
struct TranslationArgs {
    /// The C file to translate.
    file: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
    /// Shared memory implementation (default: etso for --tso, epso for --pso).
    #[arg(long, value_enum, hide = true)]
    sma: Option<SmaChoice>,
    /// Round-robin rounds of the lazy scheduler.
    #[arg(long, default_value_t = Bounds::default().rounds, value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
    /// Loop unrolling depth.
    #[arg(long, default_value_t = Bounds::default().unwind)]
    unwind: u32,
    /// Own unrolling depths of the loops that start on these lines of FILE, e.g. 71:129,80:14, or of an included file, e.g. queue.h:12:5 (repeatable).
    #[arg(long, value_name = "[FILE:]LINE:N,...", value_parser = parse_unwindset, action = clap::ArgAction::Append)]
    unwindset: Vec<Vec<(LoopLine, u32)>>,
    /// Nodes per location list, one holding the memory value (qsize-1 stores of a location may be pending); `auto`: as many as this program can need [default: as many as this program can need, at most 4]
    #[arg(long, value_name = "N|auto", value_parser = bound_parser(Bounds::LEAST_QSIZE))]
    qsize: Option<BoundArg>,
    /// Largest value of the global clock (timestamps); `auto`: as large as this program can need [default: as large as this program can need, at most 8]
    #[arg(long, value_name = "K|auto", value_parser = bound_parser(Bounds::LEAST_MAXCLOCK))]
    maxclock: Option<BoundArg>,
    /// Bit width of the values stored in shared memory [default: 32, or 64 where a `double` or a 64-bit integer is in shared memory]
    #[arg(long, value_name = "B", value_parser = clap::value_parser!(u32).range(2..=64))]
    bitwidth: Option<u32>,
    /// Heap blocks available to malloc/calloc; `auto`: as many as this program can take [default: 2]
    #[arg(long, value_name = "M|auto", value_parser = bound_parser(0))]
    nmalloc: Option<BoundArg>,
    /// Scalars per heap block; `auto`: the largest constant-size allocation, at least 8 if a size is only known at run time, and `verify` grows it by need (up to 64) where a run cuts an allocation off [default: auto]
    #[arg(long, value_name = "N|auto", value_parser = heap_block_parser)]
    heap_block: Option<BoundArg>,
    /// Add a directory to the include path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a preprocessor macro.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Fence around __VERIFIER_atomic sections (Nidhugg's reading; default: scheduling atomicity only).
    #[arg(long)]
    fence_atomic_sections: bool,
    /// Assert that every loop exits within --unwind iterations (a failure reports the bound, not a bug).
    #[arg(long)]
    unwinding_assertions: bool,
    /// How pointers number memory: `bytes` (location l at 8*l, three low bits free for tags and alignment tests), `locations` (l at l), or `auto`: bytes where the program takes an address apart.
    #[arg(long, value_enum, default_value_t = AddressChoice::Auto)]
    addresses: AddressChoice,
    /// Do not check divisions by zero (as CBMC without --div-by-zero-check).
    #[arg(long)]
    no_div_by_zero_check: bool,
    /// Report an access through a pointer outside every object it may point into (default: such executions are cut off, as CBMC without --pointer-check).
    #[arg(long)]
    pointer_check: bool,
    /// Unroll await loops (spin loops whose failed iterations change nothing) by --unwind like every loop, instead of treating each as one wait for its exit condition.
    #[arg(long)]
    unroll_spin_loops: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AddressChoice {
    Auto,
    Bytes,
    Locations,
}

impl TranslationArgs {
    /// The translation options; an error for options that contradict each
    /// other.
    fn options(&self) -> Result<TranslateOptions, String> {
        let model = self.model.model();
        let sma = match self.sma {
            None => SmaImplementation::for_model(model),
            Some(SmaChoice::Sc) => SmaImplementation::Sc,
            Some(SmaChoice::Etso) => SmaImplementation::Etso,
            Some(SmaChoice::Epso) => SmaImplementation::Epso,
            Some(SmaChoice::TsoRef) => SmaImplementation::TsoReference,
            Some(SmaChoice::PsoRef) => SmaImplementation::PsoReference,
        };
        Ok(TranslateOptions {
            sma,
            bounds: Bounds {
                rounds: self.rounds,
                unwind: self.unwind,
                qsize: bound_number(self.qsize, DEFAULT_QSIZE_LIMIT),
                maxclock: bound_number(self.maxclock, DEFAULT_MAXCLOCK_LIMIT),
                bitwidth: self.bitwidth.unwrap_or(Bounds::default().bitwidth),
                nmalloc: match self.nmalloc {
                    Some(BoundArg::Number(number)) => number,
                    Some(BoundArg::Auto) | None => Bounds::default().nmalloc,
                },
                heap_block: match self.heap_block {
                    Some(BoundArg::Number(number)) => Some(number),
                    Some(BoundArg::Auto) | None => None,
                },
                unwindset: self.unwindset()?,
                loop_bound_lines: Default::default(),
            },
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            fence_atomic_sections: self.fence_atomic_sections,
            unwinding_assertions: self.unwinding_assertions,
            auto_bounds: AutoBounds {
                qsize: bound_choice(self.qsize),
                maxclock: bound_choice(self.maxclock),
                nmalloc: if self.nmalloc == Some(BoundArg::Auto) {
                    BoundChoice::Sufficient
                } else {
                    BoundChoice::Given
                },
                bitwidth: if self.bitwidth.is_some() {
                    BoundChoice::Given
                } else {
                    BoundChoice::Sufficient
                },
            },
            addresses: match self.addresses {
                AddressChoice::Auto => AddressForm::Auto,
                AddressChoice::Bytes => AddressForm::Bytes,
                AddressChoice::Locations => AddressForm::Locations,
            },
            division_checks: !self.no_div_by_zero_check,
            spin_loops_as_waits: !self.unroll_spin_loops,
            pointer_checks: self.pointer_check,
            split: None,
        })
    }

    /// The loops of every `--unwindset` and their depths. One loop given
    /// two different depths is an error that names both (the same depth
    /// twice is not).
    fn unwindset(&self) -> Result<BTreeMap<LoopLine, u32>, String> {
        let mut depths = BTreeMap::new();
        for (line, depth) in self.unwindset.iter().flatten() {
            if let Some(earlier) = depths.insert(line.clone(), *depth)
                && earlier != *depth
            {
                return Err(format!(
                    "--unwindset gives the loop of {} two depths, {line}:{earlier} and {line}:{depth}; give it one",
                    line.describe()
                ));
            }
        }
        Ok(depths)
    }
}

/// Without `--qsize`: the qsize that no execution needs more of, at most
/// this (textbook bugs such as Peterson's under TSO need 3).
const DEFAULT_QSIZE_LIMIT: u32 = 4;
/// Without `--maxclock`: the clock that no execution needs more of, at
/// most this.
const DEFAULT_MAXCLOCK_LIMIT: u32 = 8;

/// The number of `--qsize` or `--maxclock` (the limit of the default, or a
/// placeholder for `auto` until the translator replaces it).
fn bound_number(argument: Option<BoundArg>, default_limit: u32) -> u32 {
    match argument {
        Some(BoundArg::Number(number)) => number,
        Some(BoundArg::Auto) | None => default_limit,
    }
}

/// How the translator chooses a bound given as `argument`.
fn bound_choice(argument: Option<BoundArg>) -> BoundChoice {
    match argument {
        Some(BoundArg::Number(_)) => BoundChoice::Given,
        Some(BoundArg::Auto) => BoundChoice::Sufficient,
        None => BoundChoice::SufficientAtMost,
    }
}

/// `--qsize`, `--maxclock` or `--nmalloc`: a number, or `auto` for the
/// value that cuts off no execution of the program (found by the
/// translator).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BoundArg {
    Number(u32),
    Auto,
}

impl std::fmt::Display for BoundArg {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundArg::Number(number) => write!(formatter, "{number}"),
            BoundArg::Auto => formatter.write_str("auto"),
        }
    }
}

/// Parses a [`BoundArg`] of at least `least`.
fn bound_parser(
    least: u32,
) -> impl Fn(&str) -> Result<BoundArg, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        if text == "auto" {
            return Ok(BoundArg::Auto);
        }
        match text.parse::<u32>() {
            Ok(number) if number >= least => Ok(BoundArg::Number(number)),
            Ok(_) => Err(format!("{text} is below the least value, {least}")),
            Err(_) => Err(format!("`{text}` is neither a number nor `auto`")),
        }
    }
}

/// `--heap-block`: a number of scalars from 1 to 65536, or `auto`.
fn heap_block_parser(text: &str) -> Result<BoundArg, String> {
    match bound_parser(1)(text)? {
        BoundArg::Number(number) if number > 65536 => {
            Err(format!("{text} is above the largest value, 65536"))
        }
        argument => Ok(argument),
    }
}

/// `[FILE:]LINE:N,...` of `--unwindset`.
fn parse_unwindset(text: &str) -> Result<Vec<(LoopLine, u32)>, String> {
    text.split(',')
        .map(|entry| {
            // from the right: N, LINE, and FILE if any (which may hold colons)
            let mut parts = entry.rsplitn(3, ':');
            let (Some(depth), Some(line)) = (parts.next(), parts.next()) else {
                return Err(format!(
                    "`{entry}` is not LINE:N or FILE:LINE:N (the line a loop starts on, in FILE or the input file, and its unrolling depth)"
                ));
            };
            let file = parts.next().map(str::trim);
            let number = |text: &str, what: &str| {
                text.trim().parse::<u32>().map_err(|_| format!("`{text}` in `{entry}` is not a {what}"))
            };
            let line = number(line, "line number")?;
            if line == 0 {
                return Err(format!("`{entry}`: lines count from 1"));
            }
            if file == Some("") {
                return Err(format!("`{entry}`: the file name before the line is empty"));
            }
            Ok((LoopLine { file: file.map(str::to_string), line }, number(depth, "number of iterations")?))
        })
        .collect()
}

/// `--timeout S`: a positive number of seconds (0 would stop CBMC at once).
fn parse_timeout(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("the time limit is a positive number of seconds, not 0".to_string()),
        Ok(seconds) => Ok(seconds),
        Err(_) => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

/// `--memory-limit SIZE`: bytes, or a number with K, M, G or T (binary
/// units: 1K is 1024 bytes), positive.
fn parse_memory_limit(text: &str) -> Result<u64, String> {
    lazysma::verify::memory::parse_size(text)
}

#[derive(Debug, Args)]
struct TranslateArgs {
    #[command(flatten)]
    translation: TranslationArgs,
    /// Where to write the sequential program (default, or `-`: standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum VerifyFormat {
    Text,
    Json,
    Sarif,
}

fn report_format(format: VerifyFormat) -> ReportFormat {
    match format {
        VerifyFormat::Text => ReportFormat::Text,
        VerifyFormat::Json => ReportFormat::Json,
        VerifyFormat::Sarif => ReportFormat::Sarif,
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
struct VerifyArgs {
    #[command(flatten)]
    translation: TranslationArgs,
    /// The CBMC binary (default: $LAZYSMA_CBMC, then `cbmc` on PATH).
    #[arg(long, value_name = "PATH")]
    cbmc: Option<PathBuf>,
    /// Stop after this many seconds, counted for the whole command: the
    /// translation and every run of either engine (exit code 3).
    #[arg(long, value_name = "S", value_parser = parse_timeout)]
    timeout: Option<u64>,
    /// The memory each engine may take (e.g. 4G; default: a third of the
    /// machine's physical memory): reaching it ends that engine (exit 2
    /// when no engine answers).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory_limit)]
    memory_limit: Option<u64>,
    /// Report format: `sarif` is a SARIF 2.1.0 log for code scanning in CI.
    #[arg(long, value_enum, default_value = "text")]
    format: VerifyFormat,
    /// Skip the native consistency check of the counterexample.
    #[arg(long)]
    no_check: bool,
    /// SAT solver: `auto` (CaDiCaL beside CBMC's own solver when `cadical`
    /// is on PATH), `cbmc` (CBMC's own alone), or a solver (cadical, kissat).
    #[arg(long, value_name = "NAME", default_value = "auto")]
    sat_solver: String,
    /// Do not check the program under SC beside --tso/--pso (a violation
    /// under SC needs no weak memory, and that run usually finds it first).
    #[arg(long)]
    no_sc_run: bool,
    /// Keep the sequential program CBMC checked at this path (beside a
    /// TSO/PSO run, the program of the run under SC too, its name ending in
    /// .sc.c).
    #[arg(long, value_name = "OUT")]
    keep: Option<PathBuf>,
    /// Colours in the report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// The engine: `smc` (the native engine: every interleaving and buffer
    /// length within the loop bounds, for programs it can model), `cbmc`
    /// (the sequentialised program), or `auto` (both side by side; the
    /// first definitive answer wins).
    #[arg(long, value_enum, default_value = "auto")]
    engine: EngineChoice,
    /// Do not report deadlocks (executions in which every unfinished
    /// thread waits for ever on a mutex, a join or a synchronisation
    /// object) as violations of the property `deadlock`.
    #[arg(long)]
    no_deadlock_check: bool,
    /// Draw the violating execution (events, po, rf, co, fr, the cycle,
    /// the fix) into FILE: `.svg` (drawn by lazysma) or `.dot` (Graphviz).
    #[arg(long, value_name = "FILE")]
    graph: Option<lazysma::verify::GraphFile>,
    /// Write a standalone C stress test of the violation's happens-before
    /// cycle (gcc -O2 -pthread; -DWITH_FIX adds the advised fences).
    #[arg(long, value_name = "FILE.c")]
    repro: Option<PathBuf>,
    /// Write the violation's happens-before cycle as a herd C litmus test.
    #[arg(long, value_name = "FILE.litmus")]
    litmus: Option<PathBuf>,
    /// Go on after the first violation: report every failing property
    /// once, each with its own checked witness (exit 10 if any).
    #[arg(long)]
    all_violations: bool,
    /// Worker threads of the native engine's search [default: the processors this process may use, less one for CBMC under --engine auto].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
    /// Check only part K of N of the executions (the native engine alone
    /// unless --engine cbmc); `lazysma merge` combines the parts' JSON
    /// reports: safe only when all N parts are.
    #[arg(long, value_name = "K/N", value_parser = lazysma::options::Split::parse)]
    split: Option<lazysma::options::Split>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EngineChoice {
    Auto,
    Smc,
    Cbmc,
}

fn engine(choice: EngineChoice) -> lazysma::options::Engine {
    match choice {
        EngineChoice::Auto => lazysma::options::Engine::Auto,
        EngineChoice::Smc => lazysma::options::Engine::Smc,
        EngineChoice::Cbmc => lazysma::options::Engine::Cbmc,
    }
}

#[derive(Debug, Args)]
struct RobustArgs {
    #[command(flatten)]
    translation: TranslationArgs,
    /// Stop after this many seconds, counted for the whole command (exit
    /// code 3).
    #[arg(long, value_name = "S", value_parser = parse_timeout)]
    timeout: Option<u64>,
    /// The memory the search may take (e.g. 4G; default: a third of the
    /// machine's physical memory): reaching it ends the search (exit 2).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory_limit)]
    memory_limit: Option<u64>,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    format: VerifyFormat,
    /// Colours in the report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// Worker threads of the search [default: the processors this process may use].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GoalChoice {
    /// Every reads-from class is one SC gives (`lazysma robust`).
    Robust,
    /// The assertions hold within the bounds (`lazysma verify`).
    Assertions,
}

#[derive(Debug, Args)]
struct FencesArgs {
    #[command(flatten)]
    translation: TranslationArgs,
    /// What the fences must achieve.
    #[arg(long, value_enum, default_value = "robust")]
    goal: GoalChoice,
    /// Fences that make the assertions hold for any number of threads
    /// (the parameterised check of `lazysma param`; implies --goal assertions).
    #[arg(long)]
    parameterised: bool,
    /// Print the patch as a unified diff (the default without -o).
    #[arg(long)]
    diff: bool,
    /// Write the patched program here (never over the input).
    #[arg(short = 'o', long = "output", value_name = "PATCHED")]
    output: Option<PathBuf>,
    /// Stop each check after this many seconds (exit code 3).
    #[arg(long, value_name = "S", value_parser = parse_timeout)]
    timeout: Option<u64>,
}

#[derive(Debug, Args)]
struct ParamArgs {
    #[command(flatten)]
    translation: TranslationArgs,
    /// When to colour the output.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// The execution, as JSON (format in docs/check.md).
    file: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

const SUBCOMMANDS: [&str; 9] = [
    "translate",
    "verify",
    "check",
    "robust",
    "fences",
    "param",
    "batch",
    "merge",
    "help",
];

/// `lazysma FILE ...` is `lazysma translate FILE ...`.
fn with_default_subcommand(mut arguments: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if let Some(first) = arguments.get(1).and_then(|argument| argument.to_str()) {
        let is_flag = first.starts_with('-');
        let file = !is_flag && !SUBCOMMANDS.contains(&first);
        let translate_flag = is_flag && !matches!(first, "-h" | "--help" | "-V" | "--version");
        if file || translate_flag {
            arguments.insert(1, "translate".into());
        }
    }
    arguments
}

/// The document format the arguments ask `verify` or `robust` for (`--format json` or
/// `--format=sarif` before any `--`), if any, and whether the command is
/// `robust`: then even an option error is reported as one document of it.
fn asks_for_document_report(arguments: &[std::ffi::OsString]) -> Option<(ReportFormat, bool)> {
    let command = arguments.get(1)?;
    if command != "verify" && command != "robust" {
        return None;
    }
    let robustness = command == "robust";
    let options: Vec<&std::ffi::OsString> = arguments
        .iter()
        .skip(2)
        .take_while(|argument| *argument != "--")
        .collect();
    let asks = |name: &str| {
        options
            .iter()
            .any(|argument| **argument == *format!("--format={name}"))
            || options
                .windows(2)
                .any(|pair| pair[0] == "--format" && pair[1] == name)
    };
    [("json", ReportFormat::Json), ("sarif", ReportFormat::Sarif)]
        .into_iter()
        .find(|(name, _)| asks(name))
        .map(|(_, format)| (format, robustness))
}

fn main() -> ExitCode {
    let worker = std::thread::Builder::new()
        .stack_size(lazysma::WORKER_STACK_BYTES)
        .spawn(run);
    match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // no thread with a large stack: the main thread's has to do
        Err(_) => ExitCode::from(run()),
    }
}

/// Parses the command line and runs the command; returns the exit code.
fn run() -> u8 {
    let arguments = with_default_subcommand(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(arguments.iter().cloned()) {
        Ok(cli) => cli,
        Err(error)
            if error.use_stderr()
                && let Some((format, robustness)) = asks_for_document_report(&arguments) =>
        {
            let message = error.render().to_string();
            let message = message.trim().trim_start_matches("error: ");
            return lazysma::verify::report_option_error(message, format, robustness);
        }
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Translate(arguments) => run_translate(&arguments),
        Command::Verify(arguments) => run_verify(&arguments),
        Command::Check(arguments) => run_check(&arguments),
        Command::Robust(arguments) => run_robust(&arguments),
        Command::Fences(arguments) => run_fences(&arguments),
        Command::Param(arguments) => run_param(&arguments),
        Command::Batch(arguments) => run_batch(&arguments),
        Command::Merge(arguments) => lazysma::batch::merge(
            &arguments.results,
            arguments.manifest.as_deref(),
            arguments.split as usize,
            &arguments.files.files(),
            &harness_request,
        ),
    }
}

/// Whether to colour output that goes to a stream which is a terminal or not.
fn use_color(choice: ColorChoice, stream_is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => stream_is_terminal && std::env::var_os("NO_COLOR").is_none(),
    }
}

fn run_translate(arguments: &TranslateArgs) -> u8 {
    let input = &arguments.translation.file;
    let options = match arguments.translation.options() {
        Ok(options) => options,
        Err(message) => {
            lazysma::output::eprintln(&format!("error: {message}"));
            return exit::BAD_INPUT;
        }
    };
    let output = arguments
        .output
        .as_deref()
        .filter(|path| !lazysma::output::is_standard_output(path));
    if let Some(output) = output
        && lazysma::verify::same_file(input, output)
    {
        lazysma::output::eprintln(&format!(
            "error: the output {} is the input file; refusing to overwrite it",
            output.display()
        ));
        return exit::BAD_INPUT;
    }
    let translation = match lazysma::translate::translate(input, &options) {
        Ok(translation) => translation,
        Err(error) => {
            lazysma::output::eprint(&lazysma::verify::render_translate_error(
                &error,
                use_color(ColorChoice::Auto, std::io::stderr().is_terminal()),
            ));
            return if error.is_environment_failure() {
                exit::BACKEND_FAILURE
            } else {
                exit::BAD_INPUT
            };
        }
    };
    let color = use_color(ColorChoice::Auto, std::io::stderr().is_terminal());
    for warning in &translation.warnings {
        lazysma::output::eprint(&warning.render(color));
    }
    let written = match output {
        None => lazysma::output::print(&translation.c_source),
        Some(output) => lazysma::output::write_atomically(output, translation.c_source.as_bytes()),
    };
    match written {
        Ok(()) => exit::SUCCESS,
        Err(error) => {
            let target = output.map_or("standard output".to_string(), |path| {
                path.display().to_string()
            });
            lazysma::output::eprintln(&format!("error: cannot write {target}: {error}"));
            exit::BACKEND_FAILURE
        }
    }
}

/// The translation options of a reporting command, or the exit code of
/// the option error it reported (as one document of `format` when it asks
/// for one).
fn report_options(
    translation: &TranslationArgs,
    format: VerifyFormat,
    robustness: bool,
) -> Result<TranslateOptions, u8> {
    translation.options().map_err(|message| {
        if format == VerifyFormat::Text {
            lazysma::output::eprintln(&format!("error: {message}"));
            exit::BAD_INPUT
        } else {
            lazysma::verify::report_option_error(&message, report_format(format), robustness)
        }
    })
}

fn run_verify(arguments: &VerifyArgs) -> u8 {
    // --timeout counts from here: the translation and every run
    let started = std::time::Instant::now();
    let options = match report_options(&arguments.translation, arguments.format, false) {
        Ok(options) => options,
        Err(code) => return code,
    };
    let request = verify_request(arguments, options, started);
    // SIGTERM and SIGINT stop CBMC and remove the temporary files before
    // lazysma ends by the signal
    lazysma::interrupt::install();
    let code = lazysma::verify::run(&request);
    lazysma::interrupt::finish();
    code
}

/// The request of `verify` with these arguments and translation options.
fn verify_request(
    arguments: &VerifyArgs,
    options: TranslateOptions,
    started: std::time::Instant,
) -> lazysma::verify::VerifyRequest {
    let mut options = options;
    options.split = arguments.split;
    // the parts of a split are parts of one engine's partition: under
    // auto, the native engine's
    let engine = match (arguments.split, engine(arguments.engine)) {
        (Some(_), lazysma::options::Engine::Auto) => lazysma::options::Engine::Smc,
        (_, chosen) => chosen,
    };
    lazysma::verify::VerifyRequest {
        file: arguments.translation.file.clone(),
        options,
        cbmc: arguments.cbmc.clone(),
        timeout: arguments.timeout.map(std::time::Duration::from_secs),
        started,
        format: report_format(arguments.format),
        native_check: !arguments.no_check,
        sat_solver: Some(arguments.sat_solver.clone()),
        keep: arguments.keep.clone(),
        color: use_color(arguments.color, std::io::stdout().is_terminal()),
        // --sma checks that one implementation alone; a part of a split
        // checks its part alone
        sc_run: !arguments.no_sc_run
            && arguments.translation.sma.is_none()
            && arguments.split.is_none(),
        engine,
        robustness: false,
        deadlock_check: !arguments.no_deadlock_check,
        memory_limit: lazysma::verify::memory::limit(arguments.memory_limit),
        graph: arguments.graph.clone(),
        reproduction: lazysma::verify::ReproRequest {
            c_program: arguments.repro.clone(),
            litmus: arguments.litmus.clone(),
        },
        all_violations: arguments.all_violations,
        estimate: report_format(arguments.format) == lazysma::verify::ReportFormat::Json,
        workers: arguments.jobs.map(|jobs| jobs as usize),
    }
}

/// The request of one harness of a batch from its `verify` arguments
/// (after `verify`): a JSON report, no estimate, no colour.
fn harness_request(words: &[String]) -> Result<lazysma::verify::VerifyRequest, String> {
    let started = std::time::Instant::now();
    let parsed = HarnessArguments::try_parse_from(words).map_err(|error| {
        let message = error.render().to_string();
        message.trim().trim_start_matches("error: ").to_string()
    })?;
    let options = parsed.verify.translation.options()?;
    let mut request = verify_request(&parsed.verify, options, started);
    request.format = ReportFormat::Json;
    request.color = false;
    request.estimate = false;
    Ok(request)
}

fn run_batch(arguments: &BatchArgs) -> u8 {
    let program = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("lazysma"));
    let default_results = || PathBuf::from("lazysma-results");
    if let Some(id) = &arguments.job {
        let results = arguments.results.clone().unwrap_or_else(default_results);
        lazysma::interrupt::install();
        let code = lazysma::batch::run_job(
            &arguments.manifest,
            arguments.split as usize,
            id,
            &results,
            &harness_request,
        );
        lazysma::interrupt::finish();
        return code;
    }
    if arguments.print_jobs {
        let results = arguments.results.clone().unwrap_or_else(default_results);
        return lazysma::batch::print_jobs(
            &arguments.manifest,
            arguments.split as usize,
            &results,
            &program,
            &harness_request,
        );
    }
    let processors = std::thread::available_parallelism().map_or(1, usize::from);
    let request = lazysma::batch::BatchRequest {
        manifest: arguments.manifest.clone(),
        jobs: arguments.jobs.map_or(processors, |jobs| jobs as usize),
        results: arguments.results.clone(),
        files: arguments.files.files(),
        program,
        parts: arguments.split as usize,
    };
    lazysma::batch::run(&request, &harness_request)
}

fn run_robust(arguments: &RobustArgs) -> u8 {
    // --timeout counts from here: the translation and every run
    let started = std::time::Instant::now();
    let options = match report_options(&arguments.translation, arguments.format, true) {
        Ok(options) => options,
        Err(code) => return code,
    };
    let request = lazysma::verify::VerifyRequest {
        file: arguments.translation.file.clone(),
        options,
        cbmc: None,
        timeout: arguments.timeout.map(std::time::Duration::from_secs),
        started,
        format: report_format(arguments.format),
        native_check: true,
        sat_solver: None,
        keep: None,
        color: use_color(arguments.color, std::io::stdout().is_terminal()),
        sc_run: false,
        engine: lazysma::options::Engine::Smc,
        robustness: true,
        deadlock_check: false,
        memory_limit: lazysma::verify::memory::limit(arguments.memory_limit),
        graph: None,
        reproduction: Default::default(),
        all_violations: false,
        estimate: report_format(arguments.format) == lazysma::verify::ReportFormat::Json,
        workers: arguments.jobs.map(|jobs| jobs as usize),
    };
    lazysma::interrupt::install();
    let code = lazysma::verify::run(&request);
    lazysma::interrupt::finish();
    code
}

fn run_fences(arguments: &FencesArgs) -> u8 {
    let options = match arguments.translation.options() {
        Ok(options) => options,
        Err(message) => {
            lazysma::output::eprintln(&format!("error: {message}"));
            return exit::BAD_INPUT;
        }
    };
    let file = &arguments.translation.file;
    if let Some(output) = &arguments.output
        && lazysma::verify::same_file(file, output)
    {
        lazysma::output::eprintln(&format!(
            "error: the output {} is the input file; refusing to overwrite it",
            output.display()
        ));
        return exit::BAD_INPUT;
    }
    let request = lazysma::fences::FencesRequest {
        file: file.clone(),
        model: options.sma.model(),
        options,
        goal: match arguments.goal {
            _ if arguments.parameterised => lazysma::fences::FenceGoal::Parameterised,
            GoalChoice::Robust => lazysma::fences::FenceGoal::Robustness,
            GoalChoice::Assertions => lazysma::fences::FenceGoal::Assertions,
        },
        timeout: arguments.timeout.map(std::time::Duration::from_secs),
    };
    lazysma::interrupt::install();
    let found = lazysma::fences::find(&request);
    lazysma::interrupt::finish();
    let fenced = match found {
        Ok(fenced) => fenced,
        Err(lazysma::fences::FencesError::Failed { message, exit_code }) => {
            lazysma::output::eprintln(&format!("error: {message}"));
            return exit_code;
        }
        Err(lazysma::fences::FencesError::Unfenceable(reason)) => {
            lazysma::output::eprintln(&format!("error: no fences make the program pass: {reason}"));
            return exit::VIOLATION;
        }
    };
    lazysma::output::eprint(&lazysma::fences::summary(&request, &fenced));
    let name = file.display().to_string();
    if let Some(output) = &arguments.output
        && let Err(error) = lazysma::output::write_atomically(output, fenced.patched.as_bytes())
    {
        lazysma::output::eprintln(&format!(
            "error: cannot write {}: {error}",
            output.display()
        ));
        return exit::BACKEND_FAILURE;
    }
    if (arguments.diff || arguments.output.is_none())
        && let Err(error) = lazysma::output::print(&lazysma::fences::patch::unified_diff(
            &name,
            &fenced.original,
            &fenced.patched,
        ))
    {
        lazysma::output::eprintln(&format!(
            "error: cannot write the diff to standard output: {error}"
        ));
        return exit::BACKEND_FAILURE;
    }
    exit::SUCCESS
}

fn run_param(arguments: &ParamArgs) -> u8 {
    let options = match arguments.translation.options() {
        Ok(options) => options,
        Err(message) => {
            lazysma::output::eprintln(&format!("error: {message}"));
            return exit::BAD_INPUT;
        }
    };
    let request = lazysma::param::ParamRequest {
        file: arguments.translation.file.clone(),
        options,
        color: use_color(arguments.color, std::io::stdout().is_terminal()),
    };
    lazysma::interrupt::install();
    let code = lazysma::param::run(&request);
    lazysma::interrupt::finish();
    code
}

fn run_check(arguments: &CheckArgs) -> u8 {
    lazysma::check::run(
        &arguments.file,
        arguments.model.model(),
        matches!(arguments.format, Format::Json),
    )
}
