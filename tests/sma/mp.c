/* Message passing (MP), run in this sequential order:
 *   thread 1: x = 1; [store-store fence;] y = 1;
 *   thread 2: r1 = y; r2 = x;
 * r1 == 1 && r2 == 0 needs the store to y to reach memory before the store
 * to x: reachable under PSO only, and not with the store-store fence
 * (-DWITH_STORE_FENCE). */
#include "prologue.h"

#define X 1
#define Y 2

int main(void)
{
    sma_value_t r1, r2;
    sma_init();
    sma_write(X, 1, 1, 0);
#ifdef WITH_STORE_FENCE
    sma_store_fence(1, 1);
#endif
    sma_write(Y, 1, 1, 2);
    r1 = sma_read(Y, 2, 3);
    r2 = sma_read(X, 2, 4);
    __CPROVER_assert(!(r1 == 1 && r2 == 0), "mp: r1 == 1 && r2 == 0");
    __CPROVER_assert(!(r1 == 1 && r2 == 1), "sc: r1 == 1 && r2 == 1");
    __CPROVER_assert(!(r1 == 0 && r2 == 0), "sc: r1 == 0 && r2 == 0");
    __CPROVER_assert(0, "end reachable");
    return 0;
}
