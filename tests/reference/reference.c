/*
 * Naive int64 reference of TFLite's integer kernels. Written from the gemmlowp / TFLite sources'
 * definitions (fixedpoint.h, common.h, quantization_util.cc, reference_integer_ops/{conv,
 * depthwise_conv,add}.h, TFLM add_common.cc), not from q8nn's src/.
 */
#include "reference/reference.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t overflow_count;

size_t ref_overflow_count(void) { return overflow_count; }
void ref_reset_overflow_count(void) { overflow_count = 0; }

/* TFLite accumulates in int32. The int64 sum wrapped modulo 2^32 equals what the int32 code
   computes (two's complement addition is associative), so only the flag is extra. */
static int32_t wrap_accumulator(int64_t acc) {
  if (acc < INT32_MIN || acc > INT32_MAX) {
    overflow_count++;
  }
  return (int32_t) (uint32_t) (uint64_t) acc;
}

/* Floor division by 2^n of a signed int64 without relying on >> of negatives. */
static int64_t floor_shift(int64_t x, int n) {
  if (x >= 0) {
    return x >> n;
  }
  return -(int64_t) ((((uint64_t) -(x + 1)) >> n)) - 1;
}

int32_t ref_srdhm(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) {
    return INT32_MAX;
  }
  const int64_t ab = (int64_t) a * (int64_t) b;
  /* gemmlowp: nudge = ab >= 0 ? 2^30 : 1 - 2^30, then C division (truncation toward zero). */
  const int64_t nudge = ab >= 0 ? (INT64_C(1) << 30) : (1 - (INT64_C(1) << 30));
  return (int32_t) ((ab + nudge) / (INT64_C(1) << 31));
}

