//! End to end on the litmus corpus: `lazysma verify` under SC, TSO and PSO
//! must give the expected verdict of the corpus's
//! `litmus/visible/expected.tsv` (`support::corpus_dir()`).
//! By default a fixed sample (the classic shapes and every fiftieth test, which
//! spans the families and verdict classes) runs; `LAZYSMA_FULL=1` runs
//! every fifth, `LAZYSMA_LITMUS_ALL=1` all 400 tests. A smaller sample runs
//! at `--qsize auto --maxclock auto`.
//! The project's own litmus tests, generated from relaxation cycles
//! (`tests/fixtures/cycles/`), get their oracle's verdicts too: every 29th
//! (ten tests) through CBMC here (every third with `LAZYSMA_FULL=1`, all
//! with `LAZYSMA_LITMUS_ALL=1`), every one with the native engine in
//! `smc_engine`.
//! herd7's C litmus tests (`litmus-herd/` in the corpus) are read as
//! input: each is translated or refused with a located reason, those herd7
//! never observes stay unreachable under SC, and the classic shapes get
//! their known SC/TSO/PSO answers (all of them, ordered by strength of
//! model, with `LAZYSMA_FULL=1`).

use crate::support;

use std::path::{Path, PathBuf};

use support::{
    LitmusTest, Verdict, cycle_tests, litmus_tests, parallel_map, require_cbmc, verify, workers,
};

/// Rows of `tests/fixtures/litmus_bounds.tsv` (shared with
/// `scripts/litmus-all.py`): `(test, model, bounds)`, where test and model
/// `*` give the bounds of every test and later rows those of one test.
pub(crate) fn bounds_file() -> Vec<(String, String, Vec<String>)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/litmus_bounds.tsv"
    ))
    .expect("tests/fixtures/litmus_bounds.tsv is readable");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            Some((
                fields.next()?.to_string(),
                fields.next()?.to_string(),
                fields
                    .next()?
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            ))
        })
        .collect()
}

/// The bounds of one test under one model: its own row, else the `*` row.
pub(crate) fn bounds(
    rows: &[(String, String, Vec<String>)],
    test: &str,
    model: &str,
) -> Vec<String> {
    let own = rows.iter().find(|(t, m, _)| t == test && m == model);
    let every = rows.iter().find(|(t, m, _)| t == "*" && m == "*");
    own.or(every)
        .map(|(_, _, bounds)| bounds.clone())
        .expect("litmus_bounds.tsv has a `*` row")
}

/// The classic shapes always run, and so do the tests with their own bounds
/// and MOREDETOUR0619, whose PSO violation three rounds reach only because
/// a thread's stores drain when it is joined, not when it ends: the sample
/// `litmus` of `tests/fixtures/litmus_samples.tsv`.
fn always() -> Vec<String> {
    support::sample("litmus_samples.tsv", "litmus")
}

/// The tests of [`always`], the tests with their own bounds and every `stride`-th test
/// (a fixed sample spanning the families and verdict classes), or all tests
/// with LAZYSMA_LITMUS_ALL=1.
fn sample(
    tests: &[LitmusTest],
    stride: usize,
    rows: &[(String, String, Vec<String>)],
) -> Vec<LitmusTest> {
    if support::asked("LAZYSMA_LITMUS_ALL") {
        return tests.to_vec();
    }
    let stride = support::sample_stride(stride);
    let always = always();
    tests
        .iter()
        .enumerate()
        .filter(|(index, test)| {
            always.contains(&test.name)
                || rows.iter().any(|(t, _, _)| *t == test.name)
                || index % stride == 0
        })
        .map(|(_, test)| test.clone())
        .collect()
}

