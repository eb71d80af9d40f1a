/* lazysma shared memory abstraction: the explicit memory, and the operations
 * every model with one (sc.h, tso_ref.h, pso_ref.h) implements alike.
 *
 * Memory holds one value and one write id per location, plus the position
 * of the latest store in memory order. Fence, lock, unlock, RMW, malloc,
 * read and join are the same in these models: a flush phase
 * (sma_flush_some), then a drain of the thread's buffers (sma_drain), then
 * the operation on memory. The model header that follows defines what
 * differs: sma_flush_some, sma_drain, sma_write, sma_read_alone and
 * sma_store_fence (under SC the phase and the drain are empty: stores reach
 * memory when issued). Needs common.h first.
 */

#ifndef SMA_MEMORY_H
#define SMA_MEMORY_H

/* Memory: the value of each location and the id of the write that put it
 * there (0 = initial value). */
sma_value_t sma_memory[SMA_LOCATIONS];
sma_wid_t sma_memory_wid[SMA_LOCATIONS];
/* Number of stores that have reached memory: the memory-order position of
 * the latest one (recorded as the timestamp of flushes and reads). */
sma_ts_t sma_memory_order;

/* Defined by the model header: the flush phase before an operation, the
 * drain of all of t's buffered stores, and a read without a flush phase. */
void sma_flush_some(sma_stmt_t stmt);
void sma_drain(sma_thread_t t, sma_stmt_t stmt);
sma_value_t sma_read_alone(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt);

/* Memory starts with the initial values, written by write id 0. The state
 * is a C global, so it starts all 0: only the values that differ from 0 are
 * set (as in tcdll.h). */
void sma_fresh_location(sma_loc_t v)
{
    if (v >= SMA_HEAP_BASE || SMA_INITIAL_VALUE(v) != 0)
        sma_memory[v] = sma_start_value(v);
}

/* Sets up every location, or only the heap's under SMA_LAZY_INIT (see
 * sma_touch in common.h). */
void sma_init(void)
{
    sma_loc_t v;
#ifdef SMA_LAZY_INIT
    for (v = SMA_HEAP_BASE; v < SMA_LOCATIONS; v++)
#else
    for (v = 0; v < SMA_LOCATIONS; v++)
#endif
        sma_fresh_location(v);
    sma_memory_order = 0;
}

/* A store reaching memory. */
void sma_memory_store(sma_loc_t loc, sma_value_t value, sma_wid_t id)
{
    sma_memory[loc] = value;
    SMA_FOR_THE_TRACE(
        sma_memory_wid[loc] = id;
        sma_memory_order = sma_memory_order + 1;)
}

/* The memory updates before a fence, lock, unlock or RMW: a flush phase, then a
 * drain of t's buffers. The operations call it first; before an access at a
 * computed address the translator calls it once, ahead of the comparisons
 * that select the location, and the selected location's operation is then
 * the `_drained` variant (each comparison's branch would otherwise carry a
 * whole flush phase of its own). */
void sma_settle(sma_thread_t t, sma_stmt_t stmt)
{
    sma_flush_some(stmt);
    sma_drain(t, stmt);
}

void sma_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_settle(t, stmt);
    sma_record(SMA_EV_FENCE, t, 0, 0, sma_memory_order, 0, 0, stmt);
}

/* Takes the free mutex in memory (t has drained). */
void sma_take_mutex(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t read_from = sma_memory_wid[mutex];
    sma_wid_t id = sma_new_write_id();
    sma_memory_store(mutex, SMA_MUTEX_TAKEN, id);
    sma_record(SMA_EV_LOCK, t, mutex, SMA_MUTEX_TAKEN, sma_memory_order, id, read_from, stmt);
}

void sma_lock_drained(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_check_loc(mutex);
    __CPROVER_assume(sma_memory[mutex] == SMA_MUTEX_FREE);
    sma_take_mutex(mutex, t, stmt);
}

void sma_lock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_settle(t, stmt);
    sma_lock_drained(mutex, t, stmt);
}

/* Mutex try-lock, the thread's stores drained: takes the mutex when it is
 * free (1), else finds it held by another thread and leaves it so (0). */
int sma_trylock_drained(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_check_loc(mutex);
    if (sma_memory[mutex] != SMA_MUTEX_FREE) {
        sma_record(SMA_EV_LOCK_BUSY, t, mutex, SMA_MUTEX_TAKEN, sma_memory_order, 0, sma_memory_wid[mutex], stmt);
        return 0;
    }
    sma_take_mutex(mutex, t, stmt);
    return 1;
}

int sma_trylock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_settle(t, stmt);
    return sma_trylock_drained(mutex, t, stmt);
}

void sma_unlock_drained(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t id;
    sma_check_loc(mutex);
    id = sma_new_write_id();
    sma_memory_store(mutex, SMA_MUTEX_FREE, id);
    sma_record(SMA_EV_UNLOCK, t, mutex, SMA_MUTEX_FREE, sma_memory_order, id, 0, stmt);
}

void sma_unlock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_settle(t, stmt);
    sma_unlock_drained(mutex, t, stmt);
}

sma_value_t sma_rmw_drained(sma_loc_t loc, int op, sma_wide_t operand, sma_wide_t expected,
                            sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t old;
    sma_value_t value;
    sma_wid_t read_from;
    sma_wid_t id = 0;
    sma_check_loc(loc);
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

sma_value_t sma_rmw(sma_loc_t loc, int op, sma_wide_t operand, sma_wide_t expected,
                    sma_thread_t t, sma_stmt_t stmt)
{
    sma_settle(t, stmt);
    return sma_rmw_drained(loc, op, operand, expected, t, stmt);
}

/* A heap location gets its initial value in memory when its block is
 * allocated. */
void sma_heap_set_initial(sma_loc_t loc, sma_value_t value)
{
    sma_memory[loc] = value;
}

sma_loc_t sma_malloc(sma_wide_t scalars, int zeroed, sma_thread_t t, sma_stmt_t stmt)
{
    return sma_heap_malloc(scalars, zeroed, t, stmt, sma_memory_order);
}

/* t joins the finished thread `joined`, whose stores drain now (see
 * sma_join in tcdll.h): a flush phase first, since other threads' stores
 * may reach memory before the drained ones. */
void sma_join(sma_thread_t joined, sma_thread_t t, sma_stmt_t stmt)
{
    sma_flush_some(stmt);
    sma_drain(joined, stmt);
    sma_record(SMA_EV_JOIN, t, joined, 0, sma_memory_order, 0, 0, stmt);
}

sma_value_t sma_read(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_flush_some(stmt);
    return sma_read_alone(loc, t, stmt);
}

#endif /* SMA_MEMORY_H */
