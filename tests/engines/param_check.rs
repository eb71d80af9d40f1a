//! `lazysma param`: the fixtures of `tests/fixtures/param/` (each `.c`
//! with a `.desc` of `run:`, `exit:`, `contains:`, `not-contains:` and
//! `tier: full` lines, as in `tests/fixtures/verify/`, the runs being of
//! `lazysma param`), and the cross-check against the native engine: for
//! every fixture the check decides and for random programs of the fragment
//! (two or three shared booleans, roles chosen by nondeterministic
//! choices, stores, conditional stores, fences and assertions), the
//! parameterised verdict agrees with `lazysma verify --engine smc` on the
//! program with main's creation loop unrolled N = 1 to 4 times: a
//! violation for some N means the parameterised verdict is unsafe, a safe
//! parameterised verdict means every N is safe, and every parameterised
//! counterexample is confirmed (never exit 4). The default tier
//! cross-checks the fixtures under TSO and four random programs, the full
//! tier (`LAZYSMA_FULL=1`) the fixtures under SC too and forty programs.

use crate::support;

use std::path::{Path, PathBuf};
use support::desc::Run;
use support::{parallel_map, workers};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/param")
}

fn param(file: &Path, arguments: &[String]) -> (i32, String) {
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = support::run("param", file, &arguments);
    (code, format!("{stdout}{stderr}"))
}

