/* See reference-model.h. */
#include "reference-model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

/* A gemmlowp FixedPoint<int32_t, ibits> value: raw / 2^(31 - ibits). */
struct fp { int32_t raw; int ibits; };

static struct fp fp_make(int32_t raw, int ibits) { struct fp f = {raw, ibits}; return f; }
static struct fp fp_add(struct fp a, struct fp b) { return fp_make((int32_t) ((uint32_t) a.raw + (uint32_t) b.raw), a.ibits); }
static struct fp fp_sub(struct fp a, struct fp b) { return fp_make((int32_t) ((uint32_t) a.raw - (uint32_t) b.raw), a.ibits); }
static struct fp fp_mul(struct fp a, struct fp b) { return fp_make(ref_srdhm(a.raw, b.raw), a.ibits + b.ibits); }
/* SaturatingRoundingMultiplyByPOT<exponent> */
static int32_t srmpot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return ref_rdbpot(x, -exponent);
  const int64_t v = (int64_t) x * ((int64_t) 1 << exponent);
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t) v;
}
static struct fp fp_rescale(struct fp a, int ibits) { return fp_make(srmpot(a.raw, a.ibits - ibits), ibits); }
static struct fp fp_one(int ibits) { return fp_make(ibits == 0 ? INT32_MAX : (int32_t) 1 << (31 - ibits), ibits); }

static struct fp exp_on_interval_between_negative_one_quarter_and_0_excl(struct fp a) {
  const struct fp constant_term = fp_make(1895147668, 0);
  const struct fp constant_1_over_3 = fp_make(715827883, 0);
  const struct fp x = fp_add(a, fp_make(1 << 28, 0));
  const struct fp x2 = fp_mul(x, x), x3 = fp_mul(x2, x), x4 = fp_mul(x2, x2);
  const struct fp x4_over_4 = fp_make(srmpot(x4.raw, -2), 0);
  const struct fp sum = fp_make(srmpot(fp_add(fp_mul(fp_add(x4_over_4, x3), constant_1_over_3), x2).raw, -1), 0);
  return fp_add(constant_term, fp_mul(constant_term, fp_add(x, sum)));
}

static struct fp exp_on_negative_values(struct fp a) {
  const int frac = 31 - a.ibits;
  const struct fp quarter = fp_make((int32_t) 1 << (frac - 2), a.ibits);
  const struct fp mask = fp_sub(quarter, fp_make(1, a.ibits));
  const struct fp a_mod = fp_sub(fp_make(a.raw & mask.raw, a.ibits), quarter);
  struct fp result = exp_on_interval_between_negative_one_quarter_and_0_excl(fp_rescale(a_mod, 0));
  const int32_t remainder = fp_sub(a_mod, a).raw;
  const struct { int exponent; int32_t multiplier; } barrel[] = {
      {-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308}, {2, 39332535}, {3, 720401}, {4, 242}};
  for (size_t i = 0; i < sizeof(barrel) / sizeof(barrel[0]); i++) {
    if (a.ibits > barrel[i].exponent && (remainder & ((int32_t) 1 << (frac + barrel[i].exponent))) != 0) {
      result = fp_mul(result, fp_make(barrel[i].multiplier, 0));
    }
  }
  if (a.raw == 0) result = fp_one(0);
  return result;
}

static struct fp one_over_one_plus_x_for_x_in_0_1(struct fp a) {
  const int64_t s = (int64_t) a.raw + INT32_MAX;
  const struct fp half_denominator = fp_make((int32_t) ((s + (s >= 0 ? 1 : -1)) / 2), 0);
  struct fp x = fp_add(fp_make(1515870810, 2), fp_mul(half_denominator, fp_make(-1010580540, 2)));
  for (int i = 0; i < 3; i++) {
    const struct fp one_minus = fp_sub(fp_one(2), fp_mul(half_denominator, x));
    x = fp_add(x, fp_rescale(fp_mul(x, one_minus), 2));
  }
  return fp_rescale(fp_make(x.raw, 1), 0); /* ExactMulByPot<-1> then Rescale<0> */
}

