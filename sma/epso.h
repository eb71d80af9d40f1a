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
 * expired store of its list. Needs common.h first.
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
 *  (I5) sma_last_tstamp[v][t], sma_last_value[v][t], sma_last_wid[v][t]
 *       describe thread t's latest write to v (timestamp 0, id 0 when none);
 *       when sma_last_tstamp[v][t] > clock that write is pending and it is
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

#define SMA_SENTINEL SMA_QSIZE
#define SMA_NEVER (SMA_MAXCLOCK + 1)

/* Timestamps and the clock take values 0..SMA_NEVER, node indices
 * 0..SMA_SENTINEL: CBMC gets bit-vectors just wide enough (loop counters
 * stay unsigned int so that they cannot wrap around). */
#ifdef __CPROVER__
typedef unsigned __CPROVER_bitvector[SMA_BITS_FOR(SMA_NEVER)] sma_tick_t;
typedef unsigned __CPROVER_bitvector[SMA_BITS_FOR(SMA_SENTINEL)] sma_node_t;
#else
typedef unsigned int sma_tick_t;
typedef unsigned int sma_node_t;
#endif

sma_tick_t sma_clock;
sma_value_t sma_value[SMA_LOCATIONS][SMA_QSIZE];
sma_wid_t sma_wid[SMA_LOCATIONS][SMA_QSIZE];
sma_tick_t sma_tstamp[SMA_LOCATIONS][SMA_QSIZE + 1];
sma_node_t sma_prev[SMA_LOCATIONS][SMA_QSIZE + 1];
sma_node_t sma_next[SMA_LOCATIONS][SMA_QSIZE + 1];
sma_value_t sma_last_value[SMA_LOCATIONS][SMA_THREADS];
sma_wid_t sma_last_wid[SMA_LOCATIONS][SMA_THREADS];
sma_tick_t sma_last_tstamp[SMA_LOCATIONS][SMA_THREADS];
sma_tick_t sma_max_tstamp[SMA_THREADS];
sma_tick_t sma_sfence_tstamp[SMA_THREADS];

/* Every list starts as 0 -> 1 -> ... -> QSIZE-1 -> sentinel -> 0, all write
 * nodes with timestamp 0; node QSIZE-1 is the head and holds the initial
 * value (write id 0), the others are free. */
void sma_init(void)
{
    sma_loc_t v;
    unsigned int i;
    sma_clock = 0;
    for (v = 0; v < SMA_LOCATIONS; v++) {
        for (i = 0; i <= SMA_SENTINEL; i++) {
            sma_next[v][i] = (sma_node_t)(i == SMA_SENTINEL ? 0 : i + 1);
            sma_prev[v][i] = (sma_node_t)(i == 0 ? SMA_SENTINEL : i - 1);
            sma_tstamp[v][i] = i == SMA_SENTINEL ? SMA_NEVER : 0;
        }
        for (i = 0; i < SMA_QSIZE; i++) {
            sma_value[v][i] = 0;
            sma_wid[v][i] = 0;
        }
        if (v < SMA_HEAP_BASE)
            sma_value[v][SMA_QSIZE - 1] = sma_initial_value[v];
        else
            sma_value[v][SMA_QSIZE - 1] = sma_nondet_value();
    }
}

/* Memory updates (Fig. 3, clock_update): the clock moves nondeterministically
 * forward, within the bound; every write whose timestamp it passes reaches
 * memory. Keeps (I7). */
void sma_clock_update(void)
{
    sma_tick_t tmp = sma_nondet_uint();
    __CPROVER_assume(tmp >= sma_clock && tmp <= SMA_MAXCLOCK);
    sma_clock = tmp;
}

/* Makes every write of t expired: afterwards t has no pending write (I6). */
void sma_drain(sma_thread_t t)
{
    sma_clock_update();
    if (sma_clock < sma_max_tstamp[t])
        sma_clock = sma_max_tstamp[t];
}

/* The head of v's list at the current clock (I4): the node that holds the
 * memory value. Guessed and checked, as in Fig. 3 (read). */
sma_node_t sma_head(sma_loc_t v)
{
    sma_node_t node = sma_nondet_uint();
    __CPROVER_assume(node < SMA_QSIZE && sma_tstamp[v][node] <= sma_clock
                     && sma_tstamp[v][sma_next[v][node]] > sma_clock);
    return node;
}

