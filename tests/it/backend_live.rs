//! Runs the real CBMC on tiny C programs. Without CBMC these tests print a
//! skip message, except under `CI=true`, where a missing CBMC is a failure.

use crate::support;

use lazysma::backend::{
    BackendError, Cbmc, CbmcSource, Hold, Outcome, PROVER_DELAY, Progress, ProverAnswer,
    RunOptions, SatSolver, StepKind, VERDICT_ONLY_DEFINE,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn cbmc_or_skip(test: &str) -> Option<Cbmc> {
    match Cbmc::locate(None) {
        Ok(cbmc) => Some(cbmc),
        Err(error) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("CBMC is required under CI=true: {error}")
        }
        Err(error) => {
            eprintln!("skipping {test}: {error}");
            None
        }
    }
}

fn fixture(name: &str) -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "backend",
        name,
    ]
    .iter()
    .collect()
}

fn write_program(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write test program");
    path
}

#[test]
fn version_is_detected_and_recent() {
    let Some(cbmc) = cbmc_or_skip("version_is_detected_and_recent") else {
        return;
    };
    assert!(
        cbmc.version >= lazysma::backend::MIN_VERSION,
        "{}",
        cbmc.version
    );
    assert!(
        cbmc.version_text
            .contains(&format!("{}.{}", cbmc.version.major, cbmc.version.minor))
    );
    assert!(cbmc.lists_option("--json-ui"));
    assert!(cbmc.lists_option("--trace"));
    assert!(!cbmc.lists_option("--json"));
}

#[test]
fn explicit_path_is_used_and_a_wrong_one_is_a_typed_error() {
    let Some(found) = cbmc_or_skip("explicit_path_is_used") else {
        return;
    };
    let explicit = Cbmc::locate(Some(&found.path)).expect("explicit CBMC");
    assert_eq!(explicit.source, CbmcSource::CommandLine);
    assert_eq!(explicit.version, found.version);
    let missing = Cbmc::locate(Some(Path::new("/nonexistent/cbmc"))).expect_err("missing CBMC");
    assert!(matches!(missing, BackendError::NotExecutable { .. }));
    let not_cbmc = Cbmc::locate(Some(Path::new("true"))).expect_err("`true` is not CBMC");
    assert!(
        matches!(not_cbmc, BackendError::VersionUnreadable { .. }),
        "{not_cbmc}"
    );
}

#[test]
fn safe_program_is_safe() {
    let Some(cbmc) = cbmc_or_skip("safe_program_is_safe") else {
        return;
    };
    let run = cbmc
        .run(&fixture("safe.c"), &RunOptions::default(), None)
        .expect("CBMC runs");
    assert_eq!(run.outcome, Outcome::Safe, "{:?}", run.stderr_tail);
    assert_eq!(run.exit_code, Some(0));
    let output = run.output.expect("parsed output");
    assert_eq!(output.properties.map(|p| p.len()), Some(1));
    assert!(
        run.command_line
            .iter()
            .any(|a| a == "--no-unwinding-assertions")
    );
}

#[test]
fn failing_assertion_yields_trace_with_assigned_values() {
    let Some(cbmc) = cbmc_or_skip("failing_assertion") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let program = write_program(
        dir.path(),
        "race.c",
        "int x, y;\nint main(void) {\n  x = 41;\n  y = x + 1;\n  x = y * 2;\n  __CPROVER_assert(x != 84, \"x is not 84\");\n  return 0;\n}\n",
    );
    let run = cbmc
        .run(&program, &RunOptions::default(), None)
        .expect("CBMC runs");
    assert_eq!(run.exit_code, Some(10));
    let Outcome::Violated { property, trace } = &run.outcome else {
        panic!("expected a violation, got {:?}", run.outcome)
    };
    assert_eq!(property.id, "main.assertion.1");
    assert_eq!(property.description, "x is not 84");
    assert_eq!(property.location.as_ref().and_then(|l| l.line), Some(6));
    let assigned: Vec<(String, Option<i128>)> = trace
        .visible_steps()
        .filter(|s| s.kind == StepKind::Assignment)
        .filter_map(|s| Some((s.lhs.clone()?, s.value.as_ref()?.integer)))
        .collect();
    let expected = [("x", 41), ("y", 42), ("x", 84)].map(|(l, v)| (l.to_string(), Some(v)));
    assert_eq!(assigned, expected.to_vec());
    assert_eq!(
        trace.steps.last().map(|s| &s.kind),
        Some(&StepKind::Failure)
    );
}

