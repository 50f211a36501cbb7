/*
 * igemm microkernels (any convolution, indirection buffer), best first. One line per kernel:
 *   Q8NN_IGEMM_KERNEL(isa, fn_rdouble, fn_rsingle, mr, nr, kr, input_offset, pack)
 * isa: Q8NN_ISA_* bits the kernel needs (0 = portable). See ukernel.h for the contract.
 * Dispatch takes the ISA of the first active line and, among that ISA's lines, the tile that
 * src/tile-select.c's cost model picks for the layer's shape (list order breaks ties; an ISA
 * without measured rates there keeps the first line); tests and benchmarks run every line.
 * Later ISAs only add lines in their section.
 * XNNPACK's fp32 requantization (q8nn_rounding_fp32) has lines of its own:
 *   Q8NN_IGEMM_FP32_KERNEL(isa, fn_fp32, mr, nr, kr, input_offset, pack)
 * dispatch takes the first active line that implements the operator's requantization.
 */
#if Q8NN_ARCH_X86
/* x86 section */
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AMX, q8nn_qs8_igemm_minmax_fp32_ukernel_32x32c4__amx, 32, 32, 64, 0, q8nn_pack_qs8_gemm_goki_w_amx)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AMX, q8nn_qs8_igemm_minmax_rdouble_ukernel_32x32c4__amx, q8nn_qs8_igemm_minmax_rsingle_ukernel_32x32c4__amx, 32, 32, 64, 0, q8nn_pack_qs8_gemm_goki_w_amx)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_fp32_ukernel_8x32c4__avx512vnni, 8, 32, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_fp32_ukernel_7x32c4__avx512vnni, 7, 32, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_fp32_ukernel_6x64c4__avx512vnni, 6, 64, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_fp32_ukernel_4x64c4__avx512vnni, 4, 64, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_fp32_ukernel_12x32c4__avx512vnni, 12, 32, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_rdouble_ukernel_8x32c4__avx512vnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_8x32c4__avx512vnni, 8, 32, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_rdouble_ukernel_7x32c4__avx512vnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_7x32c4__avx512vnni, 7, 32, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_rdouble_ukernel_6x64c4__avx512vnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_6x64c4__avx512vnni, 6, 64, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x64c4__avx512vnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x64c4__avx512vnni, 4, 64, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_igemm_minmax_rdouble_ukernel_12x32c4__avx512vnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_12x32c4__avx512vnni, 12, 32, 4, 128, q8nn_pack_qs8_gemm_goki_w_avx512)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_fp32_ukernel_8x8c4__avxvnni, 8, 8, 4, 0, q8nn_pack_qs8_gemm_goki_w_u8_avxvnni)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_rdouble_ukernel_8x8c4__avxvnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_8x8c4__avxvnni, 8, 8, 4, 0, q8nn_pack_qs8_gemm_goki_w_u8_avxvnni)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_fp32_ukernel_6x16c4__avxvnni, 6, 16, 4, 0, q8nn_pack_qs8_gemm_goki_w_u8_avxvnni)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_rdouble_ukernel_6x16c4__avxvnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_6x16c4__avxvnni, 6, 16, 4, 0, q8nn_pack_qs8_gemm_goki_w_u8_avxvnni)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_fp32_ukernel_4x16c4__avxvnni, 4, 16, 4, 0, q8nn_pack_qs8_gemm_goki_w_u8_avxvnni)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVXVNNI | Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x16c4__avxvnni, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x16c4__avxvnni, 4, 16, 4, 0, q8nn_pack_qs8_gemm_goki_w_u8_avxvnni)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_fp32_ukernel_4x8c8__avx2, 4, 8, 8, 0, q8nn_pack_qs8_gemm_goki_w_avx2)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x8c8__avx2, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x8c8__avx2, 4, 8, 8, 0, q8nn_pack_qs8_gemm_goki_w_avx2)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_fp32_ukernel_3x8c8__avx2, 3, 8, 8, 0, q8nn_pack_qs8_gemm_goki_w_avx2)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_rdouble_ukernel_3x8c8__avx2, q8nn_qs8_igemm_minmax_rsingle_ukernel_3x8c8__avx2, 3, 8, 8, 0, q8nn_pack_qs8_gemm_goki_w_avx2)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_fp32_ukernel_2x16c8__avx2, 2, 16, 8, 0, q8nn_pack_qs8_gemm_goki_w_avx2)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_igemm_minmax_rdouble_ukernel_2x16c8__avx2, q8nn_qs8_igemm_minmax_rsingle_ukernel_2x16c8__avx2, 2, 16, 8, 0, q8nn_pack_qs8_gemm_goki_w_avx2)
#endif
#if Q8NN_ARCH_NEON
/* NEON section */
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_ARM_NEON | Q8NN_ISA_ARM_NEON_I8MM, q8nn_qs8_igemm_minmax_fp32_ukernel_4x16c8__neoni8mm, 4, 16, 8, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_ARM_NEON | Q8NN_ISA_ARM_NEON_I8MM, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x16c8__neoni8mm, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x16c8__neoni8mm, 4, 16, 8, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_ARM_NEON | Q8NN_ISA_ARM_NEON_DOT, q8nn_qs8_igemm_minmax_fp32_ukernel_4x16c4__neondot, 4, 16, 4, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_ARM_NEON | Q8NN_ISA_ARM_NEON_DOT, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x16c4__neondot, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x16c4__neondot, 4, 16, 4, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_igemm_minmax_fp32_ukernel_4x16c1__neon, 4, 16, 1, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x16c1__neon, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x16c1__neon, 4, 16, 1, 0, q8nn_pack_qs8_gemm_goki_w)
#endif
#if Q8NN_ARCH_RVV
/* RVV section */
Q8NN_IGEMM_FP32_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_igemm_minmax_fp32_ukernel_4x4v__rvv, 4, 64, 1, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x4v__rvv, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x4v__rvv, 4, 64, 1, 0, q8nn_pack_qs8_gemm_goki_w)
#endif
Q8NN_IGEMM_FP32_KERNEL(0, q8nn_qs8_igemm_minmax_fp32_ukernel_4x4c1__scalar, 4, 4, 1, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_FP32_KERNEL(0, q8nn_qs8_igemm_minmax_fp32_ukernel_1x4c1__scalar, 1, 4, 1, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_KERNEL(0, q8nn_qs8_igemm_minmax_rdouble_ukernel_4x4c1__scalar, q8nn_qs8_igemm_minmax_rsingle_ukernel_4x4c1__scalar, 4, 4, 1, 0, q8nn_pack_qs8_gemm_goki_w)
Q8NN_IGEMM_KERNEL(0, q8nn_qs8_igemm_minmax_rdouble_ukernel_1x4c1__scalar, q8nn_qs8_igemm_minmax_rsingle_ukernel_1x4c1__scalar, 1, 4, 1, 0, q8nn_pack_qs8_gemm_goki_w)
