// XNNPACK peer (Debian libxnnpack-dev): qc8 convolutions (per-channel fp32 requantization) and
// qs8 add, on the same layers and zero points as q8nn. Results differ from TFLite's integer
// requantization by at most 1.
#include <xnnpack.h>

#include <stdexcept>

#include "runner.h"

namespace q8nn_bench {
namespace {

class XnnpackRunner : public Runner {
 public:
  ~XnnpackRunner() override {
    for (auto op : ops_) xnn_delete_operator(op);
    if (pool_ != nullptr) pthreadpool_destroy(pool_);
  }
  std::string name() const override { return "XNNPACK"; }
  bool prepare(const Model& m, int threads) override {
    if (xnn_initialize(nullptr) != xnn_status_success) return false;
    pool_ = threads > 1 ? pthreadpool_create(threads) : nullptr;
    bufs_.clear();
    for (size_t b : m.buffer_bytes) bufs_.emplace_back(b + 64);  // XNNPACK may over-read
    for (const auto& l : m.layers) {
      xnn_operator_t op = nullptr;
      const int8_t omin = l.relu6 ? (int8_t) kActZeroPoint : -128, omax = l.relu6 ? kRelu6Max : 127;
      xnn_status st;
      if (l.kind == LayerKind::kAdd) {
        st = xnn_create_add_nd_qs8(kActZeroPoint, kActScale, kActZeroPoint, kActScale, kActZeroPoint, kActScale,
                                   -128, 127, 0, &op);
        if (st == xnn_status_success) {
          const size_t shape[4] = {1, l.h, l.w, l.cout};
          st = xnn_setup_add_nd_qs8(op, 4, shape, 4, shape, bufs_[l.input].data(), bufs_[l.input2].data(),
                                    bufs_[l.output].data(), pool_);
        }
      } else {
        const bool dw = l.kind == LayerKind::kDepthwise;
        st = xnn_create_convolution2d_nhwc_qc8(
            l.pad_top, l.pad_right, l.pad_bottom, l.pad_left, l.kernel, l.kernel, l.stride, l.stride, 1, 1,
            dw ? l.cout : 1, dw ? 1 : l.cin, dw ? 1 : l.cout, l.cin, l.cout, kActZeroPoint, kActScale,
            l.kernel_scale.data(), l.weights.data(), l.bias.data(), kActZeroPoint, kActScale, omin, omax,
            dw ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, &op);
        if (st == xnn_status_success) {
          st = xnn_setup_convolution2d_nhwc_qc8(op, 1, l.h, l.w, bufs_[l.input].data(), bufs_[l.output].data(), pool_);
        }
      }
      if (st != xnn_status_success) return false;
      ops_.push_back(op);
    }
    return true;
  }
  void run_layer(size_t i) override { xnn_run_operator(ops_[i], pool_); }
  void write_buffer(int id, const std::vector<int8_t>& d) override { std::copy(d.begin(), d.end(), bufs_[id].begin()); }
  std::vector<int8_t> read_buffer(int id) override {
    return std::vector<int8_t>(bufs_[id].begin(), bufs_[id].end() - 64);
  }

 private:
  pthreadpool_t pool_ = nullptr;
  std::vector<xnn_operator_t> ops_;
  std::vector<Buffer> bufs_;
};

}  // namespace

std::unique_ptr<Runner> make_xnnpack_runner() { return std::make_unique<XnnpackRunner>(); }

}  // namespace q8nn_bench
