/*
 * Concatenation along any axis, int8 and uint8. Every input is a run of `outer` rows of
 * axis_sizes[i] x inner bytes, the output `outer` rows of the sum: each row of each input is copied
 * to its place, or, for an input whose quantization differs from the output's (PyTorch's cat), looked
 * up in that input's 256-entry requantization table by the table-lookup line (lut-list.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operator.h"

static const struct q8nn_operator_class concatenate_class;

struct concatenate_state {
  size_t num_inputs;
  uint8_t* tables;          /* num_inputs x Q8NN_LUT_PACKED_BYTES, the lut line's form; 64-byte aligned */
  uint8_t* requantize;      /* per input: 1 = through its table, 0 = copied */
  q8nn_x8_lut_ukernel_fn lut;
  /* setup */
  const uint8_t** inputs;
  size_t* segment;          /* per input: bytes of one row (axis size x inner) */
  size_t* offset;           /* per input: its place in an output row */
  size_t outer, row;        /* rows, bytes of an output row */
};

static void state_free(struct concatenate_state* st) {
  if (st == NULL) return;
  free(st->tables);
  free(st->requantize);
  free(st->inputs);
  free(st->segment);
  free(st->offset);
  free(st);
}

/* PyTorch's dequantize then quantize_per_tensor of byte x (in the int8 domain: the uint8 bytes are
   these plus 128, see q8nn.h). */
static int8_t pytorch_requantize(int32_t x, float input_scale, int32_t input_zero_point, float inverse_output_scale,
                                 int32_t output_zero_point) {
  const float real = ((float) x - (float) input_zero_point) * input_scale;
  const float q = nearbyintf(real * inverse_output_scale) + (float) output_zero_point;
  return (int8_t) (q < -128.0f ? -128 : q > 127.0f ? 127 : (int32_t) q);
}

static enum q8nn_status create_concatenate(size_t num_inputs, const struct q8nn_concatenate_quantization* quant,
                                           uint32_t flags, int u8, q8nn_operator_t* concatenate_out,
                                           const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (concatenate_out == NULL || num_inputs == 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "NULL concatenate_out or no inputs");
  }
  if ((flags & ~Q8NN_FLAG_PYTORCH_REQUANTIZE) != 0) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "unknown flags 0x%x", (unsigned) flags);
  }
  if (num_inputs > ((size_t) 1 << 20)) {
    return q8nn_log_error(q8nn_status_unsupported_parameter, caller, "%zu inputs", num_inputs);
  }
  const int32_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  if (quant != NULL) {
    if (quant->input_scales == NULL || quant->input_zero_points == NULL) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input_scales and input_zero_points must be set");
    }
    if (!(isnormal(quant->output_scale) && quant->output_scale > 0.0f) || quant->output_zero_point < lo ||
        quant->output_zero_point > hi) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "output scale or zero point out of range");
    }
    for (size_t i = 0; i < num_inputs; i++) {
      if (!(isnormal(quant->input_scales[i]) && quant->input_scales[i] > 0.0f) || quant->input_zero_points[i] < lo ||
          quant->input_zero_points[i] > hi) {
        return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input %zu: scale or zero point out of range", i);
      }
      const int same = quant->input_scales[i] == quant->output_scale &&
                       quant->input_zero_points[i] == quant->output_zero_point;
      if (!same && (flags & Q8NN_FLAG_PYTORCH_REQUANTIZE) == 0) {
        return q8nn_log_error(q8nn_status_unsupported_parameter, caller,
                              "input %zu's quantization differs from the output's (TFLite requires equal ones; "
                              "Q8NN_FLAG_PYTORCH_REQUANTIZE requantizes)", i);
      }
    }
  }
  struct q8nn_operator* op = q8nn_allocate_operator(q8nn_operator_type_concatenate);
  struct concatenate_state* st = calloc(1, sizeof(struct concatenate_state));
  if (op == NULL || st == NULL) goto oom;
  op->cls = &concatenate_class;
  op->class_state = st;
  op->u8 = u8;
  st->num_inputs = num_inputs;
  st->requantize = calloc(num_inputs, 1);
  st->inputs = calloc(num_inputs, sizeof(*st->inputs));
  st->segment = calloc(num_inputs, sizeof(size_t));
  st->offset = calloc(num_inputs, sizeof(size_t));
  if (st->requantize == NULL || st->inputs == NULL || st->segment == NULL || st->offset == NULL) goto oom;
  const struct q8nn_dispatch d = q8nn_get_dispatch(u8);
  st->lut = d.lut->fn;
  size_t tables = 0;
  for (size_t i = 0; quant != NULL && i < num_inputs; i++) {
    st->requantize[i] = quant->input_scales[i] != quant->output_scale ||
                        quant->input_zero_points[i] != quant->output_zero_point;
    tables += st->requantize[i];
  }
  if (tables != 0) {
    st->tables = aligned_alloc(64, num_inputs * Q8NN_LUT_PACKED_BYTES);
    if (st->tables == NULL) goto oom;
    const float inverse = 1.0f / quant->output_scale;
    const int32_t shift = u8 ? 128 : 0;
    for (size_t i = 0; i < num_inputs; i++) {
      if (!st->requantize[i]) continue;
      uint8_t table[256];
      for (int32_t b = 0; b < 256; b++) {
        /* table index = the stored byte; the arithmetic in the int8 domain */
        const int32_t x = u8 ? b - 128 : (int8_t) b;
        const int8_t y = pytorch_requantize(x, quant->input_scales[i], quant->input_zero_points[i] - shift, inverse,
                                            quant->output_zero_point - shift);
        table[b] = (uint8_t) ((uint8_t) y ^ (u8 ? 0x80 : 0));
      }
      uint8_t* packed = st->tables + i * Q8NN_LUT_PACKED_BYTES;
      if (d.lut->pack != NULL) {
        d.lut->pack(table, packed);
      } else {
        memcpy(packed, table, 256);
      }
    }
  }
  snprintf(op->kernel_name, sizeof(op->kernel_name), "concatenate (memcpy%s%s)", tables != 0 ? ", " : "",
           tables != 0 ? d.lut->name : "");
  *concatenate_out = op;
  return q8nn_status_success;
