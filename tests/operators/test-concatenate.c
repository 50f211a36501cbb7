/*
 * Concatenation along every axis and channel shuffle through the public API: against plain index
 * arithmetic for the copies and against PyTorch's requantization (dequantize, then
 * quantize_per_tensor in float, ties to even) for inputs of other scales; int8 and uint8, every ISA
 * mask, every pool; refusals.
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

#include "testers/test-util.h"

#define MAX_INPUTS 5

/* PyTorch: q = clamp(zo + nearbyint(((float) x - zi) * si * (1 / so))) in the type's range */
static int32_t torch_requantize(int32_t x, float si, int32_t zi, float so, int32_t zo, int32_t lo, int32_t hi) {
  const float v = ((float) x - (float) zi) * si;
  const float inv = 1.0f / so;
  const int32_t q = zo + (int32_t) nearbyintf(v * inv);
  return q < lo ? lo : q > hi ? hi : q;
}

static void test_concatenate_sweep(void** state) {
  (void) state;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  int failures = 0;
  for (size_t t = 0; t < 200 && failures == 0; t++) {
    const int u8 = (int) (t % 2), requantize = (int) ((t / 2) % 3 == 2);
    const size_t rank = 1 + test_rand() % 4, axis = test_rand() % rank, n = 1 + test_rand() % MAX_INPUTS;
    size_t shape[4], sizes[MAX_INPUTS], outer = 1, inner = 1, total_axis = 0;
    for (size_t d = 0; d < rank; d++) shape[d] = 1 + test_rand() % (rank > 2 ? 6 : 40);
    for (size_t d = 0; d < axis; d++) outer *= shape[d];
    for (size_t d = axis + 1; d < rank; d++) inner *= shape[d];
    float scales[MAX_INPUTS];
    int32_t zps[MAX_INPUTS];
    const int32_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
    const float out_scale = test_rand_float(0.01f, 0.1f);
    const int32_t out_zp = test_rand_range(lo, hi);
    int8_t* in[MAX_INPUTS];
    for (size_t i = 0; i < n; i++) {
      sizes[i] = 1 + test_rand() % 9;
      total_axis += sizes[i];
      in[i] = malloc(outer * sizes[i] * inner);
      test_fill_s8(in[i], outer * sizes[i] * inner);
      const int same = !requantize || i % 2 == 0;
      scales[i] = same ? out_scale : test_rand_float(0.005f, 0.2f);
      zps[i] = same ? out_zp : test_rand_range(lo, hi);
    }
    const size_t total = outer * total_axis * inner;
    int8_t* expected = malloc(total);
    int8_t* out = malloc(total + 1);
    for (size_t o = 0; o < outer; o++) {
      size_t at = o * total_axis * inner;
      for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < sizes[i] * inner; j++) {
          int32_t x = in[i][o * sizes[i] * inner + j];
          if (u8) x = (uint8_t) x;
          if (scales[i] != out_scale || zps[i] != out_zp) {
            x = torch_requantize(x, scales[i], zps[i], out_scale, out_zp, lo, hi);
          }
          expected[at++] = (int8_t) x;
        }
      }
    }
    const struct q8nn_concatenate_quantization q = {scales, zps, out_scale, out_zp};
    for (size_t m = 0; m < num_masks; m++) {
      q8nn_set_isa_mask(masks[m]);
      q8nn_operator_t op = NULL;
      const uint32_t flags = requantize ? Q8NN_FLAG_PYTORCH_REQUANTIZE : 0;
      const struct q8nn_concatenate_quantization* qp = t % 5 == 0 && !requantize ? NULL : &q;
      assert_int_equal(u8 ? q8nn_create_concatenate_nd_u8(n, qp, flags, &op) : q8nn_create_concatenate_nd_s8(n, qp, flags, &op),
                       q8nn_status_success);
      memset(out, TEST_GUARD_BYTE, total + 1);
      const enum q8nn_status s =
          u8 ? q8nn_setup_concatenate_nd_u8(op, rank, shape, axis, sizes, (const uint8_t* const*) in, (uint8_t*) out)
             : q8nn_setup_concatenate_nd_s8(op, rank, shape, axis, sizes, (const int8_t* const*) in, out);
      assert_int_equal(s, q8nn_status_success);
      const size_t pool = (t + m) % (TEST_NUM_THREADPOOLS + TEST_NUM_HOST_POOLS);
      assert_int_equal(pool < TEST_NUM_THREADPOOLS ? q8nn_run_operator(op, test_threadpool(pool))
                                                   : q8nn_run_operator_on(op, test_host_pool(pool - TEST_NUM_THREADPOOLS)),
                       q8nn_status_success);
      const size_t bad = test_first_mismatch(out, expected, total);
      if (bad != SIZE_MAX || out[total] != TEST_GUARD_BYTE) {
        fprintf(stderr, "FAIL %s %s rank %zu axis %zu inputs %zu requantize %d: byte %zu is %d, want %d\n",
                q8nn_operator_kernel_name(op), test_isa_name(masks[m]), rank, axis, n, requantize, bad,
                bad == SIZE_MAX ? 0 : out[bad], bad == SIZE_MAX ? 0 : expected[bad]);
        failures++;
      }
      q8nn_delete_operator(op);
    }
    for (size_t i = 0; i < n; i++) free(in[i]);
    free(expected);
    free(out);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
}

