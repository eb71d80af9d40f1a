//! The mutual-exclusion benchmarks of the FMCAD'16 Table I (Dekker,
//! Peterson, Lamport, Szymanski) under TSO and PSO with the paper's bounds:
//! `verify` confirms the violation natively (exit 10) and the report names
//! the reordering and where a fence (under PSO maybe a store-store fence)
//! forbids it.

use crate::support;

use support::{corpus_dir, parallel_map, require_cbmc, verify, workers};

/// (program, qsize, maxclock) of Table I; all use unwind 1 and 2 rounds.
const TABLE_I: [(&str, &str, &str); 4] = [
    ("dekker.c", "2", "2"),
    ("peterson.c", "3", "2"),
    ("lamport.c", "2", "2"),
    ("szymanski.c", "3", "3"),
];

#[test]
fn table_i_bugs_are_confirmed_and_explained() {
    if !require_cbmc() {
        return;
    }
    let directory = corpus_dir()
        .join("bench")
        .join("svcomp")
        .join("pthread-atomic-classic");
    let mut jobs = Vec::new();
    for model in ["--tso", "--pso"] {
        for (program, qsize, maxclock) in TABLE_I {
            jobs.push((directory.join(program), model, qsize, maxclock));
        }
    }
    let outcomes = parallel_map(&jobs, workers(), |(file, model, qsize, maxclock)| {
        let arguments = [
            *model,
            "--unwind",
            "1",
            "--rounds",
            "2",
            "--qsize",
            qsize,
            "--maxclock",
            maxclock,
            "--format",
            "json",
        ];
        let (code, stdout, stderr) = verify(file, &arguments);
        (format!("{} {model}", file.display()), code, stdout, stderr)
    });
    let mut failures = Vec::new();
    for (name, code, stdout, stderr) in outcomes {
        if code != 10 {
            failures.push(format!("{name}: exit {code}: {stderr}{stdout}"));
            continue;
        }
        let Ok(report) = serde_json::from_str::<serde_json::Value>(&stdout) else {
            failures.push(format!("{name}: no JSON"));
            continue;
        };
        let diagnosis = &report["diagnosis"];
        let fences = diagnosis["fences"].as_array().cloned().unwrap_or_default();
        let delayed = diagnosis["reorderings"]
            .as_array()
            .is_some_and(|reorderings| {
                reorderings.iter().any(|r| {
                    r["explanation"]
                        .as_str()
                        .is_some_and(|e| e.contains("fence between"))
                })
            });
        if report["check"]["realisable"] != true
            || diagnosis["sc_realisable"] != false
            || fences.is_empty()
            || !delayed
        {
            failures.push(format!(
                "{name}: not confirmed or not explained: {diagnosis}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
