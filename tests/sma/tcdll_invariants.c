/* The T-CDLL invariants of eTSO/ePSO (Tomasco et al., FMCAD 2016, sec. III,
 * and the comments (I1)-(I7) of sma/etso.h), checked after every step of an
 * arbitrary bounded sequence of operations: each step is a nondeterministic
 * choice of a write, read, fence, store-store fence, RMW, bare clock move,
 * write with the least timestamp (sma_write_unobserved) or read of the
 * newest write (sma_read_newest, only where no other thread has a write to
 * the location pending, as the translator calls it), by a nondeterministic
 * thread, on a nondeterministic location.
 *
 * Next to the model the harness keeps a shadow log of every write (location,
 * value, thread, timestamp, write id, in issue order) and checks the lists
 * and every read against what the log says memory and the store buffers
 * hold: memory at the clock is the write with the latest (timestamp, issue
 * order) among those with timestamp <= clock; a thread reads its own latest
 * write to a location while that write is pending.
 *
 * The list invariants are checked once, after the last step; since a step
 * may also do nothing, that covers every shorter sequence too. Read results
 * are checked at every read.
 *
 * White-box: reads the model's arrays. Build with -DSMA_MODEL_ETSO or
 * -DSMA_MODEL_EPSO; STEPS (default 3) bounds the sequence, SMA_QSIZE
 * (default 3) the lists. */
#define SMA_THREADS 2
#define SMA_LOCATIONS 3
#ifndef SMA_QSIZE
#define SMA_QSIZE 3
#endif
#define SMA_MAXCLOCK 3
#define HARNESS_VALUE_BITS 4
#define HARNESS_INITIAL_VALUES { 0, 5, 6 }
#include "prologue.h"

#if !defined(SMA_MODEL_ETSO) && !defined(SMA_MODEL_EPSO)
#error "this harness checks the T-CDLLs of etso.h or epso.h"
#endif

#ifndef STEPS
#define STEPS 3
#endif

#define OP_WRITE 0
#define OP_READ 1
#define OP_FENCE 2
#define OP_STORE_FENCE 3
#define OP_RMW 4
#define OP_CLOCK 5
#define OP_WRITE_UNOBSERVED 6
#define OP_READ_NEWEST 7
#define OP_NOTHING 8 /* shorter sequences: the checks at the end cover every prefix */
#define OP_COUNT 9

/* The shadow log of writes, in issue order. */
sma_loc_t log_loc[STEPS];
sma_value_t log_value[STEPS];
sma_thread_t log_thread[STEPS];
sma_ts_t log_ts[STEPS];
sma_wid_t log_wid[STEPS];
unsigned int log_size;
/* Largest timestamp of each thread's writes before its latest store-store
 * fence (PSO ordering). */
sma_ts_t shadow_sfence_bound[SMA_THREADS];

void log_write(sma_loc_t v, sma_value_t value, sma_thread_t t, sma_ts_t ts, sma_wid_t id)
{
    unsigned int i;
    for (i = 0; i < STEPS; i++) {
        if (i < log_size && log_thread[i] == t) {
#ifdef SMA_MODEL_EPSO
            /* PSO: per-location FIFO, and store-store fences */
            if (log_loc[i] == v)
                __CPROVER_assert(log_ts[i] <= ts, "I6: a thread's writes to a location reach memory in order");
#else
            /* TSO: per-thread FIFO */
            __CPROVER_assert(log_ts[i] <= ts, "I6: a thread's writes reach memory in order");
#endif
        }
    }
#ifdef SMA_MODEL_EPSO
    __CPROVER_assert(shadow_sfence_bound[t] <= ts, "I6': a store-store fence orders the writes around it");
#endif
    __CPROVER_assert(ts >= sma_clock, "write timestamps are not in the past");
    log_loc[log_size] = v;
    log_value[log_size] = value;
    log_thread[log_size] = t;
    log_ts[log_size] = ts;
    log_wid[log_size] = id;
    log_size = log_size + 1;
}

/* Index + 1 of the log entry holding v's memory value at the clock, 0 for
 * the initial value. */
unsigned int shadow_memory(sma_loc_t v)
{
    unsigned int i;
    unsigned int found = 0;
    for (i = 0; i < STEPS; i++) {
        if (i < log_size && log_loc[i] == v && log_ts[i] <= sma_clock
            && (found == 0 || log_ts[found - 1] <= log_ts[i]))
            found = i + 1;
    }
    return found;
}

/* Index + 1 of t's latest write to v, 0 when there is none. */
unsigned int shadow_last_write(sma_loc_t v, sma_thread_t t)
{
    unsigned int i;
    unsigned int found = 0;
    for (i = 0; i < STEPS; i++) {
        if (i < log_size && log_loc[i] == v && log_thread[i] == t)
            found = i + 1;
    }
    return found;
}

