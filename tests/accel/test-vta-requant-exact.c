/* The host oracle of the exact VTA requantization (src/accel/vta/vta-requant.h) against the
   independent TFLite reference (tests/reference): every accumulator of the reachable range
   [-B, B] for sampled multipliers, shifts (right and left), roundings, zero points, clamps and
   biases, so the oracle (and through the backend tests the VTA program) equals TFLite byte for
   byte. Also the limits: channels the derivation refuses stay on the CPU, never give wrong bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "accel/vta/vta-requant.h"
#include "reference/reference.h"
#include "testers/test-util.h"

static int8_t tflite(int32_t x, int32_t m, int32_t shift, int rounding, int32_t zp, int32_t lo, int32_t hi) {
  int32_t v = ref_multiply_by_quantized_multiplier(x, m, shift, rounding);
  v = (int32_t) ((uint32_t) v + (uint32_t) zp);
  return (int8_t) (v < lo ? lo : v > hi ? hi : v);
}

static uint64_t checked, refused;

/* Exhaustive over x = acc + bias' in [-B, B] (step 1 when B is small, else every x near the
   thresholds and a stride elsewhere plus 2^20 random points). */
static void check_channel(int32_t m, int32_t shift, int rounding, int64_t bias_prime, int64_t sum_abs, int32_t zp,
                          int32_t omin, int32_t omax) {
  struct q8nn_vta_conv_exact r;
  if (!q8nn_vta_conv_exact_derive(m, shift, rounding, bias_prime, sum_abs, zp, omin, omax, &r)) {
    refused++;
    return;
  }
  const int64_t B = 128 * sum_abs + (bias_prime < 0 ? -bias_prime : bias_prime);
  const int64_t step = B <= (1 << 22) ? 1 : B / (1 << 21);
  uint64_t bad = 0;
  for (int64_t x = -B; x <= B; x += step) {
    const int32_t acc = (int32_t) (x - bias_prime);
    const int8_t o = q8nn_vta_conv_exact_apply(&r, acc);
    const int8_t e = tflite((int32_t) x, m, shift, rounding, zp, omin, omax);
    checked++;
    if (o != e && bad++ < 5) {
      fprintf(stderr, "m %d shift %d rounding %d bias' %lld B %lld zp %d [%d,%d]: x %lld oracle %d tflite %d\n", m,
              shift, rounding, (long long) bias_prime, (long long) B, zp, omin, omax, (long long) x, o, e);
    }
  }
  if (step > 1) {
    /* dense windows around the clamp bounds and zero, where rounding decisions concentrate */
    const int64_t centers[5] = {r.lo, r.hi, 0, r.lo - 1, r.hi + 1};
    for (int c = 0; c < 5; c++) {
      for (int64_t x = centers[c] - 70000; x <= centers[c] + 70000; x++) {
        if (x < -B || x > B) continue;
        const int8_t o = q8nn_vta_conv_exact_apply(&r, (int32_t) (x - bias_prime));
        const int8_t e = tflite((int32_t) x, m, shift, rounding, zp, omin, omax);
        checked++;
        if (o != e && bad++ < 5) fprintf(stderr, "m %d shift %d: x %lld oracle %d tflite %d\n", m, shift, (long long) x, o, e);
      }
    }
  }
  assert_int_equal(bad, 0);
}

static int32_t random_multiplier(void) {
  switch (test_rand_range(0, 5)) {
    case 0: return 1 << 30;
    case 1: return INT32_MAX;
    case 2: return (1 << 30) + test_rand_range(0, 1 << 16);          /* Ml small or negative boundary */
    case 3: return (int32_t) ((1u << 30) | (test_rand() & 0x3FFF0000u) | 0x8000u); /* Ml = -2^15 */
    default: return (int32_t) ((1u << 30) | (test_rand() & 0x3FFFFFFFu));
  }
}

