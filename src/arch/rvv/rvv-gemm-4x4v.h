/*
 * Body of the RVV 1.0 gemm and igemm kernels, tile 4x4v (4 rows x 4 vector registers of int32
 * accumulators per row, LMUL 4), vector-length agnostic.
 *
 * NR is fixed at 64 output channels (the list needs a compile-time NR): each 64-channel block of
 * the standard packing (KR = 1, w[kc][64]) is covered in chunks of vl = min(VLMAX(e32m4), left)
 * channels: 4 chunks at VLEN 128, 2 at 256, 1 at 512 and above (at VLEN 1024 half of the
 * registers idle). Only min(nc, 64) channels of a block are computed. K is unrolled by 4; per k:
 * one unit-stride load of vl weights (e8m1), VSEXT to int16 (e16m2), and per row a scalar
 * activation (LB) into VWMACC.VX, widening into the int32 accumulators (int8 x int8 fits int16;
 * the int32 sums wrap like the scalar kernels). Exactly kc bytes of each row are read.
 * Epilogue per chunk: multiplier and shift loaded from the block header, requantization and
 * output clamp in registers (rvv-requant.h: both TFLite roundings, or XNNPACK's fp32 with the scale
 * in the multiplier slot), one VSE8 of vl bytes per row.
 * uint8 activations (input_flip / output_flip): each scalar activation is XORed with the
 * sign-extended input flip after its LB (one scalar XOR per activation byte, the zero row's
 * included), and each row's output bytes get one VXOR.VX with the output flip before the VSE8.
 * Rows >= mr alias the last valid row (computed, stored to the same bytes).
 */
#ifndef Q8NN_ARCH_RVV_GEMM_4X4V_H
#define Q8NN_ARCH_RVV_GEMM_4X4V_H

#include "arch/rvv/rvv-requant.h"

#define Q8NN_RVV_GEMM_NR 64

Q8NN_RVV_INLINE void q8nn_rvv_4x4v_store_row(int8_t* c, vint32m4_t acc, vint32m4_t vmult,
                                             vint32m4_t vshift, int rounding,
                                             const struct q8nn_qs8_conv_params* params, size_t vl) {
  vint8m1_t out;
  if (rounding == 2) {
    const float hi = (float) (params->output_max - params->output_zero_point);
    const vint32m4_t v = q8nn_rvv_fp32_m4(acc, vmult, hi, vl);
    out = q8nn_rvv_output_sat_m4(v, params->output_zero_point, params->output_min,
                                 params->output_max, vl);
  } else {
    const vint32m4_t v = q8nn_rvv_requantize_m4(acc, vmult, vshift, rounding, vl);
    out = q8nn_rvv_output_m4(v, params, vl);
  }
  /* uint8 outputs: the clamped int8 bytes ^ 0x80 (the identity for int8) */
  __riscv_vse8_v_i8m1(c, __riscv_vxor_vx_i8m1(out, (int8_t) params->output_flip, vl), vl);
}

