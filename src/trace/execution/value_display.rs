//! How the report shows the values of locations: as their C types read
//! them.

use crate::passes::value_types::{ValueKind, ValueTypes, pointed_location};
use std::collections::HashMap;

/// Shows the values of locations as their C types read them: pointers as
/// the locations they point to (`&x`, `&heap#0[1]`, `NULL`), floating
/// values as numbers (`1.5`) rather than their bits, the rest as integers
/// (already unsigned where the type is).
#[derive(Debug, Clone, Default)]
pub struct ValueDisplay {
    /// Index = location id.
    names: Vec<String>,
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
}

impl ValueDisplay {
    pub(super) fn new(names: &[String], kinds: &[ValueKind], types: &ValueTypes) -> ValueDisplay {
        let pointers = names
            .iter()
            .zip(kinds)
            .filter_map(|(name, kind)| match kind {
                ValueKind::Pointer { pointee } => {
                    let first = pointee
                        .and_then(|shape| types.first_scalars.get(shape))
                        .cloned()
                        .unwrap_or_default();
                    Some((name.clone(), first))
                }
                _ => None,
            })
            .collect();
        let holding = |wanted: ValueKind| -> std::collections::HashSet<String> {
            names
                .iter()
                .zip(kinds)
                .filter(|(_, kind)| **kind == wanted)
                .map(|(name, _)| name.clone())
                .collect()
        };
        let (function_pointers, thread_handles) =
            (holding(ValueKind::Function), holding(ValueKind::Thread));
        let floats = names
            .iter()
            .zip(kinds)
            .filter_map(|(name, kind)| match kind {
                ValueKind::Float { bits } => Some((name.clone(), *bits)),
                _ => None,
            })
            .collect();
        ValueDisplay {
            names: names.to_vec(),
            pointers,
            byte_addresses: types.byte_addresses,
            function_pointers,
            function_names: types.function_names.clone(),
            thread_handles,
            thread_names: types.thread_names.clone(),
            floats,
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
        let pointed = pointed_location(value, self.byte_addresses)
            .and_then(|(location, tag)| Some((usize::try_from(location).ok()?, tag)))
            .and_then(|(location, tag)| Some((location, self.names.get(location)?, tag)));
        match pointed {
            Some((0, _, 0)) => "NULL".to_string(),
            Some((0, _, _)) | None => value.to_string(),
            Some((_, target, tag)) => {
                // a struct's address is its first scalar's: named by the struct
                let object = target
                    .strip_suffix(first_scalar.as_str())
                    .filter(|_| !first_scalar.is_empty())
                    .unwrap_or(target);
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
