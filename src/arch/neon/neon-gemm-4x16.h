/*
 * Tile helpers and drivers of the NEON 4x16 gemm / igemm kernels (any KR): 16 int32x4
 * accumulators for 4 rows x 16 output channels, started from the packed bias; the K loop is a
 * function handed in by the KR-specific header (always inlined: the drivers are instantiated with a
 * constant function). Epilogue: per 4 channels multiplier/shift from the packed header,
 * requantization in registers (neon-requant.h: both TFLite roundings, or XNNPACK's fp32 with the
 * scale in the multiplier slot), 16-byte stores or a partial
 * store of the nc tail. Rows >= mr alias the last valid row (computed, stored to the same bytes).
 * uint8 activations: the input flip is loaded once per call and handed to the K loop, which EORs
 * every activation vector with it after the load (the zero row too: it holds input bytes); the
 * output flip is the last EOR of q8nn_neon_pack16, before the (full or partial) stores.
 */
#ifndef Q8NN_ARCH_NEON_GEMM_4X16_H
#define Q8NN_ARCH_NEON_GEMM_4X16_H

#include "arch/neon/neon-requant.h"

struct q8nn_neon_acc4x16 {
  int32x4_t v[4][4];
};

/* acc += (a[0..3][0..kc) ^ vflip) * w (one tap of packed weights); returns w advanced past the
   tap. vflip: q8nn_neon_input_flip (every activation byte is EORed with it before use). */
typedef const int8_t* (*q8nn_neon_4x16_k_fn)(struct q8nn_neon_acc4x16* acc, const int8_t* a0,
                                             const int8_t* a1, const int8_t* a2, const int8_t* a3,
                                             size_t kc, const int8_t* w, int8x16_t vflip);

/* Accumulator layouts. ROWS: v[row][q] holds channels 4q..4q+3 of one row (SMLAL, SDOT).
   MMLA: SMMLA's 2x2 blocks: v[2 * p + j / 4][j % 4] holds rows 2p, 2p+1 x channels 2j, 2j+1 as
   {r0c0, r0c1, r1c0, r1c1}; the epilogue turns it into ROWS with ZIP1/ZIP2 of 64-bit lanes. */
#define Q8NN_NEON_LAYOUT_ROWS 0
#define Q8NN_NEON_LAYOUT_MMLA 1

Q8NN_NEON_INLINE void q8nn_neon_4x16_init(struct q8nn_neon_acc4x16* acc, const int32_t* bias,
                                          int layout) {
  if (layout == Q8NN_NEON_LAYOUT_ROWS) {
    for (int q = 0; q < 4; q++) {
      const int32x4_t vb = vld1q_s32(bias + 4 * q);
      for (int r = 0; r < 4; r++) acc->v[r][q] = vb;
    }
  } else {
    for (int j = 0; j < 8; j++) {
      const int32x4_t vb = vreinterpretq_s32_s64(vld1q_dup_s64((const int64_t*) (bias + 2 * j)));
      acc->v[j / 4][j % 4] = vb;
      acc->v[2 + j / 4][j % 4] = vb;
    }
  }
}

Q8NN_NEON_INLINE void q8nn_neon_4x16_mmla_to_rows(struct q8nn_neon_acc4x16* acc) {
  struct q8nn_neon_acc4x16 t;
  for (int p = 0; p < 2; p++) {
    for (int q = 0; q < 4; q++) {
      const int64x2_t x = vreinterpretq_s64_s32(acc->v[2 * p + (2 * q) / 4][(2 * q) % 4]);
      const int64x2_t y = vreinterpretq_s64_s32(acc->v[2 * p + (2 * q + 1) / 4][(2 * q + 1) % 4]);
      t.v[2 * p][q] = vreinterpretq_s32_s64(vzip1q_s64(x, y));
      t.v[2 * p + 1][q] = vreinterpretq_s32_s64(vzip2q_s64(x, y));
    }
  }
  *acc = t;
}

/* Requantizes the tile with the block's header and stores min(nc, 16) columns of rows c[0..3]. */
Q8NN_NEON_INLINE void q8nn_neon_4x16_store(struct q8nn_neon_acc4x16* acc, const int32_t* header,
                                           int8_t* c[4], size_t nc, int rounding,
                                           struct q8nn_neon_out o, int layout) {
  if (layout == Q8NN_NEON_LAYOUT_MMLA) q8nn_neon_4x16_mmla_to_rows(acc);
  /* Two copies of the loop, so the common case (all shifts <= 0) carries no SSHL. */
  if (rounding == 2) {
    for (int q = 0; q < 4; q++) {
      const float32x4_t scale = vreinterpretq_f32_s32(vld1q_s32(header + 16 + 4 * q));
      for (int r = 0; r < 4; r++) acc->v[r][q] = q8nn_neon_requantize_fp32(acc->v[r][q], scale);
    }
  } else if (rounding == 0 && q8nn_neon_any_left_shift16(header + 32)) {
    for (int q = 0; q < 4; q++) {
      const struct q8nn_neon_rq rq = q8nn_neon_rq_load(header + 16 + 4 * q, header + 32 + 4 * q, 0);
      for (int r = 0; r < 4; r++) acc->v[r][q] = q8nn_neon_requantize(acc->v[r][q], rq, 0, 1);
    }
  } else {
    for (int q = 0; q < 4; q++) {
      const struct q8nn_neon_rq rq =
          q8nn_neon_rq_load(header + 16 + 4 * q, header + 32 + 4 * q, rounding);
      for (int r = 0; r < 4; r++)
        acc->v[r][q] = q8nn_neon_requantize(acc->v[r][q], rq, rounding, 0);
    }
  }
  for (int r = 3; r >= 0; r--) {
    const int8x16_t out =
        q8nn_neon_pack16(acc->v[r][0], acc->v[r][1], acc->v[r][2], acc->v[r][3], o, rounding);
    if (nc >= 16) {
      vst1q_s8(c[r], out);
    } else {
      q8nn_neon_store_partial(c[r], out, nc);
    }
  }
}