/* One chunk of vl channels starting at channel n0 of the block at `block`, over ks taps. */
Q8NN_RVV_INLINE void q8nn_rvv_4x4v_chunk(int rounding, size_t ks, const int8_t* const* a, size_t mr,
                                         size_t a_offset, const int8_t* zero, size_t kc,
                                         const int8_t* block, size_t n0, size_t vl, int8_t* c[4],
                                         const struct q8nn_qs8_conv_params* params) {
  const int32_t* header = (const int32_t*) block;
  const vint32m4_t vbias = __riscv_vle32_v_i32m4(header + n0, vl);
  vint32m4_t acc0 = vbias, acc1 = vbias, acc2 = vbias, acc3 = vbias;
  const int8_t* w = block + Q8NN_PACKED_HEADER_BYTES(Q8NN_RVV_GEMM_NR) + n0;
  /* The input flip sign-extended (0 or -128): an int8 x sign-extended, XOR sflip, is
     (int8_t) (x ^ input_flip) sign-extended, so one XOR per activation byte. */
  const int32_t sflip = (int8_t) params->input_flip;
  for (size_t p = 0; p < ks; p++) {
    const int8_t* ar[4];
    for (size_t r = 0; r < 4; r++) {
      const int8_t* row = a[4 * p + (r < mr ? r : mr - 1)];
      ar[r] = row == zero ? row : (const int8_t*) ((uintptr_t) row + a_offset);
    }
    const int8_t* a0 = ar[0];
    const int8_t* a1 = ar[1];
    const int8_t* a2 = ar[2];
    const int8_t* a3 = ar[3];
#define Q8NN_RVV_4X4V_K(j)                                                                         \
  do {                                                                                             \
    const vint16m2_t vw =                                                                          \
        __riscv_vsext_vf2_i16m2(__riscv_vle8_v_i8m1(w + (j) * Q8NN_RVV_GEMM_NR, vl), vl);          \
    acc0 = __riscv_vwmacc_vx_i32m4(acc0, (int16_t) (a0[j] ^ sflip), vw, vl);                       \
    acc1 = __riscv_vwmacc_vx_i32m4(acc1, (int16_t) (a1[j] ^ sflip), vw, vl);                       \
    acc2 = __riscv_vwmacc_vx_i32m4(acc2, (int16_t) (a2[j] ^ sflip), vw, vl);                       \
    acc3 = __riscv_vwmacc_vx_i32m4(acc3, (int16_t) (a3[j] ^ sflip), vw, vl);                       \
  } while (0)
    /* Unrolled by 4 so the pointer increments and the branch are shared by 4 k. */
    size_t k = kc;
    for (; k >= 4; k -= 4) {
      Q8NN_RVV_4X4V_K(0);
      Q8NN_RVV_4X4V_K(1);
      Q8NN_RVV_4X4V_K(2);
      Q8NN_RVV_4X4V_K(3);
      a0 += 4, a1 += 4, a2 += 4, a3 += 4;
      w += 4 * Q8NN_RVV_GEMM_NR;
    }
    for (; k != 0; k--) {
      Q8NN_RVV_4X4V_K(0);
      a0 += 1, a1 += 1, a2 += 1, a3 += 1;
      w += Q8NN_RVV_GEMM_NR;
    }
#undef Q8NN_RVV_4X4V_K
  }
  const vint32m4_t vmult = __riscv_vle32_v_i32m4(header + Q8NN_RVV_GEMM_NR + n0, vl);
  const vint32m4_t vshift = __riscv_vle32_v_i32m4(header + 2 * Q8NN_RVV_GEMM_NR + n0, vl);
  /* Highest row first: aliased rows (>= mr) then get overwritten by the same bytes. */
  q8nn_rvv_4x4v_store_row(c[3] + n0, acc3, vmult, vshift, rounding, params, vl);
  q8nn_rvv_4x4v_store_row(c[2] + n0, acc2, vmult, vshift, rounding, params, vl);
  q8nn_rvv_4x4v_store_row(c[1] + n0, acc1, vmult, vshift, rounding, params, vl);
  q8nn_rvv_4x4v_store_row(c[0] + n0, acc0, vmult, vshift, rounding, params, vl);
}

/* a: [ks][4] row pointers as in the igemm contract (a pointer equal to zero is used as is, others
   get a_offset; rows >= mr use row mr - 1). gemm passes its 4 rows with zero = NULL. */
Q8NN_RVV_INLINE void q8nn_rvv_4x4v_blocks(int rounding, size_t mr, size_t nc, size_t kc, size_t ks,
                                          const int8_t* const* a, size_t a_offset,
                                          const int8_t* zero, const void* w, int8_t* c,
                                          size_t cm_stride, size_t cn_stride,
                                          const struct q8nn_qs8_conv_params* params) {
  int8_t* cr[4];
  for (size_t r = 0; r < 4; r++) cr[r] = c + (r < mr ? r : mr - 1) * cm_stride;
  const int8_t* block = (const int8_t*) w;
  const size_t block_bytes = Q8NN_RVV_GEMM_NR * (3 * sizeof(int32_t) + ks * kc);
  do {
    const size_t ncols = nc < Q8NN_RVV_GEMM_NR ? nc : Q8NN_RVV_GEMM_NR;
    for (size_t n0 = 0; n0 < ncols;) {
      const size_t vl = __riscv_vsetvl_e32m4(ncols - n0);
      q8nn_rvv_4x4v_chunk(rounding, ks, a, mr, a_offset, zero, kc, block, n0, vl, cr, params);
      n0 += vl;
    }
    for (size_t r = 0; r < 4; r++) cr[r] += cn_stride;
    block += block_bytes;
    nc -= ncols;
  } while (nc != 0);
}

#endif
