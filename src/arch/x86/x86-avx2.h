/*
 * AVX2 helpers shared by the AVX2 and AVX-VNNI microkernels: TFLite requantization of 8 int32
 * lanes in ymm registers (both roundings, exact for every int32 accumulator and every legal
 * multiplier/shift) and the int32 -> int8 output stage. Only included by files compiled with the
 * avx2 or avxvnni flags.
 *
 * AVX2 has no 64-bit arithmetic shift, so the 64-bit sum is biased to be non-negative and shifted
 * logically. With P = (acc << ls) * m (exact int64, |P| <= 2^62 - 2^31) and s the total right
 * shift (rdouble: 31 + e, e = max(-shift, 0), in [31, 62]; rsingle: 31 - shift in [1, 62]):
 *   rdouble  r = (P + N) >> s,  N = 2^30 + [e > 0] (2^(30+e) - 2^31 [P < 0])    (x86-avx512.h)
 *   rsingle  r = (P + 2^(s-1)) >> s, low 32 bits kept as TFLite's static_cast does
 * Adding B = 2^62 makes x = P + N + B lie in (0, 2^64) as an unsigned number, and since 2^s divides
 * B, x >>> s (logical) = (P + N) >> s + 2^(62-s) exactly. The low dword of each qword is therefore
 * r + low32(2^(62-s)) modulo 2^32; the constant is subtracted from the output zero point, whose add
 * TFLite performs in wrapping int32 arithmetic anyway, so the output bytes are identical.
 * [P < 0] picks one of two precomputed nudges with VBLENDVPD on the product's sign bit (when m = 0,
 * P = 0 and either nudge gives 0).
 *
 * Lane order: the even and odd qword results are merged with one VSHUFPS, which leaves lanes in
 * the order {0, 2, 1, 3, 4, 6, 5, 7}; the output stage's packs and byte unpacks then move lane l
 * of a vector to byte {0, 2, 4, 6, 1, 3, 5, 7}[l]. Callers either pack their weights so that this
 * lands every channel in place (x86-pack.h) or fix the order with one byte shuffle.
 *
 * fp32 (XNNPACK's requantization, q8nn_rounding_fp32; the float scale's bits in the multiplier
 * slot): VCVTDQ2PS, VMULPS, VMINPS against output_max - zp, VCVTPS2DQ, 4 instructions per 8
 * outputs, rounding to nearest even under the default MXCSR; never fused (no add follows the
 * multiply; -ffp-contract=off). Lanes stay in accumulator order (no merge). The zero point is added
 * with saturation between the packs and output_min applied on the bytes, as in x86-avx512.h.
 */
#ifndef Q8NN_ARCH_X86_AVX2_H
#define Q8NN_ARCH_X86_AVX2_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "requantization.h"
#include "ukernel.h"
#include "arch/x86/x86-common.h"

/* Requantization constants of 8 channels (lanes in accumulator order). */
struct q8nn_x86_rq8 {
  __m256i lshift;          /* rdouble: left shift per int32 lane */
  int lshift_any;          /* some lane has a left shift; 0: the shift is skipped (x << 0 = x) */
  int sign_any;            /* rdouble: some lane has e > 0, where the nudge depends on the product's
                              sign; 0: nn = np, and the blend is skipped */
  __m256i m_even, m_odd;   /* multiplier in the low dword of each qword */
  __m256i np_even, np_odd; /* nudge + 2^62 for P >= 0 */
  __m256i nn_even, nn_odd; /* nudge + 2^62 for P < 0 (rdouble) */
  __m256i s_even, s_odd;   /* total right shift, int64 */
  __m256i zp;              /* output zero point - low32(2^(62-s)), merged lane order */
  __m256i e_minus1;        /* rdouble: e - 1 per lane (q8nn_x86_requantize8_doubled) */
  int doubled_all;         /* rdouble: every lane has e >= 1, none shifts left and no multiplier is
                              negative: the int32 form (q8nn_x86_requantize8_doubled) applies */
};

/* The low dwords of the qwords of even (lanes 0, 2 of each 128-bit half) and odd (1, 3), in the
   order {e0, e2, o1, o3} per half, i.e. accumulator lanes {0, 2, 1, 3, 4, 6, 5, 7}. */
Q8NN_X86_INLINE __m256i q8nn_x86_merge8(__m256i even, __m256i odd) {
  return _mm256_castps_si256(
      _mm256_shuffle_ps(_mm256_castsi256_ps(even), _mm256_castsi256_ps(odd), _MM_SHUFFLE(2, 0, 2, 0)));
}

Q8NN_X86_INLINE void q8nn_x86_rq8_finish(struct q8nn_x86_rq8* p, int32_t output_zero_point) {
  const __m256i vone = _mm256_set1_epi64x(1);
  const __m256i v62 = _mm256_set1_epi64x(62);
  const __m256i vce = _mm256_sllv_epi64(vone, _mm256_sub_epi64(v62, p->s_even));
  const __m256i vco = _mm256_sllv_epi64(vone, _mm256_sub_epi64(v62, p->s_odd));
  p->zp = _mm256_sub_epi32(_mm256_set1_epi32(output_zero_point), q8nn_x86_merge8(vce, vco));
}

