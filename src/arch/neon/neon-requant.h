/*
 * NEON requantization shared by the NEON kernels, bit-exact with src/kernels/requantization.h for
 * every int32 accumulator and every shift in [-31, 30].
 *
 * Double rounding (TFLite default):
 *   SRDHM(x, m) is exactly SQRDMULH: gemmlowp's nudge with truncating division rounds ties toward
 *   +infinity, which is SQRDMULH's (2ab + 2^31) >> 32, and both saturate INT32_MIN * INT32_MIN.
 *   The left shift is SSHL by max(shift, 0) (wraps modulo 2^32 like TFLite's compiled code),
 *   skipped for a 16-channel block whose shifts are all <= 0.
 *   RoundingDivideByPOT rounds ties away from zero; SRSHL by -e rounds them toward +infinity, so
 *   negative x first gets -1 (only when e > 0): x + ((x & -e) >> 31), one SSRA. It cannot wrap:
 *   SQRDMULH never returns INT32_MIN (its most negative result is -2^31 + 1).
 * Single rounding: (x * m + 2^(30 - s)) >> (31 - s) in int64 = SMULL + SRSHL(-(31 - s)), then the
 *   low 32 bits (XTN), like TFLite's static_cast where the result leaves int32. 31 - s in [1, 62].
 * Output: the zero point is added in int32 with wrap-around (TFLite's compiled `acc +=
 *   output_offset`), then SQXTN to int16, SQXTN to int8 and min/max: the saturating narrows only
 *   change values that the clamp to [output_min, output_max] within [-128, 127] maps to the same
 *   byte.
 * fp32 (XNNPACK's requantization, q8nn_rounding_fp32; the float scale's bits in the multiplier
 *   slot): SCVTF, FMUL by the scale, FCVTNS (round to nearest, ties to even, whatever FPCR says;
 *   SCVTF and FMUL round to nearest under the default FPCR, as XNNPACK's NEON kernels do):
 *   3 instructions per 4 outputs. The FMUL is never fused: no add follows it and the library is
 *   built with -ffp-contract=off. The zero point is then added with SQADD on int16 between the two
 *   saturating narrows, and both clamps are applied on the bytes. No float clamp is needed (unlike
 *   x86, whose CVTPS2DQ turns large values into INT32_MIN): FCVTNS, SQXTN, SQADD and SQXTN all
 *   saturate and are monotone, so v = rne(x) > 127 - zp gives a byte of 127 >= output_max
 *   (v <= 32767: v + zp > 127; v > 32767: 32767 + zp >= 32639), symmetrically below, and in between
 *   the byte is v + zp exactly: the bytes equal clamp(v + zp, output_min, output_max). |x| < 2^39
 *   (|acc| <= 2^31, scale < 256), so x is never NaN or infinite.
 * uint8 activations (q8nn_qs8_conv_params input_flip / output_flip, 0x80 or 0): the kernels EOR
 *   each activation vector with the input flip right after its load (q8nn_neon_input_flip) and
 *   q8nn_neon_pack16 EORs the clamped bytes with the output flip; for int8 both are EORs with 0.
 */
#ifndef Q8NN_ARCH_NEON_REQUANT_H
#define Q8NN_ARCH_NEON_REQUANT_H

#include <arm_neon.h>
#include <string.h>

#include "ukernel.h"

/* GCC's pre-allocation scheduler hoists the weight loads of later K steps above the current
   step's multiply-accumulates and spills accumulators; the kernels keep their own order. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

#define Q8NN_NEON_INLINE static inline __attribute__((always_inline))

/* Per-4-channel requantization constants derived from the packed multiplier and shift. */
struct q8nn_neon_rq {
  int32x4_t mult;
  int32x4_t a; /* rdouble: left shift (>= 0); rsingle: -(31 - shift) */
  int32x4_t b; /* rdouble: right shift as a negative SRSHL count (<= 0); rsingle: unused */
};

Q8NN_NEON_INLINE struct q8nn_neon_rq q8nn_neon_rq_load(const int32_t* mult, const int32_t* shift,
                                                       int rounding) {
  struct q8nn_neon_rq r;
  const int32x4_t vshift = vld1q_s32(shift);
  r.mult = vld1q_s32(mult);
  if (rounding == 0) {
    r.a = vmaxq_s32(vshift, vdupq_n_s32(0));
    r.b = vminq_s32(vshift, vdupq_n_s32(0));
  } else {
    r.a = vsubq_s32(vshift, vdupq_n_s32(31));
    r.b = r.a;
  }
  return r;
}

/* x / 2^-rshift rounded half away from zero (rshift <= 0, a SRSHL count), for x = SQRDMULH(..):
   SQRDMULH never returns INT32_MIN (its most negative result is -2^31 + 1), so the -1 fixup is a
   plain SSRA that cannot wrap. */
Q8NN_NEON_INLINE int32x4_t q8nn_neon_rdbpot(int32x4_t x, int32x4_t rshift) {
  return vrshlq_s32(vsraq_n_s32(x, vandq_s32(x, rshift), 31), rshift);
}

/* Any left shift among 16 channels' shifts? (the common case, all right shifts, skips the SSHL) */
Q8NN_NEON_INLINE int q8nn_neon_any_left_shift16(const int32_t* shift) {
  const int32x4_t m = vmaxq_s32(vmaxq_s32(vld1q_s32(shift), vld1q_s32(shift + 4)),
                                vmaxq_s32(vld1q_s32(shift + 8), vld1q_s32(shift + 12)));
  return vmaxvq_s32(m) > 0;
}

