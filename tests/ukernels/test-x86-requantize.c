/*
 * The AVX-512 TFLite double-rounding requantization of x86-avx512.h, each variant the kernels compile
 * (q8nn_x86_requantize_rdouble_with: left shift on/off, sign correction off / per lane / the int32
 * form for blocks where every lane shifts right with a multiplier in [2^30, 2^31), checked through
 * its doubled result), lane by lane against the independent reference
 * (tests/reference), on the shift regimes each variant is used for. Accumulators come from the
 * whole int32 range with its ends over-represented (INT32_MIN, INT32_MAX and their neighbours, 0,
 * +-1, small values), multipliers from [2^30, 2^31) with both ends, and 0 (flushed channels): the
 * kernel tests' accumulators are sums of a few products and never reach the ranges where the int32
 * form could overflow. Built with the AVX-512 flags; skipped on a CPU without AVX-512 VNNI, and also
 * built against SIMDe (test_x86_requantize_emulated) where the host lacks it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "q8nn.h"
#include "arch/x86/x86-avx2.h"
#include "arch/x86/x86-avx512.h"
#include "reference/reference.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t) (rng_state >> 16);
}

static int32_t random_accumulator(void) {
  const uint32_t r = rng();
  switch (rng() % 6) {
    case 0: return (int32_t) r;                                   /* anywhere in int32 */
    case 1: return INT32_MIN + (int32_t) (r % 8);                 /* the negative end */
    case 2: return INT32_MAX - (int32_t) (r % 8);                 /* the positive end */
    case 3: return (int32_t) (r % 9) - 4;                         /* 0, +-1, ... */
    case 4: return (int32_t) (r % (1u << 21)) - (1 << 20);        /* a convolution's range */
    default: {                                                    /* every magnitude */
      const int32_t m = (int32_t) (r >> (1 + rng() % 31));
      return r & 1 ? -m : m;
    }
  }
}

static int32_t random_multiplier(void) {
  const uint32_t r = rng();
  switch (r % 8) {
    case 0: return 0;
    case 1: return INT32_C(1) << 30;
    case 2: return INT32_MAX;
    default: return (INT32_C(1) << 30) + (int32_t) (rng() & 0x3FFFFFFF);
  }
}

/* shift in [lo, hi], the ends over-represented */
static int32_t random_shift(int32_t lo, int32_t hi) {
  const uint32_t r = rng();
  if (r % 4 == 0) return lo;
  if (r % 4 == 1) return hi;
  return lo + (int32_t) (rng() % (uint32_t) (hi - lo + 1));
}

/* One variant over `vectors` random 16-lane vectors whose shifts lie in [lo, hi]. */
static void check_variant(int lshift, int dneg, int32_t lo, int32_t hi, size_t vectors) {
  size_t mismatches = 0;
  for (size_t v = 0; v < vectors; v++) {
    int32_t acc[16], mult[16], shift[16], out[16];
    for (int i = 0; i < 16; i++) {
      acc[i] = random_accumulator();
      do mult[i] = random_multiplier();
      while (dneg >= 2 && mult[i] == 0); /* the int32 form takes TFLite's multipliers only */
      shift[i] = random_shift(lo, hi);
    }
    const struct q8nn_x86_rq16 rq =
        q8nn_x86_rq16_init_rdouble(_mm512_loadu_si512(mult), _mm512_loadu_si512(shift));
    /* the kernels pick the variant from these flags: it must be one they would pick */
    if (dneg >= 2) assert_true(rq.m2_all && rq.d_all && !rq.lshift_any);
    if (!lshift) assert_false(rq.lshift_any);
    if (!dneg) assert_false(rq.d_any);
    __m512i r;
    struct q8nn_x86_flip16 flip;
    switch (lshift * 4 + dneg) {
      case 0: r = q8nn_x86_requantize_rdouble_with(_mm512_loadu_si512(acc), &rq, 0, 0); break;
      case 1: r = q8nn_x86_requantize_rdouble_with(_mm512_loadu_si512(acc), &rq, 0, 1); break;
      case 2: /* the doubled form: r = (u + 1) >> 1 */
        r = q8nn_x86_requantize_rdouble_with(_mm512_loadu_si512(acc), &rq, 0, 2);
        r = _mm512_srai_epi32(_mm512_add_epi32(r, _mm512_set1_epi32(1)), 1);
        break;
      case 3: /* the same from the accumulator with its sign bit flipped (a bias + 2^31) */
        flip = q8nn_x86_flip16_init(_mm512_loadu_si512(mult));
        r = q8nn_x86_requantize_rdouble_flipped(
            _mm512_xor_si512(_mm512_loadu_si512(acc), _mm512_set1_epi32(INT32_MIN)), &rq, &flip);
        r = _mm512_srai_epi32(_mm512_add_epi32(r, _mm512_set1_epi32(1)), 1);
        break;
      default: r = q8nn_x86_requantize_rdouble_with(_mm512_loadu_si512(acc), &rq, 1, 1); break;
    }
    _mm512_storeu_si512(out, r);
    for (int i = 0; i < 16; i++) {
      const int32_t want = ref_multiply_by_quantized_multiplier(acc[i], mult[i], shift[i], 0);
      if (out[i] != want && mismatches++ < 5) {
        print_error("lshift %d dneg %d: acc %d multiplier %d shift %d -> %d, reference %d\n", lshift, dneg, acc[i],
                    mult[i], shift[i], out[i], want);
      }
    }
  }
  assert_int_equal(mismatches, 0);
}

