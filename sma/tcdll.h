/* lazysma shared memory abstraction: the temporal circular doubly linked
 * lists (T-CDLLs) that etso.h and epso.h share.
 *
 * Tomasco et al., FMCAD 2016, sections III-IV, Fig. 3: the state (clock,
 * per-location lists of timestamped writes, each thread's latest write),
 * the list operations, and the operations that eTSO and ePSO implement
 * alike: read, write, fence, lock, unlock, RMW, malloc and join. The
 * model header that follows (etso.h or epso.h) defines what differs between
 * TSO and PSO: sma_note_last_write, sma_write_lower_bound and
 * sma_store_fence; the invariants (I1)-(I7) are stated there. Needs
 * common.h first.
 */

#ifndef SMA_TCDLL_H
#define SMA_TCDLL_H

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
/* The prologue may give the lists' initial shape (see sma_init) as tables,
 * one row per location: SMA_FRESH_TSTAMP, SMA_FRESH_PREV, SMA_FRESH_NEXT,
 * announced by SMA_FRESH_LISTS. The translator does, up to 1000 locations:
 * CBMC then starts from constants, where building the lists in sma_init
 * costs it time quadratic in the number of locations (SV-COMP's indexer.c,
 * 258 locations: 2.45 s to 0.15 s). */
#ifdef SMA_FRESH_LISTS
sma_tick_t sma_tstamp[SMA_LOCATIONS][SMA_QSIZE + 1] = SMA_FRESH_TSTAMP;
sma_node_t sma_prev[SMA_LOCATIONS][SMA_QSIZE + 1] = SMA_FRESH_PREV;
sma_node_t sma_next[SMA_LOCATIONS][SMA_QSIZE + 1] = SMA_FRESH_NEXT;
#else
sma_tick_t sma_tstamp[SMA_LOCATIONS][SMA_QSIZE + 1];
sma_node_t sma_prev[SMA_LOCATIONS][SMA_QSIZE + 1];
sma_node_t sma_next[SMA_LOCATIONS][SMA_QSIZE + 1];
#endif
/* Each thread's latest write per location, indexed by thread first: the
 * thread of an operation is always a constant, so a store at a computed
 * address changes one row of these arrays, not a column through all of
 * them (CBMC splits small arrays into their elements; on SV-COMP's sigma.c
 * this layout takes the formula from 984k to 351k steps). */
sma_value_t sma_last_value[SMA_THREADS][SMA_LOCATIONS];
sma_wid_t sma_last_wid[SMA_THREADS][SMA_LOCATIONS];
sma_tick_t sma_last_tstamp[SMA_THREADS][SMA_LOCATIONS];
sma_tick_t sma_max_tstamp[SMA_THREADS];

/* Records t's latest write to v (I5, I6); defined by the model header (TSO
 * and PSO keep sma_max_tstamp differently, sec. V). */
void sma_note_last_write(sma_loc_t v, sma_thread_t t, sma_value_t value, sma_tick_t ts,
                         sma_wid_t id);

/* The least timestamp t's next write to loc may get because of t's earlier
 * stores (the clock bounds it too); defined by the model header. TSO: no
 * earlier than any store of t; PSO (sec. V): no earlier than t's latest
 * store to loc or a store before t's latest store-store fence. */
sma_tick_t sma_write_lower_bound(sma_loc_t loc, sma_thread_t t);

/* Every list starts as 0 -> 1 -> ... -> QSIZE-1 -> sentinel -> 0, all write
 * nodes with timestamp 0; node QSIZE-1 is the head and holds the initial
 * value (write id 0), the others are free. The state is a C global, so it
 * starts all 0: only the entries that differ from 0 are set, here unless
 * the prologue's tables (SMA_FRESH_LISTS) already hold them. Then only the
 * initial values that are not 0 are set. */