/* Unlinks and returns a free node of v's list: the sentinel's successor,
 * provided it is not the head, i.e. its own successor has expired too
 * (Fig. 3, lines 20-23). Cuts the execution off when the list is full. */
sma_node_t sma_take_free_node(sma_loc_t v)
{
    sma_node_t node = sma_next[v][SMA_SENTINEL];
    __CPROVER_assume(sma_tstamp[v][sma_next[v][node]] <= sma_clock);
    sma_next[v][SMA_SENTINEL] = sma_next[v][node];
    sma_prev[v][sma_next[v][SMA_SENTINEL]] = SMA_SENTINEL;
    return node;
}

/* Fills `node` with a write and links it between pred and succ
 * (Fig. 3, lines 35-40). */
void sma_link_node(sma_loc_t v, sma_node_t node, sma_node_t pred, sma_node_t succ,
                   sma_value_t value, sma_tick_t ts, sma_wid_t id)
{
    sma_value[v][node] = value;
    sma_wid[v][node] = id;
    sma_tstamp[v][node] = ts;
    sma_next[v][node] = succ;
    sma_prev[v][node] = pred;
    sma_next[v][pred] = node;
    sma_prev[v][succ] = node;
}

/* Records t's latest write to v (I5, I6); sec. V: the maximum only grows
 * when the new timestamp is larger (line 42 of Fig. 3 replaced). */
void sma_note_last_write(sma_loc_t v, sma_thread_t t, sma_value_t value, sma_tick_t ts,
                         sma_wid_t id)
{
    if (sma_max_tstamp[t] < ts)
        sma_max_tstamp[t] = ts;
    sma_last_tstamp[v][t] = ts;
    sma_last_value[v][t] = value;
    sma_last_wid[v][t] = id;
}

/* A store, buffered until the clock reaches its guessed timestamp
 * (Fig. 3, write). */
void sma_write(sma_loc_t loc, sma_value_t value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_node_t node;
    sma_node_t succ;
    sma_node_t pred;
    sma_tick_t ts;
    sma_wid_t id;
    sma_check_loc(loc);
    sma_clock_update();
    node = sma_take_free_node(loc);
    /* the successor in the list after insertion: a pending node, or the
     * sentinel (its timestamp exceeds every clock value) */
    succ = sma_nondet_uint();
    __CPROVER_assume(succ <= SMA_SENTINEL && sma_tstamp[loc][succ] > sma_clock);
    pred = sma_prev[loc][succ];
    /* the timestamp: not in the past (ts >= clock), not before t's previous
     * store to the same location (PSO: FIFO per thread and location, line 31
     * of Fig. 3 replaced), not before a store that precedes a store-store
     * fence (I6'), and between pred and succ so that (I3) holds; strictly
     * below succ, so that a write never overtakes an earlier write of the
     * same timestamp */
    ts = sma_nondet_uint();
    __CPROVER_assume(ts >= sma_clock && ts >= sma_last_tstamp[loc][t]
                     && ts >= sma_sfence_tstamp[t]
                     && ts >= sma_tstamp[loc][pred] && ts < sma_tstamp[loc][succ]);
    id = sma_new_write_id();
    sma_link_node(loc, node, pred, succ, value, ts, id);
    sma_note_last_write(loc, t, value, ts, id);
    sma_record(SMA_EV_WRITE, t, loc, value, ts, id, 0, stmt);
}

/* A load: t's own latest pending write to loc if there is one (I5), else
 * the memory value, held by the head of loc's list (I4) (Fig. 3, read). */
sma_value_t sma_read(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value;
    sma_wid_t read_from;
    sma_node_t head;
    sma_check_loc(loc);
    sma_clock_update();
    if (sma_last_tstamp[loc][t] > sma_clock) {
        value = sma_last_value[loc][t];
        read_from = sma_last_wid[loc][t];
    } else {
        head = sma_head(loc);
        value = sma_value[loc][head];
        read_from = sma_wid[loc][head];
    }
    sma_record(SMA_EV_READ, t, loc, value, sma_clock, 0, read_from, stmt);
    return value;
}

