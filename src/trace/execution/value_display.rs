//! How the report shows the values of locations: as their C types read
//! them.

use crate::ir::{Locations, Runs};
use crate::passes::value_types::{ValueKind, ValueTypes, pointed_location};
use std::collections::{BTreeSet, HashMap};

/// Shows the values of locations as their C types read them: pointers as
/// the locations they point to (`&x`, `&heap#0[1]`, `NULL`), floating
/// values as numbers (`1.5`) rather than their bits, the rest as integers
/// (already unsigned where the type is).
#[derive(Debug, Clone, Default)]
pub struct ValueDisplay {
    /// Names the locations pointers point to.
    names: Locations,
    /// The locations that hold pointers, by name: how the name of the
    /// first scalar of what each points to ends ([`ValueTypes::first_scalars`]).
    pointers: HashMap<String, String>,
    /// Whether pointer values are byte addresses ([`ValueTypes::byte_addresses`]).
    byte_addresses: bool,
    /// The locations that hold pointers to functions, by name.
    function_pointers: std::collections::HashSet<String>,
    /// The functions by number less one.
    function_names: Vec<String>,
    /// The locations that hold thread handles, by name.
    thread_handles: std::collections::HashSet<String>,
    /// The threads by slot.
    thread_names: Vec<String>,
    /// The locations that hold floating values, by name: their bits.
    floats: HashMap<String, u8>,
    /// The pointers that hold no address, only integers the program
    /// converts to pointers, by name ([`ValueTypes::integer_pointers`]).
    integer_pointers: std::collections::HashSet<String>,
}

impl ValueDisplay {
    /// The display of the values of the `touched` locations, of these
    /// `kinds`, named by `locations`.
    pub(super) fn new(
        locations: &Locations,
        kinds: &Runs<ValueKind>,
        types: &ValueTypes,
        touched: &BTreeSet<u64>,
    ) -> ValueDisplay {
        let mut display = ValueDisplay {
            names: locations.clone(),
            byte_addresses: types.byte_addresses,
            function_names: types.function_names.clone(),
            thread_names: types.thread_names.clone(),
            ..ValueDisplay::default()
        };
        for &location in touched {
            let Ok(index) = usize::try_from(location) else {
                continue;
            };
            let (Some(name), Some(kind)) = (locations.name(index), kinds.get(index)) else {
                continue;
            };
            if types.integer_pointers.get(index) == Some(&true) {
                display.integer_pointers.insert(name.clone());
            }
            display.note(name, *kind, types);
        }
        display
    }

    /// Notes how the values of the location `name` of `kind` are shown.
    fn note(&mut self, name: String, kind: ValueKind, types: &ValueTypes) {
        match kind {
            ValueKind::Pointer { pointee } => {
                let first = pointee
                    .and_then(|shape| types.first_scalars.get(shape))
                    .cloned()
                    .unwrap_or_default();
                self.pointers.insert(name, first);
            }
            ValueKind::Function => {
                self.function_pointers.insert(name);
            }
            ValueKind::Thread => {
                self.thread_handles.insert(name);
            }
            ValueKind::Float { bits } => {
                self.floats.insert(name, bits);
            }
            ValueKind::Untyped | ValueKind::Signed | ValueKind::Unsigned { .. } => {}
        }
    }

    /// A pointer to a function: `&name` of the function its number
    /// names, `NULL`, or the number.
    fn function(&self, value: i128) -> String {
        if value == 0 {
            return "NULL".to_string();
        }
        let name = usize::try_from(value - 1)
            .ok()
            .and_then(|index| self.function_names.get(index));
        name.map_or_else(|| value.to_string(), |name| format!("&{name}"))
    }

    /// `value` of `location` as a number for machines (JSON's `value`):
    /// a floating value as its shortest exact decimal, any other as the
    /// integer memory holds (a pointer's location id).
    pub fn number(&self, location: &str, value: i128) -> String {
        match self.floats.get(location) {
            Some(bits) => floating_value(value, *bits),
            None => value.to_string(),
        }
    }

    /// `value` of `location`, as the report shows it.
    pub fn show(&self, location: &str, value: i128) -> String {
        if self.function_pointers.contains(location) {
            return self.function(value);
        }
        if let Some(bits) = self.floats.get(location) {
            return floating_value(value, *bits);
        }
        if self.thread_handles.contains(location) {
            let name = usize::try_from(value)
                .ok()
                .and_then(|slot| self.thread_names.get(slot));
            return name.map_or_else(|| value.to_string(), |name| format!("thread {name}"));
        }
        let Some(first_scalar) = self.pointers.get(location) else {
            return value.to_string();
        };
        if self.integer_pointers.contains(location) {
            return match value {
                0 => "NULL".to_string(),
                value => value.to_string(),
            };
        }
        let pointed = pointed_location(value, self.byte_addresses)
            .and_then(|(location, tag)| Some((usize::try_from(location).ok()?, tag)))
            .and_then(|(location, tag)| Some((location, self.names.name(location)?, tag)));
        match pointed {
            Some((0, _, 0)) => "NULL".to_string(),
            Some((0, _, _)) | None => value.to_string(),
            Some((_, target, tag)) => {
                // a struct's address is its first scalar's: named by the struct
                let object = target
                    .strip_suffix(first_scalar.as_str())
                    .filter(|_| !first_scalar.is_empty())
                    .unwrap_or(&target);
                match tag {
                    0 => format!("&{object}"),
                    _ => format!("&{object} | {tag}"),
                }
            }
        }
    }
}

/// The floating value of `bits` bits whose bits memory holds as `stored`
/// (a `float`'s as a signed 32-bit integer), as C would print it with
/// enough digits to give it back.
fn floating_value(stored: i128, bits: u8) -> String {
    match bits {
        32 => format!("{:?}", f32::from_bits(stored as i32 as u32)),
        _ => format!("{:?}", f64::from_bits(stored as i64 as u64)),
    }
}
