/*
 * AVX-512 helpers shared by the x86 AVX-512 VNNI microkernels: TFLite requantization of 16 int32
 * lanes in registers (both rounding modes, exact for every int32 accumulator and every legal
 * multiplier/shift), and the int32 -> int8 output stage. Only included by files compiled with the
 * avx512vnni flags.
 *
 * Double rounding (TFLite default). With P = (acc << ls) * m (int64, exact), e = max(-shift, 0):
 *   srdhm  q = floor((P + 2^30) / 2^31)              gemmlowp's SRDHM rounds ties up; its only
 *                                                     saturating case needs m = INT32_MIN, which is
 *                                                     not a legal multiplier ([2^30, 2^31) or 0)
 *   rdbpot r = floor((q + 2^(e-1) - [q < 0]) / 2^e)  ties away from zero (r = q when e = 0)
 * and since floor(floor(x / A) / B) = floor(x / (A B)) the two become one shift of a 64-bit sum:
 *   r = (P + N) >> (31 + e),  N = 2^30 + [e > 0] (2^(30+e) - 2^31 [q < 0]).
 * [q < 0] may be replaced by [P < 0]: when P < 0 but q = 0 the result is 0 with either nudge.
 * |P| < 2^62 and N < 2^62, so the sum never overflows.
 *
 * Double rounding where every lane has e >= 1 and none shifts left, and every multiplier is
 * TFLite's, in [2^30, 2^31) (dneg 2 below, flag m2_all; every MobileNetV2 block): the second
 * rounding is done on 16 int32 lanes at once instead of on two halves of int64. With
 * b = [P < 0] = [acc < 0] (m > 0):
 *   q = floor((P + 2^30) / 2^31)                     SRDHM, in (-2^31, 2^31 - 1): int32
 *   r = floor((q + 2^(e-1) - b) / 2^e)              the formula above, 2^31 (2^(e-1) - b) taken out
 *     = floor((floor((q - b) / 2^(e-1)) + 1) / 2)   floor((floor(u) + 1) / 2) = floor((u + 1) / 2)
 * t = q - b >= -2^31 and t >> (e-1) <= 2^31 - 2, so nothing overflows int32. The kernels stop at
 * u = t >> (e-1), the doubled form, and the output stage finishes r + zp in int16
 * (q8nn_x86_pack_rounding). q comes from products by m2 = 2 m - 2^32, an int32 (the bits of 2 m):
 *   floor((acc m2 + 2^31) / 2^32) = floor((2 acc m + 2^31) / 2^32) - acc = q - acc
 * exactly (acc 2^32 divides out), |acc m2| <= 2^62 so the sum fits int64; that is the high dword of
 * each product, one VPERMT2D gathers the even and odd products' in lane order, and
 * t = h + acc - b with b = -(acc >> 31), modulo 2^32 while q and t fit int32. Per 16 outputs: 10
 * instructions (VPSHUFD, 2 VPMULDQ, 2 VPADDQ, VPERMT2D, VPSRAD, 2 VPADDD, VPSRAVD) and three
 * per-lane constants (m2 even, m2 odd, e - 1), where the int64 form needs 12 with two mask
 * extractions, two masked subtractions, two 64-bit variable shifts and six constants. History:
 * 1.11-1.17x on the 64-channel depthwise kernel for the first int32 form (q from bits 31..62 of
 * P + 2^30, two 64-bit shifts and a blend, 11 instructions); its time in the bound loop
 * 2.23 ns per 16 outputs with r finished in int32, 1.81 with the int16 finish, 1.67 with m2.
 *
 * From the accumulator with its sign bit flipped, a = acc + 2^31 in [0, 2^32) (the flipped form,
 * q8nn_x86_requantize_rdouble_flipped; a kernel adds bias ^ 2^31 instead of the bias, so the flip
 * costs nothing): VPMULUDQ takes a and the low dword of m2, 2 m, as unsigned, and
 *   a (2 m) + 2^31 - (m + 1) 2^32 = 2 acc m + 2^31 - 2^32      (exact modulo 2^64, and |.| < 2^63)
 * so the high dword of each product plus the per-lane constant c = 2^31 - (m + 1) 2^32 is q - 1
 * outright, and b = [acc < 0] = 1 - (a >> 31): t = (q - 1) + (a >> 31) (VPSRLD, VPADDD). 9
 * instructions per 16 outputs (VPSHUFD, 2 VPMULUDQ, 2 VPADDQ, VPERMT2D, VPSRLD, VPADDD, VPSRAVD)
 * and five constants (q8nn_x86_flip16 holds the two c); the bound loop 1.70 -> 1.56 ns. The AMX
 * epilogue (two vectors per block) uses it. The depthwise and AVX-512 gemm kernels, whose
 * epilogues hold the constants of four vectors beside their accumulators, ran 3-9% slower with
 * the two more constants per vector (bench_ukernels) and keep the m2 form.
 *
 * Single rounding (TFLITE_SINGLE_ROUNDING): r = (acc * m + 2^(s-1)) >> s with s = 31 - shift in
 * [1, 62], truncated to its low 32 bits as TFLite's static_cast does.
 *
 * Output: r + output_zero_point in int32, wrapping where it overflows as TFLite's compiled code
 * does (requantization.h), then int32 -> int16 -> int8 saturating packs and the clamp to
 * [output_min, output_max].
 *
 * fp32 (XNNPACK's requantization, q8nn_rounding_fp32; the float scale's bits sit in the packed
 * multiplier slot): VCVTDQ2PS, VMULPS by the per-channel scale, VMINPS against
 * output_max - output_zero_point, VCVTPS2DQ: 4 instructions per 16 outputs. The conversions and the
 * product round to nearest even under the default MXCSR, as XNNPACK's SSE/AVX kernels and the
 * scalar kernel do; the product is a lone multiply (no add follows it, and the x86 kernels are
 * built with -ffp-contract=off), so it is never fused. The lower clamp is left to the integer
 * stage: the value is at most output_max - zp after the float clamp; anything below int16 (or out
 * of int32 range, converted to INT32_MIN) saturates in VPACKSSDW, the zero point is added with
 * VPADDSW (no wrap), VPACKSSWB saturates to int8 and VPMAXSB applies output_min. Where the exact
 * result is below output_min every saturated step stays below it too, so the bytes equal
 * clamp(rne(x), lo, hi) + zp.
 */