/* gemmlowp's RoundingDivideByPOT as TFLite's softmax output step runs it compiled for x86-64: its
   exponent, num_bits_over_unit + 23, exceeds 31 once a row's exp sum reaches 2^28 (512 or more
   values at the row's maximum); the int32 mask of the int64 2^e - 1 is then all ones and the int32
   shift by e executes as a shift by e mod 32. */
static int32_t softmax_rdbpot(int32_t x, int exponent) {
  if (exponent <= 31) return ref_rdbpot(x, exponent);
  const int32_t mask = -1;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> (exponent & 31)) + ((x & mask) > threshold ? 1 : 0);
}

int ref_softmax_s8(float beta, float input_scale, size_t outer, size_t depth, const int8_t* in, int8_t* out) {
  double real = (double) beta * (double) input_scale * (double) (1 << 26);
  if (real > 2147483647.0) real = 2147483647.0;
  int32_t multiplier, shift;
  if (!ref_quantize_multiplier(real, &multiplier, &shift) || shift < 0) return 0;
  const double max_input_rescaled = 31.0 * (double) (1 << 26) / (double) ((int64_t) 1 << shift);
  const int32_t diff_min = -(int32_t) floor(max_input_rescaled);
  for (size_t i = 0; i < outer; i++) {
    int32_t max_in_row = -128;
    for (size_t c = 0; c < depth; c++) if (in[i * depth + c] > max_in_row) max_in_row = in[i * depth + c];
    struct fp sum = fp_make(0, 12);
    for (size_t c = 0; c < depth; c++) {
      const int32_t diff = in[i * depth + c] - max_in_row;
      if (diff >= diff_min) {
        const struct fp scaled = fp_make(ref_srdhm(diff * (1 << shift), multiplier), 5);
        sum = fp_add(sum, fp_rescale(exp_on_negative_values(scaled), 12));
      }
    }
    int headroom_plus_one = 0;
    while (headroom_plus_one < 32 && ((uint32_t) sum.raw & (UINT32_C(0x80000000) >> headroom_plus_one)) == 0) headroom_plus_one++;
    const int num_bits_over_unit = 12 - headroom_plus_one;
    const int32_t shifted_sum_minus_one = (int32_t) (((uint32_t) sum.raw << headroom_plus_one) - (UINT32_C(1) << 31));
    const struct fp shifted_scale = one_over_one_plus_x_for_x_in_0_1(fp_make(shifted_sum_minus_one, 0));
    for (size_t c = 0; c < depth; c++) {
      const int32_t diff = in[i * depth + c] - max_in_row;
      if (diff >= diff_min) {
        const struct fp scaled = fp_make(ref_srdhm(diff * (1 << shift), multiplier), 5);
        const int32_t unsat = softmax_rdbpot(fp_mul(shifted_scale, exp_on_negative_values(scaled)).raw,
                                             num_bits_over_unit + 31 - 8);
        const int32_t v = unsat - 128;
        out[i * depth + c] = (int8_t) (v > 127 ? 127 : v < -128 ? -128 : v);
      } else {
        out[i * depth + c] = -128;
      }
    }
  }
  return 1;
}

