//! The command line contract: exit codes, diagnostics with line and column,
//! atomic output that never overwrites the input, `FILE` without subcommand.

use crate::support;

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;
use support::corpus_dir;

fn lazysma() -> Command {
    Command::cargo_bin("lazysma").expect("the binary is built")
}

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn write_file(directory: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = directory.join(name);
    std::fs::write(&path, text).expect("temporary file is writable");
    path
}

#[test]
fn translate_writes_c_to_stdout_without_subcommand() {
    lazysma()
        .arg(example("store_buffering.c"))
        .arg("--sc")
        .assert()
        .success()
        .stdout(predicate::str::contains("sma_read").and(predicate::str::contains("main")));
}

#[test]
fn syntax_error_is_bad_input_with_line_and_column() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = write_file(
        directory.path(),
        "broken.c",
        "int x;\nint main(void) {\n  x = = 1;\n  return 0;\n}\n",
    );
    lazysma()
        .arg("translate")
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("broken.c:3:"));
}

#[test]
fn recursion_is_refused_with_its_location() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let source = "int n;\nint f(int k) {\n  if (k > 0) return f(k - 1);\n  return n;\n}\nint main(void) {\n  return f(2);\n}\n";
    let file = write_file(directory.path(), "recursive.c", source);
    lazysma()
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("recursi").and(predicate::str::contains("recursive.c:")));
}

/// `lazysma FILE --unwind N -o OUTPUT`, asserted to succeed.
fn translate_at_unwind(file: &Path, output: &Path, unwind: &str) -> assert_cmd::assert::Assert {
    lazysma()
        .arg(file)
        .args(["--unwind", unwind, "-o"])
        .arg(output)
        .assert()
        .success()
}

/// A program whose threads are created after a loop of 5 iterations.
const INIT_LOOP_THEN_THREAD: &str = "#include <pthread.h>\n#include <assert.h>\nint table[5];\nint x;\n\
void *worker(void *arg) {\n  x = 1;\n  return 0;\n}\n\
int main(void) {\n  pthread_t t;\n  int i;\n  for (i = 0; i < 5; i++)\n    table[i] = i;\n\
  pthread_create(&t, 0, worker, 0);\n  assert(x == 0);\n  return 0;\n}\n";

#[test]
fn a_loop_bound_that_cuts_every_execution_is_a_warning_and_its_code_is_dropped() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = write_file(directory.path(), "init.c", INIT_LOOP_THEN_THREAD);
    let output = directory.path().join("seq.c");
    // --unwind 2: no execution leaves the loop; the thread is never created
    translate_at_unwind(&file, &output, "2").stderr(
        predicate::str::contains(
            "warning: no execution gets past this loop within its unwinding bound of 2",
        )
        .and(predicate::str::contains("init.c:12:3"))
        .and(predicate::str::contains(
            "nothing from line 14 (`pthread_create(&t, 0, worker, 0);`) on is checked",
        )),
    );
    let sequential = std::fs::read_to_string(&output).expect("the output is written");
    assert!(
        sequential.contains("#define SMA_THREADS 1\n"),
        "no thread is created"
    );
    assert!(
        sequential.contains(
            "init.c:12: warning: no execution gets past this loop within its unwinding bound of 2\n"
        ),
        "the warning is in the output's header too"
    );
    // --unwind 6: the loop ends within the bound; no warning, two threads
    translate_at_unwind(&file, &output, "6").stderr(predicate::str::is_empty());
    let sequential = std::fs::read_to_string(&output).expect("the output is written");
    assert!(
        sequential.contains("#define SMA_THREADS 2\n"),
        "the worker is created"
    );
}

