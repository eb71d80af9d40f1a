//! RF-SMC, the native engine's reads-from stateless model checker, against
//! the explicit-state search and a brute-force store-buffer explorer, and
//! on two worker threads and in the parts of a split search against itself
//! on one; with nondeterministic values too (the fixtures of
//! `tests/fixtures/smc/` that take them, and random programs that choose
//! booleans).

use crate::smc_rf;

use lazysma::smc::{self, Answer, Limits, RfNoAnswer, Statistics};
use proptest::prelude::*;
use smc_rf::program::Program;
use smc_rf::{brute, limits, prepare, program, reads_from, verdict};
use std::collections::HashSet;
use std::path::Path;

/// The examples RF-SMC handles alone give the explicit search's verdicts,
/// and a violation's trace replays.
#[test]
fn examples_agree_with_the_explicit_search() {
    let examples = [
        "dekker.c",
        "message_passing.c",
        "mutex_publish.c",
        "spinlock.c",
        "store_buffering.c",
    ];
    for name in examples {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        for model in ["sc", "tso", "pso"] {
            let prepared = prepare(&path, model, 2);
            let rf = reads_from(&prepared).unwrap_or_else(|why| panic!("{name} {model}: {why}"));
            let explicit = smc::check_explicit(&prepared, &limits());
            assert_eq!(
                Some(matches!(rf, Answer::Safe(..))),
                verdict(&explicit),
                "{name} under {model}"
            );
            if let Answer::Violation { records, .. } = &rf {
                assert!(!records.is_empty(), "{name} under {model}: no records");
            }
        }
    }
}

/// The fixtures of `tests/fixtures/smc/` whose nondeterministic values
/// RF-SMC takes as choices of its events: it answers them itself, with
/// the explicit search's verdict under every model.
#[test]
fn nondeterministic_fixtures_agree_with_the_explicit_search() {
    let fixtures = [
        "nondet_range.c",
        "nondet_ranges.c",
        "nondet_truth.c",
        "nondet_after_read.c",
        "nondet_in_rmw_chain.c",
        "nondet_assumed.c",
        "nondet_everywhere_safe.c",
    ];
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/smc");
    for name in fixtures {
        for model in ["sc", "tso", "pso"] {
            let prepared = prepare(&directory.join(name), model, 2);
            let rf = reads_from(&prepared).unwrap_or_else(|why| panic!("{name} {model}: {why}"));
            let explicit = smc::check_explicit(&prepared, &limits());
            assert_eq!(
                Some(matches!(rf, Answer::Safe(..))),
                verdict(&explicit),
                "{name} under {model}"
            );
        }
    }
}

