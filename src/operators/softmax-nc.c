/*
 * Softmax over the last dimension, int8 and uint8: TFLite's int8 Softmax (reference_ops::Softmax with
 * PreprocessSoftmaxScaling(beta, input_scale, 5) and diff_min = -CalculateInputRadius(5, shift)), the
 * gemmlowp fixed point step by step. exp of the 256 possible differences (max - x) is a table made
 * at create; a row is its max, the sum of the table's entries, gemmlowp's reciprocal, and one
 * product per value. Output scale 1/256, zero point -128 (uint8: 0), as TFLite requires. Threads
 * take rows. int32 arithmetic that TFLite's compiled code would wrap is done in uint32.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/requantization.h"
#include "operator.h"

static const struct q8nn_operator_class softmax_class;

struct softmax_state {
  int32_t exp_table[256]; /* exp of the rescaled difference -d, Q0.31, for d = 0..255 */
  uint8_t in_range[256];  /* -d >= diff_min: the others contribute nothing and give the minimum */
  size_t rows, channels, input_stride, output_stride;
  const int8_t* input;
  int8_t* output;
};

static int32_t srdhm(int32_t a, int32_t b) { return q8nn_srdhm(a, b); }

/* gemmlowp's RoundingDivideByPOT. The output step's exponent, 35 - clz(exp sum), exceeds 31 when a
   row's exp sum reaches 2^28 (512 or more values at the row's maximum, each 2^19): there
   gemmlowp's int32 mask of an int64 2^e - 1 is all ones and its shift by e is what x86-64 executes,
   a shift by e mod 32 (TFLite compiled for x86-64 gives these bytes). */
static int32_t rdbpot(int32_t x, int exponent) {
  if (exponent <= 31) return q8nn_rdbpot(x, exponent);
  const int32_t mask = -1;
  const int32_t threshold = (mask >> 1) + (x < 0);
  return (x >> (exponent & 31)) + ((x & mask) > threshold);
}

/* SaturatingRoundingMultiplyByPOT with a positive exponent: saturating left shift. */
static int32_t sat_shl(int32_t x, int exponent) {
  const int32_t threshold = (int32_t) ((UINT32_C(1) << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t) ((uint32_t) x << exponent);
}

static int32_t wrap_add(int32_t a, int32_t b) { return (int32_t) ((uint32_t) a + (uint32_t) b); }
static int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t) ((uint32_t) a - (uint32_t) b); }

/* gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl, Q0.31 in and out. */
static int32_t exp_quarter(int32_t a) {
  const int32_t constant_term = 1895147668;      /* exp(-1/8) */
  const int32_t constant_1_over_3 = 715827883;   /* 1/3 */
  const int32_t x = wrap_add(a, INT32_C(1) << 28); /* a + 1/8 */
  const int32_t x2 = srdhm(x, x);
  const int32_t x3 = srdhm(x2, x);
  const int32_t x4 = srdhm(x2, x2);
  const int32_t x4_over_4 = rdbpot(x4, 2);
  const int32_t poly = rdbpot(wrap_add(srdhm(wrap_add(x4_over_4, x3), constant_1_over_3), x2), 1);
  return wrap_add(constant_term, srdhm(constant_term, wrap_add(x, poly)));
}

