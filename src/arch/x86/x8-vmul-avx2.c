/*
 * Multiply of two dense operands, AVX2: the arithmetic of multiply-nd.c's table, computed instead
 * of looked up, 32 elements a step, as the AVX-512 kernel (x8-vmul-avx512vnni.c) on 8 lanes:
 * VPMOVSXBD of each operand (XORed with input_flip first), minus its zero point, VPMULLD, then
 *   - PyTorch's and XNNPACK's float forms (VCVTDQ2PS, VMULPS, VCVTPS2DQ; the zero point added after
 *     VPACKSSDW with saturation);
 *   - TFLite's, through the guarded epilogue where mul_guard is set (x86-avx2.h, q8nn_x86_guard8_*:
 *     VCVTDQ2PS, VFMADD, VPAND and VPMINUD for the flag, VPSRAD; the product is the accumulator,
 *     exact in float), the unsigned packs and the clamp as the convolutions' rounding 4; a step
 *     with a flagged lane (about 2^-13 of the lanes) takes the exact form instead;
 *   - or TFLite's exact double rounding (x86-avx2.h, the zero point added in wrapping int32; its
 *     lanes come back in merged order, put back by one VPSHUFD);
 * then VPACKSSWB, the byte clamp and output_flip. The tail (fewer than 32 elements) is one step on
 * zero-padded copies (it looked each pair up in the table: on MobileNetV3's 120-channel gate, 24
 * of every 120 bytes). y may alias a or b (each step reads before it writes).
 */
#include <immintrin.h>
#include <string.h>

#include "kernel-decls.h"
#include "x86-avx2.h"

struct vmul8 {
  __m128i iflip;
  __m256i za, zb;
  __m256 scale;
  struct q8nn_x86_rq8 rq;
  struct q8nn_x86_guard8 g;
  __m256i gbase16, gspan8, gadd8; /* the guarded stage */
  __m256i zp16, lo, hi, oflip;    /* the others' */
};

/* The 8 products (a - za) (b - zb) */
static inline __m256i vprod8(const int8_t* a, const int8_t* b, const struct vmul8* c) {
  const __m128i xa = _mm_xor_si128(_mm_loadl_epi64((const __m128i*) a), c->iflip);
  const __m128i xb = _mm_xor_si128(_mm_loadl_epi64((const __m128i*) b), c->iflip);
  return _mm256_mullo_epi32(_mm256_sub_epi32(_mm256_cvtepi8_epi32(xa), c->za),
                            _mm256_sub_epi32(_mm256_cvtepi8_epi32(xb), c->zb));
}

/* 8 results of the float forms (fl) or TFLite's exact form from the products */
static inline __m256i vreq8(__m256i vp, const struct vmul8* c, const int fl) {
  if (fl) return _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(vp), c->scale));
  /* merged lanes {0, 2, 1, 3} per half back to {0, 1, 2, 3} */
  return _mm256_shuffle_epi32(q8nn_x86_requantize8(vp, &c->rq, 0), _MM_SHUFFLE(3, 1, 2, 0));
}

static inline __m256i pack8(__m256i r0, __m256i r1, __m256i zp16, const int fl) {
  const __m256i v = _mm256_packs_epi32(r0, r1);
  return fl ? _mm256_adds_epi16(v, zp16) : v;
}

