/*
 * Portable int8 operators of the model layer (the ones q8nn's core does not provide), each
 * bit-exact with TFLite's reference kernel. Pure functions of pointers and a params struct;
 * no allocation. Shapes are validated by the loader before these run.
 */
#ifndef Q8NN_MODEL_OPS_H
#define Q8NN_MODEL_OPS_H

#include <stddef.h>
#include <stdint.h>

#define Q8NN_MODEL_OPS_MAX_DIMS 6

/* TFLite MultiplyByQuantizedMultiplier with double rounding (shift > 0 = left). */
int32_t q8nn_model_mbqm(int32_t x, int32_t multiplier, int shift);
/* TFLite QuantizeMultiplier; returns 0 when the shift exceeds 30 (unrepresentable). */
int q8nn_model_quantize_multiplier(double real, int32_t* multiplier, int* shift);

/* ---- softmax: TFLite reference_ops::Softmax for int8 in, int8 out (gemmlowp fixed point) ---- */
struct q8nn_model_softmax_params {
  int32_t input_multiplier;   /* PreprocessSoftmaxScaling(beta, input_scale, 5) */
  int32_t input_left_shift;
  int32_t diff_min;           /* -CalculateInputRadius(5, input_left_shift) */
  /* exp_on_negative_values of the rescaled difference, for differences 0..-255 (index = -diff);
     0 where the difference is below diff_min (those contribute nothing and output -128). */
  int32_t exp_table[256];
  uint8_t in_range[256];
};
/* Returns 0 when beta * input_scale cannot be represented (TFLite's QuantizeMultiplierGreaterThanOne
   would fail its check). */
int q8nn_model_softmax_prepare(double beta, double input_scale, struct q8nn_model_softmax_params* p);
void q8nn_model_softmax_s8(const struct q8nn_model_softmax_params* p, size_t outer, size_t depth,
                           const int8_t* input, int8_t* output);

/* ---- pooling: reference_integer_ops::AveragePool / MaxPool ---------------------------------- */
struct q8nn_model_pool_params {
  size_t batch, input_height, input_width, channels, output_height, output_width;
  size_t filter_height, filter_width, stride_height, stride_width, padding_top, padding_left;
  int32_t output_min, output_max;
};
void q8nn_model_average_pool_s8(const struct q8nn_model_pool_params* p, const int8_t* input, int8_t* output);
void q8nn_model_max_pool_s8(const struct q8nn_model_pool_params* p, const int8_t* input, int8_t* output);

/* ---- MUL and SUB with broadcasting (rank <= 6, shapes right-aligned, padded with 1) -------- */
struct q8nn_model_binary_params {
  size_t out_shape[Q8NN_MODEL_OPS_MAX_DIMS];
  size_t a_stride[Q8NN_MODEL_OPS_MAX_DIMS]; /* 0 on broadcast dimensions */
  size_t b_stride[Q8NN_MODEL_OPS_MAX_DIMS];
  int32_t a_offset, b_offset, output_offset; /* offsets = -zero point (output: +zero point) */
  int32_t left_shift;                        /* SUB: 20 */
  int32_t a_multiplier, a_shift, b_multiplier, b_shift, output_multiplier, output_shift;
  int32_t output_min, output_max;
};
/* Fills the shapes and strides; returns 0 when the shapes do not broadcast to out_shape. */
int q8nn_model_binary_broadcast(size_t a_rank, const size_t* a_shape, size_t b_rank, const size_t* b_shape,
                                size_t out_rank, const size_t* out_shape, struct q8nn_model_binary_params* p);
/* reference_integer_ops::MulElementwise / BroadcastMul6DSlow */
void q8nn_model_mul_s8(const struct q8nn_model_binary_params* p, const int8_t* a, const int8_t* b, int8_t* out);
/* reference_ops SubElementwise / BroadcastQuantSubSlow for int8 */
void q8nn_model_sub_s8(const struct q8nn_model_binary_params* p, const int8_t* a, const int8_t* b, int8_t* out);

/* ---- PAD (constant = output zero point), rank <= 6 ----------------------------------------- */
void q8nn_model_pad_s8(size_t rank, const size_t* in_shape, const size_t* before, const size_t* out_shape,
                       int8_t value, const int8_t* input, int8_t* output);

/* ---- MEAN over H and W of 4D NHWC with keep_dims (reference_integer_ops::Mean) ------------- */
struct q8nn_model_mean_params {
  size_t batch, height, width, channels;
  int32_t input_zero_point, output_zero_point;
  int32_t multiplier;  /* QuantizeMultiplier(input_scale / output_scale) */
  int shift;
};
void q8nn_model_mean_hw_s8(const struct q8nn_model_mean_params* p, const int8_t* input, int8_t* output);

/* ---- QUANTIZE (float32 -> int8) and DEQUANTIZE (int8 -> float32) -------------------------- */
void q8nn_model_quantize_f32_s8(size_t n, float scale, int32_t zero_point, const float* input, int8_t* output);
void q8nn_model_dequantize_s8_f32(size_t n, float scale, int32_t zero_point, const int8_t* input, float* output);

#endif
