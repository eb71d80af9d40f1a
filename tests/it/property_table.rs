//! The property table of a translation names every assertion of the
//! printed program by the id CBMC gives it: the ids and descriptions CBMC
//! lists (`--show-properties`) for the thread functions are exactly the
//! table's, and each entry carries the kind and statement of its property.
//! The programs: `tests/fixtures/properties/*.c` (arguments in `.args`,
//! the kinds the table must hold in `.kinds`) and some of the corpora.

use crate::support;

use lazysma::options::{MemoryModel, SmaImplementation, TranslateOptions};
use lazysma::translate::translate;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use support::{corpus_dir, require_cbmc};

const MODELS: [MemoryModel; 3] = [MemoryModel::Sc, MemoryModel::Tso, MemoryModel::Pso];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/properties")
}

/// The options of a fixture's `.args` (the few flags the fixtures use).
fn options_of(arguments: &str, model: MemoryModel) -> TranslateOptions {
    let mut options = TranslateOptions {
        sma: SmaImplementation::for_model(model),
        ..TranslateOptions::default()
    };
    let mut words = arguments.split_whitespace();
    while let Some(word) = words.next() {
        match word {
            "--pointer-check" => options.pointer_checks = true,
            "--unwinding-assertions" => options.unwinding_assertions = true,
            "--unwind" => {
                let depth = words.next().and_then(|n| n.parse().ok());
                options.bounds.unwind = depth.expect("--unwind N");
            }
            other => panic!("a fixture argument this test does not know: {other}"),
        }
    }
    options
}

/// (id, description) of the assertions CBMC lists in the thread functions
/// of the program `text`.
fn cbmc_properties(text: &str) -> BTreeSet<(String, String)> {
    let directory = tempfile::tempdir().expect("temporary directory");
    let file = directory.path().join("sequential.c");
    std::fs::write(&file, text).expect("write the program");
    let output = std::process::Command::new(support::cbmc_path().expect("cbmc"))
        .arg(&file)
        .args(["--show-properties", "--json-ui"])
        .output()
        .expect("run cbmc");
    let messages: Value = serde_json::from_slice(&output.stdout).expect("CBMC's JSON");
    let listed = messages
        .as_array()
        .expect("a list of messages")
        .iter()
        .filter_map(|message| message.get("properties"))
        .flat_map(|properties| properties.as_array().cloned().unwrap_or_default());
    listed
        .filter(|property| property["class"] == "assertion")
        .filter(|property| {
            let function = property["sourceLocation"]["function"].as_str();
            function.is_some_and(|name| name.starts_with("thread"))
        })
        .map(|property| {
            let text = |key: &str| property[key].as_str().unwrap_or_default().to_string();
            (text("name"), text("description"))
        })
        .collect()
}

/// Translates `file` under `options` and checks its table against CBMC's
/// list; returns the kinds of the table, as the JSON report names them.
fn check(file: &Path, options: &TranslateOptions) -> BTreeSet<String> {
    let translation = translate(file, options).expect("translates");
    let table = &translation.map.properties;
    let listed: BTreeSet<(String, String)> = table
        .iter()
        .map(|(id, property)| (id.clone(), property.description.clone()))
        .collect();
    assert_eq!(
        listed,
        cbmc_properties(&translation.c_source),
        "{} under {:?}",
        file.display(),
        options.sma
    );
    for (id, property) in table.iter() {
        let origin = property
            .origin
            .and_then(|origin| translation.map.origins.get(origin));
        let origin = origin.unwrap_or_else(|| panic!("{id} has no statement"));
        let place = format!("{}:{}: ", origin.file, origin.line);
        assert!(property.description.starts_with(&place), "{id}: {place}");
        let thread = translation.map.threads.get(property.thread);
        assert!(thread.is_some(), "{id}: thread {}", property.thread);
        assert!(id.starts_with(&format!("{}.", property.function)), "{id}");
    }
    table
        .iter()
        .map(|(_, property)| lazysma::report::schema::property_kind_name(property.kind).to_string())
        .collect()
}

#[test]
fn the_fixtures_properties_are_cbmcs_and_of_every_kind() {
    if !require_cbmc() {
        return;
    }
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("the fixtures")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "c"))
        .collect();
    fixtures.sort();
    assert!(!fixtures.is_empty());
    for file in fixtures {
        let arguments = std::fs::read_to_string(file.with_extension("args")).unwrap_or_default();
        let expected: BTreeSet<String> = std::fs::read_to_string(file.with_extension("kinds"))
            .expect("the .kinds beside the fixture")
            .lines()
            .map(str::to_string)
            .collect();
        for model in MODELS {
            let kinds = check(&file, &options_of(&arguments, model));
            let missing: Vec<&String> = expected.difference(&kinds).collect();
            assert!(missing.is_empty(), "{}: {missing:?}", file.display());
        }
    }
}

#[test]
fn the_corpus_programs_properties_are_cbmcs() {
    if !require_cbmc() {
        return;
    }
    let corpus = corpus_dir();
    let programs = [
        "bench/svcomp/pthread-atomic/dekker.c",
        "bench/svcomp/pthread/queue_ok.c",
        "bench/svcomp/pthread/stack-1.c",
        "bench/svcomp/pthread/indexer.c",
        "litmus/visible/MP+PPO015.c",
    ];
    for program in programs {
        let file = corpus.join(program);
        for model in MODELS {
            check(&file, &options_of("", model));
        }
    }
}
