/*
 * Body of the AVX2 gemm and igemm kernels (MR x 8*NB tiles, NB = 1 or 2, KR = 8), instantiated by
 * the qs8-[i]gemm-minmax-<MR>x<NR>c8-avx2.c files with MR, NB and the requantization (0 TFLite
 * double rounding, 1 single rounding, 2 XNNPACK's fp32, x86-avx2.h) as constants.
 *
 * Exactness: no VPMADDUBSW (it saturates). 8 activation bytes and 2 channels x 8 weight bytes are
 * sign-extended to int16 and multiplied with VPMADDWD, whose pairwise int32 sums cannot overflow
 * (2 * 128 * 128 < 2^31); the running sums wrap modulo 2^32 like TFLite's accumulator. Accumulator
 * (r, j, q) holds 4 partial sums of each of the slots 8j + 2q and 8j + 2q + 1; after the loop two
 * levels of VPHADDD leave slots {0, 2, 4, 6, 1, 3, 5, 7} of group j in lanes 0..7, and
 * q8nn_pack_qs8_gemm_goki_w_avx2 stores bias, multiplier and shift in that lane order and the
 * channels in the slots that the epilogue's lane order (x86-avx2.h) returns to their places. The
 * block's header is followed by the TFLite requantization constants of each 8-channel group,
 * precomputed at packing (enum q8nn_x86_rq8_ext_slot): the epilogue reads them as memory operands and
 * adds the output zero point once per group. A block whose records all have doubled_all (every lane
 * shifts right, none left) takes the int32 form instead (q8nn_x86_requantize8_doubled, e - 1 in the
 * record), finished by the store in int16.
 * Signed x signed, so the list entry's input_offset is 0 and no row sums are needed.
 *
 * K: blocks of 8 bytes; a 1..7-byte K tail of each row is copied into a zeroed 8-byte buffer
 * (never read past kc; the packed weights are zero there). Rows past mr alias the last valid row
 * (computed, stored to the same place with identical bytes). Output channels: ceil(nc / NR)
 * blocks; a partial last block goes through a 16-byte buffer.
 */
#ifndef Q8NN_ARCH_X86_QS8_GEMM_AVX2_H
#define Q8NN_ARCH_X86_QS8_GEMM_AVX2_H

#include "arch/x86/x86-avx2.h"
#include "arch/x86/x86-pack.h"

#define Q8NN_X86_AVX2_MAX_MR 4
#define Q8NN_X86_AVX2_MAX_NB 2
/* sign-extended row vectors a call keeps for all its channel blocks (8 KiB of stack) */
#define Q8NN_X86_AVX2_ABUF_VECTORS 256

/* 8 bytes of a row at p (n < 8: zero-extended copy) as int8 (uint8 rows: ^ flip, ukernel.h; the
   bytes past n then meet zero weights), sign-extended and repeated in both halves. */
Q8NN_X86_INLINE __m256i q8nn_x86_avx2_a8(const int8_t* p, size_t n, uint64_t flip) {
  const __m128i v = _mm_cvtsi64_si128((long long) (q8nn_x86_load_small_u64(p, n) ^ flip));
  return _mm256_cvtepi8_epi16(_mm_unpacklo_epi64(v, v));
}

/* One block of 8 K: acc[r][j][q] += madd(a[r], slots 8j + 2q, 8j + 2q + 1). */
Q8NN_X86_INLINE void q8nn_x86_avx2_kstep(const size_t MR, const size_t NB, const __m256i* va, const int8_t* wk,
                                         __m256i (*vacc)[Q8NN_X86_AVX2_MAX_NB][4]) {
#pragma GCC unroll 2
  for (size_t j = 0; j < NB; j++) {
#pragma GCC unroll 4
    for (size_t q = 0; q < 4; q++) {
      const __m256i vw = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*) (wk + 16 * (4 * j + q))));
#pragma GCC unroll 4
      for (size_t r = 0; r < MR; r++) {
        vacc[r][j][q] = _mm256_add_epi32(vacc[r][j][q], _mm256_madd_epi16(va[r], vw));
      }
    }
  }
}

/* Slots {0, 2, 4, 6, 1, 3, 5, 7} of one 8-channel group from its 4 partial-sum accumulators (two
   levels of VPHADDD), plus the bias. */
Q8NN_X86_INLINE __m256i q8nn_x86_avx2_sum(const __m256i* vacc, __m256i vbias) {
  const __m256i v01 = _mm256_hadd_epi32(vacc[0], vacc[1]);
  const __m256i v23 = _mm256_hadd_epi32(vacc[2], vacc[3]);
  return _mm256_add_epi32(_mm256_hadd_epi32(v01, v23), vbias);
}

/* The guarded epilogue of a block into vres (rounding 4 form), from the records' constants;
   returns 0 where a lane was flagged. */
