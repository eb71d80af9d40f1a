//! Layout: gcc's sizes, alignments and offsets in bytes on x86_64
//! (`sizeof`, `_Alignof`, `offsetof`), the sizes and offsets in scalars
//! of memory here, and the IR types of C types.

use super::types::{CType, StructId, TResult, TypeEnv, Unit};
use crate::diagnostics::Diagnostic;
use crate::ir::{StructDef, Ty};
use lang_c::ast::*;
use lang_c::span::{Node, Span};

impl<'a> TypeEnv<'a> {
    /// The fields of a struct; refuses unions and incomplete structs.
    pub fn fields(&self, id: StructId, span: lang_c::span::Span) -> TResult<&[(String, CType)]> {
        let info = &self.structs[id];
        if info.is_union {
            return self.refuse(
                span,
                &self.mixed_union(id),
                Some("memory here is one location per scalar, so a store to a narrower member cannot change part of a wider one, and a union's members must be one scalar seen as several types of one size (`union { int v; unsigned u; }`); keep one member (the whole word, with shifts and masks for its parts) or use a struct. `sizeof` and `offsetof` of the union are accepted"),
            );
        }
        match &info.fields {
            Some(fields) => Ok(fields),
            None => self.refuse(
                span,
                &format!("the incomplete struct `{}`", info.name),
                None,
            ),
        }
    }

    /// Size in bytes, as `sizeof` gives it: gcc's on x86_64 (LP64), with
    /// C's alignment padding in structs. The library types that lazysma
    /// models by their state (`sem_t`, `pthread_rwlock_t`,
    /// `pthread_barrier_t`) have the size of that state.
    pub fn byte_size(&self, ty: &CType) -> u64 {
        match ty {
            CType::Void | CType::Bool | CType::Function(..) => 1,
            CType::Int { bits, .. } => u64::from(*bits).div_ceil(8).max(1),
            CType::Pointer(_) | CType::ThreadHandle => 8,
            CType::Float(bytes) => u64::from(*bytes),
            CType::Array(t, n) => self.byte_size(t).saturating_mul(*n),
            CType::Atomic(t) => self.byte_size(t),
            CType::BitField(bits) => self.byte_size(&bits.ty),
            CType::Mutex => 40,
            CType::Opaque(name) => opaque_byte_size(name),
            CType::Struct(id) => {
                let end = self
                    .field_extents(*id)
                    .into_iter()
                    .map(|(_, end)| end)
                    .max()
                    .unwrap_or(0);
                end.next_multiple_of(self.alignment(ty))
            }
        }
    }

    /// Where each field of a struct (or union) starts and ends, in bytes,
    /// in the order of the fields.
    pub(in crate::frontend) fn field_extents(&self, id: StructId) -> Vec<(u64, u64)> {
        let info = &self.structs[id];
        let mut end = 0u64;
        let mut extents = Vec::new();
        for (name, ty) in &info.declared {
            let start = if info.is_union {
                0
            } else {
                end.next_multiple_of(self.member_alignment(id, name, ty))
            };
            end = start.saturating_add(self.byte_size(ty));
            extents.push((start, end));
        }
        extents
    }

    /// `offsetof(T, designator)` in bytes: the field path's offsets, each
    /// index times its element's size; `None` for an index that is not a
    /// constant.
    pub fn offset_of(&mut self, offset: &'a Node<OffsetOfExpression>) -> TResult<Option<u64>> {
        self.member_offset(offset, Unit::Bytes)
    }

    /// The offset of `offsetof`'s member in its type, in `unit`; `None`
    /// when an index is not a constant.
    pub fn member_offset(
        &mut self,
        offset: &'a Node<OffsetOfExpression>,
        unit: Unit,
    ) -> TResult<Option<u64>> {
        let designator = &offset.node.designator.node;
        let mut ty = self.type_name(&offset.node.type_name)?;
        let (mut total, field_ty) = self.field_offset(&ty, &designator.base, unit)?;
        ty = field_ty;
        for member in &designator.members {
            match &member.node {
                OffsetMember::Member(name) => {
                    let (start, field_ty) = self.field_offset(&ty, name, unit)?;
                    total = total.saturating_add(start);
                    ty = field_ty;
                }
                OffsetMember::Index(index) => {
                    let Some(element) = ty.target().cloned() else {
                        return self.refuse(
                            index.span,
                            "an index in `offsetof` of something other than an array",
                            None,
                        );
                    };
                    let Some(index) = self.const_eval(index) else {
                        return Ok(None);
                    };
                    let stride = match unit {
                        Unit::Bytes => self.byte_size(&element),
                        Unit::Scalars => self.size(&element),
                    };
                    total = total.saturating_add((index as u64).saturating_mul(stride));
                    ty = element;
                }
                OffsetMember::IndirectMember(name) => {
                    return self.refuse(
                        name.span,
                        "`->` in `offsetof`",
                        Some("name the fields with `.`"),
                    );
                }
            }
        }
        Ok(Some(total))
    }

