/* VTA runtime layer: TVM's dependency / NOP rules (the 26-instruction ADD stream of spec §8.3),
   micro-op kernel cache and eviction, virtual-thread latency hiding, recording errors. */
#include "test-vta-util.h"

/* One-uop ALU kernel with one loop, like the alkali ADD kernels. */
struct alu_kernel {
  uint32_t extent, dst, src, opcode, use_imm;
  int32_t imm;
  int recorded;
};

static enum q8nn_status record_alu(struct q8nn_vta_cmd* cmd, void* context) {
  struct alu_kernel* k = context;
  k->recorded++;
  enum q8nn_status s = q8nn_vta_uop_loop_begin(cmd, k->extent, 1, 1, 0);
  if (s == q8nn_status_success) s = q8nn_vta_uop_push(cmd, 1, 0, k->dst, k->src, 0, k->opcode, k->use_imm, k->imm);
  if (s == q8nn_status_success) s = q8nn_vta_uop_loop_end(cmd);
  return s;
}

/* The alkali delegate's ADD for one chunk of `len` (multiple of 16) scalars. */
static void alkali_add(struct q8nn_vta_cmd* cmd, uint32_t a_addr, uint32_t b_addr, uint32_t out_addr, uint32_t len,
                       int32_t mo, int32_t ho, int32_t zp_out, uint64_t key_base) {
  const uint32_t P = len / 16;
  assert_int_equal(q8nn_vta_dep_push(cmd, 2, 1), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_push(cmd, 3, 2), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 1), q8nn_status_success);
  assert_int_equal(q8nn_vta_load_buffer_2d(cmd, a_addr, 0, P, 1, 1, 0, 0, 0, 0, 0, q8nn_vta_mem_acc), q8nn_status_success);
  assert_int_equal(q8nn_vta_load_buffer_2d(cmd, b_addr, 0, P, 1, 1, 0, 0, 0, 0, P, q8nn_vta_mem_acc), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_push(cmd, 1, 2), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 3, 2), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 1, 2), q8nn_status_success);
  struct alu_kernel kernels[6] = {
      {P, 0, P, q8nn_vta_alu_add, 0, 0, 0},          {P, 0, 0, q8nn_vta_alu_mul, 1, mo, 0},
      {P, 0, 0, q8nn_vta_alu_shr, 1, 15 - ho, 0},    {P, 0, 0, q8nn_vta_alu_add, 1, zp_out, 0},
      {P, 0, 0, q8nn_vta_alu_min, 1, 127, 0},        {P, 0, 0, q8nn_vta_alu_max, 1, -128, 0}};
  for (int i = 0; i < 6; i++) {
    assert_int_equal(q8nn_vta_push_alu_op(cmd, key_base + (uint64_t) i, record_alu, &kernels[i]), q8nn_status_success);
  }
  assert_int_equal(q8nn_vta_dep_push(cmd, 2, 3), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 3), q8nn_status_success);
  assert_int_equal(q8nn_vta_store_buffer_2d(cmd, 0, q8nn_vta_mem_out, out_addr, 0, P, 1, P), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_push(cmd, 3, 2), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_push(cmd, 2, 1), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 1), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 3, 2), q8nn_status_success);
}

struct expect {
  const char* name;
  uint32_t pop_prev, pop_next, push_prev, push_next;
};

