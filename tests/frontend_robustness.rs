//! The frontend never panics: mutated corpus programs (truncated, bytes
//! replaced, lines dropped) and random inputs give a program or a
//! diagnostic.

mod support;

use lazysma::frontend;
use lazysma::options::TranslateOptions;
use proptest::prelude::*;
use std::path::PathBuf;

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
