//! Statements and local declarations: control flow, assignments, struct
//! values (operands, copies, parameters by value), and initialisers, braced
//! or string literals.

pub(super) mod assignment;
pub(super) mod initialisers;
pub(super) mod lower_stmt;
pub(super) mod strings;
pub(super) mod struct_values;
