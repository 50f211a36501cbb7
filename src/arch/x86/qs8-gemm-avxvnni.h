/*
 * Body of the AVX-VNNI gemm and igemm kernels (MR x 8*NB tiles, NB = 1 or 2, KR = 4), instantiated
 * by the qs8-[i]gemm-minmax-<MR>x<NR>c4-avxvnni.c files with MR, NB and the requantization (0, 1
 * TFLite roundings, 2 XNNPACK's fp32, x86-avx2.h) as constants. The ymm (VEX) port of
 * qs8-gemm-avx512vnni.h for machines with AVX-VNNI and no AVX-512.
 *
 * Sign handling as the AVX-512 kernels had it before they flipped the activations (that flip
 * measured no faster here, on the AMD and on the Intel host): weights packed as unsigned bytes
 * w + 128 are VPDPBUSD's
 * unsigned operand, activations (unchanged) the signed one, broadcast 4 bytes at a time; each row's
 * 128 * sum(x) over all taps is subtracted when the accumulators are initialised (modulo 2^32, so
 * the result is TFLite's accumulator bit for bit). Accumulator lane l holds weight slot l;
 * q8nn_pack_qs8_gemm_goki_w_u8_avxvnni orders channels and bias/multiplier/shift so that the
 * epilogue of x86-avx2.h writes every channel in place. Rdouble blocks where every lane shifts right
 * and none left (doubled_all, tested once per block) take the int32 form
 * (q8nn_x86_requantize8_doubled), which keeps lanes in accumulator order; the store applies the
 * merge's order with one byte shuffle.
 *
 * K: groups of 4 bytes; a 1..3-byte K tail is copied into a zeroed int32 (no over-read). Row sums:
 * 32-byte loads, the < 32-byte tail through a zeroed buffer. Rows past mr alias the last valid row.
 * A partial last channel block is stored through a 16-byte buffer.
 */
#ifndef Q8NN_ARCH_X86_QS8_GEMM_AVXVNNI_H
#define Q8NN_ARCH_X86_QS8_GEMM_AVXVNNI_H

#include "arch/x86/x86-avx2.h"
#include "arch/x86/x86-pack.h"

#define Q8NN_X86_VNNI_MAX_MR 8
#define Q8NN_X86_VNNI_MAX_NB 2

/* VEX VPDPBUSD ymm in inline asm, for the reason given at q8nn_x86_dpbusd (x86-avx512.h): the
   intrinsic's tied accumulator costs two register moves per instruction in the K loop (8x8c4: 40
   instructions per K step of 8, 16 of them moves). {vex} (written %{vex%} in GCC asm) keeps the
   AVX-VNNI encoding. */
Q8NN_X86_INLINE __m256i q8nn_x86_vnni_dpbusd(__m256i acc, __m256i w_u8, __m256i x_s8) {
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(w_u8), "x"(x_s8));
  return acc;
}

/* Sum of the n int8 values at p (uint8 rows: of the bytes ^ vflip, ukernel.h). */
Q8NN_X86_INLINE __m256i q8nn_x86_vnni_rowsum_acc(__m256i vsum, const int8_t* p, size_t n, __m256i vflip) {
  const __m256i vones = _mm256_set1_epi8(1);
  for (; n >= 32; n -= 32, p += 32) {
    vsum = _mm256_dpbusd_avx_epi32(vsum, vones, _mm256_xor_si256(_mm256_loadu_si256((const __m256i*) p), vflip));
  }
  if (n != 0) {
    /* the flip on the n loaded bytes only: the tail's zeros stay 0 */
    const __m256i vlane = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                           21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    const __m256i vin = _mm256_cmpgt_epi8(_mm256_set1_epi8((char) n), vlane);
    const __m256i vx = _mm256_xor_si256(q8nn_x86_load_tail32(p, n), _mm256_and_si256(vflip, vin));
    vsum = _mm256_dpbusd_avx_epi32(vsum, vones, vx);
  }
  return vsum;
}

/* 4 bytes of a row as int8 (uint8 rows ^ flip, ukernel.h), broadcast; n < 4: the bytes past n are
   0 (they meet the padding weights, 0 + 128, and the row sums do not count them). */
Q8NN_X86_INLINE __m256i q8nn_x86_vnni_bcast(const int8_t* p, size_t n, uint32_t flip) {
  uint32_t v;
  if (n >= 4) {
    memcpy(&v, p, 4);
  } else {
    v = (uint32_t) q8nn_x86_load_small_u64(p, n);
    flip &= (UINT32_C(1) << (8 * n)) - 1;
  }
  return _mm256_set1_epi32((int32_t) (v ^ flip));
}

