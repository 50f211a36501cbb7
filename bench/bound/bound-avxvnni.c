/* AVX-VNNI bound loop (see bound.h): VPDPBUSD ymm. The epilogue is AVX2's (same helpers). */
#include "bound/bound-x86.h"
#include "arch/x86/x86-avx2.h"

/* VPDPBUSD ymm (VEX) on 12 accumulators (ymm4-ymm15), sources ymm0 (bytes of `iters`) and ymm1. */
uint64_t q8nn_bound_dot_avxvnni(uint64_t iters) {
  if (iters == 0) return 0;
  uint64_t n = iters;
  int32_t s;
  __asm__ volatile(
      "vmovd %k[a], %%xmm0\n\t"
      "vpbroadcastd %%xmm0, %%ymm0\n\t"
      "vmovd %k[b], %%xmm1\n\t"
      "vpbroadcastd %%xmm1, %%ymm1\n\t"
      Q8NN_BOUND_YMM4_15_ZERO
      "1:\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm4\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm5\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm6\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm7\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm8\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm9\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm10\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm11\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm12\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm13\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm14\n\t"
      "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm15\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      Q8NN_BOUND_YMM4_15_FOLD
      : [n] "+r"(n), [s] "=r"(s)
      : [a] "r"((uint32_t) iters), [b] "r"(0x01020304u)
      : "xmm0", "xmm1", Q8NN_BOUND_YMM4_15_CLOBBERS);
  q8nn_bound_sink = s;
  return iters * 12 * 32;
}
