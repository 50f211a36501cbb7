/*
 * The guarded epilogue's arithmetic (requantization.h, q8nn_guard_requantize: the same steps the
 * SIMD kernels take, lane by lane) against TFLite's exact requantization (tests/reference): wherever
 * the guard does not flag a lane, its byte must be TFLite's. This checks the proof of
 * docs/guarded-epilogue.md on the cases it is about, independently of any kernel and on every
 * platform: accumulators on and within three units of every kind of rounding boundary (found by
 * bisection, for each multiplier and shift), at the clamp's edges, anywhere in int32 and at its
 * ends; multipliers at both ends of [2^30, 2^31), random, and 0; every shift of the channel rule
 * and some outside it (always flagged); both roundings; clamps that keep results below the zero
 * point (the sign-dependent constant) and ones that do not; all zero points. It also checks how
 * often the guard flags accumulators spread over the unclamped range: the window is 2^-13 of an
 * output unit, so about one lane in 8192 (bounded here by one in 1024).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/requantization.h"
#include "reference/reference.h"
#include "testers/test-util.h"

static int8_t exact_byte(int32_t acc, int32_t m, int32_t shift, int rounding, const struct q8nn_qs8_conv_params* p) {
  int32_t out = (int32_t) ((uint32_t) ref_multiply_by_quantized_multiplier(acc, m, shift, rounding) +
                           (uint32_t) p->output_zero_point);
  out = out < p->output_min ? p->output_min : out > p->output_max ? p->output_max : out;
  return (int8_t) out;
}

/* The smallest accumulator whose TFLite result reaches target (m > 0, shift <= 0: monotonic). */
static int64_t boundary(int32_t m, int32_t shift, int rounding, int32_t target) {
  int64_t lo = INT32_MIN, hi = (int64_t) INT32_MAX + 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (ref_multiply_by_quantized_multiplier((int32_t) mid, m, shift, rounding) >= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

static int32_t draw_multiplier(void) {
  switch (test_rand() % 8) {
    case 0: return INT32_C(1) << 30;
    case 1: return INT32_MAX;
    case 2: return test_rand() % 4 == 0 ? 0 : INT32_C(1) << 30;
    default: return (int32_t) ((UINT32_C(1) << 30) | (test_rand() & ((UINT32_C(1) << 30) - 1)));
  }
}

struct counts {
  long checked, flagged, wrong;
};

static void check(int32_t acc, int32_t m, int32_t shift, int rounding, const struct q8nn_qs8_conv_params* p,
                  struct counts* c) {
  int flagged;
  const int8_t got = q8nn_guard_requantize(acc, m, shift, rounding, p, &flagged);
  c->checked++;
  if (flagged) {
    c->flagged++;
    return;
  }
  if (!q8nn_guard_eligible(m, shift)) {
    if (c->wrong++ < 5) fprintf(stderr, "ineligible channel m=%d shift=%d not flagged\n", (int) m, (int) shift);
    return;
  }
  const int8_t want = exact_byte(acc, m, shift, rounding, p);
  if (got != want && c->wrong++ < 5) {
    fprintf(stderr,
            "acc %d m %d shift %d rounding %d zp %d clamp [%d, %d] guard %d: %d, TFLite %d (seed %llu)\n",
            (int) acc, (int) m, (int) shift, rounding, (int) p->output_zero_point, (int) p->output_min,
            (int) p->output_max, (int) p->guard, got, want, (unsigned long long) test_seed());
  }
}

static void draw_params(int rounding, struct q8nn_qs8_conv_params* p, int32_t m, int32_t shift) {
  memset(p, 0, sizeof(*p));
  p->output_zero_point = test_rand_range(-128, 127);
  switch (test_rand() % 4) {
    case 0: p->output_min = -128, p->output_max = 127; break;
    case 1: p->output_min = p->output_zero_point, p->output_max = 127; break; /* a ReLU */
    case 2:
      p->output_min = p->output_zero_point, p->output_max = test_rand_range(p->output_zero_point, 127);
      break; /* a ReLU6 */
    default:
      p->output_min = test_rand_range(-128, 127), p->output_max = test_rand_range(p->output_min, 127);
      break;
  }
  q8nn_guard_params(p, rounding, 1, &m, &shift);
}

static void test_boundaries(void** state) {
  (void) state;
  test_seed();
  struct counts c = {0, 0, 0};
  for (int rounding = 0; rounding < 2; rounding++) {
    for (int i = 0; i < 40000; i++) {
      const int32_t m = draw_multiplier();
      /* mostly the rule's [-14, 0]; sometimes outside it (left shifts, tiny scales) */
      const uint32_t where = test_rand() % 16;
      const int32_t shift = where == 0 ? test_rand_range(-31, -15) : where == 1 ? test_rand_range(1, 30)
                                                                                : test_rand_range(-14, 0);
      struct q8nn_qs8_conv_params p;
      draw_params(rounding, &p, m, shift);
      if (p.guard == 0) {
        /* a lone ineligible channel turns the guard off; its lanes must still be flagged */
        p.guard = 1, p.guard_c0 = 256.5f - (float) (p.output_min - p.output_zero_point) + 0x1p-14f;
      }
      if (m == 0 || shift > 0) {
        for (int k = 0; k < 16; k++) check((int32_t) test_rand(), m, shift, rounding, &p, &c);
        continue;
      }
      /* boundaries to outputs around the clamp range, and a few anywhere */
      for (int t = 0; t < 4; t++) {
        const int32_t target = t < 3 ? test_rand_range(p.output_min - 2, p.output_max + 2) - p.output_zero_point
                                     : test_rand_range(-100000, 100000);
        const int64_t b = boundary(m, shift, rounding, target);
        for (int64_t d = -3; d <= 3; d++) {
          const int64_t acc = b + d;
          if (acc >= INT32_MIN && acc <= INT32_MAX) check((int32_t) acc, m, shift, rounding, &p, &c);
        }
      }
      /* anywhere, and the ends of int32 */
      check((int32_t) test_rand(), m, shift, rounding, &p, &c);
      check(INT32_MIN + (int32_t) (test_rand() % 4), m, shift, rounding, &p, &c);
      check(INT32_MAX - (int32_t) (test_rand() % 4), m, shift, rounding, &p, &c);
      check(0, m, shift, rounding, &p, &c);
    }
  }
  fprintf(stderr, "guard: %ld accumulators, %ld flagged (the boundary cases)\n", c.checked, c.flagged);
  assert_int_equal(c.wrong, 0);
}

/* Accumulators spread over the unclamped range of realistic channels: the share flagged. */
static void test_flag_rate(void** state) {
  (void) state;
  test_seed();
  struct counts c = {0, 0, 0};
  for (int i = 0; i < 2000; i++) {
    const int32_t m = (int32_t) ((UINT32_C(1) << 30) | (test_rand() & ((UINT32_C(1) << 30) - 1)));
    const int32_t shift = test_rand_range(-12, -4);
    struct q8nn_qs8_conv_params p;
    draw_params(0, &p, m, shift);
    p.output_min = -128, p.output_max = 127;
    q8nn_guard_params(&p, 0, 1, &m, &shift);
    /* v = acc * m 2^(shift - 31) within +-128 output units */
    const double per_unit = ldexp(2147483648.0 / (double) m, -shift);
    for (int k = 0; k < 500; k++) {
      const int32_t acc = (int32_t) ((test_rand_float(-128.0f, 128.0f)) * per_unit);
      check(acc, m, shift, 0, &p, &c);
    }
  }
  fprintf(stderr, "guard: %ld of %ld accumulators flagged (%.2e; the window is 2^-13 = %.2e)\n", c.flagged, c.checked,
          (double) c.flagged / (double) c.checked, 1.0 / 8192);
  assert_int_equal(c.wrong, 0);
  assert_true(c.flagged * 1024 < c.checked);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_boundaries),
      cmocka_unit_test(test_flag_rate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
