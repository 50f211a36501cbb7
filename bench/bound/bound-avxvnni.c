/* AVX-VNNI bound loop (see bound.h): VPDPBUSD ymm. The epilogue is AVX2's (same helpers). */
#include "bound/bound-x86.h"
#include "arch/x86/x86-avx2.h"

uint64_t q8nn_bound_dot_avxvnni(uint64_t iters) {
  __m256i va = _mm256_set1_epi32((int) iters), s;
  const __m256i vb = _mm256_set1_epi32(0x01020304);
  Q8NN_BOUND_DOT_LOOP(__m256i, 12, _mm256_set1_epi32, _mm256_xor_si256, _mm256_dpbusd_avx_epi32, va, vb, iters, s);
  q8nn_bound_sink = _mm256_extract_epi32(s, 0) ^ _mm256_extract_epi32(s, 7);
  return iters * 12 * 32;
}
