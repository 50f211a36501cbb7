/*
 * libFuzzer target: q8nn_model_load_memory on arbitrary bytes, then a run of whatever loads.
 * The loader must reject any malformed file with a status (never read outside the buffer, never
 * crash); a file that loads must run.
 *
 * Registration (for tests/fuzz/CMakeLists.txt under Q8NN_BUILD_FUZZERS, owned by the fuzzing
 * work; not added here):
 *   add_executable(fuzz-model-loader fuzz-model-loader.c $<TARGET_OBJECTS:q8nn_model_objects>)
 *   target_include_directories(fuzz-model-loader PRIVATE ${PROJECT_SOURCE_DIR}/src/model)
 *   target_compile_options(fuzz-model-loader PRIVATE -fsanitize=fuzzer,address,undefined)
 *   target_link_options(fuzz-model-loader PRIVATE -fsanitize=fuzzer,address,undefined)
 *   target_link_libraries(fuzz-model-loader PRIVATE q8nn_internal)   # or q8nn
 * Seed corpus: the .tflite files in ../shared/models (relative to the repository root), e.g.
 *   copy every .tflite under ../shared/models into corpus/, then: fuzz-model-loader corpus
 * Large seeds need -max_len=700000 (MobileNetV2 is 691040 bytes); person_detect (300568) is the
 * quickest useful seed. Runs are bounded by the loader's caps (tensors up to 2 GiB are refused
 * only above that, so -rss_limit_mb=4096 is advisable).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <q8nn-model.h>
#include <q8nn.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int initialized = 0;
  if (!initialized) {
    if (q8nn_initialize() != q8nn_status_success) abort();
    initialized = 1;
  }
  /* an exact-size copy, so ASan sees any read past the end */
  uint8_t* copy = (uint8_t*) malloc(size != 0 ? size : 1);
  if (copy == NULL) return 0;
  memcpy(copy, data, size);
  q8nn_model_t model = NULL;
  char error[256];
  const enum q8nn_status status = q8nn_model_load_memory(copy, size, NULL, &model, error, sizeof(error));
  free(copy);
  if (status == q8nn_status_success) {
    if (q8nn_model_arena_size(model) <= (size_t) 64 << 20) (void) q8nn_model_run(model, NULL);
    q8nn_model_delete(model);
  } else if (error[0] == '\0') {
    abort(); /* every failure carries a message */
  }
  return 0;
}
