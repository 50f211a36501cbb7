/*
 * Body of the AVX-512 VNNI gemm and igemm kernels (MR x 16*NB tiles, KR = 4), instantiated by the
 * qs8-[i]gemm-minmax-<MR>x<NR>c4-avx512vnni.c files with MR, NB and the requantization (0 TFLite
 * double rounding, 1 single rounding, 2 XNNPACK's fp32) as constants: the loops are shared, only
 * the epilogue after the K loop differs.
 *
 * Packed weights: q8nn_pack_qs8_gemm_goki_w_avx512 (ukernel.h's layout, the header longer by the
 * guarded epilogue's constants).
 *
 * Sign handling: VPDPBUSD multiplies unsigned by signed bytes. The activations are its unsigned
 * operand: each 4-byte broadcast gets its sign bit flipped (x ^ 0x80 = x + 128), one VPXORD per row
 * and K step, which runs beside the VPDPBUSDs. The weights are the signed operand, packed as they
 * are (q8nn_pack_qs8_gemm_goki_w); the list lines' input_offset 128 makes the packed bias
 * bias - (input_zero_point + 128) sum(w) (ukernel.h), as for the depthwise kernels.
 * Each accumulator then holds sum((x + 128) w) + bias - (zp + 128) sum(w) = sum((x - zp) w) + bias,
 * modulo 2^32: TFLite's accumulator bit for bit, with nothing computed per row.
 * (The first form had it the other way round: weights w + 128 unsigned, activations signed
 * straight from memory, and 128 sum(x) of each row computed per call and subtracted. Those row
 * sums, their reductions, broadcasts and per-accumulator corrections cost as much as the K steps
 * at K <= 32, and the flip costs nothing measurable even at K = 960: docs/performance.md,
 * "1x1 convolutions (gemm)".)
 *
 * K: groups of 4 bytes; a 1..3-byte K tail is read with a masked load (zeros past kc become 0x80
 * and meet packed zeros). Rows past mr alias the last valid row (computed, stored to the same place
 * with identical bytes). Output channels: ceil(nc / (16 NB)) blocks; the last block runs only the
 * 16-channel vectors it needs and stores nc bytes with masked stores.
 */
#ifndef Q8NN_ARCH_X86_QS8_GEMM_AVX512VNNI_H
#define Q8NN_ARCH_X86_QS8_GEMM_AVX512VNNI_H

#include "arch/x86/x86-avx512.h"

#define Q8NN_X86_GEMM_MAX_MR 12
#define Q8NN_X86_GEMM_MAX_NB 4

/* One K step of every row against nb weight vectors, in q8nn_x86_gemm_block (it uses the block's
   MR, nb, NR, vacc, vsign, wk and row index r): bcast_expr is the broadcast of row r's 4 activation
   bytes (or its K tail), whose sign bits the step flips. A macro so that the main steps and the
   tail step share one body while each keeps its own broadcast. */
#define Q8NN_X86_GEMM_KSTEP(bcast_expr)                                                   \
  do {                                                                                    \
    __m512i vw[Q8NN_X86_GEMM_MAX_NB];                                                     \
    _Pragma("GCC unroll 4") for (size_t j = 0; j < nb; j++) vw[j] = _mm512_loadu_si512(wk + 64 * j); \
    _Pragma("GCC unroll 12") for (size_t r = 0; r < MR; r++) {                            \
      const __m512i vx = _mm512_xor_si512(bcast_expr, vsign);                             \
      _Pragma("GCC unroll 4") for (size_t j = 0; j < nb; j++) vacc[r][j] = q8nn_x86_dpbusd(vacc[r][j], vx, vw[j]); \
    }                                                                                     \
    wk += 4 * NR;                                                                         \
  } while (0)

/* The TFLite-rounding constants of the nb vectors of the NR block at w. */
Q8NN_X86_INLINE void q8nn_x86_gemm_block_rq(const size_t NR, const size_t nb, const int rounding, const uint8_t* w,
                                           struct q8nn_x86_rq16* rq) {
#pragma GCC unroll 4
  for (size_t j = 0; j < nb; j++) {
    rq[j] = q8nn_x86_rq16_init(rounding, _mm512_loadu_si512(w + 4 * NR + 64 * j),
                               _mm512_loadu_si512(w + 8 * NR + 64 * j));
  }
}

