/* RISC-V Vector detection on Linux (cpuinfo reports neither RVV nor VLEN). */
#ifndef Q8NN_ARCH_RVV_DETECT_H
#define Q8NN_ARCH_RVV_DETECT_H

#include <stdint.h>

#include "common.h"

/* Q8NN_ISA_RISCV_V when the kernel reports the V extension in AT_HWCAP (bit 'V' - 'A', which Linux
   sets only for RVV 1.0 with the vector state enabled), 0 otherwise. The kernels are
   vector-length agnostic: any VLEN >= 128 (Zvl128b, implied by V) is accepted. */
Q8NN_INTERNAL uint32_t q8nn_rvv_detect_isa(void);

#endif