void ref_pool_s8(int avg, size_t batch, size_t in_h, size_t in_w, size_t channels, size_t out_h, size_t out_w,
                 size_t filter_h, size_t filter_w, size_t stride_h, size_t stride_w, size_t pad_top, size_t pad_left,
                 int32_t act_min, int32_t act_max, const int8_t* in, int8_t* out) {
  for (size_t b = 0; b < batch; b++)
    for (size_t oy = 0; oy < out_h; oy++)
      for (size_t ox = 0; ox < out_w; ox++)
        for (size_t c = 0; c < channels; c++) {
          const long in_x_origin = (long) (ox * stride_w) - (long) pad_left;
          const long in_y_origin = (long) (oy * stride_h) - (long) pad_top;
          const long fx_start = in_x_origin < 0 ? -in_x_origin : 0;
          const long fx_end = (long) filter_w < (long) in_w - in_x_origin ? (long) filter_w : (long) in_w - in_x_origin;
          const long fy_start = in_y_origin < 0 ? -in_y_origin : 0;
          const long fy_end = (long) filter_h < (long) in_h - in_y_origin ? (long) filter_h : (long) in_h - in_y_origin;
          int32_t acc = avg ? 0 : -128, count = 0;
          for (long fy = fy_start; fy < fy_end; fy++)
            for (long fx = fx_start; fx < fx_end; fx++) {
              const int32_t v = in[((b * in_h + (size_t) (in_y_origin + fy)) * in_w + (size_t) (in_x_origin + fx)) * channels + c];
              if (avg) acc += v; else if (v > acc) acc = v;
              count++;
            }
          if (avg) acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          acc = acc < act_min ? act_min : acc > act_max ? act_max : acc;
          out[((b * out_h + oy) * out_w + ox) * channels + c] = (int8_t) acc;
        }
}

void ref_avgpool_qnnpack_s8(size_t batch, size_t in_h, size_t in_w, size_t channels, size_t out_h, size_t out_w,
                            size_t filter_h, size_t filter_w, size_t stride_h, size_t stride_w, size_t pad_top,
                            size_t pad_left, int32_t in_zp, float in_scale, int32_t out_zp, float out_scale,
                            int32_t act_min, int32_t act_max, const int8_t* in, int8_t* out) {
  const int32_t window = (int32_t) (filter_h * filter_w);
  const volatile float divisor = out_scale * (float) window;
  const float scale = in_scale / divisor;
  for (size_t b = 0; b < batch; b++)
    for (size_t oy = 0; oy < out_h; oy++)
      for (size_t ox = 0; ox < out_w; ox++)
        for (size_t c = 0; c < channels; c++) {
          int32_t acc = -in_zp * window;
          for (size_t fy = 0; fy < filter_h; fy++)
            for (size_t fx = 0; fx < filter_w; fx++) {
              const long y = (long) (oy * stride_h + fy) - (long) pad_top;
              const long x = (long) (ox * stride_w + fx) - (long) pad_left;
              const int inside = y >= 0 && y < (long) in_h && x >= 0 && x < (long) in_w;
              acc += inside ? in[((b * in_h + (size_t) y) * in_w + (size_t) x) * channels + c] : in_zp;
            }
          long v = lrintf((float) acc * scale) + out_zp;
          v = v < act_min ? act_min : v > act_max ? act_max : v;
          out[((b * out_h + oy) * out_w + ox) * channels + c] = (int8_t) v;
        }
}

