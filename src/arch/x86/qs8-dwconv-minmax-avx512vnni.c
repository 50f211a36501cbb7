/*
 * AVX-512 VNNI depthwise kernels, 64 channels per tile (4 zmm of int32 accumulators), both TFLite
 * roundings and XNNPACK's fp32 (same loops, the epilogue picked by a constant): 9p64c (3x3),
 * 25p64c (5x5) and xp64c (any number of taps).
 *
 * Loop order: channel tiles outside, output pixels inside, so a tile's weights are rearranged once
 * and stay in registers (or L1) for the whole row. Taps go 4 at a time into VPDPBUSD: the 4 input
 * rows of a tap group (x ^ 0x80, the unsigned operand; the list entry's input_offset 128 makes the
 * operator fold -(zp + 128) sum(w) into the bias) and the 4 weight rows (signed) are byte/word
 * interleaved with the in-lane unpacks, which leaves accumulator j lane 4L + i holding channel
 * 16L + 4j + i. The int32 -> int8 saturating packs undo exactly that order, so no permute is
 * needed on the output; bias, multiplier and shift are transposed (128-bit blocks) to match once
 * per tile. Missing taps of the last group are zero weights against zero bytes. 9 taps are grouped
 * by kernel column instead, so that a stride-1 or stride-2 row reuses the interleaved columns of
 * the last pixel's window (q8nn_x86_dw9_slides_z below).
 *
 * Params: output zero point and clamp; packed per 64-channel block: bias, multiplier, shift,
 * w[taps][64] (q8nn_pack_qs8_dwconv_w). Channel tails: masked loads (nothing read past
 * `channels` bytes of any input row) and masked stores. Requantization: x86-avx512.h (fp32: the
 * scale sits in the multiplier slot and is transposed with it, so it lands in accumulator order).
 * rdouble: whether a tile needs the left shift and the negative-product correction (and whether every
 * lane shifts right, e >= 1, with a TFLite multiplier, m2_all, which takes the int32 form of the
 * second rounding) is decided once per channel tile, and the pixel loop is compiled for each case
 * (q8nn_x86_requantize_rdouble_with);
 * testing the flags per vector and pixel cost 7-14% of the 3x3 kernel (bench_ukernels).
 *
 * Channel tails of at most 32 channels run several pixels per zmm (TFLite roundings, 9 taps): two
 * (q8nn_x86_dw_pairs32) or, for at most 16, four (q8nn_x86_dw_quads16).
 *
 * Software pipelining (64-channel tile, TFLite roundings): an iteration issues pixel x's loads,
 * interleaves and VPDPBUSDs first and pixel x - 1's requantization after them, so the two
 * independent chains sit next to each other in the instruction stream and overlap; in the plain
 * order one pixel's ~60-instruction epilogue chain runs before the next pixel's loads are seen.
 * 0.86-0.97x the time on MobileNetV2's 64-channel shapes in one process (long calls, the operator
 * joining rows). Tried and not kept: the same order on the 32-channel tile (1.08x the time on
 * 112x112x32), and a cheaper exact epilogue for small accumulators (11 instructions per 16 outputs
 * with the zero point, two of them shifts, against 13 plus the zero point's add; 1.13-1.23x
 * faster alone, 1.05-1.08x slower inside this loop, pipelined or not).
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx2.h"
#include "arch/x86/x86-avx512.h"

#define Q8NN_X86_DW_CT 64
#define Q8NN_X86_DW_MAX_GROUPS 8 /* tap groups whose interleaved weights are kept (32 taps) */

/* The slides and slides2 tests (x86-common.h) as one compare of pointer lanes each: the window's
   pointers against the last window's one (two) taps on, in the lanes those tests read (the masked
   load reads no pointer past last[8]). The scalar tests were 12 compare-and-branch pairs per pixel
   pair on the ports the vector work needs. */
Q8NN_X86_INLINE int q8nn_x86_dw9_slides_z(const int8_t* const* last, const int8_t* const* in) {
  const __mmask8 taps = 0xDB; /* 0, 1, 3, 4, 6, 7 */
  return _mm512_mask_cmpneq_epi64_mask(taps, _mm512_loadu_si512(in), _mm512_loadu_si512(last + 1)) == 0;
}

Q8NN_X86_INLINE int q8nn_x86_dw9_slides2_z(const int8_t* const* last, const int8_t* const* in) {
  const __mmask8 taps = 0x49; /* 0, 3, 6 */
  return _mm512_mask_cmpneq_epi64_mask(taps, _mm512_loadu_si512(in), _mm512_maskz_loadu_epi64(taps, last + 2)) == 0;
}

/* x0..x3 (64 channels each) -> 4 vectors; vector j lane L dword i = 4 bytes (x0..x3) of channel
   16L + 4j + i. */
Q8NN_X86_INLINE void q8nn_x86_dw_interleave4(__m512i x0, __m512i x1, __m512i x2, __m512i x3, __m512i* out) {
  const __m512i t0 = _mm512_unpacklo_epi8(x0, x1);
  const __m512i t1 = _mm512_unpackhi_epi8(x0, x1);
  const __m512i t2 = _mm512_unpacklo_epi8(x2, x3);
  const __m512i t3 = _mm512_unpackhi_epi8(x2, x3);
  out[0] = _mm512_unpacklo_epi16(t0, t2);
  out[1] = _mm512_unpackhi_epi16(t0, t2);
  out[2] = _mm512_unpacklo_epi16(t1, t3);
  out[3] = _mm512_unpackhi_epi16(t1, t3);
}

/* Natural order (vector q = channels 16q..16q+15) -> interleaved order (see above). */
Q8NN_X86_INLINE void q8nn_x86_dw_transpose128(const __m512i* n, __m512i* out) {
  const __m512i a = _mm512_shuffle_i32x4(n[0], n[1], _MM_SHUFFLE(2, 0, 2, 0));
  const __m512i b = _mm512_shuffle_i32x4(n[0], n[1], _MM_SHUFFLE(3, 1, 3, 1));
  const __m512i c = _mm512_shuffle_i32x4(n[2], n[3], _MM_SHUFFLE(2, 0, 2, 0));
  const __m512i d = _mm512_shuffle_i32x4(n[2], n[3], _MM_SHUFFLE(3, 1, 3, 1));
  out[0] = _mm512_shuffle_i32x4(a, c, _MM_SHUFFLE(2, 0, 2, 0));
  out[1] = _mm512_shuffle_i32x4(b, d, _MM_SHUFFLE(2, 0, 2, 0));
  out[2] = _mm512_shuffle_i32x4(a, c, _MM_SHUFFLE(3, 1, 3, 1));
  out[3] = _mm512_shuffle_i32x4(b, d, _MM_SHUFFLE(3, 1, 3, 1));
}

Q8NN_X86_INLINE void q8nn_x86_dw_weights(const int8_t* w, size_t t0, size_t taps, __m512i* out) {
  __m512i x[4];
#pragma GCC unroll 4
  for (size_t i = 0; i < 4; i++) {
    x[i] = t0 + i < taps ? _mm512_loadu_si512(w + (t0 + i) * Q8NN_X86_DW_CT) : _mm512_setzero_si512();
  }
  q8nn_x86_dw_interleave4(x[0], x[1], x[2], x[3], out);
}

