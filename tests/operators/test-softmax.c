/*
 * Softmax through the public API against the reference (TFLite's int8 Softmax, tests/reference),
 * int8 and the uint8 form (+128), every pool; large rows whose exp sum takes the output step's
 * exponent beyond 31; refusals.
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

#include "reference/reference-model.h"
#include "testers/test-util.h"

static void test_softmax(void** state) {
  (void) state;
  int8_t in[3 * 300], out[3 * 300], ref[3 * 300];
  for (int t = 0; t < 3000; t++) {
    const size_t depth = 1 + test_rand() % (t < 2000 ? 40 : 300), outer = 1 + test_rand() % 3;
    const float scale = expf(test_rand_float(logf(1e-3f), logf(2.0f)));
    const float beta = (t % 3 == 0) ? 1.0f : test_rand_float(0.25f, 4.0f);
    if (t % 5 == 0) test_fill_s8_range(in, outer * depth, 100, 127); /* near-equal values */
    else test_fill_s8(in, outer * depth);
    q8nn_operator_t op = NULL;
    const int ok = q8nn_create_softmax_nc_s8(scale, beta, 0, &op) == q8nn_status_success;
    const int ref_ok = ref_softmax_s8(beta, scale, outer, depth, in, ref);
    assert_int_equal(ok, ref_ok);
    if (!ok) continue;
    /* the uint8 operator on the same values + 128 gives the int8 bytes + 128 */
    uint8_t in8[3 * 300], out8[3 * 300];
    for (size_t i = 0; i < outer * depth; i++) in8[i] = (uint8_t) (in[i] + 128);
    q8nn_operator_t op8 = NULL;
    assert_int_equal(q8nn_create_softmax_nc_u8(scale, beta, 0, &op8), q8nn_status_success);
    assert_int_equal(q8nn_setup_softmax_nc_u8(op8, outer, depth, in8, depth, out8, depth), q8nn_status_success);
    assert_int_equal(q8nn_run_operator(op8, test_threadpool((size_t) t % TEST_NUM_THREADPOOLS)), q8nn_status_success);
    for (size_t i = 0; i < outer * depth; i++) assert_int_equal(out8[i], (uint8_t) (ref[i] + 128));
    q8nn_delete_operator(op8);
    assert_int_equal(q8nn_setup_softmax_nc_s8(op, outer, depth, in, depth, out, depth), q8nn_status_success);
    assert_int_equal(q8nn_run_operator(op, test_threadpool((size_t) t % TEST_NUM_THREADPOOLS)), q8nn_status_success);
    q8nn_delete_operator(op);
    const size_t bad = test_first_mismatch(out, ref, outer * depth);
    if (bad != SIZE_MAX) {
      fail_msg("softmax depth %zu outer %zu scale %g beta %g: [%zu] %d, reference %d", depth, outer, (double) scale,
               (double) beta, bad, out[bad], ref[bad]);
    }
  }
}

/* Rows of 1000 and 4096 equal values (an exp sum of 2^28.97, where the output step's exponent is 32,
   and 2^31, which wraps as TFLite's int32 sum does): they run, and every value of a row is the same
   byte. */
static void test_softmax_wide_rows(void** state) {
  (void) state;
  static int8_t in[2 * 4096], out[2 * 4096];
  memset(in, 17, sizeof(in));
  q8nn_operator_t op = NULL;
  assert_int_equal(q8nn_create_softmax_nc_s8(0.1f, 1.0f, 0, &op), q8nn_status_success);
  for (size_t depth = 1000; depth <= 4096; depth += 3096) {
    assert_int_equal(q8nn_setup_softmax_nc_s8(op, 2, depth, in, depth, out, depth), q8nn_status_success);
    assert_int_equal(q8nn_run_operator(op, test_threadpool(2)), q8nn_status_success);
    for (size_t i = 1; i < 2 * depth; i++) assert_int_equal(out[i], out[0]);
  }
  q8nn_delete_operator(op);
}

static void test_softmax_refusals(void** state) {
  (void) state;
  q8nn_operator_t op = (q8nn_operator_t) (uintptr_t) 0xDEADBEEF;
  assert_int_equal(q8nn_create_softmax_nc_s8(0.0f, 1.0f, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_softmax_nc_s8(NAN, 1.0f, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_softmax_nc_s8(0.1f, -1.0f, 0, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_softmax_nc_s8(0.1f, 1.0f, 1, &op), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_create_softmax_nc_s8(1e-12f, 1.0f, 0, &op), q8nn_status_unsupported_parameter);
  assert_int_equal(q8nn_create_softmax_nc_s8(0.1f, 1.0f, 0, NULL), q8nn_status_invalid_parameter);
  assert_true(op == (q8nn_operator_t) (uintptr_t) 0xDEADBEEF);
  assert_int_equal(q8nn_create_softmax_nc_s8(0.1f, 1.0f, 0, &op), q8nn_status_success);
  int8_t buffer[64];
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_softmax_nc_s8(op, 2, 8, buffer, 7, buffer + 32, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_softmax_nc_s8(op, 2, 0, buffer, 8, buffer + 32, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_softmax_nc_s8(op, 2, 8, buffer, SIZE_MAX - 4, buffer + 32, 8),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_softmax_nc_s8(op, 2, 8, buffer, 8, buffer, 9), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_setup_softmax_nc_s8(op, 2, 8, buffer, 8, buffer + 4, 8), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_run_operator(op, NULL), q8nn_status_invalid_state);
  assert_int_equal(q8nn_setup_softmax_nc_u8(op, 1, 8, (uint8_t*) buffer, 8, (uint8_t*) buffer, 8),
                   q8nn_status_invalid_parameter);
  q8nn_delete_operator(op);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_softmax_wide_rows),
      cmocka_unit_test(test_softmax_refusals),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
