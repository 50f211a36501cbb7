/* 16-bit-multiplier requantization for VTA: parameter derivation and host oracles (see the
   header for the formulas and the overflow argument, docs/vta-backend.md for the precision). */
#include <math.h>

#include "accel/vta/vta-requant.h"
#include "requantization.h"

#include <stdlib.h>
#include <string.h>

/* TFLite multiplier M (in [2^30, 2^31)) and exponent e (real = M * 2^(e - 31)) as a bits-bit
   multiplier m with real ~= m * 2^(*e_out - bits) (round half up; m = 2^bits moves to the exponent). */
static int32_t multiplier_bits(int32_t multiplier, int32_t e, int bits, int32_t* e_out) {
  int64_t m = ((int64_t) multiplier + (INT64_C(1) << (30 - bits))) >> (31 - bits);
  *e_out = e;
  if (m >= (INT64_C(1) << bits)) m >>= 1, (*e_out)++;
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

/* TFLite's own int32 arithmetic must not overflow for any accumulator in [-B, B]: where it does
   (|acc| * multiplier * 2^shift / 2^31 near 2^31, or, in double rounding, acc * 2^shift beyond
   int32 before the high multiply), its compiled reference wraps and the CPU path reproduces the
   wrap, which VTA arithmetic (saturating, or exact only on a monotone range) cannot; such channels
   stay on the CPU. The margin covers the rounding nudge and the zero point. */
static bool tflite_may_wrap(int64_t bound, int32_t multiplier, int32_t shift) {
  const double scaled_bound = (double) bound * (double) multiplier * ldexp(1.0, shift - 31);
  if (scaled_bound >= 2147483648.0 - 512.0) return true;
  return shift > 0 && bound * (INT64_C(1) << shift) >= (INT64_C(1) << 31);
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
  if (tflite_may_wrap(bound, multiplier, shift)) return false;
  int32_t bump;
  int32_t m = multiplier_bits(multiplier, 0, 15, &bump); /* bump: the exponent's change, 0 or 1 */
  const int32_t total = 15 - shift - bump;                /* real ~= m * 2^-total */
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
  int32_t ea, eb, eo;
  const int32_t ma = multiplier_bits(a_multiplier, a_shift, 15, &ea);
  const int32_t mb = multiplier_bits(b_multiplier, b_shift, 15, &eb);
  const int32_t mo = multiplier_bits(output_multiplier, output_shift, 15, &eo);
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

/* ---- exact mode ----------------------------------------------------------------------------- */

static int32_t add32(int32_t a, int32_t b) { return (int32_t) ((uint32_t) a + (uint32_t) b); }
static int32_t mul32(int32_t a, int32_t b) { return (int32_t) ((uint32_t) a * (uint32_t) b); }
/* fsim SHR: b >= 0 arithmetic right, b < 0 left by -b (low 32 bits); |b| < 32 here. */
static int32_t shr32(int32_t a, int32_t b) { return b >= 0 ? asr(a, b) : (int32_t) ((uint32_t) a << -b); }

/* TFLite's value (before the zero point) of the int32 accumulator x. */
static int64_t tflite_value(int32_t x, int32_t multiplier, int32_t shift, int rounding) {
  return rounding ? q8nn_requantize_rsingle(x, multiplier, shift) : q8nn_requantize_rdouble(x, multiplier, shift);
}

/* On [from, to], where TFLite's value plus the zero point is non-decreasing in x (binary searches
   on TFLite's own function): the first x whose value is >= v (to + 1 when none), and the last x
   whose value is <= v (from - 1 when none). */
static int64_t first_at_least(int32_t multiplier, int32_t shift, int rounding, int32_t zero_point, int64_t from,
                              int64_t to, int64_t v) {
  int64_t lo = from, hi = to + 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (tflite_value((int32_t) mid, multiplier, shift, rounding) + zero_point >= v) hi = mid; else lo = mid + 1;
  }
  return lo;
}
static int64_t last_at_most(int32_t multiplier, int32_t shift, int rounding, int32_t zero_point, int64_t from,
                            int64_t to, int64_t v) {
  int64_t lo = from - 1, hi = to;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (tflite_value((int32_t) mid, multiplier, shift, rounding) + zero_point <= v) lo = mid; else hi = mid - 1;
  }
  return lo;
}

