/*
 * AVX-VNNI depthwise kernels, for machines with AVX-VNNI and no AVX-512 (VEX VPDPBUSD on ymm, 16
 * vector registers): 32 channels per tile (4 ymm of int32 accumulators), both TFLite roundings and
 * XNNPACK's fp32 (same loops, the epilogue picked by a constant): 9p32c (3x3), 25p32c (5x5) and
 * xp32c (any number of taps).
 *
 * The ymm port of the AVX-512 kernels' design (qs8-dwconv-minmax-avx512vnni.c). Taps go 4 at a time
 * into VPDPBUSD: input bytes x ^ 0x80 are the unsigned operand (the list entry's input_offset 128
 * makes the operator fold -(zp + 128) sum(w) into the bias), weights the signed one, the 4 rows of a
 * tap group byte/word interleaved with the in-lane unpacks (q8nn_x86_dw_interleave4_y): accumulator j
 * half L dword i holds channel 16 L + 4 j + i. 9 taps are grouped by kernel column, and a pixel whose
 * window moved by one column from the last pixel's (a stride-1 row) reuses its columns 1 and 2, by two
 * columns (stride 2) its column 2 (the window tests of x86-common.h, q8nn_x86_dw9_slides_y). A sliding pixel thus costs 3
 * loads, 3 XORs, 8 unpacks and 12 VPDPBUSD per 32 channels, where the AVX2 kernel (VPMADDWD on int16,
 * 16 channels per tile) spends about 39 vector instructions per 16 channels on its products. The
 * window tests are compares of pointer lanes (q8nn_x86_dw9_slides_y, x86-avx2.h) instead of six
 * scalar compare-and-branch pairs: bench_ukernels, five alternating runs, rdouble 112x112x32
 * 128 -> 120 us, 56x56x144 172 -> 163, 14x14x576 43 -> 39.5 (fp32 0.93-0.97x); the depthwise class of
 * bench_mobilenet_v2 under Q8NN_ISA_MASK=avx2,avxvnni 0.835 -> 0.791 ms on one thread.
 *
 * Epilogue: x86-avx2.h's. Rdouble tiles where every lane shifts right and none left (every
 * MobileNetV2 tile) take the int32 form, q8nn_x86_requantize8_doubled, finished in int16 by
 * q8nn_x86_packs_doubled (0.85-0.90x the time of the int64 form on the 3x3 kernel); its lanes, like
 * fp32's, stay in accumulator order, which the packs alone put in channel order. Other tiles take the
 * int64 form (11 instructions per 8 outputs), whose merged lane order ({0, 2, 1, 3} in each 128-bit
 * half) survives the two packs as bytes 1 and 2 of every 4 swapped, which one VPSHUFB undoes.
 * Which form, and whether the int64 form needs the left shift and the sign-dependent nudge, is
 * decided once per tile, and the pixel loop is compiled for each case, as in the AVX-512 kernels.
 * Operators with the guard (params->guard, docs/guarded-epilogue.md) take the guarded epilogue
 * (q8nn_x86_guard8_apply, accumulator lane order as fp32's); a pixel with a flagged lane is listed
 * and redone with the exact epilogue after the tile's loop (q8nn_x86_dw_redo, x86-common.h).
 * With 16 registers, the interleaved weights and the requantization constants are memory operands
 * (the tile's copy on the stack); the kept columns of a sliding row mostly stay in registers.
 *
 * Params: output zero point and clamp; packed per 32-channel block: bias, multiplier, shift,
 * w[taps][32] (q8nn_pack_qs8_dwconv_w). Channel tails: inputs read with q8nn_x86_load_tail32
 * (nothing read past `channels` bytes of a row), outputs stored through a 32-byte buffer; the full
 * tile's loop is compiled without either.
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx2.h"

#define Q8NN_X86_DWV_CT 32
#define Q8NN_X86_DWV_MAX_GROUPS 8 /* tap groups whose interleaved weights are kept (32 taps) */

