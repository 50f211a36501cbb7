/*
 * Random-data convolution/depthwise cases for the operator sweeps: fills input (including the
 * bytes between pixels), kernel, bias and requantization parameters from the seeded PRNG, then
 * hands the case to test_conv_run (every ISA mask and threadpool, exact against the reference).
 */
#ifndef Q8NN_TESTS_OPERATORS_CONV_SWEEP_H
#define Q8NN_TESTS_OPERATORS_CONV_SWEEP_H

#include <stddef.h>
#include <stdint.h>

enum sweep_quant {
  SWEEP_FIXED = 0,   /* random multiplier in [2^30, 2^31), shift scaled to the accumulator range */
  SWEEP_SCALES = 1,  /* float scales whose product lands in the same range */
  SWEEP_TINY = 2,    /* real multipliers near 2^-31..2^-20: outputs collapse towards the zero point */
  SWEEP_LARGE = 3,   /* real multipliers up to 2^30: saturation, left shifts that wrap */
  SWEEP_TOO_LARGE = 4, /* float scales whose multiplier needs shift > 30: unsupported_parameter */
};

struct sweep_conv {
  int depthwise;
  size_t batch, in_h, in_w;
  size_t in_c;      /* conv: per group; depthwise: channels */
  size_t groups;    /* conv only */
  size_t out_c;     /* conv: per group; depthwise: depth multiplier */
  size_t k_h, k_w, stride_h, stride_w, dil_h, dil_w;
  size_t pad_top, pad_left, pad_bottom, pad_right;
  size_t in_extra, out_extra; /* pixel stride = channels + extra */
  int32_t in_zp, out_zp;
  int32_t out_min, out_max;   /* both 0 = full range */
  int rounding;               /* enum q8nn_rounding: 0 double, 1 single, 2 fp32 (always float scales) */
  int per_tensor;
  enum sweep_quant quant;
  int no_bias;
  size_t num_threadpools;     /* 0 = all */
};

/** Fills defaults for unset (zero) geometry fields: batch/stride/dilation/groups/kernel 1. */
void sweep_conv_defaults(struct sweep_conv* s);

/** Builds and runs the case; returns the number of failed runs (0 = pass). */
int sweep_conv_run(const struct sweep_conv* s, const char* name);

#endif
