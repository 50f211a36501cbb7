/*
 * Tables of the unary elementwise operators: entry (uint8_t) x is the operator's int8 output for the
 * int8 input x, computed here by the arithmetic of the implementation the rounding names.
 *
 * q8nn_rounding_double / _single: TFLite's builtin int8 kernels, tensorflow/lite/kernels/activations.cc
 * (identical in LiteRT's tflite/kernels/activations.cc), kReference registrations:
 *  - clamp: ReluPrepare's multiplier, QuantizeMultiplier(input_scale / output_scale), then
 *    reference_ops::ReluX: output_zero_point + MultiplyByQuantizedMultiplier(x - input_zero_point),
 *    clamped to the caller's [output_min, output_max] (TFLite's RELU/RELU6/RELU_N1_TO_1 range).
 *  - leaky_relu: LeakyReluPrepare's two multipliers and reference_ops::QuantizeLeakyRelu.
 *  - hardswish: HardSwishPrepare's int16 multipliers and reference_ops::HardSwish<int8_t>.
 *  - sigmoid, tanh, elu: the int8 kernels of LOGISTIC and TANH (kReference and the default
 *    kGenericOptimized alike) and of ELU are a float table, LUTPopulate<int8_t> (common.h):
 *    q = clamp(round(f(input_scale * (x - zp_in)) * (1 / output_scale)) + zp_out), round halfway
 *    away from zero, f = 1 / (1 + exp(-v)), tanh(v), v < 0 ? expm1(v) : v, all in float.
 *    reference_integer_ops::Logistic/Tanh (gemmlowp fixed point) serve only TFLite's int16 path
 *    and kFixedPointOptimized; they are not what an int8 model runs.
 * MultiplyByQuantizedMultiplier is gemmlowp's double rounding or, for q8nn_rounding_single, the
 * TFLITE_SINGLE_ROUNDING variant (kernels/requantization.h). Multipliers are computed in the
 * precision TFLite uses: TfLiteQuantizationParams scales are float, so input_scale / output_scale
 * is a float quotient converted to double.
 *
 * q8nn_rounding_fp32: XNNPACK's create_lut_elementwise_nc (src/operators/lut-elementwise-nc.c, behind
 * xnn_create_sigmoid_nc_qs8, _tanh_nc_qs8 and _elu_nc_qs8; the last refuses an alpha that is not a
 * normal float > 0):
 *    q = clamp(lrintf(f((x - zp_in) * input_scale) * (1.0f / output_scale)) + zp_out),
 * lrintf rounding halfway to even, with XNNPACK's f: sigmoid signbit(v) ? 1 / (1 + expf(-v)) :
 * 1 - 1 / (1 + expf(v)), tanhf(v), elu signbit(v) ? alpha * expm1f(v) : v. That XNNPACK (Debian's
 * 0.0~git20220216) has no int8 operator for the other three; they are the float definition,
 * divided by the output scale:
 *    q = clamp(lrintf(f(input_scale * (x - zp_in)) / output_scale) + zp_out),
 * f = v (clamp), signbit(v) ? v * alpha : v (leaky_relu), v * min(max(v + 3, 0), 6) / 6 (hardswish, as
 * TFLite's float HardSwish).
 *
 * Where a float-to-integer conversion is undefined in C (NaN or out of range, reached only by
 * absurd scale ratios), the result is the one x86-64 computes: TFLite's static_cast<int32_t> gives
 * INT32_MIN and XNNPACK's lrintf LONG_MIN, whatever the host.
 */
#include "operators/unary-table.h"

#include <math.h>

#include "kernels/requantization.h"

/* TFLite's QuantizeMultiplier (quantization_util.cc) for any real, negative included (a negative
   leaky_relu alpha gives a negative multiplier, which TFLite's arithmetic takes): frexp, round half
   away from zero to Q31, shifts below -31 flush to zero. A shift above 30: the single-rounding build
   saturates it to (2^31 - 1, 30); the double-rounding build keeps it, and its x * (1 << shift)
   overflows, so this returns 0 there. An infinite real (a float ratio that overflowed): frexp
   returns it, and converting round(inf) to int64 gives INT64_MIN as x86-64 compiles it, whose low
   32 bits make multiplier 0, shift 0. */
