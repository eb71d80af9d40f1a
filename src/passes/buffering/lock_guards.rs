//! The mutexes that guard a location: those one or more threads hold at
//! every one of their accesses to it while other threads run. A store made
//! under a mutex that every other thread holds at its accesses to the same
//! location is unobserved ([`uncontended`](super::uncontended)).

use super::Accesses;
use std::collections::{BTreeMap, BTreeSet};

/// The mutexes (by location) that one or more threads hold at every one of
/// their accesses to a location while other threads run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LockGuards {
    /// Per location accessed at a known location: the mutexes held at every
    /// such access.
    pub(super) per_location: BTreeMap<u32, BTreeSet<u32>>,
    /// The mutexes held at every access through an address that may denote
    /// any location; `None` when there is none.
    pub(super) anywhere: Option<BTreeSet<u32>>,
}

impl LockGuards {
    /// Adds the locations guarded one by one to `named`.
    pub(super) fn name_locations(&self, named: &mut std::collections::BTreeSet<u32>) {
        named.extend(self.per_location.keys().copied());
    }

    /// Notes an access to `locations` (None: any) while `held` are held.
    pub(super) fn note(&mut self, locations: Option<Vec<u32>>, held: &BTreeSet<u32>) {
        match locations {
            Some(range) => {
                for location in range {
                    narrow(
                        self.per_location
                            .entry(location)
                            .or_insert_with(|| held.clone()),
                        held,
                    );
                }
            }
            None => narrow(self.anywhere.get_or_insert_with(|| held.clone()), held),
        }
    }

    pub(super) fn union(&mut self, other: &LockGuards) {
        for (location, held) in &other.per_location {
            self.note(Some(vec![*location]), held);
        }
        if let Some(held) = &other.anywhere {
            self.note(None, held);
        }
    }

    /// Forgets `mutexes` as guards: an access noted under one of them
    /// alone counts as unguarded.
    pub(super) fn distrust(&mut self, mutexes: &Accesses) {
        let trusted = |guards: &mut BTreeSet<u32>| guards.retain(|mutex| !mutexes.contains(*mutex));
        self.per_location.values_mut().for_each(trusted);
        self.anywhere.iter_mut().for_each(trusted);
    }

    /// Whether every access to `location` noted here holds one of `held`
    /// (true when none was noted).
    pub fn protect(&self, location: u32, held: &BTreeSet<u32>) -> bool {
        let guarded = |guards: &BTreeSet<u32>| !guards.is_disjoint(held);
        self.per_location.get(&location).is_none_or(guarded)
            && self.anywhere.as_ref().is_none_or(guarded)
    }
}

/// Keeps in `guards` only the mutexes also in `held`.
pub(super) fn narrow(guards: &mut BTreeSet<u32>, held: &BTreeSet<u32>) {
    guards.retain(|mutex| held.contains(mutex));
}