/* VEX VPDPBUSD, the signed operand (weights) from a register or memory: the intrinsic's tied
   accumulator costs register moves (see q8nn_x86_vnni_dpbusd, qs8-gemm-avxvnni.h). */
Q8NN_X86_INLINE __m256i q8nn_x86_dwv_dpbusd(__m256i acc, __m256i u8, __m256i s8) {
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u8), "xm"(s8));
  return acc;
}

/* Per-tile constants of the pixel loop. */
struct q8nn_x86_dwv_tile {
  __m256i vbias[4];
  __m256i vscale[4];         /* fp32: the scales, accumulator order */
  struct q8nn_x86_rq8 rq[4]; /* TFLite roundings */
  struct q8nn_x86_guard8 g[4]; /* the guarded epilogue (BLEND 3 and 4) */
  __m256i vw[Q8NN_X86_DWV_MAX_GROUPS][4]; /* interleaved weights; 9 taps: column c in vw[c] */
  const int8_t* wt;                        /* packed weights of the tile (groups beyond the kept ones) */
  size_t c0, crem;
};

/* Row t of a pixel's window at the tile's channels, ^ 0x80; FULL: 32 channels, else crem. */
Q8NN_X86_INLINE __m256i q8nn_x86_dwv_row(const int FULL, const int8_t* const* in, size_t t, const int8_t* zero,
                                         size_t input_offset, const struct q8nn_x86_dwv_tile* tile, __m256i vsign) {
  const int8_t* p = q8nn_x86_dw_row(in, t, zero, input_offset, tile->c0);
  const __m256i x = FULL ? _mm256_loadu_si256((const __m256i*) p) : q8nn_x86_load_tail32(p, tile->crem);
  return _mm256_xor_si256(x, vsign);
}

/* Column c of a 9-tap window (taps c, c + 3, c + 6; the 4th byte a zero weight against 0). */
Q8NN_X86_INLINE void q8nn_x86_dwv_column(const int FULL, const int8_t* const* in, size_t c, const int8_t* zero,
                                         size_t input_offset, const struct q8nn_x86_dwv_tile* t, __m256i vsign,
                                         __m256i* out) {
  q8nn_x86_dw_interleave4_y(q8nn_x86_dwv_row(FULL, in, c, zero, input_offset, t, vsign),
                            q8nn_x86_dwv_row(FULL, in, c + 3, zero, input_offset, t, vsign),
                            q8nn_x86_dwv_row(FULL, in, c + 6, zero, input_offset, t, vsign),
                            _mm256_setzero_si256(), out);
}

/* Requantizes, packs, clamps and stores one pixel's 32 channels. LSHIFT and BLEND (rdouble): whether
   the int64 form's left shift and nudge blend run (q8nn_x86_requantize8_with; both always exact when
   on); BLEND 2: the int32 doubled form instead (q8nn_x86_requantize8_doubled, tiles where
   doubled_all); BLEND 3 and 4: the guarded epilogue (q8nn_x86_guard8_apply; 4 with the sign term),
   both roundings. Returns 1 where the guard flagged a lane (the bytes stored are then to be redone),
   else 0. */
