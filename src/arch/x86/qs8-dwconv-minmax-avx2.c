/*
 * AVX2 depthwise kernels, 16 channels per tile (2 ymm of int32 accumulators), both TFLite roundings
 * and XNNPACK's fp32 (same loops, the epilogue picked by a constant): 9p16c (3x3), 25p16c (5x5)
 * and xp16c (any number of taps).
 *
 * Loop order: channel tiles outside, output pixels inside. Taps go 2 at a time into VPMADDWD on
 * sign-extended int16 (exact: |x w| sums of two products < 2^16; no VPMADDUBSW, which saturates):
 * the two input rows and the two weight rows are word-interleaved with VPUNPCK[LH]WD, which
 * leaves accumulator 0 holding channels {0-3, 8-11} and accumulator 1 channels {4-7, 12-15}. The
 * weights of a tile are interleaved once into a stack array (taps rounded up to even, the missing
 * tap a zero weight) and read by every pixel of the row. Bias, multiplier and shift are
 * rearranged to the accumulator order once per tile; one PSHUFB puts the 16 output bytes back in
 * channel order after the epilogue of x86-avx2.h. The fp32 epilogue keeps lanes in place: the packs
 * alone restore channel order (the scale, in the multiplier slot, is rearranged with it). So does
 * the int32 form of double rounding (q8nn_x86_requantize8_doubled), which tiles where every lane
 * shifts right and none left take (0.87-0.89x the time of the int64 form, bench_ukernels 3x3), and
 * the guarded epilogue of operators with the guard (q8nn_x86_guard8_apply; a pixel with a flagged
 * lane is listed and redone with the exact epilogue after the tile's loop, q8nn_x86_dw_redo).
 *
 * 9 taps pair them by kernel column instead, so that a stride-1 or stride-2 row reuses the last
 * pixel's sign-extended and interleaved columns (q8nn_x86_dw2_row9): one new column per pixel
 * (bench_ukernels rdouble 112x112x32 219 -> 181 us, 56x56x144 248 -> 204, 14x14x576
 * 66 -> 57, fp32 0.80-0.90x; the depthwise class under Q8NN_ISA_MASK=avx2 1.34 -> 1.19 ms on one
 * thread, 0.75 -> 0.66 on two).
 *
 * Params: output zero point and clamp; packed per 16-channel block: bias, multiplier, shift,
 * w[taps][16] (q8nn_pack_qs8_dwconv_w, input_offset 0). Channel tails: the last tile's inputs are
 * copied through a 16-byte buffer (nothing read past `channels` bytes of a row) and its output
 * stored through one.
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx2.h"

#define Q8NN_X86_DW2_CT 16
#define Q8NN_X86_DW2_MAX_PAIRS 25 /* weights kept on the stack for up to 50 taps */

Q8NN_X86_INLINE __m256i q8nn_x86_dw2_load(const int8_t* p, size_t n) {
  return _mm256_cvtepi8_epi16(q8nn_x86_load_tail16(p, n));
}

/* An input row's n bytes as int8 (uint8 inputs flipped, ukernel.h), sign-extended. */
Q8NN_X86_INLINE __m256i q8nn_x86_dw2_input(__m128i iflip, const int8_t* p, size_t n) {
  return _mm256_cvtepi8_epi16(_mm_xor_si128(q8nn_x86_load_tail16(p, n), iflip));
}

/* Natural int32 [16] at p -> accumulator order {0-3, 8-11}, {4-7, 12-15}. */
Q8NN_X86_INLINE void q8nn_x86_dw2_header(const uint8_t* p, __m256i* out) {
  const __m256i n0 = _mm256_loadu_si256((const __m256i*) p);
  const __m256i n1 = _mm256_loadu_si256((const __m256i*) (p + 32));
  out[0] = _mm256_permute2x128_si256(n0, n1, 0x20);
  out[1] = _mm256_permute2x128_si256(n0, n1, 0x31);
}

