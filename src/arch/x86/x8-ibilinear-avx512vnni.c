/*
 * One row of TFLite's bilinear resize (ukernel.h, q8nn_ibilinear_row_fn), AVX-512 (F/BW; listed
 * with the AVX-512 VNNI tier), 16 channels a step in int32 lanes, exact:
 *   top = tl gx + tr fx and bottom = bl gx + br fx: the two source bytes interleaved (VPUNPCK[LH]BW),
 *     widened to int16 pairs (VPMOVSXBW) and one VPMADDWD against (gx, fx) (both <= 1024);
 *   sum = top gy + bottom fy = (top - bottom) gy + bottom 1024 (|sum| < 2^29), one VPMULLD;
 *   rounded half away from zero: (sum + 2^19 + (sum >> 31)) >> 20, which is
 *   sign(sum) ((|sum| + 2^19) >> 20): for sum < 0, floor((sum + 2^19 - 1) / 2^20) =
 *   ceil((sum - 2^19) / 2^20);
 *   VPMOVDB (the result is within the two source bytes' range).
 * uint8 bytes are flipped where loaded and stored. The channel tail is one masked step.
 */
#include <immintrin.h>

#include "kernel-decls.h"

/* tl w_lo + tr w_hi in 16 int32 lanes from 16 bytes of each */
static inline __m512i blend_pair(__m128i l, __m128i r, __m512i w) {
  const __m256i pairs =
      _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(l, r)), _mm_unpackhi_epi8(l, r), 1);
  return _mm512_madd_epi16(_mm512_cvtepi8_epi16(pairs), w);
}

static inline __m128i bilinear16(__m128i tl, __m128i tr, __m128i bl, __m128i br, __m512i w, __m512i vgy) {
  const __m512i top = blend_pair(tl, tr, w), bottom = blend_pair(bl, br, w);
  const __m512i sum = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_sub_epi32(top, bottom), vgy),
                                       _mm512_slli_epi32(bottom, 10));
  const __m512i nudged =
      _mm512_add_epi32(_mm512_add_epi32(sum, _mm512_set1_epi32(1 << 19)), _mm512_srai_epi32(sum, 31));
  return _mm512_cvtepi32_epi8(_mm512_srai_epi32(nudged, 20));
}

void q8nn_x8_ibilinear_row__avx512vnni(const uint8_t* top, const uint8_t* bottom,
                                       const struct q8nn_resize_column* columns, size_t output_width, int32_t fy,
                                       size_t channels, uint8_t flip, uint8_t* out, size_t out_stride) {
  const __m128i vflip = _mm_set1_epi8((char) flip);
  const __m512i vgy = _mm512_set1_epi32(1024 - fy);
  const size_t full = channels & ~(size_t) 15;
  const __mmask16 k = _cvtu32_mask16((1u << (channels & 15)) - 1);
  for (size_t ox = 0; ox < output_width; ox++, out += out_stride) {
    const uint8_t* tl = top + columns[ox].left;
    const uint8_t* tr = top + columns[ox].right;
    const uint8_t* bl = bottom + columns[ox].left;
    const uint8_t* br = bottom + columns[ox].right;
    const int32_t fx = columns[ox].weight;
    const __m512i w = _mm512_set1_epi32((int32_t) ((uint32_t) fx << 16 | (uint32_t) (1024 - fx)));
    for (size_t c = 0; c < full; c += 16) {
      const __m128i r = bilinear16(_mm_xor_si128(_mm_loadu_si128((const __m128i*) (tl + c)), vflip),
                                   _mm_xor_si128(_mm_loadu_si128((const __m128i*) (tr + c)), vflip),
                                   _mm_xor_si128(_mm_loadu_si128((const __m128i*) (bl + c)), vflip),
                                   _mm_xor_si128(_mm_loadu_si128((const __m128i*) (br + c)), vflip), w, vgy);
      _mm_storeu_si128((__m128i*) (out + c), _mm_xor_si128(r, vflip));
    }
    if (full != channels) {
      const __m128i r = bilinear16(_mm_xor_si128(_mm_maskz_loadu_epi8(k, tl + full), vflip),
                                   _mm_xor_si128(_mm_maskz_loadu_epi8(k, tr + full), vflip),
                                   _mm_xor_si128(_mm_maskz_loadu_epi8(k, bl + full), vflip),
                                   _mm_xor_si128(_mm_maskz_loadu_epi8(k, br + full), vflip), w, vgy);
      _mm_mask_storeu_epi8(out + full, k, _mm_xor_si128(r, vflip));
    }
  }
}