/*
 * 9 taps (9p64c, and the 32-channel tile of it): taps grouped by t mod 3, {c, c + 3, c + 6}, the
 * columns of a 3x3 kernel, one VPDPBUSD group each (4th byte zero). When a pixel's window is the last
 * one moved by one column (its taps c, c + 3, c + 6 for c = 0, 1 point where the last pixel's
 * c + 1, c + 4, c + 7 did: a stride-1 row, padding included, as the operator's indirection gives
 * it), its columns 0 and 1 are the last pixel's 1 and 2, already loaded and interleaved: one new
 * column per pixel, 3 loads and 8 unpacks instead of 9 and 24; moved by two columns (stride 2),
 * its column 0 is the last pixel's column 2. Any other window loads all three.
 * The test is on the pointers, so the result is the same bytes either way.
 */
Q8NN_X86_INLINE void q8nn_x86_dw9_column(const int8_t* const* in, size_t c, const int8_t* zero, size_t input_offset,
                                         size_t c0, __mmask64 kc, __m512i vsign, __m512i* out) {
  const __m512i x0 = _mm512_xor_si512(_mm512_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, c, zero, input_offset, c0)), vsign);
  const __m512i x1 = _mm512_xor_si512(_mm512_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, c + 3, zero, input_offset, c0)), vsign);
  const __m512i x2 = _mm512_xor_si512(_mm512_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, c + 6, zero, input_offset, c0)), vsign);
  q8nn_x86_dw_interleave4(x0, x1, x2, _mm512_setzero_si512(), out);
}

/*
 * Last tile with at most 32 channels (C = 32, 96 and 144 in MobileNetV2): the same arithmetic in ymm
 * registers (AVX-512 VL forms of VPDPBUSD, masked loads and stores) at half the cost of a zmm tile.
 * The in-lane interleave (q8nn_x86_dw_interleave4_y, x86-avx2.h, shared with the AVX-VNNI kernels)
 * leaves accumulator j lane L dword i = channel 16L + 4j + i as in zmm. The
 * epilogue pairs the four ymm accumulators into two zmm and runs the zmm requantization and pack
 * (x86-avx512.h), then one VPERMD puts the 32 bytes in channel order (see q8nn_x86_dw_tile32).
 */
Q8NN_X86_INLINE void q8nn_x86_dw9_column_y(const int8_t* const* in, size_t c, const int8_t* zero, size_t input_offset,
                                           size_t c0, __mmask32 kc, __m256i vsign, __m256i* out) {
  const __m256i x0 = _mm256_xor_si256(_mm256_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, c, zero, input_offset, c0)), vsign);
  const __m256i x1 = _mm256_xor_si256(_mm256_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, c + 3, zero, input_offset, c0)), vsign);
  const __m256i x2 = _mm256_xor_si256(_mm256_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, c + 6, zero, input_offset, c0)), vsign);
  q8nn_x86_dw_interleave4_y(x0, x1, x2, _mm256_setzero_si256(), out);
}

/* Requantizes n vectors in place with the kernel's rounding (fp32: vmult holds the scales);
   LSHIFT and DNEG: see q8nn_x86_requantize_rdouble_with; DNEG 3 and 4: the guarded epilogue
   (q8nn_x86_guard_pixel, rq's guard constants), which returns 1 where a lane was flagged (else 0). */
Q8NN_X86_INLINE int q8nn_x86_dw_requantize(const int rounding, const int LSHIFT, const int DNEG,
                                           const size_t n, __m512i* v, const __m512i* vmult,
                                           const struct q8nn_x86_rq16* rq, const struct q8nn_x86_out64* vout) {
  if (rounding != 2 && DNEG >= 3) return q8nn_x86_guard_pixel(DNEG, n, v, rq);
#pragma GCC unroll 4
  for (size_t j = 0; j < n; j++) {
    if (rounding == 2) {
      v[j] = q8nn_x86_requantize_fp32(v[j], _mm512_castsi512_ps(vmult[j]), vout->fhi);
    } else {
      v[j] = rounding == 1 ? q8nn_x86_requantize_rsingle(v[j], &rq[j])
                           : q8nn_x86_requantize_rdouble_with(v[j], &rq[j], LSHIFT, DNEG);
    }
  }
  return 0;
}

/* Requantizes, packs and stores one pixel of the 32-channel tile; returns the guard's flags. */
Q8NN_X86_INLINE int q8nn_x86_dw_finish32(const int rounding, const int LSHIFT, const int DNEG, const __m256i vacc[4],
                                          const __m512i vmult2[2], const struct q8nn_x86_rq16 rq[2],
                                          const struct q8nn_x86_out64* vout, __m512i vorder, int8_t* out, __mmask32 kc) {
  __m512i v2[2] = {_mm512_inserti64x4(_mm512_castsi256_si512(vacc[0]), vacc[1], 1),
                   _mm512_inserti64x4(_mm512_castsi256_si512(vacc[2]), vacc[3], 1)};
  const int kflag = q8nn_x86_dw_requantize(rounding, LSHIFT, DNEG, 2, v2, vmult2, rq, vout);
  const __m512i v = _mm512_permutexvar_epi32(vorder, q8nn_x86_pack64(v2[0], v2[1], v2[0], v2[1], vout, 0, q8nn_x86_pack_rounding(rounding, DNEG)));
  _mm256_mask_storeu_epi8(out, kc, _mm512_castsi512_si256(v));
  return kflag;
}

/* The pixel loop of the 32-channel tile; LSHIFT and DNEG: see q8nn_x86_requantize_rdouble_with.
   Not software pipelined: the 64-channel tile's order ran 112x112x32 8-9% slower here. */
Q8NN_X86_INLINE void q8nn_x86_dw_pixels32(
    const size_t TAPS, const int rounding, const int LSHIFT, const int DNEG, __mmask32 kc, size_t output_width,
    size_t taps, const int8_t** in, size_t input_stride, const int8_t* wt, const __m256i vw[][4],
    const __m256i vbias[4], const __m512i vmult2[2], const struct q8nn_x86_rq16 rq[2],
    const struct q8nn_x86_out64* vout_p, __m512i vorder, int8_t* out, size_t pixel_step, size_t input_offset,
    const int8_t* zero, size_t c0, struct q8nn_x86_dw_fix* fix) {
  const struct q8nn_x86_out64 vout = *vout_p;
  const __m256i vsign = _mm512_castsi512_si256(vout.isign8);
  const size_t groups = (taps + 3) / 4;
  __m256i vcol[3][4]; /* the window's interleaved columns (9 taps), kept for the next pixel */
#pragma GCC unroll 3
  for (size_t c = 0; c < 3; c++) vcol[c][0] = vcol[c][1] = vcol[c][2] = vcol[c][3] = _mm256_setzero_si256();
  for (size_t x = 0; x < output_width; x++) {
    __m256i vacc[4] = {vbias[0], vbias[1], vbias[2], vbias[3]};
    if (TAPS == 9) {
      if (x != 0 && q8nn_x86_dw9_slides_z(in - input_stride, in)) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vcol[0][j] = vcol[1][j], vcol[1][j] = vcol[2][j];
        q8nn_x86_dw9_column_y(in, 2, zero, input_offset, c0, kc, vsign, vcol[2]);
      } else if (x != 0 && q8nn_x86_dw9_slides2_z(in - input_stride, in)) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vcol[0][j] = vcol[2][j];
        q8nn_x86_dw9_column_y(in, 1, zero, input_offset, c0, kc, vsign, vcol[1]);
        q8nn_x86_dw9_column_y(in, 2, zero, input_offset, c0, kc, vsign, vcol[2]);
      } else {
#pragma GCC unroll 3
        for (size_t c = 0; c < 3; c++) q8nn_x86_dw9_column_y(in, c, zero, input_offset, c0, kc, vsign, vcol[c]);
      }
#pragma GCC unroll 3
      for (size_t c = 0; c < 3; c++) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vacc[j] = _mm256_dpbusd_epi32(vacc[j], vcol[c][j], vw[c][j]);
      }
    }
