//! Struct and union definitions: their members in order, bit-field
//! runs, anonymous members (spliced or kept whole), padding members that
//! shared memory leaves out, unions of scalars of one size, GNU layout
//! attributes, and enum constants.

use super::types::{
    BitField, CType, StructId, StructInfo, TResult, TypeEnv, declarator_name, qual_specs,
};
use lang_c::ast::*;
use lang_c::span::Node;
use std::collections::{HashMap, HashSet};

/// What GNU attributes say of a member's or a struct's layout.
#[derive(Default)]
pub(in crate::frontend) struct LayoutAttributes {
    /// The alignment in bytes asked for, if any.
    alignment: Option<u64>,
    /// `packed`.
    packed: bool,
}

/// The runs of adjacent bit-fields of a struct being defined: each run
/// is one storage unit, a field of the struct named by its members
/// (`{locked,waiters}`).
#[derive(Default)]
pub(in crate::frontend) struct BitFieldRuns {
    /// The open run: its unit's index in the fields, its width in bits,
    /// the bits used, and its members' names.
    open: Option<(usize, u32, u32, Vec<String>)>,
    /// Every member placed: (name, unit index, offset, width, declared type).
    members: Vec<(String, usize, u32, u32, CType)>,
}

/// What the anonymous struct members of a struct being defined bring
/// besides their fields: their bit-fields, and their tail padding.
#[derive(Default)]
pub(in crate::frontend) struct Spliced {
    bit_fields: HashMap<String, BitField>,
    tails: Vec<String>,
}

/// Whether `ty` is an integer or an array of integers: data that can be
/// padding ([`StructInfo::padding`]).
pub(in crate::frontend) fn is_integer_data(ty: &CType) -> bool {
    match ty {
        CType::Int { .. } => true,
        CType::Array(element, _) => is_integer_data(element),
        _ => false,
    }
}

impl BitFieldRuns {
    /// Places a bit-field of `width` bits (a member `name`, or padding).
    fn place(
        &mut self,
        name: Option<String>,
        width: u32,
        ty: CType,
        fields: &mut Vec<(String, CType)>,
    ) {
        let unit_bits = if width > 32 || matches!(ty, CType::Int { bits: 64, .. }) {
            64
        } else {
            32
        };
        let fits = matches!(&self.open, Some((_, bits, used, _)) if used + width <= *bits && unit_bits <= *bits);
        if !fits {
            self.close(fields);
            let unit_type = CType::Int {
                bits: unit_bits as u8,
                signed: false,
            };
            fields.push((String::new(), unit_type));
            self.open = Some((fields.len() - 1, unit_bits, 0, Vec::new()));
        }
        let Some((unit, _, used, names)) = &mut self.open else {
            return;
        };
        if let Some(name) = name {
            self.members.push((name.clone(), *unit, *used, width, ty));
            names.push(name);
        }
        *used += width;
    }

    /// Ends the open run: its unit gets its members' names.
    fn close(&mut self, fields: &mut [(String, CType)]) {
        if let Some((unit, _, _, names)) = self.open.take() {
            fields[unit].0 = format!("{{{}}}", names.join(","));
        }
    }

    /// The members by name, each in its named unit.
    fn finish(self, fields: &[(String, CType)]) -> HashMap<String, BitField> {
        self.members
            .into_iter()
            .map(|(name, unit, offset, width, ty)| {
                let (unit, unit_type) = fields[unit].clone();
                (
                    name,
                    BitField {
                        unit,
                        unit_type,
                        offset: offset as u8,
                        width: width as u8,
                        ty,
                    },
                )
            })
            .collect()
    }
}

impl<'a> TypeEnv<'a> {
    /// Keeps a system header's struct definition for the program's uses of
    /// its tag.
    pub fn add_system_struct(&mut self, s: &'a Node<StructType>) {
        if let (Some(tag), Some(_)) = (&s.node.identifier, &s.node.declarations) {
            self.system_structs.insert(tag.node.name.clone(), s);
        }
    }

