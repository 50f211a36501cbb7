/*
 * How often the guarded epilogue (docs/guarded-epilogue.md) sends outputs of a convolution or
 * depthwise operator to the exact epilogue, on a given input: every accumulator is computed from
 * the operator's own copies of its weights, bias and zero point (TFLite's sum of (x - zp) w, padding
 * contributing 0), and put through the scalar model of the kernels' test (q8nn_guard_requantize),
 * with the operator's multipliers, shifts and guard parameters. Counted per output lane, per
 * 16-channel vector of a pixel (the AVX-512 test's granule) and per 64-channel group (an AVX-512
 * depthwise pixel, or a gemm row of up to four vectors). A count, not a timing: what the
 * benchmark reports next to its times.
 */
#include "guard-rate.h"

#include "operator.h"
#include "requantization.h"

int q8nn_bench_guard_rate(q8nn_operator_t op, size_t height, size_t width, const int8_t* input,
                          struct q8nn_bench_guard_count* count) {
  count->lanes = count->lanes_flagged = 0;
  count->vectors = count->vectors_flagged = 0;
  count->groups = count->groups_flagged = 0;
  if (op->type != q8nn_operator_type_convolution && op->type != q8nn_operator_type_depthwise) {
    return 0;
  }
  if (op->rounding == q8nn_rounding_fp32 || op->conv_params.guard == 0) return 0;
  const struct q8nn_conv_geometry* g = &op->geometry;
  const size_t kh = g->kernel_height, kw = g->kernel_width;
  const size_t groups = g->groups, gic = g->group_input_channels, goc = g->group_output_channels;
  const size_t cin = groups * gic, cout = groups * goc;
  const size_t oh = (height + g->padding_top + g->padding_bottom - (g->dilation_height * (kh - 1) + 1)) / g->stride_height + 1;
  const size_t ow = (width + g->padding_left + g->padding_right - (g->dilation_width * (kw - 1) + 1)) / g->stride_width + 1;
  const int32_t zp = op->input_zero_point;
  for (size_t oy = 0; oy < oh; oy++) {
    for (size_t ox = 0; ox < ow; ox++) {
      int vector_flagged = 0, group_flagged = 0;
      for (size_t c = 0; c < cout; c++) {
        const size_t grp = c / goc;
        int32_t acc = op->bias[c];
        for (size_t ky = 0; ky < kh; ky++) {
          const long iy = (long) (oy * g->stride_height + ky * g->dilation_height) - (long) g->padding_top;
          if (iy < 0 || iy >= (long) height) continue;
          for (size_t kx = 0; kx < kw; kx++) {
            const long ix = (long) (ox * g->stride_width + kx * g->dilation_width) - (long) g->padding_left;
            if (ix < 0 || ix >= (long) width) continue;
            const int8_t* x = input + ((size_t) iy * width + (size_t) ix) * cin + grp * gic;
            const int8_t* w = op->kernel + ((c * kh + ky) * kw + kx) * gic;
            for (size_t i = 0; i < gic; i++) acc += ((int32_t) x[i] - zp) * (int32_t) w[i];
          }
        }
        int flagged = 0;
        (void) q8nn_guard_requantize(acc, op->multiplier[c], op->shift[c], op->rounding, &op->conv_params, &flagged);
        count->lanes++;
        count->lanes_flagged += (size_t) flagged;
        vector_flagged |= flagged;
        group_flagged |= flagged;
        if (c % 16 == 15 || c + 1 == cout) {
          count->vectors++;
          count->vectors_flagged += (size_t) vector_flagged;
          vector_flagged = 0;
        }
        if (c % 64 == 63 || c + 1 == cout) {
          count->groups++;
          count->groups_flagged += (size_t) group_flagged;
          group_flagged = 0;
        }
      }
    }
  }
  return 1;
}
