/* The VTA backend: operators lowered once at setup to a VTA program recorded with the runtime
   layer, re-run at every q8nn_run_operator (host re-layout in, program run, re-layout out).
   docs/vta-backend.md describes layouts, tiling and arithmetic. */
#ifndef Q8NN_VTA_BACKEND_H
#define Q8NN_VTA_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel/backend.h"
#include "accel/vta/vta-lower-add.h"
#include "accel/vta/vta-lower-conv.h"
#include "accel/vta/vta-lower.h"

struct q8nn_vta_backend {
  struct q8nn_backend base;      /* first: a q8nn_backend_t points here */
  struct q8nn_vta_target target; /* what the lowerings record for */
  /* One device for every operator on the backend, whatever thread runs them: prepare, run (of a
     program; operators left on the CPU run unlocked), release and the counters take this lock, so
     programs run one at a time and every counter adds up (q8nn.h, "Concurrency"). */
  pthread_mutex_t lock;
};

static inline struct q8nn_vta_backend* q8nn_vta_backend_of(struct q8nn_backend* backend) {
  return (struct q8nn_vta_backend*) backend;
}

/* For tests and benchmarks: the state of an operator on the VTA backend (NULL otherwise), and
   the counters of the last program run. */
Q8NN_INTERNAL struct q8nn_vta_op_state* q8nn_vta_op_state_of(struct q8nn_operator* op);
Q8NN_INTERNAL const struct q8nn_vta_run_info* q8nn_vta_last_run(q8nn_backend_t backend);

#endif
