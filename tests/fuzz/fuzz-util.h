/*
 * Byte reader and checks shared by the libFuzzer targets (tests/fuzz/README.md has the layouts).
 *
 * The reader never fails: once the input is exhausted every read returns 0, so a short input is
 * still a complete, deterministic case (the fuzzer grows inputs only where the bytes matter).
 * Values are bounded here so shapes stay small and one execution stays in milliseconds.
 */
#ifndef Q8NN_FUZZ_UTIL_H
#define Q8NN_FUZZ_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <q8nn.h>

struct fuzz_reader {
  const uint8_t* data;
  size_t size, pos;
};

static inline uint8_t fuzz_u8(struct fuzz_reader* r) {
  return r->pos < r->size ? r->data[r->pos++] : 0;
}

/* Little-endian, like the file formats. */
static inline uint32_t fuzz_u32(struct fuzz_reader* r) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)fuzz_u8(r) << (8 * i);
  return v;
}

static inline bool fuzz_bool(struct fuzz_reader* r) { return (fuzz_u8(r) & 1) != 0; }

/* One byte mapped onto [lo, hi] (hi - lo < 256 keeps the mapping uniform enough). */
static inline uint32_t fuzz_range(struct fuzz_reader* r, uint32_t lo, uint32_t hi) {
  return lo + fuzz_u8(r) % (hi - lo + 1);
}

/* A geometry value: one byte, below 0xF0 a small value in [lo, hi], else an edge case the
   API must handle (0, huge, powers of two around the field widths). */
static inline uint32_t fuzz_dim(struct fuzz_reader* r, uint32_t lo, uint32_t hi) {
  static const uint32_t edges[16] = {0,
                                     1,
                                     2,
                                     7,
                                     13,
                                     16,
                                     255,
                                     256,
                                     1000,
                                     65535,
                                     65536,
                                     UINT32_C(0x7FFFFFFF),
                                     UINT32_C(0x80000000),
                                     UINT32_C(0xFFFFFFFE),
                                     UINT32_C(0xFFFFFFFF),
                                     0};
  const uint8_t b = fuzz_u8(r);
  if (b < 0xF0) return lo + b % (hi - lo + 1);
  if (b == 0xFF) return fuzz_u32(r);
  return edges[b - 0xF0];
}

/* A zero point: mostly any int8, sometimes just outside or far outside [-128, 127]. */
static inline int32_t fuzz_zero_point(struct fuzz_reader* r) {
  const uint8_t kind = fuzz_u8(r);
  const int8_t v = (int8_t)fuzz_u8(r);
  if (kind < 0xF8) return v;
  static const int32_t bad[8] = {128, -129, 255, -256, 1000, INT32_MIN, INT32_MAX, 0};
  return kind == 0xFF ? (int32_t)fuzz_u32(r) : bad[kind - 0xF8];
}

/* A scale: mostly 2^e * (1 + f/256) with e in [-24, 23] so that products and quotients cover
   representable multipliers, shifts beyond 30 and below -31; sometimes the raw bits of a float
   (NaN, infinities, denormals, zero, negative) or one of those edge values directly. */
static inline float fuzz_scale(struct fuzz_reader* r) {
  const uint8_t kind = fuzz_u8(r);
  if (kind < 0xE0) {
    const int e = (int)(kind % 48) - 24;
    return ldexpf(1.0f + (float)fuzz_u8(r) / 256.0f, e);
  }
  if (kind < 0xF0) {
    const uint32_t bits = fuzz_u32(r);
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
  }
  static const float edges[16] = {
      0.0f, -0.0f,    -1.0f,           1.0f,           INFINITY, -INFINITY,
      NAN,  1.0e-45f, 1.17549435e-38f, 3.40282347e38f, 1.0e-20f, 1.0e20f,
      0.5f, 1.0e-7f,  1.0e6f,          -1.0e-7f};
  return edges[kind - 0xF0];
}

static inline bool fuzz_valid_scale(float s) { return isfinite(s) && s > 0.0f; }
/* XNNPACK's scale check (fp32 convolutions, XNNPACK add): normal and > 0, subnormals refused. */
static inline bool fuzz_normal_scale(float s) { return isnormal(s) && s > 0.0f; }
static inline bool fuzz_valid_zero_point(int32_t zp) { return zp >= -128 && zp <= 127; }

/* Tensor contents from a seed (xorshift32), in one of a few patterns: random, extremes,
   constant. Cheap to describe in a few bytes yet able to saturate accumulators. */
static inline void fuzz_fill(struct fuzz_reader* r, int8_t* data, size_t n) {
  const uint8_t mode = fuzz_u8(r);
  uint32_t x = fuzz_u32(r) | 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    switch (mode & 3) {
      case 0:
      case 1:
        data[i] = (int8_t)x;
        break;
      case 2:
        data[i] = (x & 1) ? -128 : 127;
        break;
      default:
        data[i] = (int8_t)mode;
        break;
    }
  }
}

static inline void fuzz_fill_s32(struct fuzz_reader* r, int32_t* data, size_t n) {
  const uint8_t mode = fuzz_u8(r);
  uint32_t x = fuzz_u32(r) | 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    switch (mode & 3) {
      case 0:
        data[i] = (int32_t)(x % 40001) - 20000;
        break;
      case 1:
        data[i] = (int32_t)x;
        break;
      case 2:
        data[i] = (x & 1) ? INT32_MIN : INT32_MAX;
        break;
      default:
        data[i] = (int32_t)(x % 2001) - 1000;
        break;
    }
  }
}

/* libFuzzer reports a trap with the input that caused it; the message says which check. */
#define FUZZ_CHECK(cond, ...)                                                      \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "FUZZ CHECK FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                \
      fprintf(stderr, "\n");                                                       \
      __builtin_trap();                                                            \
    }                                                                              \
  } while (0)

/* Statuses as a bit set, for "one of these" expectations. */
#define FUZZ_S(status) (1u << (unsigned)(status))

static inline bool fuzz_status_in(enum q8nn_status s, uint32_t set) {
  return (unsigned)s < 32 && (set & FUZZ_S(s)) != 0;
}

#define FUZZ_CANARY ((int8_t)0x5A)

static inline void fuzz_fill_canary(int8_t* p, size_t n) { memset(p, FUZZ_CANARY, n); }

static inline size_t fuzz_first_non_canary(const int8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] != FUZZ_CANARY) return i;
  }
  return SIZE_MAX;
}

/* Bytes a buffer of `pixels` pixels, `stride` elements apart, each `channels` used elements
   long, needs at the least: the last pixel ends after its channels, not after its stride. The
   fuzzers allocate exactly this so ASan sees any access past the documented extent. */
static inline size_t fuzz_pixels_bytes(size_t pixels, size_t stride, size_t channels) {
  return pixels == 0 ? 0 : (pixels - 1) * stride + channels;
}

#endif /* Q8NN_FUZZ_UTIL_H */
