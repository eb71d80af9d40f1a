/* lazysma shared memory abstraction: what the store buffers of the
 * reference models tso_ref.h and pso_ref.h share: the slot type, the
 * number of passes of a flush phase and the loop that empties a buffer.
 * The explicit memory and the operations on it are in memory.h. Needs
 * common.h and memory.h first.
 */

#ifndef SMA_BUFFERS_H
#define SMA_BUFFERS_H

/* Buffer slots and fill take values 0..SMA_QSIZE: CBMC gets
 * bit-vectors just wide enough. */
#ifdef __CPROVER__
typedef unsigned __CPROVER_bitvector[SMA_BITS_FOR(SMA_QSIZE)] sma_slot_t;
#else
typedef unsigned int sma_slot_t;
#endif

#ifndef SMA_REF_FLUSH_ROUNDS
#define SMA_REF_FLUSH_ROUNDS (SMA_QSIZE * SMA_THREADS)
#endif

/* Empties one buffer of thread t inside sma_drain (which declares `k`):
 * `count` is its fill, `flush` moves its oldest store to memory, `most` is
 * the most stores it can hold. */
#define SMA_REF_EMPTY(count, flush, most)                            \
    for (k = 0; k < (most); k++) {                                   \
        if ((count) > 0)                                             \
            flush;                                                   \
    }

#endif /* SMA_BUFFERS_H */