#ifndef Q8NN_ARCH_X86_AVX512_H
#define Q8NN_ARCH_X86_AVX512_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "requantization.h"
#include "ukernel.h"
#include "arch/x86/x86-common.h"

/* Requantization constants of 16 channels; computed once per channel block. */
/* The guarded epilogue's constants of one vector (q8nn_x86_guard16_init, below). */
struct q8nn_x86_guard16 {
  __m512 scale;     /* (float) m * 2^(shift - 31) where q8nn_guard_eligible, else a NaN (always flagged) */
  __m512 cpos;      /* guard_c0 + delta */
  __m512 cneg;      /* guard_c0 - delta */
};

struct q8nn_x86_rq16 {
  __m512i lshift;          /* rdouble: left shift per int32 lane */
  int lshift_any;          /* some lane has a left shift; 0: the shift is skipped (x << 0 = x) */
  int d_any;               /* rdouble: some lane has e > 0 (d != 0); 0: the sign masks and masked
                              subtractions are skipped */
  int d_all;               /* rdouble: every lane has e > 0 (so none shifts left) */
  __m512i m_even, m_odd;   /* multiplier in the low dword of each qword (even / odd channels) */
  __m512i n_even, n_odd;   /* rounding nudge, int64 */
  __m512i d_even, d_odd;   /* rdouble: nudge correction for negative products, int64 */
  __m512i s_even, s_odd;   /* total right shift, int64 */
  __m512i e_minus1;        /* rdouble: e - 1 per int32 lane (used where every e >= 1, dneg 2) */
  int m2_all;              /* rdouble: d_all and every multiplier in [2^30, 2^31): dneg 2 applies */
  __m512i m2_even, m2_odd; /* 2 m - 2^32 (int32) in the low dword of each qword */
  struct q8nn_x86_guard16 g; /* the guarded epilogue's, where a kernel sets them (q8nn_x86_rq16_guard) */
};

