/*
 * Max and average pooling of one output pixel, AVX-512 (BW; the AVX-512 VNNI tier): 64 channels
 * a step, the tail with masked loads and stores (nothing outside the pixel's channels is touched).
 * Average: windows of at most 256 cells sum in int16 lanes and take the float quotient, exact as
 * pool-avx2.c shows; larger windows run the portable kernel.
 */
#include <immintrin.h>

#include "kernel-decls.h"

static inline __mmask64 tail_mask(size_t n) { return n >= 64 ? ~(__mmask64) 0 : _bzhi_u64(~(uint64_t) 0, (unsigned) n); }

void q8nn_s8_maxpool_ukernel__avx512(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                     size_t pixel_stride, size_t channels, int8_t* out,
                                     const struct q8nn_pool_params* params) {
  const __m512i flip = _mm512_set1_epi8((char) params->flip);
  const __m512i lo = _mm512_set1_epi8(params->output_min), hi = _mm512_set1_epi8(params->output_max);
  for (size_t c = 0; c < channels; c += 64) {
    const __mmask64 k = tail_mask(channels - c);
    __m512i m = _mm512_set1_epi8(INT8_MIN);
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        m = _mm512_max_epi8(m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, row + x * pixel_stride), flip));
      }
    }
    m = _mm512_min_epi8(_mm512_max_epi8(m, lo), hi);
    _mm512_mask_storeu_epi8(out + c, k, _mm512_xor_si512(m, flip));
  }
}

static inline __m512i quotients(__m512i sums16, __m512i half, __m512 count, __m512i lo, __m512i hi, int upper) {
  const __m512i sum = _mm512_cvtepi16_epi32(upper ? _mm512_extracti64x4_epi64(sums16, 1) : _mm512_castsi512_si256(sums16));
  const __mmask16 positive = _mm512_cmpgt_epi32_mask(sum, _mm512_setzero_si512());
  const __m512i n = _mm512_add_epi32(sum, _mm512_mask_blend_epi32(positive, _mm512_sub_epi32(_mm512_setzero_si512(), half),
                                                                   half));
  const __m512i q = _mm512_cvttps_epi32(_mm512_div_ps(_mm512_cvtepi32_ps(n), count));
  return _mm512_min_epi32(_mm512_max_epi32(q, lo), hi);
}

void q8nn_s8_avgpool_ukernel__avx512(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                     size_t pixel_stride, size_t channels, int8_t* out,
                                     const struct q8nn_pool_params* params) {
  const size_t cells = rows * cols;
  if (cells > 256) {
    q8nn_s8_avgpool_ukernel__scalar(first, rows, cols, row_stride, pixel_stride, channels, out, params);
    return;
  }
  const __m256i flip = _mm256_set1_epi8((char) params->flip);
  const __m512i half = _mm512_set1_epi32((int32_t) (cells / 2));
  const __m512 count = _mm512_set1_ps((float) cells);
  const __m512i lo = _mm512_set1_epi32(params->output_min), hi = _mm512_set1_epi32(params->output_max);
  for (size_t c = 0; c < channels; c += 32) {
    const __mmask32 k = (__mmask32) tail_mask(channels - c < 32 ? channels - c : 32);
    __m512i s = _mm512_setzero_si512();
    for (size_t y = 0; y < rows; y++) {
      const int8_t* row = first + y * row_stride + c;
      for (size_t x = 0; x < cols; x++) {
        const __m256i v = _mm256_xor_si256(_mm256_maskz_loadu_epi8(k, row + x * pixel_stride), flip);
        s = _mm512_add_epi16(s, _mm512_cvtepi8_epi16(v));
      }
    }
    const __m512i q0 = quotients(s, half, count, lo, hi, 0), q1 = quotients(s, half, count, lo, hi, 1);
    const __m256i r = _mm256_set_m128i(_mm512_cvtepi32_epi8(q1), _mm512_cvtepi32_epi8(q0));
    _mm256_mask_storeu_epi8(out + c, k, _mm256_xor_si256(r, flip));
  }
}
