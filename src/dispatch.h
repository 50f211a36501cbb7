/* The per-family dispatch tables filled by q8nn_initialize / q8nn_set_isa_mask. */
#ifndef Q8NN_DISPATCH_H
#define Q8NN_DISPATCH_H

#include "common.h"
#include "kernels/ukernel.h"

struct q8nn_dispatch {
  const struct q8nn_gemm_entry* gemm;
  const struct q8nn_igemm_entry* igemm;
  const struct q8nn_dwconv_entry* dwconv_9;   /* 3x3 */
  const struct q8nn_dwconv_entry* dwconv_25;  /* 5x5 */
  const struct q8nn_dwconv_entry* dwconv_any; /* any number of taps */
  const struct q8nn_vadd_entry* vadd;
};

/* A consistent copy of the current tables (the mask may change concurrently). */
Q8NN_INTERNAL struct q8nn_dispatch q8nn_get_dispatch(void);

#endif