/* gemmlowp exp_on_negative_values for a Q5.26 input (a <= 0), Q0.31 result. */
static int32_t exp_on_negative_values_q5(int32_t a) {
  const int fractional_bits = 26;
  const int32_t one_quarter = INT32_C(1) << (fractional_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = wrap_sub(a & mask, one_quarter);
  int32_t result = exp_quarter(sat_shl(a_mod_quarter_minus_one_quarter, 5)); /* Rescale Q5 -> Q0 */
  const int32_t remainder = wrap_sub(a_mod_quarter_minus_one_quarter, a);
  static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int e = -2; e <= 4; e++) { /* exp(-2^e) for each bit of the remainder */
    if ((remainder & (INT32_C(1) << (fractional_bits + e))) != 0) result = srdhm(result, multipliers[e + 2]);
  }
  if (a == 0) result = INT32_MAX;
  return result;
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: Q0.31 in, Q0.31 out (Newton-Raphson in Q2.29). */
static int32_t one_over_one_plus_x(int32_t a) {
  const int64_t sum = (int64_t) a + INT32_MAX;
  const int32_t half_denominator = (int32_t) ((sum + (sum >= 0 ? 1 : -1)) / 2);
  const int32_t constant_48_over_17 = 1515870810, constant_neg_32_over_17 = -1010580540;
  int32_t x = wrap_add(constant_48_over_17, srdhm(half_denominator, constant_neg_32_over_17));
  for (int i = 0; i < 3; i++) {
    const int32_t half_denominator_times_x = srdhm(half_denominator, x);
    const int32_t one_minus = wrap_sub(INT32_C(1) << 29, half_denominator_times_x);
    x = wrap_add(x, sat_shl(srdhm(x, one_minus), 2));
  }
  return sat_shl(x, 1);
}

/* TFLite's QuantizeMultiplier; 0 when the shift exceeds 30. */
static int quantize_multiplier(double real, int32_t* multiplier, int* shift) {
  int32_t m, s;
  if (!q8nn_quantize_multiplier(real, &m, &s)) return 0;
  *multiplier = m;
  *shift = (int) s;
  return 1;
}

static enum q8nn_status create_softmax(float input_scale, float beta, uint32_t flags, int u8,
                                       q8nn_operator_t* softmax_out, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (softmax_out == NULL) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "softmax_out is NULL");
  if (flags != 0) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x", (unsigned) flags);
  if (!(isfinite(input_scale) && input_scale > 0.0f) || !(isfinite(beta) && beta > 0.0f)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input_scale and beta must be finite and > 0");
  }
  /* PreprocessSoftmaxScaling(beta, input_scale, 5): QuantizeMultiplierGreaterThanOne of
     min(beta * input_scale * 2^26, 2^31 - 1) */
  const int scaled_diff_integer_bits = 5;
  double real = (double) beta * (double) input_scale * (double) (1 << (31 - scaled_diff_integer_bits));
  const double max_real = (double) ((INT64_C(1) << 31) - 1);
  if (real > max_real) real = max_real;
  int32_t multiplier;
  int shift;
  if (!quantize_multiplier(real, &multiplier, &shift) || shift < 0) {
    return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                          "beta %g x input scale %g is below what TFLite's scaling represents", (double) beta,
                          (double) input_scale);
  }
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_softmax);
  struct softmax_state* st = calloc(1, sizeof(struct softmax_state));
  if (op == NULL || st == NULL) {
    free(op);
    free(st);
    return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator allocation failed");
  }
  const double max_input_rescaled = 1.0 * (double) ((1 << scaled_diff_integer_bits) - 1) *
                                    (double) (INT64_C(1) << (31 - scaled_diff_integer_bits)) /
                                    (double) (INT64_C(1) << shift);
  const int32_t diff_min = -(int32_t) floor(max_input_rescaled);
  for (int d = 0; d < 256; d++) {
    const int32_t diff = -d;
    st->in_range[d] = diff >= diff_min;
    /* MultiplyByQuantizedMultiplierGreaterThanOne: SRDHM(diff * 2^shift, multiplier); |diff| <= 255
       and diff >= diff_min keep diff * 2^shift inside int32. */
    st->exp_table[d] =
        st->in_range[d] ? exp_on_negative_values_q5(srdhm((int32_t) ((uint32_t) diff << shift), multiplier)) : 0;
  }
  op->cls = &softmax_class;
  op->class_state = st;
  op->u8 = u8;
  snprintf(op->kernel_name, sizeof(op->kernel_name), "softmax (TFLite int8, portable)");
  *softmax_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_softmax_nc_s8(float input_scale, float beta, uint32_t flags,
                                           q8nn_operator_t* softmax_out) {
  return create_softmax(input_scale, beta, flags, 0, softmax_out, __func__);
}

enum q8nn_status q8nn_create_softmax_nc_u8(float input_scale, float beta, uint32_t flags,
                                           q8nn_operator_t* softmax_out) {
  return create_softmax(input_scale, beta, flags, 1, softmax_out, __func__);
}

