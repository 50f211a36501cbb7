/* Public backend calls and the glue between operators and their backend. */
#include <stdlib.h>

#include "accel/backend.h"
#include "operator.h"

enum q8nn_status q8nn_backend_prepare(struct q8nn_operator* op) {
  if (op->backend == NULL) return q8nn_status_success;
  return op->backend->ops->prepare(op->backend, op);
}

enum q8nn_status q8nn_backend_run(struct q8nn_operator* op, const struct q8nn_exec* exec) {
  return op->backend->ops->run(op->backend, op, exec);
}

void q8nn_backend_release(struct q8nn_operator* op) {
  if (op->backend != NULL && op->backend->ops->release != NULL) op->backend->ops->release(op->backend, op);
  op->backend_state = NULL;
}

const char* q8nn_backend_name(q8nn_backend_t backend) { return backend != NULL ? backend->ops->name : "cpu"; }

bool q8nn_backend_supports(q8nn_backend_t backend, q8nn_operator_t op) {
  if (op == NULL) return false;
  if (backend == NULL) return true; /* the CPU runs everything */
  return backend->ops->supports(backend, op);
}

enum q8nn_status q8nn_operator_set_backend(q8nn_operator_t op, q8nn_backend_t backend) {
  if (!q8nn_is_initialized()) return Q8NN_ERROR(q8nn_status_uninitialized, "call q8nn_initialize first");
  if (op == NULL) return Q8NN_ERROR(q8nn_status_invalid_parameter, "operator is NULL");
  if (op->is_setup) return Q8NN_ERROR(q8nn_status_invalid_state, "set the backend before setup");
  if (backend == op->backend) return q8nn_status_success;
  if (backend != NULL && !backend->ops->supports(backend, op)) {
    return Q8NN_ERROR(q8nn_status_unsupported_parameter, "backend %s cannot run this operator", backend->ops->name);
  }
  q8nn_backend_release(op);
  op->backend = backend;
  return q8nn_status_success;
}

q8nn_backend_t q8nn_operator_get_backend(q8nn_operator_t op) {
  if (op == NULL || op->backend == NULL || !op->is_setup) return NULL;
  if (op->backend->ops->runs != NULL && !op->backend->ops->runs(op->backend, op)) return NULL;
  return op->backend;
}

enum q8nn_status q8nn_delete_backend(q8nn_backend_t backend) {
  if (backend == NULL) return q8nn_status_success;
  backend->ops->destroy(backend);
  return q8nn_status_success;
}