/* The guarded epilogue's constants of the nb vectors of the NR block at w, from the packed header
   (q8nn_pack_qs8_gemm_goki_w_avx512: scale, delta and window after the shifts; the window is the
   AVX-VNNI line's, these kernels flag a channel outside the rule by its NaN scale): one or two
   additions per vector. */
Q8NN_X86_INLINE void q8nn_x86_gemm_block_guard(const size_t NR, const size_t nb, const int rounding, const uint8_t* w,
                                              const struct q8nn_x86_out64* vout, struct q8nn_x86_guard16* g) {
#pragma GCC unroll 4
  for (size_t j = 0; j < nb; j++) {
    g[j].scale = _mm512_loadu_ps(w + 12 * NR + 64 * j);
    const __m512 vdelta = rounding == 0 ? _mm512_loadu_ps(w + 16 * NR + 64 * j) : _mm512_setzero_ps();
    g[j].cpos = _mm512_add_ps(vout->gc0, vdelta);
    g[j].cneg = _mm512_sub_ps(vout->gc0, vdelta);
  }
}

/* The guarded epilogue of a block, row by row: a row with a flagged lane (a few in a thousand)
   takes the exact epilogue for its nb vectors instead. Leaves q8nn_x86_pack64's rounding 4 form. */
Q8NN_X86_INLINE void q8nn_x86_gemm_guarded(const size_t MR, const size_t NR, const size_t nb, const int rounding,
                                          const int SIGNED, __m512i (*vacc)[Q8NN_X86_GEMM_MAX_NB],
                                          const struct q8nn_x86_guard16* g, const uint8_t* w,
                                          const struct q8nn_x86_out64* vout) {
#pragma GCC unroll 12
  for (size_t r = 0; r < MR; r++) {
    __m512i vu[Q8NN_X86_GEMM_MAX_NB];
    __mmask16 kclear[Q8NN_X86_GEMM_MAX_NB];
#pragma GCC unroll 4
    for (size_t j = 0; j < nb; j++) vu[j] = q8nn_x86_guard16_apply(vacc[r][j], &g[j], SIGNED, &kclear[j]);
    if (Q8NN_UNLIKELY(q8nn_x86_guard_flagged(q8nn_x86_guard_all(nb, kclear)))) {
      for (size_t j = 0; j < nb; j++) {
        vu[j] = q8nn_x86_guard16_exact(vacc[r][j], _mm512_loadu_si512(w + 4 * NR + 64 * j),
                                       _mm512_loadu_si512(w + 8 * NR + 64 * j), rounding, vout->params);
      }
    }
#pragma GCC unroll 4
    for (size_t j = 0; j < nb; j++) vacc[r][j] = vu[j];
  }
}

/* Packs, clamps and stores the MR x nb requantized vectors of a block (pack: q8nn_x86_pack64's
   rounding argument). */
