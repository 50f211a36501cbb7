/* The VTA backend object: q8nn_create_vta_backend, the backend hooks and the counters. One
   simulated device (DRAM + scratchpads) per backend; every operator on it owns DRAM images and a
   program recorded once at setup. Operators of one backend may run on several threads: the
   backend's lock serialises everything that touches the device (vta-backend.h). The top of the
   accel/vta ladder: it dispatches to the lowerings (vta-lower-conv.h, vta-lower-add.h), which
   never call back. */
#include <stdlib.h>
#include <string.h>

#include "accel/vta/vta-backend.h"

static bool vta_supports(struct q8nn_backend* backend, const struct q8nn_operator* op) {
  const struct q8nn_vta_target* vta = &q8nn_vta_backend_of(backend)->target;
  if (op->u8) return false; /* the lowering moves int8 images; uint8 operators stay on the CPU */
  switch (op->type) {
    case q8nn_operator_type_convolution:
    case q8nn_operator_type_depthwise: return q8nn_vta_conv_supports(vta, op);
    case q8nn_operator_type_add: return q8nn_vta_add_supports(vta, op);
    case q8nn_operator_type_unary:
    case q8nn_operator_type_pooling:
    case q8nn_operator_type_resize:
    case q8nn_operator_type_concatenate:
    case q8nn_operator_type_channel_shuffle:
    case q8nn_operator_type_softmax: return false; /* no lowering: they stay on the CPU */
  }
  return false;
}

static void free_state(struct q8nn_vta_target* vta, struct q8nn_vta_op_state* state) {
  if (state == NULL) return;
  if (state->has_program) q8nn_vta_program_release(vta->device, &state->program);
  const uint32_t addrs[5] = {state->in_addr, state->wgt_addr, state->const_addr, state->out_addr, state->b_addr};
  for (int i = 0; i < 5; i++) {
    if (addrs[i] != 0) q8nn_vta_dram_free(vta->device, addrs[i]);
  }
  free(state->requant);
  free(state->exact);
  free(state);
}

static void release_locked(struct q8nn_backend* backend, struct q8nn_operator* op) {
  free_state(&q8nn_vta_backend_of(backend)->target, op->backend_state);
  op->backend_state = NULL;
}

static void vta_release(struct q8nn_backend* backend, struct q8nn_operator* op) {
  struct q8nn_vta_backend* vta = q8nn_vta_backend_of(backend);
  pthread_mutex_lock(&vta->lock);
  release_locked(backend, op);
  pthread_mutex_unlock(&vta->lock);
}

/* What a lowered program depends on besides the operator's constant part: the conv's batch and
   input size (the output size follows), or the add's three shapes. */
static void shape_key_of(const struct q8nn_operator* op, size_t key[3 * Q8NN_MAX_DIMS]) {
  memset(key, 0, 3 * Q8NN_MAX_DIMS * sizeof(size_t));
  if (op->type == q8nn_operator_type_add) {
    memcpy(key, op->add_a_shape, sizeof(op->add_a_shape));
    memcpy(key + Q8NN_MAX_DIMS, op->add_b_shape, sizeof(op->add_b_shape));
    memcpy(key + 2 * Q8NN_MAX_DIMS, op->add_out_shape, sizeof(op->add_out_shape));
  } else {
    key[0] = op->batch_size, key[1] = op->input_height, key[2] = op->input_width;
  }
}

static enum q8nn_status prepare_locked(struct q8nn_backend* backend, struct q8nn_operator* op) {
  struct q8nn_vta_target* vta = &q8nn_vta_backend_of(backend)->target;
  size_t key[3 * Q8NN_MAX_DIMS];
  shape_key_of(op, key);
  /* Re-setup with the shapes of the program and new pointers: the program stays (run copies
     from and to the operator's current pointers). A new shape gets a new program. */
  const struct q8nn_vta_op_state* kept = op->backend_state;
  if (kept != NULL && memcmp(kept->shape_key, key, sizeof(key)) == 0) return q8nn_status_success;
  release_locked(backend, op);
  struct q8nn_vta_op_state* state = calloc(1, sizeof(*state));
  if (state == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "VTA operator state");
  const enum q8nn_status status = op->type == q8nn_operator_type_add ? q8nn_vta_add_prepare(vta, op, state)
                                                                       : q8nn_vta_conv_prepare(vta, op, state);
  if (status != q8nn_status_success) {
    free_state(vta, state);
    return status;
  }
  memcpy(state->shape_key, key, sizeof(key));
  op->backend_state = state;
  return q8nn_status_success;
}

static enum q8nn_status vta_prepare(struct q8nn_backend* backend, struct q8nn_operator* op) {
  struct q8nn_vta_backend* vta = q8nn_vta_backend_of(backend);
  pthread_mutex_lock(&vta->lock);
  const enum q8nn_status status = prepare_locked(backend, op);
  pthread_mutex_unlock(&vta->lock);
  return status;
}

static enum q8nn_status vta_run(struct q8nn_backend* backend, struct q8nn_operator* op, const struct q8nn_exec* exec) {
  struct q8nn_vta_backend* vta = q8nn_vta_backend_of(backend);
  struct q8nn_vta_op_state* state = op->backend_state; /* the operator's own: its thread's */
  if (state == NULL) return Q8NN_ERROR(q8nn_status_invalid_state, "operator was not prepared for VTA");
  if (state->on_cpu) {
    return op->type == q8nn_operator_type_add ? q8nn_run_add_cpu(op, exec) : q8nn_run_conv_cpu(op, exec);
  }
  pthread_mutex_lock(&vta->lock);
  const enum q8nn_status status = op->type == q8nn_operator_type_add ? q8nn_vta_add_run(&vta->target, op, state)
                                                                      : q8nn_vta_conv_run(&vta->target, op, state);
  pthread_mutex_unlock(&vta->lock);
  return status;
}

