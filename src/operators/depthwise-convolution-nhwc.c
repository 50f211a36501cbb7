/*
 * Depthwise convolution 2D, NHWC, int8. A depthwise convolution is a grouped convolution with
 * groups = channels, one input channel and depth_multiplier output channels per group: with
 * depth multiplier 1 it runs on the dwconv kernels (channels innermost), otherwise on igemm with
 * depth_multiplier output channels per group.
 */
#include <stdlib.h>

#include "accel/backend.h"
#include "operator.h"

static enum q8nn_status create_depthwise(
    const struct q8nn_depthwise_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, int u8, q8nn_operator_t* depthwise_out,
    const char* caller) {
  if (kernel == NULL || depthwise_out == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "kernel and depthwise_out must not be NULL");
  }
  if (desc->kernel_height == 0 || desc->kernel_width == 0 || desc->stride_height == 0 || desc->stride_width == 0 ||
      desc->dilation_height == 0 || desc->dilation_width == 0 || desc->channels == 0 || desc->depth_multiplier == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller,
                      "kernel size, stride, dilation, channels and depth multiplier must be >= 1");
  }
  const size_t taps = (size_t) desc->kernel_height * desc->kernel_width;
  size_t out_channels, kernel_size;
  if (!q8nn_mul_sz(desc->channels, desc->depth_multiplier, &out_channels) ||
      !q8nn_mul_sz(out_channels, taps, &kernel_size)) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "weight size overflows size_t");
  }
  const struct q8nn_conv_geometry g = {
      desc->padding_top, desc->padding_right, desc->padding_bottom, desc->padding_left,
      desc->kernel_height, desc->kernel_width, desc->stride_height, desc->stride_width,
      desc->dilation_height, desc->dilation_width,
      desc->channels, 1, desc->depth_multiplier};
  /* 1HWO [taps][C*dm] -> grouped OHWI [C*dm][taps][1]: output channel c*dm+m is group c's m-th. */
  int8_t* ohwi = malloc(kernel_size);
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_depthwise);
  if (ohwi == NULL || op == NULL) {
    free(ohwi);
    free(op);
    return q8nn_log_error(q8nn_status_out_of_memory, caller, "depthwise operator");
  }
  for (size_t oc = 0; oc < out_channels; oc++) {
    for (size_t t = 0; t < taps; t++) ohwi[oc * taps + t] = kernel[t * out_channels + oc];
  }
  op->u8 = u8;
  const enum q8nn_status status = q8nn_create_conv_common(op, &g, quant, ohwi, bias, flags, caller);
  free(ohwi);
  if (status != q8nn_status_success) {
    q8nn_delete_operator(op);
    return status;
  }
  *depthwise_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_depthwise_convolution2d_nhwc_s8(
    const struct q8nn_depthwise_convolution2d_desc* desc, const struct q8nn_conv_quantization* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* depthwise_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (desc == NULL || quant == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "desc and quant must not be NULL");
  return create_depthwise(desc, quant, kernel, bias, flags, 0, depthwise_out, __func__);
}

enum q8nn_status q8nn_create_depthwise_convolution2d_nhwc_u8(
    const struct q8nn_depthwise_convolution2d_desc* desc, const struct q8nn_conv_quantization_u8* quant,
    const int8_t* kernel, const int32_t* bias, uint32_t flags, q8nn_operator_t* depthwise_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (desc == NULL || quant == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "desc and quant must not be NULL");
  struct q8nn_conv_quantization s8;
  const enum q8nn_status status = q8nn_conv_quantization_from_u8(quant, &s8, __func__);
  if (status != q8nn_status_success) return status;
  return create_depthwise(desc, &s8, kernel, bias, flags, 1, depthwise_out, __func__);
}

enum q8nn_status q8nn_setup_depthwise_convolution2d_nhwc_s8(
    q8nn_operator_t op, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride, int8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_depthwise || op->u8) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "not an int8 depthwise convolution operator");
  }
  return q8nn_setup_conv_common(op, batch_size, input_height, input_width, input, input_pixel_stride,
                                output, output_pixel_stride, output_height_out, output_width_out, __func__);
}

enum q8nn_status q8nn_setup_depthwise_convolution2d_nhwc_u8(
    q8nn_operator_t op, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    size_t* output_height_out, size_t* output_width_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_depthwise || !op->u8) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "not a uint8 depthwise convolution operator");
  }
  return q8nn_setup_conv_common(op, batch_size, input_height, input_width, (const int8_t*) input,
                                input_pixel_stride, (int8_t*) output, output_pixel_stride, output_height_out,
                                output_width_out, __func__);
}
