/*
 * AVX-512 TFLite int8 add, 64 elements per iteration (4 x 16 int32 lanes), vadd and vaddc.
 * Per element: (x - zp) << left_shift, then the double-rounding requantization of each input and
 * of the sum, all in registers with the exact arithmetic of x86-avx512.h (left_shift <= 20 and
 * |x - zp| <= 255 keep every value within int32; input and output shifts are <= 0).
 * Tails: masked loads and stores, exactly n bytes read from a (and b) and written to y. y may
 * alias a or b: each 64-byte chunk is read before it is written.
 * Listed with the AVX-512 VNNI bit because it shares that family's flags and helpers; it uses
 * only AVX-512 F/BW/DQ.
 *
 * XNNPACK's qs8 add arithmetic (Q8NN_FLAG_XNNPACK_ADD), the _xnn_ kernels, same tiling and tails:
 * acc = a * xnn_a_multiplier + b * xnn_b_multiplier + xnn_bias in int32 (VPMULLD; |acc| < 2^31, see
 * ukernel.h), VPSRAD by xnn_shift, then the saturating output stage of q8nn_x86_pack64 (rounding 2):
 * |acc >> shift| < 2^19, so VPACKSSDW/VPADDSW/VPACKSSWB saturate only beyond the int8 range and the
 * byte clamp gives clamp(acc >> shift, min - zp, max - zp) + zp exactly. vaddc folds b's term into
 * the bias once.
 *
 * The TFLite kernels run the guarded linear form where the operator found one (linear_guard != 0,
 * ukernel.h: no exact linear form, e.g. MLCommons' CIFAR-10 ResNet's first add): the xnn loop, and a
 * chunk where any lane's sum lies in the guard is recomputed by the exact path. 16384 elements:
 * 3.1x (AVX-512) and 3.3x (AVX2) faster than the exact path alone (before and after, Intel host).
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx512.h"

struct q8nn_x86_add_consts {
  __m512i za, zb, lshift;
  struct q8nn_x86_rq16 ra, rb, ro;
  struct q8nn_x86_out64 out;
};

Q8NN_X86_INLINE struct q8nn_x86_add_consts q8nn_x86_add_init(const struct q8nn_qs8_add_params* p) {
  struct q8nn_x86_add_consts c;
  c.za = _mm512_set1_epi32(p->a_zero_point);
  c.zb = _mm512_set1_epi32(p->b_zero_point);
  c.lshift = _mm512_set1_epi32(p->left_shift);
  c.ra = q8nn_x86_rq16_init_rdouble(_mm512_set1_epi32(p->a_multiplier), _mm512_set1_epi32(p->a_shift));
  c.rb = q8nn_x86_rq16_init_rdouble(_mm512_set1_epi32(p->b_multiplier), _mm512_set1_epi32(p->b_shift));
  c.ro = q8nn_x86_rq16_init_rdouble(_mm512_set1_epi32(p->output_multiplier), _mm512_set1_epi32(p->output_shift));
  c.out.zp32 = _mm512_set1_epi32(p->output_zero_point);
  c.out.flip8 = _mm512_set1_epi8((char) p->output_flip);
  c.out.zp16 = _mm512_setzero_si512();
  c.out.fhi = _mm512_setzero_ps();
  c.out.min8 = _mm512_set1_epi8((int8_t) p->output_min);
  c.out.max8 = _mm512_set1_epi8((int8_t) p->output_max);
  return c;
}

/* 16 int8 (in the low 128 bits of x, sign-extended) -> requantized input term. */
Q8NN_X86_INLINE __m512i q8nn_x86_add_input(__m128i x, __m512i vzp, const struct q8nn_x86_add_consts* c,
                                           const struct q8nn_x86_rq16* rq) {
  const __m512i v = _mm512_sllv_epi32(_mm512_sub_epi32(_mm512_cvtepi8_epi32(x), vzp), c->lshift);
  return q8nn_x86_requantize_rdouble(v, rq);
}

/* 128-bit block j of v. A switch over literal immediates: the intrinsic needs a constant expression,
   which a loop index is not at -O0; optimised builds fold the switch away. */
Q8NN_X86_INLINE __m128i q8nn_x86_extract128(__m512i v, size_t j) {
  switch (j) {
    case 0: return _mm512_extracti32x4_epi32(v, 0);
    case 1: return _mm512_extracti32x4_epi32(v, 1);
    case 2: return _mm512_extracti32x4_epi32(v, 2);
    default: return _mm512_extracti32x4_epi32(v, 3);
  }
}

