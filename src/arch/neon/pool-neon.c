/*
 * Max and average pooling of one output pixel, NEON (AArch64; see ukernel.h): 16 channels a step,
 * the tail by the portable kernel. Average: int16 lane sums of up to 256 cells, added into int32
 * lanes; TFLite's rounded quotient is taken in float for windows of up to 65536 cells, exact as
 * arch/x86/pool-avx2.c shows; pytorch_qnnpack's requantization at any size. One channel of dense
 * pixels (NCHW planes pooled as images) sums whole window rows with UADALP.
 */
#include <arm_neon.h>

#include "kernel-decls.h"
#include "requantization.h"

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

/* The row kernels' block (kernels/maxpool-row.h): 16 channels as uint8 lanes; uint8 bytes (u8, a
   constant at each call) compare unsigned, so no flip is needed; int8 bytes compare signed. */
typedef uint8x16_t q8nn_pool_vec;
struct q8nn_pool_block {
  uint8x16_t lo, hi; /* the clamp in the compared domain */
  int u8;
};

static inline uint8x16_t q8nn_pool_max(uint8x16_t a, uint8x16_t b, const struct q8nn_pool_block* blk) {
  return blk->u8 ? vmaxq_u8(a, b) : vreinterpretq_u8_s8(vmaxq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b)));
}

static inline uint8x16_t q8nn_pool_column(const int8_t* p, size_t rows, size_t row_stride,
                                          const struct q8nn_pool_block* blk) {
  uint8x16_t m = vld1q_u8((const uint8_t*) p);
  for (size_t y = 1; y < rows; y++) m = q8nn_pool_max(m, vld1q_u8((const uint8_t*) (p + y * row_stride)), blk);
  return m;
}

static inline void q8nn_pool_store(int8_t* o, uint8x16_t m, const struct q8nn_pool_block* blk) {
  uint8x16_t clamped;
  if (blk->u8) {
    clamped = vminq_u8(vmaxq_u8(m, blk->lo), blk->hi);
  } else {
    const int8x16_t s = vmaxq_s8(vreinterpretq_s8_u8(m), vreinterpretq_s8_u8(blk->lo));
    clamped = vreinterpretq_u8_s8(vminq_s8(s, vreinterpretq_s8_u8(blk->hi)));
  }
  vst1q_u8((uint8_t*) o, clamped);
}

static inline void q8nn_pool_block_init(struct q8nn_pool_block* blk, const struct q8nn_pool_params* params,
                                        int u8) {
  /* uint8 bounds are the int8 ones flipped back */
  blk->lo = vdupq_n_u8((uint8_t) params->output_min ^ (u8 ? 0x80 : 0));
  blk->hi = vdupq_n_u8((uint8_t) params->output_max ^ (u8 ? 0x80 : 0));
  blk->u8 = u8;
}

/* 16 channels a block; fewer go to the portable kernel */
static inline size_t q8nn_pool_block_lanes(struct q8nn_pool_block* blk, size_t remaining) {
  (void) blk;
  return remaining >= 16 ? 16 : 0;
}

#include "maxpool-row.h"

Q8NN_DEFINE_MAXPOOL_ROW_UKERNEL(q8nn_s8_maxpool_row_ukernel__neon)

/* The epilogue of 4 window sums: TFLite's quotient or pytorch_qnnpack's requantization (ukernel.h),
   clamped. */
static inline int32x4_t average(int32x4_t sum, size_t cells, const struct q8nn_pool_params* params) {
  int32x4_t q;
  if (params->requantize) {
    /* FCVTNS rounds to nearest even, as nearbyintf */
    const int32x4_t acc = vsubq_s32(sum, vdupq_n_s32(params->input_zero_point * (int32_t) cells));
    q = vaddq_s32(vcvtnq_s32_f32(vmulq_n_f32(vcvtq_f32_s32(acc), params->scale)),
                  vdupq_n_s32(params->output_zero_point));
  } else {
    /* sum > 0: sum + half, else sum - half; truncated float quotient */
    const int32x4_t half = vdupq_n_s32((int32_t) (cells / 2));
    const uint32x4_t positive = vcgtq_s32(sum, vdupq_n_s32(0));
    const int32x4_t n = vaddq_s32(sum, vbslq_s32(positive, half, vnegq_s32(half)));
    q = vcvtq_s32_f32(vdivq_f32(vcvtq_f32_s32(n), vdupq_n_f32((float) cells)));
  }
  return vminq_s32(vmaxq_s32(q, vdupq_n_s32(params->output_min)), vdupq_n_s32(params->output_max));
}

