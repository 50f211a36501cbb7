// MobileNetV2 1.0 224x224 end to end: the 62 conv / depthwise / add layers of
// models/mobilenet_v2.txt run with q8nn and, when found at build time, XNNPACK and oneDNN (u8 and
// s8 sources) in the same process. Each peer's outputs are checked against q8nn's (within 1) layer
// by layer on q8nn's inputs, then Google Benchmark times whole-network runs for 1 and 2 threads
// and a per-layer table is printed (median of repeated runs of each layer).
//   bench_mobilenet_v2 [--benchmark_* flags] [--no-layers] [--layer-reps=N] [--fp32] [--omp-passive]
//                      [--sequence] [--one-call-per-layer] [--no-peers] [--guard-rate]
// The whole-network benchmarks run q8nn's layers as one q8nn_run_operators list (one parallel
// region per pass); --one-call-per-layer runs them with one q8nn_run_operator call each instead.
// q8nn runs twice: "q8nn" in TFLite's numerics and "q8nn fp32" in XNNPACK's (q8nn_rounding_fp32,
// Q8NN_FLAG_XNNPACK_ADD). The first is the reference of the check and of every ratio; --fp32 makes
// "q8nn fp32" the reference, and the check against XNNPACK must then report 0 differing bytes on
// every layer.
// (--benchmark_filter=none --no-layers runs only the check.) --no-peers keeps only the reference
// column (no check, no peer timings): the quick per-layer table for A/B runs of two q8nn builds.
#include <benchmark/benchmark.h>
#include <pthreadpool.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include <unistd.h>

#include "bound/bound.h"
#include "guard-rate.h"
#include "q8nn.h"
#include "runner.h"