static int tflite_quantize_multiplier(double real, enum q8nn_rounding rounding, int32_t* multiplier,
                                      int32_t* shift) {
  if (real == 0.0 || !isfinite(real)) {
    *multiplier = 0;
    *shift = 0;
    return 1;
  }
  int exponent;
  const double q = frexp(real, &exponent);
  int64_t q_fixed = (int64_t) round(q * 2147483648.0);
  if (q_fixed == (INT64_C(1) << 31)) {
    q_fixed /= 2;
    exponent++;
  }
  if (exponent < -31) {
    exponent = 0;
    q_fixed = 0;
  }
  if (exponent > 30 && rounding == q8nn_rounding_single) {
    exponent = 30;
    q_fixed = INT32_MAX;
  }
  *multiplier = (int32_t) q_fixed; /* [-2^31, 2^31) */
  *shift = exponent;
  return exponent <= 30;
}

static int32_t tflite_mbqm(int32_t x, int32_t multiplier, int32_t shift, enum q8nn_rounding rounding) {
  return rounding == q8nn_rounding_single ? q8nn_requantize_rsingle(x, multiplier, shift)
                                          : q8nn_requantize_rdouble(x, multiplier, shift);
}

/* ---- gemmlowp int16 scalar primitives, as reference_ops::HardSwish uses them ---------------- */

/* Conversions to int16_t keep the low 16 bits (GCC and Clang define it), as TFLite's int16 stores do. */
static int16_t wrap16(int32_t v) { return (int16_t) v; }

static int16_t srdhm16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  const int32_t ab = (int32_t) a * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : 1 - (1 << 14);
  return (int16_t) ((ab + nudge) / (1 << 15)); /* C division truncates, as gemmlowp's */
}

/* TFLite's SaturatingDoublingHighMul: truncates instead of rounding. */
static int16_t sdhm16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  return (int16_t) (((int32_t) a * b) / (1 << 15));
}

/* gemmlowp RoundingDivideByPOT on int16, literally: the mask (1 << exponent) - 1 is truncated to
   int16, so exponents of 16..31 turn it into -1 and the result into x >= 0 ? 1 : -1. TFLite reaches
   those exponents for output multipliers below 2^-16 (input_scale / output_scale < 2^-9). */
static int16_t rdbpot16(int16_t x, int exponent) {
  const int16_t mask = wrap16((int32_t) ((INT64_C(1) << exponent) - 1));
  const int16_t remainder = (int16_t) (x & mask);
  const int16_t threshold = wrap16((mask >> 1) + (x < 0));
  return wrap16((x >> exponent) + (remainder > threshold));
}

static int16_t saturating_left_shift16(int16_t value, int amount) {
  int64_t result = (int64_t) value * (INT64_C(1) << amount);
  result = result < INT16_MIN ? INT16_MIN : result > INT16_MAX ? INT16_MAX : result;
  return (int16_t) result;
}

/* TFLite's DownScaleInt32ToInt16Multiplier: round a Q31 multiplier (>= 0) to Q15, saturating. */
static int16_t downscale_multiplier(int32_t multiplier) {
  if (multiplier >= INT32_MAX - (1 << 15)) return INT16_MAX;
  return (int16_t) ((multiplier + (1 << 15)) >> 16);
}

struct hardswish_params {
  int16_t output_multiplier, reluish_multiplier;
  int32_t output_exponent, reluish_exponent;
};

/* HardSwishPrepare, in float as TFLite computes it. It refuses an output multiplier exponent above
   0. The reluish exponent may reach 31 in the double-rounding build (SaturatingLeftShift then shifts
   by 1 << 30); above that its 1 << (exponent - 1) overflows, and the single-rounding build's
   QuantizeMultiplier has saturated it to 30. */
