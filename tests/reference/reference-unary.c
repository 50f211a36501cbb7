/*
 * Reference int8 elementwise non-linearities, written from the definitions in
 * tensorflow/lite/kernels/activations.cc (ReluPrepare, LeakyReluPrepare, HardSwishPrepare,
 * SigmoidPrepare, TanhPrepare, EluPrepare), internal/common.h (LUTPopulateInt8,
 * DownScaleInt32ToInt16Multiplier, MultiplyByQuantizedMultiplier), internal/reference/
 * {reference_ops.h ReluX, leaky_relu.h QuantizeLeakyRelu, hard_swish.h HardSwish},
 * internal/quantization_util.cc (QuantizeMultiplier), gemmlowp fixedpoint.h (int16
 * SaturatingRoundingDoublingHighMul, RoundingDivideByPOT) and XNNPACK
 * src/operators/lut-elementwise-nc.c; not from q8nn's src/. See reference-unary.h.
 */
#include "reference/reference-unary.h"

#include <math.h>
#include <stdint.h>

#include "reference/reference.h"

/* ---- shared helpers ------------------------------------------------------------------------ */

static int32_t clamp_i32(int32_t v, int32_t lo, int32_t hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}

/* int32 addition as TFLite's compiled code performs it: modulo 2^32. */
static int32_t wrapping_add_i32(int32_t a, int32_t b) { return (int32_t) ((uint32_t) a + (uint32_t) b); }

/* static_cast<int32_t>(float) as x86-64 compiles it (cvttss2si): truncation toward zero, and
   INT32_MIN for NaN and for values outside the int32 range. */
static int32_t x86_float_to_int32(float f) {
  if (!(f >= -2147483648.0f && f < 2147483648.0f)) return INT32_MIN;
  return (int32_t) f;
}

/* QuantizeMultiplier for rounding 0 (double) or 1 (single): 0 when rounding 0 leaves a shift above
   30, which TFLite's x * (1 << shift) cannot take; rounding 1 saturates it to (2^31 - 1, 30). */
static int tflite_quantize_multiplier(double real, int rounding, int32_t* multiplier, int32_t* shift) {
  if (ref_quantize_multiplier(real, multiplier, shift)) return 1;
  if (rounding == 1) {
    *multiplier = INT32_MAX;
    *shift = 30;
    return 1;
  }
  return 0;
}

/* ---- gemmlowp int16 fixed point (HardSwish) -------------------------------------------------- */

/* SaturatingRoundingDoublingHighMul<int16_t>: (a*b + nudge) / 2^15 truncated, nudge 2^14 for a
   non-negative product and 1 - 2^14 otherwise; -32768 * -32768 gives 32767. */
static int16_t srdhm_i16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  const int32_t ab = (int32_t) a * (int32_t) b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return (int16_t) ((ab + nudge) / (1 << 15));
}

/* RoundingDivideByPOT<int16_t>(x, exponent), exponent in [0, 31], with every intermediate in
   int16_t as the template instantiates it: mask = (int16_t) (2^exponent - 1), which is -1 for an
   exponent of 16 or more; then x >= 0 gives 1 and x < 0 gives -1 (remainder x against threshold
   -1 or 0, x >> exponent is 0 or -1). */
static int16_t rdbpot_i16(int16_t x, int exponent) {
  const int16_t mask = (int16_t) (uint16_t) (((uint64_t) 1 << exponent) - 1);
  const int16_t remainder = (int16_t) (x & mask);
  const int16_t threshold = (int16_t) ((mask >> 1) + (x < 0 ? 1 : 0));
  return (int16_t) ((x >> exponent) + (remainder > threshold ? 1 : 0));
}

/* reference_ops::SaturatingLeftShift: value * 2^amount clamped to int16 (amount <= 30 here). */
static int16_t saturating_left_shift_i16(int16_t value, int amount) {
  const int64_t result = (int64_t) value * ((int64_t) 1 << amount);
  if (result > INT16_MAX) return INT16_MAX;
  if (result < INT16_MIN) return INT16_MIN;
  return (int16_t) result;
}

