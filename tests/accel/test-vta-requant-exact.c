/* The host oracle of the exact VTA requantization (src/accel/vta/vta-requant.h) against the
   independent TFLite reference (tests/reference): every accumulator of the reachable range
   [-B, B] for sampled multipliers, shifts (right and left), roundings, zero points, clamps and
   biases, so the oracle (and through the backend tests the VTA program) equals TFLite byte for
   byte. Also the limits: channels the derivation refuses stay on the CPU, never give wrong bytes. */
#include <math.h>
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

static uint64_t checked, refused, linear_checked, linear_refused, layers_by_limbs[Q8NN_VTA_LINEAR_MAX_LIMBS + 1];

/* Ranges up to 2^dense_log2 accumulators are checked at every one, larger ones at 2^(dense_log2 -
   1) strided points plus dense windows. 22; 18 under an emulator (Q8NN_TEST_QUICK=1, set for the
   cross builds), where the same arithmetic runs 20-50x slower. */
static int dense_log2 = 22;
static int64_t window = 70000; /* half-width of the dense windows (8000 under an emulator) */

/* One channel of a derived linear-form layer against TFLite on its reachable accumulators
   (x = acc + bias' in bias' +- 128*sum|w|): every x when there are at most 2^22 + 1, else a
   stride plus dense windows at the clamp bounds, the sign split and x = 0. */
static void check_linear(const struct q8nn_vta_exact_channel* c, const struct q8nn_vta_conv_linear* l) {
  const int64_t span = 128 * c->sum_abs_w, xl = c->bias_prime - span, xh = c->bias_prime + span;
  const int64_t step = xh - xl <= (INT64_C(1) << dense_log2) ? 1 : (xh - xl) / (INT64_C(1) << (dense_log2 - 1));
  uint64_t bad = 0;
  const int64_t centers[5] = {(int64_t) l->lo - l->c_bias + c->bias_prime, (int64_t) l->hi - l->c_bias + c->bias_prime,
                              (int64_t) -l->neg_t0 - l->c_bias + c->bias_prime, 0, xl};
  for (int pass = 0; pass < (step > 1 ? 6 : 1); pass++) {
    const int64_t from = pass == 0 ? xl : centers[pass - 1] - window, to = pass == 0 ? xh : centers[pass - 1] + window;
    for (int64_t x = from; x <= to; x += pass == 0 ? step : 1) {
      if (x < xl || x > xh) continue;
      const int8_t o = q8nn_vta_conv_linear_apply(l, (int32_t) (x - c->bias_prime));
      const int8_t e = tflite((int32_t) x, c->multiplier, c->shift, c->rounding, c->zero_point, c->out_min, c->out_max);
      linear_checked++;
      if (o != e && bad++ < 5) {
        fprintf(stderr, "linear n %d w %d: m %d shift %d rounding %d bias' %lld sum|w| %lld zp %d [%d,%d]: x %lld -> %d, TFLite %d\n",
                l->limbs, l->w, c->multiplier, c->shift, c->rounding, (long long) c->bias_prime,
                (long long) c->sum_abs_w, c->zero_point, c->out_min, c->out_max, (long long) x, o, e);
      }
    }
  }
  assert_int_equal(bad, 0);
}

/* A layer's linear form (one program for its channels), each channel checked. */
static void check_layer(const struct q8nn_vta_exact_channel* ch, size_t count) {
  struct q8nn_vta_conv_linear lin[16];
  assert_true(count <= 16);
  if (!q8nn_vta_conv_linear_derive(ch, count, lin)) {
    linear_refused++;
    return;
  }
  layers_by_limbs[lin[0].limbs]++;
  for (size_t i = 0; i < count; i++) {
    assert_int_equal(lin[i].limbs, lin[0].limbs);
    check_linear(&ch[i], &lin[i]);
  }
}

/* Exhaustive over x = acc + bias' in [-B, B] (step 1 when B is small, else every x near the
   thresholds and a stride elsewhere plus 2^20 random points). */
