/*
 * Naive references for the model layer's portable int8 operators (src/model/model-ops.c), written
 * from TFLite's reference kernels and gemmlowp's fixed-point definitions, independently of src/:
 * parameters are derived here from the float scales, and loops follow TFLite's index form.
 */
#ifndef Q8NN_TESTS_REFERENCE_MODEL_H
#define Q8NN_TESTS_REFERENCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

/** reference_ops::Softmax (int8 in, int8 out) with PreprocessSoftmaxScaling(beta, scale, 5) and
    diff_min = -CalculateInputRadius(5, left_shift). Returns 0 when the scaling is unrepresentable. */
int ref_softmax_s8(float beta, float input_scale, size_t outer, size_t depth, const int8_t* in, int8_t* out);

/** reference_integer_ops::AveragePool (avg = 1) or MaxPool (avg = 0), NHWC. */
void ref_pool_s8(int avg, size_t batch, size_t in_h, size_t in_w, size_t channels, size_t out_h, size_t out_w,
                 size_t filter_h, size_t filter_w, size_t stride_h, size_t stride_w, size_t pad_top, size_t pad_left,
                 int32_t act_min, int32_t act_max, const int8_t* in, int8_t* out);

/** pytorch_qnnpack's average pooling (pytorch_qnnp_create_average_pooling2d_nhwc_q8 and its q8avgpool
    kernels), NHWC: every cell of the filter_h x filter_w window, padding cells holding the input
    zero point, summed with the bias -in_zp x window; scale = in_scale / (out_scale x (float)
    window) in float; out = lrintf((float) acc x scale) + out_zp, clamped. int8 values (uint8 minus
    128, zero points likewise). */
void ref_avgpool_qnnpack_s8(size_t batch, size_t in_h, size_t in_w, size_t channels, size_t out_h, size_t out_w,
                            size_t filter_h, size_t filter_w, size_t stride_h, size_t stride_w, size_t pad_top,
                            size_t pad_left, int32_t in_zp, float in_scale, int32_t out_zp, float out_scale,
                            int32_t act_min, int32_t act_max, const int8_t* in, int8_t* out);

/** int8 MUL (mul = 1, TFLite mul.cc parameters: float product of scales), PyTorch's quantized mul
    (mul = 2, its qmul_kernel: zp + lrintf((float) product * m), m = a_scale * b_scale * (1.0f /
    out_scale) in float), XNNPACK's qs8 multiply (mul = 3: the same with m = a_scale * b_scale /
    out_scale) or SUB (mul = 0, left shift 20), with numpy broadcasting of rank <= 6.
    Returns 0 for unrepresentable scales. */
int ref_mul_sub_s8(int mul, size_t a_rank, const size_t* a_shape, const int8_t* a, float a_scale, int32_t a_zp,
                   size_t b_rank, const size_t* b_shape, const int8_t* b, float b_scale, int32_t b_zp,
                   float out_scale, int32_t out_zp, int32_t act_min, int32_t act_max, int8_t* out);

/** TFLite pad.cc for int8 (PAD / PADV2): each output element is the input element it maps to, or
    `value` (the output zero point, or PADV2's constant) where it falls into the padding. */
void ref_pad_s8(size_t rank, const size_t* in_shape, const size_t* before, const size_t* after, int8_t value,
                const int8_t* in, int8_t* out);

/** TFLite reduce.cc EvalMeanReferenceOps for int8 (MEAN, kReference): picks
    reference_integer_ops::Mean (keep_dims, 4D, raw axes {1,2} or {2,1}), reference_ops::Mean<int8,int>
    (equal input and output quantization) or reference_ops::QuantizedMeanOrSum (float), and runs it
    with ReduceSumImpl's index walk. out receives prod(out_shape) values; the caller gives the
    output shape. Returns 0 when TFLite's prepare would fail (axis out of range, multiplier shift
    above 30 on the integer path). */
int ref_mean_s8(size_t rank, const size_t* shape, const int32_t* axes, size_t num_axes, int keep_dims,
                const int8_t* in, float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t* out);

/** reference_ops::Concatenation: inputs of `rank` dims that differ only along `axis`. */
void ref_concat_s8(size_t rank, size_t axis, size_t num_inputs, const size_t (*shapes)[6], const int8_t* const* inputs,
                   int8_t* out);

/** reference_ops::AffineQuantize float -> int8 (round(x / (float) scale), + zp and clamp in double). */
void ref_quantize_s8(size_t n, float scale, int32_t zp, const float* in, int8_t* out);
/** reference_ops::Requantize int8/uint8 -> int8/uint8 with QuantizeMultiplier(in_scale / out_scale).
    Returns 0 when the multiplier is unrepresentable. */
int ref_requantize_8(size_t n, int in_unsigned, float in_scale, int32_t in_zp, int out_unsigned, float out_scale,
                     int32_t out_zp, const void* in, void* out);
/** reference_ops::Dequantize: (float) (double scale * (x - zp)). */
void ref_dequantize_8(size_t n, int in_unsigned, float scale, int32_t zp, const void* in, float* out);

/** TFLite Micro's int8 FULLY_CONNECTED: reference_integer_ops::FullyConnected (per tensor) or
    FullyConnectedPerChannel (num_scales == units), for `rows` input rows of `depth` values and a
    [units][depth] filter with zero point 0; bias NULL or `units` values. Multipliers as
    CalculateOpDataFullyConnected derives them: per tensor GetQuantizedConvolutionMultipler (the
    product input_scale * filter_scale in float, then double), per channel the double product
    (double) input_scale * filter_scale[c] / output_scale. Returns 0 when one is unrepresentable. */
int ref_fully_connected_s8(size_t rows, size_t depth, size_t units, const int8_t* in, float in_scale, int32_t in_zp,
                           const int8_t* filter, size_t num_scales, const float* filter_scales, const int32_t* bias,
                           float out_scale, int32_t out_zp, int32_t act_min, int32_t act_max, int8_t* out);

/** TFLite CalculateActivationRangeQuantized for int8: act 0 NONE, 1 RELU, 2 RELU_N1_TO_1, 3 RELU6. */
void ref_activation_range_s8(int act, float scale, int32_t zp, int32_t* lo, int32_t* hi);

#endif
