#include <math.h>

#include "requantization.h"

int q8nn_quantize_multiplier(double real, int32_t* multiplier, int32_t* shift) {
  if (!(real >= 0.0) || !isfinite(real)) return 0;
  if (real == 0.0) {
    *multiplier = 0;
    *shift = 0;
    return 1;
  }
  int exponent;
  const double q = frexp(real, &exponent); /* real = q * 2^exponent, q in [0.5, 1) */
  int64_t q_fixed = (int64_t) round(q * (double) (INT64_C(1) << 31));
  if (q_fixed == (INT64_C(1) << 31)) {
    q_fixed /= 2;
    exponent += 1;
  }
  if (exponent < -31) {
    /* TFLite flushes multipliers below 2^-32 to zero rather than shifting every bit out. */
    *multiplier = 0;
    *shift = 0;
    return 1;
  }
  if (exponent > 30) return 0;
  *multiplier = (int32_t) q_fixed;
  *shift = exponent;
  return 1;
}
