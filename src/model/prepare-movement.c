/*
 * Preparation of data movement: RESHAPE and SQUEEZE (a copy), PAD and PADV2 (portable),
 * CONCATENATION (q8nn's concatenation).
 */
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"

enum q8nn_status model_prepare_copy(struct loader* l, struct op* op) {
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* out = &l->m->tensors[op->output];
  if (in == NULL || in->type != out->type || in->bytes != out->bytes) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "input and output differ in type or size");
  }
  op->copy_bytes = in->bytes;
  return q8nn_status_success;
}

/* TFLite pad.cc (PAD and PADV2) for int8: the bytes are copied as they are; the pad value is the
   output zero point, or PADV2's constant_values, which must share the output's quantization. */
enum q8nn_status model_prepare_pad(struct loader* l, struct op* op) {
  struct tensor* in = model_in_tensor(l, op, 0);
  struct tensor* pads = model_in_tensor(l, op, 1);
  struct tensor* value = model_in_tensor(l, op, 2);
  struct tensor* out = &l->m->tensors[op->output];
  if (op->num_inputs > (op->builtin == OP_PADV2 ? 3u : 2u)) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "%zu inputs", op->num_inputs);
  }
  if (value != NULL && (value->type != q8nn_model_type_int8 || value->constant == NULL || value->elements != 1 ||
                        value->scales.length != 1 || value->scale != out->scale ||
                        value->zero_point != out->zero_point)) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter,
                   "constant_values must be one constant int8 value with the output's scale and zero point");
  }
  if (in == NULL || pads == NULL || in->type != q8nn_model_type_int8 || out->type != q8nn_model_type_int8 ||
      pads->constant == NULL || pads->num_dims != 2 || pads->dims[0] != in->num_dims || pads->dims[1] != 2 ||
      (pads->type != q8nn_model_type_int32 && pads->type != q8nn_model_type_int64) || out->num_dims != in->num_dims ||
      out->zero_point < -128 || out->zero_point > 127) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 tensors and constant [rank, 2] paddings");
  }
  op->pad_rank = in->num_dims;
  for (size_t i = 0; i < in->num_dims; i++) {
    int64_t before, after;
    if (pads->type == q8nn_model_type_int32) {
      int32_t v[2];
      memcpy(v, pads->constant + i * 8, 8);
      before = v[0];
      after = v[1];
    } else {
      memcpy(&before, pads->constant + i * 16, 8);
      memcpy(&after, pads->constant + i * 16 + 8, 8);
    }
    if (before < 0 || after < 0 || (uint64_t) before + (uint64_t) after + in->dims[i] != out->dims[i]) {
      return model_op_fail(l, op, q8nn_status_invalid_parameter, "paddings of dimension %zu do not give the output shape", i);
    }
    op->pad_in[i] = in->dims[i];
    op->pad_out[i] = out->dims[i];
    op->pad_before[i] = (size_t) before;
  }
  op->pad_value = value != NULL ? (int8_t) value->constant[0] : (int8_t) out->zero_point;
  return q8nn_status_success;
}

enum q8nn_status model_prepare_concat(struct loader* l, struct op* op) {
  struct tensor* out = &l->m->tensors[op->output];
  if (!model_expect_options(op, OPT_CONCATENATION)) return model_options_fail(l, op);
  int32_t axis = fb_i32(&l->r, &op->options, 0, 0);
  const int activation = fb_u8(&l->r, &op->options, 1, 0);
  if (fb_failed(&l->r)) return model_reader_fail(l);
  if (!model_is_int8_activation(out) || activation != ACT_NONE || op->num_inputs == 0) {
    return model_op_fail(l, op, q8nn_status_unsupported_parameter, "needs int8 tensors and no fused activation");
  }
  if (axis < 0) axis += (int32_t) out->num_dims;
  if (axis < 0 || (size_t) axis >= out->num_dims) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "axis out of range");
  }
  size_t sum = 0;
  for (size_t k = 0; k < op->num_inputs; k++) {
    struct tensor* t = model_in_tensor(l, op, k);
    if (t == NULL || !model_is_int8_activation(t) || t->scale != out->scale || t->zero_point != out->zero_point ||
        t->num_dims != out->num_dims) {
      return model_op_fail(l, op, q8nn_status_unsupported_parameter, "inputs must be int8 with the output's quantization");
    }
    for (size_t i = 0; i < out->num_dims; i++) {
      if (i != (size_t) axis && t->dims[i] != out->dims[i]) {
        return model_op_fail(l, op, q8nn_status_invalid_parameter, "input %zu shape mismatch", k);
      }
    }
    sum += t->dims[axis];
  }
  if (sum != out->dims[axis]) {
    return model_op_fail(l, op, q8nn_status_invalid_parameter, "sizes along the axis do not add up");
  }
  /* q8nn's concatenation (the bytes are copied: TFLite's int8 CONCATENATION requires one quantization) */
  size_t* sizes = (size_t*) malloc(op->num_inputs * sizeof(size_t));
  const int8_t** inputs = (const int8_t**) malloc(op->num_inputs * sizeof(int8_t*));
  if (sizes == NULL || inputs == NULL) {
    free(sizes);
    free(inputs);
    return model_fail(l, q8nn_status_out_of_memory, "out of memory");
  }
  for (size_t k = 0; k < op->num_inputs; k++) {
    const struct tensor* t = model_in_tensor(l, op, k);
    sizes[k] = t->dims[axis];
    inputs[k] = (const int8_t*) t->data;
  }
  enum q8nn_status status = q8nn_create_concatenate_nd_s8(op->num_inputs, NULL, 0, &op->qop);
  if (status == q8nn_status_success) {
    status = q8nn_setup_concatenate_nd_s8(op->qop, out->num_dims, out->dims, (size_t) axis, sizes, inputs,
                                          (int8_t*) out->data);
  }
  free(sizes);
  free(inputs);
  op->placement = model_placement_of(op);
  if (status != q8nn_status_success) {
    return model_q8nn_fail(l, op, "concatenation", status);
  }
  return q8nn_status_success;
}