Q8NN_X86_INLINE int q8nn_x86_avx2_guarded(const size_t MR, const size_t NB, const int rounding, const int SIGNED,
                                         const int8_t* w, __m256i (*vacc)[Q8NN_X86_AVX2_MAX_NB][4],
                                         __m256i (*vres)[2], const struct q8nn_x86_out32* vout) {
  const size_t NR = 8 * NB;
  __m256i vflag = _mm256_set1_epi32(-1);
#pragma GCC unroll 2
  for (size_t j = 0; j < NB; j++) {
    const __m256i vbias = _mm256_loadu_si256((const __m256i*) (w + 32 * j));
    const int8_t* x = w + Q8NN_PACKED_HEADER_BYTES(NR) + j * Q8NN_X86_AVX2_RQ_EXT_BYTES;
    const struct q8nn_x86_guard8 g = q8nn_x86_guard8_load(rounding, x + 32 * q8nn_x86_ext_guard_scale,
                                                          x + 32 * q8nn_x86_ext_guard_delta,
                                                          x + 32 * q8nn_x86_ext_guard_window, vout->gc0);
#pragma GCC unroll 4
    for (size_t r = 0; r < MR; r++) {
      vres[r][j] = q8nn_x86_guard8_apply(q8nn_x86_avx2_sum(vacc[r][j], vbias), &g, SIGNED, &vflag);
    }
  }
  return !q8nn_x86_guard8_flagged(vflag);
}

Q8NN_X86_INLINE void q8nn_x86_avx2_gemm_block(
    const size_t MR, const size_t NB, const int rounding,
    size_t nc, size_t kc, size_t ks, const int8_t* const* a, size_t mr, size_t a_offset,
    const int8_t* zero, const int8_t* w, int8_t* const* crow, const struct q8nn_qs8_conv_params* params,
    const struct q8nn_x86_out32* vout, const __m256i* abuf) {
  const size_t NR = 8 * NB;
  __m256i vacc[Q8NN_X86_AVX2_MAX_MR][Q8NN_X86_AVX2_MAX_NB][4];
#pragma GCC unroll 4
  for (size_t r = 0; r < MR; r++) {
#pragma GCC unroll 2
    for (size_t j = 0; j < NB; j++) {
#pragma GCC unroll 4
      for (size_t q = 0; q < 4; q++) vacc[r][j][q] = _mm256_setzero_si256();
    }
  }
  const int8_t* wk = w + Q8NN_X86_AVX2_PACKED_HEADER_BYTES(NR);
  const uint64_t flip = (uint64_t) (uint8_t) params->input_flip * UINT64_C(0x0101010101010101);
  if (abuf != NULL) {
    /* the call's rows already sign-extended (q8nn_x86_avx2_gemm_rows): MR vectors per K step */
    const size_t steps = ks * q8nn_divide_round_up(kc, 8);
    for (size_t s = 0; s < steps; s++, wk += 8 * NR) q8nn_x86_avx2_kstep(MR, NB, abuf + s * MR, wk, vacc);
  }
  for (size_t t = 0; abuf == NULL && t < ks; t++) {
    const int8_t* p[Q8NN_X86_AVX2_MAX_MR];
    q8nn_x86_gemm_tap_rows(MR, a, t, mr, a_offset, zero, p);
    size_t k = 0;
    for (; k + 8 <= kc; k += 8) {
      __m256i va[Q8NN_X86_AVX2_MAX_MR];
#pragma GCC unroll 4
      for (size_t r = 0; r < MR; r++) va[r] = q8nn_x86_avx2_a8(p[r] + k, 8, flip);
      q8nn_x86_avx2_kstep(MR, NB, va, wk, vacc);
      wk += 8 * NR;
    }
    if (k < kc) {
      __m256i va[Q8NN_X86_AVX2_MAX_MR];
#pragma GCC unroll 4
      for (size_t r = 0; r < MR; r++) va[r] = q8nn_x86_avx2_a8(p[r] + k, kc - k, flip);
      q8nn_x86_avx2_kstep(MR, NB, va, wk, vacc);
      wk += 8 * NR;
    }
  }
  __m256i vres[Q8NN_X86_AVX2_MAX_MR][2];
  /* the guarded epilogue (x86-avx2.h) where the operator set it; a block with a flagged lane falls
     through to the exact form below */
  if (rounding != 2 && vout->guard != 0 &&
      (vout->guard == 2 ? q8nn_x86_avx2_guarded(MR, NB, rounding, 1, w, vacc, vres, vout)
                        : q8nn_x86_avx2_guarded(MR, NB, rounding, 0, w, vacc, vres, vout))) {
    q8nn_x86_store_rows8(MR, NB, vres, crow, nc < NR ? nc : NR, vout, 4);
    return;
  }
  /* TFLite roundings: the constants precomputed at packing (x86-avx2.h, enum q8nn_x86_rq8_ext_slot) */
  int doubled = rounding == 0;
#pragma GCC unroll 2
  for (size_t j = 0; j < NB; j++) {
    doubled &= q8nn_x86_ext_flag(w + Q8NN_PACKED_HEADER_BYTES(NR) + j * Q8NN_X86_AVX2_RQ_EXT_BYTES, 2) != 0;
  }
  if (doubled) {
    /* every lane of the block shifts right, none left: the int32 form, finished by the store */
#pragma GCC unroll 2
    for (size_t j = 0; j < NB; j++) {
      const __m256i vbias = _mm256_loadu_si256((const __m256i*) (w + 32 * j));
      const __m256i vmult = _mm256_loadu_si256((const __m256i*) (w + 4 * NR + 32 * j));
      const int8_t* x = w + Q8NN_PACKED_HEADER_BYTES(NR) + j * Q8NN_X86_AVX2_RQ_EXT_BYTES;
#pragma GCC unroll 4
      for (size_t r = 0; r < MR; r++) {
        const __m256i vsum = q8nn_x86_avx2_sum(vacc[r][j], vbias);
        vres[r][j] = q8nn_x86_requantize8_doubled(vsum, vmult, q8nn_x86_ext_load(x, q8nn_x86_ext_m_odd),
                                                  q8nn_x86_ext_load(x, q8nn_x86_ext_e_minus1));
      }
    }
    q8nn_x86_store_rows8(MR, NB, vres, crow, nc < NR ? nc : NR, vout, 3);
    return;
  }
#pragma GCC unroll 2
  for (size_t j = 0; j < NB; j++) {
    const __m256i vbias = _mm256_loadu_si256((const __m256i*) (w + 32 * j));
    const __m256i vmult = _mm256_loadu_si256((const __m256i*) (w + 4 * NR + 32 * j));
    const int8_t* x = w + Q8NN_PACKED_HEADER_BYTES(NR) + j * Q8NN_X86_AVX2_RQ_EXT_BYTES;
    __m256i vzp = _mm256_setzero_si256();
    if (rounding != 2) {
      vzp = _mm256_add_epi32(q8nn_x86_ext_load(x, rounding == 1 ? q8nn_x86_ext_single_zp : q8nn_x86_ext_zp),
                             _mm256_set1_epi32(params->output_zero_point));
    }
#pragma GCC unroll 4
    for (size_t r = 0; r < MR; r++) {
      const __m256i vsum = q8nn_x86_avx2_sum(vacc[r][j], vbias);
      vres[r][j] = rounding == 2 ? q8nn_x86_requantize8_fp32(vsum, _mm256_castsi256_ps(vmult), vout->fhi)
                                 : q8nn_x86_requantize8_ext(vsum, vmult, x, vzp, rounding == 1);
    }
  }
  q8nn_x86_store_rows8(MR, NB, vres, crow, nc < NR ? nc : NR, vout, rounding);
}

