/*
 * q8nn_qs8_vadd_minmax_ukernel__neon_u16 / q8nn_qs8_vaddc_minmax_ukernel__neon_u16: TFLite int8 add
 * on aarch64 NEON, 16 elements per iteration, bit-exact with q8nn_add_scalar for every parameter
 * set the scalar accepts. Per input: (x - zp) in int16 (SSUBL, zero points are int8), widened to
 * int32 and shifted left (SSHL, modulo 2^32 like the scalar), SQRDMULH (= gemmlowp SRDHM) and the
 * away-from-zero rounding shift of neon-requant.h; the int32 sum goes through the output
 * multiplier and shift, the zero point is added with int32 wrap-around, then saturating narrows
 * and the clamp. Tails (n % 16) use fixed-size partial loads and stores, so exactly n bytes are
 * read and written; y may alias a or b (each block is loaded before it is stored). vaddc computes
 * the broadcast operand's term once with the scalar code.
 *
 * q8nn_qs8_vadd[c]_minmax_xnn_ukernel__neon_u16: XNNPACK's qs8 add arithmetic
 * (Q8NN_FLAG_XNNPACK_ADD), same tiling and tails: acc = a * xnn_a_multiplier + b * xnn_b_multiplier
 * + xnn_bias in int32 (MLA; |acc| < 2^31, see ukernel.h), SSHL by -xnn_shift (arithmetic, truncating
 * like XNNPACK's), then SQXTN, SQADD of the zero point on int16, SQXTN and the byte clamp:
 * |acc >> shift| < 2^19, so the saturating steps only act outside int8 and the bytes equal
 * clamp(acc >> shift, min - zp, max - zp) + zp. vaddc folds b's term into the bias once.
 *
 * uint8 add (input_flip / output_flip = 0x80, ukernel.h): every loaded 16-byte block is XORed with
 * a flip vector built once per call (one EOR), the broadcast byte b[0] is flipped in scalar code,
 * and every output block is XORed before its store (one EOR). With both flips 0 the EORs are
 * identities.
 */
#include <string.h>

#include "kernel-decls.h"
#include "requantization.h"
#include "arch/neon/neon-requant.h"

struct q8nn_neon_add {
  int8x8_t a_zp, b_zp;
  int32x4_t left, a_mult, a_shift, b_mult, b_shift, out_mult, out_shift;
  int32x4_t out_zp;
  int8x16_t out_min, out_max;
  int8x16_t in_flip, out_flip;
};

Q8NN_NEON_INLINE struct q8nn_neon_add q8nn_neon_add_load(const struct q8nn_qs8_add_params* p) {
  struct q8nn_neon_add s;
  s.a_zp = vdup_n_s8((int8_t) p->a_zero_point);
  s.b_zp = vdup_n_s8((int8_t) p->b_zero_point);
  s.left = vdupq_n_s32(p->left_shift);
  s.a_mult = vdupq_n_s32(p->a_multiplier);
  s.a_shift = vdupq_n_s32(p->a_shift);
  s.b_mult = vdupq_n_s32(p->b_multiplier);
  s.b_shift = vdupq_n_s32(p->b_shift);
  s.out_mult = vdupq_n_s32(p->output_multiplier);
  s.out_shift = vdupq_n_s32(p->output_shift);
  s.out_zp = vdupq_n_s32(p->output_zero_point);
  s.out_min = vdupq_n_s8((int8_t) p->output_min);
  s.out_max = vdupq_n_s8((int8_t) p->output_max);
  s.in_flip = vdupq_n_s8((int8_t) p->input_flip);
  s.out_flip = vdupq_n_s8((int8_t) p->output_flip);
  return s;
}

/* Scaled input term: rdbpot(srdhm((x - zp) << left, mult), -shift) for 4 lanes. */
Q8NN_NEON_INLINE int32x4_t q8nn_neon_add_term(int32x4_t x, int32x4_t left, int32x4_t mult,
                                              int32x4_t shift) {
  return q8nn_neon_rdbpot(vqrdmulhq_s32(vshlq_s32(x, left), mult), shift);
}

