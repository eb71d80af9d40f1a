//! C's rules for braced initialisers (C11 6.7.9): brace elision (`int m[2][2]
//! = { 1, 2, 3, 4 }`, `struct point ps[2] = { 0 }`) and designator lists
//! (`[1][2] = 7`, `.inner.y = 4`), read into one tree of the subobjects an
//! initialiser gives values to, which the static (`globals.rs`) and the
//! local (`lower_stmt.rs`) initialisers then store.

use super::strings::array_string_initialiser;
use crate::frontend::c_types::types::{CType, StructId};
use crate::frontend::lower::{LResult, Lowerer};
use lang_c::ast::{Designator, Expression, Initializer, InitializerListItem};
use lang_c::span::{Node, Span};
use std::collections::BTreeMap;

/// What an initialiser gives one subobject.
#[derive(Debug, Clone)]
pub enum Filled<'a> {
    /// The whole subobject, from one initialiser of the program: a scalar's
    /// value (braced or not), a struct value, a character array's string,
    /// a mutex's initialiser.
    Value(&'a Node<Initializer>),
    /// An array's or struct's subobjects by position (the element's index,
    /// or the member's position among the struct's members); those it does
    /// not list are zero.
    Parts(BTreeMap<u64, Part<'a>>),
}

/// One subobject of a [`Filled::Parts`].
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// The member of a union of scalars a designator named in place of its
    /// first (whose position the part has).
    pub alias: Option<String>,
    pub filled: Filled<'a>,
}

/// One level of the current object: an aggregate and the position in it.
struct Level {
    ty: CType,
    position: u64,
}

impl<'a> Lowerer<'a> {
    /// Reads the braced list `items` of an object of aggregate type `ty`
    /// (an array or a struct). `whole(expression)` says whether an
    /// expression that meets a struct subobject is a struct value, which
    /// initialises it whole rather than its first member.
    pub fn braced_initialiser(
        &mut self,
        ty: &CType,
        items: &'a [Node<InitializerListItem>],
        whole: &dyn Fn(&'a Node<Expression>) -> bool,
    ) -> LResult<BTreeMap<u64, Part<'a>>> {
        let mut parts = BTreeMap::new();
        let mut current = vec![Level {
            ty: ty.clone(),
            position: 0,
        }];
        for item in items {
            let mut alias = None;
            let mut ranges = Vec::new();
            if item.node.designation.is_empty() {
                if !self.next_subobject(&mut current) {
                    self.warn_excess_initialisers(ty, item);
                    break;
                }
            } else {
                current.truncate(1);
                alias = self.designate(&mut current, &item.node.designation, &mut ranges)?;
            }
            let initializer = &*item.node.initializer;
            loop {
                let level = current
                    .last()
                    .expect("the current object has its outermost level");
                let sub = self.subobject_type(&level.ty, level.position, item)?;
                if let Some((id, member)) = self.positional_member(&level.ty, level.position) {
                    self.refuse_positional_anonymous_member(id, &member, item)?;
                }
                // an aggregate whose members the initialiser gives one by
                // one (not a character array's string)
                let by_members = is_aggregate(&sub)
                    && array_string_initialiser(element_of(&sub), initializer).is_none();
                let elided = matches!(&initializer.node, Initializer::Expression(e) if by_members
                    && !(matches!(sub, CType::Struct(_)) && whole(e)));
                if !elided {
                    let filled = match &initializer.node {
                        Initializer::List(inner) if by_members => {
                            Filled::Parts(self.braced_initialiser(&sub, inner, whole)?)
                        }
                        _ => Filled::Value(initializer),
                    };
                    let path: Vec<u64> = current.iter().map(|level| level.position).collect();
                    for path in range_paths(path, &ranges) {
                        insert(&mut parts, &path, alias.clone(), filled.clone());
                    }
                    // after a range, the next value goes after its last element
                    for (depth, last) in &ranges {
                        current[*depth].position = *last;
                    }
                    break;
                }
                // an expression for an aggregate without braces: it and the
                // items after it fill the aggregate's members in order
                current.push(Level {
                    ty: sub,
                    position: 0,
                });
            }
            if let Some(level) = current.last_mut() {
                level.position += 1;
            }
        }
        Ok(parts)
    }

    /// Warns that `item` and the items after it in a braced list for an
    /// object of type `ty` have no subobject left: ignored, as gcc does.
    fn warn_excess_initialisers(&mut self, ty: &CType, item: &Node<InitializerListItem>) {
        let what = if matches!(ty, CType::Array(..)) {
            "array"
        } else {
            "struct"
        };
        let mut warning = self.source.diagnostic(
            item.span.start,
            item.span.end,
            format!("excess elements in {what} initialiser"),
            "no element is left for this value",
            Some(
                "the values past the object's last element are ignored, as gcc does; remove them"
                    .to_string(),
            ),
        );
        warning.severity = crate::diagnostics::Severity::Warning;
        // a list is read again for an array's length
        if !self.program.warnings.contains(&warning) {
            self.program.warnings.push(warning);
        }
    }

