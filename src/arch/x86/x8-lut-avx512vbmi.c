/*
 * x8 table lookup, AVX-512 VBMI. The 256-entry table is four zmm, T0..T3. VPERMI2B indexes 128
 * bytes (two registers) with bits 0-6 of each index byte: one lookup in T0:T1, one in T2:T3, and
 * bit 7 of the index (VPMOVB2M) picks between them. 128 bytes a step in two independent chains; the
 * tail is a masked load and store (no byte outside [x, x + n) or [y, y + n) is touched).
 */
#include <immintrin.h>

#include "kernel-decls.h"

static inline __m512i lookup(__m512i vx, __m512i t0, __m512i t1, __m512i t2, __m512i t3) {
  const __m512i lo = _mm512_permutex2var_epi8(t0, vx, t1);
  const __m512i hi = _mm512_permutex2var_epi8(t2, vx, t3);
  return _mm512_mask_mov_epi8(lo, _mm512_movepi8_mask(vx), hi);
}

void q8nn_x8_lut_ukernel__avx512vbmi_u128(size_t n, const uint8_t* x, uint8_t* y, const uint8_t* table) {
  const __m512i t0 = _mm512_loadu_si512(table);
  const __m512i t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128);
  const __m512i t3 = _mm512_loadu_si512(table + 192);
  for (; n >= 128; n -= 128) {
    const __m512i vx0 = _mm512_loadu_si512(x);
    const __m512i vx1 = _mm512_loadu_si512(x + 64);
    x += 128;
    _mm512_storeu_si512(y, lookup(vx0, t0, t1, t2, t3));
    _mm512_storeu_si512(y + 64, lookup(vx1, t0, t1, t2, t3));
    y += 128;
  }
  for (; n >= 64; n -= 64) {
    const __m512i vx = _mm512_loadu_si512(x);
    x += 64;
    _mm512_storeu_si512(y, lookup(vx, t0, t1, t2, t3));
    y += 64;
  }
  if (n != 0) {
    const __mmask64 m = _bzhi_u64(~(uint64_t) 0, (unsigned) n);
    const __m512i vx = _mm512_maskz_loadu_epi8(m, x);
    _mm512_mask_storeu_epi8(y, m, lookup(vx, t0, t1, t2, t3));
  }
}
