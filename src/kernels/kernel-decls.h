/* Prototypes of every microkernel in the lists (generated from the X-macro files). */
#ifndef Q8NN_KERNEL_DECLS_H
#define Q8NN_KERNEL_DECLS_H
#include "ukernel.h"
#if Q8NN_ARCH_X86
#include "arch/x86/x86-pack.h"
#endif

#define Q8NN_DECLARE_GEMM(fn)                                                                     \
  Q8NN_INTERNAL void fn(size_t, size_t, size_t, const int8_t*, size_t, const void*, int8_t*, size_t, \
                        size_t, const struct q8nn_qs8_conv_params*);
#define Q8NN_DECLARE_IGEMM(fn)                                                                    \
  Q8NN_INTERNAL void fn(size_t, size_t, size_t, size_t, const int8_t**, const void*, int8_t*,     \
                        size_t, size_t, size_t, const int8_t*, const struct q8nn_qs8_conv_params*);
#define Q8NN_DECLARE_DWCONV(fn)                                                                   \
  Q8NN_INTERNAL void fn(size_t, size_t, size_t, const int8_t**, size_t, const void*, int8_t*,     \
                        size_t, size_t, const int8_t*, const struct q8nn_qs8_conv_params*);
#define Q8NN_DECLARE_VADD(fn) \
  Q8NN_INTERNAL void fn(size_t, const int8_t*, const int8_t*, int8_t*, const struct q8nn_qs8_add_params*);

#define Q8NN_GEMM_KERNEL(isa, fd, fs, mr, nr, kr, ioff, pack, mloop) Q8NN_DECLARE_GEMM(fd) Q8NN_DECLARE_GEMM(fs)
#define Q8NN_GEMM_FP32_KERNEL(isa, ff, mr, nr, kr, ioff, pack, mloop) Q8NN_DECLARE_GEMM(ff)
#include "gemm-list.h"
#undef Q8NN_GEMM_KERNEL
#undef Q8NN_GEMM_FP32_KERNEL

#define Q8NN_IGEMM_KERNEL(isa, fd, fs, mr, nr, kr, ioff, pack) Q8NN_DECLARE_IGEMM(fd) Q8NN_DECLARE_IGEMM(fs)
#define Q8NN_IGEMM_FP32_KERNEL(isa, ff, mr, nr, kr, ioff, pack) Q8NN_DECLARE_IGEMM(ff)
#include "igemm-list.h"
#undef Q8NN_IGEMM_KERNEL
#undef Q8NN_IGEMM_FP32_KERNEL

#define Q8NN_DWCONV_KERNEL(isa, fd, fs, ct, taps, ioff) Q8NN_DECLARE_DWCONV(fd) Q8NN_DECLARE_DWCONV(fs)
#define Q8NN_DWCONV_FP32_KERNEL(isa, ff, ct, taps, ioff) Q8NN_DECLARE_DWCONV(ff)
#include "dwconv-list.h"
#undef Q8NN_DWCONV_KERNEL
#undef Q8NN_DWCONV_FP32_KERNEL

#define Q8NN_VADD_KERNEL(isa, fv, fc, tile) Q8NN_DECLARE_VADD(fv) Q8NN_DECLARE_VADD(fc)
#define Q8NN_VADD_XNN_KERNEL(isa, fv, fc, tile) Q8NN_DECLARE_VADD(fv) Q8NN_DECLARE_VADD(fc)
#include "vadd-list.h"
#undef Q8NN_VADD_KERNEL
#undef Q8NN_VADD_XNN_KERNEL
/* pytorch_qnnpack's add, where no list line reproduces it (q8nn_qnn_add_params) */
Q8NN_DECLARE_VADD(q8nn_qs8_vadd_minmax_qnn_ukernel__scalar_u4)
Q8NN_DECLARE_VADD(q8nn_qs8_vaddc_minmax_qnn_ukernel__scalar_u4)
Q8NN_DECLARE_VADD(q8nn_x8_vmul_table_ukernel)
Q8NN_DECLARE_VADD(q8nn_x8_vmulc_table_ukernel)

#define Q8NN_LUT_KERNEL(isa, fn, pack, tile) \
  Q8NN_INTERNAL void fn(size_t, const uint8_t*, uint8_t*, const uint8_t*); Q8NN_LUT_DECLARE_PACK_##pack
#define Q8NN_LUT_DECLARE_PACK_NULL
#define Q8NN_LUT_DECLARE_PACK_q8nn_x8_lut_pack__avx2 Q8NN_INTERNAL void q8nn_x8_lut_pack__avx2(const uint8_t*, uint8_t*);
#include "lut-list.h"
#undef Q8NN_LUT_KERNEL

#define Q8NN_DECLARE_POOL(fn) \
  Q8NN_INTERNAL void fn(const int8_t*, size_t, size_t, size_t, size_t, size_t, int8_t*, const struct q8nn_pool_params*);