Q8NN_X86_INLINE void q8nn_x86_gemm_store(const size_t MR, const size_t nb, const int pack, size_t nc,
                                         __m512i (*vacc)[Q8NN_X86_GEMM_MAX_NB], int8_t* const* crow,
                                         const struct q8nn_x86_out64* vout) {
  const size_t nbytes = nc < 16 * nb ? nc : 16 * nb;
  if (nb >= 3) {
#pragma GCC unroll 12
    for (size_t r = 0; r < MR; r++) {
      const __m512i v = q8nn_x86_pack64(vacc[r][0], vacc[r][1], vacc[r][2], vacc[r][nb - 1], vout, 1, pack);
      _mm512_mask_storeu_epi8(crow[r], q8nn_x86_mask64(nbytes), v);
    }
  } else if (nb == 2) {
#pragma GCC unroll 12
    for (size_t r = 0; r < MR; r += 2) {
      const size_t r1 = r + 1 < MR ? r + 1 : r;
      const __m512i v = q8nn_x86_pack64(vacc[r][0], vacc[r][1], vacc[r1][0], vacc[r1][1], vout, 1, pack);
      const __mmask64 m = q8nn_x86_mask64(nbytes);
      _mm256_mask_storeu_epi8(crow[r], (__mmask32) m, _mm512_castsi512_si256(v));
      _mm256_mask_storeu_epi8(crow[r1], (__mmask32) m, _mm512_extracti64x4_epi64(v, 1));
    }
  } else {
#pragma GCC unroll 12
    for (size_t r = 0; r < MR; r += 4) {
      const size_t r1 = r + 1 < MR ? r + 1 : MR - 1;
      const size_t r2 = r + 2 < MR ? r + 2 : MR - 1;
      const size_t r3 = r + 3 < MR ? r + 3 : MR - 1;
      const __m512i v = q8nn_x86_pack64(vacc[r][0], vacc[r1][0], vacc[r2][0], vacc[r3][0], vout, 1, pack);
      const __m128i m = _mm512_castsi512_si128(v);
      _mm_mask_storeu_epi8(crow[r], (__mmask16) q8nn_x86_mask64(nbytes), m);
      _mm_mask_storeu_epi8(crow[r1], (__mmask16) q8nn_x86_mask64(nbytes), _mm512_extracti32x4_epi32(v, 1));
      _mm_mask_storeu_epi8(crow[r2], (__mmask16) q8nn_x86_mask64(nbytes), _mm512_extracti32x4_epi32(v, 2));
      _mm_mask_storeu_epi8(crow[r3], (__mmask16) q8nn_x86_mask64(nbytes), _mm512_extracti32x4_epi32(v, 3));
    }
  }
}

/* One NR block: nb (<= NB) vectors of 16 channels. a: [ks][MR] row pointers (see tap_rows).
   rq_given / g_given: the block's constants (q8nn_x86_gemm_block_rq, or _guard where vout->guard),
   computed once for several row blocks, or NULL: computed here after the K loop. */