oom:
  if (op != NULL) op->class_state = NULL;
  state_free(st);
  free(op);
  return q8nn_log_error(q8nn_status_out_of_memory, caller, "operator allocation failed");
}

enum q8nn_status q8nn_create_concatenate_nd_s8(size_t num_inputs, const struct q8nn_concatenate_quantization* quant,
                                               uint32_t flags, q8nn_operator_t* concatenate_out) {
  return create_concatenate(num_inputs, quant, flags, 0, concatenate_out, __func__);
}

enum q8nn_status q8nn_create_concatenate_nd_u8(size_t num_inputs, const struct q8nn_concatenate_quantization* quant,
                                               uint32_t flags, q8nn_operator_t* concatenate_out) {
  return create_concatenate(num_inputs, quant, flags, 1, concatenate_out, __func__);
}

static int spans_overlap(uintptr_t a, size_t an, uintptr_t b, size_t bn) { return a < b + bn && b < a + an; }

static enum q8nn_status setup_concatenate(q8nn_operator_t op, int u8, size_t num_dims, const size_t* shape,
                                          size_t axis, const size_t* axis_sizes, const uint8_t* const* inputs,
                                          uint8_t* output, const char* caller) {
  if (!q8nn_is_initialized()) return q8nn_log_error(q8nn_status_uninitialized, caller, "call q8nn_initialize first");
  if (op == NULL || op->type != q8nn_operator_type_concatenate || op->u8 != u8) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "not a %s concatenation", u8 ? "uint8" : "int8");
  }
  op->is_setup = 0;
  struct concatenate_state* st = op->class_state;
  if (num_dims > Q8NN_MAX_DIMS) return q8nn_log_error(q8nn_status_unsupported_parameter, caller, "rank %zu", num_dims);
  if (num_dims == 0 || shape == NULL || axis_sizes == NULL || inputs == NULL || output == NULL || axis >= num_dims) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "NULL pointer, rank 0 or axis %zu out of range", axis);
  }
  size_t outer = 1, inner = 1, axis_total = 0;
  for (size_t d = 0; d < num_dims; d++) {
    if (d == axis) continue;
    if (shape[d] == 0 || !q8nn_mul_sz(d < axis ? outer : inner, shape[d], d < axis ? &outer : &inner)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "zero dimension or sizes that overflow");
    }
  }
  for (size_t i = 0; i < st->num_inputs; i++) {
    if (inputs[i] == NULL || axis_sizes[i] == 0 || axis_sizes[i] > SIZE_MAX - axis_total) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input %zu: NULL or zero / overflowing size", i);
    }
    axis_total += axis_sizes[i];
  }
  size_t row, total;
  if (!q8nn_mul_sz(axis_total, inner, &row) || !q8nn_mul_sz(row, outer, &total) ||
      (uintptr_t) output > UINTPTR_MAX - total) {
    return q8nn_log_error(q8nn_status_invalid_parameter, caller, "sizes that overflow");
  }
  size_t offset = 0;
  for (size_t i = 0; i < st->num_inputs; i++) {
    const size_t segment = axis_sizes[i] * inner, bytes = segment * outer;
    if ((uintptr_t) inputs[i] > UINTPTR_MAX - bytes ||
        spans_overlap((uintptr_t) inputs[i], bytes, (uintptr_t) output, total)) {
      return q8nn_log_error(q8nn_status_invalid_parameter, caller, "input %zu overlaps the output or wraps", i);
    }
    st->inputs[i] = inputs[i];
    st->segment[i] = segment;
    st->offset[i] = offset;
    offset += segment;
  }
  st->outer = outer;
  st->row = row;
  op->output = (int8_t*) output;
  op->plan_threads = 0;
  op->setup_serial = q8nn_next_setup_serial();
  op->is_setup = 1;
  return q8nn_status_success;
}