Q8NN_X86_INLINE struct q8nn_x86_rq8 q8nn_x86_rq8_init_rdouble(__m256i vmult, __m256i vshift, int32_t output_zero_point) {
  struct q8nn_x86_rq8 p;
  const __m256i vzero = _mm256_setzero_si256();
  const __m256i ve = _mm256_max_epi32(_mm256_sub_epi32(vzero, vshift), vzero);
  p.lshift = _mm256_max_epi32(vshift, vzero);
  p.lshift_any = !_mm256_testz_si256(p.lshift, p.lshift);
  p.sign_any = !_mm256_testz_si256(ve, ve);
  p.m_even = vmult;
  p.m_odd = _mm256_srli_epi64(vmult, 32);
  const __m256i ve_even = _mm256_and_si256(ve, _mm256_set1_epi64x(0xFFFFFFFF));
  const __m256i ve_odd = _mm256_srli_epi64(ve, 32);
  const __m256i v2p30 = _mm256_set1_epi64x(INT64_C(1) << 30);
  const __m256i v2p31 = _mm256_set1_epi64x(INT64_C(1) << 31);
  const __m256i vbase = _mm256_set1_epi64x((INT64_C(1) << 62) + (INT64_C(1) << 30));
  const __m256i v31 = _mm256_set1_epi64x(31);
  const __m256i kpos_even = _mm256_cmpgt_epi64(ve_even, vzero);
  const __m256i kpos_odd = _mm256_cmpgt_epi64(ve_odd, vzero);
  p.np_even = _mm256_add_epi64(vbase, _mm256_and_si256(kpos_even, _mm256_sllv_epi64(v2p30, ve_even)));
  p.np_odd = _mm256_add_epi64(vbase, _mm256_and_si256(kpos_odd, _mm256_sllv_epi64(v2p30, ve_odd)));
  p.nn_even = _mm256_sub_epi64(p.np_even, _mm256_and_si256(kpos_even, v2p31));
  p.nn_odd = _mm256_sub_epi64(p.np_odd, _mm256_and_si256(kpos_odd, v2p31));
  p.s_even = _mm256_add_epi64(ve_even, v31);
  p.s_odd = _mm256_add_epi64(ve_odd, v31);
  p.e_minus1 = _mm256_sub_epi32(ve, _mm256_set1_epi32(1));
  /* e >= 1 in every lane, no left shift, no negative multiplier (never TFLite's; [P < 0] = [acc < 0]
     needs m >= 0) */
  p.doubled_all = !p.lshift_any && _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(ve, vzero))) == 0xFF &&
                  _mm256_movemask_ps(_mm256_castsi256_ps(vmult)) == 0;
  q8nn_x86_rq8_finish(&p, output_zero_point);
  return p;
}

Q8NN_X86_INLINE struct q8nn_x86_rq8 q8nn_x86_rq8_init_rsingle(__m256i vmult, __m256i vshift, int32_t output_zero_point) {
  struct q8nn_x86_rq8 p;
  p.lshift = _mm256_setzero_si256();
  p.lshift_any = 0;
  p.sign_any = 0;
  p.m_even = vmult;
  p.m_odd = _mm256_srli_epi64(vmult, 32);
  const __m256i vs = _mm256_sub_epi32(_mm256_set1_epi32(31), vshift); /* [1, 62] */
  p.s_even = _mm256_and_si256(vs, _mm256_set1_epi64x(0xFFFFFFFF));
  p.s_odd = _mm256_srli_epi64(vs, 32);
  const __m256i vone = _mm256_set1_epi64x(1);
  const __m256i vb = _mm256_set1_epi64x(INT64_C(1) << 62);
  p.np_even = _mm256_add_epi64(vb, _mm256_sllv_epi64(vone, _mm256_sub_epi64(p.s_even, vone)));
  p.np_odd = _mm256_add_epi64(vb, _mm256_sllv_epi64(vone, _mm256_sub_epi64(p.s_odd, vone)));
  p.nn_even = p.np_even;
  p.nn_odd = p.np_odd;
  p.e_minus1 = _mm256_setzero_si256();
  p.doubled_all = 0;
  q8nn_x86_rq8_finish(&p, output_zero_point);
  return p;
}

/* The requantization of q8nn_x86_requantize8 from its constants: shift_left and blend say whether
   the VPSLLVD and the nudge's VBLENDVPD are needed (see q8nn_x86_rq8). */