/* Per-tile constants of the pixel loop. */
struct q8nn_x86_dw2_tile {
  __m256i vbias[2], vmult[2];
  struct q8nn_x86_rq8 rq[2];
  struct q8nn_x86_guard8 g[2]; /* the guarded epilogue (FORM 3 and 4) */
  __m256i vw[Q8NN_X86_DW2_MAX_PAIRS][2];
  const int8_t* wt; /* packed weights of the tile (pairs beyond the kept ones) */
  size_t c0, crem;
  __m128i iflip; /* input_flip in every byte (uint8 inputs) */
};

/* Requantizes, packs, clamps and stores one pixel's 16 channels (accumulators acc0: channels
   {0-3, 8-11}, acc1: {4-7, 12-15}). FORM, for the TFLite roundings: 0 the int64 form, 1 the int32
   form (tiles where doubled_all), 3 and 4 the guarded epilogue (q8nn_x86_guard8_apply; 4 with the
   sign term). Returns 1 where the guard flagged a lane (the bytes stored are then to be redone),
   else 0. */
Q8NN_X86_INLINE int q8nn_x86_dw2_finish(const int rounding, const int FORM, __m256i vacc0, __m256i vacc1,
                                        const struct q8nn_x86_dw2_tile* t, const struct q8nn_x86_out32* vout,
                                        __m128i vorder, int8_t* out) {
  __m128i v;
  if (rounding != 2 && FORM >= 3) {
    /* y >> 15 in accumulator order; the unsigned packs restore channel order as fp32's do
       (q8nn_x86_pack4x8's rounding 4: less Q8NN_GUARD_BASE, the upper clamp, + output_min +
       output_flip) */
    __m256i vmin = _mm256_set1_epi32(-1);
    const __m256i r0 = q8nn_x86_guard8_apply(vacc0, &t->g[0], FORM == 4, &vmin);
    const __m256i r1 = q8nn_x86_guard8_apply(vacc1, &t->g[1], FORM == 4, &vmin);
    const __m256i v16 = _mm256_subs_epu16(_mm256_packus_epi32(r0, r1), vout->gbase16);
    v = _mm_packus_epi16(_mm256_castsi256_si128(v16), _mm256_extracti128_si256(v16, 1));
    v = _mm_add_epi8(_mm_min_epu8(v, _mm256_castsi256_si128(vout->gspan8)), _mm256_castsi256_si128(vout->gadd8));
    q8nn_x86_store_tail16(out, v, t->crem);
    return q8nn_x86_guard8_flagged(vmin);
  }
  if (rounding == 2) {
    const __m256i r0 = q8nn_x86_requantize8_fp32(vacc0, _mm256_castsi256_ps(t->vmult[0]), vout->fhi);
    const __m256i r1 = q8nn_x86_requantize8_fp32(vacc1, _mm256_castsi256_ps(t->vmult[1]), vout->fhi);
    /* words {0-3, 4-7 | 8-11, 12-15}: channel order */
    const __m256i v16 = q8nn_x86_packs_zp16(r0, r1, vout);
    v = _mm_packs_epi16(_mm256_castsi256_si128(v16), _mm256_extracti128_si256(v16, 1));
  } else if (FORM == 1) {
    /* the int32 form (x86-avx2.h), lanes in accumulator order: as fp32's, the packs alone restore
       channel order */
    const __m256i r0 = q8nn_x86_requantize8_doubled(vacc0, t->rq[0].m_even, t->rq[0].m_odd, t->rq[0].e_minus1);
    const __m256i r1 = q8nn_x86_requantize8_doubled(vacc1, t->rq[1].m_even, t->rq[1].m_odd, t->rq[1].e_minus1);
    const __m256i v16 = q8nn_x86_packs_doubled(r0, r1, vout);
    v = _mm_packs_epi16(_mm256_castsi256_si128(v16), _mm256_extracti128_si256(v16, 1));
  } else {
    const __m256i r0 = q8nn_x86_requantize8(vacc0, &t->rq[0], rounding == 1);
    const __m256i r1 = q8nn_x86_requantize8(vacc1, &t->rq[1], rounding == 1);
    /* packs_epi32(r0, r1): words {r0 0-3, r1 0-3 | r0 4-7, r1 4-7} = merged order of channels 0-15. */
    const __m256i v16 = _mm256_packs_epi32(r0, r1);
    v = _mm_packs_epi16(_mm256_castsi256_si128(v16), _mm256_extracti128_si256(v16, 1));
    v = _mm_shuffle_epi8(v, vorder);
  }
  v = _mm_min_epi8(_mm_max_epi8(v, _mm256_castsi256_si128(vout->min8)), _mm256_castsi256_si128(vout->max8));
  v = _mm_xor_si128(v, _mm256_castsi256_si128(vout->flip8));
  q8nn_x86_store_tail16(out, v, t->crem);
  return 0;
}

