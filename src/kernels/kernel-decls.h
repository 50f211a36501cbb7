/* Prototypes of every microkernel in the lists (generated from the X-macro files). */
#ifndef Q8NN_KERNEL_DECLS_H
#define Q8NN_KERNEL_DECLS_H
#include "ukernel.h"
#if Q8NN_ARCH_X86
#include "arch/x86/x86-pack.h"
#endif

#define Q8NN_GEMM_KERNEL(isa, fd, fs, mr, nr, kr, ioff, pack)                                      \
  Q8NN_INTERNAL void fd(size_t, size_t, size_t, const int8_t*, size_t, const void*, int8_t*, size_t, \
                        size_t, const struct q8nn_qs8_conv_params*);                               \
  Q8NN_INTERNAL void fs(size_t, size_t, size_t, const int8_t*, size_t, const void*, int8_t*, size_t, \
                        size_t, const struct q8nn_qs8_conv_params*);
#include "gemm-list.h"
#undef Q8NN_GEMM_KERNEL

#define Q8NN_IGEMM_KERNEL(isa, fd, fs, mr, nr, kr, ioff, pack)                                \
  Q8NN_INTERNAL void fd(size_t, size_t, size_t, size_t, const int8_t**, const void*, int8_t*,   \
                        size_t, size_t, size_t, const int8_t*, const struct q8nn_qs8_conv_params*); \
  Q8NN_INTERNAL void fs(size_t, size_t, size_t, size_t, const int8_t**, const void*, int8_t*,   \
                        size_t, size_t, size_t, const int8_t*, const struct q8nn_qs8_conv_params*);
#include "igemm-list.h"
#undef Q8NN_IGEMM_KERNEL

#define Q8NN_DWCONV_KERNEL(isa, fd, fs, ct, taps, ioff)                                         \
  Q8NN_INTERNAL void fd(size_t, size_t, size_t, const int8_t**, size_t, const void*, int8_t*,     \
                        size_t, size_t, const int8_t*, const struct q8nn_qs8_conv_params*);       \
  Q8NN_INTERNAL void fs(size_t, size_t, size_t, const int8_t**, size_t, const void*, int8_t*,     \
                        size_t, size_t, const int8_t*, const struct q8nn_qs8_conv_params*);
#include "dwconv-list.h"
#undef Q8NN_DWCONV_KERNEL

#define Q8NN_VADD_KERNEL(isa, fv, fc, tile)                                                       \
  Q8NN_INTERNAL void fv(size_t, const int8_t*, const int8_t*, int8_t*, const struct q8nn_qs8_add_params*); \
  Q8NN_INTERNAL void fc(size_t, const int8_t*, const int8_t*, int8_t*, const struct q8nn_qs8_add_params*);
#include "vadd-list.h"
#undef Q8NN_VADD_KERNEL

#endif
