/* lazysma shared memory abstraction: sequential consistency.
 *
 * Plain memory: one value (and the id of the write that put it there) per
 * location. Every store reaches memory when it is issued; fences are
 * no-ops but still leave their records. Needs common.h first.
 */

#ifndef SMA_MODEL_H
#define SMA_MODEL_H

/* sma_memory[v]: the value of location v; sma_memory_wid[v]: the id of the
 * write that stored it (0 = initial value). */
sma_value_t sma_memory[SMA_LOCATIONS];
sma_wid_t sma_memory_wid[SMA_LOCATIONS];

void sma_init(void)
{
    sma_loc_t v;
    for (v = 0; v < SMA_LOCATIONS; v++) {
        sma_memory[v] = sma_start_value(v);
        sma_memory_wid[v] = 0;
    }
}

/* A store: loc holds value, written by write id `id`. */
void sma_memory_put(sma_loc_t loc, sma_value_t value, sma_wid_t id)
{
    sma_memory[loc] = value;
    sma_memory_wid[loc] = id;
}

sma_value_t sma_read(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value;
    sma_check_loc(loc);
    value = sma_memory[loc];
    sma_record(SMA_EV_READ, t, loc, value, 0, 0, sma_memory_wid[loc], stmt);
    return value;
}

void sma_write(sma_loc_t loc, sma_wide_t program_value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value = sma_narrow(program_value);
    sma_wid_t id;
    sma_check_loc(loc);
    id = sma_new_write_id();
    sma_memory_put(loc, value, id);
    sma_record(SMA_EV_WRITE, t, loc, value, 0, id, 0, stmt);
}

void sma_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_record(SMA_EV_FENCE, t, 0, 0, 0, 0, 0, stmt);
}

void sma_store_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_record(SMA_EV_STORE_FENCE, t, 0, 0, 0, 0, 0, stmt);
}

void sma_lock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t read_from;
    sma_wid_t id;
    sma_check_loc(mutex);
    __CPROVER_assume(sma_memory[mutex] == SMA_MUTEX_FREE);
    read_from = sma_memory_wid[mutex];
    id = sma_new_write_id();
    sma_memory_put(mutex, SMA_MUTEX_TAKEN, id);
    sma_record(SMA_EV_LOCK, t, mutex, SMA_MUTEX_TAKEN, 0, id, read_from, stmt);
}

void sma_unlock(sma_loc_t mutex, sma_thread_t t, sma_stmt_t stmt)
{
    sma_wid_t id;
    sma_check_loc(mutex);
    id = sma_new_write_id();
    sma_memory_put(mutex, SMA_MUTEX_FREE, id);
    sma_record(SMA_EV_UNLOCK, t, mutex, SMA_MUTEX_FREE, 0, id, 0, stmt);
}

sma_value_t sma_rmw(sma_loc_t loc, int op, sma_wide_t operand, sma_wide_t expected,
                    sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t old;
    sma_value_t value;
    sma_wid_t read_from;
    sma_wid_t id = 0;
    sma_check_loc(loc);
    old = sma_memory[loc];
    value = old;
    read_from = sma_memory_wid[loc];
    if (sma_rmw_writes(op, old, expected)) {
        value = sma_rmw_new_value(op, old, operand);
        id = sma_new_write_id();
        sma_memory_put(loc, value, id);
    }
    sma_record(SMA_EV_RMW, t, loc, value, 0, id, read_from, stmt);
    return old;
}

/* A heap location gets its initial value in memory when its block is
 * allocated. */
void sma_heap_set_initial(sma_loc_t loc, sma_value_t value)
{
    sma_memory[loc] = value;
}

sma_loc_t sma_malloc(sma_wide_t scalars, int zeroed, sma_thread_t t, sma_stmt_t stmt)
{
    return sma_heap_malloc(scalars, zeroed, t, stmt, 0);
}

void sma_thread_end(sma_thread_t t, sma_stmt_t stmt)
{
    sma_record(SMA_EV_THREAD_END, t, 0, 0, 0, 0, 0, stmt);
}

#endif /* SMA_MODEL_H */
