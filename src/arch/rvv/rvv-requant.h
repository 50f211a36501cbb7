/*
 * RVV 1.0 requantization shared by the RVV kernels, bit-exact with src/kernels/requantization.h
 * for every int32 accumulator and every shift in [-31, 30]. All rounding instructions take an
 * explicit vxrm (round-to-nearest-up), so nothing depends on the caller's vxrm CSR.
 *
 * Double rounding: the left shift is VSLL by max(shift, 0) (modulo 2^32 like the scalar). SRDHM
 *   is VSMUL with RNU: (a * b + 2^30) >> 31 with saturation of INT32_MIN * INT32_MIN, which is
 *   gemmlowp's nudge-and-truncate (ties toward +infinity). RoundingDivideByPOT rounds ties away
 *   from zero and VSSRA (RNU) rounds them up, so negative x first gets -1 where the right shift e
 *   is nonzero: x + ((x & min(shift, 0)) >> 31) (the AND has its sign bit iff x < 0 and e > 0),
 *   with a saturating add so INT32_MIN stays exact, then VSSRA by e.
 * Single rounding: VWMUL to int64, VSSRA (RNU) by 31 - shift in [1, 62], then the low 32 bits
 *   (VNCVT), like TFLite's static_cast where the result leaves int32.
 * Output: zero point added in int32 with wrap-around (TFLite's compiled `acc += output_offset`),
 *   VNCLIP (saturating) to int16 and to int8, then min/max: the saturations only change values
 *   that the clamp into [-128, 127] maps to the same byte.
 * fp32 (XNNPACK's requantization, q8nn_rounding_fp32; the float scale's bits in the multiplier
 *   slot): VFCVT.F.X.V, VFMUL.VV by the scale, VFMIN.VF against output_max - zp, VFCVT.X.F.V, 4
 *   instructions per vector; the conversions and the product round with the dynamic frm, round to
 *   nearest even by default (as the scalar kernel's float arithmetic and XNNPACK's). The product
 *   is never fused: no add follows it and the library is built with -ffp-contract=off. Output:
 *   VNCLIP to int16 (out-of-range conversions saturate to INT32_MIN/MAX first), VSADD of the zero
 *   point (saturating), VNCLIP to int8, min/max: a value below output_min stays below it through
 *   every saturating step, so the bytes equal clamp(rne(x), lo, hi) + zp.
 * Types: accumulators int32 at LMUL 4 (gemm) or 8 (dwconv); the helpers are instantiated per LMUL.
 * The output stages return the clamped int8 bytes; the conv kernels XOR them with output_flip
 *   (uint8 outputs) before their store.
 */
#ifndef Q8NN_ARCH_RVV_REQUANT_H
#define Q8NN_ARCH_RVV_REQUANT_H

#include <riscv_vector.h>

#include "ukernel.h"

#define Q8NN_RVV_INLINE static inline __attribute__((always_inline))

/* Double rounding at one LMUL (instantiated for m4 and m8 below). */
#define Q8NN_RVV_DEFINE_RDOUBLE(M)                                                                 \
  Q8NN_RVV_INLINE vint32##M##_t q8nn_rvv_rdouble_##M(vint32##M##_t acc, vint32##M##_t mult,        \
                                                     vint32##M##_t shift, size_t vl) {             \
    const vint32##M##_t lshift = __riscv_vmax_vx_i32##M(shift, 0, vl);                             \
    const vint32##M##_t nshift = __riscv_vmin_vx_i32##M(shift, 0, vl);                             \
    vint32##M##_t x =                                                                              \
        __riscv_vsll_vv_i32##M(acc, __riscv_vreinterpret_v_i32##M##_u32##M(lshift), vl);           \
    x = __riscv_vsmul_vv_i32##M(x, mult, __RISCV_VXRM_RNU, vl);                                    \
    const vint32##M##_t fixup =                                                                    \
        __riscv_vsra_vx_i32##M(__riscv_vand_vv_i32##M(x, nshift, vl), 31, vl);                     \
    x = __riscv_vsadd_vv_i32##M(x, fixup, vl);                                                     \
    const vuint32##M##_t rshift =                                                                  \
        __riscv_vreinterpret_v_i32##M##_u32##M(__riscv_vneg_v_i32##M(nshift, vl));                 \
    return __riscv_vssra_vv_i32##M(x, rshift, __RISCV_VXRM_RNU, vl);                               \
  }
Q8NN_RVV_DEFINE_RDOUBLE(m4)
Q8NN_RVV_DEFINE_RDOUBLE(m8)

/* fp32 at one LMUL: rne((float) acc * scale) clamped above to hi = output_max - zp; the zero point
   and the lower clamp come in the output stage (rounding 2). */
#define Q8NN_RVV_DEFINE_FP32(M)                                                                    \
  Q8NN_RVV_INLINE vint32##M##_t q8nn_rvv_fp32_##M(vint32##M##_t acc, vint32##M##_t scale_bits,     \
                                                  float hi, size_t vl) {                           \
    vfloat32##M##_t x = __riscv_vfcvt_f_x_v_f32##M(acc, vl);                                       \
    x = __riscv_vfmul_vv_f32##M(x, __riscv_vreinterpret_v_i32##M##_f32##M(scale_bits), vl);        \
    x = __riscv_vfmin_vf_f32##M(x, hi, vl);                                                        \
    return __riscv_vfcvt_x_f_v_i32##M(x, vl);                                                      \
  }
Q8NN_RVV_DEFINE_FP32(m4)
Q8NN_RVV_DEFINE_FP32(m8)

