/*
 * q8nn_qs8_igemm_minmax_{rdouble,rsingle,fp32}_ukernel_4x4v__rvv: RISC-V Vector 1.0, vector-length
 * agnostic. Tile 4 rows x 4 vector registers (int32, LMUL 4); NR = 64 in the list, covered in
 * vl-sized chunks at any VLEN >= 128. KR = 1 (standard packing), ks taps through the indirection
 * buffer (zero row as is, others + a_offset; rows >= mr take row mr - 1), any kc, any nc. Both
 * TFLite roundings and XNNPACK's fp32, bit-exact (rvv-requant.h). Body: rvv-gemm-4x4v.h.
 */
#include "kernel-decls.h"
#include "arch/rvv/rvv-gemm-4x4v.h"

void q8nn_qs8_igemm_minmax_rdouble_ukernel_4x4v__rvv(size_t mr, size_t nc, size_t kc, size_t ks,
                                                     const int8_t** a, const void* w, int8_t* c,
                                                     size_t cm_stride, size_t cn_stride,
                                                     size_t a_offset, const int8_t* zero,
                                                     const struct q8nn_qs8_conv_params* params) {
  q8nn_rvv_4x4v_blocks(0, mr, nc, kc, ks, a, a_offset, zero, w, c, cm_stride, cn_stride, params);
}

void q8nn_qs8_igemm_minmax_rsingle_ukernel_4x4v__rvv(size_t mr, size_t nc, size_t kc, size_t ks,
                                                     const int8_t** a, const void* w, int8_t* c,
                                                     size_t cm_stride, size_t cn_stride,
                                                     size_t a_offset, const int8_t* zero,
                                                     const struct q8nn_qs8_conv_params* params) {
  q8nn_rvv_4x4v_blocks(1, mr, nc, kc, ks, a, a_offset, zero, w, c, cm_stride, cn_stride, params);
}

void q8nn_qs8_igemm_minmax_fp32_ukernel_4x4v__rvv(size_t mr, size_t nc, size_t kc, size_t ks,
                                                  const int8_t** a, const void* w, int8_t* c,
                                                  size_t cm_stride, size_t cn_stride,
                                                  size_t a_offset, const int8_t* zero,
                                                  const struct q8nn_qs8_conv_params* params) {
  q8nn_rvv_4x4v_blocks(2, mr, nc, kc, ks, a, a_offset, zero, w, c, cm_stride, cn_stride, params);
}