static enum q8nn_status hardswish_prepare(float input_scale, float output_scale, enum q8nn_rounding rounding,
                                          struct hardswish_params* p, const char* caller) {
  const float hires_input_scale = (1.0f / 128.0f) * input_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const float output_multiplier = hires_input_scale / output_scale;
  const float reluish_multiplier = hires_input_scale / reluish_scale;
  int32_t m;
  if (!tflite_quantize_multiplier((double) output_multiplier, rounding, &m, &p->output_exponent) ||
      p->output_exponent > 0) {
    return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                          "hardswish: input_scale / output_scale = %g needs a left shift TFLite refuses",
                          (double) (input_scale / output_scale));
  }
  p->output_multiplier = downscale_multiplier(m);
  (void) tflite_quantize_multiplier((double) reluish_multiplier, rounding, &m, &p->reluish_exponent);
  if (p->reluish_exponent > 31) {
    return q8nn_log_error(q8nn_status_unsupported_parameter, caller, "hardswish: input_scale %g out of range",
                          (double) input_scale);
  }
  p->reluish_multiplier = downscale_multiplier(m);
  return q8nn_status_success;
}

/* reference_ops::HardSwish<int8_t> for one input, before the int8 clamp. */
static int32_t hardswish_tflite(int32_t x, int32_t input_zero_point, int32_t output_zero_point,
                                const struct hardswish_params* p) {
  const int16_t input_value = (int16_t) (x - input_zero_point);                  /* [-255, 255] */
  const int16_t input_value_on_hires_input_scale = (int16_t) (input_value * 128); /* |.| <= 32640 */
  const int16_t input_value_on_preshift_output_scale =
      srdhm16(input_value_on_hires_input_scale, p->output_multiplier);
  int16_t reluish = input_value_on_hires_input_scale;
  if (p->reluish_exponent > 0) reluish = saturating_left_shift16(reluish, p->reluish_exponent - 1);
  reluish = srdhm16(reluish, p->reluish_multiplier);
  if (p->reluish_exponent > 0) reluish = saturating_left_shift16(reluish, 1);
  if (p->reluish_exponent < 0) reluish = rdbpot16(reluish, -p->reluish_exponent);
  reluish = (int16_t) ((reluish + (1 << 15)) >> 1); /* [-1, 1] to [0, 1] */
  const int16_t preshift_output = sdhm16(reluish, input_value_on_preshift_output_scale);
  const int16_t output = rdbpot16(preshift_output, -p->output_exponent);
  /* TFLite adds the zero point in its int16 output_value: the sum wraps */
  return wrap16(output + output_zero_point);
}

/* ---- float tables ---------------------------------------------------------------------------- */

/* TFLite's LUTPopulate transforms (float overloads of std::exp, std::tanh, std::expm1). */
static float tflite_function(enum q8nn_unary_operation operation, float v) {
  switch (operation) {
    case q8nn_unary_sigmoid: return 1.0f / (1.0f + expf(-v));
    case q8nn_unary_tanh: return tanhf(v);
    default: return v < 0.0f ? expm1f(v) : v; /* elu */
  }
}

/* The functions of XNNPACK's tables (lut-elementwise-nc.c), and the float definitions used for the
   operations it has no int8 table for. */
static float xnnpack_function(enum q8nn_unary_operation operation, float v, float alpha) {
  switch (operation) {
    case q8nn_unary_sigmoid: return signbit(v) ? 1.0f / (1.0f + expf(-v)) : 1.0f - 1.0f / (1.0f + expf(v));
    case q8nn_unary_tanh: return tanhf(v);
    case q8nn_unary_elu: return signbit(v) ? alpha * expm1f(v) : v;
    case q8nn_unary_leaky_relu: return signbit(v) ? v * alpha : v;
    case q8nn_unary_hardswish: return v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    case q8nn_unary_clamp: return v;
  }
  return v;
}