/* reference_ops::SaturatingDoublingHighMul: a*b / 2^15 truncated toward zero; -32768 * -32768 gives
   32767. */
static int16_t sdhm_i16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  const int32_t ab = (int32_t) a * (int32_t) b;
  return (int16_t) (ab / (1 << 15));
}

/* DownScaleInt32ToInt16Multiplier: (m + 2^15) >> 16, or 32767 from INT32_MAX - 2^15 on. */
static int16_t downscale_multiplier(int32_t multiplier) {
  if (multiplier >= INT32_MAX - (1 << 15)) return INT16_MAX;
  return (int16_t) ((multiplier + (1 << 15)) >> 16);
}

/* ---- TFLite ---------------------------------------------------------------------------------- */

static int tflite_clamp(const struct ref_unary_params* p, int8_t x, int32_t* y) {
  /* ReluPrepare: double real_multiplier = input->params.scale / output->params.scale (float / float). */
  const float ratio = p->input_scale / p->output_scale;
  int32_t multiplier, shift;
  if (!tflite_quantize_multiplier((double) ratio, p->rounding, &multiplier, &shift)) return 0;
  const int32_t v = ref_multiply_by_quantized_multiplier((int32_t) x - p->input_zero_point, multiplier, shift,
                                                         p->rounding);
  *y = clamp_i32(wrapping_add_i32(p->output_zero_point, v), INT8_MIN, INT8_MAX);
  return 1;
}

static int tflite_leaky_relu(const struct ref_unary_params* p, int8_t x, int32_t* y) {
  /* LeakyReluPrepare: input->params.scale * params->alpha / output->params.scale, all float. */
  const float alpha_product = p->input_scale * p->alpha;
  const float alpha_ratio = alpha_product / p->output_scale;
  const float identity_ratio = p->input_scale / p->output_scale;
  int32_t alpha_multiplier, alpha_shift, identity_multiplier, identity_shift;
  if (!tflite_quantize_multiplier((double) alpha_ratio, p->rounding, &alpha_multiplier, &alpha_shift)) return 0;
  if (!tflite_quantize_multiplier((double) identity_ratio, p->rounding, &identity_multiplier, &identity_shift)) {
    return 0;
  }
  const int32_t input_value = (int32_t) x - p->input_zero_point;
  int32_t v;
  if (input_value >= 0) {
    v = ref_multiply_by_quantized_multiplier(input_value, identity_multiplier, identity_shift, p->rounding);
  } else {
    v = ref_multiply_by_quantized_multiplier(input_value, alpha_multiplier, alpha_shift, p->rounding);
  }
  *y = clamp_i32(wrapping_add_i32(p->output_zero_point, v), INT8_MIN, INT8_MAX);
  return 1;
}

