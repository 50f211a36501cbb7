/*
 * Throughput loops behind the "exact bound" of bench_mobilenet_v2 and the bound/ benchmarks of
 * bench_ukernels (see docs/performance.md, "The exact path's bound"): the dot-product instruction
 * of an ISA's gemm kernels on registers, the exact epilogue's instruction sequence on registers
 * (the helpers of src/arch/x86/x86-avx512.h / x86-avx2.h themselves), and an in-cache copy.
 */
#ifndef Q8NN_BENCH_BOUND_H
#define Q8NN_BENCH_BOUND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per-core rates of one ISA, measured by q8nn_bound_measure (best of several timed runs). */
struct q8nn_bound_rates {
  const char* isa;              /* "avx512vnni", "avxvnni", "avx2"; NULL: no loops for this ISA set */
  double dot_gmacs;             /* GMAC/s of the dot instruction, independent accumulators (24 zmm, 12 ymm) */
  double epilogue_ns16[3];      /* ns per 16 outputs: TFLite double, TFLite single, fp32 */
  double copy_gbs;              /* GB/s (bytes read + bytes written) of a 256 KiB memcpy */
  double amx_dot_gmacs;         /* GMAC/s of TDPBSSD (four accumulator tiles) where Q8NN_ISA_X86_AMX is
                                   in `isa`, else 0: the rate of the AMX gemm lines' products */
  double amx_epilogue_ns16[3];  /* where AMX: ns per 16 outputs of the epilogue loop with one TDPBSSD and
                                   one TILESTORED per 16x16 output tile in it (bound-amx.c), else 0 */
};

/* The loops of the best ISA in `isa` (Q8NN_ISA_* bits). Returns 0 (isa = NULL) when none applies. */
int q8nn_bound_measure(uint32_t isa, struct q8nn_bound_rates* rates);

/* Single loops (for Google Benchmark): run `iters` iterations, return the MACs / outputs done.
   isa_bit: one of Q8NN_ISA_X86_AVX512VNNI, Q8NN_ISA_X86_AVXVNNI, Q8NN_ISA_X86_AVX2, or
   Q8NN_ISA_X86_AMX (dot: TDPBSSD; epilogue: the AVX-512 loop with an output tile's AMX instructions
   per 16 vectors). */
uint64_t q8nn_bound_dot(uint32_t isa_bit, uint64_t iters);
uint64_t q8nn_bound_epilogue(uint32_t isa_bit, int rounding, uint64_t iters);

#ifdef __cplusplus
}
#endif

#endif
