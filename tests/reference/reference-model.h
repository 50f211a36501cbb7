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

/** int8 MUL (mul = 1, TFLite mul.cc parameters: float product of scales) or SUB (mul = 0,
    left shift 20), with numpy broadcasting of rank <= 6. Returns 0 for unrepresentable scales. */
int ref_mul_sub_s8(int mul, size_t a_rank, const size_t* a_shape, const int8_t* a, float a_scale, int32_t a_zp,
                   size_t b_rank, const size_t* b_shape, const int8_t* b, float b_scale, int32_t b_zp,
                   float out_scale, int32_t out_zp, int32_t act_min, int32_t act_max, int8_t* out);

#endif
