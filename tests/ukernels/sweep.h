/* Sweep helpers shared by the microkernel tests: parameter regimes and the cmocka plumbing that
   turns every kernel list line into one named test (a missing ISA is a skip, never a pass). */
#ifndef Q8NN_TESTS_UKERNEL_SWEEP_H
#define Q8NN_TESTS_UKERNEL_SWEEP_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "q8nn.h"
#include "testers/test-util.h"

/* Shift range for a regime, given the rough accumulator magnitude of the case. */
static inline void sweep_shift_range(int regime, double terms, int* lo, int* hi) {
  /* accumulators ~ 128 * 64 * sqrt(terms); aim outputs at ~2^6 */
  const int center = 6 - (int) ceil(log2(8192.0 * sqrt(terms > 1 ? terms : 1)));
  switch (regime % 4) {
    case 0: *lo = center - 2, *hi = center + 2; break;      /* realistic */
    case 1: *lo = -31, *hi = -26; break;                    /* tiny scales */
    case 2: *lo = center + 3, *hi = 30; break;              /* large scales, left shifts, saturation */
    default: *lo = -31, *hi = 30; break;                    /* anything legal */
  }
  if (*lo < -31) *lo = -31;
  if (*hi > 30) *hi = 30;
  if (*lo > *hi) *lo = *hi;
}

/* Zero points at -128 / 0 / 127 and random in between. */
static inline int32_t sweep_zero_point(size_t i) {
  static const int32_t fixed[3] = {-128, 0, 127};
  return i % 4 < 3 ? fixed[i % 4] : test_rand_range(-128, 127);
}

/* Clamp: full range, narrow random, a single value, ReLU6-like. */
static inline void sweep_clamp(size_t i, int32_t zp, int32_t* vmin, int32_t* vmax) {
  switch (i % 4) {
    case 0: *vmin = -128, *vmax = 127; break;
    case 1: *vmin = test_rand_range(-128, 0), *vmax = test_rand_range(0, 127); break;
    case 2: *vmin = *vmax = test_rand_range(-128, 127); break;
    default: *vmin = zp, *vmax = zp + 60 > 127 ? 127 : zp + 60; break;
  }
}

/* Skips the running cmocka test when the entry's ISA is missing on this CPU. */
#define SWEEP_REQUIRE_ISA(isa, name)                                                \
  do {                                                                              \
    if (!test_isa_available(isa)) {                                                 \
      print_message("[  SKIP    ] %s: ISA not available on this CPU\n", name);      \
      skip();                                                                       \
    }                                                                               \
  } while (0)

static inline int sweep_setup(void** state) {
  (void) state;
  return q8nn_initialize() == q8nn_status_success ? 0 : -1;
}

#endif
