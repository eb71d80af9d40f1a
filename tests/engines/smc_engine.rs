//! `lazysma verify --engine smc`, the native engine, end to end: the
//! expected verdicts of the litmus corpus under SC, TSO and PSO, or a
//! decline for too many states in at most a tenth of the tests (a fixed
//! sample: the classic shapes and every tenth test; `LAZYSMA_SMC_ALL=1`
//! runs all), of every litmus test the project generates from relaxation
//! cycles (`tests/fixtures/cycles/`, no decline), of `examples/`
//! (`tests/fixtures/smc_examples.tsv`), the
//! engine named in the JSON report, a located reason for a program it
//! declines, and the seqlock over doubles, whose witness shows numbers as
//! the CBMC path's does. It needs no CBMC.

use crate::support;

use support::{LitmusTest, Verdict, cycle_tests, litmus_tests, parallel_map, verify, workers};

/// The classic shapes (the sample `smc_engine` of
/// `tests/fixtures/litmus_samples.tsv`) and every tenth test.
fn sample() -> Vec<LitmusTest> {
    let all = support::whole_sweep("LAZYSMA_SMC_ALL");
    let classic = support::sample("litmus_samples.tsv", "smc_engine");
    litmus_tests()
        .into_iter()
        .enumerate()
        .filter(|(index, test)| all || classic.contains(&test.name) || index % 10 == 0)
        .map(|(_, test)| test)
        .collect()
}

/// The JSON report of `verify --engine smc` on `file` under `model`.
fn native(file: &std::path::Path, model: &str) -> (i32, serde_json::Value) {
    let flag = format!("--{model}");
    let (code, stdout, _) = verify(file, &[&flag, "--engine", "smc", "--format", "json"]);
    let report = serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
    (code, report)
}

fn check_litmus(model: &str, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    let tests = sample();
    assert!(tests.len() >= 40, "the litmus sample has at least 40 tests");
    check_natively(model, &tests, expected);
}