Q8NN_X86_INLINE struct q8nn_x86_rq16 q8nn_x86_rq16_init_rdouble(__m512i vmult, __m512i vshift) {
  struct q8nn_x86_rq16 p;
  const __m512i vzero = _mm512_setzero_si512();
  const __m512i ve = _mm512_max_epi32(_mm512_sub_epi32(vzero, vshift), vzero);
  p.lshift = _mm512_max_epi32(vshift, vzero);
  p.lshift_any = _mm512_test_epi32_mask(p.lshift, p.lshift) != 0;
  p.m_even = vmult;
  p.m_odd = _mm512_srli_epi64(vmult, 32);
  const __m512i ve_even = _mm512_and_si512(ve, _mm512_set1_epi64(0xFFFFFFFF));
  const __m512i ve_odd = _mm512_srli_epi64(ve, 32);
  const __m512i v2p30 = _mm512_set1_epi64(INT64_C(1) << 30);
  const __m512i v2p31 = _mm512_set1_epi64(INT64_C(1) << 31);
  const __mmask8 kpos_even = _mm512_test_epi64_mask(ve_even, ve_even);
  const __mmask8 kpos_odd = _mm512_test_epi64_mask(ve_odd, ve_odd);
  p.n_even = _mm512_mask_add_epi64(v2p30, kpos_even, v2p30, _mm512_sllv_epi64(v2p30, ve_even));
  p.n_odd = _mm512_mask_add_epi64(v2p30, kpos_odd, v2p30, _mm512_sllv_epi64(v2p30, ve_odd));
  p.d_even = _mm512_maskz_mov_epi64(kpos_even, v2p31);
  p.d_odd = _mm512_maskz_mov_epi64(kpos_odd, v2p31);
  p.d_any = (kpos_even | kpos_odd) != 0;
  p.d_all = (kpos_even & kpos_odd) == 0xFF;
  const __m512i v31 = _mm512_set1_epi64(31);
  p.s_even = _mm512_add_epi64(ve_even, v31);
  p.s_odd = _mm512_add_epi64(ve_odd, v31);
  p.e_minus1 = _mm512_sub_epi32(ve, _mm512_set1_epi32(1));
  const __m512i vm2 = _mm512_slli_epi32(vmult, 1); /* 2 m mod 2^32 */
  p.m2_even = vm2;
  p.m2_odd = _mm512_srli_epi64(vm2, 32);
  p.m2_all = p.d_all && _mm512_cmpge_epi32_mask(vmult, _mm512_set1_epi32(INT32_C(1) << 30)) == 0xFFFF;
  return p;
}

Q8NN_X86_INLINE struct q8nn_x86_rq16 q8nn_x86_rq16_init_rsingle(__m512i vmult, __m512i vshift) {
  struct q8nn_x86_rq16 p;
  p.lshift = _mm512_setzero_si512();
  p.lshift_any = 0;
  p.d_any = 0;
  p.d_all = 0;
  p.m_even = vmult;
  p.m_odd = _mm512_srli_epi64(vmult, 32);
  /* s = 31 - shift in [1, 62]; nudge 2^(s-1). */
  const __m512i vs = _mm512_sub_epi32(_mm512_set1_epi32(31), vshift);
  p.s_even = _mm512_and_si512(vs, _mm512_set1_epi64(0xFFFFFFFF));
  p.s_odd = _mm512_srli_epi64(vs, 32);
  const __m512i vone = _mm512_set1_epi64(1);
  p.n_even = _mm512_sllv_epi64(vone, _mm512_sub_epi64(p.s_even, vone));
  p.n_odd = _mm512_sllv_epi64(vone, _mm512_sub_epi64(p.s_odd, vone));
  p.d_even = p.d_odd = _mm512_setzero_si512();
  p.e_minus1 = _mm512_setzero_si512();
  p.m2_all = 0;
  p.m2_even = p.m2_odd = _mm512_setzero_si512();
  return p;
}

/* The constants of one vector for the kernel's requantization: rounding 1 single, else double
   (fp32 kernels do not read them). */
Q8NN_X86_INLINE struct q8nn_x86_rq16 q8nn_x86_rq16_init(int rounding, __m512i vmult, __m512i vshift) {
  struct q8nn_x86_rq16 rq =
      rounding == 1 ? q8nn_x86_rq16_init_rsingle(vmult, vshift) : q8nn_x86_rq16_init_rdouble(vmult, vshift);
  const struct q8nn_x86_guard16 none = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  rq.g = none; /* the guarded epilogue's: q8nn_x86_rq16_tile, where a depthwise tile runs it */
  return rq;
}

/* Takes the low dword of every qword of `even` (lanes 0, 2, ...) and of `odd` (lanes 1, 3, ...). */
Q8NN_X86_INLINE __m512i q8nn_x86_merge_even_odd(__m512i even, __m512i odd) {
  const __m512i vidx = _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0);
  return _mm512_permutex2var_epi32(even, vidx, odd);
}

/* acc ^ 2^31 (= acc + 2^31 modulo 2^32) in every lane: the accumulator of the flipped form. */
Q8NN_X86_INLINE __m512i q8nn_x86_flip_sign(__m512i v) { return _mm512_xor_si512(v, _mm512_set1_epi32(INT32_MIN)); }

/* The flipped form's per-lane constants c = 2^31 - (m + 1) 2^32 (int64) of the even and odd
   channels of one vector, from its multipliers. */
struct q8nn_x86_flip16 {
  __m512i c_even, c_odd;
};

Q8NN_X86_INLINE struct q8nn_x86_flip16 q8nn_x86_flip16_init(__m512i vmult) {
  const __m512i v2p31 = _mm512_set1_epi64(INT64_C(1) << 31), vone = _mm512_set1_epi64(1);
  const __m512i vm1_even = _mm512_add_epi64(_mm512_and_si512(vmult, _mm512_set1_epi64(0xFFFFFFFF)), vone);
  const __m512i vm1_odd = _mm512_add_epi64(_mm512_srli_epi64(vmult, 32), vone);
  struct q8nn_x86_flip16 f;
  f.c_even = _mm512_sub_epi64(v2p31, _mm512_slli_epi64(vm1_even, 32));
  f.c_odd = _mm512_sub_epi64(v2p31, _mm512_slli_epi64(vm1_odd, 32));
  return f;
}

