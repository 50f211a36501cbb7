/*
 * Whole models through q8nn-model: the person_detect outputs of ../shared/models/EXPECTED.md
 * (TFLite's reference kernels) exactly; all five models byte-identical on every ISA mask and
 * thread count; truncated and corrupted files give a clean error (run under ASan/UBSan with
 * -DQ8NN_SANITIZE=ON), never an out-of-bounds read.
 *
 * The models come from Q8NN_MODELS_DIR (CMake: the shared folder beside the repository); when it
 * is missing the tests are skipped, not passed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <q8nn-model.h>
#include <q8nn.h>

#include "testers/test-util.h"

static const char* models_dir(void) {
  const char* dir = getenv("Q8NN_MODELS_DIR");
  return dir != NULL && dir[0] != '\0' ? dir : NULL;
}

/* Loads a model under the current ISA mask and runs it on input (uint8: subtract 128 first). */
static void run_model_on(const void* model, size_t model_size, const uint8_t* input, size_t input_size,
                         int uint8_input, pthreadpool_t pool, const struct q8nn_threadpool* host,
                         q8nn_backend_t backend, int8_t* output, size_t output_size);

static void run_model(const void* model, size_t model_size, const uint8_t* input, size_t input_size, int uint8_input,
                      pthreadpool_t pool, q8nn_backend_t backend, int8_t* output, size_t output_size) {
  run_model_on(model, model_size, input, input_size, uint8_input, pool, NULL, backend, output, output_size);
}

/* host non-NULL: q8nn_model_run_on(host) instead of q8nn_model_run(pool) */
static void run_model_on(const void* model, size_t model_size, const uint8_t* input, size_t input_size,
                         int uint8_input, pthreadpool_t pool, const struct q8nn_threadpool* host,
                         q8nn_backend_t backend, int8_t* output, size_t output_size) {
  const struct q8nn_model_options options = {.backend = backend};
  q8nn_model_t m = NULL;
  char error[256];
  const enum q8nn_status s = q8nn_model_load_memory(model, model_size, &options, &m, error, sizeof(error));
  if (s != q8nn_status_success) fail_msg("load: %s (%s)", error, q8nn_status_string(s));
  struct q8nn_model_tensor_info in, out;
  assert_int_equal(q8nn_model_input_info(m, 0, &in), q8nn_status_success);
  assert_int_equal(q8nn_model_output_info(m, 0, &out), q8nn_status_success);
  assert_int_equal(in.num_bytes, input_size);
  assert_int_equal(out.num_bytes, output_size);
  int8_t* x = (int8_t*) malloc(input_size);
  for (size_t i = 0; i < input_size; i++) x[i] = (int8_t) (uint8_input ? (int) input[i] - 128 : (int) (int8_t) input[i]);
  assert_int_equal(q8nn_model_bind_input(m, 0, x), q8nn_status_success);
  assert_int_equal(q8nn_model_bind_output(m, 0, output), q8nn_status_success);
  memset(output, 0x5A, output_size);
  assert_int_equal(host != NULL ? q8nn_model_run_on(m, host) : q8nn_model_run(m, pool), q8nn_status_success);
  /* a second run gives the same bytes (no state left behind) */
  int8_t* again = (int8_t*) malloc(output_size);
  assert_int_equal(q8nn_model_bind_output(m, 0, again), q8nn_status_success);
  assert_int_equal(host != NULL ? q8nn_model_run_on(m, host) : q8nn_model_run(m, pool), q8nn_status_success);
  assert_memory_equal(output, again, output_size);
  free(again);
  free(x);
  q8nn_model_delete(m);
}

