/* Portable int8 add, 4 elements per iteration: TFLite's arithmetic and XNNPACK's qs8 arithmetic;
   and pytorch_qnnpack's where no list line reproduces it. uint8 operands and outputs (params'
   input_flip / output_flip, ukernel.h) are flipped element by element. y may alias a or b exactly:
   each element is read before it is written. */
#include "kernel-decls.h"
#include "requantization.h"

/* One element of `add` (q8nn_add_scalar, _xnn_scalar, _qnn_scalar) with the uint8 flips. */
#define Q8NN_ADD_FLIPPED(add, x, z, p) \
  ((int8_t) (add((int8_t) ((x) ^ (p)->input_flip), (int8_t) ((z) ^ (p)->input_flip), (p)) ^ (p)->output_flip))

/* vadd (broadcast_b 0) and vaddc bodies of one arithmetic, 4 elements per iteration. */
#define Q8NN_DEFINE_SCALAR_VADD(vadd_name, vaddc_name, add)                                                  \
  void vadd_name(size_t n, const int8_t* a, const int8_t* b, int8_t* y, const struct q8nn_qs8_add_params* p) { \
    for (; n >= 4; n -= 4) {                                                                                 \
      const int8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];                                               \
      const int8_t b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];                                               \
      y[0] = Q8NN_ADD_FLIPPED(add, a0, b0, p);                                                               \
      y[1] = Q8NN_ADD_FLIPPED(add, a1, b1, p);                                                               \
      y[2] = Q8NN_ADD_FLIPPED(add, a2, b2, p);                                                               \
      y[3] = Q8NN_ADD_FLIPPED(add, a3, b3, p);                                                               \
      a += 4;                                                                                                \
      b += 4;                                                                                                \
      y += 4;                                                                                                \
    }                                                                                                        \
    for (; n != 0; n--) {                                                                                    \
      const int8_t x = *a++, z = *b++;                                                                       \
      *y++ = Q8NN_ADD_FLIPPED(add, x, z, p);                                                                 \
    }                                                                                                        \
  }                                                                                                          \
  void vaddc_name(size_t n, const int8_t* a, const int8_t* b, int8_t* y, const struct q8nn_qs8_add_params* p) { \
    const int8_t vb = *b;                                                                                    \
    for (; n != 0; n--) {                                                                                    \
      const int8_t x = *a++;                                                                                 \
      *y++ = Q8NN_ADD_FLIPPED(add, x, vb, p);                                                                \
    }                                                                                                        \
  }

Q8NN_DEFINE_SCALAR_VADD(q8nn_qs8_vadd_minmax_ukernel__scalar_u4, q8nn_qs8_vaddc_minmax_ukernel__scalar_u4,
                        q8nn_add_scalar)
/* XNNPACK's qs8 add arithmetic (Q8NN_FLAG_XNNPACK_ADD) */
Q8NN_DEFINE_SCALAR_VADD(q8nn_qs8_vadd_minmax_xnn_ukernel__scalar_u4, q8nn_qs8_vaddc_minmax_xnn_ukernel__scalar_u4,
                        q8nn_add_xnn_scalar)
/* pytorch_qnnpack's add where XNNPACK's form does not reproduce it (q8nn_qnn_add_params): called by
   the add operator directly, not a list line */
Q8NN_DEFINE_SCALAR_VADD(q8nn_qs8_vadd_minmax_qnn_ukernel__scalar_u4, q8nn_qs8_vaddc_minmax_qnn_ukernel__scalar_u4,
                        q8nn_add_qnn_scalar)
