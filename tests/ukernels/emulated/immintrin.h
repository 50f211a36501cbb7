/*
 * Stand-in for <immintrin.h> when the AVX-512 VNNI kernels are compiled for the emulated tests
 * (test_ukernel_*_avx512_emulated): SIMDe's portable AVX-512 under the native intrinsic names,
 * plus the few intrinsics SIMDe 0.7.4 lacks or gets wrong, written lane by lane from Intel's
 * definitions. Lets every x86 host check the AVX-512 kernels' bytes; it says nothing about their
 * speed.
 */
#ifndef Q8NN_TESTS_EMULATED_IMMINTRIN_H
#define Q8NN_TESTS_EMULATED_IMMINTRIN_H

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <simde/x86/avx512.h>

/* SIMDe 0.7.4 aliases the vector types but not the mask types. */
typedef simde__mmask8 __mmask8;
typedef simde__mmask16 __mmask16;
typedef simde__mmask32 __mmask32;
typedef simde__mmask64 __mmask64;

static inline int32_t q8nn_emu_mm512_reduce_add_epi32(__m512i a) {
  uint32_t v[16], s = 0;
  memcpy(v, &a, sizeof(v));
  for (int i = 0; i < 16; i++) s += v[i];
  return (int32_t) s;
}
#define _mm512_reduce_add_epi32 q8nn_emu_mm512_reduce_add_epi32

/* Masked byte loads and stores touch only the selected bytes (as the hardware's fault suppression). */
#define Q8NN_EMU_MASKED_BYTES(type, bytes, mtype)                                      \
  static inline type q8nn_emu_maskz_loadu_epi8_##bytes(mtype k, const void* p) {       \
    uint8_t v[bytes] = {0};                                                             \
    for (int i = 0; i < (bytes); i++) {                                                 \
      if ((k >> i) & 1) v[i] = ((const uint8_t*) p)[i];                                 \
    }                                                                                   \
    type r;                                                                             \
    memcpy(&r, v, sizeof(r));                                                           \
    return r;                                                                           \
  }                                                                                     \
  static inline void q8nn_emu_mask_storeu_epi8_##bytes(void* p, mtype k, type a) {      \
    uint8_t v[bytes];                                                                   \
    memcpy(v, &a, sizeof(v));                                                           \
    for (int i = 0; i < (bytes); i++) {                                                 \
      if ((k >> i) & 1) ((uint8_t*) p)[i] = v[i];                                       \
    }                                                                                   \
  }
Q8NN_EMU_MASKED_BYTES(__m512i, 64, uint64_t)
Q8NN_EMU_MASKED_BYTES(__m256i, 32, uint32_t)
Q8NN_EMU_MASKED_BYTES(__m128i, 16, uint32_t)
#define _mm512_maskz_loadu_epi8(k, p) q8nn_emu_maskz_loadu_epi8_64((uint64_t) (k), (p))
#define _mm256_maskz_loadu_epi8(k, p) q8nn_emu_maskz_loadu_epi8_32((uint32_t) (k), (p))
#define _mm_maskz_loadu_epi8(k, p) q8nn_emu_maskz_loadu_epi8_16((uint32_t) (k), (p))
#define _mm512_mask_storeu_epi8(p, k, a) q8nn_emu_mask_storeu_epi8_64((p), (uint64_t) (k), (a))
#define _mm256_mask_storeu_epi8(p, k, a) q8nn_emu_mask_storeu_epi8_32((p), (uint32_t) (k), (a))
#define _mm_mask_storeu_epi8(p, k, a) q8nn_emu_mask_storeu_epi8_16((p), (uint32_t) (k), (a))