/* dneg 2 from a = acc ^ 2^31 (the top of this file; p's m2_all holds): the doubled form u, for
   q8nn_x86_pack64's rounding 3. */
Q8NN_X86_INLINE __m512i q8nn_x86_requantize_rdouble_flipped(__m512i va, const struct q8nn_x86_rq16* p,
                                                            const struct q8nn_x86_flip16* f) {
  const __m512i vp_even = _mm512_add_epi64(_mm512_mul_epu32(va, p->m2_even), f->c_even);
  const __m512i va_odd = _mm512_shuffle_epi32(va, _MM_PERM_DDBB);
  const __m512i vp_odd = _mm512_add_epi64(_mm512_mul_epu32(va_odd, p->m2_odd), f->c_odd);
  /* the high dwords: lane 2i from the even products, 2i + 1 from the odd ones */
  const __m512i vidx = _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1);
  const __m512i vqm1 = _mm512_permutex2var_epi32(vp_even, vidx, vp_odd); /* q - 1 */
  const __m512i vt = _mm512_add_epi32(vqm1, _mm512_srli_epi32(va, 31)); /* q - b */
  return _mm512_srav_epi32(vt, p->e_minus1);
}

/* Double rounding with the two optional steps given by the caller: lshift (the VPSLLVD) and dneg (the
   sign masks and masked subtractions of the nudge correction). Either may be 1 for a block whose
   lanes do not need it and the bytes are the same: the shift is by 0 and the correction is 0 where
   e = 0 (q8nn_x86_rq16_init_rdouble). dneg 2: the int32 form of the top of this file where m2_all
   (products by m2), which returns the doubled form u (r = floor((u + 1) / 2)) for q8nn_x86_pack64's
   rounding 3 (see q8nn_x86_pack_rounding). A kernel that passes constants (see the depthwise
   kernels) tests the flags once per channel block instead of once per vector. */
Q8NN_X86_INLINE __m512i q8nn_x86_requantize_rdouble_with(__m512i vacc, const struct q8nn_x86_rq16* p,
                                                         const int lshift, const int dneg) {
  if (dneg == 2) {
    const __m512i v2p31 = _mm512_set1_epi64(INT64_C(1) << 31);
    const __m512i vp_even = _mm512_add_epi64(_mm512_mul_epi32(vacc, p->m2_even), v2p31);
    /* the odd dwords moved down on the shuffle port: 0.97-0.99x the bound loop's time of VPSRLQ */
    const __m512i vacc_odd = _mm512_shuffle_epi32(vacc, _MM_PERM_DDBB);
    const __m512i vp_odd = _mm512_add_epi64(_mm512_mul_epi32(vacc_odd, p->m2_odd), v2p31);
    /* the high dwords, q - acc: lane 2i from the even products, 2i + 1 from the odd ones */
    const __m512i vidx = _mm512_set_epi32(31, 15, 29, 13, 27, 11, 25, 9, 23, 7, 21, 5, 19, 3, 17, 1);
    const __m512i vh = _mm512_permutex2var_epi32(vp_even, vidx, vp_odd);
    const __m512i vt = _mm512_add_epi32(vh, _mm512_add_epi32(vacc, _mm512_srai_epi32(vacc, 31))); /* q - b */
    return _mm512_srav_epi32(vt, p->e_minus1);
  }
  const __m512i va = lshift ? _mm512_sllv_epi32(vacc, p->lshift) : vacc;
  const __m512i va_odd = _mm512_srli_epi64(va, 32);
  __m512i vp_even = _mm512_mul_epi32(va, p->m_even);
  __m512i vp_odd = _mm512_mul_epi32(va_odd, p->m_odd);
  if (dneg) {
    const __mmask8 kneg_even = _mm512_movepi64_mask(vp_even);
    const __mmask8 kneg_odd = _mm512_movepi64_mask(vp_odd);
    vp_even = _mm512_add_epi64(vp_even, p->n_even);
    vp_odd = _mm512_add_epi64(vp_odd, p->n_odd);
    vp_even = _mm512_mask_sub_epi64(vp_even, kneg_even, vp_even, p->d_even);
    vp_odd = _mm512_mask_sub_epi64(vp_odd, kneg_odd, vp_odd, p->d_odd);
  } else {
    /* every lane has e = 0: one nudge (2^30) for both signs, no sign masks */
    vp_even = _mm512_add_epi64(vp_even, p->n_even);
    vp_odd = _mm512_add_epi64(vp_odd, p->n_odd);
  }
  vp_even = _mm512_srav_epi64(vp_even, p->s_even);
  vp_odd = _mm512_srav_epi64(vp_odd, p->s_odd);
  /* |r| < 2^31: the low dword is the int32 result. */
  return q8nn_x86_merge_even_odd(vp_even, vp_odd);
}