/* 16 lanes of a's terms (+ b's terms in vb[4]) -> 16 output bytes. */
Q8NN_NEON_INLINE int8x16_t q8nn_neon_add16(int8x16_t va, const int32x4_t vb[4],
                                           const struct q8nn_neon_add* s) {
  va = veorq_s8(va, s->in_flip);
  const int16x8_t xlo = vsubl_s8(vget_low_s8(va), s->a_zp);
  const int16x8_t xhi = vsubl_s8(vget_high_s8(va), s->a_zp);
  int32x4_t v[4] = {vmovl_s16(vget_low_s16(xlo)), vmovl_high_s16(xlo), vmovl_s16(vget_low_s16(xhi)),
                    vmovl_high_s16(xhi)};
  for (int q = 0; q < 4; q++) {
    const int32x4_t sum =
        vaddq_s32(q8nn_neon_add_term(v[q], s->left, s->a_mult, s->a_shift), vb[q]);
    v[q] = q8nn_neon_rdbpot(vqrdmulhq_s32(sum, s->out_mult), s->out_shift);
  }
  for (int q = 0; q < 4; q++) v[q] = vaddq_s32(v[q], s->out_zp); /* int32 wrap, as the scalar */
  const int16x8_t lo = vqmovn_high_s32(vqmovn_s32(v[0]), v[1]);
  const int16x8_t hi = vqmovn_high_s32(vqmovn_s32(v[2]), v[3]);
  const int8x16_t out = vqmovn_high_s16(vqmovn_s16(lo), hi);
  return veorq_s8(vminq_s8(vmaxq_s8(out, s->out_min), s->out_max), s->out_flip);
}

Q8NN_NEON_INLINE void q8nn_neon_add_bterms(int8x16_t vb, const struct q8nn_neon_add* s,
                                           int32x4_t out[4]) {
  vb = veorq_s8(vb, s->in_flip);
  const int16x8_t xlo = vsubl_s8(vget_low_s8(vb), s->b_zp);
  const int16x8_t xhi = vsubl_s8(vget_high_s8(vb), s->b_zp);
  out[0] = q8nn_neon_add_term(vmovl_s16(vget_low_s16(xlo)), s->left, s->b_mult, s->b_shift);
  out[1] = q8nn_neon_add_term(vmovl_high_s16(xlo), s->left, s->b_mult, s->b_shift);
  out[2] = q8nn_neon_add_term(vmovl_s16(vget_low_s16(xhi)), s->left, s->b_mult, s->b_shift);
  out[3] = q8nn_neon_add_term(vmovl_high_s16(xhi), s->left, s->b_mult, s->b_shift);
}

void q8nn_qs8_vadd_minmax_ukernel__neon_u16(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                            const struct q8nn_qs8_add_params* params) {
  const struct q8nn_neon_add s = q8nn_neon_add_load(params);
  for (; n >= 16; n -= 16) {
    const int8x16_t va = vld1q_s8(a);
    const int8x16_t vb = vld1q_s8(b);
    a += 16;
    b += 16;
    int32x4_t bt[4];
    q8nn_neon_add_bterms(vb, &s, bt);
    vst1q_s8(y, q8nn_neon_add16(va, bt, &s));
    y += 16;
  }
  if (n != 0) {
    int32x4_t bt[4];
    q8nn_neon_add_bterms(q8nn_neon_load_partial(b, n), &s, bt);
    q8nn_neon_store_partial(y, q8nn_neon_add16(q8nn_neon_load_partial(a, n), bt, &s), n);
  }
}

void q8nn_qs8_vaddc_minmax_ukernel__neon_u16(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                             const struct q8nn_qs8_add_params* params) {
  const struct q8nn_neon_add s = q8nn_neon_add_load(params);
  /* b's term, exactly as q8nn_add_scalar computes it (b[0] flipped like every operand byte). */
  const int32_t sb = (int32_t) ((uint32_t) ((int32_t) (int8_t) (*b ^ params->input_flip) -
                                            params->b_zero_point)
                                << params->left_shift);
  const int32_t rb = q8nn_rdbpot(q8nn_srdhm(sb, params->b_multiplier), -params->b_shift);
  const int32x4_t bt[4] = {vdupq_n_s32(rb), vdupq_n_s32(rb), vdupq_n_s32(rb), vdupq_n_s32(rb)};
  for (; n >= 16; n -= 16) {
    const int8x16_t va = vld1q_s8(a);
    a += 16;
    vst1q_s8(y, q8nn_neon_add16(va, bt, &s));
    y += 16;
  }
  if (n != 0) {
    q8nn_neon_store_partial(y, q8nn_neon_add16(q8nn_neon_load_partial(a, n), bt, &s), n);
  }
}

struct q8nn_neon_xadd {
  int32x4_t bias, a_mult, b_mult, shift; /* shift: -xnn_shift, an SSHL count */
  int16x8_t zp;
  int8x16_t min, max;
  int8x16_t in_flip, out_flip;
};

