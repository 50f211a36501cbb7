/* aarch64 feature detection through getauxval (Linux); NEON alone elsewhere. */
#include "arch/neon/neon-detect.h"

#if defined(__linux__)
#include <sys/auxv.h>
#endif

#define Q8NN_HWCAP_ASIMDDP (1ul << 20)
#define Q8NN_HWCAP2_I8MM (1ul << 13)

uint32_t q8nn_neon_detect_isa(void) {
  uint32_t isa = Q8NN_ISA_ARM_NEON;
#if defined(__linux__)
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);
  if (hwcap & Q8NN_HWCAP_ASIMDDP) isa |= Q8NN_ISA_ARM_NEON_DOT;
  if (hwcap2 & Q8NN_HWCAP2_I8MM) isa |= Q8NN_ISA_ARM_NEON_I8MM;
#endif
  return isa;
}