#pragma GCC unroll 8
    for (size_t g = 0; TAPS != 9 && g < groups; g++) {
      __m256i vx[4];
#pragma GCC unroll 4
      for (size_t i = 0; i < 4; i++) {
        const size_t t = 4 * g + i;
        if (t < taps) {
          vx[i] = _mm256_xor_si256(_mm256_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, t, zero, input_offset, c0)), vsign);
        } else {
          vx[i] = _mm256_setzero_si256();
        }
      }
      __m256i vxi[4], vwg[4];
      q8nn_x86_dw_interleave4_y(vx[0], vx[1], vx[2], vx[3], vxi);
      if (TAPS != 0 || g < Q8NN_X86_DW_MAX_GROUPS) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vwg[j] = vw[g < Q8NN_X86_DW_MAX_GROUPS ? g : 0][j];
      } else {
        q8nn_x86_dw_weights_y(wt, Q8NN_X86_DW_CT, g, taps, vwg);
      }
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) vacc[j] = _mm256_dpbusd_epi32(vacc[j], vxi[j], vwg[j]);
    }
    if (Q8NN_UNLIKELY(q8nn_x86_dw_finish32(rounding, LSHIFT, DNEG, vacc, vmult2, rq, &vout, vorder, out, kc) != 0)) {
      q8nn_x86_dw_note(fix, in, out, 1, input_stride, pixel_step);
    }
    out += pixel_step;
    in += input_stride;
  }
}

/*
 * Two pixels per zmm (9 taps, at most 32 channels): pixel x in the low 256 bits, pixel x + 1 in
 * the high 256, so one set of four zmm accumulators, twelve VPDPBUSD and one 64-output epilogue
 * serve two pixels, where the ymm tile spends twelve ymm VPDPBUSD and a 32-output epilogue on each.
 * Each 256-bit half keeps the ymm tile's order (accumulator j, lane L, dword i = channel
 * 16 L + 4 j + i), so q8nn_x86_pack64's pack order puts pixel x's channels 0-31 in bytes 0-31 and
 * pixel x + 1's in bytes 32-63, no permute. A kernel row's bytes for the two pixels are one 64-byte
 * load where pixel x + 1's row starts 32 bytes after pixel x's (a 32-channel image at stride 1,
 * 16 channels at stride 2), else two 32-byte loads joined. A pair slides from the last pair when
 * both of its pixels moved by two columns from the pixels two before them (q8nn_x86_dw9_slides2_z):
 * its column 0 is the last pair's column 2. Same-process A/B, rdouble: 0.90x the time on
 * 112x112x32, 0.95x on 112x112x96 at stride 2 (its 32-channel tail). TFLite roundings only: with
 * fp32's 4-instruction epilogue the pair's extra loads and pointer tests cost more than they save
 * (1.09-1.11x on 112x112x32), so fp32 keeps one pixel per ymm. Not software pipelined (no gain).
 */
Q8NN_X86_INLINE __m512i q8nn_x86_dw_rows_x2(const int8_t* p0, const int8_t* p1, __mmask32 kc) {
  if ((uintptr_t) p1 - (uintptr_t) p0 == 32) {
    return _mm512_maskz_loadu_epi8((__mmask64) kc | (__mmask64) kc << 32, p0);
  }
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_maskz_loadu_epi8(kc, p0)), _mm256_maskz_loadu_epi8(kc, p1), 1);
}

Q8NN_X86_INLINE void q8nn_x86_dw9_column_x2(const int8_t* const* in0, const int8_t* const* in1, size_t c,
                                            const int8_t* zero, size_t input_offset, size_t c0, __mmask32 kc,
                                            __m512i vsign, __m512i* out) {
  __m512i x[3];
#pragma GCC unroll 3
  for (size_t r = 0; r < 3; r++) {
    x[r] = _mm512_xor_si512(q8nn_x86_dw_rows_x2(q8nn_x86_dw_row(in0, c + 3 * r, zero, input_offset, c0),
                                                q8nn_x86_dw_row(in1, c + 3 * r, zero, input_offset, c0), kc),
                            vsign);
  }
  q8nn_x86_dw_interleave4(x[0], x[1], x[2], _mm512_setzero_si512(), out);
}

/* The pair loop: `pairs` pairs of pixels; LSHIFT and DNEG: see q8nn_x86_requantize_rdouble_with. */
Q8NN_X86_INLINE void q8nn_x86_dw_pairs32_loop(
    const int rounding, const int LSHIFT, const int DNEG, __mmask32 kc, size_t pairs, const int8_t** in,
    size_t input_stride, const __m512i vw[3][4], const __m512i vbias[4], const struct q8nn_x86_rq16 rq[4],
    const struct q8nn_x86_out64* vout_p, int8_t* out, size_t pixel_step,
    size_t input_offset, const int8_t* zero, size_t c0, struct q8nn_x86_dw_fix* fix) {
  const struct q8nn_x86_out64 vout = *vout_p;
  const __m512i vsign = vout.isign8;
  const __mmask64 kc2 = (__mmask64) kc | (__mmask64) kc << 32;
  __m512i vcol[3][4];
#pragma GCC unroll 3
  for (size_t c = 0; c < 3; c++) vcol[c][0] = vcol[c][1] = vcol[c][2] = vcol[c][3] = _mm512_setzero_si512();
  for (size_t p = 0; p < pairs; p++) {
    const int8_t** in1 = in + input_stride;
    if (p != 0 && q8nn_x86_dw9_slides2_z(in - 2 * input_stride, in) &&
        q8nn_x86_dw9_slides2_z(in1 - 2 * input_stride, in1)) {
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) vcol[0][j] = vcol[2][j];
      if (q8nn_x86_dw9_slides_z(in, in1)) {
        /* a stride-1 row: column 1 is (pixel x - 1's column 2 | pixel x's column 2), the high half of
           the last pair's column 2 and the low half of this pair's. Pixel x + 1 moved by one column
           from x gives the second; with pixel x + 1 moved by two from x - 1 (slides2 above), pixel
           x's column 1 is pixel x + 1's column 0, which is pixel x - 1's column 2. */
        __m512i vnew[4];
        q8nn_x86_dw9_column_x2(in, in1, 2, zero, input_offset, c0, kc, vsign, vnew);
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) {
          vcol[1][j] = _mm512_shuffle_i64x2(vcol[0][j], vnew[j], _MM_SHUFFLE(1, 0, 3, 2));
          vcol[2][j] = vnew[j];
        }
      } else {
        q8nn_x86_dw9_column_x2(in, in1, 1, zero, input_offset, c0, kc, vsign, vcol[1]);
        q8nn_x86_dw9_column_x2(in, in1, 2, zero, input_offset, c0, kc, vsign, vcol[2]);
      }
    } else {
#pragma GCC unroll 3
      for (size_t c = 0; c < 3; c++) q8nn_x86_dw9_column_x2(in, in1, c, zero, input_offset, c0, kc, vsign, vcol[c]);
    }
    __m512i vacc[4] = {vbias[0], vbias[1], vbias[2], vbias[3]};
