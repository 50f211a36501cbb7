// Resize on segmentation and detection shapes: bilinear 2x upsampling (DeepLab-style decoders:
// 28x28x128 and 14x14x256, TFLite's default and half-pixel-centre scales) against XNNPACK's s8
// bilinear resize (Debian's, where found; its own arithmetic, not TFLite's bytes: a speed peer
// only), and nearest 2x (YOLOv3-tiny's 13x13x256 upsample, and 28x28x128) against a memcpy of the
// output's bytes, all in one process, one thread. Counter: output bytes per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <q8nn.h>
#if Q8NN_BENCH_HAVE_XNNPACK
#include <xnnpack.h>
#endif

namespace {

// input height x width x channels, upsampled 2x
const int64_t kShapes[][3] = {{28, 28, 128}, {14, 14, 256}, {13, 13, 256}};

void set_counters(benchmark::State& state, size_t n) {
  state.counters["bytes/s"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}

struct Shape {
  size_t h, w, c;
  explicit Shape(const benchmark::State& state)
      : h(static_cast<size_t>(state.range(0))), w(static_cast<size_t>(state.range(1))),
        c(static_cast<size_t>(state.range(2))) {}
  size_t in_bytes() const { return h * w * c; }
  size_t out_bytes() const { return 4 * h * w * c; }
};

void q8nn_resize(benchmark::State& state, q8nn_resize_mode mode, uint32_t flags) {
  q8nn_initialize();
  const Shape s(state);
  std::vector<int8_t> x(s.in_bytes()), y(s.out_bytes());
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  q8nn_operator_t op = nullptr;
  if (q8nn_create_resize2d_nhwc_s8(mode, s.c, 2 * s.h, 2 * s.w, flags, &op) != q8nn_status_success ||
      q8nn_setup_resize2d_nhwc_s8(op, 1, s.h, s.w, x.data(), s.c, y.data(), s.c) != q8nn_status_success) {
    state.SkipWithError("q8nn create/setup failed");
    return;
  }
  for (auto _ : state) {
    q8nn_run_operator(op, nullptr);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(q8nn_operator_kernel_name(op));
  set_counters(state, y.size());
  q8nn_delete_operator(op);
}

void memcpy_output_bytes(benchmark::State& state) {
  const Shape s(state);
  std::vector<int8_t> x(s.out_bytes(), 1), y(s.out_bytes());
  for (auto _ : state) {
    std::memcpy(y.data(), x.data(), y.size());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, y.size());
}

#if Q8NN_BENCH_HAVE_XNNPACK
void xnnpack_bilinear(benchmark::State& state, uint32_t flags) {
  xnn_initialize(nullptr);
  const Shape s(state);
  std::vector<int8_t> x(s.in_bytes() + 16), y(s.out_bytes() + 16);  // XNN_EXTRA_BYTES
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  xnn_operator_t op = nullptr;
  if (xnn_create_resize_bilinear2d_nhwc_s8(s.c, s.c, s.c, flags, &op) != xnn_status_success ||
      xnn_setup_resize_bilinear2d_nhwc_s8(op, 1, s.h, s.w, 2 * s.h, 2 * s.w, x.data(), y.data(), nullptr) !=
          xnn_status_success) {
    state.SkipWithError("XNNPACK create/setup failed");
    return;
  }
  for (auto _ : state) {
    xnn_run_operator(op, nullptr);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, s.out_bytes());
  xnn_delete_operator(op);
}
#endif

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"H", "W", "C"});
  for (const auto& s : kShapes) b->Args({s[0], s[1], s[2]});
}

BENCHMARK_CAPTURE(q8nn_resize, bilinear, q8nn_resize_bilinear, 0)->Apply(shapes);
BENCHMARK_CAPTURE(q8nn_resize, bilinear_half_pixel, q8nn_resize_bilinear, Q8NN_FLAG_HALF_PIXEL_CENTERS)->Apply(shapes);
BENCHMARK_CAPTURE(q8nn_resize, nearest, q8nn_resize_nearest, 0)->Apply(shapes);
BENCHMARK(memcpy_output_bytes)->Apply(shapes);
#if Q8NN_BENCH_HAVE_XNNPACK
// TFLite's default scale is XNNPACK's TensorFlow legacy mode; half-pixel centres its default
BENCHMARK_CAPTURE(xnnpack_bilinear, bilinear, XNN_FLAG_TENSORFLOW_LEGACY_MODE)->Apply(shapes);
BENCHMARK_CAPTURE(xnnpack_bilinear, bilinear_half_pixel, 0)->Apply(shapes);
#endif

}  // namespace

BENCHMARK_MAIN();