#define Q8NN_DECLARE_MAXPOOL_ROW(fn)                                                                   \
  Q8NN_INTERNAL void fn(const int8_t*, size_t, size_t, size_t, size_t, size_t, size_t, size_t, int8_t*, size_t, \
                        const struct q8nn_pool_params*);
Q8NN_DECLARE_POOL(q8nn_s8_maxpool_ukernel__scalar)
Q8NN_DECLARE_POOL(q8nn_s8_avgpool_ukernel__scalar)
#if Q8NN_ARCH_X86
Q8NN_DECLARE_POOL(q8nn_s8_maxpool_ukernel__avx2)
Q8NN_DECLARE_POOL(q8nn_s8_avgpool_ukernel__avx2)
Q8NN_DECLARE_POOL(q8nn_s8_maxpool_ukernel__avx512)
Q8NN_DECLARE_POOL(q8nn_s8_avgpool_ukernel__avx512)
Q8NN_DECLARE_MAXPOOL_ROW(q8nn_s8_maxpool_row_ukernel__avx2)
Q8NN_DECLARE_MAXPOOL_ROW(q8nn_s8_maxpool_row_ukernel__avx512)
#elif Q8NN_ARCH_NEON
Q8NN_DECLARE_POOL(q8nn_s8_maxpool_ukernel__neon)
Q8NN_DECLARE_POOL(q8nn_s8_avgpool_ukernel__neon)
Q8NN_DECLARE_MAXPOOL_ROW(q8nn_s8_maxpool_row_ukernel__neon)
#elif Q8NN_ARCH_RVV
Q8NN_DECLARE_POOL(q8nn_s8_maxpool_ukernel__rvv)
Q8NN_DECLARE_POOL(q8nn_s8_avgpool_ukernel__rvv)
Q8NN_DECLARE_MAXPOOL_ROW(q8nn_s8_maxpool_row_ukernel__rvv)
#endif

/* The multiply's dense operands, computed (ukernel.h, q8nn_qs8_add_params' mul_float) */
#if Q8NN_ARCH_X86
Q8NN_INTERNAL void q8nn_x8_vmul_ukernel__avx512vnni(size_t, const int8_t*, const int8_t*, int8_t*,
                                                    const struct q8nn_qs8_add_params*);
Q8NN_INTERNAL void q8nn_x8_vmul_ukernel__avx2(size_t, const int8_t*, const int8_t*, int8_t*,
                                              const struct q8nn_qs8_add_params*);
#elif Q8NN_ARCH_NEON
Q8NN_INTERNAL void q8nn_x8_vmul_ukernel__neon(size_t, const int8_t*, const int8_t*, int8_t*,
                                              const struct q8nn_qs8_add_params*);
#elif Q8NN_ARCH_RVV
Q8NN_INTERNAL void q8nn_x8_vmul_ukernel__rvv(size_t, const int8_t*, const int8_t*, int8_t*,
                                             const struct q8nn_qs8_add_params*);
#endif
/* One row of TFLite's bilinear resize (ukernel.h) */
Q8NN_INTERNAL void q8nn_x8_ibilinear_row__portable(const uint8_t*, const uint8_t*, const struct q8nn_resize_column*,
                                                   size_t, int32_t, size_t, uint8_t, uint8_t*, size_t);
#if Q8NN_ARCH_X86
Q8NN_INTERNAL void q8nn_x8_ibilinear_row__avx512vnni(const uint8_t*, const uint8_t*, const struct q8nn_resize_column*,
                                                     size_t, int32_t, size_t, uint8_t, uint8_t*, size_t);
Q8NN_INTERNAL void q8nn_x8_ibilinear_row__avx2(const uint8_t*, const uint8_t*, const struct q8nn_resize_column*, size_t,
                                               int32_t, size_t, uint8_t, uint8_t*, size_t);
#elif Q8NN_ARCH_NEON
Q8NN_INTERNAL void q8nn_x8_ibilinear_row__neon(const uint8_t*, const uint8_t*, const struct q8nn_resize_column*, size_t,
                                               int32_t, size_t, uint8_t, uint8_t*, size_t);
#elif Q8NN_ARCH_RVV
Q8NN_INTERNAL void q8nn_x8_ibilinear_row__rvv(const uint8_t*, const uint8_t*, const struct q8nn_resize_column*, size_t,
                                              int32_t, size_t, uint8_t, uint8_t*, size_t);
#endif
/* The two-group channel shuffle of `pixels` pixels x_stride and y_stride bytes apart: for each,
   y[2k] = x[k], y[2k + 1] = x[n + k] for k < n */
#define Q8NN_DECLARE_ZIP2(fn) Q8NN_INTERNAL void fn(size_t, size_t, const uint8_t*, size_t, uint8_t*, size_t);
Q8NN_DECLARE_ZIP2(q8nn_x8_zip2_ukernel__portable)
#if Q8NN_ARCH_X86
Q8NN_DECLARE_ZIP2(q8nn_x8_zip2_ukernel__avx2)
Q8NN_DECLARE_ZIP2(q8nn_x8_zip2_ukernel__avx512vbmi)
#endif

#endif
