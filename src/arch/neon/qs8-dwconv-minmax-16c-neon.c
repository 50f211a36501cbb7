/*
 * NEON depthwise kernels, 16 channels per block (CT = 16), both TFLite roundings and XNNPACK's
 * fp32 (same loops, the epilogue picked by a constant):
 *   q8nn_qs8_dwconv_minmax_{rdouble,rsingle,fp32}_ukernel_9p16c__neon    3x3 (taps = 9)
 *   q8nn_qs8_dwconv_minmax_{rdouble,rsingle,fp32}_ukernel_25p16c__neon   5x5 (taps = 25)
 *   q8nn_qs8_dwconv_minmax_{rdouble,rsingle,fp32}_ukernel_xp16c__neon    any number of taps
 * Channels innermost: per output pixel the tap pointers are fixed up once (zero row as is, others
 * + input_offset); then per 16-channel block 4 int32x4 accumulators start from the packed bias,
 * each tap loads 16 inputs and 16 weights, SMULL/SMULL2 (int8 x int8 fits int16) and SADDW/SADDW2
 * into int32 (wrapping like the scalar kernels), and the block is requantized in registers
 * (neon-requant.h) and stored. The channel tail (channels % 16) loads each tap's remaining
 * inputs with fixed-size loads into a zeroed vector, so no input byte past `channels` is read;
 * packed weights are zero-padded to 16 channels (lanes past `channels` are never stored). Params:
 * output_zero_point/min/max, input_flip/output_flip (uint8 activations: one EOR per 16-input load,
 * the zero row's included, and one in q8nn_neon_pack16 before the store); multiplier/shift per
 * channel.
 */
#include <string.h>

#include "kernel-decls.h"
#include "arch/neon/neon-requant.h"

#define Q8NN_NEON_DW_MAX_FIXED_TAPS 25

Q8NN_NEON_INLINE void q8nn_neon_dw_tap(int32x4_t acc[4], int8x16_t vi, int8x16_t vk) {
  const int16x8_t vlo = vmull_s8(vget_low_s8(vi), vget_low_s8(vk));
  const int16x8_t vhi = vmull_high_s8(vi, vk);
  acc[0] = vaddw_s16(acc[0], vget_low_s16(vlo));
  acc[1] = vaddw_high_s16(acc[1], vlo);
  acc[2] = vaddw_s16(acc[2], vget_low_s16(vhi));
  acc[3] = vaddw_high_s16(acc[3], vhi);
}

Q8NN_NEON_INLINE int8x16_t q8nn_neon_dw_finish(int32x4_t acc[4], const int32_t* header,
                                               int rounding, struct q8nn_neon_out o) {
  /* Two copies of the loop, so the common case (all shifts <= 0) carries no SSHL. */
  if (rounding == 2) {
    for (int q = 0; q < 4; q++) {
      acc[q] = q8nn_neon_requantize_fp32(acc[q], vreinterpretq_f32_s32(vld1q_s32(header + 16 + 4 * q)));
    }
  } else if (rounding == 0 && q8nn_neon_any_left_shift16(header + 32)) {
    for (int q = 0; q < 4; q++) {
      const struct q8nn_neon_rq rq = q8nn_neon_rq_load(header + 16 + 4 * q, header + 32 + 4 * q, 0);
      acc[q] = q8nn_neon_requantize(acc[q], rq, 0, 1);
    }
  } else {
    for (int q = 0; q < 4; q++) {
      const struct q8nn_neon_rq rq =
          q8nn_neon_rq_load(header + 16 + 4 * q, header + 32 + 4 * q, rounding);
      acc[q] = q8nn_neon_requantize(acc[q], rq, rounding, 0);
    }
  }
  return q8nn_neon_pack16(acc[0], acc[1], acc[2], acc[3], o, rounding);
}

