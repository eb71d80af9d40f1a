/* A producer fills a record under a mutex, then publishes it with a plain
 * flag store after the unlock; the consumer checks the flag, then reads the
 * record under the same mutex. The unlock drains the producer's buffers, so
 * the record is in memory before the flag can be: correct under SC, TSO and
 * PSO. lazysma gives the record's stores the least timestamp (no other
 * thread can see them before the unlock), which makes the check cheaper.
 *
 *   lazysma verify examples/mutex_publish.c --pso
 */
#include <assert.h>
#include <pthread.h>

pthread_mutex_t lock;
int record[2];
int flag;

void *producer(void *arg) {
  pthread_mutex_lock(&lock);
  record[0] = 1;
  record[1] = 2;
  pthread_mutex_unlock(&lock);
  flag = 1;
  return 0;
}

void *consumer(void *arg) {
  if (flag == 1) {
    pthread_mutex_lock(&lock);
    assert(record[0] + record[1] == 3);
    pthread_mutex_unlock(&lock);
  }
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