#pragma GCC unroll 3
    for (size_t c = 0; c < 3; c++) {
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) vacc[j] = _mm512_dpbusd_epi32(vacc[j], vcol[c][j], vw[c][j]);
    }
    const int kflag = q8nn_x86_dw_requantize(rounding, LSHIFT, DNEG, 4, vacc, NULL, rq, &vout); /* TFLite roundings only */
    if (Q8NN_UNLIKELY(kflag != 0)) q8nn_x86_dw_note(fix, in, out, 2, input_stride, pixel_step);
    const __m512i v = q8nn_x86_pack64(vacc[0], vacc[1], vacc[2], vacc[3], &vout, 0, q8nn_x86_pack_rounding(rounding, DNEG));
    if (pixel_step == 32) {
      _mm512_mask_storeu_epi8(out, kc2, v);
    } else {
      _mm256_mask_storeu_epi8(out, kc, _mm512_castsi512_si256(v));
      _mm256_mask_storeu_epi8(out + pixel_step, kc, _mm512_extracti64x4_epi64(v, 1));
    }
    out += 2 * pixel_step;
    in += 2 * input_stride;
  }
}

/* The 32-channel tile's header and column weights (9 taps, ymm order) repeated in both 256-bit
   halves of a zmm (pairs), or its first 16 channels in all four 128-bit lanes (quads); the
   requantization constants of the four vectors, and the block's flags (q8nn_x86_dwconv). */
struct q8nn_x86_dw9_repeated {
  __m512i vbias[4], vw[3][4];
  struct q8nn_x86_rq16 rq[4];
  int lshift, dneg, m2;
  int guard; /* params->guard for TFLite roundings: the rq hold the guard constants */
};

/* RUN(LSHIFT, DNEG) for the requantization variant the flags of t (a q8nn_x86_dw9_repeated) call
   for; see q8nn_x86_requantize_rdouble_with and q8nn_x86_dw_requantize (the guard). */
#define Q8NN_DW_BY_FLAGS(RUN, t)              \
  if ((t).guard == 2) {                       \
    RUN(0, 4);                                \
  } else if ((t).guard == 1) {                \
    RUN(0, 3);                                \
  } else if (rounding == 0 && (t).m2) {       \
    RUN(0, 2);                                \
  } else if (rounding == 0 && (t).lshift) {   \
    RUN(1, 1);                                \
  } else if (rounding == 0 && (t).dneg) {     \
    RUN(0, 1);                                \
  } else {                                    \
    RUN(0, 0);                                \
  }

Q8NN_X86_INLINE __m512i q8nn_x86_dw_repeat(__m256i v, const int quads) {
  return quads ? _mm512_broadcast_i32x4(_mm256_castsi256_si128(v)) : _mm512_broadcast_i64x4(v);
}

Q8NN_X86_INLINE void q8nn_x86_dw9_repeat(const int rounding, const uint8_t* wb, const int quads,
                                         const struct q8nn_qs8_conv_params* params, struct q8nn_x86_dw9_repeated* t) {
  const int8_t* wt = (const int8_t*) wb + Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DW_CT);
  __m256i vy[4];
  __m512i vmult[4], vshift[4];
  __m512i* const dst[3] = {t->vbias, vmult, vshift};
#pragma GCC unroll 3
  for (size_t h = 0; h < 3; h++) {
    q8nn_x86_dw_header_y(wb + 256 * h, vy);
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) dst[h][j] = q8nn_x86_dw_repeat(vy[j], quads);
  }
#pragma GCC unroll 3
  for (size_t c = 0; c < 3; c++) {
    /* column c: taps c, c + 3, c + 6 (q8nn_x86_dw9_slides_z) */
    q8nn_x86_dw_interleave4_y(_mm256_loadu_si256((const __m256i*) (wt + c * Q8NN_X86_DW_CT)),
                              _mm256_loadu_si256((const __m256i*) (wt + (c + 3) * Q8NN_X86_DW_CT)),
                              _mm256_loadu_si256((const __m256i*) (wt + (c + 6) * Q8NN_X86_DW_CT)),
                              _mm256_setzero_si256(), vy);
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) t->vw[c][j] = q8nn_x86_dw_repeat(vy[j], quads);
  }
  t->lshift = 0, t->dneg = 0, t->m2 = 1;
  t->guard = rounding != 2 ? params->guard : 0;
#pragma GCC unroll 4
  for (size_t j = 0; j < 4; j++) {
    t->rq[j] = q8nn_x86_rq16_tile(rounding, t->guard, vmult[j], vshift[j], _mm512_set1_ps(params->guard_c0));
    t->lshift |= t->rq[j].lshift_any, t->dneg |= t->rq[j].d_any, t->m2 &= t->rq[j].m2_all;
  }
}

/* Setup of the pair loop: the 32-channel tile's header and column weights (ymm order) repeated in
   both halves of a zmm, and the flags of its requantization, tested once as in q8nn_x86_dwconv. */
Q8NN_X86_INLINE void q8nn_x86_dw_pairs32(const int rounding, size_t crem, size_t pairs, const int8_t** in,
                                         size_t input_stride, const uint8_t* wb, int8_t* out, size_t pixel_step,
                                         size_t input_offset, const int8_t* zero, size_t c0,
                                         const struct q8nn_qs8_conv_params* params, struct q8nn_x86_dw_fix* fix) {
  const __mmask32 kc = (__mmask32) q8nn_x86_mask64(crem);
  struct q8nn_x86_dw9_repeated t;
  q8nn_x86_dw9_repeat(rounding, wb, 0, params, &t);
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
#define Q8NN_DW_PAIRS(LSHIFT, DNEG)                                                                         \
  q8nn_x86_dw_pairs32_loop(rounding, LSHIFT, DNEG, kc, pairs, in, input_stride, t.vw, t.vbias, t.rq, &vout, \
                           out, pixel_step, input_offset, zero, c0, fix)
  Q8NN_DW_BY_FLAGS(Q8NN_DW_PAIRS, t)
#undef Q8NN_DW_PAIRS
}

/*
 * Four pixels per zmm (9 taps, at most 16 channels: C = 16, and the 16-channel tail of C = 144 in
 * MobileNetV2): 128-bit lane L holds pixel x + L, so accumulator j lane L dword i is channel 4 j + i
 * of that pixel, and q8nn_x86_pack64's pack order leaves byte 16 L + k = channel k of pixel x + L.
 * As pairs (q8nn_x86_dw_pairs32) half of every lane was empty: the same twelve VPDPBUSD and
 * 64-output epilogue now serve four pixels instead of two. A kernel row of the four pixels is one
 * 64-byte load where their windows are one window moved by 16 bytes (16 channels at stride 1), two
 * where moved by 32 (stride 2), else four 16-byte loads joined (q8nn_x86_dw_linear below; the
 * quads and the octets share one loop, q8nn_x86_dw_px_loop). A quad moves its window by four or
 * eight columns, so nothing slides from the last quad. TFLite roundings only, as the pairs.
 */
/*
 * Where the PX pixels' windows are one window moved by s bytes each (PX = 4: s = 16 or 32; PX = 8:
 * s = 8 or 16: 16 or 8 channels at stride 1 or 2): every tap pointer of pixel k is pixel 0's plus
 * s k, and none of pixel 0's or pixel PX - 1's is the zero row, so all of them point into one input
 * row, between pixel 0's and pixel PX - 1's. Returns 1 for s = 64 / PX, 2 for s = 128 / PX, else 0.
 * A kernel row of the PX pixels is then one 64-byte load, or two with the even 64 / PX-byte blocks
 * kept (VPERMT2Q), and its address is computed once instead of PX times.
 */