/* TAPS != 0: fixed tap count (unrolled, pointers kept in registers); TAPS == 0: any `taps`. */
Q8NN_NEON_INLINE void q8nn_neon_dwconv_16c(size_t TAPS, int rounding, size_t channels,
                                           size_t output_width, size_t taps, const int8_t** input,
                                           size_t input_stride, const void* weights, int8_t* output,
                                           size_t output_increment, size_t input_offset,
                                           const int8_t* zero,
                                           const struct q8nn_qs8_conv_params* params) {
  const struct q8nn_neon_out o = q8nn_neon_out_load(params);
  const int8x16_t vflip = q8nn_neon_input_flip(params);
  if (TAPS != 0) taps = TAPS;
  const size_t block_bytes = Q8NN_PACKED_HEADER_BYTES(16) + 16 * taps;
  do {
    const int8_t* w = (const int8_t*) weights;
    const int8_t* rows[Q8NN_NEON_DW_MAX_FIXED_TAPS];
    if (TAPS != 0) {
      for (size_t t = 0; t < TAPS; t++) {
        const int8_t* row = input[t];
        rows[t] = row == zero ? row : (const int8_t*) ((uintptr_t) row + input_offset);
      }
    }
    size_t c = channels;
    for (; c >= 16; c -= 16) {
      int32x4_t acc[4];
      const int32_t* header = (const int32_t*) w;
      for (int q = 0; q < 4; q++) acc[q] = vld1q_s32(header + 4 * q);
      const int8_t* wk = w + Q8NN_PACKED_HEADER_BYTES(16);
      if (TAPS != 0) {
        for (size_t t = 0; t < TAPS; t++) {
          q8nn_neon_dw_tap(acc, veorq_s8(vld1q_s8(rows[t]), vflip), vld1q_s8(wk + 16 * t));
          rows[t] += 16;
        }
      } else {
        const size_t off = channels - c;
        for (size_t t = 0; t < taps; t++) {
          const int8_t* row = input[t];
          row = (row == zero ? row : (const int8_t*) ((uintptr_t) row + input_offset)) + off;
          q8nn_neon_dw_tap(acc, veorq_s8(vld1q_s8(row), vflip), vld1q_s8(wk + 16 * t));
        }
      }
      vst1q_s8(output, q8nn_neon_dw_finish(acc, header, rounding, o));
      output += 16;
      w += block_bytes;
    }
    if (c != 0) {
      int32x4_t acc[4];
      const int32_t* header = (const int32_t*) w;
      for (int q = 0; q < 4; q++) acc[q] = vld1q_s32(header + 4 * q);
      const int8_t* wk = w + Q8NN_PACKED_HEADER_BYTES(16);
      const size_t off = channels - c;
      for (size_t t = 0; t < taps; t++) {
        const int8_t* row;
        if (TAPS != 0) {
          row = rows[t];
        } else {
          row = input[t];
          row = (row == zero ? row : (const int8_t*) ((uintptr_t) row + input_offset)) + off;
        }
        const int8x16_t vi = veorq_s8(q8nn_neon_load_partial(row, c), vflip);
        q8nn_neon_dw_tap(acc, vi, vld1q_s8(wk + 16 * t));
      }
      q8nn_neon_store_partial(output, q8nn_neon_dw_finish(acc, header, rounding, o), c);
      output += c;
    }
    output += output_increment;
    input += input_stride;
  } while (--output_width != 0);
}

#define Q8NN_NEON_DWCONV(name, TAPS, rounding) \
  Q8NN_DEFINE_DWCONV_UKERNEL(name, q8nn_neon_dwconv_16c, TAPS, rounding)

Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p16c__neon, 9, 0)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p16c__neon, 9, 1)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p16c__neon, 25, 0)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p16c__neon, 25, 1)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp16c__neon, 0, 0)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp16c__neon, 0, 1)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_9p16c__neon, 9, 2)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_25p16c__neon, 25, 2)
Q8NN_NEON_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_xp16c__neon, 0, 2)