Q8NN_X86_INLINE void q8nn_x86_gemm_block(
    const size_t MR, const size_t NB, const size_t nb, const int rounding,
    size_t nc, size_t kc, size_t ks, const int8_t* const* a, size_t mr, size_t a_offset,
    const int8_t* zero, const uint8_t* w, int8_t* const* crow, const struct q8nn_x86_out64* vout,
    const struct q8nn_x86_rq16* rq_given, const struct q8nn_x86_guard16* g_given) {
  const size_t NR = 16 * NB;
  __m512i vacc[Q8NN_X86_GEMM_MAX_MR][Q8NN_X86_GEMM_MAX_NB];
#pragma GCC unroll 4
  for (size_t j = 0; j < nb; j++) {
    const __m512i vbias = _mm512_loadu_si512(w + 64 * j);
#pragma GCC unroll 12
    for (size_t r = 0; r < MR; r++) vacc[r][j] = vbias;
  }
  /* x ^ 0x80 for int8 inputs; uint8 inputs are VPDPBUSD's operand as they are */
  const __m512i vsign = vout->isign8;
  const uint8_t* wk = w + Q8NN_X86_GUARD_PACKED_HEADER_BYTES(NR);
  for (size_t t = 0; t < ks; t++) {
    const int8_t* p[Q8NN_X86_GEMM_MAX_MR];
    q8nn_x86_gemm_tap_rows(MR, a, t, mr, a_offset, zero, p);
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) Q8NN_X86_GEMM_KSTEP(q8nn_x86_bcast4(p[r] + k));
    if (k < kc) Q8NN_X86_GEMM_KSTEP(q8nn_x86_bcast_tail(p[r] + k, kc - k));
  }
  /* Requantize in place. */
  if (rounding != 2 && vout->guard) {
    struct q8nn_x86_guard16 g_here[Q8NN_X86_GEMM_MAX_NB];
    if (g_given == NULL) q8nn_x86_gemm_block_guard(NR, nb, rounding, w, vout, g_here);
    const struct q8nn_x86_guard16* gs = g_given != NULL ? g_given : g_here;
    if (vout->guard == 2) {
      q8nn_x86_gemm_guarded(MR, NR, nb, rounding, 1, vacc, gs, w, vout);
    } else {
      q8nn_x86_gemm_guarded(MR, NR, nb, rounding, 0, vacc, gs, w, vout);
    }
    q8nn_x86_gemm_store(MR, nb, 4, nc, vacc, crow, vout);
    return;
  }
  if (rounding == 2) {
#pragma GCC unroll 4
    for (size_t j = 0; j < nb; j++) {
      const __m512 vscale = _mm512_castsi512_ps(_mm512_loadu_si512(w + 4 * NR + 64 * j));
#pragma GCC unroll 12
      for (size_t r = 0; r < MR; r++) vacc[r][j] = q8nn_x86_requantize_fp32(vacc[r][j], vscale, vout->fhi);
    }
  } else {
    const int single = rounding == 1;
    struct q8nn_x86_rq16 rq_here[Q8NN_X86_GEMM_MAX_NB];
    if (rq_given == NULL) q8nn_x86_gemm_block_rq(NR, nb, rounding, w, rq_here);
    const struct q8nn_x86_rq16* rqs = rq_given != NULL ? rq_given : rq_here;
    /* every lane of the block shifts right and has a TFLite multiplier (m2_all): the doubled form
       from products by 2 m - 2^32 and its int16 finish (dneg 2, q8nn_x86_pack_rounding), for all
       vectors, since a pack mixes them */
    int m2 = !single;
#pragma GCC unroll 4
    for (size_t j = 0; j < nb; j++) m2 &= rqs[j].m2_all;
    if (m2) {
#pragma GCC unroll 4
      for (size_t j = 0; j < nb; j++) {
#pragma GCC unroll 12
        for (size_t r = 0; r < MR; r++) vacc[r][j] = q8nn_x86_requantize_rdouble_with(vacc[r][j], &rqs[j], 0, 2);
      }
      q8nn_x86_gemm_store(MR, nb, q8nn_x86_pack_rounding(0, 2), nc, vacc, crow, vout);
      return;
    }
#pragma GCC unroll 4
    for (size_t j = 0; j < nb; j++) {
      const struct q8nn_x86_rq16* rq = &rqs[j];
      /* rdouble: the optional steps are tested once per vector of channels, not per row
         (q8nn_x86_requantize_rdouble_with) */
      if (single) {
#pragma GCC unroll 12
        for (size_t r = 0; r < MR; r++) vacc[r][j] = q8nn_x86_requantize_rsingle(vacc[r][j], rq);
      } else if (rq->lshift_any) {
#pragma GCC unroll 12
        for (size_t r = 0; r < MR; r++) vacc[r][j] = q8nn_x86_requantize_rdouble_with(vacc[r][j], rq, 1, 1);
      } else if (rq->d_any) {
#pragma GCC unroll 12
        for (size_t r = 0; r < MR; r++) vacc[r][j] = q8nn_x86_requantize_rdouble_with(vacc[r][j], rq, 0, 1);
      } else {
#pragma GCC unroll 12
        for (size_t r = 0; r < MR; r++) vacc[r][j] = q8nn_x86_requantize_rdouble_with(vacc[r][j], rq, 0, 0);
      }
    }
  }
  q8nn_x86_gemm_store(MR, nb, rounding, nc, vacc, crow, vout);
}

/* Whole call: every NR block. a: [ks][MR] row pointers (see tap_rows). */
Q8NN_X86_INLINE void q8nn_x86_gemm_rows(
    const size_t MR, const size_t NB, const int rounding,
    size_t nc, size_t kc, size_t ks, const int8_t* const* a, size_t a_offset, const int8_t* zero,
    const void* w, int8_t* c, size_t mr, size_t cm_stride, size_t cn_stride,
    const struct q8nn_qs8_conv_params* params) {
  if (mr == 0) __builtin_unreachable(); /* contract: mr in [1, MR] */
  int8_t* crow[Q8NN_X86_GEMM_MAX_MR];
#pragma GCC unroll 12
  for (size_t r = 0; r < MR; r++) crow[r] = c + (r < mr ? r : mr - 1) * cm_stride;
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
  const size_t NR = 16 * NB;
  const size_t block_bytes = Q8NN_X86_GUARD_PACKED_HEADER_BYTES(NR) + ks * q8nn_round_up(kc, 4) * NR;
  const uint8_t* wb = (const uint8_t*) w;
  while (nc > 16 * (NB - 1)) {
    q8nn_x86_gemm_block(MR, NB, NB, rounding, nc, kc, ks, a, mr, a_offset, zero, wb, crow, &vout, NULL, NULL);
    if (nc <= NR) return;
    wb += block_bytes;
    nc -= NR;
#pragma GCC unroll 12
    for (size_t r = 0; r < MR; r++) crow[r] += cn_stride;
  }
  /* Last block, 1..NB-1 vectors of 16 channels. */
  switch ((nc + 15) / 16) {
    case 1: q8nn_x86_gemm_block(MR, NB, 1, rounding, nc, kc, ks, a, mr, a_offset, zero, wb, crow, &vout, NULL, NULL); break;
    case 2:
      if (NB > 2) q8nn_x86_gemm_block(MR, NB, 2, rounding, nc, kc, ks, a, mr, a_offset, zero, wb, crow, &vout, NULL, NULL);
      break;
    case 3:
      if (NB > 3) q8nn_x86_gemm_block(MR, NB, 3, rounding, nc, kc, ks, a, mr, a_offset, zero, wb, crow, &vout, NULL, NULL);
      break;
    default: break;
  }
}

