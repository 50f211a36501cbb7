/*
 * Tile helpers and drivers of the NEON 4x16 gemm / igemm kernels (any KR): 16 int32x4
 * accumulators for 4 rows x 16 output channels, started from the packed bias; the K loop is a
 * function handed in by the KR-specific header (always inlined: the drivers are instantiated with a
 * constant function). Epilogue: per 4 channels multiplier/shift from the packed header,
 * requantization in registers (neon-requant.h, both roundings), 16-byte stores or a partial
 * store of the nc tail. Rows >= mr alias the last valid row (computed, stored to the same bytes).
 */
#ifndef Q8NN_ARCH_NEON_GEMM_4X16_H
#define Q8NN_ARCH_NEON_GEMM_4X16_H

#include "arch/neon/neon-requant.h"

struct q8nn_neon_acc4x16 {
  int32x4_t v[4][4];
};

/* acc += a[0..3][0..kc) * w (one tap of packed weights); returns w advanced past the tap. */
typedef const int8_t* (*q8nn_neon_4x16_k_fn)(struct q8nn_neon_acc4x16* acc, const int8_t* a0,
                                             const int8_t* a1, const int8_t* a2, const int8_t* a3,
                                             size_t kc, const int8_t* w);

Q8NN_NEON_INLINE void q8nn_neon_4x16_init(struct q8nn_neon_acc4x16* acc, const int32_t* bias) {
  for (int q = 0; q < 4; q++) {
    const int32x4_t vb = vld1q_s32(bias + 4 * q);
    for (int r = 0; r < 4; r++) acc->v[r][q] = vb;
  }
}

/* Requantizes the tile with the block's header and stores min(nc, 16) columns of rows c[0..3]. */
Q8NN_NEON_INLINE void q8nn_neon_4x16_store(struct q8nn_neon_acc4x16* acc, const int32_t* header,
                                           int8_t* c[4], size_t nc, int rounding,
                                           struct q8nn_neon_out o) {
  /* Two copies of the loop, so the common case (all shifts <= 0) carries no SSHL. */
  if (rounding == 0 && q8nn_neon_any_left_shift16(header + 32)) {
    for (int q = 0; q < 4; q++) {
      const struct q8nn_neon_rq rq = q8nn_neon_rq_load(header + 16 + 4 * q, header + 32 + 4 * q, 0);
      for (int r = 0; r < 4; r++) acc->v[r][q] = q8nn_neon_requantize(acc->v[r][q], rq, 0, 1);
    }
  } else {
    for (int q = 0; q < 4; q++) {
      const struct q8nn_neon_rq rq = q8nn_neon_rq_load(header + 16 + 4 * q, header + 32 + 4 * q, rounding);
      for (int r = 0; r < 4; r++) acc->v[r][q] = q8nn_neon_requantize(acc->v[r][q], rq, rounding, 0);
    }
  }
  for (int r = 3; r >= 0; r--) {
    const int8x16_t out = q8nn_neon_pack16(acc->v[r][0], acc->v[r][1], acc->v[r][2], acc->v[r][3], o);
    if (nc >= 16) {
      vst1q_s8(c[r], out);
    } else {
      q8nn_neon_store_partial(c[r], out, nc);
    }
  }
}

Q8NN_NEON_INLINE void q8nn_neon_gemm_4x16(q8nn_neon_4x16_k_fn kfn, int rounding, size_t mr, size_t nc, size_t kc,
                                            const int8_t* a, size_t a_stride, const void* w,
                                            int8_t* c, size_t cm_stride, size_t cn_stride,
                                            const struct q8nn_qs8_conv_params* params) {
  const int8_t* ar[4];
  int8_t* cr[4];
  for (size_t r = 0; r < 4; r++) {
    const size_t rr = r < mr ? r : mr - 1;
    ar[r] = a + rr * a_stride;
    cr[r] = c + rr * cm_stride;
  }
  const struct q8nn_neon_out o = q8nn_neon_out_load(params);
  const int8_t* wp = (const int8_t*) w;
  do {
    const int32_t* header = (const int32_t*) wp;
    struct q8nn_neon_acc4x16 acc;
    q8nn_neon_4x16_init(&acc, header);
    wp = kfn(&acc, ar[0], ar[1], ar[2], ar[3], kc, wp + Q8NN_PACKED_HEADER_BYTES(16));
    q8nn_neon_4x16_store(&acc, header, cr, nc, rounding, o);
    for (int r = 0; r < 4; r++) cr[r] += cn_stride;
    nc = nc > 16 ? nc - 16 : 0;
  } while (nc != 0);
}