Q8NN_X86_INLINE int q8nn_x86_dw_linear(const size_t PX, const int8_t* const* in, size_t input_stride,
                                       const int8_t* zero) {
  const size_t b = 64 / PX, last = PX - 1;
  const uintptr_t d = (uintptr_t) in[last * input_stride + 4] - (uintptr_t) in[4];
  const size_t step = d == last * b ? b : d == 2 * last * b ? 2 * b : 0;
  if (step == 0) return 0;
  const __m512i p0 = _mm512_loadu_si512(in);
  const __m512i vzero = _mm512_set1_epi64((long long) (uintptr_t) zero);
  __mmask8 bad = _mm512_cmpeq_epi64_mask(p0, vzero) |
                 _mm512_cmpeq_epi64_mask(_mm512_loadu_si512(in + last * input_stride), vzero);
#pragma GCC unroll 7
  for (size_t k = 1; k < PX; k++) {
    const __m512i expect = _mm512_add_epi64(p0, _mm512_set1_epi64((long long) (step * k)));
    bad |= _mm512_mask_cmpneq_epi64_mask(0xFF, _mm512_loadu_si512(in + k * input_stride), expect);
  }
  if (bad != 0 || in[8] == zero || in[last * input_stride + 8] == zero) return 0;
#pragma GCC unroll 7
  for (size_t k = 1; k < PX; k++) {
    if (in[k * input_stride + 8] != in[8] + step * k) return 0;
  }
  return step == b ? 1 : 2;
}

/* Tap t's row of the PX pixels, one 64 / PX-byte block each (kc: the channels of a block).
   linear: q8nn_x86_dw_linear. */
Q8NN_X86_INLINE __m512i q8nn_x86_dw_rows_px(const size_t PX, const int8_t* const* in, size_t input_stride, size_t t,
                                           int linear, const int8_t* zero, size_t input_offset, size_t c0,
                                           __mmask16 kc) {
  if (linear == 1) return _mm512_loadu_si512(q8nn_x86_dw_row(in, t, zero, input_offset, c0));
  if (linear == 2) {
    /* blocks 0, 2, .., 2 PX - 2 of 2 PX: the even ones of 128 - 64 / PX bytes (nothing read past
       the last pixel's block) */
    const int8_t* p = q8nn_x86_dw_row(in, t, zero, input_offset, c0);
    const __m512i lo = _mm512_loadu_si512(p);
    const __m512i hi = _mm512_maskz_loadu_epi8(PX == 8 ? UINT64_C(0x00FFFFFFFFFFFFFF) : UINT64_C(0x0000FFFFFFFFFFFF),
                                               p + 64);
    const __m512i vidx = PX == 8 ? _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0) : _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0);
    return _mm512_permutex2var_epi64(lo, vidx, hi);
  }
  __m128i v[4];
#pragma GCC unroll 4
  for (size_t l = 0; l < 4; l++) {
    if (PX == 8) {
      const __m128i lo = _mm_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in + 2 * l * input_stride, t, zero, input_offset, c0));
      const __m128i hi =
          _mm_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in + (2 * l + 1) * input_stride, t, zero, input_offset, c0));
      v[l] = _mm_unpacklo_epi64(lo, hi);
    } else {
      v[l] = _mm_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in + l * input_stride, t, zero, input_offset, c0));
    }
  }
  const __m512i x = _mm512_inserti32x4(_mm512_castsi128_si512(v[0]), v[1], 1);
  return _mm512_inserti32x4(_mm512_inserti32x4(x, v[2], 2), v[3], 3);
}

/* The loop of quads (PX 4) or octets (PX 8): `groups` groups of PX pixels; LSHIFT and DNEG: see
   q8nn_x86_requantize_rdouble_with. kc: the crem channels of a pixel's block (low bits); the
   linear rows (q8nn_x86_dw_linear) need whole blocks, crem = 64 / PX. */
Q8NN_X86_INLINE void q8nn_x86_dw_px_loop(
    const size_t PX, const int rounding, const int LSHIFT, const int DNEG, __mmask16 kc, size_t crem, size_t groups,
    const int8_t** in, size_t input_stride, const __m512i vw[3][4], const __m512i vbias[4],
    const struct q8nn_x86_rq16 rq[4], const struct q8nn_x86_out64* vout_p, int8_t* out, size_t pixel_step,
    size_t input_offset, const int8_t* zero, size_t c0, struct q8nn_x86_dw_fix* fix) {
  const struct q8nn_x86_out64 vout = *vout_p;
  const __m512i vsign = vout.isign8;
  const size_t b = 64 / PX;
  for (size_t g = 0; g < groups; g++) {
    const int linear = crem == b ? q8nn_x86_dw_linear(PX, in, input_stride, zero) : 0;
    __m512i vacc[4] = {vbias[0], vbias[1], vbias[2], vbias[3]};
#pragma GCC unroll 3
    for (size_t c = 0; c < 3; c++) {
      __m512i x[3];
#pragma GCC unroll 3
      for (size_t r = 0; r < 3; r++) {
        x[r] = _mm512_xor_si512(
            q8nn_x86_dw_rows_px(PX, in, input_stride, c + 3 * r, linear, zero, input_offset, c0, kc), vsign);
      }
      __m512i vcol[4];
      q8nn_x86_dw_interleave4(x[0], x[1], x[2], _mm512_setzero_si512(), vcol);
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) vacc[j] = _mm512_dpbusd_epi32(vacc[j], vcol[j], vw[c][j]);
    }
    const int kflag = q8nn_x86_dw_requantize(rounding, LSHIFT, DNEG, 4, vacc, NULL, rq, &vout); /* TFLite roundings only */
    if (Q8NN_UNLIKELY(kflag != 0)) q8nn_x86_dw_note(fix, in, out, PX, input_stride, pixel_step);
    const __m512i v = q8nn_x86_pack64(vacc[0], vacc[1], vacc[2], vacc[3], &vout, 0, q8nn_x86_pack_rounding(rounding, DNEG));
    if (crem == b && pixel_step == b) {
      _mm512_storeu_si512(out, v);
    } else {
      /* the lane index an immediate (clang checks it before unrolling) */
      const __m128i h[4] = {_mm512_castsi512_si128(v), _mm512_extracti32x4_epi32(v, 1),
                            _mm512_extracti32x4_epi32(v, 2), _mm512_extracti32x4_epi32(v, 3)};
#pragma GCC unroll 4
      for (size_t l = 0; l < 4; l++) {
        if (PX == 8) {
          _mm_mask_storeu_epi8(out + 2 * l * pixel_step, kc, h[l]);
          _mm_mask_storeu_epi8(out + (2 * l + 1) * pixel_step, kc, _mm_unpackhi_epi64(h[l], h[l]));
        } else {
          _mm_mask_storeu_epi8(out + l * pixel_step, kc, h[l]);
        }
      }
    }
    out += PX * pixel_step;
    in += PX * input_stride;
  }
}

