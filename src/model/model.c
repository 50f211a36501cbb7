/*
 * q8nn-model's public entry points (q8nn-model.h): load from memory or a file, queries,
 * binding, the debug hooks and delete. The rooms of the loader are listed in model-internal.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"

/* Load = parse -> fuse lookups -> lifetimes -> arena plan -> runtime constants -> prepare each
   operator (create and set up the q8nn operator, or fill the portable operator's params). */
static enum q8nn_status load(struct loader* l) {
  struct q8nn_model* m = l->m;
  enum q8nn_status status = model_parse(l);
  if (status == q8nn_status_success) status = model_fuse_lookups(l);
  if (status == q8nn_status_success) status = model_compute_lifetimes(l);
  if (status == q8nn_status_success) status = model_plan_arena(l);
  if (status == q8nn_status_success) status = model_copy_runtime_constants(l);
  for (size_t i = 0; i < m->num_ops && status == q8nn_status_success; i++) status = model_prepare_op(l, &m->ops[i]);
  if (status == q8nn_status_success) {
    m->bound_inputs = (const void**) calloc(m->num_inputs, sizeof(void*));
    m->bound_outputs = (void**) calloc(m->num_outputs, sizeof(void*));
    if (m->bound_inputs == NULL || m->bound_outputs == NULL) {
      status = model_fail(l, q8nn_status_out_of_memory, "out of memory");
    }
  }
  return status;
}