void sma_fresh_location(sma_loc_t v)
{
#ifndef SMA_FRESH_LISTS
    unsigned int i;
    /* next[i] = i + 1, next[sentinel] = 0 */
    for (i = 0; i < SMA_SENTINEL; i++)
        sma_next[v][i] = (sma_node_t)(i + 1);
    /* prev[0] = sentinel, prev[i] = i - 1 (prev[1] = 0) */
    sma_prev[v][0] = (sma_node_t)SMA_SENTINEL;
    for (i = 2; i <= SMA_SENTINEL; i++)
        sma_prev[v][i] = (sma_node_t)(i - 1);
    sma_tstamp[v][SMA_SENTINEL] = SMA_NEVER;
#endif
    if (v >= SMA_HEAP_BASE || SMA_INITIAL_VALUE(v) != 0)
        sma_value[v][SMA_QSIZE - 1] = sma_start_value(v);
}

/* Sets up every location, or only the heap's under SMA_LAZY_INIT (see
 * sma_touch); runs once, first. */
void sma_init(void)
{
    sma_loc_t v;
    sma_clock = 0;
#ifdef SMA_LAZY_INIT
    for (v = SMA_HEAP_BASE; v < SMA_LOCATIONS; v++)
#else
    for (v = 0; v < SMA_LOCATIONS; v++)
#endif
        sma_fresh_location(v);
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

/* A load: t's own latest pending write to loc if there is one (I5), else
 * the memory value, held by the head of loc's list (I4) (Fig. 3, read). */
sma_value_t sma_read(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value;
    sma_wid_t read_from;
    sma_node_t head;
    sma_check_loc(loc);
    sma_clock_update();
    if (sma_last_tstamp[t][loc] > sma_clock) {
        value = sma_last_value[t][loc];
        read_from = sma_last_wid[t][loc];
    } else {
        head = sma_head(loc);
        value = sma_value[loc][head];
        read_from = sma_wid[loc][head];
    }
    sma_record(SMA_EV_READ, t, loc, value, sma_clock, 0, read_from, stmt);
    return value;
}

/* A load where no other thread can have a store to loc pending (the
 * translator marks them: src/passes/buffering.rs): every other write in
 * loc's list has expired, and t's own writes since its last drain come
 * last, so t's latest pending write, or else the memory value, is the
 * newest node of the list, whatever the clock. The same value as sma_read,
 * without guessing the head. */
sma_value_t sma_read_newest(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_node_t newest;
    sma_value_t value;
    sma_check_loc(loc);
    sma_clock_update();
    newest = sma_prev[loc][SMA_SENTINEL];
    value = sma_value[loc][newest];
    sma_record(SMA_EV_READ, t, loc, value, sma_clock, 0, sma_wid[loc][newest], stmt);
    return value;
}

/* Links the store of `value` by t into free node `node` of loc's list,
 * between pred and succ, with timestamp ts, under a new write id, and
 * notes and records it. */
void sma_insert_write(sma_loc_t loc, sma_node_t node, sma_node_t pred, sma_node_t succ,
                      sma_value_t value, sma_tick_t ts, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t id = sma_new_write_id();
    sma_link_node(loc, node, pred, succ, value, ts, id);
    sma_note_last_write(loc, t, value, ts, id);
    sma_record(SMA_EV_WRITE, t, loc, value, ts, id, 0, stmt);
}

/* A store, buffered until the clock reaches its guessed timestamp
 * (Fig. 3, write). */
void sma_write(sma_loc_t loc, sma_wide_t program_value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value = sma_narrow(program_value);
    sma_node_t node;
    sma_node_t succ;
    sma_node_t pred;
    sma_tick_t bound;
    sma_tick_t ts;
    sma_check_loc(loc);
    sma_clock_update();
    node = sma_take_free_node(loc);
    /* the successor in the list after insertion: a pending node, or the
     * sentinel (its timestamp exceeds every clock value) */
    succ = sma_nondet_uint();
    __CPROVER_assume(succ <= SMA_SENTINEL && sma_tstamp[loc][succ] > sma_clock);
    pred = sma_prev[loc][succ];
    /* the timestamp: not in the past (ts >= clock), not before the model's
     * bound from t's earlier stores (TSO: FIFO per thread; PSO: FIFO per
     * thread and location, line 31 of Fig. 3 replaced, and store-store
     * fences), and between pred and succ so that (I3) holds; strictly below
     * succ, so that a write never overtakes an earlier write of the same
     * timestamp */
    bound = sma_write_lower_bound(loc, t);
    ts = sma_nondet_uint();
    __CPROVER_assume(ts >= sma_clock && ts >= bound
                     && ts >= sma_tstamp[loc][pred] && ts < sma_tstamp[loc][succ]);
    sma_insert_write(loc, node, pred, succ, value, ts, t, stmt);
}

/* A store to a location no other thread accesses while t runs (the
 * translator marks them: src/passes/buffering.rs): the same as sma_write
 * with the least timestamp the model allows (not before the clock, the
 * model's bound from t's earlier stores, nor the newest write of loc's list)
 * instead of a guessed one, appended at the end of the list. Only t reads
 * loc meanwhile, and t sees its latest write either way; a later timestamp
 * could only hold back t's later stores and keep the node busy longer. */
void sma_write_unobserved(sma_loc_t loc, sma_wide_t program_value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value = sma_narrow(program_value);
    sma_node_t node;
    sma_node_t pred;
    sma_tick_t ts;
    sma_check_loc(loc);
    node = sma_take_free_node(loc);
    pred = sma_prev[loc][SMA_SENTINEL];
    ts = sma_write_lower_bound(loc, t);
    if (ts < sma_clock)
        ts = sma_clock;
    if (ts < sma_tstamp[loc][pred])
        ts = sma_tstamp[loc][pred];
    __CPROVER_assume(ts <= SMA_MAXCLOCK);
    sma_insert_write(loc, node, pred, SMA_SENTINEL, value, ts, t, stmt);
}

/* Full fence: the clock moves past all of t's writes (Fig. 3, fence). */
void sma_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_drain(t);
    sma_record(SMA_EV_FENCE, t, 0, 0, sma_clock, 0, 0, stmt);
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

/* Takes the free mutex whose memory value node `head` holds, in memory at
 * once (t has drained). */
void sma_take_mutex(sma_loc_t mutex, sma_node_t head, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t read_from = sma_wid[mutex][head];
    sma_wid_t id = sma_new_write_id();
    sma_write_now(mutex, head, SMA_MUTEX_TAKEN, t, id);
    sma_record(SMA_EV_LOCK, t, mutex, SMA_MUTEX_TAKEN, sma_clock, id, read_from, stmt);
}

/* Mutex acquire: drain, then atomically check free and take. */
void sma_lock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_node_t head;
    sma_check_loc(mutex);
    sma_drain(t);
    head = sma_head(mutex);
    __CPROVER_assume(sma_value[mutex][head] == SMA_MUTEX_FREE);
    sma_take_mutex(mutex, head, t, stmt);
}

