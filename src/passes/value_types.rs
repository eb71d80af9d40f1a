//! The C types of shared memory as far as reports need them to show values:
//! the kind of every static location (signed, unsigned of a width, pointer)
//! and the shapes pointers point to, so that a trace can type the heap
//! blocks that typed pointers point into. Shared memory itself is untyped:
//! every location holds one integer of the configured bit width.

use crate::ir::scalar_locations;
use crate::ir::{Runs, StructDef, Ty};
use std::collections::HashMap;

/// An index into [`ValueTypes::shapes`].
pub type ShapeId = usize;

/// How a report shows the values of one scalar of shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueKind {
    /// No C type is known (a heap cell no typed pointer points to): shown
    /// as a signed integer.
    #[default]
    Untyped,
    Signed,
    /// An unsigned integer of this width (memory holds its bits signed).
    Unsigned {
        bits: u8,
    },
    /// A pointer, that is a location id; `pointee` is the shape of what it
    /// points to (`None` for `void *`).
    Pointer {
        pointee: Option<ShapeId>,
    },
    /// A pointer to a function: the function's number.
    Function,
    /// A thread handle (`pthread_t`): the thread's slot.
    Thread,
    /// A `float` (32) or `double` (64): memory holds the integer of its
    /// bits.
    Float {
        bits: u8,
    },
}

/// The value kinds of a translation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ValueTypes {
    /// Index = location id; heap locations are [`ValueKind::Untyped`].
    pub locations: Runs<ValueKind>,
    /// Index = [`ShapeId`]: the kinds of the scalars of one pointed-to
    /// object, in memory order (one element of an array).
    pub shapes: Vec<Vec<ValueKind>>,
    /// Index = [`ShapeId`]: how the name of the shape's first scalar ends
    /// after the object's (`.value` for a `struct node { int value; ... }`,
    /// empty for a scalar), so that a pointer to a struct is named `&n`
    /// rather than by its first field `&n.value`.
    pub first_scalars: Vec<String>,
    /// The first heap location id, and the scalars per heap block.
    pub heap_base: u64,
    pub heap_block_size: u64,
    /// Whether pointer values are byte addresses ([`crate::ir::Program::byte_addresses`]).
    pub byte_addresses: bool,
    /// The functions by number less one ([`crate::ir::Ty::FunctionPointer`]).
    pub function_names: Vec<String>,
    /// The threads by slot, as reports name them
    /// ([`crate::passes::ThreadSlot::name`]).
    pub thread_names: Vec<String>,
    /// The shape of the values of the blocks each allocating statement
    /// takes, by its statement id ([`crate::ir::Program::allocation_types`]).
    pub allocation_shapes: HashMap<usize, ShapeId>,
    /// Index = static location id: the byte size of its scalar as C lays
    /// it out (0 where none is known), which an access through a
    /// converted pointer must match ([`super::access_sizes`]).
    pub location_bytes: Runs<u32>,
    /// Index = static location id: a pointer that holds no address in any
    /// execution, only integers the program converts to pointers
    /// (`(void *)1`), by the points-to facts ([`super::points_to`]); its
    /// values are shown as integers, not as the objects at those numbers.
    pub integer_pointers: Runs<bool>,
}

/// Where a pointer value points: the location, and the low bits of a byte
/// address that are not part of it (a marked pointer's tag).
pub fn pointed_location(value: i128, byte_addresses: bool) -> Option<(u64, u8)> {
    let value = u64::try_from(value).ok()?;
    let unit = crate::ir::BYTE_ADDRESS_UNIT as u64;
    Some(if byte_addresses {
        (value / unit, (value % unit) as u8)
    } else {
        (value, 0)
    })
}

impl ValueTypes {
    /// The kinds of every location once the pointers the trace stores and
    /// loads, `(location id, value)` in any order, have typed the heap cells
    /// they point into: a pointer to shape S at cell c types c, c + 1, ...
    /// as S's scalars, repeated to the ends of c's block (an array of S),
    /// unless another pointer typed the cell first.
    pub fn with_heap_typed(&self, accesses: &[(u64, i128)]) -> Runs<ValueKind> {
        let mut kinds = self.locations.clone();
        // a cell typed as a pointer can type further cells: repeat until
        // nothing changes (each round types at least one cell)
        let mut changed = true;
        while changed {
            changed = false;
            for &(location, value) in accesses {
                let Some(ValueKind::Pointer {
                    pointee: Some(shape),
                }) = index(location).and_then(|l| kinds.get(l)).copied()
                else {
                    continue;
                };
                changed |= self.type_block(&mut kinds, value, shape);
            }
        }
        kinds
    }

