/* lazysma shared memory abstraction: what every model shares.
 *
 * Inlined by the translator after its prologue (SMA_* constants, the type
 * sma_value_t, the table sma_initial_value) and before exactly one model
 * header. It defines the API types, the read-modify-write operation codes,
 * the event record that the verify mode reads back from a CBMC trace, the
 * nondeterminism primitives, the write-id counter and the location checks.
 * Plain C: accepted by CBMC 5.12 and by `gcc -fsyntax-only`.
 */

#ifndef SMA_COMMON_H
#define SMA_COMMON_H

/* ---- CBMC primitives, declared for other C compilers ------------------- */

#ifndef __CPROVER__
void __CPROVER_assume(_Bool condition);
void __CPROVER_assert(_Bool condition, const char *description);
#endif

/* ---- prologue sanity --------------------------------------------------- */

#if !defined(SMA_THREADS) || !defined(SMA_LOCATIONS) || !defined(SMA_HEAP_BASE) \
    || !defined(SMA_HEAP_BLOCKS) || !defined(SMA_HEAP_BLOCK_SIZE) \
    || !defined(SMA_QSIZE) || !defined(SMA_MAXCLOCK) || !defined(SMA_BITWIDTH)
#error "the SMA prologue must define SMA_THREADS, SMA_LOCATIONS, SMA_HEAP_BASE, SMA_HEAP_BLOCKS, SMA_HEAP_BLOCK_SIZE, SMA_QSIZE, SMA_MAXCLOCK and SMA_BITWIDTH"
#endif
#if SMA_THREADS < 1
#error "SMA_THREADS must be at least 1 (main is slot 0)"
#endif
#if SMA_QSIZE < 1
#error "SMA_QSIZE must be at least 1"
#endif
#if SMA_HEAP_BASE + SMA_HEAP_BLOCKS * SMA_HEAP_BLOCK_SIZE > SMA_LOCATIONS
#error "SMA_LOCATIONS must cover the heap (SMA_HEAP_BASE + SMA_HEAP_BLOCKS * SMA_HEAP_BLOCK_SIZE)"
#endif

/* ---- API types ---------------------------------------------------------- */

typedef unsigned int sma_loc_t;    /* location id; 0 is null */
typedef unsigned int sma_thread_t; /* thread slot; main is 0 */
typedef unsigned int sma_stmt_t;   /* source statement id, only recorded */
typedef unsigned int sma_ts_t;     /* timestamp / memory-order position, as recorded */

/* A value as the program computes it, before it enters shared memory
 * (stores, RMW operands, allocation sizes): C's int, or long long for a
 * bit width above 32. The models narrow it to sma_value_t (sma_narrow). */
#if SMA_BITWIDTH > 32
typedef long long sma_wide_t;
#else
typedef int sma_wide_t;
#endif

/* The number of bits an unsigned counter needs to hold 0..n (n < 2^32), as
 * an integer constant expression: models use it to give CBMC narrow
 * bit-vector types (__CPROVER_bitvector) for clocks and indices. */
#define SMA_BITS_FOR(n) ((n) < 2 ? 1 : (n) < 4 ? 2 : (n) < 8 ? 3 : (n) < 16 ? 4 \
    : (n) < 32 ? 5 : (n) < 64 ? 6 : (n) < 128 ? 7 : (n) < 256 ? 8 : (n) < 65536 ? 16 : 32)

/* Write ids: 0 names a location's initial value, stores get 1, 2, ... in
 * the order they are issued. The translator defines SMA_WRITE_IDS, the
 * number of statements that issue one (each runs at most once), and the
 * ids get a bit-vector just that wide: they are stored with every buffered
 * write, and at 32 bits they were a third of the formula. */
#ifndef SMA_WRITE_IDS
#define SMA_WRITE_IDS 4294967295u
#endif
#ifdef __CPROVER__
typedef unsigned __CPROVER_bitvector[SMA_BITS_FOR(SMA_WRITE_IDS)] sma_wid_t;
#else
typedef unsigned int sma_wid_t;
#endif

/* ---- read-modify-write operation codes --------------------------------- */

#define SMA_RMW_EXCHANGE 1 /* new = operand */
#define SMA_RMW_ADD      2 /* new = old + operand */
#define SMA_RMW_SUB      3 /* new = old - operand */
#define SMA_RMW_AND      4 /* new = old & operand */
#define SMA_RMW_OR       5 /* new = old | operand */
#define SMA_RMW_XOR      6 /* new = old ^ operand */
#define SMA_RMW_CAS      7 /* new = operand if old == expected, else no write */