/* 32 results of a and b into y; mode: Q8NN_VMUL_BY_MODE (ukernel.h). */
static inline void step32(const int8_t* a, const int8_t* b, int8_t* y, const struct vmul8* c, const int mode) {
  const int fl = mode == 1;
  /* VPACKSS* work within 128-bit halves: dword 4h + j of the packed vector is half h of vector j */
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i p0 = vprod8(a, b, c), p1 = vprod8(a + 8, b + 8, c);
  const __m256i p2 = vprod8(a + 16, b + 16, c), p3 = vprod8(a + 24, b + 24, c);
  if (mode >= 2) {
    __m256i vmin = _mm256_set1_epi32(-1);
    const __m256i u0 = q8nn_x86_guard8_apply(p0, &c->g, mode == 3, &vmin);
    const __m256i u1 = q8nn_x86_guard8_apply(p1, &c->g, mode == 3, &vmin);
    const __m256i u2 = q8nn_x86_guard8_apply(p2, &c->g, mode == 3, &vmin);
    const __m256i u3 = q8nn_x86_guard8_apply(p3, &c->g, mode == 3, &vmin);
    if (!Q8NN_UNLIKELY(q8nn_x86_guard8_flagged(vmin))) {
      /* 34560 + T - lo: unsigned packs, less the base (the lower clamp), the upper clamp as the
         span, + output_min + output_flip (q8nn_x86_pack4x8's rounding 4) */
      __m256i v = _mm256_packus_epi16(_mm256_subs_epu16(_mm256_packus_epi32(u0, u1), c->gbase16),
                                      _mm256_subs_epu16(_mm256_packus_epi32(u2, u3), c->gbase16));
      v = _mm256_min_epu8(_mm256_permutevar8x32_epi32(v, order), c->gspan8);
      _mm256_storeu_si256((__m256i*) y, _mm256_add_epi8(v, c->gadd8));
      return;
    }
  }
  const __m256i r0 = vreq8(p0, c, fl), r1 = vreq8(p1, c, fl);
  const __m256i r2 = vreq8(p2, c, fl), r3 = vreq8(p3, c, fl);
  __m256i v = _mm256_packs_epi16(pack8(r0, r1, c->zp16, fl), pack8(r2, r3, c->zp16, fl));
  v = _mm256_min_epi8(_mm256_max_epi8(_mm256_permutevar8x32_epi32(v, order), c->lo), c->hi);
  _mm256_storeu_si256((__m256i*) y, _mm256_xor_si256(v, c->oflip));
}

/* mode: Q8NN_VMUL_BY_MODE (ukernel.h) */
static inline void vmul(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                        const struct q8nn_qs8_add_params* params, const int mode) {
  struct vmul8 c;
  c.iflip = _mm_set1_epi8((char) params->input_flip);
  c.za = _mm256_set1_epi32(params->a_zero_point);
  c.zb = _mm256_set1_epi32(params->b_zero_point);
  c.scale = _mm256_set1_ps(params->mul_scale);
  if (mode != 1) {
    c.rq = q8nn_x86_rq8_init_rdouble(_mm256_set1_epi32(params->output_multiplier),
                                     _mm256_set1_epi32(params->output_shift), params->output_zero_point);
  } else {
    memset(&c.rq, 0, sizeof(c.rq)); /* not read by the float forms */
  }
  if (mode >= 2) {
    c.g = q8nn_x86_guard8_init(0, _mm256_set1_epi32(params->output_multiplier), _mm256_set1_epi32(params->output_shift),
                               _mm256_set1_ps(params->mul_guard_c0));
  }
  c.gbase16 = _mm256_set1_epi16((int16_t) (uint16_t) Q8NN_GUARD_BASE);
  c.gspan8 = _mm256_set1_epi8((char) (params->output_max - params->output_min));
  c.gadd8 = _mm256_set1_epi8((char) (params->output_min + params->output_flip));
  c.zp16 = _mm256_set1_epi16((int16_t) params->output_zero_point);
  c.lo = _mm256_set1_epi8((char) params->output_min), c.hi = _mm256_set1_epi8((char) params->output_max);
  c.oflip = _mm256_set1_epi8((char) params->output_flip);
  for (; n >= 32; n -= 32, a += 32, b += 32, y += 32) step32(a, b, y, &c, mode);
  if (n != 0) {
    /* the last 1..31 elements through a zero-padded copy (AVX2 has no masked byte loads) */
    int8_t ta[32] = {0}, tb[32] = {0}, ty[32];
    memcpy(ta, a, n);
    memcpy(tb, b, n);
    step32(ta, tb, ty, &c, mode);
    memcpy(y, ty, n);
  }
}

void q8nn_x8_vmul_ukernel__avx2(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                const struct q8nn_qs8_add_params* params) {
#define Q8NN_VMUL_RUN(mode) vmul(n, a, b, y, params, mode)
  Q8NN_VMUL_BY_MODE(Q8NN_VMUL_RUN, params)
#undef Q8NN_VMUL_RUN
}
