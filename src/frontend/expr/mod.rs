//! Expressions: rvalues, lvalues, loads and stores, casts, binary
//! arithmetic, bit-field members, floating constants (with `long double`
//! literals), `typeof(expression)`, and the accesses through converted
//! pointers.

pub(super) mod arithmetic;
pub(super) mod bit_fields;
pub(super) mod converted_accesses;
pub(super) mod float_value;
pub(super) mod floating;
pub(super) mod long_double;
pub(super) mod lower_expr;
pub(super) mod lvalues;
pub(super) mod memory_access;
pub(super) mod pointer_casts;
pub(super) mod type_of;
