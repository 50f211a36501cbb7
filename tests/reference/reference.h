/*
 * Naive reference for q8nn's operators: TFLite's reference integer arithmetic, written from the
 * TFLite / gemmlowp definitions and independently of src/ (nothing here reads or includes src/).
 *
 * Every function is a plain loop nest over the output; accumulators are int64 so that an int32
 * overflow, which TFLite's int32 accumulator would wrap, is detected (ref_overflow_count) instead
 * of silently reproduced. The value used afterwards is wrapped to int32, which is what TFLite's
 * compiled int32 code computes.
 */
#ifndef Q8NN_TESTS_REFERENCE_H
#define Q8NN_TESTS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fixed-point primitives (gemmlowp / TFLite) ------------------------------------------- */

/** gemmlowp SaturatingRoundingDoublingHighMul: round-half-away-from-zero of a*b/2^31, with the
    single overflow case (INT32_MIN * INT32_MIN) saturated to INT32_MAX. */
int32_t ref_srdhm(int32_t a, int32_t b);

/** gemmlowp RoundingDivideByPOT: x / 2^exponent rounded half away from zero; exponent in [0, 31]. */
int32_t ref_rdbpot(int32_t x, int exponent);

/**
 * TFLite MultiplyByQuantizedMultiplier(int32 x, multiplier, shift), shift positive = left.
 * rounding 0 = double rounding: RDBPOT(SRDHM(x * 2^max(shift,0), multiplier), max(-shift,0)),
 *   with x * 2^left computed modulo 2^32 as TFLite's compiled int32 code does.
 * rounding 1 = TFLITE_SINGLE_ROUNDING: (x * multiplier + 2^(30-shift)) >> (31-shift) in int64,
 *   truncated to its low 32 bits as TFLite's static_cast<int32_t> does (TFLite only DCHECKs the range).
 */
int32_t ref_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift, int rounding);

/**
 * TFLite QuantizeMultiplier: frexp, round(q * 2^31) half away from zero, fix-up when that rounds
 * to 2^31, shift < -31 flushed to (0, 0). real == 0 gives (0, 0).
 * @return 1 when the result is representable (shift <= 30), 0 otherwise (outputs still written).
 */
int ref_quantize_multiplier(double real, int32_t* multiplier, int32_t* shift);

/* ---- XNNPACK's fp32 requantization (qs8/qc8 convolutions) ------------------------------- */

/**
 * XNNPACK's per-channel requantization scale, in float as its create function computes it:
 * input_scale * kernel_scale, rounded to float, divided by output_scale, rounded to float.
 */
float ref_fp32_scale(float input_scale, float kernel_scale, float output_scale);

/**
 * XNNPACK's fp32 requantization of one int32 accumulator: (float) acc (rounded to nearest even
 * above 2^24), times scale in float, clamped to [out_min - zp, out_max - zp], rounded to the nearest
 * integer with ties to even, plus zp.
 */
int8_t ref_requantize_fp32(int32_t acc, float scale, int32_t zp, int32_t out_min, int32_t out_max);

/* ---- convolution --------------------------------------------------------------------------- */

struct ref_conv_params {
  size_t batch, in_h, in_w, in_c /* per group */, groups, out_c /* per group */, k_h, k_w, stride_h,
      stride_w, dil_h, dil_w, pad_top, pad_left, pad_bottom, pad_right, in_pixel_stride,
      out_pixel_stride;
  int32_t in_zp, out_zp, out_min, out_max;
  const int32_t* multiplier; /* per output channel, already expanded */
  const int32_t* shift;      /* per output channel, already expanded */
  int rounding;              /* 0 double, 1 single, 2 XNNPACK fp32 (uses scale, not multiplier/shift) */
  const float* scale;        /* rounding 2: per output channel requantization scale, already expanded */
};

/** TFLite output size: (in + pads - dil*(k-1) - 1) / stride + 1; 0 when that is not positive. */
void ref_output_size(const struct ref_conv_params* p, size_t* out_h, size_t* out_w);

/**
 * TFLite reference_integer_ops::ConvPerChannel with groups.
 * kernel: [groups*out_c][k_h][k_w][in_c] (OHWI, groups stacked along O); bias [groups*out_c] or NULL.
 * Writes only the groups*out_c first bytes of each output pixel.
 */
void ref_conv2d(const struct ref_conv_params* p, const int8_t* input, const int8_t* kernel,
                const int32_t* bias, int8_t* output);

/**
 * TFLite reference_integer_ops::TransposeConv (per channel, int8) with groups: input pixel (iy, ix)
 * adds to output pixel (iy * stride + ky * dil - pad_top, ix * stride + kx * dil - pad_left) when
 * that lies inside out_h x out_w. kernel [groups*out_c][k_h][k_w][in_c]; pad_bottom/right unused.
 */
void ref_transpose_conv2d(const struct ref_conv_params* p, size_t out_h, size_t out_w, const int8_t* input,
                          const int8_t* kernel, const int32_t* bias, int8_t* output);

