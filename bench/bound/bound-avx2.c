/* AVX2 bound loops (see bound.h): the exact AVX2 gemm's VPMADDWD + VPADDD pair (16 MACs on int16;
   the kernels also sign-extend bytes, which this loop leaves out), and the AVX2 / AVX-VNNI epilogue. */
#include "bound/bound-x86.h"
#include "arch/x86/x86-avx2.h"

/* One VPMADDWD (into ymm2 or ymm3) and one VPADDD per accumulator, as in the kernels: 12
   accumulators (ymm4-ymm15), sources ymm0 (words of `iters`) and ymm1. */
uint64_t q8nn_bound_dot_avx2(uint64_t iters) {
  if (iters == 0) return 0;
  uint64_t n = iters;
  int32_t s;
  __asm__ volatile(
      "vmovd %k[a], %%xmm0\n\t"
      "vpbroadcastw %%xmm0, %%ymm0\n\t"
      "vmovd %k[b], %%xmm1\n\t"
      "vpbroadcastw %%xmm1, %%ymm1\n\t"
      Q8NN_BOUND_YMM4_15_ZERO
      "1:\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm2\n\t"
      "vpaddd %%ymm2, %%ymm4, %%ymm4\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm3\n\t"
      "vpaddd %%ymm3, %%ymm5, %%ymm5\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm2\n\t"
      "vpaddd %%ymm2, %%ymm6, %%ymm6\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm3\n\t"
      "vpaddd %%ymm3, %%ymm7, %%ymm7\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm2\n\t"
      "vpaddd %%ymm2, %%ymm8, %%ymm8\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm3\n\t"
      "vpaddd %%ymm3, %%ymm9, %%ymm9\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm2\n\t"
      "vpaddd %%ymm2, %%ymm10, %%ymm10\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm3\n\t"
      "vpaddd %%ymm3, %%ymm11, %%ymm11\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm2\n\t"
      "vpaddd %%ymm2, %%ymm12, %%ymm12\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm3\n\t"
      "vpaddd %%ymm3, %%ymm13, %%ymm13\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm2\n\t"
      "vpaddd %%ymm2, %%ymm14, %%ymm14\n\t"
      "vpmaddwd %%ymm1, %%ymm0, %%ymm3\n\t"
      "vpaddd %%ymm3, %%ymm15, %%ymm15\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      Q8NN_BOUND_YMM4_15_FOLD
      : [n] "+r"(n), [s] "=r"(s)
      : [a] "r"((uint32_t) iters), [b] "r"(0x0102u)
      : "xmm0", "xmm1", "xmm2", "xmm3", Q8NN_BOUND_YMM4_15_CLOBBERS);
  q8nn_bound_sink = s;
  return iters * 12 * 16;
}

/* Per iteration 8 vectors of 8 accumulators: requantize (constants set once, as the kernels do per
   block), two 4-vector packs with the clamp into 4 x 16 bytes, four stores. The accumulators are
   made opaque each iteration (no instruction) but iterations are independent, as the epilogues of
   successive tiles are: the loop times throughput, not the sequence's latency (see the AVX-512 loop). */
static inline __attribute__((always_inline)) uint64_t epilogue(const int rounding, uint64_t iters) {
  const struct q8nn_x86_out32 vout = q8nn_x86_out32_init(-3, -128, 127);
  const __m256i vmult = _mm256_set1_epi32(1518500250), vshift = _mm256_set1_epi32(-9);
  const struct q8nn_x86_rq8 rq =
      rounding == 1 ? q8nn_x86_rq8_init_rsingle(vmult, vshift, -3) : q8nn_x86_rq8_init_rdouble(vmult, vshift, -3);
  const __m256 vscale = _mm256_set1_ps(0x1.6a09e6p-10f);
  __m256i acc[8];
  for (int j = 0; j < 8; j++) acc[j] = _mm256_set1_epi32(1000 * j - 3000);
  for (uint64_t i = 0; i < iters; i++) {
    __m256i r[8];
    for (int j = 0; j < 8; j++) {
      /* rdouble: the int32 doubled form, as the kernels take it for such a block (e = 9, m >= 2^30) */
      r[j] = rounding == 2   ? q8nn_x86_requantize8_fp32(acc[j], vscale, vout.fhi)
             : rounding == 0 ? q8nn_x86_requantize8_doubled(acc[j], rq.m_even, rq.m_odd, rq.e_minus1)
                             : q8nn_x86_requantize8(acc[j], &rq, 1);
    }
    __m128i out[4];
    q8nn_x86_pack4x8(r[0], r[1], r[2], r[3], &vout, out, rounding == 0 ? 3 : rounding);
    q8nn_x86_pack4x8(r[4], r[5], r[6], r[7], &vout, out + 2, rounding == 0 ? 3 : rounding);
    for (int j = 0; j < 4; j++) _mm_storeu_si128((__m128i*) (q8nn_bound_out + 16 * j), out[j]);
    __asm__ volatile("" ::: "memory");
    for (int j = 0; j < 8; j++) __asm__ volatile("" : "+x"(acc[j]));
  }
  return iters * 8 * 8;
}

uint64_t q8nn_bound_epilogue_avx2(int rounding, uint64_t iters) {
  return rounding == 0 ? epilogue(0, iters) : rounding == 1 ? epilogue(1, iters) : epilogue(2, iters);
}