#[test]
fn a_thread_that_a_loop_bound_keeps_from_ending_is_a_warning_when_threads_are_joined() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let source = "#include <pthread.h>\n#include <assert.h>\nint x;\nvoid *t(void *arg) {\n  int i = 0;\n  while (i < 3) {\n\
    x = x + 1;\n    i++;\n  }\n  return 0;\n}\nint main(void) {\n  pthread_t a;\n  pthread_create(&a, 0, t, 0);\n\
  pthread_join(a, 0);\n  assert(x <= 3);\n  return 0;\n}\n";
    let file = write_file(directory.path(), "join.c", source);
    let output = directory.path().join("seq.c");
    translate_at_unwind(&file, &output, "2").stderr(predicate::str::contains("join.c:6:3").and(
        predicate::str::contains(
            "the thread never ends, so nothing after a pthread_join on it is checked",
        ),
    ));
    translate_at_unwind(&file, &output, "3").stderr(predicate::str::is_empty());
    // without a join, a thread that never ends hides nothing
    let file = write_file(
        directory.path(),
        "nojoin.c",
        &source.replace("pthread_join(a, 0);\n", ""),
    );
    translate_at_unwind(&file, &output, "2").stderr(predicate::str::is_empty());
}

/// Translates `file` to `output` at `--unwind 2 --unwindset ENTRY`, which
/// must succeed without a warning; the sequential program.
fn translated_without_warnings_at_unwindset(file: &Path, output: &Path, entry: &str) -> String {
    lazysma()
        .arg(file)
        .args(["--unwind", "2", "--unwindset", entry, "-o"])
        .arg(output)
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    std::fs::read_to_string(output).expect("the output is written")
}

#[test]
fn unwindset_gives_a_loop_its_own_depth_and_refuses_a_line_without_one() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = write_file(directory.path(), "init.c", INIT_LOOP_THEN_THREAD);
    let output = directory.path().join("seq.c");
    // the loop of line 12 runs 5 times: 5 copies reach the thread creation,
    // at --unwind 2 for every other loop
    let sequential = translated_without_warnings_at_unwindset(&file, &output, "12:5");
    assert!(
        sequential.contains("#define SMA_THREADS 2\n"),
        "the worker is created"
    );
    assert!(
        sequential.contains("unwind 2 (line 12: 5)"),
        "the header names the loop's own depth"
    );
    // 4 copies are one short: the warning names the loop's own bound and line
    lazysma()
        .arg(&file)
        .args(["--unwindset", "12:4", "-o"])
        .arg(&output)
        .assert()
        .success()
        .stderr(
            predicate::str::contains("within its unwinding bound of 4")
                .and(predicate::str::contains("--unwindset 12:N")),
        );
    // line 13 holds no loop: bad input, with the lines that do
    lazysma()
        .arg(&file)
        .args(["--unwindset", "13:5", "-o"])
        .arg(&output)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("--unwindset names line 13, where no loop starts")
                .and(predicate::str::contains("init.c:13:1"))
                .and(predicate::str::contains("loops start on line 12")),
        );
    for malformed in ["12", "12:x", "0:3", "12:5,oops"] {
        lazysma()
            .arg(&file)
            .args(["--unwindset", malformed])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("--unwindset"));
    }
}

#[test]
fn two_depths_for_one_loop_are_an_error_that_names_both() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = write_file(directory.path(), "init.c", INIT_LOOP_THEN_THREAD);
    let output = directory.path().join("seq.c");
    for command in [
        &["translate"][..],
        &["verify", "--cbmc", "/nonexistent/cbmc"],
    ] {
        for conflict in [
            &["--unwindset", "12:5", "--unwindset", "12:4"][..],
            &["--unwindset", "12:5,12:4"],
        ] {
            lazysma()
                .args(command)
                .arg(&file)
                .args(conflict)
                .assert()
                .code(1)
                .stderr("error: --unwindset gives the loop of line 12 two depths, 12:5 and 12:4; give it one\n");
        }
    }
    assert!(!output.exists());
    // the same depth twice is no conflict
    let sequential = translated_without_warnings_at_unwindset(&file, &output, "12:5,12:5");
    assert!(
        sequential.contains("unwind 2 (line 12: 5)"),
        "the loop's own depth"
    );
}