static bool vta_runs(const struct q8nn_backend* backend, const struct q8nn_operator* op) {
  (void) backend;
  const struct q8nn_vta_op_state* state = op->backend_state;
  return state != NULL && !state->on_cpu;
}

static void vta_destroy(struct q8nn_backend* backend) {
  struct q8nn_vta_backend* vta = q8nn_vta_backend_of(backend);
  q8nn_vta_device_delete(vta->target.device);
  pthread_mutex_destroy(&vta->lock);
  free(vta);
}

static const struct q8nn_backend_ops vta_ops = {
    .name = "vta",
    .supports = vta_supports,
    .prepare = vta_prepare,
    .run = vta_run,
    .release = vta_release,
    .destroy = vta_destroy,
    .runs = vta_runs,
};

static bool is_vta(q8nn_backend_t backend) { return backend != NULL && backend->ops == &vta_ops; }

enum q8nn_status q8nn_create_vta_backend(const struct q8nn_vta_config* config, q8nn_backend_t* backend_out) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (backend_out == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "backend_out is NULL");
  if (config != NULL && config->virtual_threads > 2) {
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "virtual_threads must be 0 (default), 1 or 2");
  }
  struct q8nn_vta_backend* vta = calloc(1, sizeof(*vta));
  if (vta == NULL) return Q8NN_ERROR(q8nn_status_out_of_memory, "VTA backend");
  char why[256] = "";
  enum q8nn_status status = q8nn_vta_config_from_public(&vta->target.config, config, why, sizeof(why));
  if (status != q8nn_status_success) {
    free(vta);
    return Q8NN_ERROR(status, "VTA configuration: %s", why);
  }
  if (vta->target.config.virtual_threads == 0) vta->target.config.virtual_threads = 2;
  if (config != NULL && config->requantization > q8nn_vta_requant_exact_limbs) {
    free(vta);
    return Q8NN_ERROR(q8nn_status_invalid_parameter, "requantization must be q8nn_vta_requant_exact, _16bit or _exact_limbs");
  }
  vta->target.exact = config == NULL || config->requantization != q8nn_vta_requant_16bit;
  vta->target.limb_form = config != NULL && config->requantization == q8nn_vta_requant_exact_limbs;
  const struct q8nn_vta_hw_config* cfg = &vta->target.config;
  if (cfg->log_inp_width != 3 || cfg->log_wgt_width != 3 || cfg->log_acc_width != 5) {
    free(vta);
    return Q8NN_ERROR(q8nn_status_unsupported_parameter, "the lowerings need int8 INP/WGT and int32 ACC");
  }
  status = q8nn_vta_device_create(&vta->target.config, &vta->target.device);
  if (status != q8nn_status_success) {
    free(vta);
    return Q8NN_ERROR(status, "VTA device");
  }
  if (pthread_mutex_init(&vta->lock, NULL) != 0) {
    q8nn_vta_device_delete(vta->target.device);
    free(vta);
    return Q8NN_ERROR(q8nn_status_out_of_memory, "VTA backend lock");
  }
  vta->base.ops = &vta_ops;
  vta->base.impl = vta;
  *backend_out = &vta->base;
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_get_stats(q8nn_backend_t backend, struct q8nn_vta_stats* stats) {
  if (backend == NULL || stats == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "backend or stats is NULL");
  if (!is_vta(backend)) return Q8NN_ERROR(q8nn_status_invalid_parameter, "not a VTA backend");
  struct q8nn_vta_backend* vta = q8nn_vta_backend_of(backend);
  pthread_mutex_lock(&vta->lock);
  q8nn_vta_device_get_stats(vta->target.device, stats);
  pthread_mutex_unlock(&vta->lock);
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_get_operator_stats(q8nn_operator_t op, struct q8nn_vta_stats* stats) {
  if (op == NULL || stats == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "op or stats is NULL");
  if (!is_vta(op->backend)) return Q8NN_ERROR(q8nn_status_invalid_parameter, "the operator is not on a VTA backend");
  /* The state is the operator's (its thread's); its counters are written under the lock by that
     same operator's run, so no other thread writes them. */
  const struct q8nn_vta_op_state* state = op->backend_state;
  if (state == NULL || state->on_cpu) {
    memset(stats, 0, sizeof(*stats));
  } else {
    *stats = state->last_run.stats;
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_vta_reset_stats(q8nn_backend_t backend) {
  if (backend == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "backend is NULL");
  if (!is_vta(backend)) return Q8NN_ERROR(q8nn_status_invalid_parameter, "not a VTA backend");
  struct q8nn_vta_backend* vta = q8nn_vta_backend_of(backend);
  pthread_mutex_lock(&vta->lock);
  q8nn_vta_device_reset_stats(vta->target.device);
  memset(&vta->target.last_run, 0, sizeof(vta->target.last_run));
  pthread_mutex_unlock(&vta->lock);
  return q8nn_status_success;
}

struct q8nn_vta_op_state* q8nn_vta_op_state_of(struct q8nn_operator* op) {
  return op != NULL && is_vta(op->backend) ? op->backend_state : NULL;
}

const struct q8nn_vta_run_info* q8nn_vta_last_run(q8nn_backend_t backend) {
  return is_vta(backend) ? &q8nn_vta_backend_of(backend)->target.last_run : NULL;
}
