/*
 * The AVX-512 epilogue loop of the exact bound (bound.h), shared by bound-avx512vnni.c (the
 * epilogue alone) and bound-amx.c (the same loop with an AMX output tile's instructions in it).
 * Include from a file compiled with the AVX-512 VNNI flags.
 */
#ifndef Q8NN_BENCH_BOUND_EPILOGUE_AVX512_H
#define Q8NN_BENCH_BOUND_EPILOGUE_AVX512_H

#include "bound/bound-x86.h"
#include "arch/x86/x86-avx512.h"

/* Called after every second iteration (16 vectors, one 16x16 AMX output tile's outputs) with the
   tile's number; NULL: nothing. */
typedef void (*q8nn_bound_tile_fn)(uint64_t tile);

/* Per iteration 8 vectors of 16 accumulators (rounding 0-2 as enum q8nn_rounding; 3 and 4 the
   guarded epilogue, see below): requantize (the block's constants set once, as the
   kernels do per 16-channel vector), two 64-byte packs with the clamp, two stores. rdouble: the
   sequence the AVX-512 and AMX kernels run where every lane shifts right (dneg 2 in its flipped
   form, the accumulators started at bias ^ 2^31, and the int16 finish, x86-avx512.h), as with this
   shift of -9 and MobileNetV2's blocks. The accumulators
   are made opaque each iteration (no instruction) so nothing is hoisted, but iterations are
   independent, as the epilogues of a kernel's successive tiles are: the loop times throughput.
   (XORing each result back into its accumulators, as an earlier form of this loop did, chained the
   iterations and timed part of the sequence's latency: 1.91 ns per 16 rdouble outputs where the
   kernels' expand layers ran above the bound it gave.) */
static inline __attribute__((always_inline)) uint64_t q8nn_bound_epilogue_loop(const int rounding, uint64_t iters,
                                                                              q8nn_bound_tile_fn tile) {
  /* rounding 3 and 4: the guarded epilogue of double rounding (x86-avx512.h), without and with the
     sign-dependent constant, its flag test per 8 vectors and the output stage's rounding 4 */
  const struct q8nn_qs8_conv_params params = {-3, rounding == 3 ? -3 : -128, 127, 0, 0, rounding == 4 ? 2 : 1,
                                              256.5f - (float) (rounding == 3 ? 0 : -125) + 0x1p-14f};
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(&params);
  const __m512i vmult = _mm512_set1_epi32(1518500250), vshift = _mm512_set1_epi32(-9);
  const struct q8nn_x86_guard16 g = q8nn_x86_guard16_init(0, vmult, vshift, vout.gc0);
  uint64_t flagged = 0;
  const struct q8nn_x86_rq16 rq =
      rounding == 1 ? q8nn_x86_rq16_init_rsingle(vmult, vshift) : q8nn_x86_rq16_init_rdouble(vmult, vshift);
  const struct q8nn_x86_flip16 flip = q8nn_x86_flip16_init(vmult);
  const __m512 vscale = _mm512_set1_ps(0x1.6a09e6p-10f);
  __m512i acc[8];
  for (int j = 0; j < 8; j++) acc[j] = _mm512_set1_epi32(1000 * j - 3000);
  for (uint64_t i = 0; i < iters; i++) {
    __m512i r[8];
    __mmask16 kclear[8];
    for (int j = 0; j < 8; j++) {
      r[j] = rounding >= 3   ? q8nn_x86_guard16_apply(acc[j], &g, rounding == 4, &kclear[j])
             : rounding == 2 ? q8nn_x86_requantize_fp32(acc[j], vscale, vout.fhi)
             : rounding == 1 ? q8nn_x86_requantize_rsingle(acc[j], &rq)
                             : q8nn_x86_requantize_rdouble_flipped(acc[j], &rq, &flip);
    }
    if (rounding >= 3) {
      flagged += (uint64_t) q8nn_x86_guard_flagged(
          _kand_mask16(q8nn_x86_guard_all(4, kclear), q8nn_x86_guard_all(4, kclear + 4)));
    }
    const int pack = rounding >= 3 ? 4 : q8nn_x86_pack_rounding(rounding, 2);
    const __m512i v0 = q8nn_x86_pack64(r[0], r[1], r[2], r[3], &vout, 1, pack);
    const __m512i v1 = q8nn_x86_pack64(r[4], r[5], r[6], r[7], &vout, 1, pack);
    _mm512_storeu_si512(q8nn_bound_out, v0);
    _mm512_storeu_si512(q8nn_bound_out + 64, v1);
    __asm__ volatile("" ::: "memory");
    for (int j = 0; j < 8; j++) __asm__ volatile("" : "+v"(acc[j]));
    if (tile != NULL && (i & 1) != 0) tile(i >> 1);
  }
  __asm__ volatile("" : : "r"(flagged));
  return iters * 8 * 16;
}

#endif
