// torch.ops.q8nn: PyTorch eager-mode quantized conv2d (depthwise via groups), linear, add, mul, cat,
// max_pool2d, adaptive_avg_pool2d, hardswish, hardsigmoid and channel_shuffle on q8nn, byte for byte what PyTorch 1.13's
// qnnpack engine computes:
//  - quint8 activations run where PyTorch runs pytorch_qnnpack: bias quantized by
//    quant_utils::QuantizeBias (at::quantize_per_tensor / _per_channel with scale
//    w_scale * input_scale in double), requantization scale (w_scale * input_scale) * (1 / output_scale)
//    in float (generate_requantization_scales), fp32 requantization.
//    quint8 adds of equal sizes in pytorch_qnnpack's add arithmetic (Q8NN_FLAG_QNNPACK_ADD).
//  - qint8 activations run where PyTorch runs XNNPACK (qs8/qc8 convolution, qs8 fully connected,
//    qs8 add): the same bias, requantization scale input_scale * w_scale / output_scale in float,
//    add with XNNPACK's qs8 arithmetic (Q8NN_FLAG_XNNPACK_ADD).
//  - linear layers on q8nn's fully connected operator, convolutions on its convolutions.
//  - hardswish and hardsigmoid as q8nn lookups of the 256-entry table PyTorch computes in float
//    (pytorch_qnnpack's, or its generic kernel's where both of that kernel's forms agree); cat on
//    q8nn's concatenation (Q8NN_FLAG_PYTORCH_REQUANTIZE), channel_shuffle on q8nn's channel
//    shuffle, max_pool2d on q8nn's max pooling (dilated windows: a loop here), adaptive_avg_pool2d
//    on its requantizing average pooling (pytorch_qnnpack's arithmetic), mul on its multiply
//    (PyTorch's float arithmetic, Q8NN_FLAG_PYTORCH_REQUANTIZE). Where PyTorch's own
//    kernels give two answers for one quantization, the op calls PyTorch's kernel instead.
// The q8nn operator is created at the first call (the input's scale is only known then), kept
// while the input and output quantization stay the same, and set up again with the new tensors'
// pointers on every call (O(1) in q8nn). It runs on PyTorch's intra-op threads (at::parallel_for),
// so torch.set_num_threads applies: PyTorch's quint8 max pool runs on pytorch_qnnpack's own thread
// pool, whose workers keep spinning after it and take cores from the next layer's intra-op threads.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/custom_class.h>
#include <torch/library.h>

#include <pthreadpool.h>
#include <q8nn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace {

// ---- q8nn plumbing ---------------------------------------------------------------------------

void check_status(q8nn_status status, const char* what) {
  TORCH_CHECK(status == q8nn_status_success, "q8nn: ", what, " failed: ", q8nn_status_string(status));
}

void ensure_initialized() {
  static const q8nn_status status = q8nn_initialize();
  check_status(status, "q8nn_initialize");
}

struct OperatorDeleter {
  void operator()(q8nn_operator* op) const { q8nn_delete_operator(op); }
};
// Shared: a recorded forward (below) keeps the operators it ran alive.
using Operator = std::shared_ptr<q8nn_operator>;

// Time spent in the ops (whole call) and in q8nn_run_operator_on alone, for benchmarks, and the
// most threads that ran pieces of one parallel-for (tests check torch.set_num_threads applies).
std::atomic<int64_t> stat_calls{0};
std::atomic<int64_t> stat_op_ns{0};
std::atomic<int64_t> stat_run_ns{0};
std::atomic<int64_t> stat_max_threads{0};
std::atomic<int64_t> stat_pytorch_calls{0};  // calls the ops handed to PyTorch's kernels

// PyTorch's intra-op threads as q8nn's host pool. Inside a parallel region at::parallel_for runs
// inline, so q8nn is told one thread there.
size_t host_threads_count(void*) {
  return at::in_parallel_region() ? 1 : static_cast<size_t>(std::max(at::get_num_threads(), 1));
}

void host_parallelize(void*, q8nn_task_1d_tile_1d_t task, void* task_context, size_t range, size_t tile) {
  if (range == 0) {
    return;
  }
  tile = std::max<size_t>(tile, 1);
  const int64_t tiles = static_cast<int64_t>((range + tile - 1) / tile);
  // Pieces are whole tiles (consecutive tiles merged), as q8nn's contract allows.
  std::atomic<uint64_t> threads_seen{0};
  at::parallel_for(0, tiles, 1, [&](int64_t begin, int64_t end) {
    threads_seen |= uint64_t{1} << std::min(at::get_thread_num(), 63);
    const size_t start = static_cast<size_t>(begin) * tile;
    const size_t stop = std::min(range, static_cast<size_t>(end) * tile);
    task(task_context, start, stop - start);
  });
  const int64_t threads = __builtin_popcountll(threads_seen.load());
  int64_t most = stat_max_threads.load();
  while (threads > most && !stat_max_threads.compare_exchange_weak(most, threads)) {
  }
}

const q8nn_threadpool host_pool = {nullptr, host_threads_count, host_parallelize};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A forward recorded for q8nn::replay: the q8nn operators it ran, in order, with the tensors they
// read and wrote (kept alive, so the operators' last setups stay valid), until the next run.
struct Recording {
  std::mutex mutex;
  bool on = false;
  std::vector<Operator> ops;
  std::vector<at::Tensor> tensors;
  uint64_t runs = 0;         // q8nn operator runs so far
  uint64_t runs_at_end = 0;  // runs when the recording stopped
};
Recording recording;

template <typename Tensors>
void run_keeping(const Operator& op, const Tensors& tensors) {
  {
    std::lock_guard<std::mutex> lock(recording.mutex);
    recording.runs++;
    if (recording.on) {
      recording.ops.push_back(op);
      recording.tensors.insert(recording.tensors.end(), tensors.begin(), tensors.end());
    }
  }
  const int64_t start = now_ns();
  check_status(q8nn_run_operator_on(op.get(), &host_pool), "q8nn_run_operator_on");
  stat_run_ns += now_ns() - start;
}

// Runs op on the intra-op threads; the tensors it reads and writes are kept by a recording.
void run(const Operator& op, std::initializer_list<at::Tensor> tensors) { run_keeping(op, tensors); }

struct OpTimer {
  int64_t start = now_ns();
  ~OpTimer() {
    stat_op_ns += now_ns() - start;
    stat_calls += 1;
  }
};

// ---- checks shared by the ops ----------------------------------------------------------------

void check_activation(const at::Tensor& x, const char* op, const char* what) {
  TORCH_CHECK(x.defined(), op, ": ", what, " is undefined");
  TORCH_CHECK(x.device().is_cpu(), op, ": ", what, " must be a CPU tensor, got ", x.device());
  TORCH_CHECK(x.is_quantized(), op, ": ", what, " must be a quantized tensor (torch.quint8 or torch.qint8), got ",
              x.scalar_type());
  TORCH_CHECK(x.scalar_type() == at::kQUInt8 || x.scalar_type() == at::kQInt8, op, ": ", what,
              " must be torch.quint8 or torch.qint8, got ", x.scalar_type());
  TORCH_CHECK(x.qscheme() == at::kPerTensorAffine, op, ": ", what,
              " must be quantized per tensor (torch.per_tensor_affine), got ", c10::toString(x.qscheme()));
}

void check_output_quantization(at::ScalarType dtype, double scale, int64_t zero_point, const char* op) {
  TORCH_CHECK(std::isfinite(scale) && scale > 0.0, op, ": output_scale must be finite and > 0, got ", scale);
  const int64_t lo = dtype == at::kQUInt8 ? 0 : -128;
  const int64_t hi = dtype == at::kQUInt8 ? 255 : 127;
  TORCH_CHECK(zero_point >= lo && zero_point <= hi, op, ": output_zero_point ", zero_point,
              " is outside the ", dtype, " range [", lo, ", ", hi, "]");
}

// PyTorch's clamp: activationLimits(RELU).first = the output zero point, else the type's range.
std::pair<int32_t, int32_t> output_limits(at::ScalarType dtype, int64_t zero_point, bool relu) {
  const int32_t lo = dtype == at::kQUInt8 ? 0 : -128;
  const int32_t hi = dtype == at::kQUInt8 ? 255 : 127;
  return {relu ? static_cast<int32_t>(zero_point) : lo, hi};
}

// ---- convolution and linear ------------------------------------------------------------------

// What a created operator was made for: a different input or output quantization recreates it.
struct ConvKey {
  at::ScalarType dtype;
  double input_scale;
  int64_t input_zero_point;
  double output_scale;
  int64_t output_zero_point;
  bool relu;
  bool operator==(const ConvKey& o) const {
    return dtype == o.dtype && input_scale == o.input_scale && input_zero_point == o.input_zero_point &&
           output_scale == o.output_scale && output_zero_point == o.output_zero_point && relu == o.relu;
  }
};

// One convolution, or a fully connected layer (fully_connected: a 1x1 weight [O][I][1][1], run by
// q8nn's fully connected operator): the weights in q8nn's layout, created from a PyTorch qint8
// weight [O][I/groups][kh][kw] (per tensor or per channel along 0, zero points 0).
class ConvCore {
 public:
  ConvCore(at::Tensor weight, c10::optional<at::Tensor> bias, std::vector<int64_t> stride,
           std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups, const char* op,
           bool fully_connected = false)
      : weight_(std::move(weight)), bias_(std::move(bias)), stride_(std::move(stride)),
        padding_(std::move(padding)), dilation_(std::move(dilation)), groups_(groups),
        fully_connected_(fully_connected) {
    TORCH_CHECK(weight_.defined() && weight_.is_quantized() && weight_.scalar_type() == at::kQInt8, op,
                ": weight must be a quantized torch.qint8 tensor, got ",
                weight_.defined() ? toString(weight_.scalar_type()) : "undefined");
    TORCH_CHECK(weight_.dim() == 4, op, ": weight must be 4-d [O, I/groups, kH, kW], got ", weight_.dim(), "-d");
    TORCH_CHECK(stride_.size() == 2 && padding_.size() == 2 && dilation_.size() == 2, op,
                ": stride, padding and dilation must have 2 values each");
    TORCH_CHECK(stride_[0] >= 1 && stride_[1] >= 1 && dilation_[0] >= 1 && dilation_[1] >= 1, op,
                ": stride and dilation must be >= 1");
    TORCH_CHECK(padding_[0] >= 0 && padding_[1] >= 0, op, ": padding must be >= 0");
    out_channels_ = weight_.size(0);
    group_in_ = weight_.size(1);
    kh_ = weight_.size(2);
    kw_ = weight_.size(3);
    TORCH_CHECK(groups_ >= 1 && out_channels_ >= 1 && out_channels_ % groups_ == 0, op, ": ", out_channels_,
                " output channels do not split into ", groups_, " groups");
    TORCH_CHECK(group_in_ >= 1 && kh_ >= 1 && kw_ >= 1, op, ": empty weight");
    in_channels_ = group_in_ * groups_;
    depthwise_ = group_in_ == 1 && groups_ == in_channels_ && groups_ > 1;
    TORCH_CHECK(!fully_connected_ || (groups_ == 1 && kh_ == 1 && kw_ == 1), op,
                ": a fully connected weight is [O][I][1][1] with one group");

    // Scales and zero points: q8nn takes symmetric weights only (PyTorch's XNNPACK path too).
    const auto qscheme = weight_.qscheme();
    weight_scale_.resize(out_channels_);
    if (qscheme == at::kPerTensorAffine || qscheme == at::kPerTensorSymmetric) {
      TORCH_CHECK(weight_.q_zero_point() == 0, op, ": weight zero point must be 0 (symmetric), got ",
                  weight_.q_zero_point());
      per_channel_ = false;
      std::fill(weight_scale_.begin(), weight_scale_.end(), static_cast<float>(weight_.q_scale()));
    } else if (qscheme == at::kPerChannelAffine || qscheme == at::kPerChannelSymmetric) {
      TORCH_CHECK(weight_.q_per_channel_axis() == 0, op, ": per-channel weight must be quantized along axis 0, got ",
                  weight_.q_per_channel_axis());
      const auto zero_points = weight_.q_per_channel_zero_points().to(at::kLong).contiguous();
      const auto scales = weight_.q_per_channel_scales().to(at::kDouble).contiguous();
      for (int64_t c = 0; c < out_channels_; c++) {
        TORCH_CHECK(zero_points.data_ptr<int64_t>()[c] == 0, op, ": weight zero point of channel ", c,
                    " must be 0 (symmetric), got ", zero_points.data_ptr<int64_t>()[c]);
        weight_scale_[c] = static_cast<float>(scales.data_ptr<double>()[c]);
      }
      per_channel_ = true;
    } else {
      TORCH_CHECK(false, op, ": unsupported weight quantization scheme ", c10::toString(qscheme));
    }

    if (bias_.has_value() && bias_->defined()) {
      TORCH_CHECK(!bias_->is_quantized() && bias_->scalar_type() == at::kFloat, op,
                  ": bias must be a float tensor, got ", bias_->scalar_type());
      TORCH_CHECK(bias_->dim() == 1 && bias_->size(0) == out_channels_, op, ": bias must have ", out_channels_,
                  " elements");
      bias_float_ = bias_->contiguous();
    } else {
      bias_ = c10::nullopt;
      // PyTorch's qnnpack prepack gives a layer without bias a zero one.
      bias_float_ = at::zeros({out_channels_}, at::kFloat);
    }

    // OHWI (groups stacked along O), or 1HWO for depthwise: output channel c*dm+m reads input
    // channel c, which is PyTorch's order of groups.
    const at::Tensor w = weight_.int_repr();
    kernel_ = (depthwise_ ? w.reshape({out_channels_, kh_, kw_}).permute({1, 2, 0}) : w.permute({0, 2, 3, 1}))
                  .contiguous();
  }

