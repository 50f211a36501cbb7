/*
 * q8nn_qs8_vadd_minmax_ukernel__rvv_u4v / q8nn_qs8_vaddc_minmax_ukernel__rvv_u4v: TFLite int8 add
 * on RISC-V Vector 1.0, vector-length agnostic: per step vl = VLMAX(e8m1) elements, computed in 4
 * vector registers of int32 (LMUL 4). Bit-exact with q8nn_add_scalar for every parameter set the
 * scalar accepts: (x - zp) by VWSUB (int16, zero points are int8), VSEXT to int32, VSLL (modulo
 * 2^32), VSMUL RNU (= gemmlowp SRDHM) and the away-from-zero rounding shift of rvv-requant.h with
 * the scalar shift; the int32 sum through the output multiplier and shift, the zero point added
 * with int32 wrap-around, VNCLIP twice and the clamp. vl covers tails exactly (n bytes read and
 * written); y may alias a or b (each chunk is loaded before it is stored). vaddc computes the
 * broadcast operand's term once with the scalar code.
 *
 * q8nn_qs8_vadd[c]_minmax_xnn_ukernel__rvv_u4v: XNNPACK's qs8 add arithmetic
 * (Q8NN_FLAG_XNNPACK_ADD), same tiling: acc = a * xnn_a_multiplier + b * xnn_b_multiplier +
 * xnn_bias in int32 (VMACC; |acc| < 2^31, see ukernel.h), VSRA by xnn_shift, then the saturating
 * output stage of rvv-requant.h (|acc >> shift| < 2^19: the saturations act only outside int8).
 * vaddc folds b's term into the bias once.
 *
 * uint8 add (input_flip / output_flip = 0x80, ukernel.h): every loaded chunk is XORed with
 * input_flip (one VXOR.VX), the broadcast byte b[0] is flipped in scalar code, and every output
 * chunk is XORed with output_flip before its store (one VXOR.VX). With both flips 0 the XORs are
 * identities.
 */
#include "kernel-decls.h"
#include "requantization.h"
#include "arch/rvv/rvv-requant.h"

/* rdbpot(srdhm(x, mult), e) with e >= 0 a scalar exponent. */
Q8NN_RVV_INLINE vint32m4_t q8nn_rvv_srdhm_rdbpot(vint32m4_t x, int32_t mult, int32_t e, size_t vl) {
  x = __riscv_vsmul_vx_i32m4(x, mult, __RISCV_VXRM_RNU, vl);
  if (e > 0) x = __riscv_vsadd_vv_i32m4(x, __riscv_vsra_vx_i32m4(x, 31, vl), vl);
  return __riscv_vssra_vx_i32m4(x, (size_t) e, __RISCV_VXRM_RNU, vl);
}

Q8NN_RVV_INLINE vint32m4_t q8nn_rvv_add_term(vint8m1_t v, int32_t zp, int32_t left, int32_t mult,
                                             int32_t shift, size_t vl) {
  const vint16m2_t d = __riscv_vwsub_vx_i16m2(v, (int8_t) zp, vl);
  const vint32m4_t x = __riscv_vsll_vx_i32m4(__riscv_vsext_vf2_i32m4(d, vl), (size_t) left, vl);
  return q8nn_rvv_srdhm_rdbpot(x, mult, -shift, vl);
}

/* An operand chunk as the int8 values the arithmetic sees (input_flip, ukernel.h). */
Q8NN_RVV_INLINE vint8m1_t q8nn_rvv_add_load(const int8_t* x, int8_t flip, size_t vl) {
  return __riscv_vxor_vx_i8m1(__riscv_vle8_v_i8m1(x, vl), flip, vl);
}

/* Stores an int8 result chunk as output bytes (output_flip, ukernel.h). */
Q8NN_RVV_INLINE void q8nn_rvv_add_store(int8_t* y, vint8m1_t v, int8_t flip, size_t vl) {
  __riscv_vse8_v_i8m1(y, __riscv_vxor_vx_i8m1(v, flip, vl), vl);
}

Q8NN_RVV_INLINE vint8m1_t q8nn_rvv_add_out(vint32m4_t sum, const struct q8nn_qs8_add_params* p,
                                           size_t vl) {
  vint32m4_t v = q8nn_rvv_srdhm_rdbpot(sum, p->output_multiplier, -p->output_shift, vl);
  v = __riscv_vadd_vx_i32m4(v, p->output_zero_point, vl);
  const vint16m2_t h = __riscv_vnclip_wx_i16m2(v, 0, __RISCV_VXRM_RNU, vl);
  vint8m1_t b = __riscv_vnclip_wx_i8m1(h, 0, __RISCV_VXRM_RNU, vl);
  b = __riscv_vmax_vx_i8m1(b, (int8_t) p->output_min, vl);
  return __riscv_vmin_vx_i8m1(b, (int8_t) p->output_max, vl);
}