/// The number of random programs (`LAZYSMA_PROPTEST_CASES` raises it).
fn cases() -> u32 {
    std::env::var("LAZYSMA_PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(24)
}

/// Runs `program` through lazysma's frontend, passes and RF-SMC under
/// `model`: the final observed values of each explored complete
/// execution, and the statistics.
/// `test` names the directory of the program's file (tests run side by
/// side in one process).
fn rf_smc(program: &Program, model: &str, test: &str) -> (HashSet<Vec<i64>>, Statistics) {
    rf_smc_with(program, model, test, &limits())
}

/// [`rf_smc`] within `limits` (a part of a split search).
fn rf_smc_with(
    program: &Program,
    model: &str,
    test: &str,
    limits: &Limits,
) -> (HashSet<Vec<i64>>, Statistics) {
    let directory = std::env::temp_dir().join(format!("lazysma-rf-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    let path = directory.join(format!("{model}.c"));
    std::fs::write(&path, program.c_text()).expect("the program is written");
    let prepared = prepare(&path, model, 2);
    let (answer, finals) = match smc::final_memories(&prepared, limits) {
        Ok(found) => found,
        Err(RfNoAnswer::Fallback(why, detail)) => panic!(
            "RF-SMC leaves to the explicit search ({why}: {detail})\n{}",
            program.c_text()
        ),
        Err(_) => panic!("RF-SMC answers on\n{}", program.c_text()),
    };
    let Answer::Safe(statistics, _) = answer else {
        panic!(
            "a program without assertions is safe:\n{}",
            program.c_text()
        );
    };
    let names = &prepared.sequential.map.locations;
    let observed: Vec<usize> = program
        .observed()
        .iter()
        .map(|name| {
            names
                .iter()
                .position(|location| location.name == *name)
                .unwrap_or_else(|| panic!("{name} is in shared memory"))
        })
        .collect();
    let finals = finals
        .iter()
        .map(|memory| observed.iter().map(|&l| memory[l]).collect())
        .collect();
    (finals, statistics)
}

/// The statistics of RF-SMC on `program` under `model` with two worker
/// threads (`verify --jobs 2`).
fn rf_smc_on_two_workers(program: &Program, model: &str, test: &str) -> Statistics {
    let directory =
        std::env::temp_dir().join(format!("lazysma-rf-jobs-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    let path = directory.join(format!("{model}.c"));
    std::fs::write(&path, program.c_text()).expect("the program is written");
    let prepared = prepare(&path, model, 2);
    let two = Limits {
        workers: 2,
        ..limits()
    };
    match smc::check_reads_from(&prepared, &two) {
        Ok(Answer::Safe(statistics, _)) => statistics,
        _ => panic!("RF-SMC on two workers is safe on\n{}", program.c_text()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Under SC, TSO and PSO, RF-SMC reaches exactly the final states the
    /// brute-force explorer reaches, and explores one complete execution
    /// per reads-from map of the complete executions: none twice, none
    /// missed.
    #[test]
    fn rf_smc_explores_each_reads_from_class_once(program in program::program()) {
        for model in ["sc", "tso", "pso"] {
            let expected = brute::explore(&program, model);
            let (finals, statistics) = rf_smc(&program, model, "props");
            prop_assert_eq!(statistics.search, lazysma::smc::search::SearchKind::RfSmc);
            prop_assert_eq!(
                &finals,
                &expected.finals,
                "final states under {} of\n{}",
                model,
                program.c_text()
            );
            prop_assert_eq!(
                statistics.complete_executions,
                expected.reads_from.len(),
                "complete reads-from classes under {} of\n{}",
                model,
                program.c_text()
            );
            // the parts of a split search, together, explore the classes
            // once each
            for parts in [2, 3] {
                let mut finals_of_parts = HashSet::new();
                let (mut classes, mut complete) = (0, 0);
                for part in 1..=parts {
                    let split = Some(lazysma::options::Split { part, parts });
                    let (finals, of_part) = rf_smc_with(&program, model, "props", &Limits { split, ..limits() });
                    finals_of_parts.extend(finals);
                    classes += of_part.reads_from_classes;
                    complete += of_part.complete_executions;
                }
                prop_assert_eq!(
                    (&finals_of_parts, classes, complete),
                    (&expected.finals, statistics.reads_from_classes, statistics.complete_executions),
                    "{} parts under {} of\n{}",
                    parts,
                    model,
                    program.c_text()
                );
            }
            // the parallel search explores the same classes
            let two = rf_smc_on_two_workers(&program, model, "props");
            prop_assert_eq!(
                (two.reads_from_classes, two.complete_executions, two.events),
                (statistics.reads_from_classes, statistics.complete_executions, statistics.events),
                "classes on two workers under {} of\n{}",
                model,
                program.c_text()
            );
        }
    }
}

/// The number of random programs with choices: few by default (the
/// default tier is cheap), `LAZYSMA_FULL=1` or `LAZYSMA_PROPTEST_CASES`
/// raise it.
fn choice_cases() -> u32 {
    let full = std::env::var("LAZYSMA_FULL").is_ok_and(|value| value == "1");
    let default = if full { 64 } else { 6 };
    std::env::var("LAZYSMA_PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: choice_cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// With nondeterministic booleans, RF-SMC reaches exactly the final
    /// states the brute-force explorer reaches and explores at least one
    /// complete execution per reads-from map and values chosen (none
    /// missed; a choice in a chain of atomic events of three threads can
    /// be explored twice, see `src/smc/rf/choice.rs`), on one worker and
    /// on two alike.
    #[test]
    fn rf_smc_explores_each_class_and_choice(program in program::program_with_choices()) {
        for model in ["sc", "tso", "pso"] {
            let expected = brute::explore(&program, model);
            let (finals, statistics) = rf_smc(&program, model, "choices");
            prop_assert_eq!(
                &finals,
                &expected.finals,
                "final states under {} of\n{}",
                model,
                program.c_text()
            );
            prop_assert!(
                statistics.complete_executions >= expected.classes.len(),
                "complete classes with their choices under {}: {} of {} in\n{}",
                model,
                statistics.complete_executions,
                expected.classes.len(),
                program.c_text()
            );
            // the parts of a split search reach the same final states
            let mut finals_of_parts = HashSet::new();
            for part in 1..=3 {
                let split = Some(lazysma::options::Split { part, parts: 3 });
                let (finals, _) = rf_smc_with(&program, model, "choices", &Limits { split, ..limits() });
                finals_of_parts.extend(finals);
            }
            prop_assert_eq!(
                &finals_of_parts,
                &expected.finals,
                "final states of 3 parts under {} of\n{}",
                model,
                program.c_text()
            );
            let two = rf_smc_on_two_workers(&program, model, "choices");
            prop_assert_eq!(
                (two.reads_from_classes, two.complete_executions, two.events),
                (statistics.reads_from_classes, statistics.complete_executions, statistics.events),
                "classes on two workers under {} of\n{}",
                model,
                program.c_text()
            );
        }
    }
}

/// The programs of `tests/fixtures/verify/` whose threads share plain
/// globals (thread handles, arguments), each with its defines and whether
/// RF-SMC must answer them itself: where it answers, it gives the explicit
/// search's verdict under every model; where a write may be read before
/// or after it, it leaves the program to the explicit search.
#[test]
fn plain_global_programs_agree_with_the_explicit_search() {
    let cases: [(&str, &[&str], bool); 9] = [
        ("plain_handles_creation_loop", &[], true),
        ("plain_handles_creation_loop", &["BUG"], true),
        ("plain_read_by_later_thread", &["CREATED_BY_WRITER"], true),
        ("plain_read_by_later_thread", &["CHAIN"], true),
        ("plain_read_by_later_thread", &[], false),
        ("plain_read_by_running_thread", &[], false),
        ("plain_read_before_join", &[], true),
        ("plain_read_before_join", &["NO_JOIN"], false),
        ("mutex_publish", &[], true),
    ];
    for (name, defines, answers) in cases {
        for model in ["sc", "tso", "pso"] {
            let prepared = prepare_with(name, defines, model);
            let label = format!("{name} {defines:?} under {model}");
            let explicit = verdict(&smc::check_explicit(&prepared, &limits()));
            assert!(explicit.is_some(), "{label}: the explicit search answers");
            match smc::check_reads_from(&prepared, &limits()) {
                Ok(answer) => {
                    assert!(answers, "{label}: RF-SMC answers a racy program");
                    assert_eq!(verdict(&Ok(answer)), explicit, "{label}");
                }
                Err(RfNoAnswer::Fallback(why, detail)) => {
                    assert!(!answers, "{label}: falls back ({why}: {detail})");
                    assert_eq!(why, "a plain global shared by running threads", "{label}");
                }
                Err(RfNoAnswer::Other(other)) => panic!("{label}: {other}"),
            }
        }
    }
}

/// Programs with atomic sections or a heap used while threads run
/// (`tests/fixtures/smc/`, with `defines`, and fenced with
/// `--fence-atomic-sections` or not): RF-SMC answers them itself, with
/// the section lock (`smc::semantics::sections`) and the heap's order
/// check (`smc::rf::heap`), and gives the explicit search's verdict under
/// every model.
#[test]
fn atomic_section_and_heap_programs_agree_with_the_explicit_search() {
    let cases: [(&str, &[&str]); 15] = [
        ("atomic_sections", &[]),
        ("atomic_store_buffering", &[]),
        ("atomic_sections_wrapped", &[]),
        ("atomic_sections_wrapped", &["BUG"]),
        ("atomic_sections_beside", &[]),
        ("atomic_sections_beside", &["BUG"]),
        ("heap_double_free", &[]),
        ("heap_invalid_free", &[]),
        ("heap_use_after_free", &[]),
        ("heap_malloc_race", &[]),
        ("heap_malloc_race_safe", &[]),
        ("heap_message_passing", &[]),
        ("heap_out_of_blocks", &[]),
        ("heap_free_handoff", &[]),
        ("heap_free_handoff", &["BUG"]),
    ];
    for (name, defines) in cases {
        for fenced in [false, true] {
            for model in ["sc", "tso", "pso"] {
                let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/smc")
                    .join(format!("{name}.c"));
                let prepared = prepare_options(&path, defines, model, |options| {
                    options.fence_atomic_sections = fenced;
                    options.bounds.unwind = 2;
                });
                let label = format!("{name} {defines:?} fenced {fenced} under {model}");
                let explicit = verdict(&smc::check_explicit(&prepared, &limits()));
                assert!(explicit.is_some(), "{label}: the explicit search answers");
                match smc::check_reads_from(&prepared, &limits()) {
                    Ok(answer) => assert_eq!(verdict(&Ok(answer)), explicit, "{label}"),
                    Err(RfNoAnswer::Fallback(why, detail)) => {
                        panic!("{label}: falls back ({why}: {detail})")
                    }
                    Err(RfNoAnswer::Other(other)) => panic!("{label}: {other}"),
                }
            }
        }
    }
}

/// The program at `path` prepared under `model` with `defines` and the
/// options `adjust` sets.
fn prepare_options(
    path: &Path,
    defines: &[&str],
    model: &str,
    adjust: impl FnOnce(&mut lazysma::options::TranslateOptions),
) -> smc::Prepared {
    let mut options = lazysma::options::TranslateOptions {
        sma: smc_rf::implementation(model),
        defines: defines.iter().map(|define| define.to_string()).collect(),
        ..lazysma::options::TranslateOptions::default()
    };
    adjust(&mut options);
    let program = lazysma::frontend::load(path, &options)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    smc::prepare(&program, &options).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A fixture of `tests/fixtures/verify/` (or an example) prepared with
/// `defines` and the loop bound its runs use.
fn prepare_with(name: &str, defines: &[&str], model: &str) -> smc::Prepared {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/fixtures/verify").join(format!("{name}.c"));
    let path = if fixture.exists() {
        fixture
    } else {
        root.join("examples").join(format!("{name}.c"))
    };
    let mut options = lazysma::options::TranslateOptions {
        sma: smc_rf::implementation(model),
        defines: defines.iter().map(|define| define.to_string()).collect(),
        ..lazysma::options::TranslateOptions::default()
    };
    options.bounds.unwind = 3;
    let program = lazysma::frontend::load(&path, &options)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    smc::prepare(&program, &options).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}