#[test]
fn a_time_limit_of_zero_seconds_is_a_bad_option() {
    for limit in ["0", "soon"] {
        lazysma()
            .args(["verify"])
            .arg(example("store_buffering.c"))
            .args(["--cbmc", "/nonexistent/cbmc", "--timeout", limit])
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains("'--timeout <S>'")
                    .and(predicate::str::contains("positive number of seconds")),
            );
    }
}

#[test]
fn unwindset_names_loops_of_included_files_by_file_and_line() {
    let directory = tempfile::tempdir().expect("temporary directory");
    // the initialising loop lives in a header, on its line 3
    write_file(
        directory.path(),
        "table.h",
        "static void fill(int *table) {\n  int i;\n  for (i = 0; i < 5; i++)\n    table[i] = i;\n}\n",
    );
    let source = INIT_LOOP_THEN_THREAD
        .replace("int x;\n", "int x;\n#include \"table.h\"\n")
        .replace(
            "  for (i = 0; i < 5; i++)\n    table[i] = i;\n",
            "  fill(table);\n",
        );
    let file = write_file(directory.path(), "main.c", &source);
    let output = directory.path().join("seq.c");
    // at --unwind 2 the header's loop cuts every execution; the warning
    // names it as --unwindset takes it
    lazysma()
        .arg(&file)
        .args(["--unwind", "2", "-o"])
        .arg(&output)
        .assert()
        .success()
        .stderr(
            predicate::str::contains("table.h:3:3")
                .and(predicate::str::contains("--unwindset table.h:3:N")),
        );
    // FILE:LINE:N gives it its own depth: the thread is created
    let sequential = translated_without_warnings_at_unwindset(&file, &output, "table.h:3:5");
    assert!(
        sequential.contains("#define SMA_THREADS 2\n"),
        "the worker is created"
    );
    assert!(
        sequential.contains("unwind 2 (table.h line 3: 5)"),
        "the header names the loop's own depth"
    );
    // line 3 of the input file is not line 3 of the header
    lazysma()
        .arg(&file)
        .args(["--unwindset", "3:5", "-o"])
        .arg(&output)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("--unwindset names line 3, where no loop starts")
                .and(predicate::str::contains("no loop starts in this file")),
        );
    // a line of the header without a loop: the lines with one
    lazysma()
        .arg(&file)
        .args(["--unwindset", "table.h:4:5", "-o"])
        .arg(&output)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("--unwindset names table.h line 4, where no loop starts")
                .and(predicate::str::contains("table.h:4:1"))
                .and(predicate::str::contains("loops start on line 3")),
        );
    // a file the program does not include
    lazysma()
        .arg(&file)
        .args(["--unwindset", "queue.h:3:5", "-o"])
        .arg(&output)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "no file of the program has a path that ends with queue.h",
        ));
    for malformed in [":3:5", "table.h:x:5", "table.h:3:"] {
        lazysma()
            .arg(&file)
            .args(["--unwindset", malformed])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("--unwindset"));
    }
}