/* One channel of dense pixels (an NCHW plane pooled as an image of one-byte pixels): each window
   row is a run of bytes, summed 16 at a time (UADDLP, UADALP into uint32 lanes: at most 2^23
   cells of 255) on the bytes offset to uint8. */
static void average_single_channel(const int8_t* first, size_t rows, size_t cols, size_t row_stride, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const int32_t count = (int32_t) (rows * cols);
  const uint8_t offset = q8nn_pool_plane_runs(&rows, &cols, row_stride, params);
  const uint8x16_t voffset = vdupq_n_u8(offset);
  uint32x4_t acc = vdupq_n_u32(0);
  uint64_t tail = 0;
  for (size_t y = 0; y < rows; y++) {
    const uint8_t* row = (const uint8_t*) first + y * row_stride;
    size_t x = 0;
    for (; x + 16 <= cols; x += 16) acc = vpadalq_u16(acc, vpaddlq_u8(veorq_u8(vld1q_u8(row + x), voffset)));
    for (; x < cols; x++) tail += (uint8_t) (row[x] ^ offset);
  }
  out[0] = q8nn_pool_plane_byte(vaddlvq_u32(acc) + tail, count, params);
}

void q8nn_s8_avgpool_ukernel__neon(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
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
  const uint8x16_t flip = vdupq_n_u8(params->flip);
  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    /* int16 sums of up to 256 cells, added into int32 every 256 cells */
    int16x8_t s0 = vdupq_n_s16(0), s1 = vdupq_n_s16(0);
    int32x4_t w0 = vdupq_n_s32(0), w1 = w0, w2 = w0, w3 = w0;
    size_t pending = 0; /* cells in the int16 sums; checked per run of a row, not per pixel */
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x0 = 0; x0 < cols;) {
        const size_t run = cols - x0 < 256 ? cols - x0 : 256;
        if (pending + run > 256) {
          w0 = vaddw_s16(w0, vget_low_s16(s0)), w1 = vaddw_s16(w1, vget_high_s16(s0));
          w2 = vaddw_s16(w2, vget_low_s16(s1)), w3 = vaddw_s16(w3, vget_high_s16(s1));
          s0 = s1 = vdupq_n_s16(0);
          pending = 0;
        }
        for (size_t x = x0; x < x0 + run; x++) {
          const int8x16_t v = vreinterpretq_s8_u8(veorq_u8(vld1q_u8((const uint8_t*) (row + x * pixel_stride)), flip));
          s0 = vaddw_s8(s0, vget_low_s8(v));
          s1 = vaddw_s8(s1, vget_high_s8(v));
        }
        pending += run;
        x0 += run;
      }
    }
    w0 = vaddw_s16(w0, vget_low_s16(s0)), w1 = vaddw_s16(w1, vget_high_s16(s0));
    w2 = vaddw_s16(w2, vget_low_s16(s1)), w3 = vaddw_s16(w3, vget_high_s16(s1));
    const int16x8_t p0 = vcombine_s16(vmovn_s32(average(w0, cells, params)), vmovn_s32(average(w1, cells, params)));
    const int16x8_t p1 = vcombine_s16(vmovn_s32(average(w2, cells, params)), vmovn_s32(average(w3, cells, params)));
    const int8x16_t r = vcombine_s8(vmovn_s16(p0), vmovn_s16(p1));
    vst1q_u8((uint8_t*) (out + c), veorq_u8(vreinterpretq_u8_s8(r), flip));
  }
  if (c != channels) {
    q8nn_s8_avgpool_ukernel__scalar(first + c, rows, cols, row_stride, pixel_stride, channels - c, out + c, params);
  }
}
