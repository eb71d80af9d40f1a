//! `verify --jobs N`: the native engine's search on worker threads
//! explores the classes the sequential search explores. On the examples,
//! the litmus tests of the sample `smc_engine` and programs of the
//! benchmark corpus, `--jobs 1` and `--jobs 2` give the same verdict and,
//! when safe (the whole tree searched), the same counts of reads-from
//! classes, events and complete executions; two and three workers give
//! the same violation and counts even when unsafe. The full tier
//! (`LAZYSMA_FULL=1`) adds the slow nidhugg programs and every litmus test.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{corpus_dir, litmus_tests, parallel_map};

/// The report of `verify --engine smc --format json --jobs JOBS`.
fn native(file: &Path, model: &str, jobs: &str) -> Value {
    let model = format!("--{model}");
    let (_, stdout, stderr) = support::run(
        "verify",
        file,
        &[
            &model, "--engine", "smc", "--format", "json", "--jobs", jobs,
        ],
    );
    serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}{stderr}"))
}

/// What must agree: the verdict, and the counts of a safe run.
fn agreed(report: &Value) -> (Value, Option<[Value; 3]>) {
    let statistics = &report["native"]["statistics"];
    let safe = report["verdict"] == "safe";
    let counts = ["reads_from_classes", "events", "complete_executions"]
        .map(|name| statistics[name].clone());
    (report["verdict"].clone(), safe.then_some(counts))
}

/// Runs every case with one and two workers; the classes of the safe runs.
fn check(cases: &[(PathBuf, &'static str)]) -> u64 {
    let outcomes = parallel_map(cases, 1, |(file, model)| {
        let one = native(file, model, "1");
        let two = native(file, model, "2");
        assert_eq!(agreed(&one), agreed(&two), "{} --{model}", file.display());
        // two workers and three: the same violation and counts, always
        let three = native(file, model, "3");
        let same = |report: &Value| {
            let statistics = &report["native"]["statistics"];
            (
                report["verdict"].clone(),
                statistics["reads_from_classes"].clone(),
                statistics["events"].clone(),
                report["witness"].clone(),
            )
        };
        assert_eq!(same(&two), same(&three), "{} --{model}", file.display());
        agreed(&one)
            .1
            .and_then(|counts| counts[0].as_u64())
            .unwrap_or(0)
    });
    outcomes.into_iter().sum()
}

#[test]
fn two_workers_explore_the_classes_one_explores() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bench = corpus_dir().join("bench");
    let mut cases: Vec<(PathBuf, &'static str)> = Vec::new();
    for example in [
        "dekker.c",
        "message_passing.c",
        "seqlock.c",
        "store_buffering.c",
    ] {
        for model in ["sc", "tso", "pso"] {
            cases.push((root.join("examples").join(example), model));
        }
    }
    for model in ["tso", "pso"] {
        cases.push((bench.join("nidhugg/C-tests/safestack_c21_21.c"), model));
    }
    let classic = support::sample("litmus_samples.tsv", "smc_engine");
    let full = support::full_tier();
    for test in litmus_tests()
        .into_iter()
        .filter(|test| full || classic.contains(&test.name))
    {
        cases.push((test.file.clone(), "pso"));
    }
    if full {
        for program in ["dekker.c", "lamport.c", "szymanski.c"] {
            cases.push((bench.join("nidhugg/SV-COMP").join(program), "sc"));
        }
    }
    let classes = check(&cases);
    assert!(
        classes >= 100,
        "the safe runs explored only {classes} classes"
    );
}
