/* Builds the per-family kernel tables from the X-macro lists. */
#include "ukernel.h"
#include "kernel-decls.h"

#define Q8NN_GEMM_KERNEL(isa, fd, fs, mr, nr, kr, ioff, pack, mloop) \
  {#fd, isa, {fd, fs, NULL}, {#fd, #fs, NULL}, mr, nr, kr, ioff, pack, mloop},
#define Q8NN_GEMM_FP32_KERNEL(isa, ff, mr, nr, kr, ioff, pack, mloop) \
  {#ff, isa, {NULL, NULL, ff}, {NULL, NULL, #ff}, mr, nr, kr, ioff, pack, mloop},
const struct q8nn_gemm_entry q8nn_gemm_list[] = {
#include "gemm-list.h"
};
const size_t q8nn_gemm_list_size = sizeof(q8nn_gemm_list) / sizeof(q8nn_gemm_list[0]);
#undef Q8NN_GEMM_KERNEL
#undef Q8NN_GEMM_FP32_KERNEL

#define Q8NN_IGEMM_KERNEL(isa, fd, fs, mr, nr, kr, ioff, pack) \
  {#fd, isa, {fd, fs, NULL}, {#fd, #fs, NULL}, mr, nr, kr, ioff, pack},
#define Q8NN_IGEMM_FP32_KERNEL(isa, ff, mr, nr, kr, ioff, pack) \
  {#ff, isa, {NULL, NULL, ff}, {NULL, NULL, #ff}, mr, nr, kr, ioff, pack},
const struct q8nn_igemm_entry q8nn_igemm_list[] = {
#include "igemm-list.h"
};
const size_t q8nn_igemm_list_size = sizeof(q8nn_igemm_list) / sizeof(q8nn_igemm_list[0]);
#undef Q8NN_IGEMM_KERNEL
#undef Q8NN_IGEMM_FP32_KERNEL

#define Q8NN_DWCONV_KERNEL(isa, fd, fs, ct, taps, ioff) {#fd, isa, {fd, fs, NULL}, {#fd, #fs, NULL}, ct, taps, ioff},
#define Q8NN_DWCONV_FP32_KERNEL(isa, ff, ct, taps, ioff) {#ff, isa, {NULL, NULL, ff}, {NULL, NULL, #ff}, ct, taps, ioff},
const struct q8nn_dwconv_entry q8nn_dwconv_list[] = {
#include "dwconv-list.h"
};
const size_t q8nn_dwconv_list_size = sizeof(q8nn_dwconv_list) / sizeof(q8nn_dwconv_list[0]);
#undef Q8NN_DWCONV_KERNEL
#undef Q8NN_DWCONV_FP32_KERNEL

#define Q8NN_VADD_KERNEL(isa, fv, fc, tile) {#fv, isa, fv, fc, tile, q8nn_add_arithmetic_tflite},
#define Q8NN_VADD_XNN_KERNEL(isa, fv, fc, tile) {#fv, isa, fv, fc, tile, q8nn_add_arithmetic_xnnpack},
const struct q8nn_vadd_entry q8nn_vadd_list[] = {
#include "vadd-list.h"
};
const size_t q8nn_vadd_list_size = sizeof(q8nn_vadd_list) / sizeof(q8nn_vadd_list[0]);
#undef Q8NN_VADD_KERNEL
#undef Q8NN_VADD_XNN_KERNEL

#define Q8NN_LUT_KERNEL(isa, fn, pack, tile) {#fn, isa, fn, pack, tile},
const struct q8nn_lut_entry q8nn_lut_list[] = {
#include "lut-list.h"
};
const size_t q8nn_lut_list_size = sizeof(q8nn_lut_list) / sizeof(q8nn_lut_list[0]);
#undef Q8NN_LUT_KERNEL
