/* lazysma's <stdatomic.h>: atomic types as plain integer typedefs and the
 * generic functions as unprototyped declarations, which lazysma recognises
 * by name (GCC's own header expands them into statement expressions). */
#ifndef LAZYSMA_STDATOMIC_H
#define LAZYSMA_STDATOMIC_H

#include <stddef.h>
#include <stdint.h>

typedef enum memory_order {
  memory_order_relaxed = 0,
  memory_order_consume = 1,
  memory_order_acquire = 2,
  memory_order_release = 3,
  memory_order_acq_rel = 4,
  memory_order_seq_cst = 5
} memory_order;

typedef _Bool atomic_bool;
typedef char atomic_char;
typedef signed char atomic_schar;
typedef unsigned char atomic_uchar;
typedef short atomic_short;
typedef unsigned short atomic_ushort;
typedef int atomic_int;
typedef unsigned int atomic_uint;
typedef long atomic_long;
typedef unsigned long atomic_ulong;
typedef long long atomic_llong;
typedef unsigned long long atomic_ullong;
typedef long atomic_intptr_t;
typedef unsigned long atomic_uintptr_t;
typedef unsigned long atomic_size_t;
typedef long atomic_ptrdiff_t;
typedef long atomic_intmax_t;
typedef unsigned long atomic_uintmax_t;
typedef int atomic_flag;

#define ATOMIC_VAR_INIT(value) (value)
#define ATOMIC_FLAG_INIT 0
#define kill_dependency(y) (y)

int atomic_load();
int atomic_load_explicit();
void atomic_store();
void atomic_store_explicit();
void atomic_init();
int atomic_exchange();
int atomic_exchange_explicit();
_Bool atomic_compare_exchange_strong();
_Bool atomic_compare_exchange_strong_explicit();
_Bool atomic_compare_exchange_weak();
_Bool atomic_compare_exchange_weak_explicit();
int atomic_fetch_add();
int atomic_fetch_add_explicit();
int atomic_fetch_sub();
int atomic_fetch_sub_explicit();
int atomic_fetch_or();
int atomic_fetch_or_explicit();
int atomic_fetch_xor();
int atomic_fetch_xor_explicit();
int atomic_fetch_and();
int atomic_fetch_and_explicit();
_Bool atomic_flag_test_and_set();
_Bool atomic_flag_test_and_set_explicit();
void atomic_flag_clear();
void atomic_flag_clear_explicit();
void atomic_thread_fence();
void atomic_signal_fence();
_Bool atomic_is_lock_free();

#endif