/* PX output pixels of one channel tile: pixel p reads input + p * input_stride and writes
   out + p * pixel_step. With PX = 2 each weight pair (a memory operand once the 25 kept pairs spill)
   is read once for both pixels. */
Q8NN_X86_INLINE void q8nn_x86_dw2_pixels(
    const size_t PX, const size_t TAPS, const int rounding, const int FORM, size_t taps, size_t pairs,
    const int8_t** in, size_t input_stride, const int8_t* zero, size_t input_offset,
    const struct q8nn_x86_dw2_tile* t, const struct q8nn_x86_out32* vout, __m128i vorder, int8_t* out,
    size_t pixel_step, struct q8nn_x86_dw_fix* fix) {
  __m256i vacc0[2], vacc1[2];
#pragma GCC unroll 2
  for (size_t px = 0; px < PX; px++) vacc0[px] = t->vbias[0], vacc1[px] = t->vbias[1];
#pragma GCC unroll 13
  for (size_t g = 0; g < pairs; g++) {
    __m256i vw0, vw1;
    if (TAPS != 0 || g < Q8NN_X86_DW2_MAX_PAIRS) {
      vw0 = t->vw[g < Q8NN_X86_DW2_MAX_PAIRS ? g : 0][0];
      vw1 = t->vw[g < Q8NN_X86_DW2_MAX_PAIRS ? g : 0][1];
    } else {
      const __m256i w0 = q8nn_x86_dw2_load(t->wt + 2 * g * Q8NN_X86_DW2_CT, 16);
      const __m256i w1 = 2 * g + 1 < taps ? q8nn_x86_dw2_load(t->wt + (2 * g + 1) * Q8NN_X86_DW2_CT, 16)
                                          : _mm256_setzero_si256();
      vw0 = _mm256_unpacklo_epi16(w0, w1);
      vw1 = _mm256_unpackhi_epi16(w0, w1);
    }
#pragma GCC unroll 2
    for (size_t px = 0; px < PX; px++) {
      const int8_t** pin = in + px * input_stride;
      const __m256i x0 = q8nn_x86_dw2_input(t->iflip, q8nn_x86_dw_row(pin, 2 * g, zero, input_offset, t->c0), t->crem);
      __m256i x1 = _mm256_setzero_si256();
      if (2 * g + 1 < taps) {
        x1 = q8nn_x86_dw2_input(t->iflip, q8nn_x86_dw_row(pin, 2 * g + 1, zero, input_offset, t->c0), t->crem);
      }
      vacc0[px] = _mm256_add_epi32(vacc0[px], _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), vw0));
      vacc1[px] = _mm256_add_epi32(vacc1[px], _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), vw1));
    }
  }
#pragma GCC unroll 2
  for (size_t px = 0; px < PX; px++) {
    if (Q8NN_UNLIKELY(q8nn_x86_dw2_finish(rounding, FORM, vacc0[px], vacc1[px], t, vout, vorder, out + px * pixel_step))) {
      q8nn_x86_dw_note(fix, in + px * input_stride, out + px * pixel_step, 1, input_stride, pixel_step);
    }
  }
}

