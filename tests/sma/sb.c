/* Store buffering (SB), run in this sequential order:
 *   thread 1: x = 1; [fence;] r1 = y;    thread 2: y = 1; [fence;] r2 = x;
 * r1 == 0 && r2 == 0 needs thread 1's store to x to be still buffered when
 * thread 2 reads x: reachable under TSO and PSO, not under SC, and not with
 * the fences (-DWITH_FENCE). */
#include "prologue.h"

#define X 1
#define Y 2

int main(void)
{
    sma_value_t r1, r2;
    sma_init();
    sma_write(X, 1, 1, 0);
#ifdef WITH_FENCE
    sma_fence(1, 1);
#endif
    r1 = sma_read(Y, 1, 2);
    sma_write(Y, 1, 2, 3);
#ifdef WITH_FENCE
    sma_fence(2, 4);
#endif
    r2 = sma_read(X, 2, 5);
    __CPROVER_assert(!(r1 == 0 && r2 == 0), "sb: r1 == 0 && r2 == 0");
    __CPROVER_assert(!(r1 == 0 && r2 == 1), "sc: r1 == 0 && r2 == 1");
    __CPROVER_assert(0, "end reachable");
    return 0;
}