Q8NN_NEON_INLINE void q8nn_neon_igemm_4x16(q8nn_neon_4x16_k_fn kfn, int rounding, size_t mr, size_t nc, size_t kc, size_t ks,
                                             const int8_t** a, const void* w, int8_t* c,
                                             size_t cm_stride, size_t cn_stride, size_t a_offset,
                                             const int8_t* zero,
                                             const struct q8nn_qs8_conv_params* params) {
  int8_t* cr[4];
  for (size_t r = 0; r < 4; r++) cr[r] = c + (r < mr ? r : mr - 1) * cm_stride;
  const struct q8nn_neon_out o = q8nn_neon_out_load(params);
  const int8_t* wp = (const int8_t*) w;
  do {
    const int32_t* header = (const int32_t*) wp;
    struct q8nn_neon_acc4x16 acc;
    q8nn_neon_4x16_init(&acc, header);
    wp += Q8NN_PACKED_HEADER_BYTES(16);
    const int8_t** ap = a;
    for (size_t p = 0; p < ks; p++) {
      const int8_t* ar[4];
      for (size_t r = 0; r < 4; r++) {
        const int8_t* row = ap[r < mr ? r : mr - 1];
        ar[r] = row == zero ? row : row + a_offset;
      }
      ap += 4;
      wp = kfn(&acc, ar[0], ar[1], ar[2], ar[3], kc, wp);
    }
    q8nn_neon_4x16_store(&acc, header, cr, nc, rounding, o);
    for (int r = 0; r < 4; r++) cr[r] += cn_stride;
    nc = nc > 16 ? nc - 16 : 0;
  } while (nc != 0);
}

/* One line per exported kernel pair (double / single rounding). */
#define Q8NN_NEON_GEMM_4X16(name_rdouble, name_rsingle, kfn)                                         \
  void name_rdouble(size_t mr, size_t nc, size_t kc, const int8_t* a, size_t a_stride, const void* w, \
                    int8_t* c, size_t cm_stride, size_t cn_stride,                                  \
                    const struct q8nn_qs8_conv_params* p) {                                         \
    q8nn_neon_gemm_4x16(kfn, 0, mr, nc, kc, a, a_stride, w, c, cm_stride, cn_stride, p);           \
  }                                                                                                 \
  void name_rsingle(size_t mr, size_t nc, size_t kc, const int8_t* a, size_t a_stride, const void* w, \
                    int8_t* c, size_t cm_stride, size_t cn_stride,                                  \
                    const struct q8nn_qs8_conv_params* p) {                                         \
    q8nn_neon_gemm_4x16(kfn, 1, mr, nc, kc, a, a_stride, w, c, cm_stride, cn_stride, p);           \
  }
#define Q8NN_NEON_IGEMM_4X16(name_rdouble, name_rsingle, kfn)                                        \
  void name_rdouble(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t** a, const void* w,    \
                    int8_t* c, size_t cm_stride, size_t cn_stride, size_t a_offset,                 \
                    const int8_t* zero, const struct q8nn_qs8_conv_params* p) {                     \
    q8nn_neon_igemm_4x16(kfn, 0, mr, nc, kc, ks, a, w, c, cm_stride, cn_stride, a_offset, zero, p); \
  }                                                                                                 \
  void name_rsingle(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t** a, const void* w,    \
                    int8_t* c, size_t cm_stride, size_t cn_stride, size_t a_offset,                 \
                    const int8_t* zero, const struct q8nn_qs8_conv_params* p) {                     \
    q8nn_neon_igemm_4x16(kfn, 1, mr, nc, kc, ks, a, w, c, cm_stride, cn_stride, a_offset, zero, p); \
  }

#endif
