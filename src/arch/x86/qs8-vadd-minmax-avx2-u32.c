/*
 * AVX2 TFLite int8 add, 32 elements per iteration (4 ymm of 8 int32 lanes), vadd and vaddc.
 * Per element: (x - zp) << left_shift, the double-rounding requantization of each input and of the
 * sum, all with the exact ymm arithmetic of x86-avx2.h (left_shift <= 20 and |x - zp| <= 255 keep
 * every value within int32; input and output shifts are <= 0). The input terms get output zero
 * point 0 (only the epilogue's bias constant is removed). The epilogue's lane permutation
 * {0, 2, 1, 3, ...} is an involution, so after the inputs' and the sum's requantization lanes are
 * back in element order; one VPERMD fixes the order of the final packs.
 * Tails: the last < 32 elements of a (and b) are copied through a 32-byte buffer and the result
 * stored through one: exactly n bytes read from each operand and written to y. y may alias a or b:
 * each chunk is read before it is written.
 *
 * XNNPACK's qs8 add arithmetic (Q8NN_FLAG_XNNPACK_ADD), the _xnn_ kernels, same tiling and tails:
 * acc = a * xnn_a_multiplier + b * xnn_b_multiplier + xnn_bias in int32 (VPMULLD; |acc| < 2^31, see
 * ukernel.h), VPSRAD by xnn_shift; |acc >> shift| < 2^19, so the saturating VPACKSSDW, VPADDSW (zero
 * point) and VPACKSSWB saturate only outside int8 and the byte clamp gives
 * clamp(acc >> shift, min - zp, max - zp) + zp exactly. vaddc folds b's term into the bias once.
 *
 * The TFLite kernels run the guarded linear form where the operator found one (linear_guard != 0,
 * ukernel.h: no exact linear form, e.g. MLCommons' CIFAR-10 ResNet's first add): the xnn loop, and a
 * chunk where any lane's sum lies in the guard is recomputed by the exact path. 16384 elements:
 * 3.1x (AVX-512) and 3.3x (AVX2) faster than the exact path alone (before and after, Intel host).
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx2.h"

struct q8nn_x86_add8_consts {
  __m256i za, zb, lshift;
  struct q8nn_x86_rq8 ra, rb, ro;
  struct q8nn_x86_out32 out;
};

Q8NN_X86_INLINE __m256i q8nn_x86_add8_input(__m128i x8, __m256i vzp, const struct q8nn_x86_add8_consts* c,
                                            const struct q8nn_x86_rq8* rq) {
  const __m256i v = _mm256_sllv_epi32(_mm256_sub_epi32(_mm256_cvtepi8_epi32(x8), vzp), c->lshift);
  return q8nn_x86_requantize8(v, rq, 0);
}

/* Both adds' output step: the packed bytes {0-3, 8-11, 16-19, 24-27 | 4-7, ...} back in order,
   the byte clamp, and the store (a last chunk below 32 through a buffer). */
Q8NN_X86_INLINE void q8nn_x86_vadd_store32(int8_t* y, __m256i v, size_t chunk,
                                           const struct q8nn_x86_out32* out) {
  v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  v = _mm256_xor_si256(_mm256_min_epi8(_mm256_max_epi8(v, out->min8), out->max8), out->flip8);
  if (chunk == 32) {
    _mm256_storeu_si256((__m256i*) y, v);
  } else {
    int8_t buf[32];
    _mm256_storeu_si256((__m256i*) buf, v);
    q8nn_x86_copy_small(y, buf, chunk);
  }
}

