// One implementation of the model's layers (q8nn or a peer library) on its own buffers.
#pragma once

#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "models/model.h"

namespace q8nn_bench {

// Activation buffers, 64-byte aligned as TFLite's arena aligns tensors (kDefaultTensorAlignment)
// and q8nn-model its arena: with malloc's 16-byte alignment every 64-byte access of a kernel could
// straddle two cache lines, differently from layer to layer.
template <class T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}
  T* allocate(size_t n) {
    void* p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <class U>
  bool operator==(const Aligned64<U>&) const { return true; }
  template <class U>
  bool operator!=(const Aligned64<U>&) const { return false; }
};
using Buffer = std::vector<int8_t, Aligned64<int8_t>>;

class Runner {
 public:
  virtual ~Runner() = default;
  virtual std::string name() const = 0;
  // Creates and sets up every layer for `threads` threads (1 or 2). False if unsupported.
  virtual bool prepare(const Model& m, int threads) = 0;
  virtual void run_layer(size_t i) = 0;
  // One pass over every layer (q8nn: one q8nn_run_operators call unless --one-call-per-layer).
  virtual void run_all(size_t layers) {
    for (size_t i = 0; i < layers; i++) run_layer(i);
  }
  // Activation buffer `id` in q8nn's representation (int8 with the model's zero point).
  virtual void write_buffer(int id, const std::vector<int8_t>& data) = 0;
  virtual std::vector<int8_t> read_buffer(int id) = 0;
  // Whether layer i computes the same function as q8nn (checked within 1).
  virtual bool checkable(size_t i) const { return true; }
};

std::unique_ptr<Runner> make_xnnpack_runner();            // peer-xnnpack.cc
std::unique_ptr<Runner> make_onednn_runner(bool u8_src);  // peer-onednn.cc

}  // namespace q8nn_bench
