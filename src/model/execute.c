/*
 * The executor: runs a loaded model's operators in order on the caller's threads, consecutive
 * q8nn operators as one q8nn_run_operators list; no allocation.
 */
#include <string.h>
#include <time.h>

#include "model-internal.h"

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* A lookup (MUL/SUB by a constant) over the caller's threads, in tiles of whole rows of
   table_values bytes; small ones stay on the calling thread. */
struct lookup_context {
  const struct op* op;
  const int8_t* input;
  int8_t* output;
};

static void lookup_tile(void* context, size_t start, size_t rows) {
  const struct lookup_context* c = (const struct lookup_context*) context;
  const size_t nb = c->op->table_values;
  q8nn_model_table_s8(rows * nb, nb, c->op->table, c->input + start * nb, c->output + start * nb);
}

#define LOOKUP_TILE_BYTES 16384

/* The threads a run uses: the caller's pthreadpool, the host's parallel-for, or (both NULL) the
   calling thread. */
struct run_threads {
  pthreadpool_t pool;
  const struct q8nn_threadpool* host;
};

static size_t threads_of(const struct run_threads* t) {
  if (t->host != NULL) {
    const size_t n = t->host->threads_count(t->host->context);
    return n != 0 ? n : 1;
  }
  return t->pool != NULL ? pthreadpool_get_threads_count(t->pool) : 1;
}

static enum q8nn_status run_operator(const struct run_threads* t, q8nn_operator_t op) {
  return t->host != NULL ? q8nn_run_operator_on(op, t->host) : q8nn_run_operator(op, t->pool);
}

static void run_lookup(const struct q8nn_model* m, const struct op* op, const struct run_threads* t) {
  const struct tensor* out = &m->tensors[op->output];
  struct lookup_context context = {op, (const int8_t*) m->tensors[op->table_input].data, (int8_t*) out->data};
  const size_t rows = out->elements / op->table_values;
  const size_t tile = LOOKUP_TILE_BYTES / op->table_values + 1;
  if (rows > tile && threads_of(t) > 1) {
    /* lookup_tile takes any number of rows: a host may merge tiles */
    if (t->host != NULL) {
      t->host->parallelize_1d_tile_1d(t->host->context, lookup_tile, &context, rows, tile);
    } else {
      pthreadpool_parallelize_1d_tile_1d(t->pool, lookup_tile, &context, rows, tile, 0);
    }
  } else {
    lookup_tile(&context, 0, rows);
  }
}

/* One operator on its own: a q8nn operator on the caller's threads, or the portable code of the
   kinds q8nn has no operator for. */
static enum q8nn_status run_op(struct q8nn_model* m, struct op* op, const struct run_threads* t) {
  if (model_kind_is_q8nn_operator(op->kind)) return run_operator(t, op->qop);
  struct tensor* out = &m->tensors[op->output];
  const struct tensor* in = &m->tensors[op->inputs[0]];
  switch (op->kind) {
    case K_COPY: memmove(out->data, in->data, op->copy_bytes); break;
    case K_MUL:
    case K_SUB:
      if (op->table != NULL) {
        run_lookup(m, op, t);
      } else if (op->kind == K_MUL) {
        return run_operator(t, op->qop); /* q8nn's multiply, set up at prepare */
      } else {
        q8nn_model_sub_s8(&op->binary, (const int8_t*) in->data, (const int8_t*) m->tensors[op->inputs[1]].data,
                          (int8_t*) out->data);
      }
      break;
    case K_PAD:
      q8nn_model_pad_s8(op->pad_rank, op->pad_in, op->pad_before, op->pad_out, op->pad_value,
                        (const int8_t*) in->data, (int8_t*) out->data);
      break;
    case K_MEAN: q8nn_model_mean_s8(&op->mean, (const int8_t*) in->data, (int8_t*) out->data); break;
    case K_QUANTIZE:
      if (op->requantize) {
        q8nn_model_requantize_8(out->elements, in->type == q8nn_model_type_uint8, in->zero_point,
                                out->type == q8nn_model_type_uint8, out->zero_point, op->rq_multiplier, op->rq_shift,
                                in->data, out->data);
      } else {
        q8nn_model_quantize_f32_s8(out->elements, out->scale, out->zero_point, (const float*) in->data,
                                   (int8_t*) out->data);
      }
      break;
    case K_DEQUANTIZE:
      q8nn_model_dequantize_8_f32(in->elements, in->type == q8nn_model_type_uint8, in->scale, in->zero_point, in->data,
                                  (float*) out->data);
      break;
    default: return q8nn_status_invalid_parameter; /* a q8nn operator kind, handled above */
  }
  return q8nn_status_success;
}

