/* VTA model semantics (spec §5, §9) on hand-written instruction streams, and every fault class. */
#include "test-vta-util.h"

struct prog {
  struct q8nn_vta_insn insn[64];
  size_t n;
};

static void add(struct prog* p, struct q8nn_vta_insn in) { p->insn[p->n++] = in; }

static const struct q8nn_vta_config test_configs[] = {
    {0},
    {.log_batch = 1},
    {.log_block = 5},
    {.log_block = 3, .log_inp_buff_size = 14, .log_wgt_buff_size = 16, .log_acc_buff_size = 16},
};
#define NUM_CONFIGS (sizeof(test_configs) / sizeof(test_configs[0]))

static int8_t wrap8(int64_t v) { return (int8_t) (uint8_t) (uint64_t) v; }
static int32_t wrap32(int64_t v) { return (int32_t) (uint32_t) (uint64_t) v; }

/* LOAD UOP, LOAD ACC (rows_in rows), the ALU instructions, STORE rows_out rows, FINISH — the
   §7.7 shape. Returns the status; out receives rows_out * lanes int8. */
static enum q8nn_status alu_program(struct q8nn_vta_device* dev, const int32_t* in, uint32_t rows_in,
                                    const struct q8nn_vta_uop* uops, uint32_t nuops,
                                    const struct q8nn_vta_insn* alus, size_t nalus, uint32_t rows_out,
                                    int8_t* out, struct q8nn_vta_run_info* info) {
  const struct q8nn_vta_hw_config* c = &dev->config;
  const uint32_t uop_addr = vta_stage_uops(dev, uops, nuops);
  uint32_t acc_addr, out_addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, (size_t) rows_in * c->acc_elem_bytes, &acc_addr), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, (size_t) rows_out * c->out_elem_bytes, &out_addr), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_write(dev, acc_addr, in, (size_t) rows_in * c->acc_elem_bytes), q8nn_status_success);
  struct prog p = {.n = 0};
  add(&p, vta_mem(q8nn_vta_op_load, q8nn_vta_mem_uop, 0, uop_addr / 4, nuops, 1, nuops));
  add(&p, vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 0, acc_addr / c->acc_elem_bytes, rows_in, 1, rows_in));
  for (size_t i = 0; i < nalus; i++) add(&p, alus[i]);
  p.insn[p.n - 1].push_next = 1;
  struct q8nn_vta_insn st = vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, out_addr / c->out_elem_bytes, rows_out, 1, rows_out);
  st.pop_prev = st.push_prev = 1;
  add(&p, st);
  struct q8nn_vta_insn fin = vta_finish();
  fin.pop_next = 1;
  add(&p, fin);
  const enum q8nn_status status = vta_run_insns(dev, p.insn, p.n, info);
  if (status == q8nn_status_success) {
    assert_int_equal(q8nn_vta_dram_read(dev, out_addr, out, (size_t) rows_out * c->out_elem_bytes), q8nn_status_success);
  }
  q8nn_vta_dram_free(dev, uop_addr);
  q8nn_vta_dram_free(dev, acc_addr);
  q8nn_vta_dram_free(dev, out_addr);
  return status;
}

static void test_vta_sim_save_load_out(void** state) {
  (void) state;
  vta_test_seed("test_vta_sim_save_load_out");
  for (size_t ci = 0; ci < NUM_CONFIGS; ci++) {
    struct q8nn_vta_device* dev = vta_make_device(&test_configs[ci]);
    const uint32_t lanes = dev->config.acc_lanes, rows = 36;
    int32_t* x = malloc(rows * lanes * sizeof(int32_t));
    int8_t* out = malloc(rows * lanes);
    for (uint32_t i = 0; i < rows * lanes; i++) x[i] = vta_rand_range(1, 10);
    const struct q8nn_vta_uop uop = {0, 0, 0};
    const struct q8nn_vta_insn shr = vta_alu(q8nn_vta_alu_shr, 1, 0, 0, 1, rows);
    struct q8nn_vta_run_info info;
    assert_int_equal(alu_program(dev, x, rows, &uop, 1, &shr, 1, rows, out, &info), q8nn_status_success);
    for (uint32_t i = 0; i < rows * lanes; i++) assert_int_equal(out[i], (int8_t) x[i]);
    assert_int_equal(info.stats.acc_load_nbytes, rows * dev->config.acc_elem_bytes);
    assert_int_equal(info.stats.uop_load_nbytes, 4);
    assert_int_equal(info.stats.out_store_nbytes, rows * lanes);
    assert_int_equal(info.stats.alu_counter, rows);
    assert_int_equal(info.stats.gemm_counter, 0);
    assert_int_equal(info.stats.instructions, 5);
    assert_int_equal(info.warnings, 0);
    free(x);
    free(out);
    q8nn_vta_device_delete(dev);
  }
}

