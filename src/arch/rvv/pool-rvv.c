/*
 * Max and average pooling of one output pixel, RVV 1.0 (see ukernel.h), strip-mined over the
 * channels. Average: windows of at most 256 cells sum in int16 lanes (vwadd), and the rounded
 * quotient is taken in float, exact as arch/x86/pool-avx2.c shows; larger windows run the
 * portable kernel.
 */
#include <riscv_vector.h>

#include "kernel-decls.h"

void q8nn_s8_maxpool_ukernel__rvv(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                  size_t pixel_stride, size_t channels, int8_t* out,
                                  const struct q8nn_pool_params* params) {
  const uint8_t flip = params->flip;
  for (size_t c = 0; c < channels;) {
    const size_t vl = __riscv_vsetvl_e8m4(channels - c);
    vint8m4_t m = __riscv_vmv_v_x_i8m4(INT8_MIN, vl);
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const vuint8m4_t raw = __riscv_vle8_v_u8m4((const uint8_t*) (row + x * pixel_stride), vl);
        m = __riscv_vmax_vv_i8m4(m, __riscv_vreinterpret_v_u8m4_i8m4(__riscv_vxor_vx_u8m4(raw, flip, vl)), vl);
      }
    }
    m = __riscv_vmin_vx_i8m4(__riscv_vmax_vx_i8m4(m, params->output_min, vl), params->output_max, vl);
    __riscv_vse8_v_u8m4((uint8_t*) (out + c), __riscv_vxor_vx_u8m4(__riscv_vreinterpret_v_i8m4_u8m4(m), flip, vl), vl);
    c += vl;
  }
}

void q8nn_s8_avgpool_ukernel__rvv(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                  size_t pixel_stride, size_t channels, int8_t* out,
                                  const struct q8nn_pool_params* params) {
  const size_t cells = rows * cols;
  if (cells > 256) {
    q8nn_s8_avgpool_ukernel__scalar(first, rows, cols, row_stride, pixel_stride, channels, out, params);
    return;
  }
  const uint8_t flip = params->flip;
  const int32_t half = (int32_t) (cells / 2);
  const float count = (float) cells;
  for (size_t c = 0; c < channels;) {
    const size_t vl = __riscv_vsetvl_e8m1(channels - c);
    vint16m2_t sum = __riscv_vmv_v_x_i16m2(0, vl);
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const vuint8m1_t raw = __riscv_vle8_v_u8m1((const uint8_t*) (row + x * pixel_stride), vl);
        sum = __riscv_vwadd_wv_i16m2(sum, __riscv_vreinterpret_v_u8m1_i8m1(__riscv_vxor_vx_u8m1(raw, flip, vl)), vl);
      }
    }
    const vint32m4_t s = __riscv_vwadd_vx_i32m4(sum, 0, vl);
    /* sum > 0: sum + half, else sum - half; the truncated float quotient */
    const vbool8_t positive = __riscv_vmsgt_vx_i32m4_b8(s, 0, vl);
    const vint32m4_t n = __riscv_vmerge_vvm_i32m4(__riscv_vsub_vx_i32m4(s, half, vl), __riscv_vadd_vx_i32m4(s, half, vl),
                                                  positive, vl);
    const vfloat32m4_t qf = __riscv_vfdiv_vf_f32m4(__riscv_vfcvt_f_x_v_f32m4(n, vl), count, vl);
    vint32m4_t q = __riscv_vfcvt_rtz_x_f_v_i32m4(qf, vl);
    q = __riscv_vmin_vx_i32m4(__riscv_vmax_vx_i32m4(q, params->output_min, vl), params->output_max, vl);
    const vint16m2_t q16 = __riscv_vncvt_x_x_w_i16m2(q, vl);
    const vint8m1_t q8 = __riscv_vncvt_x_x_w_i8m1(q16, vl);
    __riscv_vse8_v_u8m1((uint8_t*) (out + c), __riscv_vxor_vx_u8m1(__riscv_vreinterpret_v_i8m1_u8m1(q8), flip, vl), vl);
    c += vl;
  }
}
