/*
 * x8 table-lookup microkernels (y = table[x], the unary elementwise and lookup operators), best
 * first. One line per kernel:
 *   Q8NN_LUT_KERNEL(isa, fn, pack, element_tile)
 * pack makes the line's form of the table at create (NULL: the table as it is).
 */
#if Q8NN_ARCH_X86
Q8NN_LUT_KERNEL(Q8NN_ISA_X86_AVX512VBMI, q8nn_x8_lut_ukernel__avx512vbmi_u128, NULL, 128)
Q8NN_LUT_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_x8_lut_ukernel__avx2_u64, q8nn_x8_lut_pack__avx2, 64)
#endif
#if Q8NN_ARCH_NEON
Q8NN_LUT_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_x8_lut_ukernel__neon_u32, NULL, 32)
#endif
#if Q8NN_ARCH_RVV
Q8NN_LUT_KERNEL(Q8NN_ISA_RISCV_V, q8nn_x8_lut_ukernel__rvv_u4v, NULL, 16)
#endif
Q8NN_LUT_KERNEL(0, q8nn_x8_lut_ukernel__scalar_u4, NULL, 4)
