/*
 * Fully connected through the public API against the reference (TFLite's FullyConnected /
 * FullyConnectedPerChannel as a 1x1 ConvPerChannel over the batch's rows, XNNPACK's fp32
 * requantization): batch sizes 1 to 17 (the one-row tiles and the others), classifier shapes,
 * per-tensor and per-channel scales, the three requantizations, int8 and uint8, row strides with
 * gaps that stay untouched, every ISA mask, every pool; and the refusals.
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

struct fc_case {
  size_t k, n, batch, in_stride, out_stride;
  int rounding, per_tensor, u8;
  int32_t in_zp, out_zp;
  int8_t out_min, out_max;
};

static int run_case(const struct fc_case* c, size_t pool, const char* mask) {
  const size_t scales = c->per_tensor ? 1 : c->n;
  int8_t* kernel = malloc(c->n * c->k);
  int32_t* bias = malloc(c->n * sizeof(int32_t));
  float* kernel_scale = malloc(c->n * sizeof(float));
  int32_t* multiplier = malloc(c->n * sizeof(int32_t));
  int32_t* shift = malloc(c->n * sizeof(int32_t));
  float* scale = malloc(c->n * sizeof(float));
  int8_t* dense = malloc(c->batch * c->k);
  int8_t* input = malloc(c->batch * c->in_stride);
  int8_t* expected = malloc(c->batch * c->n);
  int8_t* output = malloc(c->batch * c->out_stride + 16);
  test_fill_s8(kernel, c->n * c->k);
  test_fill_s32_range(bias, c->n, -20000, 20000);
  test_fill_s8(dense, c->batch * c->k);
  const float input_scale = 0.02f, output_scale = 0.05f * sqrtf((float) c->k) / 8.0f;
  for (size_t i = 0; i < scales; i++) kernel_scale[i] = test_rand_float(0.002f, 0.02f);
  for (size_t i = 0; i < c->n; i++) {
    const float ks = kernel_scale[c->per_tensor ? 0 : i];
    int32_t m, s;
    assert_true(ref_quantize_multiplier((double) input_scale * (double) ks / (double) output_scale, &m, &s));
    multiplier[i] = m;
    shift[i] = s;
    scale[i] = ref_fp32_scale(input_scale, ks, output_scale);
  }
  const struct ref_conv_params p = {
      .batch = 1, .in_h = 1, .in_w = c->batch, .in_c = c->k, .groups = 1, .out_c = c->n, .k_h = 1, .k_w = 1,
      .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .in_pixel_stride = c->k, .out_pixel_stride = c->n,
      .in_zp = c->in_zp, .out_zp = c->out_zp, .out_min = c->out_min, .out_max = c->out_max,
      .multiplier = multiplier, .shift = shift, .rounding = c->rounding, .scale = scale};
  ref_conv2d(&p, dense, kernel, bias, expected);
  const uint8_t flip = c->u8 ? 0x80 : 0;
  memset(input, 0x33, c->batch * c->in_stride);
  for (size_t b = 0; b < c->batch; b++) {
    for (size_t i = 0; i < c->k; i++) input[b * c->in_stride + i] = (int8_t) ((uint8_t) dense[b * c->k + i] ^ flip);
  }
  memset(output, TEST_GUARD_BYTE, c->batch * c->out_stride + 16);
  const uint32_t flags = c->per_tensor ? Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE : 0;
  const enum q8nn_rounding rounding = (enum q8nn_rounding) c->rounding;
  q8nn_operator_t op = NULL;
  enum q8nn_status status;
  if (c->u8) {
    const struct q8nn_conv_quantization_u8 q = {c->in_zp + 128, input_scale, kernel_scale, c->out_zp + 128,
                                                output_scale, (uint8_t) (c->out_min + 128),
                                                (uint8_t) (c->out_max + 128), rounding, NULL, NULL, NULL};
    status = q8nn_create_fully_connected_nc_u8(c->k, c->n, &q, kernel, bias, flags, &op);
  } else {
    const struct q8nn_conv_quantization q = {c->in_zp, input_scale, kernel_scale, c->out_zp, output_scale,
                                             c->out_min, c->out_max, rounding, NULL, NULL, NULL};
    status = q8nn_create_fully_connected_nc_s8(c->k, c->n, &q, kernel, bias, flags, &op);
  }
  assert_int_equal(status, q8nn_status_success);
  status = c->u8 ? q8nn_setup_fully_connected_nc_u8(op, c->batch, (const uint8_t*) input, c->in_stride,
                                                    (uint8_t*) output, c->out_stride)
                 : q8nn_setup_fully_connected_nc_s8(op, c->batch, input, c->in_stride, output, c->out_stride);
  assert_int_equal(status, q8nn_status_success);
  status = pool < TEST_NUM_THREADPOOLS ? q8nn_run_operator(op, test_threadpool(pool))
                                       : q8nn_run_operator_on(op, test_host_pool(pool - TEST_NUM_THREADPOOLS));
  assert_int_equal(status, q8nn_status_success);
  int failures = 0;
  for (size_t b = 0; b < c->batch && failures == 0; b++) {
    for (size_t i = 0; i < c->out_stride; i++) {
      const int8_t got = output[b * c->out_stride + i];
      const int8_t want = i < c->n ? (int8_t) ((uint8_t) expected[b * c->n + i] ^ flip) : TEST_GUARD_BYTE;
      if (got != want && (i < c->n || b + 1 < c->batch)) {
        fprintf(stderr, "FAIL %s %s: K %zu N %zu batch %zu rounding %d %s %s pool %zu: row %zu byte %zu is %d, want %d\n",
                q8nn_operator_kernel_name(op), mask, c->k, c->n, c->batch, c->rounding,
                c->per_tensor ? "per-tensor" : "per-channel", c->u8 ? "u8" : "s8", pool, b, i, got, want);
        failures++;
        break;
      }
    }
  }
  if (output[c->batch * c->out_stride] != TEST_GUARD_BYTE) failures++;
  q8nn_delete_operator(op);
  free(kernel), free(bias), free(kernel_scale), free(multiplier), free(shift), free(scale);
  free(dense), free(input), free(expected), free(output);
  return failures;
}

static void test_fully_connected_sweep(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  static const size_t batches[] = {1, 1, 2, 3, 5, 8, 17};
  int failures = 0;
  for (size_t i = 0; i < 120 && failures == 0; i++) {
    struct fc_case c;
    memset(&c, 0, sizeof(c));
    c.k = 1 + test_rand() % 300;
    c.n = 1 + test_rand() % 200;
    c.batch = batches[i % 7];
    c.in_stride = c.k + (i % 3 == 0 ? test_rand() % 4 : 0);
    c.out_stride = c.n + (i % 4 == 0 ? test_rand() % 4 : 0);
    c.rounding = (int) (i % 3);
    c.per_tensor = (int) ((i / 3) % 2);
    c.u8 = (int) ((i / 6) % 2);
    c.in_zp = test_rand_range(-128, 127);
    c.out_zp = test_rand_range(-128, 127);
    c.out_min = -128;
    c.out_max = 127;
    if (i % 5 == 4) {
      c.out_min = (int8_t) test_rand_range(-128, 0);
      c.out_max = (int8_t) test_rand_range(0, 127);
    }
    for (size_t m = 0; m < num_masks; m++) {
      q8nn_set_isa_mask(masks[m]);
      failures += run_case(&c, (i + m) % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS), test_isa_name(masks[m]));
    }
  }
  /* the classifier shapes: 1280 -> 1000 and 1024 -> 1024, one row and two */
  static const size_t shapes[][2] = {{1280, 1000}, {1024, 1024}};
  for (size_t s = 0; s < 2; s++) {
    for (size_t batch = 1; batch <= 2; batch++) {
      const struct fc_case c = {shapes[s][0], shapes[s][1], batch, shapes[s][0], shapes[s][1], (int) s, 0, (int) batch - 1,
                                3, -7, -128, 127};
      for (size_t m = 0; m < num_masks; m++) {
        q8nn_set_isa_mask(masks[m]);
        failures += run_case(&c, 2, test_isa_name(masks[m]));
      }
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
}

/* One row runs a one-row tile where the ISA has one; 17 rows do not. */
static void test_fully_connected_tile(void** state) {
  (void) state;
  int8_t kernel[64 * 100], input[17 * 100], output[17 * 64];
  test_fill_s8(kernel, sizeof(kernel));
  test_fill_s8(input, sizeof(input));
  const float kernel_scale = 0.01f;
  const struct q8nn_conv_quantization q = {0, 0.02f, &kernel_scale, 0, 0.5f, -128, 127, q8nn_rounding_double,
                                           NULL, NULL, NULL};
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_fully_connected_nc_s8(100, 64, &q, kernel, NULL, Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op),
                   q8nn_status_success);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 1, input, 100, output, 64), q8nn_status_success);
  const int x86_vnni = (q8nn_get_active_isa() & (Q8NN_ISA_X86_AVX512VNNI | Q8NN_ISA_X86_AVXVNNI)) != 0 &&
                       (q8nn_get_active_isa() & Q8NN_ISA_X86_AMX) == 0;
  printf("1 row: %s\n", q8nn_operator_kernel_name(op));
  if (x86_vnni) assert_non_null(strstr(q8nn_operator_kernel_name(op), "_1x"));
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 17, input, 100, output, 64), q8nn_status_success);
  printf("17 rows: %s\n", q8nn_operator_kernel_name(op));
  assert_null(strstr(q8nn_operator_kernel_name(op), "_1x"));
  q8nn_delete_operator(op);
}

