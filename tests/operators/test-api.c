/*
 * The API contract of API.md: every bad-input class returns its documented status and writes
 * nothing (neither through the out-pointer nor into the output buffer); run before setup is
 * invalid_state; re-setup with new pointers and sizes; thread counts give identical bytes;
 * helpers (same padding, status strings, version).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <q8nn.h>

#include "reference/reference.h"
#include "testers/test-util.h"

#define SENTINEL ((q8nn_operator_t) (uintptr_t) 0x5EED)

static const int8_t kernel[2 * 3 * 3 * 4];  /* zeros: the values do not matter for validation */
static const float kscale[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};

static struct q8nn_convolution2d_desc good_desc(void) {
  const struct q8nn_convolution2d_desc d = {
      .padding_top = 1, .padding_right = 1, .padding_bottom = 1, .padding_left = 1, .kernel_height = 3,
      .kernel_width = 3, .stride_height = 1, .stride_width = 1, .dilation_height = 1, .dilation_width = 1,
      .groups = 1, .group_input_channels = 4, .group_output_channels = 2};
  return d;
}

static struct q8nn_conv_quantization good_quant(void) {
  const struct q8nn_conv_quantization q = {
      .input_zero_point = 0, .input_scale = 0.5f, .kernel_scale = kscale, .output_zero_point = 0,
      .output_scale = 1.0f, .output_min = -128, .output_max = 127, .rounding = q8nn_rounding_double};
  return q;
}

static void expect_conv_create(enum q8nn_status expected, const struct q8nn_convolution2d_desc* d,
                               const struct q8nn_conv_quantization* q, const int8_t* k, const char* what) {
  q8nn_operator_t op = SENTINEL;
  const enum q8nn_status s = q8nn_create_convolution2d_nhwc_s8(d, q, k, NULL, 0, &op);
  if (s != expected || op != SENTINEL) {
    fail_msg("conv create (%s): expected %s got %s, out-pointer %s", what, q8nn_status_string(expected),
             q8nn_status_string(s), op == SENTINEL ? "untouched" : "WRITTEN");
  }
}

static void test_conv_create_invalid(void** state) {
  (void) state;
  struct q8nn_convolution2d_desc d = good_desc();
  struct q8nn_conv_quantization q = good_quant();
  expect_conv_create(q8nn_status_invalid_parameter, NULL, &q, kernel, "NULL desc");
  expect_conv_create(q8nn_status_invalid_parameter, &d, NULL, kernel, "NULL quant");
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, NULL, "NULL kernel");
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, NULL), q8nn_status_invalid_parameter);

#define BAD_DESC(field, value)                                                  \
  do {                                                                          \
    d = good_desc();                                                            \
    d.field = value;                                                            \
    expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, #field "=" #value); \
  } while (0)
  BAD_DESC(kernel_height, 0);
  BAD_DESC(kernel_width, 0);
  BAD_DESC(stride_height, 0);
  BAD_DESC(stride_width, 0);
  BAD_DESC(dilation_height, 0);
  BAD_DESC(dilation_width, 0);
  BAD_DESC(groups, 0);
  BAD_DESC(group_input_channels, 0);
  BAD_DESC(group_output_channels, 0);
  BAD_DESC(group_output_channels, SIZE_MAX / 2);   /* weights size overflows size_t */
  BAD_DESC(group_input_channels, SIZE_MAX / 4);
  /* Found by fuzz-operators: kernel extents of 2^31 each make taps x channels overflow size_t. */
  d = good_desc();
  d.kernel_height = d.kernel_width = UINT32_C(1) << 31;
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "kernel 2^31 x 2^31");
  d = good_desc();

