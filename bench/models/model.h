// Layer tables of the benchmark models (bench/models/*.txt) expanded into conv / depthwise / add
// layers with deterministic random weights and TFLite-style per-channel quantization.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace q8nn_bench {

enum class LayerKind { kConv, kDepthwise, kAdd };

struct Layer {
  LayerKind kind;
  std::string name;
  size_t h, w, cin, cout, oh, ow;  // input and output shapes (NHWC, batch 1)
  uint32_t kernel, stride, pad_top, pad_left, pad_bottom, pad_right;
  bool relu6;
  int input, input2, output;  // activation buffer ids (input2: second add operand)
  std::vector<int8_t> weights;   // conv: OHWI; depthwise: [kh][kw][channels]
  std::vector<int32_t> bias;
  std::vector<float> kernel_scale;
  double macs() const;           // adds count one op per element
};

// All activations share one quantization: scale kActScale, zero point kActZeroPoint; ReLU6 layers
// clamp to [kActZeroPoint, kActZeroPoint + 6 / kActScale].
constexpr float kActScale = 0.05f;
constexpr int32_t kActZeroPoint = -20;
constexpr int8_t kRelu6Max = 100;  // -20 + 6 / 0.05

struct Model {
  std::vector<Layer> layers;
  std::vector<size_t> buffer_bytes;  // per activation buffer id; id 0 is the network input
  double total_macs() const;
};

// Parses models/<file> (see mobilenet_v2.txt for the format). Throws std::runtime_error.
Model load_model(const std::string& path, uint32_t seed);

const char* kind_name(LayerKind k);

}  // namespace q8nn_bench
