/*
 * AVX-512 VNNI gemm and igemm, tile 8x32c4, TFLite roundings and fp32: 8 rows x 2 zmm of 16 output
 * channels (16 accumulators), K in groups of 4 bytes (VPDPBUSD: x + 128 u8, weights s8).
 * Params: output zero point and clamp; per-channel bias/multiplier/shift from the packed weights
 * (q8nn_pack_qs8_gemm_goki_w_avx512, input_offset 128, NR = 32, KR = 4; fp32: the scale in the
 * multiplier slot).
 * Tails: masked K loads, masked stores for nc.
 * See qs8-gemm-avx512vnni.h for the arithmetic.
 */
#include "kernel-decls.h"
#include "arch/x86/qs8-gemm-avx512vnni.h"

Q8NN_X86_GEMM_AVX512VNNI(q8nn_qs8_gemm_minmax_rdouble_ukernel_8x32c4__avx512vnni,
                         q8nn_qs8_gemm_minmax_rsingle_ukernel_8x32c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rdouble_ukernel_8x32c4__avx512vnni,
                         q8nn_qs8_igemm_minmax_rsingle_ukernel_8x32c4__avx512vnni, 8, 2)
Q8NN_X86_GEMM_FP32_AVX512VNNI(q8nn_qs8_gemm_minmax_fp32_ukernel_8x32c4__avx512vnni,
                              q8nn_qs8_igemm_minmax_fp32_ukernel_8x32c4__avx512vnni, 8, 2)