/* The §7.7 worked example, with its cycle figure derived by hand from docs/vta-model.md. */
static void test_vta_sim_worked_example_cycles(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  int32_t* x = malloc(256 * 16 * sizeof(int32_t));
  int8_t out[128 * 16];
  for (int i = 0; i < 256 * 16; i++) x[i] = (i * 7) % 50 - 25;
  const struct q8nn_vta_uop uop = {0, 128, 0};
  const struct q8nn_vta_insn add_op = vta_alu(q8nn_vta_alu_add, 0, 0, 0, 1, 128);
  struct q8nn_vta_run_info info;
  assert_int_equal(alu_program(dev, x, 256, &uop, 1, &add_op, 1, 128, out, &info), q8nn_status_success);
  for (int i = 0; i < 128 * 16; i++) assert_int_equal(out[i], wrap8((int64_t) x[i] + x[i + 128 * 16]));
  /* LOAD UOP 1+32+1, LOAD ACC 1+32+2048, ALU 1+2*128, STORE 1+32+256, FINISH 1. */
  assert_int_equal(info.stats.cycles, 34 + 2081 + 257 + 289 + 1);
  assert_int_equal(info.busy_cycles[0], 0);
  assert_int_equal(info.busy_cycles[2], 289);
  struct q8nn_vta_stats total;
  q8nn_vta_device_get_stats(dev, &total);
  assert_int_equal(total.cycles, info.stats.cycles);
  q8nn_vta_device_reset_stats(dev);
  q8nn_vta_device_get_stats(dev, &total);
  assert_int_equal(total.instructions, 0);
  free(x);
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_padded_load(void** state) {
  (void) state;
  vta_test_seed("test_vta_sim_padded_load");
  /* (y_pad_0, y_pad_1, x_pad_0, x_pad_1) variants of TVM's test plus a mixed one. */
  static const uint32_t pads[][4] = {{2, 0, 0, 0}, {0, 0, 2, 0}, {0, 2, 0, 0}, {0, 0, 0, 2}, {1, 1, 1, 1}, {3, 1, 2, 5}};
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  const uint32_t ys = 3, xs = 5, lanes = 16;
  int32_t x[3 * 5 * 16];
  for (uint32_t i = 0; i < ys * xs * lanes; i++) x[i] = vta_rand_range(0, 10);
  uint32_t acc_addr, out_addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, sizeof(x), &acc_addr), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_write(dev, acc_addr, x, sizeof(x)), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, 4096, &out_addr), q8nn_status_success);
  const struct q8nn_vta_uop uop = {0, 0, 0};
  const uint32_t uop_addr = vta_stage_uops(dev, &uop, 1);
  for (size_t v = 0; v < sizeof(pads) / sizeof(pads[0]); v++) {
    const uint32_t row_len = pads[v][2] + xs + pads[v][3], rows = pads[v][0] + ys + pads[v][1];
    struct prog p = {.n = 0};
    add(&p, vta_mem(q8nn_vta_op_load, q8nn_vta_mem_uop, 0, uop_addr / 4, 1, 1, 1));
    struct q8nn_vta_insn ld = vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 0, acc_addr / 64, xs, ys, xs);
    ld.y_pad_0 = pads[v][0]; ld.y_pad_1 = pads[v][1]; ld.x_pad_0 = pads[v][2]; ld.x_pad_1 = pads[v][3];
    add(&p, ld);
    struct q8nn_vta_insn shr = vta_alu(q8nn_vta_alu_shr, 1, 0, 0, 1, row_len * rows);
    shr.push_next = 1;
    add(&p, shr);
    struct q8nn_vta_insn st = vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, out_addr / 16, row_len * rows, 1, 0);
    st.pop_prev = st.push_prev = 1;
    add(&p, st);
    struct q8nn_vta_insn fin = vta_finish();
    fin.pop_next = 1;
    add(&p, fin);
    struct q8nn_vta_run_info info;
    assert_int_equal(vta_run_insns(dev, p.insn, p.n, &info), q8nn_status_success);
    int8_t out[4096];
    assert_int_equal(q8nn_vta_dram_read(dev, out_addr, out, row_len * rows * 16), q8nn_status_success);
    for (uint32_t r = 0; r < rows; r++) {
      for (uint32_t c = 0; c < row_len; c++) {
        const int inside = r >= pads[v][0] && r < pads[v][0] + ys && c >= pads[v][2] && c < pads[v][2] + xs;
        for (uint32_t l = 0; l < lanes; l++) {
          const int32_t want = inside ? x[((r - pads[v][0]) * xs + (c - pads[v][2])) * lanes + l] : 0;
          assert_int_equal(out[(r * row_len + c) * lanes + l], want);
        }
      }
    }
    /* Padding is not counted. */
    assert_int_equal(info.stats.acc_load_nbytes, xs * ys * 64);
  }
  q8nn_vta_device_delete(dev);
}