/* b_term: NULL for vadd; the broadcast requantized b for vaddc. */
Q8NN_X86_INLINE void q8nn_x86_vadd(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                   const struct q8nn_qs8_add_params* params, int broadcast_b) {
  const struct q8nn_x86_add_consts c = q8nn_x86_add_init(params);
  /* uint8 operands: each byte ^ 0x80 (ukernel.h); one XOR per 64 bytes beside three rescales */
  const __m512i vflip = _mm512_set1_epi8((char) params->input_flip);
  __m512i vbterm = _mm512_setzero_si512();
  if (broadcast_b) {
    vbterm = q8nn_x86_add_input(_mm_set1_epi8((char) (b[0] ^ params->input_flip)), c.zb, &c, &c.rb);
  }
  while (n != 0) {
    const size_t chunk = n < 64 ? n : 64;
    const __mmask64 k = q8nn_x86_mask64(chunk);
    const __m512i va = _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, a), vflip);
    const __m512i vb = broadcast_b ? _mm512_setzero_si512() : _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, b), vflip);
    __m512i vsum[4];
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      const __m512i ta = q8nn_x86_add_input(q8nn_x86_extract128(va, j), c.za, &c, &c.ra);
      const __m512i tb = broadcast_b ? vbterm : q8nn_x86_add_input(q8nn_x86_extract128(vb, j), c.zb, &c, &c.rb);
      vsum[j] = q8nn_x86_requantize_rdouble(_mm512_add_epi32(ta, tb), &c.ro);
    }
    _mm512_mask_storeu_epi8(y, k, q8nn_x86_pack64(vsum[0], vsum[1], vsum[2], vsum[3], &c.out, 1, 0));
    a += chunk;
    if (!broadcast_b) b += chunk;
    y += chunk;
    n -= chunk;
  }
}

/* 16 operand bytes at p as int32, extended straight from memory: int8 sign-extended, or (FLIP,
   uint8 operands) zero-extended, which is the int8 value x - 128 plus 128: the whole-chunk loop
   takes those 128s out of its bias instead of flipping the bytes. */
Q8NN_X86_INLINE __m512i q8nn_x86_add_load16(const int8_t* p, const int FLIP) {
  const __m128i x = _mm_loadu_si128((const __m128i*) p);
  return FLIP ? _mm512_cvtepu8_epi32(x) : _mm512_cvtepi8_epi32(x);
}

/* GUARD: TFLite's arithmetic through the guarded linear form (ukernel.h, linear_guard): a chunk with
   a lane whose sum has (acc & linear_guard) == 0 is computed by q8nn_x86_vadd instead (before
   anything of it is stored, so y may still alias a or b). FLIP: uint8 operands and output. */
