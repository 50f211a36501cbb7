/* Export / import of a recorded VTA program: the replay gives the same bytes and counters. The
   file is left at $Q8NN_VTA_EXPORT_PATH (when set) for the command-line tool's test. */
#define _POSIX_C_SOURCE 200809L /* open_memstream, fmemopen */

#include "test-vta-util.h"

#include "accel/vta/vta-export.h"

static enum q8nn_status record_gemm(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  enum q8nn_status s = q8nn_vta_uop_loop_begin(cmd, 4, 1, 1, 0);
  for (uint32_t o = 0; o < 4 && s == q8nn_status_success; o++) s = q8nn_vta_uop_push(cmd, 0, 0, o * 4, 0, o, 0, 0, 0);
  return s == q8nn_status_success ? q8nn_vta_uop_loop_end(cmd) : s;
}

static enum q8nn_status record_relu(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  q8nn_vta_uop_loop_begin(cmd, 16, 1, 1, 0);
  q8nn_vta_uop_push(cmd, 1, 0, 0, 0, 0, q8nn_vta_alu_max, 1, 0);
  return q8nn_vta_uop_loop_end(cmd);
}

/* 4 pixels x 64 input channels -> 64 output channels, bias from int8, ReLU, one tile. */
static void record_program(struct q8nn_vta_device* dev, struct q8nn_vta_cmd* cmd, uint32_t* out_addr) {
  uint32_t xa, wa, ba;
  int8_t x[4 * 16], w[16 * 256], bias[16 * 16];
  for (size_t i = 0; i < sizeof(x); i++) x[i] = (int8_t) vta_rand_range(-128, 128);
  for (size_t i = 0; i < sizeof(w); i++) w[i] = (int8_t) vta_rand_range(-128, 128);
  for (size_t i = 0; i < sizeof(bias); i++) bias[i] = (int8_t) vta_rand_range(-128, 128);
  assert_int_equal(q8nn_vta_dram_alloc(dev, sizeof(x), &xa), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, sizeof(w), &wa), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, sizeof(bias), &ba), q8nn_status_success);
  assert_int_equal(q8nn_vta_dram_alloc(dev, 16 * 16, out_addr), q8nn_status_success);
  q8nn_vta_dram_write(dev, xa, x, sizeof(x));
  q8nn_vta_dram_write(dev, wa, w, sizeof(w));
  q8nn_vta_dram_write(dev, ba, bias, sizeof(bias));
  assert_int_equal(q8nn_vta_load_buffer_2d(cmd, xa, 0, 4, 1, 4, 0, 0, 0, 0, 0, q8nn_vta_mem_inp), q8nn_status_success);
  assert_int_equal(q8nn_vta_load_buffer_2d(cmd, wa, 0, 16, 1, 16, 0, 0, 0, 0, 0, q8nn_vta_mem_wgt), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_push(cmd, 1, 2), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 1, 2), q8nn_status_success);
  assert_int_equal(q8nn_vta_load_buffer_2d(cmd, ba, 0, 16, 1, 16, 0, 0, 0, 0, 0, q8nn_vta_mem_acc_8bit), q8nn_status_success);
  assert_int_equal(q8nn_vta_push_gemm_op(cmd, 1, record_gemm, NULL), q8nn_status_success);
  assert_int_equal(q8nn_vta_push_alu_op(cmd, 2, record_relu, NULL), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_push(cmd, 2, 3), q8nn_status_success);
  assert_int_equal(q8nn_vta_dep_pop(cmd, 2, 3), q8nn_status_success);
  assert_int_equal(q8nn_vta_store_buffer_2d(cmd, 0, q8nn_vta_mem_out, *out_addr, 0, 16, 1, 16), q8nn_status_success);
}

