/* lazysma shared memory abstraction: sequential consistency.
 *
 * The explicit memory of memory.h without store buffers: every store
 * reaches memory when it is issued, so the flush phase and the drain are
 * empty and fences are no-ops that still leave their records. Needs
 * common.h and memory.h first.
 */

#ifndef SMA_MODEL_H
#define SMA_MODEL_H

/* The memory, sma_init and the operations every model with an explicit
 * memory implements alike (fence, lock, unlock, RMW, malloc, read, thread
 * end) are in memory.h, inlined just before this header. */

/* No buffers: nothing to flush before an operation, nothing to drain. */
void sma_flush_some(sma_stmt_t stmt)
{
    (void)stmt;
}

void sma_drain(sma_thread_t t, sma_stmt_t stmt)
{
    (void)t;
    (void)stmt;
}

sma_value_t sma_read_alone(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value;
    sma_check_loc(loc);
    value = sma_memory[loc];
    sma_record(SMA_EV_READ, t, loc, value, sma_memory_order, 0, sma_memory_wid[loc], stmt);
    return value;
}

void sma_write(sma_loc_t loc, sma_wide_t program_value, sma_thread_t t, sma_stmt_t stmt)
{
    sma_value_t value = sma_narrow(program_value);
    sma_wid_t id;
    sma_check_loc(loc);
    id = sma_new_write_id();
    sma_memory_store(loc, value, id);
    sma_record(SMA_EV_WRITE, t, loc, value, sma_memory_order, id, 0, stmt);
}

void sma_store_fence(sma_thread_t t, sma_stmt_t stmt)
{
    sma_record(SMA_EV_STORE_FENCE, t, 0, 0, sma_memory_order, 0, 0, stmt);
}

#endif /* SMA_MODEL_H */
