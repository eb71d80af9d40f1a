/* A harness of 176,832 reads-from classes under SC (--unwind 2), for
 * scripts/bench-jobs.py: three threads write and read two shared
 * variables in a loop (the third once), a fourth reads what the others
 * leave in z. Safe: every value is non-negative. Its whole reads-from
 * tree takes about a minute on one worker. */
#include <assert.h>
#include <pthread.h>

int x, y, z;

void *writer_reader(void *arg) {
  int me = (int)(long)arg, seen = 0;
  for (int i = 0; i < (me == 3 ? 1 : 2); i++) {
    x = me * 10 + i;
    seen += y;
    y = me * 10 + i;
    seen += x;
  }
  z = seen;
  return 0;
}

void *observer(void *arg) {
  int a = z;
  assert(a >= 0);
  return 0;
}

int main(void) {
  pthread_t a, b, c, d;
  pthread_create(&a, 0, writer_reader, (void *)1);
  pthread_create(&b, 0, writer_reader, (void *)2);
  pthread_create(&c, 0, writer_reader, (void *)3);
  pthread_create(&d, 0, observer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  pthread_join(d, 0);
  assert(z >= 0);
  return 0;
}