/* LOAD INP with all pads and x_stride above and below x_size (spec §9.3 item 2). */
static void test_vta_sim_load_inp_strides(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  int8_t src[40 * 16];
  for (int i = 0; i < 40 * 16; i++) src[i] = (int8_t) (i * 13 + 5);
  uint32_t addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, sizeof(src), &addr), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_write(dev, addr, src, sizeof(src)), q8nn_status_success);
  static const uint32_t strides[2] = {7, 2};
  for (int s = 0; s < 2; s++) {
    struct q8nn_vta_insn ld = vta_mem(q8nn_vta_op_load, q8nn_vta_mem_inp, 10, addr / 16 + 1, 4, 3, strides[s]);
    ld.y_pad_0 = 1; ld.y_pad_1 = 2; ld.x_pad_0 = 1; ld.x_pad_1 = 3;
    struct q8nn_vta_insn fin = vta_finish();
    const struct q8nn_vta_insn prog[2] = {ld, fin};
    struct q8nn_vta_run_info info;
    /* The load module has no tokens to FINISH: the model rejects the race... */
    vta_expect_error(dev, vta_run_insns(dev, prog, 2, &info), "not ordered after instruction 0");
    /* ...so order it: load pushes l2g, FINISH pops it. */
    struct q8nn_vta_insn ordered[2] = {ld, fin};
    ordered[0].push_next = 1;
    ordered[1].pop_prev = 1;
    assert_int_equal(vta_run_insns(dev, ordered, 2, &info), q8nn_status_success);
    assert_int_equal(info.stats.inp_load_nbytes, 4 * 3 * 16);
    const uint32_t row_len = 8;
    for (uint32_t r = 0; r < 6; r++) {
      for (uint32_t c = 0; c < row_len; c++) {
        const int8_t* got = dev->inp + (size_t) (10 + r * row_len + c) * 16;
        const int inside = r >= 1 && r < 4 && c >= 1 && c < 5;
        for (int l = 0; l < 16; l++) {
          const int8_t want = inside ? src[(1 + (r - 1) * strides[s] + (c - 1)) * 16 + l] : 0;
          assert_int_equal(got[l], want);
        }
      }
    }
  }
  q8nn_vta_device_delete(dev);
}

static int64_t alu_ref(uint32_t op, int64_t a, int64_t b) {
  switch (op) {
    case q8nn_vta_alu_min: return a < b ? a : b;
    case q8nn_vta_alu_max: return a > b ? a : b;
    case q8nn_vta_alu_add: return wrap32(a + b);
    case q8nn_vta_alu_shr:
      if (b >= 0) return b >= 32 ? (a < 0 ? -1 : 0) : (int64_t) ((int32_t) a >> b);
      return b <= -32 ? 0 : wrap32((int64_t) ((uint64_t) (uint32_t) (int32_t) a << -b));
    default: return wrap32((int64_t) ((uint32_t) (int32_t) a * (uint32_t) (int32_t) b));
  }
}

/* TVM's ALU test: 8x8 tiles of a and b, every op in immediate and tensor form; the int8 result
   wraps around (spec §9.1). */
static void test_vta_sim_alu_ops(void** state) {
  (void) state;
  vta_test_seed("test_vta_sim_alu_ops");
  for (size_t ci = 0; ci < NUM_CONFIGS; ci++) {
    struct q8nn_vta_device* dev = vta_make_device(&test_configs[ci]);
    const uint32_t lanes = dev->config.acc_lanes, rows = 64;
    int32_t* ab = malloc(2 * rows * lanes * sizeof(int32_t));
    int8_t* out = malloc(rows * lanes);
    for (uint32_t op = 0; op <= q8nn_vta_alu_mul; op++) {
      for (uint32_t use_imm = 0; use_imm < 2; use_imm++) {
        for (uint32_t i = 0; i < 2 * rows * lanes; i++) {
          ab[i] = vta_rand_range(-16, 16);
          /* tensor shift amounts in both directions */
          if (op == q8nn_vta_alu_shr && i >= rows * lanes) ab[i] = vta_rand_range(-10, 10);
          if (op == q8nn_vta_alu_mul && i < rows * lanes) ab[i] = vta_rand_range(-100000, 100000);
        }
        int32_t imm = vta_rand_range(1, 5);
        if (op == q8nn_vta_alu_shr && use_imm && (vta_rand64() & 1)) imm = -imm; /* SHL */
        if (op == q8nn_vta_alu_mul && use_imm) imm = 30000;
        const struct q8nn_vta_uop uop = {0, rows, 0};
        const struct q8nn_vta_insn alu = vta_alu(op, use_imm, imm, 0, 1, rows);
        struct q8nn_vta_run_info info;
        assert_int_equal(alu_program(dev, ab, 2 * rows, &uop, 1, &alu, 1, rows, out, &info), q8nn_status_success);
        for (uint32_t i = 0; i < rows * lanes; i++) {
          const int64_t b = use_imm ? imm : ab[rows * lanes + i];
          assert_int_equal(out[i], wrap8(alu_ref(op, ab[i], b)));
        }
        if (op == q8nn_vta_alu_mul) assert_true(info.warnings & q8nn_vta_warn_mul);
        if (op == q8nn_vta_alu_shr && !use_imm) assert_true(info.warnings & q8nn_vta_warn_shift_range);
      }
    }
    free(ab);
    free(out);
    q8nn_vta_device_delete(dev);
  }
}

