//! Helpers shared by the integration tests: locating the public corpora
//! (`corpus_dir()`: `$LAZYSMA_CORPUS`, else `../shared/`), finding CBMC (a missing CBMC fails under CI=true), running
//! the lazysma binary, and running many jobs on a small thread pool.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

pub mod desc;
mod tier;
#[allow(unused_imports)]
pub use tier::{asked, full_tier, sample_stride, whole_sweep};

/// The programs of the sample `name` in the samples manifest `manifest`
/// of `tests/fixtures/` (`litmus_samples.tsv`, `bench_samples.tsv`): the
/// first column of every row whose second, `samples` (names separated by
/// commas), lists `name`, in the manifest's order. A sample is never empty.
pub fn sample(manifest: &str, name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(manifest);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let programs: Vec<String> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let (program, samples) = line.split_once('\t')?;
            samples
                .split(',')
                .any(|sample| sample.trim() == name)
                .then(|| program.to_string())
        })
        .collect();
    assert!(
        !programs.is_empty(),
        "{manifest} has no program of the sample `{name}`"
    );
    programs
}

/// Bounds per benchmark program where Table I does not give them or does not
/// suffice (`tests/fixtures/bench_bounds.tsv`, shared with
/// `scripts/bench-vs-cbmc.py`), by path below the corpus's `bench/`.
pub fn bench_bounds() -> std::collections::HashMap<String, Vec<String>> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/bench_bounds.tsv"
    ))
    .expect("tests/fixtures/bench_bounds.tsv is readable");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| line.split_once('\t'))
        .map(|(path, bounds)| {
            (
                path.to_string(),
                bounds.split_whitespace().map(str::to_string).collect(),
            )
        })
        .collect()
}

/// The environment variable that names the folder of the public corpora.
pub const CORPUS_VARIABLE: &str = "LAZYSMA_CORPUS";

/// The files that show a folder holds the public corpora.
const CORPUS_MANIFESTS: [&str; 2] = ["litmus/visible/expected.tsv", "bench/manifest.tsv"];

/// The public corpora, programs of other projects that are never copied
/// into the repository: `litmus/visible/` (the visible litmus tests and
/// their expected verdicts) and `bench/` (the benchmark programs and their
/// manifest) below the folder `$LAZYSMA_CORPUS` names (relative to the
/// repository root), else below `shared` beside the repository. The one
/// place the tests find them: a test that needs them and does not find
/// them fails here with a message naming both ways to provide them.
pub fn corpus_dir() -> PathBuf {
    let root = corpus_root();
    let missing: Vec<&str> = CORPUS_MANIFESTS
        .into_iter()
        .filter(|manifest| !root.join(manifest).is_file())
        .collect();
    if !missing.is_empty() {
        panic!("{}", missing_corpus_message(&root, &missing));
    }
    root
}

/// Where the public corpora should be: `$LAZYSMA_CORPUS` (an empty value
/// counts as unset) or `../shared` beside the repository.
fn corpus_root() -> PathBuf {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os(CORPUS_VARIABLE) {
        Some(folder) if !folder.is_empty() => repository.join(folder),
        _ => repository.join("..").join("shared"),
    }
}

/// What a test says when the public corpora are not where it looks.
fn missing_corpus_message(root: &Path, missing: &[&str]) -> String {
    format!(
        "the public corpora are not in {} (it lacks {}). Provide them one of two ways: \
         set {CORPUS_VARIABLE} to the folder that holds litmus/visible/ and bench/, \
         or put that folder as `shared` beside the repository (../shared/); \
         see docs/testing.md, \"The corpora\"",
        root.display(),
        missing.join(" and ")
    )
}

