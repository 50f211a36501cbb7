/*
 * q8nn_qs8_gemm_minmax_{rdouble,rsingle,fp32}_ukernel_4x16c1__neon: aarch64 NEON (no dot product).
 * Tile 4x16, KR = 1 (standard packing), K blocked by 8 with SMLAL by element; any kc, mr 1..4,
 * nc tails stored with partial stores. Reads params output_zero_point/min/max; per-channel
 * multiplier and shift from the packed header. Both TFLite roundings, bit-exact (neon-requant.h).
 * K loop: neon-gemm-4x16c1.h; drivers: neon-gemm-4x16.h.
 */
#include "kernel-decls.h"
#include "arch/neon/neon-gemm-4x16c1.h"

Q8NN_NEON_GEMM_4X16(q8nn_qs8_gemm_minmax_rdouble_ukernel_4x16c1__neon,
                    q8nn_qs8_gemm_minmax_rsingle_ukernel_4x16c1__neon, q8nn_neon_4x16c1_k,
                    Q8NN_NEON_LAYOUT_ROWS)
Q8NN_NEON_GEMM_4X16_FP32(q8nn_qs8_gemm_minmax_fp32_ukernel_4x16c1__neon, q8nn_neon_4x16c1_k,
                         Q8NN_NEON_LAYOUT_ROWS)
