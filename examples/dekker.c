/* Dekker's mutual exclusion without fences: correct under sequential
 * consistency, broken under TSO and PSO because each thread's store to its
 * own flag may still be buffered when it reads the other's flag.
 * Uncomment the fences to repair it.
 *
 *   lazysma verify examples/dekker.c --tso --unwind 1
 */
#include <assert.h>
#include <pthread.h>

int flag0, flag1, turn;
int in_critical;

void *thread0(void *arg) {
  flag0 = 1;
  /* __sync_synchronize(); */
  while (flag1 == 1) {
    if (turn != 0) {
      flag0 = 0;
      while (turn != 0) {}
      flag0 = 1;
      /* __sync_synchronize(); */
    }
  }
  in_critical++;
  assert(in_critical == 1);
  in_critical--;
  turn = 1;
  flag0 = 0;
  return 0;
}

void *thread1(void *arg) {
  flag1 = 1;
  /* __sync_synchronize(); */
  while (flag0 == 1) {
    if (turn != 1) {
      flag1 = 0;
      while (turn != 1) {}
      flag1 = 1;
      /* __sync_synchronize(); */
    }
  }
  in_critical++;
  assert(in_critical == 1);
  in_critical--;
  turn = 0;
  flag1 = 0;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, thread0, 0);
  pthread_create(&b, 0, thread1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