    pub(in crate::frontend) fn struct_type(&mut self, s: &'a Node<StructType>) -> TResult<CType> {
        let is_union = matches!(s.node.kind.node, StructKind::Union);
        let tag = s.node.identifier.as_ref().map(|i| i.node.name.clone());
        // `struct timespec` of <time.h>: the header's definition, at the
        // program's first use
        if s.node.declarations.is_none()
            && let Some(tag) = &tag
            && self
                .tags
                .get(tag)
                .is_none_or(|&id| self.structs[id].fields.is_none())
            && let Some(definition) = self.system_structs.remove(tag)
        {
            return self.struct_type(definition);
        }
        let id = match (&tag, &s.node.declarations) {
            (Some(tag), None) => match self.tags.get(tag) {
                Some(&id) => id,
                None => self.new_struct(Some(tag.clone()), is_union),
            },
            (Some(tag), Some(_)) => match self.tags.get(tag) {
                Some(&id) if self.structs[id].fields.is_none() => id,
                _ => self.new_struct(Some(tag.clone()), is_union),
            },
            (None, _) => self.new_struct(None, is_union),
        };
        if let Some(declarations) = &s.node.declarations
            && self.structs[id].fields.is_none()
        {
            self.structs[id].defined_at = Some(s.span.start);
            let mut fields = Vec::new();
            let mut members = Vec::new();
            let mut bits = BitFieldRuns::default();
            let mut spliced = Spliced::default();
            for declaration in declarations {
                let StructDeclaration::Field(field) = &declaration.node else {
                    continue;
                };
                let base = self.base_type(&qual_specs(&field.node.specifiers), field.span)?;
                if field.node.declarators.is_empty()
                    && let CType::Struct(inner) = base
                    && self.is_untagged(inner)
                {
                    bits.close(&mut fields);
                    if is_union || self.is_union_like(inner) {
                        let whole = self.keep_anonymous_member(id, inner);
                        members.push(whole.clone());
                        fields.push((whole, base));
                        continue;
                    }
                    self.splice_anonymous_member(
                        id,
                        inner,
                        field.span,
                        &mut fields,
                        &mut members,
                        &mut spliced,
                    )?;
                    continue;
                }
                for d in &field.node.declarators {
                    if let Some(width) = &d.node.bit_width {
                        if let Some(name) =
                            self.bit_field(&base, d, width, &mut fields, &mut bits)?
                        {
                            members.push(name);
                        }
                        continue;
                    }
                    bits.close(&mut fields);
                    let Some(declarator) = &d.node.declarator else {
                        continue;
                    };
                    let (ty, atomic) = self
                        .apply_declarator(base.clone(), declarator)?
                        .without_atomic();
                    let name = declarator_name(&declarator.node)
                        .map(|n| n.node.name.clone())
                        .unwrap_or_default();
                    if atomic {
                        self.structs[id].atomic_fields.insert(name.clone());
                    }
                    let extensions = field.node.specifiers.iter().filter_map(|s| match &s.node {
                        SpecifierQualifier::Extension(extensions) => Some(extensions),
                        _ => None,
                    });
                    let asked = extensions.flatten().chain(&declarator.node.extensions);
                    if let Some(alignment) = self.attributes(asked)?.alignment {
                        self.structs[id]
                            .member_alignments
                            .insert(name.clone(), alignment);
                    }
                    members.push(name.clone());
                    fields.push((name, ty));
                }
            }
            bits.close(&mut fields);
            let mut bit_fields = bits.finish(&fields);
            bit_fields.extend(spliced.bit_fields);
            self.structs[id].bit_fields = bit_fields;
            if is_union {
                self.lead_with_data(&mut fields, &mut members);
            }
            if is_union && let Some(aliases) = self.scalar_union(&fields) {
                // one scalar under several names
                self.structs[id].is_union = false;
                self.structs[id].aliases = aliases;
                fields.truncate(1);
                members.truncate(1);
            }
            self.structs[id].padding = self.padding(id, &fields, &members);
            if self.member_uses.is_some() && !self.reached_by_pointer(&fields) {
                self.structs[id].padding.extend(spliced.tails);
            }
            let padding = &self.structs[id].padding;
            let modelled = fields
                .iter()
                .filter(|(name, _)| !padding.contains(name))
                .cloned()
                .collect();
            self.structs[id].members = members;
            self.structs[id].declared = fields;
            self.structs[id].fields = Some(modelled);
        }
        Ok(CType::Struct(id))
    }