    /// [`Self::with_heap_typed`], then the cells still untyped of each block
    /// allocated, `(first location, allocating statement)`, as an array of
    /// the type the program converts the allocation's pointer to.
    pub fn with_heap_and_allocations_typed(
        &self,
        accesses: &[(u64, i128)],
        allocations: &[(u64, usize)],
    ) -> Runs<ValueKind> {
        let mut kinds = self.with_heap_typed(accesses);
        let unit = if self.byte_addresses {
            crate::ir::BYTE_ADDRESS_UNIT as i128
        } else {
            1
        };
        for &(base, statement) in allocations {
            if let Some(&shape) = self.allocation_shapes.get(&statement) {
                self.type_block(&mut kinds, i128::from(base) * unit, shape);
            }
        }
        kinds
    }

    /// Types the untyped cells of the heap block that `target` points into
    /// as an array of `shape` aligned at `target`; whether any changed.
    fn type_block(&self, kinds: &mut Runs<ValueKind>, target: i128, shape: ShapeId) -> bool {
        let scalars = match self.shapes.get(shape) {
            Some(scalars) if !scalars.is_empty() => scalars,
            _ => return false,
        };
        let (Some((target, _)), true) = (
            pointed_location(target, self.byte_addresses),
            self.heap_block_size > 0,
        ) else {
            return false;
        };
        if target < self.heap_base {
            return false;
        }
        let block_start = target - (target - self.heap_base) % self.heap_block_size;
        let period = scalars.len() as u64;
        let mut changed = false;
        for cell in block_start..block_start + self.heap_block_size {
            let Some(cell) = index(cell) else {
                break;
            };
            let Some(kind) = kinds.get(cell) else {
                break;
            };
            if *kind == ValueKind::Untyped {
                let offset =
                    (cell as u64 - block_start + period - (target - block_start) % period) % period;
                kinds.set(cell, scalars[offset as usize]);
                changed = true;
            }
        }
        changed
    }
}

fn index(location: u64) -> Option<usize> {
    usize::try_from(location).ok()
}

/// Builds [`ValueTypes`] from the C types of the static locations.
pub struct ValueTypesBuilder<'a> {
    structs: &'a [StructDef],
    shapes: Vec<Vec<ValueKind>>,
    first_scalars: Vec<String>,
    shape_of_type: HashMap<Ty, ShapeId>,
}

impl<'a> ValueTypesBuilder<'a> {
    pub fn new(structs: &'a [StructDef]) -> Self {
        ValueTypesBuilder {
            structs,
            shapes: Vec::new(),
            first_scalars: Vec::new(),
            shape_of_type: HashMap::new(),
        }
    }

    /// The kind of a scalar of type `ty`.
    pub fn kind(&mut self, ty: &Ty) -> ValueKind {
        match ty {
            Ty::Int {
                bits,
                signed: false,
            } => ValueKind::Unsigned { bits: *bits },
            Ty::Pointer(target) => ValueKind::Pointer {
                pointee: self.shape(target),
            },
            Ty::FunctionPointer => ValueKind::Function,
            Ty::ThreadHandle => ValueKind::Thread,
            Ty::Float { bits } => ValueKind::Float { bits: *bits },
            _ => ValueKind::Signed,
        }
    }

    /// The shape of an object of type `ty` (`None` for `void`). A struct
    /// that points to itself gets its id before its fields are looked at.
    pub fn shape(&mut self, ty: &Ty) -> Option<ShapeId> {
        if *ty == Ty::Void {
            return None;
        }
        if let Some(&id) = self.shape_of_type.get(ty) {
            return Some(id);
        }
        let id = self.shapes.len();
        self.shapes.push(Vec::new());
        self.first_scalars.push(String::new());
        self.shape_of_type.insert(ty.clone(), id);
        let mut scalars = Vec::new();
        scalar_locations("", ty, self.structs, &mut scalars);
        self.first_scalars[id] = scalars
            .first()
            .map(|(name, _)| name.clone())
            .unwrap_or_default();
        self.shapes[id] = scalars
            .iter()
            .map(|(_, scalar)| self.kind(scalar))
            .collect();
        Some(id)
    }

