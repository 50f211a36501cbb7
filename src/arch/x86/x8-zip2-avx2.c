/*
 * Two-way byte interleave of pixels (the two-group channel shuffle), AVX2: for each pixel,
 * y[2k] = x[k], y[2k + 1] = x[n + k] for k < n. 32 bytes of each half a step: VPUNPCK[LH]BW
 * interleave within 128-bit lanes and VPERM2I128 puts the lanes in order. For n >= 32 the last step
 * starts at n - 32, rewriting some bytes before it with the same values; rows of 16 to 31 bytes
 * take 16-byte steps the same way, shorter ones a byte loop. No byte outside the pixels' 2n bytes
 * is read or written.
 */
#include <immintrin.h>

#include "kernel-decls.h"

void q8nn_x8_zip2_ukernel__avx2(size_t n, size_t pixels, const uint8_t* x, size_t x_stride, uint8_t* y,
                                size_t y_stride) {
  for (; pixels != 0; pixels--, x += x_stride, y += y_stride) {
    const uint8_t* a = x;
    const uint8_t* b = x + n;
    if (n >= 32) {
      for (size_t k = 0; k < n; k += 32) {
        const size_t s = k + 32 <= n ? k : n - 32;
        const __m256i va = _mm256_loadu_si256((const __m256i*) (a + s));
        const __m256i vb = _mm256_loadu_si256((const __m256i*) (b + s));
        const __m256i lo = _mm256_unpacklo_epi8(va, vb), hi = _mm256_unpackhi_epi8(va, vb);
        _mm256_storeu_si256((__m256i*) (y + 2 * s), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i*) (y + 2 * s + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
      }
    } else if (n >= 16) {
      for (size_t k = 0; k < n; k += 16) {
        const size_t s = k + 16 <= n ? k : n - 16;
        const __m128i va = _mm_loadu_si128((const __m128i*) (a + s)), vb = _mm_loadu_si128((const __m128i*) (b + s));
        _mm_storeu_si128((__m128i*) (y + 2 * s), _mm_unpacklo_epi8(va, vb));
        _mm_storeu_si128((__m128i*) (y + 2 * s + 16), _mm_unpackhi_epi8(va, vb));
      }
    } else {
      for (size_t k = 0; k < n; k++) {
        y[2 * k] = a[k];
        y[2 * k + 1] = b[k];
      }
    }
  }
}
