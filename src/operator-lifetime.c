/*
 * An operator's allocation and deletion. Deletion frees what every layer of the operator owns: its
 * backend state (accel/backend.h), the q8nn_run_operators plan it keeps (run-sequence.c), its
 * packed weights and tables, its class's state. Above both the runner (operator-run.c) and the
 * list runner (run-sequence.c), which never call it.
 */
#include <stdlib.h>

#include "accel/backend.h"
#include "operator.h"

struct q8nn_operator* q8nn_allocate_operator(enum q8nn_operator_type type) {
  struct q8nn_operator* op = calloc(1, sizeof(struct q8nn_operator));
  if (op != NULL) op->type = type;
  return op;
}

enum q8nn_status q8nn_delete_operator(q8nn_operator_t op) {
  if (op == NULL) return q8nn_status_success;
  q8nn_backend_release(op);
  q8nn_free_list_plan(op->list_plan);
  free(op->kernel);
  free(op->bias);
  free(op->multiplier);
  free(op->shift);
  free(op->packed_weights);
  free(op->zero_buffer);
  free((void*) op->indirection);
  free(op->expanded_input);
  free(op->mul_tables);
  if (op->cls != NULL && op->cls->release != NULL) op->cls->release(op);
  free(op);
  return q8nn_status_success;
}
