// Per-microkernel benchmarks, one per line of each kernel list (gemm, igemm, dwconv, vadd), over
// MobileNetV2-like shapes. Kernels whose ISA this CPU lacks are skipped with a message. Counters:
// GMAC/s (gemm/igemm/dwconv) or GB/s (vadd: 2 inputs + 1 output per element).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bound/bound.h"
#include "q8nn.h"
#include "ukernel.h"
extern "C" {
#include "requantization.h"
}

namespace {

std::vector<int8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = (int8_t) dist(rng);
  return v;
}

bool isa_available(benchmark::State& state, uint32_t isa) {
  if ((q8nn_get_available_isa() & isa) != isa) {
    state.SkipWithError("ISA not available on this CPU");
    return false;
  }
  return true;
}

// Per-channel requantization typical of MobileNetV2 (scale ~ 2^-9). fp32: the float scale's bits
// in the multiplier slot and shift 0 (the packed layout of ukernel.h).
void requant_params(size_t n, std::vector<int32_t>& mult, std::vector<int32_t>& shift, uint32_t seed,
                    q8nn_rounding rounding = q8nn_rounding_double) {
  std::mt19937 rng(seed);
  mult.resize(n);
  shift.resize(n);
  for (size_t i = 0; i < n; i++) {
    mult[i] = (int32_t) ((1u << 30) | (rng() >> 2));
    shift[i] = -8 - (int32_t) (rng() % 3);
    if (rounding == q8nn_rounding_fp32) {
      const float scale = std::ldexp((float) mult[i] / 2147483648.0f, shift[i]);
      std::memcpy(&mult[i], &scale, sizeof(scale));
      shift[i] = 0;
    }
  }
}

const q8nn_qs8_conv_params kConvParams = {-3, -128, 127, 0, 0, 0, 0.0f};

// The output params of a benchmark: guard 0 the exact epilogue; 1 the guarded epilogue with a clamp
// that keeps results below the zero point (the sign-dependent constant, as a linear layer); 2 with
// a ReLU's clamp (output_min = zero point, as the expansions and depthwise layers under ReLU6).
q8nn_qs8_conv_params conv_params(int guard, q8nn_rounding rounding, const std::vector<int32_t>& mult,
                                 const std::vector<int32_t>& shift) {
  q8nn_qs8_conv_params p = kConvParams;
  if (guard == 2) p.output_min = p.output_zero_point;
  if (guard != 0) q8nn_guard_params(&p, rounding, mult.size(), mult.data(), shift.data());
  return p;
}

// gemm: M x N x K = pixels x output channels x input channels.
void gemm_bench(benchmark::State& state, const q8nn_gemm_entry* e, q8nn_rounding rounding, int guard) {
  if (!isa_available(state, e->isa)) return;
  const size_t m = state.range(0), n = state.range(1), k = state.range(2);
  const auto a = random_bytes(m * k, 1);
  const auto kernel = random_bytes(n * k, 2);
  std::vector<int32_t> bias(n, 1000), mult, shift;
  requant_params(n, mult, shift, 3, rounding);
  std::vector<uint8_t> packed(q8nn_packed_gemm_size(e->pack, 1, n, 1, k, e->nr, e->kr));
  e->pack(1, n, 1, k, e->nr, e->kr, kernel.data(), bias.data(), mult.data(), shift.data(),
          -5 + e->input_offset, packed.data());
  std::vector<int8_t> c(m * n);
  const auto fn = e->fn[rounding];
  const q8nn_qs8_conv_params params = conv_params(guard, rounding, mult, shift);
  // lines with mloop take every row in one call, as the operator gives them a tile of rows
  const size_t step = e->mloop ? m : e->mr;
  for (auto _ : state) {
    for (size_t i = 0; i < m; i += step) {
      fn(std::min<size_t>(step, m - i), n, k, a.data() + i * k, k, packed.data(), c.data() + i * n, n, e->nr,
         &params);
    }
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GMAC/s"] = benchmark::Counter((double) m * n * k * state.iterations() * 1e-9,
                                                benchmark::Counter::kIsRate);
}

