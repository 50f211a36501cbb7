#include <math.h>
#include <stdlib.h>
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

/* XNNPACK's and pytorch_qnnpack's add parameters in the xnn_ fields: shift = top - the binary
   exponent of the larger ratio (top 20: XNNPACK, 21: pytorch_qnnpack), multipliers lrintf(ratio *
   2^shift) (the scaling is exact, the rounding to nearest even), bias 2^(shift-1) - the zero
   points' terms (|multiplier * zero point| < 2^22 * 128: no overflow). */
static void add_params_from_ratios(float a_output_scale, float b_output_scale, int32_t a_zero_point,
                                   int32_t b_zero_point, int32_t top, struct q8nn_qs8_add_params* p) {
  const float max_scale = a_output_scale > b_output_scale ? a_output_scale : b_output_scale;
  uint32_t bits;
  memcpy(&bits, &max_scale, sizeof(bits));
  const int32_t exponent = (int32_t) (bits >> 23) - 127;
  const uint32_t shift = (uint32_t) (top - exponent);
  const int32_t a_multiplier = (int32_t) lrintf(ldexpf(a_output_scale, (int) shift));
  const int32_t b_multiplier = (int32_t) lrintf(ldexpf(b_output_scale, (int) shift));
  p->xnn_a_multiplier = a_multiplier;
  p->xnn_b_multiplier = b_multiplier;
  p->xnn_shift = shift;
  p->xnn_bias = (INT32_C(1) << (shift - 1)) - a_multiplier * a_zero_point - b_multiplier * b_zero_point;
}

void q8nn_xnn_add_params(float a_output_scale, float b_output_scale, int32_t a_zero_point, int32_t b_zero_point,
                         struct q8nn_qs8_add_params* p) {
  /* ratios in [2^-10, 2^8): the shift lands in [13, 30], the larger multiplier in [2^20, 2^21] */
  add_params_from_ratios(a_output_scale, b_output_scale, a_zero_point, b_zero_point, 20, p);
}

/* 1 when cand's affine form equals p's arithmetic on every input pair (ta, tb: TFLite's terms). */
static int affine_matches(const struct q8nn_qs8_add_params* cand, int xnnpack, const int32_t* ta,
                          const int32_t* tb) {
  for (int a = -128; a <= 127; a++) {
    for (int b = -128; b <= 127; b++) {
      const int8_t exact = xnnpack ? q8nn_add_xnn_scalar((int8_t) a, (int8_t) b, cand)
                                   : q8nn_add_output(ta[a + 128] + tb[b + 128], cand);
      if (q8nn_add_affine_scalar((int8_t) a, (int8_t) b, cand) != exact) return 0;
    }
  }
  return 1;
}

int q8nn_add_affine_params(struct q8nn_qs8_add_params* p, int xnnpack) {
  return q8nn_add_affine_params_forms(p, xnnpack, Q8NN_ADD_AFFINE_UNSIGNED | Q8NN_ADD_AFFINE_SIGNED);
}

