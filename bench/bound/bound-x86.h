/* Shared by the per-ISA bound loop files (bound-<isa>.c) and bound.c. */
#ifndef Q8NN_BENCH_BOUND_X86_H
#define Q8NN_BENCH_BOUND_X86_H

#include <stdint.h>

#include "bound/bound.h"

/* Results land here so that no loop is optimised away. */
extern volatile int32_t q8nn_bound_sink;
extern int8_t q8nn_bound_out[128];

/* Keeps the compiler from treating v as loop-invariant (no instruction emitted). */
#define Q8NN_BOUND_OPAQUE(v) __asm__ volatile("" : "+x"(v))

/* Body of a dot loop: NACC accumulators of type VT (set1 = its _set1_epi32), each iteration
   acc[j] = STEP(acc[j], va, vb) with va opaque (one dot instruction per accumulator), then the
   accumulators XORed together into `out` (a VT). */
#define Q8NN_BOUND_DOT_LOOP(VT, NACC, set1, xor_, STEP, va, vb, iters, out) \
  do {                                                                      \
    VT acc[NACC];                                                           \
    for (int j = 0; j < (NACC); j++) acc[j] = set1(j);                      \
    for (uint64_t i = 0; i < (iters); i++) {                                \
      _Pragma("GCC unroll 24") for (int j = 0; j < (NACC); j++) {           \
        Q8NN_BOUND_OPAQUE(va);                                              \
        acc[j] = STEP(acc[j], va, vb);                                      \
      }                                                                     \
    }                                                                       \
    (out) = acc[0];                                                         \
    for (int j = 1; j < (NACC); j++) (out) = xor_((out), acc[j]);           \
  } while (0)

uint64_t q8nn_bound_dot_avx512vnni(uint64_t iters);
uint64_t q8nn_bound_epilogue_avx512vnni(int rounding, uint64_t iters);
uint64_t q8nn_bound_dot_avxvnni(uint64_t iters);
uint64_t q8nn_bound_dot_avx2(uint64_t iters);
uint64_t q8nn_bound_epilogue_avx2(int rounding, uint64_t iters);

#endif
