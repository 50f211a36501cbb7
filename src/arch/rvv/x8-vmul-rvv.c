/*
 * Multiply of two dense operands, RVV 1.0: the arithmetic of multiply-nd.c's table, computed
 * instead of looked up, strip-mined at LMUL 1 bytes / LMUL 4 products, as the x86 kernels
 * (x8-vmul-avx512vnni.c): each operand XORed with input_flip, minus its zero point while widening
 * to int16 (VWSUB), the products widened to int32 (VWMUL: |product| <= 65536), then PyTorch's and
 * XNNPACK's float forms (VFCVT, VFMUL, VFCVT with the dynamic rounding mode, round to nearest even
 * by default, as nearbyintf; the zero point added with saturation on int16) or TFLite's double
 * rounding (rvv-requant.h; the zero point in wrapping int32), the saturating narrows, the clamp
 * and output_flip. Exactly n bytes are read and written; y may alias a or b.
 */
#include <riscv_vector.h>

#include "kernel-decls.h"
#include "rvv-requant.h"

static inline void vmul(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                        const struct q8nn_qs8_add_params* params, const int fl) {
  const uint8_t iflip = (uint8_t) params->input_flip, oflip = (uint8_t) params->output_flip;
  const int8_t za = (int8_t) params->a_zero_point, zb = (int8_t) params->b_zero_point;
  const int32_t zp = params->output_zero_point, lo = params->output_min, hi = params->output_max;
  while (n != 0) {
    const size_t vl = __riscv_vsetvl_e8m1(n);
    const vint8m1_t va = __riscv_vreinterpret_v_u8m1_i8m1(
        __riscv_vxor_vx_u8m1(__riscv_vle8_v_u8m1((const uint8_t*) a, vl), iflip, vl));
    const vint8m1_t vb = __riscv_vreinterpret_v_u8m1_i8m1(
        __riscv_vxor_vx_u8m1(__riscv_vle8_v_u8m1((const uint8_t*) b, vl), iflip, vl));
    const vint32m4_t vp =
        __riscv_vwmul_vv_i32m4(__riscv_vwsub_vx_i16m2(va, za, vl), __riscv_vwsub_vx_i16m2(vb, zb, vl), vl);
    vint8m1_t out;
    if (fl) {
      const vfloat32m4_t x = __riscv_vfmul_vf_f32m4(__riscv_vfcvt_f_x_v_f32m4(vp, vl), params->mul_scale, vl);
      out = q8nn_rvv_output_sat_m4(__riscv_vfcvt_x_f_v_i32m4(x, vl), zp, lo, hi, vl);
    } else {
      const vint32m4_t r = q8nn_rvv_rdouble_m4(vp, __riscv_vmv_v_x_i32m4(params->output_multiplier, vl),
                                               __riscv_vmv_v_x_i32m4(params->output_shift, vl), vl);
      out = q8nn_rvv_output_sat_m4(__riscv_vadd_vx_i32m4(r, zp, vl), 0, lo, hi, vl);
    }
    __riscv_vse8_v_u8m1((uint8_t*) y, __riscv_vxor_vx_u8m1(__riscv_vreinterpret_v_i8m1_u8m1(out), oflip, vl), vl);
    n -= vl, a += vl, b += vl, y += vl;
  }
}

void q8nn_x8_vmul_ukernel__rvv(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                               const struct q8nn_qs8_add_params* params) {
  if (params->mul_float) {
    vmul(n, a, b, y, params, 1);
  } else {
    vmul(n, a, b, y, params, 0);
  }
}
