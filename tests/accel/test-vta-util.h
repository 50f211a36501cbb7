/* Helpers shared by the VTA tests: seeded random numbers, instruction builders, program assembly. */
#ifndef Q8NN_TEST_VTA_UTIL_H
#define Q8NN_TEST_VTA_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <setjmp.h>
#include <cmocka.h>

#include "accel/vta/vta-config.h"
#include "accel/vta/vta-isa.h"
#include "accel/vta/vta-runtime.h"
#include "accel/vta/vta-sim.h"

/* xorshift64*; the seed comes from Q8NN_TEST_SEED or the clock and is printed. */
static uint64_t vta_test_rng_state;

static inline void vta_test_seed(const char* test) {
  const char* env = getenv("Q8NN_TEST_SEED");
  uint64_t seed = env != NULL ? strtoull(env, NULL, 0) : (uint64_t) time(NULL);
  if (seed == 0) seed = 1;
  printf("%s: Q8NN_TEST_SEED=%llu\n", test, (unsigned long long) seed);
  vta_test_rng_state = seed;
}

static inline uint64_t vta_rand64(void) {
  vta_test_rng_state ^= vta_test_rng_state >> 12;
  vta_test_rng_state ^= vta_test_rng_state << 25;
  vta_test_rng_state ^= vta_test_rng_state >> 27;
  return vta_test_rng_state * UINT64_C(2685821657736338717);
}

/* Uniform in [lo, hi). */
static inline int32_t vta_rand_range(int32_t lo, int32_t hi) {
  return lo + (int32_t) (vta_rand64() % (uint64_t) (hi - lo));
}

static inline struct q8nn_vta_insn vta_mem(uint32_t opcode, uint32_t mem, uint32_t sram, uint32_t dram,
                                           uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  struct q8nn_vta_insn in;
  memset(&in, 0, sizeof(in));
  in.opcode = opcode;
  in.memory_type = mem;
  in.sram_base = sram;
  in.dram_base = dram;
  in.x_size = x_size;
  in.y_size = y_size;
  in.x_stride = x_stride;
  return in;
}

static inline struct q8nn_vta_insn vta_compute(uint32_t opcode, uint32_t uop_bgn, uint32_t uop_end,
                                               uint32_t iter_out, uint32_t iter_in) {
  struct q8nn_vta_insn in;
  memset(&in, 0, sizeof(in));
  in.opcode = opcode;
  in.uop_bgn = uop_bgn;
  in.uop_end = uop_end;
  in.iter_out = iter_out;
  in.iter_in = iter_in;
  return in;
}

static inline struct q8nn_vta_insn vta_alu(uint32_t alu_op, uint32_t use_imm, int32_t imm, uint32_t uop_bgn,
                                           uint32_t uop_end, uint32_t iter_in) {
  struct q8nn_vta_insn in = vta_compute(q8nn_vta_op_alu, uop_bgn, uop_end, 1, iter_in);
  in.alu_opcode = alu_op;
  in.use_imm = use_imm;
  in.imm = imm;
  in.dst_factor_in = 1;
  in.src_factor_in = 1;
  return in;
}

static inline struct q8nn_vta_insn vta_finish(void) {
  struct q8nn_vta_insn in;
  memset(&in, 0, sizeof(in));
  in.opcode = q8nn_vta_op_finish;
  return in;
}

/* Encodes n instructions and runs them. */
static inline enum q8nn_status vta_run_insns(struct q8nn_vta_device* dev, const struct q8nn_vta_insn* insns,
                                             size_t n, struct q8nn_vta_run_info* info) {
  uint64_t* words = malloc(2 * n * sizeof(uint64_t));
  assert_non_null(words);
  for (size_t i = 0; i < n; i++) {
    char why[256];
    if (q8nn_vta_encode_insn(&dev->config, &insns[i], &words[2 * i], why, sizeof(why)) != q8nn_status_success) {
      free(words);
      fail_msg("instruction %zu: %s", i, why);
    }
  }
  const enum q8nn_status status = q8nn_vta_device_run(dev, words, n, info);
  free(words);
  return status;
}

static inline struct q8nn_vta_device* vta_make_device(const struct q8nn_vta_config* pub) {
  struct q8nn_vta_hw_config cfg;
  char error[256];
  assert_int_equal(q8nn_vta_config_from_public(&cfg, pub, error, sizeof(error)), q8nn_status_success);
  struct q8nn_vta_device* dev = NULL;
  assert_int_equal(q8nn_vta_device_create(&cfg, &dev), q8nn_status_success);
  return dev;
}

/* Writes micro-ops to a fresh DRAM region; returns its address. */
static inline uint32_t vta_stage_uops(struct q8nn_vta_device* dev, const struct q8nn_vta_uop* uops, size_t n) {
  uint32_t addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, n * 4, &addr), q8nn_status_success);
  for (size_t i = 0; i < n; i++) {
    uint32_t word;
    assert_int_equal(q8nn_vta_encode_uop(&dev->config, &uops[i], &word), q8nn_status_success);
    assert_int_equal(q8nn_vta_dram_write(dev, addr + 4 * i, &word, 4), q8nn_status_success);
  }
  return addr;
}

static inline void vta_expect_error(struct q8nn_vta_device* dev, enum q8nn_status status, const char* needle) {
  assert_int_equal(status, q8nn_status_backend_error);
  const char* message = q8nn_vta_device_last_error(dev);
  if (needle[0] != '\0' && strstr(message, needle) == NULL) {
    fail_msg("message \"%s\" lacks \"%s\"", message, needle);
  }
}

#endif
