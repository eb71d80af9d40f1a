//! The smallest hitting set of a family of sets, computed exactly: the
//! fewest elements such that every set holds one of them. The families
//! `lazysma fences` builds are small (a few delay sets of a few fence
//! places each), so subsets are tried by increasing size.

use std::collections::BTreeSet;

/// A smallest set of elements that meets every set of `family`; `None`
/// when a set is empty (nothing can hit it) or the elements are too many
/// to search exactly.
pub fn smallest<T: Ord + Clone>(family: &[BTreeSet<T>]) -> Option<BTreeSet<T>> {
    if family.iter().any(BTreeSet::is_empty) {
        return None;
    }
    let elements: Vec<T> = family
        .iter()
        .flatten()
        .cloned()
        .collect::<BTreeSet<T>>()
        .into_iter()
        .collect();
    if elements.len() > MAX_ELEMENTS {
        return None;
    }
    (0..=elements.len()).find_map(|size| {
        let mut chosen = Vec::with_capacity(size);
        first_of_size(&elements, family, size, 0, &mut chosen)
    })
}

/// The most distinct elements searched exactly.
pub const MAX_ELEMENTS: usize = 24;

/// The first hitting subset of `size` elements that extends `chosen`
/// with elements from `from` on, in lexicographic order.
fn first_of_size<T: Ord + Clone>(
    elements: &[T],
    family: &[BTreeSet<T>],
    size: usize,
    from: usize,
    chosen: &mut Vec<usize>,
) -> Option<BTreeSet<T>> {
    if chosen.len() == size {
        let set: BTreeSet<T> = chosen.iter().map(|&at| elements[at].clone()).collect();
        return family
            .iter()
            .all(|member| !member.is_disjoint(&set))
            .then_some(set);
    }
    for at in from..elements.len() {
        chosen.push(at);
        let found = first_of_size(elements, family, size, at + 1, chosen);
        chosen.pop();
        if found.is_some() {
            return found;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[u32]) -> BTreeSet<u32> {
        items.iter().copied().collect()
    }

    #[test]
    fn the_smallest_hitting_set_meets_every_set_with_the_fewest_elements() {
        assert_eq!(smallest::<u32>(&[]), Some(set(&[])));
        assert_eq!(smallest(&[set(&[1, 2])]).map(|s| s.len()), Some(1));
        assert_eq!(smallest(&[set(&[1, 2]), set(&[2, 3])]), Some(set(&[2])));
        assert_eq!(
            smallest(&[set(&[1, 2]), set(&[2]), set(&[1])]),
            Some(set(&[1, 2]))
        );
        assert_eq!(
            smallest(&[set(&[1, 4]), set(&[2, 4]), set(&[3, 4]), set(&[1, 2, 3])]),
            Some(set(&[1, 4]))
        );
        assert_eq!(smallest(&[set(&[1]), set(&[])]), None);
    }

    #[test]
    fn brute_force_agrees_on_small_families() {
        // every family of up to three subsets of {0, 1, 2, 3}
        let subsets: Vec<BTreeSet<u32>> = (1u32..16)
            .map(|bits| (0..4).filter(|i| bits & (1 << i) != 0).collect())
            .collect();
        for a in &subsets {
            for b in &subsets {
                let family = vec![a.clone(), b.clone()];
                let found = smallest(&family).expect("non-empty sets are hit");
                assert!(family.iter().all(|member| !member.is_disjoint(&found)));
                let fewest = (1u32..16)
                    .map(|bits| {
                        (0..4)
                            .filter(|i| bits & (1 << i) != 0)
                            .collect::<BTreeSet<u32>>()
                    })
                    .filter(|candidate| family.iter().all(|m| !m.is_disjoint(candidate)))
                    .map(|candidate| candidate.len())
                    .min();
                assert_eq!(Some(found.len()), fewest, "{family:?}");
            }
        }
    }
}