Q8NN_X86_INLINE int q8nn_x86_dwv_finish(const int rounding, const int LSHIFT, const int BLEND, const int FULL,
                                         const __m256i* vacc, const struct q8nn_x86_dwv_tile* t,
                                         const struct q8nn_x86_out32* vout, int8_t* out) {
  __m256i r[4];
  __m256i vmin = _mm256_set1_epi32(-1);
#pragma GCC unroll 4
  for (size_t j = 0; j < 4; j++) {
    if (rounding != 2 && BLEND >= 3) {
      r[j] = q8nn_x86_guard8_apply(vacc[j], &t->g[j], BLEND == 4, &vmin);
    } else if (rounding == 2) {
      r[j] = q8nn_x86_requantize8_fp32(vacc[j], _mm256_castsi256_ps(t->vscale[j]), vout->fhi);
    } else if (BLEND == 2) {
      r[j] = q8nn_x86_requantize8_doubled(vacc[j], t->rq[j].m_even, t->rq[j].m_odd, t->rq[j].e_minus1);
    } else {
      const struct q8nn_x86_rq8* q = &t->rq[j];
      r[j] = q8nn_x86_requantize8_with(vacc[j], LSHIFT, q->lshift, BLEND, q->m_even, q->m_odd, q->np_even,
                                       q->np_odd, q->nn_even, q->nn_odd, q->s_even, q->s_odd, q->zp);
    }
  }
  __m256i v;
  if (rounding != 2 && BLEND >= 3) {
    /* y >> 15 in accumulator order: bytes as fp32's below */
    v = q8nn_x86_guard8_bytes(r[0], r[1], r[2], r[3], vout);
  } else if (rounding == 2) {
    /* byte 16 L + 4 j + i = r[j] half L lane i = channel 16 L + 4 j + i */
    v = _mm256_packs_epi16(q8nn_x86_packs_zp16(r[0], r[1], vout), q8nn_x86_packs_zp16(r[2], r[3], vout));
  } else if (BLEND == 2) {
    /* lanes in accumulator order, as fp32's */
    v = _mm256_packs_epi16(q8nn_x86_packs_doubled(r[0], r[1], vout), q8nn_x86_packs_doubled(r[2], r[3], vout));
  } else {
    /* byte 16 L + 4 j + p = r[j] half L merged position p = channel 16 L + 4 j + {0, 2, 1, 3}[p] */
    const __m256i vmerge = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15));
    v = _mm256_packs_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3]));
    v = _mm256_shuffle_epi8(v, vmerge);
  }
  if (rounding == 2 || BLEND < 3) {
    v = _mm256_xor_si256(_mm256_min_epi8(_mm256_max_epi8(v, vout->min8), vout->max8), vout->flip8);
  }
  if (FULL) {
    _mm256_storeu_si256((__m256i*) out, v);
  } else {
    int8_t buf[Q8NN_X86_DWV_CT];
    _mm256_storeu_si256((__m256i*) buf, v);
    q8nn_x86_copy_small(out, buf, t->crem);
  }
  return rounding != 2 && BLEND >= 3 ? q8nn_x86_guard8_flagged(vmin) : 0;
}

/* The pixel loop of one channel tile (see the top of this file); the guarded epilogue (BLEND 3, 4)
   lists the flagged pixels in fix. */
Q8NN_X86_INLINE void q8nn_x86_dwv_pixels(
    const size_t TAPS, const int rounding, const int LSHIFT, const int BLEND, const int FULL, size_t output_width,
    size_t taps, const int8_t** in, size_t input_stride, const struct q8nn_x86_dwv_tile* t,
    const struct q8nn_x86_out32* vout, int8_t* out, size_t pixel_step, size_t input_offset, const int8_t* zero,
    struct q8nn_x86_dw_fix* fix) {
  /* x ^ 0x80 for int8 inputs; uint8 inputs are VPDPBUSD's unsigned operand as they are */
  const __m256i vsign = _mm256_xor_si256(_mm256_set1_epi8((char) 0x80), vout->iflip8);
  const size_t groups = (taps + 3) / 4;
  __m256i vcol[3][4]; /* the window's interleaved columns (9 taps), kept for the next pixel */
#pragma GCC unroll 3
  for (size_t c = 0; c < 3; c++) vcol[c][0] = vcol[c][1] = vcol[c][2] = vcol[c][3] = _mm256_setzero_si256();
  for (size_t x = 0; x < output_width; x++) {
    __m256i vacc[4] = {t->vbias[0], t->vbias[1], t->vbias[2], t->vbias[3]};
    if (TAPS == 9) {
      if (x != 0 && q8nn_x86_dw9_slides_y(in - input_stride, in)) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vcol[0][j] = vcol[1][j], vcol[1][j] = vcol[2][j];
        q8nn_x86_dwv_column(FULL, in, 2, zero, input_offset, t, vsign, vcol[2]);
      } else if (x != 0 && q8nn_x86_dw9_slides2_y(in - input_stride, in)) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vcol[0][j] = vcol[2][j];
        q8nn_x86_dwv_column(FULL, in, 1, zero, input_offset, t, vsign, vcol[1]);
        q8nn_x86_dwv_column(FULL, in, 2, zero, input_offset, t, vsign, vcol[2]);
      } else {
#pragma GCC unroll 3
        for (size_t c = 0; c < 3; c++) q8nn_x86_dwv_column(FULL, in, c, zero, input_offset, t, vsign, vcol[c]);
      }
#pragma GCC unroll 3
      for (size_t c = 0; c < 3; c++) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vacc[j] = q8nn_x86_dwv_dpbusd(vacc[j], vcol[c][j], t->vw[c][j]);
      }
    }
