//! The data of the check of accesses through converted pointers
//! ([`crate::frontend::expr::converted_accesses`]): what the lowering of
//! the unit and of each function notes, and the statement ids the accesses
//! get once the unit is lowered.

use crate::frontend::c_types::types::CType;
use crate::ir::{BinaryOp, Block, Expr, Origin, OriginId, PointerAccess, Program, StmtKind};
use lang_c::span::Span;

/// What the lowering of the whole unit notes (`Lowerer::converted`).
#[derive(Debug, Default)]
pub struct ConvertedAccesses {
    /// The pointee types that some pointer is converted to from another
    /// pointer type or from an integer (not from an allocation's
    /// `void *`: heap blocks are untyped).
    pub(in crate::frontend) targets: Vec<CType>,
    /// Every access through a pointer: its origin, the statement's id,
    /// its scalar's byte size and whether that scalar is an integer, and
    /// the pointer's pointee type. The access
    /// `k` has the id [`own_id`]`(k)` until [`Self::finish`] gives it one
    /// after the statements'.
    pub(in crate::frontend) accesses: Vec<(Origin, OriginId, (u64, bool), CType)>,
    /// Whether some pointer is converted to an integer
    /// ([`Program::addresses_as_integers`]).
    pub(in crate::frontend) addresses_as_integers: bool,
}

/// The statement id the access `k` has until [`ConvertedAccesses::finish`]:
/// one no origin has.
pub(in crate::frontend) fn own_id(k: usize) -> OriginId {
    usize::MAX - k
}

/// Gives the statements of `block` whose ids are accesses' own
/// ([`own_id`]) the ids `first + k`.
fn renumber(block: &mut Block, first: OriginId, accesses: usize) {
    for stmt in block {
        let k = usize::MAX - stmt.origin;
        if k < accesses {
            stmt.origin = first + k;
        }
        match &mut stmt.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                renumber(then_branch, first, accesses);
                renumber(else_branch, first, accesses);
            }
            StmtKind::Loop {
                prelude,
                body,
                latch,
                ..
            } => {
                renumber(prelude, first, accesses);
                renumber(body, first, accesses);
                renumber(latch, first, accesses);
            }
            _ => {}
        }
    }
}

/// What the lowering of one function notes (`FnLowerer::pointer_bases`).
#[derive(Debug, Default)]
pub struct PointerBases {
    /// The addresses of objects designated through a pointer (`*p`,
    /// `p[i]`, `p->m`) before any member's or element's offset, with the
    /// pointer's pointee type and the designator's text.
    pub(in crate::frontend) bases: Vec<(Expr, CType, Span)>,
    /// The byte size of the scalar the next access statement accesses,
    /// and whether it is an integer (no pointer), when its type is known.
    pub access_scalar: Option<(u64, bool)>,
}

/// Whether `address` is `base` or `base` moved by offsets
/// (`base + 8`, `base + i * 4`).
pub(in crate::frontend) fn moves(address: &Expr, base: &Expr) -> bool {
    address == base
        || matches!(address, Expr::Binary(BinaryOp::Add | BinaryOp::Sub, pointer, _) if moves(pointer, base))
}

/// `ty` without `_Atomic`.
pub(in crate::frontend) fn plain(ty: &CType) -> &CType {
    match ty {
        CType::Atomic(inner) => plain(inner),
        ty => ty,
    }
}

impl ConvertedAccesses {
    /// Gives the accesses through pointers ids after the statements' in
    /// `program`, their origins, and its
    /// [`pointer_accesses`](Program::pointer_accesses): each checked if
    /// some conversion makes pointers to its pointee type.
    pub fn finish(self, program: &mut Program) {
        let first = program.origins.len();
        let count = self.accesses.len();
        program.addresses_as_integers |= self.addresses_as_integers;
        for function in &mut program.functions {
            renumber(&mut function.body, first, count);
        }
        for (k, (origin, statement, (bytes, integer), pointee)) in
            self.accesses.into_iter().enumerate()
        {
            program.origins.push(origin);
            program.pointer_accesses.push(PointerAccess {
                origin: first + k,
                statement,
                bytes: bytes as u32,
                integer,
                checked: self.targets.contains(&pointee),
            });
        }
    }
}