/// Runs `verify --MODEL` on `tests` with the bounds `bounds_of` gives each
/// and asserts the expected verdicts.
fn check(
    model: &str,
    tests: &[LitmusTest],
    bounds_of: impl Fn(&LitmusTest) -> Vec<String> + Sync,
    expected: impl Fn(&LitmusTest) -> Verdict + Sync,
) {
    assert!(tests.len() >= 10, "the litmus sample has at least 10 tests");
    let flag = format!("--{model}");
    let outcomes = parallel_map(tests, workers(), |test| {
        let test_bounds = bounds_of(test);
        let mut arguments = vec![flag.as_str(), "--format", "json"];
        arguments.extend(test_bounds.iter().map(String::as_str));
        let (code, _, stderr) = verify(&test.file, &arguments);
        (test.name.clone(), expected(test).exit_code(), code, stderr)
    });
    let failures: Vec<String> = outcomes
        .iter()
        .filter(|(_, want, got, _)| want != got)
        .map(|(name, want, got, stderr)| {
            let tail: String = stderr.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
            format!("{name}: expected exit {want}, got {got} ({tail})")
        })
        .collect();
    println!(
        "litmus --{model}: {} tests, {} disagree",
        outcomes.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} litmus tests disagree under {model}:\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
}

/// The sample at the bounds of `litmus_bounds.tsv`.
fn check_model(model: &str, stride: usize, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    if !require_cbmc() {
        return;
    }
    let rows = bounds_file();
    let tests = sample(&litmus_tests(), stride, &rows);
    check(
        model,
        &tests,
        |test| bounds(&rows, &test.name, model),
        expected,
    );
}

/// The tests whose lists need the most nodes and whose clocks the most
/// timestamps (six nodes, seven or eight timestamps, at `auto`): the sample
/// `litmus_largest_needs` of `tests/fixtures/litmus_samples.tsv`.
fn largest_needs() -> Vec<String> {
    support::sample("litmus_samples.tsv", "litmus_largest_needs")
}

/// At `--qsize auto --maxclock auto` (and three rounds) the classic shapes,
/// the first two tests of [`largest_needs`] (MOREDETOUR0604's five nodes on
/// one location among them) and
/// every 200th test (every 20th with `LAZYSMA_FULL=1`) get their expected
/// verdicts: the bounds the translator finds sufficient cut off no
/// violation (`LAZYSMA_LITMUS_ALL=1`: every test, and so every test of
/// [`largest_needs`]).
fn check_auto_bounds(model: &str, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    if !require_cbmc() {
        return;
    }
    let tests = litmus_tests();
    let all = support::asked("LAZYSMA_LITMUS_ALL");
    let stride = support::sample_stride(200);
    let always = always();
    let largest_needs = largest_needs();
    let chosen: Vec<LitmusTest> = tests
        .iter()
        .enumerate()
        .filter(|(index, test)| {
            all || always.contains(&test.name)
                || largest_needs[..2].contains(&test.name)
                || index % stride == 0
        })
        .map(|(_, test)| test.clone())
        .collect();
    let auto = ["--rounds", "3", "--qsize", "auto", "--maxclock", "auto"]
        .map(String::from)
        .to_vec();
    check(model, &chosen, |_| auto.clone(), expected);
}

#[test]
fn litmus_sc() {
    check_model("sc", 50, |test| test.sc);
}

#[test]
fn litmus_tso() {
    check_model("tso", 50, |test| test.tso);
}

#[test]
fn litmus_pso() {
    check_model("pso", 50, |test| test.pso);
}

/// Every 29th generated cycle test, ten of them (every third with
/// `LAZYSMA_FULL=1`, all with `LAZYSMA_LITMUS_ALL=1`), at the litmus bounds under
/// `model`.
fn check_cycles(model: &str, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    if !require_cbmc() {
        return;
    }
    let rows = bounds_file();
    let tests: Vec<LitmusTest> = sample(&cycle_tests(), 29, &[]);
    check(
        model,
        &tests,
        |test| bounds(&rows, &test.name, model),
        expected,
    );
}

#[test]
fn generated_cycles_sc() {
    check_cycles("sc", |test| test.sc);
}

