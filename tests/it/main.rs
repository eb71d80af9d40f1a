//! The quick integration tests, one module per area: the frontend, the
//! passes, the printer and the SMA headers, the consistency checker, the
//! CBMC back end, property tests of the native engine and `robust`, and
//! the command line's behaviour. One test binary (`cargo test --release
//! --test it`); `--test it MODULE::` runs one module.

#[path = "../consistency_support/mod.rs"]
mod consistency_support;
#[path = "../passes_support/mod.rs"]
mod passes_support;
#[path = "../sma/support.rs"]
mod sma_support;
#[path = "../smc_rf/mod.rs"]
mod smc_rf;
#[path = "../support/mod.rs"]
mod support;

mod backend_live;
mod backend_parse;
mod check_cli;
mod cli;
mod consistency_fuzz;
mod consistency_litmus;
mod consistency_props;
mod frontend_corpus;
mod frontend_lowering;
mod frontend_robustness;
mod graph;
mod passes_cbmc;
mod passes_sources;
mod passes_sufficient;
mod passes_units;
mod property_table;
mod repro_cli;
mod robust_props;
mod sarif_locations;
mod sma_differential;
mod sma_invariants;
mod sma_litmus;
mod smc_estimate;
mod smc_rf_props;
mod smc_symbolic;
mod smc_symbolic_props;
