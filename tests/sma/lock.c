/* Mutexes, run in the sequential order written below. */
#define SMA_LOCATIONS 4
#include "prologue.h"

#define M 1
#define X 2
#define Y 3

int main(void)
{
    sma_value_t r;
    sma_init();

    /* a critical section's stores are visible to the next owner */
    sma_lock(M, 1, 0);
    sma_write(X, 1, 1, 1);
    sma_write(Y, 1, 1, 2);
    sma_unlock(M, 1, 3);
    sma_lock(M, 2, 4);
    r = sma_read(X, 2, 5);
    __CPROVER_assert(r == 1 && sma_read(Y, 2, 6) == 1, "always: unlock publishes the critical section");
    sma_unlock(M, 2, 7);

    /* a lock waits for the owner to release */
    sma_lock(M, 1, 8);
#ifdef LOCK_TWICE
    sma_lock(M, 2, 9);
    __CPROVER_assert(0, "never: a taken mutex cannot be locked");
#endif
    sma_unlock(M, 1, 10);
    sma_lock(M, 2, 11);
    __CPROVER_assert(0, "end reachable");
    return 0;
}