bool q8nn_vta_conv_exact_derive(int32_t multiplier, int32_t shift, int rounding, int64_t bias_prime,
                                int64_t sum_abs_w, int32_t zero_point, int32_t out_min, int32_t out_max,
                                struct q8nn_vta_conv_exact* out) {
  const int64_t bound = 128 * sum_abs_w + (bias_prime < 0 ? -bias_prime : bias_prime);
  if (sum_abs_w == 0 && bias_prime >= INT32_MIN && bias_prime <= INT32_MAX && shift >= -31 && shift <= 30 &&
      (multiplier == 0 || multiplier >= (1 << 30))) {
    /* All weights 0 (seen in real models with |bias| ~ 2^30): the accumulator is 0 and the output
       is the constant TFLite gives for x = bias' (its own int32 arithmetic, wrap included), so
       t = 0, all limbs 0 and X = hh = that byte; no bound on bias' is needed. */
    memset(out, 0, sizeof(*out));
    const int32_t v = (int32_t) ((uint32_t) (int32_t) tflite_value((int32_t) bias_prime, multiplier, shift, rounding) +
                                 (uint32_t) zero_point);
    out->half = 1 << 15;
    out->hh = clamp32(v, out_min, out_max);
    out->out_min = out_min;
    out->out_max = out_max;
    return true;
  }
  if (sum_abs_w < 0 || bound >= (INT64_C(1) << 31) - (INT64_C(1) << 16)) return false;
  memset(out, 0, sizeof(*out));
  out->c_bias = (int32_t) bias_prime;
  out->half = 1 << 15;
  out->out_min = out_min;
  out->out_max = out_max;
  if (multiplier == 0) {
    /* Real scale 0: TFLite gives 0 for every accumulator; t = 0, all limbs 0, X = hh = zp. */
    out->hh = zero_point;
    out->final_clamp = zero_point < out_min || zero_point > out_max;
    return true;
  }
  if (multiplier < (1 << 30) || shift < -31 || shift > 30) return false;
  if (tflite_may_wrap(bound, multiplier, shift)) return false;
  const int32_t ls = shift > 0 ? shift : 0, rs = shift < 0 ? -shift : 0;
  /* A left shift must not wrap in TFLite (x << ls is int32 there) for any reachable accumulator. */
  if (ls > 0 && (bound << ls) >= (INT64_C(1) << 30)) return false;
  /* The output is monotone in x = acc + bias' on [-B, B]: a = first x whose output reaches
     out_min, b = last x whose output stays <= out_max (binary searches on TFLite's own value). */
  const int64_t B = bound;
  const int64_t a = first_at_least(multiplier, shift, rounding, zero_point, -B, B, out_min); /* B + 1: none */
  const int64_t b = last_at_most(multiplier, shift, rounding, zero_point, -B, B, out_max);   /* -B - 1: none */
  int64_t lo, hi;
  if (a <= B && (a == -B || tflite_value((int32_t) a, multiplier, shift, rounding) + zero_point == out_min)) {
    lo = a;
  } else {
    lo = a - 1 > -B ? a - 1 : -B;
    out->final_clamp = 1;
  }
  if (b >= -B && (b == B || tflite_value((int32_t) b, multiplier, shift, rounding) + zero_point == out_max)) {
    hi = b;
  } else {
    hi = b + 1 < B ? b + 1 : B;
    out->final_clamp = 1;
  }
  if (lo > hi) return false; /* cannot happen (a - 1 <= b); kept as a guard */
  /* Narrower still where the ends are exact: every x up to the last one whose output is out_min
     gives out_min (G is monotone), and every x from the first one giving out_max gives out_max.
     With a fused ReLU this puts lo at or above 0, where the sign step is a no-op. */
  if (lo == a && tflite_value((int32_t) a, multiplier, shift, rounding) + zero_point == out_min) {
    lo = last_at_most(multiplier, shift, rounding, zero_point, lo, hi, out_min);
  }
  if (hi == b && tflite_value((int32_t) b, multiplier, shift, rounding) + zero_point == out_max) {
    hi = first_at_least(multiplier, shift, rounding, zero_point, lo, hi, out_max);
  }
  const int64_t t_max = ((lo < 0 ? -lo : lo) > (hi < 0 ? -hi : hi) ? (lo < 0 ? -lo : lo) : (hi < 0 ? -hi : hi)) << ls;
  /* |th| <= 2^14 needs |t| <= 2^30 - 2^15; keep a margin. */
  if (t_max >= (INT64_C(1) << 30) - (INT64_C(1) << 16)) return false;
  const int32_t c0f = (rounding == 0 || rs == 0) ? 1 : 0;
  const int64_t h = rs ? INT64_C(1) << (rs - 1) : 0;
  const int64_t hh = h + (int64_t) zero_point * (INT64_C(1) << rs);
  /* |Y| <= t_max + 1 (M < 2^31), |s| <= 1: X += hh must stay in int32. */
  if (t_max + 2 + (hh < 0 ? -hh : hh) >= (INT64_C(1) << 31)) return false;
  const int32_t ml = (int32_t) (int16_t) (uint16_t) ((uint32_t) multiplier & 0xFFFF);
  const int32_t mh = (int32_t) (((int64_t) multiplier - ml) >> 16);
  out->lo = (int32_t) lo;
  out->hi = (int32_t) hi;
  out->neg_ls = -ls;
  out->mh = mh;
  out->ml = ml;
  out->mh2 = 2 * mh;
  out->cm = c0f << 14;
  /* -[Y < 0] is 0 on the whole range when t >= lo >= 0 (then t*M + 2^30 >= 0): no sign step */
  out->sign = rounding == 0 && rs >= 1 && lo < 0;
  out->sg = out->sign;
  out->hh = (int32_t) hh;
  out->rs = rs;
  out->t_max = (int32_t) t_max;
  return true;
}