static enum q8nn_status setup_softmax(q8nn_operator_t op, int u8, size_t batch_size, size_t channels, const void* input,
                                      size_t input_stride, void* output, size_t output_stride, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_softmax || op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a %s softmax", u8 ? "uint8" : "int8");
  }
  op->is_setup = 0;
  const enum q8nn_status status =
      q8nn_check_rows(batch_size, channels, input, input_stride, output, output_stride, caller);
  if (status != q8nn_status_success) return status;
  struct softmax_state* st = op->class_state;
  st->rows = batch_size;
  st->channels = channels;
  st->input_stride = input_stride;
  st->output_stride = output_stride;
  st->input = input;
  st->output = output;
  op->plan_threads = 0;
  op->setup_serial = q8nn_next_setup_serial();
  op->is_setup = 1;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_softmax_nc_s8(q8nn_operator_t softmax, size_t batch_size, size_t channels,
                                          const int8_t* input, size_t input_stride, int8_t* output,
                                          size_t output_stride) {
  return setup_softmax(softmax, 0, batch_size, channels, input, input_stride, output, output_stride, __func__);
}

enum q8nn_status q8nn_setup_softmax_nc_u8(q8nn_operator_t softmax, size_t batch_size, size_t channels,
                                          const uint8_t* input, size_t input_stride, uint8_t* output,
                                          size_t output_stride) {
  return setup_softmax(softmax, 1, batch_size, channels, input, input_stride, output, output_stride, __func__);
}

/* Rows [r0, r0 + count). The uint8 bytes are the int8 ones ^ 0x80 (the differences are the same). */
static void softmax_task(void* context, size_t unused, size_t r0, size_t count) {
  (void) unused;
  const struct q8nn_operator* op = context;
  const struct softmax_state* st = op->class_state;
  const uint8_t flip = op->u8 ? 0x80 : 0;
  for (size_t i = r0; i < r0 + count; i++) {
    const int8_t* in = st->input + i * st->input_stride;
    int8_t* out = st->output + i * st->output_stride;
    int32_t max_in_row = INT8_MIN;
    for (size_t c = 0; c < st->channels; c++) {
      const int32_t x = (int8_t) ((uint8_t) in[c] ^ flip);
      max_in_row = x > max_in_row ? x : max_in_row;
    }
    /* sum of exps in Q12.19: each exp is rescaled from Q0.31 by RoundingDivideByPOT(.., 12) */
    int32_t sum_of_exps = 0;
    for (size_t c = 0; c < st->channels; c++) {
      const int32_t d = max_in_row - (int8_t) ((uint8_t) in[c] ^ flip);
      if (st->in_range[d]) sum_of_exps = wrap_add(sum_of_exps, rdbpot(st->exp_table[d], 12));
    }
    /* GetReciprocal(sum, 12) */
    const int headroom_plus_one = sum_of_exps == 0 ? 32 : __builtin_clz((uint32_t) sum_of_exps);
    const int num_bits_over_unit = 12 - headroom_plus_one;
    const int32_t shifted_sum_minus_one =
        (int32_t) (((uint32_t) sum_of_exps << (headroom_plus_one & 31)) - (UINT32_C(1) << 31));
    const int32_t shifted_scale = one_over_one_plus_x(shifted_sum_minus_one);
    /* an in-place row: every value was read above; each output byte depends on its own input */
    for (size_t c = 0; c < st->channels; c++) {
      const int32_t d = max_in_row - (int8_t) ((uint8_t) in[c] ^ flip);
      int32_t v = INT8_MIN;
      if (st->in_range[d]) {
        v = rdbpot(srdhm(shifted_scale, st->exp_table[d]), num_bits_over_unit + 31 - 8) - 128;
        v = v < -128 ? -128 : v > 127 ? 127 : v;
      }
      out[c] = (int8_t) ((uint8_t) v ^ flip);
    }
  }
}

static size_t softmax_works(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works) {
  const struct softmax_state* st = op->class_state;
  const int caller_only = !in_region && st->rows * st->channels < ((size_t) 1 << 14);
  if (caller_only) threads = 1;
  works[0] = q8nn_make_work(q8nn_work_2d_tile_1d, (void (*)(void)) softmax_task, op, 1, 1, 1, st->rows, 1,
                            q8nn_max_sz(1, st->rows / (threads * 4)));
  works[0].caller_only = caller_only;
  return 1;
}

static void softmax_span(const struct q8nn_operator* op, int output, uintptr_t* begin, uintptr_t* end) {
  const struct softmax_state* st = op->class_state;
  const size_t stride = output ? st->output_stride : st->input_stride;
  *begin = output ? (uintptr_t) st->output : (uintptr_t) st->input;
  *end = *begin + (st->rows - 1) * stride + st->channels;
}

static void softmax_release(struct q8nn_operator* op) { free(op->class_state); }

static const struct q8nn_operator_class softmax_class = {softmax_works, softmax_span, softmax_release};