static void test_fully_connected_refusals(void** state) {
  (void) state;
  int8_t kernel[8 * 4] = {0}, buffer[256];
  const float kernel_scale = 0.01f;
  const struct q8nn_conv_quantization q = {0, 0.02f, &kernel_scale, 0, 0.5f, -128, 127, q8nn_rounding_double,
                                           NULL, NULL, NULL};
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  const uint32_t pt = Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE;
  assert_int_equal(q8nn_create_fully_connected_nc_s8(0, 4, &q, kernel, NULL, pt, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_fully_connected_nc_s8(8, 0, &q, kernel, NULL, pt, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_fully_connected_nc_s8(8, 4, NULL, kernel, NULL, pt, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_fully_connected_nc_s8(8, 4, &q, NULL, NULL, pt, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_fully_connected_nc_s8(8, 4, &q, kernel, NULL, pt, NULL), q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);
  assert_int_equal(q8nn_create_fully_connected_nc_s8(8, 4, &q, kernel, NULL, pt, &op), q8nn_status_success);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 0, buffer, 8, buffer + 128, 4), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 2, buffer, 7, buffer + 128, 4), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 2, buffer, 8, buffer + 128, 3), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 2, NULL, 8, buffer + 128, 4), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, 2, buffer, SIZE_MAX - 4, buffer + 128, 4),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_fully_connected_nc_s8(op, SIZE_MAX / 4, buffer, 8, buffer + 128, 4),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  /* the convolution setups refuse it, and it refuses a convolution */
  assert_int_equal(q8nn_setup_convolution2d_nhwc_s8(op, 1, 1, 1, buffer, 8, buffer + 128, 4, NULL, NULL),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_fully_connected_nc_u8(op, 1, (uint8_t*) buffer, 8, (uint8_t*) buffer + 128, 4),
                   q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fully_connected_sweep),
      cmocka_unit_test(test_fully_connected_tile),
      cmocka_unit_test(test_fully_connected_refusals),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
