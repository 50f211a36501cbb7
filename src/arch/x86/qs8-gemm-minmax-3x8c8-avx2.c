/*
 * AVX2 gemm and igemm, tile 3x8c8, TFLite roundings and fp32: 3 rows x 1 group(s) of 8 output channels,
 * K in blocks of 8 bytes (VPMADDWD on sign-extended int16: exact, no saturation).
 * Params: output zero point and clamp; per-channel bias/multiplier/shift from the packed weights
 * (q8nn_pack_qs8_gemm_goki_w_avx2, NR = 8, KR = 8). Tails: K tail copied to a small buffer,
 * partial channel blocks stored through a buffer. See qs8-gemm-avx2.h and x86-avx2.h.
 */
#include "kernel-decls.h"
#include "arch/x86/qs8-gemm-avx2.h"

Q8NN_X86_GEMM_KERNELS(q8nn_x86_avx2_gemm_rows, q8nn_qs8_gemm_minmax_rdouble_ukernel_3x8c8__avx2,
                   q8nn_qs8_gemm_minmax_rsingle_ukernel_3x8c8__avx2,
                   q8nn_qs8_igemm_minmax_rdouble_ukernel_3x8c8__avx2,
                   q8nn_qs8_igemm_minmax_rsingle_ukernel_3x8c8__avx2, 3, 1)
Q8NN_X86_GEMM_FP32_KERNELS(q8nn_x86_avx2_gemm_rows, q8nn_qs8_gemm_minmax_fp32_ukernel_3x8c8__avx2,
                           q8nn_qs8_igemm_minmax_fp32_ukernel_3x8c8__avx2, 3, 1)
