//! [`Runs`]: a vector of one fact per location (an initial value, a value
//! kind, a byte size) kept as runs of a repeated pattern, so that an array
//! of ten million cells that share their element's facts costs one run,
//! not ten million entries. Reading a location is a binary search over the
//! runs; writing one splits its run.

use std::ops::Range;

/// One value per index, stored as runs: run `r` covers `r.start ..
/// r.start + r.pattern.len() * r.times` and repeats `r.pattern` `times`
/// times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runs<T> {
    runs: Vec<Run<T>>,
    len: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Run<T> {
    start: usize,
    pattern: Vec<T>,
    times: usize,
}

impl<T> Run<T> {
    fn len(&self) -> usize {
        self.pattern.len() * self.times
    }

    fn end(&self) -> usize {
        self.start + self.len()
    }

    /// A run written out once: its pattern is its values.
    fn is_literal(&self) -> bool {
        self.times == 1
    }
}

impl<T> Default for Runs<T> {
    fn default() -> Self {
        Runs {
            runs: Vec::new(),
            len: 0,
        }
    }
}

/// Patterns up to this many values are repeated as they are; a longer one
/// is written out whole, as often as it repeats (a rare shape: a large
/// array inside an array of many elements, whose facts vary).
const MAX_PATTERN: usize = 1 << 12;

impl<T: Clone + PartialEq> Runs<T> {
    pub fn new() -> Self {
        Runs::default()
    }

    /// `len` copies of `value`.
    pub fn filled(value: T, len: usize) -> Self {
        let mut runs = Runs::new();
        runs.push_repeated(vec![value], len);
        runs
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value at `index`.
    pub fn get(&self, index: usize) -> Option<&T> {
        let run = &self.runs[self.run_of(index)?];
        let offset = index - run.start;
        run.pattern.get(offset % run.pattern.len())
    }

    /// The run holding `index`.
    fn run_of(&self, index: usize) -> Option<usize> {
        if index >= self.len {
            return None;
        }
        Some(self.runs.partition_point(|run| run.end() <= index))
    }

    /// Appends `value`.
    pub fn push(&mut self, value: T) {
        self.len += 1;
        let Some(last) = self.runs.last_mut() else {
            self.runs.push(Run {
                start: 0,
                pattern: vec![value],
                times: 1,
            });
            return;
        };
        if last.pattern.len() == 1 && last.pattern[0] == value {
            last.times += 1;
            return;
        }
        if last.is_literal() && last.pattern.len() < MAX_PATTERN {
            // a literal ending in the same value gives it up to a new run
            // of two, so that runs of one value stay runs
            if last.pattern.len() > 1 && last.pattern.last() == Some(&value) {
                last.pattern.pop();
                let start = last.end();
                self.runs.push(Run {
                    start,
                    pattern: vec![value],
                    times: 2,
                });
            } else {
                last.pattern.push(value);
            }
            return;
        }
        let start = last.end();
        self.runs.push(Run {
            start,
            pattern: vec![value],
            times: 1,
        });
    }

    /// Appends `pattern` repeated `times` times.
    pub fn push_repeated(&mut self, pattern: Vec<T>, times: usize) {
        if pattern.is_empty() || times == 0 {
            return;
        }
        if pattern.len() > MAX_PATTERN || (times == 1 && pattern.len() <= 2) {
            for _ in 0..times {
                for value in &pattern {
                    self.push(value.clone());
                }
            }
            return;
        }
        let (pattern, times) = match uniform(&pattern) {
            Some(value) => (vec![value.clone()], times * pattern.len()),
            None => (pattern, times),
        };
        if let Some(last) = self.runs.last_mut()
            && last.pattern == pattern
        {
            last.times += times;
            self.len += pattern.len() * times;
            return;
        }
        self.runs.push(Run {
            start: self.len,
            times,
            pattern,
        });
        self.len = self.runs.last().map_or(0, Run::end);
    }

    /// Appends every value of `other`, keeping its runs.
    pub fn extend_runs(&mut self, other: &Runs<T>) {
        for run in &other.runs {
            self.push_repeated(run.pattern.clone(), run.times);
        }
    }

    /// Appends `other` repeated `times` times.
    pub fn push_runs_repeated(&mut self, other: &Runs<T>, times: usize) {
        match other.runs.as_slice() {
            [] => {}
            [run] => self.push_repeated(run.pattern.clone(), run.times * times),
            _ if other.len <= MAX_PATTERN => self.push_repeated(other.to_vec(), times),
            _ => {
                for _ in 0..times {
                    self.extend_runs(other);
                }
            }
        }
    }

    /// Appends `value` until the length is `len` (shortens nothing).
    pub fn pad_to(&mut self, len: usize, value: T) {
        if len > self.len {
            self.push_repeated(vec![value], len - self.len);
        }
    }

    /// Sets the value at `index`; whether `index` is below the length.
    pub fn set(&mut self, index: usize, value: T) -> bool {
        let Some(r) = self.run_of(index) else {
            return false;
        };
        let run = &self.runs[r];
        let offset = index - run.start;
        let period = run.pattern.len();
        if run.pattern[offset % period] == value {
            return true;
        }
        if run.is_literal() {
            self.runs[r].pattern[offset] = value;
            return true;
        }
        // split: the periods before, the one holding `index` written out,
        // the periods after
        let k = offset / period;
        let mut middle = run.pattern.clone();
        middle[offset % period] = value;
        let mut pieces = Vec::with_capacity(3);
        if k > 0 {
            pieces.push(Run {
                start: run.start,
                pattern: run.pattern.clone(),
                times: k,
            });
        }
        let middle_start = run.start + k * period;
        pieces.push(Run {
            start: middle_start,
            pattern: middle,
            times: 1,
        });
        if run.times - k - 1 > 0 {
            pieces.push(Run {
                start: middle_start + period,
                pattern: run.pattern.clone(),
                times: run.times - k - 1,
            });
        }
        self.runs.splice(r..=r, pieces);
        true
    }

    /// Every value in order (as many steps as the length).
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.runs
            .iter()
            .flat_map(|run| (0..run.times).flat_map(move |_| run.pattern.iter()))
    }