Q8NN_X86_INLINE __m256i q8nn_x86_requantize8_with(__m256i vacc, int shift_left, __m256i lshift, int blend,
                                                  __m256i m_even, __m256i m_odd, __m256i np_even, __m256i np_odd,
                                                  __m256i nn_even, __m256i nn_odd, __m256i s_even, __m256i s_odd,
                                                  __m256i zp) {
  /* blocks without a positive shift skip the VPSLLVD (x << 0 = x) */
  const __m256i va = shift_left ? _mm256_sllv_epi32(vacc, lshift) : vacc;
  const __m256i va_odd = _mm256_srli_epi64(va, 32);
  const __m256i vp_even = _mm256_mul_epi32(va, m_even);
  const __m256i vp_odd = _mm256_mul_epi32(va_odd, m_odd);
  __m256i vn_even = np_even, vn_odd = np_odd;
  /* blocks where every lane has e = 0 (shift >= 0) have one nudge for both signs: no blend */
  if (blend) {
    vn_even = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(np_even), _mm256_castsi256_pd(nn_even),
                                                   _mm256_castsi256_pd(vp_even)));
    vn_odd = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(np_odd), _mm256_castsi256_pd(nn_odd),
                                                  _mm256_castsi256_pd(vp_odd)));
  }
  const __m256i vx_even = _mm256_srlv_epi64(_mm256_add_epi64(vp_even, vn_even), s_even);
  const __m256i vx_odd = _mm256_srlv_epi64(_mm256_add_epi64(vp_odd, vn_odd), s_odd);
  return _mm256_add_epi32(q8nn_x86_merge8(vx_even, vx_odd), zp);
}

/* TFLite double rounding in int32 lanes, for blocks where every lane has e >= 1 and none shifts left
   (doubled_all, which also excludes negative multipliers; every MobileNetV2 block qualifies): the
   doubled form u of x86-avx512.h's int32 form, lanes in
   accumulator order (no merge). q = floor((P + 2^30) / 2^31) is bits 31..62 of the biased product
   (SRDHM's result, an int32): VPSRLQ by 31 leaves it in the low dword of the even products, VPSLLQ by
   1 in the high dword of the odd ones, and one VPBLENDD joins them. t = q - [acc < 0] (= [P < 0]
   where m > 0; where m = 0, q = 0 and t = -1 also gives r = 0), u = t >> (e - 1), and
   r = floor((u + 1) / 2) is finished in int16 with the zero point (q8nn_x86_packs_doubled).
   11 instructions per 8 outputs, each one uop: the int64 form has two VBLENDVPD (2-3 uops each on
   Intel cores), a lane merge and the zero point's add. */
Q8NN_X86_INLINE __m256i q8nn_x86_requantize8_doubled(__m256i vacc, __m256i m_even, __m256i m_odd, __m256i e_minus1) {
  const __m256i v2p30 = _mm256_set1_epi64x(INT64_C(1) << 30);
  const __m256i vp_even = _mm256_add_epi64(_mm256_mul_epi32(vacc, m_even), v2p30);
  const __m256i vp_odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(vacc, 32), m_odd), v2p30);
  const __m256i vq = _mm256_blend_epi32(_mm256_srli_epi64(vp_even, 31), _mm256_slli_epi64(vp_odd, 1), 0xAA);
  return _mm256_srav_epi32(_mm256_add_epi32(vq, _mm256_srai_epi32(vacc, 31)), e_minus1);
}

/* Requantized int32 of 8 accumulators plus the output zero point (wrapping), merged lane order. */
Q8NN_X86_INLINE __m256i q8nn_x86_requantize8(__m256i vacc, const struct q8nn_x86_rq8* p, const int single) {
  return q8nn_x86_requantize8_with(vacc, !single && p->lshift_any, p->lshift, !single && p->sign_any, p->m_even,
                                   p->m_odd, p->np_even, p->np_odd, p->nn_even, p->nn_odd, p->s_even, p->s_odd,
                                   p->zp);
}

/* The constants of q8nn_x86_rq8_init_rdouble and _rsingle of 8 channels for output zero point 0,
   precomputed at packing time (q8nn_pack_qs8_gemm_goki_w_avx2, x86-pack.h) so that the AVX2 gemm
   kernels read them as memory operands instead of deriving them from multiplier and shift for every
   block of every call: a record of Q8NN_X86_AVX2_RQ_EXT_BYTES, one 32-byte slot per field below
   (the fields of struct q8nn_x86_rq8; the last slot holds lshift_any, sign_any and doubled_all as
   int32), at any byte alignment. The multiplier itself (m_even) stays in the header's multiplier
   slot, where the fp32 epilogue finds its scale. */