/* static_cast<int32_t>(float) as x86-64 executes it (cvttss2si): truncation, and INT32_MIN for NaN
   and for values outside int32, where C leaves the conversion undefined. */
static int32_t x86_float_to_int32(float f) {
  if (!(f >= -2147483648.0f && f < 2147483648.0f)) return INT32_MIN;
  return (int32_t) f;
}

/* lrintf as x86-64 executes it (cvtss2si): nearest, ties to even, and INT64_MIN (LONG_MIN) for NaN
   and for values outside the 64-bit range. */
static int64_t x86_lrintf(float f) {
  const float r = rintf(f);
  if (!(r >= -9223372036854775808.0f && r < 9223372036854775808.0f)) return INT64_MIN;
  return (int64_t) r;
}

static int8_t clamp_s8(int32_t v, int32_t lo, int32_t hi) { return (int8_t) (v < lo ? lo : v > hi ? hi : v); }

/* ---- the table ----------------------------------------------------------------------------- */

static int valid_zero_point(int32_t zp) { return zp >= -128 && zp <= 127; }
static int valid_scale(float s) { return isnormal(s) && s > 0.0f; }

static int valid_operation(enum q8nn_unary_operation operation) {
  switch (operation) {
    case q8nn_unary_clamp:
    case q8nn_unary_hardswish:
    case q8nn_unary_sigmoid:
    case q8nn_unary_tanh:
    case q8nn_unary_leaky_relu:
    case q8nn_unary_elu: return 1;
  }
  return 0;
}