#[test]
fn unreadable_input_is_bad_input() {
    lazysma()
        .arg("no/such/file.c")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no/such/file.c"));
    // a directory is not taken for an empty program ("no `main` function")
    let directory = tempfile::tempdir().expect("temporary directory");
    lazysma()
        .arg(directory.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is a directory"));
}

#[test]
fn deeply_nested_programs_translate() {
    // thousands of levels, as gcc accepts: parentheses, a long sum, nested ifs
    let directory = tempfile::tempdir().expect("temporary directory");
    let parentheses = format!(
        "int x;\nint main(void) {{ x = {}1{}; return x; }}\n",
        "(".repeat(8000),
        ")".repeat(8000)
    );
    let sum = format!(
        "int x;\nint main(void) {{ int y = 1; x = 0{}; return x; }}\n",
        " + y".repeat(20000)
    );
    let ifs = format!(
        "int x;\nint main(void) {{\n{}x = 1;{}\nreturn 0; }}\n",
        "if (x < 9) {\n".repeat(3000),
        "}".repeat(3000)
    );
    for (name, text) in [
        ("parentheses.c", parentheses),
        ("sum.c", sum),
        ("ifs.c", ifs),
    ] {
        let file = write_file(directory.path(), name, &text);
        lazysma()
            .arg(&file)
            .arg("-o")
            .arg(directory.path().join("out.c"))
            .assert()
            .code(0);
    }
}

#[test]
fn a_statement_with_many_shared_reads_translates_to_a_file_linear_in_its_length() {
    // every access carries the statement as a comment: 3000 reads of a
    // 12000-character statement wrote 36 MB, 12000 reads 578 MB
    let directory = tempfile::tempdir().expect("temporary directory");
    let reads = 3000;
    let text = format!(
        "#include <pthread.h>\nint x;\nvoid *t(void *a) {{ x = 1; return 0; }}\n\
         int main(void) {{ pthread_t h; pthread_create(&h, 0, t, 0); int s = x{}; return s; }}\n",
        " + x".repeat(reads - 1)
    );
    let file = write_file(directory.path(), "reads.c", &text);
    let output = directory.path().join("out.c");
    lazysma()
        .arg(&file)
        .arg("--tso")
        .arg("-o")
        .arg(&output)
        .assert()
        .code(0);
    let translated = std::fs::read_to_string(&output).expect("output readable");
    assert!(
        translated.matches("sma_read").count() >= reads,
        "every read is translated"
    );
    assert!(
        translated.len() < 2_000_000,
        "{} bytes for {reads} reads",
        translated.len()
    );
    assert!(
        translated.contains("int s = x + x + x"),
        "the comment still shows the statement"
    );
}

#[test]
fn output_never_overwrites_the_input() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let original =
        std::fs::read_to_string(example("store_buffering.c")).expect("example is readable");
    let file = write_file(directory.path(), "sb.c", &original);
    lazysma().arg(&file).arg("-o").arg(&file).assert().code(1);
    assert_eq!(
        std::fs::read_to_string(&file).expect("input still readable"),
        original
    );
}

#[test]
fn failed_translation_leaves_existing_output_untouched() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let output = write_file(directory.path(), "seq.c", "/* keep me */\n");
    let broken = write_file(directory.path(), "broken.c", "int main( {\n");
    lazysma()
        .arg(&broken)
        .arg("-o")
        .arg(&output)
        .assert()
        .code(1);
    assert_eq!(
        std::fs::read_to_string(&output).expect("output readable"),
        "/* keep me */\n"
    );
}

#[test]
fn output_file_is_written_completely() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let output = directory.path().join("seq.c");
    lazysma()
        .arg(example("message_passing.c"))
        .arg("--pso")
        .arg("-o")
        .arg(&output)
        .assert()
        .success();
    let text = std::fs::read_to_string(&output).expect("output readable");
    assert!(
        text.contains("sma_write"),
        "the output is a translated program"
    );
    let leftovers: Vec<_> = std::fs::read_dir(directory.path())
        .expect("listable")
        .collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

#[test]
fn output_dash_is_standard_output() {
    let directory = tempfile::tempdir().expect("temporary directory");
    lazysma()
        .current_dir(directory.path())
        .arg(example("store_buffering.c"))
        .args(["-o", "-"])
        .assert()
        .success()
        .stdout(predicate::str::contains("sma_read"));
    assert!(
        !directory.path().join("-").exists(),
        "no file named `-` is written"
    );
}

/// The permission bits of `path`.
#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("the file exists")
        .permissions()
        .mode()
        & 0o7777
}

