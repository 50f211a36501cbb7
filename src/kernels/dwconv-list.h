/*
 * dwconv microkernels (depthwise, channels innermost), best first. One line per kernel:
 *   Q8NN_DWCONV_KERNEL(isa, fn_rdouble, fn_rsingle, channel_tile, taps, input_offset)
 * taps 0 = any number of taps (a loop over taps inside each channel tile: accumulators stay in
 * registers, no int32 buffer). Dispatch takes the first line whose ISA is active and whose taps
 * equal the operator's (or are 0).
 * XNNPACK's fp32 requantization (q8nn_rounding_fp32) has lines of its own:
 *   Q8NN_DWCONV_FP32_KERNEL(isa, fn_fp32, channel_tile, taps, input_offset)
 * dispatch takes the first active line that implements the operator's requantization.
 */
#if Q8NN_ARCH_X86
/* x86 section */
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p64c__avx512vnni, 64, 9, 128)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p64c__avx512vnni, 64, 25, 128)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp64c__avx512vnni, 64, 0, 128)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p64c__avx512vnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p64c__avx512vnni, 64, 9, 128)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p64c__avx512vnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p64c__avx512vnni, 64, 25, 128)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp64c__avx512vnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp64c__avx512vnni, 64, 0, 128)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p32c__avxvnni, 32, 9, 128)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p32c__avxvnni, 32, 25, 128)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp32c__avxvnni, 32, 0, 128)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p32c__avxvnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p32c__avxvnni, 32, 9, 128)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p32c__avxvnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p32c__avxvnni, 32, 25, 128)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp32c__avxvnni, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp32c__avxvnni, 32, 0, 128)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p16c__avx2, 16, 9, 0)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p16c__avx2, 16, 25, 0)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp16c__avx2, 16, 0, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p16c__avx2, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p16c__avx2, 16, 9, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p16c__avx2, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p16c__avx2, 16, 25, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp16c__avx2, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp16c__avx2, 16, 0, 0)
#endif
#if Q8NN_ARCH_NEON
/* NEON section */
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p16c__neon, 16, 9, 0)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p16c__neon, 16, 25, 0)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp16c__neon, 16, 0, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p16c__neon, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p16c__neon, 16, 9, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p16c__neon, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p16c__neon, 16, 25, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp16c__neon, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp16c__neon, 16, 0, 0)
#endif
#if Q8NN_ARCH_RVV
/* RVV section */
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p8v__rvv, 128, 9, 0)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p8v__rvv, 128, 25, 0)
Q8NN_DWCONV_FP32_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp8v__rvv, 128, 0, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p8v__rvv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p8v__rvv, 128, 9, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p8v__rvv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p8v__rvv, 128, 25, 0)
Q8NN_DWCONV_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp8v__rvv, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp8v__rvv, 128, 0, 0)
#endif
Q8NN_DWCONV_FP32_KERNEL(0, q8nn_qs8_dwconv_minmax_fp32_ukernel_9p4c__scalar, 4, 9, 0)
Q8NN_DWCONV_FP32_KERNEL(0, q8nn_qs8_dwconv_minmax_fp32_ukernel_25p4c__scalar, 4, 25, 0)
Q8NN_DWCONV_FP32_KERNEL(0, q8nn_qs8_dwconv_minmax_fp32_ukernel_xp4c__scalar, 4, 0, 0)
Q8NN_DWCONV_KERNEL(0, q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p4c__scalar, q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p4c__scalar, 4, 9, 0)
Q8NN_DWCONV_KERNEL(0, q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p4c__scalar, q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p4c__scalar, 4, 25, 0)
Q8NN_DWCONV_KERNEL(0, q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp4c__scalar, q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp4c__scalar, 4, 0, 0)