/* Shift edge cases (spec §9.3 item 5): imm -16..15, 0 = copy, and the model's |b| >= 32 rule. */
static void test_vta_sim_alu_shift_edges(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  int32_t a[2 * 16];
  int8_t out[16];
  for (int i = 0; i < 16; i++) a[i] = (i - 8) * 1000003;
  for (int32_t imm = -16; imm <= 15; imm++) {
    const struct q8nn_vta_uop uop = {0, 1, 0};
    const struct q8nn_vta_insn alu = vta_alu(q8nn_vta_alu_shr, 1, imm, 0, 1, 1);
    struct q8nn_vta_run_info info;
    assert_int_equal(alu_program(dev, a, 2, &uop, 1, &alu, 1, 1, out, &info), q8nn_status_success);
    for (int i = 0; i < 16; i++) assert_int_equal(out[i], wrap8(alu_ref(q8nn_vta_alu_shr, a[i], imm)));
    assert_int_equal(info.warnings & q8nn_vta_warn_shift_range, 0);
  }
  const int32_t bigs[4] = {31, 40, -31, -40};
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < 16; i++) a[16 + i] = bigs[k];
    a[0] = -5; a[1] = 5;
    const struct q8nn_vta_uop uop = {0, 1, 0};
    const struct q8nn_vta_insn alu = vta_alu(q8nn_vta_alu_shr, 0, 0, 0, 1, 1);
    struct q8nn_vta_run_info info;
    assert_int_equal(alu_program(dev, a, 2, &uop, 1, &alu, 1, 1, out, &info), q8nn_status_success);
    assert_int_equal(dev->acc[0], (int32_t) alu_ref(q8nn_vta_alu_shr, -5, bigs[k]));
    assert_int_equal(dev->acc[1], (int32_t) alu_ref(q8nn_vta_alu_shr, 5, bigs[k]));
    assert_true(info.warnings & q8nn_vta_warn_shift_range);
  }
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_relu_and_shift_scale(void** state) {
  (void) state;
  vta_test_seed("test_vta_sim_relu_and_shift_scale");
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  const uint32_t rows = 80;
  int32_t a[80 * 16];
  int8_t out[80 * 16];
  for (uint32_t i = 0; i < rows * 16; i++) a[i] = vta_rand_range(-256, 256);
  const struct q8nn_vta_uop uop = {0, 0, 0};
  const struct q8nn_vta_insn relu[2] = {vta_alu(q8nn_vta_alu_max, 1, 0, 0, 1, rows),
                                        vta_alu(q8nn_vta_alu_min, 1, 127, 0, 1, rows)};
  assert_int_equal(alu_program(dev, a, rows, &uop, 1, relu, 2, rows, out, NULL), q8nn_status_success);
  for (uint32_t i = 0; i < rows * 16; i++) assert_int_equal(out[i], a[i] < 0 ? 0 : a[i] > 127 ? 127 : a[i]);

  const int32_t k1 = vta_rand_range(0, 8), k2 = vta_rand_range(1, 5);
  for (uint32_t i = 0; i < 16 * 16; i++) a[i] = vta_rand_range(-10, 10);
  const struct q8nn_vta_insn scale[2] = {vta_alu(q8nn_vta_alu_add, 1, k1, 0, 1, 16),
                                         vta_alu(q8nn_vta_alu_shr, 1, k2, 0, 1, 16)};
  assert_int_equal(alu_program(dev, a, 16, &uop, 1, scale, 2, 16, out, NULL), q8nn_status_success);
  for (uint32_t i = 0; i < 16 * 16; i++) assert_int_equal(out[i], (a[i] + k1) >> k2);
  q8nn_vta_device_delete(dev);
}

/* Spec §9.3 item 4 and §2.2: truncation, and the stale-OUT warning for LOAD-then-STORE. */
static void test_vta_sim_store_truncation(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  int32_t acc[16] = {127, 128, 255, 256, -129, -32769, INT32_MIN, INT32_MAX, -1, 0, 1, -128, 383, -385, 65535, 7};
  const int8_t want[16] = {127, -128, -1, 0, 127, -1, 0, -1, -1, 0, 1, -128, 127, 127, -1, 7};
  uint32_t acc_addr, out_addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, sizeof(acc), &acc_addr), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, 16, &out_addr), q8nn_status_success);
  q8nn_vta_dram_write(dev, acc_addr, acc, sizeof(acc));
  struct q8nn_vta_insn p[3] = {vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 5, acc_addr / 64, 1, 1, 1),
                               vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 5, out_addr / 16, 1, 1, 1), vta_finish()};
  p[0].push_next = 1;
  p[1].pop_prev = p[1].push_prev = 1;
  p[2].pop_next = 1;
  struct q8nn_vta_run_info info;
  assert_int_equal(vta_run_insns(dev, p, 3, &info), q8nn_status_success);
  int8_t out[16];
  q8nn_vta_dram_read(dev, out_addr, out, 16);
  assert_memory_equal(out, want, 16);
  assert_true(info.warnings & q8nn_vta_warn_stale_out);
  q8nn_vta_device_delete(dev);
}

/* Spec §9.3 item 12: int8 DRAM data sign-extended into ACC, addressed in 16-byte units. */
static void test_vta_sim_acc_8bit(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(&test_configs[1]); /* BATCH 2: 32-byte elements */
  const uint32_t elem = 32;
  int8_t src[4 * 32];
  for (int i = 0; i < 4 * 32; i++) src[i] = (int8_t) (i * 37 - 100);
  uint32_t addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, sizeof(src), &addr), q8nn_status_success);
  q8nn_vta_dram_write(dev, addr, src, sizeof(src));
  struct q8nn_vta_insn p[2] = {vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc_8bit, 3, addr / elem + 1, 3, 1, 3),
                               vta_finish()};
  struct q8nn_vta_run_info info;
  assert_int_equal(vta_run_insns(dev, p, 2, &info), q8nn_status_success);
  for (int i = 0; i < 3 * 32; i++) assert_int_equal(dev->acc[3 * 32 + i], src[32 + i]);
  assert_int_equal(info.stats.acc_load_nbytes, 3 * dev->config.acc_elem_bytes);
  q8nn_vta_device_delete(dev);
}