/**
 * TFLite reference_integer_ops::DepthwiseConvPerChannel. in_c = channels, out_c = depth
 * multiplier, groups ignored. kernel: [k_h][k_w][channels*dm]; output channel c*dm+m reads input
 * channel c; multiplier/shift/bias per output channel.
 */
void ref_depthwise(const struct ref_conv_params* p, const int8_t* input, const int8_t* kernel,
                   const int32_t* bias, int8_t* output);

/** Number of accumulators that left int32 since the last reset (TFLite would have wrapped). */
size_t ref_overflow_count(void);
void ref_reset_overflow_count(void);

/* ---- add ----------------------------------------------------------------------------------- */

#define REF_MAX_DIMS 6

struct ref_add_params {
  int32_t a_zp, b_zp, out_zp, left_shift, a_mult, a_shift, b_mult, b_shift, out_mult, out_shift,
      out_min, out_max;
};

/**
 * TFLM CalculateOpDataAdd: left_shift 20, twice_max = 2*max(a,b) in double, input multipliers
 * s_i/twice_max, output multiplier twice_max/(2^20 * s_out), each by QuantizeMultiplier with
 * shift <= 0 required. @return 0 when a scale is not finite/positive or a shift would be > 0.
 */
int ref_add_params_from_scales(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp,
                               float out_scale, int32_t out_zp, int32_t out_min, int32_t out_max,
                               struct ref_add_params* p);

/** TFLite reference_integer_ops int8 AddElementwise on one pair. */
int8_t ref_add_element(const struct ref_add_params* p, int8_t a, int8_t b);

/**
 * numpy broadcast of two shapes (rank <= 6, rank 0 = scalar, shape may be NULL then).
 * @return 1 and the output rank/shape when compatible, 0 otherwise.
 */
int ref_broadcast_shape(size_t a_rank, const size_t* a_shape, size_t b_rank, const size_t* b_shape,
                        size_t* out_rank, size_t out_shape[REF_MAX_DIMS]);

/** Elementwise add with numpy broadcasting (shapes must be compatible). out is dense, of the
    broadcast shape; it may alias a or b when that operand has the output shape. */
void ref_add(const struct ref_add_params* p, size_t a_rank, const size_t* a_shape, const int8_t* a,
             size_t b_rank, const size_t* b_shape, const int8_t* b, int8_t* out);

/* ---- XNNPACK's qs8 add ------------------------------------------------------------------------ */

struct ref_xnn_add_params {
  int32_t a_multiplier, b_multiplier, bias; /* bias = 2^(shift-1) - a_mult*a_zp - b_mult*b_zp */
  uint32_t shift;                           /* [13, 30] */
  int32_t out_zp, out_min, out_max;
  /* 1: pytorch_qnnpack's add (ref_qnnpack_add_params_from_scales): the accumulator sum - 2^(shift-1)
     is divided by 2^shift rounding half away from zero, not half up */
  int qnnpack;
};

/**
 * XNNPACK's xnn_create_add_nd_qs8 checks and xnn_init_qs8_add_minmax_*_params, from the
 * definition: every scale normal and > 0 (else 1 = invalid parameter); a_scale / out_scale and
 * b_scale / out_scale (float divisions) in [2^-10, 2^8) (else 2 = unsupported parameter). The
 * larger ratio's binary exponent e gives shift = 20 - e; multiplier_i = round-to-nearest-even of
 * ratio_i * 2^shift. @return 0 on success.
 */
int ref_xnn_add_params_from_scales(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float out_scale,
                                   int32_t out_zp, int32_t out_min, int32_t out_max, struct ref_xnn_add_params* p);

/** pytorch_qnnpack's add (pytorch_qnnp_compute_add_quantization_params, its x86 and scalar kernels):
    ratios a_scale / out_scale, b_scale / out_scale in float, each in [2^-14, 2^8); shift = 21 -
    binary exponent of the larger; multipliers rintf(ratio * 2^shift). Returns 0 (p set, qnnpack = 1),
    1 (a scale not a normal positive float), 2 (a ratio out of range, or a shift above 30: the larger
    ratio below 2^-9, which q8nn does not take). */
int ref_qnnpack_add_params_from_scales(float a_scale, int32_t a_zp, float b_scale, int32_t b_zp, float out_scale,
                                       int32_t out_zp, int32_t out_min, int32_t out_max,
                                       struct ref_xnn_add_params* p);

/** XNNPACK's qs8 add of one pair: (a*a_mult + b*b_mult + bias) (exact: below 2^31 in magnitude),
    arithmetic shift right by shift, clamped to [out_min - zp, out_max - zp], plus zp. */
int8_t ref_xnn_add_element(const struct ref_xnn_add_params* p, int8_t a, int8_t b);

/** As ref_add, with XNNPACK's arithmetic. */
void ref_xnn_add(const struct ref_xnn_add_params* p, size_t a_rank, const size_t* a_shape, const int8_t* a,
                 size_t b_rank, const size_t* b_shape, const int8_t* b, int8_t* out);

#ifdef __cplusplus
}
#endif

#endif /* Q8NN_TESTS_REFERENCE_H */
