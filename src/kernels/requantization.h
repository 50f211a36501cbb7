/*
 * TFLite's integer requantization, scalar. The numerical specification every kernel matches:
 * gemmlowp's SaturatingRoundingDoublingHighMul and RoundingDivideByPOT (double rounding, TFLite's
 * default) and TFLite's TFLITE_SINGLE_ROUNDING MultiplyByQuantizedMultiplier.
 */
#ifndef Q8NN_KERNELS_REQUANTIZATION_H
#define Q8NN_KERNELS_REQUANTIZATION_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "ukernel.h"

/* round(a * b / 2^31) with ties rounded up (toward +inf: C division truncates the negative nudge
   1 - 2^30 toward zero); saturates the one overflowing case. */
static inline int32_t q8nn_srdhm(int32_t a, int32_t b) {
  if (Q8NN_UNLIKELY(a == b && a == INT32_MIN)) return INT32_MAX;
  const int64_t ab = (int64_t) a * (int64_t) b;
  const int64_t nudge = ab >= 0 ? INT64_C(1) << 30 : 1 - (INT64_C(1) << 30);
  /* C division truncates toward zero, as gemmlowp's does. */
  return (int32_t) ((ab + nudge) / (INT64_C(1) << 31));
}

/* x / 2^exponent rounded half away from zero; exponent in [0, 31]. */
static inline int32_t q8nn_rdbpot(int32_t x, int32_t exponent) {
  const int32_t mask = (int32_t) ((INT64_C(1) << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0);
  return (x >> exponent) + (remainder > threshold);
}

/* TFLite MultiplyByQuantizedMultiplier, double rounding. shift in [-31, 30], positive = left.
   TFLite computes x * (1 << left_shift) in int32; it is done here modulo 2^32 (what TFLite's
   compiled code does) without signed overflow. */
static inline int32_t q8nn_requantize_rdouble(int32_t acc, int32_t multiplier, int32_t shift) {
  const int32_t left_shift = shift > 0 ? shift : 0;
  const int32_t right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted = (int32_t) ((uint32_t) acc << left_shift);
  return q8nn_rdbpot(q8nn_srdhm(shifted, multiplier), right_shift);
}

/* TFLite MultiplyByQuantizedMultiplier, TFLITE_SINGLE_ROUNDING: (x * m + 2^(30-s)) >> (31 - s).
   The int64 product cannot overflow (|x * m| < 2^62). Where the result leaves int32 (TFLite only
   DCHECKs it) TFLite's static_cast keeps the low 32 bits; so does this. */
static inline int32_t q8nn_requantize_rsingle(int32_t acc, int32_t multiplier, int32_t shift) {
  const int32_t total_shift = 31 - shift; /* [1, 62] */
  const int64_t round = INT64_C(1) << (total_shift - 1);
  const int64_t result = ((int64_t) acc * (int64_t) multiplier + round) >> total_shift;
  return (int32_t) (uint32_t) (uint64_t) result;
}

/* TFLite adds the output zero point in int32 (`acc += output_offset`) before clamping: where that
   overflows, its compiled code wraps, and so does this (only reachable with multipliers so large
   that TFLite's own arithmetic overflows). */
static inline int8_t q8nn_output_clamp(int32_t value, int32_t zero_point, int32_t vmin, int32_t vmax) {
  int32_t out = (int32_t) ((uint32_t) value + (uint32_t) zero_point);
  if (out < vmin) out = vmin;
  if (out > vmax) out = vmax;
  return (int8_t) out;
}

/* TFLite's int8 add: one input's rescaled term, ((x - zp) << left_shift) rescaled. */
static inline int32_t q8nn_add_term(int8_t x, int32_t zero_point, int32_t multiplier, int32_t shift,
                                    int32_t left_shift) {
  const int32_t s = (int32_t) ((uint32_t) ((int32_t) x - zero_point) << left_shift);
  return q8nn_rdbpot(q8nn_srdhm(s, multiplier), -shift);
}

/* TFLite's int8 add: the output rescale of the sum of the two terms, zero point and clamp. */
static inline int8_t q8nn_add_output(int32_t sum, const struct q8nn_qs8_add_params* p) {
  const int32_t out = q8nn_rdbpot(q8nn_srdhm(sum, p->output_multiplier), -p->output_shift);
  return q8nn_output_clamp(out, p->output_zero_point, p->output_min, p->output_max);
}

/* TFLite's int8 add for one pair of elements. */
static inline int8_t q8nn_add_scalar(int8_t a, int8_t b, const struct q8nn_qs8_add_params* p) {
  const int32_t ra = q8nn_add_term(a, p->a_zero_point, p->a_multiplier, p->a_shift, p->left_shift);
  const int32_t rb = q8nn_add_term(b, p->b_zero_point, p->b_multiplier, p->b_shift, p->left_shift);
  /* |ra|, |rb| <= 255 * 2^20: the sum cannot overflow. */
  return q8nn_add_output(ra + rb, p);
}

/*
 * The guarded epilogue (docs/guarded-epilogue.md has the proof). TFLite's double rounding of
 * v = acc * m * 2^(shift - 31), shift <= 0, is one rounding with a sign-dependent offset,
 *     T = floor(v + 1/2 + sign(acc) 2^(shift - 1))   (shift < 0; floor(v + 1/2) when shift = 0)
 * and single rounding is floor(v + 1/2). The guarded form computes it in float with one fused
 * multiply-add into the binade [256, 512), where the float's low 15 bits are the fraction in units
 * of 2^-15:
 *     y = fma((float) acc, scale, C),  scale = (float) m * 2^(shift - 31),
 *     C = 256.5 - lo + 2^-14 + sign(acc) delta,  lo = output_min - output_zero_point
 * so that floor(y) - 256 = T - lo wherever y's fraction is at least 2^-13: its error is below
 * 2^-14 for every lane whose result is not clamped (|v| <= 256). A lane whose fraction is below
 * 2^-13 (4 units of 2^-15: bits 2-14 of y all zero) is flagged, and a kernel requantizes the
 * vector (or row) that holds it with the exact epilogue. The bits of y as an int32, shifted right
 * by 15, are 34560 + T - lo inside the binade and move monotonically outside it, so saturating
 * packs and one subtraction of 34560 give T - lo clamped at 0, and adding output_min (plus
 * output_flip) gives the byte.
 * Channel rule: shift in [-14, -1] and m >= 0, or m = 0 and shift 0. Below -14, delta = 2^(shift - 1)
 * is finer than the binade's 2^-15; at shift 0 the result reaches +-(2^31 - 1) and TFLite's
 * zero-point addition wraps in int32 (a left shift wraps before it); m = 0 (the padding lanes of a
 * block, and channels whose scale flushed to 0, which TFLite gives shift 0) makes y = C, T = 0,
 * unflagged. Any other channel is always flagged (window 0). Single rounding and layers
 * whose clamp removes every result below the zero point (lo >= 0) need no sign term (guard 1).
 */
#define Q8NN_GUARD_BASE 34560 /* the bits of 256.0f shifted right by 15 */
#define Q8NN_GUARD_WINDOW 0x7FFC
/* The scale the AVX-512 kernels give a channel outside the rule: a quiet NaN whose low 15 bits are
   zero. The FMA returns it (x86 passes a NaN operand through), so every lane of the channel is
   flagged by the one window constant, and no per-channel window is kept in a register. */
#define Q8NN_GUARD_NAN 0x7FC00000

static inline int q8nn_guard_eligible(int32_t multiplier, int32_t shift) {
  return shift >= -14 && multiplier >= 0 && (shift <= -1 || (shift == 0 && multiplier == 0));
}

/* C's part common to every channel, 256.5 - lo + 2^-14 with lo = output_min - output_zero_point in
   [-255, 255]: 256.5 - lo is in [1.5, 511.5] and 2^-14 a multiple of its ulp, so the sum is exact. */
static inline float q8nn_guard_c0(int32_t output_min, int32_t output_zero_point) {
  return 256.5f - (float) (output_min - output_zero_point) + 0x1p-14f;
}

/* The per-channel constants a kernel derives from the packed multiplier and shift. */
static inline float q8nn_guard_scale(int32_t multiplier, int32_t shift) {
  /* (float) m rounds to nearest even, as VCVTDQ2PS; the power-of-two scaling is exact */
  return ldexpf((float) multiplier, (int) shift - 31);
}
static inline float q8nn_guard_delta(int rounding, int32_t shift) {
  return rounding == q8nn_rounding_double && shift < 0 ? ldexpf(1.0f, (int) shift - 1) : 0.0f;
}

/* One accumulator through the guarded epilogue, exactly as the SIMD kernels compute it: the output
   byte (before output_flip), and *flagged = 1 where a kernel takes the exact epilogue instead (the
   byte returned is then meaningless). rounding: q8nn_rounding_double or _single. */
static inline int8_t q8nn_guard_requantize(int32_t acc, int32_t multiplier, int32_t shift, int rounding,
                                           const struct q8nn_qs8_conv_params* p, int* flagged) {
  const float delta = q8nn_guard_delta(rounding, shift);
  const float c = p->guard == 2 && acc < 0 ? p->guard_c0 - delta : p->guard_c0 + delta;
  const float y = fmaf((float) acc, q8nn_guard_scale(multiplier, shift), c);
  int32_t bits;
  memcpy(&bits, &y, sizeof(bits));
  const int32_t window = q8nn_guard_eligible(multiplier, shift) ? Q8NN_GUARD_WINDOW : 0;
  *flagged = (bits & window) == 0;
  int32_t u = bits >> 15; /* arithmetic (GCC/Clang), as VPSRAD */
  u = u < 0 ? 0 : u > 65535 ? 65535 : u;              /* VPACKUSDW */
  u = u < Q8NN_GUARD_BASE ? 0 : u - Q8NN_GUARD_BASE;  /* VPSUBUSW */
  u = u > 255 ? 255 : u;                              /* VPACKUSWB */
  const int32_t span = p->output_max - p->output_min;
  u = u > span ? span : u;                            /* VPMINUB */
  return (int8_t) (u + p->output_min);
}

/* Fills p's guard fields for an operator whose every channel has (multiplier[i], shift[i]) under
   `rounding`: guard 0 where the rounding is fp32 or fewer than half the channels are eligible
   (q8nn_guard_eligible; the others would take the exact epilogue anyway), else 1 or 2. */
Q8NN_INTERNAL void q8nn_guard_params(struct q8nn_qs8_conv_params* p, int rounding, size_t channels,
                                     const int32_t* multiplier, const int32_t* shift);

/* XNNPACK's fp32 requantization (its scalar "fmagic" epilogue; the SSE/AVX cvtps2dq and NEON
   vcvtn epilogues give the same bytes): scale the float accumulator, clamp in float to the
   integer bounds less the zero point, round to nearest even by adding 1.5 * 2^23 (exact for
   |x| <= 2^22; here |x| <= 255), add the zero point. (float) acc rounds to nearest even. */
static inline int8_t q8nn_requantize_fp32(int32_t acc, float scale, int32_t output_zero_point,
                                          int32_t output_min, int32_t output_max) {
  float x = (float) acc * scale;
  const float lo = (float) (output_min - output_zero_point);
  const float hi = (float) (output_max - output_zero_point);
  x = x < lo ? lo : x;
  x = x > hi ? hi : x;
  const float magic = 12582912.0f; /* 0x4B400000 */
  const float biased = x + magic;
  uint32_t bits;
  memcpy(&bits, &biased, sizeof(bits));
  return (int8_t) ((int32_t) bits - INT32_C(0x4B400000) + output_zero_point);
}

/* XNNPACK's qs8 add for one pair of elements (see struct q8nn_qs8_add_params). */
static inline int8_t q8nn_add_xnn_scalar(int8_t a, int8_t b, const struct q8nn_qs8_add_params* p) {
  /* |a * m| <= 2^28 and |bias| < 2^30: the int32 sum cannot overflow */
  const int32_t acc = (int32_t) a * p->xnn_a_multiplier + (int32_t) b * p->xnn_b_multiplier + p->xnn_bias;
  /* arithmetic shift (GCC/Clang define >> of negatives as arithmetic), as XNNPACK's asr */
  int32_t out = acc >> p->xnn_shift;
  const int32_t lo = p->output_min - p->output_zero_point, hi = p->output_max - p->output_zero_point;
  out = out < lo ? lo : out;
  out = out > hi ? hi : out;
  return (int8_t) (out + p->output_zero_point);
}

/* The affine form of an add (see struct q8nn_qs8_add_params) for one pair of elements. */
static inline int8_t q8nn_add_affine_scalar(int8_t a, int8_t b, const struct q8nn_qs8_add_params* p) {
  const int32_t offset = p->affine_signed ? 0 : 128;
  int32_t v = p->affine_a * ((int32_t) a + offset) + p->affine_b * ((int32_t) b + offset);
  v = v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v;
  v += p->affine_bias;
  v = v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v;
  v >>= p->affine_shift; /* arithmetic (GCC/Clang), as VPSRAW */
  v = v < INT8_MIN ? INT8_MIN : v > INT8_MAX ? INT8_MAX : v;
  v = v < p->output_min ? p->output_min : v;
  v = v > p->output_max ? p->output_max : v;
  return (int8_t) v;
}

/* Looks for the affine form of p's arithmetic (TFLite's, or XNNPACK's when xnnpack is nonzero):
   candidates from the exact slopes when they are multiples of 2^-7, each checked against
   q8nn_add_scalar / q8nn_add_xnn_scalar on all 65536 input pairs. Sets the affine_ fields of p
   (affine_valid 0 when none matches) and returns affine_valid. At most ~0.3 ms, and only when the
   slopes are such multiples (equal scales, power-of-two ratios); otherwise returns at once.
   For each shift the signed-data form (affine_signed 1) is tried before the other. */
Q8NN_INTERNAL int q8nn_add_affine_params(struct q8nn_qs8_add_params* p, int xnnpack);

/* Looks for coefficients of XNNPACK's add arithmetic (one int32 multiply-add per input, an
   arithmetic shift) that reproduce p's TFLite arithmetic on all 65536 input pairs, for adds
   without an affine form (unequal scales). TFLite's output is the rounding of a sum of two rounded
   rescaled terms; that is floor((A a + B b + C) / 2^k) for integers A, B, C exactly when the
   constraints out(a, b) 2^k <= A a + B b + C < (out(a, b) + 1) 2^k of every pair (one-sided where
   the output is clamped) leave a C: for each k with coefficients below 2^22, A and B are tried
   around the exact slopes times 2^k (+-2) and C is the largest lower bound. Found for 199 of 200
   random scale sets (ratios 0.1-2.5, random zero points); none exists where some sums fall exactly
   halfway between two outputs on both sides of 0 (simple scale ratios such as 10/9), since TFLite
   rounds those away from zero. Sets the xnn_ fields and linear_valid, then checks
   q8nn_add_xnn_scalar against q8nn_add_scalar on every pair (linear_valid 0 when anything fails).
   Where no candidate fits, the one whose worst pair misses its interval by the least (relative to
   2^k) becomes the guarded form (ukernel.h, linear_guard) if a guard of at most 2^(k-11) on each
   side of the rounding boundaries covers every pair it gets wrong, checked on all pairs: found for
   every scale set without a linear form seen so far (MLCommons' CIFAR-10 ResNet's first add, 3 of
   400 random sets, the 10/9 ratio), with 1 or 2 wrong pairs (330 at 10/9, zero points 0), all
   guarded. Exact ties cluster: at 10/9, 739 of the 65536 pairs fall in the guard.
   A candidate's scan stops once its misses are past what a guard could cover, or past four times
   the nearest candidate's. TFLite arithmetic only; at operator creation 0.3 ms on average over 400
   random scale sets, 7.9 ms at most (3.5 ms for the ResNet add; Intel host). */
Q8NN_INTERNAL int q8nn_add_linear_params(struct q8nn_qs8_add_params* p);

/* As q8nn_add_affine_params with only the forms in `forms` (bit 0: the +128 form, bit 1: the
   signed-data form); the tests use it to reach both. */
#define Q8NN_ADD_AFFINE_UNSIGNED 1
#define Q8NN_ADD_AFFINE_SIGNED 2
Q8NN_INTERNAL int q8nn_add_affine_params_forms(struct q8nn_qs8_add_params* p, int xnnpack, int forms);

/* TFLite QuantizeMultiplier on a double. Returns 0 when the multiplier does not fit
   (shift > 30, or a negative / non-finite input); tiny multipliers (shift < -31) flush to
   multiplier 0, shift 0 exactly as TFLite does. */
Q8NN_INTERNAL int q8nn_quantize_multiplier(double real, int32_t* multiplier, int32_t* shift);

/* XNNPACK's qs8 add parameters (xnn_init_qs8_add_minmax_*_params) from the two ratios
   input_scale / output_scale, each in [2^-10, 2^8). Fills the xnn_ fields of p. */
Q8NN_INTERNAL void q8nn_xnn_add_params(float a_output_scale, float b_output_scale, int32_t a_zero_point,
                                       int32_t b_zero_point, struct q8nn_qs8_add_params* p);

/*
 * pytorch_qnnpack's add (PyTorch's quint8 add on its qnnpack engine,
 * pytorch_qnnp_compute_add_quantization_params): e = binary exponent of max(ra, rb), k = 21 - e,
 * multipliers lrintf(r * 2^k) (exact scaling, ties to even), acc = ma (a - za) + mb (b - zb) and
 * out = clamp(RoundingDivideByPOT(acc, k)) + zp (ties away from zero). In the xnn_ fields that is
 * XNNPACK's form with bias 2^(k-1) - ma za - mb zb, except that a negative acc exactly halfway
 * rounds down: q8nn_add_qnn_scalar. Sets the xnn_ fields and returns 1 when XNNPACK's form itself
 * gives these bytes on all 65536 input pairs (no pair is a tie of one of the two signs; the bias
 * is then lowered by one where only negative ties occur), so the xnn kernels run it; 0: only
 * q8nn_add_qnn_scalar does. Ratios in [2^-14, 2^8) with k <= 30 (ratios >= 2^-9).
 */
Q8NN_INTERNAL int q8nn_qnn_add_params(float a_output_scale, float b_output_scale, int32_t a_zero_point,
                                      int32_t b_zero_point, struct q8nn_qs8_add_params* p);

/* pytorch_qnnpack's add for one pair, from the xnn_ fields q8nn_qnn_add_params set (bias unlowered). */
static inline int8_t q8nn_add_qnn_scalar(int8_t a, int8_t b, const struct q8nn_qs8_add_params* p) {
  const int64_t half = INT64_C(1) << (p->xnn_shift - 1);
  const int64_t acc = (int64_t) a * p->xnn_a_multiplier + (int64_t) b * p->xnn_b_multiplier + p->xnn_bias;
  /* acc - half is pytorch_qnnpack's accumulator; a negative one exactly halfway rounds down */
  int64_t r = (acc - (acc < half ? 1 : 0)) >> p->xnn_shift;
  r = r < -65536 ? -65536 : r > 65536 ? 65536 : r;
  int32_t out = (int32_t) r;
  const int32_t lo = p->output_min - p->output_zero_point, hi = p->output_max - p->output_zero_point;
  out = out < lo ? lo : out;
  out = out > hi ? hi : out;
  return (int8_t) (out + p->output_zero_point);
}

/* A pooling window's average before the clamp (ukernel.h, struct q8nn_pool_params): TFLite's
   rounded quotient of the sum (|sum| + count / 2 < 2^31), or pytorch_qnnpack's requantization (the
   float conversion and nearbyintf round to nearest, ties to even, as the vector kernels' VCVTPS2DQ,
   FCVTNS and vfcvt.x.f). The portable kernel's, and the vector kernels' single-channel path. */
static inline int32_t q8nn_pool_average(int32_t sum, int32_t count, const struct q8nn_pool_params* params) {
  if (!params->requantize) return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  const float scaled = (float) (sum - params->input_zero_point * count) * params->scale;
  return (int32_t) nearbyintf(scaled) + params->output_zero_point;
}

/* The stored byte of a window's average: clamped, flipped back (uint8). */
static inline int8_t q8nn_pool_average_byte(int32_t sum, int32_t count, const struct q8nn_pool_params* params) {
  int32_t v = q8nn_pool_average(sum, count, params);
  v = v < params->output_min ? params->output_min : v > params->output_max ? params->output_max : v;
  return (int8_t) ((uint8_t) v ^ params->flip);
}

/* The vector kernels' single-channel average (an NCHW plane pooled as an image of one-byte pixels):
   adjacent window rows (row_stride == cols, a whole plane) become one run of bytes; returns the
   byte offset that makes a stored byte its int8 value plus 128 (an unsigned byte to sum). */
static inline uint8_t q8nn_pool_plane_runs(size_t* rows, size_t* cols, size_t row_stride,
                                           const struct q8nn_pool_params* params) {
  if (row_stride == *cols) {
    *cols *= *rows;
    *rows = 1;
  }
  return (uint8_t) (params->flip ^ 0x80);
}

/* The stored byte of a single-channel window from the sum of its `count` offset bytes. */
static inline int8_t q8nn_pool_plane_byte(uint64_t offset_sum, int32_t count, const struct q8nn_pool_params* params) {
  return q8nn_pool_average_byte((int32_t) ((int64_t) offset_sum - 128 * (int64_t) count), count, params);
}

#endif