enum q8nn_x86_rq8_ext_slot {
  q8nn_x86_ext_lshift, q8nn_x86_ext_m_odd, q8nn_x86_ext_np_even, q8nn_x86_ext_np_odd, q8nn_x86_ext_nn_even,
  q8nn_x86_ext_nn_odd, q8nn_x86_ext_s_even, q8nn_x86_ext_s_odd, q8nn_x86_ext_zp, /* rdouble */
  q8nn_x86_ext_single_np_even, q8nn_x86_ext_single_np_odd, q8nn_x86_ext_single_s_even,
  q8nn_x86_ext_single_s_odd, q8nn_x86_ext_single_zp, /* rsingle */
  q8nn_x86_ext_e_minus1, /* rdouble, the int32 form (q8nn_x86_requantize8_doubled) */
  q8nn_x86_ext_guard_scale, q8nn_x86_ext_guard_delta, q8nn_x86_ext_guard_window, /* q8nn_x86_guard8 */
  q8nn_x86_ext_flags, q8nn_x86_ext_slots
};

Q8NN_X86_INLINE __m256i q8nn_x86_ext_load(const int8_t* x, enum q8nn_x86_rq8_ext_slot slot) {
  return _mm256_loadu_si256((const __m256i*) (x + 32 * (size_t) slot));
}

Q8NN_X86_INLINE int32_t q8nn_x86_ext_flag(const int8_t* x, size_t i) {
  int32_t v;
  memcpy(&v, x + 32 * (size_t) q8nn_x86_ext_flags + 4 * i, sizeof(v));
  return v;
}

/* q8nn_x86_requantize8 with the constants of the record at x (single: rsingle, else rdouble); vzp:
   the record's zp (or single_zp) plus the output zero point. */
Q8NN_X86_INLINE __m256i q8nn_x86_requantize8_ext(__m256i vacc, __m256i m_even, const int8_t* x, __m256i vzp,
                                                 const int single) {
  if (single) {
    const __m256i np_even = q8nn_x86_ext_load(x, q8nn_x86_ext_single_np_even);
    const __m256i np_odd = q8nn_x86_ext_load(x, q8nn_x86_ext_single_np_odd);
    return q8nn_x86_requantize8_with(vacc, 0, vacc, 0, m_even, q8nn_x86_ext_load(x, q8nn_x86_ext_m_odd), np_even,
                                     np_odd, np_even, np_odd, q8nn_x86_ext_load(x, q8nn_x86_ext_single_s_even),
                                     q8nn_x86_ext_load(x, q8nn_x86_ext_single_s_odd), vzp);
  }
  return q8nn_x86_requantize8_with(
      vacc, q8nn_x86_ext_flag(x, 0), q8nn_x86_ext_load(x, q8nn_x86_ext_lshift), q8nn_x86_ext_flag(x, 1), m_even,
      q8nn_x86_ext_load(x, q8nn_x86_ext_m_odd), q8nn_x86_ext_load(x, q8nn_x86_ext_np_even),
      q8nn_x86_ext_load(x, q8nn_x86_ext_np_odd), q8nn_x86_ext_load(x, q8nn_x86_ext_nn_even),
      q8nn_x86_ext_load(x, q8nn_x86_ext_nn_odd), q8nn_x86_ext_load(x, q8nn_x86_ext_s_even),
      q8nn_x86_ext_load(x, q8nn_x86_ext_s_odd), vzp);
}

/* fp32 requantization of 8 accumulators (see the top of this file): rne((float) acc * scale)
   clamped above to vhi = output_max - zp, in accumulator lane order, zero point not added. */
Q8NN_X86_INLINE __m256i q8nn_x86_requantize8_fp32(__m256i vacc, __m256 vscale, __m256 vhi) {
  return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(vacc), vscale), vhi));
}

/*
 * The guarded epilogue (requantization.h; docs/guarded-epilogue.md) on 8 lanes in accumulator lane
 * order: VCVTDQ2PS, VFMADD213PS (FMA3, which the AVX2 tier requires), VPAND with VPMINUD into the
 * block's flag vector, VPSRAD; VBLENDVPS picks the sign-dependent constant by the
 * accumulator's sign bit (guard 2). A block with a flagged lane is requantized by the exact form
 * instead (its accumulators are kept).
 */
struct q8nn_x86_guard8 {
  __m256 scale, cpos, cneg;
  __m256i window;
};

/* The constants from 8 channels' multipliers and shifts (q8nn_guard_scale / _delta / _eligible:
   AVX2 has no VSCALEFPS, so the power of two goes into the exponent bits; every eligible channel's
   scale is a normal float, and m = 0 gives 0). */