static void test_vta_runtime_add_stream(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  struct q8nn_vta_cmd* cmd;
  assert_int_equal(q8nn_vta_cmd_create(dev, &cmd), q8nn_status_success);
  /* Spec §9.3 item 14 numerics, one chunk of 32 scalars per parameter set. */
  static const struct { int32_t x1, x2, mo, ho, zp, want; } rows[4] = {
      {640, 640, 16384, -6, 0, 10}, {-2484, 2048, 27307, -6, -7, -13},
      {8128, 8128, 16384, -5, -128, 126}, {-4417, -6913, 26214, -6, 3, -128}};
  uint32_t a, b, o;
  assert_int_equal(q8nn_vta_dram_alloc(dev, 32 * 4, &a), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, 32 * 4, &b), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, 32, &o), q8nn_status_success);
  for (int r = 0; r < 4; r++) {
    int32_t x1[32], x2[32];
    for (int i = 0; i < 32; i++) { x1[i] = rows[r].x1; x2[i] = rows[r].x2; }
    q8nn_vta_dram_write(dev, a, x1, sizeof(x1));
    q8nn_vta_dram_write(dev, b, x2, sizeof(x2));
    alkali_add(cmd, a, b, o, 32, rows[r].mo, rows[r].ho, rows[r].zp, 100 * (uint64_t) r);
    if (r == 0) {
      static const struct expect want[26] = {
          {"NOP(compute)", 0, 0, 1, 0}, {"NOP(store)", 0, 0, 1, 0}, {"LOAD ACC", 0, 0, 0, 0}, {"LOAD ACC", 0, 0, 0, 0},
          {"NOP(load)", 0, 1, 0, 0}, {"NOP(load)", 0, 0, 0, 1},
          {"LOAD UOP", 1, 1, 0, 0}, {"ALU ADD", 0, 0, 0, 0}, {"LOAD UOP", 0, 0, 0, 0}, {"ALU MUL", 0, 0, 0, 0},
          {"LOAD UOP", 0, 0, 0, 0}, {"ALU SHR", 0, 0, 0, 0}, {"LOAD UOP", 0, 0, 0, 0}, {"ALU ADD", 0, 0, 0, 0},
          {"LOAD UOP", 0, 0, 0, 0}, {"ALU MIN", 0, 0, 0, 0}, {"LOAD UOP", 0, 0, 0, 0}, {"ALU MAX", 0, 0, 0, 1},
          {"STORE", 1, 0, 1, 0}, {"NOP(compute)", 0, 0, 1, 0}, {"NOP(store)", 0, 0, 1, 0},
          {"NOP(load)", 0, 1, 0, 0}, {"NOP(load)", 0, 0, 0, 1}, {"NOP(compute)", 0, 1, 0, 0},
          {"NOP(compute)", 1, 1, 0, 0}, {"FINISH", 0, 0, 0, 0}};
      /* Synchronize's epilogue is added by finalize: check the stream there. */
      struct q8nn_vta_program program;
      assert_int_equal(q8nn_vta_cmd_finalize(cmd, &program), q8nn_status_success);
      assert_int_equal(program.count, 26);
      for (size_t i = 0; i < 26; i++) {
        struct q8nn_vta_insn in;
        q8nn_vta_decode_insn(&dev->config, &program.insns[2 * i], &in);
        if (strcmp(q8nn_vta_insn_name(&in), want[i].name) != 0 || in.pop_prev != want[i].pop_prev ||
            in.pop_next != want[i].pop_next || in.push_prev != want[i].push_prev || in.push_next != want[i].push_next) {
          fail_msg("instruction %zu: %s %u%u%u%u, want %s %u%u%u%u", i, q8nn_vta_insn_name(&in), in.pop_prev,
                   in.pop_next, in.push_prev, in.push_next, want[i].name, want[i].pop_prev, want[i].pop_next,
                   want[i].push_prev, want[i].push_next);
        }
      }
      struct q8nn_vta_run_info info;
      assert_int_equal(q8nn_vta_program_run(dev, &program, &info), q8nn_status_success);
      assert_int_equal(info.stats.instructions, 26);
      assert_int_equal(info.stats.alu_counter, 6 * 2);
      assert_int_equal(info.stats.uop_load_nbytes, 6 * 4);
      assert_true(info.warnings & q8nn_vta_warn_mul);
      q8nn_vta_program_release(dev, &program);
    } else {
      assert_int_equal(q8nn_vta_synchronize(cmd, NULL), q8nn_status_success);
    }
    int8_t out[32];
    q8nn_vta_dram_read(dev, o, out, sizeof(out));
    for (int i = 0; i < 32; i++) assert_int_equal(out[i], rows[r].want);
  }
  q8nn_vta_cmd_delete(cmd);
  q8nn_vta_device_delete(dev);
}

/* ---- blocked GEMM with 1 or 2 virtual threads (spec §7.6) ------------------------------- */

enum { kTiles = 8, kPix = 16, kInBlk = 4, kOutBlk = 4 };

struct gemm_kernel {
  uint32_t buf;
  int reset;
  int recorded;
};

