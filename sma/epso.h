/* lazysma shared memory abstraction: ePSO-SMA (PSO with timestamped writes).
 *
 * The eTSO-SMA of Tomasco et al., "Lazy Sequentialization for TSO and PSO
 * via Shared Memory Abstractions" (FMCAD 2016), sections III-IV, Fig. 3,
 * with the PSO changes of section V: a thread's stores to one location reach
 * memory in program order, stores to different locations in any order
 * (unless a store-store fence separates them).
 * There is no explicit memory and no explicit store buffer. Every store gets
 * a guessed timestamp: the time at which it will reach memory. A global
 * clock advances nondeterministically; a store whose timestamp is <= clock
 * has *expired*, i.e. it is in memory. The stores of each location are kept
 * in a temporal circular doubly linked list (T-CDLL) ordered by timestamp, so
 * that the memory value of a location at the current clock is the latest
 * expired store of its list. Needs common.h and tcdll.h first.
 *
 * Names (paper -> here): clock -> sma_clock, value/tstamp/prev/next ->
 * sma_value/sma_tstamp/sma_prev/sma_next, last_value/last_tstamp ->
 * sma_last_value/sma_last_tstamp, max_tstamp -> sma_max_tstamp, N ->
 * SMA_QSIZE, K -> SMA_MAXCLOCK. Write ids (sma_wid, sma_last_wid) are added
 * for the event records.
 *
 * T-CDLL of location v: nodes 0..SMA_QSIZE-1 hold writes, node SMA_SENTINEL
 * (= SMA_QSIZE) is the sentinel. Invariants kept by every operation (sec. III):
 *  (I1) next/prev form one circular doubly linked list over all
 *       SMA_QSIZE + 1 nodes: sma_prev[v][sma_next[v][i]] == i.
 *  (I2) the sentinel's timestamp is SMA_NEVER (= SMA_MAXCLOCK + 1), larger
 *       than any clock value and any write's timestamp.
 *  (I3) from sma_next[v][SMA_SENTINEL] around to the sentinel the
 *       timestamps are non-decreasing; writes with equal timestamps appear in
 *       the order they were issued.
 *  (I4) the head of the list, the only node whose timestamp is <= clock and
 *       whose successor's timestamp is > clock, always exists: it holds the
 *       value of v in memory. The nodes after it are pending (buffered)
 *       writes; the nodes from the sentinel's successor up to the head's
 *       predecessor are free (expired, no longer observable).
 *  (I5) sma_last_tstamp[t][v], sma_last_value[t][v], sma_last_wid[t][v]
 *       describe thread t's latest write to v (timestamp 0, id 0 when none);
 *       when sma_last_tstamp[t][v] > clock that write is pending and it is
 *       the value t reads from v (TSO store forwarding).
 *  (I6) sma_max_tstamp[t] is the largest timestamp of any write of t, so t
 *       has no pending write iff sma_max_tstamp[t] <= clock. Under PSO the
 *       timestamps of t's writes to ONE location are non-decreasing in
 *       program order (per-location FIFO, sec. V); writes to different
 *       locations may overtake each other.
 *  (I6') sma_sfence_tstamp[t] is sma_max_tstamp[t] at t's latest store-store
 *       fence: every later write of t gets a timestamp >= it, so the stores
 *       before the fence reach memory no later than the stores after it.
 *  (I7) 0 <= clock <= SMA_MAXCLOCK and clock never decreases.
 * Bounds: a write needs a free node (at most SMA_QSIZE - 1 writes of a
 * location pending at once) and a timestamp <= SMA_MAXCLOCK; executions that
 * need more are cut off, never reported.
 */

#ifndef SMA_MODEL_H
#define SMA_MODEL_H

#if SMA_QSIZE < 2
#error "ePSO needs SMA_QSIZE >= 2: one node of each list holds the memory value"
#endif

sma_tick_t sma_sfence_tstamp[SMA_THREADS];

/* The state, the list operations (sma_init, sma_clock_update, sma_drain,
 * sma_head, sma_take_free_node, sma_link_node) and the operations both
 * T-CDLL models implement alike (read, write, fence, lock, unlock, RMW,
 * malloc, join) are in tcdll.h, inlined just before this header. */

/* Records t's latest write to v (I5, I6); sec. V: the maximum only grows
 * when the new timestamp is larger (line 42 of Fig. 3 replaced). */
void sma_note_last_write(sma_loc_t v, sma_thread_t t, sma_value_t value, sma_tick_t ts,
                         sma_wid_t id)
{
    if (sma_max_tstamp[t] < ts)
        sma_max_tstamp[t] = ts;
    sma_last_tstamp[t][v] = ts;
    sma_last_value[t][v] = value;
    sma_last_wid[t][v] = id;
}

/* PSO: a new store comes no earlier than t's previous store to the same
 * location (FIFO per thread and location, line 31 of Fig. 3 replaced) and
 * no earlier than a store that precedes a store-store fence (I6'). */
sma_tick_t sma_write_lower_bound(sma_loc_t loc, sma_thread_t t)
{
    sma_tick_t bound = sma_last_tstamp[t][loc];
    if (bound < sma_sfence_tstamp[t])
        bound = sma_sfence_tstamp[t];
    return bound;
}

/* Store-store fence: t's later stores reach memory no earlier than its
 * earlier ones (I6'); nothing drains. */
void sma_store_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_sfence_tstamp[t] = sma_max_tstamp[t];
    sma_record(SMA_EV_STORE_FENCE, t, 0, 0, sma_clock, 0, 0, stmt);
}

#endif /* SMA_MODEL_H */
