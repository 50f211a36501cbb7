/* AVX2 bound loops (see bound.h): the exact AVX2 gemm's VPMADDWD + VPADDD pair (16 MACs on int16;
   the kernels also sign-extend bytes, which this loop leaves out), and the AVX2 / AVX-VNNI epilogue. */
#include "bound/bound-x86.h"
#include "arch/x86/x86-avx2.h"

/* One VPMADDWD and one VPADDD per accumulator, as in the kernels. */
static inline __m256i madd_add(__m256i acc, __m256i va, __m256i vb) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(va, vb));
}

uint64_t q8nn_bound_dot_avx2(uint64_t iters) {
  __m256i va = _mm256_set1_epi16((short) iters), s;
  const __m256i vb = _mm256_set1_epi16(0x0102);
  Q8NN_BOUND_DOT_LOOP(__m256i, 12, _mm256_set1_epi32, _mm256_xor_si256, madd_add, va, vb, iters, s);
  q8nn_bound_sink = _mm256_extract_epi32(s, 0) ^ _mm256_extract_epi32(s, 7);
  return iters * 12 * 16;
}

/* Per iteration 8 vectors of 8 accumulators: requantize (constants set once, as the kernels do per
   block), two 4-vector packs with the clamp into 4 x 16 bytes, four stores; results are XORed back
   into the accumulators (1 extra op per 8 outputs) so iterations depend on each other. */
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
      r[j] = rounding == 2 ? q8nn_x86_requantize8_fp32(acc[j], vscale, vout.fhi)
                           : q8nn_x86_requantize8(acc[j], &rq, rounding == 1);
    }
    __m128i out[4];
    q8nn_x86_pack4x8(r[0], r[1], r[2], r[3], &vout, out, rounding);
    q8nn_x86_pack4x8(r[4], r[5], r[6], r[7], &vout, out + 2, rounding);
    for (int j = 0; j < 4; j++) _mm_storeu_si128((__m128i*) (q8nn_bound_out + 16 * j), out[j]);
    for (int j = 0; j < 8; j++) acc[j] = _mm256_xor_si256(acc[j], _mm256_zextsi128_si256(out[j / 2]));
  }
  return iters * 8 * 8;
}

uint64_t q8nn_bound_epilogue_avx2(int rounding, uint64_t iters) {
  return rounding == 0 ? epilogue(0, iters) : rounding == 1 ? epilogue(1, iters) : epilogue(2, iters);
}