/// The entries of `directory`, sorted (a temporary file left behind shows).
fn entries(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .expect("listable")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// A FIFO is written through (a reader gets the program) and stays a
/// FIFO; so do a device and standard output named as a file. A rename
/// would have put a regular file in their place (as root, in place of
/// /dev/null).
#[cfg(unix)]
#[test]
fn output_to_a_fifo_a_device_or_standard_output_is_written_through() {
    use std::os::unix::fs::FileTypeExt;
    use wait_timeout::ChildExt;
    let directory = tempfile::tempdir().expect("temporary directory");
    let fifo = directory.path().join("fifo");
    let received = directory.path().join("received.c");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs")
            .success()
    );
    let mut reader = std::process::Command::new("sh")
        .args(["-c", "exec cat \"$0\" > \"$1\""])
        .arg(&fifo)
        .arg(&received)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the reader starts");
    lazysma()
        .arg(example("store_buffering.c"))
        .arg("-o")
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let ended = reader
        .wait_timeout(std::time::Duration::from_secs(10))
        .expect("the reader is waited for");
    if ended.is_none() {
        let _ = reader.kill();
        let _ = reader.wait();
        panic!("nothing was written into the FIFO");
    }
    assert!(
        std::fs::read_to_string(&received)
            .expect("the reader wrote")
            .contains("sma_read"),
        "the reader got the program"
    );
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("the FIFO is there")
            .file_type()
            .is_fifo(),
        "the FIFO stays a FIFO"
    );
    assert_eq!(
        entries(directory.path()),
        ["fifo", "received.c"],
        "no temporary file is left behind"
    );

    lazysma()
        .arg(example("store_buffering.c"))
        .args(["-o", "/dev/null"])
        .assert()
        .success()
        .stdout(predicate::str::is_empty());
    assert!(
        std::fs::metadata("/dev/null")
            .expect("/dev/null")
            .file_type()
            .is_char_device(),
        "/dev/null stays a device"
    );
    lazysma()
        .arg(example("store_buffering.c"))
        .args(["-o", "/dev/stdout"])
        .assert()
        .success()
        .stdout(predicate::str::contains("sma_read"));
}

/// A symbolic link is followed: its target is replaced (keeping its
/// permission bits), the link stays a link; a dangling link gets its
/// target created.
#[cfg(unix)]
#[test]
fn output_through_a_symbolic_link_replaces_its_target_and_keeps_the_link() {
    use std::os::unix::fs::PermissionsExt;
    let directory = tempfile::tempdir().expect("temporary directory");
    let target = write_file(directory.path(), "target.c", "/* old */\n");
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let link = directory.path().join("link.c");
    std::os::unix::fs::symlink("target.c", &link).expect("a link");
    lazysma()
        .arg(example("store_buffering.c"))
        .arg("-o")
        .arg(&link)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_link(&link).expect("still a link"),
        Path::new("target.c")
    );
    assert!(
        std::fs::read_to_string(&target)
            .expect("target readable")
            .contains("sma_read"),
        "the target is replaced"
    );
    assert_eq!(mode(&target), 0o640, "the target keeps its permission bits");

    let dangling = directory.path().join("dangling.c");
    std::os::unix::fs::symlink("made.c", &dangling).expect("a link");
    lazysma()
        .arg(example("store_buffering.c"))
        .arg("-o")
        .arg(&dangling)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_link(&dangling).expect("still a link"),
        Path::new("made.c")
    );
    assert!(
        std::fs::read_to_string(directory.path().join("made.c"))
            .expect("made")
            .contains("sma_read")
    );
    assert_eq!(
        entries(directory.path()),
        ["dangling.c", "link.c", "made.c", "target.c"],
        "no temporary file is left behind"
    );
}

