//! Options shared by `translate` and `verify`: memory model, SMA
//! implementation and the bounds, with their documented defaults.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

pub use crate::consistency::MemoryModel;

/// Which engine answers `verify` (`--engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The native engine and CBMC side by side: the first definitive
    /// answer wins.
    #[default]
    Auto,
    /// The native engine alone (a program it declines is an error).
    Smc,
    /// CBMC alone, on the sequentialised program.
    Cbmc,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Smc => "smc",
            Engine::Cbmc => "cbmc",
        }
    }
}

/// Which C implementation of the shared memory abstraction is inlined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmaImplementation {
    Sc,
    /// Timestamped TSO with T-CDLLs (FMCAD 2016, sec. III-IV).
    Etso,
    /// Timestamped PSO (sec. V).
    Epso,
    /// Reference TSO: explicit bounded store buffers.
    TsoReference,
    /// Reference PSO: one bounded buffer per thread and location.
    PsoReference,
}

impl SmaImplementation {
    /// The default implementation of a memory model.
    pub fn for_model(model: MemoryModel) -> Self {
        match model {
            MemoryModel::Sc => SmaImplementation::Sc,
            MemoryModel::Tso => SmaImplementation::Etso,
            MemoryModel::Pso => SmaImplementation::Epso,
        }
    }

    /// Whether this is a reference store-buffer model (`tso_ref`, `pso_ref`).
    pub fn is_reference(self) -> bool {
        matches!(
            self,
            SmaImplementation::TsoReference | SmaImplementation::PsoReference
        )
    }

    /// Whether an access at a computed address inside one object is made
    /// once, at that address, after the bounds check, rather than dispatched
    /// over the object's locations (`printer::dispatch`). True for the models
    /// whose state at a location is one memory cell (`sc`), or that and one
    /// FIFO per thread holding a store's location as a value (`tso_ref`): a
    /// computed location costs one symbolic index of memory, where a dispatch
    /// copies the whole operation, flush phase included, once per location.
    /// `safestack_c21_21` under SC at `--unwind 3`: 164k symbolic-execution
    /// steps down to 61k, CBMC 68 s to 43 s; `queue_ok` under `tso_ref` at
    /// `--unwind 3`: 526k steps down to 381k. `pso_ref`'s buffers and the
    /// T-CDLLs are per-location state, which a symbolic location would index
    /// in every structure an operation touches.
    pub fn accesses_computed_addresses_in_place(self) -> bool {
        matches!(
            self,
            SmaImplementation::Sc | SmaImplementation::TsoReference
        )
    }

    /// Whether this is a timestamped T-CDLL model (`etso`, `epso`).
    pub fn is_timestamped(self) -> bool {
        matches!(self, SmaImplementation::Etso | SmaImplementation::Epso)
    }

    /// The memory model this implementation realises.
    pub fn model(self) -> MemoryModel {
        match self {
            SmaImplementation::Sc => MemoryModel::Sc,
            SmaImplementation::Etso | SmaImplementation::TsoReference => MemoryModel::Tso,
            SmaImplementation::Epso | SmaImplementation::PsoReference => MemoryModel::Pso,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SmaImplementation::Sc => "sc",
            SmaImplementation::Etso => "etso",
            SmaImplementation::Epso => "epso",
            SmaImplementation::TsoReference => "tso_ref",
            SmaImplementation::PsoReference => "pso_ref",
        }
    }
}

/// Bounds of the translation. Each bound can only hide bugs, never invent one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// Round-robin rounds of the lazy driver.
    pub rounds: u32,
    /// Loop unrolling depth.
    pub unwind: u32,
    /// Nodes per location list (eTSO/ePSO) or buffer depth (reference models).
    pub qsize: u32,
    /// Largest timestamp of the global clock.
    pub maxclock: u32,
    /// Width of the integers stored in shared memory.
    pub bitwidth: u32,
    /// Heap blocks available to `malloc`/`calloc`.
    pub nmalloc: u32,
    /// Scalars per heap block. `None`: the largest allocation of constant
    /// size, and at least 8 when some allocation's size is only known at
    /// run time. A larger allocation is cut off.
    pub heap_block: Option<u32>,
    /// `--unwindset [FILE:]LINE:N`: the loops that start on a line of the
    /// input file (or of an included FILE) and their own unrolling depth,
    /// instead of `unwind`.
    pub unwindset: BTreeMap<LoopLine, u32>,
    /// The lines of `unwindset` whose depth the program gave with Dat3M's
    /// `__VERIFIER_loop_bound(n)` before the loop, not `--unwindset`.
    pub loop_bound_lines: BTreeSet<LoopLine>,
}

/// The line a loop starts on, as `--unwindset` names it: a line of the input
/// file, or of another file the program includes (`FILE:LINE`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopLine {
    /// The file as the user wrote it; `None`: the input file.
    pub file: Option<String>,
    /// 1-based.
    pub line: u32,
}

