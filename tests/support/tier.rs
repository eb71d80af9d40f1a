//! The test tiers, shared by every test support module.

/// The test tiers (docs/testing.md): the default tier runs a sample of
/// each sweep, so that `cargo test --release` stays within 20 minutes on
/// two cores; `LAZYSMA_FULL=1` runs every sweep whole.
pub fn full_tier() -> bool {
    std::env::var("LAZYSMA_FULL").is_ok_and(|value| value == "1")
}

/// Whether a sweep runs whole: in the full tier, or when its own variable
/// (`LAZYSMA_LITMUS_ALL=1`, `LAZYSMA_BENCH_ALL=1`, ...) asks for it.
pub fn whole_sweep(variable: &str) -> bool {
    full_tier() || std::env::var(variable).is_ok_and(|value| value == "1")
}