/* One NR block (nb vectors) of a gemm call of any mr >= 1: the block's requantization constants
   once, then its rows in blocks of MR (the last one aliases its missing rows, as in a call of
   fewer than MR rows). */
Q8NN_X86_INLINE void q8nn_x86_gemm_mblock(
    const size_t MR, const size_t NB, const size_t nb, const int rounding, size_t mr, size_t nc, size_t kc,
    const int8_t* a, size_t a_stride, const uint8_t* wb, int8_t* c, size_t cm_stride,
    const struct q8nn_x86_out64* vout) {
  struct q8nn_x86_rq16 rq[Q8NN_X86_GEMM_MAX_NB];
  struct q8nn_x86_guard16 g[Q8NN_X86_GEMM_MAX_NB];
  const int guarded = rounding != 2 && vout->guard;
  if (guarded) {
    q8nn_x86_gemm_block_guard(16 * NB, nb, rounding, wb, vout, g);
  } else if (rounding != 2) {
    q8nn_x86_gemm_block_rq(16 * NB, nb, rounding, wb, rq);
  }
  for (size_t m0 = 0; m0 < mr; m0 += MR) {
    /* Two or more vectors: their constants (up to 9 zmm each) are read from memory after each K
       loop. Kept in registers across it, they pushed the accumulators out to the stack around the
       epilogue (8x32c4, N = 192: 27.1 -> 24.5 us for 784 rows in 48-row calls). One vector's fit
       beside the accumulators: there the barrier cost 8% (N = 16). */
    if (nb > 1) __asm__ volatile("" : : "r"(rq), "r"(g) : "memory");
    const size_t mb = mr - m0 < MR ? mr - m0 : MR;
    const int8_t* rows[Q8NN_X86_GEMM_MAX_MR];
    int8_t* crow[Q8NN_X86_GEMM_MAX_MR];
#pragma GCC unroll 12
    for (size_t r = 0; r < MR; r++) {
      const size_t rr = m0 + (r < mb ? r : mb - 1);
      rows[r] = a + rr * a_stride;
      crow[r] = c + rr * cm_stride;
    }
    /* rounding is a constant: fp32 (no constants) passes NULL at compile time */
    q8nn_x86_gemm_block(MR, NB, nb, rounding, nc, kc, 1, rows, mb, 0, NULL, wb, crow, vout,
                        rounding != 2 && !guarded ? rq : NULL, guarded ? g : NULL);
  }
}

/*
 * The gemm kernels (not igemm) take any mr >= 1 (their list lines' mloop 1, ukernel.h): the
 * operator passes a whole tile of rows in one call, and each NR block's constants (bias aside:
 * multiplier, shift and what q8nn_x86_rq16_init derives from them, the output stage's) are set up
 * once per call instead of once per MR rows. Per call of MR rows that setup is about 150
 * instructions; the MobileNetV2 stem (K = 28, 1568 calls of 8 rows) spent 13% of its gemm time on it.
 * NR blocks are the outer loop, so a block's weights serve every row block of the call.
 */
