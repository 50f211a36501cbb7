/*
 * Max and average pooling of one output pixel, RVV 1.0 (see ukernel.h), strip-mined over the
 * channels. Average: int16 lane sums of up to 256 cells (vwadd), added into int32 lanes; TFLite's
 * rounded quotient is taken in float for windows of up to 65536 cells, exact as
 * arch/x86/pool-avx2.c shows (larger ones run the portable kernel); pytorch_qnnpack's
 * requantization at any size. One channel of dense pixels (NCHW planes pooled as images) sums
 * whole window rows with VWREDSUMU.
 */
#include <riscv_vector.h>

#include "kernel-decls.h"
#include "requantization.h"

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

/* The row kernels' block (kernels/maxpool-row.h): vl channels as uint8 lanes; uint8 bytes (u8, a
   constant at each call) compare unsigned, so no flip is needed; int8 bytes compare signed. */
typedef vuint8m4_t q8nn_pool_vec;
struct q8nn_pool_block {
  size_t vl;
  uint8_t lo, hi; /* the clamp in the compared domain */
  int u8;
};

static inline vuint8m4_t q8nn_pool_max(vuint8m4_t a, vuint8m4_t b, const struct q8nn_pool_block* blk) {
  if (blk->u8) return __riscv_vmaxu_vv_u8m4(a, b, blk->vl);
  return __riscv_vreinterpret_v_i8m4_u8m4(__riscv_vmax_vv_i8m4(__riscv_vreinterpret_v_u8m4_i8m4(a),
                                                               __riscv_vreinterpret_v_u8m4_i8m4(b), blk->vl));
}

static inline vuint8m4_t q8nn_pool_column(const int8_t* p, size_t rows, size_t row_stride,
                                          const struct q8nn_pool_block* blk) {
  vuint8m4_t m = __riscv_vle8_v_u8m4((const uint8_t*) p, blk->vl);
  for (size_t y = 1; y < rows; y++) {
    m = q8nn_pool_max(m, __riscv_vle8_v_u8m4((const uint8_t*) (p + y * row_stride), blk->vl), blk);
  }
  return m;
}

static inline void q8nn_pool_store(int8_t* o, vuint8m4_t m, const struct q8nn_pool_block* blk) {
  const size_t vl = blk->vl;
  vuint8m4_t clamped;
  if (blk->u8) {
    clamped = __riscv_vminu_vx_u8m4(__riscv_vmaxu_vx_u8m4(m, blk->lo, vl), blk->hi, vl);
  } else {
    const vint8m4_t s = __riscv_vmax_vx_i8m4(__riscv_vreinterpret_v_u8m4_i8m4(m), (int8_t) blk->lo, vl);
    clamped = __riscv_vreinterpret_v_i8m4_u8m4(__riscv_vmin_vx_i8m4(s, (int8_t) blk->hi, vl));
  }
  __riscv_vse8_v_u8m4((uint8_t*) o, clamped, vl);
}

static inline void q8nn_pool_block_init(struct q8nn_pool_block* blk, const struct q8nn_pool_params* params,
                                        int u8) {
  /* uint8 bounds are the int8 ones flipped back */
  blk->lo = (uint8_t) params->output_min ^ (u8 ? 0x80 : 0);
  blk->hi = (uint8_t) params->output_max ^ (u8 ? 0x80 : 0);
  blk->u8 = u8;
}

/* strip-mined: vl channels a block */
static inline size_t q8nn_pool_block_lanes(struct q8nn_pool_block* blk, size_t remaining) {
  blk->vl = __riscv_vsetvl_e8m4(remaining);
  return blk->vl;
}

#include "maxpool-row.h"

Q8NN_DEFINE_MAXPOOL_ROW_UKERNEL(q8nn_s8_maxpool_row_ukernel__rvv)

/* One channel of dense pixels (an NCHW plane pooled as an image of one-byte pixels): each window
   row is a run of bytes, offset to uint8, widened to uint16 and summed by VWREDSUMU into uint32
   (a strip of at most VLEN / 8 <= 8192 bytes sums below 2^21). */