Q8NN_X86_INLINE struct q8nn_x86_guard8 q8nn_x86_guard8_init(const int rounding, __m256i vmult, __m256i vshift,
                                                            __m256 vc0) {
  const __m256i vzero = _mm256_setzero_si256();
  const __m256i vshift23 = _mm256_slli_epi32(vshift, 23);
  const __m256i vmzero = _mm256_cmpeq_epi32(vmult, vzero);
  const __m256i vscale =
      _mm256_andnot_si256(vmzero, _mm256_add_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(vmult)),
                                                   _mm256_sub_epi32(vshift23, _mm256_set1_epi32(31 << 23))));
  /* delta = 2^(shift - 1): exponent bits 126 + shift, where the double rounding shifts right */
  const __m256i vneg = _mm256_cmpgt_epi32(vzero, vshift);
  const __m256i vdelta =
      rounding == 0 ? _mm256_and_si256(vneg, _mm256_add_epi32(vshift23, _mm256_set1_epi32(126 << 23))) : vzero;
  const __m256i veligible = _mm256_and_si256(
      _mm256_and_si256(_mm256_cmpgt_epi32(vshift, _mm256_set1_epi32(-15)), _mm256_cmpgt_epi32(vmult, _mm256_set1_epi32(-1))),
      _mm256_or_si256(vneg, _mm256_and_si256(_mm256_cmpeq_epi32(vshift, vzero), vmzero)));
  struct q8nn_x86_guard8 g;
  g.scale = _mm256_castsi256_ps(vscale);
  g.cpos = _mm256_add_ps(vc0, _mm256_castsi256_ps(vdelta));
  g.cneg = _mm256_sub_ps(vc0, _mm256_castsi256_ps(vdelta));
  g.window = _mm256_and_si256(veligible, _mm256_set1_epi32(Q8NN_GUARD_WINDOW));
  return g;
}

/* The constants of 8 channels from packed scale, delta and window vectors (the AVX2 records'
   slots, the AVX-VNNI header's arrays): delta only for double rounding. */
Q8NN_X86_INLINE struct q8nn_x86_guard8 q8nn_x86_guard8_load(const int rounding, const void* scale, const void* delta,
                                                            const void* window, __m256 vc0) {
  const __m256 vdelta = rounding == 0 ? _mm256_loadu_ps((const float*) delta) : _mm256_setzero_ps();
  struct q8nn_x86_guard8 g;
  g.scale = _mm256_loadu_ps((const float*) scale);
  g.cpos = _mm256_add_ps(vc0, vdelta);
  g.cneg = _mm256_sub_ps(vc0, vdelta);
  g.window = _mm256_loadu_si256((const __m256i*) window);
  return g;
}

/* One vector: y's bits shifted right by 15 (q8nn_x86_pack4x8's rounding 4). *vmin (start: all ones)
   keeps the unsigned minimum of y & window over the vectors: a lane is flagged where that is 0
   (q8nn_x86_guard8_flagged), one VPAND and one VPMINUD per vector where a compare and an or per
   vector were one more. */
Q8NN_X86_INLINE __m256i q8nn_x86_guard8_apply(__m256i vacc, const struct q8nn_x86_guard8* g, const int SIGNED,
                                              __m256i* vmin) {
  const __m256 vc = SIGNED ? _mm256_blendv_ps(g->cpos, g->cneg, _mm256_castsi256_ps(vacc)) : g->cpos;
  const __m256i vy = _mm256_castps_si256(_mm256_fmadd_ps(_mm256_cvtepi32_ps(vacc), g->scale, vc));
  *vmin = _mm256_min_epu32(*vmin, _mm256_and_si256(vy, g->window));
  return _mm256_srai_epi32(vy, 15);
}

/* Some lane behind vmin (q8nn_x86_guard8_apply) was flagged. */
Q8NN_X86_INLINE int q8nn_x86_guard8_flagged(__m256i vmin) {
  const __m256i vzero = _mm256_cmpeq_epi32(vmin, _mm256_setzero_si256());
  return !_mm256_testz_si256(vzero, vzero);
}

/* Output clamp constants; zp16 and fhi serve the fp32 epilogue, zp16h the doubled form. */
struct q8nn_x86_out32 {
  __m256i min8, max8, zp16;
  __m256i zp16h; /* 1 + 2 output_zero_point in int16 lanes (q8nn_x86_packs_doubled) */
  __m256 fhi; /* output_max - output_zero_point */
  /* uint8 activations (ukernel.h): output_flip and input_flip in every byte; zero for int8 */
  __m256i flip8, iflip8;
  /* the guarded epilogue (q8nn_x86_guard8_apply, q8nn_x86_pack4x8's rounding 4) */
  int guard;       /* params->guard (conv kernels; 0 otherwise) */
  __m256 gc0;      /* params->guard_c0 */
  __m256i gbase16; /* Q8NN_GUARD_BASE in every uint16 */
  __m256i gspan8;  /* output_max - output_min in every byte */
  __m256i gadd8;   /* output_min + output_flip in every byte */
};

