/*
 * Two-way byte interleave of pixels (the two-group channel shuffle), portable: for each pixel,
 * y[2k] = x[k], y[2k + 1] = x[n + k] for k < n. 16 bytes of each half a step as GCC / clang generic vectors (__builtin_shufflevector
 * compiles to PUNPCK[LH]BW on x86, ZIP1 / ZIP2 on NEON; the byte loop it replaced was not
 * vectorized at -O2). For n >= 16 the last step starts at n - 16, rewriting some bytes before it
 * with the same values, so no row has a byte loop; shorter rows take one.
 */
#include <string.h>

#include "kernel-decls.h"

typedef uint8_t q8nn_u8x16 __attribute__((vector_size(16)));

static inline void zip2_pixel(size_t n, const uint8_t* a, const uint8_t* b, uint8_t* y) {
  if (n >= 16) {
    for (size_t k = 0; k < n; k += 16) {
      const size_t s = k + 16 <= n ? k : n - 16;
      q8nn_u8x16 va, vb;
      memcpy(&va, a + s, 16);
      memcpy(&vb, b + s, 16);
      const q8nn_u8x16 lo = __builtin_shufflevector(va, vb, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const q8nn_u8x16 hi = __builtin_shufflevector(va, vb, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      memcpy(y + 2 * s, &lo, 16);
      memcpy(y + 2 * s + 16, &hi, 16);
    }
  } else {
    for (size_t k = 0; k < n; k++) {
      y[2 * k] = a[k];
      y[2 * k + 1] = b[k];
    }
  }
}

void q8nn_x8_zip2_ukernel__portable(size_t n, size_t pixels, const uint8_t* x, size_t x_stride, uint8_t* y,
                                    size_t y_stride) {
  for (; pixels != 0; pixels--, x += x_stride, y += y_stride) zip2_pixel(n, x, x + n, y);
}