namespace q8nn_bench {
namespace {

constexpr double kPeakGmacPerCore = 455.0;  // VPDPBUSD zmm on this machine (see README)

bool g_fp32 = false;  // --fp32: the fp32-mode q8nn is the reference column
bool g_one_call_per_layer = false;  // --one-call-per-layer: whole passes without q8nn_run_operators
bool g_no_peers = false;  // --no-peers: the reference column only
bool g_guard_layers = false;  // --guard-rate: the guarded epilogue's exact fallback per layer too
q8nn_bound_rates g_bound = {};  // rates of the active ISA's loops (docs/performance.md, "The exact path's bound")

// Lower bound (ms, one core) of the reference column's numerics on layer l: the MACs at the dot
// instruction's rate plus the epilogue per 16 outputs, or the bytes moved at the in-cache copy rate
// if that is larger; adds are memory only (3 bytes per element). 0 when no loops ran. Where AMX is
// active (TDPBSSD measured) every non-depthwise convolution runs on it (gemm, igemm and im2col
// lines): the products run on the tile unit beside the vector epilogue, so the larger of the two,
// not their sum; the products count whole TDPBSSD (16 x 16 outputs, 64 bytes of K each: a K of 16
// costs what a K of 64 does), and the epilogue is the loop that has its tile's TDPBSSD and
// TILESTORED in it (the tile store does not overlap the vector work; docs/performance.md, "The
// exact path's bound").
double bound_ms(const Layer& l) {
  if (g_bound.isa == nullptr) return 0.0;
  const double outputs = (double) l.oh * l.ow * l.cout;
  const double in_bytes = (double) l.h * l.w * (l.kind == LayerKind::kAdd ? 2 * l.cin : l.cin);
  const double memory_ms = (in_bytes + outputs + (double) l.weights.size()) / (g_bound.copy_gbs * 1e6);
  if (l.kind == LayerKind::kAdd) return memory_ms;
  const int r = g_fp32 ? 2 : 0;
  const bool amx = g_bound.amx_dot_gmacs > 0 && l.kind == LayerKind::kConv;
  const double epilogue_ms = outputs / 16 * (amx ? g_bound.amx_epilogue_ns16[r] : g_bound.epilogue_ns16[r]) * 1e-6;
  double compute_ms = l.macs() / (g_bound.dot_gmacs * 1e6) + epilogue_ms;
  if (amx) {
    const auto up = [](double a, double b) { return std::ceil(a / b); };
    const double products = up((double) l.oh * l.ow, 16) * up((double) l.cout, 16) *
                            up((double) l.kernel * l.kernel * l.cin, 64);
    compute_ms = std::max(products * 16 * 16 * 64 / (g_bound.amx_dot_gmacs * 1e6), epilogue_ms);
  }
  return std::max(compute_ms, memory_ms);
}

class Q8nnRunner : public Runner {
 public:
  // fp32: XNNPACK's numerics (q8nn_rounding_fp32, Q8NN_FLAG_XNNPACK_ADD); else TFLite's.
  explicit Q8nnRunner(bool fp32) : fp32_(fp32) {}
  ~Q8nnRunner() override {
    for (auto op : ops_) q8nn_delete_operator(op);
    if (pool_ != nullptr) pthreadpool_destroy(pool_);
  }
  std::string name() const override { return fp32_ ? "q8nn fp32" : "q8nn"; }
  bool prepare(const Model& m, int threads) override {
    if (q8nn_initialize() != q8nn_status_success) return false;
    pool_ = threads > 1 ? pthreadpool_create(threads) : nullptr;
    bufs_.clear();
    for (size_t b : m.buffer_bytes) bufs_.emplace_back(b);
    for (const auto& l : m.layers) {
      q8nn_operator_t op = nullptr;
      q8nn_status st;
      const int8_t omin = l.relu6 ? (int8_t) kActZeroPoint : -128, omax = l.relu6 ? kRelu6Max : 127;
      if (l.kind == LayerKind::kAdd) {
        q8nn_add_quantization q = {kActZeroPoint, kActScale, kActZeroPoint, kActScale, kActZeroPoint, kActScale,
                                   -128, 127, nullptr};
        st = q8nn_create_add_nd_s8(&q, fp32_ ? Q8NN_FLAG_XNNPACK_ADD : 0, &op);
        if (st == q8nn_status_success) {
          const size_t shape[4] = {1, l.h, l.w, l.cout};
          st = q8nn_setup_add_nd_s8(op, 4, shape, 4, shape, bufs_[l.input].data(), bufs_[l.input2].data(),
                                    bufs_[l.output].data());
        }
      } else {
        q8nn_conv_quantization q = {};
        q.input_zero_point = kActZeroPoint;
        q.input_scale = kActScale;
        q.kernel_scale = l.kernel_scale.data();
        q.output_zero_point = kActZeroPoint;
        q.output_scale = kActScale;
        q.output_min = omin;
        q.output_max = omax;
        q.rounding = fp32_ ? q8nn_rounding_fp32 : q8nn_rounding_double;
        size_t oh, ow;
        if (l.kind == LayerKind::kConv) {
          q8nn_convolution2d_desc d = {};
          d.padding_top = l.pad_top, d.padding_right = l.pad_right, d.padding_bottom = l.pad_bottom,
          d.padding_left = l.pad_left;
          d.kernel_height = d.kernel_width = l.kernel;
          d.stride_height = d.stride_width = l.stride;
          d.dilation_height = d.dilation_width = 1;
          d.groups = 1;
          d.group_input_channels = l.cin;
          d.group_output_channels = l.cout;
          st = q8nn_create_convolution2d_nhwc_s8(&d, &q, l.weights.data(), l.bias.data(), 0, &op);
          if (st == q8nn_status_success) {
            st = q8nn_setup_convolution2d_nhwc_s8(op, 1, l.h, l.w, bufs_[l.input].data(), l.cin,
                                                  bufs_[l.output].data(), l.cout, &oh, &ow);
          }
        } else {
          q8nn_depthwise_convolution2d_desc d = {};
          d.padding_top = l.pad_top, d.padding_right = l.pad_right, d.padding_bottom = l.pad_bottom,
          d.padding_left = l.pad_left;
          d.kernel_height = d.kernel_width = l.kernel;
          d.stride_height = d.stride_width = l.stride;
          d.dilation_height = d.dilation_width = 1;
          d.channels = l.cin;
          d.depth_multiplier = 1;
          st = q8nn_create_depthwise_convolution2d_nhwc_s8(&d, &q, l.weights.data(), l.bias.data(), 0, &op);
          if (st == q8nn_status_success) {
            st = q8nn_setup_depthwise_convolution2d_nhwc_s8(op, 1, l.h, l.w, bufs_[l.input].data(), l.cin,
                                                            bufs_[l.output].data(), l.cout, &oh, &ow);
          }
        }
      }
      if (st != q8nn_status_success) {
        fprintf(stderr, "q8nn: layer %s: %s\n", l.name.c_str(), q8nn_status_string(st));
        return false;
      }
      ops_.push_back(op);
    }
    return true;
  }
  void run_layer(size_t i) override { q8nn_run_operator(ops_[i], pool_); }
  void run_all(size_t layers) override {
    if (g_one_call_per_layer) {
      Runner::run_all(layers);
    } else {
      q8nn_run_operators(layers, ops_.data(), pool_);
    }
  }
  void write_buffer(int id, const std::vector<int8_t>& d) override { bufs_[id].assign(d.begin(), d.end()); }
  std::vector<int8_t> read_buffer(int id) override { return std::vector<int8_t>(bufs_[id].begin(), bufs_[id].end()); }
  // The guarded epilogue's flag counts of layer i on its present input (guard-rate.c).
  bool guard_count(const Layer& l, size_t i, q8nn_bench_guard_count* c) {
    return q8nn_bench_guard_rate(ops_[i], l.h, l.w, bufs_[l.input].data(), c) != 0;
  }

