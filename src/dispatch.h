/* The per-family dispatch tables filled by q8nn_initialize / q8nn_set_isa_mask. */
#ifndef Q8NN_DISPATCH_H
#define Q8NN_DISPATCH_H

#include "common.h"
#include "kernels/ukernel.h"

/* The im2col path's row buffer (operator.h) bounds the gemm tile it runs: at most this MR. Its
   rows are padded to whole K groups of min(KR, Q8NN_IM2COL_ROW_KR) bytes: a line's kernel reads
   any kc (ukernel.h), the padding only spares the K tail of the lines whose KR is at most that;
   the AMX lines (KR 64, K groups of 4 inside) take rows padded to 8 bytes, a one-step K. */
#define Q8NN_IM2COL_MAX_MR 32
#define Q8NN_IM2COL_ROW_KR 8

/* Conv families per requantization (index: enum q8nn_rounding), add per arithmetic (index: enum
   q8nn_add_arithmetic). Each slot holds the first active list line that implements it. */
struct q8nn_dispatch {
  const struct q8nn_gemm_entry* gemm[Q8NN_REQUANT_KINDS];
  /* the first active line within the im2col bound above */
  const struct q8nn_gemm_entry* im2col_gemm[Q8NN_REQUANT_KINDS];
  const struct q8nn_igemm_entry* igemm[Q8NN_REQUANT_KINDS];
  const struct q8nn_dwconv_entry* dwconv_9[Q8NN_REQUANT_KINDS];   /* 3x3 */
  const struct q8nn_dwconv_entry* dwconv_25[Q8NN_REQUANT_KINDS];  /* 5x5 */
  const struct q8nn_dwconv_entry* dwconv_any[Q8NN_REQUANT_KINDS]; /* any number of taps */
  const struct q8nn_vadd_entry* vadd[Q8NN_ADD_ARITHMETICS];
  const struct q8nn_lut_entry* lut; /* table lookups: the same for int8 and uint8 */
  /* Convolutions created now run the guarded epilogue where their kernel line has it
     (q8nn_guard_params): 1 unless the environment sets Q8NN_GUARD=0 or q8nn_set_guard_enabled(0). */
  int guard;
};

/* A consistent copy of the current tables (the mask may change concurrently); u8: the lines that
   take uint8 activations (init.c). */
Q8NN_INTERNAL struct q8nn_dispatch q8nn_get_dispatch(int u8);

/* The guarded epilogue for convolutions created from now on (the tests and benchmarks compare both). */
Q8NN_INTERNAL void q8nn_set_guard_enabled(int enabled);

/* Shape-aware tile choice (tile-select.c): a line of the same ISA bits as `first` that implements
   `rounding`, chosen by a deterministic cost model on (M, N, K, taps). family = 0 (create, m = 0:
   M not known yet): any tile of that ISA; family = 1 (setup): only lines that share first's packed
   weights (NR, KR, packing function, input offset). Returns first when its tile has no measured rate. */
Q8NN_INTERNAL const struct q8nn_gemm_entry* q8nn_choose_gemm_tile(
    const struct q8nn_gemm_entry* first, int rounding, int family, size_t m, size_t n, size_t k);
Q8NN_INTERNAL const struct q8nn_igemm_entry* q8nn_choose_igemm_tile(
    const struct q8nn_igemm_entry* first, int rounding, int family, size_t m, size_t n, size_t k, size_t taps);

#endif
