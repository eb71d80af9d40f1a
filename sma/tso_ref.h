/* lazysma shared memory abstraction: TSO-SMA, the reference TSO model.
 *
 * The direct implementation of TSO (Tomasco et al., FMCAD 2016, sec. III,
 * "TSO-SMA"): an explicit memory and one bounded FIFO store buffer per
 * thread. A store enters its thread's buffer; a load takes the value of the
 * thread's latest buffered store to the same location, else memory; buffered
 * stores reach memory oldest first, at nondeterministic times: before every
 * operation except a store, a store-store fence and malloc a flush phase
 * runs, made of SMA_REF_FLUSH_ROUNDS passes over the threads in which each
 * thread's oldest store may reach memory (stores skip the phase: flushes
 * before a store can always be moved after it). Fences, locks and RMWs
 * then drain the thread's buffer, and a join the joined thread's. (The
 * phase before a drain is needed: other threads' stores to the same
 * locations may reach memory before the drained ones.) It exists to
 * cross-check etso.h
 * (Theorem 1 of the paper: they are equivalent). Needs common.h,
 * memory.h and buffers.h first.
 *
 * The passes index the buffers with constants, which CBMC encodes far more
 * cheaply than one flush of a nondeterministically chosen thread per step.
 * Only the order of flushes to the same location is observable, and n
 * passes realise any order of n flushes (the i-th flush in pass i), so as
 * many passes as stores can be buffered at once lose nothing. No load runs
 * within a phase, so only the last flush to each location is observed,
 * which often needs fewer. The translator computes the passes the
 * program's stores need (fewer where threads store to different locations
 * or move one store each: src/printer/buffers.rs) and the
 * threads that can buffer stores at all (SMA_REF_BUFFERS below), counting
 * only the stores up to the newest one another thread can observe (the
 * rest wait for the drain unseen: sma/README.md); the default is
 * SMA_QSIZE * SMA_THREADS passes over every thread.
 *
 * Bounds: at most SMA_QSIZE stores per buffer; an execution that needs more
 * is cut off, never reported.
 */

#ifndef SMA_MODEL_H
#define SMA_MODEL_H

/* The memory, sma_init, sma_memory_store and the operations every model
 * with an explicit memory implements alike (fence, lock, unlock, RMW,
 * malloc, read, join) are in memory.h; the slot type, the number of
 * flush passes and SMA_REF_EMPTY in buffers.h. Both are inlined just
 * before this header. */

/* Store buffer of thread t: sma_buf_count[t] stores in slots
 * 0..count-1, oldest first. A flush takes slot 0 and shifts the others
 * down: every index but the append is a constant, which CBMC encodes far
 * more cheaply than a ring with a nondeterministic head. */
sma_loc_t sma_buf_loc[SMA_THREADS][SMA_QSIZE];
sma_value_t sma_buf_value[SMA_THREADS][SMA_QSIZE];
sma_wid_t sma_buf_wid[SMA_THREADS][SMA_QSIZE];
sma_slot_t sma_buf_count[SMA_THREADS];

/* Moves the oldest store of u's (non-empty) buffer to memory. */
void sma_flush_oldest(sma_thread_t u, sma_stmt_t stmt)
{
    sma_loc_t loc = sma_buf_loc[u][0];
    sma_value_t value = sma_buf_value[u][0];
    sma_wid_t id = sma_buf_wid[u][0];
    unsigned int k;
    sma_memory_store(loc, value, id);
    for (k = 0; k + 1 < SMA_QSIZE; k++) {
        sma_buf_loc[u][k] = sma_buf_loc[u][k + 1];
        sma_buf_value[u][k] = sma_buf_value[u][k + 1];
        sma_buf_wid[u][k] = sma_buf_wid[u][k + 1];
    }
    sma_buf_count[u] = sma_buf_count[u] - 1;
    sma_record(SMA_EV_FLUSH, u, loc, value, sma_memory_order, id, 0, stmt);
}