sma_wid_t entry_wid(unsigned int entry) { return entry == 0 ? 0 : log_wid[entry - 1]; }
sma_ts_t entry_ts(unsigned int entry) { return entry == 0 ? 0 : log_ts[entry - 1]; }

sma_value_t entry_value(sma_loc_t v, unsigned int entry)
{
    return entry == 0 ? sma_initial_value[v] : log_value[entry - 1];
}

/* Whether a thread other than t has a write to v pending. */
_Bool others_pending(sma_loc_t v, sma_thread_t t)
{
    unsigned int i;
    _Bool pending = 0;
    for (i = 0; i < STEPS; i++) {
        if (i < log_size && log_loc[i] == v && log_thread[i] != t && log_ts[i] > sma_clock)
            pending = 1;
    }
    return pending;
}

/* What t must read from v now (TSO/PSO semantics over the shadow log). */
unsigned int shadow_read(sma_loc_t v, sma_thread_t t)
{
    unsigned int own = shadow_last_write(v, t);
    if (own != 0 && log_ts[own - 1] > sma_clock)
        return own;
    return shadow_memory(v);
}

void check_list(sma_loc_t v)
{
    unsigned int i;
    sma_node_t node;
    unsigned int k;
    unsigned int j;
    unsigned int heads = 0;
    unsigned int pending = 0;
    unsigned int shadow_pending = 0;
    unsigned int memory = shadow_memory(v);
    _Bool listed;

    __CPROVER_assert(sma_tstamp[v][SMA_SENTINEL] == SMA_NEVER, "I2: the sentinel's timestamp is maximal");
    for (i = 0; i <= SMA_SENTINEL; i++) {
        __CPROVER_assert(sma_next[v][i] <= SMA_SENTINEL && sma_prev[v][i] <= SMA_SENTINEL,
                         "I1: links stay inside the list");
        __CPROVER_assert(sma_prev[v][sma_next[v][i]] == i, "I1: prev is the inverse of next");
    }
    /* one cycle through all QSIZE + 1 nodes */
    node = SMA_SENTINEL;
    for (k = 0; k <= SMA_QSIZE; k++) {
        node = sma_next[v][node];
        __CPROVER_assert((node == SMA_SENTINEL) == (k == SMA_QSIZE), "I1: one cycle through every node");
    }
    for (i = 0; i < SMA_QSIZE; i++) {
        __CPROVER_assert(sma_tstamp[v][i] <= sma_tstamp[v][sma_next[v][i]],
                         "I3: timestamps are non-decreasing along the list");
        if (sma_next[v][i] != SMA_SENTINEL && sma_tstamp[v][i] == sma_tstamp[v][sma_next[v][i]]
            && sma_tstamp[v][i] > sma_clock)
            __CPROVER_assert(sma_wid[v][i] < sma_wid[v][sma_next[v][i]],
                             "I3: pending writes with equal timestamps are in issue order");
        if (sma_tstamp[v][i] <= sma_clock && sma_tstamp[v][sma_next[v][i]] > sma_clock) {
            heads = heads + 1;
            __CPROVER_assert(sma_wid[v][i] == entry_wid(memory) && sma_value[v][i] == entry_value(v, memory),
                             "I4: the head holds the latest write with timestamp <= clock");
        }
        if (sma_tstamp[v][i] > sma_clock) {
            pending = pending + 1;
            /* every pending node is a logged write, with its value and timestamp */
            listed = 0;
            for (j = 0; j < STEPS; j++) {
                if (j < log_size && log_wid[j] == sma_wid[v][i] && log_loc[j] == v
                    && log_ts[j] == sma_tstamp[v][i] && log_value[j] == sma_value[v][i])
                    listed = 1;
            }
            __CPROVER_assert(listed, "I4: pending nodes are logged writes");
        }
    }
    __CPROVER_assert(heads == 1, "I4: exactly one head");
    for (j = 0; j < STEPS; j++) {
        if (j < log_size && log_loc[j] == v && log_ts[j] > sma_clock)
            shadow_pending = shadow_pending + 1;
    }
    __CPROVER_assert(pending == shadow_pending, "I4: the nodes after the head are the pending writes");
    __CPROVER_assert(pending <= SMA_QSIZE - 1, "at most QSIZE - 1 pending writes per location");
}

void check_thread(sma_thread_t t)
{
    sma_loc_t v;
    unsigned int last;
    unsigned int i;
    sma_ts_t max = 0;
    for (v = 1; v < SMA_LOCATIONS; v++) {
        last = shadow_last_write(v, t);
        __CPROVER_assert(sma_last_tstamp[t][v] == entry_ts(last) && sma_last_wid[t][v] == entry_wid(last),
                         "I5: last_tstamp/last_wid describe the thread's latest write");
        if (last != 0)
            __CPROVER_assert(sma_last_value[t][v] == log_value[last - 1],
                             "I5: last_value is the thread's latest value");
    }
    for (i = 0; i < STEPS; i++) {
        if (i < log_size && log_thread[i] == t && log_ts[i] > max)
            max = log_ts[i];
    }
    __CPROVER_assert(sma_max_tstamp[t] == max, "I6: max_tstamp is the thread's largest timestamp");
}