/// Runs the native engine on `tests` under `model`: every answer is the
/// expected one, and at most a tenth are declined for too many states.
/// Returns the number declined.
fn check_natively(
    model: &str,
    tests: &[LitmusTest],
    expected: impl Fn(&LitmusTest) -> Verdict + Sync,
) -> usize {
    let outcomes = parallel_map(tests, workers(), |test| {
        let (code, report) = native(&test.file, model);
        (test.name.clone(), expected(test).exit_code(), code, report)
    });
    // a program with too many states is declined (exit 1, the reason
    // saying so); any answer given must be the expected one
    let declined = |report: &serde_json::Value| {
        report["native"]["outcome"] == "declined"
            && report["message"]
                .as_str()
                .is_some_and(|message| message.contains("states") || message.contains("classes"))
    };
    let failures: Vec<String> = outcomes
        .iter()
        .filter(|(_, want, got, report)| {
            !(want == got && report["engine"] == "smc" || *got == 1 && declined(report))
        })
        .map(|(name, want, got, report)| {
            format!(
                "{name}: expected exit {want}, got {got} (engine {}, {})",
                report["engine"], report["message"]
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} litmus tests disagree under {model}:\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
    let declines = outcomes.iter().filter(|(_, _, got, _)| *got == 1).count();
    assert!(
        declines * 10 <= outcomes.len(),
        "{declines} of {} litmus tests declined under {model}",
        outcomes.len()
    );
    declines
}

/// The project's own litmus tests, generated from relaxation cycles
/// (`tests/fixtures/cycles/`, `scripts/litmus-cycles.py`): every one gets
/// the verdict of the generator's oracle, none is declined. The default
/// tier runs each test under one model, in turn (the `turn`-th of every
/// three: SC 0, TSO 1, PSO 2); the full tier and `LAZYSMA_SMC_ALL=1` run
/// every test under every model.
fn check_cycles(model: &str, turn: usize, expected: impl Fn(&LitmusTest) -> Verdict + Sync) {
    let every = if support::whole_sweep("LAZYSMA_SMC_ALL") {
        1
    } else {
        3
    };
    let tests = cycle_tests();
    assert!(tests.len() >= 200, "expected.tsv lists the generated tests");
    let tests: Vec<LitmusTest> = tests
        .into_iter()
        .skip(turn % every)
        .step_by(every)
        .collect();
    let declines = check_natively(model, &tests, expected);
    assert_eq!(
        declines, 0,
        "no generated cycle test is declined under {model}"
    );
}

#[test]
fn generated_cycles_sc() {
    check_cycles("sc", 0, |test| test.sc);
}

#[test]
fn generated_cycles_tso() {
    check_cycles("tso", 1, |test| test.tso);
}

#[test]
fn generated_cycles_pso() {
    check_cycles("pso", 2, |test| test.pso);
}

#[test]
fn litmus_sc() {
    check_litmus("sc", |test| test.sc);
}

#[test]
fn litmus_tso() {
    check_litmus("tso", |test| test.tso);
}

#[test]
fn litmus_pso() {
    check_litmus("pso", |test| test.pso);
}

#[test]
fn examples_get_their_verdicts_or_a_located_reason() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = std::fs::read_to_string(root.join("tests/fixtures/smc_examples.tsv"))
        .expect("tests/fixtures/smc_examples.tsv is readable");
    let mut checked = 0;
    for line in table.lines().filter(|line| !line.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let file = root.join("examples").join(fields[0]);
        for (model, expected) in ["sc", "tso", "pso"].iter().zip(&fields[1..]) {
            let (code, report) = native(&file, model);
            let what = format!("{} under {model}", fields[0]);
            match *expected {
                "declined" => {
                    assert_eq!(code, 1, "{what}: {report}");
                    let message = report["message"].as_str().unwrap_or_default();
                    assert!(message.contains("declines"), "{what}: {message}");
                    assert!(
                        message.contains(fields[0]),
                        "{what} names no position: {message}"
                    );
                    assert_eq!(report["native"]["outcome"], "declined", "{what}");
                }
                verdict => {
                    let want = Verdict::parse(verdict).expect("safe, unsafe or declined");
                    assert_eq!(code, want.exit_code(), "{what}: {report}");
                    assert_eq!(report["engine"], "smc", "{what}");
                    let statistics = &report["native"]["statistics"];
                    assert!(
                        statistics["events"].as_u64() > Some(1),
                        "{what}: {statistics}"
                    );
                    let classes = statistics["reads_from_classes"].as_u64();
                    let searched = match statistics["search"].as_str() {
                        Some("rf-smc") => classes >= Some(1),
                        Some("explicit") => statistics["states"].as_u64() > Some(1),
                        _ => false,
                    };
                    assert!(searched, "{what}: {statistics}");
                    if want == Verdict::Unsafe {
                        assert_eq!(report["check"]["realisable"], true, "{what}");
                        assert!(
                            report["witness"]["steps"]
                                .as_array()
                                .is_some_and(|s| !s.is_empty())
                        );
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 15, "the examples table lists the examples");
}

/// The seqlock over doubles, natively: the report of a violation shows
/// the doubles as numbers, as the CBMC path's does (shared memory holds
/// their bits), and the fence its comment names makes it safe.
#[test]
fn the_native_seqlock_witness_shows_the_doubles() {
    let seqlock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/seqlock.c");
    let (code, stdout, stderr) =
        verify(&seqlock, &["--pso", "--engine", "smc", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}{stderr}");
    assert!(
        stdout.contains("x := 3.0 (buffered)") && stdout.contains("y := 1.5 (buffered)"),
        "{stdout}"
    );
    support::assert_torn_seqlock_witness(&stdout);
    let (code, report) = native(&seqlock, "pso");
    assert_eq!(code, 10);
    let values: Vec<&str> = report["witness"]["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|step| step["value"].as_str())
        .collect();
    assert!(
        values.contains(&"3.0") && values.contains(&"1.5"),
        "{values:?}"
    );
    let (code, stdout, stderr) = verify(&seqlock, &["--pso", "-D", "FENCED", "--engine", "smc"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

/// The test-and-set loop of `examples/spinlock.c` and the ticket lock's
/// wait of `tests/fixtures/verify/liveness_ticket_unlock.c` are waits:
/// at one loop iteration with unwinding assertions, every model is safe,
/// no bound is reached and no execution is cut off.
#[test]
fn spin_loops_need_no_unwinding() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let programs = [
        (root.join("examples/spinlock.c"), None),
        (
            root.join("tests/fixtures/verify/liveness_ticket_unlock.c"),
            Some("UNLOCK_COUNTER=serving"),
        ),
    ];
    for (file, define) in &programs {
        for model in ["sc", "tso", "pso"] {
            let flag = format!("--{model}");
            let mut arguments = vec![flag.as_str(), "--engine", "smc", "--format", "json"];
            arguments.extend(["--unwind", "1", "--unwinding-assertions"]);
            if let Some(define) = define {
                arguments.extend(["-D", define]);
            }
            let (code, stdout, _) = verify(file, &arguments);
            let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_default();
            let context = format!("{} --{model}\n{stdout}", file.display());
            assert_eq!(code, 0, "{context}");
            assert_eq!(
                report["spin_loops"].as_array().map(Vec::len),
                Some(1),
                "{context}"
            );
            let statistics = &report["native"]["statistics"];
            assert_eq!(statistics["blocked_executions"], 0, "{context}");
            assert!(
                statistics["complete_executions"].as_u64() > Some(0),
                "{context}"
            );
        }
    }
}