    /// The runs: the indices each covers and the pattern it repeats.
    pub fn runs(&self) -> impl Iterator<Item = (Range<usize>, &[T])> {
        self.runs
            .iter()
            .map(|run| (run.start..run.end(), run.pattern.as_slice()))
    }

    /// The indices whose value is not `value`, in order, each with its
    /// value (as many steps as such indices, and one per run).
    pub fn except<'a>(&'a self, value: &'a T) -> impl Iterator<Item = (usize, &'a T)> + 'a {
        self.runs
            .iter()
            .filter(move |run| run.pattern.iter().any(|v| v != value))
            .flat_map(move |run| {
                (0..run.len())
                    .map(move |k| (run.start + k, &run.pattern[k % run.pattern.len()]))
                    .filter(move |(_, v)| *v != value)
            })
    }

    /// `f` of every value, with the same runs.
    pub fn map<U: Clone + PartialEq>(&self, f: impl Fn(&T) -> U) -> Runs<U> {
        let mut mapped = Runs::new();
        for run in &self.runs {
            mapped.push_repeated(run.pattern.iter().map(&f).collect(), run.times);
        }
        mapped
    }

    /// The maximal stretches of one value, in order: `(value, how many)`
    /// (one step per run of one value, one per index elsewhere).
    pub fn stretches(&self) -> Vec<(T, usize)> {
        let mut stretches: Vec<(T, usize)> = Vec::new();
        let mut add = |value: &T, count: usize| match stretches.last_mut() {
            Some((last, n)) if last == value => *n += count,
            _ => stretches.push((value.clone(), count)),
        };
        for run in &self.runs {
            if let [value] = run.pattern.as_slice() {
                add(value, run.times);
            } else {
                for _ in 0..run.times {
                    for value in &run.pattern {
                        add(value, 1);
                    }
                }
            }
        }
        stretches
    }

    /// The values written out.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().cloned().collect()
    }
}

/// The one value every element of `pattern` is.
fn uniform<T: PartialEq>(pattern: &[T]) -> Option<&T> {
    let first = pattern.first()?;
    pattern.iter().all(|v| v == first).then_some(first)
}

