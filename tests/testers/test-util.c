#include "testers/test-util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <q8nn.h>

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);
static int seed_ready;
static uint64_t seed_value;

void test_reseed(uint64_t seed) {
  /* xorshift must not start at 0; mix the seed so small seeds give unrelated streams. */
  uint64_t z = seed + UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  z ^= z >> 31;
  rng_state = z != 0 ? z : UINT64_C(1);
}

uint64_t test_seed(void) {
  if (!seed_ready) {
    const char* env = getenv("Q8NN_TEST_SEED");
    if (env != NULL && env[0] != '\0') {
      seed_value = (uint64_t) strtoull(env, NULL, 0);
    } else {
      seed_value = (uint64_t) time(NULL);
    }
    seed_ready = 1;
    test_reseed(seed_value);
    fprintf(stderr, "q8nn test seed: Q8NN_TEST_SEED=%" PRIu64 "\n", seed_value);
  }
  return seed_value;
}

uint32_t test_rand(void) {
  if (!seed_ready) {
    (void) test_seed();
  }
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return (uint32_t) ((x * UINT64_C(0x2545F4914F6CDD1D)) >> 32);
}

int8_t test_rand_s8(void) { return (int8_t) (uint8_t) test_rand(); }

int32_t test_rand_range(int32_t lo, int32_t hi) {
  const uint64_t span = (uint64_t) ((int64_t) hi - (int64_t) lo) + 1;
  return (int32_t) ((int64_t) lo + (int64_t) (test_rand() % span));
}

float test_rand_float(float lo, float hi) {
  return lo + (hi - lo) * (float) ((double) test_rand() / 4294967296.0);
}

void test_fill_s8(int8_t* data, size_t n) {
  for (size_t i = 0; i < n; i++) {
    data[i] = test_rand_s8();
  }
}

void test_fill_s8_range(int8_t* data, size_t n, int8_t lo, int8_t hi) {
  for (size_t i = 0; i < n; i++) {
    data[i] = (int8_t) test_rand_range(lo, hi);
  }
}

void test_fill_s32_range(int32_t* data, size_t n, int32_t lo, int32_t hi) {
  for (size_t i = 0; i < n; i++) {
    data[i] = test_rand_range(lo, hi);
  }
}

int test_isa_available(uint32_t isa_bits) {
  return (q8nn_get_available_isa() & isa_bits) == isa_bits;
}

size_t test_isa_masks(uint32_t* masks, size_t max) {
  size_t n = 0;
  if (n < max) {
    masks[n++] = 0;
  }
  const uint32_t available = q8nn_get_available_isa();
  for (uint32_t bit = 1; bit != 0 && n < max; bit <<= 1) {
    if (available & bit) {
      masks[n++] = bit;
    }
  }
  return n;
}

const char* test_isa_name(uint32_t mask) {
  switch (mask) {
    case 0: return "scalar";
    case Q8NN_ISA_X86_AVX2: return "avx2";
    case Q8NN_ISA_X86_AVXVNNI: return "avxvnni";
    case Q8NN_ISA_X86_AVX512VNNI: return "avx512vnni";
    case Q8NN_ISA_ARM_NEON: return "neon";
    case Q8NN_ISA_ARM_NEON_DOT: return "neondot";
    case Q8NN_ISA_ARM_NEON_I8MM: return "i8mm";
    case Q8NN_ISA_RISCV_V: return "rvv";
    default: return "mask";
  }
}

size_t test_first_mismatch(const int8_t* a, const int8_t* b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (a[i] != b[i]) {
      return i;
    }
  }
  return SIZE_MAX;
}
