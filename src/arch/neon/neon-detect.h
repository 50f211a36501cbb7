/* aarch64 feature detection from the ELF auxiliary vector, for what Debian's cpuinfo (2022) does
   not report: it has no i8mm query. */
#ifndef Q8NN_ARCH_NEON_DETECT_H
#define Q8NN_ARCH_NEON_DETECT_H

#include <stdint.h>

#include "common.h"

/* Q8NN_ISA_ARM_NEON (always on aarch64) | Q8NN_ISA_ARM_NEON_DOT (HWCAP_ASIMDDP) |
   Q8NN_ISA_ARM_NEON_I8MM (HWCAP2_I8MM), as the Linux kernel reports them. */
Q8NN_INTERNAL uint32_t q8nn_neon_detect_isa(void);

#endif
