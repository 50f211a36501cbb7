/* VTA configuration and encodings: spec §1.3 limits, §3 default bit positions, random round trips. */
#include "test-vta-util.h"

/* Independent of the library: sets bits [pos, pos+width) of a 128-bit pattern. */
static void put(uint64_t w[2], uint32_t pos, uint32_t width, uint64_t value) {
  for (uint32_t b = 0; b < width; b++) {
    if ((value >> b) & 1) w[(pos + b) / 64] |= UINT64_C(1) << ((pos + b) % 64);
  }
}

static void test_vta_config_default(void** state) {
  (void) state;
  struct q8nn_vta_hw_config c;
  char error[256];
  const struct q8nn_vta_config zero = {0};
  assert_int_equal(q8nn_vta_config_from_public(&c, &zero, error, sizeof(error)), q8nn_status_success);
  assert_int_equal(c.batch, 1);
  assert_int_equal(c.block_in, 16);
  assert_int_equal(c.uop_depth, 8192);
  assert_int_equal(c.inp_depth, 2048);
  assert_int_equal(c.wgt_depth, 1024);
  assert_int_equal(c.acc_depth, 2048);
  assert_int_equal(c.inp_elem_bytes, 16);
  assert_int_equal(c.wgt_elem_bytes, 256);
  assert_int_equal(c.acc_elem_bytes, 64);
  assert_int_equal(c.out_elem_bytes, 16);
  assert_int_equal(c.virtual_threads, 2);
  char name[64];
  q8nn_vta_config_name(&c, name, sizeof(name));
  assert_string_equal(name, "1x16_i8w8a32_15_15_18_17");
  assert_int_equal(q8nn_vta_dram_elem_bytes(&c, q8nn_vta_mem_acc_8bit), 16);
}

static void test_vta_config_limits(void** state) {
  (void) state;
  struct q8nn_vta_hw_config c;
  char error[256] = "";
  /* BLOCK 8 with default buffer sizes: 4096-deep buffers overflow the ALU/GEMM word 1. */
  struct q8nn_vta_config p = {.log_block = 3};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
  assert_non_null(strstr(error, "128 bits"));
  /* Shrinking the buffers makes it legal: acc 2^11, inp 2^11, wgt 2^10. */
  p = (struct q8nn_vta_config){.log_block = 3, .log_inp_buff_size = 14, .log_wgt_buff_size = 16, .log_acc_buff_size = 16};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_success);
  assert_int_equal(c.acc_depth, 2048);
  /* Micro-op SRAM deeper than 2^13 overflows GEMM word 0. */
  p = (struct q8nn_vta_config){.log_uop_buff_size = 16};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
  /* INP shallower than ACC: HLS micro-op decode disagrees (spec §1.3 item 3). */
  p = (struct q8nn_vta_config){.log_inp_buff_size = 14};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
  assert_non_null(strstr(error, "LOG_INP_BUFF_DEPTH"));
  /* Depth above 2^16 does not fit the 16-bit SRAM field. */
  p = (struct q8nn_vta_config){.log_acc_buff_size = 23, .log_inp_buff_size = 21};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
  /* Sizes of 2^31 and up (a .q8vta header or the public struct) used to overflow the signed
     depth arithmetic (UBSan); found by tests/fuzz/fuzz-vta-program. */
  const uint32_t huge[3] = {UINT32_C(0x80000000), UINT32_C(0x80000002), UINT32_MAX};
  for (int i = 0; i < 3; i++) {
    p = (struct q8nn_vta_config){.log_uop_buff_size = huge[i]};
    assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
    p = (struct q8nn_vta_config){.log_inp_buff_size = huge[i], .log_acc_buff_size = huge[i]};
    assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
    p = (struct q8nn_vta_config){.log_wgt_buff_size = huge[i]};
    assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
  }
  p = (struct q8nn_vta_config){.virtual_threads = 3};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_unsupported_parameter);
  /* BATCH 2 and BLOCK 32 are legal with the default sizes. */
  p = (struct q8nn_vta_config){.log_batch = 1, .virtual_threads = 1};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_success);
  assert_int_equal(c.inp_depth, 1024);
  assert_int_equal(c.acc_elem_bytes, 128);
  assert_int_equal(c.virtual_threads, 1);
  p = (struct q8nn_vta_config){.log_block = 5};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, error, sizeof(error)), q8nn_status_success);
  assert_int_equal(c.wgt_depth, 256);
  /* Other element widths are rejected. */
  q8nn_vta_config_default(&c);
  c.log_acc_width = 4;
  assert_int_equal(q8nn_vta_config_derive(&c, error, sizeof(error)), q8nn_status_unsupported_parameter);
}