Q8NN_X86_INLINE __m512i q8nn_x86_requantize_rdouble(__m512i vacc, const struct q8nn_x86_rq16* p) {
  /* TFLite shifts left in int32 (modulo 2^32); blocks without a positive shift (every realistic
     one) skip the VPSLLVD, one of the 13 instructions per 16 outputs. Blocks where no lane shifts
     right beyond the doubling (e = 0: shift >= 0) skip the two sign masks and masked subtractions
     too: their nudge is 2^30 for both signs. */
  return q8nn_x86_requantize_rdouble_with(vacc, p, p->lshift_any, p->d_any);
}

Q8NN_X86_INLINE __m512i q8nn_x86_requantize_rsingle(__m512i vacc, const struct q8nn_x86_rq16* p) {
  const __m512i vacc_odd = _mm512_srli_epi64(vacc, 32);
  __m512i vp_even = _mm512_add_epi64(_mm512_mul_epi32(vacc, p->m_even), p->n_even);
  __m512i vp_odd = _mm512_add_epi64(_mm512_mul_epi32(vacc_odd, p->m_odd), p->n_odd);
  vp_even = _mm512_srav_epi64(vp_even, p->s_even);
  vp_odd = _mm512_srav_epi64(vp_odd, p->s_odd);
  /* Where the result leaves int32, TFLite keeps its low 32 bits: so does the merge. */
  return q8nn_x86_merge_even_odd(vp_even, vp_odd);
}

/* fp32 requantization of 16 accumulators (see the top of this file): rne((float) acc * scale),
   clamped above to vhi = output_max - output_zero_point; zero point and lower clamp come in
   q8nn_x86_pack64 with rounding 2. */
Q8NN_X86_INLINE __m512i q8nn_x86_requantize_fp32(__m512i vacc, __m512 vscale, __m512 vhi) {
  const __m512 vx = _mm512_min_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(vacc), vscale), vhi);
  return _mm512_cvtps_epi32(vx);
}

/*
 * The guarded epilogue (requantization.h, q8nn_guard_requantize; the proof is in
 * docs/guarded-epilogue.md) on 16 lanes: VCVTDQ2PS, VFMADD213PS, VPTESTMD (the flag; KANDW joins
 * the vectors of a row or pixel), VPSRAD, and VPSRAD with VPTERNLOGD for the sign-dependent
 * constant (guard 2): 4 or 6 instructions per 16 outputs beside the output stage's, against 9-10
 * for the exact forms and 4 for fp32. The gemm lines read the per-channel constants packed
 * (q8nn_pack_qs8_gemm_goki_w_avx512); the depthwise kernels derive them here once per channel tile
 * (one VSCALEFPS each for the scale and delta).
 */
Q8NN_X86_INLINE struct q8nn_x86_guard16 q8nn_x86_guard16_init(const int rounding, __m512i vmult, __m512i vshift,
                                                              __m512 vc0) {
  const __m512i vzero = _mm512_setzero_si512();
  /* q8nn_guard_eligible: shift in [-14, -1] and m >= 0, or m = 0 and shift 0 */
  const __mmask16 keligible = _mm512_cmpge_epi32_mask(vshift, _mm512_set1_epi32(-14)) &
                              _mm512_cmpge_epi32_mask(vmult, vzero) &
                              (_mm512_cmpgt_epi32_mask(vzero, vshift) |
                               (_mm512_cmpeq_epi32_mask(vshift, vzero) & _mm512_cmpeq_epi32_mask(vmult, vzero)));
  struct q8nn_x86_guard16 g;
  g.scale = _mm512_mask_mov_ps(_mm512_castsi512_ps(_mm512_set1_epi32(Q8NN_GUARD_NAN)), keligible,
                               _mm512_scalef_ps(_mm512_cvtepi32_ps(vmult),
                                                _mm512_cvtepi32_ps(_mm512_sub_epi32(vshift, _mm512_set1_epi32(31)))));
  /* delta = 2^(shift - 1) where the double rounding shifts right, else 0 */
  const __mmask16 kdelta = rounding == 0 ? _mm512_cmpgt_epi32_mask(vzero, vshift) : 0;
  const __m512 vdelta = _mm512_maskz_scalef_ps(kdelta, _mm512_set1_ps(1.0f),
                                               _mm512_cvtepi32_ps(_mm512_sub_epi32(vshift, _mm512_set1_epi32(1))));
  g.cpos = _mm512_add_ps(vc0, vdelta);
  g.cneg = _mm512_sub_ps(vc0, vdelta);
  return g;
}

