/*
 * Fully connected, int8 and uint8: a convolution object with a 1x1 kernel whose pixels are the
 * batch's rows (kernel [N][K] is OHWI with H = W = 1), so it shares the convolution's packing,
 * requantization, uint8 flips, threads and backends, and runs on the gemm microkernels. Setup
 * re-chooses the tile for the batch size within the packing family (tile-select.c): one or two
 * rows take the one-row tiles.
 */
#include "operator.h"

static enum q8nn_status create_fully_connected(size_t input_channels, size_t output_channels,
                                               const struct q8nn_conv_quantization* quant, const int8_t* kernel,
                                               const int32_t* bias, uint32_t flags, int u8,
                                               q8nn_operator_t* fully_connected_out, const char* caller) {
  if (kernel == NULL || fully_connected_out == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "kernel and fully_connected_out must not be NULL");
  }
  if (input_channels == 0 || output_channels == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero channels");
  }
  const struct q8nn_conv_geometry g = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, input_channels, output_channels};
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_convolution);
  if (op == NULL) return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator");
  op->u8 = u8;
  op->fully_connected = 1;
  const enum q8nn_status status = q8nn_create_conv_common(op, &g, quant, kernel, bias, flags, caller);
  if (status != q8nn_status_success) {
    q8nn_delete_operator(op);
    return status;
  }
  *fully_connected_out = op;
  return q8nn_status_success;
}

enum q8nn_status q8nn_create_fully_connected_nc_s8(size_t input_channels, size_t output_channels,
                                                   const struct q8nn_conv_quantization* quant, const int8_t* kernel,
                                                   const int32_t* bias, uint32_t flags,
                                                   q8nn_operator_t* fully_connected_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (quant == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "quant must not be NULL");
  return create_fully_connected(input_channels, output_channels, quant, kernel, bias, flags, 0, fully_connected_out,
                                __func__);
}

enum q8nn_status q8nn_create_fully_connected_nc_u8(size_t input_channels, size_t output_channels,
                                                   const struct q8nn_conv_quantization_u8* quant,
                                                   const int8_t* kernel, const int32_t* bias, uint32_t flags,
                                                   q8nn_operator_t* fully_connected_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (quant == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "quant must not be NULL");
  struct q8nn_conv_quantization s8;
  const enum q8nn_status status = q8nn_conv_quantization_from_u8(quant, &s8, __func__);
  if (status != q8nn_status_success) return status;
  return create_fully_connected(input_channels, output_channels, &s8, kernel, bias, flags, 1, fully_connected_out,
                                __func__);
}

static enum q8nn_status setup_fully_connected(q8nn_operator_t op, int u8, size_t batch_size, const void* input,
                                              size_t input_stride, void* output, size_t output_stride,
                                              const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_convolution || !op->fully_connected || op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a %s fully connected operator",
                          u8 ? "uint8" : "int8");
  }
  const size_t k = op->geometry.group_input_channels, n = op->geometry.group_output_channels;
  if (batch_size != 0 && input != NULL && output != NULL && input_stride >= k && output_stride >= n &&
      (!q8nn_extent_fits(input, batch_size, k, input_stride) ||
       !q8nn_extent_fits(output, batch_size, n, output_stride))) {
    op->is_setup = 0;
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "the rows' extent overflows the address space");
  }
  /* the rows are the pixels of one 1 x batch_size image (the common setup checks the rest) */
  return q8nn_setup_conv_common(op, 1, 1, batch_size, input, input_stride, output, output_stride, NULL, NULL, caller);
}

enum q8nn_status q8nn_setup_fully_connected_nc_s8(q8nn_operator_t fully_connected, size_t batch_size,
                                                  const int8_t* input, size_t input_stride, int8_t* output,
                                                  size_t output_stride) {
  return setup_fully_connected(fully_connected, 0, batch_size, input, input_stride, output, output_stride, __func__);
}

enum q8nn_status q8nn_setup_fully_connected_nc_u8(q8nn_operator_t fully_connected, size_t batch_size,
                                                  const uint8_t* input, size_t input_stride, uint8_t* output,
                                                  size_t output_stride) {
  return setup_fully_connected(fully_connected, 1, batch_size, input, input_stride, output, output_stride, __func__);
}
