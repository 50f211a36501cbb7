/* Multiply kernels of the tabulated product (multiply-nd.c; the add's vadd / vaddc signature, see
   ukernel.h): exact by construction on every line. */
#include "kernel-decls.h"

/* Two dense operands: one lookup per pair (y may alias a or b: each pair is read before its byte
   is written). */
void q8nn_x8_vmul_table_ukernel(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                const struct q8nn_qs8_add_params* params) {
  const uint8_t* table = params->mul_table;
  for (size_t i = 0; i < n; i++) {
    y[i] = (int8_t) table[(size_t) (uint8_t) b[i] << 8 | (uint8_t) a[i]];
  }
}

/* A broadcast b: row b[0] through the line's table-lookup kernel. */
void q8nn_x8_vmulc_table_ukernel(size_t n, const int8_t* a, const int8_t* b, int8_t* y,
                                 const struct q8nn_qs8_add_params* params) {
  params->mul_lut(n, (const uint8_t*) a, (uint8_t*) y, params->mul_rows + ((size_t) (uint8_t) b[0] << 8));
}
