/*
 * Unary elementwise operators, int8 and uint8: every function of one byte is a 256-entry table,
 * built at create (unary-table.c: TFLite's and XNNPACK's arithmetic) or given by the caller, and
 * run by the dispatch's table-lookup line (lut-list.h) over rows of `channels` bytes.
 *
 * uint8: byte u is int8 u - 128 (u ^ 0x80), so the uint8 table is t8[u] = t[u ^ 0x80] ^ 0x80 and
 * the kernels are the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operator.h"

static const struct q8nn_operator_class q8nn_unary_class;
#include "operators/unary-table.h"

static enum q8nn_status create_from_table(const uint8_t* table, int u8, const char* name,
                                          q8nn_operator_t* unary_out, const char* caller) {
  const struct q8nn_dispatch d = q8nn_get_dispatch(u8);
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_unary);
  if (op != NULL) op->cls = &q8nn_unary_class;
  uint8_t* packed = aligned_alloc(64, Q8NN_LUT_PACKED_BYTES);
  if (op == NULL || packed == NULL) {
    free(op);
    free(packed);
    return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator allocation failed");
  }
  memcpy(op->lut_table, table, 256);
  if (d.lut->pack != NULL) {
    d.lut->pack(table, packed);
  } else {
    memcpy(packed, table, Q8NN_LUT_PACKED_BYTES);
  }
  op->lut_packed = packed;
  op->lut = d.lut->fn;
  op->u8 = u8;
  snprintf(op->kernel_name, sizeof(op->kernel_name), "%s %s", d.lut->name, name);
  *unary_out = op;
  return q8nn_status_success;
}

static const char* operation_name(enum q8nn_unary_operation operation) {
  switch (operation) {
    case q8nn_unary_clamp: return "(clamp)";
    case q8nn_unary_hardswish: return "(hardswish)";
    case q8nn_unary_sigmoid: return "(sigmoid)";
    case q8nn_unary_tanh: return "(tanh)";
    case q8nn_unary_leaky_relu: return "(leaky relu)";
    case q8nn_unary_elu: return "(elu)";
  }
  return "";
}

static enum q8nn_status create_unary(enum q8nn_unary_operation operation, const struct q8nn_unary_quantization* quant,
                                     uint32_t flags, int u8, q8nn_operator_t* unary_out, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (unary_out == NULL) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unary_out must not be NULL");
  if (flags != 0) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x", (unsigned) flags);
  int8_t table[256];
  const enum q8nn_status status = q8nn_unary_table_s8(operation, quant, table, caller);
  if (status != q8nn_status_success) return status;
  uint8_t bytes[256];
  for (size_t i = 0; i < 256; i++) {
    bytes[i] = u8 ? (uint8_t) ((uint8_t) table[i ^ 0x80] ^ 0x80) : (uint8_t) table[i];
  }
  return create_from_table(bytes, u8, operation_name(operation), unary_out, caller);
}

enum q8nn_status q8nn_create_unary_elementwise_nc_s8(enum q8nn_unary_operation operation,
                                                     const struct q8nn_unary_quantization* quant, uint32_t flags,
                                                     q8nn_operator_t* unary_out) {
  return create_unary(operation, quant, flags, 0, unary_out, __func__);
}

enum q8nn_status q8nn_create_unary_elementwise_nc_u8(enum q8nn_unary_operation operation,
                                                     const struct q8nn_unary_quantization_u8* quant, uint32_t flags,
                                                     q8nn_operator_t* unary_out) {
  if (quant == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "quant must not be NULL");
  if (quant->input_zero_point < 0 || quant->input_zero_point > 255 || quant->output_zero_point < 0 ||
      quant->output_zero_point > 255) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "zero points outside [0, 255]");
  }
  const struct q8nn_unary_quantization s8 = {
      .input_zero_point = quant->input_zero_point - 128,
      .input_scale = quant->input_scale,
      .output_zero_point = quant->output_zero_point - 128,
      .output_scale = quant->output_scale,
      .output_min = (int8_t) (quant->output_min - 128),
      .output_max = (int8_t) (quant->output_max - 128),
      .alpha = quant->alpha,
      .rounding = quant->rounding,
  };
  if (quant->output_min > quant->output_max) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "output_min %d > output_max %d", quant->output_min,
                      quant->output_max);
  }
  return create_unary(operation, &s8, flags, 1, unary_out, __func__);
}

static enum q8nn_status create_lookup(const uint8_t* table, uint32_t flags, int u8, q8nn_operator_t* lookup_out,
                                      const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (table == NULL || lookup_out == NULL) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "table and lookup_out must not be NULL");
  }
  if (flags != 0) return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x", (unsigned) flags);
  return create_from_table(table, u8, "(lookup)", lookup_out, caller);
}

enum q8nn_status q8nn_create_lookup_nc_s8(const int8_t* table, uint32_t flags, q8nn_operator_t* lookup_out) {
  return create_lookup((const uint8_t*) table, flags, 0, lookup_out, __func__);
}

enum q8nn_status q8nn_create_lookup_nc_u8(const uint8_t* table, uint32_t flags, q8nn_operator_t* lookup_out) {
  return create_lookup(table, flags, 1, lookup_out, __func__);
}

static enum q8nn_status setup_unary(q8nn_operator_t op, int u8, size_t batch_size, size_t channels, const void* input,
                                    size_t input_stride, void* output, size_t output_stride, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_unary || op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a %s unary elementwise operator",
                          u8 ? "uint8" : "int8");
  }
  op->is_setup = 0;
  const enum q8nn_status status =
      q8nn_check_rows(batch_size, channels, input, input_stride, output, output_stride, caller);
  if (status != q8nn_status_success) return status;
  op->rows = batch_size;
  op->row_elements = channels;
  op->input_row_stride = input_stride;
  op->output_row_stride = output_stride;
  /* dense rows are one run */
  if (batch_size > 1 && input_stride == channels && output_stride == channels) {
    op->rows = 1;
    op->row_elements = batch_size * channels;
    op->input_row_stride = op->output_row_stride = op->row_elements;
  }
  op->unary_x = input;
  op->unary_y = output;
  op->plan_threads = 0;
  op->setup_serial = q8nn_next_setup_serial();
  op->is_setup = 1;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_unary_elementwise_nc_s8(q8nn_operator_t unary, size_t batch_size, size_t channels,
                                                    const int8_t* input, size_t input_stride, int8_t* output,
                                                    size_t output_stride) {
  return setup_unary(unary, 0, batch_size, channels, input, input_stride, output, output_stride, __func__);
}