#[test]
fn syntax_error_is_a_tool_error() {
    let Some(cbmc) = cbmc_or_skip("syntax_error_is_a_tool_error") else {
        return;
    };
    let run = cbmc
        .run(&fixture("parse_error.c"), &RunOptions::default(), None)
        .expect("CBMC runs");
    match &run.outcome {
        Outcome::ToolError {
            exit_code, message, ..
        } => {
            assert!(matches!(exit_code, Some(2) | Some(6)), "{exit_code:?}");
            assert!(message.contains("syntax error"), "{message}");
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[test]
fn unknown_option_is_a_tool_error() {
    let Some(cbmc) = cbmc_or_skip("unknown_option_is_a_tool_error") else {
        return;
    };
    let options = RunOptions {
        extra_args: vec!["--no-such-option".into()],
        ..RunOptions::default()
    };
    let run = cbmc
        .run(&fixture("safe.c"), &options, None)
        .expect("CBMC runs");
    match &run.outcome {
        Outcome::ToolError { message, .. } => {
            assert!(message.contains("--no-such-option"), "{message}")
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[test]
fn hard_program_times_out_within_the_limit() {
    let Some(cbmc) = cbmc_or_skip("hard_program_times_out") else {
        return;
    };
    let limit = Duration::from_secs(1);
    let options = RunOptions {
        timeout: Some(limit),
        unwind: Some(41),
        ..RunOptions::default()
    };
    let mut reports: Vec<Progress> = Vec::new();
    let mut record = |progress: Progress| reports.push(progress);
    let run = cbmc
        .run(&fixture("hard.c"), &options, Some(&mut record))
        .expect("CBMC runs");
    assert_eq!(run.outcome, Outcome::Timeout { limit: Some(limit) });
    assert!(run.elapsed >= limit, "{:?}", run.elapsed);
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    assert!(!reports.is_empty(), "no progress report");
    assert!(
        reports
            .windows(2)
            .all(|w| w[0].elapsed <= w[1].elapsed && w[0].phase as u8 <= w[1].phase as u8)
    );
    assert!(reports.iter().all(|p| p.elapsed <= run.elapsed));
}

#[test]
fn large_trace_is_drained_and_parsed() {
    let Some(cbmc) = cbmc_or_skip("large_trace_is_drained_and_parsed") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut body = String::from("int g[64];\nint main(void) {\n");
    for i in 0..1500 {
        body.push_str(&format!("  g[{}] = {};\n", i % 64, i));
    }
    body.push_str("  __CPROVER_assert(g[3] != 1475, \"last write to g[3]\");\n  return 0;\n}\n");
    let program = write_program(dir.path(), "big.c", &body);
    let options = RunOptions {
        timeout: Some(Duration::from_secs(120)),
        ..RunOptions::default()
    };
    let run = cbmc.run(&program, &options, None).expect("CBMC runs");
    let Outcome::Violated { trace, .. } = &run.outcome else {
        panic!("expected a violation, got {:?}", run.outcome)
    };
    assert!(trace.steps.len() > 1500, "{} steps", trace.steps.len());
    assert_eq!(
        trace.last_value_of("g[3l]").and_then(|v| v.integer),
        Some(1475)
    );
}

#[test]
fn sat_solver_option_follows_the_cbmc_version() {
    let Some(cbmc) = cbmc_or_skip("sat_solver_option_follows_the_cbmc_version") else {
        return;
    };
    let options = RunOptions {
        sat_solver: Some(SatSolver::External("cadical".into())),
        ..RunOptions::default()
    };
    if cbmc.accepts_external_sat_solver() {
        let args = cbmc
            .arguments(Path::new("a.c"), &options)
            .expect("accepted");
        assert!(args.iter().any(|a| a == "--external-sat-solver"));
        if which::which("cadical").is_ok() {
            let run = cbmc
                .run(&fixture("fail.c"), &options, None)
                .expect("CBMC runs");
            let Outcome::Violated { trace, .. } = &run.outcome else {
                panic!("expected a violation: {:?}", run.outcome)
            };
            assert_eq!(trace.last_value_of("y").and_then(|v| v.integer), Some(8));
        }
    } else {
        let error = cbmc
            .arguments(Path::new("a.c"), &options)
            .expect_err("rejected");
        assert!(
            matches!(error, BackendError::UnsupportedOption { .. }),
            "{error}"
        );
        let unknown = SatSolver::choose("no-such-solver", &cbmc);
        assert!(unknown.is_err() || cbmc.accepts_sat_solver(), "{unknown:?}");
    }
    let standard = cbmc
        .arguments(Path::new("a.c"), &RunOptions::default())
        .expect("default arguments");
    assert_eq!(
        standard.iter().any(|a| a == "--no-standard-checks"),
        cbmc.version.major >= 6
    );
}

/// CaDiCaL, which scripts/install-cbmc.sh installs: required under CI=true.
fn cadical_or_skip(test: &str) -> Option<&'static str> {
    match which::which("cadical") {
        Ok(_) => Some("cadical"),
        Err(error) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!(
                "cadical is required under CI=true (scripts/install-cbmc.sh installs it): {error}"
            )
        }
        Err(error) => {
            eprintln!("skipping {test}: cadical: {error}");
            None
        }
    }
}

/// The real CBMC and the options of a portfolio with cadical beside CBMC's
/// own solver (120 s), for the tests of the portfolio itself; `None` when
/// either is missing (a failure under CI=true) or CBMC calls the solver
/// itself, so that there is no portfolio.
fn portfolio_or_skip(test: &str) -> Option<(Cbmc, RunOptions)> {
    let real = cbmc_or_skip(test)?;
    let solver = cadical_or_skip(test)?;
    if real.accepts_external_sat_solver() {
        return None;
    }
    let options = RunOptions {
        timeout: Some(Duration::from_secs(120)),
        sat_solver: Some(SatSolver::Dimacs(solver.to_string())),
        ..RunOptions::default()
    };
    Some((real, options))
}

#[test]
fn dimacs_prover_proves_exactly_the_programs_whose_properties_hold() {
    let Some(cbmc) = cbmc_or_skip("dimacs_prover") else {
        return;
    };
    let Some(solver) = cadical_or_skip("dimacs_prover") else {
        return;
    };
    let options = RunOptions {
        timeout: Some(Duration::from_secs(120)),
        ..RunOptions::default()
    };
    let proves = |file: &Path| {
        cbmc.prove_with_dimacs_solver(file, solver, &options)
            .expect("the prover runs")
    };
    // decided by the solver (one property remains after simplification)
    assert!(proves(&fixture("safe_arithmetic.c")));
    // decided by CBMC's simplifier: the formula it writes has no property
    // and is satisfiable, which must not count against the program
    assert!(proves(&fixture("safe.c")));
    assert!(!proves(&fixture("fail.c")));
    let dir = tempfile::tempdir().expect("temporary directory");
    let always = write_program(
        dir.path(),
        "always.c",
        "int main(void) { __CPROVER_assert(0, \"never\"); return 0; }\n",
    );
    assert!(!proves(&always));
}

#[test]
fn dimacs_portfolio_proves_safe_programs_and_keeps_cbmcs_counterexamples() {
    let Some(cbmc) = cbmc_or_skip("dimacs_portfolio") else {
        return;
    };
    let Some(solver) = cadical_or_skip("dimacs_portfolio") else {
        return;
    };
    let chosen = SatSolver::choose(solver, &cbmc)
        .expect("cadical is usable")
        .expect("a solver beside CBMC's");
    let auto = SatSolver::choose("auto", &cbmc).expect("auto is always usable");
    assert_eq!(
        auto,
        Some(SatSolver::Dimacs(solver.to_string())),
        "auto: cadical beside CBMC's own"
    );
    assert_eq!(
        SatSolver::choose("cbmc", &cbmc).expect("cbmc is always usable"),
        None
    );
    if cbmc.accepts_external_sat_solver() {
        assert_eq!(chosen, SatSolver::External(solver.to_string()));
        return;
    }
    assert_eq!(chosen, SatSolver::Dimacs(solver.to_string()));
    let options = RunOptions {
        timeout: Some(Duration::from_secs(120)),
        sat_solver: Some(chosen),
        ..RunOptions::default()
    };
    let run = cbmc
        .run(&fixture("safe_arithmetic.c"), &options, None)
        .expect("the portfolio runs");
    assert_eq!(run.outcome, Outcome::Safe, "{}", run.stderr_tail);
    let run = cbmc
        .run(&fixture("fail.c"), &options, None)
        .expect("the portfolio runs");
    let Outcome::Violated { trace, .. } = &run.outcome else {
        panic!("expected a violation: {:?}", run.outcome)
    };
    assert_eq!(trace.last_value_of("y").and_then(|v| v.integer), Some(8));
    // a hold stops the prover only: CBMC's run still decides both
    let hold = Arc::new(Hold::default());
    hold.request(true);
    let held = RunOptions {
        hold: Some(hold),
        ..options
    };
    let run = cbmc
        .run(&fixture("safe_arithmetic.c"), &held, None)
        .expect("the portfolio runs");
    assert_eq!(
        (&run.outcome, run.decided_by_prover),
        (&Outcome::Safe, false),
        "CBMC's own run proves it"
    );
    assert_ne!(
        run.prover,
        Some(ProverAnswer::Proved),
        "the held prover proved nothing"
    );
    let run = cbmc
        .run(&fixture("fail.c"), &held, None)
        .expect("the portfolio runs");
    assert!(
        matches!(run.outcome, Outcome::Violated { .. }),
        "{:?}",
        run.outcome
    );
}

#[test]
fn dimacs_prover_starts_only_when_cbmcs_run_takes_longer_than_the_delay() {
    let Some((real, options)) = portfolio_or_skip("dimacs_prover_delay") else {
        return;
    };
    // a program that CBMC's run decides at once never starts the prover
    let dir = tempfile::tempdir().expect("temporary directory");
    let log = dir.path().join("calls.log");
    let logging = Cbmc::locate(Some(&support::cbmc_logging_calls(
        dir.path(),
        &real.path,
        &log,
    )))
    .expect("the wrapper answers as CBMC");
    let run = logging
        .run(&fixture("safe_arithmetic.c"), &options, None)
        .expect("the portfolio runs");
    assert_eq!(run.outcome, Outcome::Safe, "{}", run.stderr_tail);
    assert!(
        run.elapsed < PROVER_DELAY,
        "CBMC's run took {:?}, longer than the delay this test is about",
        run.elapsed
    );
    let calls = std::fs::read_to_string(&log).expect("the wrapper logs its calls");
    assert!(calls.contains("--trace"), "CBMC's own run ran: {calls}");
    assert!(!calls.contains("--dimacs"), "the prover started: {calls}");
    assert_eq!(
        (run.prover, run.decided_by_prover),
        (Some(ProverAnswer::NotStarted), false)
    );
    // when CBMC's run is slow, the prover starts after the delay and decides
    let dir = tempfile::tempdir().expect("temporary directory");
    let slow = Cbmc::locate(Some(&support::cbmc_slow_when_tracing(
        dir.path(),
        &real.path,
        60,
    )))
    .expect("the wrapper answers as CBMC");
    let run = slow
        .run(&fixture("safe_arithmetic.c"), &options, None)
        .expect("the portfolio runs");
    assert_eq!(
        (&run.outcome, run.prover),
        (&Outcome::Safe, Some(ProverAnswer::Proved)),
        "{}",
        run.stderr_tail
    );
    assert!(run.decided_by_prover, "the prover's verdict");
    assert!(
        run.elapsed >= PROVER_DELAY,
        "the prover started before the delay: {:?}",
        run.elapsed
    );
    assert!(
        run.elapsed < Duration::from_secs(50),
        "the prover did not decide: {:?}",
        run.elapsed
    );
    // it needs no trace, so its formula is sliced to the properties
    assert!(
        run.command_line
            .iter()
            .any(|argument| argument == "--slice-formula"),
        "{:?}",
        run.command_line
    );
    assert!(
        run.command_line
            .iter()
            .any(|argument| argument == VERDICT_ONLY_DEFINE),
        "{:?}",
        run.command_line
    );
}

#[test]
fn dimacs_prover_goes_on_when_cbmcs_run_ends_without_a_verdict() {
    let Some((real, options)) = portfolio_or_skip("dimacs_prover_goes_on") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let wrapper = support::cbmc_killed_when_tracing(dir.path(), &real.path);
    let cbmc = Cbmc::locate(Some(&wrapper)).expect("the wrapper answers as CBMC");
    // the solver alone proves the safe program
    let run = cbmc
        .run(&fixture("safe_arithmetic.c"), &options, None)
        .expect("the portfolio runs");
    assert_eq!(run.outcome, Outcome::Safe, "{}", run.stderr_tail);
    assert_eq!(run.prover, Some(ProverAnswer::Proved));
    // on the failing one it can only say that a property can fail: the
    // run stays a failure, with the solver's answer beside it
    let run = cbmc
        .run(&fixture("fail.c"), &options, None)
        .expect("the portfolio runs");
    assert!(
        matches!(run.outcome, Outcome::OutOfMemory { .. }),
        "{:?}",
        run.outcome
    );
    assert_eq!(run.prover, Some(ProverAnswer::Refuted));
    // a prover held for another run that never ends is let go when CBMC's
    // run ends without a verdict
    let hold = Arc::new(Hold::default());
    hold.request(true);
    let held = RunOptions {
        hold: Some(hold),
        timeout: Some(Duration::from_secs(60)),
        ..options.clone()
    };
    let run = cbmc
        .run(&fixture("safe_arithmetic.c"), &held, None)
        .expect("the portfolio runs");
    assert_eq!(
        (&run.outcome, run.prover),
        (&Outcome::Safe, Some(ProverAnswer::Proved)),
        "{}",
        run.stderr_tail
    );
    // CBMC's own solver alone has nothing beside it
    let alone = RunOptions {
        sat_solver: None,
        ..options
    };
    let run = cbmc
        .run(&fixture("safe_arithmetic.c"), &alone, None)
        .expect("CBMC runs");
    assert!(
        matches!(run.outcome, Outcome::OutOfMemory { .. }),
        "{:?}",
        run.outcome
    );
    assert_eq!(run.prover, None);
}

#[test]
fn memory_limit_leads_to_out_of_memory() {
    let Some(cbmc) = cbmc_or_skip("memory_limit_leads_to_out_of_memory") else {
        return;
    };
    let options = RunOptions {
        timeout: Some(Duration::from_secs(60)),
        unwind: Some(41),
        memory_limit: Some(160 * 1024 * 1024),
        ..RunOptions::default()
    };
    let run = cbmc
        .run(&fixture("hard.c"), &options, None)
        .expect("CBMC runs");
    assert!(
        matches!(run.outcome, Outcome::OutOfMemory { .. }),
        "{:?}",
        run.outcome
    );
}
