//! The store-buffer lists of the reference SMAs (`tso_ref.h`, `pso_ref.h`):
//! which buffers can hold stores, how many, and how many flush passes a
//! flush phase needs, as macros computed from the passes' count
//! ([`SequentialProgram::store_buffers`]).

use crate::options::{SmaImplementation, TranslateOptions};
use crate::passes::SequentialProgram;
#[cfg(test)]
use crate::passes::buffering::Accesses;
use crate::passes::buffering::{ThreadBuffers, ThreadStores};
use std::fmt::Write as _;

/// Defines `SMA_REF_BUFFERS`, `SMA_REF_FLUSH_ROUNDS` and, without
/// store-store fences, `SMA_REF_NO_STORE_FENCES` for a reference SMA;
/// nothing for the others.
pub fn print_store_buffers(
    out: &mut String,
    program: &SequentialProgram,
    options: &TranslateOptions,
) {
    if !options.sma.is_reference() {
        return;
    }
    let qsize = options.bounds.qsize;
    // counted by the passes (always there for a program they made under a
    // reference SMA); without it the header's defaults flush every buffer
    let Some(threads) = program.store_buffers.as_deref() else {
        return;
    };
    let locations = program.memory.location_count();
    let (entries, rounds, singles) = if options.sma == SmaImplementation::PsoReference {
        pso_buffers(threads, qsize, locations)
    } else {
        let (entries, rounds) = tso_buffers(threads, qsize, locations);
        (entries, rounds, Vec::new())
    };
    out.push_str(
        "/* Store buffers that can hold stores, as F(thread, [location,] most stores held, most\n \
         * held while other threads run), and the flush passes a phase needs (computed by the\n \
         * translator from the thread bodies). */\n",
    );
    out.push_str("#define SMA_REF_BUFFERS(F)");
    for (i, entry) in entries.iter().enumerate() {
        if i % 6 == 0 {
            out.push_str(" \\\n   ");
        }
        let _ = write!(out, " F({entry})");
    }
    out.push('\n');
    let _ = writeln!(out, "#define SMA_REF_FLUSH_ROUNDS {rounds}");
    print_single_buffers(out, &singles);
    let store_fences = threads.iter().any(|t| t.whole.store_fences);
    if options.sma == SmaImplementation::PsoReference && !store_fences {
        out.push_str("#define SMA_REF_NO_STORE_FENCES\n");
    }
}

/// `pso_ref.h`'s threads with a single slot, as `(thread, concurrent)`:
/// `SMA_REF_SINGLE_BUFFERS` lists them, `SMA_REF_SINGLE(t)` asks whether
/// `t` is one. Nothing without them (the header's defaults: none).
fn print_single_buffers(out: &mut String, singles: &[(usize, u32)]) {
    if singles.is_empty() {
        return;
    }
    out.push_str("#define SMA_REF_SINGLE_BUFFERS(G)");
    for (thread, concurrent) in singles {
        let _ = write!(out, " G({thread}, {concurrent})");
    }
    let tests: Vec<String> = singles
        .iter()
        .map(|(thread, _)| format!("(t) == {thread}"))
        .collect();
    let _ = writeln!(out, "\n#define SMA_REF_SINGLE(t) ({})", tests.join(" || "));
}

/// Stores a buffer of `stores` can hold: at most `qsize`, and `qsize` when
/// the count is unbounded.
fn held(stores: &ThreadStores, count: u32, qsize: u32) -> u32 {
    if stores.unbounded {
        qsize
    } else {
        count.min(qsize)
    }
}

