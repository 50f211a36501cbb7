/*
 * AVX-512 VNNI depthwise kernels, 64 channels per tile (4 zmm of int32 accumulators), both
 * roundings: 9p64c (3x3), 25p64c (5x5) and xp64c (any number of taps).
 *
 * Loop order: channel tiles outside, output pixels inside, so a tile's weights are rearranged once
 * and stay in registers (or L1) for the whole row. Taps go 4 at a time into VPDPBUSD: the 4 input
 * rows of a tap group (x ^ 0x80, the unsigned operand; the list entry's input_offset 128 makes the
 * operator fold -(zp + 128) sum(w) into the bias) and the 4 weight rows (signed) are byte/word
 * interleaved with the in-lane unpacks, which leaves accumulator j lane 4L + i holding channel
 * 16L + 4j + i. The int32 -> int8 saturating packs undo exactly that order, so no permute is
 * needed on the output; bias, multiplier and shift are transposed (128-bit blocks) to match once
 * per tile. Missing taps of the last group are zero weights against zero bytes.
 *
 * Params: output zero point and clamp; packed per 64-channel block: bias, multiplier, shift,
 * w[taps][64] (q8nn_pack_qs8_dwconv_w). Channel tails: masked loads (nothing read past
 * `channels` bytes of any input row) and masked stores. Requantization: x86-avx512.h.
 */
#include "kernel-decls.h"
#include "arch/x86/x86-avx512.h"

#define Q8NN_X86_DW_CT 64
#define Q8NN_X86_DW_MAX_GROUPS 8 /* tap groups whose interleaved weights are kept (32 taps) */

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

Q8NN_X86_INLINE void q8nn_x86_dwconv(
    const size_t TAPS, const int single,
    size_t channels, size_t output_width, size_t taps, const int8_t** input, size_t input_stride,
    const void* weights, int8_t* output, size_t output_increment, size_t input_offset,
    const int8_t* zero, const struct q8nn_qs8_conv_params* params) {
  if (TAPS != 0) taps = TAPS;
  const size_t groups = (taps + 3) / 4;
  const struct q8nn_x86_out64 vout = q8nn_x86_out64_init(params);
  const __m512i vsign = _mm512_set1_epi8((char) 0x80);
  const size_t pixel_step = channels + output_increment;
  const uint8_t* wb = (const uint8_t*) weights;
  for (size_t c0 = 0; c0 < channels; c0 += Q8NN_X86_DW_CT) {
    const size_t crem = channels - c0;
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
#pragma GCC unroll 4
    for (size_t j = 0; j < 4; j++) {
      rq[j] = single ? q8nn_x86_rq16_init_rsingle(vmult[j], vshift[j])
                     : q8nn_x86_rq16_init_rdouble(vmult[j], vshift[j]);
    }
    __m512i vw[Q8NN_X86_DW_MAX_GROUPS][4];
    const size_t kept = groups < Q8NN_X86_DW_MAX_GROUPS ? groups : Q8NN_X86_DW_MAX_GROUPS;
#pragma GCC unroll 8
    for (size_t g = 0; g < kept; g++) q8nn_x86_dw_weights(wt, 4 * g, taps, vw[g]);

    const int8_t** in = input;
    int8_t* out = output + c0;
    for (size_t x = 0; x < output_width; x++) {
      __m512i vacc[4] = {vbias[0], vbias[1], vbias[2], vbias[3]};
#pragma GCC unroll 8
      for (size_t g = 0; g < groups; g++) {
        __m512i vx[4];
#pragma GCC unroll 4
        for (size_t i = 0; i < 4; i++) {
          const size_t t = 4 * g + i;
          if (t < taps) {
            const int8_t* p = in[t];
            p = (p == zero ? p : p + input_offset) + c0;
            vx[i] = _mm512_xor_si512(_mm512_maskz_loadu_epi8(kc, p), vsign);
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
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; j++) {
        vacc[j] = single ? q8nn_x86_requantize_rsingle(vacc[j], &rq[j]) : q8nn_x86_requantize_rdouble(vacc[j], &rq[j]);
      }
      const __m512i v = q8nn_x86_pack64(vacc[0], vacc[1], vacc[2], vacc[3], &vout, 0);
      _mm512_mask_storeu_epi8(out, kc, v);
      out += pixel_step;
      in += input_stride;
    }
    wb += Q8NN_PACKED_HEADER_BYTES(Q8NN_X86_DW_CT) + taps * Q8NN_X86_DW_CT;
  }
}

Q8NN_X86_DWCONV_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p64c__avx512vnni, 9, 0)
Q8NN_X86_DWCONV_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p64c__avx512vnni, 9, 1)
Q8NN_X86_DWCONV_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p64c__avx512vnni, 25, 0)
Q8NN_X86_DWCONV_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p64c__avx512vnni, 25, 1)
Q8NN_X86_DWCONV_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp64c__avx512vnni, 0, 0)
Q8NN_X86_DWCONV_KERNEL(q8nn_x86_dwconv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp64c__avx512vnni, 0, 1)
