//! [`Locations`]: the scalar locations of shared memory, by object. Each
//! object is its first location id, its name and its [`Shape`] (scalars,
//! arrays, structs), so a location's name and type are found from its id
//! by walking the shape, and an array costs the size of its type, not of
//! its cells. Initial values are [`Runs`]: an array whose cells share one
//! initial value is one run.

use super::runs::Runs;
use super::{StructDef, Ty};

/// The layout of one object of shared memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// One scalar of a C type; `mutex` for a `pthread_mutex_t` (value 0 =
    /// free).
    Scalar { ty: Ty, mutex: bool },
    /// A heap cell: no C type is known.
    Untyped,
    Array {
        element: Box<Shape>,
        length: u64,
        /// Scalars per element.
        element_scalars: u64,
    },
    Struct {
        /// Each member with its shape and its first scalar's offset.
        members: Vec<(String, Shape, u64)>,
        scalars: u64,
    },
}

impl Shape {
    pub fn scalar(ty: Ty) -> Shape {
        Shape::Scalar { ty, mutex: false }
    }

    pub fn array(element: Shape, length: u64) -> Shape {
        let element_scalars = element.scalars();
        Shape::Array {
            element: Box::new(element),
            length,
            element_scalars,
        }
    }

    pub fn structure(members: Vec<(String, Shape)>) -> Shape {
        let mut offset = 0;
        let members = members
            .into_iter()
            .map(|(name, shape)| {
                let first = offset;
                offset += shape.scalars();
                (name, shape, first)
            })
            .collect();
        Shape::Struct {
            members,
            scalars: offset,
        }
    }

    /// The shape of a value of the IR type `ty` (`void` has no scalar).
    pub fn of_type(ty: &Ty, structs: &[StructDef]) -> Shape {
        match ty {
            Ty::Void => Shape::structure(Vec::new()),
            Ty::Array(element, n) => Shape::array(Shape::of_type(element, structs), *n),
            Ty::Struct(id) => Shape::structure(
                structs
                    .get(*id)
                    .map(|s| {
                        s.fields
                            .iter()
                            .map(|(field, t)| (field.clone(), Shape::of_type(t, structs)))
                            .collect()
                    })
                    .unwrap_or_default(),
            ),
            scalar => Shape::scalar(scalar.clone()),
        }
    }

    /// Number of scalars.
    pub fn scalars(&self) -> u64 {
        match self {
            Shape::Scalar { .. } | Shape::Untyped => 1,
            Shape::Array {
                length,
                element_scalars,
                ..
            } => length.saturating_mul(*element_scalars),
            Shape::Struct { scalars, .. } => *scalars,
        }
    }

    /// The scalar at `offset`, with the access path from the object to it
    /// appended to `path` (`[3].next`).
    fn scalar_at(&self, offset: u64, path: &mut String) -> Option<&Shape> {
        match self {
            Shape::Scalar { .. } | Shape::Untyped => (offset == 0).then_some(self),
            Shape::Array {
                element,
                length,
                element_scalars,
            } => {
                let index = offset.checked_div(*element_scalars)?;
                if index >= *length {
                    return None;
                }
                path.push_str(&format!("[{index}]"));
                element.scalar_at(offset - index * element_scalars, path)
            }
            Shape::Struct { members, .. } => {
                let (name, shape, first) = members
                    .iter()
                    .rev()
                    .find(|(_, shape, first)| *first <= offset && shape.scalars() > 0)?;
                path.push('.');
                path.push_str(name);
                shape.scalar_at(offset - first, path)
            }
        }
    }

    /// One fact per scalar, `fact` of each leaf, as runs.
    pub fn facts<T: Clone + PartialEq>(&self, fact: &mut dyn FnMut(&Shape) -> T) -> Runs<T> {
        let mut runs = Runs::new();
        self.push_facts(fact, &mut runs);
        runs
    }

    fn push_facts<T: Clone + PartialEq>(
        &self,
        fact: &mut dyn FnMut(&Shape) -> T,
        out: &mut Runs<T>,
    ) {
        match self {
            Shape::Scalar { .. } | Shape::Untyped => out.push(fact(self)),
            Shape::Array {
                element, length, ..
            } => {
                let element = element.facts(fact);
                out.push_runs_repeated(&element, *length as usize);
            }
            Shape::Struct { members, .. } => {
                for (_, shape, _) in members {
                    shape.push_facts(fact, out);
                }
            }
        }
    }

