/* AVX-512 VNNI bound loops (see bound.h): VPDPBUSD zmm, and the gemm kernels' epilogue. */
#include "bound/bound-x86.h"
#include "arch/x86/x86-avx512.h"

uint64_t q8nn_bound_dot_avx512vnni(uint64_t iters) {
  __m512i va = _mm512_set1_epi32((int) iters), s;
  const __m512i vb = _mm512_set1_epi32(0x01020304);
  Q8NN_BOUND_DOT_LOOP(__m512i, 24, _mm512_set1_epi32, _mm512_xor_si512, _mm512_dpbusd_epi32, va, vb, iters, s);
  q8nn_bound_sink = _mm512_reduce_add_epi32(s);
  return iters * 24 * 64;
}

/* Per iteration 8 vectors of 16 accumulators: requantize (the block's constants set once, as the
   kernels do per 16-channel vector), two 64-byte packs with the clamp, two stores; each result is
   XORed back into its accumulators so that iterations depend on each other (1 extra op / 16). */
static inline __attribute__((always_inline)) uint64_t epilogue(const int rounding, uint64_t iters) {
  const struct q8nn_qs8_conv_params params = {-3, -128, 127};
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(&params);
  const __m512i vmult = _mm512_set1_epi32(1518500250), vshift = _mm512_set1_epi32(-9);
  const struct q8nn_x86_rq16 rq =
      rounding == 1 ? q8nn_x86_rq16_init_rsingle(vmult, vshift) : q8nn_x86_rq16_init_rdouble(vmult, vshift);
  const __m512 vscale = _mm512_set1_ps(0x1.6a09e6p-10f);
  __m512i acc[8];
  for (int j = 0; j < 8; j++) acc[j] = _mm512_set1_epi32(1000 * j - 3000);
  for (uint64_t i = 0; i < iters; i++) {
    __m512i r[8];
    for (int j = 0; j < 8; j++) {
      r[j] = rounding == 2   ? q8nn_x86_requantize_fp32(acc[j], vscale, vout.fhi)
             : rounding == 1 ? q8nn_x86_requantize_rsingle(acc[j], &rq)
                             : q8nn_x86_requantize_rdouble(acc[j], &rq);
    }
    const __m512i v0 = q8nn_x86_pack64(r[0], r[1], r[2], r[3], &vout, 1, rounding);
    const __m512i v1 = q8nn_x86_pack64(r[4], r[5], r[6], r[7], &vout, 1, rounding);
    _mm512_storeu_si512(q8nn_bound_out, v0);
    _mm512_storeu_si512(q8nn_bound_out + 64, v1);
    for (int j = 0; j < 4; j++) acc[j] = _mm512_xor_si512(acc[j], v0);
    for (int j = 4; j < 8; j++) acc[j] = _mm512_xor_si512(acc[j], v1);
  }
  return iters * 8 * 16;
}

uint64_t q8nn_bound_epilogue_avx512vnni(int rounding, uint64_t iters) {
  return rounding == 0 ? epilogue(0, iters) : rounding == 1 ? epilogue(1, iters) : epilogue(2, iters);
}