static void test_vta_export_round_trip(void** state) {
  (void) state;
  vta_test_seed("test_vta_export_round_trip");
  const struct q8nn_vta_config configs[2] = {{0}, {.log_batch = 1, .virtual_threads = 1}};
  for (int ci = 0; ci < 2; ci++) {
    struct q8nn_vta_device* dev = vta_make_device(&configs[ci]);
    dev->config.dram_latency_cycles = 50; /* cycle parameters travel with the file */
    struct q8nn_vta_cmd* cmd;
    assert_int_equal(q8nn_vta_cmd_create(dev, &cmd), q8nn_status_success);
    uint32_t out_addr;
    record_program(dev, cmd, &out_addr);
    struct q8nn_vta_program program;
    assert_int_equal(q8nn_vta_cmd_finalize(cmd, &program), q8nn_status_success);
    assert_int_not_equal(program.uop_addr, 0);
    const char* env = getenv("Q8NN_VTA_EXPORT_PATH");
    char path[512];
    if (env != NULL && ci == 0) {
      snprintf(path, sizeof(path), "%s", env);
    } else {
      snprintf(path, sizeof(path), "%s/q8nn-vta-export-%d-%ld.q8vta", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
               ci, (long) time(NULL));
    }
    assert_int_equal(q8nn_vta_export_program_path(path, dev, &program), q8nn_status_success);
    struct q8nn_vta_run_info info;
    assert_int_equal(q8nn_vta_program_run(dev, &program, &info), q8nn_status_success);
    const size_t out_bytes = 16 * dev->config.out_elem_bytes;
    int8_t out[16 * 32], replay_out[16 * 32];
    q8nn_vta_dram_read(dev, out_addr, out, out_bytes);

    struct q8nn_vta_device* dev2 = NULL;
    struct q8nn_vta_program program2;
    char error[256];
    assert_int_equal(q8nn_vta_import_program_path(path, &dev2, &program2, error, sizeof(error)), q8nn_status_success);
    assert_int_equal(dev2->config.log_batch, dev->config.log_batch);
    assert_int_equal(dev2->config.virtual_threads, dev->config.virtual_threads);
    assert_int_equal(dev2->config.dram_latency_cycles, 50);
    assert_int_equal(program2.count, program.count);
    assert_memory_equal(program2.insns, program.insns, program.count * 16);
    assert_int_equal(program2.uop_addr, program.uop_addr);
    assert_int_equal(dev2->region_count, dev->region_count);
    struct q8nn_vta_run_info info2;
    assert_int_equal(q8nn_vta_program_run(dev2, &program2, &info2), q8nn_status_success);
    q8nn_vta_dram_read(dev2, out_addr, replay_out, out_bytes);
    assert_memory_equal(out, replay_out, out_bytes);
    assert_memory_equal(&info.stats, &info2.stats, sizeof(info.stats));
    assert_int_equal(info.stats.gemm_counter, 16);
    q8nn_vta_program_release(dev2, &program2);
    q8nn_vta_device_delete(dev2);
    if (env == NULL || ci != 0) remove(path);
    q8nn_vta_program_release(dev, &program);
    q8nn_vta_cmd_delete(cmd);
    q8nn_vta_device_delete(dev);
  }
}

/* An ALU max with an immediate whose source rows step by 1000 (row 15000 of a 2048-row ACC): it does
   not read them, but TVM's simulator rejects such a program. Exported, imported and replayed, the
   model rejects it too, naming the instruction. */
static enum q8nn_status record_far_source_imm(struct q8nn_vta_cmd* cmd, void* context) {
  (void) context;
  q8nn_vta_uop_loop_begin(cmd, 16, 1, 1000, 0);
  q8nn_vta_uop_push(cmd, 1, 0, 0, 0, 0, q8nn_vta_alu_max, 1, 0);
  return q8nn_vta_uop_loop_end(cmd);
}

static void test_vta_import_immediate_source_out_of_range(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  struct q8nn_vta_cmd* cmd;
  assert_int_equal(q8nn_vta_cmd_create(dev, &cmd), q8nn_status_success);
  assert_int_equal(q8nn_vta_push_alu_op(cmd, 1, record_far_source_imm, NULL), q8nn_status_success);
  struct q8nn_vta_program program;
  assert_int_equal(q8nn_vta_cmd_finalize(cmd, &program), q8nn_status_success);
  char* buffer = NULL;
  size_t size = 0;
  FILE* mem = open_memstream(&buffer, &size);
  assert_non_null(mem);
  assert_int_equal(q8nn_vta_export_program(mem, dev, &program), q8nn_status_success);
  fclose(mem);
  struct q8nn_vta_device* dev2 = NULL;
  struct q8nn_vta_program program2;
  char error[256];
  FILE* f = fmemopen(buffer, size, "rb");
  assert_int_equal(q8nn_vta_import_program(f, &dev2, &program2, error, sizeof(error)), q8nn_status_success);
  fclose(f);
  vta_expect_error(dev2, q8nn_vta_program_run(dev2, &program2, NULL),
                   "instruction 1 (ALU MAX): source ACC row 15000 out of range");
  q8nn_vta_program_release(dev2, &program2);
  q8nn_vta_device_delete(dev2);
  free(buffer);
  q8nn_vta_program_release(dev, &program);
  q8nn_vta_cmd_delete(cmd);
  q8nn_vta_device_delete(dev);
}

