/*
 * Max and average pooling of one output pixel, AVX2 (see ukernel.h): 32 channels a step, the tail
 * by the portable kernel.
 *
 * Average: windows of at most 256 cells sum in int16 lanes (|sum| <= 128 x 256 = 32768 fits only
 * as -32768: the sum of 256 inputs of -128; the largest, 127 x 256, fits too). The rounded quotient
 * is taken in float: n = sum +- count / 2 and count are exact floats (|n| < 2^16), and where n / count
 * is not an integer it is at least 1 / count from one, more than the float quotient's error
 * (|n / count| <= 128.5 times 2^-24), so truncating the float quotient gives C's truncated
 * quotient. Larger windows run the portable kernel.
 */
#include <immintrin.h>

#include "kernel-decls.h"

void q8nn_s8_maxpool_ukernel__avx2(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                   size_t pixel_stride, size_t channels, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const __m256i flip = _mm256_set1_epi8((char) params->flip);
  const __m256i lo = _mm256_set1_epi8(params->output_min), hi = _mm256_set1_epi8(params->output_max);
  size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    __m256i m = _mm256_set1_epi8(INT8_MIN);
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i*) (row + x * pixel_stride)), flip);
        m = _mm256_max_epi8(m, v);
      }
    }
    m = _mm256_min_epi8(_mm256_max_epi8(m, lo), hi);
    _mm256_storeu_si256((__m256i*) (out + c), _mm256_xor_si256(m, flip));
  }
  if (c != channels) {
    q8nn_s8_maxpool_ukernel__scalar(first + c, rows, cols, row_stride, pixel_stride, channels - c, out + c, params);
  }
}

static inline __m128i quotients(__m256i sums16, __m256i half, __m256 count, __m256i lo, __m256i hi, int upper) {
  const __m256i sum = _mm256_cvtepi16_epi32(upper ? _mm256_extracti128_si256(sums16, 1)
                                                  : _mm256_castsi256_si128(sums16));
  /* sum > 0: sum + half; else sum - half */
  const __m256i positive = _mm256_cmpgt_epi32(sum, _mm256_setzero_si256());
  const __m256i n = _mm256_add_epi32(sum, _mm256_blendv_epi8(_mm256_sub_epi32(_mm256_setzero_si256(), half), half,
                                                             positive));
  __m256i q = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(n), count));
  q = _mm256_min_epi32(_mm256_max_epi32(q, lo), hi);
  return _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
}

void q8nn_s8_avgpool_ukernel__avx2(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                   size_t pixel_stride, size_t channels, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const size_t cells = rows * cols;
  if (cells > 256) {
    q8nn_s8_avgpool_ukernel__scalar(first, rows, cols, row_stride, pixel_stride, channels, out, params);
    return;
  }
  const __m128i flip = _mm_set1_epi8((char) params->flip);
  const __m256i half = _mm256_set1_epi32((int32_t) (cells / 2));
  const __m256 count = _mm256_set1_ps((float) cells);
  const __m256i lo = _mm256_set1_epi32(params->output_min), hi = _mm256_set1_epi32(params->output_max);
  size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const int8_t* p = row + x * pixel_stride;
        s0 = _mm256_add_epi16(s0, _mm256_cvtepi8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i*) p), flip)));
        s1 = _mm256_add_epi16(s1,
                              _mm256_cvtepi8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i*) (p + 16)), flip)));
      }
    }
    const __m128i q0 = quotients(s0, half, count, lo, hi, 0), q1 = quotients(s0, half, count, lo, hi, 1);
    const __m128i q2 = quotients(s1, half, count, lo, hi, 0), q3 = quotients(s1, half, count, lo, hi, 1);
    _mm_storeu_si128((__m128i*) (out + c), _mm_xor_si128(_mm_packs_epi16(q0, q1), flip));
    _mm_storeu_si128((__m128i*) (out + c + 16), _mm_xor_si128(_mm_packs_epi16(q2, q3), flip));
  }
  if (c != channels) {
    q8nn_s8_avgpool_ukernel__scalar(first + c, rows, cols, row_stride, pixel_stride, channels - c, out + c, params);
  }
}
