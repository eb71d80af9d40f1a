/* A seqlock guarding a pair of doubles: the writer makes the sequence
 * number odd, writes the pair, and makes it even again; a reader that saw
 * the same even number before and after its reads has a consistent pair.
 * The writer's data stores must not pass the store that makes the number
 * odd. TSO keeps stores in order; PSO may let them reach memory first, so
 * a reader sees a torn pair unless a release fence orders them.
 *
 *   lazysma verify examples/seqlock.c --tso              # no violation
 *   lazysma verify examples/seqlock.c --pso              # violation
 *   lazysma verify examples/seqlock.c --pso -D FENCED    # no violation
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_uint sequence;
double x, y; /* always x == 2 * y when the sequence number is even */

void *writer(void *arg) {
  unsigned s = atomic_load_explicit(&sequence, memory_order_relaxed);
  atomic_store_explicit(&sequence, s + 1, memory_order_relaxed);
#ifdef FENCED
  atomic_thread_fence(memory_order_release);
#endif
  x = 3.0;
  y = 1.5;
  atomic_store_explicit(&sequence, s + 2, memory_order_release);
  return 0;
}

void *reader(void *arg) {
  unsigned before = atomic_load_explicit(&sequence, memory_order_acquire);
  double a = x, b = y;
  atomic_thread_fence(memory_order_acquire);
  unsigned after = atomic_load_explicit(&sequence, memory_order_relaxed);
  if (before == after && before % 2 == 0)
    assert(a == 2 * b);
  return 0;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r, 0);
  return 0;
}
