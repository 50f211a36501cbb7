/*
 * The pluggable backend interface. The CPU is the default (op->backend == NULL); another backend
 * (the VTA model) implements these four hooks. Data stays int8 at the boundary: a backend reads
 * the operator's input and writes its output buffers directly.
 */
#ifndef Q8NN_ACCEL_BACKEND_H
#define Q8NN_ACCEL_BACKEND_H

#include <stdbool.h>

#include "common.h"

struct q8nn_operator;
struct q8nn_exec;

struct q8nn_backend_ops {
  const char* name;
  /* Can this backend run the operator as created? Must not modify it. */
  bool (*supports)(struct q8nn_backend* backend, const struct q8nn_operator* op);
  /* At setup, after the CPU plan is built: lower shapes/pointers (may allocate, may fail). */
  enum q8nn_status (*prepare)(struct q8nn_backend* backend, struct q8nn_operator* op);
  /* Run a prepared operator. exec holds the caller's threads (for work the backend leaves on the CPU). */
  enum q8nn_status (*run)(struct q8nn_backend* backend, struct q8nn_operator* op, const struct q8nn_exec* exec);
  /* Free op->backend_state (the operator is deleted or moved to another backend). */
  void (*release)(struct q8nn_backend* backend, struct q8nn_operator* op);
  /* Free the backend itself. */
  void (*destroy)(struct q8nn_backend* backend);
  /* After a successful prepare: does the backend run op itself (false: prepare left it on the CPU)?
     NULL = always. */
  bool (*runs)(const struct q8nn_backend* backend, const struct q8nn_operator* op);
};

struct q8nn_backend {
  const struct q8nn_backend_ops* ops;
  void* impl;
};

/* Called by the operators; no-ops for CPU operators. */
Q8NN_INTERNAL enum q8nn_status q8nn_backend_prepare(struct q8nn_operator* op);
Q8NN_INTERNAL enum q8nn_status q8nn_backend_run(struct q8nn_operator* op, const struct q8nn_exec* exec);
Q8NN_INTERNAL void q8nn_backend_release(struct q8nn_operator* op);

#endif