/*
 * Eight pixels per zmm (9 taps, at most 8 channels: the 8-channel depthwise layers of MobileNetV1
 * 0.25 (vww_96, person_detect) and 1-channel layers with a depth multiplier of 8): 128-bit lane L
 * holds pixels 2L and 2L + 1, 8 bytes each. The in-lane interleave (q8nn_x86_dw_interleave4) then
 * leaves accumulator j lane L dword i = channel 4 (j & 1) + i of pixel 2L + (j >> 1), so the
 * weights and requantization constants are channels 0-3 or 4-7 repeated in all four lanes, and
 * q8nn_x86_pack64's pack order leaves byte 16 L + 8 h + k = channel k of pixel 2L + h: the 64
 * outputs in pixel order. As quads (at most 16 channels) half of each lane was padding for 8
 * channels, and each row of four pixels took four loads and three inserts. Rows of eight pixels
 * whose windows are one window moved by 8 or 16 bytes (8 channels at stride 1 or 2) load as
 * q8nn_x86_dw_linear says; otherwise eight 8-byte loads. TFLite roundings only, as the pairs.
 * person_detect's and vww_96's 48x48x8 depthwise layer (q8nn-run --profile): 0.0165 -> 0.0089 ms;
 * the models 0.079-0.083 -> 0.076 ms.
 *
 * This function sets up the quad (PX 4) and octet (PX 8) loops: the tile's first 16 channels'
 * header and column weights (the ymm tile's lane 0: accumulator j takes channels 4 j..4 j + 3)
 * repeated in the four lanes; for octets vectors 2 and 3 are 0 and 1 again (channels 4 (j & 1)..),
 * and the flags come from those two only. Tested once per call. Not inlined (its entries below):
 * inlined, the quads' code moved the 64-channel tile's loops and ran 28x28x192 1.03-1.05x slower
 * (same-process A/B, that tile's code unchanged); called, 1.00-1.02x.
 */
Q8NN_X86_INLINE void q8nn_x86_dw_px(const size_t PX, const int rounding, size_t crem, size_t groups,
                                    const int8_t** in, size_t input_stride, const uint8_t* wb, int8_t* out,
                                    size_t pixel_step, size_t input_offset, const int8_t* zero, size_t c0,
                                    const struct q8nn_qs8_conv_params* params, struct q8nn_x86_dw_fix* fix) {
  const __mmask16 kc = (__mmask16) q8nn_x86_mask64(crem);
  struct q8nn_x86_dw9_repeated t;
  q8nn_x86_dw9_repeat(rounding, wb, 1, params, &t);
  if (PX == 8) {
#pragma GCC unroll 2
    for (size_t j = 2; j < 4; j++) {
      t.vbias[j] = t.vbias[j - 2], t.rq[j] = t.rq[j - 2];
#pragma GCC unroll 3
      for (size_t c = 0; c < 3; c++) t.vw[c][j] = t.vw[c][j - 2];
    }
    t.lshift = t.rq[0].lshift_any | t.rq[1].lshift_any;
    t.dneg = t.rq[0].d_any | t.rq[1].d_any;
    t.m2 = t.rq[0].m2_all & t.rq[1].m2_all;
  }
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
#define Q8NN_DW_PX(LSHIFT, DNEG)                                                                              \
  q8nn_x86_dw_px_loop(PX, rounding, LSHIFT, DNEG, kc, crem, groups, in, input_stride, t.vw, t.vbias, t.rq, &vout, \
                      out, pixel_step, input_offset, zero, c0, fix)
  Q8NN_DW_BY_FLAGS(Q8NN_DW_PX, t)
#undef Q8NN_DW_PX
}

/* The quads' and the octets' entries, PX a constant in each. */
#define Q8NN_DW_PX_ENTRY(name, PX)                                                                              \
  static __attribute__((noinline)) void name(const int rounding, size_t crem, size_t groups, const int8_t** in,  \
                                             size_t input_stride, const uint8_t* wb, int8_t* out,               \
                                             size_t pixel_step, size_t input_offset, const int8_t* zero,        \
                                             size_t c0, const struct q8nn_qs8_conv_params* params,              \
                                             struct q8nn_x86_dw_fix* fix) {                                     \
    q8nn_x86_dw_px(PX, rounding, crem, groups, in, input_stride, wb, out, pixel_step, input_offset, zero, c0, \
                   params, fix);                                                                               \
  }
Q8NN_DW_PX_ENTRY(q8nn_x86_dw_quads16, 4)
Q8NN_DW_PX_ENTRY(q8nn_x86_dw_octets8, 8)
#undef Q8NN_DW_PX_ENTRY

Q8NN_X86_INLINE void q8nn_x86_dw_tile32(
    const size_t TAPS, const int rounding, size_t crem, size_t output_width, size_t taps, const int8_t** in, size_t input_stride, const uint8_t* wb, int8_t* out, size_t pixel_step,
    size_t input_offset, const int8_t* zero, size_t c0, const struct q8nn_qs8_conv_params* params,
    struct q8nn_x86_dw_fix* fix) {
  /* TFLite roundings, 9 taps: groups of PX pixels per zmm first (octets for at most 8 channels,
     quads for at most 16, pairs), the rest one pixel per ymm below */
#define Q8NN_DW_PEEL(PX, fn)                                                                            \
  if (output_width >= PX) {                                                                            \
    const size_t groups = output_width / PX;                                                           \
    fn(rounding, crem, groups, in, input_stride, wb, out, pixel_step, input_offset, zero, c0, params, fix); \
    if (output_width % PX == 0) return;                                                                \
    in += PX * groups * input_stride;                                                                  \
    out += PX * groups * pixel_step;                                                                   \
    output_width %= PX;                                                                                \
  }
  if (TAPS == 9 && rounding != 2) {
    if (crem <= 8) Q8NN_DW_PEEL(8, q8nn_x86_dw_octets8)
    if (crem <= 16) Q8NN_DW_PEEL(4, q8nn_x86_dw_quads16)
    Q8NN_DW_PEEL(2, q8nn_x86_dw_pairs32)
  }
#undef Q8NN_DW_PEEL
  const size_t groups = (taps + 3) / 4;
  const __mmask32 kc = (__mmask32) q8nn_x86_mask64(crem);
  const int8_t* wt = (const int8_t*) wb + Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DW_CT);
  __m256i vbias[4], vmult[4], vshift[4];
  q8nn_x86_dw_header_y(wb, vbias);
  q8nn_x86_dw_header_y(wb + 256, vmult);
  q8nn_x86_dw_header_y(wb + 512, vshift);
  /* The epilogue runs in zmm, the ymm accumulators paired (0 | 1) and (2 | 3): AVX-512's
     requantization costs about half of AVX2's per output (x86-avx512.h: no blends, 64-bit
     arithmetic shifts). Multipliers and shifts are paired the same way. */
  const __m512i vmult2[2] = {_mm512_inserti64x4(_mm512_castsi256_si512(vmult[0]), vmult[1], 1),
                             _mm512_inserti64x4(_mm512_castsi256_si512(vmult[2]), vmult[3], 1)};
  const __m512i vshift2[2] = {_mm512_inserti64x4(_mm512_castsi256_si512(vshift[0]), vshift[1], 1),
                              _mm512_inserti64x4(_mm512_castsi256_si512(vshift[2]), vshift[3], 1)};
  struct q8nn_x86_rq16 rq[2];
  const int guard = rounding != 2 ? params->guard : 0;
  if (rounding != 2) {
#pragma GCC unroll 2
    for (size_t h = 0; h < 2; h++) {
      rq[h] = q8nn_x86_rq16_tile(rounding, guard, vmult2[h], vshift2[h], _mm512_set1_ps(params->guard_c0));
    }
  }
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
  /* pack64(A, B, A, B) leaves dword 4L + j = (vector j, lane L); A's lanes hold channels 0-3,
     16-19, 4-7, 20-23 and B's 8-11, 24-27, 12-15, 28-31, so channel order is this: */
  const __m512i vorder = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 13, 5, 12, 4, 9, 1, 8, 0);
  __m256i vw[Q8NN_X86_DW_MAX_GROUPS][4];
  const size_t kept = TAPS == 9 ? 3 : groups < Q8NN_X86_DW_MAX_GROUPS ? groups : Q8NN_X86_DW_MAX_GROUPS;
  for (size_t g = 0; g < kept; g++) {
    __m256i x[4];
#pragma GCC unroll 4
    for (size_t i = 0; i < 4; i++) {
      /* 9 taps: column g is taps g, g + 3, g + 6 (q8nn_x86_dw9_slides_z) */
      const size_t t = TAPS == 9 ? g + 3 * i : 4 * g + i;
      x[i] = (TAPS == 9 ? i < 3 : t < taps) ? _mm256_loadu_si256((const __m256i*) (wt + t * Q8NN_X86_DW_CT))
                                           : _mm256_setzero_si256();
    }
    q8nn_x86_dw_interleave4_y(x[0], x[1], x[2], x[3], vw[g]);
  }
  /* rdouble: the left shift and the sign correction, tested once for the tile (see
     q8nn_x86_requantize_rdouble_with); the pixel loop is compiled for each case. The int32 form
     for tiles where every lane has e >= 1 (dneg 2) measured no faster here (bench_ukernels
     112x112x32, 0.99x), nor on the gemm epilogue (1.00x): only the 64-channel tile uses it. */
  const int lshift = rounding == 0 && (rq[0].lshift_any | rq[1].lshift_any);
  const int dneg = rounding == 0 && (rq[0].d_any | rq[1].d_any);
  if (guard == 2) {
    q8nn_x86_dw_pixels32(TAPS, rounding, 0, 4, kc, output_width, taps, in, input_stride, wt, vw, vbias, vmult2, rq,
                         &vout, vorder, out, pixel_step, input_offset, zero, c0, fix);
  } else if (guard == 1) {
    q8nn_x86_dw_pixels32(TAPS, rounding, 0, 3, kc, output_width, taps, in, input_stride, wt, vw, vbias, vmult2, rq,
                         &vout, vorder, out, pixel_step, input_offset, zero, c0, fix);
  } else if (lshift) {
    q8nn_x86_dw_pixels32(TAPS, rounding, 1, 1, kc, output_width, taps, in, input_stride, wt, vw, vbias, vmult2, rq,
                         &vout, vorder, out, pixel_step, input_offset, zero, c0, fix);
  } else if (dneg) {
    q8nn_x86_dw_pixels32(TAPS, rounding, 0, 1, kc, output_width, taps, in, input_stride, wt, vw, vbias, vmult2, rq,
                         &vout, vorder, out, pixel_step, input_offset, zero, c0, fix);
  } else {
    q8nn_x86_dw_pixels32(TAPS, rounding, 0, 0, kc, output_width, taps, in, input_stride, wt, vw, vbias, vmult2, rq,
                         &vout, vorder, out, pixel_step, input_offset, zero, c0, fix);
  }
}

