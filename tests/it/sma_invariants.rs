//! Checks the T-CDLL invariants of `sma/etso.h` and `sma/epso.h` with CBMC
//! (harness `tests/sma/tcdll_invariants.c`: arbitrary bounded sequences of
//! writes, reads, fences, RMWs and clock moves against a shadow log), and
//! that the harness is strong enough: deliberately broken copies of the
//! headers (mutants) must violate some invariant.

use crate::sma_support as support;

use std::path::Path;

use support::{CbmcRun, Model, Status};

const HARNESS: &str = "tcdll_invariants.c";

/// Properties that state a reachable situation fail when it is reached;
/// every other property is an invariant and must hold.
fn is_reachability(description: &str) -> bool {
    description.starts_with("reachable:") || description == "end reachable"
}

fn check_all_invariants_hold(run: &CbmcRun, context: &str) -> Result<(), String> {
    for (description, status) in &run.properties {
        let wanted = if is_reachability(description) {
            Status::Failure
        } else {
            Status::Success
        };
        if *status != wanted {
            return Err(format!(
                "{context}: \"{description}\" is {status:?}, expected {wanted:?}"
            ));
        }
    }
    let invariants = run
        .properties
        .keys()
        .filter(|description| !is_reachability(description))
        .count();
    if invariants < 20 {
        return Err(format!(
            "{context}: only {invariants} invariant properties: {:?}",
            run.properties
        ));
    }
    Ok(())
}

#[test]
fn etso_lists_keep_their_invariants() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    let run = support::run_harness(&cbmc, HARNESS, Model::Etso, &[])?;
    check_all_invariants_hold(&run, "etso")
}

#[test]
fn epso_lists_keep_their_invariants() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    let run = support::run_harness(&cbmc, HARNESS, Model::Epso, &[])?;
    check_all_invariants_hold(&run, "epso")
}

#[test]
fn invariant_harness_compiles_with_gcc() -> Result<(), String> {
    for model in [Model::Etso, Model::Epso] {
        support::gcc_syntax_check(
            &support::harness_dir().join(HARNESS),
            &[model.define().to_string()],
        )?;
    }
    Ok(())
}

/// A deliberate defect: in `header`, replace `original` (which must occur
/// exactly once) by `broken`.
struct Mutant {
    name: &'static str,
    model: Model,
    header: &'static str,
    original: &'static str,
    broken: &'static str,
}

const MUTANTS: [Mutant; 8] = [
    Mutant {
        name: "newest read takes the oldest node",
        model: Model::Etso,
        header: "tcdll.h",
        original: "newest = sma_prev[loc][SMA_SENTINEL];",
        broken: "newest = sma_next[loc][SMA_SENTINEL];",
    },
    Mutant {
        name: "write may overtake an equal timestamp",
        model: Model::Etso,
        header: "tcdll.h",
        original: "ts < sma_tstamp[loc][succ]",
        broken: "ts <= sma_tstamp[loc][succ]",
    },
    Mutant {
        name: "no FIFO order per thread",
        model: Model::Etso,
        header: "etso.h",
        original: "    return sma_max_tstamp[t];\n",
        broken: "    return 0;\n",
    },
    Mutant {
        name: "reads forward expired writes",
        model: Model::Etso,
        header: "tcdll.h",
        original: "if (sma_last_tstamp[t][loc] > sma_clock) {",
        broken: "if (sma_last_tstamp[t][loc] >= sma_clock) {",
    },
    Mutant {
        name: "fence does not drain",
        model: Model::Etso,
        header: "tcdll.h",
        original: "    if (sma_clock < sma_max_tstamp[t])\n        sma_clock = sma_max_tstamp[t];",
        broken: "",
    },
    Mutant {
        name: "free node may be the head",
        model: Model::Etso,
        header: "tcdll.h",
        original: "    __CPROVER_assume(sma_tstamp[v][sma_next[v][node]] <= sma_clock);\n",
        broken: "",
    },
    Mutant {
        name: "no FIFO order per location",
        model: Model::Epso,
        header: "epso.h",
        original: "sma_tick_t bound = sma_last_tstamp[t][loc];",
        broken: "sma_tick_t bound = 0;",
    },
    Mutant {
        name: "store-store fence ignored",
        model: Model::Epso,
        header: "epso.h",
        original: "    sma_sfence_tstamp[t] = sma_max_tstamp[t];\n",
        broken: "",
    },
];

/// Copies the headers and the harness into `root` (same layout as the
/// repository), with `mutant` applied. Returns the harness path.
fn write_mutated_tree(root: &Path, mutant: &Mutant) -> Result<std::path::PathBuf, String> {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sma = root.join("sma");
    let tests = root.join("tests").join("sma");
    std::fs::create_dir_all(&sma).map_err(|error| error.to_string())?;
    std::fs::create_dir_all(&tests).map_err(|error| error.to_string())?;
    for header in [
        "common.h",
        "sc.h",
        "tcdll.h",
        "etso.h",
        "epso.h",
        "memory.h",
        "buffers.h",
        "tso_ref.h",
        "pso_ref.h",
    ] {
        let mut text = std::fs::read_to_string(repository.join("sma").join(header))
            .map_err(|error| error.to_string())?;
        if header == mutant.header {
            let occurrences = text.matches(mutant.original).count();
            if occurrences != 1 {
                return Err(format!(
                    "mutant \"{}\": {occurrences} occurrences of {:?} in {header}",
                    mutant.name, mutant.original
                ));
            }
            text = text.replace(mutant.original, mutant.broken);
        }
        std::fs::write(sma.join(header), text).map_err(|error| error.to_string())?;
    }
    for file in ["model.h", "prologue.h", HARNESS] {
        std::fs::copy(support::harness_dir().join(file), tests.join(file))
            .map_err(|error| error.to_string())?;
    }
    Ok(tests.join(HARNESS))
}