int8_t q8nn_vta_conv_exact_apply(const struct q8nn_vta_conv_exact* r, int32_t acc) {
  if (r->linear) return q8nn_vta_conv_linear_apply(&r->lin, acc);
  int32_t x = add32(acc, r->c_bias);
  x = clamp32(x, r->lo, r->hi);
  x = shr32(x, r->neg_ls);
  int32_t a = shr32(shr32(x, -16), 16);          /* tl */
  x = shr32(add32(x, r->half), 16);               /* th */
  int32_t b = a, c = x;
  b = r->no_low ? 0 : shr32(mul32(b, r->ml), 16); /* floor(tl*Ml / 2^16) */
  a = add32(mul32(a, r->mh), b);
  a = add32(a, mul32(c, r->ml));
  a = shr32(add32(a, r->cm), 15);
  x = add32(mul32(x, r->mh2), a);                 /* Y */
  const int32_t d = mul32(shr32(x, 31), r->sg);   /* -[Y < 0] or 0 */
  x = add32(x, d);
  x = shr32(add32(x, r->hh), r->rs);
  if (r->final_clamp) x = clamp32(x, r->out_min, r->out_max);
  return (int8_t) x;
}

/* ---- exact add ------------------------------------------------------------------------------ */

int32_t q8nn_vta_add_exact_input_apply(const struct q8nn_vta_add_exact_input* r, int8_t v) {
  const int32_t u = shr32(add32(mul32(v, r->ml), r->c1), r->k);
  int32_t p = add32(mul32(v, r->mh), u);
  if (r->sign) p = add32(p, shr32(add32(v, r->sign_imm), 8));
  return shr32(add32(p, r->c), r->e);
}

int8_t q8nn_vta_add_exact_apply(const struct q8nn_vta_add_exact* r, int8_t a, int8_t b) {
  if (r->is_short) return q8nn_vta_add_short_apply(&r->short_form, a, b);
  const int32_t s = add32(q8nn_vta_add_exact_input_apply(&r->in[0], a), q8nn_vta_add_exact_input_apply(&r->in[1], b));
  const int8_t o = q8nn_vta_conv_exact_apply(&r->out, s);
  return r->late_zp ? (int8_t) (o + r->zp) : o;
}

static bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

int8_t q8nn_vta_add_short_apply(const struct q8nn_vta_add_short* r, int8_t a, int8_t b) {
  const int32_t x = asr(add32(mul32(a, r->ma), r->ca), r->sa);
  const int32_t y = asr(add32(mul32(b, r->mb), r->cb), r->sb);
  const int32_t s = clamp32(add32(x, y), r->neg_lim, r->lim);
  const int32_t q = asr(add32(mul32(s, r->mo), r->ro), r->so);
  return (int8_t) clamp32(add32(q, r->zo), r->out_min, r->out_max);
}

/* One candidate of the short form: bits_in / bits_out multiplier bits, t fraction bits of A and
   B; true when its parameters fit and every input pair gives TFLite's byte with every
   intermediate inside int32. */
static bool add_short_try(const struct q8nn_qs8_add_params* p, int bits_in, int bits_out, int32_t t,
                          struct q8nn_vta_add_short* r) {
  int32_t ea, eb, eo;
  const int32_t ma = multiplier_bits(p->a_multiplier, p->a_shift, bits_in, &ea);
  const int32_t mb = multiplier_bits(p->b_multiplier, p->b_shift, bits_in, &eb);
  const int32_t mo = multiplier_bits(p->output_multiplier, p->output_shift, bits_out, &eo);
  const int32_t sa = bits_in - ea - t, sb = bits_in - eb - t, so = bits_out - eo - p->left_shift + t;
  if (sa < 1 || sa > 30 || sb < 1 || sb > 30 || so < 1 || so > 30) return false;
  r->ma = ma, r->mb = mb, r->mo = mo, r->sa = sa, r->sb = sb, r->so = so;
  const int64_t ca = -(int64_t) p->a_zero_point * ma + (INT64_C(1) << (sa - 1));
  const int64_t cb = -(int64_t) p->b_zero_point * mb + (INT64_C(1) << (sb - 1));
  const int64_t ro = INT64_C(1) << (so - 1);
  const int64_t lim = ((INT64_C(1) << 31) - 1 - ro) / mo;
  if (!fits32(ca) || !fits32(cb)) return false;
  r->ca = (int32_t) ca, r->cb = (int32_t) cb, r->ro = (int32_t) ro;
  r->lim = (int32_t) (lim < INT32_MAX / 2 ? lim : INT32_MAX / 2), r->neg_lim = -r->lim;
  r->zo = p->output_zero_point, r->out_min = p->output_min, r->out_max = p->output_max;
  int64_t za[256], zb[256];
  for (int32_t v = -128; v <= 127; v++) {
    const int64_t pa = (int64_t) v * ma + ca, pb = (int64_t) v * mb + cb;
    if (!fits32(pa) || !fits32(pb)) return false;
    za[v + 128] = pa >> sa, zb[v + 128] = pb >> sb;
  }
  for (int32_t a = -128; a <= 127; a++) {
    for (int32_t b = -128; b <= 127; b++) {
      int64_t s = za[a + 128] + zb[b + 128];
      if (!fits32(s)) return false;
      s = s < r->neg_lim ? r->neg_lim : s > r->lim ? r->lim : s;
      const int64_t q = ((s * mo + ro) >> so) + r->zo;
      const int64_t o = q < r->out_min ? r->out_min : q > r->out_max ? r->out_max : q;
      if (o != q8nn_add_scalar((int8_t) a, (int8_t) b, p)) return false;
    }
  }
  return true;
}

