/*
 * RISC-V Vector 1.0 depthwise kernels, vector-length agnostic, both TFLite roundings and XNNPACK's
 * fp32 (same loops, the epilogue picked by a constant):
 *   q8nn_qs8_dwconv_minmax_{rdouble,rsingle,fp32}_ukernel_9p8v__rvv    3x3 (taps = 9)
 *   q8nn_qs8_dwconv_minmax_{rdouble,rsingle,fp32}_ukernel_25p8v__rvv   5x5 (taps = 25)
 *   q8nn_qs8_dwconv_minmax_{rdouble,rsingle,fp32}_ukernel_xp8v__rvv    any number of taps
 * Tile: 8 vector registers of int32 accumulators (LMUL 8). CT is fixed at 128 channels in the list
 * (packing needs a compile-time tile); each block is covered in chunks of vl = min(VLMAX(e32m8),
 * left) channels: 4 chunks at VLEN 128, 2 at 256, 1 at 512 and above. Channels innermost: per
 * output pixel the fixed-tap kernels fix up the tap pointers once (zero row as is, others +
 * input_offset); per chunk the accumulators start from the packed bias and each tap does VLE8 of
 * vl inputs and weights, VWMUL to int16 (int8 x int8 fits) and VWADD.WV into int32 (wrapping like
 * the scalar kernels). Tails need no copy: vl covers exactly the remaining channels, so no byte
 * past `channels` is read. Requantization and clamp in registers (rvv-requant.h), one VSE8.
 * uint8 activations (input_flip / output_flip, 0x80 or 0): one VXOR.VX per input load (the zero
 * row's included) and one before the store; for int8 both XOR with 0.
 */
#include "kernel-decls.h"
#include "arch/rvv/rvv-requant.h"

#define Q8NN_RVV_DW_CT 128
#define Q8NN_RVV_DW_MAX_FIXED_TAPS 25

Q8NN_RVV_INLINE void q8nn_rvv_dwconv_8v(size_t TAPS, int rounding, size_t channels,
                                        size_t output_width, size_t taps, const int8_t** input,
                                        size_t input_stride, const void* weights, int8_t* output,
                                        size_t output_increment, size_t input_offset,
                                        const int8_t* zero,
                                        const struct q8nn_qs8_conv_params* params) {
  if (TAPS != 0) taps = TAPS;
  const float hi = (float) (params->output_max - params->output_zero_point); /* fp32 */
  const int8_t iflip = (int8_t) params->input_flip, oflip = (int8_t) params->output_flip;
  const size_t block_bytes = Q8NN_PACKED_HEADER_BYTES(Q8NN_RVV_DW_CT) + Q8NN_RVV_DW_CT * taps;
  do {
    const int8_t* rows[Q8NN_RVV_DW_MAX_FIXED_TAPS];
    if (TAPS != 0) {
      for (size_t t = 0; t < TAPS; t++) {
        const int8_t* row = input[t];
        rows[t] = row == zero ? row : (const int8_t*) ((uintptr_t) row + input_offset);
      }
    }
    const int8_t* block = (const int8_t*) weights;
    for (size_t c0 = 0; c0 < channels; c0 += Q8NN_RVV_DW_CT) {
      const size_t cn = channels - c0 < Q8NN_RVV_DW_CT ? channels - c0 : Q8NN_RVV_DW_CT;
      const int32_t* header = (const int32_t*) block;
      for (size_t j = 0; j < cn;) {
        const size_t vl = __riscv_vsetvl_e32m8(cn - j);
        vint32m8_t acc = __riscv_vle32_v_i32m8(header + j, vl);
        const int8_t* wk = block + Q8NN_PACKED_HEADER_BYTES(Q8NN_RVV_DW_CT) + j;
        const size_t off = c0 + j;
        for (size_t t = 0; t < taps; t++) {
          const int8_t* row;
          if (TAPS != 0) {
            row = rows[t];
          } else {
            row = input[t];
            row = row == zero ? row : (const int8_t*) ((uintptr_t) row + input_offset);
          }
          const vint8m2_t vi = __riscv_vxor_vx_i8m2(__riscv_vle8_v_i8m2(row + off, vl), iflip, vl);
          const vint8m2_t vk = __riscv_vle8_v_i8m2(wk, vl);
          wk += Q8NN_RVV_DW_CT;
          acc = __riscv_vwadd_wv_i32m8(acc, __riscv_vwmul_vv_i16m4(vi, vk, vl), vl);
        }
        const vint32m8_t vmult = __riscv_vle32_v_i32m8(header + Q8NN_RVV_DW_CT + j, vl);
        vint8m2_t out;
        if (rounding == 2) {
          acc = q8nn_rvv_fp32_m8(acc, vmult, hi, vl);
          out = q8nn_rvv_output_sat_m8(acc, params->output_zero_point, params->output_min,
                                       params->output_max, vl);
        } else {
          const vint32m8_t vshift = __riscv_vle32_v_i32m8(header + 2 * Q8NN_RVV_DW_CT + j, vl);
          acc = q8nn_rvv_requantize_m8(acc, vmult, vshift, rounding, vl);
          out = q8nn_rvv_output_m8(acc, params, vl);
        }
        __riscv_vse8_v_i8m2(output + j, __riscv_vxor_vx_i8m2(out, oflip, vl), vl);
        j += vl;
      }
      output += cn;
      block += block_bytes;
    }
    output += output_increment;
    input += input_stride;
  } while (--output_width != 0);
}

#define Q8NN_RVV_DWCONV(name, TAPS, rounding) \
  Q8NN_DEFINE_DWCONV_UKERNEL(name, q8nn_rvv_dwconv_8v, TAPS, rounding)

Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_9p8v__rvv, 9, 0)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_9p8v__rvv, 9, 1)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_25p8v__rvv, 25, 0)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_25p8v__rvv, 25, 1)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_rdouble_ukernel_xp8v__rvv, 0, 0)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_rsingle_ukernel_xp8v__rvv, 0, 1)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_9p8v__rvv, 9, 2)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_25p8v__rvv, 25, 2)
Q8NN_RVV_DWCONV(q8nn_qs8_dwconv_minmax_fp32_ukernel_xp8v__rvv, 0, 2)
