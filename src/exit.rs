//! The documented exit codes of every lazysma command.

/// No violation within the bounds; `check`: the execution is realisable.
pub const SUCCESS: u8 = 0;
/// Bad input: unreadable file, syntax error, unsupported construct, bad option.
pub const BAD_INPUT: u8 = 1;
/// Environment or backend failure: CBMC or gcc missing, CBMC crashed, out
/// of memory, an output that cannot be written.
pub const BACKEND_FAILURE: u8 = 2;
/// The `--timeout` was reached.
pub const TIMEOUT: u8 = 3;
/// A counterexample failed the native consistency check, or its diagnosis
/// its audit: a lazysma defect, never a bug of the user's program.
pub const CHECK_FAILED: u8 = 4;
/// `verify`: violation found and confirmed; `check`: not realisable.
pub const VIOLATION: u8 = 10;
/// `batch` and `merge`: a harness did not give the violation its manifest
/// expects (it was safe), or a job's result is missing.
pub const EXPECTATION_UNMET: u8 = 5;