/* ---- event records ------------------------------------------------------ */

#define SMA_EV_WRITE        1 /* a store is issued */
#define SMA_EV_FLUSH        2 /* a buffered store reaches memory (reference models) */
#define SMA_EV_READ         3 /* a load */
#define SMA_EV_FENCE        4 /* full fence: the thread's stores have drained */
#define SMA_EV_LOCK         5 /* mutex acquired */
#define SMA_EV_UNLOCK       6 /* mutex released */
#define SMA_EV_RMW          7 /* atomic read-modify-write */
#define SMA_EV_STORE_FENCE  8 /* store-store fence */
/* 9 was a thread's end, which drained it: the join drains it now */
#define SMA_EV_MALLOC      10 /* a heap block is allocated */
#define SMA_EV_CREATE      11 /* a thread is created (loc = its slot); written by the translator */
#define SMA_EV_JOIN        12 /* a thread is joined (loc = its slot); written by the translator */
#define SMA_EV_ATOMIC_BEGIN 13 /* an atomic section begins; written by the translator */
#define SMA_EV_ATOMIC_END  14 /* an atomic section ends; written by the translator */
#define SMA_EV_LOCK_BUSY   15 /* a try-lock finds the mutex held (read_from: the lock's write) */
#define SMA_EV_FREE        16 /* the heap block at loc is freed; written by the translator */

/* Verdict-only builds. The event records, write ids and memory order only
 * feed the trace that `lazysma verify` decodes: no model assumes or asserts
 * anything on them. Compiled with SMA_VERDICT_ONLY defined (`cbmc -D
 * SMA_VERDICT_ONLY seq.c`), the models leave out their updates: the verdict
 * is the same and the formula smaller, but a counterexample shows none of
 * the SMA's events. */
#ifdef SMA_VERDICT_ONLY
#define SMA_FOR_THE_TRACE(statement)
#else
#define SMA_FOR_THE_TRACE(statement) statement
#endif

/* One event = one assignment of every field, in this order, sma_rec_kind
 * LAST: the assignment to sma_rec_kind commits the record. The decoder of
 * `lazysma verify` reads these assignments from the CBMC trace. */
sma_thread_t sma_rec_thread;
sma_loc_t sma_rec_loc;
sma_value_t sma_rec_value;
sma_ts_t sma_rec_timestamp;
unsigned int sma_rec_write_id;
unsigned int sma_rec_read_from;
sma_stmt_t sma_rec_stmt;
unsigned int sma_rec_kind;

void sma_record(unsigned int kind, sma_thread_t t, sma_loc_t loc, sma_value_t value,
                sma_ts_t timestamp, unsigned int write_id, unsigned int read_from,
                sma_stmt_t stmt)
{
    SMA_FOR_THE_TRACE(
        sma_rec_thread = t;
        sma_rec_loc = loc;
        sma_rec_value = value;
        sma_rec_timestamp = timestamp;
        sma_rec_write_id = write_id;
        sma_rec_read_from = read_from;
        sma_rec_stmt = stmt;
        sma_rec_kind = kind;)
}

/* ---- nondeterminism ----------------------------------------------------- */

/* Functions without a body: CBMC returns a fresh nondeterministic value on
 * every call. */
unsigned int sma_nondet_uint(void);
sma_value_t sma_nondet_value(void);
_Bool sma_nondet_bool(void);

/* ---- the bit width of shared memory ----------------------------------- */

/* The value the program stores, as shared memory holds it: when memory is
 * narrower than sma_wide_t (--bitwidth B below 32, or between 32 and 64) a
 * value that B bits cannot give back unchanged (outside
 * -2^(B-1) .. 2^(B-1)-1) cuts the execution off, as every bound does: a
 * narrow width can hide a bug, never invent one by wrapping a value
 * around. */
sma_value_t sma_narrow(sma_wide_t value)
{
#if SMA_BITWIDTH < 32
    __CPROVER_assume(value >= -(1 << (SMA_BITWIDTH - 1)) && value < (1 << (SMA_BITWIDTH - 1)));
#elif SMA_BITWIDTH > 32 && SMA_BITWIDTH < 64
    __CPROVER_assume(value >= -(1LL << (SMA_BITWIDTH - 1)) && value < (1LL << (SMA_BITWIDTH - 1)));
#endif
    return (sma_value_t)value;
}

/* ---- write ids ---------------------------------------------------------- */

/* The next write id to hand out; ids are unique and start at 1 (0 names the
 * initial value of a location). */