Q8NN_X86_INLINE struct q8nn_x86_out32 q8nn_x86_out32_init(int32_t output_zero_point, int32_t output_min,
                                                          int32_t output_max) {
  struct q8nn_x86_out32 o;
  o.min8 = _mm256_set1_epi8((char) output_min);
  o.max8 = _mm256_set1_epi8((char) output_max);
  o.zp16 = _mm256_set1_epi16((int16_t) output_zero_point);
  o.zp16h = _mm256_set1_epi16((int16_t) (1 + 2 * output_zero_point));
  o.fhi = _mm256_set1_ps((float) (output_max - output_zero_point));
  o.flip8 = o.iflip8 = _mm256_setzero_si256();
  o.guard = 0;
  o.gc0 = _mm256_setzero_ps();
  o.gbase16 = _mm256_set1_epi16((int16_t) (uint16_t) Q8NN_GUARD_BASE);
  o.gspan8 = _mm256_set1_epi8((char) (output_max - output_min));
  o.gadd8 = _mm256_set1_epi8((char) output_min);
  return o;
}

/* A conv kernel's output constants, with its uint8 flips. */
Q8NN_X86_INLINE struct q8nn_x86_out32 q8nn_x86_out32_init_conv(const struct q8nn_qs8_conv_params* params) {
  struct q8nn_x86_out32 o = q8nn_x86_out32_init(params->output_zero_point, params->output_min, params->output_max);
  o.flip8 = _mm256_set1_epi8((char) params->output_flip);
  o.iflip8 = _mm256_set1_epi8((char) params->input_flip);
  o.guard = params->guard;
  o.gc0 = _mm256_set1_ps(params->guard_c0);
  o.gadd8 = _mm256_set1_epi8((char) (params->output_min + params->output_flip));
  return o;
}

/* Saturating int32 -> int16 pack of a and b with the fp32 epilogue's zero point added (saturating). */
Q8NN_X86_INLINE __m256i q8nn_x86_packs_zp16(__m256i a, __m256i b, const struct q8nn_x86_out32* o) {
  return _mm256_adds_epi16(_mm256_packs_epi32(a, b), o->zp16);
}

/* r + zp saturated to int16 from the doubled forms u0, u1 (q8nn_x86_requantize8_doubled), in
   VPACKSSDW's word order: (sat16(sat16(u) + 1 + 2 zp)) >> 1. Where nothing saturates this is
   floor((u + 1 + 2 zp) / 2) = r + zp; where something does, the int8 pack and clamp that follow give
   the same bytes as for r + zp (the argument at q8nn_x86_pack_rounding, x86-avx512.h). */
Q8NN_X86_INLINE __m256i q8nn_x86_packs_doubled(__m256i u0, __m256i u1, const struct q8nn_x86_out32* o) {
  return _mm256_srai_epi16(_mm256_adds_epi16(_mm256_packs_epi32(u0, u1), o->zp16h), 1);
}

/* The guarded epilogue's output bytes of four vectors of y >> 15 (q8nn_x86_guard8_apply; x86-avx512.h's
   rounding 4): unsigned saturating packs, less Q8NN_GUARD_BASE, the upper clamp as output_max -
   output_min, then + output_min + output_flip. Byte 16 L + 4 j + i is vector j's lane 4 L + i. */
Q8NN_X86_INLINE __m256i q8nn_x86_guard8_bytes(__m256i v0, __m256i v1, __m256i v2, __m256i v3,
                                              const struct q8nn_x86_out32* o) {
  const __m256i v = _mm256_packus_epi16(_mm256_subs_epu16(_mm256_packus_epi32(v0, v1), o->gbase16),
                                        _mm256_subs_epu16(_mm256_packus_epi32(v2, v3), o->gbase16));
  return _mm256_add_epi8(_mm256_min_epu8(v, o->gspan8), o->gadd8);
}

/* Four requantized vectors -> two 16-byte rows: out[0] = v0's 8 lanes then v1's, out[1] = v2's then
   v3's, each vector's merged lane l at byte {0, 2, 4, 6, 1, 3, 5, 7}[l]. rounding 0/1: zero point
   already added (q8nn_x86_requantize8); rounding 2: fp32 results in accumulator lane order, the zero
   point is added here and one byte shuffle applies the merged lane order, so packings made for the
   TFLite epilogue put every channel in place; rounding 3: the doubled form
   (q8nn_x86_requantize8_doubled), in accumulator lane order too, finished here with the zero point;
   rounding 4: the guarded epilogue (q8nn_x86_guard8_apply), accumulator lane order. */