  at::Tensor conv2d(const at::Tensor& act, double output_scale, int64_t output_zero_point, bool relu,
                    const char* op) {
    OpTimer timer;
    ensure_initialized();
    check_activation(act, op, "input");
    TORCH_CHECK(act.dim() == 4, op, ": input must be 4-d (N, C, H, W), got ", act.dim(), "-d");
    TORCH_CHECK(act.size(1) == in_channels_, op, ": input has ", act.size(1), " channels, the weight expects ",
                in_channels_, " (", groups_, " groups of ", group_in_, ")");
    check_output_quantization(act.scalar_type(), output_scale, output_zero_point, op);
    const int64_t n = act.size(0), h = act.size(2), w = act.size(3);
    const int64_t oh = (h + 2 * padding_[0] - dilation_[0] * (kh_ - 1) - 1) / stride_[0] + 1;
    const int64_t ow = (w + 2 * padding_[1] - dilation_[1] * (kw_ - 1) - 1) / stride_[1] + 1;
    TORCH_CHECK(oh > 0 && ow > 0, op, ": the output would be empty (", oh, "x", ow, ") for a ", h, "x", w,
                " input");
    const at::Tensor x = act.contiguous(at::MemoryFormat::ChannelsLast);
    at::Tensor y = at::_empty_affine_quantized(
        {n, out_channels_, oh, ow},
        at::device(at::kCPU).dtype(act.scalar_type()).memory_format(at::MemoryFormat::ChannelsLast),
        output_scale, output_zero_point, c10::nullopt);
    if (n == 0) {
      return y;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    prepare(ConvKey{act.scalar_type(), act.q_scale(), act.q_zero_point(), output_scale, output_zero_point, relu});
    setup(n, h, w, x.data_ptr(), in_channels_, y.data_ptr(), out_channels_);
    run(op_, {x, y});
    return y;
  }

  // A linear layer: the rows of x [..., K] through q8nn's fully connected operator.
  at::Tensor linear(const at::Tensor& act, double output_scale, int64_t output_zero_point, bool relu,
                    const char* op) {
    OpTimer timer;
    ensure_initialized();
    check_activation(act, op, "input");
    TORCH_CHECK(act.dim() >= 2, op, ": input must have 2 or more dimensions, got ", act.dim());
    TORCH_CHECK(act.size(-1) == in_channels_, op, ": input has ", act.size(-1), " features, the weight expects ",
                in_channels_);
    check_output_quantization(act.scalar_type(), output_scale, output_zero_point, op);
    const at::Tensor x = act.contiguous();
    std::vector<int64_t> sizes = act.sizes().vec();
    sizes.back() = out_channels_;
    at::Tensor y = at::_empty_affine_quantized(sizes, at::device(at::kCPU).dtype(act.scalar_type()), output_scale,
                                               output_zero_point, c10::nullopt);
    const int64_t rows = x.numel() / in_channels_;
    if (rows == 0) {
      return y;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    prepare(ConvKey{act.scalar_type(), act.q_scale(), act.q_zero_point(), output_scale, output_zero_point, relu});
    const bool u8 = key_.dtype == at::kQUInt8;
    const q8nn_status status =
        u8 ? q8nn_setup_fully_connected_nc_u8(op_.get(), rows, static_cast<const uint8_t*>(x.data_ptr()),
                                              in_channels_, static_cast<uint8_t*>(y.data_ptr()), out_channels_)
           : q8nn_setup_fully_connected_nc_s8(op_.get(), rows, static_cast<const int8_t*>(x.data_ptr()),
                                              in_channels_, static_cast<int8_t*>(y.data_ptr()), out_channels_);
    check_status(status, "setup fully connected");
    run(op_, {x, y});
    return y;
  }

  std::string kernel_name() {
    std::lock_guard<std::mutex> lock(mutex_);
    return op_ ? std::string(q8nn_operator_kernel_name(op_.get())) : std::string();
  }

  const at::Tensor& weight() const { return weight_; }
  const c10::optional<at::Tensor>& bias() const { return bias_; }
  const std::vector<int64_t>& stride() const { return stride_; }
  const std::vector<int64_t>& padding() const { return padding_; }
  const std::vector<int64_t>& dilation() const { return dilation_; }
  int64_t groups() const { return groups_; }

 private:
  // Creates the operator for this input/output quantization unless the current one is for it.
  void prepare(const ConvKey& key) {
    if (op_ && key == key_) {
      return;
    }
    op_.reset();
    const bool u8 = key.dtype == at::kQUInt8;
    // Bias exactly as PyTorch's quant_utils::QuantizeBias (both the pytorch_qnnpack and the
    // XNNPACK path): scale w_scale * input_scale in double, at::quantize_* to qint32.
    at::Tensor qbias;
    if (per_channel_) {
      const at::Tensor scales = weight_.q_per_channel_scales() * key.input_scale;
      qbias = at::quantize_per_channel(bias_float_, scales, at::zeros(scales.sizes(), at::kInt), 0, at::kQInt32);
    } else {
      qbias = at::quantize_per_tensor(bias_float_, weight_.q_scale() * key.input_scale, 0, at::kQInt32);
    }
    const at::Tensor bias32 = qbias.int_repr().contiguous();

    // Requantization scales in PyTorch's float expression for the path it takes.
    const float input_scale = static_cast<float>(key.input_scale);
    const float output_scale = static_cast<float>(key.output_scale);
    std::vector<float> scale(out_channels_);
    if (u8) {
      // pytorch_qnnpack: generate_requantization_scales.
      const float inverse_output_scale = 1.f / output_scale;
      for (int64_t c = 0; c < out_channels_; c++) {
        scale[c] = (weight_scale_[c] * input_scale) * inverse_output_scale;
        TORCH_CHECK(scale[c] > 0.0f && std::isnormal(scale[c]), "q8nn: requantization scale ", scale[c],
                    " of output channel ", c, " must be finite and positive (PyTorch's check)");
      }
    } else {
      // XNNPACK's qs8/qc8 convolution and qs8 fully connected.
      for (int64_t c = 0; c < out_channels_; c++) {
        scale[c] = input_scale * weight_scale_[c] / output_scale;
      }
    }

    const auto limits = output_limits(key.dtype, key.output_zero_point, key.relu);
    const int8_t* kernel = kernel_.data_ptr<int8_t>();
    const int32_t* bias = bias32.data_ptr<int32_t>();
    q8nn_operator_t created = nullptr;
    q8nn_status status;
    if (fully_connected_) {
      const size_t k = static_cast<size_t>(in_channels_), n = static_cast<size_t>(out_channels_);
      if (u8) {
        const auto quant = quantization<q8nn_conv_quantization_u8, uint8_t>(key, scale, limits);
        status = q8nn_create_fully_connected_nc_u8(k, n, &quant, kernel, bias, 0, &created);
      } else {
        const auto quant = quantization<q8nn_conv_quantization, int8_t>(key, scale, limits);
        status = q8nn_create_fully_connected_nc_s8(k, n, &quant, kernel, bias, 0, &created);
      }
    } else if (depthwise_) {
      q8nn_depthwise_convolution2d_desc desc = {};
      fill_geometry(desc);
      desc.channels = static_cast<size_t>(in_channels_);
      desc.depth_multiplier = static_cast<size_t>(out_channels_ / in_channels_);
      if (u8) {
        const auto quant = quantization<q8nn_conv_quantization_u8, uint8_t>(key, scale, limits);
        status = q8nn_create_depthwise_convolution2d_nhwc_u8(&desc, &quant, kernel, bias, 0, &created);
      } else {
        const auto quant = quantization<q8nn_conv_quantization, int8_t>(key, scale, limits);
        status = q8nn_create_depthwise_convolution2d_nhwc_s8(&desc, &quant, kernel, bias, 0, &created);
      }
    } else {
      q8nn_convolution2d_desc desc = {};
      fill_geometry(desc);
      desc.groups = static_cast<uint32_t>(groups_);
      desc.group_input_channels = static_cast<size_t>(group_in_);
      desc.group_output_channels = static_cast<size_t>(out_channels_ / groups_);
      if (u8) {
        const auto quant = quantization<q8nn_conv_quantization_u8, uint8_t>(key, scale, limits);
        status = q8nn_create_convolution2d_nhwc_u8(&desc, &quant, kernel, bias, 0, &created);
      } else {
        const auto quant = quantization<q8nn_conv_quantization, int8_t>(key, scale, limits);
        status = q8nn_create_convolution2d_nhwc_s8(&desc, &quant, kernel, bias, 0, &created);
      }
    }
    check_status(status, fully_connected_ ? "create fully connected"
                         : depthwise_     ? "create depthwise convolution"
                                          : "create convolution");
    op_.reset(created, OperatorDeleter{});
    key_ = key;
  }

  template <typename Desc>
  void fill_geometry(Desc& desc) const {
    desc.padding_top = desc.padding_bottom = static_cast<uint32_t>(padding_[0]);
    desc.padding_left = desc.padding_right = static_cast<uint32_t>(padding_[1]);
    desc.kernel_height = static_cast<uint32_t>(kh_);
    desc.kernel_width = static_cast<uint32_t>(kw_);
    desc.stride_height = static_cast<uint32_t>(stride_[0]);
    desc.stride_width = static_cast<uint32_t>(stride_[1]);
    desc.dilation_height = static_cast<uint32_t>(dilation_[0]);
    desc.dilation_width = static_cast<uint32_t>(dilation_[1]);
  }

  // q8nn's quantization (q8nn_conv_quantization or its _u8 twin, Clamp the type of its clamp) in fp32
  // numerics with PyTorch's requantization scales.
  template <typename Quantization, typename Clamp>
  Quantization quantization(const ConvKey& key, const std::vector<float>& scale,
                            std::pair<int32_t, int32_t> limits) const {
    Quantization quant = {};
    quant.input_zero_point = static_cast<int32_t>(key.input_zero_point);
    quant.input_scale = static_cast<float>(key.input_scale);
    quant.kernel_scale = weight_scale_.data();
    quant.output_zero_point = static_cast<int32_t>(key.output_zero_point);
    quant.output_scale = static_cast<float>(key.output_scale);
    quant.output_min = static_cast<Clamp>(limits.first);
    quant.output_max = static_cast<Clamp>(limits.second);
    quant.rounding = q8nn_rounding_fp32;
    quant.requantization_scale = scale.data();
    return quant;
  }

  void setup(int64_t n, int64_t h, int64_t w, void* x, int64_t x_stride, void* y, int64_t y_stride) {
    q8nn_status status;
    const bool u8 = key_.dtype == at::kQUInt8;
    if (depthwise_) {
      status = u8 ? q8nn_setup_depthwise_convolution2d_nhwc_u8(op_.get(), n, h, w, static_cast<const uint8_t*>(x),
                                                               x_stride, static_cast<uint8_t*>(y), y_stride,
                                                               nullptr, nullptr)
                  : q8nn_setup_depthwise_convolution2d_nhwc_s8(op_.get(), n, h, w, static_cast<const int8_t*>(x),
                                                               x_stride, static_cast<int8_t*>(y), y_stride,
                                                               nullptr, nullptr);
    } else {
      status = u8 ? q8nn_setup_convolution2d_nhwc_u8(op_.get(), n, h, w, static_cast<const uint8_t*>(x), x_stride,
                                                     static_cast<uint8_t*>(y), y_stride, nullptr, nullptr)
                  : q8nn_setup_convolution2d_nhwc_s8(op_.get(), n, h, w, static_cast<const int8_t*>(x), x_stride,
                                                     static_cast<int8_t*>(y), y_stride, nullptr, nullptr);
    }
    check_status(status, "setup");
  }

  at::Tensor weight_;
  c10::optional<at::Tensor> bias_;
  std::vector<int64_t> stride_, padding_, dilation_;
  int64_t groups_;
  bool fully_connected_ = false;
  int64_t out_channels_ = 0, in_channels_ = 0, group_in_ = 0, kh_ = 0, kw_ = 0;
  bool depthwise_ = false;
  bool per_channel_ = false;
  std::vector<float> weight_scale_;  // per output channel, as PyTorch's float w_scales
  at::Tensor bias_float_;
  at::Tensor kernel_;  // int8, q8nn's layout

  std::mutex mutex_;  // a q8nn operator is not thread-safe; one call at a time per layer
  Operator op_;
  ConvKey key_{};
};

struct Conv2dPacked : torch::CustomClassHolder {
  Conv2dPacked(at::Tensor weight, c10::optional<at::Tensor> bias, std::vector<int64_t> stride,
               std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups)
      : core(std::move(weight), std::move(bias), std::move(stride), std::move(padding), std::move(dilation), groups,
             "q8nn::conv2d_prepack") {}
  ConvCore core;
};

struct LinearPacked : torch::CustomClassHolder {
  LinearPacked(const at::Tensor& weight, c10::optional<at::Tensor> bias)
      : core(linear_weight(weight), std::move(bias), {1, 1}, {0, 0}, {1, 1}, 1, "q8nn::linear_prepack",
             /*fully_connected=*/true) {}

  static at::Tensor linear_weight(const at::Tensor& weight) {
    TORCH_CHECK(weight.defined() && weight.dim() == 2, "q8nn::linear_prepack: weight must be 2-d [out, in], got ",
                weight.defined() ? weight.dim() : 0, "-d");
    return weight.reshape({weight.size(0), weight.size(1), 1, 1});
  }
  at::Tensor weight() const { return core.weight().reshape({core.weight().size(0), core.weight().size(1)}); }
  ConvCore core;
};

// ---- add -------------------------------------------------------------------------------------

struct AddKey {
  at::ScalarType dtype;
  double a_scale, b_scale, output_scale;
  int64_t a_zero_point, b_zero_point, output_zero_point;
  bool relu;
  bool operator==(const AddKey& o) const {
    return dtype == o.dtype && a_scale == o.a_scale && b_scale == o.b_scale && output_scale == o.output_scale &&
           a_zero_point == o.a_zero_point && b_zero_point == o.b_zero_point &&
           output_zero_point == o.output_zero_point && relu == o.relu;
  }
};

// The sizes in the order of memory format `format` (a tensor contiguous in it).
std::vector<size_t> memory_order_shape(const at::Tensor& t, at::MemoryFormat format) {
  std::vector<size_t> shape(t.sizes().begin(), t.sizes().end());
  if (format == at::MemoryFormat::ChannelsLast && t.dim() == 4) {
    shape = {(size_t)t.size(0), (size_t)t.size(2), (size_t)t.size(3), (size_t)t.size(1)};
  } else if (format == at::MemoryFormat::ChannelsLast3d && t.dim() == 5) {
    shape = {(size_t)t.size(0), (size_t)t.size(2), (size_t)t.size(3), (size_t)t.size(4), (size_t)t.size(1)};
  }
  return shape;
}

// PyTorch's xnnp_utils::get_mem_format_aware_shape: the sizes in the tensor's own memory order.
std::vector<size_t> memory_order_shape(const at::Tensor& t) { return memory_order_shape(t, t.suggest_memory_format()); }

// The zero points and scales of a binary operator's key in a q8nn add or multiply quantization. The
// scales go in as floats, as PyTorch passes its doubles to XNNPACK and pytorch_qnnpack.
template <typename Quantization>
void fill_binary_quantization(Quantization& quant, const AddKey& key) {
  quant.a_zero_point = static_cast<int32_t>(key.a_zero_point);
  quant.a_scale = static_cast<float>(key.a_scale);
  quant.b_zero_point = static_cast<int32_t>(key.b_zero_point);
  quant.b_scale = static_cast<float>(key.b_scale);
  quant.output_zero_point = static_cast<int32_t>(key.output_zero_point);
  quant.output_scale = static_cast<float>(key.output_scale);
}

// An add with its q8nn operator kept between calls, in the arithmetic PyTorch's qnnpack engine uses
// for the dtype: qint8 adds go to XNNPACK's qs8 add (Q8NN_FLAG_XNNPACK_ADD), quint8 adds of equal
// sizes to pytorch_qnnpack's add (Q8NN_FLAG_QNNPACK_ADD). PyTorch adds quint8 tensors of other
// sizes with its generic kernel (float arithmetic): refused here, left to PyTorch by q8nn_torch.
struct AddPacked : torch::CustomClassHolder {
  at::Tensor add(const at::Tensor& a, const at::Tensor& b, double output_scale, int64_t output_zero_point,
                 bool relu) {
    OpTimer timer;
    ensure_initialized();
    const char* op = relu ? "q8nn::add_relu" : "q8nn::add";
    check_activation(a, op, "first input");
    check_activation(b, op, "second input");
    const at::ScalarType dtype = a.scalar_type();
    const bool u8 = dtype == at::kQUInt8;
    TORCH_CHECK(b.scalar_type() == dtype, op, ": both inputs must have the same dtype, got ", dtype, " and ",
                b.scalar_type());
    TORCH_CHECK(a.dim() > 0, op, ": got a 0-d input");
    TORCH_CHECK(!u8 || a.sizes() == b.sizes(), op, ": quint8 inputs must have the same sizes (PyTorch adds "
                "others with its generic kernel, not pytorch_qnnpack's), got ", a.sizes(), " and ", b.sizes());
    check_output_quantization(dtype, output_scale, output_zero_point, op);
    // As PyTorch's xnnp_add and qnnpack_add: both inputs in the first one's memory format, the
    // output too.
    const auto format = a.suggest_memory_format();
    const at::Tensor ac = a.contiguous(format);
    const at::Tensor bc = b.contiguous(format);
    at::Tensor y = at::_empty_affine_quantized(at::infer_size(ac.sizes(), bc.sizes()),
                                               at::device(at::kCPU).dtype(dtype).memory_format(format),
                                               output_scale, output_zero_point, c10::nullopt);
    if (ac.size(0) == 0 || y.numel() == 0) {
      return y;
    }
    // qint8: each operand's sizes in its memory order, broadcast (PyTorch's
    // get_mem_format_aware_shape); quint8: pytorch_qnnpack's flat elementwise add.
    const std::vector<size_t> a_shape = u8 ? std::vector<size_t>{(size_t)ac.numel()} : memory_order_shape(ac);
    const std::vector<size_t> b_shape = u8 ? std::vector<size_t>{(size_t)bc.numel()} : memory_order_shape(bc);
    std::lock_guard<std::mutex> lock(mutex_);
    const AddKey key{dtype, ac.q_scale(), bc.q_scale(), output_scale,
                     ac.q_zero_point(), bc.q_zero_point(), output_zero_point, relu};
    if (!op_ || !(key == key_)) {
      op_.reset();
      const auto limits = output_limits(dtype, output_zero_point, relu);
      q8nn_operator_t created = nullptr;
      q8nn_status status;
      if (u8) {
        q8nn_add_quantization_u8 quant = {};
        fill_binary_quantization(quant, key);
        quant.output_min = static_cast<uint8_t>(limits.first);
        quant.output_max = static_cast<uint8_t>(limits.second);
        status = q8nn_create_add_nd_u8(&quant, Q8NN_FLAG_QNNPACK_ADD, &created);
      } else {
        q8nn_add_quantization quant = {};
        fill_binary_quantization(quant, key);
        quant.output_min = static_cast<int8_t>(limits.first);
        quant.output_max = static_cast<int8_t>(limits.second);
        status = q8nn_create_add_nd_s8(&quant, Q8NN_FLAG_XNNPACK_ADD, &created);
      }
      check_status(status, "create add");
      op_.reset(created, OperatorDeleter{});
      key_ = key;
    }
    const q8nn_status status =
        u8 ? q8nn_setup_add_nd_u8(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(), b_shape.data(),
                                  static_cast<const uint8_t*>(ac.data_ptr()), static_cast<const uint8_t*>(bc.data_ptr()),
                                  static_cast<uint8_t*>(y.data_ptr()))
           : q8nn_setup_add_nd_s8(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(), b_shape.data(),
                                  static_cast<const int8_t*>(ac.data_ptr()), static_cast<const int8_t*>(bc.data_ptr()),
                                  static_cast<int8_t*>(y.data_ptr()));
    check_status(status, "setup add");
    run(op_, {ac, bc, y});
    return y;
  }

  std::mutex mutex_;
  Operator op_;
  AddKey key_{};
};

at::Tensor call_pytorch(const char* name, std::vector<c10::IValue> args);

// A multiply (PyTorch's quantized::mul and mul_relu) with its q8nn operator kept between calls, in
// the arithmetic PyTorch 1.13 uses on either engine:
//  - qint8 with an output zero point below 127: XNNPACK's qs8 multiply (xnnp_mul):
//    Q8NN_FLAG_XNNPACK_MULTIPLY, each operand's sizes in its own memory order, broadcast;
//  - otherwise its qmul kernel's float arithmetic (TensorIterator): Q8NN_FLAG_PYTORCH_REQUANTIZE,
//    operands of equal rank broadcast in the first one's memory format.
// Shapes q8nn's setup refuses (PyTorch's XNNPACK path refuses them too) and quint8 operands of
// different ranks take PyTorch's kernel.
struct MulPacked : torch::CustomClassHolder {
  at::Tensor mul(const at::Tensor& a, const at::Tensor& b, double output_scale, int64_t output_zero_point,
                 bool relu) {
    OpTimer timer;
    const char* op = relu ? "q8nn::mul_relu" : "q8nn::mul";
    check_activation(a, op, "first input");
    check_activation(b, op, "second input");
    const at::ScalarType dtype = a.scalar_type();
    const bool u8 = dtype == at::kQUInt8;
    TORCH_CHECK(b.scalar_type() == dtype, op, ": both inputs must have the same dtype, got ", dtype, " and ",
                b.scalar_type());
    check_output_quantization(dtype, output_scale, output_zero_point, op);
    const auto format = a.suggest_memory_format();
    const bool xnnpack = !u8 && output_zero_point < 127;
    const auto pytorch = [&]() {
      return call_pytorch(relu ? "quantized::mul_relu" : "quantized::mul",
                          {a, b, c10::IValue(output_scale), c10::IValue(output_zero_point)});
    };
    if (!xnnpack && (a.dim() == 0 || a.dim() != b.dim() || (format != at::MemoryFormat::Contiguous && a.dim() != 4))) {
      return pytorch();
    }
    ensure_initialized();
    const at::Tensor ac = a.contiguous(format);
    const at::Tensor bc = b.contiguous(format);
    at::Tensor y = at::_empty_affine_quantized(at::infer_size(ac.sizes(), bc.sizes()),
                                               at::device(at::kCPU).dtype(dtype).memory_format(format),
                                               output_scale, output_zero_point, c10::nullopt);
    if (y.numel() == 0) {
      return y;
    }
    const std::vector<size_t> a_shape = xnnpack ? memory_order_shape(ac) : memory_order_shape(ac, format);
    const std::vector<size_t> b_shape = xnnpack ? memory_order_shape(bc) : memory_order_shape(bc, format);
    std::lock_guard<std::mutex> lock(mutex_);
    const AddKey key{dtype, ac.q_scale(), bc.q_scale(), output_scale,
                     ac.q_zero_point(), bc.q_zero_point(), output_zero_point, relu};
    if (!op_ || !(key == key_)) {
      op_.reset();
      const auto limits = output_limits(dtype, output_zero_point, relu);
      q8nn_multiply_quantization quant = {};
      fill_binary_quantization(quant, key);
      quant.output_min = static_cast<int32_t>(limits.first);
      quant.output_max = static_cast<int32_t>(limits.second);
      q8nn_operator_t created = nullptr;
      const uint32_t flags = xnnpack ? Q8NN_FLAG_XNNPACK_MULTIPLY : Q8NN_FLAG_PYTORCH_REQUANTIZE;
      const q8nn_status status = u8 ? q8nn_create_multiply_nd_u8(&quant, flags, &created)
                                    : q8nn_create_multiply_nd_s8(&quant, flags, &created);
      if (status == q8nn_status_unsupported_parameter) {
        return pytorch();
      }
      check_status(status, "create multiply");
      op_.reset(created, OperatorDeleter{});
      key_ = key;
    }
    const q8nn_status status =
        u8 ? q8nn_setup_multiply_nd_u8(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(), b_shape.data(),
                                       static_cast<const uint8_t*>(ac.data_ptr()),
                                       static_cast<const uint8_t*>(bc.data_ptr()), static_cast<uint8_t*>(y.data_ptr()))
           : q8nn_setup_multiply_nd_s8(op_.get(), a_shape.size(), a_shape.data(), b_shape.size(), b_shape.data(),
                                       static_cast<const int8_t*>(ac.data_ptr()),
                                       static_cast<const int8_t*>(bc.data_ptr()), static_cast<int8_t*>(y.data_ptr()));
    if (status == q8nn_status_invalid_parameter && xnnpack) {
      return pytorch();  // shapes that do not broadcast in memory order: XNNPACK's refusal, PyTorch's error
    }
    check_status(status, "setup multiply");
    run(op_, {ac, bc, y});
    return y;
  }

  std::mutex mutex_;
  Operator op_;
  AddKey key_{};
};

// ---- pooling operators kept between calls ----------------------------------------------------

// The pool ops have no packed object, so their q8nn operators wait here between calls, keyed by
// everything their create took (the kind, the window, the quantization): a call takes one out, so
// no other call sets it up meanwhile, and puts it back after its run. One that a recording still
// holds (torch.ops.q8nn.record keeps a forward's operators with their setups) is not reused.
using PoolKey = std::array<int64_t, 13>;

class PoolCache {
 public:
  template <typename Create>
  Operator take(const PoolKey& key, Create create) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->first == key && it->second.use_count() == 1) {
          Operator op = std::move(it->second);
          entries_.erase(it);
          return op;
        }
      }
    }
    q8nn_operator_t created = nullptr;
    check_status(create(&created), "create pooling");
    return Operator(created, OperatorDeleter{});
  }

  void give_back(const PoolKey& key, Operator op) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= kEntries) {
      entries_.erase(entries_.begin());  // the oldest
    }
    entries_.emplace_back(key, std::move(op));
  }

 private:
  static constexpr size_t kEntries = 64;  // a model's pools (MobileNetV3-Large: 9) with room to spare
  std::mutex mutex_;
  std::vector<std::pair<PoolKey, Operator>> entries_;
};

