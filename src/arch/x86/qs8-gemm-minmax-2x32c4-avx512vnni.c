/*
 * AVX-512 VNNI gemm, tile 2x32c4, TFLite roundings and fp32: two rows x 2 zmm of 16 output channels.
 * The tile of a product with two or three rows (a fully connected layer on a batch of two): the
 * one-row tile would read the weights once per row, the 7- and 8-row tiles compute five aliased
 * rows or more. Packing as 8x32c4 (NR = 32, KR = 4), so setup switches to it within the family.
 * See qs8-gemm-avx512vnni.h for the arithmetic.
 */
#include "kernel-decls.h"
#include "arch/x86/qs8-gemm-avx512vnni.h"

Q8NN_X86_GEMM_AVX512VNNI(q8nn_qs8_gemm_minmax_rdouble_ukernel_2x32c4__avx512vnni,
                         q8nn_qs8_gemm_minmax_rsingle_ukernel_2x32c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rdouble_ukernel_2x32c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rsingle_ukernel_2x32c4__avx512vnni, 2, 2)
Q8NN_X86_GEMM_FP32_AVX512VNNI(q8nn_qs8_gemm_minmax_fp32_ukernel_2x32c4__avx512vnni,
                              q8nn_qs8_igemm_minmax_fp32_ukernel_2x32c4__avx512vnni, 2, 2)