 private:
  bool fp32_;
  pthreadpool_t pool_ = nullptr;
  std::vector<q8nn_operator_t> ops_;
  std::vector<Buffer> bufs_;
};

using Factory = std::unique_ptr<Runner> (*)();
struct RunnerKind {
  const char* name;
  Factory make;
};

std::unique_ptr<Runner> make_q8nn() { return std::make_unique<Q8nnRunner>(false); }
std::unique_ptr<Runner> make_q8nn_fp32() { return std::make_unique<Q8nnRunner>(true); }
#if Q8NN_BENCH_HAVE_XNNPACK
std::unique_ptr<Runner> make_xnn() { return make_xnnpack_runner(); }
#endif
#if Q8NN_BENCH_HAVE_ONEDNN
std::unique_ptr<Runner> make_dnnl_u8() { return make_onednn_runner(true); }
std::unique_ptr<Runner> make_dnnl_s8() { return make_onednn_runner(false); }
#endif

// The first kind is the reference of the check and of every ratio: q8nn in the selected numerics.
// oneDNN comes last so that its OpenMP workers' spinning (see main) follows the pthreadpool users.
const std::vector<RunnerKind>& runner_kinds() {
  static const std::vector<RunnerKind> all = {
      g_fp32 ? RunnerKind{"q8nn fp32", make_q8nn_fp32} : RunnerKind{"q8nn", make_q8nn},
      g_fp32 ? RunnerKind{"q8nn", make_q8nn} : RunnerKind{"q8nn fp32", make_q8nn_fp32},
#if Q8NN_BENCH_HAVE_XNNPACK
      {"XNNPACK", make_xnn},
#endif
#if Q8NN_BENCH_HAVE_ONEDNN
      {"oneDNN u8", make_dnnl_u8},
      {"oneDNN s8", make_dnnl_s8},
#endif
  };
  static const std::vector<RunnerKind> reference_only(all.begin(), all.begin() + 1);
  return g_no_peers ? reference_only : all;
}

bool is_onednn(const RunnerKind& k) { return std::strncmp(k.name, "oneDNN", 6) == 0; }

// After a oneDNN phase: its OpenMP workers spin for GOMP_SPINCOUNT iterations (set in main) before
// they sleep; wait that out so that they do not take a core from the next pthreadpool runner.
void let_openmp_settle(const RunnerKind& k) {
  if (is_onednn(k)) usleep(300 * 1000);
}

const Model& model() {
  static const Model m = load_model(std::string(Q8NN_BENCH_MODELS_DIR) + "/mobilenet_v2.txt", 42);
  return m;
}

std::vector<int8_t> random_input(size_t n) {
  std::vector<int8_t> v(n);
  uint32_t s = 12345;
  for (auto& x : v) x = (int8_t) ((s = s * 1103515245u + 12345u) >> 24);
  return v;
}

// How often the guarded epilogue takes the exact one, per layer, on the reference run's inputs: a
// count from the scalar model of the kernels' test (guard-rate.c), not a timing.
void guard_table(const Model& m, Q8nnRunner& ref) {
  q8nn_bench_guard_count total = {};
  bool any = false;
  for (size_t i = 0; i < m.layers.size(); i++) {
    const Layer& l = m.layers[i];
    q8nn_bench_guard_count c = {};
    if (l.kind == LayerKind::kAdd || !ref.guard_count(l, i, &c)) continue;
    if (!any) {
      printf("guarded epilogue, exact fallback (flagged / all): %-14s %10s %10s %10s\n", "layer", "lanes",
             "16-ch vec", "64-ch grp");
      any = true;
    }
    if (g_guard_layers) {
      printf("guarded epilogue, exact fallback (flagged / all): %-14s %9.4f%% %9.3f%% %9.3f%%\n", l.name.c_str(),
             100.0 * c.lanes_flagged / c.lanes, 100.0 * c.vectors_flagged / c.vectors,
             100.0 * c.groups_flagged / c.groups);
    }
    total.lanes += c.lanes, total.lanes_flagged += c.lanes_flagged;
    total.vectors += c.vectors, total.vectors_flagged += c.vectors_flagged;
    total.groups += c.groups, total.groups_flagged += c.groups_flagged;
  }
  if (any) {
    printf("guarded epilogue, exact fallback (flagged / all): %-14s %9.4f%% %9.3f%% %9.3f%%\n", "all layers",
           100.0 * total.lanes_flagged / total.lanes, 100.0 * total.vectors_flagged / total.vectors,
           100.0 * total.groups_flagged / total.groups);
  }
}

// Runs q8nn over the network; then each peer layer by layer on q8nn's inputs. Prints mismatches.
void check_peers() {
  const Model& m = model();
  Q8nnRunner ref(g_fp32);
  if (!ref.prepare(m, 1)) std::exit(1);
  ref.write_buffer(0, random_input(m.buffer_bytes[0]));
  for (size_t i = 0; i < m.layers.size(); i++) ref.run_layer(i);
  guard_table(m, ref);
  for (const auto& kind : runner_kinds()) {
    if (ref.name() == kind.name) continue;
    const bool exact_peer = g_fp32 && std::strcmp(kind.name, "XNNPACK") == 0;
    auto peer = kind.make();
    if (!peer->prepare(m, 1)) {
      printf("check %-10s: prepare failed\n", kind.name);
      continue;
    }
    size_t checked = 0, bad_layers = 0, differing_bytes = 0, differing_layers = 0;
    int worst = 0;
    for (size_t i = 0; i < m.layers.size(); i++) {
      const Layer& l = m.layers[i];
      if (!peer->checkable(i)) continue;
      peer->write_buffer(l.input, ref.read_buffer(l.input));
      if (l.input2 >= 0) peer->write_buffer(l.input2, ref.read_buffer(l.input2));
      peer->run_layer(i);
      const auto got = peer->read_buffer(l.output), want = ref.read_buffer(l.output);
      int diff = 0;
      size_t differing = 0;
      for (size_t j = 0; j < want.size(); j++) {
        diff = std::max(diff, std::abs((int) got[j] - (int) want[j]));
        differing += got[j] != want[j];
      }
      differing_bytes += differing;
      differing_layers += differing != 0;
      if (exact_peer && differing != 0) {
        printf("check %-10s: layer %zu %s: %zu differing bytes (max |diff| %d)\n", kind.name, i, l.name.c_str(),
               differing, diff);
      }
      worst = std::max(worst, diff);
      checked++;
      if (diff > 1) {
        bad_layers++;
        printf("check %-10s: layer %zu %s differs by %d\n", kind.name, i, l.name.c_str(), diff);
      }
    }
    printf("check %-10s: %zu layers compared, max |diff| %d, %zu beyond 1; %zu differing bytes in %zu layers\n",
           kind.name, checked, worst, bad_layers, differing_bytes, differing_layers);
  }
}

void network_benchmark(benchmark::State& state, Factory make, int threads) {
  const Model& m = model();
  auto r = make();
  if (!r->prepare(m, threads)) {
    state.SkipWithError("prepare failed");
    return;
  }
  r->write_buffer(0, random_input(m.buffer_bytes[0]));
  for (auto _ : state) r->run_all(m.layers.size());
  state.counters["GMAC/s"] = benchmark::Counter(m.total_macs() * state.iterations() * 1e-9,
                                                benchmark::Counter::kIsRate);
}

// Median of `reps` samples of layer i. A sample of a layer shorter than 20 us is the mean of
// enough back-to-back runs to fill 20 us, so that the two clock reads (about 20 ns each on the
// development VM) stay below 1% of it: they were 15-25% of a 0.15 us add.
double median_layer_ms(Runner& r, size_t i, int reps) {
  const auto e0 = std::chrono::steady_clock::now();
  r.run_layer(i);
  const double once = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - e0).count();
  const int runs = once >= 0.02 ? 1 : std::min(1000, (int) (0.02 / std::max(once, 1e-5)) + 1);
  std::vector<double> t(reps);
  for (int k = 0; k < reps; k++) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int j = 0; j < runs; j++) r.run_layer(i);
    t[k] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / runs;
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}