PoolCache& pool_cache() {
  static PoolCache cache;
  return cache;
}

PoolKey pool_key(int64_t kind, const q8nn_pooling2d_desc& d, const q8nn_pooling2d_quantization& q) {
  float scales[2] = {q.input_scale, q.output_scale};
  uint64_t bits = 0;
  std::memcpy(&bits, scales, sizeof(bits));
  return {kind, d.padding_top, d.padding_right, d.padding_bottom, d.padding_left, d.pooling_height, d.pooling_width,
          d.stride_height, d.stride_width, static_cast<int64_t>(d.channels), q.input_zero_point, q.output_zero_point,
          static_cast<int64_t>(bits)};
}

// ---- max pooling -----------------------------------------------------------------------------

// PyTorch's pooling_output_shape (ATen/native/Pool.h): floor division (div_rtn), ceil_mode adds
// stride - 1, and in ceil mode the last window must start inside the input or the left padding.
int64_t pooling_output_size(int64_t input, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                            bool ceil_mode) {
  const int64_t num = input + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = num / stride;
  if (num % stride != 0 && num < 0) {
    out -= 1;  // round toward -infinity
  }
  out += 1;
  if (ceil_mode && (out - 1) * stride >= input + pad) {
    out -= 1;
  }
  return out;
}