#define BAD_QUANT(field, value)                                                 \
  do {                                                                          \
    q = good_quant();                                                           \
    q.field = value;                                                            \
    expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, #field "=" #value); \
  } while (0)
  BAD_QUANT(input_scale, NAN);
  BAD_QUANT(input_scale, INFINITY);
  BAD_QUANT(input_scale, -1.0f);
  BAD_QUANT(input_scale, 0.0f);
  BAD_QUANT(output_scale, NAN);
  BAD_QUANT(output_scale, INFINITY);
  BAD_QUANT(output_scale, -0.5f);
  BAD_QUANT(output_scale, 0.0f);
  BAD_QUANT(kernel_scale, NULL);
  BAD_QUANT(input_zero_point, 128);
  BAD_QUANT(input_zero_point, -129);
  BAD_QUANT(output_zero_point, 128);
  BAD_QUANT(output_zero_point, -129);
  q = good_quant();
  q.output_min = 5;
  q.output_max = 4;
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "output_min > output_max");
  static const float bad_scales[][2] = {{0.5f, NAN}, {0.5f, 0.0f}, {-1.0f, 0.5f}, {INFINITY, 0.5f}};
  for (size_t i = 0; i < 4; i++) {
    q = good_quant();
    q.kernel_scale = bad_scales[i];
    expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "bad kernel_scale");
  }
  /* fixed multiplier given without shift */
  q = good_quant();
  const int32_t m = INT32_C(1) << 30;
  q.output_multiplier = &m;
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "multiplier without shift");
}

static void test_conv_create_unsupported(void** state) {
  (void) state;
  struct q8nn_convolution2d_desc d = good_desc();
  struct q8nn_conv_quantization q = good_quant();
  /* real multiplier 2^40: shift > 30 */
  q.input_scale = 1.0e6f;
  q.output_scale = 1.0e-6f;
  expect_conv_create(q8nn_status_unsupported_parameter, &d, &q, kernel, "multiplier 2^40");
  q = good_quant();
  const int32_t m = INT32_C(1) << 30, bad_shift = 31;
  q.output_multiplier = &m;
  q.output_shift = &bad_shift;
  q8nn_operator_t op = SENTINEL;
  const enum q8nn_status s = q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op);
  assert_true(s == q8nn_status_invalid_parameter || s == q8nn_status_unsupported_parameter);
  assert_ptr_equal(op, SENTINEL);
}

/* Tiny real multipliers: TFLite's QuantizeMultiplier flushes shift < -31 to (0, 0), i.e. the
   output is the zero point. Either that exact answer or unsupported_parameter is acceptable;
   a wrong answer is not. */
static void test_conv_tiny_multiplier(void** state) {
  (void) state;
  struct q8nn_convolution2d_desc d = good_desc();
  struct q8nn_conv_quantization q = good_quant();
  q.input_scale = 1.0e-20f;
  q.output_scale = 1.0f;
  q.output_zero_point = 17;
  q8nn_operator_t op = NULL;
  const enum q8nn_status s = q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, &op);
  if (s == q8nn_status_unsupported_parameter) {
    fprintf(stderr, "note: multiplier below 2^-31 is unsupported_parameter (TFLite flushes it to 0)\n");
    return;
  }
  assert_int_equal(s, q8nn_status_success);
  int8_t input[3 * 3 * 4], output[3 * 3 * 2];
  test_fill_s8(input, sizeof(input));
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, 3, 3, input, 4, output, 2, NULL, NULL), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  for (size_t i = 0; i < sizeof(output); i++) {
    assert_int_equal(output[i], 17);
  }
  q8nn_delete_operator(op);
}

static q8nn_operator_t make_conv(void) {
  struct q8nn_convolution2d_desc d = good_desc();
  struct q8nn_conv_quantization q = good_quant();
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, &op), q8nn_status_success);
  return op;
}