double median_of(std::vector<double> t) {
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

// --sequence: where a whole-network pass spends its time beyond the sum of isolated layers. Each
// runner runs `reps` passes with a clock read between layers; per class, the median time of its
// layers inside the passes next to their isolated medians (each layer repeated alone, as in the
// per-layer table), and the median pass; for q8nn also the median pass as one q8nn_run_operators
// list (run_all). Reading the clock costs well under a microsecond a layer.
void sequence_table(int reps) {
  const Model& m = model();
  const std::vector<std::string> classes = {"add", "conv1x1", "conv3x3", "dw", "total"};
  for (int threads = 1; threads <= 2; threads++) {
    printf("\nIn sequence vs isolated, %d thread%s (ms; medians of %d; gap = in sequence - isolated)\n", threads,
           threads > 1 ? "s" : "", reps);
    printf("%-10s %-8s %9s %9s %9s\n", "runner", "class", "isolated", "in seq", "gap");
    for (const auto& kind : runner_kinds()) {
      auto r = kind.make();
      if (!r->prepare(m, threads)) continue;
      r->write_buffer(0, random_input(m.buffer_bytes[0]));
      for (size_t i = 0; i < m.layers.size(); i++) r->run_layer(i);
      std::vector<std::vector<double>> seq(m.layers.size(), std::vector<double>(reps));
      std::vector<double> pass(reps);
      for (int k = 0; k < reps; k++) {
        const auto p0 = std::chrono::steady_clock::now();
        auto t0 = p0;
        for (size_t i = 0; i < m.layers.size(); i++) {
          r->run_layer(i);
          const auto t1 = std::chrono::steady_clock::now();
          seq[i][k] = std::chrono::duration<double, std::milli>(t1 - t0).count();
          t0 = t1;
        }
        pass[k] = std::chrono::duration<double, std::milli>(t0 - p0).count();
      }
      std::map<std::string, double> iso, in_seq;
      for (size_t i = 0; i < m.layers.size(); i++) {
        const Layer& l = m.layers[i];
        const std::string c = l.kind == LayerKind::kConv ? (l.kernel == 1 ? "conv1x1" : "conv3x3") : kind_name(l.kind);
        const double a = median_layer_ms(*r, i, reps), b = median_of(seq[i]);
        iso[c] += a, in_seq[c] += b, iso["total"] += a, in_seq["total"] += b;
      }
      for (const auto& c : classes) {
        printf("%-10s %-8s %9.4f %9.4f %+9.4f\n", kind.name, c.c_str(), iso[c], in_seq[c], in_seq[c] - iso[c]);
      }
      printf("%-10s %-8s %9s %9.4f\n", kind.name, "pass", "", median_of(pass));
      if (std::strncmp(kind.name, "q8nn", 4) == 0) {
        // the same passes as one q8nn_run_operators call each (no clock between layers)
        for (int k = 0; k < reps; k++) {
          const auto p0 = std::chrono::steady_clock::now();
          r->run_all(m.layers.size());
          pass[k] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - p0).count();
        }
        printf("%-10s %-8s %9s %9.4f\n", kind.name, "one list", "", median_of(pass));
      }
      r.reset();
      let_openmp_settle(kind);
    }
  }
}