static void check_channel(int32_t m, int32_t shift, int rounding, int64_t bias_prime, int64_t sum_abs, int32_t zp,
                          int32_t omin, int32_t omax) {
  const struct q8nn_vta_exact_channel c = {m, shift, rounding, zp, omin, omax, bias_prime, sum_abs};
  check_layer(&c, 1);
  struct q8nn_vta_conv_exact r;
  if (!q8nn_vta_conv_exact_derive(m, shift, rounding, bias_prime, sum_abs, zp, omin, omax, &r)) {
    refused++;
    return;
  }
  const int64_t B = 128 * sum_abs + (bias_prime < 0 ? -bias_prime : bias_prime);
  const int64_t step = B <= (INT64_C(1) << dense_log2) ? 1 : B / (INT64_C(1) << (dense_log2 - 1));
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
      for (int64_t x = centers[c] - window; x <= centers[c] + window; x++) {
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

/* Layers of 1-16 channels with different multipliers, shifts, biases and weight sums under one
   program (the layer's limb count and width), including all-zero and scale-0 channels and
   CMSIS-NN int4-like channels (bias' ~ 2^30, shift -26: accumulators far from 0). */
static void test_linear_layers(void** state) {
  (void) state;
  struct q8nn_vta_exact_channel ch[16];
  for (int i = 0; i < 300; i++) {
    const size_t count = (size_t) test_rand_range(1, 16);
    const int32_t rounding = i & 1, zp = test_rand_range(-128, 127);
    int32_t omin = -128, omax = 127;
    if (i % 3 == 1) omin = test_rand_range(-128, 0), omax = test_rand_range(0, 127);
    const int32_t base_shift = -test_rand_range(0, 16);
    for (size_t k = 0; k < count; k++) {
      struct q8nn_vta_exact_channel* c = &ch[k];
      c->multiplier = random_multiplier();
      c->shift = base_shift + test_rand_range(-2, 2);
      if (c->shift > 2) c->shift = 2;
      c->rounding = rounding, c->zero_point = zp, c->out_min = omin, c->out_max = omax;
      c->sum_abs_w = test_rand_range(1, 1 << 12);
      c->bias_prime = test_rand_range(-(1 << 18), 1 << 18);
      switch (test_rand_range(0, 9)) {
        case 0: c->sum_abs_w = 0, c->bias_prime = (int32_t) test_rand(); break;
        case 1: c->multiplier = 0; break;
        case 2: c->shift = -26, c->bias_prime = (1 << 30) - test_rand_range(0, 1 << 20), c->sum_abs_w = test_rand_range(1, 600); break;
        default: break;
      }
    }
    check_layer(ch, count);
  }
  /* the int4 golden cases' shape, bias' ~ -2^30 with shift -26: the linear form centres t on where
     G crosses 0 (extrapolated when it does not on the range), so only the range's width matters,
     not |bias'|; it must not refuse unless G takes two values or more on the range and that centre
     is out of reach, |G| / real beyond 2^29
     (outputs that stay far from 0 over a narrow range at a tiny real multiplier: m ~ 0.9 2^31 with
     outputs near -100 lies 7.5e9 away). Those channels stay on the CPU (docs/vta-backend.md,
     "Unsupported"); the golden int4 cases all run on VTA (test_vta_backend_golden). */
  size_t far = 0;
  for (int i = 0; i < 20; i++) {
    const struct q8nn_vta_exact_channel c = {random_multiplier(), -26, i & 1, test_rand_range(-128, 127), -128, 127,
                                             -(1 << 30) + test_rand_range(0, 1 << 22), test_rand_range(1, 2000)};
    const uint64_t before = linear_refused;
    check_layer(&c, 1);
    const double real = ldexp((double) c.multiplier, c.shift - 31);
    const int64_t span = 128 * c.sum_abs_w;
    const int g_lo = tflite((int32_t) (c.bias_prime - span), c.multiplier, c.shift, c.rounding, c.zero_point, -128, 127);
    const int g_hi = tflite((int32_t) (c.bias_prime + span), c.multiplier, c.shift, c.rounding, c.zero_point, -128, 127);
    /* one output value on the whole range: a constant channel, always taken */
    if (g_lo != g_hi && fabs((double) g_hi) / real > 0x1p29) {
      far++;
    } else {
      assert_int_equal(linear_refused, before);
    }
  }
  print_message("int4-like channels: %zu of 20 not constant on their range with their centre beyond 2^29 (may be refused)\n", far);
}

static int teardown(void** state) {
  printf("exact requantization oracle, limb form: %llu accumulators equal TFLite, %llu channels refused\n",
         (unsigned long long) checked, (unsigned long long) refused);
  printf("linear form: %llu accumulators equal TFLite; layers with 1/2/3/4 limbs %llu/%llu/%llu/%llu, %llu refused\n",
         (unsigned long long) linear_checked, (unsigned long long) layers_by_limbs[1],
         (unsigned long long) layers_by_limbs[2], (unsigned long long) layers_by_limbs[3],
         (unsigned long long) layers_by_limbs[4], (unsigned long long) linear_refused);
  return test_group_teardown(state);
}

int main(void) {
  const char* quick = getenv("Q8NN_TEST_QUICK");
  if (quick != NULL && quick[0] == '1') dense_log2 = 18, window = 8000;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exhaustive_right_shifts),
      cmocka_unit_test(test_large_ranges),
      cmocka_unit_test(test_left_shifts_and_zero),
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_zero_weight_channels),
      cmocka_unit_test(test_linear_layers),
  };
  return cmocka_run_group_tests_name("vta_requant_exact", tests, test_group_setup, teardown);
}