    /// The value types of locations of these `kinds`, with the heap layout.
    pub fn finish(
        self,
        locations: Runs<ValueKind>,
        heap_base: u64,
        heap_block_size: u64,
        byte_addresses: bool,
    ) -> ValueTypes {
        ValueTypes {
            locations,
            shapes: self.shapes,
            first_scalars: self.first_scalars,
            heap_base,
            heap_block_size,
            byte_addresses,
            function_names: Vec::new(),
            thread_names: Vec::new(),
            allocation_shapes: HashMap::new(),
            location_bytes: Runs::new(),
            integer_pointers: Runs::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> StructDef {
        // struct node { unsigned value; struct node *next; }
        StructDef {
            name: "node".into(),
            fields: vec![
                (
                    "value".into(),
                    Ty::Int {
                        bits: 32,
                        signed: false,
                    },
                ),
                ("next".into(), Ty::Pointer(Box::new(Ty::Struct(0)))),
            ],
        }
    }

    #[test]
    fn a_self_referential_struct_has_one_shape() {
        let structs = [node()];
        let mut builder = ValueTypesBuilder::new(&structs);
        let top = builder.kind(&Ty::Pointer(Box::new(Ty::Struct(0))));
        assert_eq!(top, ValueKind::Pointer { pointee: Some(0) });
        let types = builder.finish(vec![top].into(), 1, 4, false);
        assert_eq!(
            types.shapes,
            vec![vec![
                ValueKind::Unsigned { bits: 32 },
                ValueKind::Pointer { pointee: Some(0) }
            ]]
        );
        assert_eq!(types.first_scalars, [".value"]);
    }

    #[test]
    fn an_allocation_converted_to_a_typed_pointer_types_the_cells_no_pointer_typed() {
        let structs = [node()];
        let mut builder = ValueTypesBuilder::new(&structs);
        let top = builder.kind(&Ty::Pointer(Box::new(Ty::Struct(0))));
        let double = builder.shape(&Ty::Float { bits: 64 }).expect("a shape");
        let untyped = ValueKind::Untyped;
        // location 0: top; heap blocks of 2 at 1..3 and 3..5
        let mut types = builder.finish(
            vec![top, untyped, untyped, untyped, untyped].into(),
            1,
            2,
            false,
        );
        // statement 7 allocated block 1 as doubles, statement 8 block 0
        types.allocation_shapes = HashMap::from([(7, double), (8, double)]);
        // top points to block 0: its pointer types it, not the allocation
        let kinds = types.with_heap_and_allocations_typed(&[(0, 1)], &[(1, 8), (3, 7)]);
        let float = ValueKind::Float { bits: 64 };
        assert_eq!(
            kinds.to_vec()[1..],
            [
                ValueKind::Unsigned { bits: 32 },
                ValueKind::Pointer { pointee: Some(0) },
                float,
                float
            ]
        );
        // an allocation whose pointer the program never converts stays untyped
        assert_eq!(
            types
                .with_heap_and_allocations_typed(&[], &[(3, 9)])
                .to_vec()[3..],
            [untyped, untyped]
        );
    }

    #[test]
    fn pointers_type_the_heap_blocks_they_point_into_transitively() {
        let structs = [node()];
        let mut builder = ValueTypesBuilder::new(&structs);
        let top = builder.kind(&Ty::Pointer(Box::new(Ty::Struct(0))));
        let untyped = ValueKind::Untyped;
        // location 0: top; heap blocks of 4 at 1..5 and 5..9
        let types = builder.finish(
            vec![
                top, untyped, untyped, untyped, untyped, untyped, untyped, untyped, untyped,
            ]
            .into(),
            1,
            4,
            false,
        );
        // top -> block 0 (cell 1); block 0's second `next` (cell 4) -> cell 6
        let kinds = types.with_heap_typed(&[(4, 6), (0, 1)]).to_vec();
        let unsigned = ValueKind::Unsigned { bits: 32 };
        let pointer = ValueKind::Pointer { pointee: Some(0) };
        assert_eq!(&kinds[1..5], &[unsigned, pointer, unsigned, pointer]);
        // cell 6 starts a node: the block is typed around it, aligned at 6
        assert_eq!(&kinds[5..9], &[pointer, unsigned, pointer, unsigned]);
        // a pointer to somewhere else, or a value outside memory, types nothing
        assert_eq!(
            types.with_heap_typed(&[(0, 0), (0, -3), (0, 99)]).to_vec(),
            types.locations.to_vec()
        );
        // byte addresses: 8 per location, a marked pointer's tag ignored
        let bytes = ValueTypes {
            byte_addresses: true,
            ..types.clone()
        };
        assert_eq!(
            bytes.with_heap_typed(&[(4, 6 * 8 + 1), (0, 8)]).to_vec(),
            kinds
        );
    }

    #[test]
    fn a_byte_address_points_to_its_location_with_its_tag() {
        assert_eq!(pointed_location(41, true), Some((5, 1)));
        assert_eq!(pointed_location(40, true), Some((5, 0)));
        assert_eq!(pointed_location(41, false), Some((41, 0)));
        assert_eq!(pointed_location(-8, true), None);
    }
}
