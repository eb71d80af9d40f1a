//! The stress test of a reduced cycle as a standalone C program for
//! `gcc -O2 -pthread` (no lazysma header): one pthread per thread of the
//! cycle, a sense-reversing spin barrier at the start and end of each
//! round, the shared locations reset before each round, the loads into
//! per-round register slots, the weak outcome counted after each round;
//! `ROUNDS`, `SECONDS` and `AFFINITY` set at compile time, and `WITH_FIX`
//! turning the advised fences into `__sync_synchronize()`.

use super::cycle_program::{Access, CycleProgram, CycleThread, outcome_terms};
use super::hardware;
use std::fmt::Write as _;

/// The rounds a run makes when neither `ROUNDS` nor `SECONDS` is given.
pub const DEFAULT_ROUNDS: u32 = 100_000;

/// The C text of the stress test of `program`, to be saved as `file_name`.
pub fn render(program: &CycleProgram, file_name: &str) -> String {
    let mut out = String::new();
    header(&mut out, program, file_name);
    prologue(&mut out, program);
    shared_state(&mut out, program);
    out.push_str(BARRIER);
    end_round(&mut out, program);
    for (index, thread) in program.threads.iter().enumerate() {
        thread_function(&mut out, index, thread, program);
    }
    main_function(&mut out, program);
    out
}

/// The register slot of thread `thread`'s register `register`.
fn register_slot(thread: usize, register: usize) -> String {
    format!("repro_P{thread}_r{register}")
}

/// The weak outcome as C (`repro_P0_r0 == 0 && x == 2`).
fn outcome_expression(program: &CycleProgram) -> String {
    let expression = outcome_terms(
        program,
        |thread, register, value| format!("{} == {value}", register_slot(thread, register)),
        |name, value| format!("{name} == {value}"),
        " && ",
    );
    if expression.is_empty() {
        "1".to_string()
    } else {
        expression
    }
}

/// The weak outcome as the header shows it (`P0:r0 == 0 && x == 2`).
pub fn outcome_words(program: &CycleProgram) -> String {
    outcome_terms(
        program,
        |thread, register, value| format!("P{thread}:r{register} == {value}"),
        |location, value| format!("{location} == {value} at the end"),
        " && ",
    )
}

/// One access as the header lists it (`x = 1 (line 16)`).
fn access_words(access: &Access, program: &CycleProgram) -> String {
    let at = |line: Option<u32>| line.map_or_else(String::new, |line| format!(" (line {line})"));
    match access {
        Access::Store {
            location,
            value,
            line,
        } => format!(
            "{} = {value}{}",
            program.locations[*location].name,
            at(*line)
        ),
        Access::Load {
            location,
            register,
            line,
        } => format!(
            "r{register} = {}{}",
            program.locations[*location].name,
            at(*line)
        ),
        Access::Fence {
            store_store, line, ..
        } => {
            let kind = if *store_store {
                "store-store fence"
            } else {
                "fence"
            };
            format!("[{kind} with -DWITH_FIX, after line {line}]")
        }
    }
}

