// oneDNN peer (Debian libdnnl-dev: 2.x in bookworm, 3.x in trixie): int8 convolutions with
// per-channel output scales, source and destination zero points and a clip post-op for ReLU6; adds
// as a binary primitive with per-source scales (binary has no zero points, so add outputs are timed,
// not checked). oneDNN 3 has no operation descriptors and no output scales: its convolutions take
// the per-channel scales as weight scales (source and destination scales 1, the same product) and
// the scales and zero points as memory arguments at execution, and adds the bias after the scales
// (an f32 bias, the int32 one times the scale).
// u8 mode keeps every activation as x + 128 (zero point + 128), the layout oneDNN's VNNI kernels
// prefer; s8 mode uses q8nn's signed activations directly.
#include <dnnl.hpp>

#include <stdexcept>

#include "runner.h"

extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace q8nn_bench {
namespace {

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

class OnednnRunner : public Runner {
 public:
  explicit OnednnRunner(bool u8) : u8_(u8), eng_(engine::kind::cpu, 0), strm_(eng_) {}
  std::string name() const override { return u8_ ? "oneDNN u8" : "oneDNN s8"; }

  bool prepare(const Model& m, int threads) override {
    if (omp_set_num_threads != nullptr) omp_set_num_threads(threads);
    m_ = &m;
    const dt act = u8_ ? dt::u8 : dt::s8;
    const int32_t zp = kActZeroPoint + (u8_ ? 128 : 0);
    bufs_.clear();
    for (size_t b : m.buffer_bytes) bufs_.emplace_back(b);
    prims_.clear();
    args_.clear();
    try {
      for (const auto& l : m.layers) {
        const memory::dims src_dims = {1, (long) l.cin, (long) l.h, (long) l.w};
        const memory::dims dst_dims = {1, (long) l.cout, (long) l.oh, (long) l.ow};
        auto src_md = memory::desc(src_dims, act, tag::nhwc);
        auto dst_md = memory::desc(dst_dims, act, tag::nhwc);
        if (l.kind == LayerKind::kAdd) {
          primitive_attr attr;
#if DNNL_VERSION_MAJOR >= 3
          attr.set_scales_mask(DNNL_ARG_SRC_0, 0);
          attr.set_scales_mask(DNNL_ARG_SRC_1, 0);
          auto pd = binary::primitive_desc(eng_, algorithm::binary_add, src_md, src_md, dst_md, attr);
          prims_.push_back(binary(pd));
          args_.push_back({{DNNL_ARG_SRC_0, mem(src_md, l.input)}, {DNNL_ARG_SRC_1, mem(src_md, l.input2)},
                           {DNNL_ARG_DST, mem(dst_md, l.output)},
                           {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0, f32s({1.0f})},
                           {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_1, f32s({1.0f})}});
#else
          attr.set_scales(DNNL_ARG_SRC_0, 0, {1.0f});
          attr.set_scales(DNNL_ARG_SRC_1, 0, {1.0f});
          auto pd = binary::primitive_desc(binary::desc(algorithm::binary_add, src_md, src_md, dst_md), attr, eng_);
          prims_.push_back(binary(pd));
          args_.push_back({{DNNL_ARG_SRC_0, mem(src_md, l.input)}, {DNNL_ARG_SRC_1, mem(src_md, l.input2)},
                           {DNNL_ARG_DST, mem(dst_md, l.output)}});
#endif
          continue;
        }
        const bool dw = l.kind == LayerKind::kDepthwise;
        const long k = l.kernel;
        const memory::dims wdims = dw ? memory::dims{(long) l.cout, 1, 1, k, k} : memory::dims{(long) l.cout, (long) l.cin, k, k};
        auto wuser_md = memory::desc(wdims, dt::s8, dw ? tag::hwigo : tag::ohwi);
        auto wany_md = memory::desc(wdims, dt::s8, tag::any);
#if DNNL_VERSION_MAJOR >= 3
        // oneDNN 3 adds the bias after the scales, in f32: the int32 bias times the channel's scale
        auto bias_md = memory::desc({(long) l.cout}, dt::f32, tag::x);
#else
        auto bias_md = memory::desc({(long) l.cout}, dt::s32, tag::x);
#endif
        primitive_attr attr;
        std::vector<float> scales(l.cout);
        for (size_t c = 0; c < l.cout; c++) scales[c] = (float) ((double) kActScale * l.kernel_scale[c] / kActScale);
        const memory::dims strides = {(long) l.stride, (long) l.stride};
        const memory::dims pad_l = {(long) l.pad_top, (long) l.pad_left}, pad_r = {(long) l.pad_bottom, (long) l.pad_right};
#if DNNL_VERSION_MAJOR >= 3
        // per output channel: weights dim 0, or dims 0 and 1 (groups x 1) of a depthwise one
        attr.set_scales_mask(DNNL_ARG_WEIGHTS, dw ? 3 : 1);
        attr.set_zero_points_mask(DNNL_ARG_SRC, 0);
        attr.set_zero_points_mask(DNNL_ARG_DST, 0);
        if (l.relu6) {
          post_ops po;
          po.append_eltwise(algorithm::eltwise_clip, 0.0f, (float) (kRelu6Max - kActZeroPoint));
          attr.set_post_ops(po);
        }
        auto pd = convolution_forward::primitive_desc(eng_, prop_kind::forward_inference, algorithm::convolution_direct,
                                                      src_md, wany_md, bias_md, dst_md, strides, pad_l, pad_r, attr);
#else
        attr.set_output_scales(2, scales);  // per output channel (dst dim 1)
        attr.set_zero_points(DNNL_ARG_SRC, 0, {zp});
        attr.set_zero_points(DNNL_ARG_DST, 0, {zp});
        if (l.relu6) {
          post_ops po;
          po.append_eltwise(1.0f, algorithm::eltwise_clip, 0.0f, (float) (kRelu6Max - kActZeroPoint));
          attr.set_post_ops(po);
        }
        auto d = convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, src_md,
                                           wany_md, bias_md, dst_md, strides, pad_l, pad_r);
        auto pd = convolution_forward::primitive_desc(d, attr, eng_);
#endif
        memory wuser(wuser_md, eng_, const_cast<int8_t*>(l.weights.data()));
        memory w(pd.weights_desc(), eng_);
        reorder(wuser, w).execute(strm_, wuser, w);
        memory b(bias_md, eng_);
#if DNNL_VERSION_MAJOR >= 3
        for (size_t c = 0; c < l.cout; c++) static_cast<float*>(b.get_data_handle())[c] = (float) l.bias[c] * scales[c];
#else
        std::copy(l.bias.begin(), l.bias.end(), static_cast<int32_t*>(b.get_data_handle()));
#endif
        prims_.push_back(convolution_forward(pd));
        args_.push_back({{DNNL_ARG_SRC, mem(src_md, l.input)}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b},
                         {DNNL_ARG_DST, mem(dst_md, l.output)}});
#if DNNL_VERSION_MAJOR >= 3
        args_.back().insert({DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, f32s(scales)});
        args_.back().insert({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, s32s({zp})});
        args_.back().insert({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, s32s({zp})});
#endif
      }
      strm_.wait();
    } catch (const dnnl::error& e) {
      fprintf(stderr, "oneDNN: %s\n", e.what());
      return false;
    }
    return true;
  }
  void run_layer(size_t i) override {
    prims_[i].execute(strm_, args_[i]);
    strm_.wait();
  }
  void write_buffer(int id, const std::vector<int8_t>& d) override {
    for (size_t i = 0; i < d.size(); i++) bufs_[id][i] = (int8_t) (u8_ ? (uint8_t) (d[i] + 128) : (uint8_t) d[i]);
  }
  std::vector<int8_t> read_buffer(int id) override {
    std::vector<int8_t> out(bufs_[id].size());
    for (size_t i = 0; i < out.size(); i++) out[i] = (int8_t) (u8_ ? (int) (uint8_t) bufs_[id][i] - 128 : bufs_[id][i]);
    return out;
  }
  bool checkable(size_t i) const override { return m_->layers[i].kind != LayerKind::kAdd; }

 private:
  memory mem(const memory::desc& md, int id) { return memory(md, eng_, bufs_[id].data()); }
#if DNNL_VERSION_MAJOR >= 3
  // a 1-d memory holding values (scales, zero points: execution arguments in oneDNN 3)
  template <typename T>
  memory values(const std::vector<T>& v, dt type) {
    memory m(memory::desc({(long) v.size()}, type, tag::x), eng_);
    std::copy(v.begin(), v.end(), static_cast<T*>(m.get_data_handle()));
    return m;
  }
  memory f32s(const std::vector<float>& v) { return values(v, dt::f32); }
  memory s32s(const std::vector<int32_t>& v) { return values(v, dt::s32); }
#endif
  bool u8_;
  engine eng_;
  stream strm_;
  const Model* m_ = nullptr;
  std::vector<Buffer> bufs_;
  std::vector<primitive> prims_;
  std::vector<std::unordered_map<int, memory>> args_;
};

}  // namespace

std::unique_ptr<Runner> make_onednn_runner(bool u8_src) { return std::make_unique<OnednnRunner>(u8_src); }

}  // namespace q8nn_bench