Q8NN_X86_INLINE void q8nn_x86_vadd_avx2(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                        const struct q8nn_qs8_add_params* p, int broadcast_b) {
  struct q8nn_x86_add8_consts c;
  c.za = _mm256_set1_epi32(p->a_zero_point);
  c.zb = _mm256_set1_epi32(p->b_zero_point);
  c.lshift = _mm256_set1_epi32(p->left_shift);
  c.ra = q8nn_x86_rq8_init_rdouble(_mm256_set1_epi32(p->a_multiplier), _mm256_set1_epi32(p->a_shift), 0);
  c.rb = q8nn_x86_rq8_init_rdouble(_mm256_set1_epi32(p->b_multiplier), _mm256_set1_epi32(p->b_shift), 0);
  c.ro = q8nn_x86_rq8_init_rdouble(_mm256_set1_epi32(p->output_multiplier), _mm256_set1_epi32(p->output_shift),
                                   p->output_zero_point);
  c.out = q8nn_x86_out32_init(p->output_zero_point, p->output_min, p->output_max);
  c.out.flip8 = _mm256_set1_epi8((char) p->output_flip);
  /* uint8 operands: each byte ^ 0x80 (ukernel.h) */
  const __m256i vflip = _mm256_set1_epi8((char) p->input_flip);
  __m256i vbterm = _mm256_setzero_si256();
  if (broadcast_b) vbterm = q8nn_x86_add8_input(_mm_set1_epi8((char) (b[0] ^ p->input_flip)), c.zb, &c, &c.rb);
  while (n != 0) {
    const size_t chunk = n < 32 ? n : 32;
    const __m256i va = _mm256_xor_si256(q8nn_x86_load_tail32(a, chunk), vflip);
    const __m256i vb = broadcast_b ? _mm256_setzero_si256() : _mm256_xor_si256(q8nn_x86_load_tail32(b, chunk), vflip);
    __m256i vsum[4];
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      const __m128i xa = j < 2 ? _mm256_castsi256_si128(va) : _mm256_extracti128_si256(va, 1);
      const __m128i xb = j < 2 ? _mm256_castsi256_si128(vb) : _mm256_extracti128_si256(vb, 1);
      const __m256i ta = q8nn_x86_add8_input(j % 2 ? _mm_unpackhi_epi64(xa, xa) : xa, c.za, &c, &c.ra);
      const __m256i tb =
          broadcast_b ? vbterm : q8nn_x86_add8_input(j % 2 ? _mm_unpackhi_epi64(xb, xb) : xb, c.zb, &c, &c.rb);
      vsum[j] = q8nn_x86_requantize8(_mm256_add_epi32(ta, tb), &c.ro, 0);
    }
    /* packs: bytes {0-3, 8-11, 16-19, 24-27 | 4-7, 12-15, 20-23, 28-31}. */
    __m256i v = _mm256_packs_epi16(_mm256_packs_epi32(vsum[0], vsum[1]), _mm256_packs_epi32(vsum[2], vsum[3]));
    q8nn_x86_vadd_store32(y, v, chunk, &c.out);
    a += chunk;
    if (!broadcast_b) b += chunk;
    y += chunk;
    n -= chunk;
  }
}

/* GUARD: TFLite's arithmetic through the guarded linear form (ukernel.h, linear_guard): a whole
   chunk with a lane whose sum has (acc & linear_guard) == 0, and the last partial chunk, go through
   q8nn_x86_vadd_avx2 instead (before anything of the chunk is stored: y may alias a or b). */
/* 8 operand bytes at p as int32, extended straight from memory: int8 sign-extended, or (FLIP, uint8
   operands) zero-extended, the int8 value plus 128 (the loop's bias takes the 128s out, as the
   AVX-512 kernel's). */
Q8NN_X86_INLINE __m256i q8nn_x86_add_load8(const int8_t* p, const int FLIP) {
  const __m128i x = _mm_loadl_epi64((const __m128i*) p);
  return FLIP ? _mm256_cvtepu8_epi32(x) : _mm256_cvtepi8_epi32(x);
}

