/*
 * Unary elementwise and lookup operators through the public API: every table entry against the
 * independent reference (tests/reference/reference-unary.c) for a spread of quantizations, both
 * TFLite roundings and XNNPACK's, int8 and uint8, on every ISA mask, dense and strided rows,
 * in place, the caller's thread, pthreadpools and host pools; and the documented refusals.
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

#include "reference/reference-unary.h"
#include "testers/test-util.h"

static const enum q8nn_unary_operation operations[] = {q8nn_unary_clamp, q8nn_unary_hardswish, q8nn_unary_sigmoid,
                                                       q8nn_unary_tanh, q8nn_unary_leaky_relu, q8nn_unary_elu};
static const enum q8nn_rounding roundings[] = {q8nn_rounding_double, q8nn_rounding_single, q8nn_rounding_fp32};

/* A quantization drawn for an operation: sigmoid and tanh mostly with TFLite's fixed output
   quantization (else refused), the others anything. */
static struct q8nn_unary_quantization draw_quantization(enum q8nn_unary_operation operation, enum q8nn_rounding rounding,
                                                        size_t i) {
  struct q8nn_unary_quantization q;
  memset(&q, 0, sizeof(q));
  q.input_zero_point = test_rand_range(-128, 127);
  /* scales from 2^-9 to 2: the input range covers a few units of the function up to hundreds */
  q.input_scale = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-9, 0));
  q.output_zero_point = test_rand_range(-128, 127);
  q.output_scale = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-8, 0));
  q.output_min = -128;
  q.output_max = 127;
  if (i % 4 == 3) {
    q.output_min = (int8_t) test_rand_range(-128, 0);
    q.output_max = (int8_t) test_rand_range(q.output_min, 127);
  }
  q.alpha = operation == q8nn_unary_elu && rounding != q8nn_rounding_fp32 ? 1.0f : test_rand_float(0.01f, 0.5f);
  if (operation == q8nn_unary_elu && rounding == q8nn_rounding_fp32 && i % 2 == 0) q.alpha = 1.0f;
  if ((operation == q8nn_unary_sigmoid || operation == q8nn_unary_tanh) && i % 5 != 4) {
    q.output_scale = operation == q8nn_unary_sigmoid ? 1.0f / 256.0f : 1.0f / 128.0f;
    q.output_zero_point = operation == q8nn_unary_sigmoid ? -128 : 0;
  }
  q.rounding = rounding;
  return q;
}

static struct ref_unary_params ref_params(enum q8nn_unary_operation operation, const struct q8nn_unary_quantization* q) {
  struct ref_unary_params p = {
      .op = (int) operation,
      .rounding = q->rounding == q8nn_rounding_double ? 0 : q->rounding == q8nn_rounding_single ? 1 : 2,
      .input_scale = q->input_scale, .input_zero_point = q->input_zero_point,
      .output_scale = q->output_scale, .output_zero_point = q->output_zero_point,
      .output_min = q->output_min, .output_max = q->output_max, .alpha = q->alpha};
  return p;
}

/* Runs op over `rows` rows of the 256 bytes (row r rotated by r), with strides and a guard, on pool
   `pool_index` modulo the pthreadpools then the host pools; compares with expected[] (indexed by the
   input byte). Returns failures. */
static int check_rows(q8nn_operator_t op, int u8, const uint8_t expected[256], size_t rows, size_t stride,
                      int in_place, const char* what, size_t pool_index) {
  const size_t channels = 256;
  const size_t bytes = (rows - 1) * stride + channels;
  uint8_t* in = malloc(bytes + 64);
  uint8_t* out = malloc(bytes + 64);
  int failures = 0;
  {
    const size_t pool = pool_index % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS);
    memset(in, 0x33, bytes + 64);
    memset(out, TEST_GUARD_BYTE, bytes + 64);
    for (size_t r = 0; r < rows; r++) {
      for (size_t c = 0; c < channels; c++) in[r * stride + c] = (uint8_t) (c + r);
    }
    uint8_t* y = in_place ? in : out;
    enum q8nn_status status =
        u8 ? q8nn_setup_unary_elementwise_nc_u8(op, rows, channels, in, stride, y, stride)
           : q8nn_setup_unary_elementwise_nc_s8(op, rows, channels, (const int8_t*) in, stride, (int8_t*) y, stride);
    if (status == q8nn_status_success) {
      status = pool < TEST_NUM_THREADPOOLS ? q8nn_run_operator(op, test_threadpool(pool))
                                           : q8nn_run_operator_on(op, test_host_pool(pool - TEST_NUM_THREADPOOLS));
    }
    if (status != q8nn_status_success) {
      fprintf(stderr, "FAIL %s: status %s (pool %zu)\n", what, q8nn_status_string(status), pool);
      failures++;
      free(in);
      free(out);
      return failures;
    }
    for (size_t r = 0; r < rows && failures < 8; r++) {
      for (size_t c = 0; c < channels; c++) {
        const uint8_t x = (uint8_t) (c + r);
        if (y[r * stride + c] != expected[x]) {
          fprintf(stderr, "FAIL %s (%s, pool %zu): row %zu input %u gives %u, reference %u\n", what,
                  q8nn_operator_kernel_name(op), pool, r, x, y[r * stride + c], expected[x]);
          failures++;
          break;
        }
      }
      /* the gap between rows is not written */
      for (size_t c = channels; c < stride && r + 1 < rows && !in_place; c++) {
        if (out[r * stride + c] != (uint8_t) TEST_GUARD_BYTE) {
          fprintf(stderr, "FAIL %s: byte %zu after row %zu written\n", what, c, r);
          failures++;
          break;
        }
      }
    }
    if (!in_place && out[bytes] != (uint8_t) TEST_GUARD_BYTE) {
      fprintf(stderr, "FAIL %s: byte after the output written\n", what);
      failures++;
    }
  }
  free(in);
  free(out);
  return failures;
}

