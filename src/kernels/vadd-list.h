/*
 * vadd microkernels (TFLite int8 add), best first. One line per kernel:
 *   Q8NN_VADD_KERNEL(isa, fn_vadd, fn_vaddc, element_tile)
 * vaddc adds one broadcast element of b. Both implement the single arithmetic of TFLite's add.
 * XNNPACK's qs8 add arithmetic (Q8NN_FLAG_XNNPACK_ADD) has lines of its own:
 *   Q8NN_VADD_XNN_KERNEL(isa, fn_vadd, fn_vaddc, element_tile)
 * dispatch takes the first active line of the operator's arithmetic.
 */
#if Q8NN_ARCH_X86
/* x86 section */
/* affine form where the operator has one (see ukernel.h), else the u64 generic kernel of its arithmetic */
Q8NN_VADD_XNN_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_vadd_minmax_xnn_affine_ukernel__avx512vnni_u128, q8nn_qs8_vaddc_minmax_xnn_affine_ukernel__avx512vnni_u128, 128)
Q8NN_VADD_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_vadd_minmax_affine_ukernel__avx512vnni_u128, q8nn_qs8_vaddc_minmax_affine_ukernel__avx512vnni_u128, 128)
Q8NN_VADD_XNN_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_vadd_minmax_xnn_ukernel__avx512vnni_u64, q8nn_qs8_vaddc_minmax_xnn_ukernel__avx512vnni_u64, 64)
Q8NN_VADD_KERNEL(Q8NN_ISA_X86_AVX512VNNI, q8nn_qs8_vadd_minmax_ukernel__avx512vnni_u64, q8nn_qs8_vaddc_minmax_ukernel__avx512vnni_u64, 64)
Q8NN_VADD_XNN_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_vadd_minmax_xnn_affine_ukernel__avx2_u64, q8nn_qs8_vaddc_minmax_xnn_affine_ukernel__avx2_u64, 64)
Q8NN_VADD_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_vadd_minmax_affine_ukernel__avx2_u64, q8nn_qs8_vaddc_minmax_affine_ukernel__avx2_u64, 64)
Q8NN_VADD_XNN_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_vadd_minmax_xnn_ukernel__avx2_u32, q8nn_qs8_vaddc_minmax_xnn_ukernel__avx2_u32, 32)
Q8NN_VADD_KERNEL(Q8NN_ISA_X86_AVX2, q8nn_qs8_vadd_minmax_ukernel__avx2_u32, q8nn_qs8_vaddc_minmax_ukernel__avx2_u32, 32)
#endif
#if Q8NN_ARCH_NEON
/* NEON section */
Q8NN_VADD_XNN_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_vadd_minmax_xnn_ukernel__neon_u16, q8nn_qs8_vaddc_minmax_xnn_ukernel__neon_u16, 16)
Q8NN_VADD_KERNEL(Q8NN_ISA_ARM_NEON, q8nn_qs8_vadd_minmax_ukernel__neon_u16, q8nn_qs8_vaddc_minmax_ukernel__neon_u16, 16)
#endif
#if Q8NN_ARCH_RVV
/* RVV section */
Q8NN_VADD_XNN_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_vadd_minmax_xnn_ukernel__rvv_u4v, q8nn_qs8_vaddc_minmax_xnn_ukernel__rvv_u4v, 16)
Q8NN_VADD_KERNEL(Q8NN_ISA_RISCV_V, q8nn_qs8_vadd_minmax_ukernel__rvv_u4v, q8nn_qs8_vaddc_minmax_ukernel__rvv_u4v, 16)
#endif
Q8NN_VADD_XNN_KERNEL(0, q8nn_qs8_vadd_minmax_xnn_ukernel__scalar_u4, q8nn_qs8_vaddc_minmax_xnn_ukernel__scalar_u4, 4)
Q8NN_VADD_KERNEL(0, q8nn_qs8_vadd_minmax_ukernel__scalar_u4, q8nn_qs8_vaddc_minmax_ukernel__scalar_u4, 4)
