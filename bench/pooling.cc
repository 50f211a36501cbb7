// Pooling on ResNet-18's and MobileNet's shapes: the 3x3 stride-2 max pool after the stem
// (112x112x64 -> 56x56x64) and the global average pools before the classifiers (7x7x512,
// 7x7x1280); and two more max pools, VGG's 2x2 stride 2 (56x56x128) and Inception's 3x3 stride 1
// padded (28x28x192). q8nn against XNNPACK's s8 max pooling and qs8 global average pooling
// (Debian's, where found) in one process, one thread. q8nn's average runs every shape (windowed
// where the window is not the image). Counter: input bytes per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include <q8nn.h>
#if Q8NN_BENCH_HAVE_XNNPACK
#include <xnnpack.h>
#endif

namespace {

struct Shape {
  size_t h, w, c, window, stride, pad;
  bool global() const { return window == h && window == w; }
};
const Shape kShapes[] = {{112, 112, 64, 3, 2, 1}, {7, 7, 512, 7, 1, 0}, {7, 7, 1280, 7, 1, 0},
                         {56, 56, 128, 2, 2, 0},  {28, 28, 192, 3, 1, 1}};

size_t out_size(size_t in, const Shape& s) { return (in + 2 * s.pad - s.window) / s.stride + 1; }

void set_counters(benchmark::State& state, const Shape& s) {
  state.counters["in_bytes/s"] = benchmark::Counter(static_cast<double>(s.h * s.w * s.c) * state.iterations(),
                                                    benchmark::Counter::kIsRate);
}

void q8nn_pool(benchmark::State& state, bool average) {
  q8nn_initialize();
  const Shape& s = kShapes[state.range(0)];
  if (!average && s.global()) {
    state.SkipWithError("max pooling runs the windowed shapes only");
    return;
  }
  std::vector<int8_t> x(s.h * s.w * s.c, 3), y(out_size(s.h, s) * out_size(s.w, s) * s.c);
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  const uint32_t p = static_cast<uint32_t>(s.pad), k = static_cast<uint32_t>(s.window);
  const q8nn_pooling2d_desc d{p, p, p, p, k, k, static_cast<uint32_t>(s.stride), static_cast<uint32_t>(s.stride), s.c};
  q8nn_operator_t op = nullptr;
  q8nn_status st = average ? q8nn_create_average_pooling2d_nhwc_s8(&d, -128, 127, 0, &op)
                           : q8nn_create_max_pooling2d_nhwc_s8(&d, -128, 127, 0, &op);
  if (st == q8nn_status_success) {
    st = q8nn_setup_pooling2d_nhwc_s8(op, 1, s.h, s.w, x.data(), s.c, y.data(), s.c, nullptr, nullptr);
  }
  if (st != q8nn_status_success) {
    state.SkipWithError("q8nn create/setup failed");
    return;
  }
  for (auto _ : state) q8nn_run_operator(op, nullptr);
  state.SetLabel(q8nn_operator_kernel_name(op));
  set_counters(state, s);
  q8nn_delete_operator(op);
}

#if Q8NN_BENCH_HAVE_XNNPACK
void xnnpack_pool(benchmark::State& state, bool average) {
  xnn_initialize(nullptr);
  const Shape& s = kShapes[state.range(0)];
  if (!average && s.global()) {
    state.SkipWithError("max pooling runs the windowed shapes only");
    return;
  }
  if (average && !s.global()) {
    state.SkipWithError("Debian's XNNPACK has no qs8 (windowed) average pooling");
    return;
  }
  std::vector<int8_t> x(s.h * s.w * s.c + 64, 3), y(out_size(s.h, s) * out_size(s.w, s) * s.c + 64);
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  xnn_operator_t op = nullptr;
  const uint32_t p = static_cast<uint32_t>(s.pad), k = static_cast<uint32_t>(s.window);
  xnn_status st;
  if (average) {
    st = xnn_create_global_average_pooling_nwc_qs8(s.c, s.c, s.c, 0, 0.1f, 0, 0.1f, -128, 127, 0, &op);
    if (st == xnn_status_success) st = xnn_setup_global_average_pooling_nwc_qs8(op, 1, s.h * s.w, x.data(), y.data(), nullptr);
  } else {
    st = xnn_create_max_pooling2d_nhwc_s8(p, p, p, p, k, k, static_cast<uint32_t>(s.stride),
                                          static_cast<uint32_t>(s.stride), 1, 1, s.c, s.c, s.c, -128, 127, 0, &op);
    if (st == xnn_status_success) st = xnn_setup_max_pooling2d_nhwc_s8(op, 1, s.h, s.w, x.data(), y.data(), nullptr);
  }
  if (st != xnn_status_success) {
    state.SkipWithError("XNNPACK create/setup failed");
    return;
  }
  for (auto _ : state) xnn_run_operator(op, nullptr);
  set_counters(state, s);
  xnn_delete_operator(op);
}
#endif

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"shape"});
  for (int i = 0; i < static_cast<int>(sizeof(kShapes) / sizeof(kShapes[0])); i++) b->Arg(i);
}

BENCHMARK_CAPTURE(q8nn_pool, max, false)->Apply(shapes);
BENCHMARK_CAPTURE(q8nn_pool, average, true)->Apply(shapes);
#if Q8NN_BENCH_HAVE_XNNPACK
BENCHMARK_CAPTURE(xnnpack_pool, max, false)->Apply(shapes);
BENCHMARK_CAPTURE(xnnpack_pool, average, true)->Apply(shapes);
#endif

}  // namespace

BENCHMARK_MAIN();