enum q8nn_status q8nn_setup_concatenate_nd_s8(q8nn_operator_t concatenate, size_t num_dims, const size_t* shape,
                                              size_t axis, const size_t* axis_sizes, const int8_t* const* inputs,
                                              int8_t* output) {
  return setup_concatenate(concatenate, 0, num_dims, shape, axis, axis_sizes, (const uint8_t* const*) inputs,
                           (uint8_t*) output, __func__);
}

enum q8nn_status q8nn_setup_concatenate_nd_u8(q8nn_operator_t concatenate, size_t num_dims, const size_t* shape,
                                              size_t axis, const size_t* axis_sizes, const uint8_t* const* inputs,
                                              uint8_t* output) {
  return setup_concatenate(concatenate, 1, num_dims, shape, axis, axis_sizes, inputs, output, __func__);
}

/* Input i's rows [o0, o0 + count). */
static void concatenate_task(void* context, size_t i, size_t o0, size_t count) {
  const struct q8nn_operator* op = context;
  const struct concatenate_state* st = op->class_state;
  const size_t segment = st->segment[i];
  const uint8_t* x = st->inputs[i] + o0 * segment;
  uint8_t* y = (uint8_t*) op->output + o0 * st->row + st->offset[i];
  if (st->requantize[i]) {
    const uint8_t* table = st->tables + i * Q8NN_LUT_PACKED_BYTES;
    if (segment == st->row) {
      st->lut(count * segment, x, y, table);
    } else {
      for (size_t o = 0; o < count; o++) st->lut(segment, x + o * segment, y + o * st->row, table);
    }
  } else if (segment == st->row) {
    memcpy(y, x, count * segment);
  } else {
    for (size_t o = 0; o < count; o++) memcpy(y + o * st->row, x + o * segment, segment);
  }
}

static size_t concatenate_works(struct q8nn_operator* op, size_t threads, int in_region, struct q8nn_work* works) {
  const struct concatenate_state* st = op->class_state;
  const int caller_only = !in_region && st->outer * st->row < Q8NN_MOVE_MIN_PARALLEL_BYTES;
  if (caller_only) threads = 1;
  /* rows of each input, about four tiles per thread in all */
  const size_t tile = q8nn_max_sz(1, st->outer * st->num_inputs / (threads * 4) / q8nn_max_sz(1, st->num_inputs));
  works[0] = q8nn_make_work(q8nn_work_2d_tile_1d, (void (*)(void)) concatenate_task, op, 1, 1, st->num_inputs,
                            st->outer, 1, threads == 1 ? st->outer : tile);
  works[0].caller_only = caller_only;
  return 1;
}

/* Output: the whole output; inputs: from the lowest input byte to the highest (a superset). */
static void concatenate_span(const struct q8nn_operator* op, int output, uintptr_t* begin, uintptr_t* end) {
  const struct concatenate_state* st = op->class_state;
  if (output) {
    *begin = (uintptr_t) op->output;
    *end = *begin + st->outer * st->row;
    return;
  }
  *begin = UINTPTR_MAX;
  *end = 0;
  for (size_t i = 0; i < st->num_inputs; i++) {
    const uintptr_t b = (uintptr_t) st->inputs[i], e = b + st->segment[i] * st->outer;
    *begin = b < *begin ? b : *begin;
    *end = e > *end ? e : *end;
  }
}

static void concatenate_release(struct q8nn_operator* op) { state_free(op->class_state); }

static const struct q8nn_operator_class concatenate_class = {concatenate_works, concatenate_span,
                                                             concatenate_release};
