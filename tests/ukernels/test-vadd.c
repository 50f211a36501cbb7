/* Every vadd kernel of the list (and its vaddc): lengths around the element tile, broadcast and
   in-place forms, zero points, clamps, left shifts up to 20 and input/output shifts over their
   whole legal range (TFLite arithmetic); scale ratios over XNNPACK's whole range (XNNPACK's). */
#include <stdlib.h>

#include "ukernels/sweep.h"
#include "ukernels/ukernel-tester.h"

static void test_vadd_entry(void** state) {
  const struct q8nn_vadd_entry* e = *state;
  SWEEP_REQUIRE_ISA(e->isa, e->name);
  const size_t tile = e->element_tile;
  const size_t lengths[] = {1, 2, tile - 1, tile, tile + 1, 2 * tile + 7, 8 * tile - 1, 1000};
  int failures = 0;
  size_t i = 0;
  for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
    if (lengths[l] == 0) continue;
    for (int variant = 0; variant < 12; variant++, i++) {
      struct vadd_tester t = {0};
      t.n = lengths[l];
      t.broadcast_b = variant % 3 == 1;
      t.in_place = variant % 3 == 2;
      t.a_zero_point = sweep_zero_point(i);
      t.b_zero_point = sweep_zero_point(i + 1);
      t.output_zero_point = sweep_zero_point(i + 2);
      sweep_clamp(i / 3, t.output_zero_point, &t.output_min, &t.output_max);
      t.left_shift = variant < 8 ? 20 : test_rand_range(0, 20);
      /* input shifts: TFLite's are <= -1 (ratios <= 1/2); sweep the whole legal [-31, 0] too */
      t.shift_lo = variant % 4 == 3 ? -31 : -8;
      t.shift_hi = variant % 4 == 3 ? 0 : -1;
      /* XNNPACK entries: ratios over the whole accepted [2^-10, 2^8), equal ones, powers of two (ties) */
      switch (variant % 4) {
        case 0: t.a_ratio = test_rand_float(0.25f, 2.0f), t.b_ratio = test_rand_float(0.25f, 2.0f); break;
        case 1: t.a_ratio = t.b_ratio = ldexpf(1.0f, test_rand_range(-10, 7)); break;
        case 2: t.a_ratio = ldexpf(1.0f, test_rand_range(-10, 7)), t.b_ratio = 0x1.fffffep+7f; break;
        default:
          t.a_ratio = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-10, 7));
          t.b_ratio = ldexpf(test_rand_float(1.0f, 2.0f), test_rand_range(-10, 7));
          break;
      }
      if (!(t.a_ratio < 0x1.0p+8f)) t.a_ratio = 0x1.fffffep+7f;
      if (!(t.b_ratio < 0x1.0p+8f)) t.b_ratio = 0x1.fffffep+7f;
      failures += vadd_tester_run(&t, e);
      if (failures > 10) fail_msg("%s: too many mismatches", e->name);
    }
  }
  if (failures != 0) fail_msg("%s: %d mismatches (seed %llu)", e->name, failures, (unsigned long long) test_seed());
}

int main(void) {
  test_seed();
  struct CMUnitTest* tests = calloc(q8nn_vadd_list_size, sizeof(struct CMUnitTest));
  for (size_t i = 0; i < q8nn_vadd_list_size; i++) {
    tests[i].name = q8nn_vadd_list[i].name;
    tests[i].test_func = test_vadd_entry;
    tests[i].initial_state = (void*) &q8nn_vadd_list[i];
  }
  const int result = _cmocka_run_group_tests("ukernel_vadd", tests, q8nn_vadd_list_size, sweep_setup, NULL);
  free(tests);
  return result;
}
