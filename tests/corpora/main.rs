//! The sweeps over corpora: the litmus and benchmark corpora, Csmith's
//! programs, the differential tests of the translation and the SMAs, the
//! engines' agreement, herd's litmus tests against the same tests as
//! pthreads programs, and the value and index sweeps, each a sample in
//! the default tier and whole with `LAZYSMA_FULL=1`. One test binary
//! (`cargo test --release --test corpora`); `--test corpora MODULE::` runs
//! one module.

#[path = "../support/mod.rs"]
mod support;

mod bench_corpus;
mod computed_indices;
mod csmith_differential;
mod diagnosis_audit;
mod differential;
mod engine_agreement;
mod libvsync_clients;
mod litmus;
mod litmus_pthreads;
mod values_cli;
mod wide_values;
