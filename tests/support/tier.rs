//! The test tiers, shared by every test support module.

/// The test tiers (docs/testing.md): the default tier runs a sample of
/// each sweep, so that `cargo test --release` stays within 20 minutes on
/// two cores; `LAZYSMA_FULL=1` runs every sweep whole, but for the three
/// over the whole litmus corpus in `litmus`, `engine_agreement` and
/// `differential`, which take an hour or more each and run whole only when
/// their own variable asks ([`asked`]).
pub fn full_tier() -> bool {
    asked("LAZYSMA_FULL")
}

/// Whether a sweep runs whole: in the full tier, or when its own variable
/// (`LAZYSMA_LITMUS_ALL=1`, `LAZYSMA_BENCH_ALL=1`, ...) asks for it.
pub fn whole_sweep(variable: &str) -> bool {
    full_tier() || asked(variable)
}

/// Whether the variable is set to 1: `LAZYSMA_FULL`, or a sweep's own
/// (`LAZYSMA_LITMUS_ALL`, `LAZYSMA_ENGINES_ALL`, ...) asking for it whole.
/// The three sweeps over the whole litmus corpus run whole only then; the
/// full tier runs a sample of them ten times as large as the default
/// tier's ([`sample_stride`]).
pub fn asked(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|value| value == "1")
}

/// The stride of a sample that takes every `stride`-th program in the
/// default tier: a tenth of it in the full tier.
pub fn sample_stride(stride: usize) -> usize {
    if full_tier() {
        stride.div_ceil(10).max(1)
    } else {
        stride
    }
}
