/*
 * One row of TFLite's bilinear resize (ukernel.h, q8nn_ibilinear_row_fn), NEON (AArch64), 16
 * channels a step, exact, as the AVX-512 kernel (x8-ibilinear-avx512vnni.c): top = tl gx + tr fx
 * and bottom = bl gx + br fx in int32 (SXTL, SMULL and SMLAL by the scalar weights), sum =
 * (top - bottom) gy + bottom 1024 (MLA), rounded half away from zero as
 * (sum + 2^19 + (sum >> 31)) >> 20, narrowed (XTN: the result is within the source bytes' range).
 * uint8 bytes are flipped where loaded and stored; the channel tail uses partial loads and stores.
 */
#include <arm_neon.h>
#include <string.h>

#include "kernel-decls.h"
#include "neon-requant.h"

/* the four int32 lanes of one quarter of a 16-channel step */
static inline int32x4_t bilinear4(int16x4_t tl, int16x4_t tr, int16x4_t bl, int16x4_t br, int16_t gx, int16_t fx,
                                  int32_t gy) {
  const int32x4_t top = vmlal_n_s16(vmull_n_s16(tl, gx), tr, fx);
  const int32x4_t bottom = vmlal_n_s16(vmull_n_s16(bl, gx), br, fx);
  const int32x4_t sum = vmlaq_n_s32(vshlq_n_s32(bottom, 10), vsubq_s32(top, bottom), gy);
  return vshrq_n_s32(vaddq_s32(vaddq_s32(sum, vdupq_n_s32(1 << 19)), vshrq_n_s32(sum, 31)), 20);
}

/* eight channels, widened: the int16 results */
static inline int16x8_t bilinear8(int16x8_t tl, int16x8_t tr, int16x8_t bl, int16x8_t br, int16_t gx, int16_t fx,
                                  int32_t gy) {
  const int32x4_t lo = bilinear4(vget_low_s16(tl), vget_low_s16(tr), vget_low_s16(bl), vget_low_s16(br), gx, fx, gy);
  const int32x4_t hi =
      bilinear4(vget_high_s16(tl), vget_high_s16(tr), vget_high_s16(bl), vget_high_s16(br), gx, fx, gy);
  return vmovn_high_s32(vmovn_s32(lo), hi);
}

static inline int8x16_t bilinear16(int8x16_t tl, int8x16_t tr, int8x16_t bl, int8x16_t br, int16_t gx, int16_t fx,
                                   int32_t gy) {
  const int16x8_t lo = bilinear8(vmovl_s8(vget_low_s8(tl)), vmovl_s8(vget_low_s8(tr)), vmovl_s8(vget_low_s8(bl)),
                                 vmovl_s8(vget_low_s8(br)), gx, fx, gy);
  const int16x8_t hi =
      bilinear8(vmovl_high_s8(tl), vmovl_high_s8(tr), vmovl_high_s8(bl), vmovl_high_s8(br), gx, fx, gy);
  return vmovn_high_s16(vmovn_s16(lo), hi);
}

void q8nn_x8_ibilinear_row__neon(const uint8_t* top, const uint8_t* bottom, const struct q8nn_resize_column* columns,
                                 size_t output_width, int32_t fy, size_t channels, uint8_t flip, uint8_t* out,
                                 size_t out_stride) {
  const int8x16_t vflip = vdupq_n_s8((int8_t) flip);
  const int32_t gy = 1024 - fy;
  const size_t full = channels & ~(size_t) 15, tail = channels & 15;
  for (size_t ox = 0; ox < output_width; ox++, out += out_stride) {
    const int8_t* tl = (const int8_t*) top + columns[ox].left;
    const int8_t* tr = (const int8_t*) top + columns[ox].right;
    const int8_t* bl = (const int8_t*) bottom + columns[ox].left;
    const int8_t* br = (const int8_t*) bottom + columns[ox].right;
    const int16_t fx = (int16_t) columns[ox].weight, gx = (int16_t) (1024 - columns[ox].weight);
    for (size_t c = 0; c < full; c += 16) {
      const int8x16_t r = bilinear16(veorq_s8(vld1q_s8(tl + c), vflip), veorq_s8(vld1q_s8(tr + c), vflip),
                                     veorq_s8(vld1q_s8(bl + c), vflip), veorq_s8(vld1q_s8(br + c), vflip), gx, fx, gy);
      vst1q_s8((int8_t*) out + c, veorq_s8(r, vflip));
    }
    if (tail != 0) {
      const int8x16_t r = bilinear16(veorq_s8(q8nn_neon_load_partial(tl + full, tail), vflip),
                                     veorq_s8(q8nn_neon_load_partial(tr + full, tail), vflip),
                                     veorq_s8(q8nn_neon_load_partial(bl + full, tail), vflip),
                                     veorq_s8(q8nn_neon_load_partial(br + full, tail), vflip), gx, fx, gy);
      q8nn_neon_store_partial((int8_t*) out + full, veorq_s8(r, vflip), tail);
    }
  }
}