#define RUN_LIST_MAX 64

/* Runs the `listed` operators collected by q8nn_model_run (if any) as one list and empties it. */
static enum q8nn_status run_list(q8nn_operator_t* list, size_t* listed, const struct run_threads* t) {
  enum q8nn_status status = q8nn_status_success;
  if (*listed != 0) {
    status = t->host != NULL ? q8nn_run_operators_on(*listed, list, t->host) : q8nn_run_operators(*listed, list, t->pool);
  }
  *listed = 0;
  return status;
}

static enum q8nn_status model_run(q8nn_model_t m, const struct run_threads* t) {
  for (size_t i = 0; i < m->num_inputs; i++) {
    const struct tensor* t = &m->tensors[m->inputs[i]];
    if (m->bound_inputs[i] != NULL && m->bound_inputs[i] != t->data) memcpy(t->data, m->bound_inputs[i], t->bytes);
  }
  /* With several threads, consecutive q8nn operators (convolutions, fully connected, adds) run as
     one q8nn_run_operators list: one threadpool call and a barrier per operator instead of a call
     each (docs/performance.md, "Threads and the parallel region"). Profiling and the debug
     callback keep one call per op. */
  const int batch = !m->profile && m->debug == NULL && threads_of(t) > 1;
  q8nn_operator_t list[RUN_LIST_MAX];
  size_t listed = 0;
  for (size_t k = 0; k < m->num_ops; k++) {
    struct op* op = &m->ops[k];
    if (op->fused_into < 0) { /* a fused op's work is done by the op it was fused into */
      if (batch && model_kind_is_q8nn_operator(op->kind)) {
        list[listed++] = op->qop;
        if (listed == RUN_LIST_MAX) {
          const enum q8nn_status status = run_list(list, &listed, t);
          if (status != q8nn_status_success) return status;
        }
        continue;
      }
      const enum q8nn_status list_status = run_list(list, &listed, t);
      if (list_status != q8nn_status_success) return list_status;
      const uint64_t start = m->profile ? now_ns() : 0;
      const enum q8nn_status status = run_op(m, op, t);
      if (status != q8nn_status_success) return status;
      if (m->profile) op->last_ns = now_ns() - start;
    }
    if (m->debug != NULL) m->debug(m->debug_context, m, k);
  }
  const enum q8nn_status list_status = run_list(list, &listed, t);
  if (list_status != q8nn_status_success) return list_status;
  for (size_t i = 0; i < m->num_outputs; i++) {
    const struct tensor* t = &m->tensors[m->outputs[i]];
    if (m->bound_outputs[i] != NULL && m->bound_outputs[i] != t->data) memcpy(m->bound_outputs[i], t->data, t->bytes);
  }
  return q8nn_status_success;
}

enum q8nn_status q8nn_model_run(q8nn_model_t m, pthreadpool_t threadpool) {
  if (m == NULL) return q8nn_status_invalid_parameter;
  const struct run_threads t = {threadpool, NULL};
  return model_run(m, &t);
}

enum q8nn_status q8nn_model_run_on(q8nn_model_t m, const struct q8nn_threadpool* pool) {
  if (m == NULL) return q8nn_status_invalid_parameter;
  if (pool != NULL && (pool->threads_count == NULL || pool->parallelize_1d_tile_1d == NULL)) {
    return q8nn_status_invalid_parameter;
  }
  const struct run_threads t = {NULL, pool};
  return model_run(m, &t);
}
