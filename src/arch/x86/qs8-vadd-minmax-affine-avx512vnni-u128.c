/*
 * AVX-512 int8 add through the affine form of the add's arithmetic (struct q8nn_qs8_add_params):
 * where q8nn_add_affine_params found one (it checks it on all 65536 input pairs at operator
 * creation: equal scales, power-of-two ratios), 64 outputs cost 2 XORs, 2 VPUNPCK, 2 VPMADDUBSW,
 * 2 VPADDSW, 2 VPSRAW, 1 VPACKSSWB and the byte clamp, instead of three exact 64-bit rescales per
 * 16 outputs. The unpacks interleave bytes within 128-bit lanes and VPACKSSWB undoes exactly that
 * interleave, so no cross-lane permute is needed. 128 bytes per iteration, then 64, then a masked
 * tail: exactly n bytes read from a (and b) and written to y; each chunk is read before it is
 * written, so y may alias a or b.
 * With the signed-data form (affine_signed) the coefficients are VPMADDUBSW's unsigned operand and
 * the bytes its signed one, so the two XORs go: 1.12-1.15x on 75264 elements (docs/performance.md,
 * "Add").
 * Without an affine form (affine_valid 0) each kernel runs the generic kernel of its arithmetic,
 * which stays a list line of its own. One body serves TFLite's and XNNPACK's arithmetic: the
 * affine form is checked against the operator's own arithmetic. Uses AVX-512 BW only; listed with
 * the AVX-512 VNNI bit as the other AVX-512 kernels.
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx512.h"

struct q8nn_x86_affine_consts {
  __m512i sign, coef, bias, min8, max8, flip, oflip;
  __m128i shift;
};

/* FLIP: uint8 operands and output (ukernel.h): the unsigned-data form's XOR is then by 0 (sign), the
   signed-data form flips the bytes first, and the output is flipped. */
Q8NN_X86_INLINE __m512i q8nn_x86_affine64(__m512i va, __m512i vb, const struct q8nn_x86_affine_consts* c,
                                          const int SIGNED, const int FLIP) {
  __m512i lo, hi;
  if (SIGNED) {
    if (FLIP) {
      va = _mm512_xor_si512(va, c->flip);
      vb = _mm512_xor_si512(vb, c->flip);
    }
    lo = _mm512_maddubs_epi16(c->coef, _mm512_unpacklo_epi8(va, vb));
    hi = _mm512_maddubs_epi16(c->coef, _mm512_unpackhi_epi8(va, vb));
  } else {
    const __m512i ua = _mm512_xor_si512(va, c->sign);
    const __m512i ub = _mm512_xor_si512(vb, c->sign);
    lo = _mm512_maddubs_epi16(_mm512_unpacklo_epi8(ua, ub), c->coef);
    hi = _mm512_maddubs_epi16(_mm512_unpackhi_epi8(ua, ub), c->coef);
  }
  lo = _mm512_sra_epi16(_mm512_adds_epi16(lo, c->bias), c->shift);
  hi = _mm512_sra_epi16(_mm512_adds_epi16(hi, c->bias), c->shift);
  const __m512i v = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(lo, hi), c->min8), c->max8);
  return FLIP ? _mm512_xor_si512(v, c->oflip) : v;
}

/* One masked chunk of len <= 64 bytes (vbc: b's byte when broadcast_b). */
Q8NN_X86_INLINE void q8nn_x86_affine_chunk(size_t len, const int8_t* a, const int8_t* b, int8_t* y, __m512i vbc,
                                           int broadcast_b, const struct q8nn_x86_affine_consts* c,
                                           const int SIGNED, const int FLIP) {
  const __mmask64 k = q8nn_x86_mask64(len);
  const __m512i va = _mm512_maskz_loadu_epi8(k, a);
  const __m512i vb = broadcast_b ? vbc : _mm512_maskz_loadu_epi8(k, b);
  _mm512_mask_storeu_epi8(y, k, q8nn_x86_affine64(va, vb, c, SIGNED, FLIP));
}

