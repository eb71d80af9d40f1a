//! Symbolic values of the native engine (issue 49, step 2, in part): the
//! bit-vector terms a nondeterministic value of more than 256 values
//! becomes, built with exact C semantics (`term`), their SMT-LIB 2 text
//! (`smtlib`), and an incremental bit-vector SMT solver (`z3 -in`) through a
//! pipe, one process per search (`solver`). Not wired into the interpreter
//! and RF-SMC yet: `docs/native-engine.md` says what remains.

pub mod smtlib;
pub mod solver;
pub mod term;