Q8NN_X86_INLINE void q8nn_x86_pack4x8(__m256i v0, __m256i v1, __m256i v2, __m256i v3,
                                      const struct q8nn_x86_out32* o, __m128i* out, const int rounding) {
  __m256i v;
  if (rounding == 4) {
    /* the merge's lane order as for fp32 */
    const __m256i vmerge = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15));
    v = _mm256_shuffle_epi8(q8nn_x86_guard8_bytes(v0, v1, v2, v3, o), vmerge);
    const __m128i lo4 = _mm256_castsi256_si128(v);
    const __m128i hi4 = _mm256_extracti128_si256(v, 1);
    out[0] = _mm_unpacklo_epi8(lo4, hi4);
    out[1] = _mm_unpackhi_epi8(lo4, hi4);
    return;
  }
  if (rounding == 2 || rounding == 3) {
    /* bytes 4g..4g+3 hold lanes 4h..4h+3 of one vector: swapping bytes 1 and 2 of each group is
       the merge's lane order {0, 2, 1, 3} */
    const __m256i vmerge = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15));
    v = rounding == 2 ? _mm256_packs_epi16(q8nn_x86_packs_zp16(v0, v1, o), q8nn_x86_packs_zp16(v2, v3, o))
                      : _mm256_packs_epi16(q8nn_x86_packs_doubled(v0, v1, o), q8nn_x86_packs_doubled(v2, v3, o));
    v = _mm256_shuffle_epi8(v, vmerge);
  } else {
    v = _mm256_packs_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
  }
  v = _mm256_xor_si256(_mm256_min_epi8(_mm256_max_epi8(v, o->min8), o->max8), o->flip8);
  const __m128i lo = _mm256_castsi256_si128(v);
  const __m128i hi = _mm256_extracti128_si256(v, 1);
  out[0] = _mm_unpacklo_epi8(lo, hi);
  out[1] = _mm_unpackhi_epi8(lo, hi);
}

/* Stores n (<= 16) bytes of v. */
Q8NN_X86_INLINE void q8nn_x86_store_tail16(int8_t* p, __m128i v, size_t n) {
  if (n >= 16) {
    _mm_storeu_si128((__m128i*) p, v);
  } else {
    int8_t buf[16];
    _mm_storeu_si128((__m128i*) buf, v);
    q8nn_x86_copy_small(p, buf, n);
  }
}

/* Stores MR rows of NB (1 or 2) requantized 8-channel vectors: nbytes (<= 8 NB) per row. Rows past
   the tile alias the last one (identical bytes). */
Q8NN_X86_INLINE void q8nn_x86_store_rows8(const size_t MR, const size_t NB, __m256i (*v)[2], int8_t* const* crow,
                                          size_t nbytes, const struct q8nn_x86_out32* vout, const int rounding) {
  if (NB == 2) {
#pragma GCC unroll 8
    for (size_t r = 0; r < MR; r += 2) {
      const size_t r1 = r + 1 < MR ? r + 1 : r;
      __m128i vo[2];
      q8nn_x86_pack4x8(v[r][0], v[r][1], v[r1][0], v[r1][1], vout, vo, rounding);
      if (nbytes == 16) {
        _mm_storeu_si128((__m128i*) crow[r], vo[0]);
        _mm_storeu_si128((__m128i*) crow[r1], vo[1]);
      } else {
        q8nn_x86_store_tail16(crow[r], vo[0], nbytes);
        q8nn_x86_store_tail16(crow[r1], vo[1], nbytes);
      }
    }
  } else {
#pragma GCC unroll 8
    for (size_t r = 0; r < MR; r += 4) {
      const size_t r1 = r + 1 < MR ? r + 1 : MR - 1;
      const size_t r2 = r + 2 < MR ? r + 2 : MR - 1;
      const size_t r3 = r + 3 < MR ? r + 3 : MR - 1;
      __m128i vo[2];
      q8nn_x86_pack4x8(v[r][0], v[r1][0], v[r2][0], v[r3][0], vout, vo, rounding);
      if (nbytes == 8) {
        /* _mm_storel_epi64 is an unaligned 8-byte store; _mm_storeh_pd through a double* would
           be a misaligned access in C's terms (UBSan flags it) */
        _mm_storel_epi64((__m128i*) crow[r], vo[0]);
        _mm_storel_epi64((__m128i*) crow[r1], _mm_unpackhi_epi64(vo[0], vo[0]));
        _mm_storel_epi64((__m128i*) crow[r2], vo[1]);
        _mm_storel_epi64((__m128i*) crow[r3], _mm_unpackhi_epi64(vo[1], vo[1]));
      } else {
        q8nn_x86_store_tail16(crow[r], vo[0], nbytes);
        q8nn_x86_store_tail16(crow[r1], _mm_unpackhi_epi64(vo[0], vo[0]), nbytes);
        q8nn_x86_store_tail16(crow[r2], vo[1], nbytes);
        q8nn_x86_store_tail16(crow[r3], _mm_unpackhi_epi64(vo[1], vo[1]), nbytes);
      }
    }
  }
}

/* 16 bytes at p, or n < 16 bytes zero-extended (never reads past p + n). */
Q8NN_X86_INLINE __m128i q8nn_x86_load_tail16(const int8_t* p, size_t n) {
  if (n >= 16) return _mm_loadu_si128((const __m128i*) p);
  const uint64_t lo = q8nn_x86_load_small_u64(p, n);
  const uint64_t hi = n > 8 ? q8nn_x86_load_small_u64(p + 8, n - 8) : 0;
  return _mm_set_epi64x((long long) hi, (long long) lo);
}

