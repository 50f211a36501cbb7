/* One case of fp32-cases.h (written by gen-fp32-cases.c from XNNPACK's outputs). */
#ifndef Q8NN_TESTS_GOLDEN_FP32_CASE_H
#define Q8NN_TESTS_GOLDEN_FP32_CASE_H

#include <stddef.h>
#include <stdint.h>

enum fp32_case_op { FP32_CASE_CONV = 0, FP32_CASE_DEPTHWISE = 1, FP32_CASE_ADD = 2 };

struct fp32_case {
  const char* id;
  enum fp32_case_op op;
  /* convolution / depthwise (NHWC; depthwise: channels_in channels, multiplier dm) */
  size_t batch, in_h, in_w, channels_in, channels_out, dm;
  unsigned kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int32_t in_zp, out_zp, out_min, out_max;
  float input_scale, output_scale;
  const float* kernel_scale;   /* per output channel */
  const int8_t* input;
  const int8_t* kernel;        /* OHWI (conv) or [kh][kw][channels_in * dm] (depthwise) */
  const int32_t* bias;
  const int8_t* expected;      /* XNNPACK's output */
  size_t out_h, out_w, out_size;
  /* add (output_scale, out_zp, out_min, out_max above) */
  size_t a_rank;
  size_t a_shape[4];
  size_t b_rank;
  size_t b_shape[4];
  const int8_t* a;
  const int8_t* b;
  int32_t a_zp, b_zp;
  float a_scale, b_scale;
};

#endif /* Q8NN_TESTS_GOLDEN_FP32_CASE_H */