int ref_mul_sub_s8(int mul, size_t a_rank, const size_t* a_shape, const int8_t* a, float a_scale, int32_t a_zp,
                   size_t b_rank, const size_t* b_shape, const int8_t* b, float b_scale, int32_t b_zp,
                   float out_scale, int32_t out_zp, int32_t act_min, int32_t act_max, int8_t* out) {
  size_t rank, shape[REF_MAX_DIMS];
  if (!ref_broadcast_shape(a_rank, a_shape, b_rank, b_shape, &rank, shape)) return 0;
  int32_t om = 0, os = 0, am = 0, as = 0, bm = 0, bs = 0;
  /* PyTorch's qmul_kernel: float multiplier = self_scale * other_scale * inv_scale */
  const volatile float inv_scale = 1.0f / out_scale;
  const volatile float scale_product = a_scale * b_scale;
  /* XNNPACK's xnn_create_multiply_nd_qs8: product_output_scale = product_scale / output_scale */
  const float pytorch_multiplier = mul == 3 ? scale_product / out_scale : scale_product * inv_scale;
  if (mul >= 2) {
    /* no parameters to derive */
  } else if (mul) {
    const float real = a_scale * b_scale / out_scale;
    if (!ref_quantize_multiplier((double) real, &om, &os)) return 0;
  } else {
    const double twice_max = 2.0 * (double) (a_scale > b_scale ? a_scale : b_scale);
    if (!ref_quantize_multiplier((double) a_scale / twice_max, &am, &as) || as > 0 ||
        !ref_quantize_multiplier((double) b_scale / twice_max, &bm, &bs) || bs > 0 ||
        !ref_quantize_multiplier(twice_max / ((double) (1 << 20) * (double) out_scale), &om, &os) || os > 0) {
      return 0;
    }
  }
  size_t total = 1;
  for (size_t i = 0; i < rank; i++) total *= shape[i];
  for (size_t o = 0; o < total; o++) {
    size_t rem = o, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t d = rank; d-- > 0;) { /* unravel o; map to a and b with broadcasting */
      const size_t coord = rem % shape[d];
      rem /= shape[d];
      const size_t k = rank - 1 - d;
      if (k < a_rank) { const size_t n = a_shape[a_rank - 1 - k]; ia += (n == 1 ? 0 : coord) * sa; sa *= n; }
      if (k < b_rank) { const size_t n = b_shape[b_rank - 1 - k]; ib += (n == 1 ? 0 : coord) * sb; sb *= n; }
    }
    const int32_t va = a[ia] - a_zp, vb = b[ib] - b_zp;
    int32_t r;
    if (mul >= 2) {
      r = out_zp + (int32_t) lrintf((float) (va * vb) * pytorch_multiplier);
    } else if (mul) {
      r = out_zp + ref_multiply_by_quantized_multiplier(va * vb, om, os, 0);
    } else {
      const int32_t sa1 = ref_multiply_by_quantized_multiplier(va * (1 << 20), am, as, 0);
      const int32_t sb1 = ref_multiply_by_quantized_multiplier(vb * (1 << 20), bm, bs, 0);
      r = ref_multiply_by_quantized_multiplier(sa1 - sb1, om, os, 0) + out_zp;
    }
    out[o] = (int8_t) (r < act_min ? act_min : r > act_max ? act_max : r);
  }
  return 1;
}

void ref_pad_s8(size_t rank, const size_t* in_shape, const size_t* before, const size_t* after, int8_t value,
                const int8_t* in, int8_t* out) {
  size_t out_shape[REF_MAX_DIMS], total = 1;
  for (size_t i = 0; i < rank; i++) {
    out_shape[i] = before[i] + in_shape[i] + after[i];
    total *= out_shape[i];
  }
  for (size_t o = 0; o < total; o++) {
    size_t rem = o, in_index = 0, in_stride = 1;
    int inside = 1;
    for (size_t d = rank; d-- > 0;) {
      const size_t coord = rem % out_shape[d];
      rem /= out_shape[d];
      if (coord < before[d] || coord >= before[d] + in_shape[d]) inside = 0;
      else in_index += (coord - before[d]) * in_stride;
      in_stride *= in_shape[d];
    }
    out[o] = inside ? in[in_index] : value;
  }
}

/* TFLite's NextIndex: the row-major successor of index; 0 after the last. */
static int next_index(size_t rank, const size_t* dims, size_t* index) {
  for (size_t d = rank; d-- > 0;) {
    if (++index[d] < dims[d]) return 1;
    index[d] = 0;
  }
  return 0;
}

/* TFLite's ReducedOutputOffset: the offset of index with the axes in `reduced` left out. */
static size_t reduced_output_offset(size_t rank, const size_t* dims, const size_t* index, const int* reduced) {
  size_t offset = 0;
  for (size_t d = 0; d < rank; d++) {
    if (reduced != NULL && reduced[d]) continue;
    offset = offset * dims[d] + index[d];
  }
  return offset;
}

