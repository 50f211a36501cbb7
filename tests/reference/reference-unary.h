/*
 * Naive reference for the int8 elementwise non-linearities (q8nn_create_unary_elementwise_nc_s8),
 * one element at a time, written from TFLite's and XNNPACK's source arithmetic, independently of
 * src/ (nothing here reads or includes src/).
 *
 * rounding 0 (TFLite double rounding) and 1 (TFLITE_SINGLE_ROUNDING), TFLite's int8 kernels for the
 * kReference kernel type (tensorflow/lite/kernels/activations.cc), parameters as its Prepare
 * functions derive them from the float scales (TfLiteQuantizationParams.scale is a float, so the
 * scale ratios below are float operations converted to double):
 *  - CLAMP: ReluPrepare's QuantizeMultiplier(float input_scale / output_scale), then
 *    reference_ops::ReluX (what optimized_ops::ReluX is): output_zp + MultiplyByQuantizedMultiplier(
 *    x - input_zp), clamped to the activation range, which here is [output_min, output_max].
 *  - LEAKY_RELU: LeakyReluPrepare's multipliers QuantizeMultiplier(float input_scale * alpha /
 *    output_scale) and QuantizeMultiplier(float input_scale / output_scale), then
 *    reference_ops::QuantizeLeakyRelu (identity multiplier for x - input_zp >= 0, alpha below).
 *  - HARDSWISH: HardSwishPrepare (float hires_input_scale = input_scale / 128, reluish scale
 *    3 / 32768, QuantizeMultiplier then DownScaleInt32ToInt16Multiplier; refused when the output
 *    multiplier's exponent is > 0), then reference_ops::HardSwish<int8_t> in int16 fixed point with
 *    gemmlowp's int16 SaturatingRoundingDoublingHighMul and RoundingDivideByPOT. That int16
 *    RoundingDivideByPOT truncates its mask 2^exponent - 1 to int16_t, so for an exponent of 16 or
 *    more (output multiplier below 2^-16) it gives 1 for x >= 0 and -1 for x < 0; reproduced here.
 *  - SIGMOID (LOGISTIC), TANH, ELU: the 256-entry table of common.h LUTPopulateInt8 that
 *    SigmoidPrepare / TanhPrepare / EluPrepare fill for kReference and kGenericOptimized:
 *    clamp(int32(roundf(f(input_scale * (x - input_zp)) * (1 / output_scale)) + output_zp)), with
 *    f = 1 / (1 + expf(-v)), tanhf(v), v < 0 ? expm1f(v) : v, all in float.
 *    SIGMOID needs output scale 1/256 (checked by SigmoidPrepare) and zero point -128, TANH 1/128
 *    and 0: the output quantization TFLite's int8 quantization specification fixes for LOGISTIC and
 *    TANH (TanhPrepare's table path checks neither). ELU has no alpha in TFLite: alpha must be 1.
 *    LUTPopulateInt8 computes as the PopulateLookupTable it replaced (std::round in float).
 * rounding 1 differs from 0 in MultiplyByQuantizedMultiplier (one rounding in int64) and in
 * QuantizeMultiplier, which saturates a shift above 30 to (2^31 - 1, 30).
 *
 * rounding 2, XNNPACK as packaged by Debian (libxnnpack 0.0~git20220216.ae108ef):
 *  - SIGMOID, TANH, ELU: create_lut_elementwise_nc of src/operators/lut-elementwise-nc.c, called by
 *    xnn_create_sigmoid_nc_qs8 (output scale 1/256 and zero point -128 only), xnn_create_tanh_nc_qs8
 *    (1/128 and 0 only) and xnn_create_elu_nc_qs8 (alpha positive and normal only):
 *    clamp(lrintf(f((float) (x - input_zp) * input_scale) * (1.0f / output_scale)) + output_zp) with
 *    f = signbit(v) ? 1 / (1 + expf(-v)) : 1 - 1 / (1 + expf(v)), tanhf(v),
 *    signbit(v) ? alpha * expm1f(v) : v.
 *  - CLAMP, LEAKY_RELU, HARDSWISH (no qs8 operator in that XNNPACK):
 *    clamp(lrintf(f(input_scale * (float) (x - input_zp)) / output_scale) + output_zp) with f = v,
 *    signbit(v) ? v * alpha : v, v * min(max(v + 3, 0), 6) / 6, in float.
 * The clamp is [output_min, output_max]. lrintf rounds to nearest even; TFLite's roundf rounds
 * half away from zero. That XNNPACK refuses output_min == output_max (invalid parameter); here, as
 * in q8nn, it is accepted.
 */
#ifndef Q8NN_TESTS_REFERENCE_UNARY_H
#define Q8NN_TESTS_REFERENCE_UNARY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Same numbers as enum q8nn_unary_operation. */
enum ref_unary_op {
  REF_UNARY_CLAMP = 1,
  REF_UNARY_HARDSWISH = 2,
  REF_UNARY_SIGMOID = 3,
  REF_UNARY_TANH = 4,
  REF_UNARY_LEAKY_RELU = 5,
  REF_UNARY_ELU = 6,
};

struct ref_unary_params {
  int op;       /* enum ref_unary_op */
  int rounding; /* 0 TFLite double rounding, 1 TFLite single rounding, 2 XNNPACK fp32 */
  float input_scale;
  int32_t input_zero_point;
  float output_scale;
  int32_t output_zero_point;
  int32_t output_min, output_max;
  float alpha; /* LEAKY_RELU: negative slope; ELU: alpha (1 for rounding 0 and 1); else ignored */
};

/**
 * The operator's output for input x.
 * @return 1 and *out written; 0 when the real kernel refuses these parameters (TFLite's Prepare or
 *   op specification, XNNPACK's create function, or where TFLite's arithmetic is undefined: a
 *   double-rounding multiplier shift above 30, a HardSwish reluish exponent above 31), and 0 for
 *   parameters outside q8nn's domain (unknown op or rounding, zero points or clamp bounds outside
 *   [-128, 127], output_min > output_max, a scale that is not a positive normal float, a non-finite
 *   alpha for LEAKY_RELU or ELU).
 *
 * Where a float-to-integer conversion is out of range (scale ratios near 2^24 and above), the result
 * is the x86-64 one: TFLite's static_cast<int32_t> gives INT32_MIN (then -128); XNNPACK's lrintf
 * gives LONG_MIN, to which the long zero point is added with wrap-around as compiled.
 */
int ref_unary_s8(const struct ref_unary_params* p, int8_t x, int8_t* out);

#ifdef __cplusplus
}
#endif

#endif /* Q8NN_TESTS_REFERENCE_UNARY_H */