// Per-layer medians for every runner and thread count, then totals by layer class.
void layer_table(int reps) {
  const Model& m = model();
  const auto& kinds = runner_kinds();
  for (int threads = 1; threads <= 2; threads++) {
    std::vector<std::vector<double>> ms(kinds.size(), std::vector<double>(m.layers.size(), 0.0));
    for (size_t k = 0; k < kinds.size(); k++) {
      auto r = kinds[k].make();
      if (!r->prepare(m, threads)) continue;
      r->write_buffer(0, random_input(m.buffer_bytes[0]));
      for (size_t i = 0; i < m.layers.size(); i++) r->run_layer(i);
      for (size_t i = 0; i < m.layers.size(); i++) ms[k][i] = median_layer_ms(*r, i, reps);
      r.reset();
      let_openmp_settle(kinds[k]);
    }
    const double peak = kPeakGmacPerCore * threads;
    printf("\nPer-layer medians, %d thread%s (ms; GMAC/s and %% of %g GMAC/s peak for q8nn; ratio = peer / q8nn time)\n",
           threads, threads > 1 ? "s" : "", peak);
    printf("%-3s %-14s %-4s %-16s %9s %8s %8s %6s %7s", "#", "layer", "kind", "shape", "MMAC",
           (std::string(kinds[0].name) + " ms").c_str(), "GMAC/s", "%peak", "%bound");
    for (size_t k = 1; k < kinds.size(); k++) printf(" %10s %6s", kinds[k].name, "ratio");
    printf("\n");
    // Classes may overlap (conv1x1 and its split by K); the total sums every layer once.
    const std::vector<std::string> class_order = {"add", "conv1x1", "1x1 K<384", "1x1 K>=384", "conv3x3", "dw"};
    std::map<std::string, std::vector<double>> cls;
    std::map<std::string, double> cls_macs, cls_bound;
    std::vector<double> total(kinds.size(), 0.0);
    double total_bound = 0.0;
    for (size_t i = 0; i < m.layers.size(); i++) {
      const Layer& l = m.layers[i];
      std::vector<std::string> names = {kind_name(l.kind)};
      if (l.kind == LayerKind::kConv) {
        names = {l.kernel == 1 ? "conv1x1" : "conv3x3"};
        if (l.kernel == 1) names.push_back(l.cin >= 384 ? "1x1 K>=384" : "1x1 K<384");
      }
      char shape[64];
      snprintf(shape, sizeof(shape), "%zux%zux%zu>%zu", l.h, l.w, l.cin, l.cout);
      const double gmacs = l.macs() / (ms[0][i] * 1e6);
      const double bound = bound_ms(l) / threads;
      printf("%-3zu %-14s %-4s %-16s %9.2f %8.4f %8.1f %5.1f%% %6.1f%%", i, l.name.c_str(), kind_name(l.kind), shape,
             l.macs() * 1e-6, ms[0][i], gmacs, 100 * gmacs / peak, 100 * bound / ms[0][i]);
      for (size_t k = 1; k < kinds.size(); k++) printf(" %10.4f %6.2f", ms[k][i], ms[k][i] / ms[0][i]);
      printf("\n");
      for (const auto& c : names) {
        auto& v = cls[c];
        v.resize(kinds.size(), 0.0);
        for (size_t k = 0; k < kinds.size(); k++) v[k] += ms[k][i];
        cls_macs[c] += l.macs();
        cls_bound[c] += bound;
      }
      for (size_t k = 0; k < kinds.size(); k++) total[k] += ms[k][i];
      total_bound += bound;
    }
    printf("\nBy class, %d thread%s (%s):\n%-10s %9s %9s %8s %6s %7s", threads, threads > 1 ? "s" : "",
           kinds[0].name, "class", "MMAC", "ms", "GMAC/s", "%peak", "%bound");
    for (size_t k = 1; k < kinds.size(); k++) printf(" %10s %8s %6s", kinds[k].name, "GMAC/s", "ratio");
    printf("\n");
    for (const auto& c : class_order) {
      if (cls.count(c) == 0) continue;
      const auto& v = cls[c];
      const double g = cls_macs[c] / (v[0] * 1e6);
      printf("%-10s %9.2f %9.4f %8.1f %5.1f%% %6.1f%%", c.c_str(), cls_macs[c] * 1e-6, v[0], g, 100 * g / peak,
             100 * cls_bound[c] / v[0]);
      for (size_t k = 1; k < kinds.size(); k++) printf(" %10.4f %8.1f %6.2f", v[k], cls_macs[c] / (v[k] * 1e6), v[k] / v[0]);
      printf("\n");
    }
    const double g = m.total_macs() / (total[0] * 1e6);
    printf("%-10s %9.2f %9.4f %8.1f %5.1f%% %6.1f%%", "total", m.total_macs() * 1e-6, total[0], g, 100 * g / peak,
           100 * total_bound / total[0]);
    for (size_t k = 1; k < kinds.size(); k++)
      printf(" %10.4f %8.1f %6.2f", total[k], m.total_macs() / (total[k] * 1e6), total[k] / total[0]);
    printf("\n");
  }
}