Q8NN_X86_INLINE void q8nn_x86_vnni_block(
    const size_t MR, const size_t NB, const int rounding,
    size_t nc, size_t kc, size_t ks, const int8_t* const* a, size_t mr, size_t a_offset,
    const int8_t* zero, const __m256i* vcorr, const uint8_t* w, int8_t* const* crow,
    const struct q8nn_qs8_conv_params* params, const struct q8nn_x86_out32* vout) {
  const size_t NR = 8 * NB;
  __m256i vacc[Q8NN_X86_VNNI_MAX_MR][2];
#pragma GCC unroll 2
  for (size_t j = 0; j < NB; j++) {
    const __m256i vbias = _mm256_loadu_si256((const __m256i*) (w + 32 * j));
#pragma GCC unroll 8
    for (size_t r = 0; r < MR; r++) vacc[r][j] = _mm256_add_epi32(vbias, vcorr[r]);
  }
  const uint8_t* wk = w + Q8NN_X86_GUARD_PACKED_HEADER_BYTES(NR);
  const uint32_t flip = (uint32_t) (uint8_t) params->input_flip * UINT32_C(0x01010101);
  for (size_t t = 0; t < ks; t++) {
    const int8_t* p[Q8NN_X86_VNNI_MAX_MR];
    q8nn_x86_gemm_tap_rows(MR, a, t, mr, a_offset, zero, p);
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      __m256i vw[Q8NN_X86_VNNI_MAX_NB];
#pragma GCC unroll 2
      for (size_t j = 0; j < NB; j++) vw[j] = _mm256_loadu_si256((const __m256i*) (wk + 32 * j));
#pragma GCC unroll 8
      for (size_t r = 0; r < MR; r++) {
        const __m256i vx = q8nn_x86_vnni_bcast(p[r] + k, 4, flip);
#pragma GCC unroll 2
        for (size_t j = 0; j < NB; j++) vacc[r][j] = q8nn_x86_vnni_dpbusd(vacc[r][j], vw[j], vx);
      }
      wk += 4 * NR;
    }
    if (k < kc) {
      __m256i vw[Q8NN_X86_VNNI_MAX_NB];
#pragma GCC unroll 2
      for (size_t j = 0; j < NB; j++) vw[j] = _mm256_loadu_si256((const __m256i*) (wk + 32 * j));
#pragma GCC unroll 8
      for (size_t r = 0; r < MR; r++) {
        const __m256i vx = q8nn_x86_vnni_bcast(p[r] + k, kc - k, flip);
#pragma GCC unroll 2
        for (size_t j = 0; j < NB; j++) vacc[r][j] = q8nn_x86_vnni_dpbusd(vacc[r][j], vw[j], vx);
      }
      wk += 4 * NR;
    }
  }
  /* Requantize in place: the epilogue is the only part that depends on the requantization. */
  if (rounding == 2) {
#pragma GCC unroll 2
    for (size_t j = 0; j < NB; j++) {
      const __m256i vmult = _mm256_loadu_si256((const __m256i*) (w + 4 * NR + 32 * j));
#pragma GCC unroll 8
      for (size_t r = 0; r < MR; r++) {
        vacc[r][j] = q8nn_x86_requantize8_fp32(vacc[r][j], _mm256_castsi256_ps(vmult), vout->fhi);
      }
    }
    q8nn_x86_store_rows8(MR, NB, vacc, crow, nc < NR ? nc : NR, vout, 2);
    return;
  }
  if (vout->guard != 0) {
    /* the guarded epilogue (x86-avx2.h); a block with a flagged lane takes the exact form below */
    __m256i vres[Q8NN_X86_VNNI_MAX_MR][2];
    __m256i vflag = _mm256_set1_epi32(-1);
#pragma GCC unroll 2
    for (size_t j = 0; j < NB; j++) {
      /* the packed constants after the shifts (q8nn_pack_qs8_gemm_goki_w_u8_avxvnni) */
      const struct q8nn_x86_guard8 g = q8nn_x86_guard8_load(rounding, w + 12 * NR + 32 * j, w + 16 * NR + 32 * j,
                                                            w + 20 * NR + 32 * j, vout->gc0);
#pragma GCC unroll 8
      for (size_t r = 0; r < MR; r++) {
        vres[r][j] = vout->guard == 2 ? q8nn_x86_guard8_apply(vacc[r][j], &g, 1, &vflag)
                                      : q8nn_x86_guard8_apply(vacc[r][j], &g, 0, &vflag);
      }
    }
    if (!q8nn_x86_guard8_flagged(vflag)) {
      q8nn_x86_store_rows8(MR, NB, vres, crow, nc < NR ? nc : NR, vout, 4);
      return;
    }
  }
  struct q8nn_x86_rq8 rq[Q8NN_X86_VNNI_MAX_NB];
  int doubled = rounding == 0;