    /// Whether the member `name` of struct `id` came from an anonymous
    /// struct member: a positional initialiser cannot reach it, as its
    /// braces would group the anonymous struct's members.
    pub fn is_anonymous_member(&self, id: StructId, name: &str) -> bool {
        self.structs
            .get(id)
            .is_some_and(|info| info.anonymous_members.contains(name))
    }

    /// Whether struct `id` was defined without a tag.
    pub(in crate::frontend) fn is_untagged(&self, id: StructId) -> bool {
        !self.tags.values().any(|&tagged| tagged == id)
    }

    /// Whether struct `id` is a union, or a union of scalars of one size
    /// (which is its first member under several names).
    pub(in crate::frontend) fn is_union_like(&self, id: StructId) -> bool {
        let info = &self.structs[id];
        info.is_union || !info.aliases.is_empty()
    }

    /// An anonymous union member of struct `outer` (C11: `union { int v;
    /// char c[4]; };`), or an anonymous struct member of a union: kept
    /// whole, as a member no expression names, whose members `outer`
    /// reaches through it ([`StructInfo::anonymous_paths`]) with the
    /// layout gcc gives them. Its name.
    pub(in crate::frontend) fn keep_anonymous_member(
        &mut self,
        outer: StructId,
        inner: StructId,
    ) -> String {
        let whole = format!("{{anonymous __anon{inner}}}");
        let info = &self.structs[inner];
        let names: Vec<String> = info
            .members
            .iter()
            .chain(info.aliases.keys())
            .chain(info.anonymous_paths.keys())
            .chain(info.anonymous_members.iter())
            .cloned()
            .collect();
        let paths = &mut self.structs[outer].anonymous_paths;
        for name in names {
            paths.insert(name, whole.clone());
        }
        whole
    }

    /// The anonymous member of struct `id` kept whole that holds its member
    /// `name`, if any: that member's field name and its struct.
    pub fn anonymous_path(&self, id: StructId, name: &str) -> Option<(String, StructId)> {
        let info = self.structs.get(id)?;
        let whole = info.anonymous_paths.get(name)?;
        let (_, ty) = info.declared.iter().find(|(field, _)| field == whole)?;
        match ty {
            CType::Struct(inner) => Some((whole.clone(), *inner)),
            _ => None,
        }
    }

    /// An anonymous struct member (C11: `struct { int a; int b; };` inside
    /// a struct) of struct `outer`: its members become `outer`'s, at the
    /// bytes gcc gives them. Its first member is aligned as the anonymous
    /// struct is, and its tail padding becomes a member no expression names
    /// (padding, left out of shared memory). Anonymous members kept whole
    /// inside it ([`Self::keep_anonymous_member`]) stay reachable.
    pub(in crate::frontend) fn splice_anonymous_member(
        &mut self,
        outer: StructId,
        inner: StructId,
        span: lang_c::span::Span,
        fields: &mut Vec<(String, CType)>,
        members: &mut Vec<String>,
        spliced: &mut Spliced,
    ) -> TResult<()> {
        let info = &self.structs[inner];
        if info.is_union || !info.aliases.is_empty() {
            return self.refuse(span, "an anonymous union spliced into a struct", None);
        }
        let paths = info.anonymous_paths.clone();
        let declared = info.declared.clone();
        let Some((first, _)) = declared.first() else {
            return Ok(());
        };
        let first = first.clone();
        let inner_members = info.members.clone();
        let anonymous: Vec<String> = inner_members
            .iter()
            .chain(info.anonymous_members.iter())
            .cloned()
            .collect();
        let (atomic, alignments, bit_fields) = (
            info.atomic_fields.clone(),
            info.member_alignments.clone(),
            info.bit_fields.clone(),
        );
        let end = self
            .field_extents(inner)
            .iter()
            .map(|(_, end)| *end)
            .max()
            .unwrap_or(0);
        let (alignment, size) = (
            self.alignment(&CType::Struct(inner)),
            self.byte_size(&CType::Struct(inner)),
        );
        let outer_info = &mut self.structs[outer];
        outer_info.atomic_fields.extend(atomic);
        outer_info.member_alignments.extend(alignments);
        outer_info.anonymous_members.extend(anonymous);
        outer_info.anonymous_paths.extend(paths);
        let first_alignment = outer_info.member_alignments.entry(first).or_insert(1);
        *first_alignment = (*first_alignment).max(alignment);
        fields.extend(declared);
        members.extend(inner_members);
        spliced.bit_fields.extend(bit_fields);
        if size > end {
            let tail = format!("{{tail of __anon{inner}}}");
            fields.push((
                tail.clone(),
                CType::Array(Box::new(CType::CHAR), size - end),
            ));
            spliced.tails.push(tail);
        }
        Ok(())
    }

