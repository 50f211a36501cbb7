/* AVX-512 VNNI bound loops (see bound.h): VPDPBUSD zmm, and the gemm kernels' epilogue. */
#include "bound/bound-epilogue-avx512.h"

/* VPDPBUSD zmm on 24 accumulators (zmm8-zmm31), sources zmm0 (bytes of `iters`) and zmm1. */
uint64_t q8nn_bound_dot_avx512vnni(uint64_t iters) {
  if (iters == 0) return 0;
  uint64_t n = iters;
  int32_t s;
  __asm__ volatile(
      "vpbroadcastd %k[a], %%zmm0\n\t"
      "vpbroadcastd %k[b], %%zmm1\n\t"
      "vpxord %%zmm8, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm9, %%zmm9, %%zmm9\n\t"
      "vpxord %%zmm10, %%zmm10, %%zmm10\n\t"
      "vpxord %%zmm11, %%zmm11, %%zmm11\n\t"
      "vpxord %%zmm12, %%zmm12, %%zmm12\n\t"
      "vpxord %%zmm13, %%zmm13, %%zmm13\n\t"
      "vpxord %%zmm14, %%zmm14, %%zmm14\n\t"
      "vpxord %%zmm15, %%zmm15, %%zmm15\n\t"
      "vpxord %%zmm16, %%zmm16, %%zmm16\n\t"
      "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
      "vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
      "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
      "vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
      "vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
      "vpxord %%zmm22, %%zmm22, %%zmm22\n\t"
      "vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
      "vpxord %%zmm24, %%zmm24, %%zmm24\n\t"
      "vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
      "vpxord %%zmm26, %%zmm26, %%zmm26\n\t"
      "vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
      "vpxord %%zmm28, %%zmm28, %%zmm28\n\t"
      "vpxord %%zmm29, %%zmm29, %%zmm29\n\t"
      "vpxord %%zmm30, %%zmm30, %%zmm30\n\t"
      "vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
      "1:\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm8\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm9\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm10\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm11\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm12\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm13\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm14\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm15\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm16\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm17\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm18\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm19\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm20\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm21\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm22\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm23\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm24\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm25\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm26\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm27\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm28\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm29\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm30\n\t"
      "vpdpbusd %%zmm1, %%zmm0, %%zmm31\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vpxord %%zmm9, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm10, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm11, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm12, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm13, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm14, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm15, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm16, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm17, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm18, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm19, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm20, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm21, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm22, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm23, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm24, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm25, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm26, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm27, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm28, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm29, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm30, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm31, %%zmm8, %%zmm8\n\t"
      "vmovd %%xmm8, %[s]\n\t"
      : [n] "+r"(n), [s] "=r"(s)
      : [a] "r"((uint32_t) iters), [b] "r"(0x01020304u)
      : "xmm0", "xmm1", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "cc");
  q8nn_bound_sink = s;
  return iters * 24 * 64;
}

uint64_t q8nn_bound_epilogue_avx512vnni(int rounding, uint64_t iters) {
  return rounding == 0   ? q8nn_bound_epilogue_loop(0, iters, NULL)
         : rounding == 1 ? q8nn_bound_epilogue_loop(1, iters, NULL)
         : rounding == 3 ? q8nn_bound_epilogue_loop(3, iters, NULL)
         : rounding == 4 ? q8nn_bound_epilogue_loop(4, iters, NULL)
                         : q8nn_bound_epilogue_loop(2, iters, NULL);
}