Q8NN_NEON_INLINE void q8nn_neon_gemm_4x16(q8nn_neon_4x16_k_fn kfn, int layout, int rounding,
                                          size_t mr, size_t nc, size_t kc, const int8_t* a,
                                          size_t a_stride, const void* w, int8_t* c,
                                          size_t cm_stride, size_t cn_stride,
                                          const struct q8nn_qs8_conv_params* params) {
  const int8_t* ar[4];
  int8_t* cr[4];
  for (size_t r = 0; r < 4; r++) {
    const size_t rr = r < mr ? r : mr - 1;
    ar[r] = a + rr * a_stride;
    cr[r] = c + rr * cm_stride;
  }
  const struct q8nn_neon_out o = q8nn_neon_out_load(params);
  const int8x16_t vflip = q8nn_neon_input_flip(params);
  const int8_t* wp = (const int8_t*) w;
  do {
    const int32_t* header = (const int32_t*) wp;
    struct q8nn_neon_acc4x16 acc;
    q8nn_neon_4x16_init(&acc, header, layout);
    wp = kfn(&acc, ar[0], ar[1], ar[2], ar[3], kc, wp + Q8NN_PACKED_HEADER_BYTES(16), vflip);
    q8nn_neon_4x16_store(&acc, header, cr, nc, rounding, o, layout);
    for (int r = 0; r < 4; r++) cr[r] += cn_stride;
    nc = nc > 16 ? nc - 16 : 0;
  } while (nc != 0);
}

Q8NN_NEON_INLINE void q8nn_neon_igemm_4x16(q8nn_neon_4x16_k_fn kfn, int layout, int rounding,
                                           size_t mr, size_t nc, size_t kc, size_t ks,
                                           const int8_t** a, const void* w, int8_t* c,
                                           size_t cm_stride, size_t cn_stride, size_t a_offset,
                                           const int8_t* zero,
                                           const struct q8nn_qs8_conv_params* params) {
  int8_t* cr[4];
  for (size_t r = 0; r < 4; r++) cr[r] = c + (r < mr ? r : mr - 1) * cm_stride;
  const struct q8nn_neon_out o = q8nn_neon_out_load(params);
  const int8x16_t vflip = q8nn_neon_input_flip(params);
  const int8_t* wp = (const int8_t*) w;
  do {
    const int32_t* header = (const int32_t*) wp;
    struct q8nn_neon_acc4x16 acc;
    q8nn_neon_4x16_init(&acc, header, layout);
    wp += Q8NN_PACKED_HEADER_BYTES(16);
    const int8_t** ap = a;
    for (size_t p = 0; p < ks; p++) {
      const int8_t* ar[4];
      for (size_t r = 0; r < 4; r++) {
        const int8_t* row = ap[r < mr ? r : mr - 1];
        ar[r] = row == zero ? row : (const int8_t*) ((uintptr_t) row + a_offset);
      }
      ap += 4;
      wp = kfn(&acc, ar[0], ar[1], ar[2], ar[3], kc, wp, vflip);
    }
    q8nn_neon_4x16_store(&acc, header, cr, nc, rounding, o, layout);
    for (int r = 0; r < 4; r++) cr[r] += cn_stride;
    nc = nc > 16 ? nc - 16 : 0;
  } while (nc != 0);
}

/* One line per exported kernel pair (double / single rounding), or per fp32 kernel. */
#define Q8NN_NEON_GEMM_4X16(name_rdouble, name_rsingle, kfn, layout)      \
  Q8NN_DEFINE_GEMM_UKERNEL(name_rdouble, q8nn_neon_gemm_4x16, kfn, layout, 0) \
  Q8NN_DEFINE_GEMM_UKERNEL(name_rsingle, q8nn_neon_gemm_4x16, kfn, layout, 1)
#define Q8NN_NEON_IGEMM_4X16(name_rdouble, name_rsingle, kfn, layout)       \
  Q8NN_DEFINE_IGEMM_UKERNEL(name_rdouble, q8nn_neon_igemm_4x16, kfn, layout, 0) \
  Q8NN_DEFINE_IGEMM_UKERNEL(name_rsingle, q8nn_neon_igemm_4x16, kfn, layout, 1)
#define Q8NN_NEON_GEMM_4X16_FP32(name_fp32, kfn, layout) \
  Q8NN_DEFINE_GEMM_UKERNEL(name_fp32, q8nn_neon_gemm_4x16, kfn, layout, 2)
#define Q8NN_NEON_IGEMM_4X16_FP32(name_fp32, kfn, layout) \
  Q8NN_DEFINE_IGEMM_UKERNEL(name_fp32, q8nn_neon_igemm_4x16, kfn, layout, 2)

#endif