    /// The padding members of struct `id` ([`StructInfo::padding`]) among
    /// its declared `fields`, of which `members` are named: integers or
    /// arrays of integers that no expression names. The first field is
    /// never padding: a pointer to the struct, converted, points to it
    /// (C11 6.7.2.1), so it may be reached without its name. Nor is any
    /// field of a struct that a pointer to one of its members may cross
    /// ([`Self::reached_by_pointer`]).
    pub(in crate::frontend) fn padding(
        &self,
        id: StructId,
        fields: &[(String, CType)],
        members: &[String],
    ) -> Vec<String> {
        let Some(uses) = &self.member_uses else {
            return Vec::new();
        };
        let named = &uses.named;
        let info = &self.structs[id];
        if info.is_union || self.reached_by_pointer(fields) {
            return Vec::new();
        }
        let is_padding = |(name, ty): &&(String, CType)| {
            members.contains(name)
                && !info.bit_fields.contains_key(name)
                && !named.contains(name)
                && is_integer_data(ty)
        };
        fields
            .iter()
            .skip(1)
            .filter(is_padding)
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Whether a pointer the program makes to one of the `fields` of a
    /// struct may reach the others: `&x.m`, `&p->m[i]` (but as the
    /// object of an atomic or synchronisation call), or an array member
    /// that decays (`memcpy(b.words, a.words, sizeof a)`): see
    /// [`MemberUses::reaches_beyond`](crate::frontend::analysis::scan::MemberUses::reaches_beyond).
    pub(in crate::frontend) fn reached_by_pointer(&self, fields: &[(String, CType)]) -> bool {
        self.member_uses.as_ref().is_some_and(|uses| {
            fields
                .iter()
                .any(|(name, ty)| uses.reaches_beyond(name, ty))
        })
    }

    /// A bit-field declarator `d` of type `base` and width `width`: its bits
    /// in the open run of `bits`, or in a new storage unit of `fields`. Its
    /// name, if it has one.
    pub(in crate::frontend) fn bit_field(
        &mut self,
        base: &CType,
        d: &'a Node<StructDeclarator>,
        width: &'a Node<Expression>,
        fields: &mut Vec<(String, CType)>,
        bits: &mut BitFieldRuns,
    ) -> TResult<Option<String>> {
        let ty = match &d.node.declarator {
            Some(declarator) => {
                self.apply_declarator(base.clone(), declarator)?
                    .without_atomic()
                    .0
            }
            None => base.clone(),
        };
        let declared_bits = match &ty {
            CType::Int { bits, .. } => u32::from(*bits),
            CType::Bool => 1,
            _ => return self.refuse(d.span, "a bit-field of a type other than an integer", None),
        };
        let Some(width) = self
            .const_eval(width)
            .and_then(|w| u32::try_from(w).ok())
            .filter(|w| *w <= declared_bits)
        else {
            return self.refuse(
                width.span,
                "a bit-field width that is not a constant from 0 to its type's bits",
                None,
            );
        };
        let name = d
            .node
            .declarator
            .as_ref()
            .and_then(|declarator| declarator_name(&declarator.node))
            .map(|n| n.node.name.clone());
        if width == 0 {
            // `int : 0;` ends the storage unit
            bits.close(fields);
            return Ok(None);
        }
        bits.place(name.clone(), width, ty, fields);
        Ok(name)
    }

    /// Applies the attributes after a struct's definition
    /// (`struct s { ... } __attribute__((aligned(64), packed))`) to it.
    pub(in crate::frontend) fn describe_struct(
        &mut self,
        id: StructId,
        extensions: &'a [Node<Extension>],
    ) -> TResult<()> {
        let layout = self.attributes(extensions.iter())?;
        let info = &mut self.structs[id];
        info.asked_alignment = info.asked_alignment.max(layout.alignment.unwrap_or(1));
        info.packed |= layout.packed;
        Ok(())
    }

    /// What the attributes `extensions` say of a layout: the alignment in
    /// bytes they ask for (`aligned(N)`, or `aligned` alone: 16, gcc's
    /// largest on x86_64), and whether `packed`. `_Alignas(N)` arrives as
    /// `aligned(N)` (the preprocessor spells it so).
    pub(in crate::frontend) fn attributes(
        &mut self,
        extensions: impl Iterator<Item = &'a Node<Extension>>,
    ) -> TResult<LayoutAttributes> {
        let mut layout = LayoutAttributes::default();
        for extension in extensions {
            let Extension::Attribute(attribute) = &extension.node else {
                continue;
            };
            match attribute.name.node.trim_matches('_') {
                "packed" => {
                    layout.packed = true;
                    continue;
                }
                "aligned" => {}
                _ => continue,
            }
            let alignment = match attribute.arguments.first() {
                None => Some(16),
                Some(argument) => self
                    .const_eval(argument)
                    .and_then(|n| u64::try_from(n).ok()),
            };
            let Some(alignment) = alignment.filter(|n| n.is_power_of_two()) else {
                return self.refuse(
                    extension.span,
                    "an alignment that is not a constant power of two",
                    Some("give `_Alignas` or `aligned` a constant such as 64"),
                );
            };
            layout.alignment = layout.alignment.max(Some(alignment));
        }
        Ok(layout)
    }

    /// The named members of struct `id` in declaration order
    /// ([`StructInfo::members`]); refuses what [`Self::fields`] refuses.
    pub fn members(&self, id: StructId, span: lang_c::span::Span) -> TResult<Vec<String>> {
        self.fields(id, span)?;
        Ok(self.structs[id].members.clone())
    }

    /// Moves a union's first member that takes room (not an empty struct
    /// nor a zero-length array, which take none in GNU C) to the front of
    /// its `fields` and `members`: the member whose scalar the others
    /// alias.
    pub(in crate::frontend) fn lead_with_data(
        &self,
        fields: &mut [(String, CType)],
        members: &mut [String],
    ) {
        let Some(position) = fields.iter().position(|(_, ty)| self.byte_size(ty) > 0) else {
            return;
        };
        fields[..=position].rotate_right(1);
        let name = &fields[0].0;
        if let Some(member) = members.iter().position(|member| member == name) {
            members[..=member].rotate_right(1);
        }
    }

    /// The members after the first of a union whose members are scalars of
    /// one size (besides members that take no room), by name; `None` for
    /// another union. A `char` array of one element is one too (the
    /// kernel's `union { typeof(x) __val; char __c[1]; }`): its
    /// name is the scalar's address, and no byte of it can be accessed
    /// apart ([`Self::alias_member`]).
    pub(in crate::frontend) fn scalar_union(
        &self,
        fields: &[(String, CType)],
    ) -> Option<HashMap<String, CType>> {
        let (_, first) = fields.first()?;
        let size = self.byte_size(first);
        let bytes = |ty: &CType| matches!(ty, CType::Array(element, 1) if matches!(**element, CType::Int { bits: 8, .. }));
        let scalars = first.is_scalar()
            && fields.iter().all(|(_, ty)| {
                (ty.is_scalar() && self.byte_size(ty) == size)
                    || self.byte_size(ty) == 0
                    || bytes(ty)
            });
        scalars.then(|| fields[1..].iter().cloned().collect())
    }

    /// Whether an object of type `ty` holds a union of scalars whose
    /// members are a floating and an integer type (`union { uint32_t
    /// bits; float f; }`): reading one member reads the other's bits,
    /// which shared memory does (it holds every value as its bits) and a
    /// private variable of the first member's type does not.
    pub fn puns_floating(&self, ty: &CType) -> bool {
        match ty {
            CType::Array(element, _) => self.puns_floating(element),
            CType::Struct(id) => self.structs.get(*id).is_some_and(|info| {
                let first = info
                    .fields
                    .iter()
                    .flatten()
                    .next()
                    .map(|(_, first)| first.float_bits().is_some());
                let mixed = first.is_some_and(|first| {
                    info.aliases
                        .values()
                        .any(|alias| alias.float_bits().is_some() != first)
                });
                mixed
                    || info
                        .fields
                        .iter()
                        .flatten()
                        .any(|(_, field)| self.puns_floating(field))
            }),
            _ => false,
        }
    }

    /// Whether `ty` is a union of scalars with a `char` array member
    /// ([`Self::scalar_union`]): that member is used as the scalar's
    /// address, so an object of it lives in shared memory.
    pub fn has_byte_alias(&self, ty: &CType) -> bool {
        match ty {
            CType::Struct(id) => self.structs.get(*id).is_some_and(|info| {
                info.aliases
                    .values()
                    .any(|alias| matches!(alias, CType::Array(..)))
            }),
            _ => false,
        }
    }

    /// The type of the member `name` of a union of scalars that is not its
    /// first, if it is one: the first member seen as this type. A `char`
    /// array is seen as an array of `void`: it decays to a `void *` to the
    /// scalar, and a byte of it is refused where it is read or written, as
    /// memory here holds the scalar whole.
    pub fn alias_member(&self, id: StructId, name: &str) -> Option<CType> {
        match self.structs.get(id)?.aliases.get(name)? {
            CType::Array(_, length) => Some(CType::Array(Box::new(CType::Void), *length)),
            ty => Some(ty.clone()),
        }
    }

    /// The member a designator `.name` of a braced initialiser of struct
    /// `id` names: its position in [`StructInfo::members`], or for a union
    /// of scalars' other member, the first member's position and the
    /// member's own type (its value is stored as that member's). `None`
    /// for no such member.
    pub fn designated_member(&self, id: StructId, name: &str) -> Option<(usize, Option<CType>)> {
        let info = self.structs.get(id)?;
        match info.members.iter().position(|m| m == name) {
            Some(position) => Some((position, None)),
            None => self.alias_member(id, name).map(|ty| (0, Some(ty))),
        }
    }

    /// The type of the member `name` of struct `id` as declared (padding,
    /// which shared memory leaves out, included); `None` for a bit-field
    /// member or no such member.
    pub fn declared_member_type(&self, id: StructId, name: &str) -> Option<CType> {
        let info = self.structs.get(id)?;
        let in_fields = info
            .fields
            .iter()
            .flatten()
            .find(|(field, _)| field == name);
        in_fields
            .or_else(|| info.declared.iter().find(|(field, _)| field == name))
            .map(|(_, ty)| ty.clone())
    }

    /// Whether the member `name` of struct `id` is padding, which shared
    /// memory leaves out ([`StructInfo::padding`]).
    pub fn is_padding(&self, id: StructId, name: &str) -> bool {
        self.structs
            .get(id)
            .is_some_and(|info| info.padding.iter().any(|member| member == name))
    }

    /// Every struct's padding members ([`StructInfo::padding`]) as
    /// `tag.member`.
    pub fn padding_members(&self) -> Vec<String> {
        let members = self.structs.iter().flat_map(|info| {
            info.padding
                .iter()
                .map(move |member| format!("{}.{member}", info.name))
        });
        members.collect()
    }

    /// The bit-field member `name` of struct `id`, if it is one.
    pub fn bit_field_member(&self, id: StructId, name: &str) -> Option<BitField> {
        self.structs.get(id)?.bit_fields.get(name).cloned()
    }

    pub(in crate::frontend) fn new_struct(
        &mut self,
        tag: Option<String>,
        is_union: bool,
    ) -> StructId {
        let id = self.structs.len();
        let name = tag.clone().unwrap_or_else(|| format!("__anon{id}"));
        self.structs.push(StructInfo {
            name,
            is_union,
            fields: None,
            declared: Vec::new(),
            padding: Vec::new(),
            atomic_fields: HashSet::new(),
            bit_fields: HashMap::new(),
            aliases: HashMap::new(),
            members: Vec::new(),
            anonymous_members: HashSet::new(),
            anonymous_paths: HashMap::new(),
            member_alignments: HashMap::new(),
            asked_alignment: 1,
            packed: false,
            defined_at: None,
        });
        if let Some(tag) = tag {
            self.tags.insert(tag, id);
        }
        id
    }

    /// Records the constants of an enum definition.
    pub fn add_enum(&mut self, e: &'a EnumType) {
        let mut next = 0i64;
        for enumerator in &e.enumerators {
            if let Some(value) = &enumerator.node.expression {
                match self.const_eval(value) {
                    Some(v) => next = v,
                    None => continue,
                }
            }
            self.enum_constants
                .insert(enumerator.node.identifier.node.name.clone(), next);
            next = next.wrapping_add(1);
        }
    }
}