static void test_vta_isa_default_positions(void** state) {
  (void) state;
  struct q8nn_vta_hw_config c;
  q8nn_vta_config_default(&c);
  /* Spec §3.3: distinct values in every field. */
  struct q8nn_vta_insn m = vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 0xBEEF, 0xDEADBEEF, 0x1234, 0x5678, 0x9ABC);
  m.pop_prev = 1; m.push_next = 1;
  m.y_pad_0 = 1; m.y_pad_1 = 2; m.x_pad_0 = 3; m.x_pad_1 = 15;
  uint64_t want[2] = {0, 0}, got[2];
  put(want, 0, 3, 0); put(want, 3, 1, 1); put(want, 6, 1, 1); put(want, 7, 3, 3);
  put(want, 10, 16, 0xBEEF); put(want, 26, 32, 0xDEADBEEF); put(want, 64, 16, 0x5678);
  put(want, 80, 16, 0x1234); put(want, 96, 16, 0x9ABC); put(want, 112, 4, 1); put(want, 116, 4, 2);
  put(want, 120, 4, 3); put(want, 124, 4, 15);
  assert_int_equal(q8nn_vta_encode_insn(&c, &m, got, NULL, 0), q8nn_status_success);
  assert_memory_equal(want, got, sizeof(want));
  assert_int_equal(got[0] >> 58, 0); /* the 6-bit hole */

  /* Spec §3.4 GEMM. */
  struct q8nn_vta_insn g = vta_compute(q8nn_vta_op_gemm, 0x1ABC, 0x2DEF, 0x3001, 0x2002);
  g.reset = 1; g.pop_next = 1; g.push_prev = 1;
  g.dst_factor_out = 0x7F1; g.dst_factor_in = 0x412; g.src_factor_out = 0x523; g.src_factor_in = 0x634;
  g.wgt_factor_out = 0x345; g.wgt_factor_in = 0x256;
  memset(want, 0, sizeof(want));
  put(want, 0, 3, 2); put(want, 4, 1, 1); put(want, 5, 1, 1); put(want, 7, 1, 1);
  put(want, 8, 13, 0x1ABC); put(want, 21, 14, 0x2DEF); put(want, 35, 14, 0x3001); put(want, 49, 14, 0x2002);
  put(want, 64, 11, 0x7F1); put(want, 75, 11, 0x412); put(want, 86, 11, 0x523); put(want, 97, 11, 0x634);
  put(want, 108, 10, 0x345); put(want, 118, 10, 0x256);
  assert_int_equal(q8nn_vta_encode_insn(&c, &g, got, NULL, 0), q8nn_status_success);
  assert_memory_equal(want, got, sizeof(want));
  assert_int_equal(got[0] >> 63, 0);

  /* Spec §3.5 ALU. */
  struct q8nn_vta_insn a = vta_alu(q8nn_vta_alu_mul, 1, -2, 5, 6, 7);
  a.dst_factor_out = 0x101; a.src_factor_out = 0x202;
  memset(want, 0, sizeof(want));
  put(want, 0, 3, 4); put(want, 8, 13, 5); put(want, 21, 14, 6); put(want, 35, 14, 1); put(want, 49, 14, 7);
  put(want, 64, 11, 0x101); put(want, 75, 11, 1); put(want, 86, 11, 0x202); put(want, 97, 11, 1);
  put(want, 108, 3, 4); put(want, 111, 1, 1); put(want, 112, 16, 0xFFFE);
  assert_int_equal(q8nn_vta_encode_insn(&c, &a, got, NULL, 0), q8nn_status_success);
  assert_memory_equal(want, got, sizeof(want));

  /* Spec §3.7 micro-op. */
  const struct q8nn_vta_uop u = {0x5A5, 0x3C3, 0x2F1};
  uint32_t word;
  assert_int_equal(q8nn_vta_encode_uop(&c, &u, &word), q8nn_status_success);
  assert_int_equal(word, 0x5A5u | (0x3C3u << 11) | (0x2F1u << 22));

  /* Fields that do not fit are rejected. */
  g.uop_bgn = 0x2000;
  assert_int_equal(q8nn_vta_encode_insn(&c, &g, got, NULL, 0), q8nn_status_invalid_parameter);
  a.imm = 40000;
  assert_int_equal(q8nn_vta_encode_insn(&c, &a, got, NULL, 0), q8nn_status_invalid_parameter);
  const struct q8nn_vta_uop big = {2048, 0, 0};
  assert_int_equal(q8nn_vta_encode_uop(&c, &big, &word), q8nn_status_invalid_parameter);
}

static uint32_t rand_bits(uint32_t width) { return (uint32_t) (vta_rand64() & ((UINT64_C(1) << width) - 1)); }