/* acc[o][i] += sum_k inp[k][i] . wgt[o][k]; SRAM layouts: INP [k][i], WGT [o][k], ACC [o][i]. */
static enum q8nn_status record_gemm(struct q8nn_vta_cmd* cmd, void* context) {
  struct gemm_kernel* k = context;
  k->recorded++;
  const uint32_t acc0 = k->buf * kOutBlk * kPix, inp0 = k->buf * kInBlk * kPix, wgt0 = k->buf * kOutBlk * kInBlk;
  enum q8nn_status s = q8nn_status_success;
  if (!k->reset) s = q8nn_vta_uop_loop_begin(cmd, kInBlk, 0, kPix, 1);
  for (uint32_t o = 0; o < kOutBlk && s == q8nn_status_success; o++) {
    for (uint32_t i = 0; i < kPix && s == q8nn_status_success; i++) {
      s = q8nn_vta_uop_push(cmd, 0, (uint32_t) k->reset, acc0 + o * kPix + i, inp0 + i, wgt0 + o * kInBlk, 0, 0, 0);
    }
  }
  if (!k->reset && s == q8nn_status_success) s = q8nn_vta_uop_loop_end(cmd);
  return s;
}

static void blocked_gemm(const struct q8nn_vta_config* config, uint32_t vthreads, const int8_t* x, const int8_t* w,
                         int8_t* out, struct q8nn_vta_run_info* info, int* records) {
  struct q8nn_vta_device* dev = vta_make_device(config);
  struct q8nn_vta_cmd* cmd;
  assert_int_equal(q8nn_vta_cmd_create(dev, &cmd), q8nn_status_success);
  uint32_t xa, wa, oa;
  const size_t x_bytes = kTiles * kInBlk * kPix * 16, w_bytes = kOutBlk * kInBlk * 256, o_bytes = kTiles * kOutBlk * kPix * 16;
  assert_int_equal(q8nn_vta_dram_alloc(dev, x_bytes, &xa), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, w_bytes, &wa), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, o_bytes, &oa), q8nn_status_success);
  q8nn_vta_dram_write(dev, xa, x, x_bytes);
  q8nn_vta_dram_write(dev, wa, w, w_bytes);
  struct gemm_kernel gk[2][2] = {{{0, 1, 0}, {0, 0, 0}}, {{1, 1, 0}, {1, 0, 0}}};
  struct alu_kernel shr[2] = {{kOutBlk * kPix, 0, 0, q8nn_vta_alu_shr, 1, 9, 0},
                              {kOutBlk * kPix, kOutBlk * kPix, kOutBlk * kPix, q8nn_vta_alu_shr, 1, 9, 0}};
  for (uint32_t v = 0; v < vthreads; v++) {
    assert_int_equal(q8nn_vta_dep_push(cmd, 2, 1), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_push(cmd, 3, 2), q8nn_status_success);
  }
  for (uint32_t t = 0; t < kTiles; t++) {
    const uint32_t buf = t % vthreads;
    assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 1), q8nn_status_success);
    assert_int_equal(q8nn_vta_load_buffer_2d(cmd, xa, t * kInBlk * kPix, kInBlk * kPix, 1, kInBlk * kPix, 0, 0, 0, 0,
                                             buf * kInBlk * kPix, q8nn_vta_mem_inp), q8nn_status_success);
    assert_int_equal(q8nn_vta_load_buffer_2d(cmd, wa, 0, kOutBlk * kInBlk, 1, kOutBlk * kInBlk, 0, 0, 0, 0,
                                             buf * kOutBlk * kInBlk, q8nn_vta_mem_wgt), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_push(cmd, 1, 2), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_pop(cmd, 1, 2), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_pop(cmd, 3, 2), q8nn_status_success);
    assert_int_equal(q8nn_vta_push_gemm_op(cmd, 10 + buf, record_gemm, &gk[buf][0]), q8nn_status_success);
    assert_int_equal(q8nn_vta_push_gemm_op(cmd, 20 + buf, record_gemm, &gk[buf][1]), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_push(cmd, 2, 1), q8nn_status_success);
    assert_int_equal(q8nn_vta_push_alu_op(cmd, 30 + buf, record_alu, &shr[buf]), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_push(cmd, 2, 3), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 3), q8nn_status_success);
    assert_int_equal(q8nn_vta_store_buffer_2d(cmd, buf * kOutBlk * kPix, q8nn_vta_mem_out, oa, t * kOutBlk * kPix,
                                              kOutBlk * kPix, 1, kOutBlk * kPix), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_push(cmd, 3, 2), q8nn_status_success);
  }
  for (uint32_t v = 0; v < vthreads; v++) {
    assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 1), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_pop(cmd, 3, 2), q8nn_status_success);
  }
  if (q8nn_vta_synchronize(cmd, info) != q8nn_status_success) fail_msg("%s", q8nn_vta_device_last_error(dev));
  q8nn_vta_dram_read(dev, oa, out, o_bytes);
  *records = gk[0][0].recorded + gk[0][1].recorded + gk[1][0].recorded + gk[1][1].recorded + shr[0].recorded + shr[1].recorded;
  q8nn_vta_cmd_delete(cmd);
  q8nn_vta_device_delete(dev);
}