impl LoopLine {
    /// Whether this names `line` of `file` (`in_input`: whether `file` is the
    /// input file). A FILE names every file whose path ends with it, whole
    /// components compared: `queue.h` names `/src/lib/queue.h`.
    pub fn names(&self, file: &str, line: u32, in_input: bool) -> bool {
        self.line == line && self.is_in(file, in_input)
    }

    /// Whether this is a line of `file` (`in_input`: whether `file` is the
    /// input file).
    pub fn is_in(&self, file: &str, in_input: bool) -> bool {
        match &self.file {
            None => in_input,
            Some(name) => std::path::Path::new(file).ends_with(name),
        }
    }

    /// `line 71` or `queue.h line 12`, as reports name it.
    pub fn describe(&self) -> String {
        match &self.file {
            None => format!("line {}", self.line),
            Some(file) => format!("{file} line {}", self.line),
        }
    }
}

/// `71` or `queue.h:12`, as `--unwindset` takes it.
impl std::fmt::Display for LoopLine {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            None => write!(formatter, "{}", self.line),
            Some(file) => write!(formatter, "{file}:{}", self.line),
        }
    }
}

impl Bounds {
    /// The least `--qsize`: one node of each list holds the memory value
    /// (the SMA headers refuse less).
    pub const LEAST_QSIZE: u32 = 2;
    /// The least `--maxclock`.
    pub const LEAST_MAXCLOCK: u32 = 1;

    /// Whether shared memory is narrower than the values the program hands
    /// it (`int` up to `--bitwidth 32`, `long long` above): then it holds
    /// `__CPROVER_bitvector[B]`, and the SMA cuts off a store of a value
    /// that B bits cannot give back unchanged.
    pub fn narrows_values(&self) -> bool {
        self.bitwidth != 32 && self.bitwidth != 64
    }

    /// The unrolling depth of a loop that starts on `line` of `file`
    /// (`in_input`: whether that is the input file).
    pub fn unwind_at(&self, file: &str, line: u32, in_input: bool) -> u32 {
        self.own_depth(file, line, in_input).unwrap_or(self.unwind)
    }

    /// The depth `--unwindset` gives the loop that starts on `line` of
    /// `file`, if it names that line.
    pub fn own_depth(&self, file: &str, line: u32, in_input: bool) -> Option<u32> {
        self.unwindset
            .iter()
            .find(|(loop_line, _)| loop_line.names(file, line, in_input))
            .map(|(_, &depth)| depth)
    }

    /// The deepest unrolling of any loop.
    pub fn deepest_unwind(&self) -> u32 {
        self.unwindset.values().copied().fold(self.unwind, u32::max)
    }

    /// `unwind 2` or, with loops of their own depth, `unwind 2 (line 71: 129)`.
    pub fn describe_unwind(&self) -> String {
        let own: Vec<String> = self
            .unwindset
            .iter()
            .map(|(line, depth)| match self.loop_bound_lines.contains(line) {
                true => format!("{}: {depth} by __VERIFIER_loop_bound", line.describe()),
                false => format!("{}: {depth}", line.describe()),
            })
            .collect();
        if own.is_empty() {
            format!("unwind {}", self.unwind)
        } else {
            format!("unwind {} ({})", self.unwind, own.join(", "))
        }
    }

    /// `rounds 2, unwind 2, ...` as the report and the output file name them;
    /// the heap block size only when the program allocates.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "rounds {}, {}, qsize {}, maxclock {}, bitwidth {}, nmalloc {}",
            self.rounds,
            self.describe_unwind(),
            self.qsize,
            self.maxclock,
            self.bitwidth,
            self.nmalloc
        );
        if let Some(scalars) = self.heap_block {
            text.push_str(&format!(", heap block {scalars}"));
        }
        text
    }
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            rounds: 2,
            unwind: 2,
            qsize: 2,
            maxclock: 3,
            bitwidth: 32,
            nmalloc: 2,
            heap_block: None,
            unwindset: BTreeMap::new(),
            loop_bound_lines: BTreeSet::new(),
        }
    }
}

/// Everything the translator needs besides the input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslateOptions {
    pub sma: SmaImplementation,
    pub bounds: Bounds,
    /// `-I DIR` for the preprocessor.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]` for the preprocessor.
    pub defines: Vec<String>,
    /// Add a full fence around `__VERIFIER_atomic` sections (Nidhugg's
    /// reading); off by default (CBMC's reading: scheduling atomicity only).
    pub fence_atomic_sections: bool,
    /// Assert that every loop exits after `--unwind` copies (CBMC's
    /// unwinding assertions); off by default: the executions are cut off.
    pub unwinding_assertions: bool,
    /// `--qsize auto`, `--maxclock auto`, `--nmalloc auto`: which of
    /// `bounds` the translator replaces by the value that cuts off no
    /// execution of the program.
    pub auto_bounds: AutoBounds,
    /// `--addresses`: how pointer values number memory.
    pub addresses: AddressForm,
    /// Whether a `/` or `%` by zero is a violation (on unless
    /// `--no-div-by-zero-check`).
    pub division_checks: bool,
    /// Whether an access through a pointer outside every object it may
    /// point into is a violation (`--pointer-check`); otherwise such an
    /// execution is cut off.
    pub pointer_checks: bool,
    /// Whether await loops are waits (`passes::await_loops`, on unless
    /// `--unroll-spin-loops`): they then need no unrolling.
    pub spin_loops_as_waits: bool,
    /// `verify --split K/N`: check only part K of N of the executions
    /// ([`Split`]); `None` checks them all.
    pub split: Option<Split>,
}

