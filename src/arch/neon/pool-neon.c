/*
 * Max and average pooling of one output pixel, NEON (AArch64; see ukernel.h): 16 channels a step,
 * the tail by the portable kernel. Average: windows of at most 256 cells sum in int16 lanes, and
 * the rounded quotient is taken in float, exact as arch/x86/pool-avx2.c shows (|n| < 2^16, the
 * float quotient's error below the 1 / count distance of a non-integer quotient from an integer).
 */
#include <arm_neon.h>

#include "kernel-decls.h"

void q8nn_s8_maxpool_ukernel__neon(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                   size_t pixel_stride, size_t channels, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const uint8x16_t flip = vdupq_n_u8(params->flip);
  const int8x16_t lo = vdupq_n_s8(params->output_min), hi = vdupq_n_s8(params->output_max);
  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    int8x16_t m = vdupq_n_s8(INT8_MIN);
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const int8x16_t v = vreinterpretq_s8_u8(veorq_u8(vld1q_u8((const uint8_t*) (row + x * pixel_stride)), flip));
        m = vmaxq_s8(m, v);
      }
    }
    m = vminq_s8(vmaxq_s8(m, lo), hi);
    vst1q_u8((uint8_t*) (out + c), veorq_u8(vreinterpretq_u8_s8(m), flip));
  }
  if (c != channels) {
    q8nn_s8_maxpool_ukernel__scalar(first + c, rows, cols, row_stride, pixel_stride, channels - c, out + c, params);
  }
}

static inline int32x4_t quotient(int32x4_t sum, int32x4_t half, float32x4_t count, int32x4_t lo, int32x4_t hi) {
  /* sum > 0: sum + half, else sum - half; truncated float quotient */
  const uint32x4_t positive = vcgtq_s32(sum, vdupq_n_s32(0));
  const int32x4_t n = vaddq_s32(sum, vbslq_s32(positive, half, vnegq_s32(half)));
  const int32x4_t q = vcvtq_s32_f32(vdivq_f32(vcvtq_f32_s32(n), count));
  return vminq_s32(vmaxq_s32(q, lo), hi);
}

void q8nn_s8_avgpool_ukernel__neon(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                   size_t pixel_stride, size_t channels, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const size_t cells = rows * cols;
  if (cells > 256) {
    q8nn_s8_avgpool_ukernel__scalar(first, rows, cols, row_stride, pixel_stride, channels, out, params);
    return;
  }
  const uint8x16_t flip = vdupq_n_u8(params->flip);
  const int32x4_t half = vdupq_n_s32((int32_t) (cells / 2));
  const float32x4_t count = vdupq_n_f32((float) cells);
  const int32x4_t lo = vdupq_n_s32(params->output_min), hi = vdupq_n_s32(params->output_max);
  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    int16x8_t s0 = vdupq_n_s16(0), s1 = vdupq_n_s16(0);
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const int8x16_t v = vreinterpretq_s8_u8(veorq_u8(vld1q_u8((const uint8_t*) (row + x * pixel_stride)), flip));
        s0 = vaddw_s8(s0, vget_low_s8(v));
        s1 = vaddw_s8(s1, vget_high_s8(v));
      }
    }
    const int32x4_t q0 = quotient(vmovl_s16(vget_low_s16(s0)), half, count, lo, hi);
    const int32x4_t q1 = quotient(vmovl_s16(vget_high_s16(s0)), half, count, lo, hi);
    const int32x4_t q2 = quotient(vmovl_s16(vget_low_s16(s1)), half, count, lo, hi);
    const int32x4_t q3 = quotient(vmovl_s16(vget_high_s16(s1)), half, count, lo, hi);
    const int16x8_t p0 = vcombine_s16(vmovn_s32(q0), vmovn_s32(q1));
    const int16x8_t p1 = vcombine_s16(vmovn_s32(q2), vmovn_s32(q3));
    const int8x16_t r = vcombine_s8(vmovn_s16(p0), vmovn_s16(p1));
    vst1q_u8((uint8_t*) (out + c), veorq_u8(vreinterpretq_u8_s8(r), flip));
  }
  if (c != channels) {
    q8nn_s8_avgpool_ukernel__scalar(first + c, rows, cols, row_stride, pixel_stride, channels - c, out + c, params);
  }
}