Q8NN_X86_INLINE void q8nn_x86_vadd_xnn(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                       const struct q8nn_qs8_add_params* p, int broadcast_b, const int GUARD,
                                       const int FLIP) {
  const __m512i vma = _mm512_set1_epi32(p->xnn_a_multiplier);
  const __m512i vmb = _mm512_set1_epi32(p->xnn_b_multiplier);
  const __m512i vflip = _mm512_set1_epi8((char) p->input_flip);
  /* vaddc: b's term is the same for every element (the sum is exact in int32, see ukernel.h) */
  const int32_t b0 = broadcast_b ? (int8_t) (b[0] ^ p->input_flip) : 0;
  const __m512i vbias = _mm512_set1_epi32(broadcast_b ? p->xnn_bias + b0 * p->xnn_b_multiplier : p->xnn_bias);
  /* FLIP: the whole-chunk loop's bias without the zero-extended operands' 128s; its sums equal the
     int8 ones modulo 2^32, and those fit int32 (ukernel.h), so the wrapped partial sums are exact */
  const uint32_t extended = 128u * ((uint32_t) p->xnn_a_multiplier + (broadcast_b ? 0u : (uint32_t) p->xnn_b_multiplier));
  const __m512i vbias_u8 = _mm512_sub_epi32(vbias, _mm512_set1_epi32((int32_t) extended));
  const __m128i vshift = _mm_cvtsi32_si128((int) p->xnn_shift);
  const __m512i vguard = _mm512_set1_epi32((int32_t) p->linear_guard);
  struct q8nn_x86_out64 out;
  out.zp16 = _mm512_set1_epi16((int16_t) p->output_zero_point);
  out.min8 = _mm512_set1_epi8((int8_t) p->output_min);
  out.max8 = _mm512_set1_epi8((int8_t) p->output_max);
  out.flip8 = _mm512_set1_epi8((char) p->output_flip);
  /* Whole chunks: each 16 bytes sign-extended straight from memory (VPMOVSXBD m128), no 128-bit
     extracts: the extracts, sign extensions, VPMULLDs, shifts and packs all issue at two per cycle
     on the AVX-512 host, and the extracts were 6 of 30 such instructions per 64 elements. */
  for (; n >= 64; n -= 64) {
    __m512i vacc[4];
    __mmask16 guarded = 0;
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      vacc[j] = _mm512_add_epi32(FLIP ? vbias_u8 : vbias, _mm512_mullo_epi32(q8nn_x86_add_load16(a + 16 * j, FLIP), vma));
      if (!broadcast_b) {
        vacc[j] = _mm512_add_epi32(vacc[j], _mm512_mullo_epi32(q8nn_x86_add_load16(b + 16 * j, FLIP), vmb));
      }
      if (GUARD) guarded |= _mm512_testn_epi32_mask(vacc[j], vguard);
      vacc[j] = _mm512_sra_epi32(vacc[j], vshift);
    }
    if (GUARD && guarded != 0) {
      q8nn_x86_vadd(64, a, b, y, p, broadcast_b);
    } else {
      _mm512_storeu_si512(y, q8nn_x86_pack64(vacc[0], vacc[1], vacc[2], vacc[3], &out, 1, 2));
    }
    a += 64;
    if (!broadcast_b) b += 64;
    y += 64;
  }
  while (n != 0) {
    const size_t chunk = n < 64 ? n : 64;
    const __mmask64 k = q8nn_x86_mask64(chunk);
    const __m512i va = _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, a), vflip);
    const __m512i vb = broadcast_b ? _mm512_setzero_si512() : _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, b), vflip);
    __m512i vacc[4];
    __mmask16 guarded = 0;
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      vacc[j] = _mm512_add_epi32(vbias, _mm512_mullo_epi32(_mm512_cvtepi8_epi32(q8nn_x86_extract128(va, j)), vma));
      if (!broadcast_b) {
        vacc[j] = _mm512_add_epi32(vacc[j], _mm512_mullo_epi32(_mm512_cvtepi8_epi32(q8nn_x86_extract128(vb, j)), vmb));
      }
      /* only the chunk's lanes: the zeros loaded past it must not send it to the exact path */
      if (GUARD) guarded |= _mm512_mask_testn_epi32_mask((__mmask16) (k >> (16 * j)), vacc[j], vguard);
      vacc[j] = _mm512_sra_epi32(vacc[j], vshift);
    }
    if (GUARD && guarded != 0) {
      q8nn_x86_vadd(chunk, a, b, y, p, broadcast_b);
    } else {
      _mm512_mask_storeu_epi8(y, k, q8nn_x86_pack64(vacc[0], vacc[1], vacc[2], vacc[3], &out, 1, 2));
    }
    a += chunk;
    if (!broadcast_b) b += chunk;
    y += chunk;
    n -= chunk;
  }
}

void q8nn_qs8_vadd_minmax_xnn_ukernel__avx512vnni_u64(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                      const struct q8nn_qs8_add_params* params) {
  if (params->input_flip != 0) {
    q8nn_x86_vadd_xnn(n, a, b, y, params, 0, 0, 1);
  } else {
    q8nn_x86_vadd_xnn(n, a, b, y, params, 0, 0, 0);
  }
}

void q8nn_qs8_vaddc_minmax_xnn_ukernel__avx512vnni_u64(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                       const struct q8nn_qs8_add_params* params) {
  if (params->input_flip != 0) {
    q8nn_x86_vadd_xnn(n, a, b, y, params, 1, 0, 1);
  } else {
    q8nn_x86_vadd_xnn(n, a, b, y, params, 1, 0, 0);
  }
}

/* TFLite's arithmetic: the guarded linear form where the operator found one, else the exact path. */
Q8NN_X86_DEFINE_VADD_TFLITE(q8nn_qs8_vadd_minmax_ukernel__avx512vnni_u64, q8nn_x86_vadd_xnn, q8nn_x86_vadd, 0)
Q8NN_X86_DEFINE_VADD_TFLITE(q8nn_qs8_vaddc_minmax_ukernel__avx512vnni_u64, q8nn_x86_vadd_xnn, q8nn_x86_vadd, 1)