/* GEMM against an independent loop: random micro-ops, six non-zero factors, empty loops, bias
   preloaded with values near the int32 limits (wrap-around), reset not counted. */
static void test_vta_sim_gemm_random(void** state) {
  (void) state;
  vta_test_seed("test_vta_sim_gemm_random");
  for (size_t ci = 0; ci < NUM_CONFIGS; ci++) {
    struct q8nn_vta_device* dev = vta_make_device(&test_configs[ci]);
    const struct q8nn_vta_hw_config* c = &dev->config;
    const uint32_t B = c->batch, BI = c->block_in, BO = c->block_out, rows = 64;
    int8_t* inp = malloc(rows * B * BI);
    int8_t* wgt = malloc(rows * BO * BI);
    int32_t* acc = malloc(rows * B * BO * sizeof(int32_t));
    int64_t* ref = malloc(rows * B * BO * sizeof(int64_t));
    uint32_t inp_addr, wgt_addr, acc_addr;
    assert_int_equal(q8nn_vta_dram_alloc(dev, rows * B * BI, &inp_addr), q8nn_status_success);
    assert_int_equal(q8nn_vta_dram_alloc(dev, rows * BO * BI, &wgt_addr), q8nn_status_success);
    assert_int_equal(q8nn_vta_dram_alloc(dev, rows * B * BO * 4, &acc_addr), q8nn_status_success);
    for (int iter = 0; iter < 12; iter++) {
      for (uint32_t i = 0; i < rows * B * BI; i++) inp[i] = (int8_t) vta_rand_range(-128, 128);
      for (uint32_t i = 0; i < rows * BO * BI; i++) wgt[i] = (int8_t) vta_rand_range(-128, 128);
      for (uint32_t i = 0; i < rows * B * BO; i++) {
        acc[i] = (vta_rand64() & 1) ? INT32_MAX - vta_rand_range(0, 100000) : vta_rand_range(-1000, 1000);
        ref[i] = acc[i];
      }
      q8nn_vta_dram_write(dev, inp_addr, inp, rows * B * BI);
      q8nn_vta_dram_write(dev, wgt_addr, wgt, rows * BO * BI);
      q8nn_vta_dram_write(dev, acc_addr, acc, rows * B * BO * 4);
      const uint32_t nuops = (uint32_t) vta_rand_range(0, 5), bgn = (uint32_t) vta_rand_range(0, 3);
      struct q8nn_vta_uop uops[8];
      for (uint32_t u = 0; u <= bgn + nuops; u++) {
        uops[u] = (struct q8nn_vta_uop){(uint32_t) vta_rand_range(0, 8), (uint32_t) vta_rand_range(0, 8),
                                        (uint32_t) vta_rand_range(0, 8)};
      }
      const uint32_t uop_addr = vta_stage_uops(dev, uops, bgn + nuops + 1);
      struct q8nn_vta_insn g = vta_compute(q8nn_vta_op_gemm, bgn, bgn + nuops, (uint32_t) vta_rand_range(0, 4),
                                           (uint32_t) vta_rand_range(0, 4));
      g.reset = iter % 4 == 3;
      g.dst_factor_out = (uint32_t) vta_rand_range(1, 6); g.dst_factor_in = (uint32_t) vta_rand_range(1, 6);
      g.src_factor_out = (uint32_t) vta_rand_range(1, 6); g.src_factor_in = (uint32_t) vta_rand_range(1, 6);
      g.wgt_factor_out = (uint32_t) vta_rand_range(1, 6); g.wgt_factor_in = (uint32_t) vta_rand_range(1, 6);
      g.pop_prev = 1;
      struct q8nn_vta_insn p[6] = {
          vta_mem(q8nn_vta_op_load, q8nn_vta_mem_inp, 0, inp_addr / (B * BI), rows, 1, rows),
          vta_mem(q8nn_vta_op_load, q8nn_vta_mem_wgt, 0, wgt_addr / (BO * BI), rows, 1, rows),
          vta_mem(q8nn_vta_op_load, q8nn_vta_mem_uop, 0, uop_addr / 4, bgn + nuops + 1, 1, bgn + nuops + 1),
          vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 0, acc_addr / (B * BO * 4), rows, 1, rows),
          g, vta_finish()};
      p[1].push_next = 1;
      struct q8nn_vta_run_info info;
      assert_int_equal(vta_run_insns(dev, p, 6, &info), q8nn_status_success);
      for (uint32_t io = 0; io < g.iter_out; io++) {
        for (uint32_t ii = 0; ii < g.iter_in; ii++) {
          for (uint32_t u = bgn; u < bgn + nuops; u++) {
            const uint32_t d = uops[u].dst + io * g.dst_factor_out + ii * g.dst_factor_in;
            const uint32_t s = uops[u].src + io * g.src_factor_out + ii * g.src_factor_in;
            const uint32_t w = uops[u].wgt + io * g.wgt_factor_out + ii * g.wgt_factor_in;
            for (uint32_t b = 0; b < B; b++) {
              for (uint32_t o = 0; o < BO; o++) {
                int64_t sum = 0;
                for (uint32_t k = 0; k < BI; k++) sum += (int64_t) inp[(s * B + b) * BI + k] * wgt[(w * BO + o) * BI + k];
                int64_t* r = &ref[(d * B + b) * BO + o];
                *r = g.reset ? 0 : wrap32(*r + sum);
              }
            }
          }
        }
      }
      for (uint32_t i = 0; i < rows * B * BO; i++) assert_int_equal(dev->acc[i], (int32_t) ref[i]);
      assert_int_equal(info.stats.gemm_counter, g.reset ? 0 : (uint64_t) g.iter_out * g.iter_in * nuops);
      q8nn_vta_dram_free(dev, uop_addr);
    }
    free(inp);
    free(wgt);
    free(acc);
    free(ref);
    q8nn_vta_device_delete(dev);
  }
}

