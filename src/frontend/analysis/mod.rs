//! What the lowering knows of the program beyond the construct in hand:
//! the pre-scans of the syntax (addresses taken, members used, jumps), the
//! functions lowered once per constant they are called with or once more
//! with `sizeof` in scalars for an allocation's size, and the notes
//! on accesses through converted pointers. The core's tables hold them, so
//! these files import none of the lowering.

pub(super) mod pointer_accesses;
pub(super) mod scan;
pub(super) mod size_functions;
pub(super) mod specialisations;
