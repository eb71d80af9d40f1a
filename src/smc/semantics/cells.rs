//! [`Cells`]: the values shared memory holds in one state. A program of
//! few locations keeps one value per location; a larger one keeps only the
//! locations whose value differs from their initial one, over the initial
//! values that every state shares, so that a state of a program with an
//! array of ten million cells costs what its writes cost.

use crate::ir::Runs;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Programs with up to this many locations keep a value per location.
pub const DENSE_LOCATIONS: usize = 1 << 16;

/// The values of shared memory's locations in one state.
#[derive(Debug, Clone)]
pub enum Cells {
    Dense(Vec<i64>),
    Sparse {
        /// Every location's initial value (shared by every state).
        initial: Arc<Runs<i64>>,
        len: u32,
        /// The locations whose value differs from their initial one.
        changed: BTreeMap<u32, i64>,
    },
}

impl Cells {
    /// Memory of `len` locations holding `initial` (0 past its end).
    pub fn new(initial: &Runs<i64>, len: usize) -> Cells {
        if len <= DENSE_LOCATIONS {
            let mut values = initial.to_vec();
            values.resize(len, 0);
            return Cells::Dense(values);
        }
        let mut initial = initial.clone();
        initial.pad_to(len, 0);
        Cells::Sparse {
            initial: Arc::new(initial),
            len: u32::try_from(len).unwrap_or(u32::MAX),
            changed: BTreeMap::new(),
        }
    }

    /// The value of `location`, if memory has it.
    pub fn get(&self, location: u32) -> Option<i64> {
        match self {
            Cells::Dense(values) => values.get(location as usize).copied(),
            Cells::Sparse {
                initial, changed, ..
            } => match changed.get(&location) {
                Some(&value) => Some(value),
                None => initial.get(location as usize).copied(),
            },
        }
    }

    /// The value of `location`, which the machine has checked is one of
    /// memory's (0 otherwise).
    pub fn at(&self, location: u32) -> i64 {
        debug_assert!(
            (location as usize) < self.len(),
            "location {location} outside memory"
        );
        self.get(location).unwrap_or_default()
    }

    /// Stores `value` at `location`; whether memory has it.
    pub fn set(&mut self, location: u32, value: i64) -> bool {
        match self {
            Cells::Dense(values) => match values.get_mut(location as usize) {
                Some(cell) => {
                    *cell = value;
                    true
                }
                None => false,
            },
            Cells::Sparse {
                initial,
                len,
                changed,
            } => {
                if location >= *len {
                    return false;
                }
                if initial.get(location as usize) == Some(&value) {
                    changed.remove(&location);
                } else {
                    changed.insert(location, value);
                }
                true
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Cells::Dense(values) => values.len(),
            Cells::Sparse { len, .. } => *len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every location's value.
    pub fn to_vec(&self) -> Vec<i64> {
        (0..self.len() as u32).filter_map(|l| self.get(l)).collect()
    }
}

impl PartialEq for Cells {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Cells::Dense(a), Cells::Dense(b)) => a == b,
            (
                Cells::Sparse {
                    len: a, changed: x, ..
                },
                Cells::Sparse {
                    len: b, changed: y, ..
                },
            ) => a == b && x == y,
            _ => self.to_vec() == other.to_vec(),
        }
    }
}

impl Eq for Cells {}

/// The states of one run share their initial values: a sparse memory
/// hashes what differs from them.
impl Hash for Cells {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Cells::Dense(values) => values.hash(state),
            Cells::Sparse { len, changed, .. } => {
                len.hash(state);
                changed.hash(state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_memory_keeps_what_differs_from_its_initial_values() {
        let mut initial = Runs::filled(0i64, 10_000_000);
        initial.set(5, 7);
        let mut a = Cells::new(&initial, 10_000_010);
        assert!(matches!(a, Cells::Sparse { .. }));
        assert_eq!(a.get(5), Some(7));
        assert_eq!(a.get(10_000_009), Some(0));
        assert_eq!(a.get(10_000_010), None);
        let b = a.clone();
        assert!(a.set(3, 1));
        assert_ne!(a, b);
        assert!(a.set(3, 0));
        assert_eq!(a, b, "writing the initial value back is the initial state");
        assert!(!a.set(10_000_010, 1));
    }

    #[test]
    fn a_small_memory_keeps_every_value() {
        let initial: Runs<i64> = vec![0, 4].into();
        let mut cells = Cells::new(&initial, 3);
        assert_eq!(cells, Cells::Dense(vec![0, 4, 0]));
        assert!(cells.set(2, 9));
        assert_eq!(cells.to_vec(), vec![0, 4, 9]);
    }
}