Q8NN_X86_INLINE void q8nn_x86_gemm_mrows(
    const size_t MR, const size_t NB, const int rounding, size_t mr, size_t nc, size_t kc,
    const int8_t* a, size_t a_stride, const void* w, int8_t* c, size_t cm_stride, size_t cn_stride,
    const struct q8nn_qs8_conv_params* params) {
  if (mr == 0) __builtin_unreachable(); /* contract: mr >= 1 */
  if (mr <= MR) {
    /* One row block: the igemm loops as they are. The row-block loop below around a single block
       ran the 14x14 and 7x7 expansions (one block per call) 3-14% slower, with or without the
       constants computed before the K loop. */
    const int8_t* rows[Q8NN_X86_GEMM_MAX_MR];
    q8nn_x86_gemm_dense_rows(MR, a, a_stride, mr, rows);
    q8nn_x86_gemm_rows(MR, NB, rounding, nc, kc, 1, rows, 0, NULL, w, c, mr, cm_stride, cn_stride, params);
    return;
  }
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
  const size_t NR = 16 * NB;
  const size_t block_bytes = Q8NN_X86_GUARD_PACKED_HEADER_BYTES(NR) + q8nn_round_up(kc, 4) * NR;
  const uint8_t* wb = (const uint8_t*) w;
  for (;;) {
    if (nc > 16 * (NB - 1)) {
      q8nn_x86_gemm_mblock(MR, NB, NB, rounding, mr, nc, kc, a, a_stride, wb, c, cm_stride, &vout);
    } else {
      /* last block, 1..NB-1 vectors of 16 channels */
      switch ((nc + 15) / 16) {
        case 1: q8nn_x86_gemm_mblock(MR, NB, 1, rounding, mr, nc, kc, a, a_stride, wb, c, cm_stride, &vout); break;
        case 2:
          if (NB > 2) q8nn_x86_gemm_mblock(MR, NB, 2, rounding, mr, nc, kc, a, a_stride, wb, c, cm_stride, &vout);
          break;
        case 3:
          if (NB > 3) q8nn_x86_gemm_mblock(MR, NB, 3, rounding, mr, nc, kc, a, a_stride, wb, c, cm_stride, &vout);
          break;
        default: break;
      }
    }
    if (nc <= NR) return;
    wb += block_bytes;
    nc -= NR;
    c += cn_stride;
  }
}

/* Defines the rdouble and rsingle gemm and igemm kernels of one tile (gemm: any mr, see above).
   Two levels, so that names the emulated builds #define are expanded before the ## pastes. */
#define Q8NN_X86_GEMM_AVX512VNNI(gemm_rd, gemm_rs, igemm_rd, igemm_rs, MR_, NB_) \
  Q8NN_X86_GEMM_AVX512VNNI_(gemm_rd, gemm_rs, igemm_rd, igemm_rs, MR_, NB_)
#define Q8NN_X86_GEMM_AVX512VNNI_(gemm_rd, gemm_rs, igemm_rd, igemm_rs, MR_, NB_) \
  Q8NN_DEFINE_GEMM_UKERNEL(gemm_rd, q8nn_x86_gemm_mrows, MR_, NB_, 0)            \
  Q8NN_DEFINE_GEMM_UKERNEL(gemm_rs, q8nn_x86_gemm_mrows, MR_, NB_, 1)            \
  Q8NN_X86_IGEMM_IMPL(q8nn_x86_gemm_rows, igemm_rd, MR_, NB_)                    \
  Q8NN_DEFINE_IGEMM_UKERNEL(igemm_rd, igemm_rd##_igemm, 0)                       \
  Q8NN_DEFINE_IGEMM_UKERNEL(igemm_rs, igemm_rd##_igemm, 1)
/* Defines the fp32 gemm and igemm kernels of one tile. */
#define Q8NN_X86_GEMM_FP32_AVX512VNNI(gemm_f, igemm_f, MR_, NB_) Q8NN_X86_GEMM_FP32_AVX512VNNI_(gemm_f, igemm_f, MR_, NB_)
#define Q8NN_X86_GEMM_FP32_AVX512VNNI_(gemm_f, igemm_f, MR_, NB_)    \
  Q8NN_DEFINE_GEMM_UKERNEL(gemm_f, q8nn_x86_gemm_mrows, MR_, NB_, 2) \
  Q8NN_X86_IGEMM_IMPL(q8nn_x86_gemm_rows, igemm_f, MR_, NB_)         \
  Q8NN_DEFINE_IGEMM_UKERNEL(igemm_f, igemm_f##_igemm, 2)

#endif