    /// An array type declared without a length (`int a[] = { 1, 2, 3 }`,
    /// `int m[][2] = { 1, 2, 3 }`, `char s[] = "hi"`) with the length its
    /// initialiser gives it: one past the last element a braced list
    /// initialises.
    pub fn completed_array(
        &mut self,
        ty: CType,
        init: Option<&'a Node<Initializer>>,
        whole: &dyn Fn(&'a Node<Expression>) -> bool,
    ) -> LResult<CType> {
        let ty = super::strings::completed_array(ty, init);
        let (
            CType::Array(element, 0),
            Some(Node {
                node: Initializer::List(items),
                ..
            }),
        ) = (&ty, init)
        else {
            return Ok(ty);
        };
        let parts = self.braced_initialiser(&ty, items, whole)?;
        let length = parts.keys().next_back().map_or(0, |last| last + 1);
        Ok(CType::Array(element.clone(), length))
    }

    /// Moves the current object past its filled levels to the next
    /// subobject a positional initialiser fills; false when the outermost
    /// aggregate is full.
    fn next_subobject(&self, current: &mut Vec<Level>) -> bool {
        loop {
            let Some(level) = current.last() else {
                return false;
            };
            if self
                .length(&level.ty)
                .is_none_or(|length| level.position < length)
            {
                return true;
            }
            if current.len() == 1 {
                return false;
            }
            current.pop();
            if let Some(parent) = current.last_mut() {
                parent.position += 1;
            }
        }
    }

    /// Follows a designator list from the outermost aggregate, leaving the
    /// current object at the subobject it names (the first of a GNU range
    /// `[first ... last]`, whose level and last element it adds to
    /// `ranges`). Returns the alias a final member designator names (a
    /// union of scalars' other member).
    fn designate(
        &mut self,
        current: &mut Vec<Level>,
        designation: &'a [Node<Designator>],
        ranges: &mut Vec<(usize, u64)>,
    ) -> LResult<Option<String>> {
        let mut alias = None;
        for (index, designator) in designation.iter().enumerate() {
            if index > 0 {
                let level = current
                    .last()
                    .expect("the current object has its outermost level");
                let sub = self.subobject_type_at(&level.ty, level.position);
                match sub {
                    Some(sub) if is_aggregate(&sub) && alias.is_none() => current.push(Level {
                        ty: sub,
                        position: 0,
                    }),
                    _ => {
                        return self.error(
                            designator.span,
                            "this designator names a part of a scalar",
                            "no such subobject",
                        );
                    }
                }
            }
            let level = current
                .last_mut()
                .expect("the current object has its outermost level");
            match (&designator.node, &level.ty) {
                (Designator::Index(e), CType::Array(_, length)) => match self.types.const_eval(e) {
                    Some(position)
                        if position >= 0 && (*length == 0 || (position as u64) < *length) =>
                    {
                        level.position = position as u64;
                    }
                    Some(_) => {
                        return self.error(
                            e.span,
                            "array index in initialiser exceeds the array's bounds",
                            "this index",
                        );
                    }
                    None => {
                        return self.refuse(
                            designator.span,
                            "this designator",
                            Some("index with a constant"),
                        );
                    }
                },
                (Designator::Range(range), CType::Array(_, length)) => {
                    let in_bounds =
                        |index: i64| index >= 0 && (*length == 0 || (index as u64) < *length);
                    let (from, to) = (&range.node.from, &range.node.to);
                    match (self.types.const_eval(from), self.types.const_eval(to)) {
                        (Some(first), Some(last))
                            if in_bounds(first) && in_bounds(last) && first <= last =>
                        {
                            level.position = first as u64;
                            ranges.push((current.len() - 1, last as u64));
                        }
                        (Some(_), Some(_)) => {
                            return self.error(
                                designator.span,
                                "this range is empty or exceeds the array's bounds",
                                "this range",
                            );
                        }
                        _ => {
                            return self.refuse(
                                designator.span,
                                "this designator",
                                Some("bound the range with constants"),
                            );
                        }
                    }
                }
                (Designator::Member(name), CType::Struct(id)) => {
                    let id = *id;
                    let id = self.enter_anonymous_members(current, id, &name.node.name);
                    let Some(level) = current.last_mut() else {
                        continue;
                    };
                    match self.types.designated_member(id, &name.node.name) {
                        Some((position, alias_type)) => {
                            level.position = position as u64;
                            alias = alias_type.map(|_| name.node.name.clone());
                        }
                        None => {
                            return self.error(
                                name.span,
                                format!("no field `{}`", name.node.name),
                                "unknown field",
                            );
                        }
                    }
                }
                _ => return self.refuse(designator.span, "this designator", None),
            }
        }
        Ok(alias)
    }

    /// For a designator `.name` of a member of an anonymous union of
    /// struct `id` (or of an anonymous struct of a union), moves the
    /// current object to that anonymous member, as C does; the struct
    /// whose member `name` then is.
    fn enter_anonymous_members(
        &self,
        current: &mut Vec<Level>,
        id: StructId,
        name: &str,
    ) -> StructId {
        let mut id = id;
        while let Some((whole, inner)) = self.types.anonymous_path(id, name) {
            let Some((position, _)) = self.types.designated_member(id, &whole) else {
                break;
            };
            if let Some(level) = current.last_mut() {
                level.position = position as u64;
            }
            current.push(Level {
                ty: CType::Struct(inner),
                position: 0,
            });
            id = inner;
        }
        id
    }

    /// The number of subobjects of an aggregate (None: an array without a
    /// length, which its initialiser completes).
    fn length(&self, ty: &CType) -> Option<u64> {
        match ty {
            CType::Array(_, 0) => None,
            CType::Array(_, length) => Some(*length),
            CType::Struct(id) => Some(
                self.types
                    .members(*id, Span::none())
                    .map_or(0, |members| members.len() as u64),
            ),
            _ => Some(0),
        }
    }

    /// The type of the subobject at `position` of aggregate `ty`, or an
    /// error at `item`.
    fn subobject_type(
        &self,
        ty: &CType,
        position: u64,
        item: &Node<InitializerListItem>,
    ) -> LResult<CType> {
        match self.subobject_type_at(ty, position) {
            Some(sub) => Ok(sub),
            None => self.error(
                item.span,
                "this initialiser has no subobject to initialise",
                "here",
            ),
        }
    }

    fn subobject_type_at(&self, ty: &CType, position: u64) -> Option<CType> {
        match ty {
            CType::Array(element, _) => Some((**element).clone()),
            CType::Struct(id) => {
                let members = self.types.members(*id, Span::none()).ok()?;
                let member = members.get(usize::try_from(position).ok()?)?;
                if self.types.bit_field_member(*id, member).is_some() {
                    return Some(CType::INT);
                }
                self.types.declared_member_type(*id, member)
            }
            _ => None,
        }
    }

    /// The struct and member at `position` of `ty`, if `ty` is a struct.
    fn positional_member(&self, ty: &CType, position: u64) -> Option<(StructId, String)> {
        let CType::Struct(id) = ty else { return None };
        let members = self.types.members(*id, Span::none()).ok()?;
        members
            .get(usize::try_from(position).ok()?)
            .map(|member| (*id, member.clone()))
    }
}

/// Every path `path` stands for when the levels in `ranges` run from their
/// position in `path` to their last element.
fn range_paths(path: Vec<u64>, ranges: &[(usize, u64)]) -> Vec<Vec<u64>> {
    let mut paths = vec![path];
    for (depth, last) in ranges {
        paths = paths
            .into_iter()
            .flat_map(|path| {
                (path[*depth]..=*last).map(move |position| {
                    let mut each = path.clone();
                    each[*depth] = position;
                    each
                })
            })
            .collect();
    }
    paths
}

/// Whether `ty` is an array or a struct: an aggregate whose braces an
/// initialiser may leave out.
fn is_aggregate(ty: &CType) -> bool {
    matches!(ty, CType::Array(..) | CType::Struct(_))
}

/// The element type of an array type (the type itself otherwise).
fn element_of(ty: &CType) -> &CType {
    match ty {
        CType::Array(element, _) => element,
        other => other,
    }
}

/// Sets the subobject at `path` of `parts` to `filled`: a braced list or a
/// value replaces what earlier initialisers gave it; a deeper path adds to
/// the parts of the subobjects on its way.
fn insert<'a>(
    parts: &mut BTreeMap<u64, Part<'a>>,
    path: &[u64],
    alias: Option<String>,
    filled: Filled<'a>,
) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        parts.insert(*first, Part { alias, filled });
        return;
    }
    let part = parts.entry(*first).or_insert_with(|| Part {
        alias: None,
        filled: Filled::Parts(BTreeMap::new()),
    });
    if !matches!(part.filled, Filled::Parts(_)) {
        part.filled = Filled::Parts(BTreeMap::new());
    }
    if let Filled::Parts(inner) = &mut part.filled {
        insert(inner, rest, alias, filled);
    }
}
