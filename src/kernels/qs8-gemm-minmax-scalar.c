/* Portable gemm kernels, tiles 4x4c1 and 1x4c1; both TFLite roundings and XNNPACK's fp32
   requantization. KR = 1: weights w[kc][NR]. Rows past mr are computed on the last row and never
   stored; nc tails store fewer columns. */
#include "kernel-decls.h"
#include "scalar-conv.h"

Q8NN_SCALAR_GEMM(q8nn_qs8_gemm_minmax_rdouble_ukernel_4x4c1__scalar, 4, 4, 0)
Q8NN_SCALAR_GEMM(q8nn_qs8_gemm_minmax_rsingle_ukernel_4x4c1__scalar, 4, 4, 1)
Q8NN_SCALAR_GEMM(q8nn_qs8_gemm_minmax_rdouble_ukernel_1x4c1__scalar, 1, 4, 0)
Q8NN_SCALAR_GEMM(q8nn_qs8_gemm_minmax_rsingle_ukernel_1x4c1__scalar, 1, 4, 1)
/* XNNPACK's fp32 requantization (q8nn_rounding_fp32) */
Q8NN_SCALAR_GEMM(q8nn_qs8_gemm_minmax_fp32_ukernel_4x4c1__scalar, 4, 4, 2)
Q8NN_SCALAR_GEMM(q8nn_qs8_gemm_minmax_fp32_ukernel_1x4c1__scalar, 1, 4, 2)
