//! Calls: user functions (directly, through function pointers, or to the
//! copy specialised for constant arguments), the dispatch of every library
//! and builtin call, and the builtins that compute on values or memory (bit
//! counting, `<math.h>`, `memset`, `memcpy`, `malloc`, ...).

pub(super) mod bit_builtins;
pub(super) mod builtins;
pub(super) mod constant_calls;
pub(super) mod function_pointers;
pub(super) mod math_builtins;
pub(super) mod memory_functions;