/* TVM's GEMM test: x 4 batch tiles, w 4 output tiles; reset, GEMM, SHR 8, MAX 0, MIN 127, STORE. */
static void test_vta_sim_gemm_tvm(void** state) {
  (void) state;
  vta_test_seed("test_vta_sim_gemm_tvm");
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  int8_t x[4 * 16], w[4 * 256];
  for (int i = 0; i < 4 * 16; i++) x[i] = (int8_t) vta_rand_range(-128, 128);
  for (int i = 0; i < 4 * 256; i++) w[i] = (int8_t) vta_rand_range(-128, 128);
  uint32_t xa, wa, oa;
  q8nn_vta_dram_alloc(dev, sizeof(x), &xa);
  q8nn_vta_dram_alloc(dev, sizeof(w), &wa);
  q8nn_vta_dram_alloc(dev, 16 * 16, &oa);
  q8nn_vta_dram_write(dev, xa, x, sizeof(x));
  q8nn_vta_dram_write(dev, wa, w, sizeof(w));
  struct q8nn_vta_uop uops[17];
  for (uint32_t i = 0; i < 4; i++) {
    for (uint32_t o = 0; o < 4; o++) uops[i * 4 + o] = (struct q8nn_vta_uop){i * 4 + o, i, o};
  }
  uops[16] = (struct q8nn_vta_uop){0, 0, 0};
  const uint32_t ua = vta_stage_uops(dev, uops, 17);
  struct prog p = {.n = 0};
  add(&p, vta_mem(q8nn_vta_op_load, q8nn_vta_mem_inp, 0, xa / 16, 4, 1, 4));
  add(&p, vta_mem(q8nn_vta_op_load, q8nn_vta_mem_wgt, 0, wa / 256, 4, 1, 4));
  p.insn[1].push_next = 1;
  add(&p, vta_mem(q8nn_vta_op_load, q8nn_vta_mem_uop, 0, ua / 4, 17, 1, 17));
  struct q8nn_vta_insn reset = vta_compute(q8nn_vta_op_gemm, 0, 16, 1, 1);
  reset.reset = 1;
  add(&p, reset);
  struct q8nn_vta_insn gemm = vta_compute(q8nn_vta_op_gemm, 0, 16, 1, 1);
  gemm.pop_prev = 1;
  add(&p, gemm);
  add(&p, vta_alu(q8nn_vta_alu_shr, 1, 8, 16, 17, 16));
  add(&p, vta_alu(q8nn_vta_alu_max, 1, 0, 16, 17, 16));
  add(&p, vta_alu(q8nn_vta_alu_min, 1, 127, 16, 17, 16));
  p.insn[p.n - 1].push_next = 1;
  struct q8nn_vta_insn st = vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, oa / 16, 16, 1, 16);
  st.pop_prev = st.push_prev = 1;
  add(&p, st);
  struct q8nn_vta_insn fin = vta_finish();
  fin.pop_next = 1;
  add(&p, fin);
  struct q8nn_vta_run_info info;
  assert_int_equal(vta_run_insns(dev, p.insn, p.n, &info), q8nn_status_success);
  int8_t out[256];
  q8nn_vta_dram_read(dev, oa, out, sizeof(out));
  for (int i = 0; i < 4; i++) {
    for (int o = 0; o < 64; o++) {
      int32_t sum = 0;
      for (int k = 0; k < 16; k++) sum += x[i * 16 + k] * w[o * 16 + k];
      sum >>= 8;
      sum = sum < 0 ? 0 : sum > 127 ? 127 : sum;
      assert_int_equal(out[(i * 4 + o / 16) * 16 + o % 16], sum);
    }
  }
  assert_int_equal(info.stats.gemm_counter, 16);
  assert_int_equal(info.stats.alu_counter, 48);
  assert_int_equal(info.warnings, 0);
  q8nn_vta_device_delete(dev);
}

/* ---- faults --------------------------------------------------------------------------- */

