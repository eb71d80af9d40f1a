/* lazysma's <stdatomic.h>: the atomic types as C11 defines them, `_Atomic`
 * typedefs (a plain read or `=` of an `atomic_int` is a seq_cst access),
 * and the generic functions as unprototyped declarations, which lazysma
 * recognises by name (GCC's own header expands them into statement
 * expressions). `atomic_flag` is reached only through its functions. */
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

typedef _Atomic _Bool atomic_bool;
typedef _Atomic char atomic_char;
typedef _Atomic signed char atomic_schar;
typedef _Atomic unsigned char atomic_uchar;
typedef _Atomic short atomic_short;
typedef _Atomic unsigned short atomic_ushort;
typedef _Atomic int atomic_int;
typedef _Atomic unsigned int atomic_uint;
typedef _Atomic long atomic_long;
typedef _Atomic unsigned long atomic_ulong;
typedef _Atomic long long atomic_llong;
typedef _Atomic unsigned long long atomic_ullong;
typedef _Atomic uint_least16_t atomic_char16_t;
typedef _Atomic uint_least32_t atomic_char32_t;
typedef _Atomic wchar_t atomic_wchar_t;
typedef _Atomic int_least8_t atomic_int_least8_t;
typedef _Atomic uint_least8_t atomic_uint_least8_t;
typedef _Atomic int_fast8_t atomic_int_fast8_t;
typedef _Atomic uint_fast8_t atomic_uint_fast8_t;
typedef _Atomic int_least16_t atomic_int_least16_t;
typedef _Atomic uint_least16_t atomic_uint_least16_t;
typedef _Atomic int_fast16_t atomic_int_fast16_t;
typedef _Atomic uint_fast16_t atomic_uint_fast16_t;
typedef _Atomic int_least32_t atomic_int_least32_t;
typedef _Atomic uint_least32_t atomic_uint_least32_t;
typedef _Atomic int_fast32_t atomic_int_fast32_t;
typedef _Atomic uint_fast32_t atomic_uint_fast32_t;
typedef _Atomic int_least64_t atomic_int_least64_t;
typedef _Atomic uint_least64_t atomic_uint_least64_t;
typedef _Atomic int_fast64_t atomic_int_fast64_t;
typedef _Atomic uint_fast64_t atomic_uint_fast64_t;
typedef _Atomic intptr_t atomic_intptr_t;
typedef _Atomic uintptr_t atomic_uintptr_t;
typedef _Atomic size_t atomic_size_t;
typedef _Atomic ptrdiff_t atomic_ptrdiff_t;
typedef _Atomic intmax_t atomic_intmax_t;
typedef _Atomic uintmax_t atomic_uintmax_t;
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
