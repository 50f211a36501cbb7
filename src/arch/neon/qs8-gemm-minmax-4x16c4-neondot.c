/*
 * q8nn_qs8_gemm_minmax_{rdouble,rsingle,fp32}_ukernel_4x16c4__neondot: aarch64 NEON + dot product
 * (SDOT, ARMv8.2 FEAT_DotProd; this file is built with -march=armv8.2-a+dotprod and only dispatched
 * when Q8NN_ISA_ARM_NEON_DOT is present). Tile 4x16, KR = 4 (standard packing), signed x signed
 * (input_offset 0), K blocked by 16, fixed-size partial loads for the K tail; any kc, mr 1..4, nc
 * tails.
 * Both TFLite roundings and XNNPACK's fp32, bit-exact (neon-requant.h). K loop: neon-gemm-4x16c4-dot.h; drivers:
 * neon-gemm-4x16.h.
 */
#include "kernel-decls.h"
#include "arch/neon/neon-gemm-4x16c4-dot.h"

Q8NN_NEON_GEMM_4X16(q8nn_qs8_gemm_minmax_rdouble_ukernel_4x16c4__neondot,
                    q8nn_qs8_gemm_minmax_rsingle_ukernel_4x16c4__neondot, q8nn_neondot_4x16c4_k,
                    Q8NN_NEON_LAYOUT_ROWS)
Q8NN_NEON_GEMM_4X16_FP32(q8nn_qs8_gemm_minmax_fp32_ukernel_4x16c4__neondot, q8nn_neondot_4x16c4_k,
                         Q8NN_NEON_LAYOUT_ROWS)