// The input positions (rows or columns) each output position reads, as PyTorch reads them:
//  - valid taps only (PyTorch's generic kernel, also with the onednn engine): padding ignored, a
//    window with no valid tap gives the type's lowest value;
//  - clamped taps (pytorch_qnnpack, which PyTorch 1.13's qnnpack engine runs quint8 max pooling
//    without ceil_mode on): a tap's position is clamped to [0, input - 1]
//    (pytorch_qnnp_indirection_init_maxpool2d), so with dilation a padded tap can read an edge
//    pixel outside the window.
// taps[first[o] .. first[o + 1]) are output position o's.
struct PoolTaps {
  std::vector<int64_t> first;
  std::vector<int64_t> taps;
};

PoolTaps pool_taps(int64_t input, int64_t output, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                   bool clamp) {
  PoolTaps t;
  t.first.reserve(output + 1);
  t.taps.reserve(output * kernel);
  for (int64_t o = 0; o < output; o++) {
    t.first.push_back(static_cast<int64_t>(t.taps.size()));
    for (int64_t k = 0; k < kernel; k++) {
      int64_t i = o * stride + k * dilation - pad;
      if (clamp) {
        i = std::min(std::max<int64_t>(i, 0), input - 1);
      } else if (i < 0 || i >= input) {
        continue;
      }
      t.taps.push_back(i);
    }
  }
  t.first.push_back(static_cast<int64_t>(t.taps.size()));
  return t;
}

// out[c] = max(out[c], in[c]) over contiguous channels: the compiler vectorizes it.
// Inlined into the row loops below, so compiled with their target.
template <typename T>
inline __attribute__((always_inline)) void max_into(T* __restrict__ out, const T* __restrict__ in,
                                                    int64_t channels) {
  for (int64_t c = 0; c < channels; c++) {
    out[c] = in[c] > out[c] ? in[c] : out[c];
  }
}

// Output rows [begin, end) of N * OH, NHWC in and out.
template <typename T>
inline __attribute__((always_inline)) void max_pool_rows(const T* x, T* y, int64_t channels, int64_t h, int64_t w,
                                                         int64_t oh, int64_t ow, const PoolTaps& rows,
                                                         const PoolTaps& cols, int64_t begin, int64_t end) {
  const T lowest = std::numeric_limits<T>::lowest();
  for (int64_t r = begin; r < end; r++) {
    const int64_t n = r / oh, oy = r % oh;
    const T* image = x + n * h * w * channels;
    T* out = y + r * ow * channels;
    const int64_t* ys = rows.taps.data() + rows.first[oy];
    const int64_t ny = rows.first[oy + 1] - rows.first[oy];
    for (int64_t ox = 0; ox < ow; ox++, out += channels) {
      const int64_t* xs = cols.taps.data() + cols.first[ox];
      const int64_t nx = cols.first[ox + 1] - cols.first[ox];
      // A window without taps (only possible with valid taps) gives the lowest value, as PyTorch's.
      for (int64_t c = 0; c < channels; c++) {
        out[c] = lowest;
      }
      for (int64_t i = 0; i < ny; i++) {
        for (int64_t j = 0; j < nx; j++) {
          max_into(out, image + (ys[i] * w + xs[j]) * channels, channels);
        }
      }
    }
  }
}

// The row loop for each type, compiled for AVX2 too where the compiler makes clones (x86-64 GCC
// and Clang), picked at load time by the CPU: 32-byte maxima, and signed byte maxima, which the
// x86-64 baseline (SSE2) lacks.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define Q8NN_TORCH_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef Q8NN_TORCH_CLONES
#define Q8NN_TORCH_CLONES
#endif

Q8NN_TORCH_CLONES void max_pool_rows_u8(const uint8_t* x, uint8_t* y, int64_t channels, int64_t h, int64_t w,
                                         int64_t oh, int64_t ow, const PoolTaps& rows, const PoolTaps& cols,
                                         int64_t begin, int64_t end) {
  max_pool_rows(x, y, channels, h, w, oh, ow, rows, cols, begin, end);
}

Q8NN_TORCH_CLONES void max_pool_rows_s8(const int8_t* x, int8_t* y, int64_t channels, int64_t h, int64_t w,
                                         int64_t oh, int64_t ow, const PoolTaps& rows, const PoolTaps& cols,
                                         int64_t begin, int64_t end) {
  max_pool_rows(x, y, channels, h, w, oh, ow, rows, cols, begin, end);
}

// Two values (height, width) from one or two, as PyTorch's max_pool2d takes them.
std::array<int64_t, 2> pair_arg(const std::vector<int64_t>& v, const char* name) {
  TORCH_CHECK(v.size() == 1 || v.size() == 2, "q8nn::max_pool2d: ", name, " must have 1 or 2 values, got ",
              v.size());
  return {v[0], v.back()};
}