#[test]
fn every_fixture_gives_what_its_desc_expects() {
    let full = support::full_tier();
    let cases: Vec<(PathBuf, Vec<Run>)> = support::desc::cases(&fixtures())
        .into_iter()
        .map(|case| (case.program, case.runs))
        .collect();
    assert!(cases.len() >= 8, "the param fixtures are there");
    let runs: Vec<(&PathBuf, &Run)> = cases
        .iter()
        .flat_map(|(program, runs)| runs.iter().map(move |run| (program, run)))
        .filter(|(_, run)| full || !run.full_tier_only)
        .collect();
    let failures: Vec<String> = parallel_map(&runs, workers(), |&(program, run)| {
        let (code, output) = param(program, &run.arguments);
        let mut wrong = Vec::new();
        if run.exit.is_some_and(|exit| exit != code) {
            wrong.push(format!("exit {code}, not {:?}", run.exit));
        }
        for text in &run.contains {
            if !output.contains(text.as_str()) {
                wrong.push(format!("no `{text}`"));
            }
        }
        for text in &run.not_contains {
            if output.contains(text.as_str()) {
                wrong.push(format!("`{text}` is there"));
            }
        }
        (!wrong.is_empty()).then(|| {
            format!(
                "{} {}: {}\n{output}",
                program.display(),
                run.arguments.join(" "),
                wrong.join("; ")
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The line of main's creation loop, as `param` reports it.
fn creation_line(output: &str) -> Option<u32> {
    let rest = output.split("creation loop at line ").nth(1)?;
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// Cross-checks one program under one model: the parameterised exit code
/// when they agree (`None` outside the fragment), else what disagrees.
fn cross_check(program: &Path, model: &str, extra: &[String]) -> Result<Option<i32>, String> {
    let mut arguments = vec![model.to_string(), "--color".into(), "never".into()];
    arguments.extend(extra.iter().cloned());
    let (parameterised, output) = param(program, &arguments);
    if parameterised == 1 {
        return Ok(None); // outside the fragment: nothing to cross-check
    }
    let name = format!("{} {model} {}", program.display(), extra.join(" "));
    if parameterised != 0 && parameterised != 10 {
        return Err(format!("{name}: param exit {parameterised}\n{output}"));
    }
    let line =
        creation_line(&output).ok_or_else(|| format!("{name}: no creation loop\n{output}"))?;
    for threads in 1..=4 {
        let unwindset = format!("{line}:{threads}");
        let mut verify = vec![
            model,
            "--engine",
            "smc",
            "--no-deadlock-check",
            "--unwindset",
            unwindset.as_str(),
            "--color",
            "never",
        ];
        verify.extend(extra.iter().map(String::as_str));
        let (concrete, stdout, stderr) = support::run("verify", program, &verify);
        if concrete == 10 && parameterised == 0 {
            return Err(format!(
                "{name}: safe for any N, but a violation with N = {threads}\n{output}\n{stdout}{stderr}"
            ));
        }
        if concrete != 0 && concrete != 10 {
            // the native engine gives no answer for this N: nothing to compare
            continue;
        }
    }
    Ok(Some(parameterised))
}

#[test]
fn fixtures_agree_with_the_native_engine_for_one_to_four_threads() {
    // the default tier cross-checks under TSO, the full tier under SC too
    let models: &[&str] = if support::full_tier() {
        &["--tso", "--sc"]
    } else {
        &["--tso"]
    };
    let mut jobs: Vec<(PathBuf, &str, Vec<String>)> = Vec::new();
    for case in support::desc::cases(&fixtures()) {
        let program = case.program;
        for &model in models {
            jobs.push((program.clone(), model, Vec::new()));
        }
    }
    jobs.push((
        fixtures().join("store_buffering_roles.c"),
        "--tso",
        vec!["-D".into(), "FENCED".into()],
    ));
    let outcomes = parallel_map(&jobs, workers(), |(program, model, extra)| {
        cross_check(program, model, extra)
    });
    let failures: Vec<String> = outcomes.iter().filter_map(|o| o.clone().err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let decided = outcomes.iter().filter(|o| matches!(o, Ok(Some(_)))).count();
    assert!(
        decided >= 7,
        "only {decided} fixture runs were cross-checked"
    );
}

/// A small deterministic random generator (xorshift).
struct Random(u64);

impl Random {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// A random program of the fragment: roles chosen by nondeterministic
/// choices, each a few stores, conditional stores, fences and checks of
/// two shared booleans.
fn random_program(seed: u64) -> String {
    let mut random = Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let variables = 2 + random.below(2);
    let roles = 2 + random.below(2);
    let mut text = String::from(
        "#include <pthread.h>\n#include <assert.h>\nextern _Bool __VERIFIER_nondet_bool(void);\n",
    );
    for variable in 0..variables {
        text.push_str(&format!("_Bool v{variable} = 0;\n"));
    }
    text.push_str("void *worker(void *arg)\n{\n");
    for role in 0..roles {
        let opening = if role == 0 {
            "    if (__VERIFIER_nondet_bool()) {\n".to_string()
        } else if role + 1 < roles {
            "    } else if (__VERIFIER_nondet_bool()) {\n".to_string()
        } else {
            "    } else {\n".to_string()
        };
        text.push_str(&opening);
        let instructions = 1 + random.below(3);
        for at in 0..instructions {
            let x = random.below(variables);
            let y = random.below(variables);
            let c = random.below(2);
            let d = random.below(2);
            let last = role + 1 == roles && at + 1 == instructions;
            let kind = if last { 3 } else { random.below(4) };
            text.push_str(&match kind {
                0 => format!("        v{x} = {c};\n"),
                1 => format!("        if (v{x} == {c}) v{y} = {d};\n"),
                2 => "        __sync_synchronize();\n".to_string(),
                _ => format!(
                    "        {{ _Bool a = v{x}; _Bool b = v{y}; assert(!(a == {c} && b == {d})); }}\n"
                ),
            });
        }
    }
    text.push_str("    }\n    return 0;\n}\n");
    text.push_str(
        "int main(void)\n{\n    pthread_t t;\n    while (__VERIFIER_nondet_bool())\n        \
         pthread_create(&t, 0, worker, 0);\n    return 0;\n}\n",
    );
    text
}

#[test]
fn random_programs_agree_with_the_native_engine_for_one_to_four_threads() {
    let count = if support::full_tier() { 40 } else { 4 };
    let directory = std::env::temp_dir().join(format!("lazysma-param-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a temporary directory");
    let mut jobs: Vec<(PathBuf, &str)> = Vec::new();
    for seed in 0..count {
        let program = directory.join(format!("random_{seed}.c"));
        std::fs::write(&program, random_program(seed)).expect("the program is written");
        for model in ["--tso", "--sc"] {
            jobs.push((program.clone(), model));
        }
    }
    let outcomes = parallel_map(&jobs, workers(), |(program, model)| {
        cross_check(program, model, &[]).map_err(|failure| {
            let text = std::fs::read_to_string(program).unwrap_or_default();
            format!("{failure}\nprogram:\n{text}")
        })
    });
    let _ = std::fs::remove_dir_all(&directory);
    let failures: Vec<String> = outcomes.iter().filter_map(|o| o.clone().err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let count_of = |code: i32| {
        outcomes
            .iter()
            .filter(|o| matches!(o, Ok(Some(c)) if *c == code))
            .count()
    };
    let (safe, unsafe_) = (count_of(0), count_of(10));
    println!("random programs: {safe} safe and {unsafe_} unsafe runs of param");
    // every random program is in the fragment, and the sample has both verdicts
    assert_eq!(safe + unsafe_, jobs.len(), "a random program was refused");
    assert!(safe > 0 && unsafe_ > 0, "{safe} safe, {unsafe_} unsafe");
}

#[test]
fn fences_parameterised_finds_the_fences_that_make_every_number_of_threads_safe() {
    let (code, stdout, stderr) = support::run(
        "fences",
        &fixtures().join("store_buffering_roles.c"),
        &["--parameterised"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("safe for any number of threads under TSO with 2 fences"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 22: `__sync_synchronize();` after `x = 1;`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 27: `__sync_synchronize();` after `y = 1;`"),
        "{stderr}"
    );
    assert!(
        stdout.contains("+        x = 1; __sync_synchronize();"),
        "{stdout}"
    );
    // an SC bug: no fence helps
    let (code, _, stderr) = support::run(
        "fences",
        &fixtures().join("test_then_set.c"),
        &["--parameterised"],
    );
    assert_eq!(code, 10, "{stderr}");
    assert!(stderr.contains("possible under SC"), "{stderr}");
    // outside the fragment: the reason, once
    let (code, _, stderr) = support::run(
        "fences",
        &fixtures().join("cas_counter.c"),
        &["--parameterised"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("an atomic read-modify-write"), "{stderr}");
    assert!(!stderr.contains("error: error:"), "{stderr}");
}
