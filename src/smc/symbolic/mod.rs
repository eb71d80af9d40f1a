//! Symbolic values of the native engine (issue 49, step 2): the scalar C
//! types both concrete and symbolic values have (`ctype`), the bit-vector
//! terms a nondeterministic value of more than 256 values becomes, built
//! with exact C semantics (`term`), their SMT-LIB 2 text (`smtlib`), the
//! bit-vector SMT solvers `boolector` and `z3` as a portfolio through
//! pipes (`solver`), the symbols and path condition of an execution
//! (`path`), and the satisfiability questions of a search, with a cache of
//! their answers (`decide`). The interpreter builds the terms; RF-SMC's choices
//! split executions at branches on them (`docs/native-engine.md`).

pub mod ctype;
pub mod decide;
pub mod path;
pub mod smtlib;
pub mod solver;
pub mod term;
