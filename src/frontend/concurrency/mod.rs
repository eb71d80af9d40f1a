//! Threads and what they share memory with: pthreads and C11 threads,
//! thread-specific data, synchronisation objects (try-locks, condition
//! variables, semaphores, read-write locks, barriers, `pthread_once`),
//! atomics with their fences, and inline assembly.

pub(super) mod asm_operands;
pub(super) mod assembly;
pub(super) mod atomics;
pub(super) mod c11_threads;
pub(super) mod sync_objects;
pub(super) mod thread_calls;
pub(super) mod thread_specific;