unsigned int sma_next_write_id = 1;

sma_wid_t sma_new_write_id(void)
{
    sma_wid_t id = (sma_wid_t)sma_next_write_id;
    sma_next_write_id = sma_next_write_id + 1;
    return id;
}

/* ---- heap --------------------------------------------------------------- */

#define SMA_HEAP_SCALARS (SMA_HEAP_BLOCKS * SMA_HEAP_BLOCK_SIZE)

/* Number of heap blocks handed out so far (bump allocation). */
unsigned int sma_heap_blocks_used = 0;

#if SMA_HEAP_SCALARS > 0
/* sma_heap_allocated[i]: heap location SMA_HEAP_BASE + i belongs to the
 * requested part of an allocated block. */
_Bool sma_heap_allocated[SMA_HEAP_SCALARS];
#endif

/* Whether `loc` is a location an access may use: an id in
 * 1..SMA_LOCATIONS-1 that is static memory or lies in the requested part of
 * a heap block malloc handed out. The translator checks it before an
 * access through a pointer that may leave its objects (a violation with
 * --pointer-check; without it, a cut-off the report names). */
_Bool sma_valid_loc(sma_loc_t loc)
{
    if (!(loc >= 1 && loc < SMA_LOCATIONS))
        return 0;
#if SMA_HEAP_SCALARS > 0
    if (loc >= SMA_HEAP_BASE && loc < SMA_HEAP_BASE + SMA_HEAP_SCALARS)
        return sma_heap_allocated[loc - SMA_HEAP_BASE];
#endif
    return 1;
}

#ifdef SMA_LAZY_INIT
/* Defined by the model: gives location v its initial state (its value,
 * and its list under the timestamped models). */
void sma_fresh_location(sma_loc_t v);

/* With SMA_LAZY_INIT, which the translator defines for programs of many
 * locations, sma_init sets up only the heap's locations, and a static
 * location is set up when an operation first touches it: every operation
 * checks its location first (sma_check_loc), and the state of a location
 * no operation has touched is never read. CBMC then never visits every
 * location of a large array at the start. */
_Bool sma_touched[SMA_LOCATIONS];

void sma_touch(sma_loc_t loc)
{
    if (loc < SMA_HEAP_BASE && !sma_touched[loc]) {
        sma_touched[loc] = 1;
        sma_fresh_location(loc);
    }
}
#endif

/* Cuts off an access to a location that is not sma_valid_loc, which keeps
 * the SMA's per-location arrays in bounds. The translator checks (or
 * assumes, in a way the report names) the same condition before every
 * access that could get here with an invalid location, so this assumption
 * never cuts off an execution by itself. */
void sma_check_loc(sma_loc_t loc)
{
    __CPROVER_assume(sma_valid_loc(loc));
#ifdef SMA_LAZY_INIT
    sma_touch(loc);
#endif
}

/* ---- free ---------------------------------------------------------------- */

#if SMA_HEAP_SCALARS > 0
/* sma_heap_freed[b]: heap block b was freed. A freed block is never handed
 * out again, so every later access to it is a use of freed memory. */
_Bool sma_heap_freed[SMA_HEAP_BLOCKS];
#endif

/* Whether `loc` lies in a heap block that was freed. */
_Bool sma_freed(sma_loc_t loc)
{
#if SMA_HEAP_SCALARS > 0
    return loc >= SMA_HEAP_BASE && loc < SMA_HEAP_BASE + SMA_HEAP_SCALARS
        && sma_heap_freed[(loc - SMA_HEAP_BASE) / SMA_HEAP_BLOCK_SIZE];
#else
    (void)loc;
    return 0;
#endif
}

/* Whether `loc` is the first location of a heap block that malloc handed
 * out: what `free` may be given. */
_Bool sma_heap_block_start(sma_loc_t loc)
{
#if SMA_HEAP_SCALARS > 0
    return loc >= SMA_HEAP_BASE
        && loc < SMA_HEAP_BASE + sma_heap_blocks_used * SMA_HEAP_BLOCK_SIZE
        && (loc - SMA_HEAP_BASE) % SMA_HEAP_BLOCK_SIZE == 0;
#else
    (void)loc;
    return 0;
#endif
}

/* Frees the heap block that starts at `loc` (sma_heap_block_start). The
 * allocator's state is not buffered: the block is freed for every thread
 * at once. */