/* Full fence: the clock moves past all of t's writes (Fig. 3, fence). */
void sma_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_drain(t);
    sma_record(SMA_EV_FENCE, t, 0, 0, sma_clock, 0, 0, stmt);
}

/* Store-store fence: t's later stores reach memory no earlier than its
 * earlier ones (I6'); nothing drains. */
void sma_store_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_sfence_tstamp[t] = sma_max_tstamp[t];
    sma_record(SMA_EV_STORE_FENCE, t, 0, 0, sma_clock, 0, 0, stmt);
}

/* A write that reaches memory right now, right after the current head of
 * loc's list: timestamp = clock, so no write can come between the head and
 * it. Used by the atomic operations, after draining t. */
void sma_write_now(sma_loc_t loc, sma_node_t head, sma_value_t value, sma_thread_t t,
                   sma_wid_t id)
{
    sma_node_t node = sma_take_free_node(loc);
    sma_link_node(loc, node, head, sma_next[loc][head], value, sma_clock, id);
    sma_note_last_write(loc, t, value, sma_clock, id);
}

/* Mutex acquire: drain, then atomically check free and take. */
void sma_lock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_node_t head;
    sma_wid_t read_from;
    sma_wid_t id;
    sma_check_loc(mutex);
    sma_drain(t);
    head = sma_head(mutex);
    __CPROVER_assume(sma_value[mutex][head] == SMA_MUTEX_FREE);
    read_from = sma_wid[mutex][head];
    id = sma_new_write_id();
    sma_write_now(mutex, head, SMA_MUTEX_TAKEN, t, id);
    sma_record(SMA_EV_LOCK, t, mutex, SMA_MUTEX_TAKEN, sma_clock, id, read_from, stmt);
}

/* Mutex release: drain (the critical section's stores become visible
 * first), then free the mutex in memory. */
void sma_unlock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_node_t head;
    sma_wid_t id;
    sma_check_loc(mutex);
    sma_drain(t);
    head = sma_head(mutex);
    id = sma_new_write_id();
    sma_write_now(mutex, head, SMA_MUTEX_FREE, t, id);
    sma_record(SMA_EV_UNLOCK, t, mutex, SMA_MUTEX_FREE, sma_clock, id, 0, stmt);
}

/* Atomic read-modify-write: drain, read memory, write at the same time. */
sma_value_t sma_rmw(sma_loc_t loc, int op, sma_value_t operand, sma_value_t expected,
                    sma_thread_t t, sma_stmt_t stmt)
{
    sma_node_t head;
    sma_value_t old;
    sma_value_t value;
    sma_wid_t read_from;
    sma_wid_t id = 0;
    sma_check_loc(loc);
    sma_drain(t);
    head = sma_head(loc);
    old = sma_value[loc][head];
    read_from = sma_wid[loc][head];
    value = old;
    if (sma_rmw_writes(op, old, expected)) {
        value = sma_rmw_new_value(op, old, operand);
        id = sma_new_write_id();
        sma_write_now(loc, head, value, t, id);
    }
    sma_record(SMA_EV_RMW, t, loc, value, sma_clock, id, read_from, stmt);
    return old;
}

/* Heap block: its locations have no write yet, so each list still has its
 * initial shape and node QSIZE-1 is the head holding the initial value. */
sma_loc_t sma_malloc(sma_value_t scalars, int zeroed, sma_thread_t t, sma_stmt_t stmt)
{
    sma_loc_t base = sma_heap_take_block(scalars);
#if SMA_HEAP_SCALARS > 0
    sma_loc_t i;
    for (i = 0; i < SMA_HEAP_BLOCK_SIZE; i++)
        sma_value[base + i][SMA_QSIZE - 1] = sma_heap_initial_value(zeroed);
#else
    (void)zeroed;
#endif
    sma_record(SMA_EV_MALLOC, t, base, scalars, sma_clock, 0, 0, stmt);
    return base;
}

/* A terminating thread drains its stores. */
void sma_thread_end(sma_thread_t t, sma_stmt_t stmt)
{
    sma_drain(t);
    sma_record(SMA_EV_THREAD_END, t, 0, 0, sma_clock, 0, 0, stmt);
}

#endif /* SMA_MODEL_H */