static int tflite_hardswish(const struct ref_unary_params* p, int8_t x, int32_t* y) {
  /* HardSwishPrepare, in float as written there. */
  const float hires_input_scale = (1.0f / 128.0f) * p->input_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const float output_multiplier = hires_input_scale / p->output_scale;
  const float reluish_multiplier = hires_input_scale / reluish_scale;
  int32_t output_fixedpoint_i32, output_exponent, reluish_fixedpoint_i32, reluish_exponent;
  if (!ref_quantize_multiplier((double) output_multiplier, &output_fixedpoint_i32, &output_exponent)) return 0;
  if (output_exponent > 0) return 0; /* TF_LITE_ENSURE(output_multiplier_exponent <= 0) */
  ref_quantize_multiplier((double) reluish_multiplier, &reluish_fixedpoint_i32, &reluish_exponent);
  if (reluish_exponent > 30) {
    if (p->rounding == 1) {
      reluish_fixedpoint_i32 = INT32_MAX;
      reluish_exponent = 30;
    } else if (reluish_exponent > 31) {
      return 0; /* SaturatingLeftShift's 1 << (exponent - 1) overflows int */
    }
  }
  const int16_t output_fixedpoint = downscale_multiplier(output_fixedpoint_i32);
  const int16_t reluish_fixedpoint = downscale_multiplier(reluish_fixedpoint_i32);

  /* reference_ops::HardSwish<int8_t> */
  const int16_t input_value = (int16_t) ((int32_t) x - p->input_zero_point);
  const int16_t input_value_on_hires_input_scale = (int16_t) (input_value * (1 << 7));
  const int16_t input_value_on_preshift_output_scale = srdhm_i16(input_value_on_hires_input_scale, output_fixedpoint);
  int16_t reluish_value = input_value_on_hires_input_scale;
  if (reluish_exponent > 0) {
    reluish_value = saturating_left_shift_i16(reluish_value, reluish_exponent - 1);
  }
  reluish_value = srdhm_i16(reluish_value, reluish_fixedpoint);
  if (reluish_exponent > 0) {
    reluish_value = saturating_left_shift_i16(reluish_value, 1);
  }
  if (reluish_exponent < 0) {
    reluish_value = rdbpot_i16(reluish_value, -reluish_exponent);
  }
  reluish_value = (int16_t) (((int32_t) reluish_value + (1 << 15)) >> 1);
  const int16_t preshift_output_value = sdhm_i16(reluish_value, input_value_on_preshift_output_scale);
  int16_t output_value = rdbpot_i16(preshift_output_value, -output_exponent);
  output_value = (int16_t) (output_value + p->output_zero_point);
  *y = clamp_i32(output_value, INT8_MIN, INT8_MAX);
  return 1;
}

/* The transforms TFLite's Prepare functions pass to LUTPopulate, in float. */
static float tflite_sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }
static float tflite_tanh(float v) { return tanhf(v); }
static float tflite_elu(float v) { return v < 0.0f ? expm1f(v) : v; }

/* One entry of LUTPopulateInt8<int8_t>. */
static int32_t tflite_lut_entry(const struct ref_unary_params* p, float (*transform)(float), int8_t x) {
  const float inverse_scale = 1.0f / p->output_scale;
  const float dequantized = p->input_scale * (float) ((int32_t) x - p->input_zero_point);
  const float transformed = transform(dequantized);
  const float rescaled = roundf(transformed * inverse_scale); /* TfLiteRound: half away from zero */
  const int32_t quantized = x86_float_to_int32(rescaled + (float) p->output_zero_point);
  return clamp_i32(quantized, INT8_MIN, INT8_MAX);
}

static int tflite_unary(const struct ref_unary_params* p, int8_t x, int32_t* y) {
  switch (p->op) {
    case REF_UNARY_CLAMP:
      return tflite_clamp(p, x, y);
    case REF_UNARY_LEAKY_RELU:
      return tflite_leaky_relu(p, x, y);
    case REF_UNARY_HARDSWISH:
      return tflite_hardswish(p, x, y);
    case REF_UNARY_SIGMOID:
      if (p->output_scale != 0x1.0p-8f || p->output_zero_point != -128) return 0;
      *y = tflite_lut_entry(p, tflite_sigmoid, x);
      return 1;
    case REF_UNARY_TANH:
      if (p->output_scale != 0x1.0p-7f || p->output_zero_point != 0) return 0;
      *y = tflite_lut_entry(p, tflite_tanh, x);
      return 1;
    case REF_UNARY_ELU:
      if (p->alpha != 1.0f) return 0;
      *y = tflite_lut_entry(p, tflite_elu, x);
      return 1;
    default:
      return 0;
  }
}

/* ---- XNNPACK --------------------------------------------------------------------------------- */

/* The init functions of lut-elementwise-nc.c, in float. */
static float xnn_sigmoid(float v, float alpha) {
  (void) alpha;
  return signbit(v) ? 1.0f / (1.0f + expf(-v)) : 1.0f - 1.0f / (1.0f + expf(v));
}
static float xnn_tanh(float v, float alpha) {
  (void) alpha;
  return tanhf(v);
}
static float xnn_elu(float v, float alpha) { return signbit(v) ? alpha * expm1f(v) : v; }