/* The short form: a few precisions and fraction-bit counts around the 16-bit mode's choice. */
static bool add_short_derive(const struct q8nn_qs8_add_params* p, struct q8nn_vta_add_short* r) {
  if (p->a_multiplier < (1 << 30) || p->b_multiplier < (1 << 30) || p->output_multiplier < (1 << 30) ||
      p->left_shift < 0 || p->left_shift > 23 || p->a_shift > 0 || p->b_shift > 0 || p->output_shift > 0 ||
      p->a_shift < -31 || p->b_shift < -31 || p->output_shift < -31) {
    return false;
  }
  static const int bits_in[3] = {15, 19, 22}, bits_out[3] = {15, 18, 21};
  for (int i = 0; i < 3; i++) {
    for (int o = 0; o < 3; o++) {
      const int32_t t0 = 5 + p->output_shift + p->left_shift + (bits_out[o] - 15);
      for (int32_t dt = 0; dt <= 6; dt += 2) {
        if (add_short_try(p, bits_in[i], bits_out[o], t0 + dt, r)) return true;
      }
    }
  }
  return false;
}

/* One operand's constants; every intermediate of the ALU steps checked in int64 on all 256
   inputs, and the result against TFLite's RDBPOT(SRDHM(x << L, M), e). */
static bool add_exact_input(int32_t zero_point, int32_t multiplier, int32_t shift, int32_t left_shift,
                            struct q8nn_vta_add_exact_input* r) {
  if (multiplier < 0 || shift > 0 || shift < -31 || zero_point < -128 || zero_point > 127) return false;
  const int32_t k = 31 - left_shift, e = -shift;
  const int64_t ml = multiplier & ((INT64_C(1) << k) - 1), mh = multiplier >> k;
  const int64_t h = e > 0 ? INT64_C(1) << (e - 1) : 0;
  const int64_t c1 = (INT64_C(1) << (k - 1)) - zero_point * ml;
  const int64_t c = h - zero_point * mh - (e > 0 ? 1 : 0);
  if (!fits32(c1) || !fits32(c)) return false;
  r->ml = (int32_t) ml, r->mh = (int32_t) mh, r->c1 = (int32_t) c1, r->c = (int32_t) c;
  r->k = k, r->e = e, r->sign = e > 0, r->sign_imm = 256 - zero_point;
  r->low = ml != 0; /* Ml = 0: c1 = 2^(k-1), so U = 0 for every input */
  r->z_max = 0;
  for (int32_t v = -128; v <= 127; v++) {
    const int64_t u0 = v * ml, u1 = u0 + c1, u = u1 >> k; /* >> of negatives: arithmetic (GCC/Clang) */
    const int64_t p0 = v * mh, p1 = p0 + u, w = r->sign ? (v + 256 - zero_point) >> 8 : 0, p2 = p1 + w, p3 = p2 + c;
    if (!fits32(u0) || !fits32(u1) || !fits32(p0) || !fits32(p1) || !fits32(p2) || !fits32(p3)) return false;
    const int32_t x = v - zero_point;
    const int32_t tflite = q8nn_rdbpot(q8nn_srdhm((int32_t) ((uint32_t) x << left_shift), multiplier), e);
    const int32_t z = q8nn_vta_add_exact_input_apply(r, (int8_t) v);
    if (z != tflite || (int64_t) z != p3 >> e) return false;
    if ((z < 0 ? -z : z) > r->z_max) r->z_max = z < 0 ? -z : z;
  }
  return true;
}

