/*
 * Parsing a .tflite file into tensors and operators, with validation of every index, extent and
 * quantization field.
 *
 * TFLite schema field ids used here (schema.fbs): Model{version 0, operator_codes 1, subgraphs 2,
 * description 3, buffers 4}; OperatorCode{deprecated_builtin_code 0 (int8), custom_code 1,
 * version 2, builtin_code 3 (int32)}; SubGraph{tensors 0, inputs 1, outputs 2, operators 3,
 * name 4}; Tensor{shape 0, type 1, buffer 2, name 3, quantization 4, is_variable 5, sparsity 6};
 * QuantizationParameters{min 0, max 1, scale 2, zero_point 3 (int64), details_type 4, details 5,
 * quantized_dimension 6}; Operator{opcode_index 0, inputs 1, outputs 2, builtin_options_type 3,
 * builtin_options 4}; Buffer{data 0, offset 1, size 2}.
 */
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"

static size_t type_size(int type) {
  switch (type) {
    case q8nn_model_type_float32: return 4;
    case q8nn_model_type_int32: return 4;
    case q8nn_model_type_uint8: return 1;
    case q8nn_model_type_int64: return 8;
    case q8nn_model_type_int8: return 1;
    default: return 0;
  }
}

/* ---- parsing ------------------------------------------------------------------------------- */

static enum q8nn_status parse_tensor(struct loader* l, size_t index, const struct fb_table* t,
                                     const struct fb_vector* buffers) {
  struct fb_reader* r = &l->r;
  struct tensor* tensor = &l->m->tensors[index];
  tensor->producer = -1;
  tensor->first = -1;
  tensor->last = -1;
  const struct fb_vector shape = fb_vector_field(r, t, 0, 4);
  tensor->type = fb_u8(r, t, 1, 0);
  const uint32_t buffer = fb_u32(r, t, 2, 0);
  const struct fb_vector name = fb_vector_field(r, t, 3, 1);
  const struct fb_table quant = fb_table_field(r, t, 4);
  if (fb_failed(r)) return model_reader_fail(l);
  const size_t name_length = name.length < 255 ? name.length : 255;
  tensor->name = (char*) calloc(name_length + 1, 1);
  if (tensor->name == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
  if (name_length != 0) memcpy(tensor->name, fb_vec_bytes(r, &name), name_length);
  const size_t elem = type_size(tensor->type);
  if (elem == 0) {
    return model_fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): type %d not supported", index,
                tensor->name, tensor->type);
  }
  if (shape.length > Q8NN_MODEL_MAX_DIMS) {
    return model_fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): rank %zu above %d", index,
                tensor->name, shape.length, Q8NN_MODEL_MAX_DIMS);
  }
  tensor->num_dims = shape.length;
  size_t elements = 1;
  for (size_t i = 0; i < shape.length; i++) {
    const int32_t d = fb_vec_i32(r, &shape, i);
    if (d <= 0) {
      return model_fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): dimension %zu is %d", index,
                  tensor->name, i, (int) d);
    }
    tensor->dims[i] = (size_t) d;
    if (elements > MAX_TENSOR_BYTES / (size_t) d) {
      return model_fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): too large", index, tensor->name);
    }
    elements *= (size_t) d;
  }
  if (elements > MAX_TENSOR_BYTES / elem) {
    return model_fail(l, q8nn_status_unsupported_parameter, "tensor %zu (%s): too large", index, tensor->name);
  }
  tensor->elements = elements;
  tensor->bytes = elements * elem;
  /* constant data */
  if (buffer >= buffers->length) {
    return model_fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): buffer %u out of range (%zu buffers)",
                index, tensor->name, buffer, buffers->length);
  }
  const struct fb_table b = fb_vec_table(r, buffers, buffer);
  const struct fb_vector data = fb_vector_field(r, &b, 0, 1);
  const uint64_t offset = fb_u64(r, &b, 1, 0), size = fb_u64(r, &b, 2, 0);
  if (fb_failed(r)) return model_reader_fail(l);
  const uint8_t* bytes = NULL;
  size_t length = 0;
  if (data.length != 0) {
    bytes = fb_vec_bytes(r, &data);
    length = data.length;
  } else if (offset > 1) {
    if (offset > l->m->file_size || size > l->m->file_size - offset) {
      return model_fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): buffer data outside the file", index,
                  tensor->name);
    }
    bytes = l->m->file + offset;
    length = (size_t) size;
  }
  if (length != 0) {
    if (length != tensor->bytes) {
      return model_fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): %zu bytes of data for %zu-byte tensor",
                  index, tensor->name, length, tensor->bytes);
    }
    tensor->constant = bytes;
  }
  /* quantization */
  if (quant.pos != 0) {
    tensor->scales = fb_vector_field(r, &quant, 2, 4);
    tensor->zero_points = fb_vector_field(r, &quant, 3, 8);
    tensor->quantized_dimension = fb_i32(r, &quant, 6, 0);
    if (fb_failed(r)) return model_reader_fail(l);
    if (tensor->scales.length != 0) tensor->scale = fb_vec_f32(r, &tensor->scales, 0);
    if (tensor->zero_points.length != 0) {
      const int64_t zp = fb_vec_i64(r, &tensor->zero_points, 0);
      if (zp < INT32_MIN || zp > INT32_MAX) {
        return model_fail(l, q8nn_status_invalid_parameter, "tensor %zu (%s): zero point out of range", index, tensor->name);
      }
      tensor->zero_point = (int32_t) zp;
    }
  }
  return q8nn_status_success;
}

