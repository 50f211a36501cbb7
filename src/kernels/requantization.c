#include <math.h>
#include <string.h>

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

void q8nn_xnn_add_params(float a_output_scale, float b_output_scale, int32_t a_zero_point, int32_t b_zero_point,
                         struct q8nn_qs8_add_params* p) {
  const float max_scale = a_output_scale > b_output_scale ? a_output_scale : b_output_scale;
  uint32_t bits;
  memcpy(&bits, &max_scale, sizeof(bits));
  /* biased exponent of a normal float in [2^-10, 2^8): the shift lands in [13, 30], and the larger
     multiplier in [2^20, 2^21] */
  const int32_t exponent = (int32_t) (bits >> 23) - 127;
  const uint32_t shift = (uint32_t) (20 - exponent);
  /* lrintf in XNNPACK: scaling by 2^shift is exact, the rounding is to nearest even */
  const int32_t a_multiplier = (int32_t) lrintf(ldexpf(a_output_scale, (int) shift));
  const int32_t b_multiplier = (int32_t) lrintf(ldexpf(b_output_scale, (int) shift));
  p->xnn_a_multiplier = a_multiplier;
  p->xnn_b_multiplier = b_multiplier;
  p->xnn_shift = shift;
  /* |multiplier * zero point| <= 2^22 * 128: no overflow */
  p->xnn_bias = (INT32_C(1) << (shift - 1)) - a_multiplier * a_zero_point - b_multiplier * b_zero_point;
}