static void test_conv_setup_invalid(void** state) {
  (void) state;
  q8nn_operator_t op = make_conv();
  int8_t input[5 * 5 * 4] = {0};
  int8_t output[5 * 5 * 2 + 8];
  memset(output, TEST_GUARD_BYTE, sizeof(output));
  size_t oh = 777, ow = 777;
  struct {
    size_t batch, h, w, in_stride, out_stride;
    const int8_t* in;
    int8_t* out;
    enum q8nn_status expected;
    const char* what;
  } cases[] = {
      {0, 5, 5, 4, 2, input, output, q8nn_status_invalid_parameter, "batch 0"},
      {1, 0, 5, 4, 2, input, output, q8nn_status_invalid_parameter, "height 0"},
      {1, 5, 0, 4, 2, input, output, q8nn_status_invalid_parameter, "width 0"},
      {1, 5, 5, 4, 2, NULL, output, q8nn_status_invalid_parameter, "NULL input"},
      {1, 5, 5, 4, 2, input, NULL, q8nn_status_invalid_parameter, "NULL output"},
      {1, 5, 5, 3, 2, input, output, q8nn_status_invalid_parameter, "input stride < channels"},
      {1, 5, 5, 4, 1, input, output, q8nn_status_invalid_parameter, "output stride < channels"},
      {SIZE_MAX / 2, 5, 5, 4, 2, input, output, q8nn_status_invalid_parameter, "size_t overflow (batch)"},
      {1, SIZE_MAX / 8, SIZE_MAX / 8, 4, 2, input, output, q8nn_status_invalid_parameter, "size_t overflow (h*w)"},
      {1, 5, SIZE_MAX / 2, SIZE_MAX / 4, 2, input, output, q8nn_status_invalid_parameter, "size_t overflow (stride)"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const enum q8nn_status s = q8nn_setup_convolution2d_nhwc_s8(op, cases[i].batch, cases[i].h, cases[i].w, cases[i].in,
                                                                cases[i].in_stride, cases[i].out, cases[i].out_stride,
                                                                &oh, &ow);
    if (s != cases[i].expected) {
      fail_msg("setup (%s): expected %s got %s", cases[i].what, q8nn_status_string(cases[i].expected),
               q8nn_status_string(s));
    }
    assert_int_equal(oh, 777);
    assert_int_equal(ow, 777);
  }
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(NULL, 1, 5, 5, input, 4, output, 2, NULL, NULL),
                   q8nn_status_invalid_parameter);
  /* No setup succeeded: run is out of order. */
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  for (size_t i = 0; i < sizeof(output); i++) {
    assert_int_equal(output[i], TEST_GUARD_BYTE);
  }
  q8nn_delete_operator(op);

  /* Non-positive output size: 3x3 kernel, no padding, 2x2 input; and dilation too large. */
  struct q8nn_convolution2d_desc d = good_desc();
  d.padding_top = d.padding_bottom = d.padding_left = d.padding_right = 0;
  struct q8nn_conv_quantization q = good_quant();
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, &op), q8nn_status_success);
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, 2, 2, input, 4, output, 2, &oh, &ow),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, 5, 2, input, 4, output, 2, &oh, &ow),
                   q8nn_status_invalid_parameter);
  assert_int_equal(oh, 777);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  q8nn_delete_operator(op);
  assert_int_equal(q8nn_run_operator(NULL, NULL), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_delete_operator(NULL), q8nn_status_success);
}

