/* The size of a packed gemm block for each packer: ukernel.h's header and weights, and for the
   packers whose header is longer (the AVX2 c8 layout's requantization records, the AVX-512
   and AVX-VNNI layouts' guard constants, x86-pack.h) theirs.
   Kept apart from the portable packers (packing.c), which the x86 packers build on, so that the
   portable code never names an architecture's packer. */
#include "ukernel.h"
#if Q8NN_ARCH_X86
#include "arch/x86/x86-pack.h"
#endif

size_t q8nn_packed_gemm_header_bytes(q8nn_pack_gemm_fn pack, size_t nr) {
#if Q8NN_ARCH_X86
  if (pack == q8nn_pack_qs8_gemm_goki_w_avx2) return Q8NN_X86_AVX2_PACKED_HEADER_BYTES(nr);
  if (pack == q8nn_pack_qs8_gemm_goki_w_avx512 || pack == q8nn_pack_qs8_gemm_goki_w_u8_avxvnni) {
    return Q8NN_X86_GUARD_PACKED_HEADER_BYTES(nr);
  }
#endif
  (void) pack;
  return Q8NN_PACKED_HEADER_BYTES(nr);
}

size_t q8nn_packed_gemm_size(q8nn_pack_gemm_fn pack, size_t groups, size_t nc, size_t ks, size_t kc, size_t nr,
                             size_t kr) {
  const size_t block = q8nn_packed_gemm_header_bytes(pack, nr) + ks * q8nn_round_up(kc, kr) * nr;
  return groups * q8nn_divide_round_up(nc, nr) * block;
}