int q8nn_add_affine_params_forms(struct q8nn_qs8_add_params* p, int xnnpack, int forms) {
  p->affine_valid = 0;
  p->affine_signed = 0;
  /* slopes of the output in a and in b */
  double slope_a, slope_b;
  if (xnnpack) {
    slope_a = ldexp((double) p->xnn_a_multiplier, -(int) p->xnn_shift);
    slope_b = ldexp((double) p->xnn_b_multiplier, -(int) p->xnn_shift);
  } else {
    const double out = ldexp((double) p->output_multiplier, p->output_shift - 31);
    slope_a = ldexp((double) p->a_multiplier, p->left_shift + p->a_shift - 31) * out;
    slope_b = ldexp((double) p->b_multiplier, p->left_shift + p->b_shift - 31) * out;
  }
  int32_t ta[256], tb[256];
  int terms = 0;
  for (int32_t k = 0; k <= 7; k++) {
    const double sa = ldexp(slope_a, k), sb = ldexp(slope_b, k);
    const double ra = nearbyint(sa), rb = nearbyint(sb);
    if (fabs(sa - ra) > 0x1.0p-20 || fabs(sb - rb) > 0x1.0p-20 || ra > 127.0 || rb > 127.0) continue;
    if (!xnnpack && !terms) {
      for (int x = -128; x <= 127; x++) {
        ta[x + 128] = q8nn_add_term((int8_t) x, p->a_zero_point, p->a_multiplier, p->a_shift, p->left_shift);
        tb[x + 128] = q8nn_add_term((int8_t) x, p->b_zero_point, p->b_multiplier, p->b_shift, p->left_shift);
      }
      terms = 1;
    }
    for (int32_t is_signed = 1; is_signed >= 0; is_signed--) {
      if (!(forms & (is_signed ? Q8NN_ADD_AFFINE_SIGNED : Q8NN_ADD_AFFINE_UNSIGNED))) continue;
      struct q8nn_qs8_add_params cand = *p;
      cand.affine_a = (int32_t) ra;
      cand.affine_b = (int32_t) rb;
      cand.affine_shift = k;
      cand.affine_signed = is_signed;
      /* round half up at 2^k: out = (2^k zp + slope_a 2^k (a - za) + slope_b 2^k (b - zb) + 2^(k-1)) >> k,
         with a and b taken + 128 in the unsigned form */
      const int32_t offset = is_signed ? 0 : 128;
      const int32_t center = p->output_zero_point * (INT32_C(1) << k) - cand.affine_a * (p->a_zero_point + offset) -
                             cand.affine_b * (p->b_zero_point + offset) + (k > 0 ? 1 << (k - 1) : 0);
      static const int32_t offsets[] = {0, -1, 1};
      for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
        cand.affine_bias = center + offsets[i];
        if (cand.affine_bias < INT16_MIN || cand.affine_bias > INT16_MAX) continue;
        if (affine_matches(&cand, xnnpack, ta, tb)) {
          p->affine_a = cand.affine_a, p->affine_b = cand.affine_b;
          p->affine_bias = cand.affine_bias, p->affine_shift = cand.affine_shift;
          p->affine_signed = cand.affine_signed;
          p->affine_valid = 1;
          return 1;
        }
      }
    }
  }
  return 0;
}

/* The int32 ranges of the xnn kernels' sums for coefficients A, B >= 0 and bias (a A + b B + bias,
   b B + bias and a A + b B, extremes at the corners) and of their output stage (|sum >> k| < 2^19). */
static int linear_ranges_fit(int64_t A, int64_t B, int64_t bias, int k) {
  const int64_t sum_max = 127 * (A + B) + bias, sum_min = -128 * (A + B) + bias;
  const int64_t part_max = 127 * B + bias, part_min = -128 * B + bias;
  if (sum_max >= (INT64_C(1) << 31) || sum_min < -(INT64_C(1) << 31) || part_max >= (INT64_C(1) << 31) ||
      part_min < -(INT64_C(1) << 31) || 128 * (A + B) >= (INT64_C(1) << 31)) {
    return 0;
  }
  return sum_max >> k < (INT64_C(1) << 19) && sum_min >> k >= -(INT64_C(1) << 19);
}

/* The guarded linear form of q8nn_add_linear_params (see ukernel.h, linear_guard): candidate (A, B,
   C, k), whose worst pair misses its output's interval by `miss`, with a guard of 2^(g-1) >= miss on
   each side of every multiple of 2^k. Checked on all 65536 pairs: each one outside the guard gives
   TFLite's output. Returns 1 and sets the xnn_ fields (bias C + 2^(g-1)) and linear_guard. */
static int linear_guard_try(struct q8nn_qs8_add_params* p, const int8_t* table, int64_t A, int64_t B, int64_t C,
                            int k, int64_t miss) {
  int g = 1;
  while ((INT64_C(1) << (g - 1)) < miss) g++;
  /* a guard of at most 2^-11 of the step: a lane falls in it about once in 2^10 */
  if (g > k - 10) return 0;
  const int64_t half = INT64_C(1) << (g - 1);
  const int64_t bias = C - (int64_t) p->output_zero_point * (INT64_C(1) << k) + half;
  if (!linear_ranges_fit(A, B, bias, k)) return 0;
  struct q8nn_qs8_add_params cand = *p;
  cand.xnn_a_multiplier = (int32_t) A;
  cand.xnn_b_multiplier = (int32_t) B;
  cand.xnn_bias = (int32_t) bias;
  cand.xnn_shift = (uint32_t) k;
  const uint32_t mask = (uint32_t) ((INT64_C(1) << k) - (INT64_C(1) << g));
  for (int a = -128; a <= 127; a++) {
    for (int b = -128; b <= 127; b++) {
      const uint32_t acc = (uint32_t) ((int32_t) a * cand.xnn_a_multiplier + (int32_t) b * cand.xnn_b_multiplier +
                                       cand.xnn_bias);
      if ((acc & mask) != 0 && q8nn_add_xnn_scalar((int8_t) a, (int8_t) b, &cand) != table[(a + 128) * 256 + (b + 128)]) {
        return 0;
      }
    }
  }
  p->xnn_a_multiplier = cand.xnn_a_multiplier;
  p->xnn_b_multiplier = cand.xnn_b_multiplier;
  p->xnn_bias = cand.xnn_bias;
  p->xnn_shift = cand.xnn_shift;
  p->linear_guard = mask;
  return 1;
}