/*
 * 9 taps (9p16c), one pixel at a time. The window's kernel columns A, B, C (taps c, c + 3, c + 6)
 * go into VPMADDWD as five int16 pairs: PA = taps (0, 3), PB = (1, 4), PC = (2, 5), Q = (6, 7) and
 * R = (8, none), so that a pixel whose window moved by one column from the last pixel's (a stride-1
 * row, padding included: q8nn_x86_dw9_slides_y) keeps the last PB and PC as its PA and PB, and the
 * last sign-extended rows 2 of B and C for its Q: only column D is loaded. 3 loads with sign
 * extension, 6 unpacks, 10 VPMADDWD and 10 VPADDD per 16 channels, where pairs of consecutive taps
 * (the other lines) take 9, 10, 10 and 10. Moved by two columns (stride 2), PA and A's row 2 are the
 * last C's. The test is on the pointers, so the bytes are the same either way; vw[0..4] hold the
 * five pairs' weights (q8nn_x86_dwconv_avx2).
 */
Q8NN_X86_INLINE void q8nn_x86_dw2_column(const int8_t* const* in, size_t c, const int8_t* zero, size_t input_offset,
                                         const struct q8nn_x86_dw2_tile* t, __m256i* vp, __m256i* vr2) {
  const __m256i x0 = q8nn_x86_dw2_input(t->iflip, q8nn_x86_dw_row(in, c, zero, input_offset, t->c0), t->crem);
  const __m256i x1 = q8nn_x86_dw2_input(t->iflip, q8nn_x86_dw_row(in, c + 3, zero, input_offset, t->c0), t->crem);
  *vr2 = q8nn_x86_dw2_input(t->iflip, q8nn_x86_dw_row(in, c + 6, zero, input_offset, t->c0), t->crem);
  vp[0] = _mm256_unpacklo_epi16(x0, x1);
  vp[1] = _mm256_unpackhi_epi16(x0, x1);
}

Q8NN_X86_INLINE void q8nn_x86_dw2_row9(const int rounding, const int FORM, size_t output_width, const int8_t** in,
                                       size_t input_stride, const int8_t* zero, size_t input_offset,
                                       const struct q8nn_x86_dw2_tile* t, const struct q8nn_x86_out32* vout,
                                       __m128i vorder, int8_t* out, size_t pixel_step, struct q8nn_x86_dw_fix* fix) {
  __m256i vp[3][2], vr2[3]; /* columns A, B, C: rows (0, 1) interleaved; row 2 */
#pragma GCC unroll 3
  for (size_t c = 0; c < 3; c++) vp[c][0] = vp[c][1] = vr2[c] = _mm256_setzero_si256();
  for (size_t x = 0; x < output_width; x++) {
    if (x != 0 && q8nn_x86_dw9_slides_y(in - input_stride, in)) {
      vp[0][0] = vp[1][0], vp[0][1] = vp[1][1], vr2[0] = vr2[1];
      vp[1][0] = vp[2][0], vp[1][1] = vp[2][1], vr2[1] = vr2[2];
      q8nn_x86_dw2_column(in, 2, zero, input_offset, t, vp[2], &vr2[2]);
    } else if (x != 0 && q8nn_x86_dw9_slides2_y(in - input_stride, in)) {
      vp[0][0] = vp[2][0], vp[0][1] = vp[2][1], vr2[0] = vr2[2];
      q8nn_x86_dw2_column(in, 1, zero, input_offset, t, vp[1], &vr2[1]);
      q8nn_x86_dw2_column(in, 2, zero, input_offset, t, vp[2], &vr2[2]);
    } else {
#pragma GCC unroll 3
      for (size_t c = 0; c < 3; c++) q8nn_x86_dw2_column(in, c, zero, input_offset, t, vp[c], &vr2[c]);
    }
    const __m256i vzero = _mm256_setzero_si256();
    const __m256i vq[2] = {_mm256_unpacklo_epi16(vr2[0], vr2[1]), _mm256_unpackhi_epi16(vr2[0], vr2[1])};
    const __m256i vr[2] = {_mm256_unpacklo_epi16(vr2[2], vzero), _mm256_unpackhi_epi16(vr2[2], vzero)};
    __m256i vacc[2];
#pragma GCC unroll 2
    for (size_t h = 0; h < 2; h++) {
      vacc[h] = _mm256_add_epi32(t->vbias[h], _mm256_madd_epi16(vp[0][h], t->vw[0][h]));
      vacc[h] = _mm256_add_epi32(vacc[h], _mm256_madd_epi16(vp[1][h], t->vw[1][h]));
      vacc[h] = _mm256_add_epi32(vacc[h], _mm256_madd_epi16(vp[2][h], t->vw[2][h]));
      vacc[h] = _mm256_add_epi32(vacc[h], _mm256_madd_epi16(vq[h], t->vw[3][h]));
      vacc[h] = _mm256_add_epi32(vacc[h], _mm256_madd_epi16(vr[h], t->vw[4][h]));
    }
    if (Q8NN_UNLIKELY(q8nn_x86_dw2_finish(rounding, FORM, vacc[0], vacc[1], t, vout, vorder, out))) {
      q8nn_x86_dw_note(fix, in, out, 1, input_stride, pixel_step);
    }
    out += pixel_step;
    in += input_stride;
  }
}