static void test_concatenate_refusals(void** state) {
  (void) state;
  float scales[2] = {0.1f, 0.2f};
  int32_t zps[2] = {0, 0};
  const struct q8nn_concatenate_quantization q = {scales, zps, 0.1f, 0};
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  assert_int_equal(q8nn_create_concatenate_nd_s8(0, NULL, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_concatenate_nd_s8(2, NULL, 0, NULL), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_concatenate_nd_s8(2, NULL, 0x1, &op), q8nn_status_invalid_parameter);
  /* TFLite's int8 concatenation needs equal quantizations */
  assert_int_equal(q8nn_create_concatenate_nd_s8(2, &q, 0, &op), q8nn_status_unsupported_parameter);
  zps[0] = 200;
  assert_int_equal(q8nn_create_concatenate_nd_s8(2, &q, Q8NN_FLAG_PYTORCH_REQUANTIZE, &op),
                   q8nn_status_invalid_parameter);
  zps[0] = 0;
  scales[1] = NAN;
  assert_int_equal(q8nn_create_concatenate_nd_s8(2, &q, Q8NN_FLAG_PYTORCH_REQUANTIZE, &op),
                   q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);
  assert_int_equal(q8nn_create_concatenate_nd_s8(2, NULL, 0, &op), q8nn_status_success);
  int8_t buffer[256];
  const int8_t* inputs[2] = {buffer, buffer + 16};
  const int8_t* overlapping[2] = {buffer, buffer + 100};
  const size_t shape[2] = {2, 0}, sizes[2] = {4, 4}, zero_sizes[2] = {4, 0};
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_concatenate_nd_s8(op, 2, shape, 2, sizes, inputs, buffer + 64),
                   q8nn_status_invalid_parameter); /* axis out of range */
  assert_int_equal(q8nn_setup_concatenate_nd_s8(op, 2, shape, 0, sizes, inputs, buffer + 64),
                   q8nn_status_invalid_parameter); /* shape[1] = 0 */
  const size_t shape2[2] = {2, 4};
  assert_int_equal(q8nn_setup_concatenate_nd_s8(op, 2, shape2, 1, zero_sizes, inputs, buffer + 64),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_concatenate_nd_s8(op, 2, shape2, 1, sizes, overlapping, buffer + 96),
                   q8nn_status_invalid_parameter);
  const size_t huge[2] = {SIZE_MAX / 2, 4};
  assert_int_equal(q8nn_setup_concatenate_nd_s8(op, 2, huge, 1, sizes, inputs, buffer + 64),
                   q8nn_status_invalid_parameter);
  const size_t rank7[7] = {1, 1, 1, 1, 1, 1, 1};
  assert_int_equal(q8nn_setup_concatenate_nd_s8(op, 7, rank7, 1, sizes, inputs, buffer + 64),
                   q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_concatenate_nd_s8(op, 2, shape2, 1, sizes, inputs, buffer + 64), q8nn_status_success);
  assert_int_equal(q8nn_setup_concatenate_nd_u8(op, 2, shape2, 1, sizes, (const uint8_t* const*) inputs,
                                                (uint8_t*) buffer + 64),
                   q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
}

/* Random shapes on every ISA mask: two groups (the zip2 kernels: rows shorter than 16 bytes, than
   32, than 64, exact multiples and tails) half the time, more groups otherwise. */
static void test_channel_shuffle(void** state) {
  (void) state;
  int failures = 0;
  uint32_t masks[32];
  const size_t num_masks = test_isa_masks(masks, 32);
  for (size_t t = 0; t < 80 && failures == 0; t++) {
    const size_t groups = t % 2 == 0 ? 2 : 3 + test_rand() % 3;
    const size_t m = t % 8 == 0 ? 64 * (1 + test_rand() % 3) : 1 + test_rand() % (t % 4 == 0 ? 200 : 70);
    const size_t batch = 1 + test_rand() % 300;
    const size_t channels = groups * m, in_stride = channels + test_rand() % 3, out_stride = channels + test_rand() % 3;
    int8_t* x = malloc(batch * in_stride);
    int8_t* y = malloc(batch * out_stride + 1);
    test_fill_s8(x, batch * in_stride);
    for (size_t mask = 0; mask < num_masks && failures == 0; mask++) {
      q8nn_set_isa_mask(masks[mask]);
      memset(y, TEST_GUARD_BYTE, batch * out_stride + 1);
      q8nn_operator_t op = NULL;
      assert_int_equal(q8nn_create_channel_shuffle_nc_x8(groups, m, 0, &op), q8nn_status_success);
      assert_int_equal(q8nn_setup_channel_shuffle_nc_x8(op, batch, x, in_stride, y, out_stride), q8nn_status_success);
      assert_int_equal(q8nn_run_operator(op, test_threadpool((t + mask) % TEST_NUM_THREADPOOLS)), q8nn_status_success);
      for (size_t p = 0; p < batch && failures == 0; p++) {
        for (size_t c = 0; c < out_stride; c++) {
          const int8_t want = c < channels ? x[p * in_stride + (c % groups) * m + c / groups] : TEST_GUARD_BYTE;
          if (y[p * out_stride + c] != want && (c < channels || p + 1 < batch)) {
            fprintf(stderr, "FAIL shuffle %zu groups x %zu on %s (%s): pixel %zu channel %zu\n", groups, m,
                    test_isa_name(masks[mask]), q8nn_operator_kernel_name(op), p, c);
            failures++;
            break;
          }
        }
      }
      if (y[batch * out_stride] != TEST_GUARD_BYTE) failures++;
      q8nn_delete_operator(op);
    }
    free(x);
    free(y);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  assert_int_equal(failures, 0);
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  assert_int_equal(q8nn_create_channel_shuffle_nc_x8(1, 4, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_channel_shuffle_nc_x8(2, 0, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_channel_shuffle_nc_x8(SIZE_MAX / 2, 4, 0, &op), q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);
  assert_int_equal(q8nn_create_channel_shuffle_nc_x8(2, 4, 0, &op), q8nn_status_success);
  int8_t buffer[64];
  assert_int_equal(q8nn_setup_channel_shuffle_nc_x8(op, 2, buffer, 8, buffer + 4, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_channel_shuffle_nc_x8(op, 2, buffer, 7, buffer + 32, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_channel_shuffle_nc_x8(op, 2, buffer, SIZE_MAX - 2, buffer + 32, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  q8nn_delete_operator(op);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concatenate_sweep),
      cmocka_unit_test(test_concatenate_refusals),
      cmocka_unit_test(test_channel_shuffle),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
