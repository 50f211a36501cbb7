/*
 * The five shared models on the VTA backend in its default (exact) requantization: for every
 * input file of every model, every operator's output tensor (read through the debug hook) equals
 * the CPU model's byte for byte, and every CONV_2D, DEPTHWISE_CONV_2D and ADD runs on VTA. The
 * CPU model equals TFLite's reference layer by layer (test-model-layers.c), so this is the VTA
 * lowering's distance from TFLite on real models and real data: 0.
 */
#include <dirent.h>
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

/* Every operator's output bytes of one run. */
struct capture {
  size_t count;
  int8_t** bytes;
  size_t* sizes;
};

static void capture_output(void* context, q8nn_model_t m, size_t k) {
  struct capture* c = (struct capture*) context;
  struct q8nn_model_tensor_info info;
  const void* data = NULL;
  assert_int_equal(q8nn_model_debug_tensor(m, k, Q8NN_MODEL_DEBUG_OUTPUT, &info, &data), q8nn_status_success);
  free(c->bytes[k]);
  c->bytes[k] = NULL;
  c->sizes[k] = 0;
  if (data == NULL) return; /* not materialized (e.g. a MUL/SUB fused into the next one): nothing to compare */
  c->bytes[k] = malloc(info.num_bytes);
  memcpy(c->bytes[k], data, info.num_bytes);
  c->sizes[k] = info.num_bytes;
}

static void run_capture(q8nn_model_t m, const uint8_t* input, size_t input_size, int uint8_input, struct capture* c) {
  struct q8nn_model_tensor_info in;
  assert_int_equal(q8nn_model_input_info(m, 0, &in), q8nn_status_success);
  assert_int_equal(in.num_bytes, input_size);
  int8_t* x = (int8_t*) q8nn_model_input_data(m, 0);
  for (size_t j = 0; j < input_size; j++) x[j] = (int8_t) (uint8_input ? (int) input[j] - 128 : (int) (int8_t) input[j]);
  assert_int_equal(q8nn_model_set_debug_callback(m, capture_output, c), q8nn_status_success);
  assert_int_equal(q8nn_model_run(m, NULL), q8nn_status_success);
}

static int is_input_file(const char* name) {
  const size_t n = strlen(name);
  return n > 4 && (strcmp(name + n - 4, ".dat") == 0 || strcmp(name + n - 4, ".bin") == 0);
}

static void test_models_on_vta(void** state) {
  (void) state;
  const char* dir = getenv("Q8NN_MODELS_DIR");
  if (dir == NULL || dir[0] == '\0') skip();
  static const struct { const char* folder; const char* model; int uint8_input; } models[] = {
      {"tflm_person_detection", "tflm_person_detection/person_detect.tflite", 0},
      {"cfu_pdti8", "tflm_person_detection/person_detect.tflite", 0},
      {"cfu_mnv2", "cfu_mnv2/model_mobilenetv2_160_035.tflite", 1},
      {"cfu_mlcommons_vww", "cfu_mlcommons_vww/vww_96_int8.tflite", 0},
      {"cfu_mlcommons_imgc", "cfu_mlcommons_imgc/pretrainedResnet_quant.tflite", 0},
      {"cfu_mlcommons_kws", "cfu_mlcommons_kws/kws_ref_model.tflite", 0},
  };
  const int emulated = getenv("Q8NN_TEST_EMULATED") != NULL;
  q8nn_backend_t vta = NULL;
  assert_int_equal(q8nn_create_vta_backend(NULL, &vta), q8nn_status_success);
  size_t inputs = 0, layers = 0, on_vta = 0, bytes = 0, differ = 0;
  for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
    size_t size;
    void* file = test_read_file(dir, models[i].model, &size);
    if (file == NULL) skip();
    char error[256];
    q8nn_model_t cpu = NULL, accel = NULL;
    const struct q8nn_model_options options = {vta, false, q8nn_model_numerics_tflite};
    if (q8nn_model_load_memory(file, size, NULL, &cpu, error, sizeof(error)) != q8nn_status_success ||
        q8nn_model_load_memory(file, size, &options, &accel, error, sizeof(error)) != q8nn_status_success) {
      fail_msg("%s: %s", models[i].model, error);
    }
    const size_t n = q8nn_model_num_operators(cpu);
    for (size_t k = 0; k < n; k++) {
      struct q8nn_model_operator_info info;
      assert_int_equal(q8nn_model_get_operator_info(accel, k, &info), q8nn_status_success);
      const int lowered = strcmp(info.type, "CONV_2D") == 0 || strcmp(info.type, "DEPTHWISE_CONV_2D") == 0 ||
                          strcmp(info.type, "ADD") == 0;
      if (lowered && strcmp(info.placement, "vta") != 0) {
        fail_msg("%s operator %zu (%s) is not on VTA", models[i].model, k, info.type);
      }
    }
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, models[i].folder);
    DIR* d = opendir(path);
    assert_non_null(d);
    size_t taken = 0;
    for (struct dirent* e = readdir(d); e != NULL; e = readdir(d)) {
      if (!is_input_file(e->d_name)) continue;
      /* under qemu (cross builds) one input per model: the simulation is slow there */
      if (emulated && taken++ > 0) continue;
      snprintf(path, sizeof(path), "%s/%s", models[i].folder, e->d_name);
      size_t input_size;
      uint8_t* input = (uint8_t*) test_read_file(dir, path, &input_size);
      assert_non_null(input);
      struct capture a = {n, calloc(n, sizeof(int8_t*)), calloc(n, sizeof(size_t))};
      struct capture b = {n, calloc(n, sizeof(int8_t*)), calloc(n, sizeof(size_t))};
      run_capture(cpu, input, input_size, models[i].uint8_input, &a);
      run_capture(accel, input, input_size, models[i].uint8_input, &b);
      for (size_t k = 0; k < n; k++) {
        struct q8nn_model_operator_info info;
        assert_int_equal(q8nn_model_get_operator_info(accel, k, &info), q8nn_status_success);
        assert_int_equal(a.sizes[k], b.sizes[k]);
        size_t bad = 0;
        for (size_t j = 0; j < a.sizes[k]; j++) bad += a.bytes[k][j] != b.bytes[k][j];
        if (bad != 0) {
          fprintf(stderr, "%s %s operator %zu (%s on %s): %zu of %zu bytes differ from the CPU\n", models[i].model,
                  e->d_name, k, info.type, info.placement, bad, a.sizes[k]);
        }
        layers++;
        on_vta += strcmp(info.placement, "vta") == 0;
        bytes += a.sizes[k];
        differ += bad;
        free(a.bytes[k]), free(b.bytes[k]);
      }
      free(a.bytes), free(a.sizes), free(b.bytes), free(b.sizes), free(input);
      inputs++;
    }
    closedir(d);
    q8nn_model_delete(cpu);
    q8nn_model_delete(accel);
    free(file);
  }
  q8nn_delete_backend(vta);
  print_message("VTA (exact) vs CPU on %zu model inputs: %zu operator runs (%zu on VTA), %zu of %zu output bytes "
                "differ\n", inputs, layers, on_vta, differ, bytes);
  assert_true(inputs >= (emulated ? 6u : 30u));
  assert_int_equal(differ, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_models_on_vta),
  };
  return cmocka_run_group_tests(tests, test_group_setup, test_group_teardown);
}