static void test_person_detect_expected(void** state) {
  (void) state;
  const char* dir = models_dir();
  if (dir == NULL) skip();
  size_t model_size, n;
  void* model = test_read_file(dir, "tflm_person_detection/person_detect.tflite", &model_size);
  assert_non_null(model);
  static const struct { const char* input; int8_t expected[2]; } cases[] = {
      {"tflm_person_detection/person_input_int8.bin", {-113, 113}},
      {"tflm_person_detection/no_person_input_int8.bin", {57, -57}},
      {NULL, {72, -72}}, /* all 9216 bytes 0 */
  };
  uint32_t masks[8];
  const size_t num_masks = test_isa_masks(masks, 8);
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    uint8_t* input = cases[c].input != NULL ? (uint8_t*) test_read_file(dir, cases[c].input, &n) : (uint8_t*) calloc(n = 9216, 1);
    assert_non_null(input);
    for (size_t mi = 0; mi < num_masks; mi++) {
      assert_int_equal(q8nn_set_isa_mask(masks[mi]), q8nn_status_success);
      for (size_t p = 0; p < 3; p += 2) { /* caller thread, 2 threads */
        int8_t out[2];
        run_model(model, model_size, input, n, 0, test_threadpool(p), NULL, out, 2);
        if (out[0] != cases[c].expected[0] || out[1] != cases[c].expected[1]) {
          fail_msg("%s on %s, %zu threads: [%d, %d], expected [%d, %d]", cases[c].input ? cases[c].input : "zeros",
                   test_isa_name(masks[mi]), test_threadpool_threads(p), out[0], out[1], cases[c].expected[0],
                   cases[c].expected[1]);
        }
      }
    }
    free(input);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
  free(model);
}

/* Every model with every input shipped beside it: identical bytes on every ISA and thread count. */
/* Under an emulator (qemu-user, the cross suites) the exhaustive loops below take minutes per CPU
   model; there they thin out (CMake sets Q8NN_TEST_EMULATED for cross builds): the native and
   sanitizer suites keep them whole. */
static int emulated(void) { return getenv("Q8NN_TEST_EMULATED") != NULL; }

static void test_models_identical_across_isas_and_threads(void** state) {
  (void) state;
  const char* dir = models_dir();
  if (dir == NULL) skip();
  static const struct { const char* model; int uint8_input; const char* inputs[12]; } models[] = {
      {"tflm_person_detection/person_detect.tflite", 0,
       {"tflm_person_detection/person_input_int8.bin", "tflm_person_detection/no_person_input_int8.bin",
        "cfu_pdti8/person_image_data.bin", "cfu_pdti8/no_person_image_data.bin"}},
      {"cfu_mnv2/model_mobilenetv2_160_035.tflite", 1,
       {"cfu_mnv2/input_00001_18027.dat", "cfu_mnv2/input_00001_7281.dat", "cfu_mnv2/input_00001_7425.dat",
        "cfu_mnv2/input_00002_2532.dat", "cfu_mnv2/input_00002_25869.dat", "cfu_mnv2/input_00004_970.dat"}},
      {"cfu_mlcommons_vww/vww_96_int8.tflite", 0,
       {"cfu_mlcommons_vww/quant_test_no_0.dat", "cfu_mlcommons_vww/quant_test_no_1.dat",
        "cfu_mlcommons_vww/quant_test_yes_0.dat", "cfu_mlcommons_vww/quant_test_yes_1.dat"}},
      {"cfu_mlcommons_imgc/pretrainedResnet_quant.tflite", 0,
       {"cfu_mlcommons_imgc/quant_airplane.dat", "cfu_mlcommons_imgc/quant_bird.dat", "cfu_mlcommons_imgc/quant_car.dat",
        "cfu_mlcommons_imgc/quant_cat.dat", "cfu_mlcommons_imgc/quant_deer.dat", "cfu_mlcommons_imgc/quant_dog.dat",
        "cfu_mlcommons_imgc/quant_frog.dat", "cfu_mlcommons_imgc/quant_horse.dat", "cfu_mlcommons_imgc/quant_ship.dat",
        "cfu_mlcommons_imgc/quant_truck.dat"}},
      {"cfu_mlcommons_kws/kws_ref_model.tflite", 0,
       {"cfu_mlcommons_kws/down_0.dat", "cfu_mlcommons_kws/go_1.dat", "cfu_mlcommons_kws/left_2.dat",
        "cfu_mlcommons_kws/no_3.dat", "cfu_mlcommons_kws/off_4.dat", "cfu_mlcommons_kws/on_5.dat",
        "cfu_mlcommons_kws/right_6.dat", "cfu_mlcommons_kws/silence_10.dat", "cfu_mlcommons_kws/stop_7.dat",
        "cfu_mlcommons_kws/unkown_11.dat", "cfu_mlcommons_kws/up_8.dat", "cfu_mlcommons_kws/yes_9.dat"}},
  };
  uint32_t masks[8];
  const size_t num_masks = test_isa_masks(masks, 8);
  for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
    size_t model_size;
    void* model = test_read_file(dir, models[k].model, &model_size);
    assert_non_null(model);
    /* emulated: the first input of each model (the ISA paths and threads all still run) */
    for (size_t j = 0; j < (emulated() ? 1 : 12) && models[k].inputs[j] != NULL; j++) {
      size_t n;
      uint8_t* input = (uint8_t*) test_read_file(dir, models[k].inputs[j], &n);
      assert_non_null(input);
      int8_t first[16], out[16];
      for (size_t mi = 0; mi < num_masks; mi++) {
        assert_int_equal(q8nn_set_isa_mask(masks[mi]), q8nn_status_success);
        for (size_t p = 0; p < 3; p += 2) {
          run_model(model, model_size, input, n, models[k].uint8_input, test_threadpool(p), NULL,
                    mi == 0 && p == 0 ? first : out, k == 3 ? 10 : k == 4 ? 12 : 2);
          if ((mi != 0 || p != 0) && memcmp(first, out, k == 3 ? 10 : k == 4 ? 12 : 2) != 0) {
            fail_msg("%s with %s: %s, %zu threads differs from scalar, caller thread", models[k].model,
                     models[k].inputs[j], test_isa_name(masks[mi]), test_threadpool_threads(p));
          }
        }
      }
      /* the host's threads (q8nn_model_run_on), on the best ISA */
      q8nn_set_isa_mask(Q8NN_ISA_ALL);
      for (size_t h = 0; h < TEST_NUM_HOST_POOLS; h++) {
        run_model_on(model, model_size, input, n, models[k].uint8_input, NULL, test_host_pool(h), NULL, out,
                     k == 3 ? 10 : k == 4 ? 12 : 2);
        if (memcmp(first, out, k == 3 ? 10 : k == 4 ? 12 : 2) != 0) {
          fail_msg("%s with %s: host pool %zu differs from scalar, caller thread", models[k].model,
                   models[k].inputs[j], h);
        }
      }
      printf("%s %s:", models[k].model, models[k].inputs[j]);
      for (size_t i = 0; i < (k == 3 ? 10u : k == 4 ? 12u : 2u); i++) printf(" %d", first[i]);
      printf("\n");
      free(input);
    }
    free(model);
  }
  q8nn_set_isa_mask(Q8NN_ISA_ALL);
}


