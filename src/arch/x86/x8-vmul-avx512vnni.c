/*
 * Multiply of two dense operands, AVX-512 (F/BW/VL; listed with the AVX-512 VNNI tier, whose flags
 * and helpers it shares): the arithmetic of multiply-nd.c's table, computed instead of looked up,
 * 64 elements a step. Per 16 elements: VPMOVSXBD of each operand (XORed with input_flip first for
 * uint8), minus its zero point, VPMULLD (|product| <= 65536), then
 *   - PyTorch's and XNNPACK's float forms (mul_float): VCVTDQ2PS, VMULPS by mul_scale, VCVTPS2DQ
 *     (MXCSR's round to nearest even, as nearbyintf); the zero point is added after VPACKSSDW with
 *     saturation (VPADDSW), so a result beyond int16 saturates past the clamp as the reference's
 *     int64 sum clamps;
 *   - TFLite's MultiplyByQuantizedMultiplier (output_multiplier, output_shift) through the guarded
 *     epilogue where mul_guard is set (x86-avx512.h, q8nn_x86_guard16_apply: the product is the
 *     accumulator, exact in float; the unsigned packs and the clamp of the convolutions' rounding
 *     4), a step of 64 with a flagged lane (about 2^-13 of the lanes) taking the exact form;
 *   - or x86-avx512.h's exact double rounding (left shifts wrap in int32 as TFLite's), the zero
 *     point added in wrapping int32 as TFLite does, then VPACKSSDW;
 * then VPACKSSWB, the byte clamp, and output_flip. The bytes equal the table's on every pair
 * (test_multiply). Masked loads and stores (the tail is one more step): exactly n bytes read from
 * each operand and written to y; y may alias a or b (each step reads before it writes).
 */
#include <immintrin.h>
#include <string.h>

#include "kernel-decls.h"
#include "x86-avx512.h"

struct vmul16 {
  __m128i iflip;
  __m512i za, zb, zp32;
  __m512 scale;
  struct q8nn_x86_rq16 rq;
  struct q8nn_x86_guard16 g;
  __m512i zp16, lo, hi, oflip, order;
  __m512i gbase16, gspan8, gadd8; /* the guarded stage (q8nn_x86_pack64's rounding 4) */
};

/* 16 products (a - za) (b - zb) */
static inline __m512i vprod16(__m128i xa, __m128i xb, const struct vmul16* c) {
  const __m512i va = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_xor_si128(xa, c->iflip)), c->za);
  const __m512i vb = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_xor_si128(xb, c->iflip)), c->zb);
  return _mm512_mullo_epi32(va, vb);
}

/* 16 results as int32 before the zero point (float forms) or with it (TFLite) */
static inline __m512i vreq16(__m512i vp, const struct vmul16* c, const int fl) {
  if (fl) return _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_cvtepi32_ps(vp), c->scale));
  return _mm512_add_epi32(q8nn_x86_requantize_rdouble(vp, &c->rq), c->zp32);
}

/* int32 lanes to int16 with saturation, plus the zero point where the float forms left it out */
static inline __m512i pack16(__m512i r0, __m512i r1, __m512i zp16, const int fl) {
  const __m512i v = _mm512_packs_epi32(r0, r1);
  return fl ? _mm512_adds_epi16(v, zp16) : v;
}

/* 64 output bytes of a and b (masked: only the lanes of k are loaded); mode: Q8NN_VMUL_BY_MODE
   (ukernel.h). */
