// Fully connected on one input row, the classifier shapes 1280 -> 1000 (MobileNetV2/V3) and
// 1024 -> 1024, and two rows: q8nn against XNNPACK's qs8 and oneDNN's u8 inner product (where found)
// in one process, 1 and 2 threads, and against the bound of reading the weights once (weight_read:
// a vector XOR over the same number of bytes, the weights' cache level as in a repeated run).
#include <benchmark/benchmark.h>
#include <pthreadpool.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <q8nn.h>
#if Q8NN_BENCH_HAVE_XNNPACK
#include <xnnpack.h>
#endif
#if Q8NN_BENCH_HAVE_ONEDNN
#include <dnnl.hpp>
extern "C" void omp_set_num_threads(int) __attribute__((weak));
#endif

namespace {

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"K", "N", "M", "T"});
  for (int t = 1; t <= 2; t++) {
    b->Args({1280, 1000, 1, t});
    b->Args({1024, 1024, 1, t});
    b->Args({1280, 1000, 2, t});
  }
  b->UseRealTime();
}

struct Problem {
  size_t k, n, m;
  std::vector<int8_t> kernel, input, output;
  std::vector<int32_t> bias;
  explicit Problem(const benchmark::State& s)
      : k(s.range(0)), n(s.range(1)), m(s.range(2)), kernel(k * n), input(m * k), output(m * n), bias(n) {
    for (size_t i = 0; i < kernel.size(); i++) kernel[i] = static_cast<int8_t>(i * 37 + 11);
    for (size_t i = 0; i < input.size(); i++) input[i] = static_cast<int8_t>(i * 13 + 5);
    for (size_t i = 0; i < n; i++) bias[i] = static_cast<int32_t>(i * 97) - 40000;
  }
};

void set_counters(benchmark::State& state, const Problem& p) {
  state.counters["weight_bytes/s"] = benchmark::Counter(static_cast<double>(p.k * p.n) * state.iterations(),
                                                        benchmark::Counter::kIsRate);
}

void q8nn_fully_connected(benchmark::State& state) {
  q8nn_initialize();
  Problem p(state);
  const float kernel_scale = 0.004f;
  const q8nn_conv_quantization q{-3, 0.05f, &kernel_scale, 5, 0.4f, -128, 127, q8nn_rounding_double,
                                 nullptr, nullptr, nullptr};
  q8nn_operator_t op = nullptr;
  pthreadpool_t pool = state.range(3) > 1 ? pthreadpool_create(state.range(3)) : nullptr;
  if (q8nn_create_fully_connected_nc_s8(p.k, p.n, &q, p.kernel.data(), p.bias.data(),
                                        Q8NN_FLAG_PER_TENSOR_KERNEL_SCALE, &op) != q8nn_status_success ||
      q8nn_setup_fully_connected_nc_s8(op, p.m, p.input.data(), p.k, p.output.data(), p.n) != q8nn_status_success) {
    state.SkipWithError("q8nn create/setup failed");
    return;
  }
  for (auto _ : state) q8nn_run_operator(op, pool);
  state.SetLabel(q8nn_operator_kernel_name(op));
  set_counters(state, p);
  q8nn_delete_operator(op);
  if (pool != nullptr) pthreadpool_destroy(pool);
}

__attribute__((target("avx2"), noinline)) uint64_t xor_bytes(const uint8_t* p, size_t n) {
  typedef uint64_t v4 __attribute__((vector_size(32)));
  v4 a{}, b{}, c{}, d{};
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    v4 x0, x1, x2, x3;
    memcpy(&x0, p + i, 32);
    memcpy(&x1, p + i + 32, 32);
    memcpy(&x2, p + i + 64, 32);
    memcpy(&x3, p + i + 96, 32);
    a ^= x0, b ^= x1, c ^= x2, d ^= x3;
  }
  a ^= b ^ c ^ d;
  uint64_t r = a[0] ^ a[1] ^ a[2] ^ a[3];
  for (; i < n; i++) r ^= p[i];
  return r;
}

void weight_read(benchmark::State& state) {
  Problem p(state);
  if (state.range(3) != 1) {
    state.SkipWithError("one thread only");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(xor_bytes(reinterpret_cast<const uint8_t*>(p.kernel.data()), p.k * p.n));
  set_counters(state, p);
}

#if Q8NN_BENCH_HAVE_XNNPACK
void xnnpack_fully_connected(benchmark::State& state) {
  xnn_initialize(nullptr);
  Problem p(state);
  p.input.resize(p.input.size() + 16);
  pthreadpool_t pool = state.range(3) > 1 ? pthreadpool_create(state.range(3)) : nullptr;
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_qs8(p.k, p.n, p.k, p.n, -3, 0.05f, 0.004f, p.kernel.data(), p.bias.data(), 5,
                                        0.4f, -128, 127, 0, &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_qs8(op, p.m, p.input.data(), p.output.data(), pool) != xnn_status_success) {
    state.SkipWithError("XNNPACK create/setup failed");
    return;
  }
  for (auto _ : state) xnn_run_operator(op, pool);
  set_counters(state, p);
  xnn_delete_operator(op);
  if (pool != nullptr) pthreadpool_destroy(pool);
}
#endif

#if Q8NN_BENCH_HAVE_ONEDNN
void onednn_inner_product(benchmark::State& state) {
  using namespace dnnl;
  using dt = memory::data_type;
  using tag = memory::format_tag;
  Problem p(state);
  if (omp_set_num_threads != nullptr) omp_set_num_threads(static_cast<int>(state.range(3)));
  try {
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    const long m = static_cast<long>(p.m), k = static_cast<long>(p.k), n = static_cast<long>(p.n);
    auto src_md = memory::desc({m, k}, dt::u8, tag::nc);
    auto wuser_md = memory::desc({n, k}, dt::s8, tag::oi);
    auto wany_md = memory::desc({n, k}, dt::s8, tag::any);
    auto bias_md = memory::desc({n}, dt::s32, tag::x);
    auto dst_md = memory::desc({m, n}, dt::u8, tag::nc);
    primitive_attr attr;
    attr.set_output_scales(0, {0.05f * 0.004f / 0.4f});
    /* no zero points: oneDNN 2.6's int8 inner product has none; the timing is the product's */
    auto pd = inner_product_forward::primitive_desc(
        inner_product_forward::desc(prop_kind::forward_inference, src_md, wany_md, bias_md, dst_md), attr, eng);
    memory wuser(wuser_md, eng, p.kernel.data());
    memory w(pd.weights_desc(), eng);
    reorder(wuser, w).execute(strm, wuser, w);
    memory b(bias_md, eng, p.bias.data());
    memory src(src_md, eng, p.input.data()), dst(dst_md, eng, p.output.data());
    inner_product_forward prim(pd);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b},
                                         {DNNL_ARG_DST, dst}};
    strm.wait();
    for (auto _ : state) {
      prim.execute(strm, args);
      strm.wait();
    }
    state.SetLabel(pd.impl_info_str());
  } catch (const dnnl::error& e) {
    state.SkipWithError(e.what());
    return;
  }
  set_counters(state, p);
}
#endif

BENCHMARK(q8nn_fully_connected)->Apply(shapes);
BENCHMARK(weight_read)->Apply(shapes);
#if Q8NN_BENCH_HAVE_XNNPACK
BENCHMARK(xnnpack_fully_connected)->Apply(shapes);
#endif
#if Q8NN_BENCH_HAVE_ONEDNN
BENCHMARK(onednn_inner_product)->Apply(shapes);
#endif

}  // namespace

BENCHMARK_MAIN();
