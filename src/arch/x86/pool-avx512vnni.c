/*
 * Max and average pooling of one output pixel, AVX-512 (BW; the AVX-512 VNNI tier): 64 channels
 * a step, the tail with masked loads and stores (nothing outside the pixel's channels is touched).
 * Average: int16 lane sums of up to 256 cells, added into int32 lanes; the float quotient is exact
 * as pool-avx2.c shows for windows of up to 65536 cells (larger TFLite windows run the portable
 * kernel); the requantization is pytorch_qnnpack's float form at any size. One channel of dense
 * pixels (NCHW planes pooled as images) sums whole window rows with VPSADBW.
 */
#include <immintrin.h>

#include "kernel-decls.h"
#include "requantization.h"

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

/* The row kernels' block (kernels/maxpool-row.h): 64 channels under a mask; uint8 bytes (u8, a
   constant at each call) compare unsigned, so no flip is needed. */
typedef __m512i q8nn_pool_vec;
struct q8nn_pool_block {
  __mmask64 k;
  __m512i lo, hi; /* the clamp in the compared domain */
  int u8;
};

static inline __m512i q8nn_pool_max(__m512i a, __m512i b, const struct q8nn_pool_block* blk) {
  return blk->u8 ? _mm512_max_epu8(a, b) : _mm512_max_epi8(a, b);
}

static inline __m512i q8nn_pool_column(const int8_t* p, size_t rows, size_t row_stride,
                                       const struct q8nn_pool_block* blk) {
  __m512i m = _mm512_maskz_loadu_epi8(blk->k, p);
  for (size_t y = 1; y < rows; y++) m = q8nn_pool_max(m, _mm512_maskz_loadu_epi8(blk->k, p + y * row_stride), blk);
  return m;
}

static inline void q8nn_pool_store(int8_t* o, __m512i m, const struct q8nn_pool_block* blk) {
  const __m512i clamped = blk->u8 ? _mm512_min_epu8(_mm512_max_epu8(m, blk->lo), blk->hi)
                                  : _mm512_min_epi8(_mm512_max_epi8(m, blk->lo), blk->hi);
  _mm512_mask_storeu_epi8(o, blk->k, clamped);
}

static inline void q8nn_pool_block_init(struct q8nn_pool_block* blk, const struct q8nn_pool_params* params,
                                        int u8) {
  /* uint8 bounds are the int8 ones flipped back */
  blk->lo = _mm512_set1_epi8((char) (params->output_min ^ (u8 ? 0x80 : 0)));
  blk->hi = _mm512_set1_epi8((char) (params->output_max ^ (u8 ? 0x80 : 0)));
  blk->u8 = u8;
}

/* 64 channels a block, the last one masked */
static inline size_t q8nn_pool_block_lanes(struct q8nn_pool_block* blk, size_t remaining) {
  blk->k = tail_mask(remaining);
  return remaining < 64 ? remaining : 64;
}

#include "maxpool-row.h"

Q8NN_DEFINE_MAXPOOL_ROW_UKERNEL(q8nn_s8_maxpool_row_ukernel__avx512)

/* The epilogue of 16 window sums: TFLite's quotient or pytorch_qnnpack's requantization (ukernel.h),
   clamped. */
struct averager {
  __m512i half, lo, hi, bias, zero_point;
  __m512 count, scale;
  int requantize;
};

static inline struct averager make_averager(size_t cells, const struct q8nn_pool_params* params) {
  struct averager a;
  a.lo = _mm512_set1_epi32(params->output_min);
  a.hi = _mm512_set1_epi32(params->output_max);
  a.requantize = params->requantize;
  if (a.requantize) { /* only the constants of the arithmetic in use (one call per output pixel) */
    a.bias = _mm512_set1_epi32(params->input_zero_point * (int32_t) cells);
    a.zero_point = _mm512_set1_epi32(params->output_zero_point);
    a.scale = _mm512_set1_ps(params->scale);
    a.half = _mm512_setzero_si512(), a.count = _mm512_setzero_ps();
  } else {
    a.half = _mm512_set1_epi32((int32_t) (cells / 2));
    a.count = _mm512_set1_ps((float) cells);
    a.bias = a.zero_point = _mm512_setzero_si512(), a.scale = _mm512_setzero_ps();
  }
  return a;
}

static inline __m512i averages(__m512i sum, const struct averager* a) {
  __m512i q;
  if (a->requantize) {
    /* VCVTPS2DQ rounds to nearest even (MXCSR's default), as nearbyintf */
    const __m512 scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sum, a->bias)), a->scale);
    q = _mm512_add_epi32(_mm512_cvtps_epi32(scaled), a->zero_point);
  } else {
    const __mmask16 positive = _mm512_cmpgt_epi32_mask(sum, _mm512_setzero_si512());
    const __m512i n = _mm512_add_epi32(
        sum, _mm512_mask_blend_epi32(positive, _mm512_sub_epi32(_mm512_setzero_si512(), a->half), a->half));
    q = _mm512_cvttps_epi32(_mm512_div_ps(_mm512_cvtepi32_ps(n), a->count));
  }
  return _mm512_min_epi32(_mm512_max_epi32(q, a->lo), a->hi);
}