int32_t ref_rdbpot(int32_t x, int exponent) {
  assert(exponent >= 0 && exponent <= 31);
  const int32_t mask = (int32_t) ((INT64_C(1) << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (int32_t) floor_shift(x, exponent) + (remainder > threshold ? 1 : 0);
}

int32_t ref_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift, int rounding) {
  if (rounding == 0) {
    const int left = shift > 0 ? shift : 0;
    const int right = shift > 0 ? 0 : -shift;
    /* x * (1 << left) in TFLite's int32 arithmetic: wraps modulo 2^32 as compiled. */
    const int32_t shifted = (int32_t) (uint32_t) ((uint64_t) (uint32_t) x << left);
    return ref_rdbpot(ref_srdhm(shifted, multiplier), right);
  }
  /* TFLITE_SINGLE_ROUNDING: |x * m| < 2^62 and the rounding term <= 2^61, so int64 is exact. */
  const int total_shift = 31 - shift;
  assert(total_shift >= 1 && total_shift <= 62);
  const int64_t round = INT64_C(1) << (total_shift - 1);
  const int64_t result = floor_shift((int64_t) x * (int64_t) multiplier + round, total_shift);
  /* TFLite returns static_cast<int32_t>(result) and only DCHECKs the range: the low 32 bits. */
  return (int32_t) (uint32_t) (uint64_t) result;
}

int ref_quantize_multiplier(double real, int32_t* multiplier, int32_t* shift) {
  if (!isfinite(real)) {
    /* An infinite or NaN real (a float ratio of scales that overflowed), as TFLite compiled for
       x86-64 computes it: glibc's frexp returns it with exponent 0, and converting round(inf) to
       int64 gives INT64_MIN, whose low 32 bits make multiplier 0 (src/operators/unary-table.c
       models the same). Converting it here directly would be undefined behaviour. */
    *multiplier = 0;
    *shift = 0;
    return 1;
  }
  if (real == 0.0) {
    *multiplier = 0;
    *shift = 0;
    return 1;
  }
  int exp = 0;
  const double q = frexp(real, &exp);
  /* TfLiteRound = std::round: half away from zero. q * 2^31 is exact (power-of-two scaling). */
  int64_t q_fixed = (int64_t) round(q * (double) (INT64_C(1) << 31));
  if (q_fixed == (INT64_C(1) << 31)) {
    q_fixed /= 2;
    exp++;
  }
  if (exp < -31) {
    exp = 0;
    q_fixed = 0;
  }
  *multiplier = (int32_t) q_fixed;
  *shift = exp;
  return exp <= 30;
}

/* ---- convolution --------------------------------------------------------------------------- */

static size_t output_dim(size_t in, size_t pad_before, size_t pad_after, size_t k, size_t dil, size_t stride) {
  const size_t padded = in + pad_before + pad_after;
  const size_t effective = dil * (k - 1) + 1;
  if (stride == 0 || padded < effective) {
    return 0;
  }
  return (padded - effective) / stride + 1;
}

void ref_output_size(const struct ref_conv_params* p, size_t* out_h, size_t* out_w) {
  *out_h = output_dim(p->in_h, p->pad_top, p->pad_bottom, p->k_h, p->dil_h, p->stride_h);
  *out_w = output_dim(p->in_w, p->pad_left, p->pad_right, p->k_w, p->dil_w, p->stride_w);
}

static int8_t requantize(const struct ref_conv_params* p, int64_t acc, size_t oc) {
  if (p->rounding == 2) {
    return ref_requantize_fp32(wrap_accumulator(acc), p->scale[oc], p->out_zp, p->out_min, p->out_max);
  }
  int32_t v = ref_multiply_by_quantized_multiplier(wrap_accumulator(acc), p->multiplier[oc],
                                                   p->shift[oc], p->rounding);
  /* TFLite adds the output offset in int32 after the multiply; as compiled, that wraps. */
  v = (int32_t) ((uint32_t) v + (uint32_t) p->out_zp);
  if (v < p->out_min) v = p->out_min;
  if (v > p->out_max) v = p->out_max;
  return (int8_t) v;
}

/* Input row/column of a tap, or -1 when the tap falls into the padding. */
static long tap_coord(size_t out, size_t stride, size_t pad, size_t k, size_t dil, size_t in_size) {
  const long c = (long) (out * stride + k * dil) - (long) pad;
  return (c >= 0 && c < (long) in_size) ? c : -1;
}

void ref_conv2d(const struct ref_conv_params* p, const int8_t* input, const int8_t* kernel,
                const int32_t* bias, int8_t* output) {
  size_t out_h, out_w;
  ref_output_size(p, &out_h, &out_w);
  const size_t total_out_c = p->groups * p->out_c;
  for (size_t n = 0; n < p->batch; n++) {
    for (size_t oy = 0; oy < out_h; oy++) {
      for (size_t ox = 0; ox < out_w; ox++) {
        int8_t* out_pixel = output + ((n * out_h + oy) * out_w + ox) * p->out_pixel_stride;
        for (size_t oc = 0; oc < total_out_c; oc++) {
          const size_t g = oc / p->out_c;
          int64_t acc = 0;
          for (size_t ky = 0; ky < p->k_h; ky++) {
            const long iy = tap_coord(oy, p->stride_h, p->pad_top, ky, p->dil_h, p->in_h);
            if (iy < 0) continue;
            for (size_t kx = 0; kx < p->k_w; kx++) {
              const long ix = tap_coord(ox, p->stride_w, p->pad_left, kx, p->dil_w, p->in_w);
              if (ix < 0) continue;
              const int8_t* in_pixel =
                  input + ((n * p->in_h + (size_t) iy) * p->in_w + (size_t) ix) * p->in_pixel_stride + g * p->in_c;
              const int8_t* k = kernel + ((oc * p->k_h + ky) * p->k_w + kx) * p->in_c;
              for (size_t ic = 0; ic < p->in_c; ic++) {
                acc += (int64_t) k[ic] * ((int64_t) in_pixel[ic] - p->in_zp);
              }
            }
          }
          if (bias != NULL) {
            acc += bias[oc];
          }
          out_pixel[oc] = requantize(p, acc, oc);
        }
      }
    }
  }
}

void ref_transpose_conv2d(const struct ref_conv_params* p, size_t out_h, size_t out_w, const int8_t* input,
                          const int8_t* kernel, const int32_t* bias, int8_t* output) {
  /* reference_integer_ops::TransposeConv's scatter form: every input pixel adds its products to the
     output pixels its taps land on (cropped by the padding), into a wide accumulator per output
     value; then bias and requantization */
  const size_t total_out_c = p->groups * p->out_c;
  int64_t* acc = calloc(out_h * out_w * total_out_c, sizeof(int64_t));
  assert(acc != NULL);
  for (size_t n = 0; n < p->batch; n++) {
    memset(acc, 0, out_h * out_w * total_out_c * sizeof(int64_t));
    for (size_t iy = 0; iy < p->in_h; iy++) {
      for (size_t ix = 0; ix < p->in_w; ix++) {
        const int8_t* in_pixel = input + ((n * p->in_h + iy) * p->in_w + ix) * p->in_pixel_stride;
        for (size_t ky = 0; ky < p->k_h; ky++) {
          const long oy = (long) (iy * p->stride_h + ky * p->dil_h) - (long) p->pad_top;
          if (oy < 0 || oy >= (long) out_h) continue;
          for (size_t kx = 0; kx < p->k_w; kx++) {
            const long ox = (long) (ix * p->stride_w + kx * p->dil_w) - (long) p->pad_left;
            if (ox < 0 || ox >= (long) out_w) continue;
            for (size_t oc = 0; oc < total_out_c; oc++) {
              const size_t g = oc / p->out_c;
              const int8_t* k = kernel + ((oc * p->k_h + ky) * p->k_w + kx) * p->in_c;
              int64_t sum = 0;
              for (size_t ic = 0; ic < p->in_c; ic++) {
                sum += (int64_t) k[ic] * ((int64_t) in_pixel[g * p->in_c + ic] - p->in_zp);
              }
              acc[((size_t) oy * out_w + (size_t) ox) * total_out_c + oc] += sum;
            }
          }
        }
      }
    }
    for (size_t m = 0; m < out_h * out_w; m++) {
      int8_t* out_pixel = output + (n * out_h * out_w + m) * p->out_pixel_stride;
      for (size_t oc = 0; oc < total_out_c; oc++) {
        int64_t a = acc[m * total_out_c + oc];
        if (bias != NULL) a += bias[oc];
        out_pixel[oc] = requantize(p, a, oc);
      }
    }
  }
  free(acc);
}

void ref_depthwise(const struct ref_conv_params* p, const int8_t* input, const int8_t* kernel,
                   const int32_t* bias, int8_t* output) {
  /* Depthwise is the grouped convolution with one input channel per group: output channel
     c*dm+m is in group c. Only the kernel layout differs: [k_h][k_w][C*dm] -> OHWI [C*dm][k_h][k_w][1]. */
  const size_t total_out_c = p->in_c * p->out_c, taps = p->k_h * p->k_w;
  int8_t* ohwi = malloc(total_out_c * taps);
  assert(ohwi != NULL);
  for (size_t oc = 0; oc < total_out_c; oc++) {
    for (size_t t = 0; t < taps; t++) {
      ohwi[oc * taps + t] = kernel[t * total_out_c + oc];
    }
  }
  struct ref_conv_params grouped = *p;
  grouped.groups = p->in_c;
  grouped.in_c = 1;
  ref_conv2d(&grouped, input, ohwi, bias, output);
  free(ohwi);
}

/* ---- add ----------------------------------------------------------------------------------- */

static int quantize_smaller_than_one_exp(double real, int32_t* multiplier, int32_t* shift) {
  if (!(real > 0.0) || !(real < 1.0)) {
    return 0;
  }
  return ref_quantize_multiplier(real, multiplier, shift) && *shift <= 0;
}

int ref_add_params_from_scales(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp,
                               float out_scale, int32_t out_zp, int32_t out_min, int32_t out_max,
                               struct ref_add_params* p) {
  if (!(isfinite(a_scale) && a_scale > 0.0f && isfinite(b_scale) && b_scale > 0.0f &&
        isfinite(out_scale) && out_scale > 0.0f)) {
    return 0;
  }
  struct ref_add_params r = {0};
  r.a_zp = a_zp;
  r.b_zp = b_zp;
  r.out_zp = out_zp;
  r.out_min = out_min;
  r.out_max = out_max;
  r.left_shift = 20;
  /* std::max of the floats, then widened: same as max of the widened values. */
  const double twice_max = 2.0 * (double) (a_scale > b_scale ? a_scale : b_scale);
  const double real_a = (double) a_scale / twice_max;
  const double real_b = (double) b_scale / twice_max;
  const double real_out = twice_max / ((double) (1 << r.left_shift) * (double) out_scale);
  if (!quantize_smaller_than_one_exp(real_a, &r.a_mult, &r.a_shift) ||
      !quantize_smaller_than_one_exp(real_b, &r.b_mult, &r.b_shift) ||
      !quantize_smaller_than_one_exp(real_out, &r.out_mult, &r.out_shift)) {
    return 0;
  }
  *p = r;
  return 1;
}

/* TFLite MultiplyByQuantizedMultiplierSmallerThanOneExp: shift <= 0, double rounding. */
static int32_t mul_smaller_than_one(int32_t x, int32_t multiplier, int32_t shift) {
  assert(shift <= 0);
  return ref_rdbpot(ref_srdhm(x, multiplier), -shift);
}

int8_t ref_add_element(const struct ref_add_params* p, int8_t a, int8_t b) {
  /* |a - zp| <= 255 and left_shift <= 20: the shifted values stay below 2^28. */
  const int32_t sa = ((int32_t) a - p->a_zp) * (INT32_C(1) << p->left_shift);
  const int32_t sb = ((int32_t) b - p->b_zp) * (INT32_C(1) << p->left_shift);
  const int32_t ra = mul_smaller_than_one(sa, p->a_mult, p->a_shift);
  const int32_t rb = mul_smaller_than_one(sb, p->b_mult, p->b_shift);
  int32_t v = mul_smaller_than_one(ra + rb, p->out_mult, p->out_shift) + p->out_zp;
  if (v < p->out_min) v = p->out_min;
  if (v > p->out_max) v = p->out_max;
  return (int8_t) v;
}

/* Right-aligns a shape into REF_MAX_DIMS dims, padding with leading 1s. */
static void align_shape(size_t rank, const size_t* shape, size_t aligned[REF_MAX_DIMS]) {
  for (size_t i = 0; i < REF_MAX_DIMS; i++) {
    aligned[i] = 1;
  }
  for (size_t i = 0; i < rank; i++) {
    aligned[REF_MAX_DIMS - rank + i] = shape[i];
  }
}

int ref_broadcast_shape(size_t a_rank, const size_t* a_shape, size_t b_rank, const size_t* b_shape,
                        size_t* out_rank, size_t out_shape[REF_MAX_DIMS]) {
  if (a_rank > REF_MAX_DIMS || b_rank > REF_MAX_DIMS) {
    return 0;
  }
  size_t a[REF_MAX_DIMS], b[REF_MAX_DIMS];
  align_shape(a_rank, a_shape, a);
  align_shape(b_rank, b_shape, b);
  const size_t rank = a_rank > b_rank ? a_rank : b_rank;
  for (size_t i = REF_MAX_DIMS - rank; i < REF_MAX_DIMS; i++) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) {
      return 0;
    }
    out_shape[i - (REF_MAX_DIMS - rank)] = a[i] == 1 ? b[i] : a[i];
  }
  *out_rank = rank;
  return 1;
}