int q8nn_add_linear_params(struct q8nn_qs8_add_params* p) {
  p->linear_valid = 0;
  p->linear_guard = 0;
  static const int32_t kMaxCoefficient = INT32_C(1) << 22;
  const double out = ldexp((double) p->output_multiplier, p->output_shift - 31);
  const double slope_a = ldexp((double) p->a_multiplier, p->left_shift + p->a_shift - 31) * out;
  const double slope_b = ldexp((double) p->b_multiplier, p->left_shift + p->b_shift - 31) * out;
  if (!(slope_a >= 0.0) || !(slope_b >= 0.0) || !(slope_a < 256.0) || !(slope_b < 256.0)) return 0;
  int32_t ta[256], tb[256];
  for (int x = -128; x <= 127; x++) {
    ta[x + 128] = q8nn_add_term((int8_t) x, p->a_zero_point, p->a_multiplier, p->a_shift, p->left_shift);
    tb[x + 128] = q8nn_add_term((int8_t) x, p->b_zero_point, p->b_multiplier, p->b_shift, p->left_shift);
  }
  /* the exact outputs, 64 KiB */
  int8_t* table = malloc(256 * 256);
  if (table == NULL) return 0;
  for (int a = 0; a < 256; a++) {
    for (int b = 0; b < 256; b++) table[a * 256 + b] = q8nn_add_output(ta[a] + tb[b], p);
  }
  const double slope_max = slope_a > slope_b ? slope_a : slope_b;
  /* the largest k whose coefficients stay below 2^22, then smaller ones (the sums' int32 range
     rejects the largest where zero points are far from 0) */
  int k_top = 30;
  while (k_top > 0 && ldexp(slope_max, k_top) >= (double) (kMaxCoefficient - 2)) k_top--;
  int found = 0;
  /* the candidate whose worst pair misses by the least, relative to 2^k, for the guarded form */
  int64_t near_A = 0, near_B = 0, near_C = 0, near_miss = 0;
  int near_k = 0;
  for (int k = k_top; k >= 1 && k >= k_top - 6 && !found; k--) {
    const int64_t ca = (int64_t) nearbyint(ldexp(slope_a, k)), cb = (int64_t) nearbyint(ldexp(slope_b, k));
    static const int deltas[] = {0, -1, 1, -2, 2};
    for (size_t ia = 0; ia < 5 && !found; ia++) {
      for (size_t ib = 0; ib < 5 && !found; ib++) {
        const int64_t A = ca + deltas[ia], B = cb + deltas[ib];
        if (A < 0 || B < 0 || A >= kMaxCoefficient || B >= kMaxCoefficient) continue;
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        /* past this gap no guard short enough for linear_guard_try covers the misses, or the
           candidate would miss by more than twice the nearest one so far: stop */
        int64_t gap_limit = k > 10 ? INT64_C(1) << (k - 10) : 0;
        if (near_k != 0 && ldexp((double) (4 * near_miss), k - near_k) < (double) gap_limit) {
          gap_limit = (int64_t) ldexp((double) (4 * near_miss), k - near_k);
        }
        for (int a = -128; a <= 127 && (lo <= hi || lo - hi <= gap_limit); a++) {
          for (int b = -128; b <= 127; b++) {
            const int64_t o = table[(a + 128) * 256 + (b + 128)], v = A * a + B * b;
            if (o > p->output_min && o * (INT64_C(1) << k) - v > lo) lo = o * (INT64_C(1) << k) - v;
            if (o < p->output_max && (o + 1) * (INT64_C(1) << k) - 1 - v < hi) hi = (o + 1) * (INT64_C(1) << k) - 1 - v;
          }
        }
        if (lo > hi) {
          /* C halfway: every pair's interval is missed by at most this */
          const int64_t miss = (lo - hi + 1) / 2 + 1;
          if (lo - hi <= gap_limit &&
              (near_k == 0 || ldexp((double) miss, -k) < ldexp((double) near_miss, -near_k))) {
            near_A = A, near_B = B, near_C = hi + (lo - hi) / 2, near_miss = miss, near_k = k;
          }
          continue;
        }
        /* C: the lower bound, or the upper one when every output is clamped low, or the zero
           point's term when every output is clamped (output_min = output_max) */
        const int64_t C = lo != INT64_MIN ? lo : hi != INT64_MAX ? hi : (int64_t) p->output_zero_point * (INT64_C(1) << k);
        const int64_t bias = C - (int64_t) p->output_zero_point * (INT64_C(1) << k);
        if (!linear_ranges_fit(A, B, bias, k)) continue;
        struct q8nn_qs8_add_params cand = *p;
        cand.xnn_a_multiplier = (int32_t) A;
        cand.xnn_b_multiplier = (int32_t) B;
        cand.xnn_bias = (int32_t) bias;
        cand.xnn_shift = (uint32_t) k;
        int ok = 1;
        for (int a = -128; a <= 127 && ok; a++) {
          for (int b = -128; b <= 127; b++) {
            if (q8nn_add_xnn_scalar((int8_t) a, (int8_t) b, &cand) != table[(a + 128) * 256 + (b + 128)]) {
              ok = 0;
              break;
            }
          }
        }
        if (ok) {
          p->xnn_a_multiplier = cand.xnn_a_multiplier;
          p->xnn_b_multiplier = cand.xnn_b_multiplier;
          p->xnn_bias = cand.xnn_bias;
          p->xnn_shift = cand.xnn_shift;
          p->linear_valid = 1;
          found = 1;
        }
      }
    }
  }
  if (!found && near_k != 0) linear_guard_try(p, table, near_A, near_B, near_C, near_k, near_miss);
  free(table);
  return found;
}