/* int16 sums of 64 channels (two halves, masked) over `count` pixels pixel_stride apart */
static inline void sum_run(const int8_t* p, size_t count, size_t pixel_stride, __mmask32 k0, __mmask32 k1,
                           __m256i flip, __m512i s16[2]) {
  __m512i a = s16[0], b = s16[1];
  for (size_t x = 0; x < count; x++, p += pixel_stride) {
    a = _mm512_add_epi16(a, _mm512_cvtepi8_epi16(_mm256_xor_si256(_mm256_maskz_loadu_epi8(k0, p), flip)));
    b = _mm512_add_epi16(b, _mm512_cvtepi8_epi16(_mm256_xor_si256(_mm256_maskz_loadu_epi8(k1, p + 32), flip)));
  }
  s16[0] = a, s16[1] = b;
}

/* One channel of dense pixels (an NCHW plane pooled as an image of one-byte pixels): each window
   row is a run of bytes, summed 64 at a time with VPSADBW on the bytes offset to uint8. */
static void average_single_channel(const int8_t* first, size_t rows, size_t cols, size_t row_stride, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const int32_t count = (int32_t) (rows * cols);
  const uint8_t byte_offset = q8nn_pool_plane_runs(&rows, &cols, row_stride, params);
  const __m512i offset = _mm512_set1_epi8((char) byte_offset);
  __m512i acc = _mm512_setzero_si512();
  for (size_t y = 0; y < rows; y++) {
    const int8_t* row = first + y * row_stride;
    size_t x = 0;
    for (; x + 64 <= cols; x += 64) {
      acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_xor_si512(_mm512_loadu_si512(row + x), offset),
                                                  _mm512_setzero_si512()));
    }
    if (x != cols) {
      const __mmask64 k = tail_mask(cols - x);
      const __m512i v = _mm512_maskz_mov_epi8(k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, row + x), offset));
      acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, _mm512_setzero_si512()));
    }
  }
  out[0] = q8nn_pool_plane_byte((uint64_t) _mm512_reduce_add_epi64(acc), count, params);
}

void q8nn_s8_avgpool_ukernel__avx512(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
                                     size_t pixel_stride, size_t channels, int8_t* out,
                                     const struct q8nn_pool_params* params) {
  const size_t cells = rows * cols;
  if (cells > 65536 && !params->requantize) {
    q8nn_s8_avgpool_ukernel__scalar(first, rows, cols, row_stride, pixel_stride, channels, out, params);
    return;
  }
  if (channels == 1 && pixel_stride == 1) {
    average_single_channel(first, rows, cols, row_stride, out, params);
    return;
  }
  const __m256i flip = _mm256_set1_epi8((char) params->flip);
  const struct averager a = make_averager(cells, params);
  /* 64 channels a step in two independent int16 sums of 32 (the second masked off past the end) */
  for (size_t c = 0; c < channels; c += 64) {
    const size_t left = channels - c;
    const __mmask32 k0 = (__mmask32) tail_mask(left < 32 ? left : 32);
    const __mmask32 k1 = left > 32 ? (__mmask32) tail_mask(left - 32 < 32 ? left - 32 : 32) : 0;
    /* int16 sums of up to 256 cells (-128 x 256 fits), added into int32 every 256 cells */
    __m512i s16[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    __m512i s32[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    if (cells <= 256) { /* the int16 sums hold the whole window */
      for (size_t y = 0; y < rows; y++) sum_run(first + y * row_stride + c, cols, pixel_stride, k0, k1, flip, s16);
    } else {
      size_t pending = 0; /* cells in the int16 sums; checked per run of a row, not per pixel */
      for (size_t y = 0; y < rows; y++) {
        for (size_t x0 = 0; x0 < cols;) {
          const size_t run = cols - x0 < 256 ? cols - x0 : 256;
          if (pending + run > 256) {
            for (int h = 0; h < 2; h++) {
              s32[2 * h] = _mm512_add_epi32(s32[2 * h], _mm512_cvtepi16_epi32(_mm512_castsi512_si256(s16[h])));
              s32[2 * h + 1] =
                  _mm512_add_epi32(s32[2 * h + 1], _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(s16[h], 1)));
              s16[h] = _mm512_setzero_si512();
            }
            pending = 0;
          }
          sum_run(first + y * row_stride + c + x0 * pixel_stride, run, pixel_stride, k0, k1, flip, s16);
          pending += run;
          x0 += run;
        }
      }
    }
    for (int h = 0; h < 2; h++) {
      s32[2 * h] = _mm512_add_epi32(s32[2 * h], _mm512_cvtepi16_epi32(_mm512_castsi512_si256(s16[h])));
      s32[2 * h + 1] = _mm512_add_epi32(s32[2 * h + 1], _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(s16[h], 1)));
      const __m256i r = _mm256_set_m128i(_mm512_cvtepi32_epi8(averages(s32[2 * h + 1], &a)),
                                         _mm512_cvtepi32_epi8(averages(s32[2 * h], &a)));
      _mm256_mask_storeu_epi8(out + c + 32 * h, h == 0 ? k0 : k1, _mm256_xor_si256(r, flip));
    }
  }
}