    /// The offset in `unit` and the type of the field `name` of `ty`.
    pub(in crate::frontend) fn field_offset(
        &self,
        ty: &CType,
        name: &Node<Identifier>,
        unit: Unit,
    ) -> TResult<(u64, CType)> {
        let CType::Struct(id) = ty else {
            return self.refuse(
                name.span,
                "`offsetof` of a field of something other than a struct",
                None,
            );
        };
        if unit == Unit::Scalars {
            return self.field(*id, &name.node.name, name.span);
        }
        self.byte_offset(*id, &name.node.name, name.span)
    }

    /// The offset in bytes and the type of the member `name` of struct (or
    /// union) `id`, through the anonymous members that hold it.
    pub(in crate::frontend) fn byte_offset(
        &self,
        id: StructId,
        name: &str,
        span: Span,
    ) -> TResult<(u64, CType)> {
        let info = &self.structs[id];
        if info.fields.is_none() {
            self.fields(id, span)?;
        }
        let declared = &info.declared;
        if let Some(index) = declared.iter().position(|(field, _)| field == name) {
            return Ok((self.field_extents(id)[index].0, declared[index].1.clone()));
        }
        if let Some(alias) = self.alias_member(id, name) {
            return Ok((0, alias));
        }
        match self.anonymous_path(id, name) {
            Some((whole, inner)) => {
                let (start, _) = self.byte_offset(id, &whole, span)?;
                let (within, ty) = self.byte_offset(inner, name, span)?;
                Ok((start + within, ty))
            }
            None => Err(self.unknown_field(id, name, span)),
        }
    }

    /// Alignment in bytes (`_Alignof`), gcc's on x86_64.
    pub fn alignment(&self, ty: &CType) -> u64 {
        match ty {
            CType::Array(t, _) | CType::Atomic(t) => self.alignment(t),
            CType::Struct(id) => match &self.structs[*id].fields {
                Some(_) => {
                    let fields = &self.structs[*id].declared;
                    let members = fields
                        .iter()
                        .map(|(name, t)| self.member_alignment(*id, name, t));
                    members
                        .max()
                        .unwrap_or(1)
                        .max(self.structs[*id].asked_alignment)
                }
                None => 1,
            },
            CType::Mutex => 8,
            CType::Opaque(name) => opaque_byte_size(name).min(8),
            other => self.byte_size(other).clamp(1, 16),
        }
    }

    /// The alignment of the member `name` of type `ty` of struct `id`: its
    /// type's, or more if the member asks for more.
    pub(in crate::frontend) fn member_alignment(
        &self,
        id: StructId,
        name: &str,
        ty: &CType,
    ) -> u64 {
        let info = &self.structs[id];
        let asked = info.member_alignments.get(name).copied().unwrap_or(1);
        if info.packed {
            asked
        } else {
            self.alignment(ty).max(asked)
        }
    }

    /// Size in scalars (one location per scalar): the layout of memory
    /// here, and what `sizeof` gives in an allocation's size
    /// ([`FnLowerer::allocate`](crate::frontend::lower::FnLowerer)).
    pub fn size(&self, ty: &CType) -> u64 {
        match ty {
            CType::Array(t, n) => self.size(t).saturating_mul(*n),
            CType::Struct(id) => match &self.structs[*id].fields {
                Some(fields) if self.structs[*id].is_union => {
                    fields.iter().map(|(_, t)| self.size(t)).max().unwrap_or(0)
                }
                Some(fields) => fields.iter().map(|(_, t)| self.size(t)).sum::<u64>(),
                None => 1,
            },
            _ => 1,
        }
    }

    /// Offset in scalars and type of a field.
    pub fn field(
        &self,
        id: StructId,
        name: &str,
        span: lang_c::span::Span,
    ) -> TResult<(u64, CType)> {
        let fields = self.fields(id, span)?;
        let mut offset = 0;
        for (field, ty) in fields {
            if field == name {
                return Ok((offset, ty.clone()));
            }
            offset += self.size(ty);
        }
        // a member of an anonymous member kept whole: a union of scalars'
        // other member is its first member's scalar
        if let Some((whole, inner)) = self.anonymous_path(id, name) {
            let (start, _) = self.field(id, &whole, span)?;
            let (within, ty) = match self.alias_member(inner, name) {
                Some(alias) => (0, alias),
                None => self.field(inner, name, span)?,
            };
            return Ok((start + within, ty));
        }
        Err(self.unknown_field(id, name, span))
    }

    pub(in crate::frontend) fn unknown_field(
        &self,
        id: StructId,
        name: &str,
        span: lang_c::span::Span,
    ) -> Box<Diagnostic> {
        let struct_name = &self.structs[id].name;
        Box::new(self.source.diagnostic(
            span.start,
            span.end,
            format!("struct `{struct_name}` has no field `{name}`"),
            "unknown field",
            None,
        ))
    }