/* A depthwise tile's constants of one vector for TFLite roundings: the guarded epilogue's alone where
   guard is set (the exact ones serve only the redo, a call of the kernel with the guard off, which
   derives its own), else the exact ones. */
Q8NN_X86_INLINE struct q8nn_x86_rq16 q8nn_x86_rq16_tile(const int rounding, const int guard, __m512i vmult,
                                                       __m512i vshift, __m512 vc0) {
  if (!guard) return q8nn_x86_rq16_init(rounding, vmult, vshift);
  struct q8nn_x86_rq16 rq;
  memset(&rq, 0, sizeof(rq));
  rq.g = q8nn_x86_guard16_init(rounding, vmult, vshift, vc0);
  return rq;
}

/* One vector: y = fma((float) acc, scale, C) with C = cpos, or cneg where acc < 0 (SIGNED); returns
   y's bits shifted right by 15 (q8nn_x86_pack64's rounding 4) and sets *kclear to the lanes clear
   of the flag window (VPTESTMD). The callers combine the vectors' masks with KANDW and test once
   (q8nn_x86_guard_flagged): or-ing VPTESTNMD results compiled to moves through general registers,
   and one VPTESTMD masked by the last made a chain; on the depthwise 9p64c kernel (Zen 4) the
   three ran 49-58, 49-58 and 56-60 GMAC/s. */
Q8NN_X86_INLINE __m512i q8nn_x86_guard16_apply(__m512i vacc, const struct q8nn_x86_guard16* g, const int SIGNED,
                                               __mmask16* kclear) {
  /* the sign-dependent constant: VPSRAD broadcasts acc's sign, VPTERNLOGD picks cneg or cpos by it
     (0.60 ns per 16 outputs in the bound loop; VPMOVD2M with VBLENDMPS 0.73, adding copysign(delta)
     after the FMA 0.62; the one-sided form 0.48-0.51, fp32 0.45, the exact form 0.76) */
  const __m512 vc = SIGNED ? _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
                                 _mm512_srai_epi32(vacc, 31), _mm512_castps_si512(g->cneg), _mm512_castps_si512(g->cpos), 0xCA))
                           : g->cpos;
  const __m512i vy = _mm512_castps_si512(_mm512_fmadd_ps(_mm512_cvtepi32_ps(vacc), g->scale, vc));
  *kclear = _mm512_test_epi32_mask(vy, _mm512_set1_epi32(Q8NN_GUARD_WINDOW));
  return _mm512_srai_epi32(vy, 15);
}

/* The lanes clear in all n (1-4) masks, as a tree of KANDW. */
Q8NN_X86_INLINE __mmask16 q8nn_x86_guard_all(const size_t n, const __mmask16* kclear) {
  const __mmask16 k01 = n > 1 ? _kand_mask16(kclear[0], kclear[1]) : kclear[0];
  const __mmask16 k23 = n > 3 ? _kand_mask16(kclear[2], kclear[3]) : n > 2 ? kclear[2] : (__mmask16) 0xFFFF;
  return n > 2 ? _kand_mask16(k01, k23) : k01;
}

/* Some lane was flagged (KORTESTW: the carry is set when all lanes are clear). */
Q8NN_X86_INLINE int q8nn_x86_guard_flagged(__mmask16 kclear) { return !_kortestc_mask16_u8(kclear, kclear); }

/* Output stage constants. */
struct q8nn_x86_out64 {
  __m512i zp32, zp16, min8, max8;
  __m512i zp16h; /* 1 + 2 output_zero_point in int16 lanes (q8nn_x86_pack64's rounding 3) */
  __m512 fhi; /* fp32: output_max - output_zero_point */
  __m512i flip8; /* output_flip in every byte (uint8 outputs); zero for int8 */
  __m512i isign8; /* 0x80 ^ input_flip in every byte: what turns an input byte into VPDPBUSD's x + 128 */
  /* the guarded epilogue (q8nn_x86_guard16_apply, q8nn_x86_pack64's rounding 4) */
  int guard;        /* params->guard */
  __m512 gc0;       /* params->guard_c0 */
  __m512i gbase16;  /* Q8NN_GUARD_BASE in every uint16 */
  __m512i gspan8;   /* output_max - output_min in every byte */
  __m512i gadd8;    /* output_min + output_flip in every byte */
  /* what the exact fallback (q8nn_x86_guard16_exact) derives its constants from: given this
     struct's address instead, every gemm call stored the whole struct to the stack */
  const struct q8nn_qs8_conv_params* params;
};