#[test]
fn generated_cycles_tso() {
    check_cycles("tso", |test| test.tso);
}

#[test]
fn generated_cycles_pso() {
    check_cycles("pso", |test| test.pso);
}

#[test]
fn litmus_tso_at_auto_bounds() {
    check_auto_bounds("tso", |test| test.tso);
}

#[test]
fn litmus_pso_at_auto_bounds() {
    check_auto_bounds("pso", |test| test.pso);
}

/// Every `.litmus` file under the corpus's `litmus-herd/`, sorted.
fn herd_tests() -> Vec<PathBuf> {
    fn walk(directory: &Path, found: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(directory).expect("the herd litmus folder is readable");
        for entry in entries {
            let path = entry.expect("a readable entry").path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "litmus") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&support::corpus_dir().join("litmus-herd"), &mut found);
    found.sort();
    found
}

/// Whether `stderr` locates its error in `test` (`NAME.litmus:LINE:COLUMN`).
fn located_in(stderr: &str, test: &Path) -> bool {
    let name = format!(
        "{}:",
        test.file_name().expect("a file name").to_string_lossy()
    );
    stderr.match_indices(&name).any(|(at, _)| {
        let mut place = stderr[at + name.len()..].splitn(3, ':');
        let line = place.next().unwrap_or("");
        let column: String = place
            .next()
            .unwrap_or("")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        line.parse::<u32>().is_ok_and(|l| l > 0) && column.parse::<u32>().is_ok_and(|c| c > 0)
    })
}

/// The herd tests lazysma translates (`lazysma TEST.litmus --tso -o`);
/// panics on a run that neither translates nor refuses with a located
/// reason.
pub(crate) fn accepted_herd_tests() -> Vec<PathBuf> {
    let tests = herd_tests();
    let output = tempfile::tempdir().expect("a temporary directory");
    let outcomes = parallel_map(&tests, workers(), |test| {
        let name = test.file_name().expect("a file name").to_string_lossy();
        let out = output.path().join(format!("{name}.c"));
        let run = support::lazysma()
            .arg(test)
            .args(["--tso", "-o"])
            .arg(&out)
            .output()
            .expect("the lazysma binary runs");
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        (run.status.code().unwrap_or(-1), stderr)
    });
    let mut accepted = Vec::new();
    let mut refused = 0;
    for (test, (code, stderr)) in tests.iter().zip(outcomes) {
        match code {
            0 => accepted.push(test.clone()),
            1 if located_in(&stderr, test) => refused += 1,
            _ => panic!(
                "{}: translating exits {code}, not 0 or 1 with a located reason:\n{stderr}",
                test.display()
            ),
        }
    }
    println!(
        "herd C litmus tests: {} accepted, {refused} refused",
        accepted.len()
    );
    accepted
}

#[test]
fn herd_litmus_tests_translate_or_are_refused_with_their_place() {
    let accepted = accepted_herd_tests();
    assert_eq!(
        herd_tests().len(),
        144,
        "the corpus has 144 herd C litmus tests"
    );
    assert!(
        accepted.len() >= 100,
        "only {} herd C litmus tests translate",
        accepted.len()
    );
}

/// herd7's observation of a test's condition (`Never`, `Sometimes`,
/// `Always`) and the condition's kind (`exists`, `~exists`, `forall`),
/// from its `.litmus.expected`.
fn herd_observation(test: &Path) -> Option<(String, String)> {
    let mut expected = test.as_os_str().to_owned();
    expected.push(".expected");
    let text = std::fs::read_to_string(PathBuf::from(expected)).ok()?;
    let field = |prefix: &str, index: usize| {
        text.lines()
            .find(|line| line.starts_with(prefix))
            .and_then(|line| line.split_whitespace().nth(index))
            .map(str::to_string)
    };
    Some((field("Observation", 2)?, field("Condition", 1)?))
}