/* Right shifts, double and single rounding, MobileNet-like ranges (B up to 2^22: every x). */
static void test_exhaustive_right_shifts(void** state) {
  (void) state;
  for (int i = 0; i < 160; i++) {
    const int32_t m = random_multiplier();
    const int32_t shift = -test_rand_range(0, 14);
    const int64_t sum_abs = test_rand_range(1, 1 << 14);
    const int64_t bias_prime = test_rand_range(-(1 << 20), 1 << 20);
    const int32_t zp = test_rand_range(-128, 127);
    int32_t omin = -128, omax = 127;
    if (i % 3 == 1) omin = test_rand_range(-128, 0), omax = test_rand_range(0, 127);
    if (i % 7 == 3) omin = omax = test_rand_range(-128, 127);
    check_channel(m, shift, i & 1, bias_prime, sum_abs, zp, omin, omax);
  }
}

/* Small scales (large right shifts): the clamp no longer limits t, B up to 2^30. */
static void test_large_ranges(void** state) {
  (void) state;
  for (int i = 0; i < 40; i++) {
    const int32_t m = random_multiplier();
    const int32_t shift = -test_rand_range(10, 31);
    const int64_t sum_abs = test_rand_range(1, 1 << 23);
    const int64_t bias_prime = test_rand_range(-(1 << 28), 1 << 28);
    check_channel(m, shift, i & 1, bias_prime, sum_abs, test_rand_range(-128, 127), -128, 127);
  }
}

/* Scales >= 1/2 (shift >= 0: left shifts) and multiplier 0. */
static void test_left_shifts_and_zero(void** state) {
  (void) state;
  for (int i = 0; i < 60; i++) {
    const int32_t shift = test_rand_range(0, 8);
    const int64_t sum_abs = test_rand_range(1, 1 << 10);
    check_channel(random_multiplier(), shift, i & 1, test_rand_range(-5000, 5000), sum_abs,
                  test_rand_range(-128, 127), test_rand_range(-128, -1), test_rand_range(0, 127));
  }
  check_channel(0, 0, 0, 1234, 100, 5, -128, 127);
  check_channel(0, -7, 1, -1234, 100, -128, -100, 127);
}

/* Every int8 output value is reached and the clamp folding is exact at its edges. */
static void test_edges(void** state) {
  (void) state;
  const int32_t ms[4] = {1 << 30, (1 << 30) + 1, INT32_MAX, 1518500250};
  for (int k = 0; k < 4; k++) {
    for (int32_t shift = -9; shift <= 1; shift++) {
      for (int rounding = 0; rounding < 2; rounding++) {
        check_channel(ms[k], shift, rounding, 0, 1 << 11, 0, -128, 127);
        check_channel(ms[k], shift, rounding, -77, 1 << 11, 127, 0, 127);
      }
    }
  }
}

/* All weights 0 (as in some channels of the shared vww and MobileNetV2 models, with |bias| ~ 2^30,
   beyond the limb proof's range): the accumulator is 0 and the output TFLite's constant for
   x = bias'. Derived for any int32 bias', both roundings, clamps, zero points. */
static void test_zero_weight_channels(void** state) {
  (void) state;
  const int64_t biases[6] = {1073741824, -1073741824, 1073741760, INT32_MAX, INT32_MIN, 0};
  for (int i = 0; i < 400; i++) {
    const int64_t bias = i < 6 ? biases[i] : (int64_t) (int32_t) test_rand();
    const int32_t m = random_multiplier(), shift = test_rand_range(-31, 2), rounding = i & 1;
    const int32_t zp = test_rand_range(-128, 127), omin = test_rand_range(-128, 0), omax = test_rand_range(0, 127);
    struct q8nn_vta_conv_exact r;
    assert_true(q8nn_vta_conv_exact_derive(m, shift, rounding, bias, 0, zp, omin, omax, &r));
    assert_int_equal(q8nn_vta_conv_exact_apply(&r, 0), tflite((int32_t) bias, m, shift, rounding, zp, omin, omax));
    checked++;
  }
}

static int teardown(void** state) {
  printf("exact requantization oracle: %llu accumulators equal TFLite, %llu channels refused\n",
         (unsigned long long) checked, (unsigned long long) refused);
  return test_group_teardown(state);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exhaustive_right_shifts),
      cmocka_unit_test(test_large_ranges),
      cmocka_unit_test(test_left_shifts_and_zero),
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_zero_weight_channels),
  };
  return cmocka_run_group_tests_name("vta_requant_exact", tests, test_group_setup, teardown);
}
