//! Accesses through pointers whose type may not be their pointee's:
//! memory is made of whole scalars here (one location, one scalar), so a
//! store of one byte through an `unsigned char *` made from a `void *`
//! that points to an `int` would replace the whole `int`. The frontend
//! cannot see what such a pointer points to; it notes, for each access
//! through a pointer, the byte size of the scalar it accesses, and which
//! pointee types the program makes from another pointer type or an
//! integer (`(unsigned char *)p`, `int *q = arg`). The accesses through
//! pointers to such types are the program's
//! [`Program::pointer_accesses`](crate::ir::Program::pointer_accesses),
//! which the passes check against the points-to facts.
//!
//! An access noted here gets a statement id of its own (an origin at the
//! access's text, after every statement's), which the passes give back to
//! the statement once they have checked it.

use crate::frontend::analysis::pointer_accesses::{moves, own_id, plain};
use crate::frontend::c_types::types::CType;
use crate::frontend::lower::FnLowerer;
use crate::frontend::values::Val;
use crate::ir::{Expr, OriginId, StmtKind};
use lang_c::span::Span;

impl FnLowerer<'_, '_> {
    /// Notes a conversion of `value` to the type `to`: a pointer to `T`
    /// made from a pointer to another type or from an integer makes the
    /// accesses through pointers to `T` ones to check. An allocation's
    /// `void *` makes none. A pointer converted to an integer makes
    /// integer constants possible addresses.
    pub(in crate::frontend) fn note_conversion(&mut self, value: &Val, to: &CType) {
        if matches!(plain(to), CType::Int { .. }) && plain(&value.ty).is_pointer() {
            self.lw.converted.addresses_as_integers = true;
        }
        let CType::Pointer(target) = to else {
            return;
        };
        let target = plain(target);
        if matches!(target, CType::Void | CType::Function(..)) {
            return;
        }
        let made = match &value.ty {
            CType::Pointer(source) => plain(source) != target,
            CType::Int { .. } => !matches!(value.expr, Expr::Const(0)),
            _ => false,
        };
        let allocated =
            matches!(&self.latest_allocation, Some((pointer, _)) if *pointer == value.expr);
        let targets = &mut self.lw.converted.targets;
        if made && !allocated && !targets.contains(target) {
            targets.push(target.clone());
        }
    }

    /// Notes that the object at `address` is designated through a pointer
    /// whose type is `pointer` (`*p`, `p[i]`, `p->m` at `span`).
    pub(in crate::frontend) fn note_pointer_base(
        &mut self,
        address: &Expr,
        pointer: &CType,
        span: Span,
    ) {
        if let Some(target) = pointer.target() {
            self.pointer_bases
                .bases
                .push((address.clone(), plain(target).clone(), span));
        }
    }

    /// Notes that the next access statement accesses a scalar of type `ty`.
    pub(in crate::frontend) fn note_access_type(&mut self, ty: &CType) {
        let integer = matches!(
            plain(ty),
            CType::Int { .. } | CType::Bool | CType::BitField(_)
        );
        self.pointer_bases.access_scalar = Some((self.lw.types.byte_size(ty), integer));
    }

    /// The statement id of the access `kind`: its own, when it accesses a
    /// scalar of a known type ([`Self::note_access_type`]) through a
    /// pointer ([`Self::note_pointer_base`]); else the statement's.
    pub(in crate::frontend) fn access_origin(&mut self, kind: &StmtKind) -> OriginId {
        let address = match kind {
            StmtKind::Read { address, .. }
            | StmtKind::Write { address, .. }
            | StmtKind::Rmw { address, .. } => address,
            _ => return self.origin,
        };
        let Some(scalar) = self.pointer_bases.access_scalar.take() else {
            return self.origin;
        };
        let Some((_, pointee, span)) = self
            .pointer_bases
            .bases
            .iter()
            .rev()
            .find(|(base, _, _)| moves(address, base))
        else {
            return self.origin;
        };
        let (pointee, span) = (pointee.clone(), *span);
        let origin = self.lw.source.origin(span.start, span.end);
        let accesses = &mut self.lw.converted.accesses;
        accesses.push((origin, self.origin, scalar, pointee));
        own_id(accesses.len() - 1)
    }
}
