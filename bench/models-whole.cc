// Whole .tflite models through q8nn-model: the five models of ../shared/models (relative to the
// repository root), CPU with 1 and 2 threads, TFLite numerics (bit-exact) and XNNPACK's fp32
// numerics (q8nn_model_numerics_xnnpack_fp32, not TFLite-exact). Per inference: the total, and the
// split per operator class from the model's profile (conv = CONV_2D, dw = DEPTHWISE_CONV_2D,
// fc = FULLY_CONNECTED, add = ADD: the q8nn operators; other = the portable operators; glue =
// the run minus the sum of the operators: dispatch, input copy, profile clock reads).
// outside_q8nn_pct = (other + glue) / total: the model layer's own cost.
// The ".../unprofiled/..." benchmarks run the same model without the profile (total_ms only): that
// is how an application runs it, and with 2 threads it lets q8nn_model_run put consecutive q8nn
// operators in one q8nn_run_operators list, which profiling (a clock read per operator) turns off.
//
//   bench_models [--models-dir DIR] [Google Benchmark flags]
#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <q8nn-model.h>
#include <q8nn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct ModelFile {
  const char* name;
  const char* path;
};

const ModelFile kModels[] = {
    {"person_detect", "tflm_person_detection/person_detect.tflite"},
    {"mobilenet_v2_160_035", "cfu_mnv2/model_mobilenetv2_160_035.tflite"},
    {"vww_96", "cfu_mlcommons_vww/vww_96_int8.tflite"},
    {"resnet8", "cfu_mlcommons_imgc/pretrainedResnet_quant.tflite"},
    {"kws_dscnn", "cfu_mlcommons_kws/kws_ref_model.tflite"},
};

std::string g_models_dir = Q8NN_BENCH_SHARED_MODELS_DIR;

enum Class { kConv, kDw, kFc, kAdd, kOther, kClasses };
const char* const kClassNames[kClasses] = {"conv_ms", "dw_ms", "fc_ms", "add_ms", "other_ms"};

Class class_of(const char* type) {
  if (std::strcmp(type, "CONV_2D") == 0) return kConv;
  if (std::strcmp(type, "DEPTHWISE_CONV_2D") == 0) return kDw;
  if (std::strcmp(type, "FULLY_CONNECTED") == 0) return kFc;
  if (std::strcmp(type, "ADD") == 0) return kAdd;
  return kOther;
}

void BM_model(benchmark::State& state, const ModelFile* file, int threads, bool fp32, bool profile) {
  q8nn_model_options options = {};
  options.profile = profile;
  options.numerics = fp32 ? q8nn_model_numerics_xnnpack_fp32 : q8nn_model_numerics_tflite;
  q8nn_model_t model = nullptr;
  char error[512];
  const std::string path = g_models_dir + "/" + file->path;
  if (q8nn_model_load_file(path.c_str(), &options, &model, error, sizeof(error)) != q8nn_status_success) {
    state.SkipWithError((path + ": " + error).c_str());
    return;
  }
  // A deterministic non-trivial input (all zeros would make some layers trivially cheap).
  q8nn_model_tensor_info in;
  q8nn_model_input_info(model, 0, &in);
  int8_t* x = static_cast<int8_t*>(q8nn_model_input_data(model, 0));
  for (size_t i = 0; i < in.num_bytes; i++) x[i] = static_cast<int8_t>((i * 37 + 11) % 251 - 125);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  const size_t num_ops = q8nn_model_num_operators(model);
  double class_ns[kClasses] = {0, 0, 0, 0, 0};
  double total_ns = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    q8nn_model_run(model, pool);
    const auto stop = std::chrono::steady_clock::now();
    total_ns += std::chrono::duration<double, std::nano>(stop - start).count();
    for (size_t k = 0; profile && k < num_ops; k++) {
      q8nn_model_operator_info info;
      q8nn_model_get_operator_info(model, k, &info);
      class_ns[class_of(info.type)] += static_cast<double>(info.last_run_ns);
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["total_ms"] = total_ns / n / 1e6;
  if (!profile) {
    if (pool != nullptr) pthreadpool_destroy(pool);
    q8nn_model_delete(model);
    return;
  }
  double ops_ns = 0;
  for (int c = 0; c < kClasses; c++) {
    state.counters[kClassNames[c]] = class_ns[c] / n / 1e6;
    ops_ns += class_ns[c];
  }
  const double glue_ns = total_ns - ops_ns;
  state.counters["glue_ms"] = glue_ns / n / 1e6;
  state.counters["outside_q8nn_pct"] = 100.0 * (class_ns[kOther] + glue_ns) / total_ns;
  if (pool != nullptr) pthreadpool_destroy(pool);
  q8nn_model_delete(model);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--models-dir") == 0 && i + 1 < argc) {
      g_models_dir = argv[i + 1];
      for (int j = i; j + 2 <= argc; j++) argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  }
  if (q8nn_initialize() != q8nn_status_success) return 1;
  for (const ModelFile& m : kModels) {
    for (int fp32 = 0; fp32 < 2; fp32++) {
      for (int profile = 1; profile >= 0; profile--) {
        for (int threads = 1; threads <= 2; threads++) {
          const std::string name = std::string(m.name) + (fp32 ? "/fp32" : "/tflite") +
                                   (profile ? "" : "/unprofiled") + "/threads:" + std::to_string(threads);
          benchmark::RegisterBenchmark(name.c_str(), BM_model, &m, threads, fp32 != 0, profile != 0)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime();
        }
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