/* Requantizes, packs and stores one pixel of a 64-channel tile; returns the guard's flags. */
Q8NN_X86_INLINE int q8nn_x86_dw_finish64(const int rounding, const int LSHIFT, const int DNEG, const __m512i vacc_in[4],
                                          const __m512i vmult[4], const struct q8nn_x86_rq16 rq[4],
                                          const struct q8nn_x86_out64* vout, int8_t* out, __mmask64 kc) {
  __m512i vacc[4] = {vacc_in[0], vacc_in[1], vacc_in[2], vacc_in[3]};
  const int kflag = q8nn_x86_dw_requantize(rounding, LSHIFT, DNEG, 4, vacc, vmult, rq, vout);
  _mm512_mask_storeu_epi8(out, kc, q8nn_x86_pack64(vacc[0], vacc[1], vacc[2], vacc[3], vout, 0, q8nn_x86_pack_rounding(rounding, DNEG)));
  return kflag;
}

/* The pixel loop of one 64-channel tile; LSHIFT and DNEG: see q8nn_x86_requantize_rdouble_with.
   TFLite roundings: software pipelined, pixel x's dot products and then pixel x - 1's epilogue in
   each iteration (see the top of this file). fp32's epilogue is 4 instructions per 16 outputs and
   gained nothing from it (1.00-1.03x the time), so it keeps one pixel per iteration. */
Q8NN_X86_INLINE void q8nn_x86_dw_pixels64(
    const size_t TAPS, const int rounding, const int LSHIFT, const int DNEG, size_t output_width, size_t taps,
    const int8_t** input, size_t input_stride, const int8_t* wt, const __m512i vw[][4], const __m512i vbias[4],
    const __m512i vmult[4], const struct q8nn_x86_rq16 rq[4], int8_t* out, size_t pixel_step, size_t input_offset,
    const int8_t* zero, size_t c0, __mmask64 kc, const struct q8nn_x86_out64* vout_p, struct q8nn_x86_dw_fix* fix) {
  const struct q8nn_x86_out64 vout = *vout_p;
  const int8_t** in = input;
  const __m512i vsign = vout.isign8;
  const size_t groups = (taps + 3) / 4;
  __m512i vcol[3][4]; /* the window's interleaved columns (9 taps), kept for the next pixel */
#pragma GCC unroll 3
  for (size_t c = 0; c < 3; c++) vcol[c][0] = vcol[c][1] = vcol[c][2] = vcol[c][3] = _mm512_setzero_si512();
  __m512i vprev[4]; /* the last pixel's accumulators, requantized in this iteration */
  for (size_t x = 0; x < output_width; x++) {
    __m512i vacc[4] = {vbias[0], vbias[1], vbias[2], vbias[3]};
    if (TAPS == 9) {
      if (x != 0 && q8nn_x86_dw9_slides_z(in - input_stride, in)) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vcol[0][j] = vcol[1][j], vcol[1][j] = vcol[2][j];
        q8nn_x86_dw9_column(in, 2, zero, input_offset, c0, kc, vsign, vcol[2]);
      } else if (x != 0 && q8nn_x86_dw9_slides2_z(in - input_stride, in)) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vcol[0][j] = vcol[2][j];
        q8nn_x86_dw9_column(in, 1, zero, input_offset, c0, kc, vsign, vcol[1]);
        q8nn_x86_dw9_column(in, 2, zero, input_offset, c0, kc, vsign, vcol[2]);
      } else {
#pragma GCC unroll 3
        for (size_t c = 0; c < 3; c++) q8nn_x86_dw9_column(in, c, zero, input_offset, c0, kc, vsign, vcol[c]);
      }
#pragma GCC unroll 3
      for (size_t c = 0; c < 3; c++) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vacc[j] = _mm512_dpbusd_epi32(vacc[j], vcol[c][j], vw[c][j]);
      }
    }