Q8NN_X86_INLINE struct q8nn_x86_out64 q8nn_x86_out64_init(const struct q8nn_qs8_conv_params* params) {
  struct q8nn_x86_out64 o;
  o.zp32 = _mm512_set1_epi32(params->output_zero_point);
  o.zp16 = _mm512_set1_epi16((int16_t) params->output_zero_point);
  o.zp16h = _mm512_set1_epi16((int16_t) (1 + 2 * params->output_zero_point));
  o.min8 = _mm512_set1_epi8((int8_t) params->output_min);
  o.max8 = _mm512_set1_epi8((int8_t) params->output_max);
  o.fhi = _mm512_set1_ps((float) (params->output_max - params->output_zero_point));
  o.flip8 = _mm512_set1_epi8((char) params->output_flip);
  o.isign8 = _mm512_set1_epi8((char) (0x80 ^ params->input_flip));
  o.guard = params->guard;
  o.gc0 = _mm512_set1_ps(params->guard_c0);
  o.gbase16 = _mm512_set1_epi16((int16_t) (uint16_t) Q8NN_GUARD_BASE);
  o.gspan8 = _mm512_set1_epi8((char) (params->output_max - params->output_min));
  o.gadd8 = _mm512_set1_epi8((char) (params->output_min + params->output_flip));
  o.params = params;
  return o;
}

/* Packs 4 x 16 int32 to 64 int8 after adding the zero point and clamping. Byte 16j + 4L + i of the
   result (j = vector, L = 128-bit lane) comes from lane 4L + i of vector j when `natural` is
   nonzero; otherwise the bytes stay in pack order: position 16L + 4j + i holds lane 4L + i of
   vector j (what the depthwise kernels' interleaved accumulators want). rounding 0/1 (TFLite): the
   zero point is added in wrapping int32 as TFLite does; rounding 2 (fp32, and XNNPACK's add): it is
   added with saturation between the two packs (see the top of this file); rounding 3: r0..r3 are
   the doubled form of dneg 2 (see q8nn_x86_pack_rounding); rounding 4: r0..r3 are the guarded
   epilogue's y >> 15 (q8nn_x86_guard16_apply): unsigned saturating packs, less Q8NN_GUARD_BASE
   with unsigned saturation (T - lo, 0 below the clamp), the upper clamp as output_max - output_min,
   then + output_min + output_flip (requantization.h). */
Q8NN_X86_INLINE __m512i q8nn_x86_pack64(__m512i r0, __m512i r1, __m512i r2, __m512i r3,
                                        const struct q8nn_x86_out64* o, int natural, const int rounding) {
  __m512i v01, v23;
  if (rounding == 4) {
    v01 = _mm512_subs_epu16(_mm512_packus_epi32(r0, r1), o->gbase16);
    v23 = _mm512_subs_epu16(_mm512_packus_epi32(r2, r3), o->gbase16);
    /* both in [0, 30975]: positive as int16, so VPACKUSWB saturates them to [0, 255] */
    __m512i vout = _mm512_packus_epi16(v01, v23);
    if (natural) {
      const __m512i vperm = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
      vout = _mm512_permutexvar_epi32(vperm, vout);
    }
    return _mm512_add_epi8(_mm512_min_epu8(vout, o->gspan8), o->gadd8);
  }
  if (rounding == 3) {
    v01 = _mm512_srai_epi16(_mm512_adds_epi16(_mm512_packs_epi32(r0, r1), o->zp16h), 1);
    v23 = _mm512_srai_epi16(_mm512_adds_epi16(_mm512_packs_epi32(r2, r3), o->zp16h), 1);
  } else if (rounding == 2) {
    v01 = _mm512_adds_epi16(_mm512_packs_epi32(r0, r1), o->zp16);
    v23 = _mm512_adds_epi16(_mm512_packs_epi32(r2, r3), o->zp16);
  } else {
    v01 = _mm512_packs_epi32(_mm512_add_epi32(r0, o->zp32), _mm512_add_epi32(r1, o->zp32));
    v23 = _mm512_packs_epi32(_mm512_add_epi32(r2, o->zp32), _mm512_add_epi32(r3, o->zp32));
  }
  __m512i vout = _mm512_packs_epi16(v01, v23);
  if (natural) {
    const __m512i vperm = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    vout = _mm512_permutexvar_epi32(vperm, vout);
  }
  vout = _mm512_max_epi8(vout, o->min8);
  return _mm512_xor_si512(_mm512_min_epi8(vout, o->max8), o->flip8);
}

/* The exact epilogue of one vector (rounding 0 or 1, any multiplier and shift, from the packed
   ones) in the guarded stage's form: TFLite's clamp(r + zp) moved to Q8NN_GUARD_BASE + (out -
   output_min). Taken for a flagged gemm row, a few in a thousand: out of line. */