/* numpy broadcasting around one element function: tflite (struct ref_add_params) or xnn
   (struct ref_xnn_add_params) */
static void broadcast_add(const struct ref_add_params* tflite, const struct ref_xnn_add_params* xnn, size_t a_rank,
                          const size_t* a_shape, const int8_t* a, size_t b_rank, const size_t* b_shape,
                          const int8_t* b, int8_t* out) {
  size_t as[REF_MAX_DIMS], bs[REF_MAX_DIMS], os[REF_MAX_DIMS];
  align_shape(a_rank, a_shape, as);
  align_shape(b_rank, b_shape, bs);
  size_t total = 1;
  for (size_t i = 0; i < REF_MAX_DIMS; i++) {
    os[i] = as[i] == 1 ? bs[i] : as[i];
    total *= os[i];
  }
  for (size_t flat = 0; flat < total; flat++) {
    /* Decompose the output index; a broadcast dimension contributes index 0. */
    size_t rem = flat, ai = 0, bi = 0, a_mul = 1, b_mul = 1;
    for (size_t d = REF_MAX_DIMS; d-- > 0;) {
      const size_t idx = rem % os[d];
      rem /= os[d];
      ai += (as[d] == 1 ? 0 : idx) * a_mul;
      bi += (bs[d] == 1 ? 0 : idx) * b_mul;
      a_mul *= as[d];
      b_mul *= bs[d];
    }
    out[flat] = tflite != NULL ? ref_add_element(tflite, a[ai], b[bi]) : ref_xnn_add_element(xnn, a[ai], b[bi]);
  }
}