    /// The names of the members and the scalars' types, changed by `f`.
    fn rename(&mut self, f: &dyn Fn(&str) -> String) {
        match self {
            Shape::Scalar { .. } | Shape::Untyped => {}
            Shape::Array { element, .. } => element.rename(f),
            Shape::Struct { members, .. } => {
                for (name, shape, _) in members {
                    *name = f(name);
                    shape.rename(f);
                }
            }
        }
    }
}

/// An object of shared memory: a global, an address-taken local, a heap
/// block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedObject {
    pub first: u32,
    /// Its name, which begins every location's name (`q` of `q.data[2]`).
    pub name: String,
    pub shape: Shape,
}

impl SharedObject {
    pub fn scalars(&self) -> u64 {
        self.shape.scalars()
    }
}

/// One scalar of shared memory, as [`Locations::get`] describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Source-level name for reports: `x`, `vars[1]`, `s.next`, `q.data[2].v`.
    pub name: String,
    /// The object this scalar belongs to (`vars` for `vars[1]`).
    pub object: String,
    /// Initial value (C static initialisation, 0 when none).
    pub initial: i64,
    /// Whether the scalar is a mutex (`pthread_mutex_t`): value 0 = free.
    pub is_mutex: bool,
    /// The scalar's C type, for showing its values in reports (shared
    /// memory holds every value as signed bits); none for a heap cell.
    pub ty: Option<Ty>,
}

/// The locations of shared memory: objects in id order, each covering
/// the ids from its first on, and each location's initial value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Locations {
    objects: Vec<SharedObject>,
    initial: Runs<i64>,
}

impl Locations {
    /// Number of location ids (the objects' scalars).
    pub fn len(&self) -> usize {
        self.initial.len()
    }

    pub fn is_empty(&self) -> bool {
        self.initial.is_empty()
    }

    /// One location per name, each an object of its own without a C type
    /// (for executions given by their locations' names).
    pub fn named(names: &[String]) -> Locations {
        let mut locations = Locations::default();
        for name in names {
            locations.push_object(name.clone(), Shape::Untyped);
        }
        locations
    }

    /// Appends an object of `shape` named `name`; its first location.
    /// An object without scalars takes no id.
    pub fn push_object(&mut self, name: String, shape: Shape) -> u32 {
        let first = self.len() as u32;
        let scalars = shape.scalars();
        if scalars > 0 {
            self.initial.push_repeated(vec![0], scalars as usize);
            self.objects.push(SharedObject { first, name, shape });
        }
        first
    }

    /// The objects in id order.
    pub fn objects(&self) -> &[SharedObject] {
        &self.objects
    }

    /// The object holding location `id`.
    pub fn object_of(&self, id: usize) -> Option<&SharedObject> {
        let k = self
            .objects
            .partition_point(|object| object.first as usize <= id)
            .checked_sub(1)?;
        let object = &self.objects[k];
        (id < object.first as usize + object.scalars() as usize).then_some(object)
    }

    /// The name of the object holding location `id`.
    pub fn object_name(&self, id: usize) -> Option<&str> {
        self.object_of(id).map(|object| object.name.as_str())
    }

    /// Location `id`'s name and leaf shape.
    fn leaf(&self, id: usize) -> Option<(String, &Shape)> {
        let object = self.object_of(id)?;
        let mut name = object.name.clone();
        let shape = object
            .shape
            .scalar_at((id - object.first as usize) as u64, &mut name)?;
        Some((name, shape))
    }

    /// Location `id`'s name (`q.data[2].v`).
    pub fn name(&self, id: usize) -> Option<String> {
        self.leaf(id).map(|(name, _)| name)
    }

    /// Location `id` described.
    pub fn get(&self, id: usize) -> Option<Location> {
        let (name, shape) = self.leaf(id)?;
        let (ty, is_mutex) = match shape {
            Shape::Scalar { ty, mutex } => (Some(ty.clone()), *mutex),
            _ => (None, false),
        };
        Some(Location {
            name,
            object: self.object_name(id)?.to_string(),
            initial: self.initial(id),
            is_mutex,
            ty,
        })
    }

