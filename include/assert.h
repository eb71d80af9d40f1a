/* lazysma's <assert.h>: `assert` becomes a call lazysma recognises, instead
 * of glibc's expansion into `__assert_fail` inside a statement expression. */
#undef assert
#ifdef NDEBUG
#define assert(expr) ((void)0)
#else
void __VERIFIER_assert(int);
#define assert(expr) __VERIFIER_assert(!!(expr))
#endif
#ifndef static_assert
#define static_assert _Static_assert
#endif
