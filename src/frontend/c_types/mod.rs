//! C types: their resolution from specifiers and declarators (typedefs,
//! `typeof`, struct tags), struct and union definitions, gcc's sizes,
//! alignments and offsets, and integer constant expressions. Nothing here
//! lowers code.

pub(super) mod constants;
pub(super) mod layout;
pub(super) mod struct_types;
pub(super) mod types;