/// Writes `directory/cbmc`, a POSIX sh script with the body `text`, and
/// returns its path.
pub fn cbmc_script(directory: &Path, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = directory.join("cbmc");
    std::fs::write(&script, format!("#!/bin/sh\n{text}")).expect("write the CBMC script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
        .expect("make the script executable");
    script
}

/// Writes `directory/cbmc`: a CBMC that dies as the kernel's out-of-memory
/// killer would end it whenever it is asked for a trace, and is the real
/// CBMC `real` otherwise (so the prover of a portfolio runs on alone).
pub fn cbmc_killed_when_tracing(directory: &Path, real: &Path) -> PathBuf {
    cbmc_doing_when_tracing(directory, real, "kill -KILL $$")
}

/// Writes `directory/cbmc`: a CBMC that runs the shell command `action`
/// first when it is asked for a trace, and then is the real CBMC `real`.
fn cbmc_doing_when_tracing(directory: &Path, real: &Path, action: &str) -> PathBuf {
    let text = format!(
        "for argument in \"$@\"; do\n  if [ \"$argument\" = --trace ]; then {action}; fi\ndone\nexec '{}' \"$@\"\n",
        real.display()
    );
    cbmc_script(directory, &text)
}

/// Writes `directory/cbmc`: the real CBMC `real`, which appends each call's
/// arguments as one line to `log` first.
pub fn cbmc_logging_calls(directory: &Path, real: &Path, log: &Path) -> PathBuf {
    let text = format!(
        "echo \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    cbmc_script(directory, &text)
}

/// Writes `directory/cbmc`: a CBMC that, asked for a trace, first waits
/// `seconds` (so that the prover of a portfolio gets to decide), and is the
/// real CBMC `real` otherwise. The wait does not hold CBMC's output pipes,
/// so a run stopped meanwhile ends at once.
pub fn cbmc_slow_when_tracing(directory: &Path, real: &Path, seconds: u32) -> PathBuf {
    cbmc_doing_when_tracing(directory, real, &format!("sleep {seconds} >/dev/null 2>&1"))
}

/// The CBMC that `lazysma verify` finds without `--cbmc`: `$LAZYSMA_CBMC`,
/// then `cbmc` on the `PATH`.
pub fn cbmc_path() -> Option<PathBuf> {
    std::env::var_os("LAZYSMA_CBMC")
        .map(PathBuf::from)
        .or_else(|| which::which("cbmc").ok())
}

/// Whether CBMC can be run; under CI=true its absence is a test failure.
pub fn require_cbmc() -> bool {
    match cbmc_path() {
        Some(_) => true,
        None if std::env::var("CI")
            .map(|value| value == "true")
            .unwrap_or(false) =>
        {
            panic!("CBMC is not installed but CI=true: run scripts/install-cbmc.sh")
        }
        None => {
            eprintln!("skipping: CBMC is not installed (run scripts/install-cbmc.sh)");
            false
        }
    }
}

/// Whether CaDiCaL is on PATH (scripts/install-cbmc.sh installs it); a
/// missing one is a failure under CI=true.
pub fn require_cadical() -> bool {
    match which::which("cadical") {
        Ok(_) => true,
        Err(_)
            if std::env::var("CI")
                .map(|value| value == "true")
                .unwrap_or(false) =>
        {
            panic!("cadical is not installed but CI=true: run scripts/install-cbmc.sh")
        }
        Err(_) => {
            eprintln!("skipping: cadical is not installed (run scripts/install-cbmc.sh)");
            false
        }
    }
}

/// A `lazysma` command.
pub fn lazysma() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lazysma"))
}

/// Runs `lazysma verify FILE ARGS...` and returns (exit code, stdout, stderr).
///
/// The tests that call this check the translation and the CBMC path, so
/// the run uses `--engine cbmc` unless `arguments` name an engine (with
/// the default `auto`, the native engine would often answer first and
/// the CBMC path would go untested). The native engine and `auto` have
/// tests of their own that name them.
pub fn verify(file: &Path, arguments: &[&str]) -> (i32, String, String) {
    let engine: &[&str] = if arguments.contains(&"--engine") {
        &[]
    } else {
        &["--engine", "cbmc"]
    };
    let mut all = arguments.to_vec();
    all.extend(engine);
    run("verify", file, &all)
}

/// Runs `lazysma COMMAND FILE ARGS...` and returns (exit code, stdout,
/// stderr).
pub fn run(command: &str, file: &Path, arguments: &[&str]) -> (i32, String, String) {
    finished(
        lazysma()
            .arg(command)
            .arg(file)
            .args(arguments)
            .output()
            .expect("the lazysma binary runs"),
    )
}

/// What a finished run of a program gave: (exit code, -1 for a signal;
/// stdout; stderr).
pub fn finished(output: std::process::Output) -> (i32, String, String) {
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs `job` on every item with `workers` threads; results in input order.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    job: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| {
                loop {
                    let index = {
                        let mut guard = next.lock().expect("no worker panicked");
                        let index = *guard;
                        *guard += 1;
                        index
                    };
                    if index >= items.len() {
                        break;
                    }
                    let result = job(&items[index]);
                    results.lock().expect("no worker panicked")[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no worker panicked")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// Expected verdict of a corpus program under one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Safe,
    Unsafe,
}

impl Verdict {
    pub fn parse(text: &str) -> Option<Verdict> {
        match text.trim() {
            "safe" => Some(Verdict::Safe),
            "unsafe" => Some(Verdict::Unsafe),
            _ => None,
        }
    }

    /// The exit code `lazysma verify` gives for this verdict.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Safe => 0,
            Verdict::Unsafe => 10,
        }
    }
}

/// One row of `litmus/visible/expected.tsv`: file, sc, tso, pso.
#[derive(Debug, Clone)]
pub struct LitmusTest {
    pub file: PathBuf,
    pub name: String,
    pub sc: Verdict,
    pub tso: Verdict,
    pub pso: Verdict,
}

/// All visible litmus tests with their expected verdicts.
pub fn litmus_tests() -> Vec<LitmusTest> {
    litmus_tests_in(&corpus_dir().join("litmus").join("visible"))
}

/// The project's own litmus tests, generated from relaxation cycles by
/// `scripts/litmus-cycles.py` with the verdicts of its oracle
/// (`tests/fixtures/cycles/`); they need no public corpus.
pub fn cycle_tests() -> Vec<LitmusTest> {
    litmus_tests_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cycles"))
}

/// The litmus tests of `directory` with the verdicts of its `expected.tsv`.
fn litmus_tests_in(directory: &Path) -> Vec<LitmusTest> {
    let manifest =
        std::fs::read_to_string(directory.join("expected.tsv")).unwrap_or_else(|error| {
            panic!("{}/expected.tsv is readable: {error}", directory.display())
        });
    manifest
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() < 4 {
                return None;
            }
            Some(LitmusTest {
                file: directory.join(fields[0]),
                name: fields[0].to_string(),
                sc: Verdict::parse(fields[1])?,
                tso: Verdict::parse(fields[2])?,
                pso: Verdict::parse(fields[3])?,
            })
        })
        .collect()
}

/// Number of CBMC runs to do at once (the machine has few cores).
pub fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(4)
}

/// The text report of `examples/seqlock.c`'s violation under PSO, from
/// either engine: the torn pair as numbers (one new, one old: which one
/// the engine picks), and the fence that forbids it.
pub fn assert_torn_seqlock_witness(stdout: &str) {
    assert!(
        ["reads x = 3.0", "reads y = 1.5"]
            .iter()
            .any(|new| stdout.contains(new)),
        "{stdout}"
    );
    assert!(
        stdout.contains(" = 0.0 (initial value) from memory"),
        "{stdout}"
    );
    assert!(stdout.contains("insert `__atomic_thread_fence(__ATOMIC_RELEASE);` right after `atomic_store_explicit(&sequence, s + 1"), "{stdout}");
}
