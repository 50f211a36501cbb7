/*
 * Multiply of two dense operands, NEON (AArch64): the arithmetic of multiply-nd.c's table,
 * computed instead of looked up, 16 elements a step, as the x86 kernels (x8-vmul-avx512vnni.c):
 * each operand XORed with input_flip, minus its zero point in int16 (SSUBL), the products in int32
 * (SMULL, SMULL2: |product| <= 65536), then PyTorch's and XNNPACK's float forms (SCVTF, FMUL,
 * FCVTNS: round to nearest even, as nearbyintf; the zero point added with saturation on int16) or
 * TFLite's double rounding (neon-requant.h: SSHL, SQRDMULH, the away-from-zero rounding shift; the
 * zero point in wrapping int32), then the saturating narrows, the byte clamp and output_flip. Tails:
 * fixed-size partial loads and stores, exactly n bytes read and written; y may alias a or b.
 */
#include <arm_neon.h>
#include <string.h>

#include "kernel-decls.h"
#include "neon-requant.h"

struct vmul {
  int8x16_t iflip;
  int8x8_t za, zb;
  float32x4_t scale;
  struct q8nn_neon_rq rq;
  int left;
  struct q8nn_neon_out out;
};

static inline int32x4_t requantize(int32x4_t p, const struct vmul* c, const int fl) {
  return fl ? q8nn_neon_requantize_fp32(p, c->scale) : q8nn_neon_requantize(p, c->rq, 0, c->left);
}

static inline int8x16_t vmul16(int8x16_t va, int8x16_t vb, const struct vmul* c, const int fl) {
  va = veorq_s8(va, c->iflip);
  vb = veorq_s8(vb, c->iflip);
  const int16x8_t a_lo = vsubl_s8(vget_low_s8(va), c->za), a_hi = vsubl_s8(vget_high_s8(va), c->za);
  const int16x8_t b_lo = vsubl_s8(vget_low_s8(vb), c->zb), b_hi = vsubl_s8(vget_high_s8(vb), c->zb);
  const int32x4_t p0 = vmull_s16(vget_low_s16(a_lo), vget_low_s16(b_lo));
  const int32x4_t p1 = vmull_high_s16(a_lo, b_lo);
  const int32x4_t p2 = vmull_s16(vget_low_s16(a_hi), vget_low_s16(b_hi));
  const int32x4_t p3 = vmull_high_s16(a_hi, b_hi);
  return q8nn_neon_pack16(requantize(p0, c, fl), requantize(p1, c, fl), requantize(p2, c, fl),
                          requantize(p3, c, fl), c->out, fl ? 2 : 0);
}

static inline void vmul(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                        const struct q8nn_qs8_add_params* params, const int fl) {
  struct vmul c;
  c.iflip = vdupq_n_s8((int8_t) params->input_flip);
  c.za = vdup_n_s8((int8_t) params->a_zero_point);
  c.zb = vdup_n_s8((int8_t) params->b_zero_point);
  c.scale = vdupq_n_f32(params->mul_scale);
  c.rq.mult = vdupq_n_s32(params->output_multiplier);
  c.rq.a = vdupq_n_s32(params->output_shift > 0 ? params->output_shift : 0);
  c.rq.b = vdupq_n_s32(params->output_shift < 0 ? params->output_shift : 0);
  c.left = params->output_shift > 0;
  c.out.zero_point = vdupq_n_s32(params->output_zero_point);
  c.out.zero_point16 = vdupq_n_s16((int16_t) params->output_zero_point);
  c.out.min = vdupq_n_s8((int8_t) params->output_min);
  c.out.max = vdupq_n_s8((int8_t) params->output_max);
  c.out.flip = vdupq_n_s8((int8_t) params->output_flip);
  for (; n >= 16; n -= 16, a += 16, b += 16, y += 16) {
    vst1q_s8(y, vmul16(vld1q_s8(a), vld1q_s8(b), &c, fl));
  }
  if (n != 0) {
    q8nn_neon_store_partial(y, vmul16(q8nn_neon_load_partial(a, n), q8nn_neon_load_partial(b, n), &c, fl), n);
  }
}

void q8nn_x8_vmul_ukernel__neon(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                const struct q8nn_qs8_add_params* params) {
  if (params->mul_float) {
    vmul(n, a, b, y, params, 1);
  } else {
    vmul(n, a, b, y, params, 0);
  }
}
