//! The initial shape of the timestamped SMAs' T-CDLLs (`tcdll.h`) as
//! constant tables, one row per location, so that CBMC starts from constants
//! instead of building every list in `sma_init`.
//!
//! `sma_init` sets three entries per location one at a time, and CBMC
//! propagates the whole array as a constant through each of those
//! assignments: a cost quadratic in the number of locations (SV-COMP's
//! `indexer.c`, 258 locations, spent 2.3 of its 2.45 s there).

use super::CBMC_INITIALISER_LIMIT;
use crate::options::TranslateOptions;
use crate::passes::SequentialProgram;
use std::fmt::Write as _;

/// Defines `SMA_FRESH_LISTS` and the tables `SMA_FRESH_TSTAMP`,
/// `SMA_FRESH_PREV`, `SMA_FRESH_NEXT` for a timestamped SMA with at most
/// [`CBMC_INITIALISER_LIMIT`] locations (one row each); nothing otherwise:
/// `sma_init` then builds the lists itself.
pub fn print_fresh_lists(
    out: &mut String,
    program: &SequentialProgram,
    options: &TranslateOptions,
) {
    let locations = program.memory.location_count().max(1);
    if !options.sma.is_timestamped() || locations as usize > CBMC_INITIALISER_LIMIT {
        return;
    }
    let rows = FreshList::new(options.bounds.qsize);
    out.push_str(
        "/* The lists' initial shape, one row per location (tcdll.h, sma_init): node\n \
         * QSIZE-1 holds the initial value, the others are free, the sentinel comes last. */\n\
         #define SMA_FRESH_LISTS\n",
    );
    print_table(out, "SMA_FRESH_TSTAMP", &rows.tstamp, locations);
    print_table(out, "SMA_FRESH_PREV", &rows.prev, locations);
    print_table(out, "SMA_FRESH_NEXT", &rows.next, locations);
}

/// One location's list as `sma_init` builds it: nodes `0..qsize-1` hold
/// writes, node `qsize` is the sentinel, and the circle runs
/// `0 -> 1 -> ... -> qsize -> 0`.
#[derive(Debug, PartialEq)]
struct FreshList {
    tstamp: Vec<String>,
    prev: Vec<String>,
    next: Vec<String>,
}

impl FreshList {
    fn new(qsize: u32) -> FreshList {
        let sentinel = qsize;
        let nodes = 0..=sentinel;
        let successor = |node: u32| if node == sentinel { 0 } else { node + 1 };
        let predecessor = |node: u32| if node == 0 { sentinel } else { node - 1 };
        FreshList {
            tstamp: nodes
                .clone()
                .map(|node| {
                    if node == sentinel {
                        "SMA_NEVER".to_string()
                    } else {
                        "0".to_string()
                    }
                })
                .collect(),
            prev: nodes
                .clone()
                .map(|node| predecessor(node).to_string())
                .collect(),
            next: nodes.map(|node| successor(node).to_string()).collect(),
        }
    }
}

/// `#define NAME { {row}, {row}, ... }` with `locations` copies of `row`.
fn print_table(out: &mut String, name: &str, row: &[String], locations: u32) {
    let row = format!("{{{}}}", row.join(", "));
    let _ = write!(out, "#define {name} {{");
    for location in 0..locations {
        if location % 8 == 0 {
            out.push_str(" \\\n   ");
        }
        let _ = write!(out, " {row},");
    }
    out.push_str(" \\\n  }\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_list_is_one_circle_through_the_sentinel() {
        let list = FreshList::new(2);
        assert_eq!(list.next, ["1", "2", "0"]);
        assert_eq!(list.prev, ["2", "0", "1"]);
        assert_eq!(list.tstamp, ["0", "0", "SMA_NEVER"]);
        for qsize in 1..6 {
            let list = FreshList::new(qsize);
            let next: Vec<usize> = list.next.iter().map(|n| n.parse().unwrap()).collect();
            let prev: Vec<usize> = list.prev.iter().map(|n| n.parse().unwrap()).collect();
            assert_eq!(next.len(), qsize as usize + 1);
            for node in 0..next.len() {
                assert_eq!(prev[next[node]], node, "qsize {qsize}: prev[next[{node}]]");
            }
        }
    }

    #[test]
    fn a_table_has_one_row_per_location() {
        let mut out = String::new();
        print_table(&mut out, "T", &["1".to_string(), "0".to_string()], 10);
        assert_eq!(out.matches("{1, 0},").count(), 10);
        assert!(out.starts_with("#define T {"));
        assert!(
            out.lines()
                .all(|line| line.ends_with('\\') || line.ends_with('}'))
        );
    }
}