int ref_mean_s8(size_t rank, const size_t* shape, const int32_t* axes, size_t num_axes, int keep_dims,
                const int8_t* in, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t* out) {
  int reduced[REF_MAX_DIMS] = {0};
  for (size_t k = 0; k < num_axes; k++) {
    const long a = axes[k] < 0 ? (long) axes[k] + (long) rank : (long) axes[k];
    if (a < 0 || a >= (long) rank) return 0;
    reduced[a] = 1;
  }
  size_t num_outputs = 1, n = 1;
  for (size_t d = 0; d < rank; d++) {
    if (reduced[d]) n *= shape[d];
    else num_outputs *= shape[d];
  }
  /* reduce.cc PrepareMeanOrSum: multiplier for the integer path */
  int32_t multiplier, shift;
  const int multiplier_ok = ref_quantize_multiplier((double) in_scale / (double) out_scale, &multiplier, &shift);
  if (keep_dims && rank == 4 && num_axes == 2 && ((axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1))) {
    /* reference_integer_ops::Mean */
    if (!multiplier_ok) return 0;
    const size_t B = shape[0], H = shape[1], W = shape[2], C = shape[3];
    const int32_t count = (int32_t) (H * W);
    for (size_t b = 0; b < B; b++)
      for (size_t c = 0; c < C; c++) {
        int32_t acc = 0;
        for (size_t h = 0; h < H; h++)
          for (size_t w = 0; w < W; w++) acc += in[((b * H + h) * W + w) * C + c] - in_zp;
        acc = ref_multiply_by_quantized_multiplier(acc, multiplier, shift, 0);
        acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
        acc += out_zp;
        out[b * C + c] = (int8_t) (acc < -128 ? -128 : acc > 127 ? 127 : acc);
      }
    return 1;
  }
  /* ReduceSumImpl: every input element added into the output element it reduces to */
  int32_t* temp_sum = (int32_t*) calloc(num_outputs, sizeof(int32_t));
  size_t index[REF_MAX_DIMS] = {0};
  do {
    const size_t i = reduced_output_offset(rank, shape, index, NULL);
    temp_sum[reduced_output_offset(rank, shape, index, reduced)] += in[i];
  } while (next_index(rank, shape, index));
  if (in_scale == out_scale && in_zp == out_zp) {
    /* reference_ops::Mean<int8_t, int> */
    for (size_t o = 0; o < num_outputs; o++) out[o] = (int8_t) (temp_sum[o] / (int32_t) n);
  } else {
    /* reference_ops::QuantizedMeanOrSum, compute_sum = false */
    const float scale = in_scale / out_scale;
    const float bias = -in_zp * scale + 0.5f;
    for (size_t o = 0; o < num_outputs; o++) {
      const float float_mean = (float) temp_sum[o] / (float) n;
      float result = roundf(float_mean * scale + bias) + (float) out_zp;
      result = result < 127.0f ? result : 127.0f;
      result = result > -128.0f ? result : -128.0f;
      out[o] = (int8_t) result;
    }
  }
  free(temp_sum);
  return 1;
}

void ref_concat_s8(size_t rank, size_t axis, size_t num_inputs, const size_t (*shapes)[6], const int8_t* const* inputs,
                   int8_t* out) {
  size_t out_shape[REF_MAX_DIMS], total = 1;
  for (size_t d = 0; d < rank; d++) out_shape[d] = shapes[0][d];
  out_shape[axis] = 0;
  for (size_t k = 0; k < num_inputs; k++) out_shape[axis] += shapes[k][axis];
  for (size_t d = 0; d < rank; d++) total *= out_shape[d];
  size_t index[REF_MAX_DIMS] = {0};
  for (size_t o = 0; o < total; o++) {
    size_t k = 0, along = index[axis];
    while (along >= shapes[k][axis]) along -= shapes[k++][axis];
    size_t i = 0;
    for (size_t d = 0; d < rank; d++) i = i * shapes[k][d] + (d == axis ? along : index[d]);
    out[o] = inputs[k][i];
    next_index(rank, out_shape, index);
  }
}

