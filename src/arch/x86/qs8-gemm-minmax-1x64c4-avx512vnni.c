/*
 * AVX-512 VNNI gemm, tile 1x64c4, TFLite roundings and fp32: one row x 4 zmm of 16 output channels,
 * the one-row tile of the 4x64c4 / 6x64c4 packing family (NR = 64, KR = 4). See
 * qs8-gemm-minmax-1x32c4-avx512vnni.c for why, qs8-gemm-avx512vnni.h for the arithmetic.
 */
#include "kernel-decls.h"
#include "arch/x86/qs8-gemm-avx512vnni.h"

Q8NN_X86_GEMM_AVX512VNNI(q8nn_qs8_gemm_minmax_rdouble_ukernel_1x64c4__avx512vnni,
                         q8nn_qs8_gemm_minmax_rsingle_ukernel_1x64c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rdouble_ukernel_1x64c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rsingle_ukernel_1x64c4__avx512vnni, 1, 4)
Q8NN_X86_GEMM_FP32_AVX512VNNI(q8nn_qs8_gemm_minmax_fp32_ukernel_1x64c4__avx512vnni,
                              q8nn_qs8_igemm_minmax_fp32_ukernel_1x64c4__avx512vnni, 1, 4)