static void test_every_table(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  size_t refused = 0, checked = 0;
  for (size_t o = 0; o < sizeof(operations) / sizeof(operations[0]); o++) {
    for (size_t r = 0; r < sizeof(roundings) / sizeof(roundings[0]); r++) {
      for (size_t i = 0; i < 24; i++) {
        const struct q8nn_unary_quantization q = draw_quantization(operations[o], roundings[r], i);
        const struct ref_unary_params p = ref_params(operations[o], &q);
        uint8_t expected[256], expected_u8[256];
        int accepted = 1;
        for (int x = -128; x <= 127 && accepted; x++) {
          int8_t y;
          accepted = ref_unary_s8(&p, (int8_t) x, &y);
          expected[(uint8_t) x] = (uint8_t) y;
          expected_u8[(uint8_t) (x + 128)] = (uint8_t) (y + 128);
        }
        char what[200];
        snprintf(what, sizeof(what), "op %d rounding %d case %zu (in %g %d, out %g %d, clamp [%d, %d], alpha %g)",
                 (int) operations[o], (int) roundings[r], i, (double) q.input_scale, q.input_zero_point,
                 (double) q.output_scale, q.output_zero_point, q.output_min, q.output_max, (double) q.alpha);
        const struct q8nn_unary_quantization_u8 q8 = {
            q.input_zero_point + 128, q.input_scale, q.output_zero_point + 128, q.output_scale,
            (uint8_t) (q.output_min + 128), (uint8_t) (q.output_max + 128), q.alpha, q.rounding};
        for (size_t m = 0; m < num_masks; m++) {
          /* every quantization on the widest mask, one in four on the others */
          if (m + 1 != num_masks && i % 4 != 0) continue;
          q8nn_set_isa_mask(masks[m]);
          for (int u8 = 0; u8 <= 1; u8++) {
            q8nn_operator_t op = NULL;
            const enum q8nn_status status = u8 ? q8nn_create_unary_elementwise_nc_u8(operations[o], &q8, 0, &op)
                                               : q8nn_create_unary_elementwise_nc_s8(operations[o], &q, 0, &op);
            if (!accepted) {
              if (status != q8nn_status_unsupported_parameter) {
                fprintf(stderr, "FAIL %s: refused by the reference, create gives %s\n", what,
                        q8nn_status_string(status));
                failures++;
              }
              if (status == q8nn_status_success) q8nn_delete_operator(op);
              refused += u8 == 0 && m + 1 == num_masks;
              continue;
            }
            if (status != q8nn_status_success) {
              fprintf(stderr, "FAIL %s: create gives %s\n", what, q8nn_status_string(status));
              failures++;
              continue;
            }
            checked += u8 == 0 && m + 1 == num_masks;
            /* one dense row; rows with a gap; many dense rows (one run, split among threads) */
            /* small shapes on the caller's thread (pool 0) or the caller-run host pool (pool
               TEST_NUM_THREADPOOLS): they run on the caller anyway, and idle pthreadpool workers
               spinning after each of thousands of calls would starve it on two cores; the
               700-row shapes, which threads split, on each pool in turn */
            const size_t pool = (i + m + (size_t) u8) % 2 == 0 ? 0 : TEST_NUM_THREADPOOLS;
            failures += check_rows(op, u8, u8 ? expected_u8 : expected, 1, 256, 0, what, pool);
            failures += check_rows(op, u8, u8 ? expected_u8 : expected, 5, 300, i % 2, what, pool);
            if (i % 8 == 0) {
              failures += check_rows(op, u8, u8 ? expected_u8 : expected, 700, 256, 0, what, i / 8 + m + (size_t) u8);
            }
            q8nn_delete_operator(op);
          }
        }
        if (failures > 20) break;
      }
    }
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  printf("unary tables: %zu quantizations checked on all 256 inputs, %zu refused as the reference refuses\n", checked,
         refused);
  assert_int_equal(failures, 0);
  assert_true(checked > 300);
}

/* Every length from 1 to 300 at every offset modulo 64 (the kernels' tails), caller's table. */
static void test_lookup_lengths(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int8_t table[256];
  test_fill_s8(table, 256);
  uint8_t in[400], out[400];
  int failures = 0;
  for (size_t m = 0; m < num_masks; m++) {
    q8nn_set_isa_mask(masks[m]);
    q8nn_operator_t op = NULL;
    assert_int_equal(q8nn_create_lookup_nc_s8(table, 0, &op), q8nn_status_success);
    for (size_t n = 1; n <= 300 && failures == 0; n++) {
      const size_t offset = n % 64;
      for (size_t i = 0; i < sizeof(in); i++) in[i] = (uint8_t) test_rand();
      memset(out, TEST_GUARD_BYTE, sizeof(out));
      assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 1, n, (const int8_t*) in + offset, n,
                                                           (int8_t*) out + offset, n),
                       q8nn_status_success);
      assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_success);
      for (size_t i = 0; i < sizeof(out); i++) {
        const int inside = i >= offset && i < offset + n;
        const uint8_t want = inside ? (uint8_t) table[in[i]] : (uint8_t) TEST_GUARD_BYTE;
        if (out[i] != want) {
          fprintf(stderr, "FAIL %s: n %zu offset %zu byte %zu: %u, want %u\n", q8nn_operator_kernel_name(op), n,
                  offset, i, out[i], want);
          failures++;
          break;
        }
      }
    }
    q8nn_delete_operator(op);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
}

