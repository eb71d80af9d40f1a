/* lazysma shared memory abstraction: PSO-SMA, the reference PSO model.
 *
 * The direct implementation of PSO (Tomasco et al., FMCAD 2016, sec. V,
 * "PSO-SMA"): an explicit memory and one bounded FIFO store buffer per
 * thread AND location. A store enters the buffer of its thread and
 * location; a load takes the newest store of its own buffer for that
 * location, else memory; before every operation except a store, a
 * store-store fence and malloc a flush phase runs, made of
 * SMA_REF_FLUSH_ROUNDS passes over the (thread, location) buffers in which
 * each buffer's oldest store may reach memory (stores skip the phase:
 * flushes before a store can always be moved after it). Stores of one
 * thread to different locations thus reach memory in any order, unless a
 * store-store fence separates them: every buffered store carries its
 * thread's store-fence epoch (the number of store-store fences the thread
 * had executed when it issued it), and in a pass a store may reach memory
 * only if, when the pass began, no store of the same thread with a smaller
 * epoch was buffered. Fences, locks and RMWs then drain all the thread's
 * buffers, and a join those of the joined thread. It exists to
 * cross-check epso.h (Theorem 2 of the paper). Needs common.h, memory.h and buffers.h first.
 *
 * The passes index the buffers with constants, which CBMC encodes far more
 * cheaply than one flush of a nondeterministically chosen buffer per step.
 * Only the order of flushes to the same location is observable (and the
 * order the fences impose), and n passes realise any order of n flushes
 * (the i-th in pass i). Without store-store fences locations are
 * independent, so as many passes as one location can have buffered stores
 * lose nothing (and, as no load runs within a phase and only the last
 * flush to a location is observed, one more than the fullest buffer of
 * the location holds); with them, as many as all buffers together can
 * hold. The
 * translator computes that number and the buffers that can hold stores at
 * all (SMA_REF_BUFFERS below; without store-store fences, none for a
 * location no other thread accesses: sma/README.md); the defaults visit
 * every buffer
 * SMA_QSIZE * SMA_THREADS times, enough without store-store fences.
 *
 * Bounds: at most SMA_QSIZE stores per (thread, location) buffer; an
 * execution that needs more is cut off, never reported.
 */

#ifndef SMA_MODEL_H
#define SMA_MODEL_H

/* The memory, sma_init, sma_memory_store and the operations every model
 * with an explicit memory implements alike (fence, lock, unlock, RMW,
 * malloc, read, join) are in memory.h; the slot type, the number of
 * flush passes and SMA_REF_EMPTY in buffers.h. Both are inlined just
 * before this header. */

/* Buffer of thread t for location v: sma_buf_count[t][v] stores in slots
 * 0..count-1, oldest first; a flush takes slot 0 and shifts the others
 * down (constant indices, which CBMC encodes far more cheaply than a ring
 * with a nondeterministic head). */
sma_value_t sma_buf_value[SMA_THREADS][SMA_LOCATIONS][SMA_QSIZE];
sma_wid_t sma_buf_wid[SMA_THREADS][SMA_LOCATIONS][SMA_QSIZE];
unsigned int sma_buf_epoch[SMA_THREADS][SMA_LOCATIONS][SMA_QSIZE];
sma_slot_t sma_buf_count[SMA_THREADS][SMA_LOCATIONS];
/* Store-store fences executed by each thread so far. */
unsigned int sma_epoch[SMA_THREADS];

/* Moves the oldest store of u's (non-empty) buffer for v to memory. */
void sma_flush_oldest(sma_thread_t u, sma_loc_t v, sma_stmt_t stmt)
{
    sma_value_t value = sma_buf_value[u][v][0];
    sma_wid_t id = sma_buf_wid[u][v][0];
    unsigned int k;
    sma_memory_store(v, value, id);
    for (k = 0; k + 1 < SMA_QSIZE; k++) {
        sma_buf_value[u][v][k] = sma_buf_value[u][v][k + 1];
        sma_buf_wid[u][v][k] = sma_buf_wid[u][v][k + 1];
        sma_buf_epoch[u][v][k] = sma_buf_epoch[u][v][k + 1];
    }
    sma_buf_count[u][v] = sma_buf_count[u][v] - 1;
    sma_record(SMA_EV_FLUSH, u, v, value, sma_memory_order, id, 0, stmt);
}

/* The buffers the flush phases visit and the drains empty, as
 * F(thread, location, most stores it can hold, most it can hold while
 * other threads run). The translator lists only the (thread, location)
 * pairs that a store can reach, with their counts, and defines
 * SMA_REF_NO_STORE_FENCES when no thread has a store-store fence; by
 * default every buffer may hold SMA_QSIZE stores. */