enum q8nn_status q8nn_setup_unary_elementwise_nc_u8(q8nn_operator_t unary, size_t batch_size, size_t channels,
                                                    const uint8_t* input, size_t input_stride, uint8_t* output,
                                                    size_t output_stride) {
  return setup_unary(unary, 1, batch_size, channels, input, input_stride, output, output_stride, __func__);
}

static void unary_task(void* context, size_t row, size_t i0, size_t count) {
  const struct q8nn_operator* op = context;
  op->lut(count, op->unary_x + row * op->input_row_stride + i0, op->unary_y + row * op->output_row_stride + i0,
          op->lut_packed);
}

static size_t unary_works(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works) {
  const size_t total = op->rows * op->row_elements;
  const int caller_only = !in_region && total < Q8NN_MOVE_MIN_PARALLEL_BYTES;
  if (caller_only) threads = 1;
  size_t tile = op->row_elements;
  if (threads > 1 && op->rows < threads * 4 && op->row_elements > 4096) {
    tile = q8nn_max_sz(4096, q8nn_round_up(total / (threads * 4), 64));
  }
  works[0] = q8nn_make_work(q8nn_work_2d_tile_1d, (void (*)(void)) unary_task, op, 1, 1, op->rows, op->row_elements, 1,
                            tile);
  works[0].caller_only = caller_only;
  return 1;
}

static void unary_span(const struct q8nn_operator* op, int output, uintptr_t* begin, uintptr_t* end) {
  const uintptr_t base = output ? (uintptr_t) op->unary_y : (uintptr_t) op->unary_x;
  const size_t stride = output ? op->output_row_stride : op->input_row_stride;
  *begin = base;
  *end = base + (op->rows - 1) * stride + op->row_elements;
}

static void unary_release(struct q8nn_operator* op) { free(op->lut_packed); }

static const struct q8nn_operator_class q8nn_unary_class = {unary_works, unary_span, unary_release};
