/*
 * Transposed convolution (deconvolution) 2D, NHWC, int8 and uint8: a convolution object flagged
 * transposed, so it shares the convolution's packing, requantization, uint8 flips and threads. Its
 * path is always igemm; setup's indirection gathers, per output pixel and tap, the one input pixel
 * that the scatter form would add there, or the zero buffer (input zero point: (x - zp) = 0). The
 * sum over taps is the scatter form's sum, so the accumulator is TFLite's modulo 2^32.
 */
#include "operator.h"

enum q8nn_status q8nn_create_deconvolution2d_nhwc_s8(const struct q8nn_convolution2d_desc* desc,
                                                     const struct q8nn_conv_quantization* quant, const int8_t* kernel,
                                                     const int32_t* bias, uint32_t flags,
                                                     q8nn_operator_t* deconvolution_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (desc == NULL || quant == NULL) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "desc and quant must not be NULL");
  }
  return q8nn_create_convolution_object(desc, quant, kernel, bias, flags, 0, 1, deconvolution_out, __func__);
}

enum q8nn_status q8nn_create_deconvolution2d_nhwc_u8(const struct q8nn_convolution2d_desc* desc,
                                                     const struct q8nn_conv_quantization_u8* quant,
                                                     const int8_t* kernel, const int32_t* bias, uint32_t flags,
                                                     q8nn_operator_t* deconvolution_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (desc == NULL || quant == NULL) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "desc and quant must not be NULL");
  }
  struct q8nn_conv_quantization s8;
  const enum q8nn_status status = q8nn_conv_quantization_from_u8(quant, &s8, __func__);
  if (status != q8nn_status_success) return status;
  return q8nn_create_convolution_object(desc, &s8, kernel, bias, flags, 1, 1, deconvolution_out, __func__);
}

static enum q8nn_status setup_deconvolution(q8nn_operator_t op, int u8, size_t batch_size, size_t input_height,
                                            size_t input_width, uint32_t adjustment_height, uint32_t adjustment_width,
                                            const void* input, size_t input_pixel_stride, void* output,
                                            size_t output_pixel_stride, size_t* output_height_out,
                                            size_t* output_width_out, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_convolution || !op->transposed || op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a %s transposed convolution",
                          u8 ? "uint8" : "int8");
  }
  op->is_setup = 0;
  const struct q8nn_conv_geometry* g = &op->geometry;
  if (adjustment_height >= g->stride_height || adjustment_width >= g->stride_width) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "adjustment %ux%u not below the stride %ux%u",
                          adjustment_height, adjustment_width, g->stride_height, g->stride_width);
  }
  /* the input's extent here; the output's once its size is known (below) */
  const size_t in_channels = g->groups * g->group_input_channels, out_channels = g->groups * g->group_output_channels;
  size_t pixels;
  if (input != NULL && batch_size != 0 && input_height != 0 && input_width != 0 &&
      input_pixel_stride >= in_channels &&
      (!q8nn_mul_sz(batch_size, input_height, &pixels) || !q8nn_mul_sz(pixels, input_width, &pixels) ||
       !q8nn_extent_fits(input, pixels, in_channels, input_pixel_stride))) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "the input's extent overflows the address space");
  }
  const uint32_t kept_h = op->adjustment_height, kept_w = op->adjustment_width;
  op->adjustment_height = adjustment_height;
  op->adjustment_width = adjustment_width;
  size_t oh = 0, ow = 0;
  enum q8nn_status status = q8nn_setup_conv_common(op, batch_size, input_height, input_width, input,
                                                   input_pixel_stride, output, output_pixel_stride, &oh, &ow, caller);
  if (status == q8nn_status_success &&
      (!q8nn_mul_sz(batch_size * oh, ow, &pixels) ||
       !q8nn_extent_fits(output, pixels, out_channels, output_pixel_stride))) {
    op->is_setup = 0;
    status = q8nn_log_error(q8nn_status_invalid_parameter, caller, "the output's extent overflows the address space");
  }
  if (status != q8nn_status_success) {
    op->adjustment_height = kept_h;
    op->adjustment_width = kept_w;
    return status;
  }
  if (output_height_out != NULL) *output_height_out = oh;
  if (output_width_out != NULL) *output_width_out = ow;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_deconvolution2d_nhwc_s8(q8nn_operator_t deconvolution, size_t batch_size,
                                                    size_t input_height, size_t input_width,
                                                    uint32_t adjustment_height, uint32_t adjustment_width,
                                                    const int8_t* input, size_t input_pixel_stride, int8_t* output,
                                                    size_t output_pixel_stride, size_t* output_height_out,
                                                    size_t* output_width_out) {
  return setup_deconvolution(deconvolution, 0, batch_size, input_height, input_width, adjustment_height,
                             adjustment_width, input, input_pixel_stride, output, output_pixel_stride,
                             output_height_out, output_width_out, __func__);
}

enum q8nn_status q8nn_setup_deconvolution2d_nhwc_u8(q8nn_operator_t deconvolution, size_t batch_size,
                                                    size_t input_height, size_t input_width,
                                                    uint32_t adjustment_height, uint32_t adjustment_width,
                                                    const uint8_t* input, size_t input_pixel_stride, uint8_t* output,
                                                    size_t output_pixel_stride, size_t* output_height_out,
                                                    size_t* output_width_out) {
  return setup_deconvolution(deconvolution, 1, batch_size, input_height, input_width, adjustment_height,
                             adjustment_width, input, input_pixel_stride, output, output_pixel_stride,
                             output_height_out, output_width_out, __func__);
}
