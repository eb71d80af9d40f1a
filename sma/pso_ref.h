/* lazysma shared memory abstraction: PSO-SMA, the reference PSO model.
 *
 * The direct implementation of PSO (Tomasco et al., FMCAD 2016, sec. V,
 * "PSO-SMA"): an explicit memory and one bounded FIFO store buffer per
 * thread AND location. A store enters the buffer of its thread and
 * location; a load takes the newest store of its own buffer for that
 * location, else memory; before every operation except a store-store fence
 * and malloc a flush phase runs, made of SMA_REF_FLUSH_ROUNDS
 * passes over all (thread, location) buffers in which each buffer's oldest
 * store may reach memory. Stores of one thread to different locations thus
 * reach memory in any order, unless a store-store fence separates them:
 * every buffered store carries its thread's store-fence epoch (the number
 * of store-store fences the thread had executed when it issued it), and in
 * a pass a store may reach memory only if, when the pass began, no store of
 * the same thread with a smaller epoch was buffered. Fences, locks, RMWs and
 * terminating threads then drain all the thread's buffers. It exists to
 * cross-check epso.h (Theorem 2 of the paper). Needs common.h first.
 *
 * The passes index the buffers with constants, which CBMC encodes far more
 * cheaply than one flush of a nondeterministically chosen buffer per step.
 * Only the order of flushes to the same location is observable (and the
 * order the fences impose), and n passes realise any order of n flushes to
 * one location; the default SMA_REF_FLUSH_ROUNDS = SMA_QSIZE * SMA_THREADS,
 * the most stores to one location that can be buffered at once, loses
 * nothing in programs without store-store fences. With store-store fences
 * an execution may need one more pass per fence.
 *
 * Bounds: at most SMA_QSIZE stores per (thread, location) buffer; an
 * execution that needs more (or more flush passes) is cut off, never
 * reported.
 */

#ifndef SMA_MODEL_H
#define SMA_MODEL_H

/* Ring slots and buffer fill take values 0..SMA_QSIZE: CBMC gets
 * bit-vectors just wide enough. */
#ifdef __CPROVER__
typedef unsigned __CPROVER_bitvector[SMA_BITS_FOR(SMA_QSIZE)] sma_slot_t;
#else
typedef unsigned int sma_slot_t;
#endif

#ifndef SMA_REF_FLUSH_ROUNDS
#define SMA_REF_FLUSH_ROUNDS (SMA_QSIZE * SMA_THREADS)
#endif

/* Memory: the value of each location and the id of the write that put it
 * there (0 = initial value). */
sma_value_t sma_memory[SMA_LOCATIONS];
sma_wid_t sma_memory_wid[SMA_LOCATIONS];
/* Number of stores that have reached memory: the memory-order position of
 * the latest one (recorded as the timestamp of flushes and reads). */
sma_ts_t sma_memory_order;

/* Buffer of thread t for location v: a ring of SMA_QSIZE slots; the oldest
 * store is in slot sma_buf_head[t][v], sma_buf_count[t][v] are buffered. */
sma_value_t sma_buf_value[SMA_THREADS][SMA_LOCATIONS][SMA_QSIZE];
sma_wid_t sma_buf_wid[SMA_THREADS][SMA_LOCATIONS][SMA_QSIZE];
unsigned int sma_buf_epoch[SMA_THREADS][SMA_LOCATIONS][SMA_QSIZE];
sma_slot_t sma_buf_head[SMA_THREADS][SMA_LOCATIONS];
sma_slot_t sma_buf_count[SMA_THREADS][SMA_LOCATIONS];
/* Store-store fences executed by each thread so far. */
unsigned int sma_epoch[SMA_THREADS];

void sma_init(void)
{
    sma_loc_t v;
    for (v = 0; v < SMA_LOCATIONS; v++) {
        if (v < SMA_HEAP_BASE)
            sma_memory[v] = sma_initial_value[v];
        else
            sma_memory[v] = sma_nondet_value();
        sma_memory_wid[v] = 0;
    }
    sma_memory_order = 0;
}

