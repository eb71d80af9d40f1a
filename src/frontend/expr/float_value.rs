//! A value of `float` or `double` as the translator computes it: C's
//! arithmetic in that type, and the bits shared memory holds of it.

/// A value of a floating type, computed as C computes it in that type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FloatValue {
    Single(f32),
    Double(f64),
}

impl FloatValue {
    /// The value converted to the floating type of `bits` bits.
    pub fn to_bits_of(self, bits: u8) -> FloatValue {
        match (self, bits) {
            (FloatValue::Single(v), 64) => FloatValue::Double(f64::from(v)),
            (FloatValue::Double(v), 32) => FloatValue::Single(v as f32),
            (value, _) => value,
        }
    }

    /// The value as shared memory holds it: its bits, a `float`'s as a
    /// signed 32-bit integer.
    pub fn stored(self) -> i64 {
        match self {
            FloatValue::Single(v) => i64::from(v.to_bits() as i32),
            FloatValue::Double(v) => v.to_bits() as i64,
        }
    }

    pub(in crate::frontend) fn as_double(self) -> f64 {
        match self {
            FloatValue::Single(v) => f64::from(v),
            FloatValue::Double(v) => v,
        }
    }
}
