//! The C sources of the shared memory abstractions (`sma/*.h`), embedded in
//! the binary so that the printed program is self-contained.

use crate::options::SmaImplementation;

/// What every implementation shares: value helpers, RMW codes, event records.
pub const COMMON_HEADER: &str = include_str!("../sma/common.h");

/// The C text of one implementation.
pub fn header(implementation: SmaImplementation) -> &'static str {
    match implementation {
        SmaImplementation::Sc => include_str!("../sma/sc.h"),
        SmaImplementation::Etso => include_str!("../sma/etso.h"),
        SmaImplementation::Epso => include_str!("../sma/epso.h"),
        SmaImplementation::TsoReference => include_str!("../sma/tso_ref.h"),
        SmaImplementation::PsoReference => include_str!("../sma/pso_ref.h"),
    }
}