/// Whether the mutant violates some invariant of the harness.
fn mutant_is_caught(cbmc: &Path, mutant: &Mutant) -> Result<(), String> {
    let root = tempfile::tempdir().map_err(|error| error.to_string())?;
    let harness = write_mutated_tree(root.path(), mutant)?;
    let run = support::run_cbmc(cbmc, &harness, &[mutant.model.define().to_string()])?;
    let violates = run
        .properties
        .iter()
        .any(|(description, status)| !is_reachability(description) && *status == Status::Failure);
    if violates {
        Ok(())
    } else {
        Err(format!(
            "mutant \"{}\" of {} violates no invariant",
            mutant.name, mutant.header
        ))
    }
}

#[test]
fn broken_lists_are_caught() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    // the default tier checks every other mutant, the full tier
    // (`LAZYSMA_FULL=1`) every one
    let mutants: Vec<&Mutant> = MUTANTS
        .iter()
        .enumerate()
        .filter(|(index, _)| support::full_tier() || index % 2 == 0)
        .map(|(_, mutant)| mutant)
        .collect();
    // two CBMC runs at a time: each takes one processor for long
    let (first, second) = mutants.split_at(mutants.len() / 2);
    let check = |mutants: &[&Mutant]| -> Result<(), String> {
        mutants
            .iter()
            .try_for_each(|mutant| mutant_is_caught(&cbmc, mutant))
    };
    std::thread::scope(|scope| {
        let other = scope.spawn(|| check(second));
        check(first)?;
        other
            .join()
            .map_err(|_| "a mutant's check panicked".to_string())?
    })
}

/// Asserts, after `sma_init`, that every location's list has the fresh
/// shape `sma_init` builds without the prologue's tables.
const FRESH_SHAPE_CHECK: &str = r#"
void lists_start_fresh(void)
{
    sma_loc_t v;
    unsigned int i;
    sma_init();
    for (v = 0; v < SMA_LOCATIONS; v++) {
        for (i = 0; i <= SMA_SENTINEL; i++) {
            __CPROVER_assert(sma_next[v][i] == (i == SMA_SENTINEL ? 0 : i + 1), "next");
            __CPROVER_assert(sma_prev[v][i] == (i == 0 ? SMA_SENTINEL : i - 1), "prev");
            __CPROVER_assert(sma_tstamp[v][i] == (i == SMA_SENTINEL ? SMA_NEVER : 0), "tstamp");
        }
        __CPROVER_assert(v >= SMA_HEAP_BASE || sma_value[v][SMA_QSIZE - 1] == SMA_INITIAL_VALUE(v), "value");
    }
}
"#;

/// The translator's tables of the lists' initial shape
/// (`src/printer/fresh_lists.rs`) give the lists `sma_init` builds without
/// them: checked by CBMC on translated programs under both timestamped
/// models, with the tables and with them left out.
#[test]
fn translated_lists_start_as_sma_init_builds_them() -> Result<(), String> {
    use lazysma::options::{SmaImplementation, TranslateOptions};
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    let dir = tempfile::tempdir().map_err(|error| error.to_string())?;
    let program = dir.path().join("fresh.c");
    std::fs::write(
        &program,
        "#include <pthread.h>\nint x, y = 5, a[3] = {1, 0, -2};\n\
         void *worker(void *arg) { x = 1; a[1] = y; return 0; }\n\
         int main(void) { pthread_t h; pthread_create(&h, 0, worker, 0); y = 2; pthread_join(h, 0); return 0; }\n",
    )
    .map_err(|error| error.to_string())?;
    for sma in [SmaImplementation::Etso, SmaImplementation::Epso] {
        for qsize in [2, 3] {
            let mut options = TranslateOptions {
                sma,
                ..TranslateOptions::default()
            };
            options.bounds.qsize = qsize;
            let translation = lazysma::translate::translate(&program, &options)
                .map_err(|error| error.to_string())?;
            let with_tables = translation.c_source;
            if !with_tables.contains("#define SMA_FRESH_LISTS\n") {
                return Err(format!(
                    "{sma:?} qsize {qsize}: the translation has no tables of the fresh lists"
                ));
            }
            let without_tables = with_tables.replace("#define SMA_FRESH_LISTS\n", "");
            for (variant, source) in [
                ("tables", with_tables),
                ("sma_init's loops", without_tables),
            ] {
                let file = dir.path().join("check.c");
                std::fs::write(&file, format!("{source}{FRESH_SHAPE_CHECK}"))
                    .map_err(|error| error.to_string())?;
                let run = support::run_cbmc(
                    &cbmc,
                    &file,
                    &["--function".to_string(), "lists_start_fresh".to_string()],
                )?;
                for property in ["next", "prev", "tstamp", "value"] {
                    run.expect(
                        property,
                        Status::Success,
                        &format!("{sma:?} qsize {qsize}, {variant}"),
                    )?;
                }
            }
        }
    }
    Ok(())
}