enum q8nn_status q8nn_unary_table_s8(enum q8nn_unary_operation operation, const struct q8nn_unary_quantization* quant,
                                     int8_t table[256], const char* caller) {
  if (caller == NULL) caller = __func__;
  if (quant == NULL || table == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "quant and table must not be NULL");
  }
  if (!valid_operation(operation)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown unary operation %d", (int) operation);
  }
  if (!valid_zero_point(quant->input_zero_point) || !valid_zero_point(quant->output_zero_point)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero points %d, %d outside [-128, 127]",
                          (int) quant->input_zero_point, (int) quant->output_zero_point);
  }
  if (!valid_scale(quant->input_scale) || !valid_scale(quant->output_scale)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "scales %g, %g must be normal floats > 0",
                          (double) quant->input_scale, (double) quant->output_scale);
  }
  if (quant->output_min > quant->output_max) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output_min %d > output_max %d",
                          (int) quant->output_min, (int) quant->output_max);
  }
  /* alpha is read by these two only; the others ignore it, whatever it holds */
  if ((operation == q8nn_unary_leaky_relu || operation == q8nn_unary_elu) && !isfinite(quant->alpha)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "alpha %g must be finite", (double) quant->alpha);
  }
  const enum q8nn_rounding rounding = quant->rounding;
  if (rounding != q8nn_rounding_double && rounding != q8nn_rounding_single && rounding != q8nn_rounding_fp32) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown rounding %d", (int) rounding);
  }

  const int32_t zp_in = quant->input_zero_point, zp_out = quant->output_zero_point;
  const float s_in = quant->input_scale, s_out = quant->output_scale;
  const int32_t lo = quant->output_min, hi = quant->output_max;
  const float alpha = quant->alpha;

  /* The output quantizations of TFLite's int8 op specification and of xnn_create_sigmoid_nc_qs8 /
     _tanh_nc_qs8. TFLite's kReference Prepare itself checks only the sigmoid scale; its tables for
     other sigmoid zero points or tanh quantizations would be LUTPopulate's formula. */
  if (operation == q8nn_unary_sigmoid && (s_out != 0x1.0p-8f || zp_out != -128)) {
    return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                          "sigmoid needs output scale 1/256 and zero point -128 (got %g, %d)", (double) s_out,
                          (int) zp_out);
  }
  if (operation == q8nn_unary_tanh && (s_out != 0x1.0p-7f || zp_out != 0)) {
    return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                          "tanh needs output scale 1/128 and zero point 0 (got %g, %d)", (double) s_out,
                          (int) zp_out);
  }

  int8_t result[256];
  if (rounding == q8nn_rounding_fp32) {
    const int table_function =
        operation == q8nn_unary_sigmoid || operation == q8nn_unary_tanh || operation == q8nn_unary_elu;
    if (operation == q8nn_unary_elu && !(alpha > 0.0f && isnormal(alpha))) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                            "XNNPACK's ELU needs alpha a normal float > 0 (got %g)", (double) alpha);
    }
    const float inv_output_scale = 1.0f / s_out;
    for (int32_t x = -128; x <= 127; x++) {
      const float v = (float) (x - zp_in) * s_in;
      const float y = xnnpack_function(operation, v, alpha);
      /* lrintf(...) + zero point in long: the addition wraps as compiled */
      const int64_t q = (int64_t) ((uint64_t) x86_lrintf(table_function ? y * inv_output_scale : y / s_out) +
                                   (uint64_t) (int64_t) zp_out);
      result[(uint8_t) x] = (int8_t) (q < lo ? lo : q > hi ? hi : q);
    }
  } else if (operation == q8nn_unary_sigmoid || operation == q8nn_unary_tanh || operation == q8nn_unary_elu) {
    if (operation == q8nn_unary_elu && alpha != 1.0f) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                            "TFLite's ELU has alpha 1 (got %g); other alphas need q8nn_rounding_fp32", (double) alpha);
    }
    const float inverse_scale = 1.0f / s_out;
    for (int32_t x = -128; x <= 127; x++) {
      const float v = s_in * (float) (x - zp_in);
      const float rescaled = roundf(tflite_function(operation, v) * inverse_scale); /* TfLiteRound */
      result[(uint8_t) x] = clamp_s8(x86_float_to_int32(rescaled + (float) zp_out), lo, hi);
    }
  } else if (operation == q8nn_unary_hardswish) {
    struct hardswish_params p;
    const enum q8nn_status status = hardswish_prepare(s_in, s_out, rounding, &p, caller);
    if (status != q8nn_status_success) return status;
    for (int32_t x = -128; x <= 127; x++) {
      result[(uint8_t) x] = clamp_s8(hardswish_tflite(x, zp_in, zp_out, &p), lo, hi);
    }
  } else {
    /* clamp and leaky_relu: float quotients (and product), converted to double for QuantizeMultiplier */
    int32_t identity_multiplier, identity_shift, alpha_multiplier = 0, alpha_shift = 0;
    const float identity = s_in / s_out;
    if (!tflite_quantize_multiplier((double) identity, rounding, &identity_multiplier, &identity_shift)) {
      return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                            "input_scale / output_scale = %g needs a shift above 30", (double) identity);
    }
    if (operation == q8nn_unary_leaky_relu) {
      const float alpha_real = s_in * alpha / s_out;
      if (!tflite_quantize_multiplier((double) alpha_real, rounding, &alpha_multiplier, &alpha_shift)) {
        return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                              "input_scale * alpha / output_scale = %g needs a shift above 30", (double) alpha_real);
      }
    }
    for (int32_t x = -128; x <= 127; x++) {
      const int32_t d = x - zp_in;
      const int negative = operation == q8nn_unary_leaky_relu && d < 0;
      const int32_t scaled = negative ? tflite_mbqm(d, alpha_multiplier, alpha_shift, rounding)
                                      : tflite_mbqm(d, identity_multiplier, identity_shift, rounding);
      /* output_offset + ... in int32, wrapping as TFLite's compiled code does, then the clamp */
      result[(uint8_t) x] = q8nn_output_clamp(scaled, zp_out, lo, hi);
    }
  }
  for (int i = 0; i < 256; i++) table[i] = result[i];
  return q8nn_status_success;
}
