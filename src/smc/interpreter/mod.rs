//! The interpreter of one thread's private data: its code as straight-line
//! instructions (`code`), the values and C types of locals and plain
//! globals (`value`), and the evaluation of expressions exactly as the
//! printed C computes them (`eval`), floating point and the math library
//! as CBMC computes them (`float`, `float_library`). No shared memory here.

pub mod code;
pub mod eval;
pub mod float;
pub mod float_library;
pub mod value;