at::Tensor max_pool2d(const at::Tensor& qx, std::vector<int64_t> kernel_size, std::vector<int64_t> stride,
                      std::vector<int64_t> padding, std::vector<int64_t> dilation, bool ceil_mode) {
  OpTimer timer;
  const char* op = "q8nn::max_pool2d";
  check_activation(qx, op, "input");
  TORCH_CHECK(qx.dim() == 4, op, ": input must be 4-d (N, C, H, W), got ", qx.dim(), "-d");
  const auto k = pair_arg(kernel_size, "kernel_size");
  const auto s = stride.empty() ? k : pair_arg(stride, "stride");  // PyTorch: no stride = kernel_size
  const auto p = pair_arg(padding, "padding");
  const auto d = pair_arg(dilation, "dilation");
  constexpr int64_t kLimit = int64_t{1} << 30;  // keeps the size arithmetic far from overflow
  for (int i = 0; i < 2; i++) {
    TORCH_CHECK(k[i] > 0 && k[i] <= kLimit, op, ": kernel_size must be in [1, 2^30], got ", k[i]);
    TORCH_CHECK(s[i] > 0 && s[i] <= kLimit, op, ": stride must be in [1, 2^30], got ", s[i]);
    TORCH_CHECK(d[i] > 0 && d[i] <= kLimit, op, ": dilation must be in [1, 2^30], got ", d[i]);
    TORCH_CHECK(p[i] >= 0, op, ": padding must be >= 0, got ", p[i]);
    TORCH_CHECK(p[i] <= k[i] / 2, op, ": padding must be at most half of kernel_size, got padding ", p[i],
                " and kernel_size ", k[i]);
  }
  const int64_t n = qx.size(0), channels = qx.size(1), h = qx.size(2), w = qx.size(3);
  TORCH_CHECK(h > 0 && w > 0 && h <= kLimit && w <= kLimit, op,
              ": input height and width must be in [1, 2^30], got ", h, "x", w);
  const int64_t oh = pooling_output_size(h, k[0], p[0], s[0], d[0], ceil_mode);
  const int64_t ow = pooling_output_size(w, k[1], p[1], s[1], d[1], ceil_mode);
  TORCH_CHECK(oh > 0 && ow > 0, op, ": the output would be empty (", oh, "x", ow, ") for a ", h, "x", w,
              " input");
  const at::ScalarType dtype = qx.scalar_type();
  const at::Tensor x = qx.contiguous(at::MemoryFormat::ChannelsLast);
  at::Tensor y = at::_empty_affine_quantized(
      {n, channels, oh, ow}, at::device(at::kCPU).dtype(dtype).memory_format(at::MemoryFormat::ChannelsLast),
      qx.q_scale(), qx.q_zero_point(), c10::nullopt);
  if (y.numel() == 0) {
    return y;
  }
  if (d[0] == 1 && d[1] == 1) {
    // Without dilation PyTorch's taps (clamped or valid, see below) are the window clipped to the
    // input, which is q8nn's max pooling: the operator, with ceil_mode's extra windows as padding
    // at the bottom and right (each such window starts inside the input, so that padding stays
    // below the window size).
    ensure_initialized();
    q8nn_pooling2d_desc desc = {};
    desc.padding_top = static_cast<uint32_t>(p[0]);
    desc.padding_left = static_cast<uint32_t>(p[1]);
    desc.padding_bottom = static_cast<uint32_t>(std::max<int64_t>((oh - 1) * s[0] + k[0] - h - p[0], 0));
    desc.padding_right = static_cast<uint32_t>(std::max<int64_t>((ow - 1) * s[1] + k[1] - w - p[1], 0));
    desc.pooling_height = static_cast<uint32_t>(k[0]);
    desc.pooling_width = static_cast<uint32_t>(k[1]);
    desc.stride_height = static_cast<uint32_t>(s[0]);
    desc.stride_width = static_cast<uint32_t>(s[1]);
    desc.channels = static_cast<size_t>(channels);
    const bool u8 = dtype == at::kQUInt8;
    const PoolKey key = pool_key(u8 ? 1 : 2, desc, q8nn_pooling2d_quantization{});
    const Operator pool = pool_cache().take(key, [&](q8nn_operator_t* created) {
      return u8 ? q8nn_create_max_pooling2d_nhwc_u8(&desc, 0, 255, 0, created)
                : q8nn_create_max_pooling2d_nhwc_s8(&desc, -128, 127, 0, created);
    });
    size_t out_h = 0, out_w = 0;
    check_status(u8 ? q8nn_setup_pooling2d_nhwc_u8(pool.get(), n, h, w, static_cast<const uint8_t*>(x.data_ptr()),
                                                   channels, static_cast<uint8_t*>(y.data_ptr()), channels, &out_h,
                                                   &out_w)
                    : q8nn_setup_pooling2d_nhwc_s8(pool.get(), n, h, w, static_cast<const int8_t*>(x.data_ptr()),
                                                   channels, static_cast<int8_t*>(y.data_ptr()), channels, &out_h,
                                                   &out_w),
                 "setup max pooling");
    TORCH_CHECK(static_cast<int64_t>(out_h) == oh && static_cast<int64_t>(out_w) == ow, op,
                ": internal error: q8nn's output is ", out_h, "x", out_w, ", PyTorch's ", oh, "x", ow);
    run(pool, {x, y});
    pool_cache().give_back(key, pool);
    return y;
  }
  // Dilated windows (q8nn's pooling has no dilation): computed here. Where PyTorch runs it:
  // pytorch_qnnpack (clamped taps) for quint8 without ceil_mode on the qnnpack engine, its generic
  // kernel (valid taps) otherwise. Both agree unless a dilated window reaches into the padding.
  const bool clamp =
      dtype == at::kQUInt8 && !ceil_mode && at::globalContext().qEngine() == at::QEngine::QNNPACK;
  const PoolTaps rows = pool_taps(h, oh, k[0], p[0], s[0], d[0], clamp);
  const PoolTaps cols = pool_taps(w, ow, k[1], p[1], s[1], d[1], clamp);
  // Pieces of whole output rows, about 32 KiB of maxima or more each.
  const int64_t row_work = std::max<int64_t>(ow * k[0] * k[1] * channels, 1);
  const int64_t grain = std::max<int64_t>((int64_t{1} << 15) / row_work, 1);
  at::parallel_for(0, n * oh, grain, [&](int64_t begin, int64_t end) {
    if (dtype == at::kQUInt8) {
      max_pool_rows_u8(static_cast<const uint8_t*>(x.data_ptr()), static_cast<uint8_t*>(y.data_ptr()), channels,
                       h, w, oh, ow, rows, cols, begin, end);
    } else {
      max_pool_rows_s8(static_cast<const int8_t*>(x.data_ptr()), static_cast<int8_t*>(y.data_ptr()), channels,
                       h, w, oh, ow, rows, cols, begin, end);
    }
  });
  return y;
}

// ---- PyTorch's own kernels, where q8nn cannot give its bytes --------------------------------

