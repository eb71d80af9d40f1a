//! What a `lazysma verify` report says of its bounds: safe verdicts and the
//! code a bound left unchecked, heap blocks and their size, `--nmalloc auto`,
//! the sufficient `--qsize`/`--maxclock`, `--bitwidth` cutting 64-bit
//! values off, unwinding assertions. Their programs are in
//! `tests/fixtures/programs/`; the checks the `.desc` format expresses are
//! cases of `tests/fixtures/verify/` (`many_shared_scalars`,
//! `wide_conversions`, `wide_initial`, `bitwidth_*`).

use crate::support;
use crate::verify_support;

use serde_json::Value;
use support::{require_cbmc, verify};
use verify_support::{THREE_PENDING, example, json, only_warning, program};

#[test]
fn safe_programs_exit_zero() {
    if !require_cbmc() {
        return;
    }
    let (code, stdout, _) = verify(&example("store_buffering.c"), &["--sc", "--format", "json"]);
    assert_eq!(code, 0);
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    assert!(report["property"].is_null() && report["witness"].is_null());
}

#[test]
fn a_safe_verdict_says_which_code_a_loop_bound_left_unchecked() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    // the worker, which breaks the assertion, is created after a loop of 5
    let program = program(
        &directory,
        "init.c",
        include_str!("../fixtures/programs/loop_before_worker.c"),
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "safe");
    let warning = only_warning(&report, &stdout);
    assert_eq!(warning["line"], 12);
    assert_eq!(warning["column"], 3);
    assert_eq!(
        warning["message"],
        "no execution gets past this loop within its unwinding bound of 2"
    );
    let (code, stdout, stderr) = verify(&program, &["--tso"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("warning: no execution gets past init.c:12 within the bounds (see the warnings), so the code after it was not checked"), "{stdout}");
    assert!(
        stdout.starts_with("No violation under TSO in the code the bounds reached; the code after init.c:12 was not checked (see the warning)\n"),
        "{stdout}"
    );
    assert!(stderr.contains("init.c:12:3"), "{stderr}");
    // with a bound the loop ends within, the worker runs and breaks the assertion
    let (code, stdout, _) = verify(&program, &["--tso", "--unwind", "6", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    assert_eq!(json(&stdout)["warnings"], Value::Array(Vec::new()));
}

#[test]
fn an_allocation_past_the_heap_blocks_is_a_warning_and_more_blocks_find_the_bug() {
    if !require_cbmc() {
        return;
    }
    // the third allocation exceeds the default --nmalloc 2, so no execution
    // reaches the thread creation, and the PSO bug after it hides
    let directory = tempfile::tempdir().unwrap();
    let program = program(
        &directory,
        "heap3.c",
        include_str!("../fixtures/programs/heap_three_allocations.c"),
    );
    let (code, stdout, _) = verify(&program, &["--pso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this allocation within --nmalloc 2"
    );
    assert_eq!(warning["line"], 15);
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("at least 3")),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&program, &["--pso", "--nmalloc", "3", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["property"]["line"], 8);
    assert_eq!(report["warnings"], Value::Array(Vec::new()));
}

#[test]
fn the_heap_block_size_is_a_reported_bound() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let heap = program(
        &directory,
        "heap.c",
        include_str!("../fixtures/programs/heap_block_size.c"),
    );
    // The size is only known at run time: blocks of 8 scalars cut the
    // allocation off, and the report says which block size it used.
    let (code, stdout, _) = verify(&heap, &["--sc", "--heap-block", "8", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    assert_eq!(json(&stdout)["bounds"]["heap_block"], 8);
    let (code, stdout, stderr) = verify(&heap, &["--sc", "--heap-block", "8"]);
    assert_eq!(code, 0);
    assert!(
        format!("{stdout}{stderr}").contains("heap block 8"),
        "{stdout}{stderr}"
    );
    // `auto`, the default, grows the block by need: to 64, which holds it
    let (code, stdout, _) = verify(&heap, &["--sc", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    assert_eq!(json(&stdout)["bounds"]["heap_block"], 64);
    let (code, stdout, _) = verify(&heap, &["--sc", "--heap-block", "12", "--format", "json"]);
    assert_eq!(code, 10, "twelve scalars hold the allocation: {stdout}");
    assert_eq!(json(&stdout)["bounds"]["heap_block"], 12);
    let (_, stdout, _) = verify(&example("store_buffering.c"), &["--sc", "--format", "json"]);
    assert!(
        json(&stdout)["bounds"]["heap_block"].is_null(),
        "no heap, no heap block"
    );
}

/// 64-bit shared variables and a 64-bit constant operand.
const LONG_VALUES: &str = include_str!("../fixtures/programs/long_values.c");

#[test]
fn sixty_four_bit_values_are_cut_off_below_bitwidth_64_and_exact_at_it() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let holds = program(
        &directory,
        "long_holds.c",
        &LONG_VALUES.replace("PROPERTY;", ""),
    );
    let fails = program(
        &directory,
        "long_fails.c",
        &LONG_VALUES.replace("PROPERTY;", "assert(x == 0);"),
    );
    // At --bitwidth 32 2^33 does not fit: the store is cut off rather
    // than truncated to 0 (which would fail the first assertion).
    let (code, stdout, _) = verify(&holds, &["--tso", "--bitwidth", "32"]);
    assert_eq!(code, 0, "{stdout}");
    // and the safe report says that wider values were not covered, in its
    // headline too
    assert!(
        stdout.contains("values wider than 32 bits are not ruled out"),
        "{stdout}"
    );
    assert!(
        stdout.lines().next().is_some_and(|headline| headline
            .contains("wider than 32 bits in shared memory were cut off by --bitwidth 32")),
        "{stdout}"
    );
    // Without --bitwidth memory is as wide as the 64-bit variables.
    let (code, stdout, _) = verify(&fails, &["--tso"]);
    assert_eq!(code, 10, "{stdout}");
    // At 64 bits the values are exact: `1L << 33` shifts a 64-bit one.
    let (code, stdout, _) = verify(&holds, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(!stdout.contains("values wider than"), "{stdout}");
    let (code, stdout, _) = verify(&fails, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 10, "{stdout}");
    // A 64-bit RMW computes its result in the object's type: below 64 bits
    // one that no int holds is cut off like a store of it (the SMA would
    // have computed it as an int), exact at 64; one that fits is stored.
    let rmw = program(
        &directory,
        "long_rmw.c",
        &LONG_VALUES
            .replace("x = 1L << 33;", "__sync_fetch_and_add(&x, 1L << 33);")
            .replace("PROPERTY;", ""),
    );
    let (code, stdout, stderr) = verify(&rmw, &["--tso", "--bitwidth", "32"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("values wider than 32 bits are not ruled out"),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&rmw, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}");
    let small_rmw = program(
        &directory,
        "long_small_rmw.c",
        &LONG_VALUES
            .replace("x = 1L << 33;", "__sync_fetch_and_add(&x, 5L);")
            .replace("PROPERTY;", "assert(x == 0);"),
    );
    let (code, stdout, _) = verify(&small_rmw, &["--tso"]);
    assert_eq!(code, 10, "{stdout}");
    // Up to --bitwidth 32 memory takes an int: a 64-bit initial value no
    // int holds would be truncated, so it is refused (it was read as 0).
    let initial = program(
        &directory,
        "long_initial.c",
        &LONG_VALUES
            .replace("long x;", "long x = 1L << 40;")
            .replace("PROPERTY;", ""),
    );
    let (code, _, stderr) = verify(&initial, &["--tso", "--bitwidth", "32"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "the initial value 1099511627776 does not fit in shared memory of --bitwidth 32"
        ),
        "{stderr}"
    );
    let (code, stdout, _) = verify(&initial, &["--tso", "--bitwidth", "64"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, stdout, _) = verify(&initial, &["--tso"]);
    assert_eq!(code, 0, "{stdout}");
}

/// `--unwinding-assertions`: a loop that needs more than `--unwind`
/// iterations is reported as a bound reached (exit 10, like CBMC), not as a
/// violation; with enough unwinding, or without the option, the run is safe.
#[test]
fn unwinding_assertions_report_the_bound_not_a_bug() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let program = directory.path().join("loop.c");
    std::fs::write(
        &program,
        include_str!("../fixtures/programs/unwinding_loop.c"),
    )
    .unwrap();
    let (code, stdout, _) = verify(
        &program,
        &["--sc", "--unwinding-assertions", "--format", "json"],
    );
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["verdict"], "unwinding-bound");
    assert_eq!(report["unwinding_assertions"], true);
    assert_eq!(report["property"]["line"], 6);
    assert_eq!(report["check"]["realisable"], true);
    let (code, stdout, _) = verify(&program, &["--sc", "--unwinding-assertions"]);
    assert_eq!(code, 10);
    assert!(
        stdout.starts_with(
            "Unwinding bound reached under SC: a loop can run more than --unwind 2 times"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("6 | while (i < 3) {"), "{stdout}");
    let (code, stdout, _) = verify(
        &program,
        &[
            "--sc",
            "--unwinding-assertions",
            "--no-check",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10);
    assert_eq!(
        json(&stdout)["verdict"],
        "unwinding-bound",
        "without the native check too"
    );
    // the loop's own depth is the bound it reports
    let (code, stdout, _) = verify(
        &program,
        &[
            "--sc",
            "--unwinding-assertions",
            "--unwind",
            "3",
            "--unwindset",
            "6:1",
        ],
    );
    assert_eq!(code, 10);
    assert!(
        stdout.starts_with(
            "Unwinding bound reached under SC: a loop can run more than --unwind 1 times"
        ),
        "{stdout}"
    );
    let (code, stdout, _) = verify(
        &program,
        &["--sc", "--unwinding-assertions", "--unwind", "3"],
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("every loop exits within --unwind"),
        "{stdout}"
    );
    let (code, _, _) = verify(&program, &["--sc"]);
    assert_eq!(code, 0);
}

/// A safe verdict names the buffer space and memory clock that no
/// execution needs more of; `--qsize auto` takes them, and finds the
/// violation that `--qsize 3` cut off.
#[test]
fn the_safe_report_names_sufficient_bounds_and_auto_takes_them() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let three = program(&directory, "three.c", THREE_PENDING);
    for model in ["--tso", "--pso"] {
        let (code, stdout, stderr) = verify(
            &three,
            &[model, "--qsize", "3", "--maxclock", "6", "--color", "never"],
        );
        assert_eq!(code, 0, "{model}: {stdout}{stderr}");
        assert!(
            stdout.contains("(bugs that need more rounds or buffer space are not ruled out; no execution of this program needs more than qsize 4, maxclock 4; --qsize auto sets it)"),
            "{model}: {stdout}"
        );
        let (code, stdout, stderr) = verify(
            &three,
            &[
                model,
                "--qsize",
                "auto",
                "--maxclock",
                "auto",
                "--format",
                "json",
            ],
        );
        assert_eq!(code, 10, "{model}: {stdout}{stderr}");
        let report = json(&stdout);
        assert_eq!(report["bounds"]["qsize"], 4, "{stdout}");
        assert_eq!(report["bounds"]["maxclock"], 4, "{stdout}");
        assert_eq!(report["sufficient_bounds"]["qsize"], 4, "{stdout}");
        assert_eq!(report["sufficient_bounds"]["maxclock"], 4, "{stdout}");
        assert_eq!(report["check"]["realisable"], true, "{stdout}");
    }
    // at the sufficient bounds only rounds and loops remain
    let safe = program(
        &directory,
        "fenced.c",
        &THREE_PENDING.replace("x = 3; r0", "x = 3; __sync_synchronize(); r0"),
    );
    let (code, stdout, stderr) = verify(
        &safe,
        &[
            "--tso",
            "--qsize",
            "auto",
            "--maxclock",
            "auto",
            "--color",
            "never",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("(bugs that need more rounds are not ruled out; no execution of this program needs more than qsize 4, maxclock 4)"),
        "{stdout}"
    );
    let (_, stdout, _) = verify(&safe, &["--sc", "--format", "json"]);
    assert!(
        json(&stdout)["sufficient_bounds"].is_null(),
        "SC has no buffers: {stdout}"
    );
}

#[test]
fn a_join_after_more_allocations_than_the_heap_blocks_is_a_warning() {
    if !require_cbmc() {
        return;
    }
    // main allocates one node and each of two threads one more: after the
    // second join every execution has made 3 allocations, past the default
    // --nmalloc 2, so the assertion after it is never reached
    let directory = tempfile::tempdir().unwrap();
    let program = program(
        &directory,
        "joined_heap.c",
        include_str!("../fixtures/programs/joined_heap.c"),
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this join within --nmalloc 2"
    );
    assert_eq!(warning["line"], 23);
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("at least 3")),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--nmalloc", "3", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["property"]["line"], 24);
    assert_eq!(report["warnings"], Value::Array(Vec::new()));
}

#[test]
fn a_thread_created_after_its_creators_allocations_starts_with_them() {
    if !require_cbmc() {
        return;
    }
    // main allocates 2 blocks before it creates the worker, whose own
    // allocation is the third: past the default --nmalloc 2, the worker's
    // assertion is never reached, and the warning says so at its malloc
    let directory = tempfile::tempdir().unwrap();
    let program = program(
        &directory,
        "prefilled_heap.c",
        include_str!("../fixtures/programs/prefilled_heap.c"),
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--format", "json"]);
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this allocation within --nmalloc 2"
    );
    assert_eq!(warning["line"], 6);
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("at least 3")),
        "{stdout}"
    );
    let (code, stdout, _) = verify(&program, &["--tso", "--nmalloc", "3", "--format", "json"]);
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["property"]["line"], 8);
    assert_eq!(report["warnings"], Value::Array(Vec::new()));
}

/// Two workers that allocate two blocks each and publish one: four
/// allocations in all, none of them cut off statically at --nmalloc 2 in
/// a worker, but the second worker's are after main's first join.
const TWO_BLOCKS_EACH: &str = include_str!("../fixtures/programs/two_blocks_each.c");

#[test]
fn nmalloc_auto_gives_every_allocation_a_block_and_the_safe_report_drops_the_heap() {
    if !require_cbmc() {
        return;
    }
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = program(&directory, "two_blocks_each.c", TWO_BLOCKS_EACH);
    // --nmalloc 2: the second join is past the heap, and the report says
    // how to get enough
    let (code, stdout, _) = verify(
        &file,
        &[
            "--sc",
            "-D",
            "PROPERTY=slot[0] != slot[1]",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    let warning = only_warning(&report, &stdout);
    assert_eq!(
        warning["message"],
        "no execution gets past this join within --nmalloc 2"
    );
    assert!(
        warning["help"]
            .as_str()
            .is_some_and(|help| help.contains("--nmalloc auto")),
        "{stdout}"
    );
    assert!(
        report["sufficient_nmalloc"].is_null(),
        "a heap bound cut code: {stdout}"
    );
    // auto: four blocks, nothing cut, and heap leaves the safe note
    for model in ["--sc", "--tso", "--pso"] {
        let (code, stdout, stderr) = verify(
            &file,
            &[
                model,
                "-D",
                "PROPERTY=slot[0] != slot[1]",
                "--nmalloc",
                "auto",
                "--color",
                "never",
            ],
        );
        assert_eq!(code, 0, "{model}: {stdout}{stderr}");
        assert!(
            stdout.contains("nmalloc 4, heap block 1"),
            "{model}: {stdout}"
        );
        assert!(!stdout.contains("more heap"), "{model}: {stdout}");
        assert!(
            stdout.contains("nmalloc 4)") || stdout.contains("nmalloc 4;"),
            "{model}: {stdout}"
        );
        assert!(!stderr.contains("warning"), "{model}: {stderr}");
    }
    // the property after both joins is checked: a false one fails
    let (code, stdout, _) = verify(
        &file,
        &[
            "--tso",
            "-D",
            "PROPERTY=slot[0] == slot[1]",
            "--nmalloc",
            "auto",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 10, "{stdout}");
    let report = json(&stdout);
    assert_eq!(report["bounds"]["nmalloc"], 4, "{stdout}");
    assert_eq!(report["sufficient_nmalloc"], 4, "{stdout}");
    assert_eq!(report["property"]["line"], 19, "{stdout}");
    // more blocks than the threads can take: the SMA gets four, and the
    // report keeps the number asked for
    let (code, stdout, _) = verify(
        &file,
        &[
            "--sc",
            "-D",
            "PROPERTY=slot[0] != slot[1]",
            "--nmalloc",
            "9",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
    let report = json(&stdout);
    assert_eq!(
        (
            report["bounds"]["nmalloc"].as_u64(),
            report["sufficient_nmalloc"].as_u64()
        ),
        (Some(9), Some(4)),
        "{stdout}"
    );
    let translated = directory.path().join("seq.c");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lazysma"))
        .args([
            "translate",
            file.to_str().expect("utf-8 path"),
            "--tso",
            "-D",
            "PROPERTY=1",
            "--nmalloc",
            "9",
            "-o",
        ])
        .arg(&translated)
        .output()
        .expect("lazysma runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&translated).expect("the translation");
    assert!(text.contains("#define SMA_HEAP_BLOCKS 4\n"), "{text}");
    assert!(text.contains(" * no execution needs more than 4 heap blocks (a larger --nmalloc cuts off nothing more)\n"), "{text}");
    assert!(
        text.contains(
            " * so the SMA below has 4 heap blocks: the same executions, a smaller formula\n"
        ),
        "{text}"
    );
}
