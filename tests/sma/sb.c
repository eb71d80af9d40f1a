/* Store buffering (SB): t1: x = 1; r1 = y;   t2: y = 1; r2 = x;
 * run in this sequential order. r1 == 0 && r2 == 0 needs t1's store to x
 * to be still buffered when t2 reads x: reachable under TSO and PSO, not
 * under SC. */
#define SMA_THREADS 3
#define SMA_LOCATIONS 3
#define SMA_HEAP_BASE 3
#define SMA_HEAP_BLOCKS 0
#define SMA_HEAP_BLOCK_SIZE 0
#ifndef SMA_QSIZE
#define SMA_QSIZE 2
#endif
#ifndef SMA_MAXCLOCK
#define SMA_MAXCLOCK 3
#endif
#define SMA_BITWIDTH 32
typedef int sma_value_t;
static const sma_value_t sma_initial_value[SMA_LOCATIONS] = { 0, 0, 0 };
#include "model.h"

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
    return 0;
}