// Calls a registered PyTorch operator (e.g. "quantized::cat") with boxed arguments.
at::Tensor call_pytorch(const char* name, std::vector<c10::IValue> args) {
  const auto handle = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  torch::jit::Stack stack(std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  handle.callBoxed(&stack);
  stat_pytorch_calls += 1;
  return stack.back().toTensor();
}

// ---- adaptive average pooling ----------------------------------------------------------------

// PyTorch 1.13's quantized adaptive_avg_pool2d runs pytorch_qnnpack's average pooling (window =
// stride = input / output, no padding, output quantization = input's) for quint8 4-d inputs on the
// qnnpack engine whose height and width are multiples of the output's and not both equal to it;
// that is q8nn's requantizing average pooling, the same arithmetic. Any other input takes PyTorch's
// own kernel (its generic float-reciprocal average), so the bytes are PyTorch's everywhere.
at::Tensor adaptive_avg_pool2d(const at::Tensor& qx, std::vector<int64_t> output_size) {
  OpTimer timer;
  const char* op = "q8nn::adaptive_avg_pool2d";
  check_activation(qx, op, "input");
  TORCH_CHECK(output_size.size() == 2, op, ": output_size must have 2 values, got ", output_size.size());
  const int64_t oh = output_size[0], ow = output_size[1];
  TORCH_CHECK(oh > 0 && ow > 0, op, ": output_size must be positive, got ", oh, "x", ow);
  const bool pytorch_qnnpack = qx.dim() == 4 && qx.scalar_type() == at::kQUInt8 &&
                               at::globalContext().qEngine() == at::QEngine::QNNPACK && qx.size(2) % oh == 0 &&
                               qx.size(3) % ow == 0 && !(qx.size(2) == oh && qx.size(3) == ow);
  if (!pytorch_qnnpack) {
    return call_pytorch("aten::adaptive_avg_pool2d", {qx, c10::IValue(output_size)});
  }
  const int64_t n = qx.size(0), channels = qx.size(1), h = qx.size(2), w = qx.size(3);
  constexpr int64_t kLimit = int64_t{1} << 30;
  TORCH_CHECK(h <= kLimit && w <= kLimit && channels > 0, op, ": input of ", channels, " channels, ", h, "x", w,
              " is outside q8nn's range");
  // An NCHW input is pooled where it lies: its planes stacked are an image of c x h rows of w
  // one-byte pixels, and the windows (which divide h) never straddle two planes, so the output
  // comes out as NCHW too. A channels-last input is an NHWC image as it is. PyTorch's output layout:
  // NCHW for NCHW inputs (1x1 outputs get channels-last strides, the same bytes), else channels-last.
  const bool nchw = qx.suggest_memory_format() == at::MemoryFormat::Contiguous;
  const at::Tensor x = qx.contiguous(nchw ? at::MemoryFormat::Contiguous : at::MemoryFormat::ChannelsLast);
  const auto y_format = nchw && oh * ow != 1 ? at::MemoryFormat::Contiguous : at::MemoryFormat::ChannelsLast;
  at::Tensor y = at::_empty_affine_quantized({n, channels, oh, ow},
                                             at::device(at::kCPU).dtype(at::kQUInt8).memory_format(y_format),
                                             qx.q_scale(), qx.q_zero_point(), c10::nullopt);
  if (y.numel() != 0) {
    ensure_initialized();
    q8nn_pooling2d_desc desc = {};
    desc.pooling_height = desc.stride_height = static_cast<uint32_t>(h / oh);
    desc.pooling_width = desc.stride_width = static_cast<uint32_t>(w / ow);
    desc.channels = nchw ? 1 : static_cast<size_t>(channels);
    const float scale = static_cast<float>(qx.q_scale());
    const int32_t zero_point = static_cast<int32_t>(qx.q_zero_point());
    const q8nn_pooling2d_quantization quant = {zero_point, scale, zero_point, scale};
    const PoolKey key = pool_key(3, desc, quant);
    const Operator pool = pool_cache().take(key, [&](q8nn_operator_t* created) {
      return q8nn_create_average_pooling2d_requantized_nhwc_u8(&desc, &quant, 0, 255, 0, created);
    });
    check_status(nchw ? q8nn_setup_pooling2d_nhwc_u8(pool.get(), n, channels * h, w,
                                                     static_cast<const uint8_t*>(x.data_ptr()), 1,
                                                     static_cast<uint8_t*>(y.data_ptr()), 1, nullptr, nullptr)
                      : q8nn_setup_pooling2d_nhwc_u8(pool.get(), n, h, w, static_cast<const uint8_t*>(x.data_ptr()),
                                                     channels, static_cast<uint8_t*>(y.data_ptr()), channels,
                                                     nullptr, nullptr),
                 "setup average pooling");
    run(pool, {x, y});
    pool_cache().give_back(key, pool);
  }
  return y;
}

// ---- 256-entry tables: PyTorch's elementwise arithmetic, byte by byte -------------------------
//
// A table is indexed by the stored byte (uint8 bits; for qint8 the two's complement bits) and holds
// the output byte. PyTorch computes these functions in float, in one of three forms:
//  - pytorch_qnnpack's table (qnnpack engine, quint8: pytorch_qnnp_create_hardswish_nc_q8 and
//    _hardsigmoid_nc_q8): x = input_scale * (q - zp); y = f(x); out = lrintf(clamp(y * (1 /
//    output_scale) + output_zero_point, 0, 255)), the zero point added in float before rounding;
//  - its generic kernels' vectorized body (cpu_kernel_vec; also quantized cat's NHWC fast path):
//    x = fmaf(scale, q, scale * -zp) (Vectorized::dequantize), out = rne(y * inverse) + zp, clamped;
//  - their scalar remainder (dequantize_val, quantize_val): x = (q - zp) * scale in float,
//    out = zp + nearbyint(y * (1 / output_scale)), clamped.
// Which elements take the body and which the remainder depends on the tensor's size, the vector
// width and the threads, so q8nn runs a generic kernel's function only when the two tables agree.
using Table = std::array<uint8_t, 256>;

int32_t byte_value(int b, bool u8) { return u8 ? b : static_cast<int32_t>(static_cast<int8_t>(b)); }

uint8_t store_byte(float rounded, bool u8) {
  const float lo = u8 ? 0.0f : -128.0f, hi = u8 ? 255.0f : 127.0f;
  const int32_t v = static_cast<int32_t>(std::min(std::max(rounded, lo), hi));
  return static_cast<uint8_t>(v);
}

enum class Unary : int64_t { hardswish = 0, hardsigmoid = 1 };

float unary_function(Unary f, float x) {
  const float r6 = std::min(std::max(x + 3.0f, 0.0f), 6.0f);
  return f == Unary::hardswish ? x * r6 / 6.0f : r6 / 6.0f;
}

Table qnnpack_unary_table(Unary f, float input_scale, int32_t input_zero_point, float output_scale,
                          int32_t output_zero_point) {
  Table t{};
  const float inverse = 1.0f / output_scale;
  for (int i = 0; i < 256; i++) {
    const float x = input_scale * static_cast<float>(i - input_zero_point);
    float y = inverse * unary_function(f, x) + static_cast<float>(output_zero_point);
    y = std::min(std::max(y, 0.0f), 255.0f);
    t[i] = static_cast<uint8_t>(std::lrintf(y));
  }
  return t;
}

// The generic kernels' two tables (vectorized body, scalar remainder) of f.
std::pair<Table, Table> generic_unary_tables(Unary f, bool u8, float input_scale, int32_t input_zero_point,
                                             float output_scale, int32_t output_zero_point) {
  Table body{}, rest{};
  const float inverse = 1.0f / output_scale;
  const float premul = input_scale * -static_cast<float>(input_zero_point);
  for (int b = 0; b < 256; b++) {
    const float q = static_cast<float>(byte_value(b, u8));
    const float xb = std::fma(input_scale, q, premul);
    const float xr = (q - static_cast<float>(input_zero_point)) * input_scale;
    body[b] = store_byte(std::nearbyint(unary_function(f, xb) * inverse) + static_cast<float>(output_zero_point), u8);
    rest[b] = store_byte(static_cast<float>(output_zero_point) + std::nearbyint(unary_function(f, xr) * inverse), u8);
  }
  return {body, rest};
}

// quantized cat's requantization of an input byte: PyTorch's dequantize then quantize_per_tensor
// (its generic path, and the scalar channels of its NHWC fast path), which is also q8nn's
// Q8NN_FLAG_PYTORCH_REQUANTIZE; and the NHWC fast path's vectorized channels (fmadd dequantize,
// inverse scale 1.0 / output_scale in double).
Table cat_table(bool u8, bool fast_vector, double input_scale, int32_t input_zero_point, double output_scale,
                int32_t output_zero_point) {
  Table t{};
  const float scale = static_cast<float>(input_scale);
  const float inverse = fast_vector ? static_cast<float>(1.0 / output_scale) : 1.0f / static_cast<float>(output_scale);
  const float premul = scale * -static_cast<float>(input_zero_point);
  for (int b = 0; b < 256; b++) {
    const float q = static_cast<float>(byte_value(b, u8));
    const float x = fast_vector ? std::fma(scale, q, premul) : (q - static_cast<float>(input_zero_point)) * scale;
    t[b] = store_byte(std::nearbyint(x * inverse) + static_cast<float>(output_zero_point), u8);
  }
  return t;
}

Table identity_table() {
  Table t{};
  for (int b = 0; b < 256; b++) t[b] = static_cast<uint8_t>(b);
  return t;
}

// ---- hardswish and hardsigmoid: q8nn lookups ----------------------------------------------------

struct UnaryKey {
  at::ScalarType dtype;
  bool qnnpack;  // pytorch_qnnpack's table (qnnpack engine, quint8), else the generic kernel's
  double input_scale;
  int64_t input_zero_point;
  double output_scale;
  int64_t output_zero_point;
  bool operator==(const UnaryKey& o) const {
    return dtype == o.dtype && qnnpack == o.qnnpack && input_scale == o.input_scale &&
           input_zero_point == o.input_zero_point && output_scale == o.output_scale &&
           output_zero_point == o.output_zero_point;
  }
};

// An elementwise function of one byte as a q8nn lookup (q8nn_create_lookup_nc_*) of the table PyTorch
// computes for this input and output quantization, kept while they stay the same. Output in the
// input's memory format, as PyTorch's. Where PyTorch's generic kernel gives two answers for some
// byte (see above), PyTorch's op runs instead.
struct UnaryPacked : torch::CustomClassHolder {
  explicit UnaryPacked(int64_t kind) : kind(kind) {
    TORCH_CHECK(kind == static_cast<int64_t>(Unary::hardswish) || kind == static_cast<int64_t>(Unary::hardsigmoid),
                "q8nn: unknown elementwise function ", kind);
  }

  at::Tensor apply(const at::Tensor& qx, double output_scale, int64_t output_zero_point, const char* op) {
    OpTimer timer;
    ensure_initialized();
    check_activation(qx, op, "input");
    const Unary f = static_cast<Unary>(kind);
    const at::ScalarType dtype = qx.scalar_type();
    const bool u8 = dtype == at::kQUInt8;
    const bool qnnpack = u8 && at::globalContext().qEngine() == at::QEngine::QNNPACK;
    if (f == Unary::hardsigmoid) {
      // PyTorch's fixed output quantization: [0, 1] in 1/256 steps.
      output_scale = 1.0 / 256.0;
      output_zero_point = u8 ? 0 : -128;
    }
    check_output_quantization(dtype, output_scale, output_zero_point, op);
    TORCH_CHECK(std::isnormal(static_cast<float>(qx.q_scale())) && std::isnormal(static_cast<float>(output_scale)),
                op, ": scales must be normal floats, got ", qx.q_scale(), " and ", output_scale);
    const auto format = qx.suggest_memory_format();
    const at::Tensor x = qx.contiguous(format);
    std::unique_lock<std::mutex> lock(mutex_);
    const UnaryKey key{dtype, qnnpack, qx.q_scale(), qx.q_zero_point(), output_scale, output_zero_point};
    if (!prepared_ || !(key == key_)) {
      prepare(key, f);
    }
    if (!op_) {
      lock.unlock();
      return f == Unary::hardswish
                 ? call_pytorch("quantized::hardswish", {qx, output_scale, output_zero_point})
                 : at::hardsigmoid(qx);
    }
    at::Tensor y = at::_empty_affine_quantized(x.sizes(), at::device(at::kCPU).dtype(dtype).memory_format(format),
                                               output_scale, output_zero_point, c10::nullopt);
    if (y.numel() == 0) {
      return y;
    }
    const size_t count = static_cast<size_t>(x.numel());
    const q8nn_status status =
        u8 ? q8nn_setup_unary_elementwise_nc_u8(op_.get(), 1, count, static_cast<const uint8_t*>(x.data_ptr()), count,
                                                static_cast<uint8_t*>(y.data_ptr()), count)
           : q8nn_setup_unary_elementwise_nc_s8(op_.get(), 1, count, static_cast<const int8_t*>(x.data_ptr()), count,
                                                static_cast<int8_t*>(y.data_ptr()), count);
    check_status(status, "setup lookup");
    run(op_, {x, y});
    return y;
  }

  void prepare(const UnaryKey& key, Unary f) {
    op_.reset();
    const bool u8 = key.dtype == at::kQUInt8;
    const float input_scale = static_cast<float>(key.input_scale);
    const float output_scale = static_cast<float>(key.output_scale);
    const int32_t izp = static_cast<int32_t>(key.input_zero_point), ozp = static_cast<int32_t>(key.output_zero_point);
    Table table;
    bool exact = true;
    if (key.qnnpack) {
      table = qnnpack_unary_table(f, input_scale, izp, output_scale, ozp);
    } else {
      const auto tables = generic_unary_tables(f, u8, input_scale, izp, output_scale, ozp);
      table = tables.first;
      exact = tables.first == tables.second;
    }
    if (exact) {
      q8nn_operator_t created = nullptr;
      check_status(u8 ? q8nn_create_lookup_nc_u8(table.data(), 0, &created)
                      : q8nn_create_lookup_nc_s8(reinterpret_cast<const int8_t*>(table.data()), 0, &created),
                   "create lookup");
      op_.reset(created, OperatorDeleter{});
    }
    key_ = key;
    prepared_ = true;
  }

  std::string kernel_name() {
    std::lock_guard<std::mutex> lock(mutex_);
    return op_ ? std::string(q8nn_operator_kernel_name(op_.get())) : std::string();
  }

  const int64_t kind;
  std::mutex mutex_;
  Operator op_;  // null: this quantization runs on PyTorch's op
  bool prepared_ = false;
  UnaryKey key_{};
};

// ---- cat ---------------------------------------------------------------------------------------

struct CatKey {
  at::ScalarType dtype;
  bool fast;  // PyTorch's NHWC fast path (dim 1, every input 4-d channels-last)
  std::vector<std::pair<double, int64_t>> inputs;
  double output_scale;
  int64_t output_zero_point;
  bool operator==(const CatKey& o) const {
    return dtype == o.dtype && fast == o.fast && inputs == o.inputs && output_scale == o.output_scale &&
           output_zero_point == o.output_zero_point;
  }
};

// PyTorch's quantized cat (quantized::cat, QFunctional.cat) on q8nn's concatenation: inputs with the
// output's quantization copied, others requantized (Q8NN_FLAG_PYTORCH_REQUANTIZE). Along any
// dimension, in memory order: channels-last when every input is (4-d), else contiguous.
struct CatPacked : torch::CustomClassHolder {
  at::Tensor cat(const std::vector<at::Tensor>& qxs, int64_t dim, double output_scale, int64_t output_zero_point) {
    OpTimer timer;
    ensure_initialized();
    const char* op = "q8nn::cat";
    TORCH_CHECK(!qxs.empty(), op, ": expected a non-empty list of tensors");
    const at::Tensor& first = qxs[0];
    check_activation(first, op, "input 0");
    const at::ScalarType dtype = first.scalar_type();
    const int64_t rank = first.dim();
    TORCH_CHECK(rank >= 1, op, ": zero-dimensional tensor (at position 0) cannot be concatenated");
    const int64_t axis = c10::maybe_wrap_dim(dim, rank);
    bool all_channels_last = rank == 4, fast = axis == 1 && rank == 4;
    for (size_t i = 0; i < qxs.size(); i++) {
      const at::Tensor& t = qxs[i];
      const std::string what = "input " + std::to_string(i);
      check_activation(t, op, what.c_str());
      TORCH_CHECK(t.scalar_type() == dtype, op, ": all inputs must have the same dtype, got ", dtype, " and ",
                  t.scalar_type(), " (input ", i, ")");
      TORCH_CHECK(t.dim() == rank, op, ": input ", i, " has ", t.dim(), " dimensions, input 0 has ", rank);
      for (int64_t d = 0; d < rank; d++) {
        TORCH_CHECK(d == axis || t.size(d) == first.size(d), op, ": sizes of the inputs must match except in "
                    "dimension ", axis, "; input ", i, " has ", t.sizes(), ", input 0 has ", first.sizes());
      }
      fast = fast && t.is_contiguous(at::MemoryFormat::ChannelsLast);
      all_channels_last = all_channels_last && t.suggest_memory_format() == at::MemoryFormat::ChannelsLast;
    }
    check_output_quantization(dtype, output_scale, output_zero_point, op);
    TORCH_CHECK(std::isnormal(static_cast<float>(output_scale)), op, ": output_scale must be a normal float, got ",
                output_scale);
    const auto format = all_channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;

    // The inputs with something along the axis, in the output's memory format; the sizes in memory
    // order as [outer, axis, inner].
    std::vector<at::Tensor> xs;
    CatKey key{dtype, fast, {}, output_scale, output_zero_point};
    std::vector<int64_t> sizes = first.sizes().vec();
    sizes[axis] = 0;
    for (const at::Tensor& t : qxs) {
      sizes[axis] += t.size(axis);
      if (t.size(axis) > 0) {
        xs.push_back(t.contiguous(format));
        key.inputs.emplace_back(t.q_scale(), t.q_zero_point());
        TORCH_CHECK(std::isnormal(static_cast<float>(t.q_scale())), op, ": input scales must be normal floats, got ",
                    t.q_scale());
      }
    }
    at::Tensor y = at::_empty_affine_quantized(sizes, at::device(at::kCPU).dtype(dtype).memory_format(format),
                                               output_scale, output_zero_point, c10::nullopt);
    if (y.numel() == 0) {
      return y;
    }
    std::vector<int64_t> order(rank);
    for (int64_t d = 0; d < rank; d++) order[d] = d;
    if (format == at::MemoryFormat::ChannelsLast) order = {0, 2, 3, 1};
    size_t outer = 1, inner = 1;
    bool before = true;
    for (const int64_t d : order) {
      if (d == axis) {
        before = false;
      } else if (before) {
        outer *= static_cast<size_t>(y.size(d));
      } else {
        inner *= static_cast<size_t>(y.size(d));
      }
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (!prepared_ || !(key == key_)) {
      prepare(key);
    }
    if (!op_) {
      lock.unlock();
      return call_pytorch("quantized::cat", {c10::List<at::Tensor>(c10::ArrayRef<at::Tensor>(qxs)), dim, c10::optional<double>(output_scale),
                                             c10::optional<int64_t>(output_zero_point)});
    }
    const size_t shape[3] = {outer, 0, inner};
    std::vector<size_t> axis_sizes;
    std::vector<const void*> inputs;
    for (const at::Tensor& t : xs) {
      axis_sizes.push_back(static_cast<size_t>(t.size(axis)));
      inputs.push_back(t.data_ptr());
    }
    const q8nn_status status =
        dtype == at::kQUInt8
            ? q8nn_setup_concatenate_nd_u8(op_.get(), 3, shape, 1, axis_sizes.data(),
                                           reinterpret_cast<const uint8_t* const*>(inputs.data()),
                                           static_cast<uint8_t*>(y.data_ptr()))
            : q8nn_setup_concatenate_nd_s8(op_.get(), 3, shape, 1, axis_sizes.data(),
                                           reinterpret_cast<const int8_t* const*>(inputs.data()),
                                           static_cast<int8_t*>(y.data_ptr()));
    check_status(status, "setup concatenate");
    std::vector<at::Tensor> keep(xs);
    keep.push_back(y);
    run_keeping(op_, keep);
    return y;
  }

  // q8nn's table for each input (a copy where the float scale and zero point equal the output's,
  // else PyTorch's requantization) against every table PyTorch may use for it on this path: q8nn
  // runs the cat only where they all agree.
  void prepare(const CatKey& key) {
    op_.reset();
    const bool u8 = key.dtype == at::kQUInt8;
    const float out_scale = static_cast<float>(key.output_scale);
    const int32_t ozp = static_cast<int32_t>(key.output_zero_point);
    std::vector<float> scales;
    std::vector<int32_t> zero_points;
    bool exact = true;
    for (const auto& in : key.inputs) {
      const float scale = static_cast<float>(in.first);
      const int32_t zp = static_cast<int32_t>(in.second);
      scales.push_back(scale);
      zero_points.push_back(zp);
      const Table plain = cat_table(u8, false, in.first, zp, key.output_scale, ozp);
      const Table q8nn = scale == out_scale && zp == ozp ? identity_table() : plain;
      if (key.fast && in.first == key.output_scale && in.second == key.output_zero_point) {
        continue;  // PyTorch copies too
      }
      exact = exact && q8nn == plain;
      if (key.fast) {
        exact = exact && q8nn == cat_table(u8, true, in.first, zp, key.output_scale, ozp);
      }
    }
    if (exact) {
      q8nn_concatenate_quantization quant = {};
      quant.input_scales = scales.data();
      quant.input_zero_points = zero_points.data();
      quant.output_scale = out_scale;
      quant.output_zero_point = ozp;
      q8nn_operator_t created = nullptr;
      check_status(u8 ? q8nn_create_concatenate_nd_u8(scales.size(), &quant, Q8NN_FLAG_PYTORCH_REQUANTIZE, &created)
                      : q8nn_create_concatenate_nd_s8(scales.size(), &quant, Q8NN_FLAG_PYTORCH_REQUANTIZE, &created),
                   "create concatenate");
      op_.reset(created, OperatorDeleter{});
    }
    key_ = key;
    prepared_ = true;
  }

  std::string kernel_name() {
    std::lock_guard<std::mutex> lock(mutex_);
    return op_ ? std::string(q8nn_operator_kernel_name(op_.get())) : std::string();
  }

  std::mutex mutex_;
  Operator op_;  // null: these quantizations run on PyTorch's quantized::cat
  bool prepared_ = false;
  CatKey key_{};
};

// ---- channel shuffle ------------------------------------------------------------------------------

// torch.channel_shuffle / nn.ChannelShuffle (and torchvision ShuffleNetV2's view-transpose-view
// channel_shuffle): output channel k * groups + g = input channel g * (C / groups) + k, with the
// input's quantization. Channels-last inputs (and any other layout but contiguous NCHW) run q8nn's
// channel shuffle on their pixels and give a channels-last output. A contiguous NCHW input keeps
// its layout, as PyTorch's op does: the shuffle moves whole H x W planes, so it is one copy per
// plane on the intra-op threads (making the input channels-last and the result back would cost two
// transpositions of the tensor).
struct ChannelShufflePacked : torch::CustomClassHolder {
  explicit ChannelShufflePacked(int64_t groups) : groups(groups) {
    TORCH_CHECK(groups >= 1, "q8nn::channel_shuffle: groups must be >= 1, got ", groups);
  }

  at::Tensor shuffle(const at::Tensor& qx) {
    OpTimer timer;
    ensure_initialized();
    const char* op = "q8nn::channel_shuffle";
    check_activation(qx, op, "input");
    TORCH_CHECK(qx.dim() == 4, op, ": input must be 4-d (N, C, H, W), got ", qx.dim(), "-d");
    const int64_t channels = qx.size(1);
    TORCH_CHECK(channels % groups == 0, op, ": ", channels, " channels do not split into ", groups, " groups");
    if (qx.suggest_memory_format() == at::MemoryFormat::Contiguous && qx.is_contiguous()) {
      return shuffle_planes(qx);
    }
    const at::Tensor x = qx.contiguous(at::MemoryFormat::ChannelsLast);
    at::Tensor y = at::_empty_affine_quantized(
        x.sizes(), at::device(at::kCPU).dtype(qx.scalar_type()).memory_format(at::MemoryFormat::ChannelsLast),
        qx.q_scale(), qx.q_zero_point(), c10::nullopt);
    const int64_t pixels = x.size(0) * x.size(2) * x.size(3);
    if (y.numel() == 0) {
      return y;
    }
    if (groups == 1) {
      y.copy_(x);
      return y;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!op_ || channels != channels_) {
      op_.reset();
      q8nn_operator_t created = nullptr;
      check_status(q8nn_create_channel_shuffle_nc_x8(groups, channels / groups, 0, &created),
                   "create channel shuffle");
      op_.reset(created, OperatorDeleter{});
      channels_ = channels;
    }
    check_status(q8nn_setup_channel_shuffle_nc_x8(op_.get(), pixels, x.data_ptr(), channels, y.data_ptr(), channels),
                 "setup channel shuffle");
    run(op_, {x, y});
    return y;
  }

  // Contiguous NCHW: output plane (n, k * groups + g) is input plane (n, g * C / groups + k).
  at::Tensor shuffle_planes(const at::Tensor& x) const {
    at::Tensor y = at::_empty_affine_quantized(x.sizes(), at::device(at::kCPU).dtype(x.scalar_type()),
                                               x.q_scale(), x.q_zero_point(), c10::nullopt);
    const int64_t channels = x.size(1), group_channels = channels / groups;
    const int64_t plane = x.size(2) * x.size(3), planes = x.size(0) * channels;
    if (y.numel() == 0) {
      return y;
    }
    const auto* src = static_cast<const uint8_t*>(x.data_ptr());
    auto* dst = static_cast<uint8_t*>(y.data_ptr());
    // pieces of at least 256 KB (q8nn's Q8NN_MOVE_MIN_PARALLEL_BYTES): smaller shuffles run on the
    // calling thread, where a fork and join would cost more than the copy
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(plane, 1));
    at::parallel_for(0, planes, grain, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; p++) {
        const int64_t n = p / channels, c = p % channels;  // output channel c = k * groups + g
        const int64_t from = n * channels + (c % groups) * group_channels + c / groups;
        std::memcpy(dst + p * plane, src + from * plane, static_cast<size_t>(plane));
      }
    });
    return y;
  }

  const int64_t groups;
  std::mutex mutex_;
  Operator op_;
  int64_t channels_ = 0;
};