/* The ring slot `k` places after `first` (k < SMA_QSIZE). */
sma_slot_t sma_ring_slot(sma_slot_t first, unsigned int k)
{
    unsigned int slot = first + k;
    if (slot >= SMA_QSIZE)
        slot = slot - SMA_QSIZE;
    return (sma_slot_t)slot;
}

/* A store reaching memory. */
void sma_memory_store(sma_loc_t loc, sma_value_t value, sma_wid_t id)
{
    sma_memory[loc] = value;
    sma_memory_wid[loc] = id;
    sma_memory_order = sma_memory_order + 1;
}

/* Moves the oldest store of u's (non-empty) buffer for v to memory. */
void sma_flush_oldest(sma_thread_t u, sma_loc_t v, sma_stmt_t stmt)
{
    sma_slot_t slot = sma_buf_head[u][v];
    sma_value_t value = sma_buf_value[u][v][slot];
    sma_wid_t id = sma_buf_wid[u][v][slot];
    sma_memory_store(v, value, id);
    sma_buf_head[u][v] = sma_ring_slot(slot, 1);
    sma_buf_count[u][v] = sma_buf_count[u][v] - 1;
    sma_record(SMA_EV_FLUSH, u, v, value, sma_memory_order, id, 0, stmt);
}

/* The smallest store-fence epoch among u's buffered stores (the oldest
 * store of each buffer carries the smallest epoch of its buffer); u's
 * stores with a larger epoch must wait. */
unsigned int sma_oldest_epoch(sma_thread_t u)
{
    unsigned int oldest = sma_epoch[u];
    sma_loc_t w;
    for (w = 1; w < SMA_LOCATIONS; w++) {
        if (sma_buf_count[u][w] > 0 && sma_buf_epoch[u][w][sma_buf_head[u][w]] < oldest)
            oldest = sma_buf_epoch[u][w][sma_buf_head[u][w]];
    }
    return oldest;
}

/* Memory updates before an operation: SMA_REF_FLUSH_ROUNDS passes over all
 * (thread, location) buffers; in each, every buffer's oldest store may reach
 * memory unless a store-store fence orders an older store of its thread
 * first. `stmt` is the operation they precede. */
void sma_flush_some(sma_stmt_t stmt)
{
    unsigned int pass;
    sma_thread_t u;
    sma_loc_t v;
    unsigned int oldest;
    for (pass = 0; pass < SMA_REF_FLUSH_ROUNDS; pass++) {
        for (u = 0; u < SMA_THREADS; u++) {
            oldest = sma_oldest_epoch(u);
            for (v = 1; v < SMA_LOCATIONS; v++) {
                if (sma_buf_count[u][v] > 0 && sma_buf_epoch[u][v][sma_buf_head[u][v]] == oldest
                    && sma_nondet_bool())
                    sma_flush_oldest(u, v, stmt);
            }
        }
    }
}

/* Empties all of t's buffers. They are emptied location by location; no
 * operation can observe memory in between, so the order does not matter. */
void sma_drain(sma_thread_t t, sma_stmt_t stmt)
{
    sma_loc_t v;
    unsigned int k;
    for (v = 1; v < SMA_LOCATIONS; v++) {
        for (k = 0; k < SMA_QSIZE; k++) {
            if (sma_buf_count[t][v] > 0)
                sma_flush_oldest(t, v, stmt);
        }
    }
}

void sma_write(sma_loc_t loc, sma_value_t value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_slot_t slot;
    sma_wid_t id;
    sma_check_loc(loc);
    sma_flush_some(stmt);
    __CPROVER_assume(sma_buf_count[t][loc] < SMA_QSIZE);
    slot = sma_ring_slot(sma_buf_head[t][loc], sma_buf_count[t][loc]);
    id = sma_new_write_id();
    sma_buf_value[t][loc][slot] = value;
    sma_buf_wid[t][loc][slot] = id;
    sma_buf_epoch[t][loc][slot] = sma_epoch[t];
    sma_buf_count[t][loc] = sma_buf_count[t][loc] + 1;
    sma_record(SMA_EV_WRITE, t, loc, value, 0, id, 0, stmt);
}

