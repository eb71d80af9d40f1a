/* A request larger than a heap block is cut off. */
#define SMA_LOCATIONS 5
#define SMA_HEAP_BASE 3
#define SMA_HEAP_BLOCKS 1
#define SMA_HEAP_BLOCK_SIZE 2
#include "prologue.h"

int main(void)
{
    sma_init();
    sma_malloc(3, 1, 1, 0);
    __CPROVER_assert(0, "end reachable");
    return 0;
}