static void test_vta_runtime_virtual_threads(void** state) {
  (void) state;
  vta_test_seed("test_vta_runtime_virtual_threads");
  static int8_t x[kTiles * kInBlk * kPix * 16], w[kOutBlk * kInBlk * 256], out1[kTiles * kOutBlk * kPix * 16],
      out2[sizeof(out1)], out3[sizeof(out1)];
  for (size_t i = 0; i < sizeof(x); i++) x[i] = (int8_t) vta_rand_range(-128, 128);
  for (size_t i = 0; i < sizeof(w); i++) w[i] = (int8_t) vta_rand_range(-128, 128);
  struct q8nn_vta_run_info one, two, small;
  int rec1, rec2, rec3;
  blocked_gemm(NULL, 1, x, w, out1, &one, &rec1);
  blocked_gemm(NULL, 2, x, w, out2, &two, &rec2);
  /* A 128-entry micro-op SRAM cannot hold the kernels of both buffers: they are evicted and
     reloaded, recorded once. */
  const struct q8nn_vta_config tiny_uop = {.log_uop_buff_size = 9};
  blocked_gemm(&tiny_uop, 2, x, w, out3, &small, &rec3);
  for (uint32_t t = 0; t < kTiles; t++) {
    for (uint32_t o = 0; o < kOutBlk * 16; o++) {
      for (uint32_t i = 0; i < kPix; i++) {
        int32_t sum = 0;
        for (uint32_t k = 0; k < kInBlk * 16; k++) {
          sum += x[((t * kInBlk + k / 16) * kPix + i) * 16 + k % 16] * w[((o / 16) * kInBlk + k / 16) * 256 + (o % 16) * 16 + k % 16];
        }
        const int8_t want = (int8_t) (uint8_t) (uint32_t) (sum >> 9);
        assert_int_equal(out1[((t * kOutBlk + o / 16) * kPix + i) * 16 + o % 16], want);
      }
    }
  }
  assert_memory_equal(out1, out2, sizeof(out1));
  assert_memory_equal(out1, out3, sizeof(out1));
  assert_int_equal(one.stats.gemm_counter, kTiles * kOutBlk * kPix * kInBlk);
  assert_int_equal(two.stats.gemm_counter, one.stats.gemm_counter);
  assert_int_equal(one.stats.inp_load_nbytes, sizeof(x));
  /* Kernels stay resident: each is loaded once per program. */
  assert_int_equal(one.stats.uop_load_nbytes, 4 * (64 + 64 + 1));
  assert_int_equal(two.stats.uop_load_nbytes, 2 * 4 * (64 + 64 + 1));
  assert_int_equal(rec1, 3);
  assert_int_equal(rec2, 6);
  assert_int_equal(rec3, 6);
  assert_true(small.stats.uop_load_nbytes > two.stats.uop_load_nbytes);
  /* Latency hiding: with two buffers the loads of tile t+1 overlap the GEMM of tile t. */
  printf("blocked GEMM cycles: 1 virtual thread %llu, 2 virtual threads %llu\n",
         (unsigned long long) one.stats.cycles, (unsigned long long) two.stats.cycles);
  assert_true(two.stats.cycles * 10 < one.stats.cycles * 8);
  assert_true(two.stats.cycles >= two.busy_cycles[0]);
}