/* The exact add's oracle equals TFLite's AddElementwise on all 65536 input pairs. */
static bool add_exact_all_pairs(const struct q8nn_vta_add_exact* r, const struct q8nn_qs8_add_params* p) {
  for (int32_t i = 0; i < 65536; i++) {
    const int8_t a = (int8_t) ((i >> 8) - 128), b = (int8_t) ((i & 255) - 128);
    if (q8nn_vta_add_exact_apply(r, a, b) != q8nn_add_scalar(a, b, p)) return false;
  }
  return true;
}

bool q8nn_vta_add_exact_derive(int32_t a_zero_point, int32_t a_multiplier, int32_t a_shift, int32_t b_zero_point,
                               int32_t b_multiplier, int32_t b_shift, int32_t output_multiplier,
                               int32_t output_shift, int32_t left_shift, int32_t output_zero_point,
                               int32_t output_min, int32_t output_max, bool limbs_only,
                               struct q8nn_vta_add_exact* out) {
  memset(out, 0, sizeof(*out));
  const struct q8nn_qs8_add_params tp = {.a_zero_point = a_zero_point, .b_zero_point = b_zero_point,
                                         .a_multiplier = a_multiplier, .a_shift = a_shift,
                                         .b_multiplier = b_multiplier, .b_shift = b_shift,
                                         .output_multiplier = output_multiplier, .output_shift = output_shift,
                                         .left_shift = left_shift, .output_zero_point = output_zero_point,
                                         .output_min = output_min, .output_max = output_max};
  if (!limbs_only && add_short_derive(&tp, &out->short_form)) {
    out->is_short = 1;
    return true;
  }
  /* k = 31 - L in [8, 22]: |x*Ml| < 255*2^22 < 2^30; L <= 23 keeps TFLite's x << L in int32 */
  if (left_shift < 9 || left_shift > 23 || output_shift > 0) return false;
  if (!add_exact_input(a_zero_point, a_multiplier, a_shift, left_shift, &out->in[0]) ||
      !add_exact_input(b_zero_point, b_multiplier, b_shift, left_shift, &out->in[1])) {
    return false;
  }
  /* |S| <= z_max(a) + z_max(b) = 128 * sum_abs with sum_abs rounded up: the conv derivation's bound */
  const int64_t bound = (int64_t) out->in[0].z_max + out->in[1].z_max;
  const int64_t sum_abs = (bound + 127) / 128;
  if (!q8nn_vta_conv_exact_derive(output_multiplier, output_shift, 0, 0, sum_abs, output_zero_point, output_min,
                                  output_max, &out->out)) {
    /* clamp(v + zp, min, max) = clamp(v, min - zp, max - zp) + zp; v + zp stays within [-128, 127] */
    out->late_zp = 1;
    out->zp = output_zero_point;
    if (!q8nn_vta_conv_exact_derive(output_multiplier, output_shift, 0, 0, sum_abs, 0,
                                    output_min - output_zero_point, output_max - output_zero_point, &out->out)) {
      return false;
    }
  }
  /* Steps left out where the add still gives TFLite's byte for all 65536 input pairs (each kept
     only if so, tried in turn): the output stage's tl*Ml term (4 steps, one region), which moves
     Y by less than 1/2; an operand's sign term W (3 steps, one load), with the -1 of c kept or
     not, which moves Z by 1 on ties of one sign. They matter only for sums within a unit of a
     rounding boundary, which the 65536 reachable sums often avoid. */
  out->out.no_low = 1;
  if (!add_exact_all_pairs(out, &tp)) out->out.no_low = 0;
  for (int i = 0; i < 2; i++) {
    struct q8nn_vta_add_exact_input* in = &out->in[i];
    if (!in->sign) continue;
    in->sign = 0;
    if (add_exact_all_pairs(out, &tp)) continue;
    in->c += 1;
    if (add_exact_all_pairs(out, &tp)) continue;
    in->c -= 1;
    in->sign = 1;
  }
  return true;
}

/* ---- exact, linear form (vta-requant.h; docs/vta-backend.md "Exact requantization, linear form") */

int8_t q8nn_vta_conv_linear_apply(const struct q8nn_vta_conv_linear* r, int32_t acc) {
  int32_t x = clamp32(add32(acc, r->c_bias), r->lo, r->hi);
  const int32_t d = r->sign ? mul32(shr32(add32(x, r->neg_t0), 31), r->dl) : 0;
  const int32_t m[Q8NN_VTA_LINEAR_MAX_LIMBS] = {r->m0, r->m1, r->m2, r->m3};
  const int n = r->limbs;
  if (n >= 2) {
    int32_t s = shr32(add32(mul32(x, m[0]), r->c0), r->w);
    for (int i = 1; i < n - 1; i++) s = shr32(add32(mul32(x, m[i]), s), r->w);
    x = add32(mul32(x, m[n - 1]), s);
  } else {
    x = add32(mul32(x, m[0]), r->c0);
  }
  x = shr32(add32(x, d), r->q);
  if (r->final_clamp) x = clamp32(x, r->out_min, r->out_max);
  return (int8_t) x;
}