static void test_vta_export_bad_files(void** state) {
  (void) state;
  struct q8nn_vta_device* dev = vta_make_device(NULL);
  struct q8nn_vta_cmd* cmd;
  assert_int_equal(q8nn_vta_cmd_create(dev, &cmd), q8nn_status_success);
  struct q8nn_vta_program program;
  assert_int_equal(q8nn_vta_cmd_finalize(cmd, &program), q8nn_status_success);
  char* buffer = NULL;
  size_t size = 0;
  FILE* mem = open_memstream(&buffer, &size);
  assert_non_null(mem);
  assert_int_equal(q8nn_vta_export_program(mem, dev, &program), q8nn_status_success);
  fclose(mem);
  struct q8nn_vta_device* dev2 = NULL;
  struct q8nn_vta_program program2;
  char error[256];
  /* Intact copy imports and runs (an empty program: the synchronize epilogue only). */
  FILE* f = fmemopen(buffer, size, "rb");
  assert_int_equal(q8nn_vta_import_program(f, &dev2, &program2, error, sizeof(error)), q8nn_status_success);
  fclose(f);
  assert_int_equal(q8nn_vta_program_run(dev2, &program2, NULL), q8nn_status_success);
  q8nn_vta_program_release(dev2, &program2);
  q8nn_vta_device_delete(dev2);
  /* HW_VER 0.0.1 (header word 1 after the magic) is rejected. */
  buffer[12] = 1;
  f = fmemopen(buffer, size, "rb");
  assert_int_equal(q8nn_vta_import_program(f, &dev2, &program2, error, sizeof(error)), q8nn_status_unsupported_parameter);
  assert_non_null(strstr(error, "0.0.1"));
  fclose(f);
  buffer[12] = 2;
  /* Truncated file. */
  f = fmemopen(buffer, size - 3, "rb");
  assert_int_equal(q8nn_vta_import_program(f, &dev2, &program2, error, sizeof(error)), q8nn_status_invalid_parameter);
  fclose(f);
  /* A short file declaring 2^32 - 1 instructions (header word 15, after the magic) or a 2 GiB
     region is truncated: invalid_parameter before anything that size is allocated (the import
     used to malloc 64 GiB first: out_of_memory, or an abort under ASan / libFuzzer). */
  const uint32_t regions = (uint32_t) (uint8_t) buffer[72] | (uint32_t) (uint8_t) buffer[73] << 8;
  char* longer = malloc(size + 12);
  assert_non_null(longer);
  memcpy(longer, buffer, size);
  memset(longer + 68, 0xFF, 4);
  f = fmemopen(longer, size, "rb");
  assert_int_equal(q8nn_vta_import_program(f, &dev2, &program2, error, sizeof(error)), q8nn_status_invalid_parameter);
  assert_non_null(strstr(error, "truncated"));
  fclose(f);
  memcpy(longer + 68, buffer + 68, 4);
  longer[72] = (char) (regions + 1);
  const uint8_t region[12] = {0, 0, 0, 0x80, 0x00, 0xF0, 0xFF, 0x7F, 0, 0, 0, 0}; /* 2 GiB at 0x80000000 */
  memcpy(longer + size, region, sizeof(region));
  f = fmemopen(longer, size + 12, "rb");
  assert_int_equal(q8nn_vta_import_program(f, &dev2, &program2, error, sizeof(error)), q8nn_status_invalid_parameter);
  assert_non_null(strstr(error, "truncated"));
  fclose(f);
  free(longer);
  buffer[0] = 'X';
  f = fmemopen(buffer, size, "rb");
  assert_int_equal(q8nn_vta_import_program(f, &dev2, &program2, error, sizeof(error)), q8nn_status_invalid_parameter);
  fclose(f);
  free(buffer);
  q8nn_vta_program_release(dev, &program);
  q8nn_vta_cmd_delete(cmd);
  q8nn_vta_device_delete(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vta_export_round_trip),
      cmocka_unit_test(test_vta_export_bad_files),
      cmocka_unit_test(test_vta_import_immediate_source_out_of_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