static void test_refusals(void** state) {
  (void) state;
  const struct q8nn_unary_quantization good = {0, 0.05f, 0, 0.05f, -128, 127, 0.1f, q8nn_rounding_double};
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  struct q8nn_unary_quantization q = good;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, NULL, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, &q, 0, NULL), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8((enum q8nn_unary_operation) 99, &q, 0, &op),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, &q, 0x100, &op), q8nn_status_invalid_parameter);
  q.input_zero_point = 128;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, &q, 0, &op), q8nn_status_invalid_parameter);
  q = good;
  q.input_scale = NAN;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, &q, 0, &op), q8nn_status_invalid_parameter);
  q = good;
  q.output_scale = 0.0f;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, &q, 0, &op), q8nn_status_invalid_parameter);
  q = good;
  q.output_min = 5;
  q.output_max = 4;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, &q, 0, &op), q8nn_status_invalid_parameter);
  q = good;
  q.alpha = INFINITY;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_leaky_relu, &q, 0, &op),
                   q8nn_status_invalid_parameter);
  q = good;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_sigmoid, &q, 0, &op),
                   q8nn_status_unsupported_parameter); /* TFLite's LOGISTIC needs 1/256, -128 */
  const struct q8nn_unary_quantization_u8 q8 = {256, 0.05f, 0, 0.05f, 0, 255, 0.1f, q8nn_rounding_double};
  assert_int_equal(q8nn_create_unary_elementwise_nc_u8(q8nn_unary_clamp, &q8, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_lookup_nc_s8(NULL, 0, &op), q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF); /* nothing written on failure */

  q = good;
  assert_int_equal(q8nn_create_unary_elementwise_nc_s8(q8nn_unary_clamp, &q, 0, &op), q8nn_status_success);
  int8_t buffer[64];
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 1, 0, buffer, 8, buffer, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 2, 8, buffer, 7, buffer + 32, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 2, 8, NULL, 8, buffer, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 2, 8, buffer, 8, buffer, 9), q8nn_status_invalid_parameter);
  /* an output that overlaps the input other than exactly */
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 2, 8, buffer, 8, buffer + 4, 8), q8nn_status_invalid_parameter);
  /* extents that wrap the address space: refused at setup, nothing runs */
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 2, 8, buffer, SIZE_MAX - 16, buffer + 32, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 3, 8, buffer, SIZE_MAX / 2, buffer + 32, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, SIZE_MAX, 8, buffer, 8, buffer + 32, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_unary_elementwise_nc_s8(op, 1, SIZE_MAX, buffer, SIZE_MAX, buffer + 32, SIZE_MAX),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  /* the int8 operator refuses the uint8 setup, and the other types' setups refuse it */
  assert_int_equal(q8nn_setup_unary_elementwise_nc_u8(op, 1, 8, (uint8_t*) buffer, 8, (uint8_t*) buffer, 8),
                   q8nn_status_invalid_parameter);
  const size_t shape[1] = {8};
  assert_int_equal(q8nn_setup_add_nd_s8(op, 1, shape, 1, shape, buffer, buffer, buffer), q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_table),
      cmocka_unit_test(test_lookup_lengths),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