static inline __m512i vmul64(const int8_t* a, const int8_t* b, __mmask64 k, const int masked, const struct vmul16* c,
                             const int mode) {
  const int fl = mode == 1;
  __m512i p[4], r[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) {
    const __mmask16 kj = (__mmask16) (k >> (16 * j));
    const __m128i xa = masked ? _mm_maskz_loadu_epi8(kj, a + 16 * j) : _mm_loadu_si128((const __m128i*) (a + 16 * j));
    const __m128i xb = masked ? _mm_maskz_loadu_epi8(kj, b + 16 * j) : _mm_loadu_si128((const __m128i*) (b + 16 * j));
    p[j] = vprod16(xa, xb, c);
  }
  if (mode >= 2) {
    __mmask16 kclear[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) r[j] = q8nn_x86_guard16_apply(p[j], &c->g, mode == 3, &kclear[j]);
    if (!Q8NN_UNLIKELY(q8nn_x86_guard_flagged(q8nn_x86_guard_all(4, kclear)))) {
      /* 34560 + T - lo: unsigned packs, less the base (the lower clamp), the upper clamp as the
         span, + output_min + output_flip */
      const __m512i v = _mm512_packus_epi16(_mm512_subs_epu16(_mm512_packus_epi32(r[0], r[1]), c->gbase16),
                                            _mm512_subs_epu16(_mm512_packus_epi32(r[2], r[3]), c->gbase16));
      return _mm512_add_epi8(_mm512_min_epu8(_mm512_permutexvar_epi32(c->order, v), c->gspan8), c->gadd8);
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) r[j] = vreq16(p[j], c, fl);
  const __m512i v = _mm512_packs_epi16(pack16(r[0], r[1], c->zp16, fl), pack16(r[2], r[3], c->zp16, fl));
  const __m512i clamped = _mm512_min_epi8(_mm512_max_epi8(_mm512_permutexvar_epi32(c->order, v), c->lo), c->hi);
  return _mm512_xor_si512(clamped, c->oflip);
}

/* mode: Q8NN_VMUL_BY_MODE (ukernel.h) */
static inline void vmul(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                        const struct q8nn_qs8_add_params* params, const int mode) {
  struct vmul16 c;
  c.iflip = _mm_set1_epi8((char) params->input_flip);
  c.za = _mm512_set1_epi32(params->a_zero_point);
  c.zb = _mm512_set1_epi32(params->b_zero_point);
  c.zp32 = _mm512_set1_epi32(params->output_zero_point);
  c.scale = _mm512_set1_ps(params->mul_scale);
  if (mode != 1) {
    c.rq = q8nn_x86_rq16_init_rdouble(_mm512_set1_epi32(params->output_multiplier),
                                      _mm512_set1_epi32(params->output_shift));
  } else {
    memset(&c.rq, 0, sizeof(c.rq)); /* not read by the float forms */
  }
  if (mode >= 2) {
    c.g = q8nn_x86_guard16_init(0, _mm512_set1_epi32(params->output_multiplier),
                                _mm512_set1_epi32(params->output_shift), _mm512_set1_ps(params->mul_guard_c0));
  }
  c.gbase16 = _mm512_set1_epi16((int16_t) (uint16_t) Q8NN_GUARD_BASE);
  c.gspan8 = _mm512_set1_epi8((char) (params->output_max - params->output_min));
  c.gadd8 = _mm512_set1_epi8((char) (params->output_min + params->output_flip));
  c.zp16 = _mm512_set1_epi16((int16_t) params->output_zero_point);
  c.lo = _mm512_set1_epi8((char) params->output_min);
  c.hi = _mm512_set1_epi8((char) params->output_max);
  c.oflip = _mm512_set1_epi8((char) params->output_flip);
  /* VPACKSS* interleave 128-bit lanes: dword 4L + j of the packed vector is lane L of vector j */
  c.order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
  for (; n >= 64; n -= 64, a += 64, b += 64, y += 64) {
    _mm512_storeu_si512(y, vmul64(a, b, ~(__mmask64) 0, 0, &c, mode));
  }
  if (n != 0) { /* the tail: one step of masked loads and a masked store */
    const __mmask64 k = _bzhi_u64(~(uint64_t) 0, (unsigned) n);
    _mm512_mask_storeu_epi8(y, k, vmul64(a, b, k, 1, &c, mode));
  }
}

void q8nn_x8_vmul_ukernel__avx512vnni(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                      const struct q8nn_qs8_add_params* params) {
#define Q8NN_VMUL_RUN(mode) vmul(n, a, b, y, params, mode)
  Q8NN_VMUL_BY_MODE(Q8NN_VMUL_RUN, params)
#undef Q8NN_VMUL_RUN
}