impl<T: Clone + PartialEq> From<Vec<T>> for Runs<T> {
    fn from(values: Vec<T>) -> Self {
        let mut runs = Runs::new();
        for value in values {
            runs.push(value);
        }
        runs
    }
}

impl<T: Clone + PartialEq> FromIterator<T> for Runs<T> {
    fn from_iter<I: IntoIterator<Item = T>>(values: I) -> Self {
        let mut runs = Runs::new();
        for value in values {
            runs.push(value);
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ten_million_equal_cells_are_one_run() {
        let mut runs = Runs::new();
        runs.push(7i64);
        runs.push_repeated(vec![0], 10_000_000);
        runs.push(7);
        assert_eq!(runs.len(), 10_000_002);
        assert_eq!(runs.runs().count(), 3);
        assert_eq!(runs.get(5_000_000), Some(&0));
        assert_eq!(runs.get(10_000_001), Some(&7));
        assert_eq!(runs.get(10_000_002), None);
        assert!(runs.set(4_000_000, 3));
        assert_eq!(runs.get(4_000_000), Some(&3));
        assert_eq!(runs.get(3_999_999), Some(&0));
        assert_eq!(runs.runs().count(), 5);
        let listed: Vec<_> = runs.except(&0).collect();
        assert_eq!(listed, vec![(0, &7), (4_000_000, &3), (10_000_001, &7)]);
    }

    #[test]
    fn an_array_of_structs_repeats_its_element() {
        let mut element = Runs::new();
        element.push(1u8);
        element.push(2);
        let mut runs = Runs::new();
        runs.push_runs_repeated(&element, 1_000_000);
        assert_eq!(runs.runs().count(), 1);
        assert_eq!(runs.get(999_999), Some(&2));
        assert_eq!(runs.get(1_000_000), Some(&1));
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(u8),
        Repeat(Vec<u8>, usize),
        Set(usize, u8),
        Nested(Vec<u8>, usize, usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..3).prop_map(Op::Push),
            (proptest::collection::vec(0u8..3, 1..4), 0usize..6)
                .prop_map(|(p, t)| Op::Repeat(p, t)),
            (0usize..40, 0u8..3).prop_map(|(i, v)| Op::Set(i, v)),
            (
                proptest::collection::vec(0u8..3, 1..4),
                1usize..3,
                0usize..3
            )
                .prop_map(|(p, t, n)| Op::Nested(p, t, n)),
        ]
    }

    proptest! {
        /// Every sequence of operations leaves the same values as on a
        /// plain vector.
        #[test]
        fn runs_hold_what_a_vector_holds(ops in proptest::collection::vec(op(), 0..30)) {
            let mut runs: Runs<u8> = Runs::new();
            let mut plain: Vec<u8> = Vec::new();
            for op in ops {
                match op {
                    Op::Push(v) => { runs.push(v); plain.push(v); }
                    Op::Repeat(p, t) => {
                        runs.push_repeated(p.clone(), t);
                        for _ in 0..t { plain.extend(&p); }
                    }
                    Op::Set(i, v) => {
                        prop_assert_eq!(runs.set(i, v), i < plain.len());
                        if let Some(slot) = plain.get_mut(i) { *slot = v; }
                    }
                    Op::Nested(p, t, n) => {
                        let mut inner = Runs::new();
                        inner.push_repeated(p.clone(), t);
                        inner.push(0);
                        runs.push_runs_repeated(&inner, n);
                        for _ in 0..n {
                            for _ in 0..t { plain.extend(&p); }
                            plain.push(0);
                        }
                    }
                }
                prop_assert_eq!(runs.len(), plain.len());
            }
            prop_assert_eq!(runs.to_vec(), plain.clone());
            for (i, v) in plain.iter().enumerate() {
                prop_assert_eq!(runs.get(i), Some(v));
            }
            let except: Vec<(usize, u8)> = runs.except(&0).map(|(i, v)| (i, *v)).collect();
            let expected: Vec<(usize, u8)> = plain.iter().enumerate()
                .filter(|(_, v)| **v != 0).map(|(i, v)| (i, *v)).collect();
            prop_assert_eq!(except, expected);
        }
    }
}
