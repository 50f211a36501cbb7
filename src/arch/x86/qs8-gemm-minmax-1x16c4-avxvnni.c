/*
 * AVX-VNNI gemm, tile 1x16c4, TFLite roundings and fp32: the one-row tile of the 6x16c4 / 4x16c4
 * packing family (see qs8-gemm-minmax-1x32c4-avx512vnni.c for why, qs8-gemm-avxvnni.h for the
 * arithmetic).
 */
#include "kernel-decls.h"
#include "arch/x86/qs8-gemm-avxvnni.h"

Q8NN_X86_GEMM_KERNELS(q8nn_x86_vnni_gemm_rows,
                      q8nn_qs8_gemm_minmax_rdouble_ukernel_1x16c4__avxvnni,
                      q8nn_qs8_gemm_minmax_rsingle_ukernel_1x16c4__avxvnni,
                      q8nn_qs8_igemm_minmax_rdouble_ukernel_1x16c4__avxvnni,
                      q8nn_qs8_igemm_minmax_rsingle_ukernel_1x16c4__avxvnni, 1, 2)
Q8NN_X86_GEMM_FP32_KERNELS(q8nn_x86_vnni_gemm_rows, q8nn_qs8_gemm_minmax_fp32_ukernel_1x16c4__avxvnni,
                           q8nn_qs8_igemm_minmax_fp32_ukernel_1x16c4__avxvnni, 1, 2)
