//! The passes and printer on real C sources (frontend included): litmus
//! tests under SC checked by CBMC, and every benchmark program translated
//! into C that gcc accepts, in milliseconds.

mod passes_support;

use lazysma::options::{SmaImplementation, TranslateOptions};
use lazysma::translate::translate;
use passes_support::{expect_verdict, gcc_accepts};
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
}

fn sc_options() -> TranslateOptions {
    TranslateOptions {
        sma: SmaImplementation::Sc,
        ..TranslateOptions::default()
    }
}

#[test]
fn litmus_sample_under_sc() {
    let dir = shared().join("litmus").join("visible");
    if !dir.exists() {
        eprintln!("litmus corpus not found beside the repository");
        return;
    }
    for (file, safe) in [
        ("SB.c", true),
        ("2+2W.c", true),
        ("bf.c", false),
        ("non-treelike-coherence.c", false),
    ] {
        let translation = match translate(&dir.join(file), &sc_options()) {
            Ok(t) => t,
            Err(e) => panic!("{file}: {e}"),
        };
        assert!(
            translation.map.threads.len() >= 3,
            "{file}: main and at least two threads"
        );
        expect_verdict(&translation.c_source, safe, file);
    }
}

#[test]
fn every_benchmark_translates_to_c_that_gcc_accepts() {
    let manifest = shared().join("bench").join("manifest.tsv");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        eprintln!("benchmark corpus not found beside the repository");
        return;
    };
    let mut translated = 0;
    for line in text.lines().skip(1) {
        let Some(path) = line.split('\t').next() else {
            continue;
        };
        let file = shared().join("bench").join(path);
        let mut options = TranslateOptions::default();
        options.bounds.unwind = 3;
        let start = std::time::Instant::now();
        match translate(&file, &options) {
            Ok(t) => {
                let elapsed = start.elapsed();
                assert!(
                    elapsed.as_millis() < 2000,
                    "{path}: translation took {elapsed:?}"
                );
                if let Some(Err(e)) = gcc_accepts(&t.c_source) {
                    panic!("{path}: gcc rejects the output:\n{e}");
                }
                translated += 1;
            }
            // Unsupported constructs are reported, never a panic.
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
    assert!(
        translated >= 40,
        "only {translated} benchmark programs translated"
    );
}
