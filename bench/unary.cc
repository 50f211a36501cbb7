// Unary elementwise operators (one 256-entry table) on MobileNetV3-Large's hardswish and sigmoid
// shapes: q8nn against a memcpy of the same bytes and, where Debian's XNNPACK has the qs8 operator
// (sigmoid, tanh, elu), against XNNPACK, all in one process. One thread (the operators are
// bandwidth-bound; the thread split is the add's). Counters: bytes per second of output. Beside
// them the other byte mover of the same size class, the two-group channel shuffle on ShuffleNetV2's
// shapes (and 56x56x48, rows of 24 bytes a half), against XNNPACK's and a memcpy; and the multiply
// of an NHWC activation by a per-channel gate (MobileNetV3's squeeze-excitation in a TFLite or
// channels-last model: both operands vary along the rows, the dense kernels) in q8nn's three
// arithmetics against XNNPACK's qs8 multiply.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <q8nn.h>
#if Q8NN_BENCH_HAVE_XNNPACK
#include <xnnpack.h>
#endif

namespace {

// (height x width x channels) of MobileNetV3-Large's activations at 224x224: the stem's hardswish,
// a 40-channel stage, the 960-channel head, and the squeeze-excite gate (sigmoid of 1 x 1 x C).
const int64_t kShapes[][3] = {{112, 112, 16}, {28, 28, 120}, {7, 7, 960}, {1, 1, 960}};

size_t bytes_of(const benchmark::State& state) {
  return static_cast<size_t>(state.range(0) * state.range(1) * state.range(2));
}

void set_counters(benchmark::State& state, size_t n) {
  state.counters["bytes/s"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}

// Runs a set-up q8nn operator writing y, labels the kernel, counts n bytes a run, deletes it.
void time_q8nn(benchmark::State& state, q8nn_operator_t op, const int8_t* y, size_t n) {
  for (auto _ : state) {
    q8nn_run_operator(op, nullptr);
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  state.SetLabel(q8nn_operator_kernel_name(op));
  set_counters(state, n);
  q8nn_delete_operator(op);
}

void q8nn_unary(benchmark::State& state, q8nn_unary_operation operation) {
  q8nn_initialize();
  const size_t n = bytes_of(state);
  std::vector<int8_t> x(n), y(n);
  for (size_t i = 0; i < n; i++) x[i] = static_cast<int8_t>(i * 7);
  q8nn_unary_quantization q{};
  q.input_zero_point = -5;
  q.input_scale = 0.05f;
  q.output_zero_point = operation == q8nn_unary_sigmoid ? -128 : 3;
  q.output_scale = operation == q8nn_unary_sigmoid ? 1.0f / 256.0f : operation == q8nn_unary_tanh ? 1.0f / 128.0f : 0.04f;
  if (operation == q8nn_unary_tanh) q.output_zero_point = 0;
  q.output_min = -128;
  q.output_max = 127;
  q.alpha = 1.0f;
  q8nn_operator_t op = nullptr;
  if (q8nn_create_unary_elementwise_nc_s8(operation, &q, 0, &op) != q8nn_status_success ||
      q8nn_setup_unary_elementwise_nc_s8(op, 1, n, x.data(), n, y.data(), n) != q8nn_status_success) {
    state.SkipWithError("q8nn create/setup failed");
    return;
  }
  time_q8nn(state, op, y.data(), n);
}

void memcpy_same_bytes(benchmark::State& state) {
  const size_t n = bytes_of(state);
  std::vector<int8_t> x(n, 1), y(n);
  for (auto _ : state) {
    std::memcpy(y.data(), x.data(), n);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

#if Q8NN_BENCH_HAVE_XNNPACK
// Runs a set-up XNNPACK operator writing y, counts n bytes a run, deletes it.
void time_xnnpack(benchmark::State& state, xnn_operator_t op, const int8_t* y, size_t n) {
  for (auto _ : state) {
    xnn_run_operator(op, nullptr);
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
  xnn_delete_operator(op);
}

enum class XnnOp { sigmoid, tanh, elu };

void xnnpack_unary(benchmark::State& state, XnnOp which) {
  xnn_initialize(nullptr);
  const size_t n = bytes_of(state);
  std::vector<int8_t> x(n + 16), y(n + 16);  // XNNPACK may read past the end (XNN_EXTRA_BYTES)
  for (size_t i = 0; i < n; i++) x[i] = static_cast<int8_t>(i * 7);
  xnn_operator_t op = nullptr;
  xnn_status status = xnn_status_success;
  switch (which) {
    case XnnOp::sigmoid:
      status = xnn_create_sigmoid_nc_qs8(1, 1, 1, -5, 0.05f, -128, 1.0f / 256.0f, -128, 127, 0, &op);
      break;
    case XnnOp::tanh:
      status = xnn_create_tanh_nc_qs8(1, 1, 1, -5, 0.05f, 0, 1.0f / 128.0f, -128, 127, 0, &op);
      break;
    case XnnOp::elu:
      status = xnn_create_elu_nc_qs8(1, 1, 1, 1.0f, -5, 0.05f, 3, 0.04f, -128, 127, 0, &op);
      break;
  }
  if (status == xnn_status_success) {
    switch (which) {
      case XnnOp::sigmoid: status = xnn_setup_sigmoid_nc_qs8(op, n, x.data(), y.data(), nullptr); break;
      case XnnOp::tanh: status = xnn_setup_tanh_nc_qs8(op, n, x.data(), y.data(), nullptr); break;
      case XnnOp::elu: status = xnn_setup_elu_nc_qs8(op, n, x.data(), y.data(), nullptr); break;
    }
  }
  if (status != xnn_status_success) {
    state.SkipWithError("XNNPACK create/setup failed");
    return;
  }
  time_xnnpack(state, op, y.data(), n);
}
#endif

// (height x width x channels) of ShuffleNetV2 x1.0's shuffles, then one of short rows
const int64_t kShuffleShapes[][3] = {{28, 28, 116}, {14, 14, 232}, {7, 7, 464}, {56, 56, 48}};

void q8nn_shuffle(benchmark::State& state) {
  q8nn_initialize();
  const size_t pixels = static_cast<size_t>(state.range(0) * state.range(1)), c = static_cast<size_t>(state.range(2));
  std::vector<int8_t> x(pixels * c), y(pixels * c);
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  q8nn_operator_t op = nullptr;
  if (q8nn_create_channel_shuffle_nc_x8(2, c / 2, 0, &op) != q8nn_status_success ||
      q8nn_setup_channel_shuffle_nc_x8(op, pixels, x.data(), c, y.data(), c) != q8nn_status_success) {
    state.SkipWithError("q8nn create/setup failed");
    return;
  }
  time_q8nn(state, op, y.data(), x.size());
}

#if Q8NN_BENCH_HAVE_XNNPACK
void xnnpack_shuffle(benchmark::State& state) {
  xnn_initialize(nullptr);
  const size_t pixels = static_cast<size_t>(state.range(0) * state.range(1)), c = static_cast<size_t>(state.range(2));
  std::vector<int8_t> x(pixels * c + 16), y(pixels * c + 16);  // XNN_EXTRA_BYTES
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  xnn_operator_t op = nullptr;
  if (xnn_create_channel_shuffle_nc_x8(2, c / 2, c, c, 0, &op) != xnn_status_success ||
      xnn_setup_channel_shuffle_nc_x8(op, pixels, x.data(), y.data(), nullptr) != xnn_status_success) {
    state.SkipWithError("XNNPACK create/setup failed");
    return;
  }
  time_xnnpack(state, op, y.data(), pixels * c);
}
#endif

// x (1 x H x W x C) times a gate (1 x 1 x 1 x C), NHWC; output bytes per second
void q8nn_multiply(benchmark::State& state, uint32_t flags) {
  q8nn_initialize();
  const size_t pixels = static_cast<size_t>(state.range(0) * state.range(1)), c = static_cast<size_t>(state.range(2));
  std::vector<int8_t> x(pixels * c), gate(c), y(pixels * c);
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  for (size_t i = 0; i < c; i++) gate[i] = static_cast<int8_t>(i * 13);
  const q8nn_multiply_quantization q = {-3, 0.05f, -128, 1.0f / 256.0f, 5, 0.04f, -128, 127};
  const size_t x_shape[4] = {1, static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)), c};
  const size_t gate_shape[4] = {1, 1, 1, c};
  q8nn_operator_t op = nullptr;
  if (q8nn_create_multiply_nd_s8(&q, flags, &op) != q8nn_status_success ||
      q8nn_setup_multiply_nd_s8(op, 4, x_shape, 4, gate_shape, x.data(), gate.data(), y.data()) !=
          q8nn_status_success) {
    state.SkipWithError("q8nn create/setup failed");
    return;
  }
  time_q8nn(state, op, y.data(), y.size());
}

#if Q8NN_BENCH_HAVE_XNNPACK
void xnnpack_multiply(benchmark::State& state) {
  xnn_initialize(nullptr);
  const size_t pixels = static_cast<size_t>(state.range(0) * state.range(1)), c = static_cast<size_t>(state.range(2));
  std::vector<int8_t> x(pixels * c + 16), gate(c + 16), y(pixels * c + 16);  // XNN_EXTRA_BYTES
  for (size_t i = 0; i < x.size(); i++) x[i] = static_cast<int8_t>(i * 7);
  for (size_t i = 0; i < gate.size(); i++) gate[i] = static_cast<int8_t>(i * 13);
  const size_t x_shape[4] = {1, static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)), c};
  const size_t gate_shape[4] = {1, 1, 1, c};
  xnn_operator_t op = nullptr;
  if (xnn_create_multiply_nd_qs8(-3, 0.05f, -128, 1.0f / 256.0f, 5, 0.04f, -128, 127, 0, &op) != xnn_status_success ||
      xnn_setup_multiply_nd_qs8(op, 4, x_shape, 4, gate_shape, x.data(), gate.data(), y.data(), nullptr) !=
          xnn_status_success) {
    state.SkipWithError("XNNPACK create/setup failed");
    return;
  }
  time_xnnpack(state, op, y.data(), pixels * c);
}
#endif

// (height x width x channels) of MobileNetV3-Large's squeeze-excitation multiplies
const int64_t kMultiplyShapes[][3] = {{28, 28, 120}, {14, 14, 672}, {7, 7, 960}};

void multiply_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"H", "W", "C"});
  for (const auto& s : kMultiplyShapes) b->Args({s[0], s[1], s[2]});
}

