/* Message passing (MP): the producer writes the data, then raises a flag.
 * TSO keeps the two stores in order, so a consumer that sees the flag also
 * sees the data. PSO may let the flag reach memory first.
 *
 *   lazysma verify examples/message_passing.c --tso   # no violation
 *   lazysma verify examples/message_passing.c --pso   # violation
 */
#include <assert.h>
#include <pthread.h>

int data, ready;

void *producer(void *arg) {
  data = 42;
  ready = 1;
  return 0;
}

void *consumer(void *arg) {
  if (ready == 1)
    assert(data == 42);
  return 0;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