void ref_add(const struct ref_add_params* p, size_t a_rank, const size_t* a_shape, const int8_t* a,
             size_t b_rank, const size_t* b_shape, const int8_t* b, int8_t* out) {
  broadcast_add(p, NULL, a_rank, a_shape, a, b_rank, b_shape, b, out);
}

void ref_xnn_add(const struct ref_xnn_add_params* p, size_t a_rank, const size_t* a_shape, const int8_t* a,
                 size_t b_rank, const size_t* b_shape, const int8_t* b, int8_t* out) {
  broadcast_add(NULL, p, a_rank, a_shape, a, b_rank, b_shape, b, out);
}

/* ---- XNNPACK fp32 requantization (XNNPACK src/operators/convolution-nhwc.c, src/qs8-gemm
   fp32 epilogues: scalar fmagic/imagic/lrintf, SSE/AVX cvtps2dq, NEON vcvtnq) ------------------ */

float ref_fp32_scale(float input_scale, float kernel_scale, float output_scale) {
  /* volatile: each operation rounds to float, whatever the compiler's evaluation method */
  volatile float product = input_scale * kernel_scale;
  volatile float scale = product / output_scale;
  return scale;
}

int8_t ref_requantize_fp32(int32_t acc, float scale, int32_t zp, int32_t out_min, int32_t out_max) {
  volatile float converted = (float) acc; /* round to nearest even where |acc| > 2^24 */
  volatile float scaled = converted * scale;
  float x = scaled;
  const float lo = (float) (out_min - zp), hi = (float) (out_max - zp);
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  /* |x| <= 255: rintf rounds ties to even in the default rounding mode */
  const int32_t rounded = (int32_t) rintf(x);
  return (int8_t) (rounded + zp);
}