// ---- registration ----------------------------------------------------------------------------

using ConvState = std::tuple<int64_t, at::Tensor, c10::optional<at::Tensor>, std::vector<int64_t>,
                             std::vector<int64_t>, std::vector<int64_t>, int64_t>;
using LinearState = std::tuple<int64_t, at::Tensor, c10::optional<at::Tensor>>;
constexpr int64_t kStateVersion = 1;

c10::intrusive_ptr<Conv2dPacked> conv2d_prepack(at::Tensor weight, c10::optional<at::Tensor> bias,
                                                std::vector<int64_t> stride, std::vector<int64_t> padding,
                                                std::vector<int64_t> dilation, int64_t groups) {
  return c10::make_intrusive<Conv2dPacked>(std::move(weight), std::move(bias), std::move(stride),
                                           std::move(padding), std::move(dilation), groups);
}

at::Tensor conv2d(const at::Tensor& x, const c10::intrusive_ptr<Conv2dPacked>& packed, double output_scale,
                  int64_t output_zero_point) {
  return packed->core.conv2d(x, output_scale, output_zero_point, false, "q8nn::conv2d");
}

at::Tensor conv2d_relu(const at::Tensor& x, const c10::intrusive_ptr<Conv2dPacked>& packed, double output_scale,
                       int64_t output_zero_point) {
  return packed->core.conv2d(x, output_scale, output_zero_point, true, "q8nn::conv2d_relu");
}

c10::intrusive_ptr<LinearPacked> linear_prepack(at::Tensor weight, c10::optional<at::Tensor> bias) {
  return c10::make_intrusive<LinearPacked>(weight, std::move(bias));
}

at::Tensor linear(const at::Tensor& x, const c10::intrusive_ptr<LinearPacked>& packed, double output_scale,
                  int64_t output_zero_point) {
  return packed->core.linear(x, output_scale, output_zero_point, false, "q8nn::linear");
}

at::Tensor linear_relu(const at::Tensor& x, const c10::intrusive_ptr<LinearPacked>& packed, double output_scale,
                       int64_t output_zero_point) {
  return packed->core.linear(x, output_scale, output_zero_point, true, "q8nn::linear_relu");
}

c10::intrusive_ptr<AddPacked> add_prepack() { return c10::make_intrusive<AddPacked>(); }

at::Tensor add(const at::Tensor& a, const at::Tensor& b, const c10::intrusive_ptr<AddPacked>& packed,
               double output_scale, int64_t output_zero_point) {
  return packed->add(a, b, output_scale, output_zero_point, false);
}

at::Tensor add_relu(const at::Tensor& a, const at::Tensor& b, const c10::intrusive_ptr<AddPacked>& packed,
                    double output_scale, int64_t output_zero_point) {
  return packed->add(a, b, output_scale, output_zero_point, true);
}

c10::intrusive_ptr<MulPacked> mul_prepack() { return c10::make_intrusive<MulPacked>(); }

at::Tensor mul(const at::Tensor& a, const at::Tensor& b, const c10::intrusive_ptr<MulPacked>& packed,
               double output_scale, int64_t output_zero_point) {
  return packed->mul(a, b, output_scale, output_zero_point, false);
}

at::Tensor mul_relu(const at::Tensor& a, const at::Tensor& b, const c10::intrusive_ptr<MulPacked>& packed,
                    double output_scale, int64_t output_zero_point) {
  return packed->mul(a, b, output_scale, output_zero_point, true);
}

c10::intrusive_ptr<UnaryPacked> hardswish_prepack() {
  return c10::make_intrusive<UnaryPacked>(static_cast<int64_t>(Unary::hardswish));
}

c10::intrusive_ptr<UnaryPacked> hardsigmoid_prepack() {
  return c10::make_intrusive<UnaryPacked>(static_cast<int64_t>(Unary::hardsigmoid));
}

