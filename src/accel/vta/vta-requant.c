/* 16-bit-multiplier requantization for VTA: parameter derivation and host oracles (see the
   header for the formulas and the overflow argument, docs/vta-backend.md for the precision). */
#include <math.h>

#include "accel/vta/vta-requant.h"

/* TFLite multiplier in [2^30, 2^31) -> 15-bit multiplier m in [2^14, 2^15) and the change of
   exponent: multiplier * 2^(e - 31) == m * 2^(e + *bump - 15) up to rounding (half away). */
static int32_t to_q15(int32_t multiplier, int32_t* bump) {
  int64_t m = ((int64_t) multiplier + (INT64_C(1) << 15)) >> 16;
  *bump = 0;
  if (m >= (INT64_C(1) << 15)) {
    m >>= 1;
    *bump = 1;
  }
  return (int32_t) m;
}

/* Smallest b with x < 2^b (x >= 0). */
static int32_t bits_of(int64_t x) {
  int32_t b = 0;
  while (b < 63 && x >= (INT64_C(1) << b)) b++;
  return b;
}

static int32_t half_of(int32_t shift) { return shift > 0 ? (int32_t) (INT64_C(1) << (shift - 1)) : 0; }

static int32_t clamp32(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Arithmetic right shift of a signed value (implementation-defined in C for negatives, so spelled out). */
static int32_t asr(int32_t x, int32_t s) {
  return x >= 0 ? (int32_t) ((uint32_t) x >> s) : (int32_t) ~(~(uint32_t) x >> s);
}

/* The requantization without the output clamp, for t already inside [lo, hi]. */
static int32_t unclamped(const struct q8nn_vta_conv_requant* r, int32_t t) {
  return asr(asr(t, r->s1) * r->m + r->r2, r->s2);
}

/* Narrows [lo, hi] so that unclamped() lands in [out_min, out_max] without the output clamp, when
   that is exact: f is monotone, so clamping t at the first t with f(t) >= out_min gives out_min
   exactly if f takes that value there (it may jump over it when the scale exceeds 1). */
static void fold_output_clamp(struct q8nn_vta_conv_requant* r, int32_t out_min, int32_t out_max) {
  r->final_clamp = 1;
  if (unclamped(r, r->hi) < out_min || unclamped(r, r->lo) > out_max) return;
  int64_t a = r->lo, b = r->hi; /* smallest t with f(t) >= out_min */
  while (a < b) {
    const int64_t mid = a + (b - a) / 2;
    if (unclamped(r, (int32_t) mid) >= out_min) b = mid; else a = mid + 1;
  }
  const int32_t t_lo = (int32_t) a;
  a = r->lo, b = r->hi; /* largest t with f(t) <= out_max */
  while (a < b) {
    const int64_t mid = a + (b - a + 1) / 2;
    if (unclamped(r, (int32_t) mid) <= out_max) a = mid; else b = mid - 1;
  }
  const int32_t t_hi = (int32_t) a;
  if ((t_lo > r->lo && unclamped(r, t_lo) != out_min) || (t_hi < r->hi && unclamped(r, t_hi) != out_max)) return;
  r->lo = t_lo;
  r->hi = t_hi;
  r->final_clamp = 0;
}

bool q8nn_vta_conv_requant_derive(int32_t multiplier, int32_t shift, int64_t bias_prime, int64_t sum_abs_w,
                                  int32_t zero_point, int32_t out_min, int32_t out_max,
                                  struct q8nn_vta_conv_requant* out) {
  const int64_t bound = 128 * sum_abs_w + (bias_prime < 0 ? -bias_prime : bias_prime);
  /* r1 <= 2^15 (s1 <= 16), so |acc + bias' + r1| <= bound + 2^15 < 2^31. */
  if (sum_abs_w < 0 || bound >= (INT64_C(1) << 31) - (INT64_C(1) << 16)) return false;
  if (multiplier == 0) {
    /* Real scale 0: p = 0 whatever v is. */
    *out = (struct q8nn_vta_conv_requant){(int32_t) bias_prime, -(1 << 30), 1 << 30, 0, 0, zero_point, 0,
                                          out_min, out_max, 1};
    return true;
  }
  if (multiplier < (1 << 30) || shift < -31 || shift > 30) return false;
  /* TFLite's own int32 arithmetic must not overflow for any accumulator in [-B, B]: where it does
     (|acc| * multiplier * 2^shift / 2^31 near 2^31, or, in double rounding, acc * 2^shift beyond
     int32 before the high multiply), its compiled reference wraps and the CPU path reproduces the
     wrap, which saturating VTA arithmetic cannot; such channels stay on the CPU. The margin covers
     the rounding nudge and the zero point. */
  const double scaled_bound = (double) bound * (double) multiplier * ldexp(1.0, shift - 31);
  if (scaled_bound >= 2147483648.0 - 512.0) return false;
  if (shift > 0 && bound * (INT64_C(1) << shift) >= (INT64_C(1) << 31)) return false;
  int32_t bump;
  int32_t m = to_q15(multiplier, &bump);
  const int32_t total = 15 - shift - bump; /* real ~= m * 2^-total */
  /* L: accumulators of magnitude >= L give |q| >= 512 and saturate the int8 output whatever the
     zero point, so clamping to +-L first changes nothing and keeps v small. L <= B: when no
     accumulator reaches L_target the clamp is a no-op and L = B keeps the most precision. */
  int64_t limit = bound > 0 ? bound : 1;
  if (total < 40) {
    const double scale = total >= 0 ? (double) (INT64_C(1) << total) : 1.0 / (double) (INT64_C(1) << -total);
    const double l = 512.0 * scale / (double) m;
    if (l < (double) limit) limit = (int64_t) l + 1;
  }
  int32_t s1 = bits_of(limit) - 15;
  if (s1 < 0) s1 = 0;
  int32_t s2 = total - s1;
  if (s2 > 21) {
    /* s2 <= 21 lets r2 carry the output zero point: |zp * 2^s2| <= 2^28. */
    s1 = total - 21;
    s2 = 21;
  }
  if (s2 < 0) {
    /* Scale >= 2^(15 - s1): give up multiplier precision instead of shifting left. */
    const int32_t d = -s2;
    if (d > 15) return false;
    m = (int32_t) (((int64_t) m + half_of(d)) >> d);
    s2 = 0;
    if (m == 0) return false;
  }
  const int32_t r1 = half_of(s1);
  out->c_bias = (int32_t) (bias_prime + r1);
  out->lo = (int32_t) (r1 - limit);
  out->hi = (int32_t) (r1 + limit);
  out->s1 = s1;
  out->m = m;
  out->r2 = half_of(s2) + (int32_t) ((uint32_t) zero_point << s2);
  out->s2 = s2;
  out->out_min = out_min;
  out->out_max = out_max;
  fold_output_clamp(out, out_min, out_max);
  return true;
}

int8_t q8nn_vta_conv_requant_apply(const struct q8nn_vta_conv_requant* r, int32_t acc) {
  int32_t t = (int32_t) ((uint32_t) acc + (uint32_t) r->c_bias);
  t = clamp32(t, r->lo, r->hi);
  const int32_t v = asr(t, r->s1);
  const int32_t p = v * r->m;
  const int32_t q = asr(p + r->r2, r->s2);
  return (int8_t) clamp32(q, r->out_min, r->out_max);
}

bool q8nn_vta_add_requant_derive(int32_t a_zero_point, int32_t a_multiplier, int32_t a_shift, int32_t b_zero_point,
                                 int32_t b_multiplier, int32_t b_shift, int32_t output_multiplier,
                                 int32_t output_shift, int32_t left_shift, int32_t output_zero_point,
                                 int32_t output_min, int32_t output_max, struct q8nn_vta_add_requant* out) {
  if (a_multiplier < (1 << 30) || b_multiplier < (1 << 30) || output_multiplier < (1 << 30)) return false;
  if (left_shift < 0 || left_shift > 31 || a_shift < -40 || b_shift < -40 || output_shift < -40 ||
      a_shift > 31 || b_shift > 31 || output_shift > 31) {
    return false;
  }
  int32_t bump_a, bump_b, bump_o;
  const int32_t ma = to_q15(a_multiplier, &bump_a);
  const int32_t mb = to_q15(b_multiplier, &bump_b);
  const int32_t mo = to_q15(output_multiplier, &bump_o);
  const int32_t ea = a_shift + bump_a, eb = b_shift + bump_b, eo = output_shift + bump_o;
  /* g = real_out * 2^left_shift in [2^(eo+L-1), 2^(eo+L)); T fraction bits for A and B so that
     the clamp at 32767 stays >= 512 output LSBs and the rounding of A, B costs <= 2^-5 LSB. */
  int32_t t = 5 + eo + left_shift;
  if (t < 0) t = 0;
  if (t > 22) t = 22;
  const int32_t sa = 15 - ea - t, sb = 15 - eb - t, so = 15 - eo - left_shift + t;
  if (sa < 0 || sa > 30 || sb < 0 || sb > 30 || so < 0 || so > 30) return false;
  out->ma = ma;
  out->mb = mb;
  out->mo = mo;
  out->sa = sa;
  out->sb = sb;
  out->so = so;
  out->ca = -a_zero_point * ma + half_of(sa);
  out->cb = -b_zero_point * mb + half_of(sb);
  out->ro = half_of(so);
  out->lim = 32767;
  out->zo = output_zero_point;
  out->out_min = output_min;
  out->out_max = output_max;
  return true;
}

int8_t q8nn_vta_add_requant_apply(const struct q8nn_vta_add_requant* r, int8_t a, int8_t b) {
  const int32_t x = asr((int32_t) a * r->ma + r->ca, r->sa);
  const int32_t y = asr((int32_t) b * r->mb + r->cb, r->sb);
  const int32_t s = clamp32(x + y, -r->lim, r->lim);
  const int32_t q = asr(s * r->mo + r->ro, r->so);
  return (int8_t) clamp32(q + r->zo, r->out_min, r->out_max);
}
