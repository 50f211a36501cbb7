/* Shared by the per-ISA bound loop files (bound-<isa>.c) and bound.c. */
#ifndef Q8NN_BENCH_BOUND_X86_H
#define Q8NN_BENCH_BOUND_X86_H

#include <stdint.h>

#include "bound/bound.h"

/* Results land here so that no loop is optimised away. */
extern volatile int32_t q8nn_bound_sink;
extern int8_t q8nn_bound_out[128];

/* The dot loops are written in assembly: compiled from intrinsics on an array of accumulators,
   GCC kept the array in memory and stored every accumulator after its dot instruction, so the loop
   timed stores and moves (AVX-512: 177 GMAC/s, where the 8x32c4 gemm reaches 323-366 at K = 960).
   In assembly each iteration is exactly one dot instruction (or VPMADDWD + VPADDD) per accumulator,
   all accumulators in registers, independent of each other. */

uint64_t q8nn_bound_dot_avx512vnni(uint64_t iters);
uint64_t q8nn_bound_epilogue_avx512vnni(int rounding, uint64_t iters);
uint64_t q8nn_bound_dot_avxvnni(uint64_t iters);
uint64_t q8nn_bound_dot_avx2(uint64_t iters);
uint64_t q8nn_bound_epilogue_avx2(int rounding, uint64_t iters);

#endif