void check_invariants(void)
{
    sma_loc_t v;
    sma_thread_t t;
    __CPROVER_assert(sma_clock <= SMA_MAXCLOCK, "I7: the clock stays within its bound");
    for (v = 1; v < SMA_LOCATIONS; v++)
        check_list(v);
    for (t = 0; t < SMA_THREADS; t++)
        check_thread(t);
}

int main(void)
{
    unsigned int step;
    unsigned int op;
    sma_thread_t t;
    sma_loc_t v;
    sma_value_t value;
    sma_value_t result;
    unsigned int expected;
    sma_ts_t clock_before;
    _Bool full = 0;
    _Bool own_read = 0;
    _Bool own_newest_read = 0;
    _Bool fence_moved = 0;

    sma_init();
    for (step = 0; step < STEPS; step++) {
        op = sma_nondet_uint();
        t = sma_nondet_uint();
        v = sma_nondet_uint();
        value = sma_nondet_value();
        __CPROVER_assume(op < OP_COUNT && t < SMA_THREADS && v >= 1 && v < SMA_LOCATIONS);
        __CPROVER_assume(value >= 1 && value <= 3);
        clock_before = sma_clock;
        if (op == OP_WRITE) {
            sma_write(v, value, t, step);
            log_write(v, value, t, sma_rec_timestamp, sma_rec_write_id);
        } else if (op == OP_READ) {
            result = sma_read(v, t, step);
            expected = shadow_read(v, t);
            __CPROVER_assert(sma_rec_read_from == entry_wid(expected) && result == entry_value(v, expected),
                             "read: own pending write, else memory at the clock");
            __CPROVER_assert(sma_rec_timestamp == sma_clock, "read: records the clock");
            if (expected != shadow_memory(v))
                own_read = 1;
        } else if (op == OP_FENCE) {
            sma_fence(t, step);
            __CPROVER_assert(sma_clock >= sma_max_tstamp[t], "fence: the thread's writes have all expired");
            if (sma_clock > clock_before)
                fence_moved = 1;
        } else if (op == OP_STORE_FENCE) {
            sma_store_fence(t, step);
            shadow_sfence_bound[t] = sma_max_tstamp[t];
        } else if (op == OP_RMW) {
            result = sma_rmw(v, SMA_RMW_ADD, value, 0, t, step);
            __CPROVER_assert(sma_clock >= clock_before, "rmw: the clock never goes back");
            expected = shadow_memory(v);
            __CPROVER_assert(sma_rec_read_from == entry_wid(expected) && result == entry_value(v, expected),
                             "rmw: reads memory at the clock after draining");
            log_write(v, result + value, t, sma_rec_timestamp, sma_rec_write_id);
            __CPROVER_assert(sma_rec_timestamp == sma_clock, "rmw: writes at the clock");
        } else if (op == OP_CLOCK) {
            sma_clock_update();
        } else if (op == OP_READ_NEWEST) {
            __CPROVER_assume(!others_pending(v, t));
            result = sma_read_newest(v, t, step);
            expected = shadow_read(v, t);
            __CPROVER_assert(sma_rec_read_from == entry_wid(expected) && result == entry_value(v, expected),
                             "newest read: the value sma_read gives, own pending write, else memory");
            if (expected != shadow_memory(v))
                own_newest_read = 1;
        } else if (op == OP_WRITE_UNOBSERVED) {
            sma_write_unobserved(v, value, t, step);
            log_write(v, value, t, sma_rec_timestamp, sma_rec_write_id);
            __CPROVER_assert(sma_clock == clock_before, "unobserved write: the clock stays");
        }
        __CPROVER_assert(sma_clock >= clock_before, "I7: the clock never goes back");
        if (sma_tstamp[1][sma_next[1][sma_next[1][SMA_SENTINEL]]] > sma_clock
            && sma_tstamp[1][sma_next[1][SMA_SENTINEL]] <= sma_clock)
            full = 1;
    }
    check_invariants();
    __CPROVER_assert(!full, "reachable: a list with QSIZE - 1 pending writes");
    __CPROVER_assert(!own_read, "reachable: a read of an own pending write");
    __CPROVER_assert(!own_newest_read, "reachable: a newest read of an own pending write");
    __CPROVER_assert(!fence_moved, "reachable: a fence that moves the clock");
    __CPROVER_assert(0, "end reachable");
    return 0;
}
