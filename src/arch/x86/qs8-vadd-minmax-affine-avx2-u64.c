/*
 * AVX2 int8 add through the affine form of the add's arithmetic (struct q8nn_qs8_add_params), as
 * qs8-vadd-minmax-affine-avx512vnni-u128.c with ymm registers: per 32 outputs 2 XORs, 2 VPUNPCK,
 * 2 VPMADDUBSW, 2 VPADDSW, 2 VPSRAW, 1 VPACKSSWB (which undoes the unpacks' in-lane interleave) and
 * the byte clamp. 64 bytes per iteration, then 32, then the last < 32 through a 32-byte buffer:
 * exactly n bytes read from a (and b) and written to y; each chunk is read before it is written,
 * so y may alias a or b. The signed-data form (affine_signed) drops the two XORs, as on AVX-512.
 * Without an affine form (affine_valid 0) each kernel runs the generic AVX2
 * kernel of its arithmetic, a list line of its own.
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx2.h"

struct q8nn_x86_affine32_consts {
  __m256i sign, coef, bias, min8, max8, flip, oflip;
  __m128i shift;
};

/* FLIP: uint8 operands and output, as q8nn_x86_affine64 (the AVX-512 file). */
Q8NN_X86_INLINE __m256i q8nn_x86_affine32(__m256i va, __m256i vb, const struct q8nn_x86_affine32_consts* c,
                                          const int SIGNED, const int FLIP) {
  __m256i lo, hi;
  if (SIGNED) {
    if (FLIP) {
      va = _mm256_xor_si256(va, c->flip);
      vb = _mm256_xor_si256(vb, c->flip);
    }
    lo = _mm256_maddubs_epi16(c->coef, _mm256_unpacklo_epi8(va, vb));
    hi = _mm256_maddubs_epi16(c->coef, _mm256_unpackhi_epi8(va, vb));
  } else {
    const __m256i ua = _mm256_xor_si256(va, c->sign);
    const __m256i ub = _mm256_xor_si256(vb, c->sign);
    lo = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(ua, ub), c->coef);
    hi = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(ua, ub), c->coef);
  }
  lo = _mm256_sra_epi16(_mm256_adds_epi16(lo, c->bias), c->shift);
  hi = _mm256_sra_epi16(_mm256_adds_epi16(hi, c->bias), c->shift);
  const __m256i v = _mm256_min_epi8(_mm256_max_epi8(_mm256_packs_epi16(lo, hi), c->min8), c->max8);
  return FLIP ? _mm256_xor_si256(v, c->oflip) : v;
}

Q8NN_X86_INLINE void q8nn_x86_vadd_affine_avx2_form(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                    const struct q8nn_qs8_add_params* p, int broadcast_b,
                                                    const int SIGNED, const int FLIP) {
  struct q8nn_x86_affine32_consts c;
  c.sign = _mm256_set1_epi8((char) (0x80 ^ p->input_flip));
  c.flip = _mm256_set1_epi8((char) p->input_flip);
  c.oflip = _mm256_set1_epi8((char) p->output_flip);
  c.coef = _mm256_set1_epi16(q8nn_x86_affine_coef(p));
  c.bias = _mm256_set1_epi16((int16_t) p->affine_bias);
  c.shift = _mm_cvtsi32_si128(p->affine_shift);
  c.min8 = _mm256_set1_epi8((int8_t) p->output_min);
  c.max8 = _mm256_set1_epi8((int8_t) p->output_max);
  const __m256i vbc = _mm256_set1_epi8(b[0]);
  for (; n >= 64; n -= 64) {
    const __m256i va0 = _mm256_loadu_si256((const __m256i*) a);
    const __m256i va1 = _mm256_loadu_si256((const __m256i*) (a + 32));
    const __m256i vb0 = broadcast_b ? vbc : _mm256_loadu_si256((const __m256i*) b);
    const __m256i vb1 = broadcast_b ? vbc : _mm256_loadu_si256((const __m256i*) (b + 32));
    _mm256_storeu_si256((__m256i*) y, q8nn_x86_affine32(va0, vb0, &c, SIGNED, FLIP));
    _mm256_storeu_si256((__m256i*) (y + 32), q8nn_x86_affine32(va1, vb1, &c, SIGNED, FLIP));
    a += 64;
    if (!broadcast_b) b += 64;
    y += 64;
  }
  for (; n >= 32; n -= 32) {
    const __m256i vb = broadcast_b ? vbc : _mm256_loadu_si256((const __m256i*) b);
    _mm256_storeu_si256((__m256i*) y, q8nn_x86_affine32(_mm256_loadu_si256((const __m256i*) a), vb, &c, SIGNED, FLIP));
    a += 32;
    if (!broadcast_b) b += 32;
    y += 32;
  }
  if (n != 0) {
    const __m256i vb = broadcast_b ? vbc : q8nn_x86_load_tail32(b, n);
    int8_t buf[32];
    _mm256_storeu_si256((__m256i*) buf, q8nn_x86_affine32(q8nn_x86_load_tail32(a, n), vb, &c, SIGNED, FLIP));
    q8nn_x86_copy_small(y, buf, n);
  }
}

Q8NN_X86_INLINE void q8nn_x86_vadd_affine_avx2(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                               const struct q8nn_qs8_add_params* p, int broadcast_b) {
  const int flip = p->input_flip != 0;
  if (p->affine_signed) {
    if (flip) q8nn_x86_vadd_affine_avx2_form(n, a, b, y, p, broadcast_b, 1, 1);
    else q8nn_x86_vadd_affine_avx2_form(n, a, b, y, p, broadcast_b, 1, 0);
  } else {
    if (flip) q8nn_x86_vadd_affine_avx2_form(n, a, b, y, p, broadcast_b, 0, 1);
    else q8nn_x86_vadd_affine_avx2_form(n, a, b, y, p, broadcast_b, 0, 0);
  }
}

Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vadd_minmax_affine_ukernel__avx2_u64, q8nn_x86_vadd_affine_avx2,
                            q8nn_qs8_vadd_minmax_ukernel__avx2_u32, 0)
Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vaddc_minmax_affine_ukernel__avx2_u64, q8nn_x86_vadd_affine_avx2,
                            q8nn_qs8_vaddc_minmax_ukernel__avx2_u32, 1)
Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vadd_minmax_xnn_affine_ukernel__avx2_u64, q8nn_x86_vadd_affine_avx2,
                            q8nn_qs8_vadd_minmax_xnn_ukernel__avx2_u32, 0)
Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vaddc_minmax_xnn_affine_ukernel__avx2_u64, q8nn_x86_vadd_affine_avx2,
                            q8nn_qs8_vaddc_minmax_xnn_ukernel__avx2_u32, 1)