Q8NN_X86_INLINE void q8nn_x86_vadd_xnn_avx2(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                            const struct q8nn_qs8_add_params* p, int broadcast_b, const int GUARD,
                                            const int FLIP) {
  const __m256i vma = _mm256_set1_epi32(p->xnn_a_multiplier);
  const __m256i vmb = _mm256_set1_epi32(p->xnn_b_multiplier);
  const int32_t b0 = broadcast_b ? (int8_t) (b[0] ^ p->input_flip) : 0;
  const __m256i vbias = _mm256_set1_epi32(broadcast_b ? p->xnn_bias + b0 * p->xnn_b_multiplier : p->xnn_bias);
  /* FLIP: the whole-chunk loop's bias without the zero-extended operands' 128s (exact modulo 2^32) */
  const uint32_t extended = 128u * ((uint32_t) p->xnn_a_multiplier + (broadcast_b ? 0u : (uint32_t) p->xnn_b_multiplier));
  const __m256i vbias_u8 = _mm256_sub_epi32(vbias, _mm256_set1_epi32((int32_t) extended));
  const __m128i vshift = _mm_cvtsi32_si128((int) p->xnn_shift);
  const __m256i vflip = _mm256_set1_epi8((char) p->input_flip);
  struct q8nn_x86_out32 out = q8nn_x86_out32_init(p->output_zero_point, p->output_min, p->output_max);
  out.flip8 = _mm256_set1_epi8((char) p->output_flip);
  const __m256i vguard = _mm256_set1_epi32((int32_t) p->linear_guard);
  /* whole chunks: each 8 bytes sign-extended straight from memory (VPMOVSXBD m64), as the AVX-512
     kernel does, instead of extracts and shuffles of a 32-byte load */
  for (; n >= 32; n -= 32) {
    __m256i vacc[4];
    __m256i vguarded = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      vacc[j] = _mm256_add_epi32(FLIP ? vbias_u8 : vbias, _mm256_mullo_epi32(q8nn_x86_add_load8(a + 8 * j, FLIP), vma));
      if (!broadcast_b) {
        vacc[j] = _mm256_add_epi32(vacc[j], _mm256_mullo_epi32(q8nn_x86_add_load8(b + 8 * j, FLIP), vmb));
      }
      if (GUARD) {
        vguarded = _mm256_or_si256(
            vguarded, _mm256_cmpeq_epi32(_mm256_and_si256(vacc[j], vguard), _mm256_setzero_si256()));
      }
      vacc[j] = _mm256_sra_epi32(vacc[j], vshift);
    }
    if (GUARD && !_mm256_testz_si256(vguarded, vguarded)) {
      q8nn_x86_vadd_avx2(32, a, b, y, p, broadcast_b);
    } else {
      __m256i v = _mm256_packs_epi16(q8nn_x86_packs_zp16(vacc[0], vacc[1], &out), q8nn_x86_packs_zp16(vacc[2], vacc[3], &out));
      q8nn_x86_vadd_store32(y, v, 32, &out);
    }
    a += 32;
    if (!broadcast_b) b += 32;
    y += 32;
  }
  if (GUARD && n != 0) {
    q8nn_x86_vadd_avx2(n, a, b, y, p, broadcast_b);
    return;
  }
  while (n != 0) {
    const size_t chunk = n < 32 ? n : 32;
    const __m256i va = _mm256_xor_si256(q8nn_x86_load_tail32(a, chunk), vflip);
    const __m256i vb = broadcast_b ? _mm256_setzero_si256() : _mm256_xor_si256(q8nn_x86_load_tail32(b, chunk), vflip);
    __m256i vacc[4];
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      const __m128i xa = j < 2 ? _mm256_castsi256_si128(va) : _mm256_extracti128_si256(va, 1);
      vacc[j] = _mm256_add_epi32(vbias, _mm256_mullo_epi32(_mm256_cvtepi8_epi32(j % 2 ? _mm_unpackhi_epi64(xa, xa) : xa), vma));
      if (!broadcast_b) {
        const __m128i xb = j < 2 ? _mm256_castsi256_si128(vb) : _mm256_extracti128_si256(vb, 1);
        vacc[j] = _mm256_add_epi32(vacc[j], _mm256_mullo_epi32(_mm256_cvtepi8_epi32(j % 2 ? _mm_unpackhi_epi64(xb, xb) : xb), vmb));
      }
      vacc[j] = _mm256_sra_epi32(vacc[j], vshift);
    }
    /* packs: bytes {0-3, 8-11, 16-19, 24-27 | 4-7, 12-15, 20-23, 28-31}. */
    __m256i v = _mm256_packs_epi16(q8nn_x86_packs_zp16(vacc[0], vacc[1], &out), q8nn_x86_packs_zp16(vacc[2], vacc[3], &out));
    q8nn_x86_vadd_store32(y, v, chunk, &out);
    a += chunk;
    if (!broadcast_b) b += chunk;
    y += chunk;
    n -= chunk;
  }
}

void q8nn_qs8_vadd_minmax_xnn_ukernel__avx2_u32(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                const struct q8nn_qs8_add_params* params) {
  if (params->input_flip != 0) {
    q8nn_x86_vadd_xnn_avx2(n, a, b, y, params, 0, 0, 1);
  } else {
    q8nn_x86_vadd_xnn_avx2(n, a, b, y, params, 0, 0, 0);
  }
}

void q8nn_qs8_vaddc_minmax_xnn_ukernel__avx2_u32(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                 const struct q8nn_qs8_add_params* params) {
  if (params->input_flip != 0) {
    q8nn_x86_vadd_xnn_avx2(n, a, b, y, params, 1, 0, 1);
  } else {
    q8nn_x86_vadd_xnn_avx2(n, a, b, y, params, 1, 0, 0);
  }
}

/* TFLite's arithmetic: the guarded linear form where the operator found one, else the exact path. */
Q8NN_X86_DEFINE_VADD_TFLITE(q8nn_qs8_vadd_minmax_ukernel__avx2_u32, q8nn_x86_vadd_xnn_avx2, q8nn_x86_vadd_avx2, 0)
Q8NN_X86_DEFINE_VADD_TFLITE(q8nn_qs8_vaddc_minmax_ukernel__avx2_u32, q8nn_x86_vadd_xnn_avx2, q8nn_x86_vadd_avx2, 1)