static void test_depthwise_invalid(void** state) {
  (void) state;
  const struct q8nn_depthwise_convolution2d_desc good = {
      .kernel_height = 3, .kernel_width = 3, .stride_height = 1, .stride_width = 1, .dilation_height = 1,
      .dilation_width = 1, .channels = 4, .depth_multiplier = 2};
  struct q8nn_conv_quantization q = good_quant();
  struct q8nn_depthwise_convolution2d_desc d;
  q8nn_operator_t op = SENTINEL;
#define BAD_DW(field, value)                                                                                  \
  do {                                                                                                       \
    d = good;                                                                                                \
    d.field = value;                                                                                         \
    assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, &op),               \
                     q8nn_status_invalid_parameter);                                                         \
    assert_ptr_equal(op, SENTINEL);                                                                          \
  } while (0)
  BAD_DW(channels, 0);
  BAD_DW(depth_multiplier, 0);
  BAD_DW(kernel_height, 0);
  BAD_DW(stride_width, 0);
  BAD_DW(dilation_height, 0);
  BAD_DW(channels, SIZE_MAX / 2);
  assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(NULL, &q, kernel, NULL, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(&good, &q, NULL, NULL, 0, &op),
                   q8nn_status_invalid_parameter);
  q.output_scale = NAN;
  assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(&good, &q, kernel, NULL, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_ptr_equal(op, SENTINEL);
  q = good_quant();
  assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(&good, &q, kernel, NULL, 0, &op), q8nn_status_success);
  int8_t input[5 * 5 * 4] = {0}, output[5 * 5 * 8];
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, 5, 5, input, 3, output, 8, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, 5, 5, input, 4, output, 7, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, 5, 5, input, 4, output, 8, NULL, NULL),
                   q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  q8nn_delete_operator(op);
}

/* A pixel stride whose products fit in size_t but whose extent from the input pointer wraps the
   address space: every setup refuses it (the kernels would form pointers past the input).
   Depthwise (the case found with an enormous input pixel stride), convolution, fully connected,
   add with one huge dimension and with a broadcast whose element count fits but whose extent does not. */
static void test_pixel_stride_extent_wraps(void** state) {
  (void) state;
  static int8_t buffer[4096];
  const struct q8nn_conv_quantization q = good_quant();
  const struct q8nn_depthwise_convolution2d_desc dd = {
      .kernel_height = 3, .kernel_width = 3, .stride_height = 1, .stride_width = 1, .dilation_height = 1,
      .dilation_width = 1, .padding_top = 1, .padding_bottom = 1, .padding_left = 1, .padding_right = 1,
      .channels = 4, .depth_multiplier = 1};
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_depthwise_convolution2d_nhwc_s8(&dd, &q, kernel, NULL, 0, &op), q8nn_status_success);
  /* 2x2 pixels: 3 strides of SIZE_MAX / 3 - 16 fit in size_t (3 x stride = SIZE_MAX - 48), and from
     any pointer above 48 the input's last byte lies past the end of the address space */
  const size_t huge = SIZE_MAX / 3 - 16;
  assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, 2, 2, buffer + 2048, huge, buffer, 4, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, 2, 2, buffer, 4, buffer + 2048, SIZE_MAX / 3,
                                                              NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  q8nn_delete_operator(op);
  const struct q8nn_convolution2d_desc cd = {
      .kernel_height = 1, .kernel_width = 1, .stride_height = 1, .stride_width = 1, .dilation_height = 1,
      .dilation_width = 1, .groups = 1, .group_input_channels = 4, .group_output_channels = 4};
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&cd, &q, kernel, NULL, 0, &op), q8nn_status_success);
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, 1, 2, buffer, SIZE_MAX - 64, buffer + 2048, 4, NULL, NULL),
                   q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
  const float kernel_scale = 0.01f;
  struct q8nn_conv_quantization fq = q;
  fq.kernel_scale = &kernel_scale;
  assert_int_equal(q8nn_create_fully_connected_nc_s8(4, 4, &fq, kernel, NULL, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op),
                   q8nn_status_success);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 2, buffer, SIZE_MAX - 64, buffer + 2048, 4),
                   q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
  const struct q8nn_add_quantization aq = {0, 0.5f, 0, 0.25f, 0, 1.0f, -128, 127, NULL};
  assert_int_equal(q8nn_create_add_nd_s8(&aq, 0, &op), q8nn_status_success);
  const size_t long_shape[1] = {SIZE_MAX - 64}, one[1] = {1};
  assert_int_equal(q8nn_setup_add_nd_s8(op, 1, long_shape, 1, one, buffer, buffer + 8, buffer + 2048),
                   q8nn_status_invalid_parameter);
  /* broadcast: 2 x PTRDIFF_MAX output elements fit in size_t (SIZE_MAX - 1), their extent does not */
  const size_t rows[2] = {(size_t) PTRDIFF_MAX, 1}, pair[2] = {1, 2};
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, rows, 2, pair, buffer, buffer + 8, buffer + 2048),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  q8nn_delete_operator(op);
}