// With Q8NN_ISA_MASK set, oneDNN is capped at the same x86 level (ONEDNN_MAX_CPU_ISA, unless the
// caller set it), so that its ratios compare kernels of one ISA: q8nn's AVX-VNNI path against
// oneDNN's AVX2_VNNI code, not against its AVX-512 code. XNNPACK has no such cap (it runs the
// kernels it picks for the host's CPU). Must run before oneDNN's first primitive; returns the cap set, or nullptr.
const char* cap_onednn_isa() {
#if defined(__x86_64__)
  if (std::getenv("Q8NN_ISA_MASK") == nullptr || std::getenv("ONEDNN_MAX_CPU_ISA") != nullptr) return nullptr;
  if (q8nn_initialize() != q8nn_status_success) return nullptr;
  const uint32_t isa = q8nn_get_active_isa();
  const char* cap = (isa & Q8NN_ISA_X86_AMX) != 0          ? nullptr
                    : (isa & Q8NN_ISA_X86_AVX512VNNI) != 0 ? "AVX512_CORE_VNNI"
                    : (isa & Q8NN_ISA_X86_AVXVNNI) != 0    ? "AVX2_VNNI"
                    : (isa & Q8NN_ISA_X86_AVX2) != 0       ? "AVX2"
                                                           : "SSE41";
  if (cap != nullptr) setenv("ONEDNN_MAX_CPU_ISA", cap, 1);
  return cap;
#else
  return nullptr;
#endif
}

}  // namespace
}  // namespace q8nn_bench