static int avx512_available(void) {
#ifdef Q8NN_X86_EMULATED
  return 1;
#else
  return q8nn_initialize() == q8nn_status_success && (q8nn_get_available_isa() & Q8NN_ISA_X86_AVX512VNNI) != 0;
#endif
}

#ifdef Q8NN_X86_EMULATED
#define VECTORS 20000 /* SIMDe at -O1 */
#else
#define VECTORS 200000
#endif

/* every lane shifts right (e in [1, 31]): the int32 second rounding */
static void test_rdouble_all_right_shifts(void** state) {
  (void) state;
  if (!avx512_available()) skip();
  check_variant(0, 2, -31, -1, VECTORS);
  check_variant(0, 3, -31, -1, VECTORS);
  check_variant(0, 1, -31, -1, VECTORS); /* the per-lane form agrees on the same lanes */
}

/* right shifts and 0 mixed: the per-lane correction */
static void test_rdouble_mixed_right_shifts(void** state) {
  (void) state;
  if (!avx512_available()) skip();
  check_variant(0, 1, -31, 0, VECTORS);
}

/* no lane shifts right or left: neither step */
static void test_rdouble_no_shift(void** state) {
  (void) state;
  if (!avx512_available()) skip();
  check_variant(0, 0, 0, 0, VECTORS);
}

/* any legal shift: both steps */
static void test_rdouble_any_shift(void** state) {
  (void) state;
  if (!avx512_available()) skip();
  check_variant(1, 1, -31, 30, VECTORS);
}

/* n doubled-form values (the int16 finish's input): the whole int32 range, small values, around the
   int16 saturation points; u[0] an end of int32 (which one alternates with the vector index v). */
static void random_doubled(int32_t* u, int n, size_t v) {
  for (int i = 0; i < n; i++) {
    const uint32_t r = rng();
    switch (r % 5) {
      case 0: u[i] = (int32_t) rng(); break;
      case 1: u[i] = (int32_t) (rng() % 1024) - 512; break;
      case 2: u[i] = 32767 - 300 + (int32_t) (rng() % 600); break;
      case 3: u[i] = -32768 - 300 + (int32_t) (rng() % 600); break;
      default: u[i] = (int32_t) (rng() % 65536) - 32768; break;
    }
  }
  u[0] = v % 2 ? INT32_MAX : INT32_MIN;
}

/* q8nn_x86_pack64's rounding 3 (the doubled form of dneg 2, finished in int16) against
   clamp(((u + 1) >> 1) + zp): u over the whole int32 range and around the int16 saturation points,
   zero points and clamps at their ends. */
static void test_pack_doubled(void** state) {
  (void) state;
  if (!avx512_available()) skip();
  size_t mismatches = 0;
  for (size_t v = 0; v < VECTORS / 4; v++) {
    int32_t u[64];
    random_doubled(u, 64, v);
    struct q8nn_qs8_conv_params params;
    memset(&params, 0, sizeof(params));
    const uint32_t z = rng();
    params.output_zero_point = z % 4 == 0 ? -128 : z % 4 == 1 ? 127 : (int32_t) (rng() % 256) - 128;
    params.output_min = rng() % 2 ? -128 : (int32_t) (rng() % 256) - 128;
    params.output_max = rng() % 2 ? 127 : params.output_min + (int32_t) (rng() % (uint32_t) (128 - params.output_min));
    const struct q8nn_x86_out64 o = q8nn_x86_out64_init(&params);
    int8_t out[64];
    _mm512_storeu_si512(out, q8nn_x86_pack64(_mm512_loadu_si512(u), _mm512_loadu_si512(u + 16),
                                             _mm512_loadu_si512(u + 32), _mm512_loadu_si512(u + 48), &o, 1, 3));
    for (int i = 0; i < 64; i++) {
      int64_t want = ((int64_t) u[i] + 1) / 2 - (((int64_t) u[i] + 1) % 2 != 0 && u[i] < -1 ? 1 : 0);
      want += params.output_zero_point;
      want = want < params.output_min ? params.output_min : want > params.output_max ? params.output_max : want;
      if (out[i] != want && mismatches++ < 5) {
        print_error("u %d zp %d [%d, %d] -> %d, expected %d\n", u[i], params.output_zero_point, params.output_min,
                    params.output_max, out[i], (int) want);
      }
    }
  }
  assert_int_equal(mismatches, 0);
}

