//! lazysma: finds weak-memory bugs in concurrent C by lazy sequentialisation
//! through a shared memory abstraction, for the CBMC bounded model checker.
//!
//! Stages, data flowing one way:
//! frontend (C -> [`ir`]) -> passes (inline, unroll, lazy) -> printer
//! (sequential C with one [`sma`] header inlined); verify mode: backend (run
//! CBMC, parse its JSON) -> trace (decode SMA records into an execution) ->
//! consistency (VerifyTSO / VerifyPSO) -> report; beside CBMC, the native
//! engine [`smc`] explores the sequentialised program's executions itself.

pub mod backend;
pub mod check;
pub mod consistency;
pub mod diagnostics;
pub mod exit;
pub mod fences;
pub mod frontend;
pub mod interrupt;
pub mod ir;
pub mod options;
pub mod output;
pub mod passes;
pub mod printer;
pub mod sma;
pub mod smc;
pub mod trace;
pub mod translate;
pub mod verify;