static void test_vta_sim_fault_deadlock(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  /* The load waits for a g2l token nobody pushes; FINISH waits for the load's l2g. */
  struct q8nn_vta_insn p[2] = {vta_mem(q8nn_vta_op_load, q8nn_vta_mem_inp, 0, 0, 0, 0, 0), vta_finish()};
  p[0].pop_next = 1;
  p[0].push_next = 1;
  p[1].pop_prev = 1;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "deadlock");
  assert_non_null(strstr(q8nn_vta_device_last_error(dev), "instruction 0 (NOP(load)) waiting for a g2l token"));
  /* Compute and store waiting on each other. */
  struct q8nn_vta_insn q[3] = {vta_alu(q8nn_vta_alu_add, 1, 0, 0, 0, 0),
                               vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, 0, 0, 0, 0), vta_finish()};
  q[0].pop_next = 1; q[0].push_next = 1;
  q[1].pop_prev = 1; q[1].push_prev = 1;
  vta_expect_error(dev, vta_run_insns(dev, q, 3, NULL), "waiting for a s2g token");
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_fault_finish(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  struct q8nn_vta_insn p[3] = {vta_alu(q8nn_vta_alu_add, 1, 0, 0, 0, 0), vta_finish(),
                               vta_alu(q8nn_vta_alu_add, 1, 0, 0, 0, 0)};
  vta_expect_error(dev, vta_run_insns(dev, p, 1, NULL), "no FINISH");
  vta_expect_error(dev, vta_run_insns(dev, p, 3, NULL), "instruction 2 (ALU ADD): follows FINISH");
  /* A store not ordered before FINISH. */
  struct q8nn_vta_insn q[2] = {vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, 0, 0, 0, 0), vta_finish()};
  vta_expect_error(dev, vta_run_insns(dev, q, 2, NULL), "not ordered after instruction 0 (NOP(store))");
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_fault_leftover_tokens(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  struct q8nn_vta_insn p[2] = {vta_alu(q8nn_vta_alu_add, 1, 0, 0, 0, 0), vta_finish()};
  p[0].push_next = 1; /* g2s token never popped */
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "instruction 0 (ALU ADD): 1 token(s) left in the g2s queue");
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_fault_malformed(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  uint64_t words[4] = {5, 0, 0, 0};
  struct q8nn_vta_insn fin = vta_finish();
  assert_int_equal(q8nn_vta_encode_insn(&dev->config, &fin, &words[2], NULL, 0), q8nn_status_success);
  vta_expect_error(dev, q8nn_vta_device_run(dev, words, 2, NULL), "instruction 0 (invalid opcode): invalid opcode 5");
  struct q8nn_vta_insn p[2] = {vta_mem(q8nn_vta_op_load, q8nn_vta_mem_inp, 0, 0, 0, 0, 0), vta_finish()};
  p[0].pop_prev = 1;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "pop_prev_dep set on the load module (must be 0)");
  p[0] = vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, 0, 0, 0, 0);
  p[0].push_next = 1;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "push_next_dep set on the store module");
  p[0] = vta_mem(q8nn_vta_op_store, q8nn_vta_mem_acc, 0, 0, 1, 1, 1);
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "must be OUT");
  p[0] = vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, 0, 1, 1, 1);
  p[0].x_pad_0 = 1;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "STORE with padding");
  p[0] = vta_mem(q8nn_vta_op_load, q8nn_vta_mem_out, 0, 0, 1, 1, 1);
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "cannot be loaded");
  p[0] = vta_alu(6, 1, 0, 0, 1, 1);
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "invalid ALU opcode 6");
  p[0] = vta_compute(q8nn_vta_op_gemm, 8000, 8193, 1, 1);
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "exceeds the micro-op buffer");
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_fault_sram_range(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  uint32_t addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, 1 << 16, &addr), q8nn_status_success);
  struct q8nn_vta_insn p[2] = {vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 2040, addr / 64, 8, 1, 8), vta_finish()};
  p[0].x_pad_1 = 1;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "instruction 0 (LOAD ACC): SRAM rows [2040, 2049)");
  p[0] = vta_mem(q8nn_vta_op_load, q8nn_vta_mem_inp, 2047, addr / 16, 1, 2, 1);
  p[0].push_next = 1;
  p[1].pop_prev = 1;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "exceed the buffer depth 2048");
  p[1].pop_prev = 0;
  /* Micro-ops that reach past ACC/INP/WGT through the loop factors. */
  const struct q8nn_vta_uop uops[2] = {{2000, 1000, 1000}, {0, 0, 0}};
  const uint32_t ua = vta_stage_uops(dev, uops, 2);
  struct q8nn_vta_insn q[3] = {vta_mem(q8nn_vta_op_load, q8nn_vta_mem_uop, 0, ua / 4, 2, 1, 2),
                               vta_compute(q8nn_vta_op_gemm, 0, 1, 2, 1), vta_finish()};
  q[1].dst_factor_out = 48;
  vta_expect_error(dev, vta_run_insns(dev, q, 3, NULL), "instruction 1 (GEMM): ACC row 2048 out of range");
  q[1].dst_factor_out = 0;
  q[1].src_factor_out = 1048;
  vta_expect_error(dev, vta_run_insns(dev, q, 3, NULL), "INP row 2048 out of range");
  q[1].src_factor_out = 0;
  q[1].wgt_factor_out = 24;
  vta_expect_error(dev, vta_run_insns(dev, q, 3, NULL), "WGT row 1024 out of range (depth 1024)");
  q[1] = vta_alu(q8nn_vta_alu_add, 0, 0, 0, 1, 100);
  vta_expect_error(dev, vta_run_insns(dev, q, 3, NULL), "destination ACC row 2099");
  /* An immediate ALU does not read its source row, but TVM's simulator bounds-checks it anyway: the
     fault names the instruction, with the immediate and without. */
  q[1] = vta_alu(q8nn_vta_alu_add, 1, 0, 1, 2, 3);
  const struct q8nn_vta_uop far_src[2] = {{0, 2047, 0}, {0, 2047, 0}};
  const uint32_t ub = vta_stage_uops(dev, far_src, 2);
  q[0].dram_base = ub / 4;
  vta_expect_error(dev, vta_run_insns(dev, q, 3, NULL), "instruction 1 (ALU ADD): source ACC row 2049");
  q[1].use_imm = 0;
  vta_expect_error(dev, vta_run_insns(dev, q, 3, NULL), "source ACC row 2049");
  /* in range with the immediate: runs */
  const struct q8nn_vta_uop near_src[2] = {{0, 2000, 0}, {0, 2000, 0}};
  q[0].dram_base = vta_stage_uops(dev, near_src, 2) / 4;
  q[1].use_imm = 1;
  assert_int_equal(vta_run_insns(dev, q, 3, NULL), q8nn_status_success);
  struct q8nn_vta_insn s[3] = {vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 2000, addr / 16, 7, 7, 7), vta_finish()};
  s[0].push_prev = 1;
  s[1].pop_next = 1;
  vta_expect_error(dev, vta_run_insns(dev, s, 2, NULL), "instruction 0 (STORE): ACC rows [2000, 2049)");
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_fault_dram_range(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  uint32_t addr;
  assert_int_equal(q8nn_vta_dram_alloc(dev, 4096, &addr), q8nn_status_success);
  /* Unallocated address. */
  struct q8nn_vta_insn p[2] = {vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 0, 0, 1, 1, 1), vta_finish()};
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "instruction 0 (LOAD ACC): DRAM bytes [0x0, 0x40)");
  /* Starts inside the region but runs past its end through the stride. */
  p[0] = vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 0, addr / 64, 1, 2, 64);
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "not inside one allocated region");
  p[0] = vta_mem(q8nn_vta_op_store, q8nn_vta_mem_out, 0, addr / 16 + 250, 7, 1, 7);
  p[0].push_prev = 1;
  p[1].pop_next = 1;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "instruction 0 (STORE): DRAM bytes");
  /* Freed memory is no longer reachable. */
  q8nn_vta_dram_free(dev, addr);
  p[0] = vta_mem(q8nn_vta_op_load, q8nn_vta_mem_acc, 0, addr / 64, 1, 1, 1);
  p[1].pop_next = 0;
  vta_expect_error(dev, vta_run_insns(dev, p, 2, NULL), "not inside one allocated region");
  q8nn_vta_device_delete(dev);
}