/* The pixels of one channel tile, two at a time; FORM: the epilogue (q8nn_x86_dw2_finish), the
   flagged pixels of the guarded one listed in fix. */
Q8NN_X86_INLINE void q8nn_x86_dw2_row(const size_t TAPS, const int rounding, const int FORM, size_t output_width,
                                      size_t taps, size_t pairs, const int8_t** in, size_t input_stride,
                                      const int8_t* zero, size_t input_offset, const struct q8nn_x86_dw2_tile* t,
                                      const struct q8nn_x86_out32* vout, __m128i vorder, int8_t* out,
                                      size_t pixel_step, struct q8nn_x86_dw_fix* fix) {
  if (TAPS == 9) {
    q8nn_x86_dw2_row9(rounding, FORM, output_width, in, input_stride, zero, input_offset, t, vout, vorder, out,
                      pixel_step, fix);
    return;
  }
  size_t x = 0;
  for (; x + 2 <= output_width; x += 2) {
    q8nn_x86_dw2_pixels(2, TAPS, rounding, FORM, taps, pairs, in, input_stride, zero, input_offset, t, vout,
                        vorder, out, pixel_step, fix);
    out += 2 * pixel_step;
    in += 2 * input_stride;
  }
  if (x < output_width) {
    q8nn_x86_dw2_pixels(1, TAPS, rounding, FORM, taps, pairs, in, input_stride, zero, input_offset, t, vout,
                        vorder, out, pixel_step, fix);
  }
}