Q8NN_X86_INLINE void q8nn_x86_vadd_affine_form(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                               const struct q8nn_qs8_add_params* p, int broadcast_b,
                                               const int SIGNED, const int FLIP) {
  struct q8nn_x86_affine_consts c;
  c.sign = _mm512_set1_epi8((char) (0x80 ^ p->input_flip));
  c.flip = _mm512_set1_epi8((char) p->input_flip);
  c.oflip = _mm512_set1_epi8((char) p->output_flip);
  c.coef = _mm512_set1_epi16(q8nn_x86_affine_coef(p));
  c.bias = _mm512_set1_epi16((int16_t) p->affine_bias);
  c.shift = _mm_cvtsi32_si128(p->affine_shift);
  c.min8 = _mm512_set1_epi8((int8_t) p->output_min);
  c.max8 = _mm512_set1_epi8((int8_t) p->output_max);
  const __m512i vbc = _mm512_set1_epi8(b[0]);
  /* the bytes up to y's next 64-byte boundary first (a masked chunk), so that the loop's stores, and
     its loads where a and b share y's alignment, do not straddle cache lines: with 16-byte aligned
     buffers (an allocator's or TFLite's arena alignment) every straddling access cost more than the
     arithmetic (docs/performance.md, "Add") */
  const size_t head = (size_t) (0 - (uintptr_t) y) & 63;
  if (head != 0 && n >= 128 + head) {
    q8nn_x86_affine_chunk(head, a, b, y, vbc, broadcast_b, &c, SIGNED, FLIP);
    a += head;
    if (!broadcast_b) b += head;
    y += head;
    n -= head;
  }
  for (; n >= 128; n -= 128) {
    const __m512i va0 = _mm512_loadu_si512(a), va1 = _mm512_loadu_si512(a + 64);
    const __m512i vb0 = broadcast_b ? vbc : _mm512_loadu_si512(b);
    const __m512i vb1 = broadcast_b ? vbc : _mm512_loadu_si512(b + 64);
    _mm512_storeu_si512(y, q8nn_x86_affine64(va0, vb0, &c, SIGNED, FLIP));
    _mm512_storeu_si512(y + 64, q8nn_x86_affine64(va1, vb1, &c, SIGNED, FLIP));
    a += 128;
    if (!broadcast_b) b += 128;
    y += 128;
  }
  while (n != 0) {
    const size_t chunk = n < 64 ? n : 64;
    q8nn_x86_affine_chunk(chunk, a, b, y, vbc, broadcast_b, &c, SIGNED, FLIP);
    a += chunk;
    if (!broadcast_b) b += chunk;
    y += chunk;
    n -= chunk;
  }
}

Q8NN_X86_INLINE void q8nn_x86_vadd_affine(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                          const struct q8nn_qs8_add_params* p, int broadcast_b) {
  const int flip = p->input_flip != 0;
  if (p->affine_signed) {
    if (flip) q8nn_x86_vadd_affine_form(n, a, b, y, p, broadcast_b, 1, 1);
    else q8nn_x86_vadd_affine_form(n, a, b, y, p, broadcast_b, 1, 0);
  } else {
    if (flip) q8nn_x86_vadd_affine_form(n, a, b, y, p, broadcast_b, 0, 1);
    else q8nn_x86_vadd_affine_form(n, a, b, y, p, broadcast_b, 0, 0);
  }
}

Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vadd_minmax_affine_ukernel__avx512vnni_u128, q8nn_x86_vadd_affine,
                            q8nn_qs8_vadd_minmax_ukernel__avx512vnni_u64, 0)
Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vaddc_minmax_affine_ukernel__avx512vnni_u128, q8nn_x86_vadd_affine,
                            q8nn_qs8_vaddc_minmax_ukernel__avx512vnni_u64, 1)
Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vadd_minmax_xnn_affine_ukernel__avx512vnni_u128, q8nn_x86_vadd_affine,
                            q8nn_qs8_vadd_minmax_xnn_ukernel__avx512vnni_u64, 0)
Q8NN_X86_DEFINE_VADD_AFFINE(q8nn_qs8_vaddc_minmax_xnn_affine_ukernel__avx512vnni_u128, q8nn_x86_vadd_affine,
                            q8nn_qs8_vaddc_minmax_xnn_ukernel__avx512vnni_u64, 1)