/* VPSRAVQ: counts above 63 fill with the sign. */
static inline __m512i q8nn_emu_mm512_srav_epi64(__m512i a, __m512i count) {
  int64_t v[8];
  uint64_t c[8];
  memcpy(v, &a, sizeof(v));
  memcpy(c, &count, sizeof(c));
  for (int i = 0; i < 8; i++) v[i] = c[i] > 63 ? (v[i] < 0 ? -1 : 0) : v[i] >> c[i];
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_srav_epi64 q8nn_emu_mm512_srav_epi64

/* VPTEST's ZF: 1 when a AND b is zero in every bit. SIMDe 0.7.4's portable _mm_testz_si128 (which
   its _mm256_testz_si256 uses on 128-bit targets) returns 1 as soon as one 64-bit half is zero. */
#define Q8NN_EMU_TESTZ(type, bytes, name)                                      \
  static inline int name(type a, type b) {                                     \
    uint64_t x[(bytes) / 8], y[(bytes) / 8], any = 0;                          \
    memcpy(x, &a, sizeof(x));                                                  \
    memcpy(y, &b, sizeof(y));                                                  \
    for (int i = 0; i < (bytes) / 8; i++) any |= x[i] & y[i];                  \
    return any == 0;                                                           \
  }
Q8NN_EMU_TESTZ(__m128i, 16, q8nn_emu_mm_testz_si128)
Q8NN_EMU_TESTZ(__m256i, 32, q8nn_emu_mm256_testz_si256)
#undef _mm_testz_si128
#undef _mm256_testz_si256
#define _mm_testz_si128 q8nn_emu_mm_testz_si128
#define _mm256_testz_si256 q8nn_emu_mm256_testz_si256

/* VPMOVSXBD: the 16 low bytes of a, sign-extended to 32 bits. */
static inline __m512i q8nn_emu_mm512_cvtepi8_epi32(__m128i a) {
  int8_t b[16];
  int32_t v[16];
  memcpy(b, &a, sizeof(b));
  for (int i = 0; i < 16; i++) v[i] = b[i];
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_cvtepi8_epi32 q8nn_emu_mm512_cvtepi8_epi32

/* VPSRAD by the low 64 bits of count, one count for every lane: counts above 31 fill with the sign. */
static inline __m512i q8nn_emu_mm512_sra_epi32(__m512i a, __m128i count) {
  int32_t v[16];
  uint64_t c;
  memcpy(v, &a, sizeof(v));
  memcpy(&c, &count, sizeof(c));
  for (int i = 0; i < 16; i++) v[i] = c > 31 ? (v[i] < 0 ? -1 : 0) : v[i] >> c;
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_sra_epi32 q8nn_emu_mm512_sra_epi32

/* VPSRAD by an immediate and VPSRAVD (one count per lane), absent from SIMDe 0.7.4: counts above 31
   fill with the sign. */
static inline __m512i q8nn_emu_mm512_srav_epi32(__m512i a, __m512i count) {
  int32_t v[16];
  uint32_t c[16];
  memcpy(v, &a, sizeof(v));
  memcpy(c, &count, sizeof(c));
  for (int i = 0; i < 16; i++) v[i] = c[i] > 31 ? (v[i] < 0 ? -1 : 0) : v[i] >> c[i];
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_srav_epi32 q8nn_emu_mm512_srav_epi32
#define _mm512_srai_epi32(a, imm) q8nn_emu_mm512_srav_epi32((a), _mm512_set1_epi32((int) (imm)))

/* VCVTDQ2PS and VCVTPS2DQ under the default MXCSR (round to nearest even); out of range or NaN
   converts to INT32_MIN, the "integer indefinite" value. */
static inline __m512 q8nn_emu_mm512_cvtepi32_ps(__m512i a) {
  int32_t v[16];
  float f[16];
  memcpy(v, &a, sizeof(v));
  for (int i = 0; i < 16; i++) f[i] = (float) v[i];
  __m512 r;
  memcpy(&r, f, sizeof(r));
  return r;
}
static inline __m512i q8nn_emu_mm512_cvtps_epi32(__m512 a) {
  float f[16];
  int32_t v[16];
  memcpy(f, &a, sizeof(f));
  for (int i = 0; i < 16; i++) {
    const float x = nearbyintf(f[i]);
    v[i] = x >= -2147483648.0f && x < 2147483648.0f ? (int32_t) x : INT32_MIN;
  }
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_cvtepi32_ps q8nn_emu_mm512_cvtepi32_ps
#define _mm512_cvtps_epi32 q8nn_emu_mm512_cvtps_epi32

/* VSHUFI64X2: 128-bit blocks 0-1 from a, 2-3 from b, each picked by two bits of imm. */
static inline __m512i q8nn_emu_mm512_shuffle_i64x2(__m512i a, __m512i b, int imm) {
  uint64_t va[8], vb[8], v[8];
  memcpy(va, &a, sizeof(va));
  memcpy(vb, &b, sizeof(vb));
  for (int i = 0; i < 4; i++) {
    const int sel = (imm >> (2 * i)) & 3;
    const uint64_t* src = i < 2 ? va : vb;
    v[2 * i] = src[2 * sel];
    v[2 * i + 1] = src[2 * sel + 1];
  }
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_shuffle_i64x2(a, b, imm) q8nn_emu_mm512_shuffle_i64x2((a), (b), (int) (imm))

/* VPSHUFD: within each 128-bit lane, dword i from dword (imm >> 2i) & 3 of the same lane. */
static inline __m512i q8nn_emu_mm512_shuffle_epi32(__m512i a, int imm) {
  uint32_t va[16], v[16];
  memcpy(va, &a, sizeof(va));
  for (int i = 0; i < 16; i++) v[i] = va[(i & ~3) + ((imm >> (2 * (i & 3))) & 3)];
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_shuffle_epi32(a, imm) q8nn_emu_mm512_shuffle_epi32((a), (int) (imm))
#ifndef _MM_PERM_DDBB
#define _MM_PERM_DDBB 0xF5
#endif

/* KUNPCKWD / KUNPCKDQ: the low halves of two masks, a's above b's. */
#define _mm512_kunpackw(a, b) ((__mmask32) ((((uint32_t) (a) & 0xFFFFu) << 16) | ((uint32_t) (b) & 0xFFFFu)))
#define _mm512_kunpackd(a, b) \
  ((__mmask64) ((((uint64_t) (a) & 0xFFFFFFFFu) << 32) | ((uint64_t) (b) & 0xFFFFFFFFu)))

/* VPTESTNMD: lane i set where (a & b) has no bit set (and k's bit i, masked form). */
static inline __mmask16 q8nn_emu_mm512_mask_testn_epi32_mask(__mmask16 k, __m512i a, __m512i b) {
  uint32_t va[16], vb[16];
  memcpy(va, &a, sizeof(va));
  memcpy(vb, &b, sizeof(vb));
  unsigned r = 0;
  for (int i = 0; i < 16; i++) r |= (unsigned) ((va[i] & vb[i]) == 0 && ((k >> i) & 1)) << i;
  return (__mmask16) r;
}
#define _mm512_mask_testn_epi32_mask(k, a, b) q8nn_emu_mm512_mask_testn_epi32_mask((__mmask16) (k), (a), (b))
#define _mm512_testn_epi32_mask(a, b) q8nn_emu_mm512_mask_testn_epi32_mask((__mmask16) 0xFFFF, (a), (b))

/* VPCMPNEQQ, masked form: lane i set where a and b differ (and k's bit i). The depthwise kernels'
   sliding-window tests compare pointer lanes with it. */
static inline __mmask8 q8nn_emu_mm512_mask_cmpneq_epi64_mask(__mmask8 k, __m512i a, __m512i b) {
  uint64_t va[8], vb[8];
  memcpy(va, &a, sizeof(va));
  memcpy(vb, &b, sizeof(vb));
  unsigned r = 0;
  for (int i = 0; i < 8; i++) r |= (unsigned) (va[i] != vb[i] && ((k >> i) & 1)) << i;
  return (__mmask8) r;
}
#define _mm512_mask_cmpneq_epi64_mask(k, a, b) q8nn_emu_mm512_mask_cmpneq_epi64_mask((__mmask8) (k), (a), (b))

/* VMOVDQU64 zero-masked load: reads only the qwords whose bit is set, as the instruction does. */
static inline __m512i q8nn_emu_mm512_maskz_loadu_epi64(__mmask8 k, const void* p) {
  uint64_t v[8] = {0};
  for (int i = 0; i < 8; i++) {
    if ((k >> i) & 1) memcpy(&v[i], (const char*) p + 8 * i, 8);
  }
  __m512i r;
  memcpy(&r, v, sizeof(r));
  return r;
}
#define _mm512_maskz_loadu_epi64(k, p) q8nn_emu_mm512_maskz_loadu_epi64((__mmask8) (k), (p))

/* KANDW and KORTESTW's carry (all bits of a | b set): the guarded epilogue's flag test. */
static inline __mmask16 q8nn_emu_kand_mask16(__mmask16 a, __mmask16 b) { return (__mmask16) (a & b); }
#define _kand_mask16 q8nn_emu_kand_mask16
static inline unsigned char q8nn_emu_kortestc_mask16_u8(__mmask16 a, __mmask16 b) {
  return (unsigned char) ((__mmask16) (a | b) == (__mmask16) 0xFFFF);
}
#define _kortestc_mask16_u8 q8nn_emu_kortestc_mask16_u8

#endif