fn header(out: &mut String, program: &CycleProgram, file_name: &str) {
    let _ = writeln!(
        out,
        "/* A stress test of a weak-memory violation, written by lazysma.\n *\n \
         * Source: {}, a violation under {}.\n \
         * The happens-before cycle of its witness, reduced to the accesses\n \
         * the cycle needs:",
        program.source,
        program.model.to_string().to_uppercase()
    );
    for (index, thread) in program.threads.iter().enumerate() {
        let _ = writeln!(out, " *   P{index} ({}):", thread.source_name);
        for access in &thread.accesses {
            let _ = writeln!(out, " *     {}", access_words(access, program));
        }
    }
    for location in &program.locations {
        if location.name != location.source_name {
            let _ = writeln!(out, " *   {} is {}", location.name, location.source_name);
        }
    }
    let initials: Vec<String> = program
        .locations
        .iter()
        .map(|location| format!("{} = {}", location.name, location.initial))
        .collect();
    let _ = writeln!(
        out,
        " * Initial values: {}\n \
         * (a load that reads no store of the cycle reads the initial value)",
        initials.join(", ")
    );
    let _ = writeln!(out, " * Weak outcome: {}", outcome_words(program));
    if program.renumbered {
        let _ = writeln!(
            out,
            " * (the program's values could not tell the outcome apart: here every\n \
             * location starts at 0 and its stores write 1, 2, ...)"
        );
    }
    out.push_str(" *\n");
    for line in hardware::explanation(program, true) {
        let _ = writeln!(out, " * {line}");
    }
    for line in program.unplaced_fences.iter() {
        let _ = writeln!(
            out,
            " * The fence advised after line {line} falls outside the reduced threads."
        );
    }
    let _ = writeln!(
        out,
        " *\n * Build and run:  gcc -O2 -pthread {file_name} -o repro && ./repro\n \
         * With the fences the diagnosis advises, add -DWITH_FIX.\n \
         * -DROUNDS=N     rounds to run (default {DEFAULT_ROUNDS}; no limit with SECONDS alone)\n \
         * -DSECONDS=N    stop after N seconds\n \
         * -DAFFINITY     pin thread Pi to CPU i (Linux)\n \
         * Prints \"weak outcome seen K times in N rounds\"; exits 0 when K > 0,\n \
         * 1 when the outcome was never seen, 2 when a thread cannot start.\n \
         */\n"
    );
}

fn prologue(out: &mut String, program: &CycleProgram) {
    let _ = writeln!(
        out,
        "#define _GNU_SOURCE\n\
         #include <pthread.h>\n\
         #include <sched.h>\n\
         #include <stdio.h>\n\
         #include <time.h>\n\
         #include <unistd.h>\n\
         \n\
         #ifndef SECONDS\n\
         #define SECONDS 0\n\
         #endif\n\
         #ifndef ROUNDS\n\
         #if SECONDS > 0\n\
         #define ROUNDS 0\n\
         #else\n\
         #define ROUNDS {DEFAULT_ROUNDS}\n\
         #endif\n\
         #endif\n\
         \n\
         #define REPRO_THREADS {}\n\
         /* keeps gcc from moving or merging the accesses around it */\n\
         #define repro_compiler_barrier() __asm__ __volatile__(\"\" ::: \"memory\")\n\
         ",
        program.threads.len()
    );
}

fn shared_state(out: &mut String, program: &CycleProgram) {
    out.push_str("/* the shared locations, reset to their initial values before each round */\n");
    for location in &program.locations {
        let _ = writeln!(
            out,
            "static volatile int {} = {};",
            location.name, location.initial
        );
    }
    out.push_str("\n/* what each thread's loads read in the current round */\n");
    for (index, thread) in program.threads.iter().enumerate() {
        for register in 0..thread.registers {
            let _ = writeln!(
                out,
                "static volatile int {};",
                register_slot(index, register)
            );
        }
    }
    out.push_str(
        "\nstatic volatile int repro_stop;\n\
         static long repro_rounds;\n\
         static long repro_seen;\n\
         static struct timespec repro_started;\n\n",
    );
}

/// The spin barrier, the clock and the affinity, the same for every test.
const BARRIER: &str = r#"/* a sense-reversing spin barrier: every thread waits for the others */
static int repro_barrier_count = REPRO_THREADS;
static int repro_barrier_sense;

static void repro_barrier(int *sense)
{
  int mine = !*sense;
  *sense = mine;
  if (__atomic_sub_fetch(&repro_barrier_count, 1, __ATOMIC_ACQ_REL) == 0) {
    __atomic_store_n(&repro_barrier_count, REPRO_THREADS, __ATOMIC_RELAXED);
    __atomic_store_n(&repro_barrier_sense, mine, __ATOMIC_RELEASE);
    return;
  }
  for (unsigned spins = 1;
       __atomic_load_n(&repro_barrier_sense, __ATOMIC_ACQUIRE) != mine; spins++) {
    if (spins % 4096 == 0)
      sched_yield(); /* more threads than free CPUs */
#if defined(__x86_64__) || defined(__i386__)
    else
      __builtin_ia32_pause();
#endif
  }
}

static double repro_seconds_since(const struct timespec *start)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

static void repro_pin(int thread)
{
#if defined(AFFINITY) && defined(__linux__)
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus > 0 ? thread % cpus : 0, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
  (void)thread;
#endif
}