/* Every truncation of person_detect.tflite is a clean error with a message (emulated: every
   length below 8 KiB, where the tables and offsets are, and every 257th after). */
static void test_truncated_files_are_errors(void** state) {
  (void) state;
  const char* dir = models_dir();
  if (dir == NULL) skip();
  size_t size;
  uint8_t* model = (uint8_t*) test_read_file(dir, "tflm_person_detection/person_detect.tflite", &size);
  assert_non_null(model);
  for (size_t length = 0; length < size; length += emulated() && length >= 8192 ? 257 : 1) {
    /* a fresh allocation of exactly `length` bytes, so ASan catches any read past it */
    uint8_t* copy = (uint8_t*) malloc(length != 0 ? length : 1);
    memcpy(copy, model, length);
    q8nn_model_t m = (q8nn_model_t) (uintptr_t) 0x5EED;
    char error[256] = "";
    const enum q8nn_status s = q8nn_model_load_memory(copy, length, NULL, &m, error, sizeof(error));
    if (s == q8nn_status_success || m != (q8nn_model_t) (uintptr_t) 0x5EED || error[0] == '\0') {
      fail_msg("truncated to %zu of %zu bytes: %s, message '%s'", length, size, q8nn_status_string(s), error);
    }
    free(copy);
  }
  free(model);
}