#ifdef __SIZEOF_INT128__
typedef __int128 i128;

/* One run of G: G(x) = v for x in [first, last]. */
struct lin_run {
  int64_t first, last, v;
};

/* A channel's target: G on [lo, hi] as runs (split at x0, the first x of the piece whose sign
   term is 0, when both pieces are present), or a constant. */
struct lin_target {
  bool constant, final_clamp;
  int32_t value; /* the constant */
  int64_t lo, hi, x0, ctr, t_bound;
  bool split;
  double alpha;
  struct lin_run* runs;
  size_t count;
};

/* TFLite's value plus the zero point, unclamped (the reachable range is checked not to wrap). */
static int64_t g_of(const struct q8nn_vta_exact_channel* c, int64_t x) {
  return (int64_t) tflite_value((int32_t) x, c->multiplier, c->shift, c->rounding) + c->zero_point;
}

/* Last y in [x, limit] with G(y) == v, given G(x) == v: a gallop from x + guess - 1, then bisection. */
static int64_t run_end(const struct q8nn_vta_exact_channel* c, int64_t x, int64_t v, int64_t limit, int64_t guess) {
  int64_t lo = x, hi;
  int64_t p = x + (guess > 1 ? guess - 1 : 0);
  if (p > limit) p = limit;
  if (g_of(c, p) == v) {
    lo = p;
    for (int64_t step = 1;; step *= 2) {
      if (lo == limit) return limit;
      int64_t next = lo + step;
      if (next > limit) next = limit;
      if (g_of(c, next) != v) {
        hi = next;
        break;
      }
      lo = next;
    }
  } else {
    hi = p;
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (g_of(c, mid) == v) lo = mid; else hi = mid;
  }
  return lo;
}

static void constant_target(struct lin_target* t, int64_t v, int32_t out_min, int32_t out_max) {
  t->constant = true;
  t->value = (int32_t) (v < out_min ? out_min : v > out_max ? out_max : v);
}

static bool target_of(const struct q8nn_vta_exact_channel* c, struct lin_target* t) {
  memset(t, 0, sizeof(*t));
  const int32_t m = c->multiplier, shift = c->shift, omin = c->out_min, omax = c->out_max;
  if (c->sum_abs_w < 0 || shift < -31 || shift > 30 || (m != 0 && m < (1 << 30))) return false;
  if (m == 0) {
    constant_target(t, c->zero_point, omin, omax);
    return true;
  }
  if (c->sum_abs_w == 0) {
    if (!fits32(c->bias_prime)) return false;
    /* TFLite's int32 arithmetic, wrap included */
    const int32_t v = (int32_t) ((uint32_t) tflite_value((int32_t) c->bias_prime, m, shift, c->rounding) +
                                 (uint32_t) c->zero_point);
    constant_target(t, v, omin, omax);
    return true;
  }
  const int64_t span = 128 * c->sum_abs_w, xl = c->bias_prime - span, xh = c->bias_prime + span;
  if (!fits32(xl) || !fits32(xh)) return false;
  const int64_t amax = -xl > xh ? -xl : xh;
  if (tflite_may_wrap(amax, m, shift)) return false;
  if (shift > 0 && (amax << shift) >= (INT64_C(1) << 30)) return false;
  /* a = first x reaching out_min, b = last x not above out_max (G is monotone) */
  const int64_t a = first_at_least(m, shift, c->rounding, c->zero_point, xl, xh, omin);
  const int64_t b = last_at_most(m, shift, c->rounding, c->zero_point, xl, xh, omax);
  if (a > xh) {
    constant_target(t, omin, omin, omax);
    return true;
  }
  if (b < xl) {
    constant_target(t, omax, omin, omax);
    return true;
  }
  t->lo = a;
  if (a > xl && g_of(c, a) != omin) t->lo = a - 1, t->final_clamp = true;
  t->hi = b;
  if (b < xh && g_of(c, b) != omax) t->hi = b + 1, t->final_clamp = true;
  const int64_t g_lo = g_of(c, t->lo), g_hi = g_of(c, t->hi);
  if (g_lo == g_hi) {
    constant_target(t, g_lo, omin, omax);
    return true;
  }
  t->alpha = ldexp((double) m, shift - 31);
  /* double rounding with a right shift: -[Y < 0] enters the second rounding; Y < 0 iff x < x0 */
  t->x0 = m == (1 << 30) ? -1 : 0;
  t->split = c->rounding == 0 && shift < 0 && t->lo < t->x0 && t->x0 <= t->hi;
  const int64_t span_x = t->hi - t->lo + 1, span_g = g_hi - g_lo + 1;
  const size_t cap = (size_t) (span_x < span_g ? span_x : span_g) + 2;
  t->runs = malloc(cap * sizeof(*t->runs));
  if (t->runs == NULL) return false;
  const int64_t guess = t->alpha >= 1.0 ? 1 : (int64_t) (1.0 / t->alpha);
  for (int64_t x = t->lo; x <= t->hi;) {
    if (t->count == cap) return false; /* cannot happen: G is monotone */
    const int64_t v = g_of(c, x);
    const int64_t limit = t->split && x < t->x0 ? t->x0 - 1 : t->hi;
    const int64_t end = run_end(c, x, v, limit, guess);
    t->runs[t->count++] = (struct lin_run){x, end, v};
    x = end + 1;
  }
  /* ctr: where G crosses 0 (extrapolated when it does not on [lo, hi]), so that C is small */
  if (g_lo >= 0) {
    t->ctr = t->lo - (int64_t) floor((double) g_lo / t->alpha);
  } else if (g_hi < 0) {
    t->ctr = t->hi + (int64_t) ceil((double) -g_hi / t->alpha);
  } else {
    size_t k = 0;
    while (t->runs[k].v < 0) k++;
    t->ctr = t->runs[k].first;
  }
  const int64_t d_lo = t->ctr - t->lo, d_hi = t->hi - t->ctr;
  t->t_bound = (d_lo > d_hi ? d_lo : d_hi) + 2;
  return true;
}