    /// Whether the field `name` of struct `id` is declared `_Atomic`.
    pub fn field_is_atomic(&self, id: StructId, name: &str) -> bool {
        self.structs[id].atomic_fields.contains(name)
    }

    /// The IR type of private data of this type.
    pub fn ir_type(&self, ty: &CType) -> Ty {
        match ty {
            CType::BitField(bits) => self.ir_type(&bits.ty),
            CType::Void => Ty::Void,
            CType::Bool => Ty::Bool,
            CType::Int { bits, signed } => Ty::Int {
                bits: *bits,
                signed: *signed,
            },
            CType::Pointer(t) if matches!(**t, CType::Function(..)) => Ty::FunctionPointer,
            CType::Pointer(t) => Ty::Pointer(Box::new(self.ir_type(t))),
            CType::Atomic(t) => self.ir_type(t),
            CType::Array(t, n) => Ty::Array(Box::new(self.ir_type(t)), *n),
            CType::Struct(id) => Ty::Struct(*id),
            CType::ThreadHandle => Ty::ThreadHandle,
            CType::Float(bytes) => Ty::Float {
                bits: bytes.saturating_mul(8).min(64),
            },
            CType::Mutex | CType::Opaque(_) | CType::Function(..) => Ty::INT,
        }
    }

    /// The IR struct table.
    pub fn ir_structs(&self) -> Vec<StructDef> {
        self.structs
            .iter()
            .map(|s| StructDef {
                name: s.name.clone(),
                fields: s
                    .fields
                    .iter()
                    .flatten()
                    .map(|(n, t)| (n.clone(), self.ir_type(t)))
                    .collect(),
            })
            .collect()
    }
}

/// The size in bytes of a library type with no modelled value, glibc's on
/// x86_64.
pub(in crate::frontend) fn opaque_byte_size(name: &str) -> u64 {
    match name {
        "pthread_attr_t" => 56,
        "pthread_cond_t" => 48,
        "pthread_rwlockattr_t" => 8,
        "FILE" => 216,
        "va_list" | "__builtin_va_list" | "__gnuc_va_list" => 24,
        // pthread_mutexattr_t, pthread_condattr_t, pthread_barrierattr_t
        _ => 4,
    }
}

impl TypeEnv<'_> {
    /// What a refusal of union `id` says: which union (its tag, or the
    /// struct an anonymous one is a member of), where it is defined, and
    /// the sizes of the scalars its members overlap with.
    pub(in crate::frontend) fn mixed_union(&self, id: StructId) -> String {
        let info = &self.structs[id];
        let which = if self.is_untagged(id) {
            let outer = self.structs.iter().find(|outer| {
                outer
                    .declared
                    .iter()
                    .any(|(_, ty)| *ty == CType::Struct(id))
            });
            let inside = match outer {
                Some(outer) if !outer.name.starts_with("__anon") => {
                    format!("in `struct {}`, ", outer.name)
                }
                _ => String::new(),
            };
            format!("an anonymous union whose members are not scalars of one size ({inside}")
        } else {
            format!("the union `{}` (", info.name)
        };
        let at = info
            .defined_at
            .map_or("defined above)".to_string(), |offset| {
                let position = self.source.position(offset);
                format!("line {}, column {})", position.line, position.column)
            });
        let members: Vec<String> = info
            .declared
            .iter()
            .map(|(name, ty)| {
                let names = match (name.strip_prefix("{anonymous "), ty) {
                    (Some(_), CType::Struct(inner)) => self.structs[*inner]
                        .members
                        .iter()
                        .map(|member| format!("`{member}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    _ => format!("`{name}`"),
                };
                let mut sizes = Vec::new();
                self.scalar_sizes(ty, &mut sizes);
                let one = sizes.len() == 1;
                sizes.sort_unstable();
                sizes.dedup();
                let sizes: Vec<String> = sizes.iter().map(u64::to_string).collect();
                match one {
                    true => format!("{names}: a {}-byte scalar", sizes.join("")),
                    false => format!("{names}: {}-byte scalars", sizes.join("- and ")),
                }
            })
            .collect();
        format!(
            "{which}{at}: its members overlap in memory as scalars of different sizes ({})",
            members.join("; ")
        )
    }

    /// The sizes in bytes of the scalars an object of type `ty` is made of.
    fn scalar_sizes(&self, ty: &CType, sizes: &mut Vec<u64>) {
        match ty {
            CType::Struct(id) => {
                for (_, field) in &self.structs[*id].declared {
                    self.scalar_sizes(field, sizes);
                }
            }
            CType::Array(element, _) => self.scalar_sizes(element, sizes),
            ty => sizes.push(self.byte_size(ty)),
        }
    }
}
