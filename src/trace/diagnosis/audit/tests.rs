//! Unit tests of the audit: true reorderings pass, planted false ones are
//! each caught with their reason.