void sma_free(sma_loc_t loc)
{
#if SMA_HEAP_SCALARS > 0
    sma_heap_freed[(loc - SMA_HEAP_BASE) / SMA_HEAP_BLOCK_SIZE] = 1;
#else
    (void)loc;
#endif
}

/* Takes the next heap block for `scalars` locations, or cuts the execution
 * off when the blocks are used up or the request does not fit in a block.
 * Returns the first location id of the block. */
sma_loc_t sma_heap_take_block(sma_wide_t scalars)
{
    sma_loc_t base = SMA_HEAP_BASE + sma_heap_blocks_used * SMA_HEAP_BLOCK_SIZE;
#if SMA_HEAP_SCALARS > 0
    unsigned int i;
    __CPROVER_assume(sma_heap_blocks_used < SMA_HEAP_BLOCKS);
    __CPROVER_assume(scalars >= 0 && scalars <= SMA_HEAP_BLOCK_SIZE);
    for (i = 0; i < SMA_HEAP_BLOCK_SIZE; i++) {
        if (i < (unsigned int)scalars)
            sma_heap_allocated[base - SMA_HEAP_BASE + i] = 1;
    }
    sma_heap_blocks_used = sma_heap_blocks_used + 1;
#else
    (void)scalars;
    __CPROVER_assume(0); /* no heap */
#endif
    return base;
}

/* The value location v holds when the program starts: the prologue's
 * initial value, or a nondeterministic one for a heap location (malloc
 * gives it its value later). */
/* The prologue's table of initial values; a prologue with more locations
 * than one C initialiser list may hold for CBMC defines this to read its
 * rows instead. */
#ifndef SMA_INITIAL_VALUE
#define SMA_INITIAL_VALUE(v) sma_initial_value[v]
#endif

sma_value_t sma_start_value(sma_loc_t v)
{
    sma_value_t value;
    if (v < SMA_HEAP_BASE)
        value = SMA_INITIAL_VALUE(v);
    else
        value = sma_nondet_value();
    return value;
}

/* The value a heap location holds when its block is allocated. */
sma_value_t sma_heap_initial_value(int zeroed)
{
    sma_value_t value = sma_nondet_value();
    if (zeroed)
        value = 0;
    return value;
}

/* Defined by each model: gives heap location `loc` the value it holds when
 * its block is allocated. */
void sma_heap_set_initial(sma_loc_t loc, sma_value_t value);

/* sma_malloc of every model: takes the next heap block, gives each of its
 * locations its initial value (sma_heap_set_initial) and records the
 * allocation with `timestamp`, the model's current time. Returns the first
 * location id of the block. */
sma_loc_t sma_heap_malloc(sma_wide_t scalars, int zeroed, sma_thread_t t, sma_stmt_t stmt,
                          sma_ts_t timestamp)
{
    sma_loc_t base = sma_heap_take_block(scalars);
#if SMA_HEAP_SCALARS > 0
    sma_loc_t i;
    for (i = 0; i < SMA_HEAP_BLOCK_SIZE; i++)
        sma_heap_set_initial(base + i, sma_heap_initial_value(zeroed));
#else
    (void)zeroed;
#endif
    sma_record(SMA_EV_MALLOC, t, base, (sma_value_t)scalars, timestamp, 0, 0, stmt);
    return base;
}

/* ---- read-modify-write -------------------------------------------------- */

/* Whether an RMW of `op` with these arguments writes at all (only a failing
 * CAS does not). */
_Bool sma_rmw_writes(int op, sma_value_t old, sma_wide_t expected)
{
    return op != SMA_RMW_CAS || (sma_wide_t)old == expected;
}

/* The value an RMW writes over `old`, computed as the program would and
 * then narrowed (sma_narrow). */
sma_value_t sma_rmw_new_value(int op, sma_value_t old, sma_wide_t operand)
{
    sma_wide_t result = operand; /* SMA_RMW_EXCHANGE, SMA_RMW_CAS */
    if (op == SMA_RMW_ADD)
        result = (sma_wide_t)old + operand;
    else if (op == SMA_RMW_SUB)
        result = (sma_wide_t)old - operand;
    else if (op == SMA_RMW_AND)
        result = (sma_wide_t)old & operand;
    else if (op == SMA_RMW_OR)
        result = (sma_wide_t)old | operand;
    else if (op == SMA_RMW_XOR)
        result = (sma_wide_t)old ^ operand;
    return sma_narrow(result);
}

/* The value a mutex location holds when taken; 0 means free. */
#define SMA_MUTEX_TAKEN 1
#define SMA_MUTEX_FREE 0

#endif /* SMA_COMMON_H */