/* The buffers the flush phases visit and the drains empty, as
 * F(thread, most stores it can hold, most it can hold while other threads
 * run). The translator lists only the threads that store, with their
 * counts; by default every thread may hold SMA_QSIZE stores. */
#ifndef SMA_REF_BUFFERS
#define SMA_REF_BUFFERS(F)                                           \
    {                                                                \
        sma_thread_t sma_each_;                                      \
        for (sma_each_ = 0; sma_each_ < SMA_THREADS; sma_each_++)    \
            F(sma_each_, SMA_QSIZE, SMA_QSIZE)                       \
    }
#endif

/* In one pass, a thread's oldest store may reach memory. */
#define SMA_REF_MAYBE_FLUSH(u, most, concurrent)                     \
    if ((concurrent) > 0 && sma_buf_count[u] > 0 && sma_nondet_bool()) \
        sma_flush_oldest(u, stmt);

/* Memory updates before an operation: SMA_REF_FLUSH_ROUNDS passes over the
 * buffers; in each, every thread's oldest store may reach memory. `stmt` is
 * the operation they precede. */
void sma_flush_some(sma_stmt_t stmt)
{
    unsigned int pass;
    for (pass = 0; pass < SMA_REF_FLUSH_ROUNDS; pass++) {
        SMA_REF_BUFFERS(SMA_REF_MAYBE_FLUSH)
    }
}

/* Empties thread `t`'s buffer, oldest store first. */
#define SMA_REF_DRAIN_BUFFER(u, most, concurrent) \
    if ((u) == t) {                               \
        SMA_REF_EMPTY(sma_buf_count[u], sma_flush_oldest(u, stmt), most) \
    }

void sma_drain(sma_thread_t t, sma_stmt_t stmt)
{
    unsigned int k;
    SMA_REF_BUFFERS(SMA_REF_DRAIN_BUFFER)
}

void sma_write(sma_loc_t loc, sma_wide_t program_value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value = sma_narrow(program_value);
    sma_slot_t slot;
    sma_wid_t id;
    sma_check_loc(loc);
    /* No flush phase: a store observes nothing, so the flushes that could
     * precede it may as well happen after it, in the phase before the next
     * operation that reads memory. Only a full buffer must make room: its
     * oldest store, which had to reach memory by now anyway, does. */
    if (sma_buf_count[t] == SMA_QSIZE)
        sma_flush_oldest(t, stmt);
    slot = sma_buf_count[t];
    id = sma_new_write_id();
    sma_buf_loc[t][slot] = loc;
    sma_buf_value[t][slot] = value;
    sma_buf_wid[t][slot] = id;
    sma_buf_count[t] = sma_buf_count[t] + 1;
    sma_record(SMA_EV_WRITE, t, loc, value, 0, id, 0, stmt);
}

/* A read without a flush phase: where no other thread can hold buffered
 * stores (the translator marks them), as the flushes could only move t's
 * own stores, which t does not observe; and at a computed address, where
 * the translator runs the phase once before the comparisons that select
 * the location (see sma_settle in memory.h). */
sma_value_t sma_read_alone(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value;
    sma_wid_t read_from;
    unsigned int k;
    sma_check_loc(loc);
    value = sma_memory[loc];
    read_from = sma_memory_wid[loc];
    /* store forwarding: the newest buffered store to loc wins */
    for (k = 0; k < SMA_QSIZE; k++) {
        if (k < sma_buf_count[t] && sma_buf_loc[t][k] == loc) {
            value = sma_buf_value[t][k];
            read_from = sma_buf_wid[t][k];
        }
    }
    sma_record(SMA_EV_READ, t, loc, value, sma_memory_order, 0, read_from, stmt);
    return value;
}

/* TSO keeps stores in order already. */
void sma_store_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_record(SMA_EV_STORE_FENCE, t, 0, 0, sma_memory_order, 0, 0, stmt);
}

#endif /* SMA_MODEL_H */
