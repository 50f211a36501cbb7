#include "model.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace q8nn_bench {

double Layer::macs() const {
  switch (kind) {
    case LayerKind::kConv: return (double) oh * ow * cout * cin * kernel * kernel;
    case LayerKind::kDepthwise: return (double) oh * ow * cout * kernel * kernel;
    case LayerKind::kAdd: return (double) oh * ow * cout;
  }
  return 0;
}

double Model::total_macs() const {
  double s = 0;
  for (const auto& l : layers) s += l.macs();
  return s;
}

const char* kind_name(LayerKind k) {
  return k == LayerKind::kConv ? "conv" : k == LayerKind::kDepthwise ? "dw" : "add";
}

namespace {

struct Builder {
  Model m;
  std::mt19937 rng;
  size_t h = 0, w = 0, c = 0;
  int cur = 0;

  int new_buffer(size_t bytes) {
    m.buffer_bytes.push_back(bytes);
    return (int) m.buffer_bytes.size() - 1;
  }

  // TFLite SAME padding.
  static void same(size_t in, uint32_t k, uint32_t s, size_t* out, uint32_t* before, uint32_t* after) {
    *out = (in + s - 1) / s;
    const long total = std::max<long>((long) ((*out - 1) * s + k) - (long) in, 0);
    *before = (uint32_t) (total / 2);
    *after = (uint32_t) (total - total / 2);
  }

  void conv_like(LayerKind kind, const std::string& name, size_t cout, uint32_t k, uint32_t s, bool relu6) {
    Layer l{};
    l.kind = kind;
    l.name = name;
    l.h = h, l.w = w, l.cin = c, l.cout = cout, l.kernel = k, l.stride = s, l.relu6 = relu6;
    same(h, k, s, &l.oh, &l.pad_top, &l.pad_bottom);
    same(w, k, s, &l.ow, &l.pad_left, &l.pad_right);
    const size_t fan_in = kind == LayerKind::kConv ? c * k * k : k * k;
    const size_t nweights = kind == LayerKind::kConv ? cout * k * k * c : k * k * cout;
    std::uniform_int_distribution<int> wd(-127, 127);
    l.weights.resize(nweights);
    for (auto& v : l.weights) v = (int8_t) wd(rng);
    // Output spread of a few tens of quanta: acc std ~ sqrt(fan_in) * 50 * 73.
    const double base = 25.0 / (std::sqrt((double) fan_in) * 50.0 * 73.0) * kActScale / kActScale;
    std::uniform_real_distribution<double> sd(0.5, 1.5);
    std::uniform_int_distribution<int> bd(-2000, 2000);
    l.kernel_scale.resize(cout);
    l.bias.resize(cout);
    for (size_t i = 0; i < cout; i++) {
      l.kernel_scale[i] = (float) (base * sd(rng));
      l.bias[i] = bd(rng);
    }
    l.input = cur;
    l.input2 = -1;
    l.output = new_buffer(l.oh * l.ow * cout);
    m.layers.push_back(std::move(l));
    h = m.layers.back().oh, w = m.layers.back().ow, c = cout, cur = m.layers.back().output;
  }

  void add(const std::string& name, int other) {
    Layer l{};
    l.kind = LayerKind::kAdd;
    l.name = name;
    l.h = l.oh = h, l.w = l.ow = w, l.cin = l.cout = c;
    l.input = other, l.input2 = cur;
    l.output = new_buffer(h * w * c);
    cur = l.output;
    m.layers.push_back(std::move(l));
  }
};

}  // namespace

Model load_model(const std::string& path, uint32_t seed) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  Builder b;
  b.rng.seed(seed);
  std::string line;
  int block = 0;
  while (std::getline(f, line)) {
    std::istringstream is(line);
    std::string op;
    if (!(is >> op) || op[0] == '#') continue;
    if (op == "input") {
      is >> b.h >> b.w >> b.c;
      b.cur = b.new_buffer(b.h * b.w * b.c);
    } else if (op == "conv") {
      size_t cout;
      uint32_t k, s;
      is >> cout >> k >> s;
      b.conv_like(LayerKind::kConv, "conv" + std::to_string(k) + "x" + std::to_string(k), cout, k, s, true);
    } else if (op == "bottleneck") {
      size_t t, cout, n;
      uint32_t s;
      is >> t >> cout >> n >> s;
      for (size_t i = 0; i < n; i++, block++) {
        const uint32_t stride = i == 0 ? s : 1;
        const int in = b.cur;
        const size_t cin = b.c;
        const std::string p = "b" + std::to_string(block) + ".";
        if (t != 1) b.conv_like(LayerKind::kConv, p + "expand", cin * t, 1, 1, true);
        b.conv_like(LayerKind::kDepthwise, p + "dw", b.c, 3, stride, true);
        b.conv_like(LayerKind::kConv, p + "project", cout, 1, 1, false);
        if (stride == 1 && cin == cout) b.add(p + "add", in);
      }
    } else {
      throw std::runtime_error("unknown line in " + path + ": " + line);
    }
  }
  return std::move(b.m);
}

}  // namespace q8nn_bench
