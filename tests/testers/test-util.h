/*
 * Helpers shared by the cmocka tests: a seeded deterministic PRNG, fill helpers, guard bytes and
 * the list of ISA masks to sweep.
 */
#ifndef Q8NN_TESTS_TEST_UTIL_H
#define Q8NN_TESTS_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#include "reference/reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1 in a ThreadSanitizer build (GCC's __SANITIZE_THREAD__, clang's __has_feature), else 0. */
#if defined(__SANITIZE_THREAD__)
#define TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_TSAN 1
#endif
#endif
#ifndef TEST_TSAN
#define TEST_TSAN 0
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

/** Fills masks with 0 (scalar only) then, for each available ISA bit, that bit with every
    available bit below it (the tier as a CPU has it: avx2, avx2+avxvnni, ..., neon, neon+neondot,
    ...); returns the count (at most max). */
size_t test_isa_masks(uint32_t* masks, size_t max);

/** Name of an ISA mask for messages ("scalar", "avx2", ...); static storage. */
const char* test_isa_name(uint32_t mask);

/** Threadpools every operator test runs with: index 0 = NULL (caller thread), 1..3 = pools of
    1, 2 and 3 threads, created on first use and kept until test_destroy_threadpools. */
#define TEST_NUM_THREADPOOLS 4
pthreadpool_t test_threadpool(size_t index);
/** Threads of test_threadpool(index), 0 for NULL; for messages. */
size_t test_threadpool_threads(size_t index);
void test_destroy_threadpools(void);

struct q8nn_threadpool;
/** Host pools (struct q8nn_threadpool) the hosting tests run with: 0 = one that claims three threads
    and runs every piece on the caller, the last one first; 1 = one on test_threadpool(2)'s two
    threads (in a ThreadSanitizer build it tells TSan what its calls order). */
#define TEST_NUM_HOST_POOLS 2
const struct q8nn_threadpool* test_host_pool(size_t index);

/** cmocka group setup/teardown shared by the operator tests: prints the seed, initializes q8nn;
    teardown destroys the threadpools. */
int test_group_setup(void** state);
int test_group_teardown(void** state);

/** Guard byte value written around and between output pixels. */
#define TEST_GUARD_BYTE ((int8_t) 0x5A)

/** Index of the first differing byte of a and b, or SIZE_MAX when equal. */
size_t test_first_mismatch(const int8_t* a, const int8_t* b, size_t n);

/** The whole file dir/name in a malloc'ed buffer (one spare byte), its size in *size; NULL when it
    cannot be opened or read. */
void* test_read_file(const char* dir, const char* name, size_t* size);

/* ---- operator runners: public API on every ISA mask and threadpool vs the reference -------- */

/**
 * One convolution (or depthwise) case. geometry/zero points/clamp/rounding are in p; p.multiplier
 * and p.shift are ignored (the runner derives them from what is passed to create).
 */
struct test_conv_case {
  int depthwise;                  /* 1: depthwise API (p.in_c = channels, p.out_c = multiplier) */
  struct ref_conv_params p;
  const int8_t* input;            /* p.batch*p.in_h*p.in_w pixels, p.in_pixel_stride apart */
  const int8_t* kernel;           /* OHWI (conv) or [k_h][k_w][C*dm] (depthwise) */
  const int32_t* bias;            /* or NULL */
  int per_tensor;                 /* Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE */
  /* either fixed multipliers (one, or one per output channel) ... */
  const int32_t* multiplier;
  const int32_t* shift;
  /* ... or float scales when multiplier is NULL */
  float input_scale, output_scale;
  const float* kernel_scale;
  /* optional check against published numbers (NULL = reference only) */
  const int8_t* expected;
  int tolerance;
  const char* name;               /* for messages */
  size_t num_threadpools;         /* run with test_threadpool(0 .. n-1); 0 = all TEST_NUM_THREADPOOLS */
};

/**
 * Runs the case through q8nn create/setup/run under every ISA mask (test_isa_masks) and every
 * threadpool, and compares the written bytes EXACTLY with the reference; bytes between output
 * pixels and after the output must keep their guard value. When the reference finds the
 * multiplier unrepresentable (fp32, p.rounding 2: a float scale >= 256), create must return
 * unsupported_parameter. With p.rounding 2 multiplier must be NULL (float scales).
 * @return the number of failed (mask, threadpool) runs; details go to stderr with the seed.
 */
int test_conv_run(const struct test_conv_case* c);

/** One add case: either fixed parameters (fixed != NULL) or scales. */
struct test_add_case {
  size_t a_rank, b_rank;
  const size_t* a_shape;
  const size_t* b_shape;
  const int8_t* a;
  const int8_t* b;
  int32_t a_zp, b_zp, out_zp;
  float a_scale, b_scale, out_scale;
  int8_t out_min, out_max;
  const int32_t* fixed;           /* left_shift, a_mult, a_shift, b_mult, b_shift, out_mult, out_shift */
  int in_place;                   /* 1: output aliases a, 2: output aliases b (that operand must have the output shape) */
  const int8_t* expected;
  int tolerance;
  const char* name;
  size_t num_threadpools;         /* as in test_conv_case */
  int xnnpack;                    /* Q8NN_FLAG_XNNPACK_ADD (fixed must be NULL): XNNPACK's arithmetic */
};

/** As test_conv_run, for add. With xnnpack, scales XNNPACK declines must give its status
    (invalid_parameter / unsupported_parameter) and nothing else. */
int test_add_run(const struct test_add_case* c);

#ifdef __cplusplus
}
#endif

#endif /* Q8NN_TESTS_TEST_UTIL_H */
