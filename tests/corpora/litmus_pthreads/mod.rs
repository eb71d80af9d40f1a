//! herd's C litmus tests cross-checked by a second route: each test lazysma
//! accepts (`litmus::accepted_herd_tests`) is also written as a plain
//! pthreads program by a converter of its own (`convert`, which reads
//! herd's dialect without lazysma's `.litmus` frontend, and maps the
//! primitives to GCC's `__atomic` builtins), and `lazysma verify --engine
//! smc` must give the `.litmus` file and the `.c` program the same exit
//! code under SC, TSO and PSO; a wrong mapping of a primitive, a register
//! copied at the wrong time or a condition negated wrongly on either side
//! shows as a disagreement. The tests the converter declines are listed,
//! with the reason, in `tests/fixtures/litmus_pthreads_skipped.tsv`, and
//! the list must stay exact. The default tier runs every eighth accepted
//! test and the SB, MP and LB classics; `LAZYSMA_FULL=1` runs them all.
//! The project's own tests of `tests/fixtures/litmus_pthreads/` cover
//! what the corpus's accepted tests do not use, in both tiers.

mod condition;
mod convert;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::litmus::accepted_herd_tests;
use crate::support::{self, parallel_map, verify, workers};

/// The list of the tests the converter declines: path below the corpus's
/// `litmus-herd/`, a tab, the reason.
const SKIPPED: &str = "tests/fixtures/litmus_pthreads_skipped.tsv";

/// The default tier's stride through the accepted tests.
const STRIDE: usize = 8;

/// The classic shapes the default tier always runs.
const CLASSICS: [&str; 3] = ["SB+poonceonces", "MP+poonceonces", "LB+poonceonces"];

const MODELS: [&str; 3] = ["--sc", "--tso", "--pso"];

/// The project's own herd tests of what the corpus's accepted tests do
/// not use (the `xchg` and `cmpxchg` orderings, `smp_mb__*_atomic`, C11
/// fetch-and-ops and exchanges, a shared expected value, the precedence
/// of `~`, `/\` and `\/`), run in both tiers.
const FIXTURES: &str = "tests/fixtures/litmus_pthreads";

/// A test's path below the corpus's `litmus-herd/`, or below the
/// repository for a fixture.
fn herd_name(test: &Path) -> String {
    let root = support::corpus_dir().join("litmus-herd");
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    test.strip_prefix(&root)
        .or_else(|_| test.strip_prefix(repository))
        .unwrap_or(test)
        .to_string_lossy()
        .into_owned()
}

/// The `.litmus` files of [`FIXTURES`], sorted.
fn fixture_tests() -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURES);
    let mut tests: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "litmus"))
        .collect();
    tests.sort();
    assert!(tests.len() >= 5, "{FIXTURES} has {} tests", tests.len());
    tests
}

/// The rows of [`SKIPPED`]: test and reason.
fn listed_skips() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SKIPPED);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (test, reason) = line.split_once('\t').unwrap_or((line, ""));
            (test.to_string(), reason.to_string())
        })
        .collect()
}

/// A test with its pthreads program, or the reason the converter declines it.
type Converted = (PathBuf, Result<String, convert::Unsupported>);

/// Each test with its pthreads program or the reason the converter
/// declines it.
fn conversions(accepted: &[PathBuf]) -> Vec<Converted> {
    accepted
        .iter()
        .map(|test| {
            let text = std::fs::read_to_string(test)
                .unwrap_or_else(|error| panic!("{}: {error}", test.display()));
            (test.clone(), convert::to_pthreads(&text))
        })
        .collect()
}