at::Tensor hardswish(const at::Tensor& x, const c10::intrusive_ptr<UnaryPacked>& packed, double output_scale,
                     int64_t output_zero_point) {
  TORCH_CHECK(packed->kind == static_cast<int64_t>(Unary::hardswish),
              "q8nn::hardswish: the packed object is not a hardswish (made by hardsigmoid_prepack)");
  return packed->apply(x, output_scale, output_zero_point, "q8nn::hardswish");
}

at::Tensor hardsigmoid(const at::Tensor& x, const c10::intrusive_ptr<UnaryPacked>& packed) {
  TORCH_CHECK(packed->kind == static_cast<int64_t>(Unary::hardsigmoid),
              "q8nn::hardsigmoid: the packed object is not a hardsigmoid (made by hardswish_prepack)");
  return packed->apply(x, 0.0, 0, "q8nn::hardsigmoid");
}

c10::intrusive_ptr<CatPacked> cat_prepack() { return c10::make_intrusive<CatPacked>(); }

at::Tensor cat(std::vector<at::Tensor> xs, int64_t dim, const c10::intrusive_ptr<CatPacked>& packed,
               double output_scale, int64_t output_zero_point) {
  return packed->cat(xs, dim, output_scale, output_zero_point);
}

c10::intrusive_ptr<ChannelShufflePacked> channel_shuffle_prepack(int64_t groups) {
  return c10::make_intrusive<ChannelShufflePacked>(groups);
}

at::Tensor channel_shuffle(const at::Tensor& x, const c10::intrusive_ptr<ChannelShufflePacked>& packed) {
  return packed->shuffle(x);
}

std::vector<int64_t> stats() {
  return {stat_calls.load(), stat_op_ns.load(), stat_run_ns.load(), stat_max_threads.load(),
          stat_pytorch_calls.load()};
}

void reset_stats() {
  stat_calls = 0;
  stat_op_ns = 0;
  stat_run_ns = 0;
  stat_max_threads = 0;
  stat_pytorch_calls = 0;
}

// Starts (on) or stops recording the q8nn operators the next forward runs (see Recording).
int64_t record(bool on) {
  std::lock_guard<std::mutex> lock(recording.mutex);
  if (on) {
    recording.ops.clear();
    recording.tensors.clear();
  } else {
    recording.runs_at_end = recording.runs;
  }
  recording.on = on;
  return static_cast<int64_t>(recording.ops.size());
}

// The recorded operators run by q8nn alone, as a program that owns its threads would run them:
// one q8nn_run_operators list on a pthreadpool of at::get_num_threads() threads (none for one),
// `iters` times. Returns the median seconds per list (after two unmeasured lists). The operators
// keep the setups of the recorded forward: valid only while no q8nn op has run since.
double replay(int64_t iters) {
  std::lock_guard<std::mutex> lock(recording.mutex);
  TORCH_CHECK(!recording.on, "q8nn::replay: stop the recording first (record(False))");
  TORCH_CHECK(!recording.ops.empty(), "q8nn::replay: nothing recorded");
  TORCH_CHECK(recording.runs == recording.runs_at_end,
              "q8nn::replay: q8nn ops ran after the recording; record the forward again");
  TORCH_CHECK(iters >= 1, "q8nn::replay: iters must be >= 1");
  const int threads = std::max(at::get_num_threads(), 1);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(static_cast<size_t>(threads)) : nullptr;
  std::vector<q8nn_operator_t> list;
  for (const Operator& op : recording.ops) list.push_back(op.get());
  std::vector<double> seconds;
  q8nn_status status = q8nn_status_success;
  for (int64_t i = -2; i < iters && status == q8nn_status_success; i++) {
    const int64_t start = now_ns();
    status = q8nn_run_operators(list.size(), list.data(), pool);
    if (i >= 0) seconds.push_back(static_cast<double>(now_ns() - start) * 1e-9);
  }
  if (pool != nullptr) pthreadpool_destroy(pool);
  check_status(status, "q8nn_run_operators");
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return seconds[seconds.size() / 2];
}

std::string version() { return q8nn_version_string(); }

}  // namespace

TORCH_LIBRARY(q8nn, m) {
  m.class_<Conv2dPacked>("Conv2dPacked")
      .def("unpack", [](const c10::intrusive_ptr<Conv2dPacked>& self) {
        return std::make_tuple(self->core.weight(), self->core.bias());
      })
      .def("stride", [](const c10::intrusive_ptr<Conv2dPacked>& self) { return self->core.stride(); })
      .def("padding", [](const c10::intrusive_ptr<Conv2dPacked>& self) { return self->core.padding(); })
      .def("dilation", [](const c10::intrusive_ptr<Conv2dPacked>& self) { return self->core.dilation(); })
      .def("groups", [](const c10::intrusive_ptr<Conv2dPacked>& self) { return self->core.groups(); })
      .def("kernel_name", [](const c10::intrusive_ptr<Conv2dPacked>& self) { return self->core.kernel_name(); })
      .def_pickle(
          [](const c10::intrusive_ptr<Conv2dPacked>& self) -> ConvState {
            return ConvState(kStateVersion, self->core.weight(), self->core.bias(), self->core.stride(),
                             self->core.padding(), self->core.dilation(), self->core.groups());
          },
          [](ConvState state) -> c10::intrusive_ptr<Conv2dPacked> {
            TORCH_CHECK(std::get<0>(state) == kStateVersion, "q8nn: unknown Conv2dPacked state version ",
                        std::get<0>(state));
            return c10::make_intrusive<Conv2dPacked>(std::get<1>(state), std::get<2>(state), std::get<3>(state),
                                                     std::get<4>(state), std::get<5>(state), std::get<6>(state));
          });

  m.class_<LinearPacked>("LinearPacked")
      .def("unpack", [](const c10::intrusive_ptr<LinearPacked>& self) {
        return std::make_tuple(self->weight(), self->core.bias());
      })
      .def("kernel_name", [](const c10::intrusive_ptr<LinearPacked>& self) { return self->core.kernel_name(); })
      .def_pickle(
          [](const c10::intrusive_ptr<LinearPacked>& self) -> LinearState {
            return LinearState(kStateVersion, self->weight(), self->core.bias());
          },
          [](LinearState state) -> c10::intrusive_ptr<LinearPacked> {
            TORCH_CHECK(std::get<0>(state) == kStateVersion, "q8nn: unknown LinearPacked state version ",
                        std::get<0>(state));
            return c10::make_intrusive<LinearPacked>(std::get<1>(state), std::get<2>(state));
          });

  m.class_<AddPacked>("AddPacked")
      .def_pickle([](const c10::intrusive_ptr<AddPacked>&) -> int64_t { return kStateVersion; },
                  [](int64_t) -> c10::intrusive_ptr<AddPacked> { return c10::make_intrusive<AddPacked>(); });
  m.class_<MulPacked>("MulPacked")
      .def_pickle([](const c10::intrusive_ptr<MulPacked>&) -> int64_t { return kStateVersion; },
                  [](int64_t) -> c10::intrusive_ptr<MulPacked> { return c10::make_intrusive<MulPacked>(); });

  using UnaryState = std::tuple<int64_t, int64_t>;
  m.class_<UnaryPacked>("UnaryPacked")
      .def("kernel_name", [](const c10::intrusive_ptr<UnaryPacked>& self) { return self->kernel_name(); })
      .def_pickle(
          [](const c10::intrusive_ptr<UnaryPacked>& self) -> UnaryState {
            return UnaryState(kStateVersion, self->kind);
          },
          [](UnaryState state) -> c10::intrusive_ptr<UnaryPacked> {
            TORCH_CHECK(std::get<0>(state) == kStateVersion, "q8nn: unknown UnaryPacked state version ",
                        std::get<0>(state));
            return c10::make_intrusive<UnaryPacked>(std::get<1>(state));
          });

  m.class_<CatPacked>("CatPacked")
      .def("kernel_name", [](const c10::intrusive_ptr<CatPacked>& self) { return self->kernel_name(); })
      .def_pickle([](const c10::intrusive_ptr<CatPacked>&) -> int64_t { return kStateVersion; },
                  [](int64_t) -> c10::intrusive_ptr<CatPacked> { return c10::make_intrusive<CatPacked>(); });

  using ShuffleState = std::tuple<int64_t, int64_t>;
  m.class_<ChannelShufflePacked>("ChannelShufflePacked")
      .def("groups", [](const c10::intrusive_ptr<ChannelShufflePacked>& self) { return self->groups; })
      .def_pickle(
          [](const c10::intrusive_ptr<ChannelShufflePacked>& self) -> ShuffleState {
            return ShuffleState(kStateVersion, self->groups);
          },
          [](ShuffleState state) -> c10::intrusive_ptr<ChannelShufflePacked> {
            TORCH_CHECK(std::get<0>(state) == kStateVersion, "q8nn: unknown ChannelShufflePacked state version ",
                        std::get<0>(state));
            return c10::make_intrusive<ChannelShufflePacked>(std::get<1>(state));
          });

  m.def("conv2d_prepack(Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, int groups) "
        "-> __torch__.torch.classes.q8nn.Conv2dPacked",
        conv2d_prepack);
  m.def("conv2d(Tensor qx, __torch__.torch.classes.q8nn.Conv2dPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        conv2d);
  m.def("conv2d_relu(Tensor qx, __torch__.torch.classes.q8nn.Conv2dPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        conv2d_relu);
  m.def("linear_prepack(Tensor weight, Tensor? bias) -> __torch__.torch.classes.q8nn.LinearPacked", linear_prepack);
  m.def("linear(Tensor qx, __torch__.torch.classes.q8nn.LinearPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        linear);
  m.def("linear_relu(Tensor qx, __torch__.torch.classes.q8nn.LinearPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        linear_relu);
  m.def("add_prepack() -> __torch__.torch.classes.q8nn.AddPacked", add_prepack);
  m.def("add(Tensor qa, Tensor qb, __torch__.torch.classes.q8nn.AddPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        add);
  m.def("add_relu(Tensor qa, Tensor qb, __torch__.torch.classes.q8nn.AddPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        add_relu);
  m.def("max_pool2d(Tensor qx, int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode) "
        "-> Tensor",
        max_pool2d);
  m.def("adaptive_avg_pool2d(Tensor qx, int[] output_size) -> Tensor", adaptive_avg_pool2d);
  m.def("mul_prepack() -> __torch__.torch.classes.q8nn.MulPacked", mul_prepack);
  m.def("mul(Tensor qa, Tensor qb, __torch__.torch.classes.q8nn.MulPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        mul);
  m.def("mul_relu(Tensor qa, Tensor qb, __torch__.torch.classes.q8nn.MulPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        mul_relu);
  m.def("hardswish_prepack() -> __torch__.torch.classes.q8nn.UnaryPacked", hardswish_prepack);
  m.def("hardsigmoid_prepack() -> __torch__.torch.classes.q8nn.UnaryPacked", hardsigmoid_prepack);
  m.def("hardswish(Tensor qx, __torch__.torch.classes.q8nn.UnaryPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        hardswish);
  m.def("hardsigmoid(Tensor qx, __torch__.torch.classes.q8nn.UnaryPacked packed) -> Tensor", hardsigmoid);
  m.def("cat_prepack() -> __torch__.torch.classes.q8nn.CatPacked", cat_prepack);
  m.def("cat(Tensor[] qxs, int dim, __torch__.torch.classes.q8nn.CatPacked packed, float output_scale, "
        "int output_zero_point) -> Tensor",
        cat);
  m.def("channel_shuffle_prepack(int groups) -> __torch__.torch.classes.q8nn.ChannelShufflePacked",
        channel_shuffle_prepack);
  m.def("channel_shuffle(Tensor qx, __torch__.torch.classes.q8nn.ChannelShufflePacked packed) -> Tensor",
        channel_shuffle);
  m.def("stats() -> int[]", stats);
  m.def("reset_stats() -> ()", reset_stats);
  m.def("record(bool on) -> int", record);
  m.def("replay(int iters) -> float", replay);
  m.def("version() -> str", version);
}
