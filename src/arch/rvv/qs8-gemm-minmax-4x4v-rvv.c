/*
 * q8nn_qs8_gemm_minmax_{rdouble,rsingle,fp32}_ukernel_4x4v__rvv: RISC-V Vector 1.0, vector-length
 * agnostic. Tile 4 rows x 4 vector registers (int32, LMUL 4); NR = 64 in the list, covered in
 * vl-sized chunks at any VLEN >= 128. KR = 1 (standard packing), any kc, mr 1..4, any nc. Both
 * TFLite roundings and XNNPACK's fp32, bit-exact (rvv-requant.h). Body: rvv-gemm-4x4v.h.
 */
#include "kernel-decls.h"
#include "arch/rvv/rvv-gemm-4x4v.h"

static inline __attribute__((always_inline)) void gemm_4x4v(
    int rounding, size_t mr, size_t nc, size_t kc, const int8_t* a, size_t a_stride, const void* w,
    int8_t* c, size_t cm_stride, size_t cn_stride, const struct q8nn_qs8_conv_params* params) {
  const int8_t* rows[4];
  for (size_t r = 0; r < 4; r++) rows[r] = a + (r < mr ? r : mr - 1) * a_stride;
  q8nn_rvv_4x4v_blocks(rounding, mr, nc, kc, 1, rows, 0, NULL, w, c, cm_stride, cn_stride, params);
}

Q8NN_DEFINE_GEMM_UKERNEL(q8nn_qs8_gemm_minmax_rdouble_ukernel_4x4v__rvv, gemm_4x4v, 0)
Q8NN_DEFINE_GEMM_UKERNEL(q8nn_qs8_gemm_minmax_rsingle_ukernel_4x4v__rvv, gemm_4x4v, 1)
Q8NN_DEFINE_GEMM_UKERNEL(q8nn_qs8_gemm_minmax_fp32_ukernel_4x4v__rvv, gemm_4x4v, 2)