// igemm: 3x3 convolution over an H x W image (SAME padding, stride 1), cin -> cout.
void igemm_bench(benchmark::State& state, const q8nn_igemm_entry* e, q8nn_rounding rounding, int guard) {
  if (!isa_available(state, e->isa)) return;
  const size_t h = state.range(0), w = state.range(0), cin = state.range(1), cout = state.range(2);
  const size_t ks = 9, m = h * w;
  const auto input = random_bytes(h * w * cin, 1);
  const auto kernel = random_bytes(cout * ks * cin, 2);
  const std::vector<int8_t> zero(cin, -5);
  std::vector<int32_t> bias(cout, 1000), mult, shift;
  requant_params(cout, mult, shift, 3, rounding);
  std::vector<uint8_t> packed(q8nn_packed_gemm_size(e->pack, 1, cout, ks, cin, e->nr, e->kr));
  e->pack(1, cout, ks, cin, e->nr, e->kr, kernel.data(), bias.data(), mult.data(), shift.data(),
          -5 + e->input_offset, packed.data());
  // Indirection: [tile][tap][MR] pointers.
  const size_t tiles = (m + e->mr - 1) / e->mr;
  std::vector<const int8_t*> ind(tiles * ks * e->mr);
  for (size_t t = 0; t < tiles; t++) {
    for (size_t tap = 0; tap < ks; tap++) {
      for (size_t r = 0; r < e->mr; r++) {
        const size_t p = std::min(t * e->mr + r, m - 1);
        const long y = (long) (p / w) + (long) (tap / 3) - 1, x = (long) (p % w) + (long) (tap % 3) - 1;
        ind[(t * ks + tap) * e->mr + r] =
            (y < 0 || x < 0 || y >= (long) h || x >= (long) w) ? zero.data() : input.data() + (y * w + x) * cin;
      }
    }
  }
  std::vector<int8_t> c(m * cout);
  const auto fn = e->fn[rounding];
  const q8nn_qs8_conv_params params = conv_params(guard, rounding, mult, shift);
  for (auto _ : state) {
    for (size_t t = 0; t < tiles; t++) {
      fn(std::min<size_t>(e->mr, m - t * e->mr), cout, cin, ks, ind.data() + t * ks * e->mr, packed.data(),
         c.data() + t * e->mr * cout, cout, e->nr, 0, zero.data(), &params);
    }
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GMAC/s"] = benchmark::Counter((double) m * cout * cin * ks * state.iterations() * 1e-9,
                                                benchmark::Counter::kIsRate);
}