void q8nn_qs8_vadd_minmax_ukernel__rvv_u4v(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                           const struct q8nn_qs8_add_params* p) {
  const int8_t in_flip = (int8_t) p->input_flip, out_flip = (int8_t) p->output_flip;
  while (n != 0) {
    const size_t vl = __riscv_vsetvl_e8m1(n);
    const vint8m1_t va = q8nn_rvv_add_load(a, in_flip, vl);
    const vint8m1_t vb = q8nn_rvv_add_load(b, in_flip, vl);
    const vint32m4_t ta =
        q8nn_rvv_add_term(va, p->a_zero_point, p->left_shift, p->a_multiplier, p->a_shift, vl);
    const vint32m4_t tb =
        q8nn_rvv_add_term(vb, p->b_zero_point, p->left_shift, p->b_multiplier, p->b_shift, vl);
    q8nn_rvv_add_store(y, q8nn_rvv_add_out(__riscv_vadd_vv_i32m4(ta, tb, vl), p, vl), out_flip, vl);
    a += vl;
    b += vl;
    y += vl;
    n -= vl;
  }
}

void q8nn_qs8_vaddc_minmax_ukernel__rvv_u4v(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                            const struct q8nn_qs8_add_params* p) {
  const int8_t in_flip = (int8_t) p->input_flip, out_flip = (int8_t) p->output_flip;
  /* b[0] flipped like every operand byte */
  const int32_t sb =
      (int32_t) ((uint32_t) ((int32_t) (int8_t) (*b ^ in_flip) - p->b_zero_point) << p->left_shift);
  const int32_t rb = q8nn_rdbpot(q8nn_srdhm(sb, p->b_multiplier), -p->b_shift);
  while (n != 0) {
    const size_t vl = __riscv_vsetvl_e8m1(n);
    const vint8m1_t va = q8nn_rvv_add_load(a, in_flip, vl);
    const vint32m4_t ta =
        q8nn_rvv_add_term(va, p->a_zero_point, p->left_shift, p->a_multiplier, p->a_shift, vl);
    q8nn_rvv_add_store(y, q8nn_rvv_add_out(__riscv_vadd_vx_i32m4(ta, rb, vl), p, vl), out_flip, vl);
    a += vl;
    y += vl;
    n -= vl;
  }
}

/* XNNPACK's qs8 add: b = NULL for vaddc (b's term is then in bias). */
Q8NN_RVV_INLINE void q8nn_rvv_vadd_xnn(size_t n, const int8_t* a, const int8_t* b, int8_t* y, int32_t bias,
                                       const struct q8nn_qs8_add_params* p) {
  const int8_t in_flip = (int8_t) p->input_flip, out_flip = (int8_t) p->output_flip;
  while (n != 0) {
    const size_t vl = __riscv_vsetvl_e8m1(n);
    vint32m4_t acc = __riscv_vmv_v_x_i32m4(bias, vl);
    acc = __riscv_vmacc_vx_i32m4(acc, p->xnn_a_multiplier, __riscv_vsext_vf4_i32m4(q8nn_rvv_add_load(a, in_flip, vl), vl), vl);
    if (b != NULL) {
      acc = __riscv_vmacc_vx_i32m4(acc, p->xnn_b_multiplier, __riscv_vsext_vf4_i32m4(q8nn_rvv_add_load(b, in_flip, vl), vl), vl);
      b += vl;
    }
    acc = __riscv_vsra_vx_i32m4(acc, p->xnn_shift, vl);
    q8nn_rvv_add_store(y, q8nn_rvv_output_sat_m4(acc, p->output_zero_point, p->output_min, p->output_max, vl), out_flip, vl);
    a += vl;
    y += vl;
    n -= vl;
  }
}

void q8nn_qs8_vadd_minmax_xnn_ukernel__rvv_u4v(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                               const struct q8nn_qs8_add_params* p) {
  q8nn_rvv_vadd_xnn(n, a, b, y, p->xnn_bias, p);
}

void q8nn_qs8_vaddc_minmax_xnn_ukernel__rvv_u4v(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                const struct q8nn_qs8_add_params* p) {
  /* the int32 sum is exact (see ukernel.h); b[0] flipped like every operand byte */
  const int32_t bv = (int8_t) (*b ^ p->input_flip);
  q8nn_rvv_vadd_xnn(n, a, NULL, y, p->xnn_bias + bv * p->xnn_b_multiplier, p);
}
