//! libvsync's locks and queues as their users write them: the clients
//! of `tests/fixtures/libvsync/` (listed with their seeded bugs in
//! `clients.tsv`) on the library's own headers from the public corpora
//! (`libvsync/`), decided by the native engine. The default tier runs
//! each client as written under PSO in the x86_64 configuration, and
//! with its seed under PSO in libvsync's verification configuration;
//! `LAZYSMA_FULL=1` runs both configurations under SC, TSO and PSO, each
//! client as written and seeded (`scripts/bench-libvsync.py` times the
//! same runs).

use crate::support;
use std::path::{Path, PathBuf};
use support::{parallel_map, verify, workers};

/// One client of `clients.tsv`.
struct Client {
    name: String,
    seed: String,
    violated_under: Vec<String>,
    arguments: Vec<String>,
}

fn clients_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libvsync")
}

fn clients() -> Vec<Client> {
    let manifest = std::fs::read_to_string(clients_folder().join("clients.tsv"))
        .expect("read tests/fixtures/libvsync/clients.tsv");
    manifest
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "clients.tsv: {line}");
            Client {
                name: fields[0].to_string(),
                seed: fields[1].to_string(),
                violated_under: fields[2].split(',').map(str::to_string).collect(),
                arguments: fields[3].split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}

/// The `-I` arguments of libvsync's three header folders.
fn includes() -> Vec<String> {
    let library = support::corpus_dir().join("libvsync");
    ["include", "vatomic/include", "test/include"]
        .iter()
        .flat_map(|folder| {
            let path = library.join(folder);
            assert!(
                path.is_dir(),
                "libvsync's headers are not in {} (see docs/testing.md, \"The corpora\")",
                path.display()
            );
            ["-I".to_string(), path.display().to_string()]
        })
        .collect()
}

/// One run: a client in a configuration under a model, seeded or not.
struct Run<'a> {
    client: &'a Client,
    verification: bool,
    model: &'static str,
    seeded: bool,
}

impl Run<'_> {
    fn expected(&self) -> i32 {
        let violated = self.client.violated_under.iter().any(|m| m == self.model);
        if self.seeded && violated { 10 } else { 0 }
    }

    fn arguments(&self, includes: &[String]) -> Vec<String> {
        let mut arguments = includes.to_vec();
        if self.verification {
            arguments.extend(
                ["-D", "VSYNC_VERIFICATION", "-D", "VSYNC_VERIFICATION_QUICK"].map(String::from),
            );
        }
        if self.seeded {
            arguments.extend(["-D".to_string(), self.client.seed.clone()]);
        }
        arguments.extend([format!("--{}", self.model), "--engine".into(), "smc".into()]);
        arguments.extend(self.client.arguments.iter().cloned());
        arguments
    }

    fn describe(&self) -> String {
        format!(
            "{} ({}, {}{})",
            self.client.name,
            if self.verification {
                "verification"
            } else {
                "x86_64"
            },
            self.model,
            if self.seeded { ", seeded" } else { "" }
        )
    }
}

fn check(runs: &[Run]) {
    let includes = includes();
    let folder = clients_folder();
    let outcomes = parallel_map(runs, workers(), |run| {
        let program = folder.join(format!("{}.c", run.client.name));
        let arguments = run.arguments(&includes);
        let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = verify(&program, &arguments);
        (code, format!("{stdout}{stderr}"))
    });
    let wrong: Vec<String> = runs
        .iter()
        .zip(&outcomes)
        .filter(|(run, (code, _))| *code != run.expected())
        .map(|(run, (code, output))| {
            let last: Vec<&str> = output.lines().rev().take(4).collect();
            format!(
                "{}: exit {code}, expected {}: {last:?}",
                run.describe(),
                run.expected()
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn libvsync_clients_are_safe_and_their_seeded_bugs_found() {
    let clients = clients();
    assert!(clients.len() >= 12, "eight locks and two queues at least");
    let runs: Vec<Run> = if support::full_tier() {
        clients
            .iter()
            .flat_map(|client| {
                [false, true].into_iter().flat_map(move |verification| {
                    ["sc", "tso", "pso"].into_iter().flat_map(move |model| {
                        [false, true].map(|seeded| Run {
                            client,
                            verification,
                            model,
                            seeded,
                        })
                    })
                })
            })
            .collect()
    } else {
        clients
            .iter()
            .flat_map(|client| {
                [(false, false), (true, true)].map(|(verification, seeded)| Run {
                    client,
                    verification,
                    model: "pso",
                    seeded,
                })
            })
            .collect()
    };
    check(&runs);
}

#[test]
fn every_client_of_the_folder_is_listed() {
    let listed: Vec<String> = clients().into_iter().map(|client| client.name).collect();
    let mut files: Vec<String> = std::fs::read_dir(clients_folder())
        .expect("read tests/fixtures/libvsync")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_stem()?.to_string_lossy().into_owned();
            (path.extension()? == "c").then_some(name)
        })
        .collect();
    files.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(
        files, sorted,
        "every client .c is in clients.tsv and no other"
    );
}