static void test_vta_sim_dram_allocator(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  uint32_t a, b, c, d;
  assert_int_equal(q8nn_vta_dram_alloc(dev, 1, &a), q8nn_status_success);
  assert_int_equal(a, 4096); /* page 0 is never handed out */
  assert_int_equal(q8nn_vta_dram_alloc(dev, 5000, &b), q8nn_status_success);
  assert_int_equal(b, 8192);
  assert_int_equal(q8nn_vta_dram_alloc(dev, 10, &c), q8nn_status_success);
  assert_int_equal(c, 16384);
  assert_int_equal(q8nn_vta_dram_free(dev, b), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, 4096, &d), q8nn_status_success);
  assert_int_equal(d, 8192); /* first fit reuses the hole */
  assert_int_equal(q8nn_vta_dram_alloc_at(dev, 12288, 4096), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc_at(dev, 12288, 4096), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_vta_dram_free(dev, 12345), q8nn_status_invalid_parameter);
  uint8_t byte = 7;
  assert_int_equal(q8nn_vta_dram_write(dev, 20480, &byte, 1), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_vta_dram_write(dev, 16384 + 4095, &byte, 2), q8nn_status_invalid_parameter);
  q8nn_vta_device_delete(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vta_sim_save_load_out),
      cmocka_unit_test(test_vta_sim_worked_example_cycles),
      cmocka_unit_test(test_vta_sim_padded_load),
      cmocka_unit_test(test_vta_sim_load_inp_strides),
      cmocka_unit_test(test_vta_sim_alu_ops),
      cmocka_unit_test(test_vta_sim_alu_shift_edges),
      cmocka_unit_test(test_vta_sim_relu_and_shift_scale),
      cmocka_unit_test(test_vta_sim_store_truncation),
      cmocka_unit_test(test_vta_sim_acc_8bit),
      cmocka_unit_test(test_vta_sim_gemm_random),
      cmocka_unit_test(test_vta_sim_gemm_tvm),
      cmocka_unit_test(test_vta_sim_fault_deadlock),
      cmocka_unit_test(test_vta_sim_fault_finish),
      cmocka_unit_test(test_vta_sim_fault_leftover_tokens),
      cmocka_unit_test(test_vta_sim_fault_malformed),
      cmocka_unit_test(test_vta_sim_fault_sram_range),
      cmocka_unit_test(test_vta_sim_fault_dram_range),
      cmocka_unit_test(test_vta_sim_dram_allocator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