static i128 floor_div(i128 a, i128 b) { /* b > 0 */
  const i128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

static i128 abs128(i128 v) { return v < 0 ? -v : v; }

/* The constants for multiplier mp and final shift q with n limbs of w bits; false when G's runs
   leave no constant or a bound fails. */
static bool solve_with(const struct q8nn_vta_exact_channel* c, const struct lin_target* t, int n, int w, int q,
                       int64_t mp, struct q8nn_vta_conv_linear* r) {
  const int P = (n - 1) * w + q;
  const i128 U = (i128) 1 << ((n - 1) * w);
  const i128 lim = ((i128) 1 << 126);
  i128 lp = -lim, up = lim, ln = -lim, un = lim;
  bool has_p = false, has_n = false;
  for (size_t k = 0; k < t->count; k++) {
    const struct lin_run* run = &t->runs[k];
    const i128 unit = (i128) 1 << P;
    const i128 lo_c = (i128) run->v * unit - (i128) (run->first - t->ctr) * mp;
    const i128 hi_c = (i128) (run->v + 1) * unit - 1 - (i128) (run->last - t->ctr) * mp;
    if (t->split && run->first < t->x0) {
      has_n = true;
      if (lo_c > ln) ln = lo_c;
      if (hi_c < un) un = hi_c;
    } else {
      has_p = true;
      if (lo_c > lp) lp = lo_c;
      if (hi_c < up) up = hi_c;
    }
  }
  i128 cl, cu, dl = 0;
  if (has_n && has_p) {
    /* C in [lp, up] and C - dl*U in [ln, un] */
    const i128 dlo = -floor_div(-(lp - un), U), dhi = floor_div(up - ln, U);
    if (dlo > dhi) return false;
    dl = dlo > 0 ? dlo : dhi < 0 ? dhi : 0;
    cl = lp > ln + dl * U ? lp : ln + dl * U;
    cu = up < un + dl * U ? up : un + dl * U;
  } else if (has_p) {
    cl = lp, cu = up;
  } else {
    cl = ln, cu = un;
  }
  if (cl > cu || abs128(dl) > INT32_MAX) return false;
  const i128 cc = cl > 0 ? cl : cu < 0 ? cu : 0;
  /* t -> t + e moves C by -e*mp: C2 in [-mp/2, mp/2] */
  const i128 e = floor_div(cc + mp / 2, mp);
  const i128 c2 = cc - e * mp;
  const i128 ctr = (i128) t->ctr - e;
  const i128 tlo = t->lo - ctr, thi = t->hi - ctr, t0 = t->x0 - ctr;
  const i128 tb = (i128) 1 << (n >= 2 ? 31 - w : 30);
  if (abs128(tlo) >= tb || abs128(thi) >= tb || (t->split && abs128(t0) >= ((i128) 1 << 30))) return false;
  const i128 c_bias = (i128) c->bias_prime - ctr;
  if (abs128(c_bias) + 128 * (i128) c->sum_abs_w >= ((i128) 1 << 31)) return false;
  if (abs128(c2) >= ((i128) 1 << (n >= 2 ? 30 : 31))) return false;
  /* limbs: signed low limbs of w bits, the rest on top */
  int32_t limb[Q8NN_VTA_LINEAR_MAX_LIMBS] = {0, 0, 0, 0};
  i128 rem = mp;
  for (int i = 0; i < n - 1; i++) {
    i128 low = rem & (((i128) 1 << w) - 1);
    if (low >= ((i128) 1 << (w - 1))) low -= (i128) 1 << w;
    limb[i] = (int32_t) low;
    rem = (rem - low) / ((i128) 1 << w); /* exact: rem - low is a multiple of 2^w */
  }
  if (abs128(rem) > INT32_MAX) return false;
  limb[n - 1] = (int32_t) rem;
  const i128 tmax = abs128(tlo) > abs128(thi) ? abs128(tlo) : abs128(thi);
  if (n >= 2) {
    /* the stages before the top one are shifted, so their values must be true int32 values */
    i128 v = tmax * abs128(limb[0]) + abs128(c2);
    if (v >= ((i128) 1 << 31)) return false;
    for (int i = 1; i < n - 1; i++) {
      v = tmax * abs128(limb[i]) + (v >> w) + 1;
      if (v >= ((i128) 1 << 31)) return false;
    }
  }
  /* the top stage's true value (its MUL and ADDs wrap): extremes at the ends and around t0 */
  const i128 pts[4] = {tlo, thi, t0 - 1, t0};
  for (int k = 0; k < (t->split ? 4 : 2); k++) {
    const i128 s = pts[k] * mp + c2 - ((t->split && pts[k] < t0) ? dl * U : 0);
    const i128 top = floor_div(s, U);
    if (top >= INT32_MAX || top <= INT32_MIN) return false;
  }
  r->c_bias = (int32_t) c_bias;
  r->lo = (int32_t) tlo;
  r->hi = (int32_t) thi;
  r->neg_t0 = t->split ? (int32_t) -t0 : 0;
  r->dl = (int32_t) dl;
  r->m0 = limb[0], r->m1 = limb[1], r->m2 = limb[2], r->m3 = limb[3];
  r->c0 = (int32_t) c2;
  r->q = q;
  return true;
}

static bool solve_channel(const struct q8nn_vta_exact_channel* c, const struct lin_target* t, int n, int w,
                          struct q8nn_vta_conv_linear* r) {
  memset(r, 0, sizeof(*r));
  if (t->constant) {
    /* t is clamped to the value and multiplied by 1 in the top limb */
    r->lo = r->hi = t->value;
    int32_t* limb[Q8NN_VTA_LINEAR_MAX_LIMBS] = {&r->m0, &r->m1, &r->m2, &r->m3};
    *limb[n - 1] = 1;
    return true;
  }
  const double cap = n >= 2 ? 1073741824.0 : 2147483520.0; /* mp <= 2^30 (n >= 2: |C2| <= 2^29) */
  int tried = 0;
  for (int q = 21; q >= 0 && tried < 4; q--) {
    const double ideal = ldexp(t->alpha, (n - 1) * w + q);
    if (ideal > cap - 16) continue;
    tried++;
    const int64_t base = llround(ideal);
    for (int k = 0; k <= 16; k++) {
      const int64_t mp = base + ((k & 1) ? (k + 1) / 2 : -(k / 2));
      if (mp <= 0 || mp > (int64_t) cap) continue;
      if (solve_with(c, t, n, w, q, mp, r)) return true;
    }
  }
  return false;
}

bool q8nn_vta_conv_linear_derive(const struct q8nn_vta_exact_channel* channels, size_t count,
                                 struct q8nn_vta_conv_linear* out) {
  struct lin_target* targets = calloc(count ? count : 1, sizeof(*targets));
  if (targets == NULL) return false;
  bool ok = true, final_clamp = false;
  int64_t tmax = 0;
  for (size_t i = 0; i < count && ok; i++) {
    ok = target_of(&channels[i], &targets[i]) && channels[i].out_min == channels[0].out_min &&
         channels[i].out_max == channels[0].out_max;
    if (ok && !targets[i].constant) {
      final_clamp |= targets[i].final_clamp;
      if (targets[i].t_bound > tmax) tmax = targets[i].t_bound;
    }
  }
  bool found = false;
  if (ok && tmax < (INT64_C(1) << 30)) {
    const int w = 31 - bits_of(tmax);
    for (int n = 1; n <= Q8NN_VTA_LINEAR_MAX_LIMBS && !found; n++) {
      if (n >= 2 && w < 2) break;
      found = true;
      bool sign = false;
      for (size_t i = 0; i < count && found; i++) {
        found = solve_channel(&channels[i], &targets[i], n, w, &out[i]);
        sign |= found && out[i].dl != 0;
      }
      for (size_t i = 0; i < count && found; i++) {
        out[i].limbs = n, out[i].w = n >= 2 ? w : 0, out[i].sign = sign, out[i].final_clamp = final_clamp;
        out[i].out_min = channels[i].out_min, out[i].out_max = channels[i].out_max;
      }
    }
  }
  for (size_t i = 0; i < count; i++) free(targets[i].runs);
  free(targets);
  return found;
}
#else
bool q8nn_vta_conv_linear_derive(const struct q8nn_vta_exact_channel* channels, size_t count,
                                 struct q8nn_vta_conv_linear* out) {
  (void) channels, (void) count, (void) out;
  return false; /* the derivation needs 128-bit integers; the limb form runs */
}
#endif
