/*
 * Bodies of the portable scalar conv kernels, instantiated per tile and rounding by the
 * qs8-*-scalar.c files (MR, NR, CT and the rounding are compile-time constants there, so the
 * compiler unrolls the tile). Accumulators are uint32 so that wrap-around, where TFLite's int32
 * accumulator would overflow, is defined behaviour with the same bits.
 */
#ifndef Q8NN_KERNELS_SCALAR_CONV_H
#define Q8NN_KERNELS_SCALAR_CONV_H

#include <string.h>

#include "requantization.h"
#include "ukernel.h"

#define Q8NN_SCALAR_MAX_MR 4
#define Q8NN_SCALAR_MAX_NR 4

static inline int32_t q8nn_load_s32(const void* p) {
  int32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

/* rounding: 0 TFLite double, 1 TFLite single, 2 XNNPACK fp32 (multiplier holds the float scale's bits) */
static inline int8_t q8nn_scalar_requantize(uint32_t acc, int32_t multiplier, int32_t shift, int rounding,
                                            const struct q8nn_qs8_conv_params* params) {
  int8_t out;
  if (rounding == 2) {
    float scale;
    memcpy(&scale, &multiplier, sizeof(scale));
    out = q8nn_requantize_fp32((int32_t) acc, scale, params->output_zero_point, params->output_min,
                               params->output_max);
  } else {
    const int32_t scaled = rounding == 0 ? q8nn_requantize_rdouble((int32_t) acc, multiplier, shift)
                                         : q8nn_requantize_rsingle((int32_t) acc, multiplier, shift);
    out = q8nn_output_clamp(scaled, params->output_zero_point, params->output_min, params->output_max);
  }
  return (int8_t) (out ^ params->output_flip);
}

/* Requantizes an MR x NR tile and stores min(nc, NR) columns of mr rows. */
static inline void q8nn_scalar_store_tile(
    size_t mr, size_t nc, size_t NR, uint32_t acc[Q8NN_SCALAR_MAX_MR][Q8NN_SCALAR_MAX_NR],
    const int32_t* header, int8_t* c, size_t cm_stride, int rounding,
    const struct q8nn_qs8_conv_params* params) {
  const size_t ncols = nc < NR ? nc : NR;
  for (size_t n = 0; n < ncols; n++) {
    const int32_t multiplier = q8nn_load_s32(header + NR + n);
    const int32_t shift = q8nn_load_s32(header + 2 * NR + n);
    for (size_t m = 0; m < mr; m++) {
      c[m * cm_stride + n] = q8nn_scalar_requantize(acc[m][n], multiplier, shift, rounding, params);
    }
  }
}

static inline void q8nn_scalar_gemm(
    size_t MR, size_t NR, int rounding,
    size_t mr, size_t nc, size_t kc, const int8_t* a, size_t a_stride, const void* w,
    int8_t* c, size_t cm_stride, size_t cn_stride, const struct q8nn_qs8_conv_params* params) {
  const int8_t* w8 = (const int8_t*) w;
  do {
    const int32_t* header = (const int32_t*) w8;
    const int8_t* wk = w8 + Q8NN_PACKED_HEADER_BYTES(NR);
    uint32_t acc[Q8NN_SCALAR_MAX_MR][Q8NN_SCALAR_MAX_NR];
    for (size_t n = 0; n < NR; n++) {
      const uint32_t b = (uint32_t) q8nn_load_s32(header + n);
      for (size_t m = 0; m < MR; m++) acc[m][n] = b;
    }
    for (size_t k = 0; k < kc; k++) {
      for (size_t m = 0; m < MR; m++) {
        /* rows past mr repeat the last row: computed, never stored */
        const int32_t va = (int32_t) (int8_t) (a[(m < mr ? m : mr - 1) * a_stride + k] ^ params->input_flip);
        for (size_t n = 0; n < NR; n++) acc[m][n] += (uint32_t) (va * (int32_t) wk[n]);
      }
      wk += NR;
    }
    q8nn_scalar_store_tile(mr, nc, NR, acc, header, c, cm_stride, rounding, params);
    w8 = wk;
    c += cn_stride;
    nc = nc > NR ? nc - NR : 0;
  } while (nc != 0);
}

static inline void q8nn_scalar_igemm(
    size_t MR, size_t NR, int rounding,
    size_t mr, size_t nc, size_t kc, size_t ks, const int8_t** a, const void* w,
    int8_t* c, size_t cm_stride, size_t cn_stride, size_t a_offset, const int8_t* zero,
    const struct q8nn_qs8_conv_params* params) {
  const int8_t* w8 = (const int8_t*) w;
  do {
    const int32_t* header = (const int32_t*) w8;
    const int8_t* wk = w8 + Q8NN_PACKED_HEADER_BYTES(NR);
    uint32_t acc[Q8NN_SCALAR_MAX_MR][Q8NN_SCALAR_MAX_NR];
    for (size_t n = 0; n < NR; n++) {
      const uint32_t b = (uint32_t) q8nn_load_s32(header + n);
      for (size_t m = 0; m < MR; m++) acc[m][n] = b;
    }
    for (size_t t = 0; t < ks; t++) {
      const int8_t* rows[Q8NN_SCALAR_MAX_MR];
      for (size_t m = 0; m < MR; m++) {
        const int8_t* row = a[t * MR + (m < mr ? m : mr - 1)];
        rows[m] = row == zero ? row : (const int8_t*) ((uintptr_t) row + a_offset);
      }
      for (size_t k = 0; k < kc; k++) {
        for (size_t m = 0; m < MR; m++) {
          const int32_t va = (int32_t) (int8_t) (rows[m][k] ^ params->input_flip);
          for (size_t n = 0; n < NR; n++) acc[m][n] += (uint32_t) (va * (int32_t) wk[n]);
        }
        wk += NR;
      }
    }
    q8nn_scalar_store_tile(mr, nc, NR, acc, header, c, cm_stride, rounding, params);
    w8 = wk;
    c += cn_stride;
    nc = nc > NR ? nc - NR : 0;
  } while (nc != 0);
}

#define Q8NN_SCALAR_MAX_CT 4

static inline void q8nn_scalar_dwconv(
    size_t CT, size_t TAPS, int rounding,
    size_t channels, size_t output_width, size_t taps, const int8_t** input, size_t input_stride,
    const void* weights, int8_t* output, size_t output_increment, size_t input_offset,
    const int8_t* zero, const struct q8nn_qs8_conv_params* params) {
  if (TAPS != 0) taps = TAPS;
  do {
    const int8_t* w8 = (const int8_t*) weights;
    for (size_t c0 = 0; c0 < channels; c0 += CT) {
      const int32_t* header = (const int32_t*) w8;
      const int8_t* wk = w8 + Q8NN_PACKED_HEADER_BYTES(CT);
      const size_t cn = channels - c0 < CT ? channels - c0 : CT;
      uint32_t acc[Q8NN_SCALAR_MAX_CT];
      for (size_t j = 0; j < CT; j++) acc[j] = (uint32_t) q8nn_load_s32(header + j);
      for (size_t t = 0; t < taps; t++) {
        const int8_t* row = input[t];
        if (row != zero) row = (const int8_t*) ((uintptr_t) row + input_offset);
        row += c0;
        for (size_t j = 0; j < cn; j++) {
          acc[j] += (uint32_t) ((int32_t) (int8_t) (row[j] ^ params->input_flip) * (int32_t) wk[j]);
        }
        wk += CT;
      }
      for (size_t j = 0; j < cn; j++) {
        output[j] = q8nn_scalar_requantize(acc[j], q8nn_load_s32(header + CT + j),
                                           q8nn_load_s32(header + 2 * CT + j), rounding, params);
      }
      output += cn;
      w8 = wk;
    }
    output += output_increment;
    input += input_stride;
  } while (--output_width != 0);
}

/* Instantiation macros: one line per exported kernel. */
#define Q8NN_SCALAR_GEMM(name, MR, NR, rounding) Q8NN_DEFINE_GEMM_UKERNEL(name, q8nn_scalar_gemm, MR, NR, rounding)
#define Q8NN_SCALAR_IGEMM(name, MR, NR, rounding) \
  Q8NN_DEFINE_IGEMM_UKERNEL(name, q8nn_scalar_igemm, MR, NR, rounding)
#define Q8NN_SCALAR_DWCONV(name, CT, TAPS, rounding) \
  Q8NN_DEFINE_DWCONV_UKERNEL(name, q8nn_scalar_dwconv, CT, TAPS, rounding)

#endif
