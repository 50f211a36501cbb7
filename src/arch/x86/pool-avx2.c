/*
 * Max and average pooling of one output pixel, AVX2 (see ukernel.h): 32 channels a step, the tail
 * by the portable kernel.
 *
 * Average: int16 lane sums of up to 256 cells (|sum| <= 128 x 256 = 32768 fits only as -32768:
 * the sum of 256 inputs of -128; the largest, 127 x 256, fits too), added into int32 lanes every
 * 256 cells. TFLite's rounded quotient is taken in float for windows of up to 65536 cells:
 * n = sum +- count / 2 and count are exact floats (|n| <= 2^23 + 2^15 < 2^24), and where n / count
 * is not an integer it is at least 1 / count >= 2^-16 from one, more than the float quotient's
 * error (half an ulp of a value below 256: 2^-17), so truncating the float quotient gives C's
 * truncated quotient. Larger TFLite windows run the portable kernel. pytorch_qnnpack's
 * requantization is its own float arithmetic at any size. One channel of dense pixels (NCHW
 * planes pooled as images) sums whole window rows with VPSADBW.
 */
#include <immintrin.h>

#include "kernel-decls.h"
#include "requantization.h"

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

/* The row kernels' block (kernels/maxpool-row.h): 32 channels; uint8 bytes (u8, a constant at each
   call) compare unsigned, so no flip is needed. */
typedef __m256i q8nn_pool_vec;
struct q8nn_pool_block {
  __m256i lo, hi; /* the clamp in the compared domain */
  int u8;
};

static inline __m256i q8nn_pool_max(__m256i a, __m256i b, const struct q8nn_pool_block* blk) {
  return blk->u8 ? _mm256_max_epu8(a, b) : _mm256_max_epi8(a, b);
}

static inline __m256i q8nn_pool_column(const int8_t* p, size_t rows, size_t row_stride,
                                       const struct q8nn_pool_block* blk) {
  __m256i m = _mm256_loadu_si256((const __m256i*) p);
  for (size_t y = 1; y < rows; y++) {
    m = q8nn_pool_max(m, _mm256_loadu_si256((const __m256i*) (p + y * row_stride)), blk);
  }
  return m;
}

static inline void q8nn_pool_store(int8_t* o, __m256i m, const struct q8nn_pool_block* blk) {
  const __m256i clamped = blk->u8 ? _mm256_min_epu8(_mm256_max_epu8(m, blk->lo), blk->hi)
                                  : _mm256_min_epi8(_mm256_max_epi8(m, blk->lo), blk->hi);
  _mm256_storeu_si256((__m256i*) o, clamped);
}

static inline void q8nn_pool_block_init(struct q8nn_pool_block* blk, const struct q8nn_pool_params* params,
                                        int u8) {
  /* uint8 bounds are the int8 ones flipped back */
  blk->lo = _mm256_set1_epi8((char) (params->output_min ^ (u8 ? 0x80 : 0)));
  blk->hi = _mm256_set1_epi8((char) (params->output_max ^ (u8 ? 0x80 : 0)));
  blk->u8 = u8;
}

/* 32 channels a block; fewer go to the portable kernel */
static inline size_t q8nn_pool_block_lanes(struct q8nn_pool_block* blk, size_t remaining) {
  (void) blk;
  return remaining >= 32 ? 32 : 0;
}

#include "maxpool-row.h"

Q8NN_DEFINE_MAXPOOL_ROW_UKERNEL(q8nn_s8_maxpool_row_ukernel__avx2)

/* The epilogue of 8 window sums: TFLite's quotient or pytorch_qnnpack's requantization (ukernel.h),
   clamped. */
struct averager {
  __m256i half, lo, hi, bias, zero_point;
  __m256 count, scale;
  int requantize;
};

static inline struct averager make_averager(size_t cells, const struct q8nn_pool_params* params) {
  struct averager a;
  a.lo = _mm256_set1_epi32(params->output_min);
  a.hi = _mm256_set1_epi32(params->output_max);
  a.requantize = params->requantize;
  if (a.requantize) { /* only the constants of the arithmetic in use (one call per output pixel) */
    a.bias = _mm256_set1_epi32(params->input_zero_point * (int32_t) cells);
    a.zero_point = _mm256_set1_epi32(params->output_zero_point);
    a.scale = _mm256_set1_ps(params->scale);
    a.half = _mm256_setzero_si256(), a.count = _mm256_setzero_ps();
  } else {
    a.half = _mm256_set1_epi32((int32_t) (cells / 2));
    a.count = _mm256_set1_ps((float) cells);
    a.bias = a.zero_point = _mm256_setzero_si256(), a.scale = _mm256_setzero_ps();
  }
  return a;
}