#ifndef SMA_REF_BUFFERS
#define SMA_REF_BUFFERS(F)                                                   \
    {                                                                        \
        sma_thread_t sma_each_thread_;                                       \
        sma_loc_t sma_each_loc_;                                             \
        for (sma_each_thread_ = 0; sma_each_thread_ < SMA_THREADS; sma_each_thread_++) \
            for (sma_each_loc_ = 1; sma_each_loc_ < SMA_LOCATIONS; sma_each_loc_++) \
                F(sma_each_thread_, sma_each_loc_, SMA_QSIZE, SMA_QSIZE)     \
    }
#endif

/* Threads that never hold more than one store at a time: the translator
 * lists them in SMA_REF_SINGLE_BUFFERS(G), as G(thread, 1 if the store may
 * have to move while other threads run, else 0), and in SMA_REF_SINGLE(t),
 * and gives them no per-location buffers in SMA_REF_BUFFERS. Each has one
 * slot instead: one store is the oldest of its location's buffer whatever
 * the location, so the slot behaves as the per-location buffers would,
 * and a phase visits one slot where it would visit a buffer per location
 * the store might reach (every location, for a store through a heap
 * pointer). */
#ifndef SMA_REF_SINGLE_BUFFERS
#define SMA_REF_SINGLE_BUFFERS(G)
#define SMA_REF_SINGLE(t) 0
#endif
sma_loc_t sma_one_loc[SMA_THREADS];
sma_value_t sma_one_value[SMA_THREADS];
sma_wid_t sma_one_wid[SMA_THREADS];
unsigned int sma_one_epoch[SMA_THREADS];
_Bool sma_one_full[SMA_THREADS];

/* Moves u's single buffered store to memory. */
void sma_flush_one(sma_thread_t u, sma_stmt_t stmt)
{
    sma_memory_store(sma_one_loc[u], sma_one_value[u], sma_one_wid[u]);
    sma_one_full[u] = 0;
    sma_record(SMA_EV_FLUSH, u, sma_one_loc[u], sma_one_value[u], sma_memory_order, sma_one_wid[u], 0, stmt);
}

#ifdef SMA_REF_NO_STORE_FENCES
/* Without store-store fences every buffered store may reach memory. */
#define SMA_REF_MAY_LEAVE(u, v) 1
#define SMA_REF_ONE_MAY_LEAVE(u) 1
#else
/* The smallest store-fence epoch among u's buffered stores (the oldest
 * store of each buffer carries the smallest epoch of its buffer); u's
 * stores with a larger epoch must wait. */
#define SMA_REF_NOTE_OLDEST(u, v, most, concurrent)                          \
    if ((u) == t && sma_buf_count[u][v] > 0                                  \
        && sma_buf_epoch[u][v][0] < oldest)                 \
        oldest = sma_buf_epoch[u][v][0];

unsigned int sma_oldest_epoch(sma_thread_t t)
{
    unsigned int oldest = sma_epoch[t];
    if (SMA_REF_SINGLE(t))
        return sma_one_full[t] ? sma_one_epoch[t] : oldest;
    SMA_REF_BUFFERS(SMA_REF_NOTE_OLDEST)
    return oldest;
}

/* The oldest epoch of every thread when the pass began. */
unsigned int sma_pass_oldest[SMA_THREADS];
#define SMA_REF_MAY_LEAVE(u, v) \
    (sma_buf_epoch[u][v][0] == sma_pass_oldest[u])
#define SMA_REF_ONE_MAY_LEAVE(u) \
    (sma_one_epoch[u] == sma_pass_oldest[u])
#endif

/* In one pass, the oldest store of a buffer may reach memory. */
#define SMA_REF_MAYBE_FLUSH(u, v, most, concurrent)                          \
    if ((concurrent) > 0 && sma_buf_count[u][v] > 0 && SMA_REF_MAY_LEAVE(u, v) \
        && sma_nondet_bool())                                                \
        sma_flush_oldest(u, v, stmt);

/* In one pass, a thread's single store may reach memory. */
#define SMA_REF_MAYBE_FLUSH_ONE(u, concurrent)                               \
    if ((concurrent) > 0 && sma_one_full[u] && SMA_REF_ONE_MAY_LEAVE(u)     \
        && sma_nondet_bool())                                                \
        sma_flush_one(u, stmt);

/* Memory updates before an operation: SMA_REF_FLUSH_ROUNDS passes over the
 * buffers; in each, every buffer's oldest store may reach memory unless a
 * store-store fence orders an older store of its thread first. `stmt` is
 * the operation they precede. */