/// A new output gets 0666 minus the umask (not 0600); a replaced one keeps
/// its permission bits, whatever the umask.
#[cfg(unix)]
#[test]
fn a_new_output_follows_the_umask_and_a_replaced_one_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let directory = tempfile::tempdir().expect("temporary directory");
    let translate_under_umask = |umask: &str, output: &Path| {
        let status = std::process::Command::new("sh")
            .args([
                "-c",
                &format!("umask {umask} && exec \"$@\""),
                "sh",
                env!("CARGO_BIN_EXE_lazysma"),
            ])
            .arg(example("store_buffering.c"))
            .arg("-o")
            .arg(output)
            .status()
            .expect("lazysma runs");
        assert!(status.success(), "umask {umask}: {status}");
    };
    let new = directory.path().join("new.c");
    translate_under_umask("027", &new);
    assert_eq!(mode(&new), 0o640);
    let other = directory.path().join("other.c");
    translate_under_umask("002", &other);
    assert_eq!(mode(&other), 0o664);
    let existing = write_file(directory.path(), "existing.c", "/* old */\n");
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o604)).expect("chmod");
    translate_under_umask("077", &existing);
    assert_eq!(mode(&existing), 0o604);
    assert!(
        std::fs::read_to_string(&existing)
            .expect("readable")
            .contains("sma_read")
    );
}

#[test]
fn an_output_in_a_missing_directory_is_an_environment_failure_naming_no_temporary_file() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let output = directory.path().join("nodir").join("x.c");
    lazysma()
        .arg(example("store_buffering.c"))
        .arg("-o")
        .arg(&output)
        .assert()
        .code(2)
        .stderr(format!(
            "error: cannot write {}: No such file or directory (os error 2)\n",
            output.display()
        ));
}

