//! The C text around the parse: the preprocessor run with lazysma's own
//! headers (and gcc's syntax check beside it), the `$` of GNU identifiers
//! renamed before parsing and restored in reports, and the map from
//! preprocessed offsets back to files, lines and columns. herd's C litmus
//! tests (`TEST.litmus`) enter as the C programs they are converted to.

pub(super) mod dollar_names;
pub(super) mod herd_litmus;
pub(super) mod preprocess;
pub(super) mod source_map;