static __attribute__((noinline, cold, unused)) __m512i q8nn_x86_guard16_exact(
    __m512i vacc, __m512i vmult, __m512i vshift, int rounding, const struct q8nn_qs8_conv_params* p) {
  const struct q8nn_x86_rq16 rq = q8nn_x86_rq16_init(rounding, vmult, vshift);
  const __m512i vr =
      rounding == 1 ? q8nn_x86_requantize_rsingle(vacc, &rq) : q8nn_x86_requantize_rdouble_with(vacc, &rq, 1, 1);
  /* zero point in wrapping int32 and the clamp, as TFLite */
  const __m512i vt = _mm512_min_epi32(
      _mm512_max_epi32(_mm512_add_epi32(vr, _mm512_set1_epi32(p->output_zero_point)), _mm512_set1_epi32(p->output_min)),
      _mm512_set1_epi32(p->output_max));
  return _mm512_add_epi32(vt, _mm512_set1_epi32(Q8NN_GUARD_BASE - p->output_min));
}

/* Guarded epilogue of the n vectors of one pixel (or pair, quad, octet) of a depthwise kernel, in
   place, from each rq's guard constants: DNEG 3 without the sign-dependent constant, 4 with it
   (q8nn_x86_pack_rounding gives 4). Returns 1 where a lane was flagged: the kernel stores the pixel anyway
   and redoes it with the exact epilogue after its loop (a call or the exact code inside the pixel
   loop cost 20-30% of the loop's time: the registers it needs). */
Q8NN_X86_INLINE int q8nn_x86_guard_pixel(const int DNEG, const size_t n, __m512i* v,
                                         const struct q8nn_x86_rq16* rq) {
  __mmask16 kclear[4];
#pragma GCC unroll 4
  for (size_t j = 0; j < n; j++) v[j] = q8nn_x86_guard16_apply(v[j], &rq[j].g, DNEG == 4, &kclear[j]);
  return q8nn_x86_guard_flagged(q8nn_x86_guard_all(n, kclear));
}

/* The rounding argument of q8nn_x86_pack64 for vectors requantized in TFLite double rounding with
   dneg 2 (q8nn_x86_requantize_rdouble_with): 3, the int16 finish of the doubled form. The vectors
   hold int32 u, r = floor((u + 1) / 2), |r| <= 2^30 (r + zp never wraps in int32), and the stage
   is (sat16(sat16(u) + 1 + 2 zp)) >> 1 (VPACKSSDW, VPADDSW, VPSRAW; u + 1 is never formed in
   int32), then VPACKSSWB and the clamp: one VPSRAW per two vectors in place of a VPADDD and a
   VPSRAD per vector. Where nothing saturates it is floor((u + 1 + 2 zp) / 2) = r + zp.
   Where something saturates high, u > 32512 (|1 + 2 zp| <= 255): the stage gives at least
   (32767 - 255) >> 1 > 127, and r >= 16257 makes r + zp > 127, so both clamp to the top;
   symmetrically below. Other cases keep their own stage. */
Q8NN_X86_INLINE int q8nn_x86_pack_rounding(const int rounding, const int dneg) {
  return dneg >= 3 ? 4 : rounding == 0 && dneg == 2 ? 3 : rounding;
}

/* acc + the u8 x s8 dot products of each 4-byte group (VPDPBUSD, the gemm K loop's instruction).
   Inline asm rather than _mm512_dpbusd_epi32: GCC 12 gives the intrinsic's tied accumulator a
   register of its own and copies it in and out around each VPDPBUSD of the K loop (8x32c4: 63
   instructions per K step of 16 VPDPBUSD, 28 of them register moves and 4 spill accesses; with
   the asm 31, none), which left the loop issue-bound well below the VPDPBUSD rate. Same
   instruction and operands (AT&T order: signed source, unsigned source, accumulator).
   Q8NN_X86_EMULATED (the SIMDe builds of the test_ukernel_*_avx512_emulated tests) keeps the intrinsic. */
Q8NN_X86_INLINE __m512i q8nn_x86_dpbusd(__m512i acc, __m512i u8, __m512i s8) {
#ifdef Q8NN_X86_EMULATED
  return _mm512_dpbusd_epi32(acc, u8, s8);
#else
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u8), "v"(s8));
  return acc;
#endif
}

/* Mask of the first n (<= 64) bytes. */
Q8NN_X86_INLINE __mmask64 q8nn_x86_mask64(size_t n) {
  return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

/* Broadcast of 4 bytes at p (unaligned). */
Q8NN_X86_INLINE __m512i q8nn_x86_bcast4(const int8_t* p) {
  int32_t v;
  memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

/* Broadcast of the n (1..3) bytes at p, zero-extended to 4 (masked load: no over-read). */
Q8NN_X86_INLINE __m512i q8nn_x86_bcast_tail(const int8_t* p, size_t n) {
  const __m128i v = _mm_maskz_loadu_epi8((__mmask16) ((1u << n) - 1), p);
  return _mm512_broadcastd_epi32(v);
}

#endif
