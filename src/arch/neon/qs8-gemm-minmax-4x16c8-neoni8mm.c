/*
 * q8nn_qs8_gemm_minmax_{rdouble,rsingle,fp32}_ukernel_4x16c8__neoni8mm: aarch64 NEON + i8mm (SMMLA,
 * FEAT_I8MM; built with -march=armv8.2-a+dotprod+i8mm, dispatched only with
 * Q8NN_ISA_ARM_NEON_I8MM). Tile 4x16, KR = 8 (standard packing), signed x signed (input_offset 0),
 * K blocked by 16, fixed-size partial loads for the K tail; any kc, mr 1..4, nc tails. Both TFLite
 * roundings, bit-exact (neon-requant.h). K loop: neon-gemm-4x16c8-i8mm.h; drivers:
 * neon-gemm-4x16.h.
 */
#include "kernel-decls.h"
#include "arch/neon/neon-gemm-4x16c8-i8mm.h"

Q8NN_NEON_GEMM_4X16(q8nn_qs8_gemm_minmax_rdouble_ukernel_4x16c8__neoni8mm,
                    q8nn_qs8_gemm_minmax_rsingle_ukernel_4x16c8__neoni8mm, q8nn_neoni8mm_4x16c8_k,
                    Q8NN_NEON_LAYOUT_MMLA)
Q8NN_NEON_GEMM_4X16_FP32(q8nn_qs8_gemm_minmax_fp32_ukernel_4x16c8__neoni8mm, q8nn_neoni8mm_4x16c8_k,
                         Q8NN_NEON_LAYOUT_MMLA)