static void test_add_invalid(void** state) {
  (void) state;
  const struct q8nn_add_quantization good = {
      .a_zero_point = 0, .a_scale = 0.5f, .b_zero_point = 0, .b_scale = 0.25f, .output_zero_point = 0,
      .output_scale = 1.0f, .output_min = -128, .output_max = 127};
  struct q8nn_add_quantization q;
  q8nn_operator_t op = SENTINEL;
#define BAD_ADD(field, value, status)                                          \
  do {                                                                         \
    q = good;                                                                  \
    q.field = value;                                                           \
    assert_int_equal(q8nn_create_add_nd_s8(&q, 0, &op), status);               \
    assert_ptr_equal(op, SENTINEL);                                            \
  } while (0)
  BAD_ADD(a_scale, NAN, q8nn_status_invalid_parameter);
  BAD_ADD(b_scale, 0.0f, q8nn_status_invalid_parameter);
  BAD_ADD(output_scale, -1.0f, q8nn_status_invalid_parameter);
  BAD_ADD(output_scale, INFINITY, q8nn_status_invalid_parameter);
  BAD_ADD(a_zero_point, 128, q8nn_status_invalid_parameter);
  BAD_ADD(b_zero_point, -129, q8nn_status_invalid_parameter);
  BAD_ADD(output_zero_point, 1000, q8nn_status_invalid_parameter);
  q = good;
  q.output_max = -1;
  q.output_min = 0;
  assert_int_equal(q8nn_create_add_nd_s8(&q, 0, &op), q8nn_status_invalid_parameter);
  /* output multiplier >= 1: 2*max / (2^20 * s_out) >= 1 */
  BAD_ADD(output_scale, 1.0e-7f, q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_create_add_nd_s8(NULL, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_add_nd_s8(&good, 0, NULL), q8nn_status_invalid_parameter);
  assert_ptr_equal(op, SENTINEL);

  assert_int_equal(q8nn_create_add_nd_s8(&good, 0, &op), q8nn_status_success);
  int8_t a[64] = {0}, b[64] = {0}, out[64];
  const size_t s23[2] = {2, 3}, s32[2] = {3, 2}, s4[1] = {4}, s7[7] = {1, 1, 1, 1, 1, 1, 2}, s0[2] = {0, 3};
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, s23, 2, s32, a, b, out), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, s23, 1, s4, a, b, out), q8nn_status_invalid_parameter);
  /* More than Q8NN_MAX_DIMS: malformed or unsupported, both are honest answers. */
  const enum q8nn_status rank7 = q8nn_setup_add_nd_s8(op, 7, s7, 1, s4, a, b, out);
  assert_true(rank7 == q8nn_status_invalid_parameter || rank7 == q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, s0, 2, s23, a, b, out), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, NULL, 2, s23, a, b, out), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, s23, 2, s23, NULL, b, out), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, s23, 2, s23, a, NULL, out), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, s23, 2, s23, a, b, NULL), q8nn_status_invalid_parameter);
  const size_t huge[2] = {SIZE_MAX / 2, 4};
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, huge, 2, huge, a, b, out), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_add_nd_s8(op, 2, s23, 0, NULL, a, b, out), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
  q8nn_delete_operator(op);
}

/* q8nn_rounding_fp32 and Q8NN_FLAG_XNNPACK_ADD decline exactly what XNNPACK declines (its isnormal
   checks: invalid_parameter; scale >= 256, add ratios outside [2^-10, 2^8): unsupported_parameter),
   and the fixed-point forms, which have no meaning there: invalid_parameter. */
