//! The C sources of the shared memory abstractions (`sma/*.h`), embedded in
//! the binary so that the printed program is self-contained.

use crate::options::SmaImplementation;

/// What every implementation shares: value helpers, RMW codes, event records.
pub const COMMON_HEADER: &str = include_str!("../sma/common.h");

/// The C text of one implementation: the shared part comes first (the
/// T-CDLL machinery `tcdll.h` for the timestamped models; the explicit
/// memory `memory.h` for SC and the reference models, which also share the
/// store-buffer part `buffers.h`), then the model header itself.
pub fn header(implementation: SmaImplementation) -> &'static str {
    match implementation {
        SmaImplementation::Sc => {
            concat!(include_str!("../sma/memory.h"), include_str!("../sma/sc.h"))
        }
        SmaImplementation::Etso => concat!(
            include_str!("../sma/tcdll.h"),
            include_str!("../sma/etso.h")
        ),
        SmaImplementation::Epso => concat!(
            include_str!("../sma/tcdll.h"),
            include_str!("../sma/epso.h")
        ),
        SmaImplementation::TsoReference => {
            concat!(
                include_str!("../sma/memory.h"),
                include_str!("../sma/buffers.h"),
                include_str!("../sma/tso_ref.h")
            )
        }
        SmaImplementation::PsoReference => {
            concat!(
                include_str!("../sma/memory.h"),
                include_str!("../sma/buffers.h"),
                include_str!("../sma/pso_ref.h")
            )
        }
    }
}
