#include "conv-sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <q8nn.h>

#include "reference/reference.h"
#include "testers/test-util.h"

static size_t or_one(size_t v) { return v == 0 ? 1 : v; }

void sweep_conv_defaults(struct sweep_conv* s) {
  s->batch = or_one(s->batch);
  s->groups = or_one(s->groups);
  s->k_h = or_one(s->k_h);
  s->k_w = or_one(s->k_w);
  s->stride_h = or_one(s->stride_h);
  s->stride_w = or_one(s->stride_w);
  s->dil_h = or_one(s->dil_h);
  s->dil_w = or_one(s->dil_w);
  s->in_c = or_one(s->in_c);
  s->out_c = or_one(s->out_c);
  if (s->out_min == 0 && s->out_max == 0) {
    s->out_min = -128;
    s->out_max = 127;
  }
}

/* log2 of the real multiplier that maps a typical accumulator (std ~ 74*74*sqrt(taps) for uniform
   int8 data) to an output spread of a few dozen LSBs, so that the sweeps exercise rounding rather
   than saturation. */
static int typical_exponent(size_t taps) {
  return -7 - (int) lround(0.5 * log2((double) taps));
}

int sweep_conv_run(const struct sweep_conv* in, const char* name) {
  struct sweep_conv s = *in;
  sweep_conv_defaults(&s);
  const size_t in_channels = s.depthwise ? s.in_c : s.groups * s.in_c;
  const size_t out_channels = s.depthwise ? s.in_c * s.out_c : s.groups * s.out_c;
  const size_t taps = s.k_h * s.k_w * (s.depthwise ? 1 : s.in_c);
  const size_t in_stride = in_channels + s.in_extra;
  const size_t kernel_size = s.depthwise ? s.k_h * s.k_w * out_channels : out_channels * s.k_h * s.k_w * s.in_c;
  const size_t num_q = s.per_tensor ? 1 : out_channels;

  int8_t* input = malloc(s.batch * s.in_h * s.in_w * in_stride + 1);
  int8_t* kernel = malloc(kernel_size);
  int32_t* bias = malloc(out_channels * sizeof(int32_t));
  int32_t* multiplier = malloc(num_q * sizeof(int32_t));
  int32_t* shift = malloc(num_q * sizeof(int32_t));
  float* kernel_scale = malloc(num_q * sizeof(float));
  test_fill_s8(input, s.batch * s.in_h * s.in_w * in_stride + 1);
  test_fill_s8(kernel, kernel_size);
  const int32_t bias_range = (int32_t) (74 * 74 * 2 * sqrt((double) taps));
  test_fill_s32_range(bias, out_channels, -bias_range, bias_range);

  const int base = typical_exponent(taps);
  float input_scale = test_rand_float(0.01f, 2.0f), output_scale = test_rand_float(0.01f, 2.0f);
  for (size_t i = 0; i < num_q; i++) {
    int exponent = base + test_rand_range(-1, 1);
    switch (s.quant) {
      case SWEEP_TINY: exponent = test_rand_range(-31, -20); break;
      /* Up to 30: TFLite computes x * 2^shift in int32, so large accumulators wrap (as compiled). */
      case SWEEP_LARGE: exponent = (test_rand() & 1) ? test_rand_range(0, 8) : test_rand_range(9, 30); break;
      case SWEEP_TOO_LARGE: exponent = test_rand_range(32, 40); break;
      default: break;
    }
    /* TFLite form: multiplier in [2^30, 2^31) is q in [0.5, 1), real = q * 2^shift. */
    multiplier[i] = test_rand_range(INT32_C(1) << 30, INT32_MAX);
    shift[i] = exponent;
    const double real = ldexp((double) multiplier[i] / 2147483648.0, exponent);
    kernel_scale[i] = (float) (real * (double) output_scale / (double) input_scale);
  }
  /* fp32 (XNNPACK) requantization only takes float scales */
  const int use_scales = s.rounding == 2 || s.quant == SWEEP_SCALES || s.quant == SWEEP_TOO_LARGE ||
                         (s.quant != SWEEP_FIXED && (test_rand() & 1));

  const struct test_conv_case c = {
      .depthwise = s.depthwise,
      .p = {
          .batch = s.batch, .in_h = s.in_h, .in_w = s.in_w, .in_c = s.in_c, .groups = s.groups,
          .out_c = s.out_c, .k_h = s.k_h, .k_w = s.k_w, .stride_h = s.stride_h, .stride_w = s.stride_w,
          .dil_h = s.dil_h, .dil_w = s.dil_w, .pad_top = s.pad_top, .pad_left = s.pad_left,
          .pad_bottom = s.pad_bottom, .pad_right = s.pad_right,
          .in_pixel_stride = in_stride, .out_pixel_stride = out_channels + s.out_extra,
          .in_zp = s.in_zp, .out_zp = s.out_zp, .out_min = s.out_min, .out_max = s.out_max,
          .rounding = s.rounding,
      },
      .input = input, .kernel = kernel, .bias = s.no_bias ? NULL : bias,
      .per_tensor = s.per_tensor,
      .multiplier = use_scales ? NULL : multiplier,
      .shift = use_scales ? NULL : shift,
      .input_scale = input_scale, .output_scale = output_scale, .kernel_scale = kernel_scale,
      .name = name,
      .num_threadpools = s.num_threadpools,
  };
  const int failures = test_conv_run(&c);
  if (failures != 0) {
    fprintf(stderr,
            "  case %s: %s batch %zu in %zux%zu c %zu groups %zu out_c %zu k %zux%zu stride %zux%zu dil %zux%zu "
            "pad t%zu l%zu b%zu r%zu extra in %zu out %zu zp %d/%d clamp [%d,%d] rounding %d per_tensor %d quant %d%s\n",
            name, s.depthwise ? "depthwise" : "conv", s.batch, s.in_h, s.in_w, s.in_c, s.groups, s.out_c, s.k_h,
            s.k_w, s.stride_h, s.stride_w, s.dil_h, s.dil_w, s.pad_top, s.pad_left, s.pad_bottom, s.pad_right,
            s.in_extra, s.out_extra, s.in_zp, s.out_zp, s.out_min, s.out_max, s.rounding, s.per_tensor, s.quant,
            use_scales ? " (float scales)" : " (fixed multipliers)");
  }
  free(kernel_scale);
  free(shift);
  free(multiplier);
  free(bias);
  free(kernel);
  free(input);
  return failures;
}
