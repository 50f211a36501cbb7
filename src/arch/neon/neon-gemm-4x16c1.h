/*
 * K loop of the NEON (no dot product) 4x16c1 gemm / igemm kernels (drivers: neon-gemm-4x16.h).
 * Weights: standard packing with KR = 1 (w[kc][16]). K is blocked by 8: each row loads 8
 * activations (SXTL to int16) and every k broadcasts one lane (SMLAL/SMLAL2 by element) against
 * 16 weights widened to int16: 16 multiply-accumulates per 64 MACs. The K tail (kc % 8) uses
 * scalar activations (DUP), so exactly kc bytes of every row are read. int8 products fit int16
 * and the int32 accumulation wraps like the scalar kernels' uint32 arithmetic. Input flip (uint8
 * activations): one EOR per 8-byte activation load before the SXTL, one scalar EOR per tail byte.
 */
#ifndef Q8NN_ARCH_NEON_GEMM_4X16C1_H
#define Q8NN_ARCH_NEON_GEMM_4X16C1_H

#include "arch/neon/neon-gemm-4x16.h"

#define Q8NN_NEON_4X16C1_STEP(lane)                                                                \
  do {                                                                                             \
    const int8x16_t vw = vld1q_s8(w);                                                              \
    w += 16;                                                                                       \
    const int16x8_t vwlo = vmovl_s8(vget_low_s8(vw));                                              \
    const int16x8_t vwhi = vmovl_high_s8(vw);                                                      \
    for (int r = 0; r < 4; r++) {                                                                  \
      acc->v[r][0] = vmlal_laneq_s16(acc->v[r][0], vget_low_s16(vwlo), va[r], lane);               \
      acc->v[r][1] = vmlal_high_laneq_s16(acc->v[r][1], vwlo, va[r], lane);                        \
      acc->v[r][2] = vmlal_laneq_s16(acc->v[r][2], vget_low_s16(vwhi), va[r], lane);               \
      acc->v[r][3] = vmlal_high_laneq_s16(acc->v[r][3], vwhi, va[r], lane);                        \
    }                                                                                              \
  } while (0)

Q8NN_NEON_INLINE const int8_t* q8nn_neon_4x16c1_k(struct q8nn_neon_acc4x16* acc, const int8_t* a0,
                                                  const int8_t* a1, const int8_t* a2,
                                                  const int8_t* a3, size_t kc, const int8_t* w,
                                                  int8x16_t vflip) {
  const int8_t* ap[4] = {a0, a1, a2, a3};
  const int8x8_t vflip8 = vget_low_s8(vflip);
  /* the flip sign-extended: x sign-extended EOR sflip is (int8_t) (x ^ flip) sign-extended */
  const int32_t sflip = vgetq_lane_s8(vflip, 0);
  size_t k = kc;
  for (; k >= 8; k -= 8) {
    int16x8_t va[4];
    for (int r = 0; r < 4; r++) {
      va[r] = vmovl_s8(veor_s8(vld1_s8(ap[r]), vflip8));
      ap[r] += 8;
    }
    Q8NN_NEON_4X16C1_STEP(0);
    Q8NN_NEON_4X16C1_STEP(1);
    Q8NN_NEON_4X16C1_STEP(2);
    Q8NN_NEON_4X16C1_STEP(3);
    Q8NN_NEON_4X16C1_STEP(4);
    Q8NN_NEON_4X16C1_STEP(5);
    Q8NN_NEON_4X16C1_STEP(6);
    Q8NN_NEON_4X16C1_STEP(7);
  }
  for (; k != 0; k--) {
    const int8x16_t vw = vld1q_s8(w);
    w += 16;
    const int16x8_t vwlo = vmovl_s8(vget_low_s8(vw));
    const int16x8_t vwhi = vmovl_high_s8(vw);
    for (int r = 0; r < 4; r++) {
      const int16x8_t va = vdupq_n_s16((int16_t) (*ap[r]++ ^ sflip));
      acc->v[r][0] = vmlal_laneq_s16(acc->v[r][0], vget_low_s16(vwlo), va, 0);
      acc->v[r][1] = vmlal_high_laneq_s16(acc->v[r][1], vwlo, va, 0);
      acc->v[r][2] = vmlal_laneq_s16(acc->v[r][2], vget_low_s16(vwhi), va, 0);
      acc->v[r][3] = vmlal_high_laneq_s16(acc->v[r][3], vwhi, va, 0);
    }
  }
  return w;
}

#endif