void sma_flush_some(sma_stmt_t stmt)
{
    unsigned int pass;
#ifndef SMA_REF_NO_STORE_FENCES
    sma_thread_t u;
#endif
    for (pass = 0; pass < SMA_REF_FLUSH_ROUNDS; pass++) {
#ifndef SMA_REF_NO_STORE_FENCES
        for (u = 0; u < SMA_THREADS; u++)
            sma_pass_oldest[u] = sma_oldest_epoch(u);
#endif
        SMA_REF_BUFFERS(SMA_REF_MAYBE_FLUSH)
        SMA_REF_SINGLE_BUFFERS(SMA_REF_MAYBE_FLUSH_ONE)
    }
}

/* Empties all of t's buffers. They are emptied location by location; no
 * operation can observe memory in between, so the order does not matter. */
#define SMA_REF_DRAIN_BUFFER(u, v, most, concurrent) \
    if ((u) == t) {                                  \
        SMA_REF_EMPTY(sma_buf_count[u][v], sma_flush_oldest(u, v, stmt), most) \
    }

#define SMA_REF_DRAIN_ONE(u, concurrent) \
    if ((u) == t && sma_one_full[u])      \
        sma_flush_one(u, stmt);

void sma_drain(sma_thread_t t, sma_stmt_t stmt)
{
    unsigned int k;
    SMA_REF_BUFFERS(SMA_REF_DRAIN_BUFFER)
    SMA_REF_SINGLE_BUFFERS(SMA_REF_DRAIN_ONE)
}

/* A store of a thread that holds one at most. Should a second come before
 * the first reached memory (the translator's count rules that out), the
 * first reaches memory now, as from a full buffer. */
void sma_write_one(sma_loc_t loc, sma_value_t value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t id;
    if (sma_one_full[t]) {
#ifndef SMA_REF_NO_STORE_FENCES
        __CPROVER_assume(sma_one_epoch[t] == sma_oldest_epoch(t));
#endif
        sma_flush_one(t, stmt);
    }
    id = sma_new_write_id();
    sma_one_loc[t] = loc;
    sma_one_value[t] = value;
    sma_one_wid[t] = id;
    sma_one_epoch[t] = sma_epoch[t];
    sma_one_full[t] = 1;
    sma_record(SMA_EV_WRITE, t, loc, value, 0, id, 0, stmt);
}

void sma_write(sma_loc_t loc, sma_wide_t program_value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value = sma_narrow(program_value);
    sma_slot_t slot;
    sma_wid_t id;
    sma_check_loc(loc);
    if (SMA_REF_SINGLE(t)) {
        sma_write_one(loc, value, t, stmt);
        return;
    }
    /* No flush phase: a store observes nothing, and flushes commute with
     * it (it joins its buffer behind the stores already there, with the
     * newest epoch), so the flushes that could precede it may as well
     * happen in the phase before the next operation that reads memory.
     * Only a full buffer must make room: its oldest store reaches memory
     * now, if no store-store fence holds it back (else the execution is
     * cut off). */
    if (sma_buf_count[t][loc] == SMA_QSIZE) {
#ifndef SMA_REF_NO_STORE_FENCES
        __CPROVER_assume(sma_buf_epoch[t][loc][0] == sma_oldest_epoch(t));
#endif
        sma_flush_oldest(t, loc, stmt);
    }
    slot = sma_buf_count[t][loc];
    id = sma_new_write_id();
    sma_buf_value[t][loc][slot] = value;
    sma_buf_wid[t][loc][slot] = id;
    sma_buf_epoch[t][loc][slot] = sma_epoch[t];
    sma_buf_count[t][loc] = sma_buf_count[t][loc] + 1;
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
    unsigned int newest;
    sma_check_loc(loc);
    if (SMA_REF_SINGLE(t)) {
        /* store forwarding from t's single store, if it is to loc */
        if (sma_one_full[t] && sma_one_loc[t] == loc) {
            value = sma_one_value[t];
            read_from = sma_one_wid[t];
        } else {
            value = sma_memory[loc];
            read_from = sma_memory_wid[loc];
        }
    } else if (sma_buf_count[t][loc] > 0) {
        /* store forwarding from the newest store of t to loc */
        newest = sma_buf_count[t][loc] - 1;
        value = sma_buf_value[t][loc][newest];
        read_from = sma_buf_wid[t][loc][newest];
    } else {
        value = sma_memory[loc];
        read_from = sma_memory_wid[loc];
    }
    sma_record(SMA_EV_READ, t, loc, value, sma_memory_order, 0, read_from, stmt);
    return value;
}

/* Later stores of t get a larger epoch than the buffered ones. */
void sma_store_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_epoch[t] = sma_epoch[t] + 1;
    sma_record(SMA_EV_STORE_FENCE, t, 0, 0, sma_memory_order, 0, 0, stmt);
}

#endif /* SMA_MODEL_H */
