//! The frontend never panics: mutated corpus programs (truncated, bytes
//! replaced, lines dropped) and random inputs give a program or a
//! diagnostic.

use crate::support;

use lazysma::frontend;
use lazysma::options::TranslateOptions;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn corpus_samples() -> Vec<String> {
    let corpus = support::corpus_dir();
    let files: Vec<PathBuf> = [
        "litmus/visible/2+2W.c",
        "litmus/visible/S+PPO064.c",
        "bench/svcomp/pthread-atomic/dekker.c",
        "bench/svcomp/pthread/queue_ok.c",
        "bench/nidhugg/C-tests/safestack_c21_21.c",
        "bench/nidhugg/from_DCDPOR/parker.c",
    ]
    .iter()
    .map(|f| corpus.join(f))
    .collect();
    files
        .iter()
        .map(|f| {
            frontend::preprocess(f, &TranslateOptions::default())
                .unwrap_or_else(|error| panic!("{} preprocesses: {error:?}", f.display()))
        })
        .collect()
}

/// Only the user's part of the preprocessed text is mutated (after the
/// last system-header marker), so that mutations hit the program.
fn user_start(text: &str) -> usize {
    text.rfind(" 2\n").map(|i| i + 3).unwrap_or(0)
}

#[test]
fn mutated_corpus_programs_do_not_panic() {
    let samples = corpus_samples();
    let replacements = [
        b'{', b'}', b'(', b')', b';', b'*', b'&', b'0', b' ', b'x', b'[', b',', b'"', b'\'',
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut lowered = 0;
    for text in &samples {
        let start = user_start(text);
        let user_len = text.len() - start;
        for k in 0..40 {
            // Truncation.
            let cut = start + (user_len * k / 40);
            if let Some(prefix) = text.get(..cut)
                && frontend::lower_preprocessed(prefix).is_ok()
            {
                lowered += 1;
            }
            // Byte replacement (ASCII only, so the text stays UTF-8).
            let mut bytes = text.clone().into_bytes();
            for _ in 0..3 {
                let at = start + (next() as usize) % user_len.max(1);
                if at < bytes.len() && bytes[at].is_ascii() {
                    bytes[at] = replacements[(next() as usize) % replacements.len()];
                }
            }
            if let Ok(mutated) = String::from_utf8(bytes)
                && frontend::lower_preprocessed(&mutated).is_ok()
            {
                lowered += 1;
            }
            // Dropped line.
            let lines: Vec<&str> = text[start..].lines().collect();
            if !lines.is_empty() {
                let drop = (next() as usize) % lines.len();
                let mutated: String = text[..start].to_string()
                    + &lines
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != drop)
                        .map(|(_, l)| *l)
                        .collect::<Vec<_>>()
                        .join("\n");
                if frontend::lower_preprocessed(&mutated).is_ok() {
                    lowered += 1;
                }
            }
        }
    }
    eprintln!("{lowered} mutated programs still lowered");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_do_not_panic(body in "[a-z0-9_ ;(){}\\[\\]*&+=<>!|,.-]{0,80}") {
        let text = format!("# 1 \"random.c\"\nint x, y[2];\nstruct s {{ int a; struct s *n; }} g;\nint main(void) {{ {body} }}\n");
        let _ = frontend::lower_preprocessed(&text);
    }

    #[test]
    fn random_statements_over_shared_data_do_not_panic(
        statements in proptest::collection::vec(prop_oneof![
            Just("x = y[1];"), Just("y[x] = x++;"), Just("if (x && y[0]) x = 1; else y[1]--;"),
            Just("while (x) { x--; }"), Just("g.n = &g;"), Just("g.n->a = 3;"), Just("int *p = &y[1]; *p += 2;"),
            Just("x = x ? y[0] : y[1];"), Just("goto end;"), Just("switch (x) { case 1: x = 2; break; default: ; }"),
            Just("for (int i = 0; i < 2; i++) { y[i] = i; }"), Just("__sync_synchronize();"), Just("end: ;"),
            Just("x = __sync_fetch_and_add(&y[0], 1);"), Just("do { x++; } while (x < 3);"), Just("return x;"),
        ], 0..8)
    ) {
        let text = format!(
            "# 1 \"random.c\"\nint x, y[2];\nstruct s {{ int a; struct s *n; }} g;\nint main(void) {{ {} return 0; }}\n",
            statements.join("\n")
        );
        let _ = frontend::lower_preprocessed(&text);
    }
}

/// A mutation of a C program's text after its `#include` lines, chosen
/// by `next`: an operator replaced, a unary operator put before a name
/// (`!pool.lock`), a digit changed, a line dropped, two lines swapped.
fn mutate(source: &str, next: &mut dyn FnMut() -> u64) -> String {
    let start = source
        .match_indices("#include")
        .last()
        .and_then(|(at, _)| source[at..].find('\n').map(|end| at + end + 1))
        .unwrap_or(0);
    let (head, body) = source.split_at(start);
    let positions = |accept: &dyn Fn(usize, u8) -> bool| -> Vec<usize> {
        body.bytes()
            .enumerate()
            .filter(|&(i, b)| accept(i, b))
            .map(|(i, _)| i)
            .collect()
    };
    let bytes = body.as_bytes();
    let kind = next() % 5;
    let mut pick = |candidates: &[usize]| {
        (!candidates.is_empty()).then(|| candidates[(next() as usize) % candidates.len()])
    };
    let mut body = body.to_string();
    match kind {
        0 => {
            let at = pick(&positions(&|_, b| b"+-*&!=<>|".contains(&b)));
            if let Some(at) = at {
                let by = b"+-*&!<>|"[(at * 7 + bytes.len()) % 8];
                body.replace_range(at..=at, &(by as char).to_string());
            }
        }
        1 => {
            let word_start = |i: usize, b: u8| {
                b.is_ascii_alphabetic()
                    && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'))
            };
            if let Some(at) = pick(&positions(&word_start)) {
                let unary = ["!", "-", "*", "&", "~"][at % 5];
                body.insert_str(at, unary);
            }
        }
        2 => {
            if let Some(at) = pick(&positions(&|_, b| b.is_ascii_digit())) {
                let digit = b"0123456789"[(at + 3) % 10];
                body.replace_range(at..=at, &(digit as char).to_string());
            }
        }
        _ => {
            let mut lines: Vec<&str> = body.lines().collect();
            if lines.len() > 1 {
                let at = pick(&(0..lines.len() - 1).collect::<Vec<_>>()).unwrap_or(0);
                if kind == 3 {
                    lines.remove(at);
                } else {
                    lines.swap(at, at + 1);
                }
            }
            body = lines.join("\n") + "\n";
        }
    }
    format!("{head}{body}")
}

