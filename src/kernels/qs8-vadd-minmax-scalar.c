/* Portable int8 add, 4 elements per iteration: TFLite's arithmetic and XNNPACK's qs8 arithmetic.
   y may alias a or b exactly: each element is read before it is written. */
#include "kernel-decls.h"
#include "requantization.h"

void q8nn_qs8_vadd_minmax_ukernel__scalar_u4(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                             const struct q8nn_qs8_add_params* params) {
  for (; n >= 4; n -= 4) {
    const int8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    const int8_t b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    y[0] = q8nn_add_scalar(a0, b0, params);
    y[1] = q8nn_add_scalar(a1, b1, params);
    y[2] = q8nn_add_scalar(a2, b2, params);
    y[3] = q8nn_add_scalar(a3, b3, params);
    a += 4;
    b += 4;
    y += 4;
  }
  for (; n != 0; n--) *y++ = q8nn_add_scalar(*a++, *b++, params);
}

void q8nn_qs8_vaddc_minmax_ukernel__scalar_u4(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                              const struct q8nn_qs8_add_params* params) {
  const int8_t vb = *b;
  for (; n != 0; n--) *y++ = q8nn_add_scalar(*a++, vb, params);
}

/* XNNPACK's qs8 add arithmetic (Q8NN_FLAG_XNNPACK_ADD), 4 elements per iteration. */
void q8nn_qs8_vadd_minmax_xnn_ukernel__scalar_u4(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                 const struct q8nn_qs8_add_params* params) {
  for (; n >= 4; n -= 4) {
    const int8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    const int8_t b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    y[0] = q8nn_add_xnn_scalar(a0, b0, params);
    y[1] = q8nn_add_xnn_scalar(a1, b1, params);
    y[2] = q8nn_add_xnn_scalar(a2, b2, params);
    y[3] = q8nn_add_xnn_scalar(a3, b3, params);
    a += 4;
    b += 4;
    y += 4;
  }
  for (; n != 0; n--) *y++ = q8nn_add_xnn_scalar(*a++, *b++, params);
}

void q8nn_qs8_vaddc_minmax_xnn_ukernel__scalar_u4(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                  const struct q8nn_qs8_add_params* params) {
  const int8_t vb = *b;
  for (; n != 0; n--) *y++ = q8nn_add_xnn_scalar(*a++, vb, params);
}

/* pytorch_qnnpack's add where XNNPACK's form does not reproduce it (q8nn_qnn_add_params): called
   by the add operator directly, not a list line. */
void q8nn_qs8_vadd_minmax_qnn_ukernel__scalar_u1(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                 const struct q8nn_qs8_add_params* params) {
  for (; n != 0; n--) *y++ = q8nn_add_qnn_scalar(*a++, *b++, params);
}

void q8nn_qs8_vaddc_minmax_qnn_ukernel__scalar_u1(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                                  const struct q8nn_qs8_add_params* params) {
  const int8_t vb = *b;
  for (; n != 0; n--) *y++ = q8nn_add_qnn_scalar(*a++, vb, params);
}