static inline __m256i averages(__m256i sum, const struct averager* a) {
  __m256i q;
  if (a->requantize) {
    /* VCVTPS2DQ rounds to nearest even (MXCSR's default), as nearbyintf */
    const __m256 scaled = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sum, a->bias)), a->scale);
    q = _mm256_add_epi32(_mm256_cvtps_epi32(scaled), a->zero_point);
  } else {
    /* sum > 0: sum + half; else sum - half */
    const __m256i positive = _mm256_cmpgt_epi32(sum, _mm256_setzero_si256());
    const __m256i n = _mm256_add_epi32(
        sum, _mm256_blendv_epi8(_mm256_sub_epi32(_mm256_setzero_si256(), a->half), a->half, positive));
    q = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(n), a->count));
  }
  return _mm256_min_epi32(_mm256_max_epi32(q, a->lo), a->hi);
}

/* 16 int32 averages as 16 bytes */
static inline __m128i pack16(__m256i q0, __m256i q1) {
  const __m128i p0 = _mm_packs_epi32(_mm256_castsi256_si128(q0), _mm256_extracti128_si256(q0, 1));
  const __m128i p1 = _mm_packs_epi32(_mm256_castsi256_si128(q1), _mm256_extracti128_si256(q1, 1));
  return _mm_packs_epi16(p0, p1);
}

/* int16 sums of 32 channels over `count` pixels pixel_stride apart */
static inline void sum_run(const int8_t* p, size_t count, size_t pixel_stride, __m128i flip, __m256i* s0, __m256i* s1) {
  for (size_t x = 0; x < count; x++, p += pixel_stride) {
    *s0 = _mm256_add_epi16(*s0, _mm256_cvtepi8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i*) p), flip)));
    *s1 = _mm256_add_epi16(*s1, _mm256_cvtepi8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i*) (p + 16)), flip)));
  }
}

static inline void widen_add(__m256i s16, __m256i* lo, __m256i* hi) {
  *lo = _mm256_add_epi32(*lo, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s16)));
  *hi = _mm256_add_epi32(*hi, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s16, 1)));
}

/* One channel of dense pixels (an NCHW plane pooled as an image of one-byte pixels): each window
   row is a run of bytes, summed 32 at a time with VPSADBW on the bytes offset to uint8. */
static void average_single_channel(const int8_t* first, size_t rows, size_t cols, size_t row_stride, int8_t* out,
                                   const struct q8nn_pool_params* params) {
  const int32_t count = (int32_t) (rows * cols);
  const uint8_t offset = q8nn_pool_plane_runs(&rows, &cols, row_stride, params);
  const __m256i voffset = _mm256_set1_epi8((char) offset);
  __m256i acc = _mm256_setzero_si256();
  int64_t tail = 0;
  for (size_t y = 0; y < rows; y++) {
    const int8_t* row = first + y * row_stride;
    size_t x = 0;
    for (; x + 32 <= cols; x += 32) {
      acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i*) (row + x)),
                                                                   voffset),
                                                  _mm256_setzero_si256()));
    }
    for (; x < cols; x++) tail += (uint8_t) ((uint8_t) row[x] ^ offset);
  }
  const __m128i halves = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  out[0] = q8nn_pool_plane_byte((uint64_t) (_mm_cvtsi128_si64(halves) + _mm_extract_epi64(halves, 1) + tail), count,
                                params);
}

void q8nn_s8_avgpool_ukernel__avx2(const int8_t* first, size_t rows, size_t cols, size_t row_stride,
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
  const __m128i flip = _mm_set1_epi8((char) params->flip);
  const struct averager a = make_averager(cells, params);
  size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    /* int16 sums of up to 256 cells (-128 x 256 fits), added into int32 every 256 cells */
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
    __m256i w0 = _mm256_setzero_si256(), w1 = _mm256_setzero_si256(), w2 = _mm256_setzero_si256(),
            w3 = _mm256_setzero_si256();
    if (cells <= 256) { /* the int16 sums hold the whole window */
      for (size_t y = 0; y < rows; y++) sum_run(first + y * row_stride + c, cols, pixel_stride, flip, &s0, &s1);
    } else {
      size_t pending = 0; /* cells in the int16 sums; checked per run of a row, not per pixel */
      for (size_t y = 0; y < rows; y++) {
        for (size_t x0 = 0; x0 < cols;) {
          const size_t run = cols - x0 < 256 ? cols - x0 : 256;
          if (pending + run > 256) {
            widen_add(s0, &w0, &w1);
            widen_add(s1, &w2, &w3);
            s0 = s1 = _mm256_setzero_si256();
            pending = 0;
          }
          sum_run(first + y * row_stride + c + x0 * pixel_stride, run, pixel_stride, flip, &s0, &s1);
          pending += run;
          x0 += run;
        }
      }
    }
    widen_add(s0, &w0, &w1);
    widen_add(s1, &w2, &w3);
    _mm_storeu_si128((__m128i*) (out + c), _mm_xor_si128(pack16(averages(w0, &a), averages(w1, &a)), flip));
    _mm_storeu_si128((__m128i*) (out + c + 16), _mm_xor_si128(pack16(averages(w2, &a), averages(w3, &a)), flip));
  }
  if (c != channels) {
    q8nn_s8_avgpool_ukernel__scalar(first + c, rows, cols, row_stride, pixel_stride, channels - c, out + c, params);
  }
}