/* Saturating output stage of the fp32 epilogue and of XNNPACK's add: int32 -> int16 (saturating),
   + zero point (saturating), -> int8 (saturating), clamp. */
Q8NN_RVV_INLINE vint8m1_t q8nn_rvv_output_sat_m4(vint32m4_t v, int32_t zp, int32_t min, int32_t max, size_t vl) {
  vint16m2_t h = __riscv_vnclip_wx_i16m2(v, 0, __RISCV_VXRM_RNU, vl);
  h = __riscv_vsadd_vx_i16m2(h, (int16_t) zp, vl);
  vint8m1_t b = __riscv_vnclip_wx_i8m1(h, 0, __RISCV_VXRM_RNU, vl);
  b = __riscv_vmax_vx_i8m1(b, (int8_t) min, vl);
  return __riscv_vmin_vx_i8m1(b, (int8_t) max, vl);
}
Q8NN_RVV_INLINE vint8m2_t q8nn_rvv_output_sat_m8(vint32m8_t v, int32_t zp, int32_t min, int32_t max, size_t vl) {
  vint16m4_t h = __riscv_vnclip_wx_i16m4(v, 0, __RISCV_VXRM_RNU, vl);
  h = __riscv_vsadd_vx_i16m4(h, (int16_t) zp, vl);
  vint8m2_t b = __riscv_vnclip_wx_i8m2(h, 0, __RISCV_VXRM_RNU, vl);
  b = __riscv_vmax_vx_i8m2(b, (int8_t) min, vl);
  return __riscv_vmin_vx_i8m2(b, (int8_t) max, vl);
}

/* LMUL 4 (i32m4 accumulators, i16m2 / i8m1 / i64m8 partners). */
Q8NN_RVV_INLINE vint32m4_t q8nn_rvv_requantize_m4(vint32m4_t acc, vint32m4_t mult, vint32m4_t shift,
                                                  int rounding, size_t vl) {
  if (rounding == 0) {
    return q8nn_rvv_rdouble_m4(acc, mult, shift, vl);
  } else {
    const vint64m8_t prod = __riscv_vwmul_vv_i64m8(acc, mult, vl);
    const vuint32m4_t tshift =
        __riscv_vreinterpret_v_i32m4_u32m4(__riscv_vrsub_vx_i32m4(shift, 31, vl));
    const vint64m8_t r =
        __riscv_vssra_vv_i64m8(prod, __riscv_vzext_vf2_u64m8(tshift, vl), __RISCV_VXRM_RNU, vl);
    return __riscv_vncvt_x_x_w_i32m4(r, vl);
  }
}

Q8NN_RVV_INLINE vint8m1_t q8nn_rvv_output_m4(vint32m4_t v, const struct q8nn_qs8_conv_params* p,
                                             size_t vl) {
  v = __riscv_vadd_vx_i32m4(v, p->output_zero_point, vl);
  const vint16m2_t h = __riscv_vnclip_wx_i16m2(v, 0, __RISCV_VXRM_RNU, vl);
  vint8m1_t b = __riscv_vnclip_wx_i8m1(h, 0, __RISCV_VXRM_RNU, vl);
  b = __riscv_vmax_vx_i8m1(b, (int8_t) p->output_min, vl);
  return __riscv_vmin_vx_i8m1(b, (int8_t) p->output_max, vl);
}

/* LMUL 8 for the rdouble path (dwconv); the single-rounding int64 product is done in two halves
   of LMUL 4 because LMUL 16 does not exist. */
Q8NN_RVV_INLINE vint32m8_t q8nn_rvv_requantize_m8(vint32m8_t acc, vint32m8_t mult, vint32m8_t shift,
                                                  int rounding, size_t vl) {
  if (rounding == 0) {
    return q8nn_rvv_rdouble_m8(acc, mult, shift, vl);
  } else {
    const size_t half = __riscv_vsetvlmax_e32m4();
    const size_t vl0 = vl < half ? vl : half;
    const size_t vl1 = vl - vl0;
    vint32m4_t lo = q8nn_rvv_requantize_m4(__riscv_vget_v_i32m8_i32m4(acc, 0),
                                           __riscv_vget_v_i32m8_i32m4(mult, 0),
                                           __riscv_vget_v_i32m8_i32m4(shift, 0), 1, vl0);
    vint32m8_t out = __riscv_vlmul_ext_v_i32m4_i32m8(lo);
    if (vl1 != 0) {
      const vint32m4_t hi = q8nn_rvv_requantize_m4(__riscv_vget_v_i32m8_i32m4(acc, 1),
                                                   __riscv_vget_v_i32m8_i32m4(mult, 1),
                                                   __riscv_vget_v_i32m8_i32m4(shift, 1), 1, vl1);
      out = __riscv_vset_v_i32m4_i32m8(out, 1, hi);
    }
    return out;
  }
}

Q8NN_RVV_INLINE vint8m2_t q8nn_rvv_output_m8(vint32m8_t v, const struct q8nn_qs8_conv_params* p,
                                             size_t vl) {
  v = __riscv_vadd_vx_i32m8(v, p->output_zero_point, vl);
  const vint16m4_t h = __riscv_vnclip_wx_i16m4(v, 0, __RISCV_VXRM_RNU, vl);
  vint8m2_t b = __riscv_vnclip_wx_i8m2(h, 0, __RISCV_VXRM_RNU, vl);
  b = __riscv_vmax_vx_i8m2(b, (int8_t) p->output_min, vl);
  return __riscv_vmin_vx_i8m2(b, (int8_t) p->output_max, vl);
}

#endif