static void round_trips(const struct q8nn_vta_hw_config* c) {
  for (int iter = 0; iter < 2000; iter++) {
    struct q8nn_vta_insn in;
    memset(&in, 0, sizeof(in));
    static const uint32_t opcodes[5] = {0, 1, 2, 3, 4};
    in.opcode = opcodes[vta_rand64() % 5];
    in.pop_prev = rand_bits(1); in.pop_next = rand_bits(1);
    in.push_prev = rand_bits(1); in.push_next = rand_bits(1);
    if (in.opcode <= 1) {
      in.memory_type = rand_bits(3); in.sram_base = rand_bits(16); in.dram_base = rand_bits(32);
      in.y_size = rand_bits(16); in.x_size = rand_bits(16); in.x_stride = rand_bits(16);
      in.y_pad_0 = rand_bits(4); in.y_pad_1 = rand_bits(4); in.x_pad_0 = rand_bits(4); in.x_pad_1 = rand_bits(4);
    } else if (in.opcode != 3) {
      in.reset = rand_bits(1);
      in.uop_bgn = rand_bits(c->log_uop_depth); in.uop_end = rand_bits(c->log_uop_depth + 1);
      in.iter_out = rand_bits(14); in.iter_in = rand_bits(14);
      in.dst_factor_out = rand_bits(c->log_acc_depth); in.dst_factor_in = rand_bits(c->log_acc_depth);
      const uint32_t src_bits = in.opcode == 2 ? c->log_inp_depth : c->log_acc_depth;
      in.src_factor_out = rand_bits(src_bits); in.src_factor_in = rand_bits(src_bits);
      if (in.opcode == 2) {
        in.wgt_factor_out = rand_bits(c->log_wgt_depth); in.wgt_factor_in = rand_bits(c->log_wgt_depth);
      } else {
        in.alu_opcode = rand_bits(3); in.use_imm = rand_bits(1); in.imm = (int16_t) rand_bits(16);
      }
    }
    uint64_t words[2];
    struct q8nn_vta_insn out;
    assert_int_equal(q8nn_vta_encode_insn(c, &in, words, NULL, 0), q8nn_status_success);
    q8nn_vta_decode_insn(c, words, &out);
    assert_memory_equal(&in, &out, sizeof(in));
    struct q8nn_vta_uop u = {rand_bits(c->log_acc_depth), rand_bits(c->log_inp_depth), rand_bits(c->log_wgt_depth)}, v;
    uint32_t word;
    assert_int_equal(q8nn_vta_encode_uop(c, &u, &word), q8nn_status_success);
    q8nn_vta_decode_uop(c, word, &v);
    assert_memory_equal(&u, &v, sizeof(u));
  }
}

static void test_vta_isa_round_trip(void** state) {
  (void) state;
  vta_test_seed("test_vta_isa_round_trip");
  const struct q8nn_vta_config configs[] = {
      {0},
      {.log_batch = 1},
      {.log_block = 5},
      {.log_block = 3, .log_inp_buff_size = 14, .log_wgt_buff_size = 16, .log_acc_buff_size = 16},
      {.log_uop_buff_size = 12, .log_acc_buff_size = 15},
  };
  for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
    struct q8nn_vta_hw_config c;
    assert_int_equal(q8nn_vta_config_from_public(&c, &configs[i], NULL, 0), q8nn_status_success);
    round_trips(&c);
  }
}

/* Smaller depths move fields by the §3.8 rule: nothing straddles bit 64 and word 1 starts anew. */
static void test_vta_isa_placement_rule(void** state) {
  (void) state;
  struct q8nn_vta_hw_config c;
  const struct q8nn_vta_config p = {.log_uop_buff_size = 12, .log_acc_buff_size = 15};
  assert_int_equal(q8nn_vta_config_from_public(&c, &p, NULL, 0), q8nn_status_success);
  assert_int_equal(c.log_uop_depth, 10);
  assert_int_equal(c.log_acc_depth, 9);
  assert_int_equal(c.gemm_layout.pos[q8nn_vta_cf_uop_end], 18);
  assert_int_equal(c.gemm_layout.pos[q8nn_vta_cf_iter_out], 29);
  assert_int_equal(c.gemm_layout.pos[q8nn_vta_cf_iter_in], 43);
  /* 57 + 9 > 64: dst_factor_out moves to word 1. */
  assert_int_equal(c.gemm_layout.pos[q8nn_vta_cf_dst_factor_out], 64);
  assert_int_equal(c.alu_layout.pos[q8nn_vta_cf_alu_opcode], 64 + 4 * 9);
  assert_int_equal(c.uop_layout.pos[q8nn_vta_uf_src], 9);
  assert_int_equal(c.uop_layout.pos[q8nn_vta_uf_wgt], 20);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vta_config_default),
      cmocka_unit_test(test_vta_config_limits),
      cmocka_unit_test(test_vta_isa_default_positions),
      cmocka_unit_test(test_vta_isa_round_trip),
      cmocka_unit_test(test_vta_isa_placement_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
