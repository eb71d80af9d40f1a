/* lazysma's <threads.h>: C11 threads as the pthreads objects lazysma
 * models (a thrd_t is a pthread_t, an mtx_t a mutex, a cnd_t a condition
 * variable, a once_flag a pthread_once_t, a tss_t a key). The calls are
 * understood by name; their declarations are here for the program. */
#ifndef LAZYSMA_THREADS_H
#define LAZYSMA_THREADS_H

#include <pthread.h>
#include <time.h>

typedef pthread_t thrd_t;
typedef pthread_mutex_t mtx_t;
typedef pthread_cond_t cnd_t;
typedef pthread_once_t once_flag;
typedef pthread_key_t tss_t;
typedef int (*thrd_start_t)(void *);
typedef void (*tss_dtor_t)(void *);

enum { thrd_success = 0, thrd_busy = 1, thrd_error = 2, thrd_nomem = 3, thrd_timedout = 4 };
enum { mtx_plain = 0, mtx_recursive = 1, mtx_timed = 2 };

#define ONCE_FLAG_INIT PTHREAD_ONCE_INIT
#define TSS_DTOR_ITERATIONS 4
#ifndef thread_local
#define thread_local _Thread_local
#endif

int thrd_create(thrd_t *thread, thrd_start_t start, void *argument);
int thrd_join(thrd_t thread, int *result);
void thrd_exit(int result);
int thrd_detach(thrd_t thread);
thrd_t thrd_current(void);
int thrd_equal(thrd_t first, thrd_t second);
void thrd_yield(void);
int thrd_sleep(const struct timespec *duration, struct timespec *remaining);
int mtx_init(mtx_t *mutex, int type);
int mtx_lock(mtx_t *mutex);
int mtx_trylock(mtx_t *mutex);
int mtx_timedlock(mtx_t *mutex, const struct timespec *deadline);
int mtx_unlock(mtx_t *mutex);
void mtx_destroy(mtx_t *mutex);
int cnd_init(cnd_t *condition);
int cnd_signal(cnd_t *condition);
int cnd_broadcast(cnd_t *condition);
int cnd_wait(cnd_t *condition, mtx_t *mutex);
int cnd_timedwait(cnd_t *condition, mtx_t *mutex, const struct timespec *deadline);
void cnd_destroy(cnd_t *condition);
void call_once(once_flag *flag, void (*routine)(void));
int tss_create(tss_t *key, tss_dtor_t destructor);
void *tss_get(tss_t key);
int tss_set(tss_t key, void *value);
void tss_delete(tss_t key);

#endif