/* lrintf(value) + zero_point in long, wrapping as the compiled addition does, clamped. */
static int32_t xnn_finish(float value, const struct ref_unary_params* p) {
  const long rounded = lrintf(value);
  const long quantized = (long) ((unsigned long) rounded + (unsigned long) (long) p->output_zero_point);
  if (quantized < (long) p->output_min) return p->output_min;
  if (quantized > (long) p->output_max) return p->output_max;
  return (int32_t) quantized;
}

/* One entry of create_lut_elementwise_nc. */
static int32_t xnn_lut_entry(const struct ref_unary_params* p, float (*init_fn)(float, float), int8_t x) {
  const float inv_output_scale = 1.0f / p->output_scale;
  const float dequantized_input = (float) ((int32_t) x - p->input_zero_point) * p->input_scale;
  const float dequantized_output = init_fn(dequantized_input, p->alpha);
  return xnn_finish(dequantized_output * inv_output_scale, p);
}

/* The float definition for the operations without a qs8 XNNPACK operator. */
static int32_t xnn_float_definition(const struct ref_unary_params* p, int8_t x) {
  const float v = p->input_scale * (float) ((int32_t) x - p->input_zero_point);
  float f = v;
  if (p->op == REF_UNARY_LEAKY_RELU) {
    f = signbit(v) ? v * p->alpha : v;
  } else if (p->op == REF_UNARY_HARDSWISH) {
    const float relu6 = fminf(fmaxf(v + 3.0f, 0.0f), 6.0f);
    f = v * relu6 / 6.0f;
  }
  return xnn_finish(f / p->output_scale, p);
}

static int xnn_unary(const struct ref_unary_params* p, int8_t x, int32_t* y) {
  switch (p->op) {
    case REF_UNARY_CLAMP:
    case REF_UNARY_LEAKY_RELU:
    case REF_UNARY_HARDSWISH:
      *y = xnn_float_definition(p, x);
      return 1;
    case REF_UNARY_SIGMOID:
      if (p->output_scale != 0x1.0p-8f || p->output_zero_point != -128) return 0;
      *y = xnn_lut_entry(p, xnn_sigmoid, x);
      return 1;
    case REF_UNARY_TANH:
      if (p->output_scale != 0x1.0p-7f || p->output_zero_point != 0) return 0;
      *y = xnn_lut_entry(p, xnn_tanh, x);
      return 1;
    case REF_UNARY_ELU:
      if (p->alpha <= 0.0f || !isnormal(p->alpha)) return 0;
      *y = xnn_lut_entry(p, xnn_elu, x);
      return 1;
    default:
      return 0;
  }
}

/* ---- entry point ----------------------------------------------------------------------------- */

static int valid_scale(float s) { return s > 0.0f && isnormal(s); }

int ref_unary_s8(const struct ref_unary_params* p, int8_t x, int8_t* out) {
  if (p->op < REF_UNARY_CLAMP || p->op > REF_UNARY_ELU) return 0;
  if (p->rounding < 0 || p->rounding > 2) return 0;
  if (!valid_scale(p->input_scale) || !valid_scale(p->output_scale)) return 0;
  if (p->input_zero_point < INT8_MIN || p->input_zero_point > INT8_MAX) return 0;
  if (p->output_zero_point < INT8_MIN || p->output_zero_point > INT8_MAX) return 0;
  if (p->output_min < INT8_MIN || p->output_max > INT8_MAX || p->output_min > p->output_max) return 0;
  if ((p->op == REF_UNARY_LEAKY_RELU || p->op == REF_UNARY_ELU) && !isfinite(p->alpha)) return 0;

  int32_t y;
  if (p->rounding == 2) {
    /* create_lut_elementwise_nc clamps the table to [output_min, output_max]; xnn_finish does. */
    if (!xnn_unary(p, x, &y)) return 0;
  } else {
    if (!tflite_unary(p, x, &y)) return 0;
    /* the operator's fused clamp after TFLite's function */
    y = clamp_i32(y, p->output_min, p->output_max);
  }
  *out = (int8_t) y;
  return 1;
}