/* Same program on BATCH 2 and BLOCK 32/8 configurations through the runtime: ACC_8BIT bias,
   GEMM over one INP/WGT element, store. */
static enum q8nn_status record_single(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  return q8nn_vta_uop_push(cmd, 0, 0, 0, 0, 0, 0, 0, 0);
}

static void test_vta_runtime_configs(void** state) {
  (void) state;
  vta_test_seed("test_vta_runtime_configs");
  const struct q8nn_vta_config configs[] = {
      {.log_batch = 1}, {.log_block = 5},
      {.log_block = 3, .log_inp_buff_size = 14, .log_wgt_buff_size = 16, .log_acc_buff_size = 16}};
  for (size_t ci = 0; ci < 3; ci++) {
    struct q8nn_vta_device* dev = vta_make_device(&configs[ci]);
    const uint32_t B = dev->config.batch, BL = dev->config.block_in;
    struct q8nn_vta_cmd* cmd;
    assert_int_equal(q8nn_vta_cmd_create(dev, &cmd), q8nn_status_success);
    int8_t x[2 * 32], w[32 * 32], bias[2 * 32], out[2 * 32];
    for (uint32_t i = 0; i < B * BL; i++) { x[i] = (int8_t) vta_rand_range(-128, 128); bias[i] = (int8_t) vta_rand_range(-128, 128); }
    for (uint32_t i = 0; i < BL * BL; i++) w[i] = (int8_t) vta_rand_range(-128, 128);
    uint32_t xa, wa, ba, oa;
    q8nn_vta_dram_alloc(dev, 4096, &xa);
    q8nn_vta_dram_alloc(dev, 4096, &wa);
    q8nn_vta_dram_alloc(dev, 4096, &ba);
    q8nn_vta_dram_alloc(dev, 4096, &oa);
    q8nn_vta_dram_write(dev, xa, x, B * BL);
    q8nn_vta_dram_write(dev, wa, w, BL * BL);
    q8nn_vta_dram_write(dev, ba, bias, B * BL);
    assert_int_equal(q8nn_vta_load_buffer_2d(cmd, xa, 0, 1, 1, 1, 0, 0, 0, 0, 0, q8nn_vta_mem_inp), q8nn_status_success);
    assert_int_equal(q8nn_vta_load_buffer_2d(cmd, wa, 0, 1, 1, 1, 0, 0, 0, 0, 0, q8nn_vta_mem_wgt), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_push(cmd, 1, 2), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_pop(cmd, 1, 2), q8nn_status_success);
    assert_int_equal(q8nn_vta_load_buffer_2d(cmd, ba, 0, 1, 1, 1, 0, 0, 0, 0, 0, q8nn_vta_mem_acc_8bit), q8nn_status_success);
    assert_int_equal(q8nn_vta_push_gemm_op(cmd, 1, record_single, NULL), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_push(cmd, 2, 3), q8nn_status_success);
    assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 3), q8nn_status_success);
    assert_int_equal(q8nn_vta_store_buffer_2d(cmd, 0, q8nn_vta_mem_out, oa, 0, 1, 1, 1), q8nn_status_success);
    assert_int_equal(q8nn_vta_synchronize(cmd, NULL), q8nn_status_success);
    q8nn_vta_dram_read(dev, oa, out, B * BL);
    for (uint32_t b = 0; b < B; b++) {
      for (uint32_t o = 0; o < BL; o++) {
        int32_t sum = bias[b * BL + o];
        for (uint32_t k = 0; k < BL; k++) sum += x[b * BL + k] * w[o * BL + k];
        assert_int_equal(out[b * BL + o], (int8_t) (uint8_t) (uint32_t) sum);
      }
    }
    q8nn_vta_cmd_delete(cmd);
    q8nn_vta_device_delete(dev);
  }
}

static enum q8nn_status record_hazard(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  q8nn_vta_uop_push(cmd, 0, 0, 5, 0, 0, 0, 0, 0);
  q8nn_vta_uop_push(cmd, 0, 0, 6, 0, 0, 0, 0, 0);
  return q8nn_vta_uop_push(cmd, 0, 0, 5, 0, 0, 0, 0, 0);
}

