/*
 * libFuzzer target: q8nn_model_load_memory on arbitrary bytes, then a run of whatever loads.
 * The loader must reject any malformed file with a status (never read outside the buffer, never
 * crash); a file that loads must run.
 *
 * Built by tests/fuzz/CMakeLists.txt (Q8NN_BUILD_FUZZERS) and run by scripts/fuzz.sh with the seed
 * corpus tests/fuzz/corpus/fuzz-model-loader: the two smallest shared models (DS-CNN KWS, 54 KB;
 * ResNet-8, 98 KB) whole, plus small units a -merge=1 run kept for new coverage (truncated and
 * corrupted files reach the reader's error paths). The larger shared models can be added by hand:
 * MobileNetV2 needs -max_len=700000, and -rss_limit_mb=4096 is advisable (tensors are refused
 * only above 2 GiB).
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