#[test]
fn unwritable_standard_output_is_an_environment_failure_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("lazysma"))
        .arg(example("store_buffering.c"))
        .stdout(full)
        .output()
        .expect("lazysma runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write standard output") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("lazysma"))
        .arg(corpus_dir().join("bench/svcomp/pthread-atomic/scull.c"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("lazysma starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("lazysma ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_option_values_are_bad_input() {
    lazysma()
        .arg(example("store_buffering.c"))
        .args(["--rounds", "0"])
        .assert()
        .code(1);
    lazysma()
        .arg(example("store_buffering.c"))
        .args(["--qsize", "many"])
        .assert()
        .code(1);
    lazysma()
        .arg(example("store_buffering.c"))
        .args(["--sc", "--pso"])
        .assert()
        .code(1);
    let output = lazysma()
        .arg(example("store_buffering.c"))
        .args(["--qsize", "1"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("'--qsize <N|auto>': 1 is below the least value, 2"),
        "{stderr}"
    );
    let output = lazysma()
        .arg(example("store_buffering.c"))
        .args(["--maxclock", "soon"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("`soon` is neither a number nor `auto`")
    );
}

#[test]
fn auto_bounds_are_resolved_and_named_in_the_output() {
    let output = lazysma()
        .arg(example("store_buffering.c"))
        .args(["--qsize", "auto", "--maxclock", "auto", "-o", "-"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    let bounds = text
        .lines()
        .find(|line| line.starts_with(" * bounds: "))
        .expect("a bounds line");
    let needs = text
        .lines()
        .find(|line| line.starts_with(" * no execution needs more than "))
        .expect("a sufficiency line");
    // the bounds line shows the values `auto` became, which are those the
    // sufficiency line names
    let named = needs
        .trim_start_matches(" * no execution needs more than ")
        .split(" (")
        .next()
        .expect("values");
    assert!(bounds.contains(named), "{bounds} / {needs}");
    assert!(
        !bounds.contains("auto"),
        "auto is resolved to numbers: {bounds}"
    );
}

#[test]
fn missing_cbmc_is_a_backend_failure_with_install_advice() {
    lazysma()
        .arg("verify")
        .arg(example("store_buffering.c"))
        // `auto` needs no CBMC when the native engine answers
        .args(["--engine", "cbmc", "--cbmc", "/nonexistent/cbmc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("install-cbmc"));
}

/// Without `gcc` (the preprocessor) on the PATH nothing can be translated:
/// a missing tool, like a missing CBMC (exit 2, what to install), not bad
/// input.
#[test]
fn a_missing_preprocessor_is_an_environment_failure_with_install_advice() {
    let empty = tempfile::tempdir().expect("temporary directory");
    lazysma()
        .env("PATH", empty.path())
        .arg(example("store_buffering.c"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot run the C preprocessor gcc")
                .and(predicate::str::contains("install gcc")),
        );
    let output = lazysma()
        .env("PATH", empty.path())
        .arg("verify")
        .arg(example("store_buffering.c"))
        .args(["--format", "json"])
        .output()
        .expect("lazysma runs");
    assert_eq!(output.status.code(), Some(2));
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(report["verdict"], "backend-error");
    assert!(
        report["message"]
            .as_str()
            .is_some_and(|message| message.contains("install gcc")),
        "{report}"
    );
}

/// Every program of the corpora translates or is refused with a message,
/// never a crash: under one model each, in turn, in the default tier, under
/// all three in the full tier.
#[test]
fn every_litmus_and_bench_file_translates_or_is_refused_cleanly() {
    let mut files = Vec::new();
    for directory in [
        "litmus/visible",
        "bench/svcomp/pthread",
        "bench/svcomp/pthread-atomic",
        "bench/svcomp/pthread-atomic-classic",
        "bench/nidhugg/SV-COMP",
        "bench/nidhugg/C-tests",
    ] {
        let entries = std::fs::read_dir(corpus_dir().join(directory))
            .unwrap_or_else(|error| panic!("{directory} is readable: {error}"));
        files.extend(
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|e| e == "c")),
        );
    }
    assert!(files.len() > 400, "the corpora hold over 400 programs");
    files.sort();
    // the default tier takes each file under one model, in turn; the full
    // tier under all three
    let every = if crate::support::full_tier() { 1 } else { 3 };
    for (index, file) in files.into_iter().enumerate() {
        let models = ["--sc", "--tso", "--pso"];
        for model in models.into_iter().skip(index % every).step_by(every) {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_lazysma"))
                .arg(&file)
                .arg(model)
                .output()
                .expect("lazysma runs");
            let code = output.status.code();
            assert!(
                matches!(code, Some(0) | Some(1)),
                "{} {model}: exit {code:?} (a crash?)",
                file.display()
            );
            if code == Some(1) {
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert!(
                    stderr.contains("error"),
                    "{}: refusal without a message: {stderr}",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn no_div_by_zero_check_leaves_the_division_check_out() {
    let directory = tempfile::tempdir().expect("temporary directory");
    let program = directory.path().join("division.c");
    std::fs::write(
        &program,
        "int x, y;\nint main(void) { int k = y; x = 10 / k; return 0; }\n",
    )
    .expect("write");
    let translate = |extra: &[&str]| {
        let output = Command::cargo_bin("lazysma")
            .expect("binary")
            .arg(&program)
            .args(["--sc", "-o", "-"])
            .args(extra)
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).to_string()
    };
    assert!(translate(&[]).contains("division by zero"));
    assert!(!translate(&["--no-div-by-zero-check"]).contains("division by zero"));
}

#[test]
fn a_loop_to_a_nondeterministic_bound_assumed_past_the_unwinding_is_a_warning() {
    // SV-COMP's nondet programs: `assume(n >= 5)` before `for (i < n)`
    // let no execution past the loop at --unwind 2, and the assertion
    // after it was checked by nobody, without a word
    let directory = tempfile::tempdir().expect("temporary directory");
    let source = "#include <pthread.h>\n#include <assert.h>\nunsigned __VERIFIER_nondet_uint(void);\nvoid __VERIFIER_assume(int);\n\
void *worker(void *arg) {\n  return 0;\n}\n\
int main(void) {\n  pthread_t t[10];\n  unsigned n = __VERIFIER_nondet_uint();\n  __VERIFIER_assume(n >= 5 && n <= 10);\n\
  for (unsigned i = 0; i < n; i++)\n    pthread_create(&t[i], 0, worker, 0);\n  assert(0);\n  return 0;\n}\n";
    let file = write_file(directory.path(), "nondet.c", source);
    let output = directory.path().join("seq.c");
    translate_at_unwind(&file, &output, "2").stderr(
        predicate::str::contains(
            "warning: no execution gets past this loop within its unwinding bound of 2",
        )
        .and(predicate::str::contains("nondet.c:12:1"))
        .and(predicate::str::contains(
            "nothing from line 14 (`assert(0);`) on is checked",
        )),
    );
    // a bound the assumption lets a path through: no warning
    let reachable = write_file(
        directory.path(),
        "reachable.c",
        &source.replace("n >= 5", "n >= 2"),
    );
    translate_at_unwind(&reachable, &output, "2").stderr(predicate::str::is_empty());
}

/// Memory by need: the cells of a large array that share their initial
/// value are given as a range, not one by one, so the translated program
/// of `tests/fixtures/verify/large_array.c` is as small with ten and a
/// hundred million cells as with 1000 (with one cell of another value,
/// too); and lazysma describes locations by object, so it translates them
/// within 1 GiB of address space (`prlimit --as`, as `ulimit -v`).
#[test]
fn an_array_of_one_initial_value_costs_the_same_whatever_its_size() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify/large_array.c");
    let directory = tempfile::tempdir().expect("temporary directory");
    let size = |cells: u32, marked: bool| {
        let output = directory.path().join(format!("seq{cells}{marked}.c"));
        let mut command = within_address_space(1 << 30);
        command
            .arg(&program)
            .arg("--tso")
            .arg("-D")
            .arg(format!("N={cells}"));
        if marked {
            command.args(["-D", "MARKED"]);
        }
        command.arg("-o").arg(&output).assert().code(0);
        let text = std::fs::read_to_string(&output).expect("the translated program");
        assert!(
            !text.contains("sma_initial_value_rows"),
            "no row of initial values for {cells} cells"
        );
        text.len() as i64
    };
    for marked in [false, true] {
        let small = size(1000, marked);
        for cells in [10_000_000, 100_000_000] {
            let large = size(cells, marked);
            assert!(
                (large - small).abs() < 100,
                "{small} bytes for 1000 cells, {large} for {cells}"
            );
        }
    }
}

/// Memory by need on the native engine: a state holds what the writes
/// changed, so a hundred million cells are checked within 4 GiB of address
/// space (the worker threads' stacks take 1.25 GiB of it), and the
/// thread's write is found.
#[test]
fn the_native_engine_checks_a_large_array_within_a_small_address_space() {
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify/large_array.c");
    within_address_space(4 << 30)
        .arg("verify")
        .arg(&program)
        .args([
            "--tso",
            "--engine",
            "smc",
            "-D",
            "N=100000000",
            "-D",
            "MARKED",
        ])
        .assert()
        .code(10)
        .stdout(predicate::str::contains("large_array.c:43"));
}

/// lazysma run by `prlimit` with at most `bytes` of address space.
fn within_address_space(bytes: u64) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::new("prlimit");
    command
        .arg(format!("--as={bytes}"))
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("lazysma"));
    command
}

#[test]
fn a_reader_that_closes_both_streams_early_leaves_the_verdict_in_the_exit_code() {
    // as `lazysma verify f.c 2>&1 | head -1`: the warning on standard error
    // and the report meet a closed pipe, which must not become a panic (101)
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = write_file(
        directory.path(),
        "helper_size.c",
        "#include <assert.h>\n#include <stdlib.h>\n\
         static unsigned long size(unsigned n) { return n * sizeof(long); }\n\
         int main(void) { long *d = malloc(size(12)); d[0] = 1; assert(d[0] == 1); return 0; }\n",
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("lazysma"))
        .args(["verify", "--tso", "--engine", "smc"])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("lazysma starts");
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().expect("lazysma ends");
    assert_eq!(status.code(), Some(0), "{status}");
}
