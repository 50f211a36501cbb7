/*
 * One row of TFLite's bilinear resize (ukernel.h, q8nn_ibilinear_row_fn), AVX2, 16 channels a step
 * in two halves of 8 int32 lanes, exact, as the AVX-512 kernel (x8-ibilinear-avx512vnni.c): each
 * source pair interleaved (VPUNPCK[LH]BW), widened to int16 pairs (VPMOVSXBW) for one VPMADDWD
 * against (gx, fx); the vertical blend as (top - bottom) gy + bottom 1024 (VPMULLD); the rounding
 * half away from zero as (sum + 2^19 + (sum >> 31)) >> 20; VPACKSSDW, VPERMQ and VPACKSSWB (the
 * results are within the source bytes' range). uint8 bytes are flipped where loaded and stored;
 * the last channels (fewer than 16) take the portable loop.
 */
#include <immintrin.h>

#include "kernel-decls.h"

/* 8 channels: tl gx + tr fx from the interleaved bytes (16 of them) */
static inline __m256i blend_pairs(__m128i pairs, __m256i w) {
  return _mm256_madd_epi16(_mm256_cvtepi8_epi16(pairs), w);
}

static inline __m256i bilinear8(__m128i top_pairs, __m128i bottom_pairs, __m256i w, __m256i vgy) {
  const __m256i top = blend_pairs(top_pairs, w), bottom = blend_pairs(bottom_pairs, w);
  const __m256i sum = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(top, bottom), vgy),
                                       _mm256_slli_epi32(bottom, 10));
  const __m256i nudged =
      _mm256_add_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(1 << 19)), _mm256_srai_epi32(sum, 31));
  return _mm256_srai_epi32(nudged, 20);
}

void q8nn_x8_ibilinear_row__avx2(const uint8_t* top, const uint8_t* bottom, const struct q8nn_resize_column* columns,
                                 size_t output_width, int32_t fy, size_t channels, uint8_t flip, uint8_t* out,
                                 size_t out_stride) {
  const __m128i vflip = _mm_set1_epi8((char) flip);
  const __m256i vgy = _mm256_set1_epi32(1024 - fy);
  const size_t full = channels & ~(size_t) 15;
  uint8_t* row = out;
  for (size_t ox = 0; ox < output_width; ox++, row += out_stride) {
    const uint8_t* tl = top + columns[ox].left;
    const uint8_t* tr = top + columns[ox].right;
    const uint8_t* bl = bottom + columns[ox].left;
    const uint8_t* br = bottom + columns[ox].right;
    const int32_t fx = columns[ox].weight;
    const __m256i w = _mm256_set1_epi32((int32_t) ((uint32_t) fx << 16 | (uint32_t) (1024 - fx)));
    for (size_t c = 0; c < full; c += 16) {
      const __m128i vtl = _mm_xor_si128(_mm_loadu_si128((const __m128i*) (tl + c)), vflip);
      const __m128i vtr = _mm_xor_si128(_mm_loadu_si128((const __m128i*) (tr + c)), vflip);
      const __m128i vbl = _mm_xor_si128(_mm_loadu_si128((const __m128i*) (bl + c)), vflip);
      const __m128i vbr = _mm_xor_si128(_mm_loadu_si128((const __m128i*) (br + c)), vflip);
      const __m256i lo = bilinear8(_mm_unpacklo_epi8(vtl, vtr), _mm_unpacklo_epi8(vbl, vbr), w, vgy);
      const __m256i hi = bilinear8(_mm_unpackhi_epi8(vtl, vtr), _mm_unpackhi_epi8(vbl, vbr), w, vgy);
      /* VPACKSSDW works within 128-bit halves: VPERMQ puts channels 0-15 in order */
      const __m256i h = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), _MM_SHUFFLE(3, 1, 2, 0));
      const __m128i r = _mm_packs_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
      _mm_storeu_si128((__m128i*) (row + c), _mm_xor_si128(r, vflip));
    }
  }
  if (full != channels) {
    /* the last channels of every pixel, by the portable loop */
    q8nn_x8_ibilinear_row__portable(top + full, bottom + full, columns, output_width, fy, channels - full, flip,
                                    out + full, out_stride);
  }
}
