//! The explicit-state search, for what RF-SMC does not handle yet (the
//! heap): a depth-first search of every state (`explore`), with
//! partial-order reduction (`reduction`).

pub mod explore;
pub mod reduction;