Q8NN_X86_INLINE void q8nn_x86_dwconv_avx2(
    const size_t TAPS, const int rounding, q8nn_qs8_dwconv_ukernel_fn self,
    size_t channels, size_t output_width, size_t taps, const int8_t** input, size_t input_stride,
    const void* weights, int8_t* output, size_t output_increment, size_t input_offset,
    const int8_t* zero, const struct q8nn_qs8_conv_params* params) {
  if (TAPS != 0) taps = TAPS;
  const size_t pairs = (taps + 1) / 2;
  const struct q8nn_x86_out32 vout = q8nn_x86_out32_init_conv(params);
  /* Merged lanes of (acc0, acc1) after packs: channels {0,2,1,3,4,6,5,7,8,10,9,11,12,14,13,15}. */
  const __m128i vorder = _mm_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15);
  const size_t pixel_step = channels + output_increment;
  const uint8_t* wb = (const uint8_t*) weights;
  for (size_t c0 = 0; c0 < channels; c0 += Q8NN_X86_DW2_CT) {
    struct q8nn_x86_dw2_tile t;
    t.iflip = _mm256_castsi256_si128(vout.iflip8);
    t.c0 = c0;
    t.crem = channels - c0 < Q8NN_X86_DW2_CT ? channels - c0 : Q8NN_X86_DW2_CT;
    t.wt = (const int8_t*) wb + Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DW2_CT);
    __m256i vshift[2];
    q8nn_x86_dw2_header(wb, t.vbias);
    q8nn_x86_dw2_header(wb + 64, t.vmult);
    q8nn_x86_dw2_header(wb + 128, vshift);
    if (rounding != 2) {
#pragma GCC unroll 2
      for (size_t j = 0; j < 2; j++) {
        t.rq[j] = rounding == 1 ? q8nn_x86_rq8_init_rsingle(t.vmult[j], vshift[j], params->output_zero_point)
                                : q8nn_x86_rq8_init_rdouble(t.vmult[j], vshift[j], params->output_zero_point);
        t.g[j] = q8nn_x86_guard8_init(rounding, t.vmult[j], vshift[j], vout.gc0);
      }
    }
    const size_t kept = TAPS == 9 ? 0 : pairs < Q8NN_X86_DW2_MAX_PAIRS ? pairs : Q8NN_X86_DW2_MAX_PAIRS;
    if (TAPS == 9) {
      /* the five pairs of q8nn_x86_dw2_row9: taps (0, 3), (1, 4), (2, 5), (6, 7), (8, none) */
      const size_t first[5] = {0, 1, 2, 6, 8}, second[5] = {3, 4, 5, 7, 9};
      for (size_t g = 0; g < 5; g++) {
        const __m256i w0 = q8nn_x86_dw2_load(t.wt + first[g] * Q8NN_X86_DW2_CT, 16);
        const __m256i w1 = second[g] < 9 ? q8nn_x86_dw2_load(t.wt + second[g] * Q8NN_X86_DW2_CT, 16)
                                         : _mm256_setzero_si256();
        t.vw[g][0] = _mm256_unpacklo_epi16(w0, w1);
        t.vw[g][1] = _mm256_unpackhi_epi16(w0, w1);
      }
    }
    for (size_t g = 0; g < kept; g++) {
      const __m256i w0 = q8nn_x86_dw2_load(t.wt + 2 * g * Q8NN_X86_DW2_CT, 16);
      const __m256i w1 = 2 * g + 1 < taps ? q8nn_x86_dw2_load(t.wt + (2 * g + 1) * Q8NN_X86_DW2_CT, 16)
                                          : _mm256_setzero_si256();
      t.vw[g][0] = _mm256_unpacklo_epi16(w0, w1);
      t.vw[g][1] = _mm256_unpackhi_epi16(w0, w1);
    }
    const int guard = rounding != 2 ? params->guard : 0;
    struct q8nn_x86_dw_fix fix;
    fix.count = 0;
#define Q8NN_DW2_ROW(FORM)                                                                                     \
  q8nn_x86_dw2_row(TAPS, rounding, FORM, output_width, taps, pairs, input, input_stride, zero, input_offset, &t, \
                   &vout, vorder, output + c0, pixel_step, &fix)
    if (guard == 2) {
      Q8NN_DW2_ROW(4);
    } else if (guard == 1) {
      Q8NN_DW2_ROW(3);
    } else if (rounding == 0 && t.rq[0].doubled_all && t.rq[1].doubled_all) {
      Q8NN_DW2_ROW(1);
    } else {
      Q8NN_DW2_ROW(0);
    }
#undef Q8NN_DW2_ROW
    if (Q8NN_UNLIKELY(fix.count != 0)) {
      q8nn_x86_dw_redo(self, &fix, t.crem, output_width, taps, input, input_stride, wb, output + c0, pixel_step,
                       input_offset, c0, zero, params);
    }
    wb += Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DW2_CT) + taps * Q8NN_X86_DW2_CT;
  }
}

Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p16c__avx2, 9, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p16c__avx2, 9, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p16c__avx2, 25, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p16c__avx2, 25, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp16c__avx2, 0, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp16c__avx2, 0, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p16c__avx2, 9, 2)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p16c__avx2, 25, 2)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avx2, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp16c__avx2, 0, 2)
