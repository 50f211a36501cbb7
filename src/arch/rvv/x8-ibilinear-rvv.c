/*
 * One row of TFLite's bilinear resize (ukernel.h, q8nn_ibilinear_row_fn), RVV 1.0, strip-mined over
 * the channels (bytes at LMUL 1, int32 at LMUL 4), exact, as the AVX-512 kernel
 * (x8-ibilinear-avx512vnni.c): top = tl gx + tr fx and bottom = bl gx + br fx widened from int16
 * (VWMUL, VWMACC by the scalar weights), sum = (top - bottom) gy + bottom 1024 (VMACC), rounded
 * half away from zero as (sum + 2^19 + (sum >> 31)) >> 20, narrowed (VNCVT: the result is within
 * the source bytes' range). uint8 bytes are flipped where loaded and stored.
 */
#include <riscv_vector.h>

#include "kernel-decls.h"

static inline vint16m2_t load16(const uint8_t* p, uint8_t flip, size_t vl) {
  const vuint8m1_t v = __riscv_vxor_vx_u8m1(__riscv_vle8_v_u8m1(p, vl), flip, vl);
  return __riscv_vsext_vf2_i16m2(__riscv_vreinterpret_v_u8m1_i8m1(v), vl);
}

void q8nn_x8_ibilinear_row__rvv(const uint8_t* top, const uint8_t* bottom, const struct q8nn_resize_column* columns,
                                size_t output_width, int32_t fy, size_t channels, uint8_t flip, uint8_t* out,
                                size_t out_stride) {
  const int32_t gy = 1024 - fy;
  for (size_t ox = 0; ox < output_width; ox++, out += out_stride) {
    const size_t left = columns[ox].left, right = columns[ox].right;
    const int16_t fx = (int16_t) columns[ox].weight, gx = (int16_t) (1024 - columns[ox].weight);
    for (size_t c = 0; c < channels;) {
      const size_t vl = __riscv_vsetvl_e8m1(channels - c);
      vint32m4_t t = __riscv_vwmul_vx_i32m4(load16(top + left + c, flip, vl), gx, vl);
      t = __riscv_vwmacc_vx_i32m4(t, fx, load16(top + right + c, flip, vl), vl);
      vint32m4_t b = __riscv_vwmul_vx_i32m4(load16(bottom + left + c, flip, vl), gx, vl);
      b = __riscv_vwmacc_vx_i32m4(b, fx, load16(bottom + right + c, flip, vl), vl);
      const vint32m4_t diff = __riscv_vsub_vv_i32m4(t, b, vl);
      const vint32m4_t sum = __riscv_vmacc_vx_i32m4(__riscv_vsll_vx_i32m4(b, 10, vl), gy, diff, vl);
      const vint32m4_t sign = __riscv_vsra_vx_i32m4(sum, 31, vl);
      const vint32m4_t nudged = __riscv_vadd_vv_i32m4(__riscv_vadd_vx_i32m4(sum, 1 << 19, vl), sign, vl);
      const vint16m2_t h = __riscv_vncvt_x_x_w_i16m2(__riscv_vsra_vx_i32m4(nudged, 20, vl), vl);
      const vuint8m1_t r = __riscv_vreinterpret_v_i8m1_u8m1(__riscv_vncvt_x_x_w_i8m1(h, vl));
      __riscv_vse8_v_u8m1(out + c, __riscv_vxor_vx_u8m1(r, flip, vl), vl);
      c += vl;
    }
  }
}
