/*
 * Two-way byte interleave of pixels (the two-group channel shuffle), AVX-512 VBMI: for each pixel,
 * y[2k] = x[k], y[2k + 1] = x[n + k] for k < n. 64 bytes of each half a step (VPERMT2B with two
 * fixed index vectors: the low and the high 32 bytes of each half), then 32 bytes a step from
 * 256-bit loads into one 512-bit store, the last step starting at n - 32 (it rewrites some bytes
 * before it with the same values). Unmasked stores: a masked 512-bit store costs several cycles on
 * Zen 4, more than the pixel's other work. Rows of fewer than 32 bytes run the AVX2 kernel. No
 * byte outside the pixels' 2n bytes is read or written.
 */
#include <immintrin.h>

#include "kernel-decls.h"

/* VPERMT2B indices: i < 64 selects a[i], 64 + i selects b[i]; output bytes 0-63, then 64-127 */
static const uint8_t lo_index[64] __attribute__((aligned(64))) = {
    0,  64, 1,  65, 2,  66, 3,  67, 4,  68, 5,  69, 6,  70, 7,  71, 8,  72, 9,  73, 10, 74,
    11, 75, 12, 76, 13, 77, 14, 78, 15, 79, 16, 80, 17, 81, 18, 82, 19, 83, 20, 84, 21, 85,
    22, 86, 23, 87, 24, 88, 25, 89, 26, 90, 27, 91, 28, 92, 29, 93, 30, 94, 31, 95,
};
static const uint8_t hi_index[64] __attribute__((aligned(64))) = {
    32, 96,  33, 97,  34, 98,  35, 99,  36, 100, 37, 101, 38, 102, 39, 103, 40, 104, 41, 105, 42, 106,
    43, 107, 44, 108, 45, 109, 46, 110, 47, 111, 48, 112, 49, 113, 50, 114, 51, 115, 52, 116, 53, 117,
    54, 118, 55, 119, 56, 120, 57, 121, 58, 122, 59, 123, 60, 124, 61, 125, 62, 126, 63, 127,
};

void q8nn_x8_zip2_ukernel__avx512vbmi(size_t n, size_t pixels, const uint8_t* x, size_t x_stride, uint8_t* y,
                                      size_t y_stride) {
  if (n < 32) { /* the AVX2 kernel's 16-byte steps and byte loop (the AVX-512 line implies AVX2) */
    q8nn_x8_zip2_ukernel__avx2(n, pixels, x, x_stride, y, y_stride);
    return;
  }
  const __m512i lo = _mm512_load_si512(lo_index), hi = _mm512_load_si512(hi_index);
  for (; pixels != 0; pixels--, x += x_stride, y += y_stride) {
    const uint8_t* a = x;
    const uint8_t* b = x + n;
    size_t k = 0;
    for (; k + 64 <= n; k += 64) {
      const __m512i va = _mm512_loadu_si512(a + k), vb = _mm512_loadu_si512(b + k);
      _mm512_storeu_si512(y + 2 * k, _mm512_permutex2var_epi8(va, lo, vb));
      _mm512_storeu_si512(y + 2 * k + 64, _mm512_permutex2var_epi8(va, hi, vb));
    }
    for (; k < n; k += 32) {
      const size_t s = k + 32 <= n ? k : n - 32;
      const __m512i va = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i*) (a + s)));
      const __m512i vb = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i*) (b + s)));
      _mm512_storeu_si512(y + 2 * s, _mm512_permutex2var_epi8(va, lo, vb));
    }
  }
}
