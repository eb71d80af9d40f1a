/* Heap blocks and the location checks. Without CUT the run reaches its end;
 * with -DCUT=n one access or allocation beyond the bounds is made, which
 * must cut the execution off (never report it): "end reachable" then holds. */
#define SMA_LOCATIONS 7
#define SMA_HEAP_BASE 3
#define SMA_HEAP_BLOCKS 2
#define SMA_HEAP_BLOCK_SIZE 2
#include "prologue.h"

int main(void)
{
    sma_loc_t p, q;
    sma_value_t v;
    sma_init();

    p = sma_malloc(2, 1, 1, 0);
    __CPROVER_assert(p == SMA_HEAP_BASE, "always: the first block starts at the heap base");
    __CPROVER_assert(sma_read(p, 1, 1) == 0 && sma_read(p + 1, 2, 2) == 0, "always: a zeroed block reads 0");
    sma_write(p + 1, 5, 1, 3);
    __CPROVER_assert(sma_read(p + 1, 1, 4) == 5, "always: a thread reads its own heap store");

    q = sma_malloc(1, 0, 2, 5);
    __CPROVER_assert(q == SMA_HEAP_BASE + SMA_HEAP_BLOCK_SIZE, "always: the second block follows the first");
    v = sma_read(q, 2, 6);
    __CPROVER_assert(v == 0, "reachable: a block that is not zeroed may hold any value");
    __CPROVER_assert(v != 0, "reachable: a block that is not zeroed may hold 0");

#if CUT == 1
    sma_read(q + 1, 2, 7);           /* past the requested size */
#elif CUT == 2
    sma_malloc(1, 0, 1, 7);          /* a third block */
#elif CUT == 3
    sma_read(0, 1, 7);               /* the null location */
#elif CUT == 4
    sma_write(SMA_LOCATIONS, 1, 1, 7); /* out of range */
#elif CUT == 5
    sma_rmw(q + 1, SMA_RMW_ADD, 1, 0, 1, 7); /* past the requested size */
#endif
    __CPROVER_assert(0, "end reachable");
    return 0;
}
