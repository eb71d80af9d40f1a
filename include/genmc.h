/* lazysma's <genmc.h>: the annotations of GenMC's test programs, read
 * as plain C. Loop and spin annotations only help GenMC prune its search:
 * here they do nothing, which explores more executions, never fewer. An
 * annotated statement or read is the statement or read itself. An optional
 * block runs or not, nondeterministically, and the executions that run it
 * end after it. Hazard pointers protect nothing and retire nothing: a
 * retired object is never freed, so every read of it stays valid. */
#ifndef LAZYSMA_GENMC_H
#define LAZYSMA_GENMC_H

#include <stdbool.h>

void __VERIFIER_assume(int condition);
int __VERIFIER_nondet_int(void);

#define __VERIFIER_loop_begin() ((void)0)
#define __VERIFIER_spin_start() ((void)0)
#define __VERIFIER_spin_end(condition) ((void)(condition))

#define __VERIFIER_local_write(statement) do { statement; } while (0)
#define __VERIFIER_final_write(statement) do { statement; } while (0)
#define __VERIFIER_helped_CAS(statement) do { statement; } while (0)
#define __VERIFIER_helping_CAS(statement) do { statement; } while (0)
#define __VERIFIER_speculative_read(value) (value)
#define __VERIFIER_confirming_read(value) (value)
#define __VERIFIER_confirming_CAS(value) (value)
#define __VERIFIER_final_CAS(value) (value)

#define __VERIFIER_optional(statement)              \
	do {                                        \
		if (__VERIFIER_nondet_int()) {      \
			statement;                  \
			__VERIFIER_assume(0);       \
		}                                   \
	} while (0)

typedef int __VERIFIER_hp_t;
#define __VERIFIER_hp_alloc() ((__VERIFIER_hp_t *)0)
#define __VERIFIER_hp_protect(hp, pointer) \
	__atomic_load_n((void **)(pointer), __ATOMIC_ACQUIRE)
#define __VERIFIER_hp_clear(hp) ((void)(hp))
#define __VERIFIER_hp_free(hp) ((void)(hp))
#define __VERIFIER_hp_retire(pointer) ((void)(pointer))

#endif