void ref_quantize_s8(size_t n, float scale, int32_t zp, const float* in, int8_t* out) {
  for (size_t i = 0; i < n; i++) {
    const double unclamped = (double) roundf(in[i] / scale) + (double) zp;
    const double clamped = unclamped < -128.0 ? -128.0 : unclamped > 127.0 ? 127.0 : unclamped;
    out[i] = (int8_t) clamped;
  }
}

int ref_requantize_8(size_t n, int in_unsigned, float in_scale, int32_t in_zp, int out_unsigned, float out_scale,
                     int32_t out_zp, const void* in, void* out) {
  int32_t multiplier, shift;
  if (!ref_quantize_multiplier((double) in_scale / (double) out_scale, &multiplier, &shift)) return 0;
  const int32_t lo = out_unsigned ? 0 : -128, hi = out_unsigned ? 255 : 127;
  for (size_t i = 0; i < n; i++) {
    const int32_t x = in_unsigned ? ((const uint8_t*) in)[i] : ((const int8_t*) in)[i];
    int32_t v = ref_multiply_by_quantized_multiplier(x - in_zp, multiplier, shift, 0) + out_zp;
    v = v < lo ? lo : v > hi ? hi : v;
    if (out_unsigned) ((uint8_t*) out)[i] = (uint8_t) v;
    else ((int8_t*) out)[i] = (int8_t) v;
  }
  return 1;
}

void ref_dequantize_8(size_t n, int in_unsigned, float scale, int32_t zp, const void* in, float* out) {
  const double s = scale;
  for (size_t i = 0; i < n; i++) {
    const int32_t x = in_unsigned ? ((const uint8_t*) in)[i] : ((const int8_t*) in)[i];
    out[i] = (float) (s * (x - zp));
  }
}

int ref_fully_connected_s8(size_t rows, size_t depth, size_t units, const int8_t* in, float in_scale, int32_t in_zp,
                           const int8_t* filter, size_t num_scales, const float* filter_scales, const int32_t* bias,
                           float out_scale, int32_t out_zp, int32_t act_min, int32_t act_max, int8_t* out) {
  int32_t* multiplier = (int32_t*) malloc((units + 1) * sizeof(int32_t));
  int32_t* shift = (int32_t*) malloc((units + 1) * sizeof(int32_t));
  int ok = multiplier != NULL && shift != NULL;
  for (size_t c = 0; c < units && ok; c++) {
    const double real = num_scales == 1 ? (double) (in_scale * filter_scales[0]) / (double) out_scale
                                        : (double) in_scale * (double) filter_scales[c] / (double) out_scale;
    ok = ref_quantize_multiplier(real, &multiplier[c], &shift[c]);
  }
  for (size_t b = 0; b < rows && ok; b++) {
    for (size_t c = 0; c < units; c++) {
      int32_t acc = 0;
      for (size_t d = 0; d < depth; d++) acc += (int32_t) filter[c * depth + d] * ((int32_t) in[b * depth + d] - in_zp);
      if (bias != NULL) acc += bias[c];
      acc = ref_multiply_by_quantized_multiplier(acc, multiplier[c], shift[c], 0) + out_zp;
      acc = acc < act_min ? act_min : acc > act_max ? act_max : acc;
      out[b * units + c] = (int8_t) acc;
    }
  }
  free(multiplier);
  free(shift);
  return ok;
}

void ref_activation_range_s8(int act, float scale, int32_t zp, int32_t* lo, int32_t* hi) {
  static const float bounds[4][2] = {{0.0f, 0.0f}, {0.0f, INFINITY}, {-1.0f, 1.0f}, {0.0f, 6.0f}};
  *lo = -128;
  *hi = 127;
  if (act <= 0 || act > 3) return;
  const int32_t qlo = zp + (int32_t) roundf(bounds[act][0] / scale);
  if (qlo > *lo) *lo = qlo;
  if (isfinite(bounds[act][1])) {
    const int32_t qhi = zp + (int32_t) roundf(bounds[act][1] / scale);
    if (qhi < *hi) *hi = qhi;
  }
}
