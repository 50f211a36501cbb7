/* RISC-V Vector detection through the ELF auxiliary vector. */
#include "arch/rvv/rvv-detect.h"

#if defined(__linux__)
#include <sys/auxv.h>
#endif

#include <riscv_vector.h>

#define Q8NN_HWCAP_RISCV_V (1ul << ('V' - 'A'))

uint32_t q8nn_rvv_detect_isa(void) {
#if defined(__linux__)
  const unsigned long hwcap = getauxval(AT_HWCAP);
  if ((hwcap & Q8NN_HWCAP_RISCV_V) == 0) return 0;
  /* V implies VLEN >= 128; check it anyway, the kernels' vsetvl counts assume it. */
  if (__riscv_vsetvlmax_e8m1() < 16) return 0;
  return Q8NN_ISA_RISCV_V;
#else
  return 0;
#endif
}