/// Threads whose concurrent stores can meet at a location, grouped: flushes
/// of different groups touch different locations and commute, so a phase
/// needs only the passes of its largest group. Each group is a list of
/// indices into `threads`; `holding[i]` is what thread `i`'s phases move.
fn groups_meeting_at_locations(
    threads: &[ThreadBuffers],
    holding: &[u32],
    locations: u32,
) -> Vec<Vec<usize>> {
    let storing: Vec<usize> = (0..threads.len()).filter(|&i| holding[i] > 0).collect();
    let candidates = crate::passes::buffering::distinct_locations_of(threads, locations);
    let meet = |a: &ThreadStores, b: &ThreadStores| {
        candidates.iter().any(|&v| a.may_hold(v) && b.may_hold(v))
    };
    let mut group_of: Vec<usize> = (0..threads.len()).collect();
    for (n, &i) in storing.iter().enumerate() {
        for &j in &storing[..n] {
            if meet(&threads[i].concurrent, &threads[j].concurrent) {
                let (from, to) = (group_of[i], group_of[j]);
                for g in group_of.iter_mut() {
                    if *g == from {
                        *g = to;
                    }
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &i in &storing {
        match groups.iter_mut().find(|g| group_of[g[0]] == group_of[i]) {
            Some(group) => group.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

/// No load runs within a flush phase, so of a phase's flushes to one
/// location only the last is ever observed: the phase must reach every
/// combination of how many stores each buffer moves and which flush to each
/// location comes last, not every order of the flushes.
///
/// One FIFO per thread. When every thread of a group but one moves at most
/// one store in a phase, and that one `h`, `h + 2` passes reach every
/// outcome: the single flushes that another flush to their location
/// overwrites in the first pass, the `h` of the fuller thread one per pass,
/// and the single flushes that come last at their location in the last
/// pass (2 passes when no thread is fuller). Otherwise, the greedy pass
/// assignment of a phase's flushes
/// (each flush in the first pass after its thread's previous flush, and
/// after the earlier flushes to its location: in the same pass when its
/// thread comes later in a pass, else the next) needs as many passes as the
/// heaviest path through them, where a path follows its thread's FIFO (a
/// pass per step) and crosses to another thread only between stores to one
/// shared location (at most a pass per crossing). Within a group of `G`
/// threads holding `c_u` stores, `s_u` of them shared, with at most `a_u`
/// stores ahead of a shared one, a path lands on at most `S - 1` shared
/// stores by crossing (`S = sum s_u`), and walks at most `a_u` FIFO steps in
/// a thread it leaves again and `c_f - 1` in the thread `f` it ends in:
/// `S + sum a_u + max_f (c_f - 1 - a_f)` passes, and never more than
/// `sum c_u` (every flush its own pass).
fn tso_buffers(threads: &[ThreadBuffers], qsize: u32, locations: u32) -> (Vec<String>, u32) {
    let mut entries = Vec::new();
    let mut concurrent = vec![0u32; threads.len()];
    for (i, thread) in threads.iter().enumerate() {
        let whole = held(&thread.whole, thread.whole.most, qsize);
        concurrent[i] = held(&thread.concurrent, thread.concurrent.observed_most, qsize);
        if whole > 0 {
            entries.push(format!("{}, {whole}, {}", thread.slot, concurrent[i]));
        }
    }
    let rounds = groups_meeting_at_locations(threads, &concurrent, locations)
        .iter()
        .map(|group| tso_group_passes(threads, &concurrent, group))
        .max()
        .unwrap_or(0);
    (entries, rounds)
}

/// The passes one group of threads needs (see [`tso_buffers`]); `holding[i]`
/// is what thread `i` can hold while others run.
fn tso_group_passes(threads: &[ThreadBuffers], holding: &[u32], group: &[usize]) -> u32 {
    let every_flush_its_pass = group
        .iter()
        .map(|&i| holding[i])
        .fold(0u32, u32::saturating_add);
    if group.len() < 2 {
        return every_flush_its_pass;
    }
    let fuller: Vec<u32> = group
        .iter()
        .map(|&i| holding[i])
        .filter(|&stores| stores > 1)
        .collect();
    match fuller[..] {
        [] => return every_flush_its_pass.min(2),
        [fullest] => return every_flush_its_pass.min(fullest.saturating_add(2)),
        _ => {}
    }
    if group.iter().any(|&i| threads[i].concurrent.unbounded) {
        return every_flush_its_pass;
    }
    let shared: u32 = group
        .iter()
        .map(|&i| threads[i].concurrent.shared.min(holding[i]))
        .sum();
    let ahead: Vec<u32> = group
        .iter()
        .map(|&i| {
            threads[i]
                .concurrent
                .ahead_of_shared
                .min(holding[i].saturating_sub(1))
        })
        .collect();
    let tail = group
        .iter()
        .zip(&ahead)
        .map(|(&i, a)| holding[i].saturating_sub(1).saturating_sub(*a))
        .max()
        .unwrap_or(0);
    let path = shared + ahead.iter().sum::<u32>() + tail;
    path.min(every_flush_its_pass)
}

/// One FIFO per thread and location. Without store-store fences, locations
/// are independent, and a buffer of a location no other thread accesses
/// needs no pass. For one location whose buffers hold at most `h` stores
/// each, `h + 1` passes reach every outcome of a phase (see
/// [`tso_buffers`]): the thread whose flush comes last moves its other
/// stores in the first `h` passes beside everyone else's, and that flush in
/// the last; never more than one pass per store buffered for the location.
/// With store-store fences, a store may wait for its thread's older stores
/// to other locations, so every buffered store may need a pass.
///
/// A thread that never holds more than one store but may hold it at several
/// locations gets one slot (returned as `(thread, concurrent)`: whether the
/// store may move while others run) instead of a buffer per location: the
/// passes are the same, as the slot moves at most one store to each
/// location, as each of its buffers would.
fn pso_buffers(
    threads: &[ThreadBuffers],
    qsize: u32,
    locations: u32,
) -> (Vec<String>, u32, Vec<(usize, u32)>) {
    let mut entries = Vec::new();
    let mut singles = Vec::new();
    let mut per_location = vec![LocationBuffers::default(); locations as usize];
    let mut all = 0u32;
    let fences = threads.iter().any(|t| t.whole.store_fences);
    for thread in threads {
        let mut thread_all = 0u32;
        let mut thread_entries = Vec::new();
        for location in 1..locations {
            let whole = held(&thread.whole, thread.whole.at(location), qsize);
            let observable = fences || thread.observed.contains(location);
            let concurrent = if observable {
                held(&thread.concurrent, thread.concurrent.at(location), qsize)
            } else {
                0
            };
            if whole > 0 {
                thread_entries.push(format!(
                    "{}, {location}, {whole}, {concurrent}",
                    thread.slot
                ));
            }
            if let Some(buffers) = per_location.get_mut(location as usize) {
                buffers.add(concurrent);
            }
            thread_all = thread_all.saturating_add(concurrent);
        }
        if !thread.whole.unbounded && thread.whole.most <= 1 && thread_entries.len() > 1 {
            singles.push((thread.slot, thread_all.min(1)));
        } else {
            entries.append(&mut thread_entries);
        }
        let most = if thread.concurrent.unbounded {
            thread_all
        } else {
            thread.concurrent.most
        };
        all = all.saturating_add(thread_all.min(most));
    }
    let rounds = if fences {
        all
    } else {
        per_location
            .iter()
            .map(LocationBuffers::passes)
            .max()
            .unwrap_or(0)
    };
    (entries, rounds, singles)
}

/// The stores the PSO buffers of one location can move in a phase.
#[derive(Debug, Clone, Copy, Default)]
struct LocationBuffers {
    /// Over all threads.
    stores: u32,
    /// In the fullest buffer.
    fullest: u32,
    /// Buffers that move any.
    buffers: u32,
}

impl LocationBuffers {
    fn add(&mut self, stores: u32) {
        if stores > 0 {
            self.stores = self.stores.saturating_add(stores);
            self.fullest = self.fullest.max(stores);
            self.buffers += 1;
        }
    }

    /// The passes a phase needs for this location (see [`pso_buffers`]).
    fn passes(&self) -> u32 {
        if self.buffers < 2 {
            self.stores
        } else {
            self.stores.min(self.fullest.saturating_add(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread holding `locations` (location, stores), each store shared
    /// and behind all the others.
    fn thread(slot: usize, locations: &[(u32, u32)]) -> ThreadBuffers {
        let most: u32 = locations.iter().map(|(_, n)| n).sum();
        let stores = ThreadStores {
            most,
            per_location: locations.iter().copied().collect(),
            shared: most,
            ahead_of_shared: most.saturating_sub(1),
            observed_most: most,
            ..ThreadStores::default()
        };
        ThreadBuffers {
            slot,
            whole: stores.clone(),
            concurrent: stores,
            observed: Accesses::everything(),
        }
    }

    #[test]
    fn tso_passes_cover_the_largest_group_of_threads_meeting_at_a_location() {
        // Threads 1 and 2 both store to location 1; thread 3 stores elsewhere.
        let threads = [
            thread(0, &[]),
            thread(1, &[(1, 2), (2, 1)]),
            thread(2, &[(1, 1)]),
            thread(3, &[(4, 2)]),
        ];
        let (entries, rounds) = tso_buffers(&threads, 5, 8);
        assert_eq!(rounds, 4, "3 stores of thread 1 and 1 of thread 2");
        assert_eq!(entries, vec!["1, 3, 3", "2, 1, 1", "3, 2, 2"]);
        let (_, capped) = tso_buffers(&threads, 2, 8);
        assert_eq!(capped, 3, "a buffer holds at most qsize stores");
    }

    #[test]
    fn tso_passes_follow_the_paths_through_shared_stores() {
        // Store buffering with result flags (CO-SBI): each thread stores to
        // the shared x first, then to three locations of its own.
        let mut first = thread(1, &[(1, 1), (2, 1), (3, 1), (4, 1)]);
        let mut second = thread(2, &[(1, 1), (5, 1), (6, 1), (7, 1)]);
        for t in [&mut first, &mut second] {
            t.concurrent.shared = 1;
            t.concurrent.ahead_of_shared = 0;
        }
        // x of thread 2, x of thread 1, then thread 1's three own stores.
        assert_eq!(tso_buffers(&[first, second], 5, 8).1, 5);
    }

    #[test]
    fn tso_threads_storing_to_disjoint_locations_share_passes() {
        let threads = [thread(1, &[(1, 2)]), thread(2, &[(2, 2)])];
        assert_eq!(tso_buffers(&threads, 3, 8).1, 2);
    }

    #[test]
    fn pso_passes_cover_the_most_stores_buffered_for_one_location() {
        let threads = [thread(1, &[(1, 2), (2, 1)]), thread(2, &[(1, 1), (3, 3)])];
        let (entries, rounds, _) = pso_buffers(&threads, 5, 4);
        assert_eq!(rounds, 3, "location 1: 2 + 1; location 3: 3");
        assert_eq!(
            entries,
            vec!["1, 1, 2, 2", "1, 2, 1, 1", "2, 1, 1, 1", "2, 3, 3, 3"]
        );
    }

    #[test]
    fn one_store_per_buffer_needs_two_passes_however_many_threads_meet() {
        // sigma: every thread stores once, at an index none can predict
        let threads: Vec<ThreadBuffers> = (1..=16).map(|slot| thread(slot, &[(1, 1)])).collect();
        assert_eq!(tso_buffers(&threads, 3, 4).1, 2);
        assert_eq!(pso_buffers(&threads, 3, 4).1, 2);
        // one thread alone needs its one pass
        assert_eq!(tso_buffers(&threads[..1], 3, 4).1, 1);
        assert_eq!(pso_buffers(&threads[..1], 3, 4).1, 1);
    }

    #[test]
    fn pso_passes_reach_the_last_flush_of_a_location_after_the_fullest_buffer() {
        // location 1: buffers of 2, 1 and 1 stores: the fullest and one more
        let threads = [
            thread(1, &[(1, 2)]),
            thread(2, &[(1, 1)]),
            thread(3, &[(1, 1), (2, 3)]),
        ];
        let (_, rounds, _) = pso_buffers(&threads, 5, 3);
        assert_eq!(
            rounds, 3,
            "location 1: 2 + 1 (not 4); location 2: thread 3 alone, 3"
        );
    }

    /// Memory (a value per location) and how many stores each FIFO still
    /// holds, after some flushes.
    type PhaseState = (Vec<u32>, Vec<usize>);

    /// Every state a phase reaches by flushing the FIFOs' oldest stores
    /// (location, value) in any order.
    fn any_order(
        fifos: &[Vec<(usize, u32)>],
        locations: usize,
    ) -> std::collections::BTreeSet<PhaseState> {
        let start = (
            vec![0; locations],
            fifos.iter().map(Vec::len).collect::<Vec<_>>(),
        );
        let mut seen = std::collections::BTreeSet::from([start.clone()]);
        let mut work = vec![start];
        while let Some((memory, left)) = work.pop() {
            for (f, fifo) in fifos.iter().enumerate() {
                if left[f] > 0 {
                    let (location, value) = fifo[fifo.len() - left[f]];
                    let (mut memory, mut left) = (memory.clone(), left.clone());
                    memory[location] = value;
                    left[f] -= 1;
                    if seen.insert((memory.clone(), left.clone())) {
                        work.push((memory, left));
                    }
                }
            }
        }
        seen
    }

    /// Every state `passes` passes reach, each visiting the FIFOs in order
    /// and maybe flushing the oldest store of each (as `sma_flush_some`).
    fn in_passes(
        fifos: &[Vec<(usize, u32)>],
        locations: usize,
        passes: u32,
    ) -> std::collections::BTreeSet<PhaseState> {
        let start: PhaseState = (vec![0; locations], fifos.iter().map(Vec::len).collect());
        let mut states = std::collections::BTreeSet::from([start]);
        for _ in 0..passes {
            for (f, fifo) in fifos.iter().enumerate() {
                let mut next = states.clone();
                for (memory, left) in &states {
                    if left[f] > 0 {
                        let (location, value) = fifo[fifo.len() - left[f]];
                        let (mut memory, mut left): PhaseState = (memory.clone(), left.clone());
                        memory[location] = value;
                        left[f] -= 1;
                        next.insert((memory, left));
                    }
                }
                states = next;
            }
        }
        states
    }

    /// FIFOs of the given lengths whose stores go to `location_of(fifo,
    /// index)`, every store with its own value.
    fn fifos(
        lengths: &[usize],
        location_of: impl Fn(usize, usize) -> usize,
    ) -> Vec<Vec<(usize, u32)>> {
        let mut value = 0;
        let mut fifo = |f: usize, length: usize| {
            (0..length)
                .map(|k| {
                    value += 1;
                    (location_of(f, k), value)
                })
                .collect()
        };
        lengths
            .iter()
            .enumerate()
            .map(|(f, &length)| fifo(f, length))
            .collect()
    }

    #[test]
    fn two_passes_reach_every_phase_outcome_when_each_buffer_moves_one_store() {
        // TSO: three threads, each with no store or one store to one of two
        // locations
        for code in 0..27usize {
            let choice = [code % 3, code / 3 % 3, code / 9];
            let lengths: Vec<usize> = choice.iter().map(|&c| usize::from(c > 0)).collect();
            let fifos = fifos(&lengths, |f, _| choice[f] - 1);
            assert_eq!(
                in_passes(&fifos, 2, 2),
                any_order(&fifos, 2),
                "threads storing to {choice:?}"
            );
        }
    }

    #[test]
    fn the_fullest_buffer_plus_one_passes_reach_every_phase_outcome_at_a_pso_location() {
        for code in 0..27usize {
            let lengths = [code % 3, code / 3 % 3, code / 9];
            let fullest = *lengths.iter().max().expect("three buffers") as u32;
            let fifos = fifos(&lengths, |_, _| 0);
            let buffers = lengths.iter().filter(|&&n| n > 0).count();
            let passes = if buffers < 2 { fullest } else { fullest + 1 };
            assert_eq!(
                in_passes(&fifos, 1, passes),
                any_order(&fifos, 1),
                "buffers of {lengths:?}"
            );
        }
        // one pass cannot put the first buffer's flush after the second's
        let two = fifos(&[1, 1], |_, _| 0);
        assert_ne!(in_passes(&two, 1, 1), any_order(&two, 1));
    }

    #[test]
    fn the_fuller_buffer_plus_two_passes_reach_every_phase_outcome_when_the_others_move_one_store()
    {
        // TSO: one thread moves h stores (to locations 0 and 1), visited
        // first or last in a pass; two others one store or none
        for h in 2..=3usize {
            for stores in 0..(1usize << h) {
                for singles in 0..9usize {
                    let single = [singles % 3, singles / 3];
                    for fuller_first in [true, false] {
                        // each thread's locations, the fuller first or last
                        let fuller: Vec<usize> = (0..h).map(|k| stores >> k & 1).collect();
                        let mut threads: Vec<Vec<usize>> = single
                            .iter()
                            .map(|&c| if c > 0 { vec![c - 1] } else { Vec::new() })
                            .collect();
                        threads.insert(if fuller_first { 0 } else { 2 }, fuller);
                        let lengths: Vec<usize> = threads.iter().map(Vec::len).collect();
                        let fifos = fifos(&lengths, |f, k| threads[f][k]);
                        let passes = h as u32 + 2;
                        assert_eq!(
                            in_passes(&fifos, 2, passes),
                            any_order(&fifos, 2),
                            "{threads:?}"
                        );
                    }
                }
            }
        }
        let threads = [
            thread(0, &[(1, 2)]),
            thread(1, &[(1, 1)]),
            thread(2, &[(1, 1)]),
            thread(3, &[(1, 1)]),
        ];
        assert_eq!(tso_buffers(&threads, 3, 4).1, 4, "2 + 2, not 5");
    }

    #[test]
    fn two_passes_miss_outcomes_once_a_tso_buffer_moves_two_stores() {
        // thread 1: x then y; thread 2: y then x; thread 3: x
        let fifos = fifos(&[2, 2, 1], |f, k| [[0, 1], [1, 0], [0, 0]][f][k]);
        assert_ne!(in_passes(&fifos, 2, 2), any_order(&fifos, 2));
        assert_eq!(
            in_passes(&fifos, 2, 5),
            any_order(&fifos, 2),
            "a pass per store reaches them all"
        );
    }

    #[test]
    fn pso_with_store_fences_needs_a_pass_per_buffered_store() {
        let mut fenced = thread(1, &[(1, 2), (2, 1)]);
        fenced.whole.store_fences = true;
        let threads = [fenced, thread(2, &[(1, 1)])];
        assert_eq!(pso_buffers(&threads, 5, 3).1, 4);
    }

    #[test]
    fn stores_no_other_thread_observes_need_no_flush_phase() {
        // Thread 1 stores to x (location 1), which thread 2 reads, then to
        // two flags of its own; thread 2 stores only to its own flag.
        let mut writer = thread(1, &[(1, 1), (2, 1), (3, 1)]);
        writer.concurrent.observed_most = 1;
        writer.observed = Accesses {
            locations: [1].into(),
            anywhere: false,
        };
        let mut reader = thread(2, &[(4, 1)]);
        reader.concurrent.observed_most = 0;
        reader.observed = Accesses {
            locations: [1, 2, 3].into(),
            anywhere: false,
        };
        let threads = [writer, reader];
        let (entries, rounds) = tso_buffers(&threads, 5, 5);
        assert_eq!(
            entries,
            vec!["1, 3, 1", "2, 1, 0"],
            "the drains still empty everything"
        );
        assert_eq!(rounds, 1, "only the store to x moves in a phase");
        let (entries, rounds, _) = pso_buffers(&threads, 5, 5);
        assert_eq!(
            entries,
            vec!["1, 1, 1, 1", "1, 2, 1, 0", "1, 3, 1, 0", "2, 4, 1, 0"]
        );
        assert_eq!(rounds, 1);
    }

    #[test]
    fn a_pso_thread_holding_one_store_at_several_locations_gets_one_slot() {
        // Thread 1 holds one store, which may reach locations 1-3 (a store
        // through a pointer); thread 2 two stores to location 1; thread 3
        // one store to location 3 only, which keeps its buffer.
        let threads = [
            thread(1, &[(1, 1), (2, 1), (3, 1)]),
            thread(2, &[(1, 2)]),
            thread(3, &[(3, 1)]),
        ];
        let mut single = threads[0].clone();
        single.whole.most = 1;
        single.concurrent.most = 1;
        let (entries, rounds, singles) =
            pso_buffers(&[single, threads[1].clone(), threads[2].clone()], 5, 4);
        assert_eq!(entries, vec!["2, 1, 2, 2", "3, 3, 1, 1"]);
        assert_eq!(singles, vec![(1, 1)]);
        assert_eq!(
            rounds, 3,
            "location 1: thread 2's 2 stores, then the slot's: as with its buffers"
        );
        assert_eq!(pso_buffers(&threads, 5, 4).1, rounds);
        let mut text = String::new();
        print_single_buffers(&mut text, &singles);
        assert_eq!(
            text,
            "#define SMA_REF_SINGLE_BUFFERS(G) G(1, 1)\n#define SMA_REF_SINGLE(t) ((t) == 1)\n"
        );
        // one more store at once, or a loop, and it keeps a buffer per location
        for (most, unbounded) in [(2, false), (1, true)] {
            let mut fuller = threads[0].clone();
            fuller.whole.most = most;
            fuller.whole.unbounded = unbounded;
            assert!(
                pso_buffers(&[fuller], 5, 4).2.is_empty(),
                "most {most}, unbounded {unbounded}"
            );
        }
    }

    #[test]
    fn an_unbounded_thread_may_fill_every_buffer() {
        let mut looping = thread(1, &[(1, 1)]);
        looping.concurrent.unbounded = true;
        looping.whole.unbounded = true;
        let (entries, rounds, _) = pso_buffers(&[looping], 2, 3);
        assert_eq!(entries, vec!["1, 1, 2, 2", "1, 2, 2, 2"]);
        assert_eq!(rounds, 2);
    }
}
