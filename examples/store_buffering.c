/* Store buffering (SB): each thread stores to its own flag, then loads the
 * other's. Under sequential consistency at least one thread sees the other's
 * store; under TSO (x86) both stores can still sit in store buffers, so both
 * loads may return 0 and the assertion fails.
 *
 *   lazysma verify examples/store_buffering.c --sc    # no violation
 *   lazysma verify examples/store_buffering.c --tso   # violation, explained
 */
#include <assert.h>
#include <pthread.h>

int x, y;
int r1, r2;

void *writer_x(void *arg) {
  x = 1;
  r1 = y;
  return 0;
}

void *writer_y(void *arg) {
  y = 1;
  r2 = x;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer_x, 0);
  pthread_create(&b, 0, writer_y, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(r1 == 1 || r2 == 1);
  return 0;
}
