/*
 * x8 table lookup, AVX2: sixteen VPSHUFB lookups of 16-entry sub-tables, XORed together.
 *
 * VPSHUFB returns t[i & 15], or 0 where bit 7 of i is set. Step k (0..15) looks up packed sub-table
 * P_k at index i_k: i_0 = x, i_k = i_{k-1} - 16 wrapping for k <= 8 and with signed saturation for
 * k >= 9. With h = x >> 4, the steps whose index has bit 7 clear are k = 0..h for x < 128 (from
 * step 8 on, x - 128 < 0 stays negative) and k = h-7..h for x >= 128 (x - 16k >= 128 for k <= h-8;
 * from step 8, x - 128 - 16(k-8) >= 0 exactly for k <= h). Each sees x & 15. So with T_h the table's
 * 16-byte rows, P_0 = T_0, P_k = T_k ^ T_{k-1} (1 <= k <= 7) and P_k = T_k ^ T_{k-1} ^ P_{k-8}
 * (k >= 8), the XOR of the active steps telescopes to T_h[x & 15] in both ranges.
 */
#include <immintrin.h>
#include <string.h>

#include "kernel-decls.h"

void q8nn_x8_lut_pack__avx2(const uint8_t* table, uint8_t* packed) {
  for (size_t b = 0; b < 16; b++) packed[b] = table[b];
  for (size_t k = 1; k < 16; k++) {
    for (size_t b = 0; b < 16; b++) {
      uint8_t v = (uint8_t) (table[16 * k + b] ^ table[16 * (k - 1) + b]);
      if (k >= 8) v ^= packed[16 * (k - 8) + b];
      packed[16 * k + b] = v;
    }
  }
}

static inline __m256i lookup(__m256i vx, const __m256i p[16]) {
  const __m256i sixteen = _mm256_set1_epi8(16);
  __m256i vy = _mm256_shuffle_epi8(p[0], vx);
  for (int k = 1; k <= 8; k++) {
    vx = _mm256_sub_epi8(vx, sixteen);
    vy = _mm256_xor_si256(vy, _mm256_shuffle_epi8(p[k], vx));
  }
  for (int k = 9; k < 16; k++) {
    vx = _mm256_subs_epi8(vx, sixteen);
    vy = _mm256_xor_si256(vy, _mm256_shuffle_epi8(p[k], vx));
  }
  return vy;
}

void q8nn_x8_lut_ukernel__avx2_u64(size_t n, const uint8_t* x, uint8_t* y, const uint8_t* packed) {
  __m256i p[16];
  for (int k = 0; k < 16; k++) p[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*) (packed + 16 * k)));
  for (; n >= 64; n -= 64) {
    const __m256i vx0 = _mm256_loadu_si256((const __m256i*) x);
    const __m256i vx1 = _mm256_loadu_si256((const __m256i*) (x + 32));
    x += 64;
    _mm256_storeu_si256((__m256i*) y, lookup(vx0, p));
    _mm256_storeu_si256((__m256i*) (y + 32), lookup(vx1, p));
    y += 64;
  }
  for (; n >= 32; n -= 32) {
    _mm256_storeu_si256((__m256i*) y, lookup(_mm256_loadu_si256((const __m256i*) x), p));
    x += 32;
    y += 32;
  }
  if (n != 0) {
    /* the tail through a stack copy: nothing outside [x, x + n) is read or [y, y + n) written */
    uint8_t buffer[32];
    memcpy(buffer, x, n);
    _mm256_storeu_si256((__m256i*) buffer, lookup(_mm256_loadu_si256((const __m256i*) buffer), p));
    memcpy(y, buffer, n);
  }
}