/* left: 0 when every lane's shift is <= 0 (then the left shift is the identity). */
Q8NN_NEON_INLINE int32x4_t q8nn_neon_requantize(int32x4_t acc, struct q8nn_neon_rq r, int rounding,
                                                int left) {
  if (rounding == 0) {
    if (left) acc = vshlq_s32(acc, r.a);
    return q8nn_neon_rdbpot(vqrdmulhq_s32(acc, r.mult), r.b);
  } else {
    int64x2_t lo = vmull_s32(vget_low_s32(acc), vget_low_s32(r.mult));
    int64x2_t hi = vmull_high_s32(acc, r.mult);
    lo = vrshlq_s64(lo, vmovl_s32(vget_low_s32(r.a)));
    hi = vrshlq_s64(hi, vmovl_high_s32(r.a));
    return vmovn_high_s64(vmovn_s64(lo), hi);
  }
}

struct q8nn_neon_out {
  int32x4_t zero_point;
  int16x8_t zero_point16; /* fp32 */
  int8x16_t min, max;
  int8x16_t flip; /* output_flip in every byte: 0x80 for uint8 outputs, 0 for int8 */
};

Q8NN_NEON_INLINE struct q8nn_neon_out q8nn_neon_out_load(const struct q8nn_qs8_conv_params* p) {
  struct q8nn_neon_out o;
  o.zero_point = vdupq_n_s32(p->output_zero_point);
  o.zero_point16 = vdupq_n_s16((int16_t) p->output_zero_point);
  o.min = vdupq_n_s8((int8_t) p->output_min);
  o.max = vdupq_n_s8((int8_t) p->output_max);
  o.flip = vdupq_n_s8((int8_t) p->output_flip);
  return o;
}

/* input_flip in every byte (0x80 for uint8 inputs, 0 for int8): an activation vector is EORed with
   it once after its load, which makes the uint8 byte x the int8 x ^ 0x80 (and is the identity for
   int8 inputs). Loaded once per kernel call. */
Q8NN_NEON_INLINE int8x16_t q8nn_neon_input_flip(const struct q8nn_qs8_conv_params* p) {
  return vdupq_n_s8((int8_t) p->input_flip);
}

/* fp32 requantization of 4 accumulators: rne((float) acc * scale), saturated to int32; the zero
   point and both clamps come in q8nn_neon_pack16 with rounding 2 (see the header comment). */
Q8NN_NEON_INLINE int32x4_t q8nn_neon_requantize_fp32(int32x4_t acc, float32x4_t scale) {
  return vcvtnq_s32_f32(vmulq_f32(vcvtq_f32_s32(acc), scale));
}

/* 16 requantized int32 lanes -> 16 output bytes. rounding 0/1: the zero point is added in wrapping
   int32 (TFLite); 2 (fp32, XNNPACK's add): with saturation on int16. The clamped int8 bytes are
   EORed with output_flip (uint8 outputs; the identity for int8). */
Q8NN_NEON_INLINE int8x16_t q8nn_neon_pack16(int32x4_t v0, int32x4_t v1, int32x4_t v2, int32x4_t v3,
                                            struct q8nn_neon_out o, int rounding) {
  int16x8_t lo, hi;
  if (rounding == 2) {
    lo = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(v0), v1), o.zero_point16);
    hi = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(v2), v3), o.zero_point16);
  } else {
    v0 = vaddq_s32(v0, o.zero_point);
    v1 = vaddq_s32(v1, o.zero_point);
    v2 = vaddq_s32(v2, o.zero_point);
    v3 = vaddq_s32(v3, o.zero_point);
    lo = vqmovn_high_s32(vqmovn_s32(v0), v1);
    hi = vqmovn_high_s32(vqmovn_s32(v2), v3);
  }
  int8x16_t out = vqmovn_high_s16(vqmovn_s16(lo), hi);
  out = vmaxq_s8(out, o.min);
  return veorq_s8(vminq_s8(out, o.max), o.flip);
}

/* Loads n (< 16) bytes into the low lanes of a zeroed vector with fixed-size loads (8/4/2/1):
   no byte past p + n is read, and no variable-length memcpy call. Little-endian lane order. */
Q8NN_NEON_INLINE int8x16_t q8nn_neon_load_partial(const int8_t* p, size_t n) {
  uint64_t lo = 0, t = 0;
  unsigned s = 0;
  if (n & 8) {
    memcpy(&lo, p, 8);
    p += 8;
  }
  if (n & 4) {
    uint32_t x;
    memcpy(&x, p, 4);
    t = x;
    s = 32;
    p += 4;
  }
  if (n & 2) {
    uint16_t x;
    memcpy(&x, p, 2);
    t |= (uint64_t) x << s;
    s += 16;
    p += 2;
  }
  if (n & 1) t |= (uint64_t) (uint8_t) *p << s;
  const uint64_t hi = (n & 8) ? t : 0;
  if (!(n & 8)) lo = t;
  return vreinterpretq_s8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)));
}

/* Stores the first n (< 16) bytes of v. */
Q8NN_NEON_INLINE void q8nn_neon_store_partial(int8_t* c, int8x16_t v, size_t n) {
  int8x8_t lo = vget_low_s8(v);
  if (n & 8) {
    vst1_s8(c, lo);
    c += 8;
    lo = vget_high_s8(v);
  }
  if (n & 4) {
    vst1_lane_s32((void*) c, vreinterpret_s32_s8(lo), 0);
    c += 4;
    lo = vext_s8(lo, lo, 4);
  }
  if (n & 2) {
    vst1_lane_s16((void*) c, vreinterpret_s16_s8(lo), 0);
    c += 2;
    lo = vext_s8(lo, lo, 2);
  }
  if (n & 1) vst1_lane_s8(c, lo, 0);
}

#endif
