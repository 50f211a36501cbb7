/*
 * AVX-512 VNNI gemm, tile 1x32c4, TFLite roundings and fp32: one row x 2 zmm of 16 output channels.
 * The tile of a product with one or two rows (a fully connected layer on one input, a 1x1
 * convolution of a 1x1 image): the MR-row tiles would compute MR - 1 aliased rows for every weight
 * vector they load. Packing as 8x32c4 (NR = 32, KR = 4), so setup switches to it within the family.
 * See qs8-gemm-avx512vnni.h for the arithmetic.
 */
#include "kernel-decls.h"
#include "arch/x86/qs8-gemm-avx512vnni.h"

Q8NN_X86_GEMM_AVX512VNNI(q8nn_qs8_gemm_minmax_rdouble_ukernel_1x32c4__avx512vnni,
                         q8nn_qs8_gemm_minmax_rsingle_ukernel_1x32c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rdouble_ukernel_1x32c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rsingle_ukernel_1x32c4__avx512vnni, 1, 2)
Q8NN_X86_GEMM_FP32_AVX512VNNI(q8nn_qs8_gemm_minmax_fp32_ukernel_1x32c4__avx512vnni,
                              q8nn_qs8_igemm_minmax_fp32_ukernel_1x32c4__avx512vnni, 1, 2)
