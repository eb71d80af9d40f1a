//! The exit codes of `lazysma verify` when it cannot decide: a missing or
//! failing CBMC (2), the time limit (3), a counterexample that fails the
//! native check (4), bad input and option errors (1), and CBMC ending with
//! lazysma when it is killed, terminated or interrupted (with stand-in CBMC
//! executables that replay recorded output).

use crate::support;
use crate::verify_support;

use serde_json::Value;
use std::path::Path;
use support::{require_cbmc, verify};
use verify_support::{example, fake_cbmc, json};

#[test]
fn missing_cbmc_exits_2_with_the_install_hint() {
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &["--cbmc", "/nonexistent/cbmc"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("install-cbmc.sh"), "{stderr}");
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--cbmc", "/nonexistent/cbmc", "--format", "json"],
    );
    assert_eq!(code, 2);
    assert_eq!(json(&stdout)["verdict"], "backend-error");
}

#[test]
fn cbmc_failures_exit_2_with_its_stderr() {
    let directory = tempfile::tempdir().unwrap();
    let crashing = fake_cbmc(directory.path(), "echo 'solver exploded' >&2\nexit 6");
    let (code, _, stderr) = verify(
        &example("store_buffering.c"),
        &["--cbmc", crashing.to_str().unwrap()],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("solver exploded"), "{stderr}");
    let garbage = fake_cbmc(directory.path(), "echo '[{\"program\": '\nexit 0");
    let (code, _, _) = verify(
        &example("store_buffering.c"),
        &["--cbmc", garbage.to_str().unwrap()],
    );
    assert_eq!(code, 2);
}

#[test]
fn the_time_limit_exits_3() {
    let directory = tempfile::tempdir().unwrap();
    let slow = fake_cbmc(directory.path(), "sleep 20");
    let started = std::time::Instant::now();
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[
            "--cbmc",
            slow.to_str().unwrap(),
            "--timeout",
            "1",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 3);
    assert_eq!(json(&stdout)["verdict"], "timeout");
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}

/// `--timeout` bounds the whole command: the reachability run that
/// follows a safe verdict gets the time left, not a limit of its own.
#[test]
fn the_time_limit_counts_for_the_whole_command() {
    if !require_cbmc() {
        return;
    }
    let real = support::cbmc_path().expect("CBMC is installed");
    let directory = tempfile::tempdir().unwrap();
    // the verification run answers after 3 s; the reachability run would
    // take 30 s
    let slow = support::cbmc_script(
        directory.path(),
        &format!(
            "case \"$*\" in *reach.c*) exec sleep 30;; --*) ;; *) sleep 3;; esac\nexec '{}' \"$@\"\n",
            real.display()
        ),
    );
    let started = std::time::Instant::now();
    let (code, stdout, stderr) = verify(
        &example("store_buffering.c"),
        &[
            "--sc",
            "--sat-solver",
            "cbmc",
            "--cbmc",
            slow.to_str().unwrap(),
            "--timeout",
            "6",
            "--format",
            "json",
        ],
    );
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(code, 0, "{stdout}{stderr}");
    let report = json(&stdout);
    assert_eq!(report["reach"]["end_of_main"], Value::Null, "{stdout}");
    // 6 s in all, not 3 s and then 6 s more for the reachability run
    assert!(seconds < 8.5, "the command took {seconds} s");
}

/// `--timeout` bounds the native engine's questions to the SMT solvers
/// too: `hard_solver_question.c` asks the factors of a 62-bit number,
/// which takes each solver far longer, and the command still ends at its
/// limit with exit 3, its solver processes with it. Needs the solvers
/// (installed by `scripts/install-smt-solvers.sh`, as CI does).
#[test]
fn the_time_limit_ends_a_hard_solver_question() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify/hard_solver_question.c");
    let started = std::time::Instant::now();
    let (code, stdout, stderr) = verify(
        &file,
        &[
            "--sc",
            "--engine",
            "smc",
            "--timeout",
            "3",
            "--format",
            "json",
        ],
    );
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert_eq!(json(&stdout)["verdict"], "timeout");
    assert!(seconds < 8.0, "the command took {seconds} s");
}