static void average_single_channel(const int8_t* first, size_t rows, size_t cols, size_t row_stride, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const int32_t count = (int32_t) (rows * cols);
  const uint8_t offset = q8nn_pool_plane_runs(&rows, &cols, row_stride, params);
  uint64_t total = 0;
  for (size_t y = 0; y < rows; y++) {
    const uint8_t* row = (const uint8_t*) first + y * row_stride;
    for (size_t x = 0; x < cols;) {
      const size_t vl = __riscv_vsetvl_e8m1(cols - x);
      const vuint8m1_t bytes = __riscv_vxor_vx_u8m1(__riscv_vle8_v_u8m1(row + x, vl), offset, vl);
      const vuint16m2_t v = __riscv_vzext_vf2_u16m2(bytes, vl);
      const vuint32m1_t s = __riscv_vwredsumu_vs_u16m2_u32m1(v, __riscv_vmv_s_x_u32m1(0, 1), vl);
      total += __riscv_vmv_x_s_u32m1_u32(s);
      x += vl;
    }
  }
  out[0] = q8nn_pool_plane_byte(total, count, params);
}

void q8nn_s8_avgpool_ukernel__rvv(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                  size_t pixel_stride, size_t channels, int8_t* out,
                                  const struct q8nn_pool_params* params) {
  const size_t cells = rows * cols;
  if (cells > 65536 && !params->requantize) {
    q8nn_s8_avgpool_ukernel__scalar(first, rows, cols, row_stride, pixel_stride, channels, out, params);
    return;
  }
  if (channels == 1 && pixel_stride == 1) {
    average_single_channel(first, rows, cols, row_stride, out, params);
    return;
  }
  const uint8_t flip = params->flip;
  const int32_t half = (int32_t) (cells / 2);
  const float count = (float) cells;
  for (size_t c = 0; c < channels;) {
    const size_t vl = __riscv_vsetvl_e8m1(channels - c);
    /* int16 sums of up to 256 cells, added into int32 every 256 cells */
    vint16m2_t sum = __riscv_vmv_v_x_i16m2(0, vl);
    vint32m4_t s = __riscv_vmv_v_x_i32m4(0, vl);
    size_t pending = 0; /* cells in the int16 sums; checked per run of a row, not per pixel */
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x0 = 0; x0 < cols;) {
        const size_t run = cols - x0 < 256 ? cols - x0 : 256;
        if (pending + run > 256) {
          s = __riscv_vwadd_wv_i32m4(s, sum, vl);
          sum = __riscv_vmv_v_x_i16m2(0, vl);
          pending = 0;
        }
        for (size_t x = x0; x < x0 + run; x++) {
          const vuint8m1_t raw = __riscv_vle8_v_u8m1((const uint8_t*) (row + x * pixel_stride), vl);
          sum = __riscv_vwadd_wv_i16m2(sum, __riscv_vreinterpret_v_u8m1_i8m1(__riscv_vxor_vx_u8m1(raw, flip, vl)), vl);
        }
        pending += run;
        x0 += run;
      }
    }
    s = __riscv_vwadd_wv_i32m4(s, sum, vl);
    vint32m4_t q;
    if (params->requantize) {
      /* vfcvt.x.f.v rounds by frm, round to nearest even by default, as nearbyintf */
      const vint32m4_t acc = __riscv_vsub_vx_i32m4(s, params->input_zero_point * (int32_t) cells, vl);
      const vfloat32m4_t scaled = __riscv_vfmul_vf_f32m4(__riscv_vfcvt_f_x_v_f32m4(acc, vl), params->scale, vl);
      q = __riscv_vadd_vx_i32m4(__riscv_vfcvt_x_f_v_i32m4(scaled, vl), params->output_zero_point, vl);
    } else {
      /* sum > 0: sum + half, else sum - half; the truncated float quotient */
      const vbool8_t positive = __riscv_vmsgt_vx_i32m4_b8(s, 0, vl);
      const vint32m4_t n = __riscv_vmerge_vvm_i32m4(__riscv_vsub_vx_i32m4(s, half, vl),
                                                    __riscv_vadd_vx_i32m4(s, half, vl), positive, vl);
      const vfloat32m4_t qf = __riscv_vfdiv_vf_f32m4(__riscv_vfcvt_f_x_v_f32m4(n, vl), count, vl);
      q = __riscv_vfcvt_rtz_x_f_v_i32m4(qf, vl);
    }
    q = __riscv_vmin_vx_i32m4(__riscv_vmax_vx_i32m4(q, params->output_min, vl), params->output_max, vl);
    const vint16m2_t q16 = __riscv_vncvt_x_x_w_i16m2(q, vl);
    const vint8m1_t q8 = __riscv_vncvt_x_x_w_i8m1(q16, vl);
    __riscv_vse8_v_u8m1((uint8_t*) (out + c), __riscv_vxor_vx_u8m1(__riscv_vreinterpret_v_i8m1_u8m1(q8), flip, vl), vl);
    c += vl;
  }
}
