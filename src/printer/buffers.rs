//! The store-buffer lists of the reference SMAs (`tso_ref.h`, `pso_ref.h`):
//! which buffers can hold stores, how many, and how many flush passes a
//! flush phase needs, as macros computed from [`store_buffering`].

use crate::options::{SmaImplementation, TranslateOptions};
use crate::passes::buffering::{store_buffering, ThreadBuffers, ThreadStores};
#[cfg(test)]
use crate::passes::buffering::Accesses;
use crate::passes::SequentialProgram;
use std::fmt::Write as _;

/// Defines `SMA_REF_BUFFERS`, `SMA_REF_FLUSH_ROUNDS` and, without
/// store-store fences, `SMA_REF_NO_STORE_FENCES` for a reference SMA;
/// nothing for the others.
pub fn print_store_buffers(out: &mut String, program: &SequentialProgram, options: &TranslateOptions) {
    if !options.sma.is_reference() {
        return;
    }
    let qsize = options.bounds.qsize;
    let threads = store_buffering(program);
    let locations = program.memory.location_count();
    let (entries, rounds) = if options.sma == SmaImplementation::PsoReference {
        pso_buffers(&threads, qsize, locations)
    } else {
        tso_buffers(&threads, qsize, locations)
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
    let store_fences = threads.iter().any(|t| t.whole.store_fences);
    if options.sma == SmaImplementation::PsoReference && !store_fences {
        out.push_str("#define SMA_REF_NO_STORE_FENCES\n");
    }
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
fn groups_meeting_at_locations(threads: &[ThreadBuffers], holding: &[u32], locations: u32) -> Vec<Vec<usize>> {
    let storing: Vec<usize> = (0..threads.len()).filter(|&i| holding[i] > 0).collect();
    let meet = |a: &ThreadStores, b: &ThreadStores| (1..locations).any(|v| a.may_hold(v) && b.may_hold(v));
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

/// One FIFO per thread. The greedy pass assignment of a phase's flushes
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
    let every_flush_its_pass = group.iter().map(|&i| holding[i]).fold(0u32, u32::saturating_add);
    if group.len() < 2 || group.iter().any(|&i| threads[i].concurrent.unbounded) {
        return every_flush_its_pass;
    }
    let shared: u32 = group.iter().map(|&i| threads[i].concurrent.shared.min(holding[i])).sum();
    let ahead: Vec<u32> = group
        .iter()
        .map(|&i| threads[i].concurrent.ahead_of_shared.min(holding[i].saturating_sub(1)))
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
/// are independent: a phase needs as many passes as one location can have
/// buffered stores, and a buffer of a location no other thread accesses
/// needs none. With them, a store may wait for its thread's older stores to
/// other locations, so every buffered store may need a pass.
fn pso_buffers(threads: &[ThreadBuffers], qsize: u32, locations: u32) -> (Vec<String>, u32) {
    let mut entries = Vec::new();
    let mut per_location = vec![0u32; locations as usize];
    let mut all = 0u32;
    let fences = threads.iter().any(|t| t.whole.store_fences);
    for thread in threads {
        let mut thread_all = 0u32;
        for location in 1..locations {
            let whole = held(&thread.whole, thread.whole.at(location), qsize);
            let observable = fences || thread.observed.contains(location);
            let concurrent =
                if observable { held(&thread.concurrent, thread.concurrent.at(location), qsize) } else { 0 };
            if whole > 0 {
                entries.push(format!("{}, {location}, {whole}, {concurrent}", thread.slot));
            }
            if let Some(sum) = per_location.get_mut(location as usize) {
                *sum = sum.saturating_add(concurrent);
            }
            thread_all = thread_all.saturating_add(concurrent);
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
        per_location.into_iter().max().unwrap_or(0)
    };
    (entries, rounds)
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
        let (entries, rounds) = pso_buffers(&threads, 5, 4);
        assert_eq!(rounds, 3, "location 1: 2 + 1; location 3: 3");
        assert_eq!(entries, vec!["1, 1, 2, 2", "1, 2, 1, 1", "2, 1, 1, 1", "2, 3, 3, 3"]);
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
        writer.observed = Accesses { locations: [1].into(), anywhere: false };
        let mut reader = thread(2, &[(4, 1)]);
        reader.concurrent.observed_most = 0;
        reader.observed = Accesses { locations: [1, 2, 3].into(), anywhere: false };
        let threads = [writer, reader];
        let (entries, rounds) = tso_buffers(&threads, 5, 5);
        assert_eq!(entries, vec!["1, 3, 1", "2, 1, 0"], "the drains still empty everything");
        assert_eq!(rounds, 1, "only the store to x moves in a phase");
        let (entries, rounds) = pso_buffers(&threads, 5, 5);
        assert_eq!(entries, vec!["1, 1, 1, 1", "1, 2, 1, 0", "1, 3, 1, 0", "2, 4, 1, 0"]);
        assert_eq!(rounds, 1);
    }

    #[test]
    fn an_unbounded_thread_may_fill_every_buffer() {
        let mut looping = thread(1, &[(1, 1)]);
        looping.concurrent.unbounded = true;
        looping.whole.unbounded = true;
        let (entries, rounds) = pso_buffers(&[looping], 2, 3);
        assert_eq!(entries, vec!["1, 1, 2, 2", "1, 2, 2, 2"]);
        assert_eq!(rounds, 2);
    }
}