sma_value_t sma_read(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value;
    sma_wid_t read_from;
    unsigned int newest;
    sma_check_loc(loc);
    sma_flush_some(stmt);
    if (sma_buf_count[t][loc] > 0) {
        /* store forwarding from the newest store of t to loc */
        newest = sma_ring_slot(sma_buf_head[t][loc], sma_buf_count[t][loc] - 1);
        value = sma_buf_value[t][loc][newest];
        read_from = sma_buf_wid[t][loc][newest];
    } else {
        value = sma_memory[loc];
        read_from = sma_memory_wid[loc];
    }
    sma_record(SMA_EV_READ, t, loc, value, sma_memory_order, 0, read_from, stmt);
    return value;
}

void sma_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_flush_some(stmt);
    sma_drain(t, stmt);
    sma_record(SMA_EV_FENCE, t, 0, 0, sma_memory_order, 0, 0, stmt);
}

/* Later stores of t get a larger epoch than the buffered ones. */
void sma_store_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_epoch[t] = sma_epoch[t] + 1;
    sma_record(SMA_EV_STORE_FENCE, t, 0, 0, sma_memory_order, 0, 0, stmt);
}

void sma_lock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t read_from;
    sma_wid_t id;
    sma_check_loc(mutex);
    sma_flush_some(stmt);
    sma_drain(t, stmt);
    __CPROVER_assume(sma_memory[mutex] == SMA_MUTEX_FREE);
    read_from = sma_memory_wid[mutex];
    id = sma_new_write_id();
    sma_memory_store(mutex, SMA_MUTEX_TAKEN, id);
    sma_record(SMA_EV_LOCK, t, mutex, SMA_MUTEX_TAKEN, sma_memory_order, id, read_from, stmt);
}

void sma_unlock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t id;
    sma_check_loc(mutex);
    sma_flush_some(stmt);
    sma_drain(t, stmt);
    id = sma_new_write_id();
    sma_memory_store(mutex, SMA_MUTEX_FREE, id);
    sma_record(SMA_EV_UNLOCK, t, mutex, SMA_MUTEX_FREE, sma_memory_order, id, 0, stmt);
}

sma_value_t sma_rmw(sma_loc_t loc, int op, sma_value_t operand, sma_value_t expected,
                    sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t old;
    sma_value_t value;
    sma_wid_t read_from;
    sma_wid_t id = 0;
    sma_check_loc(loc);
    sma_flush_some(stmt);
    sma_drain(t, stmt);
    old = sma_memory[loc];
    read_from = sma_memory_wid[loc];
    value = old;
    if (sma_rmw_writes(op, old, expected)) {
        value = sma_rmw_new_value(op, old, operand);
        id = sma_new_write_id();
        sma_memory_store(loc, value, id);
    }
    sma_record(SMA_EV_RMW, t, loc, value, sma_memory_order, id, read_from, stmt);
    return old;
}

sma_loc_t sma_malloc(sma_value_t scalars, int zeroed, sma_thread_t t, sma_stmt_t stmt)
{
    sma_loc_t base = sma_heap_take_block(scalars);
#if SMA_HEAP_SCALARS > 0
    sma_loc_t i;
    for (i = 0; i < SMA_HEAP_BLOCK_SIZE; i++)
        sma_memory[base + i] = sma_heap_initial_value(zeroed);
#else
    (void)zeroed;
#endif
    sma_record(SMA_EV_MALLOC, t, base, scalars, sma_memory_order, 0, 0, stmt);
    return base;
}

void sma_thread_end(sma_thread_t t, sma_stmt_t stmt)
{
    sma_flush_some(stmt);
    sma_drain(t, stmt);
    sma_record(SMA_EV_THREAD_END, t, 0, 0, sma_memory_order, 0, 0, stmt);
}

#endif /* SMA_MODEL_H */
