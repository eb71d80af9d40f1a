/* The prologue the translator would write, for the hand-written harnesses
 * of this directory: each harness may define any SMA_* constant (and
 * HARNESS_INITIAL_VALUES) before including this file; the rest get small
 * defaults. Then common.h and the model chosen with -DSMA_MODEL_<NAME>. */
#ifndef SMA_THREADS
#define SMA_THREADS 3
#endif
#ifndef SMA_LOCATIONS
#define SMA_LOCATIONS 4
#endif
#ifndef SMA_HEAP_BASE
#define SMA_HEAP_BASE SMA_LOCATIONS
#endif
#ifndef SMA_HEAP_BLOCKS
#define SMA_HEAP_BLOCKS 0
#endif
#ifndef SMA_HEAP_BLOCK_SIZE
#define SMA_HEAP_BLOCK_SIZE 0
#endif
#ifndef SMA_QSIZE
#define SMA_QSIZE 2
#endif
#ifndef SMA_MAXCLOCK
#define SMA_MAXCLOCK 3
#endif
#ifndef SMA_BITWIDTH
#define SMA_BITWIDTH 32
#endif
#if defined(HARNESS_VALUE_BITS) && defined(__CPROVER__)
typedef signed __CPROVER_bitvector[HARNESS_VALUE_BITS] sma_value_t;
#else
typedef int sma_value_t;
#endif
#ifndef HARNESS_INITIAL_VALUES
#define HARNESS_INITIAL_VALUES { 0 }
#endif
static const sma_value_t sma_initial_value[SMA_LOCATIONS] = HARNESS_INITIAL_VALUES;
#include "model.h"