#pragma GCC unroll 8
    for (size_t g = 0; TAPS != 9 && g < groups; g++) {
      __m256i vx[4];
#pragma GCC unroll 4
      for (size_t i = 0; i < 4; i++) {
        vx[i] = 4 * g + i < taps ? q8nn_x86_dwv_row(FULL, in, 4 * g + i, zero, input_offset, t, vsign)
                                 : _mm256_setzero_si256();
      }
      __m256i vxi[4], vwg[4];
      q8nn_x86_dw_interleave4_y(vx[0], vx[1], vx[2], vx[3], vxi);
      if (TAPS != 0 || g < Q8NN_X86_DWV_MAX_GROUPS) {
#pragma GCC unroll 4
        for (size_t j = 0; j < 4; j++) vwg[j] = t->vw[g < Q8NN_X86_DWV_MAX_GROUPS ? g : 0][j];
      } else {
        q8nn_x86_dw_weights_y(t->wt, Q8NN_X86_DWV_CT, g, taps, vwg);
      }
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) vacc[j] = q8nn_x86_dwv_dpbusd(vacc[j], vxi[j], vwg[j]);
    }
    if (Q8NN_UNLIKELY(q8nn_x86_dwv_finish(rounding, LSHIFT, BLEND, FULL, vacc, t, vout, out))) {
      q8nn_x86_dw_note(fix, in, out, 1, input_stride, pixel_step);
    }
    out += pixel_step;
    in += input_stride;
  }
}

