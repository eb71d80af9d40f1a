//! The runs of `lazysma verify` beside the model's: an external SAT solver
//! beside CBMC's own, the run under SC that ends the TSO/PSO runs or is ended
//! by them, `--no-sc-run`, `--sma`, and `--keep`.

use crate::support;
use crate::verify_support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{require_cadical, require_cbmc, verify};
use verify_support::{THREE_PENDING, example, fake_cbmc, json, program};

#[test]
fn an_external_sat_solver_proves_safe_programs_and_keeps_confirmed_counterexamples() {
    if !require_cbmc() || !require_cadical() {
        return;
    }
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--tso", "--sat-solver", "cadical"],
    );
    assert_eq!(code, 10, "{stdout}");
    // CBMC's run decides it before CaDiCaL starts, and the report says so
    assert!(
        stdout.contains("(its own solver decided; cadical beside it)")
            && stdout.contains("native TSO check: confirmed"),
        "{stdout}"
    );
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--sc", "--sat-solver", "cadical", "--format", "json"],
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    assert_eq!(report["cbmc"]["sat_solver"], "cadical");
}

#[test]
fn a_solver_that_finds_a_failure_is_reported_when_cbmcs_run_gives_no_counterexample() {
    if !require_cbmc() || !require_cadical() {
        return;
    }
    let real = which::which("cbmc").expect("cbmc on PATH");
    let directory = tempfile::tempdir().expect("temporary directory");
    let wrapper = support::cbmc_killed_when_tracing(directory.path(), &real);
    let wrapper = wrapper.to_str().expect("a UTF-8 path");
    // CBMC's run dies; CaDiCaL alone proves the program safe under SC ...
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &["--sc", "--cbmc", wrapper, "--format", "json"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    assert_eq!(report["cbmc"]["formula_satisfiable"], false);
    assert_eq!(report["cbmc"]["decided_by"], "cadical");
    // ... and finds that the assertion can fail under TSO, which the report
    // says beside the failure, without a verdict it cannot check
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &["--tso", "--cbmc", wrapper, "--format", "json"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "backend-error");
    assert_eq!(report["cbmc"]["formula_satisfiable"], true);
    assert_eq!(report["cbmc"]["decided_by"], Value::Null, "no verdict");
    let message = report["message"].as_str().expect("a message");
    assert!(
        message.contains("cadical found that a property can fail"),
        "{message}"
    );
    let (code, stdout, stderr) =
        verify(&example("store_buffering.c"), &["--tso", "--cbmc", wrapper]);
    assert_eq!(code, 2, "{stdout}");
    let text = format!("{stdout}{stderr}");
    assert!(
        text.contains("cadical found that a property can fail"),
        "{text}"
    );
    // with CBMC's own solver alone nobody knows
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[
            "--tso",
            "--cbmc",
            wrapper,
            "--sat-solver",
            "cbmc",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 2, "{stdout}");
    assert_eq!(json(&stdout)["cbmc"]["formula_satisfiable"], Value::Null);
}

/// A writer's three stores read in turn by another thread: a bug under
/// SC, hence under TSO and PSO.
const READ_IN_TURN: &str = include_str!("../fixtures/programs/read_in_turn.c");

/// A stand-in CBMC that runs the real one on the program translated under
/// SC (the run beside TSO/PSO) when `sc_real`, on the other program
/// otherwise, and sleeps for a minute on the one it does not run.
fn cbmc_real_for_one_run(directory: &Path, sc_real: bool) -> PathBuf {
    let real = support::cbmc_path().expect("CBMC");
    let (sc, other) = if sc_real {
        ("exec \"$real\" \"$@\"", "exec sleep 60")
    } else {
        ("exec sleep 60", "exec \"$real\" \"$@\"")
    };
    fake_cbmc(
        directory,
        &format!(
            "real='{}'\ncase \"$1\" in\n  *sequential-sc.c) {sc};;\nesac\n{other}",
            real.display()
        ),
    )
}

#[test]
fn a_violation_under_sc_ends_the_tso_and_pso_runs() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let racy = program(&directory, "read_in_turn.c", READ_IN_TURN);
    // the TSO/PSO run never answers: only the run under SC can
    let sc_only = cbmc_real_for_one_run(directory.path(), true);
    for model in ["--tso", "--pso"] {
        let started = std::time::Instant::now();
        let (code, stdout, stderr) = verify(
            &racy,
            &[
                model,
                "--rounds",
                "4",
                "--cbmc",
                sc_only.to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert_eq!(code, 10, "{model}: {stdout}{stderr}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(40),
            "{model}: the TSO/PSO run was not stopped"
        );
        let report = json(&stdout);
        assert_eq!(report["verdict"], "violation", "{stdout}");
        assert_eq!(report["model"], &model[2..], "{stdout}");
        assert_eq!(report["found_under_sc"], true, "{stdout}");
        assert_eq!(report["check"]["model"], "sc", "{stdout}");
        assert_eq!(report["check"]["realisable"], true, "{stdout}");
        assert_eq!(
            report["cbmc"]["sat_solver"],
            Value::Null,
            "the SC run uses CBMC's own solver: {stdout}"
        );
        assert_eq!(report["diagnosis"]["sc_realisable"], true, "{stdout}");
        assert_eq!(report["property"]["line"], 5, "{stdout}");
    }
    let (code, stdout, _) = verify(
        &racy,
        &[
            "--tso",
            "--rounds",
            "4",
            "--cbmc",
            sc_only.to_str().unwrap(),
            "--color",
            "never",
        ],
    );
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains(
            "Found by the run under SC beside the TSO run: this bug needs no weak memory"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("Witness: an interleaving the native SC check confirms"),
        "{stdout}"
    );
    assert!(
        stdout.contains("read_in_turn.c (sc, beside etso), bounds:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "Diagnosis: a violation under sequential consistency, which no fence can prevent"
        ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("is possible under sequential consistency"),
        "{stdout}"
    );
    // under --sc too
    let (code, stdout, _) = verify(&racy, &["--sc", "--rounds", "4", "--color", "never"]);
    assert_eq!(code, 10, "{stdout}");
    assert!(
        stdout.contains(
            "Diagnosis: a violation under sequential consistency, which no fence can prevent"
        ),
        "{stdout}"
    );
}

#[test]
fn a_decided_tso_run_ends_the_run_under_sc() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    // the run under SC never answers: the TSO run decides alone
    let model_only = cbmc_real_for_one_run(directory.path(), false);
    let fenced = program(
        &directory,
        "fenced.c",
        &THREE_PENDING.replace("x = 3; r0", "x = 3; __sync_synchronize(); r0"),
    );
    for (file, expected) in [(example("store_buffering.c"), 10), (fenced, 0)] {
        let started = std::time::Instant::now();
        let (code, stdout, stderr) = verify(
            &file,
            &[
                "--tso",
                "--cbmc",
                model_only.to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert_eq!(code, expected, "{}: {stdout}{stderr}", file.display());
        assert!(
            started.elapsed() < std::time::Duration::from_secs(40),
            "{}: the run under SC was not stopped",
            file.display()
        );
        let report = json(&stdout);
        assert_eq!(report["found_under_sc"], false, "{stdout}");
        assert_eq!(report["check"]["model"], "tso", "{stdout}");
    }
}

#[test]
fn no_sc_run_and_sma_check_the_model_alone() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let racy = program(&directory, "read_in_turn.c", READ_IN_TURN);
    // without the run under SC the TSO run finds the bug itself
    for alone in [&["--no-sc-run"][..], &["--sma", "etso"][..]] {
        let mut arguments = vec!["--tso", "--rounds", "4", "--format", "json"];
        arguments.extend_from_slice(alone);
        let (code, stdout, stderr) = verify(&racy, &arguments);
        assert_eq!(code, 10, "{alone:?}: {stdout}{stderr}");
        let report = json(&stdout);
        assert_eq!(report["found_under_sc"], false, "{alone:?}: {stdout}");
        assert_eq!(report["check"]["model"], "tso", "{alone:?}: {stdout}");
        assert_eq!(report["check"]["realisable"], true, "{alone:?}: {stdout}");
    }
    // under SC there is nothing to run beside
    let (code, stdout, _) = verify(&racy, &["--sc", "--rounds", "4", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    assert_eq!(json(&stdout)["found_under_sc"], false, "{stdout}");
}

/// `--keep` keeps both programs of a TSO/PSO verification, each of which
/// CBMC finds the violation in, and the report names them; without the
/// run under SC it keeps one. A companion name that is the input file is
/// refused like the program's own, unless there is no run under SC.
#[test]
fn keep_keeps_the_program_of_the_run_under_sc_beside_the_model_one() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let racy = program(&directory, "read_in_turn.c", READ_IN_TURN);
    let kept = directory.path().join("seq.c");
    let sc_kept = directory.path().join("seq.sc.c");
    let (code, stdout, stderr) = verify(
        &racy,
        &[
            "--tso",
            "--rounds",
            "4",
            "--keep",
            kept.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(
        report["kept"]["program"],
        kept.display().to_string(),
        "{stdout}"
    );
    assert_eq!(
        report["kept"]["sc_program"],
        sc_kept.display().to_string(),
        "{stdout}"
    );
    let cbmc = support::cbmc_path().expect("CBMC");
    for (file, sma) in [(&kept, "etso"), (&sc_kept, "sc")] {
        let text = std::fs::read_to_string(file).expect("kept program");
        assert!(
            text.contains(&format!("shared memory abstraction: {sma}\n")),
            "{}",
            file.display()
        );
        let status = std::process::Command::new(&cbmc)
            .arg(file)
            .output()
            .expect("CBMC runs")
            .status;
        assert_eq!(status.code(), Some(10), "cbmc {}", file.display());
    }
    let (code, stdout, _) = verify(
        &racy,
        &[
            "--tso",
            "--color",
            "never",
            "--rounds",
            "4",
            "--keep",
            kept.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 10);
    assert!(
        stdout.contains(&format!(
            "kept: {}; the run under SC's: {}",
            kept.display(),
            sc_kept.display()
        )),
        "{stdout}"
    );

    let alone = directory.path().join("alone.c");
    let (code, stdout, _) = verify(
        &racy,
        &[
            "--tso",
            "--rounds",
            "4",
            "--no-sc-run",
            "--keep",
            alone.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10);
    assert_eq!(json(&stdout)["kept"]["sc_program"], Value::Null, "{stdout}");
    assert!(alone.exists() && !directory.path().join("alone.sc.c").exists());

    let input = program(&directory, "input.sc.c", READ_IN_TURN);
    let (code, stdout, _) = verify(
        &input,
        &[
            "--tso",
            "--keep",
            directory.path().join("input.c").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(
        json(&stdout)["message"]
            .as_str()
            .unwrap_or("")
            .contains("is the input file"),
        "{stdout}"
    );
    // without the run under SC there is no companion to refuse
    let (code, stdout, _) = verify(
        &input,
        &[
            "--tso",
            "--rounds",
            "4",
            "--no-sc-run",
            "--keep",
            directory.path().join("input.c").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&input).expect("input"),
        READ_IN_TURN
    );
}

/// CBMC checks lazysma's own `.c` file, whatever `--keep` names (CBMC
/// refuses a name without `.c`); the kept copies are the programs checked.
#[test]
fn keep_copies_the_programs_to_any_name_and_cbmc_checks_its_own_file() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let kept = directory.path().join("kept.txt");
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &[
            "--tso",
            "--keep",
            kept.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}{stderr}");
    let report = json(&stdout);
    let sc_kept = directory.path().join("kept.txt.sc.c");
    assert_eq!(
        report["kept"]["program"],
        kept.display().to_string(),
        "{stdout}"
    );
    assert_eq!(
        report["kept"]["sc_program"],
        sc_kept.display().to_string(),
        "{stdout}"
    );
    assert!(
        std::fs::read_to_string(&kept)
            .expect("kept")
            .contains("shared memory abstraction: etso\n")
    );
    assert!(
        std::fs::read_to_string(&sc_kept)
            .expect("kept under SC")
            .contains("shared memory abstraction: sc\n")
    );
}

/// `--keep` in a missing directory fails as `translate -o` does: exit 2,
/// the path the user gave, no temporary file's name.
#[test]
fn a_keep_path_that_cannot_be_written_is_an_environment_failure_like_an_output() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let kept = directory.path().join("nodir").join("k.c");
    let arguments = [
        "--cbmc",
        "/nonexistent/cbmc",
        "--keep",
        kept.to_str().unwrap(),
    ];
    let (code, stdout, stderr) = verify(&example("store_buffering.c"), &arguments);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: cannot write {}: No such file or directory (os error 2)\n",
            kept.display()
        )
    );
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[&arguments[..], &["--format", "json"]].concat(),
    );
    assert_eq!(code, 2);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "backend-error");
    assert_eq!(
        report["message"],
        format!(
            "cannot write {}: No such file or directory (os error 2)",
            kept.display()
        )
    );
}
