/* Portable igemm kernels, tiles 4x4c1 and 1x4c1; both TFLite roundings and XNNPACK's fp32
   requantization. Weights w[ks][kc][NR]; the indirection holds MR row pointers per tap, `zero`
   rows are not offset. */
#include "kernel-decls.h"
#include "scalar-conv.h"

Q8NN_SCALAR_IGEMM(q8nn_qs8_igemm_minmax_rdouble_ukernel_4x4c1__scalar, 4, 4, 0)
Q8NN_SCALAR_IGEMM(q8nn_qs8_igemm_minmax_rsingle_ukernel_4x4c1__scalar, 4, 4, 1)
Q8NN_SCALAR_IGEMM(q8nn_qs8_igemm_minmax_rdouble_ukernel_1x4c1__scalar, 1, 4, 0)
Q8NN_SCALAR_IGEMM(q8nn_qs8_igemm_minmax_rsingle_ukernel_1x4c1__scalar, 1, 4, 1)
/* XNNPACK's fp32 requantization (q8nn_rounding_fp32) */
Q8NN_SCALAR_IGEMM(q8nn_qs8_igemm_minmax_fp32_ukernel_4x4c1__scalar, 4, 4, 2)
Q8NN_SCALAR_IGEMM(q8nn_qs8_igemm_minmax_fp32_ukernel_1x4c1__scalar, 1, 4, 2)