/* Whole call. a: [ks][MR] row pointers (see q8nn_x86_gemm_tap_rows). */
Q8NN_X86_INLINE void q8nn_x86_avx2_gemm_rows(
    const size_t MR, const size_t NB, const int rounding,
    size_t nc, size_t kc, size_t ks, const int8_t* const* a, size_t a_offset, const int8_t* zero,
    const void* w, int8_t* c, size_t mr, size_t cm_stride, size_t cn_stride,
    const struct q8nn_qs8_conv_params* params) {
  if (mr == 0) __builtin_unreachable(); /* contract: mr in [1, MR] */
  int8_t* crow[Q8NN_X86_AVX2_MAX_MR];
#pragma GCC unroll 4
  for (size_t r = 0; r < MR; r++) crow[r] = c + (r < mr ? r : mr - 1) * cm_stride;
  const struct q8nn_x86_out32 vout = q8nn_x86_out32_init_conv(params);
  const uint64_t flip = (uint64_t) (uint8_t) params->input_flip * UINT64_C(0x0101010101010101);
  const size_t NR = 8 * NB;
  const size_t block_bytes = Q8NN_X86_AVX2_PACKED_HEADER_BYTES(NR) + ks * q8nn_round_up(kc, 8) * NR;
  const int8_t* wb = (const int8_t*) w;
  /* More than one channel block: the rows are sign-extended once for the whole call instead of once
     per block (VMOVQ, VPUNPCKLQDQ, VPMOVSXBW per row and K step), if they fit the buffer. */
  __m256i abuf[Q8NN_X86_AVX2_ABUF_VECTORS];
  const __m256i* ab = NULL;
  if (nc > NR && ks * q8nn_divide_round_up(kc, 8) * MR <= Q8NN_X86_AVX2_ABUF_VECTORS) {
    __m256i* v = abuf;
    for (size_t t = 0; t < ks; t++) {
      const int8_t* p[Q8NN_X86_AVX2_MAX_MR];
      q8nn_x86_gemm_tap_rows(MR, a, t, mr, a_offset, zero, p);
      for (size_t k = 0; k < kc; k += 8) {
#pragma GCC unroll 4
        for (size_t r = 0; r < MR; r++) *v++ = q8nn_x86_avx2_a8(p[r] + k, kc - k < 8 ? kc - k : 8, flip);
      }
    }
    ab = abuf;
  }
  for (;;) {
    q8nn_x86_avx2_gemm_block(MR, NB, rounding, nc, kc, ks, a, mr, a_offset, zero, wb, crow, params, &vout, ab);
    if (nc <= NR) return;
    wb += block_bytes;
    nc -= NR;
#pragma GCC unroll 4
    for (size_t r = 0; r < MR; r++) crow[r] += cn_stride;
  }
}

#endif
