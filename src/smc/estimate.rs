//! Knuth's estimator of the size of a search tree (D. E. Knuth,
//! "Estimating the efficiency of backtrack programs", Math. Comp. 29,
//! 1975): a probe descends from the root, choosing one child uniformly at
//! random at each node, and the sum over its depths of the product of the
//! branching factors met so far (1 + d₀ + d₀d₁ + ...) is an unbiased
//! estimate of the number of nodes. The average of several probes is the
//! estimate; a fixed seed makes it reproducible. What a node's children
//! are is the caller's: the reads-from search probes its own schedules
//! (`rf::probe`). Nothing here knows the engine.

use std::time::{Duration, Instant};

/// A small deterministic generator (SplitMix64): probes need uniform
/// choices and reproducibility, not cryptographic quality.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `bound` (which is not 0), uniformly.
    pub fn below(&mut self, bound: usize) -> usize {
        // the multiply-shift reduction: its bias is below 2^-32 for the
        // small bounds of a search tree
        let wide = u128::from(self.next_u64()) * bound as u128;
        (wide >> 64) as usize
    }
}

/// The average of some probes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The estimated number of nodes.
    pub nodes: f64,
    /// The probes averaged.
    pub probes: usize,
}

/// How many probes and how much time an estimate may take.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub probes: usize,
    pub time: Duration,
}

/// One probe from `root`: the estimate of the number of nodes of the tree
/// `children` gives. `Ok(None)` when `go_on` said to stop before the
/// probe reached a leaf (the probe counts for nothing then).
pub fn probe<N, E>(
    root: N,
    rng: &mut Rng,
    mut children: impl FnMut(N) -> Result<Vec<N>, E>,
    go_on: &dyn Fn() -> bool,
) -> Result<Option<f64>, E> {
    let mut weight = 1.0_f64;
    let mut nodes = 1.0_f64;
    let mut node = root;
    loop {
        if !go_on() {
            return Ok(None);
        }
        let mut next = children(node)?;
        if next.is_empty() {
            return Ok(Some(nodes));
        }
        weight *= next.len() as f64;
        nodes += weight;
        node = next.swap_remove(rng.below(next.len()));
    }
}

/// The average of up to `budget.probes` probes made by `one_probe` within
/// `budget.time` (a probe started in time is finished unless `one_probe`
/// itself stops). `None` when no probe finished, or when a probe failed
/// before any finished.
pub fn average<E>(
    budget: Budget,
    mut one_probe: impl FnMut(&mut Rng, usize) -> Result<Option<f64>, E>,
    seed: u64,
) -> Option<Estimate> {
    let started = Instant::now();
    let mut rng = Rng::new(seed);
    let mut sum = 0.0;
    let mut probes = 0;
    while probes < budget.probes && started.elapsed() < budget.time {
        match one_probe(&mut rng, probes) {
            Ok(Some(nodes)) => {
                sum += nodes;
                probes += 1;
            }
            Ok(None) | Err(_) => break,
        }
    }
    (probes > 0).then(|| Estimate {
        nodes: sum / probes as f64,
        probes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    const GENEROUS: Budget = Budget {
        probes: 4000,
        time: Duration::from_secs(60),
    };

    /// A node of a synthetic tree: its depth and a label.
    type Node = (u32, u64);

    /// A uniform tree: every node above `depth` has `branching` children.
    fn uniform(branching: usize, depth: u32) -> impl Fn(Node) -> Result<Vec<Node>, Infallible> {
        move |(level, label)| {
            Ok(if level < depth {
                (0..branching as u64)
                    .map(|child| (level + 1, label * 31 + child))
                    .collect()
            } else {
                Vec::new()
            })
        }
    }

    /// An irregular tree: a node's number of children (1 to 3 near the
    /// root, 0 to 3 below) follows from its label, and at depth 7 it has
    /// none.
    fn irregular((level, label): Node) -> Result<Vec<Node>, Infallible> {
        let mut mixed = Rng::new(label);
        let count = match level {
            0..2 => 1 + mixed.below(3),
            2..7 => mixed.below(4),
            _ => 0,
        };
        Ok((0..count as u64)
            .map(|child| (level + 1, label.wrapping_mul(7919).wrapping_add(child + 1)))
            .collect())
    }

    fn size(node: Node, children: &dyn Fn(Node) -> Result<Vec<Node>, Infallible>) -> u64 {
        let Ok(next) = children(node);
        1 + next
            .into_iter()
            .map(|child| size(child, children))
            .sum::<u64>()
    }

    #[test]
    fn a_probe_of_a_uniform_tree_is_exact() {
        let tree = uniform(3, 4);
        let mut rng = Rng::new(1);
        let Ok(found) = probe((0, 0), &mut rng, &tree, &|| true);
        assert_eq!(found, Some(1.0 + 3.0 + 9.0 + 27.0 + 81.0));
        assert_eq!(size((0, 0), &tree), 121);
    }

    #[test]
    fn the_average_over_an_irregular_tree_is_near_its_size() {
        let root = (0, 12345);
        let exact = size(root, &irregular) as f64;
        assert!(exact > 20.0, "the tree is not trivial: {exact} nodes");
        let estimate = average(GENEROUS, |rng, _| probe(root, rng, irregular, &|| true), 42)
            .expect("probes finish");
        assert_eq!(estimate.probes, GENEROUS.probes);
        let error = (estimate.nodes - exact).abs() / exact;
        assert!(
            error < 0.15,
            "estimate {} for {exact} nodes",
            estimate.nodes
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_estimate() {
        let run = |seed| {
            average(
                Budget {
                    probes: 50,
                    time: Duration::from_secs(60),
                },
                |rng, _| probe((0, 99), rng, irregular, &|| true),
                seed,
            )
        };
        assert_eq!(run(7), run(7));
    }

    #[test]
    fn a_stopped_probe_counts_for_nothing() {
        let mut rng = Rng::new(3);
        let Ok(found) = probe((0, 0), &mut rng, uniform(2, 3), &|| false);
        assert_eq!(found, None);
        let estimate = average(
            GENEROUS,
            |rng, _| probe((0, 0), rng, uniform(2, 3), &|| false),
            1,
        );
        assert_eq!(estimate, None);
    }

    #[test]
    fn a_leaf_alone_is_one_node() {
        let mut rng = Rng::new(5);
        let Ok(found) = probe((9, 0), &mut rng, uniform(2, 3), &|| true);
        assert_eq!(found, Some(1.0));
    }

    #[test]
    fn choices_below_a_bound_are_spread() {
        let mut rng = Rng::new(11);
        let mut counts = [0usize; 5];
        for _ in 0..5000 {
            counts[rng.below(5)] += 1;
        }
        assert!(counts.iter().all(|&count| (800..1200).contains(&count)));
    }
}