#pragma GCC unroll 2
  for (size_t j = 0; j < NB; j++) {
    const __m256i vmult = _mm256_loadu_si256((const __m256i*) (w + 4 * NR + 32 * j));
    const __m256i vshift = _mm256_loadu_si256((const __m256i*) (w + 8 * NR + 32 * j));
    rq[j] = rounding == 1 ? q8nn_x86_rq8_init_rsingle(vmult, vshift, params->output_zero_point)
                          : q8nn_x86_rq8_init_rdouble(vmult, vshift, params->output_zero_point);
    doubled &= rq[j].doubled_all;
  }
  if (doubled) {
    /* every lane shifts right, none left: the int32 form, finished in int16 by the store */
#pragma GCC unroll 2
    for (size_t j = 0; j < NB; j++) {
#pragma GCC unroll 8
      for (size_t r = 0; r < MR; r++) {
        vacc[r][j] = q8nn_x86_requantize8_doubled(vacc[r][j], rq[j].m_even, rq[j].m_odd, rq[j].e_minus1);
      }
    }
    q8nn_x86_store_rows8(MR, NB, vacc, crow, nc < NR ? nc : NR, vout, 3);
    return;
  }
#pragma GCC unroll 2
  for (size_t j = 0; j < NB; j++) {
#pragma GCC unroll 8
    for (size_t r = 0; r < MR; r++) vacc[r][j] = q8nn_x86_requantize8(vacc[r][j], &rq[j], rounding == 1);
  }
  q8nn_x86_store_rows8(MR, NB, vacc, crow, nc < NR ? nc : NR, vout, rounding);
}

Q8NN_X86_INLINE void q8nn_x86_vnni_gemm_rows(
    const size_t MR, const size_t NB, const int rounding,
    size_t nc, size_t kc, size_t ks, const int8_t* const* a, size_t a_offset, const int8_t* zero,
    const void* w, int8_t* c, size_t mr, size_t cm_stride, size_t cn_stride,
    const struct q8nn_qs8_conv_params* params) {
  if (mr == 0) __builtin_unreachable(); /* contract: mr in [1, MR] */
  __m256i vsum[Q8NN_X86_VNNI_MAX_MR];
  const __m256i vflip = _mm256_set1_epi8((char) params->input_flip);
#pragma GCC unroll 8
  for (size_t r = 0; r < MR; r++) vsum[r] = _mm256_setzero_si256();
  for (size_t t = 0; t < ks; t++) {
    const int8_t* p[Q8NN_X86_VNNI_MAX_MR];
    q8nn_x86_gemm_tap_rows(MR, a, t, mr, a_offset, zero, p);
#pragma GCC unroll 8
    for (size_t r = 0; r < MR; r++) vsum[r] = q8nn_x86_vnni_rowsum_acc(vsum[r], p[r], kc, vflip);
  }
  __m256i vcorr[Q8NN_X86_VNNI_MAX_MR];
#pragma GCC unroll 8
  for (size_t r = 0; r < MR; r++) {
    __m128i v = _mm_add_epi32(_mm256_castsi256_si128(vsum[r]), _mm256_extracti128_si256(vsum[r], 1));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
    vcorr[r] = _mm256_broadcastd_epi32(_mm_sub_epi32(_mm_setzero_si128(), _mm_slli_epi32(v, 7)));
  }
  int8_t* crow[Q8NN_X86_VNNI_MAX_MR];
#pragma GCC unroll 8
  for (size_t r = 0; r < MR; r++) crow[r] = c + (r < mr ? r : mr - 1) * cm_stride;
  const struct q8nn_x86_out32 vout = q8nn_x86_out32_init_conv(params);
  const size_t NR = 8 * NB;
  const size_t block_bytes = Q8NN_X86_GUARD_PACKED_HEADER_BYTES(NR) + ks * q8nn_round_up(kc, 4) * NR;
  const uint8_t* wb = (const uint8_t*) w;
  for (;;) {
    q8nn_x86_vnni_block(MR, NB, rounding, nc, kc, ks, a, mr, a_offset, zero, vcorr, wb, crow, params, &vout);
    if (nc <= NR) return;
    wb += block_bytes;
    nc -= NR;
#pragma GCC unroll 8
    for (size_t r = 0; r < MR; r++) crow[r] += cn_stride;
  }
}

#endif
