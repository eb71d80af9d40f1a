/* Read-modify-write, run in the sequential order written below. Properties
 * named "always: ..." hold under every model; "weak: ..." properties fail
 * (the outcome is reachable) under TSO and PSO and hold under SC. */
#define SMA_LOCATIONS 6
/* eTSO: the CAS on z writes while z has a pending store: 3 nodes needed */
#define SMA_QSIZE 3
/* reference models: every behaviour checked here needs at most two flushes
 * right before one operation (the full default makes the run 4x slower) */
#define SMA_REF_FLUSH_ROUNDS 2
#include "prologue.h"

#define X 1
#define Y 2
#define Z 3
#define A 4
#define B 5

int main(void)
{
    sma_value_t o1, o2, old, seen, final_z, r1, r2;
    sma_init();

    /* two increments never lose an update */
    o1 = sma_rmw(X, SMA_RMW_ADD, 1, 0, 1, 0);
    o2 = sma_rmw(X, SMA_RMW_ADD, 1, 0, 2, 1);
    __CPROVER_assert(o1 == 0 && o2 == 1, "always: fetch-add returns the old values 0 then 1");
    __CPROVER_assert(sma_read(X, 0, 2) == 2, "always: no lost update");
    /* a failing CAS returns the current value and writes nothing */
    old = sma_rmw(X, SMA_RMW_CAS, 9, 0, 1, 3);
    __CPROVER_assert(old == 2 && sma_read(X, 2, 4) == 2, "always: failing CAS writes nothing");

    /* an RMW drains the thread's own buffer first */
    sma_write(Y, 5, 1, 5);
    old = sma_rmw(Y, SMA_RMW_ADD, 1, 0, 1, 6);
    seen = sma_read(Y, 2, 7);
    __CPROVER_assert(old == 5 && seen == 6, "always: RMW drains its own stores and is visible at once");

    /* an RMW may run before another thread's buffered store reaches memory;
     * that store then overwrites the RMW's */
    sma_write(Z, 1, 2, 8);
    old = sma_rmw(Z, SMA_RMW_CAS, 7, 0, 1, 9);
    sma_join(2, 0, 10);
    final_z = sma_read(Z, 0, 11);
    __CPROVER_assert(old != 0, "weak: CAS reads 0 past a buffered store");
    __CPROVER_assert(!(old == 0 && final_z != 1), "always: a store buffered before a CAS reaches memory after it");
    __CPROVER_assert(!(old == 1 && final_z != 1), "always: CAS after the store fails");

    /* SB with exchanges instead of stores: forbidden everywhere */
    sma_rmw(A, SMA_RMW_EXCHANGE, 1, 0, 1, 12);
    r1 = sma_read(B, 1, 13);
    sma_rmw(B, SMA_RMW_EXCHANGE, 1, 0, 2, 14);
    r2 = sma_read(A, 2, 15);
    __CPROVER_assert(!(r1 == 0 && r2 == 0), "always: SB with exchanges is forbidden");

    /* the other operations */
    sma_rmw(A, SMA_RMW_SUB, 3, 0, 1, 16);  /* 1 - 3 = -2 */
    sma_rmw(A, SMA_RMW_AND, 6, 0, 1, 17);  /* -2 & 6 = 6 */
    sma_rmw(A, SMA_RMW_OR, 9, 0, 2, 18);   /* 6 | 9 = 15 */
    sma_rmw(A, SMA_RMW_XOR, 5, 0, 2, 19);  /* 15 ^ 5 = 10 */
    old = sma_rmw(A, SMA_RMW_EXCHANGE, 4, 0, 1, 20);
    __CPROVER_assert(old == 10 && sma_read(A, 0, 21) == 4, "always: sub, and, or, xor, exchange compute their values");

    __CPROVER_assert(0, "end reachable");
    return 0;
}