enum q8nn_status q8nn_model_load_memory(const void* data, size_t size, const struct q8nn_model_options* options,
                                        q8nn_model_t* model_out, char* error, size_t error_size) {
  struct loader l = {.m = NULL, .error = error, .error_size = error_size};
  if (error != NULL && error_size > 0) error[0] = '\0';
  if (data == NULL || model_out == NULL) return model_fail(&l, q8nn_status_invalid_parameter, "NULL data or model pointer");
  struct q8nn_model* m = (struct q8nn_model*) calloc(1, sizeof(struct q8nn_model));
  if (m == NULL) return model_fail(&l, q8nn_status_out_of_memory, "out of memory");
  l.m = m;
  m->file = (const uint8_t*) data;
  m->file_size = size;
  if (options != NULL) {
    m->backend = options->backend;
    m->profile = options->profile;
    m->numerics = options->numerics;
    if (m->numerics != q8nn_model_numerics_tflite && m->numerics != q8nn_model_numerics_xnnpack_fp32) {
      free(m);
      return model_fail(&l, q8nn_status_invalid_parameter, "unknown numerics %d", (int) options->numerics);
    }
  }
  const enum q8nn_status status = load(&l);
  m->file = NULL; /* the caller's bytes may go away now */
  for (size_t i = 0; i < m->num_tensors && m->tensors != NULL; i++) m->tensors[i].constant = NULL;
  if (status != q8nn_status_success) {
    q8nn_model_delete(m);
    return status;
  }
  *model_out = m;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_load_file(const char* path, const struct q8nn_model_options* options,
                                      q8nn_model_t* model_out, char* error, size_t error_size) {
  if (error != NULL && error_size > 0) error[0] = '\0';
  if (path == NULL || model_out == NULL) {
    if (error != NULL && error_size > 0) snprintf(error, error_size, "NULL path or model pointer");
    return q8nn_status_invalid_parameter;
  }
  FILE* f = fopen(path, "rb");
  long size = -1;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (f == NULL || size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    if (error != NULL && error_size > 0) snprintf(error, error_size, "cannot read %s", path);
    if (f != NULL) fclose(f);
    return q8nn_status_invalid_parameter;
  }
  void* data = malloc((size_t) size + 1);
  if (data == NULL) {
    fclose(f);
    if (error != NULL && error_size > 0) snprintf(error, error_size, "out of memory reading %s", path);
    return q8nn_status_out_of_memory;
  }
  const size_t got = fread(data, 1, (size_t) size, f);
  fclose(f);
  if (got != (size_t) size) {
    free(data);
    if (error != NULL && error_size > 0) snprintf(error, error_size, "short read of %s", path);
    return q8nn_status_invalid_parameter;
  }
  const enum q8nn_status status = q8nn_model_load_memory(data, (size_t) size, options, model_out, error, error_size);
  free(data);
  return status;
}

/* ---- queries, binding, run, delete --------------------------------------------------------- */

size_t q8nn_model_num_inputs(q8nn_model_t m) { return m != NULL ? m->num_inputs : 0; }
size_t q8nn_model_num_outputs(q8nn_model_t m) { return m != NULL ? m->num_outputs : 0; }
size_t q8nn_model_arena_size(q8nn_model_t m) { return m != NULL ? m->arena_size : 0; }
size_t q8nn_model_num_operators(q8nn_model_t m) { return m != NULL ? m->num_ops : 0; }

static void describe(const struct tensor* t, struct q8nn_model_tensor_info* info) {
  memset(info, 0, sizeof(*info));
  info->name = t->name;
  info->type = (enum q8nn_model_type) t->type;
  info->num_dims = t->num_dims;
  for (size_t i = 0; i < t->num_dims; i++) info->dims[i] = t->dims[i];
  info->num_bytes = t->bytes;
  info->scale = t->scale;
  info->zero_point = t->zero_point;
}

enum q8nn_status q8nn_model_input_info(q8nn_model_t m, size_t index, struct q8nn_model_tensor_info* info) {
  if (m == NULL || info == NULL || index >= m->num_inputs) return q8nn_status_invalid_parameter;
  describe(&m->tensors[m->inputs[index]], info);
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_output_info(q8nn_model_t m, size_t index, struct q8nn_model_tensor_info* info) {
  if (m == NULL || info == NULL || index >= m->num_outputs) return q8nn_status_invalid_parameter;
  describe(&m->tensors[m->outputs[index]], info);
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_bind_input(q8nn_model_t m, size_t index, const void* data) {
  if (m == NULL || index >= m->num_inputs) return q8nn_status_invalid_parameter;
  m->bound_inputs[index] = data;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_bind_output(q8nn_model_t m, size_t index, void* data) {
  if (m == NULL || index >= m->num_outputs) return q8nn_status_invalid_parameter;
  m->bound_outputs[index] = data;
  return q8nn_status_success;
}

void* q8nn_model_input_data(q8nn_model_t m, size_t index) {
  return m != NULL && index < m->num_inputs ? m->tensors[m->inputs[index]].data : NULL;
}

const void* q8nn_model_output_data(q8nn_model_t m, size_t index) {
  return m != NULL && index < m->num_outputs ? m->tensors[m->outputs[index]].data : NULL;
}

enum q8nn_status q8nn_model_get_operator_info(q8nn_model_t m, size_t index, struct q8nn_model_operator_info* info) {
  if (m == NULL || info == NULL || index >= m->num_ops) return q8nn_status_invalid_parameter;
  const struct op* op = &m->ops[index];
  const struct tensor* out = &m->tensors[op->output];
  memset(info, 0, sizeof(*info));
  info->type = model_builtin_name(op->builtin);
  info->placement = op->placement;
  info->num_output_dims = out->num_dims;
  for (size_t i = 0; i < out->num_dims; i++) info->output_dims[i] = out->dims[i];
  info->macs = op->macs;
  info->last_run_ns = op->last_ns;
  info->fused_into = op->fused_into >= 0 ? (size_t) op->fused_into : SIZE_MAX;
  if (op->qop != NULL && q8nn_vta_get_operator_stats(op->qop, &info->backend_stats) != q8nn_status_success) {
    memset(&info->backend_stats, 0, sizeof(info->backend_stats));
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_set_debug_callback(q8nn_model_t m, q8nn_model_debug_callback callback, void* context) {
  if (m == NULL) return q8nn_status_invalid_parameter;
  m->debug = callback;
  m->debug_context = context;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_debug_tensor(q8nn_model_t m, size_t index, size_t slot, struct q8nn_model_tensor_info* info,
                                         const void** data) {
  if (m == NULL || info == NULL || data == NULL || index >= m->num_ops) return q8nn_status_invalid_parameter;
  const struct op* op = &m->ops[index];
  int32_t t;
  if (slot == Q8NN_MODEL_DEBUG_OUTPUT) t = op->output;
  else if (slot < op->num_inputs) t = op->inputs[slot];
  else return q8nn_status_invalid_parameter;
  if (t < 0) {
    memset(info, 0, sizeof(*info));
    info->name = "";
    *data = NULL;
    return q8nn_status_success;
  }
  describe(&m->tensors[t], info);
  *data = m->tensors[t].data;
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_delete(q8nn_model_t m) {
  if (m == NULL) return q8nn_status_success;
  for (size_t k = 0; k < m->num_ops && m->ops != NULL; k++) {
    q8nn_delete_operator(m->ops[k].qop);
    free(m->ops[k].inputs);
    free(m->ops[k].table);
  }
  for (size_t i = 0; i < m->num_tensors && m->tensors != NULL; i++) free(m->tensors[i].name);
  free(m->ops);
  free(m->tensors);
  free(m->inputs);
  free(m->outputs);
  free(m->bound_inputs);
  free(m->bound_outputs);
  free(m->arena_block);
  free(m->constants);
  free(m);
  return q8nn_status_success;
}