/// `--split K/N`: part `part` (1 to `parts`) of a partition of a
/// program's executions into `parts` pieces, each checked by its own run;
/// `lazysma merge` combines the runs. The native engine partitions the
/// reads-from classes by the writes the first [`Split::key_reads`] reads
/// of the first created thread take their values from
/// (`smc::rf::split`); the CBMC path partitions the sequentialised
/// program's executions by the context switches it guesses in the first
/// round (`printer::driver`). Both partitions are exact: every execution
/// is in exactly one part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Split {
    pub part: usize,
    pub parts: usize,
}

impl Split {
    /// The thread whose reads name a reads-from class's part: the first
    /// thread `main` creates (thread 0 is `main`).
    pub const KEY_THREAD: usize = 1;

    /// How many of its reads name the part: two more than the binary
    /// digits of the number of parts, so that the keys are a few times
    /// as many as the parts (reads with two sources give two keys each)
    /// while the key thread still stops early in the other parts.
    pub fn key_reads(self) -> usize {
        let digits = usize::BITS - (self.parts.max(1) - 1).leading_zeros();
        2 + digits as usize
    }
    /// The most parts a search is split into.
    pub const MAX_PARTS: usize = 4096;

    /// `K/N`, with `1 <= K <= N <= MAX_PARTS`.
    pub fn parse(text: &str) -> Result<Split, String> {
        let wrong = || {
            format!(
                "`{text}` is not a part of a split: write K/N, the part K (from 1) of N parts, N at most {}",
                Split::MAX_PARTS
            )
        };
        let (part, parts) = text.split_once('/').ok_or_else(wrong)?;
        let part: usize = part.trim().parse().map_err(|_| wrong())?;
        let parts: usize = parts.trim().parse().map_err(|_| wrong())?;
        if part == 0 || part > parts || parts > Split::MAX_PARTS {
            return Err(wrong());
        }
        Ok(Split { part, parts })
    }

    /// The part (from 1) of a key given as a sequence of numbers: FNV-1a
    /// over them, so that every run, on every machine, agrees.
    pub fn part_of(parts: usize, key: impl IntoIterator<Item = u64>) -> usize {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut hash = OFFSET;
        for number in key {
            for byte in number.to_le_bytes() {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(PRIME);
            }
        }
        // parts <= MAX_PARTS, so the remainder fits
        (hash % parts as u64) as usize + 1
    }

    /// Whether the key names this part.
    pub fn owns(self, key: impl IntoIterator<Item = u64>) -> bool {
        Split::part_of(self.parts, key) == self.part
    }
}

impl std::fmt::Display for Split {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}/{}", self.part, self.parts)
    }
}

/// How pointer values number memory ([`crate::ir::Program::byte_addresses`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AddressForm {
    /// Byte addresses when the program takes an address apart or makes
    /// a computed integer an address again; else location numbers.
    #[default]
    Auto,
    /// Byte addresses: location `l` at `8 * l`.
    Bytes,
    /// Location numbers: location `l` at `l`.
    Locations,
}

/// How the translator chooses `--qsize` and `--maxclock`
/// (`passes::sufficient`) and `--nmalloc` (`passes::heap_needs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoBounds {
    pub qsize: BoundChoice,
    pub maxclock: BoundChoice,
    pub nmalloc: BoundChoice,
    /// `Given`: shared memory is [`Bounds::bitwidth`] wide, and a
    /// floating object it cannot hold is bad input; otherwise (the command
    /// line without `--bitwidth`) it is as wide as the program's floating
    /// objects need: 64 bits where a `double` is in shared memory.
    pub bitwidth: BoundChoice,
}

/// How the translator chooses a bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BoundChoice {
    /// The number in [`Bounds`].
    #[default]
    Given,
    /// `auto`: the value that cuts off no execution of the program.
    Sufficient,
    /// The command line's default: the value that cuts off no execution,
    /// but no more than the number in [`Bounds`] (that number where no
    /// value is known), so that a large program does not get a large
    /// formula unasked.
    SufficientAtMost,
}

impl AutoBounds {
    pub const SUFFICIENT: AutoBounds = AutoBounds {
        qsize: BoundChoice::Sufficient,
        maxclock: BoundChoice::Sufficient,
        nmalloc: BoundChoice::Sufficient,
        bitwidth: BoundChoice::Sufficient,
    };
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            sma: SmaImplementation::Etso,
            bounds: Bounds::default(),
            include_dirs: Vec::new(),
            defines: Vec::new(),
            fence_atomic_sections: false,
            unwinding_assertions: false,
            auto_bounds: AutoBounds::default(),
            addresses: AddressForm::default(),
            division_checks: true,
            pointer_checks: false,
            spin_loops_as_waits: true,
            split: None,
        }
    }
}