/// Every execution herd's models forbid is one SC forbids too (their models
/// allow every SC execution): an outcome herd7 never observes (`exists`,
/// `~exists`: Never) or a `forall` it always sees hold is no violation
/// under SC.
#[test]
fn herd_never_observed_outcomes_are_unreachable_under_sc() {
    let checked: Vec<(PathBuf, String, String)> = accepted_herd_tests()
        .into_iter()
        .filter_map(|test| {
            let (observation, kind) = herd_observation(&test)?;
            let never = match kind.as_str() {
                "exists" | "~exists" => observation == "Never",
                "forall" => observation == "Always",
                _ => false,
            };
            never.then_some((test, observation, kind))
        })
        .collect();
    assert!(checked.len() >= 40, "only {} tests to check", checked.len());
    let codes = parallel_map(&checked, workers(), |(test, _, _)| {
        verify(test, &["--sc", "--engine", "smc"])
    });
    for ((test, observation, kind), (code, stdout, stderr)) in checked.iter().zip(codes) {
        assert_eq!(
            code,
            0,
            "{}: herd7 says {kind} {observation}, lazysma --sc exits {code}:\n{stdout}{stderr}",
            test.display()
        );
    }
}

/// Known answers: (test under `catalogue/linux/tests/`, exit code under
/// SC, TSO, PSO).
const HERD_KNOWN: [(&str, [i32; 3]); 6] = [
    // store buffering: TSO's store buffer shows it
    ("SB+poonceonces", [0, 10, 10]),
    ("SB+fencembonceonces", [0, 0, 0]),
    // message passing: only PSO reorders the two stores
    ("MP+poonceonces", [0, 0, 10]),
    ("MP+fencewmbonceonce+fencermbonceonce", [0, 0, 0]),
    ("MP+pooncerelease+poacquireonce", [0, 0, 0]),
    // load buffering: no model here reorders a load with a later store
    ("LB+poonceonces", [0, 0, 0]),
];

#[test]
fn herd_classic_shapes_have_their_known_answers() {
    let linux = support::corpus_dir().join("litmus-herd/catalogue/linux/tests");
    let runs: Vec<(&str, &str, i32)> = HERD_KNOWN
        .iter()
        .flat_map(|(test, codes)| {
            ["--sc", "--tso", "--pso"]
                .into_iter()
                .zip(codes.iter().copied())
                .map(move |(model, code)| (*test, model, code))
        })
        .collect();
    let results = parallel_map(&runs, workers(), |(test, model, _)| {
        verify(
            &linux.join(format!("{test}.litmus")),
            &[model, "--engine", "smc"],
        )
    });
    for ((test, model, expected), (code, stdout, stderr)) in runs.iter().zip(results) {
        assert_eq!(code, *expected, "{test} {model}:\n{stdout}{stderr}");
        if code == 10 {
            // the witness points into the .litmus file
            assert!(stdout.contains(&format!("{test}.litmus:")), "{stdout}");
        }
    }
}

/// With `LAZYSMA_FULL=1`: every accepted test under SC, TSO and PSO
/// answers 0 or 10, and an outcome a model allows stays allowed under a
/// weaker one (SC, then TSO, then PSO).
#[test]
fn herd_answers_grow_with_weaker_models() {
    if !support::full_tier() {
        return;
    }
    let accepted = accepted_herd_tests();
    let answers = parallel_map(&accepted, workers(), |test| {
        ["--sc", "--tso", "--pso"].map(|model| verify(test, &[model, "--engine", "smc"]).0)
    });
    for (test, codes) in accepted.iter().zip(answers) {
        assert!(
            codes.iter().all(|code| *code == 0 || *code == 10),
            "{}: exit codes {codes:?}",
            test.display()
        );
        assert!(
            codes.windows(2).all(|pair| pair[0] <= pair[1]),
            "{}: a weaker model forbids what a stronger allows: {codes:?}",
            test.display()
        );
    }
}
