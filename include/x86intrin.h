/* lazysma's x86 intrinsics headers (<x86intrin.h>, <immintrin.h>,
 * <emmintrin.h>, <xmmintrin.h>): the fences and the spin-wait hint that
 * lock-free code takes from them, as the instructions lazysma understands
 * (GCC's own headers declare vector types of every instruction set, which
 * the parser cannot read). */
#ifndef LAZYSMA_X86INTRIN_H
#define LAZYSMA_X86INTRIN_H

#define _mm_mfence() __asm__ __volatile__("mfence" ::: "memory")
#define _mm_sfence() __asm__ __volatile__("sfence" ::: "memory")
#define _mm_lfence() __asm__ __volatile__("lfence" ::: "memory")
#define _mm_pause() __asm__ __volatile__("pause")

#endif