/* Mutex try-lock: drain, then take the mutex if it is free (1), else find
 * it held by another thread and leave it so (0). */
int sma_trylock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_node_t head;
    sma_check_loc(mutex);
    sma_drain(t);
    head = sma_head(mutex);
    if (sma_value[mutex][head] != SMA_MUTEX_FREE) {
        sma_record(SMA_EV_LOCK_BUSY, t, mutex, SMA_MUTEX_TAKEN, sma_clock, 0, sma_wid[mutex][head], stmt);
        return 0;
    }
    sma_take_mutex(mutex, head, t, stmt);
    return 1;
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
sma_value_t sma_rmw(sma_loc_t loc, int op, sma_wide_t operand, sma_wide_t expected,
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
void sma_heap_set_initial(sma_loc_t loc, sma_value_t value)
{
    sma_value[loc][SMA_QSIZE - 1] = value;
}

sma_loc_t sma_malloc(sma_wide_t scalars, int zeroed, sma_thread_t t, sma_stmt_t stmt)
{
    return sma_heap_malloc(scalars, zeroed, t, stmt, sma_clock);
}

/* t joins the finished thread `joined`, whose stores drain now: its
 * termination is observable only here (a thread's end is a fence, and
 * nothing but a join sees that it has passed it), so its stores may wait
 * past its end for whatever they wait for, and the thread still ends in
 * the context of its last statement. */
void sma_join(sma_thread_t joined, sma_thread_t t, sma_stmt_t stmt)
{
    sma_drain(joined);
    sma_record(SMA_EV_JOIN, t, joined, 0, sma_clock, 0, 0, stmt);
}

#endif /* SMA_TCDLL_H */
