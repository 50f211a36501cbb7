/*
 * q8nn_qs8_igemm_minmax_{rdouble,rsingle,fp32}_ukernel_4x16c1__neon: aarch64 NEON (no dot product).
 * Tile 4x16, KR = 1 (standard packing), ks taps through the indirection buffer (a pointer equal to
 * `zero` is used as is, others get a_offset), K blocked by 8 with SMLAL by element; any kc, mr
 * 1..4 (rows >= mr take the last valid row's pointers), nc tails stored with partial stores.
 * Both TFLite roundings and XNNPACK's fp32, bit-exact (neon-requant.h). K loop: neon-gemm-4x16c1.h; drivers:
 * neon-gemm-4x16.h.
 */
#include "kernel-decls.h"
#include "arch/neon/neon-gemm-4x16c1.h"

Q8NN_NEON_IGEMM_4X16(q8nn_qs8_igemm_minmax_rdouble_ukernel_4x16c1__neon,
                     q8nn_qs8_igemm_minmax_rsingle_ukernel_4x16c1__neon, q8nn_neon_4x16c1_k,
                     Q8NN_NEON_LAYOUT_ROWS)
Q8NN_NEON_IGEMM_4X16_FP32(q8nn_qs8_igemm_minmax_fp32_ukernel_4x16c1__neon, q8nn_neon_4x16c1_k,
                          Q8NN_NEON_LAYOUT_ROWS)