int q8nn_qnn_add_params(float a_output_scale, float b_output_scale, int32_t a_zero_point, int32_t b_zero_point,
                        struct q8nn_qs8_add_params* p) {
  add_params_from_ratios(a_output_scale, b_output_scale, a_zero_point, b_zero_point, 21, p);
  const uint32_t shift = p->xnn_shift;
  const int32_t a_multiplier = p->xnn_a_multiplier, b_multiplier = p->xnn_b_multiplier;
  /* ties (acc = pytorch_qnnpack's accumulator, exactly halfway between two outputs) of each sign */
  const uint32_t mask = (UINT32_C(1) << shift) - 1, half = UINT32_C(1) << (shift - 1);
  int negative = 0, positive = 0;
  for (int a = -128; a <= 127; a++) {
    for (int b = -128; b <= 127; b++) {
      const int32_t acc = a_multiplier * (a - a_zero_point) + b_multiplier * (b - b_zero_point);
      if (((uint32_t) acc & mask) == half) {
        if (acc < 0) negative = 1;
        else positive = 1;
      }
    }
  }
  /* the xnn kernels' int32 sums (and the scalar one's) must not overflow */
  if (!linear_ranges_fit(a_multiplier, b_multiplier, (int64_t) p->xnn_bias - 1, (int) shift) ||
      !linear_ranges_fit(a_multiplier, b_multiplier, p->xnn_bias, (int) shift)) {
    return 0;
  }
  if (negative && positive) return 0;
  if (negative) p->xnn_bias -= 1;
  return 1;
}

void q8nn_guard_params(struct q8nn_qs8_conv_params* p, int rounding, size_t channels, const int32_t* multiplier,
                       const int32_t* shift) {
  p->guard = 0;
  p->guard_c0 = 0.0f;
  if (rounding == q8nn_rounding_fp32 || channels == 0) return;
  size_t eligible = 0;
  for (size_t i = 0; i < channels; i++) eligible += (size_t) q8nn_guard_eligible(multiplier[i], shift[i]);
  if (2 * eligible < channels) return;
  const int32_t lo = p->output_min - p->output_zero_point; /* [-255, 255] */
  p->guard = rounding == q8nn_rounding_double && lo < 0 ? 2 : 1;
  p->guard_c0 = q8nn_guard_c0(p->output_min, p->output_zero_point);
}