"#;

/// The end of a round, in thread P0 while the others wait: count the
/// outcome, reset the locations, decide whether to go on.
fn end_round(out: &mut String, program: &CycleProgram) {
    let _ = writeln!(
        out,
        "/* after every thread finished the round (P0 runs it while the others\n   \
         wait): count the weak outcome, reset the locations, go on or stop */\n\
         static void repro_end_round(void)\n{{\n  \
         repro_rounds++;\n  \
         if ({})\n    repro_seen++;",
        outcome_expression(program)
    );
    for location in &program.locations {
        let _ = writeln!(out, "  {} = {};", location.name, location.initial);
    }
    out.push_str(
        "  if ((ROUNDS > 0 && repro_rounds >= ROUNDS)\n      \
         || (SECONDS > 0 && repro_rounds % 256 == 0\n          \
         && repro_seconds_since(&repro_started) >= SECONDS))\n    \
         repro_stop = 1;\n}\n\n",
    );
}

fn thread_function(out: &mut String, index: usize, thread: &CycleThread, program: &CycleProgram) {
    let _ = writeln!(
        out,
        "/* {} */\nstatic void *repro_P{index}(void *argument)\n{{\n  \
         int sense = 0;\n  \
         (void)argument;\n  \
         repro_pin({index});\n  \
         for (;;) {{\n    \
         repro_barrier(&sense);\n    \
         if (repro_stop)\n      break;",
        thread.source_name
    );
    for (at, access) in thread.accesses.iter().enumerate() {
        if at > 0 && !matches!(access, Access::Fence { .. }) {
            let previous_is_fence = matches!(thread.accesses[at - 1], Access::Fence { .. });
            if !previous_is_fence {
                out.push_str("    repro_compiler_barrier();\n");
            }
        }
        statement(out, index, access, program);
    }
    out.push_str("    repro_barrier(&sense);\n");
    if index == 0 {
        out.push_str("    repro_end_round();\n");
    }
    out.push_str("  }\n  return 0;\n}\n\n");
}

/// One access as a C statement.
fn statement(out: &mut String, thread: usize, access: &Access, program: &CycleProgram) {
    let at =
        |line: &Option<u32>| line.map_or_else(String::new, |line| format!(" /* line {line} */"));
    let _ = match access {
        Access::Store {
            location,
            value,
            line,
        } => writeln!(
            out,
            "    {} = {value};{}",
            program.locations[*location].name,
            at(line)
        ),
        Access::Load {
            location,
            register,
            line,
        } => writeln!(
            out,
            "    {} = {};{}",
            register_slot(thread, *register),
            program.locations[*location].name,
            at(line)
        ),
        Access::Fence { insert, line, .. } => writeln!(
            out,
            "#ifdef WITH_FIX\n    {insert} /* the advised fence, after line {line} */\n\
             #else\n    repro_compiler_barrier();\n#endif"
        ),
    };
}

fn main_function(out: &mut String, program: &CycleProgram) {
    let count = program.threads.len();
    out.push_str("int main(void)\n{\n  pthread_t threads[REPRO_THREADS];\n");
    out.push_str("  clock_gettime(CLOCK_MONOTONIC, &repro_started);\n");
    for index in 0..count {
        let _ = writeln!(
            out,
            "  if (pthread_create(&threads[{index}], 0, repro_P{index}, 0) != 0) {{\n    \
             fprintf(stderr, \"cannot start thread P{index}\\n\");\n    \
             return 2;\n  }}"
        );
    }
    let _ = writeln!(
        out,
        "  for (int thread = 0; thread < REPRO_THREADS; thread++)\n    \
         pthread_join(threads[thread], 0);\n\
         #ifdef WITH_FIX\n  \
         printf(\"with the advised fences (WITH_FIX)\\n\");\n\
         #endif\n  \
         puts(\"weak outcome: {}\");\n  \
         printf(\"weak outcome seen %ld times in %ld rounds\\n\", repro_seen, repro_rounds);\n  \
         return repro_seen > 0 ? 0 : 1;\n}}",
        outcome_words(program).replace(['"', '\\'], "'")
    );
}