    /// Whether location `id` is a mutex.
    pub fn is_mutex(&self, id: usize) -> bool {
        matches!(self.leaf(id), Some((_, Shape::Scalar { mutex: true, .. })))
    }

    pub fn initial(&self, id: usize) -> i64 {
        self.initial.get(id).copied().unwrap_or(0)
    }

    /// Sets location `id`'s initial value (a mutex keeps 0).
    pub fn set_initial(&mut self, id: usize, value: i64) {
        if !self.is_mutex(id) {
            self.initial.set(id, value);
        }
    }

    /// Every location's initial value.
    pub fn initial_values(&self) -> &Runs<i64> {
        &self.initial
    }

    /// One fact per location, `fact` of its leaf shape, as runs.
    pub fn facts<T: Clone + PartialEq>(&self, fact: &mut dyn FnMut(&Shape) -> T) -> Runs<T> {
        let mut runs = Runs::new();
        for object in &self.objects {
            object.shape.push_facts(fact, &mut runs);
        }
        runs
    }

    /// Renames the object whose first location is `first`.
    pub fn rename_object(&mut self, first: u32, name: &str) {
        if let Some(object) = self.objects.iter_mut().find(|o| o.first == first) {
            object.name = name.to_string();
        }
    }

    /// Changes every object's and member's name by `f`.
    pub fn rename_all(&mut self, f: &dyn Fn(&str) -> String) {
        for object in &mut self.objects {
            object.name = f(&object.name);
            object.shape.rename(f);
        }
    }

    /// Every location described, in id order (as many steps as there are
    /// locations: for tests and small programs).
    pub fn iter(&self) -> impl Iterator<Item = Location> + '_ {
        (0..self.len()).filter_map(|id| self.get(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> Shape {
        Shape::structure(vec![
            ("value".into(), Shape::scalar(Ty::INT)),
            (
                "next".into(),
                Shape::scalar(Ty::Pointer(Box::new(Ty::Void))),
            ),
        ])
    }

    #[test]
    fn names_and_types_come_from_the_shape() {
        let mut locations = Locations::default();
        locations.push_object(
            "NULL".into(),
            Shape::scalar(Ty::Pointer(Box::new(Ty::Void))),
        );
        let x = locations.push_object("x".into(), Shape::scalar(Ty::INT));
        let q = locations.push_object(
            "q".into(),
            Shape::structure(vec![
                ("head".into(), Shape::scalar(Ty::INT)),
                ("data".into(), Shape::array(node(), 10_000_000)),
            ]),
        );
        let m = locations.push_object(
            "m".into(),
            Shape::Scalar {
                ty: Ty::INT,
                mutex: true,
            },
        );
        assert_eq!((x, q, m), (1, 2, 20_000_003));
        assert_eq!(locations.len(), 20_000_004);
        assert_eq!(locations.name(0).as_deref(), Some("NULL"));
        assert_eq!(locations.name(2).as_deref(), Some("q.head"));
        assert_eq!(locations.name(3).as_deref(), Some("q.data[0].value"));
        assert_eq!(
            locations.name(20_000_002).as_deref(),
            Some("q.data[9999999].next")
        );
        assert_eq!(locations.object_name(7), Some("q"));
        assert_eq!(locations.name(20_000_004), None);
        assert!(locations.is_mutex(20_000_003));
        locations.set_initial(20_000_003, 1);
        locations.set_initial(5, 4);
        assert_eq!(locations.initial(20_000_003), 0);
        assert_eq!(locations.initial(5), 4);
        assert_eq!(locations.initial_values().runs().count(), 3);
        let kinds = locations.facts(&mut |shape| {
            matches!(
                shape,
                Shape::Scalar {
                    ty: Ty::Pointer(_),
                    ..
                }
            )
        });
        assert_eq!(kinds.get(4), Some(&true));
        assert_eq!(kinds.get(5), Some(&false));
        assert!(kinds.runs().count() <= 5);
    }

    #[test]
    fn empty_objects_take_no_location() {
        let mut locations = Locations::default();
        let a = locations.push_object("a".into(), Shape::structure(Vec::new()));
        let b = locations.push_object("b".into(), Shape::scalar(Ty::INT));
        assert_eq!((a, b), (0, 0));
        assert_eq!(locations.objects().len(), 1);
        assert_eq!(locations.object_name(0), Some("b"));
    }
}
