/* A test-and-set spinlock built on a read-modify-write protects a counter.
 * The locked exchange drains the store buffer, so this is correct under SC,
 * TSO and PSO.
 *
 *   lazysma verify examples/spinlock.c --pso
 */
#include <assert.h>
#include <pthread.h>

int lock_word;
int counter;

static void acquire(void) {
  while (__sync_lock_test_and_set(&lock_word, 1) != 0) {}
}

static void release(void) {
  __sync_synchronize();
  lock_word = 0;
}

void *worker(void *arg) {
  acquire();
  counter = counter + 1;
  release();
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 2);
  return 0;
}