Q8NN_NEON_INLINE struct q8nn_neon_xadd q8nn_neon_xadd_load(const struct q8nn_qs8_add_params* p, int32_t bias) {
  struct q8nn_neon_xadd s;
  s.bias = vdupq_n_s32(bias);
  s.a_mult = vdupq_n_s32(p->xnn_a_multiplier);
  s.b_mult = vdupq_n_s32(p->xnn_b_multiplier);
  s.shift = vdupq_n_s32(-(int32_t) p->xnn_shift);
  s.zp = vdupq_n_s16((int16_t) p->output_zero_point);
  s.min = vdupq_n_s8((int8_t) p->output_min);
  s.max = vdupq_n_s8((int8_t) p->output_max);
  s.in_flip = vdupq_n_s8((int8_t) p->input_flip);
  s.out_flip = vdupq_n_s8((int8_t) p->output_flip);
  return s;
}

/* 16 elements of a (and of b when with_b) -> 16 output bytes. */
Q8NN_NEON_INLINE int8x16_t q8nn_neon_xadd16(int8x16_t va, int8x16_t vb, int with_b, const struct q8nn_neon_xadd* s) {
  va = veorq_s8(va, s->in_flip);
  if (with_b) vb = veorq_s8(vb, s->in_flip);
  const int16x8_t alo = vmovl_s8(vget_low_s8(va)), ahi = vmovl_high_s8(va);
  const int16x8_t blo = vmovl_s8(vget_low_s8(vb)), bhi = vmovl_high_s8(vb);
  int32x4_t acc[4] = {vmlaq_s32(s->bias, vmovl_s16(vget_low_s16(alo)), s->a_mult),
                      vmlaq_s32(s->bias, vmovl_high_s16(alo), s->a_mult),
                      vmlaq_s32(s->bias, vmovl_s16(vget_low_s16(ahi)), s->a_mult),
                      vmlaq_s32(s->bias, vmovl_high_s16(ahi), s->a_mult)};
  if (with_b) {
    acc[0] = vmlaq_s32(acc[0], vmovl_s16(vget_low_s16(blo)), s->b_mult);
    acc[1] = vmlaq_s32(acc[1], vmovl_high_s16(blo), s->b_mult);
    acc[2] = vmlaq_s32(acc[2], vmovl_s16(vget_low_s16(bhi)), s->b_mult);
    acc[3] = vmlaq_s32(acc[3], vmovl_high_s16(bhi), s->b_mult);
  }
  for (int q = 0; q < 4; q++) acc[q] = vshlq_s32(acc[q], s->shift);
  const int16x8_t lo = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(acc[0]), acc[1]), s->zp);
  const int16x8_t hi = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(acc[2]), acc[3]), s->zp);
  const int8x16_t out = vqmovn_high_s16(vqmovn_s16(lo), hi);
  return veorq_s8(vminq_s8(vmaxq_s8(out, s->min), s->max), s->out_flip);
}

void q8nn_qs8_vadd_minmax_xnn_ukernel__neon_u16(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                const struct q8nn_qs8_add_params* params) {
  const struct q8nn_neon_xadd s = q8nn_neon_xadd_load(params, params->xnn_bias);
  for (; n >= 16; n -= 16) {
    const int8x16_t va = vld1q_s8(a);
    const int8x16_t vb = vld1q_s8(b);
    a += 16;
    b += 16;
    vst1q_s8(y, q8nn_neon_xadd16(va, vb, 1, &s));
    y += 16;
  }
  if (n != 0) {
    const int8x16_t out = q8nn_neon_xadd16(q8nn_neon_load_partial(a, n), q8nn_neon_load_partial(b, n), 1, &s);
    q8nn_neon_store_partial(y, out, n);
  }
}

void q8nn_qs8_vaddc_minmax_xnn_ukernel__neon_u16(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                 const struct q8nn_qs8_add_params* params) {
  /* b's term is the same for every element (the int32 sum is exact, see ukernel.h); b[0] flipped
     like every operand byte */
  const int32_t bv = (int8_t) (*b ^ params->input_flip);
  const struct q8nn_neon_xadd s = q8nn_neon_xadd_load(params, params->xnn_bias + bv * params->xnn_b_multiplier);
  const int8x16_t vzero = vdupq_n_s8(0);
  for (; n >= 16; n -= 16) {
    const int8x16_t va = vld1q_s8(a);
    a += 16;
    vst1q_s8(y, q8nn_neon_xadd16(va, vzero, 0, &s));
    y += 16;
  }
  if (n != 0) q8nn_neon_store_partial(y, q8nn_neon_xadd16(q8nn_neon_load_partial(a, n), vzero, 0, &s), n);
}
