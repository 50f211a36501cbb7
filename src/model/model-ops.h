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

/* ---- pooling: the shape of AVERAGE_POOL_2D / MAX_POOL_2D as the loader derives it; q8nn's pooling
   operators run them (q8nn.h) --------------------------------------------------------------------- */
struct q8nn_model_pool_params {
  size_t batch, input_height, input_width, channels, output_height, output_width;
  size_t filter_height, filter_width, stride_height, stride_width, padding_top, padding_left;
  int32_t output_min, output_max;
};

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

/* MUL or SUB by a constant b of nb values (b a scalar, or b varying along the innermost output
   dimension only): table[j * 256 + (uint8_t) a] = the element function of (a, b[j]), the same
   arithmetic as q8nn_model_mul_s8 / sub_s8, so the lookup is exact. */
void q8nn_model_binary_table(const struct q8nn_model_binary_params* p, int mul, const int8_t* b, size_t nb,
                             int8_t* table);
/* out[i] = table[(i % nb) * 256 + (uint8_t) a[i]], n a multiple of nb. Where the AVX-512 tier is
   active in q8nn (q8nn_get_active_isa) and the CPU has AVX-512 VBMI, nb <= 4 runs the VPERMI2B form
   (q8nn_model_table_s8_with). */
void q8nn_model_table_s8(size_t n, size_t nb, const int8_t* table, const int8_t* a, int8_t* out);
/* The same with the form chosen by the caller: vbmi 1 needs q8nn_model_has_vbmi() (tests). */
void q8nn_model_table_s8_with(int vbmi, size_t n, size_t nb, const int8_t* table, const int8_t* a, int8_t* out);
int q8nn_model_has_vbmi(void);

/* ---- PAD / PADV2 (value = the output zero point, or PADV2's constant), rank <= 6 ------------ */
void q8nn_model_pad_s8(size_t rank, const size_t* in_shape, const size_t* before, const size_t* out_shape,
                       int8_t value, const int8_t* input, int8_t* output);

/* ---- MEAN: TFLite reduce.cc EvalMeanReferenceOps for int8 (kReference) ---------------------
 * Three paths, chosen as TFLite chooses them:
 *  HW:    keep_dims, rank 4, the axis tensor is exactly {1, 2} or {2, 1} (raw values, before
 *         negative axes are resolved): reference_integer_ops::Mean: sum of (x - input zp),
 *         MultiplyByQuantizedMultiplier(input_scale / output_scale), divide by H*W rounding half
 *         away from zero, + output zp, clamp.
 *  SAME:  input and output quantization equal: reference_ops::Mean<int8_t, int>: the int sum of
 *         the raw values divided by the element count, truncated toward zero.
 *  FLOAT: otherwise reference_ops::QuantizedMeanOrSum (compute_sum = false), float arithmetic:
 *         scale = in/out (float), bias = -input_zp * scale + 0.5f,
 *         clamp(round((float) sum / (float) n * scale + bias) + output_zp). */
enum q8nn_model_mean_path { Q8NN_MODEL_MEAN_HW, Q8NN_MODEL_MEAN_SAME, Q8NN_MODEL_MEAN_FLOAT };
struct q8nn_model_mean_params {
  enum q8nn_model_mean_path path;
  /* kept dimensions (output order) and reduced dimensions, each with its input stride */
  size_t num_kept, kept_size[Q8NN_MODEL_OPS_MAX_DIMS], kept_stride[Q8NN_MODEL_OPS_MAX_DIMS];
  size_t num_reduced, reduced_size[Q8NN_MODEL_OPS_MAX_DIMS], reduced_stride[Q8NN_MODEL_OPS_MAX_DIMS];
  size_t num_elements;   /* product of the reduced sizes (1 when no axis) */
  int32_t input_zero_point, output_zero_point;
  int32_t multiplier;    /* HW: QuantizeMultiplier((double) input_scale / output_scale) */
  int shift;
  float scale;           /* FLOAT: input_scale / output_scale in float */
};
/* Largest number of elements reduced into one output: the int32 sums of TFLite (HW: of x - zp,
   |x - zp| <= 255; others: of raw int8) cannot overflow below it. */
#define Q8NN_MODEL_MEAN_MAX_ELEMENTS ((size_t) 1 << 23)
/* Fills p for an int8 tensor of `rank` dims reduced over axes[0..num_axes) (raw axis tensor
   values, negative allowed, duplicates ignored). Returns 0 (unsupported) for an axis outside
   [-rank, rank), more than 4 axis values (TFLite's MeanParams holds 4), more than
   Q8NN_MODEL_MEAN_MAX_ELEMENTS reduced elements, or an HW multiplier whose shift exceeds 30. */
int q8nn_model_mean_prepare(size_t rank, const size_t* shape, const int32_t* axes, size_t num_axes, int keep_dims,
                            float input_scale, int32_t input_zero_point, float output_scale,
                            int32_t output_zero_point, struct q8nn_model_mean_params* p);
/* Output shape of the mean (keep_dims: reduced dimensions become 1; else they are removed). */
size_t q8nn_model_mean_output_shape(size_t rank, const size_t* shape, const int32_t* axes, size_t num_axes,
                                    int keep_dims, size_t* out_shape);
void q8nn_model_mean_s8(const struct q8nn_model_mean_params* p, const int8_t* input, int8_t* output);

/* ---- QUANTIZE and DEQUANTIZE --------------------------------------------------------------- */
/* float32 -> int8: reference_ops::AffineQuantize: round(x / scale) in float, + zero point and
   clamp in double. NaN (undefined in TFLite: a cast of NaN) gives the zero point. */
void q8nn_model_quantize_f32_s8(size_t n, float scale, int32_t zero_point, const float* input, int8_t* output);
/* 8-bit -> 8-bit (int8 or uint8 each side; *_unsigned selects uint8): reference_ops::Requantize:
   clamp(MultiplyByQuantizedMultiplier(x - input_zp, multiplier, shift) + output_zp), with the
   multiplier of QuantizeMultiplier((double) input_scale / output_scale). */
void q8nn_model_requantize_8(size_t n, int input_unsigned, int32_t input_zero_point, int output_unsigned,
                             int32_t output_zero_point, int32_t multiplier, int shift, const void* input,
                             void* output);
/* 8-bit -> float32: reference_ops::Dequantize: (float) ((double) scale * (x - zero_point)). */
void q8nn_model_dequantize_8_f32(size_t n, int input_unsigned, float scale, int32_t zero_point, const void* input,
                                 float* output);

#endif