/// What a mutated program gave.
#[derive(Debug)]
enum Mutant {
    Refused,
    /// Translated; each engine's exit code under TSO.
    Translated {
        cbmc: i32,
        native: i32,
    },
}

/// Runs the mutant `file`: gcc's verdict on it, `lazysma translate`, and
/// (when it translates) `verify` under TSO with CBMC and the native
/// engine. `Err` says what went wrong: a panic, an internal error (exit
/// 4), a program gcc rejects translated, a refusal without a message, or
/// opposite verdicts.
fn check_mutant(file: &Path) -> Result<Mutant, String> {
    let name = file.display();
    let gcc_accepts = std::process::Command::new("gcc")
        .args(["-fsyntax-only", "-std=gnu11", "-w"])
        .arg(file)
        .output()
        .map_err(|error| format!("gcc runs: {error}"))?
        .status
        .success();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lazysma"))
        .arg("translate")
        .arg(file)
        .args(["--tso", "-o"])
        .arg(file.with_extension("seq.c"))
        .output()
        .map_err(|error| format!("lazysma runs: {error}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code().unwrap_or(-1);
    if stderr.contains("panicked") || !matches!(code, 0 | 1) {
        return Err(format!("{name}: translate exit {code}\n{stderr}"));
    }
    if code == 1 {
        if !stderr.contains("error") {
            return Err(format!("{name}: refused without a diagnostic\n{stderr}"));
        }
        return Ok(Mutant::Refused);
    }
    if !gcc_accepts {
        return Err(format!("{name}: gcc rejects it, lazysma translated it"));
    }
    let verify = |engine: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_lazysma"))
            .arg("verify")
            .arg(file)
            .args([
                "--tso",
                "--no-sc-run",
                "--timeout",
                "60",
                "--engine",
                engine,
            ])
            .output()
            .map(|output| {
                let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
                (output.status.code().unwrap_or(-1), stderr)
            })
            .map_err(|error| format!("lazysma runs: {error}"))
    };
    let (cbmc, cbmc_stderr) = verify("cbmc")?;
    let (native, native_stderr) = verify("smc")?;
    for (engine, code, stderr) in [
        ("cbmc", cbmc, &cbmc_stderr),
        ("smc", native, &native_stderr),
    ] {
        if stderr.contains("panicked") || !matches!(code, 0 | 1 | 2 | 3 | 10) {
            return Err(format!(
                "{name}: verify --engine {engine} exit {code}\n{stderr}"
            ));
        }
    }
    if matches!((cbmc, native), (0, 10) | (10, 0)) {
        return Err(format!(
            "{name}: CBMC exit {cbmc}, the native engine exit {native}: opposite verdicts"
        ));
    }
    Ok(Mutant::Translated { cbmc, native })
}

/// Mutated corpus programs are each refused with a diagnostic or, when gcc
/// accepts them, translated; no panic, no internal error (exit 4), and
/// the native engine and CBMC never give opposite verdicts. A small
/// deterministic sample by default; `LAZYSMA_FULL=1` takes 20 times as
/// many, and `LAZYSMA_MUTATION_SEED=N` other seeds (a held-out run).
#[test]
fn mutated_programs_are_refused_or_translated_and_the_engines_agree() {
    if !support::require_cbmc() {
        return;
    }
    let full = support::full_tier();
    let count = if full { 160 } else { 8 };
    let seed: u64 = std::env::var("LAZYSMA_MUTATION_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut programs: Vec<PathBuf> =
        std::fs::read_dir(support::corpus_dir().join("litmus/visible"))
            .expect("the litmus corpus")
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "c"))
            .collect();
    programs.sort();
    assert!(programs.len() > 100, "the litmus corpus has its programs");
    let directory = tempfile::tempdir().expect("temporary directory");
    let mutants: Vec<PathBuf> = (0..count)
        .map(|k| {
            let program = &programs[(next() as usize) % programs.len()];
            let source = std::fs::read_to_string(program).expect("a corpus program");
            let mutant = directory.path().join(format!("mutant{k}.c"));
            std::fs::write(&mutant, mutate(&source, &mut next)).expect("the mutant is written");
            mutant
        })
        .collect();
    let results =
        support::parallel_map(&mutants, support::workers(), |mutant| check_mutant(mutant));
    let failures: Vec<String> = results
        .iter()
        .filter_map(|result| result.as_ref().err().cloned())
        .collect();
    let translated = results
        .iter()
        .filter(|result| matches!(result, Ok(Mutant::Translated { .. })))
        .count();
    let same_verdict = results
        .iter()
        .filter(
            |result| matches!(result, Ok(Mutant::Translated { cbmc, native }) if cbmc == native),
        )
        .count();
    eprintln!(
        "{count} mutants, seed {seed}: {translated} translated, {same_verdict} with the same exit code from both engines"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