void shuffle_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"H", "W", "C"});
  for (const auto& s : kShuffleShapes) b->Args({s[0], s[1], s[2]});
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"H", "W", "C"});
  for (const auto& s : kShapes) b->Args({s[0], s[1], s[2]});
}

BENCHMARK_CAPTURE(q8nn_unary, hardswish, q8nn_unary_hardswish)->Apply(shapes);
BENCHMARK_CAPTURE(q8nn_unary, sigmoid, q8nn_unary_sigmoid)->Apply(shapes);
BENCHMARK_CAPTURE(q8nn_unary, tanh, q8nn_unary_tanh)->Apply(shapes);
BENCHMARK_CAPTURE(q8nn_unary, elu, q8nn_unary_elu)->Apply(shapes);
BENCHMARK(memcpy_same_bytes)->Apply(shapes);
#if Q8NN_BENCH_HAVE_XNNPACK
BENCHMARK_CAPTURE(xnnpack_unary, sigmoid, XnnOp::sigmoid)->Apply(shapes);
BENCHMARK_CAPTURE(xnnpack_unary, tanh, XnnOp::tanh)->Apply(shapes);
BENCHMARK_CAPTURE(xnnpack_unary, elu, XnnOp::elu)->Apply(shapes);
#endif
BENCHMARK(q8nn_shuffle)->Apply(shuffle_shapes);
BENCHMARK_CAPTURE(q8nn_multiply, tflite, 0)->Apply(multiply_shapes);
BENCHMARK_CAPTURE(q8nn_multiply, pytorch, Q8NN_FLAG_PYTORCH_REQUANTIZE)->Apply(multiply_shapes);
BENCHMARK_CAPTURE(q8nn_multiply, xnnpack, Q8NN_FLAG_XNNPACK_MULTIPLY)->Apply(multiply_shapes);
BENCHMARK(memcpy_same_bytes)->Name("memcpy_shuffle_bytes")->Apply(shuffle_shapes);
#if Q8NN_BENCH_HAVE_XNNPACK
BENCHMARK(xnnpack_shuffle)->Apply(shuffle_shapes);
BENCHMARK(xnnpack_multiply)->Apply(multiply_shapes);
#endif

}  // namespace

BENCHMARK_MAIN();