static void test_xnnpack_modes_validation(void** state) {
  (void) state;
  const struct q8nn_convolution2d_desc d = good_desc();
  struct q8nn_conv_quantization q = good_quant();
  q.rounding = q8nn_rounding_fp32;
  static const int32_t mult[8] = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};
  static const int32_t shift[8] = {0};
  q.output_multiplier = mult;
  q.output_shift = shift;
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "fp32 with output_multiplier");
  q = good_quant();
  q.rounding = q8nn_rounding_fp32;
  q.input_scale = 1e-39f; /* subnormal: XNNPACK's isnormal check */
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "fp32 subnormal input scale");
  q.input_scale = 0.5f;
  q.output_scale = 1e-39f;
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "fp32 subnormal output scale");
  q.output_scale = 1.0f;
  const float big[8] = {0.5f, 512.0f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}; /* 0.5 * 512 = 256 */
  q.kernel_scale = big;
  expect_conv_create(q8nn_status_unsupported_parameter, &d, &q, kernel, "fp32 scale 256");
  const float just_below[8] = {0.5f, 0x1.fffffep+8f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  q.kernel_scale = just_below;
  q8nn_operator_t op = SENTINEL;
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, &op), q8nn_status_success);
  assert_non_null(strstr(q8nn_operator_kernel_name(op), "fp32"));
  q8nn_delete_operator(op);
  /* no lower limit (XNNPACK's qc8 accepts scales that underflow to 0) */
  const float tiny[8] = {1e-30f, 1e-30f, 1e-30f, 1e-30f, 1e-30f, 1e-30f, 1e-30f, 1e-30f};
  q.kernel_scale = tiny;
  q.input_scale = 1e-20f;
  op = SENTINEL;
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, &op), q8nn_status_success);
  q8nn_delete_operator(op);
  q = good_quant();
  q.rounding = (enum q8nn_rounding) 3;
  expect_conv_create(q8nn_status_invalid_parameter, &d, &q, kernel, "unknown rounding");

  const struct q8nn_add_quantization good = {
      .a_zero_point = 0, .a_scale = 0.5f, .b_zero_point = 0, .b_scale = 0.25f, .output_zero_point = 0,
      .output_scale = 1.0f, .output_min = -128, .output_max = 127};
  struct q8nn_add_quantization a = good;
  const struct q8nn_add_fixed fixed = {20, 1 << 30, -1, 1 << 30, -1, 1 << 30, -20};
  a.fixed = &fixed;
  op = SENTINEL;
  assert_int_equal(q8nn_create_add_nd_s8(&a, Q8NN_FLAG_XNNPACK_ADD, &op), q8nn_status_invalid_parameter);
  a = good;
  a.b_scale = 1e-39f;
  assert_int_equal(q8nn_create_add_nd_s8(&a, Q8NN_FLAG_XNNPACK_ADD, &op), q8nn_status_invalid_parameter);
  a = good;
  a.a_scale = 256.0f;
  assert_int_equal(q8nn_create_add_nd_s8(&a, Q8NN_FLAG_XNNPACK_ADD, &op), q8nn_status_unsupported_parameter);
  a = good;
  a.b_scale = 0x1.fffffep-11f;
  assert_int_equal(q8nn_create_add_nd_s8(&a, Q8NN_FLAG_XNNPACK_ADD, &op), q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_create_add_nd_s8(&good, 0x8, &op), q8nn_status_invalid_parameter);
  assert_ptr_equal(op, SENTINEL);
  a.b_scale = 0x1.0p-10f;
  assert_int_equal(q8nn_create_add_nd_s8(&a, Q8NN_FLAG_XNNPACK_ADD, &op), q8nn_status_success);
  assert_non_null(strstr(q8nn_operator_kernel_name(op), "xnn"));
  q8nn_delete_operator(op);
}