/* Random byte flips: load either fails cleanly or gives a model that runs. */
static void test_corrupted_files_fail_cleanly(void** state) {
  (void) state;
  const char* dir = models_dir();
  if (dir == NULL) skip();
  size_t size;
  uint8_t* model = (uint8_t*) test_read_file(dir, "tflm_person_detection/person_detect.tflite", &size);
  assert_non_null(model);
  uint8_t* copy = (uint8_t*) malloc(size);
  size_t loaded = 0;
  const int trials = emulated() ? 300 : 3000;
  for (int t = 0; t < trials; t++) {
    memcpy(copy, model, size);
    /* half of the trials hit the first 8 KiB (tables, vtables, offsets), the rest anywhere */
    const int flips = 1 + (int) (test_rand() % 4);
    for (int f = 0; f < flips; f++) {
      const size_t at = (t & 1) ? test_rand() % size : test_rand() % 8192;
      copy[at] ^= (uint8_t) (1u << (test_rand() % 8));
    }
    q8nn_model_t m = NULL;
    char error[256] = "";
    const enum q8nn_status s = q8nn_model_load_memory(copy, size, NULL, &m, error, sizeof(error));
    if (s == q8nn_status_success) {
      loaded++;
      assert_int_equal(q8nn_model_run(m, NULL), q8nn_status_success);
      q8nn_model_delete(m);
    } else if (error[0] == '\0') {
      fail_msg("trial %d: %s without a message", t, q8nn_status_string(s));
    }
  }
  printf("%d corrupted files: %zu loaded and ran, the rest were refused\n", trials, loaded);
  free(copy);
  free(model);
}

/* The input written once into q8nn_model_input_data survives runs (graph inputs are never reused). */
static void test_input_data_persists_across_runs(void** state) {
  (void) state;
  size_t size, n;
  void* model = test_read_file(models_dir(), "tflm_person_detection/person_detect.tflite", &size);
  void* input = test_read_file(models_dir(), "tflm_person_detection/person_input_int8.bin", &n);
  assert_non_null(model);
  assert_non_null(input);
  q8nn_model_t m = NULL;
  assert_int_equal(q8nn_model_load_memory(model, size, NULL, &m, NULL, 0), q8nn_status_success);
  free(model); /* the model does not keep the caller's bytes */
  memcpy(q8nn_model_input_data(m, 0), input, n);
  for (int run = 0; run < 3; run++) {
    assert_int_equal(q8nn_model_run(m, NULL), q8nn_status_success);
    const int8_t* out = (const int8_t*) q8nn_model_output_data(m, 0);
    assert_int_equal(out[0], -113);
    assert_int_equal(out[1], 113);
  }
  printf("person_detect arena: %zu bytes\n", q8nn_model_arena_size(m));
  q8nn_model_delete(m);
  free(input);
}

static void test_api_errors(void** state) {
  (void) state;
  q8nn_model_t m = (q8nn_model_t) (uintptr_t) 0x5EED;
  char error[128];
  assert_int_equal(q8nn_model_load_memory(NULL, 10, NULL, &m, error, sizeof(error)), q8nn_status_invalid_parameter);
  assert_ptr_equal(m, (q8nn_model_t) (uintptr_t) 0x5EED);
  static const uint8_t junk[64] = {1, 2, 3};
  assert_int_equal(q8nn_model_load_memory(junk, sizeof(junk), NULL, &m, error, sizeof(error)),
                   q8nn_status_invalid_parameter);
  assert_true(strlen(error) > 0);
  assert_int_equal(q8nn_model_load_file("no/such/file.tflite", NULL, &m, error, sizeof(error)),
                   q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_model_run(NULL, NULL), q8nn_status_invalid_parameter);
  assert_int_equal(q8nn_model_delete(NULL), q8nn_status_success);
  assert_int_equal(q8nn_model_num_inputs(NULL), 0);
  struct q8nn_model_tensor_info info;
  assert_int_equal(q8nn_model_input_info(NULL, 0, &info), q8nn_status_invalid_parameter);
}

int main(void) {
  if (models_dir() == NULL) {
    fprintf(stderr, "Q8NN_MODELS_DIR is not set: the shared models are missing, skipping\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_api_errors),
      cmocka_unit_test(test_person_detect_expected),
      cmocka_unit_test(test_input_data_persists_across_runs),
      cmocka_unit_test(test_models_identical_across_isas_and_threads),
      cmocka_unit_test(test_truncated_files_are_errors),
      cmocka_unit_test(test_corrupted_files_fail_cleanly),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