/* ---- XNNPACK qs8 add (src/operators/binary-elementwise-nd.c, src/params-init.c) ------------- */

static int ref_normal_positive(float s) { return s > 0.0f && isnormal(s); }

/* XNNPACK's (top 20, ratios from 2^-10) and pytorch_qnnpack's (top 21, ratios from 2^-14, shift at
   most 30) add parameters: shift = top - binary exponent of the larger ratio, multipliers
   rintf(ratio * 2^shift) (exact scaling, ties to even). */
static int add_params_from_scales(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float out_scale,
                                  int32_t out_zp, int32_t out_min, int32_t out_max, int qnnpack,
                                  struct ref_xnn_add_params* p) {
  if (!ref_normal_positive(a_scale) || !ref_normal_positive(b_scale) || !ref_normal_positive(out_scale)) return 1;
  volatile float a_ratio = a_scale / out_scale;
  volatile float b_ratio = b_scale / out_scale;
  const float lowest = qnnpack ? 0x1.0p-14f : 0x1.0p-10f;
  if (!(a_ratio >= lowest && a_ratio < 0x1.0p+8f)) return 2;
  if (!(b_ratio >= lowest && b_ratio < 0x1.0p+8f)) return 2;
  const float max_ratio = a_ratio > b_ratio ? a_ratio : b_ratio;
  int e = 0;
  frexpf(max_ratio, &e); /* max_ratio = m * 2^e, m in [0.5, 1): binary exponent e - 1 */
  const int shift = (qnnpack ? 21 : 20) - (e - 1); /* XNNPACK: [13, 30] for ratios in [2^-10, 2^8) */
  if (shift > 30) return 2;
  p->shift = (uint32_t) shift;
  p->a_multiplier = (int32_t) rintf(ldexpf(a_ratio, shift));
  p->b_multiplier = (int32_t) rintf(ldexpf(b_ratio, shift));
  p->bias = (INT32_C(1) << (shift - 1)) - p->a_multiplier * a_zp - p->b_multiplier * b_zp;
  p->out_zp = out_zp;
  p->out_min = out_min;
  p->out_max = out_max;
  p->qnnpack = qnnpack;
  return 0;
}

int ref_xnn_add_params_from_scales(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float out_scale,
                                   int32_t out_zp, int32_t out_min, int32_t out_max, struct ref_xnn_add_params* p) {
  return add_params_from_scales(a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, out_min, out_max, 0, p);
}

int ref_qnnpack_add_params_from_scales(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float out_scale,
                                       int32_t out_zp, int32_t out_min, int32_t out_max,
                                       struct ref_xnn_add_params* p) {
  return add_params_from_scales(a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, out_min, out_max, 1, p);
}

int8_t ref_xnn_add_element(const struct ref_xnn_add_params* p, int8_t a, int8_t b) {
  const int64_t sum = (int64_t) a * p->a_multiplier + (int64_t) b * p->b_multiplier + p->bias;
  int32_t v;
  if (p->qnnpack) {
    /* |acc| / 2^shift rounded half up, with acc's sign: half away from zero */
    const int64_t acc = sum - (INT64_C(1) << (p->shift - 1));
    const int64_t magnitude = ((acc < 0 ? -acc : acc) + (INT64_C(1) << (p->shift - 1))) >> p->shift;
    v = (int32_t) (acc < 0 ? -magnitude : magnitude);
  } else {
    assert(sum >= INT32_MIN && sum <= INT32_MAX); /* XNNPACK's int32 never overflows here */
    v = (int32_t) floor_shift(sum, (int) p->shift);
  }
  if (v < p->out_min - p->out_zp) v = p->out_min - p->out_zp;
  if (v > p->out_max - p->out_zp) v = p->out_max - p->out_zp;
  return (int8_t) (v + p->out_zp);
}