/* 32 bytes at p, or n < 32 bytes zero-extended (never reads past p + n). */
Q8NN_X86_INLINE __m256i q8nn_x86_load_tail32(const int8_t* p, size_t n) {
  if (n >= 32) return _mm256_loadu_si256((const __m256i*) p);
  const __m128i lo = q8nn_x86_load_tail16(p, n);
  const __m128i hi = n > 16 ? q8nn_x86_load_tail16(p + 16, n - 16) : _mm_setzero_si128();
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

/* Depthwise, 32 channels in 4 ymm (the AVX-VNNI kernels and the AVX-512 kernels' 32-channel tile):
   rows x0..x3 byte/word interleaved with the in-lane unpacks, so that vector j 128-bit half L dword i
   holds the 4 bytes (x0..x3) of channel 16 L + 4 j + i. */
Q8NN_X86_INLINE void q8nn_x86_dw_interleave4_y(__m256i x0, __m256i x1, __m256i x2, __m256i x3, __m256i* out) {
  const __m256i t0 = _mm256_unpacklo_epi8(x0, x1);
  const __m256i t1 = _mm256_unpackhi_epi8(x0, x1);
  const __m256i t2 = _mm256_unpacklo_epi8(x2, x3);
  const __m256i t3 = _mm256_unpackhi_epi8(x2, x3);
  out[0] = _mm256_unpacklo_epi16(t0, t2);
  out[1] = _mm256_unpackhi_epi16(t0, t2);
  out[2] = _mm256_unpacklo_epi16(t1, t3);
  out[3] = _mm256_unpackhi_epi16(t1, t3);
}

/* Tap group g's 4 weight rows of 32 channels (rows row_bytes apart from wt; rows past taps are zero
   weights), interleaved as q8nn_x86_dw_interleave4_y: the AVX-VNNI kernels' and the AVX-512
   32-channel tile's groups past the ones they keep in registers. */
Q8NN_X86_INLINE void q8nn_x86_dw_weights_y(const int8_t* wt, size_t row_bytes, size_t g, size_t taps, __m256i* out) {
  __m256i w[4];
#pragma GCC unroll 4
  for (size_t i = 0; i < 4; i++) {
    w[i] = 4 * g + i < taps ? _mm256_loadu_si256((const __m256i*) (wt + (4 * g + i) * row_bytes))
                            : _mm256_setzero_si256();
  }
  q8nn_x86_dw_interleave4_y(w[0], w[1], w[2], w[3], out);
}

/* Natural int32 [32] at p -> accumulator order: acc j = channels {4j..4j+3 | 16+4j..16+4j+3}. */
Q8NN_X86_INLINE void q8nn_x86_dw_header_y(const uint8_t* p, __m256i* out) {
  const __m256i n0 = _mm256_loadu_si256((const __m256i*) p);
  const __m256i n1 = _mm256_loadu_si256((const __m256i*) (p + 32));
  const __m256i n2 = _mm256_loadu_si256((const __m256i*) (p + 64));
  const __m256i n3 = _mm256_loadu_si256((const __m256i*) (p + 96));
  out[0] = _mm256_permute2x128_si256(n0, n2, 0x20);
  out[1] = _mm256_permute2x128_si256(n0, n2, 0x31);
  out[2] = _mm256_permute2x128_si256(n1, n3, 0x20);
  out[3] = _mm256_permute2x128_si256(n1, n3, 0x31);
}

/* The slides test (x86-common.h) as two VPCMPEQQ of pointer lanes: in[0..3] against last[1..4]
   (lanes 0, 1 and 3 count) and in[4..7] against last[5..8] (lanes 0, 2 and 3), so the tested taps are
   0, 1, 3, 4, 6 and 7 (mask 0xDB, as the AVX-512 form). Reads nothing past in[7] or last[8]. The
   scalar test was six compare-and-branch pairs per pixel beside the vector work. */
Q8NN_X86_INLINE int q8nn_x86_dw9_slides_y(const int8_t* const* last, const int8_t* const* in) {
  const __m256i e0 = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i*) in),
                                        _mm256_loadu_si256((const __m256i*) (last + 1)));
  const __m256i e1 = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i*) (in + 4)),
                                        _mm256_loadu_si256((const __m256i*) (last + 5)));
  const int m = _mm256_movemask_pd(_mm256_castsi256_pd(e0)) | _mm256_movemask_pd(_mm256_castsi256_pd(e1)) << 4;
  return (m & 0xDB) == 0xDB;
}

/* The slides2 test: in[0..3] against last[2..5] (lanes 0 and 3), and in[6] against last[8]. */
Q8NN_X86_INLINE int q8nn_x86_dw9_slides2_y(const int8_t* const* last, const int8_t* const* in) {
  const __m256i e0 = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i*) in),
                                        _mm256_loadu_si256((const __m256i*) (last + 2)));
  return (_mm256_movemask_pd(_mm256_castsi256_pd(e0)) & 0x9) == 0x9 && in[6] == last[8];
}

#endif
