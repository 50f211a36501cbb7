/*
 * Helpers shared by the cmocka tests: a seeded deterministic PRNG, fill helpers, guard bytes and
 * the list of ISA masks to sweep.
 */
#ifndef Q8NN_TESTS_TEST_UTIL_H
#define Q8NN_TESTS_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Seed of this run: Q8NN_TEST_SEED from the environment (decimal or 0x hex), else the time.
    Printed once to stderr on first use. Reseeds the PRNG on first call. */
uint64_t test_seed(void);

/** Restarts the PRNG from a seed (test_seed() does this once with the run's seed). */
void test_reseed(uint64_t seed);

/** xorshift64* stream; deterministic for a given seed. */
uint32_t test_rand(void);
int8_t test_rand_s8(void);
/** Uniform in [lo, hi] (inclusive), lo <= hi. */
int32_t test_rand_range(int32_t lo, int32_t hi);
/** Uniform float in [lo, hi). */
float test_rand_float(float lo, float hi);

void test_fill_s8(int8_t* data, size_t n);
/** Values in [lo, hi]. */
void test_fill_s8_range(int8_t* data, size_t n, int8_t lo, int8_t hi);
void test_fill_s32_range(int32_t* data, size_t n, int32_t lo, int32_t hi);

/** 1 when every bit of isa_bits is available on this CPU (q8nn_get_available_isa), else 0.
    isa_bits 0 (scalar) is always available. */
int test_isa_available(uint32_t isa_bits);

/** Fills masks with 0 (scalar only) then each available ISA bit alone; returns the count
    (at most max). */
size_t test_isa_masks(uint32_t* masks, size_t max);

/** Name of an ISA mask for messages ("scalar", "avx2", ...); static storage. */
const char* test_isa_name(uint32_t mask);

/** Guard byte value written around and between output pixels. */
#define TEST_GUARD_BYTE ((int8_t) 0x5A)

/** Index of the first differing byte of a and b, or SIZE_MAX when equal. */
size_t test_first_mismatch(const int8_t* a, const int8_t* b, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* Q8NN_TESTS_TEST_UTIL_H */