static enum q8nn_status parse_op(struct loader* l, size_t index, const struct fb_table* t, const int32_t* codes,
                                 size_t num_codes) {
  struct fb_reader* r = &l->r;
  struct q8nn_model* m = l->m;
  struct op* op = &m->ops[index];
  op->index = index;
  op->placement = "cpu";
  op->fused_from = -1;
  op->fused_into = -1;
  const uint32_t opcode = fb_u32(r, t, 0, 0);
  const struct fb_vector inputs = fb_vector_field(r, t, 1, 4);
  const struct fb_vector outputs = fb_vector_field(r, t, 2, 4);
  op->options_type = fb_u8(r, t, 3, 0);
  op->options = fb_table_field(r, t, 4);
  if (fb_failed(r)) return model_reader_fail(l);
  if (opcode >= num_codes) {
    return model_fail(l, q8nn_status_invalid_parameter, "operator %zu: opcode index %u out of range", index, opcode);
  }
  op->builtin = codes[opcode];
  if (!model_kind_of(op->builtin, &op->kind, &op->num_data_inputs)) {
    return model_fail(l, q8nn_status_unsupported_parameter, "operator %zu: %s (builtin %d) is not supported", index,
                model_builtin_name(op->builtin), (int) op->builtin);
  }
  if (outputs.length != 1 || inputs.length == 0 || inputs.length > 1024) {
    return model_fail(l, q8nn_status_unsupported_parameter, "operator %zu (%s): %zu inputs and %zu outputs", index,
                model_builtin_name(op->builtin), inputs.length, outputs.length);
  }
  op->num_inputs = inputs.length;
  if (op->num_data_inputs > op->num_inputs) op->num_data_inputs = op->num_inputs;
  op->inputs = (int32_t*) malloc(inputs.length * sizeof(int32_t));
  if (op->inputs == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
  for (size_t i = 0; i < inputs.length; i++) {
    const int32_t v = fb_vec_i32(r, &inputs, i);
    if (v < -1 || (v >= 0 && (size_t) v >= m->num_tensors) || (v == -1 && i < op->num_data_inputs)) {
      return model_fail(l, q8nn_status_invalid_parameter, "operator %zu (%s): input %zu is tensor %d of %zu", index,
                  model_builtin_name(op->builtin), i, (int) v, m->num_tensors);
    }
    op->inputs[i] = v;
  }
  op->table_input = op->inputs[0];
  op->output = fb_vec_i32(r, &outputs, 0);
  if (op->output < 0 || (size_t) op->output >= m->num_tensors) {
    return model_fail(l, q8nn_status_invalid_parameter, "operator %zu (%s): output is tensor %d of %zu", index,
                model_builtin_name(op->builtin), (int) op->output, m->num_tensors);
  }
  return q8nn_status_success;
}

static enum q8nn_status read_index_list(struct loader* l, const struct fb_table* subgraph, unsigned id,
                                        int32_t** list, size_t* count, const char* what) {
  const struct fb_vector v = fb_vector_field(&l->r, subgraph, id, 4);
  if (fb_failed(&l->r)) return model_reader_fail(l);
  if (v.length == 0) return model_fail(l, q8nn_status_invalid_parameter, "the graph has no %s", what);
  *list = (int32_t*) malloc(v.length * sizeof(int32_t));
  if (*list == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
  *count = v.length;
  for (size_t i = 0; i < v.length; i++) {
    const int32_t t = fb_vec_i32(&l->r, &v, i);
    if (t < 0 || (size_t) t >= l->m->num_tensors) {
      return model_fail(l, q8nn_status_invalid_parameter, "graph %s %zu is tensor %d of %zu", what, i, (int) t,
                  l->m->num_tensors);
    }
    (*list)[i] = t;
  }
  return q8nn_status_success;
}


/* The model, its first subgraph, its tensors, graph inputs and outputs, and operators. */
enum q8nn_status model_parse(struct loader* l) {
  struct q8nn_model* m = l->m;
  struct fb_reader* r = &l->r;
  fb_init(r, m->file, m->file_size);
  const struct fb_table root = fb_root(r, "TFL3");
  if (fb_failed(r)) return model_reader_fail(l);
  const uint32_t version = fb_u32(r, &root, 0, 0);
  const struct fb_vector codes = fb_vector_field(r, &root, 1, 4);
  const struct fb_vector subgraphs = fb_vector_field(r, &root, 2, 4);
  const struct fb_vector buffers = fb_vector_field(r, &root, 4, 4);
  if (fb_failed(r)) return model_reader_fail(l);
  if (version != 3) return model_fail(l, q8nn_status_unsupported_parameter, "schema version %u, expected 3", version);
  if (subgraphs.length == 0) return model_fail(l, q8nn_status_invalid_parameter, "the model has no subgraph");
  int32_t* builtin = (int32_t*) calloc(codes.length + 1, sizeof(int32_t));
  if (builtin == NULL) return model_fail(l, q8nn_status_out_of_memory, "out of memory");
  for (size_t i = 0; i < codes.length; i++) {
    const struct fb_table code = fb_vec_table(r, &codes, i);
    const int32_t deprecated = fb_i8(r, &code, 0, 0);
    const int32_t current = fb_i32(r, &code, 3, 0);
    builtin[i] = current > deprecated ? current : deprecated; /* TFLite GetBuiltinCode */
  }
  const struct fb_table subgraph = fb_vec_table(r, &subgraphs, 0);
  const struct fb_vector tensors = fb_vector_field(r, &subgraph, 0, 4);
  const struct fb_vector operators = fb_vector_field(r, &subgraph, 3, 4);
  enum q8nn_status status = q8nn_status_success;
  if (fb_failed(r)) {
    status = model_reader_fail(l);
    goto done;
  }
  m->num_tensors = tensors.length;
  m->tensors = (struct tensor*) calloc(tensors.length + 1, sizeof(struct tensor));
  m->num_ops = operators.length;
  m->ops = (struct op*) calloc(operators.length + 1, sizeof(struct op));
  if (m->tensors == NULL || m->ops == NULL) {
    status = model_fail(l, q8nn_status_out_of_memory, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < tensors.length && status == q8nn_status_success; i++) {
    const struct fb_table t = fb_vec_table(r, &tensors, i);
    status = fb_failed(r) ? model_reader_fail(l) : parse_tensor(l, i, &t, &buffers);
  }
  if (status == q8nn_status_success) status = read_index_list(l, &subgraph, 1, &m->inputs, &m->num_inputs, "input");
  if (status == q8nn_status_success) status = read_index_list(l, &subgraph, 2, &m->outputs, &m->num_outputs, "output");
  for (size_t i = 0; i < operators.length && status == q8nn_status_success; i++) {
    const struct fb_table t = fb_vec_table(r, &operators, i);
    status = fb_failed(r) ? model_reader_fail(l) : parse_op(l, i, &t, builtin, codes.length);
  }
done:
  free(builtin);
  return status;
}