/* The AVX2 int32 form (q8nn_x86_requantize8_doubled, x86-avx2.h; the AVX-VNNI depthwise kernels)
   through its doubled result, on the blocks it is used for: every lane shifts right, TFLite
   multipliers and 0. The AVX-512 flags include AVX2's. */
static void test_avx2_doubled(void** state) {
  (void) state;
  if (!avx512_available()) skip();
  size_t mismatches = 0;
  for (size_t v = 0; v < VECTORS; v++) {
    int32_t acc[8], mult[8], shift[8], out[8];
    for (int i = 0; i < 8; i++) {
      acc[i] = random_accumulator();
      mult[i] = random_multiplier();
      shift[i] = random_shift(-31, -1);
    }
    const struct q8nn_x86_rq8 rq = q8nn_x86_rq8_init_rdouble(_mm256_loadu_si256((const __m256i*) mult),
                                                             _mm256_loadu_si256((const __m256i*) shift), 0);
    assert_true(rq.doubled_all);
    const __m256i u = q8nn_x86_requantize8_doubled(_mm256_loadu_si256((const __m256i*) acc), rq.m_even, rq.m_odd,
                                                   rq.e_minus1);
    _mm256_storeu_si256((__m256i*) out, _mm256_srai_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(1)), 1));
    for (int i = 0; i < 8; i++) {
      const int32_t want = ref_multiply_by_quantized_multiplier(acc[i], mult[i], shift[i], 0);
      if (out[i] != want && mismatches++ < 5) {
        print_error("avx2 doubled: acc %d multiplier %d shift %d -> %d, reference %d\n", acc[i], mult[i], shift[i],
                    out[i], want);
      }
    }
  }
  /* the flag is off where a lane has e = 0, a left shift, or a negative multiplier */
  for (int32_t sh = 0; sh <= 2; sh++) {
    int32_t mult[8], shift[8];
    for (int i = 0; i < 8; i++) mult[i] = INT32_C(1) << 30, shift[i] = i == 5 && sh < 2 ? sh : -3;
    if (sh == 2) mult[3] = -(INT32_C(1) << 30);
    const struct q8nn_x86_rq8 rq = q8nn_x86_rq8_init_rdouble(_mm256_loadu_si256((const __m256i*) mult),
                                                             _mm256_loadu_si256((const __m256i*) shift), 0);
    assert_false(rq.doubled_all);
  }
  assert_int_equal(mismatches, 0);
}

/* The AVX2 int16 finish of the doubled form (q8nn_x86_packs_doubled, then VPACKSSWB and the clamp
   as the kernels do) against clamp(((u + 1) >> 1) + zp), as test_pack_doubled. */
static void test_avx2_pack_doubled(void** state) {
  (void) state;
  if (!avx512_available()) skip();
  size_t mismatches = 0;
  for (size_t v = 0; v < VECTORS / 4; v++) {
    int32_t u[16];
    random_doubled(u, 16, v);
    const uint32_t z = rng();
    const int32_t zp = z % 4 == 0 ? -128 : z % 4 == 1 ? 127 : (int32_t) (rng() % 256) - 128;
    const int32_t lo = rng() % 2 ? -128 : (int32_t) (rng() % 256) - 128;
    const int32_t hi = rng() % 2 ? 127 : lo + (int32_t) (rng() % (uint32_t) (128 - lo));
    const struct q8nn_x86_out32 o = q8nn_x86_out32_init(zp, lo, hi);
    __m256i w = q8nn_x86_packs_doubled(_mm256_loadu_si256((const __m256i*) u),
                                       _mm256_loadu_si256((const __m256i*) (u + 8)), &o);
    w = _mm256_min_epi8(_mm256_max_epi8(_mm256_packs_epi16(w, w), o.min8), o.max8);
    int8_t bytes[32];
    _mm256_storeu_si256((__m256i*) bytes, w);
    /* VPACKSSDW's order: u[0..3], u[8..11] | u[4..7], u[12..15]; then each half's 8 words */
    static const int order[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
    for (int k = 0; k < 16; k++) {
      const int32_t ui = u[order[k]];
      const int8_t got = bytes[k < 8 ? k : k + 8];
      int64_t want = ((int64_t) ui + 1) / 2 - (((int64_t) ui + 1) % 2 != 0 && ui < -1 ? 1 : 0);
      want += zp;
      want = want < lo ? lo : want > hi ? hi : want;
      if (got != want && mismatches++ < 5) {
        print_error("avx2 pack: u %d zp %d [%d, %d] -> %d, expected %d\n", ui, zp, lo, hi, got, (int) want);
      }
    }
  }
  assert_int_equal(mismatches, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rdouble_all_right_shifts),
      cmocka_unit_test(test_rdouble_mixed_right_shifts),
      cmocka_unit_test(test_rdouble_no_shift),
      cmocka_unit_test(test_rdouble_any_shift),
      cmocka_unit_test(test_pack_doubled),
      cmocka_unit_test(test_avx2_doubled),
      cmocka_unit_test(test_avx2_pack_doubled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
