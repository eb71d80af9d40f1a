//! The tests of the commands end to end: `verify` (its reports, exit codes,
//! runs and the fixtures of `tests/fixtures/verify/`), `robust`, `fences`,
//! both engines on the project's own programs and on small samples of the
//! corpora. One test binary (`cargo test --release --test engines`);
//! `--test engines MODULE::` runs one module.

#[path = "../support/mod.rs"]
mod support;
#[path = "../verify_support/mod.rs"]
mod verify_support;

mod batch_cli;
mod fences_cli;
mod idioms;
mod param_check;
mod robust_cli;
mod smc_engine;
mod smc_jobs;
mod smc_private_data;
mod smc_progress;
mod smc_split;
mod verify_bench;
mod verify_bounds_report;
mod verify_exit_codes;
mod verify_fence_loop;
mod verify_fixtures;
mod verify_litmus_check;
mod verify_programs;
mod verify_reach;
mod verify_runs;
mod verify_text_report;