#pragma GCC unroll 8
    for (size_t g = 0; TAPS != 9 && g < groups; g++) {
      __m512i vx[4];
#pragma GCC unroll 4
      for (size_t i = 0; i < 4; i++) {
        const size_t t = 4 * g + i;
        if (t < taps) {
          vx[i] = _mm512_xor_si512(_mm512_maskz_loadu_epi8(kc, q8nn_x86_dw_row(in, t, zero, input_offset, c0)), vsign);
        } else {
          vx[i] = _mm512_setzero_si512();
        }
      }
      __m512i vxi[4];
      q8nn_x86_dw_interleave4(vx[0], vx[1], vx[2], vx[3], vxi);
      __m512i vwg[4];
      const __m512i* pw = vw[g < Q8NN_X86_DW_MAX_GROUPS ? g : 0];
      if (TAPS != 0 || g < Q8NN_X86_DW_MAX_GROUPS) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vwg[j] = pw[j];
      } else {
        q8nn_x86_dw_weights(wt, 4 * g, taps, vwg);
      }
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) vacc[j] = _mm512_dpbusd_epi32(vacc[j], vxi[j], vwg[j]);
    }
    if (rounding == 2 || DNEG >= 3) {
      if (Q8NN_UNLIKELY(q8nn_x86_dw_finish64(rounding, LSHIFT, DNEG, vacc, vmult, rq, &vout, out, kc) != 0)) {
        q8nn_x86_dw_note(fix, in, out, 1, input_stride, pixel_step);
      }
    } else {
      if (x != 0) q8nn_x86_dw_finish64(rounding, LSHIFT, DNEG, vprev, vmult, rq, &vout, out - pixel_step, kc);
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) vprev[j] = vacc[j];
    }
    out += pixel_step;
    in += input_stride;
  }
  if (rounding != 2 && DNEG < 3 && output_width != 0) {
    q8nn_x86_dw_finish64(rounding, LSHIFT, DNEG, vprev, vmult, rq, &vout, out - pixel_step, kc);
  }
}

Q8NN_X86_INLINE void q8nn_x86_dwconv(
    const size_t TAPS, const int rounding, q8nn_qs8_dwconv_ukernel_fn self,
    size_t channels, size_t output_width, size_t taps, const int8_t** input, size_t input_stride,
    const void* weights, int8_t* output, size_t output_increment, size_t input_offset,
    const int8_t* zero, const struct q8nn_qs8_conv_params* params) {
  if (TAPS != 0) taps = TAPS;
  const size_t groups = (taps + 3) / 4;
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
  const size_t pixel_step = channels + output_increment;
  const uint8_t* wb = (const uint8_t*) weights;
  for (size_t c0 = 0; c0 < channels; c0 += Q8NN_X86_DW_CT) {
    const size_t crem = channels - c0;
    struct q8nn_x86_dw_fix fix;
    fix.count = 0;
    if (crem <= 32) {
      q8nn_x86_dw_tile32(TAPS, rounding, crem, output_width, taps, input, input_stride, wb, output + c0, pixel_step,
                         input_offset, zero, c0, params, &fix);
      if (Q8NN_UNLIKELY(fix.count != 0)) {
        q8nn_x86_dw_redo(self, &fix, crem, output_width, taps, input, input_stride, wb, output + c0, pixel_step,
                         input_offset, c0, zero, params);
      }
      break;
    }
    const __mmask64 kc = q8nn_x86_mask64(crem);
    const int8_t* wt = (const int8_t*) wb + Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DW_CT);
    __m512i vnat[4], vbias[4], vmult[4], vshift[4];
#pragma GCC unroll 4
    for (size_t q = 0; q < 4; q++) vnat[q] = _mm512_loadu_si512(wb + 64 * q);
    q8nn_x86_dw_transpose128(vnat, vbias);
#pragma GCC unroll 4
    for (size_t q = 0; q < 4; q++) vnat[q] = _mm512_loadu_si512(wb + 256 + 64 * q);
    q8nn_x86_dw_transpose128(vnat, vmult);
#pragma GCC unroll 4
    for (size_t q = 0; q < 4; q++) vnat[q] = _mm512_loadu_si512(wb + 512 + 64 * q);
    q8nn_x86_dw_transpose128(vnat, vshift);
    struct q8nn_x86_rq16 rq[4];
    const int guard = rounding != 2 ? params->guard : 0;
    if (rounding != 2) {
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) {
        rq[j] = q8nn_x86_rq16_tile(rounding, guard, vmult[j], vshift[j], vout.gc0);
      }
    }
    __m512i vw[Q8NN_X86_DW_MAX_GROUPS][4];
    const size_t kept = TAPS == 9 ? 3 : groups < Q8NN_X86_DW_MAX_GROUPS ? groups : Q8NN_X86_DW_MAX_GROUPS;
#pragma GCC unroll 8
    for (size_t g = 0; g < kept; g++) {
      if (TAPS == 9) {
        /* column g: taps g, g + 3, g + 6 (q8nn_x86_dw9_slides_z) */
        q8nn_x86_dw_interleave4(_mm512_loadu_si512(wt + g * Q8NN_X86_DW_CT), _mm512_loadu_si512(wt + (g + 3) * Q8NN_X86_DW_CT),
                                _mm512_loadu_si512(wt + (g + 6) * Q8NN_X86_DW_CT), _mm512_setzero_si512(), vw[g]);
      } else {
        q8nn_x86_dw_weights(wt, 4 * g, taps, vw[g]);
      }
    }

    /* rdouble: the left shift and the sign correction (and whether every lane has e >= 1 and a
       TFLite multiplier, m2_all) are tested once for the block (see q8nn_x86_requantize_rdouble_with); the pixel loop is compiled
       for each case. */
    int lshift = 0, dneg = 0, m2 = 1;
    if (rounding == 0) {
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) lshift |= rq[j].lshift_any, dneg |= rq[j].d_any, m2 &= rq[j].m2_all;
    }
    if (guard == 2) {
      q8nn_x86_dw_pixels64(TAPS, rounding, 0, 4, output_width, taps, input, input_stride, wt, vw, vbias, vmult, rq,
                           output + c0, pixel_step, input_offset, zero, c0, kc, &vout, &fix);
    } else if (guard == 1) {
      q8nn_x86_dw_pixels64(TAPS, rounding, 0, 3, output_width, taps, input, input_stride, wt, vw, vbias, vmult, rq,
                           output + c0, pixel_step, input_offset, zero, c0, kc, &vout, &fix);
    } else if (rounding == 0 && m2) {
      q8nn_x86_dw_pixels64(TAPS, rounding, 0, 2, output_width, taps, input, input_stride, wt, vw, vbias, vmult, rq,
                           output + c0, pixel_step, input_offset, zero, c0, kc, &vout, &fix);
    } else if (lshift) {
      q8nn_x86_dw_pixels64(TAPS, rounding, 1, 1, output_width, taps, input, input_stride, wt, vw, vbias, vmult, rq,
                           output + c0, pixel_step, input_offset, zero, c0, kc, &vout, &fix);
    } else if (dneg) {
      q8nn_x86_dw_pixels64(TAPS, rounding, 0, 1, output_width, taps, input, input_stride, wt, vw, vbias, vmult, rq,
                           output + c0, pixel_step, input_offset, zero, c0, kc, &vout, &fix);
    } else {
      q8nn_x86_dw_pixels64(TAPS, rounding, 0, 0, output_width, taps, input, input_stride, wt, vw, vbias, vmult, rq,
                           output + c0, pixel_step, input_offset, zero, c0, kc, &vout, &fix);
    }
    if (Q8NN_UNLIKELY(fix.count != 0)) {
      q8nn_x86_dw_redo(self, &fix, crem < Q8NN_X86_DW_CT ? crem : Q8NN_X86_DW_CT, output_width, taps, input,
                       input_stride, wb, output + c0, pixel_step, input_offset, c0, zero, params);
    }
    wb += Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DW_CT) + taps * Q8NN_X86_DW_CT;
  }
}

/* Each kernel passes itself to q8nn_x86_dwconv for the redone pixels (q8nn_x86_dw_redo). */
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p64c__avx512vnni, 9, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p64c__avx512vnni, 9, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p64c__avx512vnni, 25, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p64c__avx512vnni, 25, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp64c__avx512vnni, 0, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp64c__avx512vnni, 0, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p64c__avx512vnni, 9, 2)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p64c__avx512vnni, 25, 2)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp64c__avx512vnni, 0, 2)
