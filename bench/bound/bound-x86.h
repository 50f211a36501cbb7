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

/* The ymm loops' accumulators are ymm4-ymm15 (AVX2 and AVX-VNNI): zeroed before the loop, then
   XORed into ymm4, whose low dword goes to the asm operand named s. */
#define Q8NN_BOUND_YMM4_15_ZERO \
    "vpxor %%ymm4, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm5, %%ymm5, %%ymm5\n\t" \
    "vpxor %%ymm6, %%ymm6, %%ymm6\n\t" \
    "vpxor %%ymm7, %%ymm7, %%ymm7\n\t" \
    "vpxor %%ymm8, %%ymm8, %%ymm8\n\t" \
    "vpxor %%ymm9, %%ymm9, %%ymm9\n\t" \
    "vpxor %%ymm10, %%ymm10, %%ymm10\n\t" \
    "vpxor %%ymm11, %%ymm11, %%ymm11\n\t" \
    "vpxor %%ymm12, %%ymm12, %%ymm12\n\t" \
    "vpxor %%ymm13, %%ymm13, %%ymm13\n\t" \
    "vpxor %%ymm14, %%ymm14, %%ymm14\n\t" \
    "vpxor %%ymm15, %%ymm15, %%ymm15\n\t"
#define Q8NN_BOUND_YMM4_15_FOLD \
    "vpxor %%ymm5, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm6, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm7, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm8, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm9, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm10, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm11, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm12, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm13, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm14, %%ymm4, %%ymm4\n\t" \
    "vpxor %%ymm15, %%ymm4, %%ymm4\n\t" \
    "vmovd %%xmm4, %[s]\n\t" \
    "vzeroupper\n\t"
#define Q8NN_BOUND_YMM4_15_CLOBBERS \
  "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc"

uint64_t q8nn_bound_dot_avx512vnni(uint64_t iters);
uint64_t q8nn_bound_dot_amx(uint64_t iters); /* TDPBSSD, four accumulator tiles */
/* the AVX-512 epilogue loop with one TDPBSSD and TILESTORED per 16 vectors */
uint64_t q8nn_bound_epilogue_amx(int rounding, uint64_t iters);
uint64_t q8nn_bound_epilogue_avx512vnni(int rounding, uint64_t iters);
uint64_t q8nn_bound_dot_avxvnni(uint64_t iters);
uint64_t q8nn_bound_dot_avx2(uint64_t iters);
uint64_t q8nn_bound_epilogue_avx2(int rounding, uint64_t iters);

#endif