/// Asserts that the tests the converter declines are exactly those
/// [`SKIPPED`] lists.
fn assert_skip_list_is_exact(converted: &[Converted]) {
    let declined: BTreeMap<String, String> = converted
        .iter()
        .filter_map(|(test, program)| {
            let reason = program.as_ref().err()?;
            Some((herd_name(test), reason.to_string()))
        })
        .collect();
    let listed = listed_skips();
    let unlisted: Vec<String> = declined
        .iter()
        .filter(|(test, _)| !listed.contains_key(*test))
        .map(|(test, reason)| format!("{test}\t{reason}"))
        .collect();
    let stale: Vec<&String> = listed
        .keys()
        .filter(|test| !declined.contains_key(*test))
        .collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "{SKIPPED} is out of date.\ndeclined but not listed:\n{}\nlisted but converted:\n{}",
        unlisted.join("\n"),
        stale
            .iter()
            .map(|test| test.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Whether the run's tier takes the `index`-th accepted test.
fn chosen(index: usize, test: &Path) -> bool {
    let stem = test.file_stem().unwrap_or_default().to_string_lossy();
    support::full_tier() || index.is_multiple_of(STRIDE) || CLASSICS.contains(&stem.as_ref())
}

/// One comparison: the test, its pthreads program, the model.
struct Run<'a> {
    test: &'a Path,
    program: PathBuf,
    model: &'static str,
}

/// What a run found wrong, if anything.
fn disagreement(run: &Run<'_>) -> Option<String> {
    let arguments = [run.model, "--engine", "smc"];
    let (litmus, _, litmus_stderr) = verify(run.test, &arguments);
    let (program, _, program_stderr) = verify(&run.program, &arguments);
    let name = herd_name(run.test);
    let tail = |stderr: &str| stderr.lines().rev().take(2).collect::<Vec<_>>().join(" | ");
    if litmus != 0 && litmus != 10 {
        return Some(format!(
            "{name} {}: the .litmus file exits {litmus} ({})",
            run.model,
            tail(&litmus_stderr)
        ));
    }
    (litmus != program).then(|| {
        format!(
            "{name} {}: the .litmus file exits {litmus}, its pthreads program {program} ({})",
            run.model,
            tail(&program_stderr)
        )
    })
}

/// The comparisons of the tier's sample of `converted` (the declined
/// ones left out) and of every test of `fixtures` (each must convert),
/// their programs written to `folder`.
fn comparisons<'a>(
    converted: &'a [Converted],
    fixtures: &'a [Converted],
    folder: &Path,
) -> Vec<Run<'a>> {
    let corpus = converted
        .iter()
        .enumerate()
        .filter(|(index, (test, _))| chosen(*index, test));
    let own = fixtures
        .iter()
        .enumerate()
        .map(|(index, test)| (index + converted.len(), test));
    let mut runs = Vec::new();
    for (index, (test, program)) in corpus.chain(own) {
        let program = match program {
            Ok(program) => program,
            Err(_) if index < converted.len() => continue,
            Err(reason) => panic!("{}: the converter declines it: {reason}", herd_name(test)),
        };
        let stem = test.file_stem().unwrap_or_default().to_string_lossy();
        let file = folder.join(format!("{index:03}-{stem}.c"));
        std::fs::write(&file, program).expect("write the pthreads program");
        runs.extend(MODELS.map(|model| Run {
            test,
            program: file.clone(),
            model,
        }));
    }
    runs
}

#[test]
fn litmus_answers_equal_their_pthreads_programs() {
    let started = Instant::now();
    let converted = conversions(&accepted_herd_tests());
    assert_skip_list_is_exact(&converted);
    let fixtures = conversions(&fixture_tests());
    let folder = tempfile::tempdir().expect("a temporary directory");
    let runs = comparisons(&converted, &fixtures, folder.path());
    assert!(runs.len() >= 3 * 12, "only {} comparisons", runs.len());
    let found: Vec<String> = parallel_map(&runs, workers(), disagreement)
        .into_iter()
        .flatten()
        .collect();
    println!(
        "herd litmus against pthreads: {} tests, {} comparisons, {} disagree, {:.1} s",
        runs.len() / MODELS.len(),
        runs.len(),
        found.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        found.is_empty(),
        "{} of {} comparisons disagree:\n{}",
        found.len(),
        runs.len(),
        found.join("\n")
    );
}