/* Re-setup with new pointers and sizes, and thread counts 1..4 give identical bytes. */
static void test_resetup_and_threads(void** state) {
  (void) state;
  int8_t k[6 * 3 * 3 * 5];
  int32_t bias[6];
  test_fill_s8(k, sizeof(k));
  test_fill_s32_range(bias, 6, -5000, 5000);
  const float ks[6] = {0.01f, 0.02f, 0.015f, 0.005f, 0.03f, 0.01f};
  const struct q8nn_convolution2d_desc d = {
      .padding_top = 1, .padding_right = 0, .padding_bottom = 2, .padding_left = 1, .kernel_height = 3,
      .kernel_width = 3, .stride_height = 2, .stride_width = 1, .dilation_height = 1, .dilation_width = 2,
      .groups = 1, .group_input_channels = 5, .group_output_channels = 6};
  const struct q8nn_conv_quantization q = {
      .input_zero_point = 3, .input_scale = 0.2f, .kernel_scale = ks, .output_zero_point = -4,
      .output_scale = 0.7f, .output_min = -100, .output_max = 120, .rounding = q8nn_rounding_double};
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_convolution2d_nhwc_s8(&d, &q, k, bias, 0, &op), q8nn_status_success);
  static const size_t sizes[][3] = {{1, 6, 7}, {2, 9, 5}, {1, 4, 4}, {3, 11, 13}};
  for (size_t t = 0; t < 4; t++) {
    const size_t n = sizes[t][0], h = sizes[t][1], w = sizes[t][2];
    int8_t* input = malloc(n * h * w * 5);
    test_fill_s8(input, n * h * w * 5);
    struct ref_conv_params p = {
        .batch = n, .in_h = h, .in_w = w, .in_c = 5, .groups = 1, .out_c = 6, .k_h = 3, .k_w = 3, .stride_h = 2,
        .stride_w = 1, .dil_h = 1, .dil_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 2, .pad_right = 0,
        .in_pixel_stride = 5, .out_pixel_stride = 6, .in_zp = 3, .out_zp = -4, .out_min = -100, .out_max = 120};
    int32_t mult[6], sh[6];
    for (size_t c = 0; c < 6; c++) {
      assert_true(ref_quantize_multiplier((double) 0.2f * (double) ks[c] / (double) 0.7f, &mult[c], &sh[c]));
    }
    p.multiplier = mult;
    p.shift = sh;
    size_t oh, ow;
    ref_output_size(&p, &oh, &ow);
    const size_t out_size = n * oh * ow * 6;
    int8_t* ref = malloc(out_size);
    ref_conv2d(&p, input, k, bias, ref);
    int8_t* first = NULL;
    for (size_t threads = 1; threads <= 4; threads++) {
      pthreadpool_t pool = pthreadpool_create(threads);
      int8_t* output = malloc(out_size);  /* new pointer every time */
      size_t gh = 0, gw = 0;
      assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, n, h, w, input, 5, output, 6, &gh, &gw), q8nn_status_success);
      assert_int_equal(gh, oh);
      assert_int_equal(gw, ow);
      assert_int_equal(q8nn_run_operator(op, pool), q8nn_status_success);
      assert_int_equal(q8nn_run_operator(op, pool), q8nn_status_success);  /* run twice */
      pthreadpool_destroy(pool);
      if (test_first_mismatch(ref, output, out_size) != SIZE_MAX) {
        fail_msg("re-setup %zu threads %zu: differs from the reference at byte %zu (seed %llu)", t, threads,
                 test_first_mismatch(ref, output, out_size), (unsigned long long) test_seed());
      }
      if (first == NULL) {
        first = output;
      } else {
        assert_memory_equal(first, output, out_size);
        free(output);
      }
    }
    free(first);
    free(ref);
    free(input);
  }
  q8nn_delete_operator(op);
}