/// Whether process `pid` is gone (or a zombie nobody has reaped yet).
#[cfg(target_os = "linux")]
fn process_ended(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Killing lazysma (a CI time limit, `kill -9`) takes CBMC with it.
#[cfg(target_os = "linux")]
#[test]
fn cbmc_ends_when_lazysma_is_killed() {
    let directory = tempfile::tempdir().unwrap();
    let pid_file = directory.path().join("cbmc.pid");
    let slow = fake_cbmc(
        directory.path(),
        &format!("echo $$ > '{}'\nexec sleep 60", pid_file.display()),
    );
    let mut child = support::lazysma()
        .arg("verify")
        .arg(example("store_buffering.c"))
        .args(["--engine", "cbmc", "--cbmc", slow.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && text.ends_with('\n')
        {
            break text.trim().to_string();
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the stand-in CBMC never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(!process_ended(&pid), "the stand-in CBMC runs");
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = std::time::Instant::now();
    while !process_ended(&pid) {
        assert!(
            killed.elapsed() < std::time::Duration::from_secs(10),
            "CBMC (pid {pid}) outlived lazysma"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// SIGTERM or SIGINT (a CI job's cancellation, Ctrl-C) while CBMC runs:
/// lazysma ends CBMC, removes its temporary directories, and then ends by
/// the same signal.
#[cfg(target_os = "linux")]
#[test]
fn temporary_files_go_and_cbmc_ends_when_lazysma_is_terminated_or_interrupted() {
    use std::os::unix::process::ExitStatusExt;
    use wait_timeout::ChildExt;
    for (name, number) in [("TERM", 15), ("INT", 2)] {
        let directory = tempfile::tempdir().unwrap();
        let temporary = directory.path().join("tmp");
        std::fs::create_dir(&temporary).unwrap();
        let pid_file = directory.path().join("cbmc.pid");
        let slow = fake_cbmc(
            directory.path(),
            &format!("echo $$ > '{}'\nexec sleep 60", pid_file.display()),
        );
        let mut command = support::lazysma();
        // A caller that ignores SIGINT (a background job of a shell without
        // job control, as CI may start this test) passes that on, and
        // lazysma keeps an ignored signal ignored: let it be delivered.
        // SAFETY: only signal(2), async-signal-safe, runs in the child.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command
            .arg("verify")
            .arg(example("store_buffering.c"))
            .args([
                "--sc",
                "--engine",
                "cbmc",
                "--sat-solver",
                "cbmc",
                "--cbmc",
                slow.to_str().unwrap(),
            ])
            .env("TMPDIR", &temporary)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let pid = loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && text.ends_with('\n')
            {
                break text.trim().to_string();
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(30),
                "the stand-in CBMC never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(
            std::fs::read_dir(&temporary).unwrap().next().is_some(),
            "lazysma's temporary directory is there while CBMC runs"
        );
        let sent = std::process::Command::new("kill")
            .args(["-s", name])
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
        let Some(status) = child
            .wait_timeout(std::time::Duration::from_secs(10))
            .unwrap()
        else {
            let _ = child.kill();
            panic!("lazysma did not end on SIG{name}");
        };
        assert_eq!(
            status.signal(),
            Some(number),
            "lazysma ends by SIG{name}: {status}"
        );
        assert!(
            process_ended(&pid),
            "CBMC (pid {pid}) outlived lazysma's SIG{name}"
        );
        let left: Vec<_> = std::fs::read_dir(&temporary)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "SIG{name} left {left:?} behind");
    }
}

#[test]
fn bad_input_exits_1() {
    let directory = tempfile::tempdir().unwrap();
    let broken = directory.path().join("broken.c");
    std::fs::write(&broken, "int main(void) { return 0 }\n").unwrap();
    let (code, stdout, _) = verify(&broken, &["--format", "json"]);
    assert_eq!(code, 1);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "bad-input");
    // the diagnostic as the text report shows it, not only its message
    let diagnostic = &report["diagnostic"];
    // the C compiler's own words (gcc -fsyntax-only runs beside the parser)
    assert_eq!(
        diagnostic["message"], "the C compiler rejects this program: expected ';' before '}' token",
        "{stdout}"
    );
    assert!(
        diagnostic["file"]
            .as_str()
            .is_some_and(|file| file.ends_with("broken.c")),
        "{stdout}"
    );
    assert_eq!(
        (&diagnostic["line"], &diagnostic["column"]),
        (&Value::from(1), &Value::from(26)),
        "{stdout}"
    );
    assert_eq!(
        diagnostic["label"], "gcc -fsyntax-only reports an error here",
        "{stdout}"
    );
    assert!(
        diagnostic["help"].as_str().is_some_and(
            |help| help.starts_with("lazysma translates only programs the C compiler accepts")
        ),
        "{stdout}"
    );
    // a construct lazysma refuses, and a line of --unwindset without a loop
    let recursive = directory.path().join("recursive.c");
    std::fs::write(
        &recursive,
        "int f(int k) {\n  return k > 0 ? f(k - 1) : 0;\n}\nint main(void) {\n  return f(2);\n}\n",
    )
    .unwrap();
    let (code, stdout, _) = verify(&recursive, &["--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(json(&stdout)["diagnostic"]["line"], 2, "{stdout}");
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &["--unwindset", "4:3", "--format", "json"],
    );
    assert_eq!(code, 1);
    let diagnostic = &json(&stdout)["diagnostic"];
    assert_eq!(
        (&diagnostic["line"], &diagnostic["column"]),
        (&Value::from(4), &Value::from(1)),
        "{stdout}"
    );
    assert!(diagnostic["help"].is_string(), "{stdout}");
}

/// docs/reports.md: one JSON document on stdout for every outcome, so also for an
/// option error (which clap or the options' own checks find), with `null`
/// for what was not parsed.
#[test]
fn an_option_error_is_one_json_document_too() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--bogus", "--format", "json"],
            "unexpected argument '--bogus'",
        ),
        (&["--format=json", "--rounds", "0"], "'--rounds <ROUNDS>'"),
        (
            &["--timeout", "0", "--format", "json"],
            "positive number of seconds",
        ),
        (
            &["--format", "json", "--sc", "--pso"],
            "cannot be used with",
        ),
        (
            &[
                "--format",
                "json",
                "--unwindset",
                "5:1",
                "--unwindset",
                "5:2",
            ],
            "two depths, 5:1 and 5:2",
        ),
    ];
    for (arguments, expected) in cases {
        let (code, stdout, stderr) = verify(&example("store_buffering.c"), arguments);
        assert_eq!(code, 1, "{arguments:?}: {stdout}{stderr}");
        assert!(stderr.is_empty(), "{arguments:?}: {stderr}");
        let report = json(&stdout);
        assert_eq!(report["verdict"], "bad-input", "{arguments:?}");
        assert_eq!(report["exit_code"], 1, "{arguments:?}");
        assert!(
            report["message"]
                .as_str()
                .is_some_and(|message| message.contains(expected)),
            "{arguments:?}: {stdout}"
        );
        assert_eq!(report["file"], Value::Null, "{arguments:?}");
        assert_eq!(report["diagnostic"], Value::Null, "{arguments:?}");
        assert_eq!(
            report["warnings"],
            Value::Array(Vec::new()),
            "{arguments:?}"
        );
    }
    // and one SARIF log, a failed invocation with the message
    for arguments in [
        &["--bogus", "--format", "sarif"][..],
        &["--format=sarif", "--unwindset", "5:1", "--unwindset", "5:2"],
    ] {
        let (code, stdout, stderr) = verify(&example("store_buffering.c"), arguments);
        assert_eq!(code, 1, "{arguments:?}: {stdout}{stderr}");
        assert!(stderr.is_empty(), "{arguments:?}: {stderr}");
        let run = &json(&stdout)["runs"][0];
        assert_eq!(
            run["invocations"][0]["executionSuccessful"], false,
            "{stdout}"
        );
        assert_eq!(
            run["properties"],
            serde_json::json!({ "verdict": "bad-input" }),
            "{stdout}"
        );
        let message =
            run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].as_str();
        assert!(
            message.is_some_and(
                |message| message.contains("--bogus") || message.contains("two depths")
            ),
            "{stdout}"
        );
    }
    // text mode keeps clap's message on stderr
    let (code, stdout, stderr) = verify(&example("store_buffering.c"), &["--bogus"]);
    assert_eq!(code, 1);
    assert!(
        stdout.is_empty() && stderr.contains("unexpected argument '--bogus'"),
        "{stdout}{stderr}"
    );
}

/// A TSO counterexample replayed as if CBMC had found it under SC: the SC
/// check must reject it loudly with exit 4, never blame the program.
#[test]
fn a_counterexample_failing_the_check_exits_4() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let sequential = directory.path().join("sb_tso.c");
    let (code, _, _) = verify(
        &example("store_buffering.c"),
        &[
            "--tso",
            "--keep",
            sequential.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10);
    let cbmc = support::cbmc_path().expect("CBMC");
    let recorded = std::process::Command::new(cbmc)
        .arg(&sequential)
        .args(["--json-ui", "--trace", "--no-unwinding-assertions"])
        .output()
        .unwrap();
    let output = directory.path().join("output.json");
    std::fs::write(&output, &recorded.stdout).unwrap();
    let replay = fake_cbmc(
        directory.path(),
        &format!("cat '{}'\nexit 10", output.display()),
    );
    let (code, _, stderr) = verify(
        &example("store_buffering.c"),
        &[
            "--sc",
            "--cbmc",
            replay.to_str().unwrap(),
            "--color",
            "never",
        ],
    );
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("INTERNAL ERROR"), "{stderr}");
    assert!(stderr.contains("not a bug in your program"), "{stderr}");
    let (code, stdout, _) = verify(
        &example("store_buffering.c"),
        &[
            "--sc",
            "--cbmc",
            replay.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 4);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "check-failed");
    assert_eq!(report["check"]["realisable"], false);
    assert!(report["check"]["reason"].is_string());
}