static enum q8nn_status record_three_loops(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  q8nn_vta_uop_loop_begin(cmd, 2, 1, 1, 1);
  q8nn_vta_uop_loop_begin(cmd, 2, 1, 1, 1);
  return q8nn_vta_uop_loop_begin(cmd, 2, 1, 1, 1);
}

static enum q8nn_status record_mixed(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  q8nn_vta_uop_push(cmd, 1, 0, 0, 0, 0, q8nn_vta_alu_add, 1, 1);
  return q8nn_vta_uop_push(cmd, 1, 0, 1, 0, 0, q8nn_vta_alu_add, 1, 2);
}

static enum q8nn_status record_big_extent(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  q8nn_vta_uop_loop_begin(cmd, 20000, 1, 1, 1);
  q8nn_vta_uop_push(cmd, 0, 0, 0, 0, 0, 0, 0, 0);
  return q8nn_vta_uop_loop_end(cmd);
}

static void test_vta_runtime_errors(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  struct q8nn_vta_cmd* cmd;
  assert_int_equal(q8nn_vta_cmd_create(dev, &cmd), q8nn_status_success);
  vta_expect_error(dev, q8nn_vta_push_gemm_op(cmd, 1, record_hazard, NULL), "writes ACC row 5 like micro-op 0");
  vta_expect_error(dev, q8nn_vta_synchronize(cmd, NULL), "");  /* sticky until finalize */
  assert_int_equal(q8nn_vta_synchronize(cmd, NULL), q8nn_status_success);
  vta_expect_error(dev, q8nn_vta_push_gemm_op(cmd, 2, record_three_loops, NULL), "at most 2 loops");
  q8nn_vta_cmd_finalize(cmd, &(struct q8nn_vta_program){0});
  vta_expect_error(dev, q8nn_vta_push_alu_op(cmd, 3, record_mixed, NULL), "opcode/immediate differ");
  vta_expect_error(dev, q8nn_vta_push_gemm_op(cmd, 4, record_big_extent, NULL), "iter_out = 20000");
  vta_expect_error(dev, q8nn_vta_push_gemm_op(cmd, 5, NULL, NULL), "no recording function");
  vta_expect_error(dev, q8nn_vta_dep_push(cmd, 1, 3), "illegal queue pair");
  vta_expect_error(dev, q8nn_vta_dep_pop(cmd, 3, 1), "illegal queue pair");
  vta_expect_error(dev, q8nn_vta_load_buffer_2d(cmd, 4096 + 16, 0, 1, 1, 1, 0, 0, 0, 0, 0, q8nn_vta_mem_wgt), "not aligned");
  vta_expect_error(dev, q8nn_vta_load_buffer_2d(cmd, 4096, 0, 70000, 1, 1, 0, 0, 0, 0, 0, q8nn_vta_mem_inp), "exceeds its field");
  vta_expect_error(dev, q8nn_vta_load_buffer_2d(cmd, 4096, 0, 1, 1, 1, 16, 0, 0, 0, 0, q8nn_vta_mem_inp), "exceeds its field");
  vta_expect_error(dev, q8nn_vta_store_buffer_2d(cmd, 0, q8nn_vta_mem_acc, 4096, 0, 1, 1, 1), "only OUT");
  vta_expect_error(dev, q8nn_vta_uop_push(cmd, 0, 0, 0, 0, 0, 0, 0, 0), "outside a kernel");
  vta_expect_error(dev, q8nn_vta_cmd_finalize(cmd, &(struct q8nn_vta_program){0}), "");
  /* A program touching unallocated DRAM fails at run time, naming the instruction. */
  assert_int_equal(q8nn_vta_load_buffer_2d(cmd, 1u << 30, 0, 1, 1, 1, 0, 0, 0, 0, 0, q8nn_vta_mem_acc), q8nn_status_success);
  vta_expect_error(dev, q8nn_vta_synchronize(cmd, NULL), "instruction 0 (LOAD ACC): DRAM bytes");
  q8nn_vta_cmd_delete(cmd);
  q8nn_vta_device_delete(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vta_runtime_add_stream),
      cmocka_unit_test(test_vta_runtime_virtual_threads),
      cmocka_unit_test(test_vta_runtime_configs),
      cmocka_unit_test(test_vta_runtime_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
