/* x8 table lookup, portable: four bytes a step. */
#include "kernel-decls.h"

void q8nn_x8_lut_ukernel__scalar_u4(size_t n, const uint8_t* x, uint8_t* y, const uint8_t* table) {
  for (; n >= 4; n -= 4) {
    const uint8_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    x += 4;
    y[0] = table[x0];
    y[1] = table[x1];
    y[2] = table[x2];
    y[3] = table[x3];
    y += 4;
  }
  for (; n != 0; n--) *y++ = table[*x++];
}