int main(int argc, char** argv) {
  using namespace q8nn_bench;
  // oneDNN's OpenMP workers wait actively between primitives (as in a oneDNN-only process, so its
  // 2-thread figures pay no wake-up per layer), but only for GOMP_SPINCOUNT iterations (a few ms)
  // before they sleep: oneDNN runs last in each phase and let_openmp_settle() waits that out, so the
  // spinning never takes a core from q8nn's or XNNPACK's pthreadpool workers. --omp-passive makes
  // them sleep at once instead (every oneDNN layer then pays a wake-up). libgomp reads the
  // environment at load time, so re-exec.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    bool passive = false;
    for (int i = 1; i < argc; i++) passive |= std::strcmp(argv[i], "--omp-passive") == 0;
    setenv("OMP_WAIT_POLICY", passive ? "passive" : "active", 1);
    if (!passive) setenv("GOMP_SPINCOUNT", "1000000", 0);
    execv("/proc/self/exe", argv);
  }
  bool layers = true, sequence = false;
  int reps = 15;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--no-layers") == 0) layers = false;
    if (std::strncmp(argv[i], "--layer-reps=", 13) == 0) reps = std::atoi(argv[i] + 13);
    if (std::strcmp(argv[i], "--fp32") == 0) g_fp32 = true;
    if (std::strcmp(argv[i], "--sequence") == 0) sequence = true;
    if (std::strcmp(argv[i], "--one-call-per-layer") == 0) g_one_call_per_layer = true;
    if (std::strcmp(argv[i], "--no-peers") == 0) g_no_peers = true;
    if (std::strcmp(argv[i], "--guard-rate") == 0) g_guard_layers = true;
  }
  printf("MobileNetV2 1.0 224x224: %zu layers, %.1f M MACs; q8nn numerics: %s\n", model().layers.size(),
         model().total_macs() * 1e-6, g_fp32 ? "XNNPACK (fp32 conv, XNNPACK add)" : "TFLite");
  if (const char* cap = cap_onednn_isa()) {
    printf("oneDNN capped at ONEDNN_MAX_CPU_ISA=%s, the level of Q8NN_ISA_MASK (XNNPACK is not capped)\n", cap);
  }
  check_peers();
  if (q8nn_bound_measure(q8nn_get_active_isa(), &g_bound)) {
    printf("exact bound, %s loops, one core: dot %.1f GMAC/s; epilogue per 16 outputs %.2f ns (rdouble) %.2f "
           "(rsingle) %.2f (fp32); copy %.1f GB/s; %%bound uses %s\n",
           g_bound.isa, g_bound.dot_gmacs, g_bound.epilogue_ns16[0], g_bound.epilogue_ns16[1],
           g_bound.epilogue_ns16[2], g_bound.copy_gbs, g_fp32 ? "fp32" : "rdouble");
    if (g_bound.amx_dot_gmacs > 0) {
      printf("AMX: TDPBSSD %.0f GMAC/s per core (the convolutions' products); epilogue with its tile's TDPBSSD and "
             "TILESTORED %.2f ns per 16 outputs (rdouble) %.2f (fp32)\n",
             g_bound.amx_dot_gmacs, g_bound.amx_epilogue_ns16[0], g_bound.amx_epilogue_ns16[2]);
    }
  } else {
    printf("exact bound: no loops for the active ISA set (%%bound prints 0)\n");
  }
  for (const auto& kind : runner_kinds()) {
    for (int threads = 1; threads <= 2; threads++) {
      benchmark::RegisterBenchmark(("mobilenet_v2/" + std::string(kind.name) + "/threads:" + std::to_string(threads)).c_str(),
                                   [kind, threads](benchmark::State& s) {
                                     network_benchmark(s, kind.make, threads);
                                     let_openmp_settle(kind);
                                   })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  if (layers) layer_table(reps);
  if (sequence) sequence_table(reps);
  return 0;
}