Q8NN_X86_INLINE void q8nn_x86_dwconv_avxvnni(
    const size_t TAPS, const int rounding, q8nn_qs8_dwconv_ukernel_fn self,
    size_t channels, size_t output_width, size_t taps, const int8_t** input, size_t input_stride,
    const void* weights, int8_t* output, size_t output_increment, size_t input_offset,
    const int8_t* zero, const struct q8nn_qs8_conv_params* params) {
  if (TAPS != 0) taps = TAPS;
  const size_t groups = (taps + 3) / 4;
  const struct q8nn_x86_out32 vout = q8nn_x86_out32_init_conv(params);
  const size_t pixel_step = channels + output_increment;
  const uint8_t* wb = (const uint8_t*) weights;
  for (size_t c0 = 0; c0 < channels; c0 += Q8NN_X86_DWV_CT) {
    struct q8nn_x86_dwv_tile t;
    t.c0 = c0;
    t.crem = channels - c0 < Q8NN_X86_DWV_CT ? channels - c0 : Q8NN_X86_DWV_CT;
    t.wt = (const int8_t*) wb + Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DWV_CT);
    __m256i vmult[4], vshift[4];
    q8nn_x86_dw_header_y(wb, t.vbias);
    q8nn_x86_dw_header_y(wb + 4 * Q8NN_X86_DWV_CT, vmult);
    q8nn_x86_dw_header_y(wb + 8 * Q8NN_X86_DWV_CT, vshift);
    int lshift = 0, blend = 0, doubled = 1;
    const int guard = rounding != 2 ? params->guard : 0;
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      if (rounding == 2) {
        t.vscale[j] = vmult[j];
      } else {
        /* both, whichever loop runs (a few instructions per tile) */
        t.g[j] = q8nn_x86_guard8_init(rounding, vmult[j], vshift[j], vout.gc0);
        t.rq[j] = rounding == 1 ? q8nn_x86_rq8_init_rsingle(vmult[j], vshift[j], params->output_zero_point)
                                : q8nn_x86_rq8_init_rdouble(vmult[j], vshift[j], params->output_zero_point);
        lshift |= t.rq[j].lshift_any, blend |= t.rq[j].sign_any, doubled &= t.rq[j].doubled_all;
      }
    }
    if (TAPS == 9) {
#pragma GCC unroll 3
      for (size_t c = 0; c < 3; c++) {
        q8nn_x86_dw_interleave4_y(_mm256_loadu_si256((const __m256i*) (t.wt + c * Q8NN_X86_DWV_CT)),
                                  _mm256_loadu_si256((const __m256i*) (t.wt + (c + 3) * Q8NN_X86_DWV_CT)),
                                  _mm256_loadu_si256((const __m256i*) (t.wt + (c + 6) * Q8NN_X86_DWV_CT)),
                                  _mm256_setzero_si256(), t.vw[c]);
      }
    } else {
      for (size_t g = 0; g < groups && g < Q8NN_X86_DWV_MAX_GROUPS; g++) {
        q8nn_x86_dw_weights_y(t.wt, Q8NN_X86_DWV_CT, g, taps, t.vw[g]);
      }
    }
#define Q8NN_DWV_PIXELS(LSHIFT, BLEND, FULL)                                                                 \
  q8nn_x86_dwv_pixels(TAPS, rounding, LSHIFT, BLEND, FULL, output_width, taps, input, input_stride, &t, &vout, \
                      output + c0, pixel_step, input_offset, zero, &fix)
    struct q8nn_x86_dw_fix fix;
    fix.count = 0;
    if (guard) {
      if (t.crem != Q8NN_X86_DWV_CT) {
        Q8NN_DWV_PIXELS(0, guard == 2 ? 4 : 3, 0);
      } else if (guard == 2) {
        Q8NN_DWV_PIXELS(0, 4, 1);
      } else {
        Q8NN_DWV_PIXELS(0, 3, 1);
      }
    } else if (t.crem != Q8NN_X86_DWV_CT) {
      if (rounding == 0 && doubled) {
        Q8NN_DWV_PIXELS(0, 2, 0);
      } else {
        Q8NN_DWV_PIXELS(rounding == 0, rounding == 0, 0); /* the general epilogue */
      }
    } else if (rounding == 0 && doubled) {
      Q8NN_DWV_PIXELS(0, 2, 1);
    } else if (rounding == 0 && lshift) {
      Q8NN_DWV_PIXELS(1, 1, 1);
    } else if (rounding == 0 && blend) {
      Q8NN_DWV_PIXELS(0, 1, 1);
    } else {
      Q8NN_DWV_PIXELS(0, 0, 1);
    }
#undef Q8NN_DWV_PIXELS
    if (Q8NN_UNLIKELY(fix.count != 0)) {
      q8nn_x86_dw_redo(self, &fix, t.crem, output_width, taps, input, input_stride, wb, output + c0, pixel_step,
                       input_offset, c0, zero, params);
    }
    wb += Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DWV_CT) + taps * Q8NN_X86_DWV_CT;
  }
}

Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p32c__avxvnni, 9, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p32c__avxvnni, 9, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p32c__avxvnni, 25, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p32c__avxvnni, 25, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp32c__avxvnni, 0, 0)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp32c__avxvnni, 0, 1)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p32c__avxvnni, 9, 2)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p32c__avxvnni, 25, 2)
Q8NN_X86_DWCONV_SELF_KERNEL(q8nn_x86_dwconv_avxvnni, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp32c__avxvnni, 0, 2)
