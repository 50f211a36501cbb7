/*
 * AVX-VNNI gemm and igemm, tile 4x16c4, TFLite roundings and fp32: 4 rows x 2 ymm of 8 output channels,
 * K in groups of 4 bytes (VEX VPDPBUSD, u8 weights x s8 activations, 128 * row-sum correction).
 * Params: output zero point and clamp; per-channel bias/multiplier/shift from the packed weights
 * (q8nn_pack_qs8_gemm_goki_w_u8_avxvnni, NR = 16, KR = 4). Tails: K tail and row-sum tail
 * copied to small buffers, partial channel blocks stored through a buffer.
 * See qs8-gemm-avxvnni.h and x86-avx2.h.
 */
#include "kernel-decls.h"
#include "arch/x86/qs8-gemm-avxvnni.h"

Q8NN_X86_GEMM_KERNELS(q8nn_x86_vnni_gemm_rows,
                      q8nn_qs8_gemm_minmax_rdouble_ukernel_4x16c4__avxvnni,
                      q8nn_qs8_gemm_minmax_rsingle_ukernel_4x16c4__avxvnni,
                      q8nn_qs8_igemm_minmax_rdouble_ukernel_4x16c4__avxvnni,
                      q8nn_qs8_igemm_minmax_rsingle_ukernel_4x16c4__avxvnni, 4, 2)
Q8NN_X86_GEMM_FP32_KERNELS(q8nn_x86_vnni_gemm_rows, q8nn_qs8_gemm_minmax_fp32_ukernel_4x16c4__avxvnni,
                           q8nn_qs8_igemm_minmax_fp32_ukernel_4x16c4__avxvnni, 4, 2)
