/* Packing for the x86 kernels; see x86-pack.h. */
#include "arch/x86/x86-pack.h"

void q8nn_pack_qs8_gemm_goki_w_u8(
    size_t groups, size_t nc, size_t ks, size_t kc, size_t nr, size_t kr,
    const int8_t* kernel, const int32_t* bias, const int32_t* multiplier, const int32_t* shift,
    int32_t input_fold, void* packed) {
  q8nn_pack_qs8_gemm_goki_w(groups, nc, ks, kc, nr, kr, kernel, bias, multiplier, shift, input_fold, packed);
  const size_t header = Q8NN_PACKED_HEADER_BYTES(nr);
  const size_t weights = ks * q8nn_round_up(kc, kr) * nr;
  uint8_t* block = (uint8_t*) packed;
  const size_t blocks = groups * q8nn_divide_round_up(nc, nr);
  for (size_t b = 0; b < blocks; b++) {
    uint8_t* w = block + header;
    for (size_t i = 0; i < weights; i++) w[i] ^= 0x80;
    block += header + weights;
  }
}