// dwconv: 3x3 depthwise over an H x W x C image, stride 1, one output row per call.
void dwconv_bench(benchmark::State& state, const q8nn_dwconv_entry* e, q8nn_rounding rounding, int guard) {
  if (!isa_available(state, e->isa)) return;
  const size_t h = state.range(0), w = state.range(0), ch = state.range(1);
  const size_t taps = e->taps != 0 ? e->taps : 9;
  const size_t kw = taps == 25 ? 5 : 3, pad = kw / 2;
  const auto input = random_bytes(h * w * ch, 1);
  const auto kernel = random_bytes(taps * ch, 2);
  const std::vector<int8_t> zero(ch, -5);
  std::vector<int32_t> bias(ch, 1000), mult, shift;
  requant_params(ch, mult, shift, 3, rounding);
  std::vector<uint8_t> packed(q8nn_packed_dwconv_size(ch, taps, e->channel_tile));
  q8nn_pack_qs8_dwconv_w(ch, taps, e->channel_tile, kernel.data(), bias.data(), mult.data(), shift.data(),
                         -5 + e->input_offset, packed.data());
  std::vector<const int8_t*> ind(h * w * taps);
  for (size_t y = 0; y < h; y++) {
    for (size_t x = 0; x < w; x++) {
      for (size_t t = 0; t < taps; t++) {
        const long iy = (long) y + (long) (t / kw) - (long) pad, ix = (long) x + (long) (t % kw) - (long) pad;
        ind[(y * w + x) * taps + t] = (iy < 0 || ix < 0 || iy >= (long) h || ix >= (long) w)
                                          ? zero.data() : input.data() + (iy * w + ix) * ch;
      }
    }
  }
  std::vector<int8_t> out(h * w * ch);
  const auto fn = e->fn[rounding];
  const q8nn_qs8_conv_params params = conv_params(guard, rounding, mult, shift);
  for (auto _ : state) {
    for (size_t y = 0; y < h; y++) {
      fn(ch, w, taps, ind.data() + y * w * taps, taps, packed.data(), out.data() + y * w * ch, 0, 0,
         zero.data(), &params);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["GMAC/s"] = benchmark::Counter((double) h * w * ch * taps * state.iterations() * 1e-9,
                                                benchmark::Counter::kIsRate);
}

// equal: MobileNetV2's adds (one scale and zero point for a, b and the output), with the affine
// form the operator finds for them; otherwise unequal ratios (no affine form: the generic path).
// linear (xnn lines): the unequal TFLite add in the XNNPACK form that reproduces it
// (q8nn_add_linear_params), which is what a TFLite add operator with such scales runs.
void vadd_bench(benchmark::State& state, const q8nn_vadd_entry* e, bool equal, bool linear = false) {
  if (!isa_available(state, e->isa)) return;
  const size_t n = state.range(0);
  const auto a = random_bytes(n, 1), b = random_bytes(n, 2);
  std::vector<int8_t> y(n);
  // TFLite fields, then XNNPACK's (ratios ~0.7 and ~0.6: shift 21, bias 2^20 - zero-point terms)
  q8nn_qs8_add_params p = {3, -7, 1518500250, -1, 1277672857, -1, 1431655765, -18, 20, -2, -128, 127,
                           1482910, 1247702, (1 << 20) - 1482910 * 3 + 1247702 * 7, 21};
  if (equal) {
    // ratios 1/2 (inputs) and 2^-19 (output): multipliers 2^30, shifts 0, 0, -18; XNNPACK's 2^20, shift 20
    p = {3, 3, 1 << 30, 0, 1 << 30, 0, 1 << 30, -18, 20, 3, -128, 127, 1 << 20, 1 << 20,
         (1 << 19) - (1 << 20) * 6, 20};
    q8nn_add_affine_params(&p, e->arithmetic == q8nn_add_arithmetic_xnnpack);
  }
  if (linear && !q8nn_add_linear_params(&p)) {
    state.SkipWithError("no linear form");
    return;
  }
  for (auto _ : state) {
    e->vadd(n, a.data(), b.data(), y.data(), &p);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GB/s"] = benchmark::Counter((double) 3 * n * state.iterations() * 1e-9,
                                              benchmark::Counter::kIsRate);
}

// The exact path's bound (bound/bound.h): the dot instruction on registers (GMAC/s per core) and
// the epilogue's instruction sequence (ns per 16 outputs).
// isa: the bits the loop needs; bit: the loop's ISA (bound.h).
void bound_dot_bench(benchmark::State& state, uint32_t isa, uint32_t bit) {
  if (!isa_available(state, isa)) return;
  uint64_t macs = 0;
  for (auto _ : state) macs += q8nn_bound_dot(bit, 4096);
  state.counters["GMAC/s"] = benchmark::Counter((double) macs * 1e-9, benchmark::Counter::kIsRate);
}

void bound_epilogue_bench(benchmark::State& state, uint32_t isa, uint32_t bit, int rounding) {
  if (!isa_available(state, isa)) return;
  uint64_t outputs = 0;
  for (auto _ : state) outputs += q8nn_bound_epilogue(bit, rounding, 4096);
  state.counters["ns/16"] = benchmark::Counter((double) outputs / 16,
                                               benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Entries name their double-rounding (or fp32) kernel; the single-rounding run says so.
const char* rounding_suffix(int r) { return r == 1 ? "/rsingle" : ""; }
// conv_params' guard argument
const char* guard_suffix(int guard) { return guard == 1 ? "/guarded" : guard == 2 ? "/guarded_relu" : ""; }

int register_all() {
  q8nn_initialize();
  // (M, N, K) of MobileNetV2 1x1 layers: expand 56x56 24->144, project 56x56 144->24,
  // expand 14x14 64->384, project 7x7 960->320, expand 112x112 16->96.
  const std::vector<std::vector<int64_t>> gemm_shapes = {
      {3136, 144, 24}, {3136, 24, 144}, {196, 384, 64}, {49, 320, 960}, {12544, 96, 16}, {784, 192, 32},
      // the stem's im2col gemm (3x3x3 taps x channels, K padded to 28), then b0.project
      {12544, 32, 28}, {12544, 16, 32},
      // expand 14x14 96->576 and 7x7 160->960 (K neither a multiple of 64 nor below it)
      {196, 576, 96}, {49, 960, 160}};
#if Q8NN_ARCH_X86
  const std::pair<uint32_t, const char*> bound_isas[] = {
      {Q8NN_ISA_X86_AVX512VNNI, "avx512vnni"}, {Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, "avxvnni"},
      {Q8NN_ISA_X86_AVX2, "avx2"}};
  for (const auto& [isa, isa_name] : bound_isas) {
    const uint32_t bit = isa & ~(isa == Q8NN_ISA_X86_AVX2 ? 0u : Q8NN_ISA_X86_AVX2);
    benchmark::RegisterBenchmark((std::string("bound/dot/") + isa_name).c_str(),
                                 [isa, bit](benchmark::State& s) { bound_dot_bench(s, isa, bit); });
    const char* rounding_names[] = {"rdouble", "rsingle", "fp32", "guarded_relu", "guarded"};
    for (int r = 0; r < (isa == Q8NN_ISA_X86_AVX512VNNI ? 5 : 3); r++) {
      benchmark::RegisterBenchmark((std::string("bound/epilogue/") + isa_name + "/" + rounding_names[r]).c_str(),
                                   [isa, bit, r](benchmark::State& s) { bound_epilogue_bench(s, isa, bit, r); });
    }
  }
  // the AMX gemm lines' products, and their epilogue: the AVX-512 one above with each output tile's
  // TDPBSSD and TILESTORED in it
  benchmark::RegisterBenchmark("bound/dot/amx", [](benchmark::State& s) {
    bound_dot_bench(s, Q8NN_ISA_X86_AMX, Q8NN_ISA_X86_AMX);
  });
  for (int r = 0; r < 3; r++) {
    const char* rounding_names[] = {"rdouble", "rsingle", "fp32"};
    benchmark::RegisterBenchmark((std::string("bound/epilogue/amx/") + rounding_names[r]).c_str(),
                                 [r](benchmark::State& s) {
                                   bound_epilogue_bench(s, Q8NN_ISA_X86_AMX, Q8NN_ISA_X86_AMX, r);
                                 });
  }
#endif
  for (size_t i = 0; i < q8nn_gemm_list_size; i++) {
    for (int r = 0; r < Q8NN_REQUANT_KINDS; r++) {
      const q8nn_gemm_entry* e = &q8nn_gemm_list[i];
      if (e->fn[r] == nullptr) continue;
      for (int guard = 0; guard < (r == q8nn_rounding_fp32 ? 1 : 3); guard++) {
        auto* b = benchmark::RegisterBenchmark(
            (std::string("gemm/") + e->name + rounding_suffix(r) + guard_suffix(guard)).c_str(),
            [e, r, guard](benchmark::State& s) { gemm_bench(s, e, (q8nn_rounding) r, guard); });
        for (const auto& shape : gemm_shapes) b->Args(shape);
        b->ArgNames({"M", "N", "K"})->UseRealTime();
      }
    }
  }
  for (size_t i = 0; i < q8nn_igemm_list_size; i++) {
    for (int r = 0; r < Q8NN_REQUANT_KINDS; r++) {
      const q8nn_igemm_entry* e = &q8nn_igemm_list[i];
      if (e->fn[r] == nullptr) continue;
      for (int guard = 0; guard < (r == q8nn_rounding_fp32 ? 1 : 3); guard++) {
        auto* b = benchmark::RegisterBenchmark(
            (std::string("igemm/") + e->name + rounding_suffix(r) + guard_suffix(guard)).c_str(),
            [e, r, guard](benchmark::State& s) { igemm_bench(s, e, (q8nn_rounding) r, guard); });
        b->Args({112, 3, 32})->Args({28, 32, 64})->ArgNames({"HW", "Cin", "Cout"})->UseRealTime();
      }
    }
  }
  for (size_t i = 0; i < q8nn_dwconv_list_size; i++) {
    for (int r = 0; r < Q8NN_REQUANT_KINDS; r++) {
      const q8nn_dwconv_entry* e = &q8nn_dwconv_list[i];
      if (e->fn[r] == nullptr) continue;
      for (int guard = 0; guard < (r == q8nn_rounding_fp32 ? 1 : 3); guard++) {
        auto* b = benchmark::RegisterBenchmark(
            (std::string("dwconv/") + e->name + rounding_suffix(r) + guard_suffix(guard)).c_str(),
            [e, r, guard](benchmark::State& s) { dwconv_bench(s, e, (q8nn_rounding) r, guard); });
        b->Args({112, 32})->Args({56, 144})->Args({14, 576})->ArgNames({"HW", "C"})->UseRealTime();
      }
    }
  }
  for (size_t i = 0; i < q8nn_vadd_list_size; i++) {
    const q8nn_vadd_entry* e = &q8nn_vadd_list[i];
    for (const bool equal : {false, true}) {
      benchmark::RegisterBenchmark((std::string("vadd/") + e->name + (equal ? "/equal_scales" : "")).c_str(),
                                   [e, equal](benchmark::State& s) { vadd_bench(s, e, equal); })
          ->Arg(28 * 28 * 32)->Arg(56 * 56 * 24)->Arg(112 * 112 * 96)->ArgName("N")->UseRealTime();
    }
    if (e->arithmetic == q8nn_add_arithmetic_xnnpack) {
      benchmark::RegisterBenchmark((std::string("vadd/") + e->name + "/tflite_linear").c_str(),
                                   [e](benchmark::State& s) { vadd_bench(s, e, false, true); })
          ->Arg(28 * 28 * 32)->Arg(56 * 56 * 24)->Arg(112 * 112 * 96)->ArgName("N")->UseRealTime();
    }
  }
  return 0;
}

const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