static void test_same_padding(void** state) {
  (void) state;
  for (uint32_t in = 1; in <= 12; in++) {
    for (uint32_t k = 1; k <= 5; k++) {
      for (uint32_t s = 1; s <= 3; s++) {
        for (uint32_t dil = 1; dil <= 2; dil++) {
          uint32_t before = 99, after = 99;
          q8nn_compute_same_padding(in, k, s, dil, &before, &after);
          const uint32_t out = (in + s - 1) / s;
          const int64_t total = (int64_t) (out - 1) * s + (int64_t) dil * (k - 1) + 1 - in;
          const uint32_t t = total > 0 ? (uint32_t) total : 0;
          assert_int_equal(before, t / 2);
          assert_int_equal(after, t - t / 2);
        }
      }
    }
  }
  uint32_t before = 99, after = 99;
  q8nn_compute_same_padding(5, 3, 0, 1, &before, &after);
  assert_true((before == 0 && after == 0) || (before == 99 && after == 99));
  q8nn_compute_same_padding(5, 3, 1, 1, NULL, NULL);  /* must not crash */
}

static void test_strings(void** state) {
  (void) state;
  static const char* names[] = {"success", "uninitialized", "invalid_parameter", "unsupported_parameter",
                                "unsupported_hardware", "out_of_memory", "invalid_state", "backend_error"};
  for (int s = 0; s <= 7; s++) {
    const char* str = q8nn_status_string((enum q8nn_status) s);
    assert_non_null(str);
    assert_non_null(strstr(str, names[s]));
  }
  assert_non_null(q8nn_status_string((enum q8nn_status) 1234));
  char expected[32];
  snprintf(expected, sizeof(expected), "%d.%d.%d", Q8NN_VERSION_MAJOR, Q8NN_VERSION_MINOR, Q8NN_VERSION_PATCH);
  assert_string_equal(q8nn_version_string(), expected);
  assert_int_equal(q8nn_initialize(), q8nn_status_success);  /* idempotent */
}

/* Filled by main before anything initializes the library (this executable is its own process). */
static enum q8nn_status uninit_create_status, uninit_add_status, uninit_mask_status;
static q8nn_operator_t uninit_out = SENTINEL;

static void test_uninitialized(void** state) {
  (void) state;
  assert_int_equal(uninit_create_status, q8nn_status_uninitialized);
  assert_int_equal(uninit_add_status, q8nn_status_uninitialized);
  assert_int_equal(uninit_mask_status, q8nn_status_uninitialized);
  assert_ptr_equal(uninit_out, SENTINEL);
}

int main(void) {
  {
    const struct q8nn_convolution2d_desc d = good_desc();
    const struct q8nn_conv_quantization q = good_quant();
    const struct q8nn_add_quantization aq = {.a_scale = 1.0f, .b_scale = 1.0f, .output_scale = 1.0f,
                                             .output_min = -128, .output_max = 127};
    uninit_create_status = q8nn_create_convolution2d_nhwc_s8(&d, &q, kernel, NULL, 0, &uninit_out);
    uninit_add_status = q8nn_create_add_nd_s8(&aq, 0, &uninit_out);
    uninit_mask_status = q8nn_set_isa_mask(Q8NN_ISA_ALL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uninitialized),
      cmocka_unit_test(test_conv_create_invalid),
      cmocka_unit_test(test_conv_create_unsupported),
      cmocka_unit_test(test_conv_tiny_multiplier),
      cmocka_unit_test(test_conv_setup_invalid),
      cmocka_unit_test(test_depthwise_invalid),
      cmocka_unit_test(test_add_invalid),
      cmocka_unit_test(test_pixel_stride_extent_wraps),
      cmocka_unit_test(test_xnnpack_modes_validation),
      cmocka_unit_test(test_resetup_and_threads),
      cmocka_unit_test(test_same_padding),
      cmocka_unit_test(test_strings),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
